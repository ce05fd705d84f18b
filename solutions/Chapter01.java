///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES Worked.java
//SOURCES ../helpers/unpinned/running/Jmh.java
//SOURCES ../helpers/unpinned/running/LoadRun.java
package unpinned.solutions;

/*
 * Worked solutions to the exercises of chapter 01
 * (notebooks/01-thread-per-request-and-pools.ipynb). Try them in the notebook first: the
 * reasoning is the point, not the number.
 *
 * The chapter's two bounds: a pool of P threads runs N tasks of S in ceil(N / P) waves, so a batch
 * takes at least ceil(N / P) x S; a server with P threads and U users in a closed loop serves at
 * most lambda <= min(U, P) / S, and each user waits R = U / lambda per request (Little's law).
 */

import unpinned.core.Bounds;
import unpinned.running.HttpLoad;
import unpinned.running.Jmh;
import unpinned.running.LoadRun;
import unpinned.core.Profile;
import unpinned.running.ServerProcess;

import java.time.Duration;
import java.util.Map;

public class Chapter01 {

    public static void main(String[] args) {
        Profile profile = Profile.announce();
        Worked worked = new Worked("01");

        worked.exercise("01.1", "Little's law: a pool of 20, 200 ms per request, 1,000 users");
        int users = 1_000, threads = 20;
        double serviceSeconds = 0.200;
        // At most min(U, P) = 20 requests are in service, each for 0.2 s: 980 users queue.
        double throughput = Bounds.closedLoopThroughput(users, threads, serviceSeconds);
        System.out.println("lambda <= min(1,000, 20) / 0.200 s = " + Worked.num(throughput)
                + " req/s");
        worked.check("01.1", throughput, "req/s", users / serviceSeconds,
                "U / S: the pool's cap forgotten");

        worked.exercise("01.2", "Waves: 1,000 tasks of 20 ms on a pool of 64");
        // 1,000 / 64 = 15.6: 15 full waves leave 40 tasks, which need a 16th wave.
        double waves = Bounds.makespanMs(1_000, 64, 20);
        System.out.println("ceil(1,000 / 64) = " + Bounds.batches(1_000, 64) + " waves x 20 ms = "
                + Worked.num(waves) + " ms");
        worked.check("01.2", waves, "ms", 1_000 / 64.0 * 20, "1,000 / 64 x 20: the ceil forgotten");

        worked.exercise("01.3", "Response time in exercise 1");
        // In a closed loop all U users are inside: L = U, so R = L / lambda.
        double responseMs = users / throughput * 1_000;
        System.out.println("R = U / lambda = 1,000 / " + Worked.num(throughput) + " req/s = "
                + Worked.num(responseMs / 1_000) + " s = " + Worked.num(responseMs) + " ms");
        worked.check("01.3", responseMs, "ms", users / throughput, "seconds entered as ms");

        worked.exercise("01.4", "Predict, then measure: 1,000 tasks of 50 ms on the pool of 200");
        double predictedMs = Bounds.makespanMs(1_000, 200, 50);
        System.out.println("ceil(1,000 / 200) = " + Bounds.batches(1_000, 200) + " waves x 50 ms = "
                + Worked.num(predictedMs) + " ms; now the measurement,"
                + " tools/jbang io-bound -p executor=fixed-200 -p tasks=1000:");
        var measured = Jmh.run("S01_IoBoundExecutors.java",
                Map.of("executor", "fixed-200", "tasks", "1000"));
        double measuredMs = measured.get(0).score();
        System.out.println("measured " + Worked.num(measuredMs) + " ms per batch = "
                + Worked.ratio(measuredMs / predictedMs) + " x the bound (it can't beat it)");
        worked.check("01.4", predictedMs, "ms", 50, "one wave of 50 ms, as for virtual threads");

        worked.exercise("01.5", "Scale it: 5,000 tasks of 50 ms");
        double poolMs = Bounds.makespanMs(5_000, 200, 50);
        double virtualMs = Bounds.makespanMs(5_000, 5_000, 50);
        System.out.println("pool of 200: ceil(5,000 / 200) = 25 waves x 50 ms = "
                + Worked.num(poolMs) + " ms; virtual threads: one wave, " + Worked.num(virtualMs)
                + " ms. With 500 tasks the pool needed only 3 waves: that is why it came close.");
        worked.check("01.5", poolMs, "ms", virtualMs, "the virtual threads' bound, not the pool's");

        worked.exercise("01.6", "Change the code, re-measure: poolThreads = 100");
        double measuredThroughput = poolOf100(profile);
        worked.check("01.6", measuredThroughput, "req/s",
                Bounds.closedLoopThroughput(500, 50, 0.100), "the unchanged pool of 50");
        worked.finish();
    }

    /**
     * Experiment 3 with poolThreads = 100, as the notebook's loadTest("pool") runs it: the sleep
     * server (S04) in its own JVM, 500 users from the load generator in another, the profile's
     * warm-up and window.
     */
    static double poolOf100(Profile profile) {
        int users = 500, poolThreads = 100;
        double bound = Bounds.closedLoopThroughput(users, poolThreads, 0.100);
        var warmUp = Duration.ofSeconds(profile.pick(3, 5));
        var window = Duration.ofSeconds(profile.pick(5, 10));
        System.out.println("prediction: min(500, 100) / 0.100 s = " + Worked.num(bound)
                + " req/s; measuring " + window.toSeconds() + " s after " + warmUp.toSeconds()
                + " s of warm-up (" + profile.id() + " profile)");
        try (var server = ServerProcess.start("S04_SleepServer.java", "--mode", "pool",
                "--threads", Integer.toString(poolThreads), "--sleep-ms", "100")) {
            var load = HttpLoad.Options.closedLoop(server.uri(), users, warmUp, window);
            var run = LoadRun.measure(server, load).load();
            System.out.println("measured " + Worked.num(run.throughput()) + " req/s = "
                    + Worked.ratio(run.throughput() / bound) + " x the bound; mean "
                    + Worked.num(run.meanMs()) + " ms (at the bound: 500 / " + Worked.num(bound)
                    + " s = " + Worked.num(users / bound * 1_000) + " ms)");
            return run.throughput();
        }
    }
}
