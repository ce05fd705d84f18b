///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//RUNTIME_OPTIONS --enable-native-access=ALL-UNNAMED
//DEPS org.postgresql:r2dbc-postgresql:1.1.3.RELEASE
//DEPS io.r2dbc:r2dbc-pool:1.0.2.RELEASE
//SOURCES ../helpers/unpinned/running/Database.java
//SOURCES ../helpers/unpinned/experiments/ReactiveDriver.java
package unpinned.snippets;

/*
 * S33: would a reactive database driver be "far faster" than JDBC on virtual threads?
 *
 * The question: the JDK 25 + JPA post ends by saying a reactive driver (R2DBC) instead of JPA/JDBC would give far
 * more throughput. Here U users run the same query back to back against the same PostgreSQL through a pool of P
 * connections, two ways: JDBC (HikariCP) with a virtual thread per user, which blocks; and R2DBC (r2dbc-postgresql
 * with r2dbc-pool), where no thread waits and a few Netty event loops carry every user. Two queries:
 *   wait     SELECT pg_sleep(q): the database holds the connection q seconds (the usual service: I/O-bound);
 *   select1  SELECT 1: the query costs almost nothing, so what each driver spends per query on the CPU shows.
 *
 * The bound: a connection serves one query at a time, whatever drives it, so for the waiting query Little's law
 * gives throughput <= min(U, P) / q for BOTH drivers (50 users, pool 10, 20 ms: 500 queries/s). No driver can raise
 * that: only more connections or faster queries can. For SELECT 1 nothing waits and the cores are the limit; there
 * the difference is CPU per query (this JVM's, and the PostgreSQL server's beside it on the same 2 cores).
 *
 * The pitfall: "reactive is faster" mixes up two things. Reactive code (like virtual threads) lets many requests
 * wait without a thread each; it does not make the database answer sooner or hold more queries at once. Once
 * virtual threads remove the thread cap, a reactive driver competes only on CPU per query.
 * Plumbing (the window, the CPU counters, rows, summary): unpinned.experiments.ReactiveDriver.
 */

import com.zaxxer.hikari.HikariDataSource;
import io.r2dbc.pool.ConnectionPool;
import io.r2dbc.pool.ConnectionPoolConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionConfiguration;
import io.r2dbc.postgresql.PostgresqlConnectionFactory;
import io.r2dbc.spi.Connection;
import io.r2dbc.spi.Statement;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import unpinned.experiments.ReactiveDriver;
import unpinned.experiments.ReactiveDriver.Row;
import unpinned.experiments.ReactiveDriver.Tally;
import unpinned.experiments.ReactiveDriver.Window;
import unpinned.experiments.ReactiveDriver.Workload;
import unpinned.core.Experiment;
import unpinned.running.Database;

import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;

public class S33_ReactiveDriver {
    static final List<String> DRIVERS = List.of("jdbc", "r2dbc"), WORKLOADS = List.of("select1", "wait");

    /** JDBC on virtual threads: one thread per user, blocked in the pool and on the socket while it waits. */
    static CompletableFuture<?> jdbcUsers(HikariDataSource pool, Workload w, int users, Window win, Tally tally) {
        String sql = w.waits() ? "SELECT pg_sleep(?)" : "SELECT 1";
        return CompletableFuture.runAsync(() -> {
            try (var threads = Executors.newVirtualThreadPerTaskExecutor()) { // close() waits for every user
                for (int u = 0; u < users; u++) {
                    threads.submit(() -> {
                        while (win.open() && tally.errors.sum() == 0) {
                            try (var c = pool.getConnection(); PreparedStatement ps = c.prepareStatement(sql)) {
                                if (w.waits()) ps.setDouble(1, w.seconds());
                                ps.execute();
                                tally.ended(win);
                            } catch (Exception e) {
                                tally.failed(e);
                            }
                        }
                    });
                }
            }
        }, Thread.ofVirtual()::start); // one virtual thread waits for the users: no executor left open
    }

    /** R2DBC: each user a chain that borrows a connection, runs the query, gives it back, and repeats. */
    static CompletableFuture<?> r2dbcUsers(ConnectionPool pool, Workload w, int users, Window win, Tally tally) {
        Mono<Void> query = Mono.usingWhen(pool.create(), c -> Flux.from(statement(c, w).execute())
                .flatMap(result -> result.map((row, meta) -> 1)).then(), Connection::close);
        return Flux.range(0, users)
                .flatMap(u -> query.doOnSuccess(done -> tally.ended(win)).repeat(win::open), users)
                .then().toFuture();
    }

    static Statement statement(Connection c, Workload w) {
        return w.waits() ? c.createStatement("SELECT pg_sleep($1)").bind("$1", w.seconds())
                : c.createStatement("SELECT 1");
    }

    public static void main(String[] args) {
        Experiment.named("S33", "JDBC on virtual threads vs a reactive driver (R2DBC)", "s33-reactive-driver")
                .count("--users", 50, 200, 1, 2_000, "closed-loop users, each one query after another")
                .count("--pool", 10, 10, 1, Database.MAX_POOL, "connections in each driver's pool")
                .count("--query-ms", 20, 20, 1, 10_000, "the waiting query: SELECT pg_sleep(N / 1000)")
                .oneOf("--driver", "all", List.of("jdbc", "r2dbc", "all"), "jdbc, r2dbc, or all (both, in turn)")
                .oneOf("--workload", "all", List.of("wait", "select1", "all"), "select1, wait (pg_sleep), or all (in"
                        + " that order: SELECT 1's thousands of queries warm both drivers up before the waiting"
                        + " query is timed)")
                .number("--warmup-s", 1, 3, 0, 60, "seconds of load before each window")
                .number("--duration-s", 1, 5, 0.5, 600, "seconds measured per driver and workload")
                .check(a -> Database.checkUrl())
                .takes(Duration.ofMinutes(30), a -> {
                    int drivers = ReactiveDriver.each(a.oneOf("--driver"), DRIVERS).size();
                    int workloads = ReactiveDriver.each(a.oneOf("--workload"), WORKLOADS).size();
                    double warmUp = a.number("--warmup-s"), window = a.number("--duration-s");
                    return Experiment.Time.of(Database.START_S + drivers * workloads * (warmUp + window), "a"
                            + " database's start of %.0f s + %d driver%s x %d workload%s x (warm-up %,.1f s + window"
                            + " %,.1f s)", Database.START_S, drivers, drivers == 1 ? "" : "s", workloads,
                            workloads == 1 ? "" : "s", warmUp, window);
                })
                .run(args, S33_ReactiveDriver::measure);
    }

    static ReactiveDriver.Report measure(Experiment.Args a) throws Exception {
        int users = a.intCount("--users"), poolSize = a.intCount("--pool"), queryMs = a.intCount("--query-ms");
        double warmup = a.number("--warmup-s"), window = a.number("--duration-s");
        int cores = Runtime.getRuntime().availableProcessors();
        try (Database db = Database.start(System.out)) { // close(): stops the server and deletes its folder
            System.out.println("database: " + db.version() + " (" + db.kind() + ")");
            if (db.kind().equals(Database.H2)) { // H2 stands in for JDBC only: there is no R2DBC to compare
                return new ReactiveDriver.Report(db.kind(), db.version(), users, poolSize, queryMs, warmup, window,
                        cores, List.of(), Runtime.version().toString(), "S33 needs PostgreSQL for R2DBC; this"
                        + " machine ran H2 instead (the embedded server could not start): nothing measured");
            }
            HikariDataSource jdbc = db.pool("s33-jdbc", poolSize, Duration.ofSeconds(10));
            Database.Address at = db.address(); // where JDBC connects, read by the one parser the guard used
            var config = PostgresqlConnectionConfiguration.builder().host(at.host()).port(at.port())
                    .database(at.database()).username(db.user());
            if (db.password() != null && !db.password().isEmpty()) config.password(db.password());
            ConnectionPool r2dbc = new ConnectionPool(ConnectionPoolConfiguration.builder(
                    new PostgresqlConnectionFactory(config.build())).initialSize(poolSize).maxSize(poolSize)
                    .maxAcquireTime(Duration.ofSeconds(10)).build());
            try {
                r2dbc.warmup().block(Duration.ofSeconds(30));
                long serverPid = db.serverPid().orElse(-1);
                List<Row> rows = new ArrayList<>();
                for (String name : ReactiveDriver.each(a.oneOf("--workload"), WORKLOADS)) {
                    Workload w = Workload.of(name, queryMs);
                    for (String driver : ReactiveDriver.each(a.oneOf("--driver"), DRIVERS)) {
                        rows.add(ReactiveDriver.measure(driver, w, users, poolSize, warmup, window, serverPid,
                                (wl, u, win, t) -> driver.equals("jdbc") ? jdbcUsers(jdbc, wl, u, win, t)
                                        : r2dbcUsers(r2dbc, wl, u, win, t)));
                    }
                }
                ReactiveDriver.summary(rows);
                return new ReactiveDriver.Report(db.kind(), db.version(), users, poolSize, queryMs, warmup, window,
                        cores, rows, Runtime.version().toString(), null);
            } finally {
                r2dbc.disposeLater().block(Duration.ofSeconds(10));
            }
        } catch (IllegalStateException | IllegalArgumentException e) {
            throw ReactiveDriver.failed(e);
        }
    }
}

/*
 * How to run:
 *   tools/jbang reactive-driver                                   (both drivers, both queries: about 15 s)
 *   tools/jbang reactive-driver --workload wait --users 200 --pool 20
 *   UNPINNED_DB_URL=jdbc:postgresql://127.0.0.1:5432/postgres UNPINNED_DB_USER=me UNPINNED_DB_PASSWORD=... \
 *       tools/jbang reactive-driver                               (your own PostgreSQL)
 *
 * What you should see (2 cores, JDK 25.0.3, embedded PostgreSQL 17.11; quick: 50 users, pool 10, 20 ms, 1 s warm-up +
 * 1 s per window; two runs on an idle machine):
 *   driver workload  queries/s      x bound    client µs/q  server µs/q
 *   jdbc   select1   42,700-56,200  -          20-30        14-15
 *   r2dbc  select1    9,700-10,300  -          152-165      37-39
 *   jdbc   wait             480-490 0.96-0.98  160-310      40-60
 *   r2dbc  wait                 480 0.96       1,250-1,400  85-125
 *   pg_sleep: R2DBC / JDBC 0.98-1.00 x the queries/s: both at the pool's bound, the driver changes nothing.
 *   SELECT 1: R2DBC / JDBC 0.17-0.24 x the queries/s, 5-8 x the client CPU per query: on this machine and these
 *   versions the blocking driver on a virtual thread spent less CPU per query (where R2DBC's goes is not profiled
 *   here). Far more throughput, the post's claim, shows on neither query.
 */
