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
 * S16: a CPU-bound HTTP endpoint under load, on Tomcat's default pool of 200 platform threads and on
 * virtual threads (the seminar write-up's test 2, CPU endpoint, scaled to a small machine).
 *
 * The question: GET /cpu?n=N adds up 1..N twice and never blocks. U users hammer it in a closed loop.
 * How many requests per second does each server answer?
 *
 * What limits it: the cores. Each request costs c CPU seconds (server, plus the load generator on the same
 * machine), so throughput can reach at most (cores - cores busy elsewhere) / c, whatever the threads. That
 * figure is computed from the CPU measured in the same window, so it is an estimate of "at full CPU", not a
 * bound: throughput divided by it is the share of the free cores the run kept busy. Little's law doesn't help
 * here: the "service time" is itself the CPU's queue.
 *
 * Running to completion costs no throughput: a carrier that is not time-sliced still does the same work per
 * second as a time-sliced thread (it changes who waits, not how much gets done). So at full CPU the two servers
 * can differ only through their CPU per request (thread hand-off, context switches, the load generator's share).
 * Each server is measured R times (--repeat), the two in turn, so a neighbour's burst or a JIT hiccup shows as
 * spread, not as a winner.
 *
 * The pitfall: "virtual threads are faster" is a claim about waiting, not computing. The source (Ray123's
 * seminar write-up, Oct 2024: 2 cores, k6 to 2,000 users, N = 100,000,000) measured 20-21 requests/s on virtual
 * threads and 23-24 on the pool, means of 27-28 s, in one run each. This scales N and U down so a run takes
 * seconds; compare ratios (throughput, CPU per request), not raw counts.
 *
 * JVMs: this one orchestrates; the two servers (S04, alias sleep-server, its /cpu endpoint) run side by side in
 * their own JVMs (the idle one costs nothing), and each measured window has a load generator (S05) of its own.
 * Results go to results/s16-cpu-endpoint/.
 */

import unpinned.Cli;
import unpinned.Course;
import unpinned.HttpLoad;
import unpinned.LoadRun;
import unpinned.Profile;
import unpinned.Protocol;
import unpinned.Results;
import unpinned.ServerProcess;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

public class S16_CpuEndpointLoad {
    static final String USAGE = """
            usage: S16_CpuEndpointLoad [--users N] [--n N] [--pool N] [--mode pool|virtual|both]
                                       [--warmup-s S] [--duration-s S] [--repeat R]
              --users N       concurrent users (connections), 1..10000 (default 100; full 400)
              --n N           each request adds up 1..N twice, 1..10000000000 (default 2000000; full 10000000;
                              the source used 100000000)
              --pool N        platform threads of the pool server, 1..10000 (default 200, Tomcat's default)
              --mode M        pool, virtual or both (default both)
              --warmup-s S    seconds of load before measuring, 0..600 (default 3; full 5)
              --duration-s S  seconds measured per run, 1..3600 (default 3; full 10)
              --repeat R      runs of each server, taken in turn, 1..20 (default 3); the first run of each
                              server warms up for --warmup-s, later runs for at most 1 s (the server is warm by then)""";

    record Options(int users, long n, int pool, List<String> modes, Duration warmUp, Duration duration, int repeat) {}

    /** The warm-up of every run after a server's first: its JIT is warm; the new load generator needs a moment. */
    static final Duration LATER_WARM_UP = Duration.ofSeconds(1);

    static Options parse(String[] args, Profile profile) {
        Cli cli = Cli.orExit("S16", USAGE, args,
                Set.of("--users", "--n", "--pool", "--mode", "--warmup-s", "--duration-s", "--repeat"), Set.of());
        try {
            String mode = cli.oneOf("--mode", "both", List.of("pool", "virtual", "both"));
            return new Options(cli.intValue("--users", profile.pick(100, 400), 1, 10_000),
                    cli.longValue("--n", profile.pick(2_000_000L, 10_000_000L), 1, 10_000_000_000L),
                    cli.intValue("--pool", 200, 1, 10_000),
                    mode.equals("both") ? List.of("pool", "virtual") : List.of(mode),
                    Duration.ofMillis((long) (1000 * cli.doubleValue("--warmup-s", profile.pick(3, 5), 0, 600))),
                    Duration.ofMillis((long) (1000 * cli.doubleValue("--duration-s", profile.pick(3, 10), 1, 3600))),
                    cli.intValue("--repeat", 3, 1, 20));
        } catch (IllegalArgumentException e) {
            return Cli.exit("S16", e.getMessage());
        }
    }

    public static void main(String[] args) throws Exception {
        Profile profile = Profile.announceOrExit("S16");
        Options o = parse(args, profile);
        try {
            Course.home(); // its servers and load generator start through the course folder's tools/jbang
            Results.checkDir();
            HttpLoad.requireOpenFiles(2L * o.users() + 2 * HttpLoad.SPARE_FILES, o.users() + " users (client and server)");
        } catch (IllegalStateException e) {
            Cli.exit("S16", e.getMessage());
        }
        int cores = Runtime.getRuntime().availableProcessors();
        System.out.println(String.format(Locale.ROOT, "%d users, each request adds up 1..%,d twice, closed loop on"
                + " 127.0.0.1; %d run%s of each server, in turn: warm-up %.0f s (later runs %.0f s), measured %.0f s;"
                + " at full CPU: %d cores / CPU seconds per request", o.users(), o.n(), o.repeat(),
                o.repeat() == 1 ? "" : "s", o.warmUp().toMillis() / 1e3, LATER_WARM_UP.toMillis() / 1e3,
                o.duration().toMillis() / 1e3, cores));
        List<Map<String, Object>> runs = new ArrayList<>();
        Map<String, ServerProcess> servers = new LinkedHashMap<>();
        try {
            for (String mode : o.modes()) {
                servers.put(mode, ServerProcess.start("S04_SleepServer.java", "--mode", mode,
                        "--threads", Integer.toString(o.pool())));
            }
            for (int r = 1; r <= o.repeat(); r++) {
                for (String mode : o.modes()) {
                    runs.add(measure(servers.get(mode), mode, r, r == 1 || o.warmUp().compareTo(LATER_WARM_UP) < 0 ? o.warmUp() : LATER_WARM_UP, o, cores));
                }
            }
        } finally {
            for (ServerProcess server : servers.values()) server.close();
        }
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("users", o.users());
        data.put("n", o.n());
        data.put("pool", o.pool());
        data.put("cores", cores);
        data.put("repeat", o.repeat());
        data.put("runs", runs);
        if (o.modes().size() == 2) {
            double pool = median(runs, "pool", "throughput"), virtual = median(runs, "virtual", "throughput");
            data.put("virtualOverPool", virtual / pool);
            data.put("virtualOverPoolCpuPerRequest", median(runs, "virtual", "totalCpuUsPerRequest")
                    / median(runs, "pool", "totalCpuUsPerRequest"));
            System.out.println(String.format(Locale.ROOT, "virtual / pool, medians of %d runs each: throughput %.2f,"
                    + " CPU per request %.2f (the source, one run each: 20.3 / 23.3 = 0.87)", o.repeat(),
                    virtual / pool, (double) data.get("virtualOverPoolCpuPerRequest")));
        }
        Protocol.result(data);
        System.out.println("saved " + Results.save("s16-cpu-endpoint", data));
    }

    /** The median of {@code key} over the runs of {@code mode}. */
    static double median(List<Map<String, Object>> runs, String mode, String key) {
        double[] v = runs.stream().filter(r -> r.get("mode").equals(mode))
                .mapToDouble(r -> ((Number) r.get(key)).doubleValue()).sorted().toArray();
        if (v.length == 0) return Double.NaN;
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    /** One run against a server in its own JVM: its throughput, the CPU it took, latency and threads. */
    static Map<String, Object> measure(ServerProcess server, String mode, int repetition, Duration warmUp, Options o,
                                       int cores) {
        URI cpu = server.uri().resolve("/cpu?n=" + o.n());
        LoadRun.Measured m = LoadRun.measure(server,
                HttpLoad.Options.closedLoop(cpu, o.users(), warmUp, o.duration()));
        HttpLoad.Result r = m.load();
        double bound = m.cpuBoundThroughput(cores);
        int peak = server.stats().get("peakConcurrency").getAsInt();
        System.out.println(String.format(Locale.ROOT, "run %d %-8s %,8.1f req/s; CPU busy %.3f of the free cores (at"
                        + " full CPU %,.1f; server %,.0f µs + client %,.0f µs CPU per request, %.2f cores busy"
                        + " elsewhere); mean %,.0f ms, p99 %,.0f ms, %d errors; %d live threads, at most %d requests"
                        + " computing at once",
                repetition, mode, r.throughput(), r.throughput() / bound, bound, m.server().cpuUsPerRequest(),
                r.clientCpuUsPerRequest(), m.otherCores(), r.meanMs(), r.p99Ms(), r.errors(),
                m.server().liveThreads(), peak));
        Map<String, Object> run = new LinkedHashMap<>();
        run.put("mode", mode);
        run.put("repetition", repetition);
        run.put("threads", mode.equals("pool") ? o.pool() : 0);
        run.put("throughput", r.throughput());
        run.put("cpuBoundThroughput", bound);
        run.put("ratioToBound", r.throughput() / bound);
        run.put("meanMs", r.meanMs());
        run.put("p99Ms", r.p99Ms());
        run.put("errors", r.errors());
        run.put("serverCpuUsPerRequest", m.server().cpuUsPerRequest());
        run.put("clientCpuUsPerRequest", r.clientCpuUsPerRequest());
        run.put("totalCpuUsPerRequest", m.totalCpuUsPerRequest());
        run.put("otherCpuCores", m.otherCores());
        run.put("serverLiveThreads", m.server().liveThreads());
        run.put("peakConcurrency", peak);
        run.put("windowSeconds", r.seconds());
        return run;
    }
}

/*
 * How to run:
 *   tools/jbang cpu-endpoint                         (both servers, 3 runs each, in turn; ~40 s quick)
 *   tools/jbang cpu-endpoint --repeat 1 --mode virtual --n 100000000 --users 200 --duration-s 60   (the source's N)
 *   tools/jbang sleep-server --port 8080 & curl 'http://127.0.0.1:8080/cpu?n=1000000'
 *
 * What you should see (2 cores, JDK 25, quick profile): both servers keep 0.9-1.0 of the free cores busy;
 * their throughputs differ by about as much as their CPU per request does, often within the spread of the
 * runs; the pool holds 200+ live threads, the virtual server a handful; the mean latency is users / throughput,
 * far above one request's CPU time, for both. Neither model creates CPU.
 */
