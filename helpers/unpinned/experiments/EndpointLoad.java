//SOURCES ../core/Bounds.java
//SOURCES ../running/ChildRun.java
//SOURCES ../core/Expectations.java
//SOURCES ../core/Figure.java
//SOURCES ../running/HttpLoad.java
//SOURCES ../core/Json.java
//SOURCES ../running/LoadRun.java
//SOURCES ../core/Measurement.java
//SOURCES ../core/Results.java
//SOURCES ../core/RunGuard.java
//SOURCES ../running/ServerProcess.java
package unpinned.experiments;

import unpinned.core.Bounds;
import unpinned.core.Expectations;
import unpinned.core.Expectations.Line;
import unpinned.core.Figure;
import unpinned.core.Json;
import unpinned.core.Measurement;
import unpinned.core.Results;
import unpinned.core.RunGuard;
import unpinned.running.ChildRun;
import unpinned.running.HttpLoad;
import unpinned.running.LoadRun;
import unpinned.running.ServerProcess;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * One endpoint of the sleep server (snippet S04) under a closed loop of users, one copy for chapter 01's sleeping
 * endpoint (snippet S03, {@code sleep-endpoint}) and chapter 04's CPU endpoint (S16, {@code cpu-endpoint}): they
 * differ only in the endpoint and in their bound. The server runs in its own JVM on 127.0.0.1, the load generator in
 * another ({@link LoadRun}); the rows are what the snippets save and the notebooks read, typed.
 */
public final class EndpointLoad {
    private EndpointLoad() {}

    /** The sleep server in {@code mode} (pool of {@code threads} or virtual), sleeping {@code sleepMs} on /sleep. */
    public static ServerProcess start(String mode, int threads, int sleepMs) {
        return ServerProcess.start("S04_SleepServer.java", "--mode", mode, "--threads", Integer.toString(threads),
                "--sleep-ms", Integer.toString(sleepMs));
    }

    /** What one closed-loop run measured, and how many requests the handler held at once at most. */
    public record Sample(LoadRun.Measured measured, int peakConcurrency) {}

    /** {@code users} in a closed loop against {@code pathAndQuery} of {@code server}: warm-up, then one window. */
    public static Sample closedLoop(ServerProcess server, String pathAndQuery, int users, Duration warmUp,
                                    Duration measured) {
        URI target = server.uri().resolve(pathAndQuery);
        LoadRun.Measured m = LoadRun.measure(server, HttpLoad.Options.closedLoop(target, users, warmUp, measured));
        return new Sample(m, server.stats().get("peakConcurrency").getAsInt());
    }

    // ---------------------------------------------------------------- chapter 01: the sleeping endpoint (S03)

    /**
     * One server against the sleeping endpoint: throughput under Little's law min(users, threads) / sleep, the
     * mean against its steady-state value users / bound, the fastest response against the sleep (a time no
     * response can beat), and the source's figures where the set-up is the source's (else NaN).
     */
    public record SleepRun(String executor, String mode, int threads, int users, double sleepMs, double throughput,
                           double boundThroughput, double publishedThroughput, double meanMs, double expectedMeanMs,
                           double publishedMeanMs, double minMs, double p99Ms, double maxMs, double stdDevMs,
                           long errors, double serverCpuUsPerRequest, int serverLiveThreads, double serverRssMb,
                           double clientCpuUsPerRequest, double otherCpuCores, int peakConcurrency,
                           double windowSeconds, double throughputSpread, double meanMsSpread,
                           double cpuBoundThroughput, double serverCpuUsSpread) implements Measurement.Measured {
        /** The row of {@code sample}: {@code mode} "pool" (of {@code pool} threads) or "virtual". */
        public static SleepRun of(String mode, int pool, int users, int sleepMs, Sample sample,
                                  double publishedThroughput, double publishedMeanMs) {
            int servers = mode.equals("pool") ? pool : users; // virtual: every request gets a thread
            double bound = Bounds.closedLoopThroughput(users, servers, sleepMs / 1000.0);
            HttpLoad.Result r = sample.measured().load();
            ServerProcess.Usage s = sample.measured().server();
            return new SleepRun(mode.equals("pool") ? "platform-pool-" + pool : "virtual", mode,
                    mode.equals("pool") ? pool : 0, users, sleepMs, r.throughput(), bound, publishedThroughput,
                    r.meanMs(), Math.max(sleepMs, users / bound * 1000), publishedMeanMs, r.minMs(), r.p99Ms(),
                    r.maxMs(), r.stdDevMs(), r.errors(), s.cpuUsPerRequest(), s.liveThreads(), s.rssMb(),
                    r.clientCpuUsPerRequest(), sample.measured().otherCores(), sample.peakConcurrency(), r.seconds(),
                    r.throughputFigure().halfWidth(), r.meanMsFigure().halfWidth(),
                    sample.measured().cpuBoundThroughput(Runtime.getRuntime().availableProcessors()),
                    serverCpuSpread(s.cpuUsPerRequest(), sample.measured().serverCpuUsSamples()));
        }

        // the server's CPU per request as it read itself each quarter second of the window (NaN with fewer than 2)
        private static double serverCpuSpread(double usPerRequest, double[] samples) {
            return samples.length < 2 ? Double.NaN
                    : Figure.samples(samples, "the server's readings").at(usPerRequest).halfWidth();
        }

        public double ratioToBound() {
            return throughput / boundThroughput;
        }

        /** Requests per second with their 95 % interval over the window's seconds. */
        public Figure rate() {
            return Figure.of(throughput, throughputSpread, "seconds of the load window");
        }

        /** Mean latency with its 95 % interval over the window's seconds. */
        public Figure mean() {
            return Figure.of(meanMs, meanMsSpread, "seconds of the load window");
        }

        /** The most this server could serve here: the lower of its Little bound and the CPU bound of its window. */
        public double reachable() {
            return Double.isFinite(cpuBoundThroughput) && cpuBoundThroughput > 0
                    ? Math.min(boundThroughput, cpuBoundThroughput) : boundThroughput;
        }

        @Override
        public List<Measurement> measurements() {
            Measurement rate = Measurement.of(executor + " · " + users + " users", throughput, "req/s")
                    .bound(boundThroughput, Measurement.Bound.LITTLE).window(windowSeconds);
            if (Double.isFinite(throughputSpread)) rate = rate.spread(throughputSpread);
            if (publishedThroughput > 0) rate = rate.published(publishedThroughput, "vt-http-pr");
            return List.of(rate, Measurement.of(executor + " · fastest response", minMs, "ms")
                    .bound(sleepMs, Measurement.Bound.LOWER_TIME).window(windowSeconds));
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%-17s %,8.1f req/s = %.3f of Little's law (%,.0f); mean %,.0f ms"
                            + " (steady state %,.0f), min %,.0f, p99 %,.0f, max %,.0f ms; %d errors; peak %d in the"
                            + " handler; server %,.0f µs CPU per request, %d live threads; client %,.0f µs", executor,
                    throughput, ratioToBound(), boundThroughput, meanMs, expectedMeanMs, minMs, p99Ms, maxMs, errors,
                    peakConcurrency, serverCpuUsPerRequest, serverLiveThreads, clientCpuUsPerRequest);
        }
    }

    /**
     * What chapter 01 expects of the sleeping endpoint: the pool of 50 at its Little bound, virtual threads at the
     * lower of theirs and the CPU's, and the sources' gains where this run's bounds allow them.
     */
    public static final Expectations<List<SleepRun>> SLEEP_EXPECTED = Expectations.<List<SleepRun>>of("01-sleep-endpoint")
            // 2 %: the window's edges and the clock
            .expect("under-little", "the server closest to its Little bound", "min(users, threads) / sleep",
                    rows -> Figure.highest(rows, r -> r.rate().over(r.boundThroughput())), Line.atMost(1.02)).limit()
            .expect("no-response-beats-the-sleep", "the fastest response", "the sleep",
                    rows -> Figure.lowest(rows, r -> Figure.exact(r.minMs()).over(r.sleepMs())), Line.atLeast(0.999))
            .limit()
            .expect("pool-at-its-bound", "the pool of 50", "its Little bound",
                    rows -> sleepRun(rows, "pool").rate().over(sleepRun(rows, "pool").boundThroughput()),
                    Line.atLeast(0.9)).claims("pr-2")
            .expect("virtual-at-its-bound", "virtual threads", "the lower of their Little and CPU bounds",
                    rows -> sleepRun(rows, "virtual").rate().over(sleepRun(rows, "virtual").reachable()),
                    Line.atLeast(0.9))
            .because(rows -> cpuLimited(sleepRun(rows, "virtual")))
            .expect("throughput-gain", "virtual threads' throughput", "the pool of 50's",
                    rows -> sleepRun(rows, "virtual").rate().over(sleepRun(rows, "pool").rate()),
                    Line.atLeast(8.2 / 1.25).directionFrom(1.1)).claims("pr-1")
            .dependsOn(rows -> {
                double allowed = sleepRun(rows, "virtual").reachable() / sleepRun(rows, "pool").boundThroughput();
                return allowed < 8.2 / 1.25 ? String.format(Locale.ROOT, "on the cores: this run's bounds allow"
                        + " virtual threads at most %.1f x the pool (%s)", allowed, cpuLimited(sleepRun(rows, "virtual")))
                        : null;
            })
            .expect("mean-falls", "the pool of 50's mean latency", "the virtual threads'",
                    rows -> sleepRun(rows, "pool").mean().over(sleepRun(rows, "virtual").mean()),
                    Line.atLeast(9.3 / 1.25).directionFrom(1.1)).claims("pr-3")
            .dependsOn(rows -> {
                double queued = sleepRun(rows, "pool").expectedMeanMs() / sleepRun(rows, "virtual").expectedMeanMs();
                return queued < 9.3 / 1.25 ? String.format(Locale.ROOT, "on users per thread: with %d users on %d"
                        + " threads the queue allows at most %.1f x", sleepRun(rows, "pool").users(),
                        sleepRun(rows, "pool").threads(), queued) : null;
            })
            .expect("throughput-not-latency", "the pool of 50's mean latency", "the virtual threads'",
                    rows -> sleepRun(rows, "pool").mean().over(sleepRun(rows, "virtual").mean()), Line.atMost(1.1))
            .claims("sem-14")
            .because(rows -> String.format(Locale.ROOT, "with %d users on %d threads the pool's requests queued for a"
                            + " thread (%s ms of its %s ms mean), while each virtual-thread request took %.2f x the sleep",
                    sleepRun(rows, "pool").users(), sleepRun(rows, "pool").threads(),
                    Figure.number(sleepRun(rows, "pool").meanMs() - sleepRun(rows, "pool").sleepMs()),
                    Figure.number(sleepRun(rows, "pool").meanMs()),
                    sleepRun(rows, "virtual").meanMs() / sleepRun(rows, "virtual").sleepMs()))
            .expect("longer-waits-gain-more", "virtual threads' gain over the pool at the longest wait",
                    "their gain at the shortest", EndpointLoad::gainGrowth, Line.atLeast(1.1)).claims("pr-21")
            .untestableWhen(rows -> sleepRun(rows, "pool").sleepMs() == shortestWait(rows, "pool").sleepMs()
                    ? "it needs runs at two sleeps" : null)
            .because(rows -> String.format(Locale.ROOT, "at %s ms virtual threads served %s x the pool, at %s ms %s x;"
                            + " a request's CPU (%s µs, server and load generator) caps the short wait: %s",
                    Figure.number(sleepRun(rows, "pool").sleepMs()),
                    Figure.number(sleepRun(rows, "virtual").throughput() / sleepRun(rows, "pool").throughput()),
                    Figure.number(shortestWait(rows, "pool").sleepMs()),
                    Figure.number(shortestWait(rows, "virtual").throughput() / shortestWait(rows, "pool").throughput()),
                    Figure.number(shortestWait(rows, "virtual").serverCpuUsPerRequest()
                            + shortestWait(rows, "virtual").clientCpuUsPerRequest()),
                    java.util.Objects.requireNonNullElse(cpuLimited(shortestWait(rows, "virtual")),
                            "not here, the CPU had room")));

    /** The {@code mode} run at the longest sleep: the chapter's main test (the rows may hold a shorter wait too). */
    static SleepRun sleepRun(List<SleepRun> rows, String mode) {
        return rows.stream().filter(r -> r.mode().equals(mode)).max(java.util.Comparator.comparingDouble(SleepRun::sleepMs))
                .orElseThrow(() -> new IllegalArgumentException("no " + mode + " run in " + rows));
    }

    /** The {@code mode} run at the shortest sleep. */
    static SleepRun shortestWait(List<SleepRun> rows, String mode) {
        return rows.stream().filter(r -> r.mode().equals(mode)).min(java.util.Comparator.comparingDouble(SleepRun::sleepMs))
                .orElseThrow(() -> new IllegalArgumentException("no " + mode + " run in " + rows));
    }

    // virtual threads' throughput over the pool's, at the longest wait over the same at the shortest
    private static Figure gainGrowth(List<SleepRun> rows) {
        Figure longest = sleepRun(rows, "virtual").rate().over(sleepRun(rows, "pool").rate());
        Figure shortest = shortestWait(rows, "virtual").rate().over(shortestWait(rows, "pool").rate());
        return longest.over(shortest);
    }

    // When the CPU, not Little's law, capped a run: the bound and the CPU per request behind it
    private static String cpuLimited(SleepRun r) {
        if (!(r.cpuBoundThroughput() < r.boundThroughput())) return null;
        return String.format(Locale.ROOT, "the cores allowed %s req/s at %s µs of CPU per request, server and load"
                        + " generator, with %.2f cores busy elsewhere", Figure.number(r.cpuBoundThroughput()),
                Figure.number(r.serverCpuUsPerRequest() + r.clientCpuUsPerRequest()), r.otherCpuCores());
    }

    /** S03's saved result: the set-up and one row per server. */
    public record SleepEndpoint(int users, int sleepMs, int pool, double warmUpSeconds, double measuredSeconds,
                                List<SleepRun> runs) implements Measurement.Measured {
        public SleepRun run(String mode) {
            return runs.stream().filter(r -> r.mode().equals(mode)).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no " + mode + " run in " + runs));
        }

        @Override
        public List<Measurement> measurements() {
            return runs.stream().flatMap(r -> r.measurements().stream()).toList();
        }
    }

    /**
     * The rows of {@code run}, one per server: refused in one line after a stopped or failed measurement (then
     * {@code run} is the previous run's, or null), so a cell reading them never shows stale numbers.
     */
    public static List<SleepRun> rows(SleepEndpoint run) {
        RunGuard.requireFresh();
        if (run == null) throw new IllegalStateException("no sleep-endpoint run yet: run the measurement above first");
        return run.runs();
    }

    /** Chapter 01's kept sleep-endpoint rows, and when they were measured. */
    public record Reused(List<SleepRun> rows, String time) {}

    /**
     * Chapter 01's run of the sleep endpoint ("01-sleep-endpoint") when it was measured on this machine, JDK and
     * profile with {@code users} users, a pool of {@code pool} and {@code sleepMs}: chapter 06 compares Spring with it
     * instead of measuring the same two servers again.
     */
    public static Optional<Reused> reuse(int users, int pool, int sleepMs) {
        return Results.earlierHere("01-sleep-endpoint")
                .map(e -> new Reused(java.util.Arrays.stream(Json.read(e.data().toString(), SleepRun[].class))
                        .filter(row -> row.sleepMs() == sleepMs).toList(), e.time()))
                .filter(r -> r.rows().size() == 2 && r.rows().stream().allMatch(row -> row.users() == users
                        && (row.mode().equals("virtual") || row.threads() == pool)));
    }

    /** Runs S03 with {@code args} (e.g. "--mode", "both") in its own JVM and returns its result, typed. */
    public static SleepEndpoint sleepEndpoint(String... args) {
        RunGuard.requireFresh();
        return ChildRun.result(SleepEndpoint.class, "S03_SleepEndpointLoad.java", args);
    }

    // ---------------------------------------------------------------- chapter 04: the CPU endpoint (S16)

    /**
     * One run of one server against the CPU endpoint. Its "at full CPU" figure ({@code cpuBoundThroughput}) comes
     * from the CPU measured in the same window, so it is no independent bound: the row reports how busy the free
     * cores were ({@code cpuUtilisation}) against 1.0.
     */
    public record CpuRun(String server, String mode, int repetition, int threads, double throughput,
                         double cpuBoundThroughput, double ratioToBound, double cpuUtilisation, double meanMs,
                         double p99Ms, long errors, double serverCpuUsPerRequest, double clientCpuUsPerRequest,
                         double totalCpuUsPerRequest, double otherCpuCores, int serverLiveThreads,
                         int peakConcurrency, double windowSeconds) implements Measurement.Measured {
        public static CpuRun of(String mode, int pool, int repetition, int cores, Sample sample) {
            LoadRun.Measured m = sample.measured();
            HttpLoad.Result r = m.load();
            double bound = m.cpuBoundThroughput(cores);
            return new CpuRun(mode.equals("pool") ? "pool of " + pool : "virtual threads", mode, repetition,
                    mode.equals("pool") ? pool : 0, r.throughput(), bound, r.throughput() / bound,
                    r.throughput() / bound, r.meanMs(), r.p99Ms(), r.errors(), m.server().cpuUsPerRequest(),
                    r.clientCpuUsPerRequest(), m.totalCpuUsPerRequest(), m.otherCores(), m.server().liveThreads(),
                    sample.peakConcurrency(), r.seconds());
        }

        @Override
        public List<Measurement> measurements() {
            return List.of(Measurement.of(server + " · run " + repetition + " · CPU busy", cpuUtilisation,
                    "share of the free cores").bound(1.0, Measurement.Bound.UPPER).window(windowSeconds));
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "run %d %-15s %,8.1f req/s; CPU busy %.3f of the free cores (at full"
                            + " CPU %,.1f; server %,.0f µs + client %,.0f µs CPU per request, %.2f cores busy"
                            + " elsewhere); mean %,.0f ms, p99 %,.0f ms, %d errors; %d live threads, at most %d"
                            + " requests computing at once", repetition, server, throughput, cpuUtilisation,
                    cpuBoundThroughput, serverCpuUsPerRequest, clientCpuUsPerRequest, otherCpuCores, meanMs, p99Ms,
                    errors, serverLiveThreads, peakConcurrency);
        }
    }

    /** {@code f} over the runs of {@code mode}, with its 95 % interval over those runs. */
    public static Figure acrossRuns(List<CpuRun> rows, String mode, java.util.function.ToDoubleFunction<CpuRun> f) {
        double[] v = rows.stream().filter(r -> r.mode().equals(mode)).mapToDouble(f).toArray();
        if (v.length == 0) throw new IllegalArgumentException("no " + mode + " run in " + rows);
        return Figure.samples(v, "runs");
    }

    /**
     * What chapter 04 expects of the CPU endpoint. The cores set the pace: no run passes the throughput its own CPU
     * per request allows on the free cores. Running each request to completion costs no throughput, so both servers
     * keep the free cores as busy; a gap in requests per second is a gap in CPU per request. The source's point,
     * virtual threads do nothing for CPU-bound work: no more than 10 % ahead.
     */
    public static final Expectations<List<CpuRun>> CPU_EXPECTED = Expectations.<List<CpuRun>>of("04-cpu-endpoint")
            // 3 %: the CPU is read at the window's edges, the requests counted inside it
            .expect("no-run-beats-its-cpu", "the run closest to the throughput its CPU per request allows",
                    "that throughput", rows -> Figure.highest(rows, r -> Figure.single(r.ratioToBound())),
                    Line.atMost(1.03)).limit()
            .expect("cores-as-busy", "the virtual-thread server's share of the free cores kept busy", "the pool's",
                    rows -> acrossRuns(rows, "virtual", CpuRun::cpuUtilisation)
                            .over(acrossRuns(rows, "pool", CpuRun::cpuUtilisation)), Line.within(0.9, 1.1))
            .expect("nothing-for-cpu-work", "virtual threads' throughput", "the pool of 200's",
                    rows -> acrossRuns(rows, "virtual", CpuRun::throughput)
                            .over(acrossRuns(rows, "pool", CpuRun::throughput)), Line.atMost(1.1))
            .claims("pr-15")
            .because(rows -> String.format(Locale.ROOT, "CPU per request (server and load generator, median) %s µs"
                    + " on virtual threads, %s µs on the pool", Figure.number(median(rows, "virtual",
                    CpuRun::totalCpuUsPerRequest)), Figure.number(median(rows, "pool", CpuRun::totalCpuUsPerRequest))));

    /** S16's saved result: the set-up, every run, and virtual / pool over the medians (NaN with one server). */
    public record CpuEndpoint(int users, long n, int pool, int cores, int repeat, List<CpuRun> runs,
                              double virtualOverPool, double virtualOverPoolCpuPerRequest)
            implements Measurement.Measured {
        public static CpuEndpoint of(int users, long n, int pool, int cores, int repeat, List<CpuRun> runs) {
            return new CpuEndpoint(users, n, pool, cores, repeat, List.copyOf(runs),
                    median(runs, "virtual", CpuRun::throughput) / median(runs, "pool", CpuRun::throughput),
                    median(runs, "virtual", CpuRun::totalCpuUsPerRequest)
                            / median(runs, "pool", CpuRun::totalCpuUsPerRequest));
        }

        @Override
        public List<Measurement> measurements() {
            return runs.stream().flatMap(r -> r.measurements().stream()).toList();
        }
    }

    /** The median of {@code f} over the runs of {@code mode} (NaN without one). */
    public static double median(List<CpuRun> runs, String mode, java.util.function.ToDoubleFunction<CpuRun> f) {
        double[] v = runs.stream().filter(r -> r.mode().equals(mode)).mapToDouble(f).sorted().toArray();
        if (v.length == 0) return Double.NaN;
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** Runs S16 with {@code args} in its own JVM (the servers and generators in theirs) and returns its result. */
    public static CpuEndpoint cpuEndpoint(String... args) {
        RunGuard.requireFresh();
        return ChildRun.result(CpuEndpoint.class, "S16_CpuEndpointLoad.java", args);
    }

}
