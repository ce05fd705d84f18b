//SOURCES Backpressure.java
//SOURCES ../running/ChildRun.java
//SOURCES ../core/Expectations.java
//SOURCES ../core/Experiment.java
//SOURCES ../core/Figure.java
//SOURCES ../core/Measurement.java
//SOURCES ../running/ProcessStats.java
//SOURCES ../core/Protocol.java
//SOURCES ../core/RunGuard.java
package unpinned.experiments;

import unpinned.core.Expectations;
import unpinned.core.Expectations.Line;
import unpinned.core.Experiment;
import unpinned.core.Figure;
import unpinned.core.Measurement;
import unpinned.core.Protocol;
import unpinned.core.RunGuard;
import unpinned.running.ChildRun;
import unpinned.running.ProcessStats;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * S33's plumbing: the same users and queries through JDBC on virtual threads and through R2DBC, timed in one window
 * each, with the CPU this JVM and its PostgreSQL spent per query. The drivers' own code stays in the snippet (the
 * kernel has no R2DBC on its class path); here: the window, the CPU counters, the rows and the summary.
 */
public final class ReactiveDriver {
    private ReactiveDriver() {
    }

    public static final String ID = "07-reactive-driver";

    /** What each query does: waits in the database (pg_sleep) or hardly anything (SELECT 1). */
    public record Workload(String name, double seconds) {
        public static Workload of(String name, int queryMs) {
            return new Workload(name, name.equals("wait") ? queryMs / 1e3 : 0);
        }

        public boolean waits() {
            return seconds > 0;
        }
    }

    /** The measured window: users start at once, only queries that end inside it count, none starts after it. */
    public record Window(long start, long end) {
        public boolean contains(long t) {
            return t >= start && t < end;
        }

        public boolean open() {
            return System.nanoTime() < end;
        }
    }

    /** Counted by the users of one run. */
    public static final class Tally {
        public final LongAdder done = new LongAdder(), errors = new LongAdder(), all = new LongAdder();
        public final AtomicReference<String> firstError = new AtomicReference<>();

        /** Queries ended in each quarter second of the window: the spread of its rate. */
        final java.util.concurrent.atomic.AtomicLongArray slices = new java.util.concurrent.atomic.AtomicLongArray(4 * 600);

        /** A query ended now: counted if inside the window. */
        public void ended(Window w) {
            all.increment(); // warm-up too: the live chart's queries/s
            long now = System.nanoTime();
            if (w.contains(now)) {
                done.increment();
                int i = (int) ((now - w.start()) / SLICE_NANOS);
                if (i < slices.length()) slices.incrementAndGet(i);
            }
        }

        /** The rate over a window of {@code seconds}, with the spread of its whole quarter seconds. */
        Figure rate(double seconds) {
            int whole = Math.min(slices.length(), (int) Math.floor(seconds * 1e9 / SLICE_NANOS + 1e-9));
            double r = done.sum() / seconds;
            if (whole < 2) return Figure.single(r);
            double[] rates = new double[whole];
            for (int i = 0; i < whole; i++) rates[i] = slices.get(i) / (SLICE_NANOS / 1e9);
            return Figure.samples(rates, "quarter seconds of the window").at(r);
        }

        public void failed(Throwable e) {
            errors.increment();
            firstError.compareAndSet(null, e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    /** Starts one driver's users for {@code w}; the future completes when every user has ended. */
    @FunctionalInterface
    public interface Users {
        CompletableFuture<?> start(Workload workload, int users, Window w, Tally tally) throws Exception;
    }

    /** One driver on one workload. The bound is Little's law for the waiting queries, none for SELECT 1. */
    /** The slices a window's rate is sampled in. */
    static final long SLICE_NANOS = 250_000_000L;

    public record Row(String driver, String workload, int users, int pool, double queryMs, long queries,
                      double throughput, double bound, double ceiling, double boundRatio, double clientCpuUsPerQuery,
                      double serverCpuUsPerQuery, double cpuBusy, int platformThreads, int virtualThreads,
                      double throughputSpread)
            implements Measurement.Measured {
        /** Queries per second with their 95 % interval over the window's quarter seconds. */
        public Figure rate() {
            return Figure.of(throughput, throughputSpread, "quarter seconds of the window");
        }

        @Override
        public List<Measurement> measurements() {
            Measurement m = Measurement.of(driver + " · " + workload + " · queries/s", throughput, "queries/s");
            return List.of(Double.isNaN(bound) ? m : m.bound(bound, Measurement.Bound.LITTLE));
        }
    }

    /** What S33 reports; {@code skipped} says why nothing ran (no PostgreSQL here), else null. */
    public record Report(String database, String databaseVersion, int users, int pool, int queryMs, double warmupS,
                         double durationS, int cores, List<Row> rows, String javaVersion, String skipped) {
        public boolean ran() {
            return skipped == null;
        }

        public Row row(String driver, String workload) {
            Row r = find(rows, driver, workload);
            if (r == null) throw new IllegalArgumentException("no row " + driver + " / " + workload);
            return r;
        }

        /** Client and server CPU per query on one workload, a series each, bars in the order jdbc, r2dbc. */
        public java.util.Map<String, double[]> cpuPerQuery(String workload) {
            var series = new java.util.LinkedHashMap<String, double[]>();
            series.put("this JVM (client)", new double[] {row("jdbc", workload).clientCpuUsPerQuery(),
                    row("r2dbc", workload).clientCpuUsPerQuery()});
            series.put("PostgreSQL (server)", new double[] {row("jdbc", workload).serverCpuUsPerQuery(),
                    row("r2dbc", workload).serverCpuUsPerQuery()});
            return series;
        }
    }

    /** Little's law for a waiting query: min(U, P) / q, or NaN when the query doesn't wait (no such bound). */
    public static double bound(Workload w, int users, int pool) {
        return w.waits() ? Math.min(users, pool) / w.seconds() : Double.NaN;
    }

    /**
     * Runs one driver's users through a warm-up and a window, reading this JVM's CPU, the database server's and the
     * machine's at the window's edges and the live platform threads in its middle. Failed queries fail the run.
     */
    public static Row measure(String driver, Workload w, int users, int pool, double warmupS, double durationS,
                              long serverPid, Users load) throws Exception {
        Protocol.progress(String.format(Locale.ROOT, "%s, %s: %d users, pool of %d", driver, w.name(), users, pool));
        long start = System.nanoTime() + (long) (warmupS * 1e9);
        Window win = new Window(start, start + (long) (durationS * 1e9));
        Tally tally = new Tally();
        long[] last = {System.nanoTime(), 0}; // each second, for a parent's live chart: queries/s and threads
        Protocol.Sampling live = Protocol.sampleEverySecond(() -> {
            long now = System.nanoTime(), all = tally.all.sum();
            double rate = (all - last[1]) / ((now - last[0]) / 1e9);
            last[0] = now;
            last[1] = all;
            return Protocol.Sample.of("queries/s", rate, "platform_threads",
                    ManagementFactory.getThreadMXBean().getThreadCount());
        });
        CompletableFuture<?> ended;
        double cpu0, server0, busy0, cpu1, server1, busy1;
        int platform;
        try (live) {
            ended = load.start(w, users, win, tally);
            sleepUntil(win.start());
            cpu0 = ProcessStats.cpuNanos() / 1e9;
            server0 = ProcessStats.treeCpuSeconds(serverPid);
            busy0 = ProcessStats.machineBusySeconds();
            sleepUntil(win.start() + (win.end() - win.start()) / 2);
            platform = ManagementFactory.getThreadMXBean().getThreadCount();
            sleepUntil(win.end());
            cpu1 = ProcessStats.cpuNanos() / 1e9;
            server1 = ProcessStats.treeCpuSeconds(serverPid);
            busy1 = ProcessStats.machineBusySeconds();
        }
        try {
            ended.get(60 + (long) w.seconds(), TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            ended.cancel(true);
            throw new IllegalStateException(driver + "'s users did not end within 60 s of the window");
        } catch (ExecutionException e) {
            tally.failed(e.getCause());
        }
        if (tally.errors.sum() > 0) {
            throw new IllegalStateException(String.format(Locale.ROOT, "%,d queries failed through %s (first: %s)",
                    tally.errors.sum(), driver, tally.firstError.get()));
        }
        long n = tally.done.sum();
        if (n == 0) throw new IllegalStateException("no query through " + driver + " ended inside the window");
        double throughput = n / durationS, bound = bound(w, users, pool);
        int cores = Runtime.getRuntime().availableProcessors();
        double ceiling = w.waits() ? Backpressure.ceiling(bound, w.seconds(), durationS) : Double.NaN;
        return new Row(driver, w.name(), users, pool, w.seconds() * 1e3, n, round(throughput, 1), round(bound, 1),
                round(ceiling, 1), round(throughput / bound, 3), round((cpu1 - cpu0) / n * 1e6, 1),
                round((server1 - server0) / n * 1e6, 1), round((busy1 - busy0) / durationS / cores, 3), platform,
                driver.equals("jdbc") ? users : 0, round(tally.rate(durationS).halfWidth(), 1));
    }

    static Row find(List<Row> rows, String driver, String workload, boolean required) {
        Row r = find(rows, driver, workload);
        if (r == null && required) throw new IllegalArgumentException("no row " + driver + " / " + workload);
        return r;
    }

    /**
     * What chapter 07 expects of the two drivers: neither past the pool's bound on the waiting query, and there the
     * same queries/s (a connection holds one query at a time, whatever drives it); the post's passing thought, a far
     * larger gain from a reactive driver, judged where it could show: SELECT 1, whose limit is the CPU per query.
     */
    public static final Expectations<List<Row>> EXPECTED = Expectations.<List<Row>>of(ID)
            .expect("under-the-pool", "the driver closest to the pool's ceiling on pg_sleep", "min(U, P) / q over its"
                    + " window", rows -> Figure.highest(rows.stream().filter(r -> r.workload().equals("wait")).toList(),
                    r -> r.rate().over(r.ceiling())), Line.atMost(1.0)).limit()
            .expect("same-on-the-wait", "R2DBC's queries/s on pg_sleep", "JDBC's on virtual threads",
                    rows -> find(rows, "r2dbc", "wait", true).rate().over(find(rows, "jdbc", "wait", true).rate()),
                    Line.within(0.9, 1.1))
            .expect("far-more-on-select-1", "R2DBC's queries/s on SELECT 1", "JDBC's on virtual threads",
                    rows -> find(rows, "r2dbc", "select1", true).rate().over(find(rows, "jdbc", "select1", true).rate()),
                    Line.atLeast(1.5)).claims("jpa-11")
            .because(rows -> String.format(Locale.ROOT, "on SELECT 1 the client spent %s µs of CPU per query with"
                            + " R2DBC and %s with JDBC, PostgreSQL %s and %s",
                    Figure.number(find(rows, "r2dbc", "select1", true).clientCpuUsPerQuery()),
                    Figure.number(find(rows, "jdbc", "select1", true).clientCpuUsPerQuery()),
                    Figure.number(find(rows, "r2dbc", "select1", true).serverCpuUsPerQuery()),
                    Figure.number(find(rows, "jdbc", "select1", true).serverCpuUsPerQuery())));

    /** The printed summary: each row, then R2DBC over JDBC per workload. */
    public static void summary(List<Row> rows) {
        System.out.printf(Locale.ROOT, "  %-6s %-8s %10s %8s %12s %12s %9s %9s%n", "driver", "workload", "queries/s",
                "x bound", "client µs/q", "server µs/q", "CPU busy", "platform");
        for (Row r : rows) {
            System.out.printf(Locale.ROOT, "  %-6s %-8s %,10.0f %8s %12.1f %12.1f %8.0f %% %9d%n", r.driver(),
                    r.workload(), r.throughput(), Double.isNaN(r.boundRatio()) ? "-" : String.format(Locale.ROOT,
                            "%.2f", r.boundRatio()), r.clientCpuUsPerQuery(), r.serverCpuUsPerQuery(),
                    100 * r.cpuBusy(), r.platformThreads());
        }
        for (String w : rows.stream().map(Row::workload).distinct().toList()) {
            Row j = find(rows, "jdbc", w), r = find(rows, "r2dbc", w);
            if (j == null || r == null) continue;
            System.out.printf(Locale.ROOT, "  %s: R2DBC / JDBC %.2f x the queries/s, %.2f x the client CPU per query%n",
                    w, r.throughput() / j.throughput(), r.clientCpuUsPerQuery() / j.clientCpuUsPerQuery());
        }
    }

    /** The row of one driver on one workload, or null. */
    private static Row find(List<Row> rows, String driver, String workload) {
        return rows.stream().filter(r -> r.driver().equals(driver) && r.workload().equals(workload)).findFirst()
                .orElse(null);
    }

    /** Runs S33 with {@code args} (both drivers, both workloads, in one JVM of its own). */
    public static Report run(String... args) {
        Report result = ChildRun.result(Report.class, "S33_ReactiveDriver.java", args);
        RunGuard.requireFresh();
        if (!result.ran()) System.out.println(result.skipped());
        return result;
    }

    /** The drivers and workloads of --driver / --workload "all", in order. */
    public static List<String> each(String chosen, List<String> all) {
        return chosen.equals("all") ? all : List.of(chosen);
    }

    static void sleepUntil(long nanoTime) throws InterruptedException {
        long left = nanoTime - System.nanoTime();
        if (left > 0) TimeUnit.NANOSECONDS.sleep(left);
    }

    static double round(double v, int decimals) {
        if (!Double.isFinite(v)) return v;
        double f = Math.pow(10, decimals);
        return Math.round(v * f) / f;
    }

    /** A run that can't be measured: one line, nothing saved. */
    public static Experiment.RunFailed failed(Exception e) {
        return new Experiment.RunFailed(e.getMessage() + "; nothing saved");
    }

}
