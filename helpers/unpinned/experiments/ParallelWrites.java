//SOURCES Backpressure.java
//SOURCES ../running/ChildRun.java
//SOURCES ../core/Cli.java
//SOURCES ../running/Database.java
//SOURCES ../core/Experiment.java
//SOURCES ../core/Figure.java
//SOURCES ../running/ProcessStats.java
//SOURCES ../core/Protocol.java
package unpinned.experiments;

import unpinned.core.Cli;
import unpinned.core.Experiment;
import unpinned.core.Figure;
import unpinned.core.Protocol;
import unpinned.running.ChildRun;
import unpinned.running.Database;
import unpinned.running.ProcessStats;

import com.zaxxer.hikari.HikariDataSource;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.sql.Connection;
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
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * S24's plumbing (parallel-writes): the closed loop of users with its thread guard, the table, the single-insert
 * timing, the bounds and the printed report. The code under study (one request's executor and its 3 inserts) stays
 * in the snippet and comes in as {@link Request} and {@link Insert}.
 * Needs Backpressure.java, ChildRun.java, Cli.java, Database.java, Experiment.java, ProcessStats.java,
 * Protocol.java alongside.
 */
public final class ParallelWrites {
    private ParallelWrites() {
    }

    /** The post's figures (data/published/vt-jdk25-jpa-blog.csv; MacBook M4 Pro, MySQL in Docker, Spring Boot). */
    static final Map<String, double[]> PUBLISHED = Map.of( // req/s, live threads, process CPU s, heap used MB
            "virtual", new double[] {210, 38, 10.8, 195},
            "fixed-leak", new double[] {156, 2_981, 13.2, 288});

    /** One request in a mode: the snippet's code under study. */
    public interface Request {
        void run(String mode, DataSource db, long requestId);
    }

    /** One insert (part 0 for the single-insert timing). */
    public interface Insert {
        int run(DataSource db, long requestId, int part);
    }

    /** S24's options, as declared in its main. */
    public record Options(String mode, int users, double durationS, double warmupS, int connections,
                          int poolThreads, int maxThreads) {
        public static Options of(Experiment.Args a) {
            return new Options(a.oneOf("--mode"), a.intCount("--users"), a.number("--duration-s"),
                    a.number("--warmup-s"), a.intCount("--connections"), a.intCount("--pool-threads"),
                    a.intCount("--max-threads"));
        }

        List<String> childArgs(String m) {
            return List.of("--mode", m, "--users", String.valueOf(users), "--duration-s", String.valueOf(durationS),
                    "--warmup-s", String.valueOf(warmupS), "--connections", String.valueOf(connections),
                    "--pool-threads", String.valueOf(poolThreads), "--max-threads", String.valueOf(maxThreads));
        }
    }

    // ---- all modes, each in a JVM of its own -------------------------------------------------------------------

    public static Backpressure.Writes all(Options o, List<String> modes) {
        Map<String, Backpressure.WriteMode> runs = new LinkedHashMap<>();
        for (String mode : modes) {
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

    /** What a closed-loop run measured. */
    record Load(long completed, long started, long succeeded, long errors, Map<String, Long> errorKinds,
                double seconds, long[] latenciesNanos, String stoppedBy, double machineBusySeconds, double cpuSeconds,
                double serverCpuSeconds, double[] sliceRates) {
        /** Requests per second over the window, with the spread of its quarter seconds. */
        Figure rate() {
            double r = completed / seconds;
            return sliceRates.length < 2 ? Figure.single(r)
                    : Figure.samples(sliceRates, "quarter seconds of the window").at(r);
        }

        /** A run with failed requests is no measurement: it ends the run, which then saves nothing. */
        void requireNoErrors(String when) {
            if (errors > 0) {
                throw new IllegalStateException(String.format(Locale.ROOT, "%,d of %,d requests failed %s (%s)",
                        errors, started, when, errorKinds));
            }
        }
    }

    /**
     * One mode in this JVM, on a table {@code table} of its own (created, then dropped): a failure is one line
     * ({@link Experiment.RunFailed}) and saves nothing.
     */
    public static Backpressure.WriteMode measure(Options o, String table, int parts, Request request, Insert insert) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        System.out.printf(Locale.ROOT, "S24: mode %s, %d users, 3 parallel inserts per request, pool of %d"
                + " connections; JDK %s, %d cores%n", o.mode(), o.users(), o.connections(), Runtime.version(),
                Runtime.getRuntime().availableProcessors());
        try (Database db = Database.start(System.out)) {
            System.out.println("database: " + db.kind() + ", " + db.version());
            // its other connections open while the insert is timed and the warm-up runs; all are open by the window
            HikariDataSource pool = db.poolFilling("s24", o.connections(), Duration.ofSeconds(10));
            try {
                createTable(pool, table);
                return measure(o, db, pool, threads, table, parts, request, insert);
            } finally {
                Database.dropTable(pool, table);
            }
        } catch (IllegalStateException | IllegalArgumentException | OutOfMemoryError e) {
            throw new Experiment.RunFailed(oneLine(e) + "; nothing saved");
        }
    }

    /** The measurement proper, on this run's table. */
    static Backpressure.WriteMode measure(Options o, Database db, HikariDataSource pool, ThreadMXBean threads,
                                          String table, int parts, Request request, Insert insert) {
        long serverPid = db.serverPid().orElse(-1);
        double insertMs = singleInsertMs(pool, insert);
        System.out.printf(Locale.ROOT, "one insert alone, on one connection: %.3f ms%n", insertMs);
        AtomicLong ids = new AtomicLong(1_000_000);
        if (o.warmupS() > 0) {
            Protocol.progress(String.format(Locale.ROOT, "warm-up %s s on a virtual-thread executor",
                    plain(o.warmupS())));
            Load w = closedLoop("virtual", o.users(), request, pool, ids, o.warmupS(), Integer.MAX_VALUE, serverPid);
            w.requireNoErrors("in the warm-up");
        }
        db.awaitFull(pool);
        long rowsBefore = countRows(pool, table);
        int baselineThreads = threads.getThreadCount();
        threads.resetPeakThreadCount();
        double cpuBefore = ProcessStats.cpuNanos() / 1e9; // (since the JVM started, as the post's Actuator)
        Protocol.progress(String.format(Locale.ROOT, "measuring %s s, mode %s", plain(o.durationS()), o.mode()));
        Load load = closedLoop(o.mode(), o.users(), request, pool, ids, o.durationS(), o.maxThreads(), serverPid);
        int live = threads.getThreadCount(), peak = threads.getPeakThreadCount();
        double processCpu = ProcessStats.cpuNanos() / 1e9;
        double heapMb = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / 1e6;
        System.gc(); // what the run holds on to, without the garbage whose amount depends on when a GC last ran
        double liveHeapMb = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / 1e6;
        long rows = countRows(pool, table) - rowsBefore;
        load.requireNoErrors("in the window");
        if (load.completed() == 0) throw new IllegalStateException("no request ended inside the window");
        if (rows != parts * load.succeeded()) { // also the requests that ended after the window
            throw new IllegalStateException(String.format(Locale.ROOT, "the table holds %,d new rows, but %,d"
                    + " requests x %d inserts succeeded", rows, load.succeeded(), parts));
        }
        return report(o, db, parts, insertMs, load, baselineThreads, live, peak, processCpu,
                processCpu - cpuBefore, heapMb, liveHeapMb, rows);
    }

    static Backpressure.WriteMode report(Options o, Database db, int parts, double insertMs, Load load,
                                         int baselineThreads, int live, int peak, double processCpu, double runCpu,
                                         double heapMb, double liveHeapMb, long rows) {
        long[] lat = load.latenciesNanos().clone();
        Arrays.sort(lat);
        double mean = Arrays.stream(lat).average().orElse(Double.NaN) / 1e6;
        double p99 = lat[Math.min(lat.length - 1, (int) Math.ceil(0.99 * lat.length) - 1)] / 1e6;
        double throughput = load.completed() / load.seconds();
        int cores = Runtime.getRuntime().availableProcessors();
        double connectionBound = o.connections() / (parts * insertMs / 1_000);
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
                + " process CPU %.1f s since start (%.1f s in this run); heap used %.0f MB (%.0f MB live after a full"
                + " GC)%n", live, baselineThreads, peak, processCpu, runCpu, heapMb, liveHeapMb);
        if (load.stoppedBy() != null) System.out.println("  STOPPED: " + load.stoppedBy());
        System.out.printf(Locale.ROOT, "  bounds: connections %d / (%d x %.3f ms) = %,.0f req/s; CPU (%d cores - %.2f"
                        + " used elsewhere) / %.3f ms per request (this JVM %.3f, PostgreSQL %s) = %,.0f req/s;"
                        + " throughput = %.2f x the lower bound%n", o.connections(), parts, insertMs, connectionBound,
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
                round(throughput / bound, 4), System.getProperty("java.version"),
                round(load.rate().halfWidth(), 2), round(liveHeapMb, 1));
    }

    /**
     * {@code users} virtual threads send requests back to back for {@code seconds}; the window ends early when the
     * JVM has more than {@code maxThreads} live platform threads. Only requests that end inside the window count.
     */
    static Load closedLoop(String mode, int userCount, Request request, DataSource db, AtomicLong ids,
                           double seconds, int maxThreads, long serverPid) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong started = new AtomicLong(), succeeded = new AtomicLong(), errors = new AtomicLong();
        Map<String, Long> errorKinds = new TreeMap<>();
        List<long[]> perUser = new ArrayList<>();
        List<Double> slices = new ArrayList<>();
        List<Thread> users = new ArrayList<>();
        long[] counts = new long[userCount];
        for (int u = 0; u < userCount; u++) perUser.add(new long[1024]);
        long t0 = System.nanoTime();
        double busy0 = ProcessStats.machineBusySeconds(), cpu0 = ProcessStats.cpuNanos() / 1e9;
        double server0 = ProcessStats.treeCpuSeconds(serverPid);
        String stoppedBy = null;
        long end = t0 + (long) (seconds * 1e9), stopAt;
        double busy1, cpu1, server1;
        try {
            for (int u = 0; u < userCount; u++) {
                int me = u;
                users.add(Thread.ofVirtual().name("s24-user-" + u).start(() -> {
                    while (!stop.get()) {
                        long r0 = System.nanoTime();
                        started.incrementAndGet();
                        try {
                            request.run(mode, db, ids.incrementAndGet());
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
            long sampledAt = t0, sampledDone = 0, sliceAt = t0, sliceDone = 0;
            while (System.nanoTime() < end) { // the guard: a leak must not take the machine with it
                int live = mx.getThreadCount();
                if (live > maxThreads) {
                    stoppedBy = String.format(Locale.ROOT, "%,d live platform threads after %.2f s, more than"
                            + " --max-threads %,d: the run was stopped early", live, (System.nanoTime() - t0) / 1e9,
                            maxThreads);
                    break;
                }
                long now = System.nanoTime();
                if (now - sliceAt >= 250_000_000L) { // each quarter second: the spread of the window's rate
                    long done = succeeded.get();
                    slices.add((done - sliceDone) / ((now - sliceAt) / 1e9));
                    sliceAt = now;
                    sliceDone = done;
                }
                if (now - sampledAt >= 1_000_000_000L) { // each second, for a parent's live chart
                    long done = succeeded.get();
                    Protocol.sample(Protocol.Sample.of("req/s", (done - sampledDone) / ((now - sampledAt) / 1e9),
                            "platform_threads", live));
                    sampledAt = now;
                    sampledDone = done;
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
                stoppedBy, busy1 - busy0, cpu1 - cpu0, server1 - server0,
                slices.stream().mapToDouble(Double::doubleValue).toArray());
    }

    static void createTable(DataSource db, String table) {
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + table + " (id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,"
                    + " request_id BIGINT NOT NULL, part INT NOT NULL, payload VARCHAR(100) NOT NULL)");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create the table: " + oneLine(e), e);
        }
    }

    static long countRows(DataSource db, String table) {
        try (Connection c = db.getConnection(); Statement s = c.createStatement();
             ResultSet r = s.executeQuery("SELECT count(*) FROM " + table)) {
            r.next();
            return r.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot count the rows: " + oneLine(e), e);
        }
    }

    /** The time of one insert alone, on one connection, after a warm-up: the service time of the bound. */
    static double singleInsertMs(DataSource db, Insert insert) {
        int warm = 200, timed = 500;
        long t0 = 0;
        for (int i = 0; i < warm + timed; i++) {
            if (i == warm) t0 = System.nanoTime();
            insert.run(db, -1 - i, 0);
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
