///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//RUNTIME_OPTIONS -Xms512m -Xmx512m
//SOURCES ../helpers/unpinned/experiments/ParallelWrites.java
package unpinned.snippets;

/*
 * S24: three inserts in parallel per request: a virtual-thread executor per request, or a pool per request.
 *
 * The question: the JDK 25 + JPA post had each POST write 3 rows in parallel, CompletableFuture.supplyAsync(...,
 * executor) three times and then join, under 200 k6 users for 5 s, through a HikariCP pool of 100 connections.
 * With a new virtual-thread-per-task executor per request it measured about 210 req/s; with a new fixed pool of
 * 100 platform threads per request about 156 req/s, and right after that run the application had 2,981 live
 * threads (38 after the virtual run), 13.2 s of process CPU (10.8) and 288 MB of heap used (195). Here the
 * same request runs against a real PostgreSQL (embedded; H2 if it can't start; your own with UNPINNED_DB_URL),
 * 200 virtual-thread users in a closed loop for a bounded window, each mode in a JVM of its own:
 *   virtual       try (var ex = Executors.newVirtualThreadPerTaskExecutor()) { 3 x supplyAsync; allOf.join }
 *   fixed-leak    var ex = Executors.newFixedThreadPool(100); 3 x supplyAsync; allOf.join  -- never shut down,
 *                 as in the post's code
 *   fixed-closed  the same pool in try-with-resources (ExecutorService is AutoCloseable since JDK 19): the fix
 *
 * The bounds: a request needs a connection for each of its 3 inserts, so the pool allows at most
 * connections / (3 x the time of one insert) requests per second (the insert is timed alone first, on one
 * connection); and the CPU allows at most (cores - what the rest of the machine used) / (CPU seconds this JVM
 * and its PostgreSQL server spent per request), as the course's other load tests count it (the embedded
 * server's processes are read from /proc on Linux; elsewhere, or with your own server, only this JVM's CPU is
 * "ours"). On 2 cores the CPU bound is by far the lower one: a local insert takes a fraction of a millisecond,
 * and the database, the driver, the pool and the 3 tasks per request all share the 2 cores. Each run's
 * throughput is printed as a ratio to the lower bound.
 *
 * The pitfall: a fixed pool's core threads never time out, and nothing ends them but shutdown(): a pool made
 * per request and never shut down leaves its threads waiting for work forever, 3 per request (a fixed pool
 * starts a new thread for each task it gets until it has 100). That is the post's 2,981 live threads, and they
 * grow with every request until the process runs out of memory or of the OS's threads. Here a guard stops the
 * run when the JVM has more than --max-threads live platform threads (10,000 by default) and says so; the
 * process ends right after, taking its leaked threads with it. Virtual threads need no pool: an executor per
 * request is the intended use, and closing it waits for its tasks.
 *
 * Each mode in a fresh JVM (the live threads must not carry over), heap fixed at 512 MB as in the post. The
 * warm-up runs the same request on a virtual-thread executor in every mode (the JIT warms the JDBC path; no
 * threads leak before the window) while HikariCP opens the pool's connections, 30 ms apart; the window waits
 * until all are open. Latencies and throughput count only requests that end inside the window.
 * Results go to results/s24-parallel-writes/.
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
    static final String ID = "s24-parallel-writes";
    static final List<String> MODES = List.of("virtual", "fixed-leak", "fixed-closed");
    static final int PARTS = 3;
    /** This run's own table: another run against the same database writes to one of its own. */
    static final String TABLE = Database.runTable("s24_rows");
    static final String INSERT = "INSERT INTO " + TABLE + " (request_id, part, payload) VALUES (?, ?, ?)";

    /** What one request runs: 3 inserts in parallel on {@code executor}, then waits for all three. */
    static void threeInserts(ExecutorService executor, DataSource db, long requestId) {
        List<CompletableFuture<Integer>> parts = new ArrayList<>(PARTS);
        for (int part = 1; part <= PARTS; part++) {
            int p = part;
            parts.add(CompletableFuture.supplyAsync(() -> insert(db, requestId, p), executor));
        }
        CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).join();
    }

    /** One request in the given mode: the executor is made for the request, as the post's controller did. */
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

    /** Each mode (all: each in a JVM of its own, with a database of its own): the database, a warm-up, a window. */
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
 *   UNPINNED_DB_URL=jdbc:postgresql://127.0.0.1:5432/postgres UNPINNED_DB_USER=me UNPINNED_DB_PASSWORD=... \
 *       tools/jbang parallel-writes                               (your own PostgreSQL)
 *
 * What you should see (2 cores, JDK 25, embedded PostgreSQL 17):
 *   quick profile, 200 users, --duration-s 2 (as chapter 07 runs it; 2026-11-26, nothing else running):
 *   mode           req/s   x CPU bound  mean / p99 ms   live threads after (peak)   CPU s   heap MB
 *   virtual        ~8,300  0.99         ~24 / ~85       15-16 (16)                  ~4.6    ~160-220
 *   fixed-leak     ~870-890 0.74        ~192 / ~750-1,030  ~5,900 (5,900): 15 + 3   ~5.0    ~75
 *                                                       per request, all still alive
 *   fixed-closed   ~820-970 0.73-0.75   ~204 / ~790     16 (peak ~610)              ~5.4    ~170
 *   (an older run, 3 s windows with another JVM busy on the same cores: virtual ~4,000 req/s, fixed-closed
 *   0.97 x its bound.) virtual / fixed-leak: ~9 x the throughput (post: 1.35); fixed-leak / virtual: ~375 x the
 *   live threads (post: 2,981 / 38 = 78). One insert alone takes ~0.08-0.18 ms, so the pool's bound
 *   (100 / (3 x 0.13 ms), ~250,000 req/s) is far above the CPU's: a pool per request spends ~1.6-1.8 ms of CPU per
 *   request (creating and starting 3 platform threads), virtual threads ~0.2 ms (PostgreSQL's own share ~0.08
 *   ms); the fixed pools left about a quarter of the 2 cores idle (0.73-0.75 x the CPU bound). The post's gap is
 *   smaller (its MySQL in Docker and JPA cost more per request than the threads do). With 50 users for 1.5 s
 *   the leak ends at ~3,200 live threads; --max-threads 600 stops the run after ~0.4 s and says so.
 */
