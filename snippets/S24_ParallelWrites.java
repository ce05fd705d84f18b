///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//RUNTIME_OPTIONS -Xms512m -Xmx512m
//SOURCES ../helpers/unpinned/Profile.java
//SOURCES ../helpers/unpinned/Machine.java
//SOURCES ../helpers/unpinned/Course.java
//SOURCES ../helpers/unpinned/Json.java
//SOURCES ../helpers/unpinned/Results.java
//SOURCES ../helpers/unpinned/Measurement.java
//SOURCES ../helpers/unpinned/RunGuard.java
//SOURCES ../helpers/unpinned/Cli.java
//SOURCES ../helpers/unpinned/Protocol.java
//SOURCES ../helpers/unpinned/ProcessStats.java
//SOURCES ../helpers/unpinned/ChildRun.java
//SOURCES ../helpers/unpinned/Show.java
//SOURCES ../helpers/unpinned/Database.java
//SOURCES ../helpers/unpinned/Experiment.java
//SOURCES ../helpers/unpinned/Measurement.java
//SOURCES ../helpers/unpinned/Backpressure.java
//SOURCES ../helpers/unpinned/Bounds.java
//SOURCES ../helpers/unpinned/Published.java
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
 * threads leak before the window). Latencies and throughput count only requests that end inside the window.
 * Results go to results/s24-parallel-writes/.
 */

import unpinned.ChildRun;
import unpinned.Cli;
import unpinned.Database;
import unpinned.Backpressure;
import unpinned.Experiment;
import unpinned.ProcessStats;
import unpinned.Protocol;
import com.zaxxer.hikari.HikariDataSource;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

public class S24_ParallelWrites {
    static final String ID = "s24-parallel-writes";
    static final List<String> MODES = List.of("virtual", "fixed-leak", "fixed-closed");
    static final int PARTS = 3;
    /** This run's own table: another run against the same database writes to one of its own. */
    static final String TABLE = Database.runTable("s24_rows");
    static final String INSERT = "INSERT INTO " + TABLE + " (request_id, part, payload) VALUES (?, ?, ?)";
    /** The post's figures (data/published/vt-jdk25-jpa-blog.csv; MacBook M4 Pro, MySQL in Docker, Spring Boot). */
    static final Map<String, double[]> PUBLISHED = Map.of( // req/s, live threads, process CPU s, heap used MB
            "virtual", new double[] {210, 38, 10.8, 195},
            "fixed-leak", new double[] {156, 2_981, 13.2, 288});

    record Options(String mode, int users, double durationS, double warmupS, int connections, int poolThreads,
                   int maxThreads) {
        List<String> childArgs(String m) {
            return List.of("--mode", m, "--users", String.valueOf(users), "--duration-s", String.valueOf(durationS),
                    "--warmup-s", String.valueOf(warmupS), "--connections", String.valueOf(connections),
                    "--pool-threads", String.valueOf(poolThreads), "--max-threads", String.valueOf(maxThreads));
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
                .run(args, S24_ParallelWrites::measure); // ends the JVM: fixed-leak's threads are not daemons
    }

    /** --mode all: the three modes, each in a JVM of its own; else one mode in this JVM. */
    static Object measure(Experiment.Args a) {
        Options o = new Options(a.oneOf("--mode"), a.intCount("--users"), a.number("--duration-s"),
                a.number("--warmup-s"), a.intCount("--connections"), a.intCount("--pool-threads"),
                a.intCount("--max-threads"));
        if (o.mode().equals("all")) return all(o);
        try {
            return measure(o);
        } catch (IllegalStateException | IllegalArgumentException | OutOfMemoryError e) {
            throw new Experiment.RunFailed(oneLine(e) + "; nothing saved");
        }
    }

    // ---- all three, each in a JVM of its own -------------------------------------------------------------------

    static Backpressure.Writes all(Options o) {
        Map<String, Backpressure.WriteMode> runs = new LinkedHashMap<>();
        for (String mode : MODES) {
            Protocol.progress(mode + ": in a JVM of its own");
            try {
                runs.put(mode, ChildRun.result(Backpressure.WriteMode.class, "S24_ParallelWrites.java",
                        o.childArgs(mode).toArray(String[]::new)));
            } catch (IllegalStateException e) { // also CancellationException: the child was killed
                Cli.exit("S24", "the " + mode + " run failed: " + e.getMessage().lines().findFirst().orElse(""));
            }
        }
        System.out.printf(Locale.ROOT, "%d users, 3 parallel inserts per request, %s s each, pool of %d connections;"
                + " each mode in its own JVM:%n", o.users(), plain(o.durationS()), o.connections());
        System.out.printf(Locale.ROOT, "  %-13s %9s %8s %8s %9s %7s %8s %8s %9s   %s%n", "mode", "req/s", "x bound",
                "mean ms", "p99 ms", "live", "peak", "CPU s", "heap MB", "published (req/s, live, CPU s, heap MB)");
        for (Backpressure.WriteMode r : runs.values()) {
            double[] pub = PUBLISHED.get(r.mode());
            System.out.printf(Locale.ROOT, "  %-13s %,9.1f %8.2f %8.1f %9.1f %,7d %,8d %8.1f %9.1f   %s%s%n", r.mode(),
                    r.throughput(), r.boundRatio(), r.meanMs(), r.p99Ms(), r.liveThreads(), r.peakThreads(),
                    r.processCpuSeconds(), r.heapUsedMb(), pub == null ? "" : String.format(Locale.ROOT,
                            "%,.0f, %,.0f, %.1f, %,.0f", pub[0], pub[1], pub[2], pub[3]),
                    r.stoppedByGuard() ? "  (stopped by the thread guard)" : "");
        }
        Backpressure.WriteMode virtual = runs.get("virtual"), leak = runs.get("fixed-leak");
        double throughputRatio = virtual.throughput() / leak.throughput();
        double threadsRatio = (double) leak.liveThreads() / virtual.liveThreads();
        System.out.printf(Locale.ROOT, "  virtual / fixed-leak: %.2f x the throughput (post: %.2f); fixed-leak /"
                        + " virtual: %.0f x the live threads (post: %.0f); fixed-closed ends with %d live threads%n",
                throughputRatio, 210 / 156.0, threadsRatio, 2_981 / 38.0, runs.get("fixed-closed").liveThreads());
        return new Backpressure.Writes(o.users(), o.durationS(), o.connections(), o.poolThreads(), runs,
                round(throughputRatio, 4), round(threadsRatio, 2), System.getProperty("java.version"));
    }

    // ---- one mode in this JVM ----------------------------------------------------------------------------------

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

    /** What a closed-loop run measured. */
    record Load(long completed, long started, long succeeded, long errors, Map<String, Long> errorKinds,
                double seconds, long[] latenciesNanos, String stoppedBy, double machineBusySeconds, double cpuSeconds,
                double serverCpuSeconds) {
        /** A run with failed requests is no measurement: it ends the run, which then saves nothing. */
        void requireNoErrors(String when) {
            if (errors > 0) {
                throw new IllegalStateException(String.format(Locale.ROOT, "%,d of %,d requests failed %s (%s)",
                        errors, started, when, errorKinds));
            }
        }
    }

    static Backpressure.WriteMode measure(Options o) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        System.out.printf(Locale.ROOT, "S24: mode %s, %d users, 3 parallel inserts per request, pool of %d"
                + " connections; JDK %s, %d cores%n", o.mode(), o.users(), o.connections(), Runtime.version(),
                Runtime.getRuntime().availableProcessors());
        try (Database db = Database.start(System.out)) {
            System.out.println("database: " + db.kind() + ", " + db.version());
            HikariDataSource pool = db.pool("s24", o.connections(), Duration.ofSeconds(10));
            try {
                createTable(pool);
                return measure(o, db, pool, threads);
            } finally {
                Database.dropTable(pool, TABLE);
            }
        }
    }

    /** The measurement proper, on this run's table. */
    static Backpressure.WriteMode measure(Options o, Database db, HikariDataSource pool, ThreadMXBean threads) {
        long serverPid = db.serverPid().orElse(-1);
        double insertMs = singleInsertMs(pool);
        System.out.printf(Locale.ROOT, "one insert alone, on one connection: %.3f ms%n", insertMs);
        AtomicLong ids = new AtomicLong(1_000_000);
        if (o.warmupS() > 0) {
            Protocol.progress(String.format(Locale.ROOT, "warm-up %s s on a virtual-thread executor",
                    plain(o.warmupS())));
            Load w = closedLoop("virtual", o, pool, ids, o.warmupS(), Integer.MAX_VALUE, serverPid);
            w.requireNoErrors("in the warm-up");
        }
        long rowsBefore = countRows(pool);
        int baselineThreads = threads.getThreadCount();
        threads.resetPeakThreadCount();
        double cpuBefore = ProcessStats.cpuNanos() / 1e9; // (since the JVM started, as the post's Actuator)
        Protocol.progress(String.format(Locale.ROOT, "measuring %s s, mode %s", plain(o.durationS()), o.mode()));
        Load load = closedLoop(o.mode(), o, pool, ids, o.durationS(), o.maxThreads(), serverPid);
        int live = threads.getThreadCount(), peak = threads.getPeakThreadCount();
        double processCpu = ProcessStats.cpuNanos() / 1e9;
        double heapMb = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / 1e6;
        long rows = countRows(pool) - rowsBefore;
        load.requireNoErrors("in the window");
        if (load.completed() == 0) throw new IllegalStateException("no request ended inside the window");
        if (rows != PARTS * load.succeeded()) { // also the requests that ended after the window
            throw new IllegalStateException(String.format(Locale.ROOT, "the table holds %,d new rows, but %,d"
                    + " requests x %d inserts succeeded", rows, load.succeeded(), PARTS));
        }
        return report(o, db, insertMs, load, baselineThreads, live, peak, processCpu, processCpu - cpuBefore,
                heapMb, rows);
    }

    static Backpressure.WriteMode report(Options o, Database db, double insertMs, Load load, int baselineThreads,
                                      int live, int peak, double processCpu, double runCpu, double heapMb, long rows) {
        long[] lat = load.latenciesNanos().clone();
        Arrays.sort(lat);
        double mean = Arrays.stream(lat).average().orElse(Double.NaN) / 1e6;
        double p99 = lat[Math.min(lat.length - 1, (int) Math.ceil(0.99 * lat.length) - 1)] / 1e6;
        double throughput = load.completed() / load.seconds();
        int cores = Runtime.getRuntime().availableProcessors();
        double connectionBound = o.connections() / (PARTS * insertMs / 1_000);
        double ours = load.cpuSeconds() + Math.max(0, load.serverCpuSeconds()); // this JVM and its server
        double cpuPerRequestMs = ours / load.completed() * 1_000;
        double otherCores = Double.isNaN(load.machineBusySeconds()) ? 0
                : Math.max(0, load.machineBusySeconds() - ours) / load.seconds(); // the rest of the machine
        double cpuBound = cpuPerRequestMs > 0 ? (cores - otherCores) / (cpuPerRequestMs / 1_000) : Double.NaN;
        double bound = Double.isNaN(cpuBound) ? connectionBound : Math.min(connectionBound, cpuBound);
        System.out.printf(Locale.ROOT, "%s: %,.1f req/s (%,d requests in %.2f s, %d users), mean %.1f ms, p99 %.1f"
                        + " ms, %,d errors; %,d rows written (3 per request)%n", o.mode(), throughput, load.completed(),
                load.seconds(), o.users(), mean, p99, load.errors(), rows);
        if (!load.errorKinds().isEmpty()) System.out.println("  errors: " + load.errorKinds());
        System.out.printf(Locale.ROOT, "  right after: %,d live platform threads (%,d before the window, peak %,d);"
                + " process CPU %.1f s since start (%.1f s in this run); heap used %.0f MB%n", live, baselineThreads,
                peak, processCpu, runCpu, heapMb);
        if (load.stoppedBy() != null) System.out.println("  STOPPED: " + load.stoppedBy());
        System.out.printf(Locale.ROOT, "  bounds: connections %d / (%d x %.3f ms) = %,.0f req/s; CPU (%d cores - %.2f"
                        + " used elsewhere) / %.3f ms per request (this JVM %.3f, PostgreSQL %s) = %,.0f req/s;"
                        + " throughput = %.2f x the lower bound%n", o.connections(), PARTS, insertMs, connectionBound,
                cores, otherCores, cpuPerRequestMs, load.cpuSeconds() / load.completed() * 1_000,
                load.serverCpuSeconds() < 0 ? "not measured" : String.format(Locale.ROOT, "%.3f",
                        load.serverCpuSeconds() / load.completed() * 1_000), cpuBound, throughput / bound);
        return new Backpressure.WriteMode(o.mode(), o.users(), o.durationS(), round(load.seconds(), 3),
                o.connections(), o.poolThreads(), db.kind(), db.version(), round(insertMs, 4), load.completed(),
                load.started(), load.errors(), rows, round(throughput, 2), round(mean, 3), round(p99, 3),
                baselineThreads, live, peak, load.stoppedBy() != null, load.stoppedBy() == null ? "" : load.stoppedBy(),
                round(processCpu, 2), round(runCpu, 2), round(heapMb, 1), round(cpuPerRequestMs, 4),
                load.serverCpuSeconds() < 0 ? -1 : round(load.serverCpuSeconds() / load.completed() * 1_000, 4),
                round(otherCores, 3), round(connectionBound, 1), round(cpuBound, 1), round(bound, 1),
                round(throughput / bound, 4), System.getProperty("java.version"));
    }

    /**
     * {@code users} virtual threads send requests back to back for {@code seconds}; the window ends early when the
     * JVM has more than {@code maxThreads} live platform threads. Only requests that end inside the window count.
     */
    static Load closedLoop(String mode, Options o, DataSource db, AtomicLong ids, double seconds, int maxThreads,
                           long serverPid) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong started = new AtomicLong(), succeeded = new AtomicLong(), errors = new AtomicLong();
        Map<String, Long> errorKinds = new TreeMap<>();
        List<long[]> perUser = new ArrayList<>();
        List<Thread> users = new ArrayList<>();
        long[] counts = new long[o.users()];
        for (int u = 0; u < o.users(); u++) perUser.add(new long[1024]);
        long t0 = System.nanoTime();
        double busy0 = ProcessStats.machineBusySeconds(), cpu0 = ProcessStats.cpuNanos() / 1e9;
        double server0 = ProcessStats.treeCpuSeconds(serverPid);
        String stoppedBy = null;
        long end = t0 + (long) (seconds * 1e9), stopAt;
        double busy1, cpu1, server1;
        try {
            for (int u = 0; u < o.users(); u++) {
                int me = u;
                users.add(Thread.ofVirtual().name("s24-user-" + u).start(() -> {
                    while (!stop.get()) {
                        long r0 = System.nanoTime();
                        started.incrementAndGet();
                        try {
                            request(mode, o.poolThreads(), db, ids.incrementAndGet());
                        } catch (RuntimeException | OutOfMemoryError e) {
                            errors.incrementAndGet(); // also after the window: the run then fails
                            synchronized (errorKinds) {
                                errorKinds.merge(oneLine(e), 1L, Long::sum);
                            }
                            continue;
                        }
                        succeeded.incrementAndGet();
                        long r1 = System.nanoTime();
                        if (stop.get()) break; // ended after the window: not counted
                        long[] mine = perUser.get(me);
                        if (counts[me] == mine.length) perUser.set(me, mine = Arrays.copyOf(mine, mine.length * 2));
                        mine[(int) counts[me]++] = r1 - r0;
                    }
                }));
            }
            while (System.nanoTime() < end) { // the guard: a leak must not take the machine with it
                int live = mx.getThreadCount();
                if (live > maxThreads) {
                    stoppedBy = String.format(Locale.ROOT, "%,d live platform threads after %.2f s, more than"
                            + " --max-threads %,d: the run was stopped early", live, (System.nanoTime() - t0) / 1e9,
                            maxThreads);
                    break;
                }
                Thread.sleep(10);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            stoppedBy = "interrupted";
        } finally {
            stop.set(true);
            stopAt = System.nanoTime();
            busy1 = ProcessStats.machineBusySeconds();
            cpu1 = ProcessStats.cpuNanos() / 1e9;
            server1 = ProcessStats.treeCpuSeconds(serverPid);
            for (Thread t : users) { // the requests in flight end soon: each waits at most the connection timeout
                try {
                    if (!t.join(Duration.ofSeconds(60))) throw new IllegalStateException("a user did not end in 60 s");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException("interrupted while the users ended");
                }
            }
        }
        if ("interrupted".equals(stoppedBy)) throw new IllegalStateException("interrupted");
        long total = 0;
        for (long c : counts) total += c;
        long[] all = new long[(int) total];
        int at = 0;
        for (int u = 0; u < counts.length; u++) {
            System.arraycopy(perUser.get(u), 0, all, at, (int) counts[u]);
            at += (int) counts[u];
        }
        return new Load(total, started.get(), succeeded.get(), errors.get(), errorKinds, (stopAt - t0) / 1e9, all,
                stoppedBy, busy1 - busy0, cpu1 - cpu0, server1 - server0);
    }

    static void createTable(DataSource db) {
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + TABLE + " (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
                    + " request_id BIGINT NOT NULL, part INT NOT NULL, payload VARCHAR(100) NOT NULL)");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create the table: " + oneLine(e), e);
        }
    }

    static long countRows(DataSource db) {
        try (Connection c = db.getConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT count(*) FROM " + TABLE)) {
            r.next();
            return r.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot count the rows: " + oneLine(e), e);
        }
    }

    /** The time of one insert alone, on one connection, after a warm-up: the service time of the bound. */
    static double singleInsertMs(DataSource db) {
        int warm = 200, timed = 500;
        long t0 = 0;
        for (int i = 0; i < warm + timed; i++) {
            if (i == warm) t0 = System.nanoTime();
            insert(db, -1 - i, 0);
        }
        return (System.nanoTime() - t0) / 1e6 / timed;
    }

    static String oneLine(Throwable e) {
        Throwable t = e;
        while ((t instanceof CompletionException || t.getCause() instanceof SQLException) && t.getCause() != null) {
            t = t.getCause();
        }
        String m = t.getClass().getSimpleName() + ": " + (t.getMessage() == null ? "" : t.getMessage());
        m = m.replaceAll("\\s+", " ").strip();
        return m.length() > 200 ? m.substring(0, 197) + "..." : m;
    }

    static String plain(double d) {
        return d == Math.rint(d) ? String.format(Locale.ROOT, "%.0f", d) : String.valueOf(d);
    }

    static double round(double v, int decimals) {
        if (Double.isNaN(v) || Double.isInfinite(v)) return v;
        double f = Math.pow(10, decimals);
        return Math.round(v * f) / f;
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
 *   quick profile, 200 users, 3 s per mode (another JVM was busy on the same 2 cores in some runs):
 *   mode           req/s   x CPU bound  mean / p99 ms   live threads after (peak)   CPU s   heap MB
 *   virtual        ~4,000  0.99         ~49 / ~170      15 (15)                     ~5.8    ~230
 *   fixed-leak     ~840    0.74-0.85    ~215 / ~820     ~8,200 (8,200): 15 + 3 per  ~6.7    ~90
 *                                                       request, all still alive
 *   fixed-closed   ~700    0.97         ~256 / ~840     16 (peak ~600)              ~5.5    ~170
 *   virtual / fixed-leak: ~4.7 x the throughput (post: 1.35); fixed-leak / virtual: ~550 x the live threads
 *   (post: 2,981 / 38 = 78). One insert alone takes ~0.13-0.2 ms, so the pool's bound (100 / (3 x 0.15 ms),
 *   ~200,000 req/s) is far above the CPU's: a pool per request spends ~1.8 ms of CPU per request (creating and
 *   starting 3 platform threads), virtual threads ~0.45 ms (PostgreSQL's own share ~0.2 ms). The post's gap is
 *   smaller (its MySQL in Docker and JPA cost more per request than the threads do). With 50 users for 1.5 s
 *   the leak ends at ~3,200 live threads; --max-threads 600 stops the run after ~0.4 s and says so.
 */
