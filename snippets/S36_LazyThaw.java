///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//RUNTIME_OPTIONS --add-opens java.base/java.lang=ALL-UNNAMED --add-opens java.base/jdk.internal.vm=ALL-UNNAMED -XX:CompileCommand=quiet -XX:CompileCommand=dontinline,unpinned.snippets.S36_LazyThaw::descend
//SOURCES ../helpers/unpinned/core/Experiment.java
//SOURCES ../helpers/unpinned/running/Jdks.java
//SOURCES ../helpers/unpinned/experiments/LazyThaw.java
package unpinned.snippets;

/*
 * S36: lazy thaw, shown: a virtual thread parked deep gets its frames back a frame at a time, as it returns.
 *
 * The question: a parked virtual thread's frames sit in a stack chunk on the heap. When it is mounted again, are
 * they all copied back to the carrier's stack at once?
 * The bound: HotSpot thaws the whole chunk only while it holds under 500 words (see THRESHOLD_WORDS), so a deep
 * park thaws no faster than one frame per return until then; a shallow one is empty from the first mount.
 * The pitfall: interpreted frames take the slow path, so descend and the park path are compiled first (warm-up
 * threads; -XX:CompileCommand=dontinline keeps one frame per level). Results go to results/s36-lazy-thaw/.
 */

import unpinned.experiments.LazyThaw;
import unpinned.core.Experiment;
import unpinned.core.Protocol;
import unpinned.running.Jdks;

import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

public class S36_LazyThaw {

    // ---- the code under study ---------------------------------------------------------------------------------

    /**
     * {@code depth} frames down, {@code atBottom} (which parks), then back up, noting after each return how many
     * words of this virtual thread's stack are still frozen: {@code after[i]} after i + 1 returns.
     */
    static int descend(int depth, Runnable atBottom, int[] after) {
        if (depth <= 1) {
            atBottom.run();
            return 1;
        }
        int below = descend(depth - 1, atBottom, after);
        if (after != null) after[below - 1] = LazyThaw.frozenWords(Thread.currentThread());
        return below + 1;
    }

    /** Parks until {@code go} is set (a spurious wake-up parks again), then notes the words left frozen. */
    static Runnable parkUntil(AtomicBoolean go, int[] afterResume) {
        return () -> {
            while (!go.get()) LockSupport.park();
            afterResume[0] = LazyThaw.frozenWords(Thread.currentThread());
        };
    }

    // ---- the measurement --------------------------------------------------------------------------------------

    /**
     * HotSpot's thaw threshold (continuationFreezeThaw.cpp, JDK 21u and 25u alike): Thaw::thaw_fast copies the
     * whole chunk when it holds under 500 words ({@code threshold = 500; // words}); otherwise it thaws one frame and
     * patches the return address below it to StubRoutines::cont_returnBarrier, and returning into that barrier
     * thaws again by the same rule. thaw_slow (interpreted frames, or a chunk the GC has seen) thaws 2 frames,
     * then 1 at each barrier. The JFR thaw events are compiled out (CONT_JFR false), so the chunk is read instead.
     */
    static final int THRESHOLD_WORDS = 500;

    public static void main(String[] args) {
        args = Jdks.honourJdkOption("S36", "S36_LazyThaw.java", args);
        Experiment.named("S36", "a deep park thawed a frame at a time", "s36-lazy-thaw")
                .count("--depth", 400, 400, 150, 5_000, "frames of ours under the deep park (over 500 words)")
                .count("--shallow-depth", 40, 40, 1, 100, "frames of ours under the shallow park (under 500 words)")
                .count("--warmups", 3_000, 3_000, 0, 100_000, "virtual threads that park and return first (JIT)")
                .notes("--jdk 21|course: run on the JDK 21 runtime set-up installs, or the course JDK (default: this"
                        + " JVM).")
                .budget(Duration.ofSeconds(2), Duration.ofSeconds(2))
                .run(args, S36_LazyThaw::measure);
    }

    static LazyThaw.Run measure(Experiment.Args a) throws Exception {
        int depth = a.intCount("--depth"), shallow = a.intCount("--shallow-depth");
        Protocol.progress("warm-up: " + a.intCount("--warmups") + " parks");
        for (int i = 0; i < a.intCount("--warmups"); i++) park(8 + i % 8, null);
        Thread.sleep(200); // the compiler queue drains
        Protocol.progress("the parks");
        int[] shallowParked = new int[3], deepParked = new int[3];
        int[] shallowAfter = park(shallow, shallowParked), deepAfter = park(depth, deepParked);
        double frameWords = (deepParked[0] - shallowParked[0]) / (double) (depth - shallow);
        LazyThaw.Run run = new LazyThaw.Run(Runtime.version().toString(), Runtime.version().feature(), THRESHOLD_WORDS,
                LazyThaw.Park.of(depth, deepParked[0], deepParked[1], deepAfter, frameWords, THRESHOLD_WORDS),
                LazyThaw.Park.of(shallow, shallowParked[0], shallowParked[1], shallowAfter, frameWords,
                        THRESHOLD_WORDS));
        System.out.printf(Locale.ROOT, "Java %s; one frame of ours: %.1f words; threshold %d words%n",
                Runtime.version(), frameWords, THRESHOLD_WORDS);
        System.out.println("deep:    " + run.deep().line());
        System.out.println("shallow: " + run.shallow().line());
        return run;
    }

    /**
     * One virtual thread parks {@code depth} frames deep and is unparked once parked; {@code parked} (if given)
     * receives the words frozen while it was parked and those left after its resume. Returns the words left after
     * each return.
     */
    static int[] park(int depth, int[] parked) throws InterruptedException {
        AtomicBoolean go = new AtomicBoolean();
        int[] after = new int[Math.max(0, depth - 1)], afterResume = new int[1];
        Thread t = Thread.ofVirtual().unstarted(() -> descend(depth, parkUntil(go, afterResume), after));
        t.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (t.getState() != Thread.State.WAITING) {
            if (System.nanoTime() > deadline) throw new Experiment.RunFailed("a thread never parked");
            Thread.onSpinWait();
        }
        if (parked != null) parked[0] = LazyThaw.frozenWords(t);
        go.set(true);
        LockSupport.unpark(t);
        if (!t.join(Duration.ofSeconds(30))) throw new Experiment.RunFailed("a thread had not ended after 30 s");
        if (parked != null) parked[1] = afterResume[0];
        return after;
    }
}

/*
 * How to run:
 *   tools/jbang lazy-thaw                    (parked 400 and 40 frames deep)
 *   tools/jbang lazy-thaw --jdk 21           (the same classes on JDK 21)
 *   tools/jbang lazy-thaw --depth 2000 --warmups 0   (interpreted frames: thaw_slow, still a frame at a time)
 *
 * What you should see: parked deep, one frame (a few words) thawed per return until under 500 words are left, then
 * the rest at once; parked shallow, nothing left after the resume. Reference runs:
 * data/reference-runs/snippets/S36-lazy-thaw.md.
 */
