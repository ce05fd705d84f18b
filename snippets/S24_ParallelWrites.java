///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//RUNTIME_OPTIONS -Xms512m -Xmx512m
//SOURCES ../helpers/unpinned/experiments/ParallelWrites.java
package unpinned.snippets;

/*
 * S24: three inserts in parallel per request: a virtual-thread executor per request, or a pool per request.
 * The question: the JDK 25 + JPA post wrote 3 rows per POST with supplyAsync x 3 and a join, on a new executor per
 * request: virtual ~210 req/s, a new fixed pool of 100 ~156 req/s and 2,981 live threads after (38). Here 200
 * virtual-thread users run the same request against PostgreSQL, each mode in a JVM of its own: virtual,
 * fixed-leak (never shut down, as the post), fixed-closed (try-with-resources: the fix).
 * The bound: the lower of the pool's (connections / (3 x one insert's time)) and the CPU's (free cores / CPU per
 * request, this JVM and its PostgreSQL); on 2 cores the CPU's (see time). Throughput is printed as a ratio to it.
 * The pitfall: a fixed pool per request never shut down leaks its threads (see request); a guard stops the run
 * past --max-threads live platform threads. Results go to results/s24-parallel-writes/.
 */

import unpinned.running.Database;
import unpinned.core.Experiment;
import unpinned.experiments.ParallelWrites;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import javax.sql.DataSource;

public class S24_ParallelWrites {
    /** What one request runs: 3 inserts in parallel on {@code executor}, then waits for all three. */
    static void threeInserts(ExecutorService executor, DataSource db, long requestId) {
        List<CompletableFuture<Integer>> parts = new ArrayList<>(PARTS);
        for (int part = 1; part <= PARTS; part++) {
            int p = part;
            parts.add(CompletableFuture.supplyAsync(() -> insert(db, requestId, p), executor));
        }
        CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).join();
    }

    /**
     * One request in the given mode: the executor is made for the request, as the post's controller did. A fixed
     * pool's core threads never time out and only shutdown() ends them: never shut down, it leaves 3 threads per
     * request waiting forever (the post's 2,981), growing until memory or the OS's threads run out. Virtual
     * threads need no pool: an executor per request is the intended use, and closing it waits for its tasks.
     */
    static void request(String mode, int poolThreads, DataSource db, long requestId) {
        switch (mode) {
            case "virtual" -> {
                try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
                    threeInserts(ex, db, requestId);
                }
            }
            case "fixed-leak" -> {
                ExecutorService ex = Executors.newFixedThreadPool(poolThreads); // never shut down: the leak
                threeInserts(ex, db, requestId);
            }
            case "fixed-closed" -> {
                try (ExecutorService ex = Executors.newFixedThreadPool(poolThreads)) { // close(): shutdown + wait
                    threeInserts(ex, db, requestId);
                }
            }
            default -> throw new IllegalArgumentException("no mode " + mode);
        }
    }

    static int insert(DataSource db, long requestId, int part) {
        try (Connection c = db.getConnection(); PreparedStatement ps = c.prepareStatement(INSERT)) {
            ps.setLong(1, requestId);
            ps.setInt(2, part);
            ps.setString(3, "part " + part + " of request " + requestId);
            return ps.executeUpdate();
        } catch (SQLException e) {
            throw new CompletionException(e);
        }
    }

    static final String ID = "s24-parallel-writes";
    static final List<String> MODES = List.of("virtual", "fixed-leak", "fixed-closed");
    static final int PARTS = 3;
    /** This run's own table: another run against the same database writes to one of its own. */
    static final String TABLE = Database.runTable("s24_rows");
    static final String INSERT = "INSERT INTO " + TABLE + " (request_id, part, payload) VALUES (?, ?, ?)";

    public static void main(String[] args) {
        Experiment.named("S24", "three inserts in parallel per request, on an executor made for the request", ID)
                .oneOf("--mode", "all", List.of("virtual", "fixed-leak", "fixed-closed", "all"), "virtual: a new"
                        + " virtual-thread-per-task executor per request, closed after it; fixed-leak: a new fixed"
                        + " pool of P platform threads per request, never shut down (as the post's code);"
                        + " fixed-closed: the same pool, closed after the request; all: the three, each in a JVM of"
                        + " its own")
                .count("--users", 200, 200, 1, 2_000, "closed-loop users (virtual threads)")
                .number("--duration-s", 3, 5, 0.5, 60, "the measured window (full: 5 s, as the post's k6 run)")
                .number("--warmup-s", 1, 2, 0, 30, "a warm-up before it on a virtual-thread executor")
                .count("--connections", 100, 100, 1, Database.MAX_POOL, "the HikariCP pool all inserts share")
                .count("--pool-threads", 100, 100, 1, 1_000, "threads of each per-request fixed pool")
                .count("--max-threads", 10_000, 10_000, 100, 30_000, "the guard: stop the run when the JVM has"
                        + " more than T live platform threads")
                .check(a -> Database.checkUrl())
                .takes(java.time.Duration.ofMinutes(10), S24_ParallelWrites::time)
                .run(args, S24_ParallelWrites::measure); // ends the JVM: fixed-leak's threads are not daemons
    }

    /**
     * Each mode (all: each in a JVM of its own, with a database of its own): the database, a warm-up, a window.
     * A fresh JVM, so live threads do not carry over; heap 512 MB as in the post. The warm-up runs on a virtual
     * executor in every mode while HikariCP opens its connections. The bounds: one insert is timed alone first
     * (the pool's), and the CPU of this JVM and its embedded server (read from /proc on Linux) per request.
     */
    static Experiment.Time time(Experiment.Args a) {
        boolean all = a.oneOf("--mode").equals("all");
        int modes = all ? MODES.size() : 1;
        double warmUp = a.number("--warmup-s"), window = a.number("--duration-s");
        double each = (all ? Experiment.JVM_START_S : 0) + Database.START_S + warmUp + window;
        return Experiment.Time.of(modes * each, "%d mode%s x (%sa database's start of %.0f s + warm-up %,.1f s +"
                        + " window %,.1f s)", modes, modes == 1 ? "" : "s",
                all ? String.format(java.util.Locale.ROOT, "a JVM start of %.0f s + ", Experiment.JVM_START_S) : "",
                Database.START_S, warmUp, window);
    }

    /**
     * --mode all: the three modes, each in a JVM of its own; else one mode in this JVM: a warm-up on a
     * virtual-thread executor, the insert timed alone (the pool's bound), then the closed loop of users under the
     * thread guard (ParallelWrites holds the loop, the table, the bounds and the report).
     */
    static Object measure(Experiment.Args a) {
        ParallelWrites.Options o = ParallelWrites.Options.of(a);
        if (o.mode().equals("all")) return ParallelWrites.all(o, MODES);
        return ParallelWrites.measure(o, TABLE, PARTS,
                (mode, db, requestId) -> request(mode, o.poolThreads(), db, requestId), S24_ParallelWrites::insert);
    }
}

/*
 * How to run:
 *   tools/jbang parallel-writes                                   (the three modes, 200 users, 3 s each)
 *   UNPINNED_PROFILE=full tools/jbang parallel-writes             (5 s each, as the post's k6 run)
 *   tools/jbang parallel-writes --mode fixed-leak --max-threads 3000   (the leak, stopped at the post's count)
 *
 * What you should see: virtual near its CPU bound with about 16 live threads after; fixed-leak slower with
 * thousands of live threads left (3 per request); fixed-closed as slow, its threads ended. Reference runs:
 * data/reference-runs/snippets/S24-parallel-writes.md.
 */
