///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES Worked.java
//SOURCES ../helpers/unpinned/experiments/CarrierScaling.java
package unpinned.solutions;

/*
 * Worked solutions to the exercises of chapter 04 (notebooks/04-the-scheduler.ipynb).
 * Try them in the notebook first: the reasoning is the point, not the number.
 *
 * The scheduler runs parallelism carriers at once (the cores, by default); a computing virtual
 * thread holds its carrier until it ends (no time slicing), so CPU work divides by
 * min(carriers, cores) and by nothing else.
 */

import unpinned.experiments.CarrierScaling;
import unpinned.core.Profile;
import unpinned.core.Results;

import java.util.List;

public class Chapter04 {

    public static void main(String[] args) {
        Profile profile = Profile.announce();
        Worked worked = new Worked("04");

        worked.exercise("04.1", "The default: carriers on a 16-core machine, no properties set");
        // parallelism defaults to the cores; maxPoolSize (256) is how many carriers may exist
        // while some are pinned, not how many run at once.
        double carriers = 16;
        System.out.println("jdk.virtualThreadScheduler.parallelism = the cores = "
                + Worked.num(carriers));
        worked.check("04.1", carriers, "carriers", 256, "maxPoolSize, not parallelism");

        worked.exercise("04.2", "The CPU bound: 400 threads x 5 ms of CPU, 2 carriers, 4 cores");
        // 2,000 ms of CPU; only the 2 carriers run it, whatever the 4 cores could do.
        double batchMs = 400 * 5 / (double) Math.min(2, 4);
        System.out.println("400 x 5 ms / min(2 carriers, 4 cores) = " + Worked.num(batchMs)
                + " ms");
        worked.check("04.2", batchMs, "ms", 400 * 5 / 4.0, "divided by the cores, not carriers");

        worked.exercise("04.3", "No time slicing: 4 carriers, 300 ms hogs, a ping due at 10 ms");
        // Nothing preempts a hog: the first carrier frees at 300 ms, 290 ms after the ping was due.
        double lateMs = 300 - 10;
        System.out.println("first free carrier at 300 ms - due at 10 ms = " + Worked.num(lateMs)
                + " ms late");
        worked.check("04.3", lateMs, "ms", 0, "as if virtual threads were time-sliced");

        worked.exercise("04.4", "Change the code, re-measure: List.of(1, 2, 3) carriers");
        int cores = Runtime.getRuntime().availableProcessors();
        System.out.println("prediction: 3 carriers are at most min(3, " + cores + " cores) = "
                + Math.min(3, cores) + " x faster than 1; measuring S14 on 1 and on 3 carriers,"
                + " each in its own JVM (" + profile.id() + " profile)");
        CarrierScaling one = CarrierScaling.run(1), three = CarrierScaling.run(3);
        // As the chapter's table cell does: the self-check reads the answer's run back from the results folder,
        // so a number printed before the change (on 2 cores the 1 -> 2 speed-up is the same 2 x) can't pass.
        Results.keep("04-carrier-scaling", List.of(one, three));
        double speedUp = one.cpuWallMs() / three.cpuWallMs();
        System.out.println("computing batch: " + Worked.num(one.cpuWallMs()) + " ms on 1 carrier, "
                + Worked.num(three.cpuWallMs()) + " ms on 3: " + Worked.ratio(speedUp)
                + " x faster; sleeping batch: " + Worked.ratio(one.ioWallMs() / three.ioWallMs())
                + " x");
        // Below 3 cores the tempting slip is 3; from 3 cores on, 3 is right: then upside down.
        boolean fewCores = cores < 3;
        worked.check("04.4", speedUp, "x", fewCores ? 3 : 1 / speedUp, fewCores
                ? "as if carriers beyond the cores added CPU"
                : "the 3-carrier time divided by the 1-carrier time");
        worked.finish();
    }
}
