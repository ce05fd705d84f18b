///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES Worked.java
//SOURCES ../helpers/unpinned/core/Bounds.java
//SOURCES ../helpers/unpinned/running/ChildRun.java
package unpinned.solutions;

/*
 * Worked solutions to the exercises of chapter 06 (notebooks/06-spring-boot.ipynb).
 * Try them in the notebook first: the reasoning is the point, not the number.
 *
 * Tomcat's pool is the P of Little's law: lambda <= min(U, P) / S, and in a closed loop each user
 * waits R = U / lambda. spring.threads.virtual.enabled=true makes P the users.
 */

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import unpinned.core.Bounds;
import unpinned.running.ChildRun;
import unpinned.core.Profile;

public class Chapter06 {

    public static void main(String[] args) {
        Profile profile = Profile.announce();
        Worked worked = new Worked("06");

        worked.exercise("06.1", "The cap: Tomcat threads.max=25, 300 users, a 200 ms endpoint");
        // At most 25 requests in service, each for 0.2 s; 275 users wait in Tomcat's queue.
        double cap = Bounds.closedLoopThroughput(300, 25, 0.200);
        System.out.println("min(300, 25) / 0.200 s = " + Worked.num(cap) + " req/s");
        worked.check("06.1", cap, "req/s", 300 / 0.200, "U / S: Tomcat's 25 threads forgotten");

        worked.exercise("06.2", "Response time in that closed loop");
        // All 300 users are inside: R = U / lambda.
        double waitMs = 300 / cap * 1_000;
        System.out.println("R = 300 / " + Worked.num(cap) + " req/s = " + Worked.num(waitMs)
                + " ms");
        worked.check("06.2", waitMs, "ms", 200, "the endpoint's sleep: the queue forgotten");

        worked.exercise("06.3", "Virtual threads: the same 300 users and 200 ms endpoint");
        // A virtual thread per request: all 300 in service at once.
        double virtualCap = Bounds.closedLoopThroughput(300, 300, 0.200);
        System.out.println("min(300, 300) / 0.200 s = " + Worked.num(virtualCap) + " req/s");
        worked.check("06.3", virtualCap, "req/s", cap, "still capped at Tomcat's 25 threads");

        worked.exercise("06.4", "Change the code, re-measure: the pull request, --threads 100");
        double bound = Bounds.closedLoopThroughput(500, 100, 0.100);
        System.out.println("prediction: min(500, 100) / 0.100 s = " + Worked.num(bound)
                + " req/s; measuring S21 --experiment pr --threads 100, the Tomcat row only"
                + " (--mode platform; " + profile.id() + " profile)");
        JsonObject pr = ChildRun.json("S21_SpringLoad.java", "--experiment", "pr",
                "--threads", "100", "--mode", "platform");
        double tomcat = Double.NaN;
        JsonObject experiment = pr.getAsJsonArray("experiments").get(0).getAsJsonObject();
        for (JsonElement e : experiment.getAsJsonArray("runs")) {
            JsonObject run = e.getAsJsonObject();
            if (!run.get("mode").getAsString().equals("platform")) continue;
            tomcat = run.get("throughput").getAsDouble();
            System.out.println("Tomcat " + run.get("threads") + ": measured " + Worked.num(tomcat)
                    + " req/s = " + Worked.ratio(tomcat / bound) + " x the bound");
        }
        worked.check("06.4", tomcat, "req/s", Bounds.closedLoopThroughput(500, 50, 0.100),
                "the unchanged cell: Tomcat 50");
        worked.finish();
    }
}
