///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/Profile.java
//SOURCES ../helpers/unpinned/Machine.java
//SOURCES ../helpers/unpinned/Course.java
//SOURCES ../helpers/unpinned/Json.java
//SOURCES ../helpers/unpinned/Results.java
//SOURCES ../helpers/unpinned/Bounds.java
//SOURCES ../helpers/unpinned/SleepServer.java
//SOURCES ../helpers/unpinned/HttpLoad.java
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
 * Hypothesis (Little's law for a closed loop, throughput = requests in service / service time):
 *   pool of 50  min(500, 50)  / 0.1 s =   500 req/s, mean latency 500 users / 500 req/s = 1,000 ms
 *   virtual     min(500, 500) / 0.1 s = 5,000 req/s, mean latency just above 100 ms
 * The source (seeds/001, Spring Boot + JMeter on a laptop) published 479.1 and 3,921.6 req/s.
 *
 * Server: the JDK's HttpServer (SleepServer); client: HttpLoad, one virtual thread and one
 * keep-alive socket per user, connected before the clock starts. Loopback only. Before measuring,
 * a JIT warm-up (up to 20,000 requests against a 5 ms server) and one request per user against each
 * server; neither is counted. Results go to results/s03-sleep-endpoint/ (or $UNPINNED_RESULTS).
 */

import unpinned.Bounds;
import unpinned.HttpLoad;
import unpinned.Profile;
import unpinned.Results;
import unpinned.SleepServer;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

public class S03_SleepEndpointLoad {

    /**
     * Figures published by seeds/001 (Spring Boot 3.4.4, Tomcat, JMeter; 500 users x 10, 100 ms sleep),
     * the same numbers as data/seed-figures/seed001-http.csv (kept here so the snippet needs no CSV reader).
     */
    record Published(String source, double throughput, double meanMs, double minMs, double maxMs, double stdDevMs) {}

    static final Published PUBLISHED_POOL = new Published("seeds/001, Tomcat max 50 threads", 479.1, 977, 100, 1_141, 196.97);
    static final Published PUBLISHED_VIRTUAL = new Published("seeds/001, spring.threads.virtual.enabled", 3_921.6, 105, 100, 177, 9.84);

    static final String USAGE = """
            usage: S03_SleepEndpointLoad [--users N] [--requests N] [--sleep-ms N] [--pool N] [--mode pool|virtual|both]
              --users N      concurrent users, 1..50000 (default 500)
              --requests N   requests per user, 1..100000 (default 20 in both profiles; the source sent 10)
              --sleep-ms N   handler sleep in ms, 1..60000 (default 100)
              --pool N       platform threads of the pool server, 1..10000 (default 50)
              --mode M       pool, virtual or both (default both)""";

    record Options(int users, int requests, int sleepMs, int pool, List<String> modes) {
        boolean matchesSource() {
            return users == 500 && sleepMs == 100;
        }
    }

    static Options parse(String[] args) {
        int users = 500, requests = 20, sleepMs = 100, pool = 50;
        String mode = "both";
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            String value;
            int eq = a.indexOf('=');
            if (a.startsWith("--") && eq > 0) {
                value = a.substring(eq + 1);
                a = a.substring(0, eq);
            } else if (i + 1 < args.length) {
                value = args[++i];
            } else {
                value = null;
            }
            switch (a) {
                case "--users" -> users = intArg(a, value, 1, HttpLoad.MAX_USERS);
                case "--requests" -> requests = intArg(a, value, 1, 100_000);
                case "--sleep-ms" -> sleepMs = intArg(a, value, 1, 60_000);
                case "--pool" -> pool = intArg(a, value, 1, SleepServer.MAX_POOL_THREADS);
                case "--mode" -> {
                    if (value == null || !List.of("pool", "virtual", "both").contains(value)) {
                        throw new IllegalArgumentException("--mode must be pool, virtual or both, got " + value);
                    }
                    mode = value;
                }
                default -> throw new IllegalArgumentException("unknown argument " + a);
            }
        }
        List<String> modes = mode.equals("both") ? List.of("pool", "virtual") : List.of(mode);
        return new Options(users, requests, sleepMs, pool, modes);
    }

    static int intArg(String name, String value, int min, int max) {
        if (value == null) throw new IllegalArgumentException(name + " needs a value, " + min + ".." + max);
        try {
            int v = Integer.parseInt(value.trim());
            if (v < min || v > max) throw new NumberFormatException();
            return v;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a whole number " + min + ".." + max + ", got " + value);
        }
    }

    public static void main(String[] args) throws Exception {
        Profile.announce(); // the sizes are the same in both profiles, but every snippet says which is in force
        if (List.of(args).contains("-h") || List.of(args).contains("--help")) {
            System.out.println(USAGE);
            return;
        }
        Options o;
        try {
            o = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("S03: " + e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
            return;
        }
        Duration sleep = Duration.ofMillis(o.sleepMs());
        System.out.printf(Locale.ROOT, "%d users x %d requests, handler sleeps %d ms, closed loop on 127.0.0.1%n",
                o.users(), o.requests(), o.sleepMs());

        jitWarmUp(o.users());
        List<Map<String, Object>> runs = new ArrayList<>();
        for (String mode : o.modes()) {
            int servers = mode.equals("pool") ? o.pool() : o.users(); // virtual: every request gets a thread
            double bound = Bounds.closedLoopThroughput(o.users(), servers, o.sleepMs() / 1000.0);
            double expectedSeconds = (double) o.users() * o.requests() / bound;
            Duration deadline = Duration.ofMillis((long) Math.min(3_600_000, 10_000 + 3_000 * expectedSeconds));
            try (SleepServer server = SleepServer.start(mode, o.pool(), sleep, 0)) {
                System.out.printf(Locale.ROOT, "%n== %s: %s%n", mode, server);
                HttpLoad.Result warm = HttpLoad.warmUp(server.uri(), o.users());
                System.out.printf(Locale.ROOT, "warm-up (not counted): %d requests, %d errors%n", warm.requests(), warm.errors());
                HttpLoad.Result r = HttpLoad.run(server.uri(), o.users(), o.requests(), deadline);
                Published pub = !o.matchesSource() ? null
                        : mode.equals("pool") ? (o.pool() == 50 ? PUBLISHED_POOL : null) : PUBLISHED_VIRTUAL;
                print(mode, o, r, bound, pub, server.peakConcurrency());
                Map<String, Object> run = new LinkedHashMap<>();
                run.put("mode", mode);
                run.put("threads", mode.equals("pool") ? o.pool() : 0);
                run.put("users", o.users());
                run.put("requestsPerUser", o.requests());
                run.put("sleepMs", o.sleepMs());
                run.put("boundReqPerSec", bound);
                run.put("ratioToBound", r.throughput() / bound);
                run.put("peakConcurrency", server.peakConcurrency());
                run.put("result", r);
                run.put("published", pub);
                runs.add(run);
            }
        }
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("users", o.users());
        data.put("requestsPerUser", o.requests());
        data.put("sleepMs", o.sleepMs());
        data.put("pool", o.pool());
        data.put("runs", runs);
        System.out.println();
        System.out.println("saved " + Results.save("s03-sleep-endpoint", data));
    }

    static void jitWarmUp(int users) throws InterruptedException {
        long t0 = System.nanoTime();
        HttpLoad.Result r = HttpLoad.jitWarmUp(users);
        System.out.printf(Locale.ROOT, "JIT warm-up (not counted): %d requests in %.1f s%n",
                r.requests() + r.errors(), (System.nanoTime() - t0) / 1e9);
    }

    static void print(String mode, Options o, HttpLoad.Result r, double bound, Published pub, int peak) {
        // Little's law in steady state: mean latency = users / throughput, so at the bound users / bound
        // (never below the sleep). A short run starts with everyone at once, so it can land a little under.
        double expectedMean = Math.max(o.sleepMs(), o.users() / bound * 1000);
        System.out.printf(Locale.ROOT, "%-18s %12s %12s %14s%n", "", "measured", "bound*", pub == null ? "" : "published");
        row("throughput req/s", r.throughput(), bound, pub == null ? Double.NaN : pub.throughput());
        row("mean ms", r.meanMs(), expectedMean, pub == null ? Double.NaN : pub.meanMs());
        row("min ms", r.minMs(), o.sleepMs(), pub == null ? Double.NaN : pub.minMs());
        row("max ms", r.maxMs(), Double.NaN, pub == null ? Double.NaN : pub.maxMs());
        row("std dev ms", r.stdDevMs(), Double.NaN, pub == null ? Double.NaN : pub.stdDevMs());
        row("p99 ms", r.p99Ms(), Double.NaN, Double.NaN);
        System.out.printf(Locale.ROOT, "%-18s %12d%n", "errors", r.errors());
        System.out.printf(Locale.ROOT, "measured / bound: %.3f (%d ok in %.2f s; peak %d requests in the handler at once)%s%n",
                r.throughput() / bound, r.requests(), r.elapsedSeconds(), peak,
                pub == null ? "" : String.format(Locale.ROOT, "; published / bound: %.3f (%s)", pub.throughput() / bound, pub.source()));
        System.out.println("* throughput: Little's law upper bound min(users, threads) / sleep; mean: its steady-state"
                + " value users / bound; min: the sleep");
        if (r.notIssued() > 0) System.out.println("deadline reached: " + r.notIssued() + " requests not issued");
    }

    static void row(String label, double measured, double bound, double published) {
        System.out.printf(Locale.ROOT, "%-18s %12s %12s %14s%n", label, fmt(measured), fmt(bound), fmt(published));
    }

    static String fmt(double v) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%,.1f", v);
    }
}

/*
 * How to run:
 *   tools/jbang sleep-endpoint                         (500 users x 20 requests, both servers, ~30 s;
 *                                                       the same in both profiles)
 *   tools/jbang sleep-endpoint --requests 10           (the source's exact count)
 *   tools/jbang sleep-endpoint --mode pool --pool 100  (any size; published figures shown only for the source's set-up)
 *
 * What you should see (measured on 2 cores, JDK 25):
 *   pool of 50  0.98-0.99 of its 500 req/s bound, mean ~915-960 ms (450 requests always queue),
 *               std dev ~160-210 ms, errors 0; the published run reached 0.96 (479.1 req/s).
 *   virtual     0.93-0.94 of 5,000 req/s with 20 requests per user (0.86-0.92 with 10, 0.83-0.92 with 5);
 *               mean ~103-112 ms, errors 0;
 *               the published run reached 0.78 (3,921.6 req/s).
 * Why virtual threads stay under 1.0: all 500 users start at the same instant, so every 100 ms a
 * wave of 500 requests lands at once. On 2 cores, shared by client and server, with one JDK
 * dispatcher thread reading every request, a wave takes several ms to get through, and that
 * queueing adds to each request's 100 ms. The waves drift apart as a run goes on, so longer runs
 * come closer (--mode virtual --requests 40: ~0.92-0.97). A virtual run lasts ~1 s, so a GC pause
 * or a late JIT compilation moves it by a few percent: run it twice before believing a decimal.
 * Doubling --pool doubles the pool's bound and throughput; virtual threads need no such knob.
 */
