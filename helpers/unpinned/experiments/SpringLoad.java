//SOURCES ../core/Bounds.java
//SOURCES ../running/ChildRun.java
//SOURCES ../core/Cli.java
//SOURCES EndpointLoad.java
//SOURCES ../core/Expectations.java
//SOURCES ../core/Experiment.java
//SOURCES ../core/Figure.java
//SOURCES ../running/HttpLoad.java
//SOURCES ../core/Json.java
//SOURCES ../running/LoadRun.java
//SOURCES ../core/Measurement.java
//SOURCES ../core/Profile.java
//SOURCES ../core/RunGuard.java
//SOURCES ../running/ServerProcess.java
package unpinned.experiments;

import unpinned.core.Bounds;
import unpinned.core.Cli;
import unpinned.core.Experiment;
import unpinned.core.Expectations;
import unpinned.core.Expectations.Line;
import unpinned.core.Figure;
import unpinned.core.Json;
import unpinned.core.Measurement;
import unpinned.core.Profile;
import unpinned.core.RunGuard;
import unpinned.running.ChildRun;
import unpinned.running.HttpLoad;
import unpinned.running.LoadRun;
import unpinned.running.ServerProcess;

import com.google.gson.JsonObject;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Chapter 06's load tests of the Spring Boot service (snippet S21, {@code spring-load}; the server is S20): the three
 * published experiments as plans (users, pool size, endpoints, timing, the sources' figures), the typed rows S21
 * saves, and Actuator's view of the server after a run.
 */
public final class SpringLoad {
    private SpringLoad() {}

    public static final List<String> EXPERIMENTS = List.of("pr", "jpa-blog", "seminar");
    /** What the JDK 25 post read from Actuator, and why our figures can't be compared with it one to one. */
    static final String JPA_BLOG_RESOURCES = "the post read Actuator after another test (a POST writing 3 rows in"
            + " parallel on a new pool of 100 platform threads per request, never shut down): 2,981 live threads,"
            + " 288 MB of heap, 13.2 s of CPU, against 38, 195 MB and 10.8 s with a virtual-thread executor. Here the"
            + " pool is Tomcat's 10 threads, so both modes keep a few tens of live threads. And 5 s of load is too"
            + " short for Little's steady state on the pool (each user waiting users / throughput = 20 s): its mean"
            + " latency is what the first requests in the queue waited.";
    public static final int MAX_USERS = 20_000;

    /** What a source published for its own set-up: requests per second and its own Little's-law bound. */
    public record SourceFigures(String source, double platform, double platformBound, double virtual, double virtualBound) {
        public String describe() {
            return String.format(Locale.ROOT, "%s: Tomcat pool %,.1f req/s%s, virtual threads %,.1f req/s%s",
                    source, platform, ratio(platform, platformBound), virtual, ratio(virtual, virtualBound));
        }

        static String ratio(double value, double bound) {
            return Double.isNaN(bound) ? ""
                    : String.format(Locale.ROOT, " (%.3f of its bound %,.0f)", value / bound, bound);
        }
    }

    /**
     * One load on one endpoint: the path, the time a request spends waiting (NaN: it computes, so the bound is the
     * CPU's), the users of each level, and the timing of the generator's windows.
     */
    public record Load(String name, String path, double serviceSeconds, List<Integer> users, Duration warmUp,
                Duration levelWarmUp, Duration duration, SourceFigures published) {
        public boolean computes() {
            return Double.isNaN(serviceSeconds);
        }
    }

    /** An experiment: its title, Tomcat's pool size, and the loads each server gets, in order. */
    public record Plan(String id, String title, String sizes, int threads, List<Load> loads, String note) {}

    /** About how long Spring Boot takes from the command to ready on 2 cores (~3 s measured): in a run's time. */
    public static final double SPRING_START_S = 5;

    /**
     * S21's whole time: for each experiment and each mode, Spring's start, then each load as one generator run (its
     * JVM's start, the warm-up, a window per level and the warm-up between levels).
     */
    public static Experiment.Time time(List<Plan> plans, int modes) {
        double perMode = 0;
        int loads = 0, windows = 0;
        for (Plan plan : plans) {
            perMode += SPRING_START_S;
            for (Load l : plan.loads()) {
                int levels = l.users().size();
                loads++;
                windows += levels;
                perMode += Experiment.JVM_START_S + seconds(l.warmUp()) + levels * seconds(l.duration())
                        + (levels - 1) * seconds(l.levelWarmUp());
            }
        }
        return Experiment.Time.of(modes * perMode, "%d mode%s x (%d Spring start%s of %.0f s + %d load%s, each a JVM"
                        + " start of %.0f s and its warm-ups, with %d measured window%s in all) = %d x %,.0f s", modes,
                modes == 1 ? "" : "s", plans.size(), plans.size() == 1 ? "" : "s", SPRING_START_S, loads,
                loads == 1 ? "" : "s", Experiment.JVM_START_S, windows, windows == 1 ? "" : "s", modes, perMode);
    }

    private static double seconds(Duration d) {
        return d.toMillis() / 1e3;
    }

    /** The plans for the profile, with the command line's changes (which only a single experiment accepts). */
    public static List<Plan> plans(Cli cli, Profile p) {
        String which = cli.value("--experiment", "all");
        List<String> ids = which.equals("all") ? EXPERIMENTS : List.of(which.split(",", -1));
        for (String id : ids) {
            if (!EXPERIMENTS.contains(id.strip())) {
                throw new IllegalArgumentException("--experiment must be pr, jpa-blog, seminar, a comma-separated list"
                        + " of them, or all; got '" + which + "'");
            }
        }
        List<String> sizing = List.of("--users", "--threads", "--sleep-ms", "--n", "--endpoint");
        for (String o : sizing) {
            if (cli.has(o) && ids.size() != 1) {
                throw new IllegalArgumentException(o + " sizes one experiment: add --experiment pr, jpa-blog or"
                        + " seminar");
            }
        }
        if ((cli.has("--n") || cli.has("--endpoint")) && !ids.get(0).strip().equals("seminar")) {
            throw new IllegalArgumentException("--n and --endpoint belong to --experiment seminar");
        }
        Duration warm = cli.has("--warmup-s") ? seconds(cli.doubleValue("--warmup-s", 0, 0, 600)) : null;
        Duration window = cli.has("--duration-s") ? seconds(cli.doubleValue("--duration-s", 0, 1, 3600)) : null;
        List<Integer> users = cli.has("--users") ? users(cli.value("--users", "")) : null;
        List<Plan> plans = new ArrayList<>();
        for (String id : ids) {
            plans.add(switch (id.strip()) {
                case "pr" -> {
                    int ms = cli.intValue("--sleep-ms", 100, 1, 60_000);
                    int threads = cli.intValue("--threads", 50, 1, 10_000);
                    List<Integer> u = users == null ? List.of(500) : users;
                    SourceFigures pub = u.equals(List.of(500)) && ms == 100 && threads == 50 ? new SourceFigures(
                            "the pull request (500 users x 10 requests, Spring Boot 3.4.4, Java 21, a laptop)",
                            479.1, 500, 3_921.6, 5_000) : null;
                    yield new Plan("pr", "sunwon12's pull request", String.format(Locale.ROOT,
                            "%s users on GET /sleep?ms=%d, Tomcat max %d threads vs virtual threads", list(u), ms,
                            threads), threads, List.of(new Load("sleep", "/sleep?ms=" + ms, ms / 1e3, u,
                            orElse(warm, p.pick(3, 10)), orElse(warm, levelWarmUp(p.pick(3, 10), u, threads, ms / 1e3)),
                            orElse(window, p.pick(3, 10)), pub)), null);
                }
                case "jpa-blog" -> {
                    int ms = cli.intValue("--sleep-ms", 1000, 1, 60_000);
                    int threads = cli.intValue("--threads", 10, 1, 10_000);
                    List<Integer> u = users == null ? List.of(200) : users;
                    SourceFigures pub = u.equals(List.of(200)) && ms == 1000 && threads == 10 ? new SourceFigures(
                            "the JDK 25 post (k6, 200 users for 5 s, Spring Boot 3.5.6, JDK 25, a MacBook M4 Pro)",
                            9.9, 10, 194, 200) : null;
                    yield new Plan("jpa-blog", "the JDK 25 post (🔥Log)", String.format(Locale.ROOT,
                            "%s users on GET /sleep?ms=%d (the post: 5 s of load), Tomcat max %d threads vs virtual"
                                    + " threads", list(u), ms, threads),
                            threads, List.of(new Load("sleep", "/sleep?ms=" + ms, ms / 1e3, u,
                            orElse(warm, 2), orElse(warm, levelWarmUp(2, u, threads, ms / 1e3)), orElse(window, 5),
                            pub)), JPA_BLOG_RESOURCES);
                }
                default -> seminar(cli, p, users, warm, window);
            });
        }
        return plans;
    }

    static Plan seminar(Cli cli, Profile p, List<Integer> users, Duration warm, Duration window) {
        int ms = cli.intValue("--sleep-ms", p.pick(100, 500), 1, 30_000);
        long n = cli.longValue("--n", p.pick(2_000_000L, 100_000_000L), 1, 10_000_000_000L);
        int threads = cli.intValue("--threads", 200, 1, 10_000);
        String endpoint = cli.oneOf("--endpoint", "both", List.of("io", "cpu", "both"));
        List<Integer> ioUsers = users != null ? users : p.pick(List.of(100, 1000), List.of(200, 1000, 2000));
        List<Integer> cpuUsers = users != null ? users : List.of(20, 200);
        boolean source = threads == 200; // its figures, as ratios to its own bounds, compare at any size
        List<Load> loads = new ArrayList<>();
        if (!endpoint.equals("cpu")) {
            SourceFigures pub = source ? new SourceFigures("the write-up's test 2, /io?ms=500 (k6 ramping to 2,000 users, mean"
                    + " of 3 runs, Spring Boot 3.3.4, OpenJDK 21, 2 cores)", 188.7, 200, 877, 2_000) : null;
            loads.add(new Load("io", "/io?ms=" + ms, 2 * ms / 1e3, ioUsers, orElse(warm, p.pick(2, 5)),
                    orElse(warm, levelWarmUp(p.pick(2, 3), ioUsers, threads, 2 * ms / 1e3)), // the JIT, at the new level
                    orElse(window, p.pick(2, 10)), pub));
        }
        if (!endpoint.equals("io")) {
            SourceFigures pub = source ? new SourceFigures("the write-up's test 2, /cpu?n=100000000 (the same set-up; virtual"
                    + " / pool = 0.87)", 23.3, Double.NaN, 20.3, Double.NaN) : null;
            loads.add(new Load("cpu", "/cpu?n=" + n, Double.NaN, cpuUsers, orElse(warm, p.pick(1, 10)),
                    orElse(warm, p.pick(1, 5)), orElse(window, p.pick(2, 30)), pub));
        }
        String scaled = p == Profile.QUICK && !cli.has("--sleep-ms") && !cli.has("--n") && users == null
                ? " (quick profile: the write-up's 2 x 500 ms sleeps / 5, N = 100,000,000 / 50, users to 1,000,"
                        + " not 2,000)"
                : "";
        return new Plan("seminar", "Ray123's seminar write-up, test 2", String.format(Locale.ROOT,
                "GET /io?ms=%d (two sleeps) at %s users and GET /cpu?n=%,d at %s users, Tomcat max %d threads vs"
                        + " virtual threads%s", ms, list(ioUsers), n, list(cpuUsers), threads, scaled), threads, loads,
                null);
    }

    /**
     * Warm-up before each level after the first: at least {@code seconds} (the JIT, at the new level), and at least
     * the longest response time of any level on the pool, by Little's law R = users x S / min(users, threads). That
     * is both the time the pool needs to work off what the last level left in its queue (their users are gone; else
     * the window counts the pool's time spent on them as lost), and the time the new level's queue takes to reach its
     * steady length (else the window's latencies are those of a queue still filling).
     */
    static double levelWarmUp(double seconds, List<Integer> levels, int threads, double serviceSeconds) {
        double response = 0;
        for (int u : levels) {
            response = Math.max(response, u * serviceSeconds / Math.min(u, threads));
        }
        return levels.size() > 1 ? Math.max(seconds, response) : seconds;
    }

    static List<Integer> users(String value) {
        List<Integer> counts = new ArrayList<>();
        for (String part : value.split(",", -1)) {
            int u;
            try {
                u = Integer.parseInt(part.strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--users must be a whole number 1..20,000 or a comma-separated"
                        + " list of them (e.g. 100,500); got '" + value + "'");
            }
            if (u < 1 || u > MAX_USERS) throw new IllegalArgumentException("--users must be 1..20,000 each; got " + u);
            counts.add(u);
        }
        return counts;
    }

    static Duration seconds(double s) {
        return Duration.ofMillis(Math.round(s * 1000));
    }

    static Duration orElse(Duration given, double seconds) {
        return given != null ? given : seconds(seconds);
    }

    public static String list(List<Integer> users) {
        return String.join(",", users.stream().map(u -> String.format(Locale.ROOT, "%,d", u)).toList());
    }

    /** Longest wait for one answer: a queued request on the pool waits users / threads services. */
    public static Duration timeout(Load load, int threads) {
        int most = load.users().stream().mapToInt(Integer::intValue).max().orElseThrow();
        double wait = load.computes() ? 120
                : 3 * load.serviceSeconds() * Math.ceil((double) most / Math.min(most, threads));
        return seconds(Math.min(600, Math.max(60, wait)));
    }

    /**
     * One mode at one user level on one endpoint. Little's law bounds the waiting endpoints (LITTLE); the /cpu
     * endpoint's "bound" is the CPU measured in the same window, so its row reports utilisation against 1.0 (UPPER).
     */
    public record Run(String endpoint, String path, String mode, int threads, int users, Double serviceSeconds,
                      String boundKind, double boundReqPerSec, Double littleBoundReqPerSec, Double cpuBoundReqPerSec,
                      double throughput, double ratioToBound, long requests, long errors, double meanMs, double minMs,
                      double maxMs, double stdDevMs, double p50Ms, double p99Ms, double windowSeconds,
                      double serverCpuUsPerRequest, double clientCpuUsPerRequest, int serverLiveThreadsInWindow,
                      double serverRssMb, int peakConcurrency, long handledOnVirtualThreads, HttpLoad.Result load,
                      double serverStartSeconds, double springStartSeconds, Actuator actuatorAfterRun, long handled,
                      int cores, double otherCpuCores, double[] serverCoresSamples, double[] serverCpuUsSamples,
                      Boolean asyncOnVirtualThread)
            implements Measurement.Measured {
        public static Run of(Plan plan, Load load, String mode, int users, LoadRun.Measured m, int cores,
                             JsonObject own, double serverStartSeconds, double springStartSeconds, Actuator after) {
            HttpLoad.Result r = m.load();
            boolean virtual = mode.equals("virtual");
            double little = load.computes() ? Double.NaN
                    : Bounds.closedLoopThroughput(users, virtual ? users : plan.threads(), load.serviceSeconds());
            double cpu = m.cpuBoundThroughput(cores);
            double bound = load.computes() ? cpu : little;
            return new Run(load.name(), load.path(), mode, virtual ? 0 : plan.threads(), users,
                    load.computes() ? null : load.serviceSeconds(), load.computes() ? "cpu" : "little", bound,
                    load.computes() ? null : little, Double.isNaN(cpu) ? null : cpu, r.throughput(),
                    r.throughput() / bound, r.requests(), r.errors(), r.meanMs(), r.minMs(), r.maxMs(), r.stdDevMs(),
                    r.p50Ms(), r.p99Ms(), r.seconds(), m.server().cpuUsPerRequest(), r.clientCpuUsPerRequest(),
                    m.server().liveThreads(), m.server().rssMb(), own.get("peakConcurrency").getAsInt(),
                    own.get("handledOnVirtualThreads").getAsLong(), r, serverStartSeconds, springStartSeconds, after,
                    own.has("handled") ? own.get("handled").getAsLong() : -1, cores, m.otherCores(),
                    m.serverCoresSamples(), m.serverCpuUsSamples(), own.has("asyncOnVirtualThread")
                            ? own.get("asyncOnVirtualThread").getAsBoolean() : null);
        }

        @Override
        public List<Measurement> measurements() {
            String what = mode + " · " + path + " · " + users + " users";
            if (boundKind.equals("little")) {
                return List.of(Measurement.of(what, throughput, "req/s").bound(boundReqPerSec, Measurement.Bound.LITTLE)
                        .window(windowSeconds));
            }
            return List.of(Measurement.of(what + " · CPU busy", ratioToBound, "share of the free cores")
                    .bound(1.0, Measurement.Bound.UPPER).window(windowSeconds));
        }
    }

    /** One experiment (a Report) as S21 saves it: its plan's description, every run, virtual / pool, the sources. */
    public record Report(String experiment, String title, String sizes, int tomcatMaxThreads, List<Run> runs,
                         Map<String, Double> virtualOverPlatform, List<Map<String, Object>> published, String note,
                         double seconds) {
        /** The notebook's rows, one per mode and level; {@code experiment} is the endpoint for the seminar's. */
        public List<SpringRow> rows() {
            return runs.stream().map(r -> SpringRow.of(experiment.equals("seminar") ? r.endpoint() : experiment, r))
                    .toList();
        }

        /** Actuator's figures after each mode's last run, as the JDK 25 post read them. */
        public List<ActuatorRow> actuatorRows() {
            return runs.stream().filter(r -> r.actuatorAfterRun() != null).map(r -> new ActuatorRow(
                    SpringRow.label(r), r.actuatorAfterRun().jvmThreadsLive(), r.actuatorAfterRun().heapUsedMb(),
                    r.actuatorAfterRun().processCpuSeconds())).toList();
        }
    }

    /** Live threads, heap in use and CPU time Actuator reported after a mode's run. */
    public record ActuatorRow(String mode, double jvmThreadsLive, double heapUsedMb, double processCpuSeconds) {}

    /**
     * A run as chapter 06 shows it: the mode as "Tomcat N" or "virtual threads", the bound (Little's law, or for
     * /cpu the full-CPU rate of the same window), serviceSeconds NaN when the endpoint computes, and how busy the
     * free cores were ({@code cpuUtilisation}: throughput / the full-CPU rate). Each figure a declaration judges has
     * its 95 % half-width beside it ({@code ...Spread}): over the window's seconds for what the load generator
     * measured, over the server's own readings each quarter second for its CPU. The server's cores are its CPU time
     * over the window; the rest of the machine's ({@code otherCpuCores}) what the other processes kept busy.
     */
    /** Where the spread of the server's own figures comes from. */
    static final String SLICES = "the server's readings each quarter second";

    public record SpringRow(String experiment, String mode, int users, double throughput, double bound,
                            double ratioToBound, double meanMs, double minMs, double maxMs, double stdDevMs,
                            double p99Ms, long errors, double serverCpuUsPerRequest, int serverLiveThreads,
                            double windowSeconds, double serviceSeconds, double clientCpuUsPerRequest,
                            double cpuUtilisation, double throughputSpread, double meanMsSpread, double p99MsSpread,
                            double maxMsSpread, double stdDevMsSpread, double serverCpuUsSpread, double serverCores,
                            double serverCoresSpread, double otherCpuCores, double cpuBound, int cores,
                            double handledOnVirtualShare, double asyncOnVirtualThread)
            implements Measurement.Measured {
        static String label(Run r) {
            return r.mode().equals("virtual") ? "virtual threads" : "Tomcat " + r.threads();
        }

        static SpringRow of(String experiment, Run r) {
            HttpLoad.Result l = r.load();
            double seconds = l.seconds();
            double cores = r.serverCpuUsPerRequest() * l.requests() / 1e6 / seconds;
            Figure coresFigure = slices(cores, r.serverCoresSamples());
            return new SpringRow(experiment, label(r), r.users(), r.throughput(), r.boundReqPerSec(),
                    r.ratioToBound(), r.meanMs(), r.minMs(), r.maxMs(), r.stdDevMs(), r.p99Ms(), r.errors(),
                    r.serverCpuUsPerRequest(), r.serverLiveThreadsInWindow(), r.windowSeconds(),
                    r.serviceSeconds() == null ? Double.NaN : r.serviceSeconds(), r.clientCpuUsPerRequest(),
                    r.cpuBoundReqPerSec() == null ? Double.NaN : r.throughput() / r.cpuBoundReqPerSec(),
                    l.throughputFigure().halfWidth(), l.meanMsFigure().halfWidth(), l.p99MsFigure().halfWidth(),
                    l.maxMsFigure().halfWidth(), l.stdDevMsFigure().halfWidth(),
                    slices(r.serverCpuUsPerRequest(), r.serverCpuUsSamples()).halfWidth(),
                    cores, coresFigure.halfWidth(), r.otherCpuCores(),
                    r.cpuBoundReqPerSec() == null ? Double.NaN : r.cpuBoundReqPerSec(), r.cores(),
                    r.handled() > 0 ? (double) r.handledOnVirtualThreads() / r.handled() : Double.NaN,
                    r.asyncOnVirtualThread() == null ? Double.NaN : r.asyncOnVirtualThread() ? 1 : 0);
        }

        // the server's own readings, each quarter second of the window
        private static Figure slices(double value, double[] samples) {
            return samples == null || samples.length < 2 ? Figure.single(value)
                    : Figure.samples(samples, SLICES).at(value);
        }

        /** The server's and the load generator's CPU per request, µs. */
        public double cpuUsPerRequest() {
            return serverCpuUsPerRequest + clientCpuUsPerRequest;
        }

        /** Requests per second with their 95 % interval over the window's seconds. */
        public Figure rate() {
            return window(throughput, throughputSpread);
        }

        public Figure mean() {
            return window(meanMs, meanMsSpread);
        }

        public Figure p99() {
            return window(p99Ms, p99MsSpread);
        }

        public Figure max() {
            return window(maxMs, maxMsSpread);
        }

        public Figure stdDev() {
            return window(stdDevMs, stdDevMsSpread);
        }

        /** The server's CPU µs per request, with the spread of its readings each quarter second. */
        public Figure serverCpu() {
            return Figure.of(serverCpuUsPerRequest, serverCpuUsSpread, SLICES);
        }

        /** The cores the server kept busy in the window, with the spread of its readings each quarter second. */
        public Figure coresBusy() {
            return Figure.of(serverCores, serverCoresSpread, SLICES);
        }

        /** The load generator's cores in the window: its CPU per request x the requests per second. */
        public double generatorCores() {
            return clientCpuUsPerRequest * throughput / 1e6;
        }

        /** What a waiting endpoint could reach here: the lower of its Little bound and its window's CPU bound. */
        public double reachable() {
            return Double.isFinite(cpuBound) && cpuBound > 0 && !Double.isNaN(serviceSeconds)
                    ? Math.min(bound, cpuBound) : bound;
        }

        /** True when the CPU, not Little's law, capped this waiting run (its CPU bound under 95 % of its bound). */
        public boolean cpuLimited() {
            return !Double.isNaN(serviceSeconds) && Double.isFinite(cpuBound) && cpuBound < 0.95 * bound;
        }

        /** The most a window of this length can count against Little's law: its edges let one more end per server. */
        public double ceiling() {
            if (Double.isNaN(serviceSeconds)) return bound + users / windowSeconds;
            double servers = bound * serviceSeconds;
            return servers * (Math.floor(windowSeconds / serviceSeconds + 1e-9) + 1) / windowSeconds;
        }

        private static Figure window(double value, double halfWidth) {
            return Figure.of(value, halfWidth, "seconds of the load window");
        }

        @Override
        public List<Measurement> measurements() {
            String what = experiment + " · " + mode + " · " + users + " users";
            if (!Double.isNaN(serviceSeconds)) {
                return List.of(Measurement.of(what, throughput, "req/s").bound(bound, Measurement.Bound.LITTLE)
                        .window(windowSeconds));
            }
            return List.of(Measurement.of(what + " · CPU busy", cpuUtilisation, "share of the free cores")
                    .bound(1.0, Measurement.Bound.UPPER).window(windowSeconds));
        }
    }

    // ------------------------------------------------------------------------------------------ what chapter 06 expects

    static SpringRow mode(List<SpringRow> rows, String prefix) {
        return rows.stream().filter(r -> r.mode().startsWith(prefix)).reduce((a, b) -> b)
                .orElseThrow(() -> new IllegalArgumentException("no '" + prefix + "' run in " + rows.size() + " rows"));
    }

    static SpringRow pool(List<SpringRow> rows) {
        return mode(rows, "Tomcat");
    }

    static SpringRow virtual(List<SpringRow> rows) {
        return mode(rows, "virtual");
    }

    /** The run of {@code endpoint} ("io", "cpu") and mode at its most users. */
    static SpringRow top(List<SpringRow> rows, String endpoint, String prefix) {
        return mode(rows.stream().filter(r -> r.experiment().equals(endpoint))
                .sorted(java.util.Comparator.comparingInt(SpringRow::users)).toList(), prefix);
    }

    // Where the cores, not Little's law, held virtual threads below what a gain of `wanted` x the pool needs
    static String coresAllow(SpringRow v, SpringRow pool, double wanted) {
        double allowed = v.reachable() / pool.bound();
        if (!v.cpuLimited() || allowed >= wanted) return null;
        return String.format(Locale.ROOT, "on the cores: at %s µs of CPU per request (server and load generator),"
                        + " with %.2f of the %d cores busy elsewhere, they allowed virtual threads %s req/s, %.1f x %s's"
                        + " bound", Figure.number(v.cpuUsPerRequest()), v.otherCpuCores(), v.cores(),
                Figure.number(v.cpuBound()), allowed, pool.mode());
    }

    // Where virtual threads' requests queued for the CPU, which the source's run did not (its mean: sourceMeanMs)
    static String queuedForCpu(SpringRow v, double sourceMeanMs) {
        if (!v.cpuLimited() || v.meanMs() <= 1.25 * sourceMeanMs) return null;
        return String.format(Locale.ROOT, "on the cores: virtual threads were CPU-bound (the cores allowed %s of their"
                        + " %s req/s at %s µs of CPU per request), so their requests queued for the CPU: mean %s ms,"
                        + " against %s ms in the source's run", Figure.number(v.cpuBound()), Figure.number(v.bound()),
                Figure.number(v.cpuUsPerRequest()), Figure.number(v.meanMs()), Figure.number(sourceMeanMs));
    }

    // Each mode's tail, and where its requests waited: the pool's queue, or (no admission control) the CPU
    static String tails(List<SpringRow> rows) {
        SpringRow p = pool(rows), v = virtual(rows);
        String virtualWait = v.cpuLimited() ? String.format(Locale.ROOT, "the cores full (they allowed %s req/s at %s"
                        + " µs of CPU per request, %.2f of the %d cores busy elsewhere), so with no admission control"
                        + " all %,d requests queued for the CPU", Figure.number(v.cpuBound()),
                Figure.number(v.cpuUsPerRequest()), v.otherCpuCores(), v.cores(), v.users())
                : String.format(Locale.ROOT, "the cores not full (%.0f %% busy)", 100 * v.cpuUtilisation());
        return String.format(Locale.ROOT, "%s let %d requests in at a time and queued the rest in order: mean %s ms,"
                        + " p99 %s ms; virtual threads let all %,d in at once and served %s req/s, %.2f of their"
                        + " Little bound, with %s: mean %s ms, p99 %s ms", p.mode(), Math.round(p.bound()
                        * p.serviceSeconds()), Figure.number(p.meanMs()), Figure.number(p.p99Ms()), v.users(),
                Figure.number(v.throughput()), v.ratioToBound(), virtualWait, Figure.number(v.meanMs()),
                Figure.number(v.p99Ms()));
    }

    /**
     * What chapter 06 expects of the pull request's test (500 users, 100 ms): nothing above Little's law or under the
     * sleep; Tomcat 50 at its bound; the property alone lifting the cap (the source's 8.2 x where the cores allow it);
     * the tail; and the source's latency claims, where the run differs from its in the cores (measured).
     */
    public static final Expectations<List<SpringRow>> PR_EXPECTED = Expectations.<List<SpringRow>>of("06-pull-request")
            .expect("under-little", "the mode closest to Little's law", "min(users, threads) / 100 ms over its window",
                    rows -> Figure.highest(rows, r -> r.rate().over(r.ceiling())), Line.atMost(1.0)).limit()
            .expect("no-response-beats-the-sleep", "the fastest response", "the sleep",
                    rows -> Figure.lowest(rows, r -> Figure.exact(r.minMs()).over(1e3 * r.serviceSeconds())),
                    Line.atLeast(0.999)).limit()
            .expect("pool-at-its-bound", "Tomcat 50", "its Little bound 50 / 100 ms",
                    rows -> pool(rows).rate().over(pool(rows).bound()), Line.atLeast(0.9))
            .expect("gain-from-the-property", "virtual threads' throughput",
                    "Tomcat 50's (the same app, only the property flipped)",
                    rows -> virtual(rows).rate().over(pool(rows).rate()), Line.atLeast(8.2 / 1.25).directionFrom(1.1))
            .claims("pr-16")
            .dependsOn(rows -> coresAllow(virtual(rows), pool(rows), 8.2 / 1.25))
            .expect("tail", "virtual threads' p99 latency", "Tomcat 50's p99",
                    rows -> virtual(rows).p99().over(pool(rows).p99()), Line.atMost(1.0))
            .because(SpringLoad::tails)
            .expect("max-falls", "Tomcat 50's slowest response", "virtual threads' slowest",
                    rows -> pool(rows).max().over(virtual(rows).max()), Line.atLeast(6.4 / 1.25).directionFrom(1.1))
            .claims("pr-4")
            .dependsOn(rows -> queuedForCpu(virtual(rows), 105))
            .expect("steadier", "Tomcat 50's latency standard deviation", "virtual threads'",
                    rows -> pool(rows).stdDev().over(virtual(rows).stdDev()), Line.atLeast(20 / 1.25).directionFrom(1.1))
            .claims("pr-5")
            .dependsOn(rows -> queuedForCpu(virtual(rows), 105))
            .expect("same-fastest", "Tomcat 50's fastest response", "virtual threads' fastest",
                    rows -> Figure.single(pool(rows).minMs()).over(Figure.single(virtual(rows).minMs())),
                    Line.within(1 / 1.1, 1.1)).claims("pr-6")
            .expect("no-errors", "failed requests, both modes together", "one failed request",
                    rows -> Figure.exact(rows.stream().mapToLong(SpringRow::errors).sum()), Line.atMost(0)).claims("pr-7")
            .expect("fails-past-150", "failed requests on Tomcat 50, more users than its 50 threads + a queue of 100",
                    "one failed request", rows -> Figure.exact(pool(rows).errors()), Line.atLeast(1)).claims("pr-8")
            .untestableWhen(rows -> pool(rows).users() <= 150 ? String.format(Locale.ROOT, "the claim is about more"
                    + " than 150 requests in flight, and this run had %d users", pool(rows).users()) : null);

    /** The JDK 25 post's GET test: every run, and Actuator's view of each server after its run. */
    public record PostRuns(List<SpringRow> runs, List<ActuatorRow> actuator) implements Measurement.Measured {
        @Override
        public List<Measurement> measurements() {
            return runs.stream().flatMap(r -> r.measurements().stream()).toList();
        }
    }

    /** The post's figure for virtual threads on its GET test, req/s (a MacBook M4 Pro; data/sources.md). */
    static final double POST_VIRTUAL_THROUGHPUT = 194;
    /** A machine with more cores than this is no small server. */
    static final int SMALL_SERVER_CORES = 4;

    /**
     * What chapter 06 expects of the JDK 25 post's GET test (200 users, 1 s): both modes at their Little bounds, the
     * property moving request handling and the application's task executor onto virtual threads, and this machine
     * (a small server) serving what the post's laptop did.
     */
    public static final Expectations<PostRuns> POST_EXPECTED = Expectations.<PostRuns>of("06-jdk25-post")
            .expect("under-little", "the mode closest to Little's law", "min(users, threads) / 1 s over its window",
                    d -> Figure.highest(d.runs(), r -> r.rate().over(r.ceiling())), Line.atMost(1.0)).limit()
            .expect("pool-at-its-bound", "Tomcat 10", "its Little bound 10 / 1 s",
                    d -> pool(d.runs()).rate().over(pool(d.runs()).bound()), Line.atLeast(0.9)).claims("jpa-3")
            .expect("virtual-at-its-bound", "virtual threads", "their Little bound users / 1 s",
                    d -> virtual(d.runs()).rate().over(virtual(d.runs()).bound()), Line.atLeast(0.9)).claims("jpa-2")
            .expect("gain", "virtual threads' throughput", "Tomcat 10's",
                    d -> virtual(d.runs()).rate().over(pool(d.runs()).rate()), Line.atLeast(19.6 / 1.25).directionFrom(1.1))
            .claims("jpa-1")
            .dependsOn(d -> coresAllow(virtual(d.runs()), pool(d.runs()), 19.6 / 1.25))
            .expect("requests-on-virtual-threads", "requests the server ran on a virtual thread, the property on",
                    "all it ran", d -> Figure.exact(virtual(d.runs()).handledOnVirtualShare()), Line.atLeast(0.99))
            .claims("jpa-9")
            .untestableWhen(d -> Double.isNaN(virtual(d.runs()).handledOnVirtualShare())
                    ? "the server did not count the requests it ran" : null)
            .expect("async-on-virtual-threads", "the thread an @Async method ran on, the property on",
                    "a virtual thread", d -> Figure.exact(virtual(d.runs()).asyncOnVirtualThread()), Line.atLeast(1))
            .claims("jpa-13")
            .untestableWhen(d -> Double.isNaN(virtual(d.runs()).asyncOnVirtualThread())
                    ? "the server did not report its @Async method's thread" : null)
            .expect("small-server", "virtual threads on this machine", "the post's 194 req/s on a MacBook M4 Pro",
                    d -> virtual(d.runs()).rate().over(POST_VIRTUAL_THROUGHPUT), Line.atLeast(0.9)).claims("jpa-12")
            .untestableWhen(d -> virtual(d.runs()).cores() > SMALL_SERVER_CORES ? String.format(Locale.ROOT,
                    "this machine has %d cores: not a small server", virtual(d.runs()).cores()) : null)
            .because(d -> String.format(Locale.ROOT, "%d cores shared with the load generator (%.2f busy elsewhere)"
                    + " and a 512 MB heap; %s µs of CPU per request", virtual(d.runs()).cores(),
                    virtual(d.runs()).otherCpuCores(), Figure.number(virtual(d.runs()).cpuUsPerRequest())));

    /**
     * What chapter 06 expects of the seminar write-up's test 2: Tomcat 200 capped at its Little bound on the I/O
     * endpoint and virtual threads far above it (the source's 4.6 x where this run's cores allow it); on the CPU
     * endpoint the two executors compared per second of CPU each server got, the measured share of the cores each
     * one got shown with it, since on shared cores that share, not the executor, can set a gap in throughput.
     */
    public static final Expectations<List<SpringRow>> SEMINAR_EXPECTED = Expectations.<List<SpringRow>>of("06-seminar")
            .expect("under-the-bounds", "the level closest to its limit", "Little's law on /io, the window's CPU on"
                    + " /cpu, with the window's edges", rows -> Figure.highest(rows, r -> r.rate().over(r.ceiling())),
                    Line.atMost(1.0)).limit()
            .expect("pool-at-its-bound", "Tomcat 200 on /io at the most users", "its Little bound 200 / 2 sleeps",
                    rows -> top(rows, "io", "Tomcat").rate().over(top(rows, "io", "Tomcat").bound()), Line.atLeast(0.9))
            .claims("sem-5")
            .expect("io-gain", "virtual threads' throughput on /io at the most users", "Tomcat 200's",
                    rows -> top(rows, "io", "virtual").rate().over(top(rows, "io", "Tomcat").rate()),
                    Line.atLeast(4.6 / 1.25).directionFrom(1.1)).claims("sem-6")
            .dependsOn(rows -> coresAllow(top(rows, "io", "virtual"), top(rows, "io", "Tomcat"), 4.6 / 1.25))
            .expect("io-mean-falls", "Tomcat 200's mean latency on /io at the most users", "virtual threads'",
                    rows -> top(rows, "io", "Tomcat").mean().over(top(rows, "io", "virtual").mean()),
                    Line.atLeast(4.9 / 1.25).directionFrom(1.1)).claims("sem-7")
            .dependsOn(rows -> coresAllow(top(rows, "io", "virtual"), top(rows, "io", "Tomcat"), 4.9 / 1.25))
            .expect("cpu-per-core", "virtual threads' requests per second of server CPU on /cpu at the most users",
                    "Tomcat 200's", SpringLoad::perSecondOfCpu, Line.atMost(1.0)).claims("sem-8", "sem-9", "sem-29")
            .because(SpringLoad::coresEachGot);

    /**
     * Requests per second of its own CPU, virtual threads' server over Tomcat 200's, on the CPU endpoint at the most
     * users. Other processes running beside a window slow its instructions on shared cores (a busy sibling, a cold
     * cache), so the interval is widened by the larger share of the cores the rest of the machine took in either
     * window: a difference that busy neighbours could make is not laid at the executor's door.
     */
    static Figure perSecondOfCpu(List<SpringRow> rows) {
        SpringRow t = top(rows, "cpu", "Tomcat"), v = top(rows, "cpu", "virtual");
        double elsewhere = Math.max(t.otherCpuCores(), v.otherCpuCores()) / Math.max(1, v.cores());
        return t.serverCpu().over(v.serverCpu()).widened(Double.isFinite(elsewhere) ? elsewhere : 0);
    }

    // The CPU endpoint's throughput, split into the cores each server got and what a request cost it
    static String coresEachGot(List<SpringRow> rows) {
        SpringRow t = top(rows, "cpu", "Tomcat"), v = top(rows, "cpu", "virtual");
        return String.format(Locale.ROOT, "in throughput virtual threads made %.2f x Tomcat 200's (%s vs %s req/s): the"
                        + " virtual server got %.2f of the %d cores against Tomcat 200's %.2f (the load generator %.2f"
                        + " and %.2f, the rest of the machine %.2f and %.2f, which widened the interval by %.0f %%),"
                        + " and spent %s vs %s µs of CPU per request",
                v.throughput() / t.throughput(), Figure.number(v.throughput()), Figure.number(t.throughput()),
                v.serverCores(), v.cores(), t.serverCores(), v.generatorCores(), t.generatorCores(),
                v.otherCpuCores(), t.otherCpuCores(),
                100 * Math.min(0.9, Math.max(t.otherCpuCores(), v.otherCpuCores()) / Math.max(1, v.cores())),
                Figure.number(v.serverCpuUsPerRequest()), Figure.number(t.serverCpuUsPerRequest()));
    }

    /** The same pull-request test on two servers: one mode on the JDK HttpServer (chapter 01) or on Spring Boot. */
    public record FrameworkCost(String mode, String server, double throughput, double ratioToBound,
                                double serverCpuUsPerRequest, int serverLiveThreads, double serverCpuUsSpread) {
        public static FrameworkCost of(EndpointLoad.SleepRun r) {
            return new FrameworkCost(r.mode().equals("virtual") ? "virtual threads" : "Tomcat 50", "JDK HttpServer",
                    r.throughput(), r.ratioToBound(), r.serverCpuUsPerRequest(), r.serverLiveThreads(),
                    r.serverCpuUsSpread() > 0 ? r.serverCpuUsSpread() : Double.NaN); // none in a run saved before
        }

        public static FrameworkCost of(SpringRow r) {
            return new FrameworkCost(r.mode(), "Spring Boot", r.throughput(), r.ratioToBound(),
                    r.serverCpuUsPerRequest(), r.serverLiveThreads(), r.serverCpuUsSpread());
        }

        public Figure serverCpu() {
            return Figure.of(serverCpuUsPerRequest, serverCpuUsSpread, SLICES);
        }
    }

    static FrameworkCost cost(List<FrameworkCost> rows, String mode, String server) {
        return rows.stream().filter(c -> c.mode().equals(mode) && c.server().equals(server)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no " + mode + " row on " + server));
    }

    /** What chapter 06 expects of the framework: Spring costs more server CPU per request than the JDK HttpServer. */
    public static final Expectations<List<FrameworkCost>> FRAMEWORK_EXPECTED =
            Expectations.<List<FrameworkCost>>of("06-framework-cost")
            .expect("spring-costs-cpu", "Spring Boot's server CPU per request on virtual threads",
                    "the JDK HttpServer's", rows -> cost(rows, "virtual threads", "Spring Boot").serverCpu()
                            .over(cost(rows, "virtual threads", "JDK HttpServer").serverCpu()), Line.atLeast(1.0));

    /** Runs S21's {@code experiment} (pr, jpa-blog or seminar) in its own JVM and returns its report, typed. */
    public static Report experiment(String experiment, String... more) {
        RunGuard.requireFresh();
        List<String> args = new ArrayList<>(List.of("--experiment", experiment));
        args.addAll(List.of(more));
        return ChildRun.result(Result.class, "S21_SpringLoad.java", args.toArray(String[]::new)).experiments().get(0);
    }

    /** S21's whole result. */
    public record Result(int cores, List<Report> experiments) implements Measurement.Measured {
        @Override
        public List<Measurement> measurements() {
            return experiments.stream().flatMap(e -> e.runs().stream()).flatMap(r -> r.measurements().stream())
                    .toList();
        }
    }

    /** Actuator's view of the server JVM: live threads, heap in use (garbage included) and CPU time since start. */
    public record Actuator(double jvmThreadsLive, double heapUsedMb, double processCpuSeconds,
                           double answeredAfterSeconds) {}

    /**
     * Read right after a run from the server's own Micrometer registry (what /actuator/metrics answers, as the JDK 25
     * post read it), over the control channel {@code stats}; {@code answeredAfterSeconds}: how long that took.
     */
    public static Actuator actuator(ServerProcess server) {
        long asked = System.nanoTime();
        JsonObject a = server.stats().getAsJsonObject("actuator");
        if (a == null) throw new IllegalStateException("the server's stats carry no Actuator metrics");
        return new Actuator(a.get("jvmThreadsLive").getAsDouble(), a.get("heapUsedMb").getAsDouble(),
                a.get("processCpuSeconds").getAsDouble(), (System.nanoTime() - asked) / 1e9);
    }
}
