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
 * S03: a sleeping HTTP endpoint under load, on a pool of 50 platform threads and on virtual threads.
 *
 * The question: 500 users hammer GET /sleep (it blocks 100 ms, like a slow query) with no think
 * time, each sending its next request as soon as the previous one is answered (a closed loop,
 * as JMeter's thread groups do). How many requests per second does the server answer, and how
 * long does each user wait, when the handler runs on 50 platform threads or on virtual threads?
 *
 * The pitfall: a pool of 50 lets only 50 requests sleep at once; the other 450 queue. Adding
 * users then adds waiting, not throughput.
 *
 * Hypothesis (Little's law: requests in service = throughput x service time, so with S the
 * service time and at most min(users, threads) in service, throughput <= min(users, threads) / S;
 * in a closed loop each user then waits R = users / throughput per request):
 *   pool of 50  min(500, 50)  / 0.1 s =   500 req/s, R = 500 / 500 req/s = 1,000 ms
 *   virtual     min(500, 500) / 0.1 s = 5,000 req/s, R just above 100 ms
 * The source (sunwon12's pull request "virtual thread performance test results", Oct 2025: Spring Boot
 * on a laptop) published 479.1 and 3,921.6 req/s.
 *
 * Three JVMs, as in a real test: this one only orchestrates; the server (S04, alias sleep-server)
 * runs in its own JVM on 127.0.0.1 and reports its own CPU, memory and threads; the load
 * generator (S05, alias http-load) runs in another, warms up, then counts what completes inside
 * a measured window. Results go to results/s03-sleep-endpoint/ (or $UNPINNED_RESULTS).
 */

import unpinned.Bounds;
import unpinned.Cli;
import unpinned.Course;
import unpinned.HttpLoad;
import unpinned.LoadRun;
import unpinned.Profile;
import unpinned.Protocol;
import unpinned.Results;
import unpinned.ServerProcess;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

public class S03_SleepEndpointLoad {

    /**
     * Figures published by the source (Spring Boot 3.4.4, Tomcat; 500 users x 10, 100 ms sleep),
     * the same numbers as data/published/vt-http-pr.csv (kept here so the snippet needs no CSV reader).
     */
    record Published(String source, double throughput, double meanMs, double minMs, double maxMs, double stdDevMs) {}

    static final Published PUBLISHED_POOL = new Published("Tomcat max 50 threads", 479.1, 977, 100, 1_141, 196.97);
    static final Published PUBLISHED_VIRTUAL = new Published("spring.threads.virtual.enabled", 3_921.6, 105, 100, 177, 9.84);

    static final String USAGE = """
            usage: S03_SleepEndpointLoad [--users N] [--sleep-ms N] [--pool N] [--mode pool|virtual|both]
                                         [--warmup-s S] [--duration-s S]
              --users N       concurrent users (connections), 1..50000 (default 500)
              --sleep-ms N    handler sleep in ms, 1..60000 (default 100)
              --pool N        platform threads of the pool server, 1..10000 (default 50)
              --mode M        pool, virtual or both (default both)
              --warmup-s S    seconds of load before measuring, 0..600 (default 3; full profile 5)
              --duration-s S  seconds measured, 1..3600 (default 5; full profile 10)""";

    record Options(int users, int sleepMs, int pool, List<String> modes, Duration warmUp, Duration duration) {
        boolean matchesSource() {
            return users == 500 && sleepMs == 100;
        }
    }

    static Options parse(String[] args, Profile profile) {
        Cli cli = Cli.orExit("S03", USAGE, args,
                Set.of("--users", "--sleep-ms", "--pool", "--mode", "--warmup-s", "--duration-s"), Set.of());
        try {
            String mode = cli.oneOf("--mode", "both", List.of("pool", "virtual", "both"));
            return new Options(cli.intValue("--users", 500, 1, HttpLoad.MAX_CONNECTIONS),
                    cli.intValue("--sleep-ms", 100, 1, 60_000), cli.intValue("--pool", 50, 1, 10_000),
                    mode.equals("both") ? List.of("pool", "virtual") : List.of(mode),
                    Duration.ofMillis((long) (1000 * cli.doubleValue("--warmup-s", profile.pick(3, 5), 0, 600))),
                    Duration.ofMillis((long) (1000 * cli.doubleValue("--duration-s", profile.pick(5, 10), 1, 3600))));
        } catch (IllegalArgumentException e) {
            return Cli.exit("S03", e.getMessage());
        }
    }

    public static void main(String[] args) throws Exception {
        Profile profile = Profile.announceOrExit("S03");
        Options o = parse(args, profile);
        try {
            Course.home(); // its servers and load generator start through the course folder's tools/jbang
            Results.checkDir();
            HttpLoad.requireOpenFiles(2L * o.users() + 2 * HttpLoad.SPARE_FILES, o.users() + " users (client and server)");
        } catch (IllegalStateException e) {
            Cli.exit("S03", e.getMessage());
        }
        System.out.printf(Locale.ROOT, "%d users, handler sleeps %d ms, closed loop on 127.0.0.1; warm-up %.0f s,"
                + " measured %.0f s%n", o.users(), o.sleepMs(), o.warmUp().toMillis() / 1e3, o.duration().toMillis() / 1e3);
        List<Map<String, Object>> runs = new ArrayList<>();
        for (String mode : o.modes()) {
            int servers = mode.equals("pool") ? o.pool() : o.users(); // virtual: every request gets a thread
            double bound = Bounds.closedLoopThroughput(o.users(), servers, o.sleepMs() / 1000.0);
            try (ServerProcess server = ServerProcess.start("S04_SleepServer.java", "--mode", mode,
                    "--threads", Integer.toString(o.pool()), "--sleep-ms", Integer.toString(o.sleepMs()))) {
                System.out.printf(Locale.ROOT, "%n== %s: %s%n", mode, server);
                LoadRun.Measured m = LoadRun.measure(server,
                        HttpLoad.Options.closedLoop(server.uri(), o.users(), o.warmUp(), o.duration()));
                Published pub = !o.matchesSource() ? null
                        : mode.equals("pool") ? (o.pool() == 50 ? PUBLISHED_POOL : null) : PUBLISHED_VIRTUAL;
                int peak = server.stats().get("peakConcurrency").getAsInt();
                print(o, m, bound, pub, peak);
                Map<String, Object> run = new LinkedHashMap<>();
                run.put("mode", mode);
                run.put("threads", mode.equals("pool") ? o.pool() : 0);
                run.put("boundReqPerSec", bound);
                run.put("ratioToBound", m.load().throughput() / bound);
                run.put("peakConcurrency", peak);
                run.put("load", m.load());
                run.put("server", m.server());
                run.put("published", pub);
                runs.add(run);
            }
        }
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("users", o.users());
        data.put("sleepMs", o.sleepMs());
        data.put("pool", o.pool());
        data.put("warmUpSeconds", o.warmUp().toMillis() / 1e3);
        data.put("measuredSeconds", o.duration().toMillis() / 1e3);
        data.put("runs", runs);
        System.out.println();
        Protocol.result(data);
        System.out.println("saved " + Results.save("s03-sleep-endpoint", data));
    }

    static void print(Options o, LoadRun.Measured m, double bound, Published pub, int peak) {
        HttpLoad.Result r = m.load();
        // Little's law in steady state: each user waits users / throughput, so at the bound users / bound
        // (never below the sleep).
        double expectedMean = Math.max(o.sleepMs(), o.users() / bound * 1000);
        System.out.printf(Locale.ROOT, "%-20s %12s %12s %14s%n", "", "measured", "bound*", pub == null ? "" : "published");
        row("throughput (req/s)", r.throughput(), bound, pub == null ? Double.NaN : pub.throughput());
        row("mean (ms)", r.meanMs(), expectedMean, pub == null ? Double.NaN : pub.meanMs());
        row("min (ms)", r.minMs(), o.sleepMs(), pub == null ? Double.NaN : pub.minMs());
        row("max (ms)", r.maxMs(), Double.NaN, pub == null ? Double.NaN : pub.maxMs());
        row("std dev (ms)", r.stdDevMs(), Double.NaN, pub == null ? Double.NaN : pub.stdDevMs());
        row("p99 (ms)", r.p99Ms(), Double.NaN, Double.NaN);
        System.out.printf(Locale.ROOT, "%-20s %12d%n", "errors", r.errors());
        System.out.printf(Locale.ROOT, "measured / bound: %.3f (%,d ok in %.1f s; peak %d requests in the handler at once)%s%n",
                r.throughput() / bound, r.requests(), r.seconds(), peak,
                pub == null ? "" : String.format(Locale.ROOT, "; published / bound: %.3f (%s)", pub.throughput() / bound, pub.source()));
        System.out.println(m.server() + String.format(Locale.ROOT, "; client CPU %.0f µs/request", r.clientCpuUsPerRequest()));
        System.out.println("* throughput: Little's law upper bound min(users, threads) / sleep; mean: its steady-state"
                + " value users / bound; min: the sleep");
    }

    static void row(String label, double measured, double bound, double published) {
        System.out.printf(Locale.ROOT, "%-20s %12s %12s %14s%n", label, fmt(measured), fmt(bound), fmt(published));
    }

    static String fmt(double v) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%,.1f", v);
    }
}

/*
 * How to run:
 *   tools/jbang sleep-endpoint                          (500 users, both servers; ~25 s quick, ~40 s full)
 *   tools/jbang sleep-endpoint --mode virtual --duration-s 20
 *   tools/jbang sleep-endpoint --mode pool --pool 100   (any size; published figures shown only for the source's set-up)
 *
 * What you should see (measured on 2 cores, JDK 25, quick profile):
 *   pool of 50  0.98-0.99 of its 500 req/s bound, mean ~1,000 ms (450 requests always queue), errors 0;
 *               the published run reached 0.96 (479.1 req/s).
 *   virtual     0.97-0.99 of 5,000 req/s, mean ~101-103 ms, errors 0; the published run reached 0.78
 *               (3,921.6 req/s: its load tool, Spring and Tomcat cost more CPU per request on one laptop).
 * The server's CPU per request shows what each request costs; the pool server keeps 50+ live
 * threads, the virtual one a handful (virtual threads are not counted as live platform threads).
 * Doubling --pool doubles the pool's bound and throughput; virtual threads need no such knob.
 */
