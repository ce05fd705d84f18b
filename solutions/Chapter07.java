///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES Worked.java
//SOURCES ../helpers/unpinned/core/Bounds.java
//SOURCES ../helpers/unpinned/running/ChildRun.java
package unpinned.solutions;

/*
 * Worked solutions to the exercises of chapter 07
 * (notebooks/07-a-real-database-and-backpressure.ipynb). Try them in the notebook first: the
 * reasoning is the point, not the number.
 *
 * With virtual threads the connection pool is the P of Little's law: at most P queries hold a
 * connection, each for q, so lambda <= P / q; in a closed loop of U users each query takes
 * U / lambda, of which q is the query itself.
 */

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import unpinned.core.Bounds;
import unpinned.running.ChildRun;
import unpinned.core.Profile;

public class Chapter07 {

    public static void main(String[] args) {
        Profile profile = Profile.announce();
        Worked worked = new Worked("07");

        worked.exercise("07.1", "The pool's cap: 20 connections, 25 ms per query");
        // However many virtual threads ask, 20 queries run at once, each holding it 0.025 s.
        double cap = Bounds.littleThroughput(20, 0.025);
        System.out.println("20 / 0.025 s = " + Worked.num(cap) + " queries/s");
        worked.check("07.1", cap, "queries/s", 20 / 25.0, "q in ms: 20 / 25");

        worked.exercise("07.2", "The wait: 300 users in a closed loop");
        // Each query takes U / lambda = 300 / 800 s = 375 ms, of which 25 ms is the query.
        double waitMs = (300 / cap - 0.025) * 1_000;
        System.out.println("300 / " + Worked.num(cap) + " s - 0.025 s = " + Worked.num(waitMs)
                + " ms");
        worked.check("07.2", waitMs, "ms", 300 / cap * 1_000, "U / lambda, q not taken off");

        worked.exercise("07.3", "The leak: 4 tasks per request on a new fixed pool of 100");
        // A fixed pool starts one thread per task until it has 100: 4 tasks, 4 threads, and
        // without shutdown() none of them ever ends.
        double leaked = 4 * 500;
        System.out.println("500 requests x 4 threads = " + Worked.num(leaked)
                + " more live threads");
        worked.check("07.3", leaked, "threads", 100 * 500, "as if each pool started all 100");

        worked.exercise("07.4", "Change the code, re-measure: pool = 20, unguarded, most users");
        int pool = 20, queryMs = 50, timeoutMs = 500, unchangedPool = profile.pick(10, 50);
        int mostUsers = profile.pick(200, 1_000);   // the last of the profile's capUsers
        double bound = Bounds.littleThroughput(pool, queryMs / 1e3);
        System.out.println("prediction: " + pool + " / 0.050 s = " + Worked.num(bound)
                + " queries/s; measuring S23 --guard none --pool 20 at " + mostUsers
                + " users, the level the exercise reads (" + profile.id() + " profile)");
        JsonObject capRun = ChildRun.json("S23_PoolCap.java", "--guard", "none",
                "--pool", "" + pool, "--query-ms", "" + queryMs,
                "--connection-timeout-ms", "" + timeoutMs, "--users", "" + mostUsers);
        System.out.println("database: " + capRun.getAsJsonObject("database"));
        double throughput = Double.NaN;
        for (JsonElement e : capRun.getAsJsonArray("levels")) {
            JsonObject level = e.getAsJsonObject();
            if (level.get("users").getAsInt() != mostUsers) continue;
            throughput = level.get("throughput").getAsDouble();
            System.out.println("measured " + Worked.num(throughput) + " queries/s = "
                    + Worked.ratio(throughput / bound) + " x the bound, " + level.get("timeouts")
                    + " timeouts, " + level.get("usersWithoutQuery") + " users without a query");
        }
        worked.check("07.4", throughput, "queries/s",
                Bounds.littleThroughput(unchangedPool, queryMs / 1e3),
                "the unchanged pool of " + unchangedPool);
        worked.finish();
    }
}
