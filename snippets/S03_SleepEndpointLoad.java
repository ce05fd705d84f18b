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
 * The question: 500 users in a closed loop hit GET /sleep (it blocks 100 ms). How many requests
 * per second, and how long a wait, on a pool of 50 platform threads or on virtual threads?
 * The bound (Little's law): throughput <= min(users, threads) / 0.1 s: 500 req/s for the pool
 * (each user waits 1,000 ms), 5,000 req/s for virtual threads (just above 100 ms).
 * The pitfall: a pool of 50 lets only 50 requests sleep at once; the other 450 queue.
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
     * One server against GET /sleep: start it in its own JVM (S04), load it from another (S05), stop it
     * (also when interrupted). This JVM only orchestrates, as in a real test.
     */
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

    /**
     * Figures published by the source (Spring Boot 3.4.4, Tomcat; 500 users x 10, 100 ms sleep),
     * the same numbers as data/published/vt-http-pr.csv (kept here so the snippet needs no CSV reader).
     */
    record Published(String source, double throughput, double meanMs, double minMs, double maxMs, double stdDevMs) {}

    static final Published PUBLISHED_POOL = new Published("Tomcat max 50 threads", 479.1, 977, 100, 1_141, 196.97);
    static final Published PUBLISHED_VIRTUAL = new Published("spring.threads.virtual.enabled", 3_921.6, 105, 100, 177, 9.84);

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

    /** Both servers in turn; results go to results/s03-sleep-endpoint/ (or $UNPINNED_RESULTS). */
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
 *   tools/jbang sleep-endpoint --mode pool --pool 100   (any size; published figures only for the source's set-up)
 *
 * What you should see: each server near its bound, errors 0; the pool's mean wait ~10 x virtual's.
 * Reference runs: data/reference-runs/snippets/S03-sleep-endpoint.md
 */
