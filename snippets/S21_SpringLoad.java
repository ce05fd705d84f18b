///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/Profile.java
//SOURCES ../helpers/unpinned/Machine.java
//SOURCES ../helpers/unpinned/Course.java
//SOURCES ../helpers/unpinned/Json.java
//SOURCES ../helpers/unpinned/Results.java
//SOURCES ../helpers/unpinned/Bounds.java
//SOURCES ../helpers/unpinned/Cli.java
//SOURCES ../helpers/unpinned/Protocol.java
//SOURCES ../helpers/unpinned/ProcessStats.java
//SOURCES ../helpers/unpinned/ChildRun.java
//SOURCES ../helpers/unpinned/Show.java
//SOURCES ../helpers/unpinned/RunGuard.java
//SOURCES ../helpers/unpinned/ServerProcess.java
//SOURCES ../helpers/unpinned/HttpLoad.java
//SOURCES ../helpers/unpinned/LoadRun.java
package unpinned.snippets;

/*
 * S21: the Spring Boot service (S20) under load, on Tomcat's pool and on virtual threads (chapter 06).
 *
 * The question: three published Spring Boot tests, each a closed loop of users against a blocking endpoint.
 * How many requests per second does Spring MVC answer with spring.threads.virtual.enabled=false (Tomcat's
 * pool of server.tomcat.threads.max threads) and =true, and what do the JVM's threads, heap and CPU look
 * like afterwards, as Actuator reports them?
 *   pr        sunwon12's pull request: 500 users on a 100 ms sleep, Tomcat max 50 threads vs virtual threads
 *   jpa-blog  the JDK 25 post (by 🔥Log): 200 users for 5 s on a 1 s sleep, Tomcat max 10 vs virtual threads
 *   seminar   Ray123's seminar write-up, test 2: /io (two sleeps) and /cpu (add up 1..N twice) at rising
 *             users, Tomcat's default 200 threads vs virtual threads
 *
 * The bound first (Little's law): at most min(users, threads) requests are in service, each for S seconds,
 * so throughput <= min(users, threads) / S, with threads = users on virtual threads:
 *   pr        Tomcat 50: 50 / 0.1 s = 500 req/s      virtual: 500 / 0.1 s = 5,000 req/s
 *   jpa-blog  Tomcat 10: 10 / 1 s  = 10 req/s       virtual: 200 / 1 s   = 200 req/s
 *   seminar   /io: min(U, 200) / (2 x sleep) vs U / (2 x sleep); /cpu: cores / CPU seconds per request, both,
 *             with the CPU measured in the same window: throughput over it is the CPU's utilisation, not a bound
 * The pitfall: nothing fails when the pool is too small. Requests wait in Tomcat's queue, each user waits
 * users / throughput per request, and throughput stays at the pool's bound however many users come.
 *
 * How it measures: each mode's server is its own JVM (S20, started by ServerProcess with --port 0, ready when
 * Spring says so), the load generator another (S05: warm-up, then a timed window; the sources counted fixed
 * numbers of requests from a simultaneous start instead), and this JVM reads the server's own CPU, memory and
 * threads at the window's edges and Actuator's metrics after each run, then always stops the server.
 * Results go to results/s21-spring-load/ (or $UNPINNED_RESULTS) and one @@result line.
 */

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import unpinned.Bounds;
import unpinned.Cli;
import unpinned.HttpLoad;
import unpinned.Json;
import unpinned.LoadRun;
import unpinned.Profile;
import unpinned.Protocol;
import unpinned.Results;
import unpinned.ServerProcess;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

public class S21_SpringLoad {
    static final String USAGE = """
            usage: S21_SpringLoad [--experiment pr|jpa-blog|seminar|all] [--mode platform|virtual|both]
                                  [--users N[,N...]] [--threads N] [--sleep-ms N] [--n N] [--endpoint io|cpu|both]
                                  [--warmup-s S] [--duration-s S]
              --experiment E  one of pr, jpa-blog, seminar, a comma-separated list, or all (default all)
              --mode M        platform (Tomcat's pool), virtual (virtual threads) or both (default both)
              --warmup-s S    seconds of load before the first window, 0..600 (default per experiment)
              --duration-s S  seconds measured per window, 1..3600 (default per experiment)
            For one experiment, its sizes (defaults: the quick profile's, the sources' with UNPINNED_PROFILE=full):
              --users L       users, each 1..20000, comma-separated for rising load (pr 500, jpa-blog 200,
                              seminar /io 100,1000 (full 200,1000,2000), /cpu 20,200)
              --threads N     Tomcat's pool size (server.tomcat.threads.max), 1..10000 (pr 50, jpa-blog 10, seminar 200)
              --sleep-ms N    the sleep, 1..60000 ms (pr 100, jpa-blog 1000; seminar: each of /io's two, 100 (full 500))
              --n N           seminar /cpu adds up 1..N twice, 1..10000000000 (2000000; full 100000000, the source's)
              --endpoint E    seminar only: io, cpu or both (default both)""";

    static final List<String> EXPERIMENTS = List.of("pr", "jpa-blog", "seminar");
    /** What the JDK 25 post read from Actuator, and why our figures can't be compared with it one to one. */
    static final String JPA_BLOG_RESOURCES = "the post read Actuator after another test (a POST writing 3 rows in"
            + " parallel on a new pool of 100 platform threads per request, never shut down): 2,981 live threads,"
            + " 288 MB of heap, 13.2 s of CPU, against 38, 195 MB and 10.8 s with a virtual-thread executor. Here the"
            + " pool is Tomcat's 10 threads, so both modes keep a few tens of live threads. And 5 s of load is too"
            + " short for Little's steady state on the pool (each user waiting users / throughput = 20 s): its mean"
            + " latency is what the first requests in the queue waited.";
    static final int MAX_USERS = 20_000;

    /** What a source published for its own set-up: requests per second and its own Little's-law bound. */
    record Published(String source, double platform, double platformBound, double virtual, double virtualBound) {
        String describe() {
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
    record Load(String name, String path, double serviceSeconds, List<Integer> users, Duration warmUp,
                Duration levelWarmUp, Duration duration, Published published) {
        boolean computes() {
            return Double.isNaN(serviceSeconds);
        }
    }

    /** An experiment: its title, Tomcat's pool size, and the loads each server gets, in order. */
    record Plan(String id, String title, String sizes, int threads, List<Load> loads, String note) {}

    /** The plans for the profile, with the command line's changes (which only a single experiment accepts). */
    static List<Plan> plans(Cli cli, Profile p) {
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
                    Published pub = u.equals(List.of(500)) && ms == 100 && threads == 50 ? new Published(
                            "the pull request (500 users x 10 requests, Spring Boot 3.4.4, Java 21, a laptop)",
                            479.1, 500, 3_921.6, 5_000) : null;
                    yield new Plan("pr", "sunwon12's pull request", String.format(Locale.ROOT,
                            "%s users on GET /sleep?ms=%d, Tomcat max %d threads vs virtual threads", list(u), ms,
                            threads), threads, List.of(new Load("sleep", "/sleep?ms=" + ms, ms / 1e3, u,
                            orElse(warm, p.pick(6, 10)), orElse(warm, levelWarmUp(p.pick(6, 10), u, threads, ms / 1e3)),
                            orElse(window, p.pick(4, 10)), pub)), null);
                }
                case "jpa-blog" -> {
                    int ms = cli.intValue("--sleep-ms", 1000, 1, 60_000);
                    int threads = cli.intValue("--threads", 10, 1, 10_000);
                    List<Integer> u = users == null ? List.of(200) : users;
                    Published pub = u.equals(List.of(200)) && ms == 1000 && threads == 10 ? new Published(
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
            Published pub = source ? new Published("the write-up's test 2, /io?ms=500 (k6 ramping to 2,000 users, mean"
                    + " of 3 runs, Spring Boot 3.3.4, OpenJDK 21, 2 cores)", 188.7, 200, 877, 2_000) : null;
            loads.add(new Load("io", "/io?ms=" + ms, 2 * ms / 1e3, ioUsers, orElse(warm, p.pick(2, 5)),
                    orElse(warm, levelWarmUp(3, ioUsers, threads, 2 * ms / 1e3)), // the JIT, at the new level
                    orElse(window, p.pick(2, 10)), pub));
        }
        if (!endpoint.equals("io")) {
            Published pub = source ? new Published("the write-up's test 2, /cpu?n=100000000 (the same set-up; virtual"
                    + " / pool = 0.87)", 23.3, Double.NaN, 20.3, Double.NaN) : null;
            loads.add(new Load("cpu", "/cpu?n=" + n, Double.NaN, cpuUsers, orElse(warm, p.pick(2, 10)),
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

    static String list(List<Integer> users) {
        return String.join(",", users.stream().map(u -> String.format(Locale.ROOT, "%,d", u)).toList());
    }

    public static void main(String[] args) throws Exception {
        Profile profile = Profile.announceOrExit("S21");
        Cli cli = Cli.orExit("S21", USAGE, args, Set.of("--experiment", "--mode", "--users", "--threads", "--sleep-ms",
                "--n", "--endpoint", "--warmup-s", "--duration-s"), Set.of());
        List<Plan> plans;
        List<String> modes;
        try {
            plans = plans(cli, profile);
            String mode = cli.oneOf("--mode", "both", List.of("platform", "virtual", "both"));
            modes = mode.equals("both") ? List.of("platform", "virtual") : List.of(mode);
            Results.checkDir();
            int most = plans.stream().flatMap(p -> p.loads().stream()).flatMap(l -> l.users().stream())
                    .mapToInt(Integer::intValue).max().orElseThrow();
            HttpLoad.requireOpenFiles(2L * most + 2 * HttpLoad.SPARE_FILES, most + " users (client and server)");
        } catch (IllegalArgumentException | IllegalStateException e) {
            Cli.exit("S21", e.getMessage());
            return;
        }
        int cores = Runtime.getRuntime().availableProcessors();
        List<Map<String, Object>> experiments = new ArrayList<>();
        for (Plan plan : plans) {
            long start = System.nanoTime();
            System.out.println();
            System.out.println("== " + plan.id() + ": " + plan.title() + ": " + plan.sizes());
            List<Map<String, Object>> runs = new ArrayList<>();
            for (String mode : modes) runs.addAll(measure(plan, mode, cores));
            Map<String, Object> experiment = new LinkedHashMap<>();
            experiment.put("experiment", plan.id());
            experiment.put("title", plan.title());
            experiment.put("sizes", plan.sizes());
            experiment.put("tomcatMaxThreads", plan.threads());
            experiment.put("runs", runs);
            Map<String, Object> ratios = ratios(plan, runs);
            if (!ratios.isEmpty()) experiment.put("virtualOverPlatform", ratios);
            List<Object> published = new ArrayList<>();
            for (Load load : plan.loads()) {
                if (load.published() == null) continue;
                System.out.println("published, " + load.path() + ": " + load.published().describe());
                published.add(Map.of("endpoint", load.name(), "figures", load.published()));
            }
            experiment.put("published", published);
            if (plan.note() != null) {
                System.out.println("note: " + plan.note());
                experiment.put("note", plan.note());
            }
            experiment.put("seconds", (System.nanoTime() - start) / 1e9);
            System.out.println(String.format(Locale.ROOT, "(%s took %.0f s, Spring start-ups included)", plan.id(),
                    (System.nanoTime() - start) / 1e9));
            experiments.add(experiment);
        }
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("cores", cores);
        data.put("experiments", experiments);
        Protocol.result(data);
        System.out.println("saved " + Results.save("s21-spring-load", data));
    }

    /** Virtual threads' throughput over the pool's, per endpoint, at its most users (when both modes ran); printed. */
    static Map<String, Object> ratios(Plan plan, List<Map<String, Object>> runs) {
        Map<String, Object> ratios = new LinkedHashMap<>();
        for (Load load : plan.loads()) {
            int top = load.users().get(load.users().size() - 1);
            Double platform = null, virtual = null;
            for (Map<String, Object> r : runs) {
                if (!r.get("endpoint").equals(load.name()) || (int) r.get("users") != top) continue;
                if (r.get("mode").equals("platform")) platform = (Double) r.get("throughput");
                else virtual = (Double) r.get("throughput");
            }
            if (platform == null || virtual == null) continue;
            ratios.put(load.name(), virtual / platform);
            System.out.println(String.format(Locale.ROOT, "virtual threads / Tomcat %d, %s at %,d users: %.2f",
                    plan.threads(), load.path(), top, virtual / platform));
        }
        return ratios;
    }

    /** One server (one mode) in its own JVM, every load of the plan against it, then the server stopped. */
    static List<Map<String, Object>> measure(Plan plan, String mode, int cores) {
        boolean virtual = mode.equals("virtual");
        List<String> serverArgs = new ArrayList<>(List.of("--spring.threads.virtual.enabled=" + virtual));
        if (!virtual) serverArgs.add("--server.tomcat.threads.max=" + plan.threads());
        String label = virtual ? "virtual threads" : "Tomcat " + plan.threads();
        Protocol.progress(plan.id() + " · " + label + " · starting Spring Boot");
        long start = System.nanoTime();
        List<Map<String, Object>> runs = new ArrayList<>();
        try (ServerProcess server = ServerProcess.start("S20_SpringBootApp.java", serverArgs.toArray(String[]::new))) {
            double startSeconds = (System.nanoTime() - start) / 1e9;
            JsonObject ready = server.describe();
            if (ready.get("virtualThreads").getAsBoolean() != virtual) {
                throw new IllegalStateException("the server says virtualThreads=" + ready.get("virtualThreads"));
            }
            System.out.println(String.format(Locale.ROOT, "%s: Spring Boot %s ready %.1f s after the start (%.1f s of"
                            + " them in its JVM), %s, heap cap %d MB", label, ready.get("springBoot").getAsString(),
                    startSeconds, ready.get("startSeconds").getAsDouble(), server.uri(),
                    ready.get("maxHeapMb").getAsInt()));
            for (Load load : plan.loads()) {
                Protocol.progress(plan.id() + " · " + label + " · " + load.path());
                URI target = server.uri().resolve(load.path());
                int first = load.users().get(0);
                HttpLoad.Options o = new HttpLoad.Options(target, first, 0, load.warmUp(), load.duration(), 0,
                        timeout(load, plan.threads()));
                List<LoadRun.Measured> levels = LoadRun.measureLevels(server, o,
                        load.users().subList(1, load.users().size()), load.levelWarmUp(), List.of());
                long asked = System.nanoTime();
                Map<String, Object> actuator = actuator(server.uri()); // after the run, as the JDK 25 post read it
                // On Tomcat's pool the metrics requests queue behind every request still waiting for a thread.
                actuator.put("answeredAfterSeconds", (System.nanoTime() - asked) / 1e9);
                JsonObject own = server.stats();
                header(load);
                for (int i = 0; i < levels.size(); i++) {
                    int users = load.users().get(i);
                    Map<String, Object> run = run(plan, load, mode, users, levels.get(i), cores, own);
                    run.put("serverStartSeconds", startSeconds);
                    run.put("springStartSeconds", ready.get("startSeconds").getAsDouble());
                    if (i == levels.size() - 1) run.put("actuatorAfterRun", actuator);
                    print(label, run, i == levels.size() - 1 ? actuator : null);
                    runs.add(run);
                }
            }
        }
        return runs;
    }

    /** Longest wait for one answer: a queued request on the pool waits users / threads services. */
    static Duration timeout(Load load, int threads) {
        int most = load.users().stream().mapToInt(Integer::intValue).max().orElseThrow();
        double wait = load.computes() ? 120
                : 3 * load.serviceSeconds() * Math.ceil((double) most / Math.min(most, threads));
        return seconds(Math.min(600, Math.max(60, wait)));
    }

    static Map<String, Object> run(Plan plan, Load load, String mode, int users, LoadRun.Measured m, int cores,
                                   JsonObject own) {
        HttpLoad.Result r = m.load();
        boolean virtual = mode.equals("virtual");
        double little = load.computes() ? Double.NaN
                : Bounds.closedLoopThroughput(users, virtual ? users : plan.threads(), load.serviceSeconds());
        double cpu = m.cpuBoundThroughput(cores);
        double bound = load.computes() ? cpu : little;
        Map<String, Object> run = new LinkedHashMap<>();
        run.put("endpoint", load.name());
        run.put("path", load.path());
        run.put("mode", mode);
        run.put("threads", virtual ? 0 : plan.threads());
        run.put("users", users);
        run.put("serviceSeconds", load.computes() ? null : load.serviceSeconds());
        run.put("boundKind", load.computes() ? "cpu" : "little");
        run.put("boundReqPerSec", bound);
        run.put("littleBoundReqPerSec", load.computes() ? null : little);
        run.put("cpuBoundReqPerSec", Double.isNaN(cpu) ? null : cpu);
        run.put("throughput", r.throughput());
        run.put("ratioToBound", r.throughput() / bound);
        run.put("requests", r.requests());
        run.put("errors", r.errors());
        run.put("meanMs", r.meanMs());
        run.put("minMs", r.minMs());
        run.put("maxMs", r.maxMs());
        run.put("stdDevMs", r.stdDevMs());
        run.put("p50Ms", r.p50Ms());
        run.put("p99Ms", r.p99Ms());
        run.put("windowSeconds", r.seconds());
        run.put("serverCpuUsPerRequest", m.server().cpuUsPerRequest());
        run.put("clientCpuUsPerRequest", r.clientCpuUsPerRequest());
        run.put("serverLiveThreadsInWindow", m.server().liveThreads());
        run.put("serverRssMb", m.server().rssMb());
        run.put("peakConcurrency", own.get("peakConcurrency").getAsInt());
        run.put("handledOnVirtualThreads", own.get("handledOnVirtualThreads").getAsLong());
        run.put("load", r);
        return run;
    }

    static void header(Load load) {
        System.out.println(String.format(Locale.ROOT, "  %-16s %6s %9s %9s %6s %8s %7s %8s %8s %8s %6s",
                load.path(), "users", "req/s", load.computes() ? "CPU bnd" : "bound", "ratio", "mean ms", "min ms",
                "max ms", "sd ms", "p99 ms", "errors"));
    }

    static void print(String label, Map<String, Object> run, Map<String, Object> actuator) {
        HttpLoad.Result r = (HttpLoad.Result) run.get("load");
        System.out.println(String.format(Locale.ROOT,
                "  %-16s %6d %,9.1f %,9.1f %6.3f %,8.1f %,7.1f %,8.1f %,8.1f %,8.1f %6d", label, (int) run.get("users"),
                r.throughput(), (double) run.get("boundReqPerSec"), (double) run.get("ratioToBound"), r.meanMs(),
                r.minMs(), r.maxMs(), r.stdDevMs(), r.p99Ms(), r.errors()));
        Object cpuBound = run.get("cpuBoundReqPerSec");
        String extra = String.format(Locale.ROOT, "    server %,.0f µs CPU/request%s, %d live threads in the window,"
                        + " at most %d requests in a handler at once so far", (double) run.get("serverCpuUsPerRequest"),
                "little".equals(run.get("boundKind")) && cpuBound != null
                        ? String.format(Locale.ROOT, " (CPU bound %,.0f req/s)", (double) cpuBound) : "",
                (int) run.get("serverLiveThreadsInWindow"), (int) run.get("peakConcurrency"));
        if (actuator != null) {
            double after = (double) actuator.get("answeredAfterSeconds");
            extra += String.format(Locale.ROOT, "%n    Actuator after the run: jvm.threads.live %.0f, heap used"
                            + " %.0f MB,"
                            + " process.cpu.time %.1f s%s", (double) actuator.get("jvmThreadsLive"),
                    (double) actuator.get("heapUsedMb"), (double) actuator.get("processCpuSeconds"), after < 1 ? ""
                            : String.format(Locale.ROOT, " (it answered after %.1f s: %s)", after,
                            "virtual".equals(run.get("mode")) ? "its virtual threads waited for a carrier behind the"
                                    + " requests still computing when the load stopped; nothing preempts them"
                                    : "its requests waited in Tomcat's queue behind the users' requests still there"
                                    + " when the load stopped"));
        }
        System.out.println(extra);
    }

    /** Actuator's view of the server JVM: live threads, heap in use (garbage included) and CPU time since start. */
    static Map<String, Object> actuator(URI base) {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("jvmThreadsLive", metric(client, base, "jvm.threads.live", ""));
        m.put("heapUsedMb", metric(client, base, "jvm.memory.used", "?tag=area:heap") / 1048576.0);
        m.put("processCpuSeconds", metric(client, base, "process.cpu.time", ""));
        return m;
    }

    /** One metric's first measurement from /actuator/metrics; time in seconds whatever the base unit. */
    static double metric(HttpClient client, URI base, String name, String query) {
        URI uri = base.resolve("/actuator/metrics/" + name + query);
        try {
            HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20)).build();
            HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                throw new IllegalStateException(uri + " answered " + response.statusCode() + ": " + response.body());
            }
            JsonObject json = Json.parse(response.body()).getAsJsonObject();
            double value = json.getAsJsonArray("measurements").get(0).getAsJsonObject().get("value").getAsDouble();
            JsonElement unit = json.get("baseUnit");
            String u = unit == null || unit.isJsonNull() ? "" : unit.getAsString();
            return switch (u) {
                case "ns", "nanoseconds" -> value / 1e9;
                case "ms", "milliseconds" -> value / 1e3;
                default -> value;
            };
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + uri + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted reading " + uri, e);
        }
    }
}

/*
 * How to run:
 *   tools/jbang spring-load                                  (all three, both modes; ~2 minutes quick)
 *   tools/jbang spring-load --experiment pr                  (one experiment, both modes)
 *   tools/jbang spring-load --experiment jpa-blog --mode virtual --users 400
 *   tools/jbang spring-load --experiment seminar --endpoint io --users 200,2000 --sleep-ms 500
 *   UNPINNED_PROFILE=full tools/jbang spring-load            (the sources' sizes; ~8 minutes)
 *
 * What you should see (measured on a 2-core VM (AMD EPYC), JDK 25.0.3, Spring Boot 4.1.1, quick profile; all three
 * in ~2 minutes, each Spring start ~3 s from the command to ready, ~2.2 s of it in Spring's JVM):
 *   pr        Tomcat 50: 490-496 req/s (0.98-0.99 of 500), mean ~1,000 ms (450 requests always wait for a thread),
 *             61 live threads; virtual threads: 4,560-4,720 req/s (0.91-0.94 of 5,000, near the CPU bound on two
 *             cores), mean ~110 ms, 15 live threads. The pull request: 479.1 (0.96) and 3,921.6 (0.78).
 *   jpa-blog  Tomcat 10: 10.0 req/s (1.00 of 10); virtual threads: 199.6 (1.00 of 200); the post: 9.9 and 194.
 *             Live threads after the run 21 vs 15. On the pool Actuator answers only ~19 s after the load stops:
 *             its requests queue behind the ~190 the users left in Tomcat's queue.
 *   seminar   /io (2 x 100 ms): Tomcat 200 at its bound from 500 users on (1,000 req/s), virtual threads
 *             4,100-4,600 req/s at 1,000 users (0.83-0.92 of 5,000, CPU-bound): 4.1-4.6 x the pool (the write-up:
 *             877 / 188.7 = 4.6 at 2,000 users); /cpu: both keep the free cores busy (utilisation 0.99-1.00),
 *             virtual threads ~0.8 x the pool (the write-up: 0.87): a gap in CPU per request or in free cores;
 *             211 live threads on the pool, 15 on virtual threads.
 */
