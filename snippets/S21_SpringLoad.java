///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/experiments/SpringLoad.java
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

    /** One server (one mode) in its own JVM, every load of the plan against it, then the server stopped. */
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
 *             Live threads after the run 21 vs 15, read from Actuator's registry over the control channel: over
 *             HTTP the reading would queue ~19 s behind the ~190 requests the users left in Tomcat's queue.
 *   seminar   /io (2 x 100 ms): Tomcat 200 at its bound from 500 users on (1,000 req/s), virtual threads
 *             4,100-4,600 req/s at 1,000 users (0.83-0.92 of 5,000, CPU-bound): 4.1-4.6 x the pool (the write-up:
 *             877 / 188.7 = 4.6 at 2,000 users); /cpu: both keep the free cores busy (utilisation 0.99-1.00),
 *             virtual threads ~0.8 x the pool (the write-up: 0.87): a gap in CPU per request or in free cores;
 *             211 live threads on the pool, 15 on virtual threads.
 */
