///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/experiments/EndpointLoad.java
//SOURCES ../helpers/unpinned/core/Experiment.java
//SOURCES ../helpers/unpinned/core/Published.java
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

import unpinned.core.Course;
import unpinned.experiments.EndpointLoad;
import unpinned.experiments.EndpointLoad.SleepRun;
import unpinned.core.Experiment;
import unpinned.running.HttpLoad;
import unpinned.running.ServerProcess;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

public class S03_SleepEndpointLoad {

    /**
     * Figures published by the source (Spring Boot 3.4.4, Tomcat; 500 users x 10, 100 ms sleep),
     * the same numbers as data/published/vt-http-pr.csv (kept here so the snippet needs no CSV reader).
     */
    record Published(String source, double throughput, double meanMs, double minMs, double maxMs, double stdDevMs) {}

    static final Published PUBLISHED_POOL = new Published("Tomcat max 50 threads", 479.1, 977, 100, 1_141, 196.97);
    static final Published PUBLISHED_VIRTUAL = new Published("spring.threads.virtual.enabled", 3_921.6, 105, 100, 177, 9.84);

    /** One server against GET /sleep: start it in its own JVM, load it from another, stop it (also when interrupted). */
    static SleepRun measure(String mode, int pool, int users, int sleepMs, Duration warmUp, Duration measured) {
        try (ServerProcess server = EndpointLoad.start(mode, pool, sleepMs)) {
            System.out.printf(Locale.ROOT, "%n== %s: %s%n", mode, server);
            EndpointLoad.Sample sample = EndpointLoad.closedLoop(server, server.uri().getPath(), users, warmUp, measured);
            Published pub = users != 500 || sleepMs != 100 ? null // the source's set-up only
                    : mode.equals("pool") ? (pool == 50 ? PUBLISHED_POOL : null) : PUBLISHED_VIRTUAL;
            return SleepRun.of(mode, pool, users, sleepMs, sample, pub == null ? Double.NaN : pub.throughput(),
                    pub == null ? Double.NaN : pub.meanMs());
        }
    }

    public static void main(String[] args) {
        Experiment.named("S03", "a sleeping endpoint under load, on a pool and on virtual threads", "s03-sleep-endpoint")
                .count("--users", 500, 500, 1, HttpLoad.MAX_CONNECTIONS, "concurrent users (connections)")
                .count("--sleep-ms", 100, 100, 1, 60_000, "handler sleep in ms")
                .count("--pool", 50, 50, 1, 10_000, "platform threads of the pool server")
                .oneOf("--mode", "both", List.of("pool", "virtual", "both"), "pool, virtual or both")
                .number("--warmup-s", 3, 5, 0, 600, "seconds of load before measuring")
                .number("--duration-s", 5, 10, 1, 3_600, "seconds measured")
                .check(a -> Course.home()) // its servers and load generator start through tools/jbang
                .check(a -> HttpLoad.requireOpenFiles(2L * a.count("--users") + 2 * HttpLoad.SPARE_FILES,
                        a.count("--users") + " users (client and server)"))
                .takes(Duration.ofHours(1), S03_SleepEndpointLoad::time)
                .run(args, S03_SleepEndpointLoad::sweep);
    }

    /** Each server in turn: its JVM and its load generator's start, the warm-up and the window. */
    static Experiment.Time time(Experiment.Args a) {
        int servers = a.oneOf("--mode").equals("both") ? 2 : 1;
        double warmUp = a.number("--warmup-s"), window = a.number("--duration-s");
        return Experiment.Time.of(servers * (2 * Experiment.JVM_START_S + warmUp + window),
                "%d server%s x (2 JVM starts of %.0f s + warm-up %,.1f s + window %,.1f s)", servers,
                servers == 1 ? "" : "s", Experiment.JVM_START_S, warmUp, window);
    }

    static EndpointLoad.SleepEndpoint sweep(Experiment.Args a) {
        int users = a.intCount("--users"), sleepMs = a.intCount("--sleep-ms"), pool = a.intCount("--pool");
        Duration warmUp = a.seconds("--warmup-s"), measured = a.seconds("--duration-s");
        System.out.printf(Locale.ROOT, "%d users, handler sleeps %d ms, closed loop on 127.0.0.1; warm-up %.0f s,"
                + " measured %.0f s%n", users, sleepMs, warmUp.toMillis() / 1e3, measured.toMillis() / 1e3);
        List<SleepRun> runs = new ArrayList<>();
        String mode = a.oneOf("--mode");
        for (String m : mode.equals("both") ? List.of("pool", "virtual") : List.of(mode)) {
            SleepRun run = measure(m, pool, users, sleepMs, warmUp, measured);
            System.out.println(run);
            runs.add(run);
        }
        System.out.println();
        return new EndpointLoad.SleepEndpoint(users, sleepMs, pool, warmUp.toMillis() / 1e3, measured.toMillis() / 1e3,
                runs);
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
