package unpinned.chapters;

import unpinned.core.Bounds;
import unpinned.core.Cli;
import unpinned.core.Experiment;
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
     * Warm-up before each level after the first: at least {@code seconds}, and past the time the pool needs to work
     * off what the last level left in its queue (their users are gone): (users - threads) x S / threads. Otherwise
     * the window would count the pool's time spent on them as lost.
     */
    static double levelWarmUp(double seconds, List<Integer> levels, int threads, double serviceSeconds) {
        double drain = 0;
        for (int u : levels.subList(0, levels.size() - 1)) {
            drain = Math.max(drain, Math.max(0, u - threads) * serviceSeconds / threads);
        }
        return Math.max(seconds, drain > 0 ? drain + 1 : 0);
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
                      double serverStartSeconds, double springStartSeconds, Actuator actuatorAfterRun)
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
                    own.get("handledOnVirtualThreads").getAsLong(), r, serverStartSeconds, springStartSeconds, after);
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
     * free cores were ({@code cpuUtilisation}: throughput / the full-CPU rate).
     */
    public record SpringRow(String experiment, String mode, int users, double throughput, double bound,
                            double ratioToBound, double meanMs, double minMs, double maxMs, double stdDevMs,
                            double p99Ms, long errors, double serverCpuUsPerRequest, int serverLiveThreads,
                            double windowSeconds, double serviceSeconds, double clientCpuUsPerRequest,
                            double cpuUtilisation) implements Measurement.Measured {
        static String label(Run r) {
            return r.mode().equals("virtual") ? "virtual threads" : "Tomcat " + r.threads();
        }

        static SpringRow of(String experiment, Run r) {
            return new SpringRow(experiment, label(r), r.users(), r.throughput(), r.boundReqPerSec(),
                    r.ratioToBound(), r.meanMs(), r.minMs(), r.maxMs(), r.stdDevMs(), r.p99Ms(), r.errors(),
                    r.serverCpuUsPerRequest(), r.serverLiveThreadsInWindow(), r.windowSeconds(),
                    r.serviceSeconds() == null ? Double.NaN : r.serviceSeconds(), r.clientCpuUsPerRequest(),
                    r.cpuBoundReqPerSec() == null ? Double.NaN : r.throughput() / r.cpuBoundReqPerSec());
        }

        /** The server's and the load generator's CPU per request, µs. */
        public double cpuUsPerRequest() {
            return serverCpuUsPerRequest + clientCpuUsPerRequest;
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
