///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/experiments/SpringLoad.java
package unpinned.snippets;

/*
 * S21: the Spring Boot service (S20) under load, on Tomcat's pool and on virtual threads (chapter 06).
 * The question: three published Spring Boot tests (pr: sunwon12's pull request; jpa-blog: the JDK 25 post by
 * 🔥Log; seminar: Ray123's write-up, /io and /cpu), each a closed loop of users against a blocking endpoint. What
 * throughput, threads, heap and CPU with spring.threads.virtual.enabled=false (Tomcat's pool) and =true?
 * The bound (Little's law): throughput <= min(users, threads) / S, threads = users on virtual threads (pr: 500 vs
 * 5,000 req/s; jpa-blog: 10 vs 200); seminar /cpu: cores / CPU seconds per request.
 * The pitfall: nothing fails when the pool is too small: requests wait in Tomcat's queue and throughput stays at
 * the pool's bound however many users come. Each server and the load generator run in JVMs of their own (see
 * measure). Results go to results/s21-spring-load/ (or $UNPINNED_RESULTS) and one @@result line.
 */

import com.google.gson.JsonObject;
import unpinned.core.Cli;
import unpinned.core.Experiment;
import unpinned.running.HttpLoad;
import unpinned.running.LoadRun;
import unpinned.core.Profile;
import unpinned.core.Protocol;
import unpinned.core.Results;
import unpinned.running.ServerProcess;
import unpinned.experiments.SpringLoad;
import unpinned.experiments.SpringLoad.Load;
import unpinned.experiments.SpringLoad.Plan;
import unpinned.experiments.SpringLoad.Run;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

public class S21_SpringLoad {
    /**
     * One server (one mode) in its own JVM, every load of the plan against it, then the server stopped. The server
     * is S20 (ServerProcess, --port 0, ready when Spring says so), the load generator S05 (warm-up, then a timed
     * window; the sources counted fixed numbers of requests instead); this JVM reads the server's CPU, memory and
     * threads at the window's edges and Actuator's metrics after each run.
     */
    static List<Run> measure(Plan plan, String mode, int cores) {
        boolean virtual = mode.equals("virtual");
        List<String> serverArgs = new ArrayList<>(List.of("--spring.threads.virtual.enabled=" + virtual));
        if (!virtual) serverArgs.add("--server.tomcat.threads.max=" + plan.threads());
        String label = virtual ? "virtual threads" : "Tomcat " + plan.threads();
        Protocol.progress(plan.id() + " · " + label + " · starting Spring Boot");
        long start = System.nanoTime();
        List<Run> runs = new ArrayList<>();
        try (ServerProcess server = ServerProcess.start("S20_SpringBootApp.java", serverArgs.toArray(String[]::new))) {
            double startSeconds = (System.nanoTime() - start) / 1e9;
            JsonObject ready = server.describe();
            if (ready.get("virtualThreads").getAsBoolean() != virtual) {
                throw new IllegalStateException("the server says virtualThreads=" + ready.get("virtualThreads"));
            }
            double springStart = ready.get("startSeconds").getAsDouble();
            System.out.println(String.format(Locale.ROOT, "%s: Spring Boot %s ready %.1f s after the start (%.1f s of"
                            + " them in its JVM), %s, heap cap %d MB", label, ready.get("springBoot").getAsString(),
                    startSeconds, springStart, server.uri(), ready.get("maxHeapMb").getAsInt()));
            for (Load load : plan.loads()) {
                Protocol.progress(plan.id() + " · " + label + " · " + load.path());
                HttpLoad.Options o = new HttpLoad.Options(server.uri().resolve(load.path()), load.users().get(0), 0,
                        load.warmUp(), load.duration(), 0, SpringLoad.timeout(load, plan.threads()));
                List<LoadRun.Measured> levels = LoadRun.measureLevels(server, o,
                        load.users().subList(1, load.users().size()), load.levelWarmUp(), List.of());
                SpringLoad.Actuator actuator = SpringLoad.actuator(server); // right after the run
                JsonObject own = server.stats();
                header(load);
                for (int i = 0; i < levels.size(); i++) {
                    boolean last = i == levels.size() - 1;
                    Run run = Run.of(plan, load, mode, load.users().get(i), levels.get(i), cores, own, startSeconds,
                            springStart, last ? actuator : null);
                    print(label, run);
                    runs.add(run);
                }
            }
        }
        return runs;
    }

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

    public static void main(String[] args) throws Exception {
        Profile profile = Profile.announceOrExit("S21");
        Cli cli = Cli.orExit("S21", USAGE, args, Set.of("--experiment", "--mode", "--users", "--threads", "--sleep-ms",
                "--n", "--endpoint", "--warmup-s", "--duration-s"), Set.of());
        List<Plan> plans;
        List<String> modes;
        Experiment.Time time;
        try {
            plans = SpringLoad.plans(cli, profile);
            String mode = cli.oneOf("--mode", "both", List.of("platform", "virtual", "both"));
            modes = mode.equals("both") ? List.of("platform", "virtual") : List.of(mode);
            time = Experiment.requireWithin(Duration.ofHours(1), SpringLoad.time(plans, modes.size()));
            Results.checkDir("s21-spring-load");
            int most = plans.stream().flatMap(p -> p.loads().stream()).flatMap(l -> l.users().stream())
                    .mapToInt(Integer::intValue).max().orElseThrow();
            HttpLoad.requireOpenFiles(2L * most + 2 * HttpLoad.SPARE_FILES, most + " users (client and server)");
        } catch (IllegalArgumentException | IllegalStateException e) {
            Cli.exit("S21", e.getMessage());
            return;
        }
        System.out.println(String.format(Locale.ROOT, "S21: Spring Boot under load; about %,.0f s: %s", time.seconds(),
                time.sum()));
        int cores = Runtime.getRuntime().availableProcessors();
        List<SpringLoad.Report> experiments = new ArrayList<>();
        for (Plan plan : plans) {
            long start = System.nanoTime();
            System.out.println();
            System.out.println("== " + plan.id() + ": " + plan.title() + ": " + plan.sizes());
            List<Run> runs = new ArrayList<>();
            for (String mode : modes) runs.addAll(measure(plan, mode, cores));
            Map<String, Double> ratios = ratios(plan, runs);
            List<Map<String, Object>> published = new ArrayList<>();
            for (Load load : plan.loads()) {
                if (load.published() == null) continue;
                System.out.println("published, " + load.path() + ": " + load.published().describe());
                published.add(Map.of("endpoint", load.name(), "figures", load.published()));
            }
            if (plan.note() != null) System.out.println("note: " + plan.note());
            double seconds = (System.nanoTime() - start) / 1e9;
            System.out.println(String.format(Locale.ROOT, "(%s took %.0f s, Spring start-ups included)", plan.id(),
                    seconds));
            experiments.add(new SpringLoad.Report(plan.id(), plan.title(), plan.sizes(), plan.threads(), runs,
                    ratios.isEmpty() ? null : ratios, published, plan.note(), seconds));
        }
        SpringLoad.Result data = new SpringLoad.Result(cores, experiments);
        Protocol.result(data);
        System.out.println("saved " + Results.save("s21-spring-load", data));
    }

    /** Virtual threads' throughput over the pool's, per endpoint, at its most users (when both modes ran); printed. */
    static Map<String, Double> ratios(Plan plan, List<Run> runs) {
        Map<String, Double> ratios = new LinkedHashMap<>();
        for (Load load : plan.loads()) {
            int top = load.users().get(load.users().size() - 1);
            Double platform = null, virtual = null;
            for (Run r : runs) {
                if (!r.endpoint().equals(load.name()) || r.users() != top) continue;
                if (r.mode().equals("platform")) platform = r.throughput();
                else virtual = r.throughput();
            }
            if (platform == null || virtual == null) continue;
            ratios.put(load.name(), virtual / platform);
            System.out.println(String.format(Locale.ROOT, "virtual threads / Tomcat %d, %s at %,d users: %.2f",
                    plan.threads(), load.path(), top, virtual / platform));
        }
        return ratios;
    }

    static void header(Load load) {
        System.out.println(String.format(Locale.ROOT, "  %-16s %6s %9s %9s %6s %8s %7s %8s %8s %8s %6s",
                load.path(), "users", "req/s", load.computes() ? "CPU bnd" : "bound", "ratio", "mean ms", "min ms",
                "max ms", "sd ms", "p99 ms", "errors"));
    }

    static void print(String label, Run run) {
        HttpLoad.Result r = run.load();
        System.out.println(String.format(Locale.ROOT,
                "  %-16s %6d %,9.1f %,9.1f %6.3f %,8.1f %,7.1f %,8.1f %,8.1f %,8.1f %6d", label, run.users(),
                r.throughput(), run.boundReqPerSec(), run.ratioToBound(), r.meanMs(), r.minMs(), r.maxMs(),
                r.stdDevMs(), r.p99Ms(), r.errors()));
        String extra = String.format(Locale.ROOT, "    server %,.0f µs CPU/request%s, %d live threads in the window,"
                        + " at most %d requests in a handler at once so far", run.serverCpuUsPerRequest(),
                run.boundKind().equals("little") && run.cpuBoundReqPerSec() != null
                        ? String.format(Locale.ROOT, " (CPU bound %,.0f req/s)", run.cpuBoundReqPerSec()) : "",
                run.serverLiveThreadsInWindow(), run.peakConcurrency());
        SpringLoad.Actuator a = run.actuatorAfterRun();
        if (a != null) {
            extra += String.format(Locale.ROOT, "%n    Actuator after the run: jvm.threads.live %.0f, heap used %.0f MB,"
                    + " process.cpu.time %.1f s%s", a.jvmThreadsLive(), a.heapUsedMb(), a.processCpuSeconds(),
                    a.answeredAfterSeconds() < 1 ? "" : String.format(Locale.ROOT, " (read in %.1f s)",
                            a.answeredAfterSeconds()));
        }
        System.out.println(extra);
    }
}

/*
 * How to run:
 *   tools/jbang spring-load                                  (all three, both modes; ~2 minutes quick)
 *   tools/jbang spring-load --experiment pr                  (one experiment, both modes)
 *   tools/jbang spring-load --experiment seminar --endpoint io --users 200,2000 --sleep-ms 500
 *   UNPINNED_PROFILE=full tools/jbang spring-load            (the sources' sizes; ~8 minutes)
 *
 * What you should see: the pool at its Little's-law bound with long waits; virtual threads near theirs or the
 * CPU's, with fewer live threads. Reference runs: data/reference-runs/snippets/S21-spring-load.md.
 */
