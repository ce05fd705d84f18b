///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES Worked.java
//SOURCES ../helpers/unpinned/experiments/Profiling.java
package unpinned.solutions;

/*
 * Worked solutions to the exercises of chapter 10 (notebooks/10-profiling-virtual-threads.ipynb).
 * Try them in the notebook first: the reasoning is the point, not the number.
 *
 * A sampling profiler takes one sample per interval of CPU; it walks the stack that is on the
 * thread. A virtual thread's frames still frozen after a block are on no thread: async-profiler
 * sees only what was thawed, JFR walks the frozen frames too, but keeps 64 frames by default.
 */

import unpinned.experiments.Profiling;
import unpinned.core.Profile;

public class Chapter10 {

    public static void main(String[] args) {
        Profile profile = Profile.announce();
        Worked worked = new Worked("10");

        worked.exercise("10.1", "Samples to expect: 1.5 cores for 20 s, one sample per 10 ms");
        // cpu mode samples each thread once per 10 ms of its CPU: 30 CPU seconds / 0.010 s at most.
        double samples = 1.5 * 20 / 0.010;
        System.out.println("1.5 cores x 20 s = 30 CPU seconds; / 0.010 s = " + Worked.num(samples)
                + " samples at most");
        worked.check("10.1", samples, "samples", 20 / 0.010, "wall time / interval: the cores forgotten");

        worked.exercise("10.2", "Where the cut falls: 3 ms before the block, 1 ms after, 2,000 words");
        // Before the block the whole stack is on the carrier; after it, 2,000 words > 500, so only the
        // top frame was thawed: the 1 ms after the block is cut. 3 of every 4 ms reach run().
        double share = 3 / 4.0;
        System.out.println("before the block 3 ms (whole stack), after it 1 ms (cut): 3 / (3 + 1) = "
                + Worked.ratio(share));
        worked.check("10.2", share, "of the samples", 1 / 4.0, "the share after the block");

        worked.exercise("10.3", "Change the code, re-measure: JFR at depth 70");
        // Above run() at depth 70: Work.hash, handle and 70 descend frames = 72 > 64, so JFR keeps the
        // 64 frames nearest the leaf and never reaches run(): a share near 0.
        System.out.println("prediction: 72 frames above run() > JFR's 64: about 0; measuring S34's stacks part"
                + " with JFR only, depths 4 and 70 (" + profile.id() + " profile)");
        var run = Profiling.run("stacks", "--depths", "4,70", "--profilers", "JFR");
        String jdk = "JDK " + Runtime.version().feature();
        var deep = run.seen(jdk, "JFR jdk.ExecutionSample", 70);
        var shallow = run.seen(jdk, "JFR jdk.ExecutionSample", 4);
        System.out.println("JFR jdk.ExecutionSample reaching run(): depth 4 " + Worked.ratio(shallow.reachingShare())
                + ", depth 70 " + Worked.ratio(deep.reachingShare()) + " (" + deep.workload() + " samples)");
        worked.check("10.3", deep.reachingShare(), "of the samples", shallow.reachingShare(),
                "JFR walks the frozen frames, so no cut: but its depth is capped");
        worked.finish();
    }
}
