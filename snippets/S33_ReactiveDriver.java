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
 * The question: U users run the same query back to back through a pool of P connections, by JDBC (HikariCP) with
 * a virtual thread per user, and by R2DBC (r2dbc-postgresql, r2dbc-pool) on a few Netty event loops; the query
 * either waits (SELECT pg_sleep(q)) or costs almost nothing (SELECT 1).
 * The bound: a connection serves one query at a time, so the waiting query gives throughput <= min(U, P) / q for
 * BOTH drivers (Little's law; 50 users, pool 10, 20 ms: 500 queries/s); for SELECT 1 the cores are the limit.
 * The pitfall: reactive code, like virtual threads, lets requests wait without a thread each; it does not make the
 * database answer sooner, so past the thread cap a reactive driver competes only on CPU per query.
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

    static final List<String> DRIVERS = List.of("jdbc", "r2dbc"), WORKLOADS = List.of("select1", "wait");

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
 * What you should see: with pg_sleep both drivers at the pool's bound (ratio near 1); with SELECT 1 a difference
 * in CPU per query, not the far higher throughput claimed. Reference runs:
 * data/reference-runs/snippets/S33-reactive-driver.md.
 */
