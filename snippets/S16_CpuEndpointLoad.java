///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/experiments/EndpointLoad.java
//SOURCES ../helpers/unpinned/core/Experiment.java
package unpinned.snippets;

/*
 * S16: a CPU-bound HTTP endpoint under load, on Tomcat's default pool of 200 platform threads and on
 * virtual threads (the seminar write-up's test 2, CPU endpoint, scaled to a small machine).
 *
 * The question: GET /cpu?n=N adds up 1..N twice and never blocks; U users hammer it in a closed loop.
 * How many requests per second does each server answer?
 * The estimate (not a bound): (cores - cores busy elsewhere) / (CPU seconds per request), whatever the threads.
 * The pitfall: "virtual threads are faster" is a claim about waiting, not computing.
 */

import unpinned.core.Course;
import unpinned.experiments.EndpointLoad;
import unpinned.experiments.EndpointLoad.CpuRun;
import unpinned.core.Experiment;
import unpinned.running.HttpLoad;
import unpinned.running.ServerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

public class S16_CpuEndpointLoad {

    /**
     * Both servers side by side (the idle one costs nothing), measured R times in turn, so a neighbour's burst or a
     * JIT hiccup shows as spread, not as a winner; each server stops in the end, also when interrupted. Running
     * to completion costs no throughput (a carrier not time-sliced does the same work per second), so at full CPU
     * the two can differ only through their CPU per request. This JVM orchestrates; the servers are S04's /cpu.
     */
    static List<CpuRun> inTurn(List<String> modes, int pool, long n, int users, int repeat, Duration warmUp,
                               Duration measured) {
        int cores = Runtime.getRuntime().availableProcessors();
        Map<String, ServerProcess> servers = new LinkedHashMap<>();
        List<CpuRun> runs = new ArrayList<>();
        try {
            for (String mode : modes) servers.put(mode, EndpointLoad.start(mode, pool, 100));
            for (int r = 1; r <= repeat; r++) {
                Duration w = r == 1 || warmUp.compareTo(LATER_WARM_UP) < 0 ? warmUp : LATER_WARM_UP;
                for (String mode : modes) {
                    var sample = EndpointLoad.closedLoop(servers.get(mode), "/cpu?n=" + n, users, w, measured);
                    CpuRun run = CpuRun.of(mode, pool, r, cores, sample);
                    System.out.println(run);
                    runs.add(run);
                }
            }
        } finally {
            for (ServerProcess server : servers.values()) server.close();
        }
        return runs;
    }

    /** The warm-up of every run after a server's first: its JIT is warm; the new load generator needs a moment. */
    static final Duration LATER_WARM_UP = Duration.ofSeconds(1);


    public static void main(String[] args) {
        Experiment.named("S16", "a CPU-bound endpoint under load, on a pool and on virtual threads", "s16-cpu-endpoint")
                .count("--users", 100, 400, 1, 10_000, "concurrent users (connections)")
                .count("--n", 2_000_000, 10_000_000, 1, 10_000_000_000L,
                        "each request adds up 1..N twice (the source used 100000000)")
                .count("--pool", 200, 200, 1, 10_000, "platform threads of the pool server (Tomcat's default)")
                .oneOf("--mode", "both", List.of("pool", "virtual", "both"), "pool, virtual or both")
                .number("--warmup-s", 3, 5, 0, 600, "seconds of load before measuring")
                .number("--duration-s", 3, 10, 1, 3_600, "seconds measured per run")
                .count("--repeat", 3, 3, 1, 20, "runs of each server, taken in turn")
                .notes("The first run of each server warms up for --warmup-s, later runs for at most 1 s"
                        + " (the server is warm by then).")
                .check(a -> Course.home()) // its servers and load generators start through tools/jbang
                .check(a -> HttpLoad.requireOpenFiles(2L * a.count("--users") + 2 * HttpLoad.SPARE_FILES,
                        a.count("--users") + " users (client and server)"))
                .takes(Duration.ofHours(1), S16_CpuEndpointLoad::time)
                .run(args, S16_CpuEndpointLoad::measure);
    }

    /** The servers' starts, then R runs of each: a load generator's start, a warm-up (1 s after the first), a window. */
    static Experiment.Time time(Experiment.Args a) {
        int servers = a.oneOf("--mode").equals("both") ? 2 : 1, repeat = a.intCount("--repeat");
        double warmUp = a.number("--warmup-s"), later = Math.min(warmUp, LATER_WARM_UP.toMillis() / 1e3);
        double window = a.number("--duration-s"), start = Experiment.JVM_START_S;
        double seconds = servers * (start + (start + warmUp + window) + (repeat - 1) * (start + later + window));
        return Experiment.Time.of(seconds, "%d server%s x (a JVM start of %.0f s + the first run: %.0f s + warm-up"
                        + " %,.1f s + window %,.1f s + %d later run%s of %.0f s + %,.1f s + %,.1f s)", servers,
                servers == 1 ? "" : "s", start, start, warmUp, window, repeat - 1, repeat == 2 ? "" : "s", start, later,
                window);
    }

    /**
     * Both servers, R runs each. Full CPU is computed from the CPU measured in the same window, so throughput over
     * it is the share of the free cores the run kept busy. The source's N and U are scaled down so a run takes
     * seconds: compare ratios (throughput, CPU per request), not raw counts.
     */
    static EndpointLoad.CpuEndpoint measure(Experiment.Args a) {
        int users = a.intCount("--users"), pool = a.intCount("--pool"), repeat = a.intCount("--repeat");
        long n = a.count("--n");
        Duration warmUp = a.seconds("--warmup-s"), measured = a.seconds("--duration-s");
        String mode = a.oneOf("--mode");
        int cores = Runtime.getRuntime().availableProcessors();
        System.out.printf(Locale.ROOT, "%d users, each request adds up 1..%,d twice, closed loop on 127.0.0.1; %d"
                        + " run%s of each server, in turn: warm-up %.0f s (later runs %.0f s), measured %.0f s; at full"
                        + " CPU: %d cores / CPU seconds per request%n", users, n, repeat, repeat == 1 ? "" : "s",
                warmUp.toMillis() / 1e3, LATER_WARM_UP.toMillis() / 1e3, measured.toMillis() / 1e3, cores);
        List<String> modes = mode.equals("both") ? List.of("pool", "virtual") : List.of(mode);
        var result = EndpointLoad.CpuEndpoint.of(users, n, pool, cores, repeat,
                inTurn(modes, pool, n, users, repeat, warmUp, measured));
        if (modes.size() == 2) {
            System.out.printf(Locale.ROOT, "virtual / pool, medians of %d runs each: throughput %.2f, CPU per request"
                    + " %.2f (the source, one run each: 20.3 / 23.3 = 0.87)%n", repeat, result.virtualOverPool(),
                    result.virtualOverPoolCpuPerRequest());
        }
        return result;
    }
}

/*
 * How to run:
 *   tools/jbang cpu-endpoint                         (both servers, 3 runs each, in turn; ~40 s quick)
 *   tools/jbang cpu-endpoint --repeat 1 --mode virtual --n 100000000 --users 200 --duration-s 60   (the source's N)
 *   tools/jbang sleep-server --port 8080 & curl 'http://127.0.0.1:8080/cpu?n=1000000'
 *
 * What you should see: both servers keep 0.9-1.0 of the free cores busy; neither model creates CPU.
 * Reference runs: data/reference-runs/snippets/S16-cpu-endpoint.md
 */
