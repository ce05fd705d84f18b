///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES Worked.java
//SOURCES ../helpers/unpinned/core/Bounds.java
//SOURCES ../helpers/unpinned/running/Jdks.java
package unpinned.solutions;

/*
 * Worked solutions to the exercises of chapter 05 (notebooks/05-pinning-jdk-21-vs-25.ipynb).
 * Try them in the notebook first: the reasoning is the point, not the number.
 *
 * N virtual threads each blocking S on C carriers: if the blocking unmounts, the waits overlap
 * (about S); if it pins, each wait holds a carrier and they go in rounds, ceil(N / C) x S.
 * JDK 24+ (JEP 491) unmounts inside synchronized; class initializers and native frames still pin.
 */

import com.google.gson.JsonElement;
import unpinned.core.Bounds;
import unpinned.running.Jdks;
import unpinned.core.Profile;

public class Chapter05 {

    public static void main(String[] args) {
        Profile profile = Profile.announce();
        Worked worked = new Worked("05");

        worked.exercise("05.1", "Pinned turns: JDK 21, 1 carrier, 5 x 100 ms in synchronized");
        // On JDK 21 a sleep inside synchronized pins: the carrier is held for each sleep in turn.
        double pinnedMs = Bounds.makespanMs(5, 1, 100);
        System.out.println("ceil(5 / 1 carrier) = 5 turns x 100 ms = " + Worked.num(pinnedMs)
                + " ms");
        worked.check("05.1", pinnedMs, "ms", 100, "as if the sleep unmounted: the JDK 25 answer");

        worked.exercise("05.2", "After JEP 491: the same batch on JDK 25");
        // The sleeping thread unmounts, monitor and all: the five sleeps overlap on one carrier.
        double unmountedMs = Bounds.makespanMs(5, 5, 100);
        System.out.println("one round: " + Worked.num(unmountedMs) + " ms");
        worked.check("05.2", unmountedMs, "ms", pinnedMs, "still pinned, as on JDK 21");

        worked.exercise("05.3", "More carriers: JDK 21, 4 carriers (maxPoolSize=4), 40 x 50 ms");
        // Each query keeps its carrier and no carrier can be added: 4 at a time.
        double roundsMs = Bounds.makespanMs(40, 4, 50);
        System.out.println("ceil(40 / 4) = 10 rounds x 50 ms = " + Worked.num(roundsMs) + " ms");
        worked.check("05.3", roundsMs, "ms", 40 * 50, "one at a time: the 4 carriers forgotten");

        worked.exercise("05.4", "Change the code, re-measure: pinThreads = 3, class-init's row");
        int pinThreads = 3, pinSleepMs = profile.pick(200, 2_000);
        var courseJdk = Jdks.course();
        System.out.println("prediction: a static initializer still pins on " + courseJdk.label()
                + ", so " + pinThreads + " threads on 1 carrier take turns: " + pinThreads
                + " x the sleep; measuring S17's class-init case, " + pinThreads + " x "
                + pinSleepMs + " ms (" + profile.id() + " profile), on " + courseJdk.label()
                + ": the row the exercise reads");
        var run = Jdks.json(courseJdk, "S17_PinningCases.java", "--case", "class-init",
                "--threads", "" + pinThreads, "--sleep-ms", "" + pinSleepMs);
        double ratio = Double.NaN;
        for (JsonElement c : run.getAsJsonArray("cases")) {
            var pinCase = c.getAsJsonObject();
            if (!pinCase.get("case").getAsString().equals("class-init")) continue;
            ratio = pinCase.get("ratioToSleep").getAsDouble();
            System.out.println("measured " + Worked.num(pinCase.get("elapsedMs").getAsDouble())
                    + " ms = " + Worked.ratio(ratio) + " x the sleep, "
                    + pinCase.get("pinnedEvents") + " pinned events");
        }
        worked.check("05.4", ratio, "x the sleep", 1, "as if JDK 25 unmounted in <clinit> too");
        worked.finish();
    }
}
