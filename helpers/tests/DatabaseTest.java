package unpinned.running;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.zaxxer.hikari.HikariDataSource;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.HashSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

public class DatabaseTest {
    public static final ByteArrayOutputStream OUT = new ByteArrayOutputStream();

    public static PrintStream out() {
        OUT.reset();
        return new PrintStream(OUT, true, StandardCharsets.UTF_8);
    }

    /** pg_sleep(s) through the pool: the milliseconds it took (at least s). */
    public static double sleepMs(HikariDataSource pool, double seconds) throws SQLException {
        long t0 = System.nanoTime();
        try (Connection c = pool.getConnection(); PreparedStatement ps = c.prepareStatement("SELECT pg_sleep(?)")) {
            ps.setDouble(1, seconds);
            ps.execute();
        }
        return (System.nanoTime() - t0) / 1e6;
    }

    /** Creates a table, inserts three rows and counts them. */
    public static int insertAndCount(HikariDataSource pool) throws SQLException {
        try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE orders (id INT PRIMARY KEY, item VARCHAR(40) NOT NULL)");
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO orders (id, item) VALUES (?, ?)")) {
                for (int i = 1; i <= 3; i++) {
                    ps.setInt(1, i);
                    ps.setString(2, "item-" + i);
                    ps.executeUpdate();
                }
            }
            try (ResultSet r = s.executeQuery("SELECT count(*) FROM orders WHERE item LIKE 'item-%'")) {
                r.next();
                return r.getInt(1);
            }
        }
    }

    @Test
    void anEmbeddedPostgresRunsQueriesAndLeavesNothingBehind() throws Exception {
        Database db = Database.start(out(), k -> null, true); // the environment ignored: never the learner's server
        Path folder;
        long pid;
        List<ProcessHandle> family = new ArrayList<>(); // the postmaster and its children (backends, workers)
        try {
            String said = OUT.toString(StandardCharsets.UTF_8).strip();
            assumeTrue(db.kind().equals(Database.EMBEDDED), "no embedded PostgreSQL on this machine: " + said);
            assertEquals("", said, "the embedded server starts quietly");
            assertTrue(db.version().startsWith("PostgreSQL 17."), db.version());
            assertTrue(db.jdbcUrl().startsWith("jdbc:postgresql://127.0.0.1:"), db.jdbcUrl());
            folder = db.folder();
            pid = db.serverPid().orElseThrow();
            assertTrue(Files.isDirectory(folder.resolve("data")) && ProcessHandle.of(pid).isPresent(), folder.toString());

            HikariDataSource pool = db.pool("test-pg", 4, Duration.ofMillis(500));
            assertEquals(4, pool.getHikariPoolMXBean().getTotalConnections(), "all connections open on return");
            double ms = sleepMs(pool, 0.05);
            assertTrue(ms >= 50 && ms < 2_000, "pg_sleep(0.05) took " + ms + " ms");
            assertEquals(3, insertAndCount(pool));
            try (Connection c = pool.getConnection(); Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("SHOW max_connections")) {
                r.next();
                assertEquals(Database.EMBEDDED_MAX_CONNECTIONS, r.getInt(1));
            }
            try (Connection c = pool.getConnection(); Statement s = c.createStatement();
                 ResultSet r = s.executeQuery("SHOW listen_addresses")) {
                r.next();
                assertEquals("127.0.0.1", r.getString(1), "loopback only");
            }
            // an exhausted pool makes the next caller wait connectionTimeout, then fail
            HikariDataSource one = db.pool("test-one", 1, Duration.ofMillis(250));
            try (Connection held = one.getConnection()) {
                long t0 = System.nanoTime();
                assertThrows(SQLTransientConnectionException.class, one::getConnection);
                assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(240));
            }
            var e = assertThrows(IllegalArgumentException.class, () -> Database.checkCapacity(1_005, 5, 1_001));
            assertTrue(e.getMessage().startsWith("pools of this database can hold at most 1,005 connections in all"),
                    e.getMessage());
            Database.checkCapacity(1_005, 5, 1_000);
            ProcessHandle postmaster = ProcessHandle.of(pid).orElseThrow();
            family.add(postmaster);
            family.addAll(postmaster.children().toList());
            assertTrue(family.size() >= 6, "the postmaster, its workers and 5 backends: " + family.size());
        } finally {
            db.close();
        }
        // (exited but not yet reaped by whoever adopted it counts as ended: a zombie holds no port, memory or files)
        assertTrue(ProcessHandle.of(pid).map(Database::ended).orElse(true), "postmaster " + pid + " still runs");
        assertTrue(family.stream().allMatch(Database::ended), "a postgres process is still running");
        assertFalse(Files.exists(folder), folder + " still exists");
        assertTrue(ProcessHandle.allProcesses().noneMatch(h -> h.info().commandLine().orElse("").contains(folder.toString())),
                "a process still names " + folder);
        db.close(); // idempotent
        assertThrows(IllegalStateException.class, () -> db.pool("late", 1, Duration.ofSeconds(1)));
    }

    @Test
    void h2IsTheFallbackWithAnInterruptiblePgSleep() throws Exception {
        try (Database db = Database.start(out(), k -> null, false)) {
            String said = OUT.toString(StandardCharsets.UTF_8);
            assertEquals(Database.H2, db.kind());
            assertTrue(said.startsWith("database: embedded PostgreSQL not tried; using H2 2.")
                    && said.strip().lines().count() == 1, said);
            assertTrue(db.version().startsWith("H2 2."), db.version());
            assertTrue(db.serverPid().isEmpty() && db.folder() == null);
            HikariDataSource pool = db.pool("test-h2", 3, Duration.ofMillis(500));
            double ms = sleepMs(pool, 0.05);
            assertTrue(ms >= 50 && ms < 2_000, "pg_sleep(0.05) took " + ms + " ms");
            assertEquals(3, insertAndCount(pool));

            AtomicReference<Throwable> failure = new AtomicReference<>();
            Thread sleeper = Thread.ofVirtual().start(() -> {
                try {
                    sleepMs(pool, 30);
                } catch (Throwable t) {
                    failure.set(t);
                }
            });
            Thread.sleep(100);
            long t0 = System.nanoTime();
            sleeper.interrupt();
            assertTrue(sleeper.join(Duration.ofSeconds(5)), "pg_sleep(30) ignored the interrupt");
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(5));
            assertTrue(failure.get() instanceof SQLException, String.valueOf(failure.get()));
        }
    }

    @Test
    void badSizesAndUrlsSayWhatIsAllowed() {
        try (Database db = Database.start(out(), k -> null, false)) {
            var e = assertThrows(IllegalArgumentException.class, () -> db.pool("p", 0, Duration.ofSeconds(1)));
            assertEquals("pool size must be from 1 to 1,000 connections; got 0", e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> db.pool("p", 1_001, Duration.ofSeconds(1)));
            assertTrue(e.getMessage().contains("1 to 1,000"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> db.pool("p", 5, Duration.ofMillis(100)));
            assertEquals("connection timeout must be from 250 ms (HikariCP's minimum) to 600,000 ms; got 100 ms",
                    e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> db.pool("p", 5, Duration.ofHours(1)));
            assertTrue(e.getMessage().contains("600,000 ms"), e.getMessage());
            e = assertThrows(IllegalArgumentException.class, () -> db.pool("a b", 5, Duration.ofSeconds(1)));
            assertTrue(e.getMessage().startsWith("pool name must be"), e.getMessage());
        }
        var e = assertThrows(IllegalArgumentException.class, () -> Database.start(out(),
                Map.of(Database.URL_ENV, "jdbc:mysql://localhost/x")::get, true));
        assertTrue(e.getMessage().startsWith("UNPINNED_DB_URL must be a jdbc:postgresql:// URL"), e.getMessage());
        var s = assertThrows(IllegalStateException.class, () -> Database.start(out(),
                Map.of(Database.URL_ENV, "jdbc:postgresql://127.0.0.1:9/none")::get, true));
        assertTrue(s.getMessage().startsWith("cannot connect to UNPINNED_DB_URL"), s.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Database.start(null));
    }

    @Test
    void everyDriverIsGivenTheAddressTheGuardJudged() {
        // R2DBC once read the URL's host with java.net.URI, while JDBC and the guard honoured ?PGHOST=
        assertEquals(new Database.Address("127.0.0.1", 5433, "db"),
                Database.address("jdbc:postgresql://127.0.0.2:5433/db?PGHOST=127.0.0.1", null, null));
        assertEquals(new Database.Address("localhost", 5432, "postgres"),
                Database.address("jdbc:postgresql://localhost/postgres", null, null));
        assertThrows(IllegalArgumentException.class,
                () -> Database.address("jdbc:postgresql://10.99.99.99:5432/postgres?PGHOST=127.0.0.1,10.1.1.1", null, null));
    }

    @Test
    void everyHostTheDriverWouldReachMustBeOnLoopback() throws Exception {
        for (String ok : List.of("jdbc:postgresql://127.0.0.1:5432/postgres", "jdbc:postgresql://localhost/x",
                "jdbc:postgresql://[::1]:5432/x", "jdbc:postgresql://127.0.0.1:1,localhost:2,127.0.0.2:3/x",
                "jdbc:postgresql://127.0.0.1/x?PGHOST=localhost&localSocketAddress=127.0.0.1&sslmode=disable")) {
            Database.checkUrl(ok, "me", "secret");
        }
        Map<String, String> refused = Map.of(
                "jdbc:postgresql://127.0.0.1:1,otherhost:5432/postgres", "host 'otherhost'",
                "jdbc:postgresql://127.0.0.1:5432/postgres?PGHOST=otherhost", "host 'otherhost'",
                "jdbc:postgresql://localhost/postgres?host=10.0.0.7", "host '10.0.0.7'",
                "jdbc:postgresql:///postgres", "host ''",
                "jdbc:postgresql://127.0.0.1/x?localSocketAddress=10.0.0.7", "localSocketAddress '10.0.0.7'",
                "jdbc:postgresql://127.0.0.1/x?socketFactory=a.B&socketFactoryArg=otherhost:1080", "must not set socketFactory",
                "jdbc:postgresql://127.0.0.1/x?sslfactory=a.B", "must not set sslfactory",
                "jdbc:postgresql://127.0.0.999:5432/postgres", "host '127.0.0.999'");
        refused.forEach((url, says) -> {
            var e = assertThrows(IllegalArgumentException.class, () -> Database.checkUrl(url, null, null), url);
            assertTrue(e.getMessage().startsWith("UNPINNED_DB_URL must") && e.getMessage().contains(says)
                    && !e.getMessage().contains("\n"), e.getMessage());
        });
        var e = assertThrows(IllegalArgumentException.class,
                () -> Database.checkUrl("jdbc:postgresql://127.0.0.1/x?service=no-such-service", null, null));
        assertTrue(e.getMessage().startsWith("UNPINNED_DB_URL is not a URL the PostgreSQL driver accepts"), e.getMessage());

        // refused before any connection: the loopback host listed first is never contacted
        try (ServerSocket first = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            first.setSoTimeout(300);
            for (String url : List.of("jdbc:postgresql://127.0.0.1:" + first.getLocalPort() + ",otherhost:5432/postgres",
                    "jdbc:postgresql://127.0.0.1:" + first.getLocalPort() + "/postgres?PGHOST=otherhost")) {
                var r = assertThrows(IllegalArgumentException.class,
                        () -> Database.start(out(), Map.of(Database.URL_ENV, url)::get, false));
                assertTrue(r.getMessage().contains("host 'otherhost'"), r.getMessage());
            }
            assertThrows(SocketTimeoutException.class, first::accept, "the driver connected before the refusal");
        }
    }

    @Test
    void eachRunGetsATableOfItsOwnAndDropsIt() throws Exception {
        Set<String> names = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            String t = Database.runTable("s24_rows");
            assertTrue(t.matches("s24_rows_" + ProcessHandle.current().pid() + "_[a-z0-9]+") && t.length() <= 63, t);
            names.add(t);
        }
        assertEquals(100, names.size(), "names repeat");
        var e = assertThrows(IllegalArgumentException.class, () -> Database.runTable("Rows; DROP"));
        assertTrue(e.getMessage().startsWith("a table prefix must be"), e.getMessage());
        try (Database db = Database.start(out(), k -> null, false)) {
            HikariDataSource pool = db.pool("tables", 1, Duration.ofSeconds(1));
            String table = Database.runTable("t");
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                s.execute("CREATE TABLE " + table + " (id INT)");
            }
            assertTrue(Database.dropTable(pool, table));
            try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
                assertThrows(SQLException.class, () -> s.executeQuery("SELECT count(*) FROM " + table));
            }
        }
    }

    @Test
    void aServerThatExitedCountsAsEndedBeforeItsAdoptiveParentReapsIt() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/proc/self")), "needs /proc (Linux)");
        // sh starts a short sleep, then becomes a long one that never reaps it: a zombie for ~5 s, as the server
        // is after its fast shutdown while an unhurried init has yet to reap it (pg_ctl, its parent, is gone)
        Process parent = new ProcessBuilder("sh", "-c", "sleep 0.1 & exec sleep 5").start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
            while (parent.toHandle().children().findAny().isEmpty() && System.nanoTime() < deadline) Thread.sleep(5);
            ProcessHandle child = parent.toHandle().children().findAny().orElseThrow();
            while (!Database.ended(child) && System.nanoTime() < deadline) Thread.sleep(5);
            assertTrue(Database.ended(child), "the exited child was not counted as ended");
            assertTrue(child.isAlive(), "the test meant a zombie: isAlive() still true until it is reaped");
            assertFalse(Database.ended(parent.toHandle()), "a running process counted as ended");
        } finally {
            parent.destroyForcibly().waitFor();
        }
    }

    @Test
    void leftoversAreTidiedOnlyForThisCheckoutAndOnlyWhenTheirJvmHasEnded(@org.junit.jupiter.api.io.TempDir Path tmp)
            throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        String dead = Long.toString(gone.pid()), alive = Long.toString(ProcessHandle.current().pid());
        Path ours = leftover(tmp, "ours", dead, "/course/a"), other = leftover(tmp, "other", dead, "/course/b"),
                running = leftover(tmp, "running", alive, "/course/a"), older = leftover(tmp, "older", dead, null);
        Database.removeLeftovers(tmp, "/course/a");
        assertFalse(Files.exists(ours), "this checkout's leftover was left");
        assertTrue(Files.exists(other), "another checkout's folder was removed");
        assertTrue(Files.exists(running), "a running JVM's folder was removed");
        assertTrue(Files.exists(older), "a folder of unknown checkout was removed");
    }

    public static Path leftover(Path tmp, String name, String ownerPid, String checkout) throws Exception {
        Path dir = Files.createDirectories(tmp.resolve(Database.TEMP_PREFIX + name).resolve("data")).getParent();
        Files.writeString(dir.resolve("owner.pid"), ownerPid);
        if (checkout != null) Files.writeString(dir.resolve(Database.OWNER_HOME), checkout);
        return dir;
    }
}
