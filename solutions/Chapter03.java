///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --add-exports java.base/jdk.internal.vm=ALL-UNNAMED
//RUNTIME_OPTIONS --add-exports java.base/jdk.internal.vm=ALL-UNNAMED
//SOURCES Worked.java
//SOURCES ../helpers/unpinned/core/Profile.java
package unpinned.solutions;

/*
 * Worked solutions to the exercises of chapter 03 (notebooks/03-what-a-virtual-thread-is.ipynb).
 * Try them in the notebook first: the reasoning is the point, not the number.
 *
 * The notebook's one-thread scheduler overlaps sleeps only where a task gives the thread back (its
 * own sleep yields the continuation); a plain Thread.sleep inside a continuation holds the only
 * thread. The JDK's internal Continuation needs
 * --add-exports java.base/jdk.internal.vm=ALL-UNNAMED, which javac refuses together with
 * --release 21: this file compiles for the course JDK.
 */

import jdk.internal.vm.Continuation;
import jdk.internal.vm.ContinuationScope;
import unpinned.core.Profile;

import java.util.ArrayDeque;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.locks.LockSupport;

public class Chapter03 {

    public static void main(String[] args) {
        Profile.announce();
        Worked worked = new Worked("03");
        long sleepMs = 50;

        worked.exercise("03.1", "Bound: 10,000 tasks each calling our sleep(50) twice");
        // Our sleep yields, so the tasks' sleeps overlap; a task's own two sleeps can't.
        double twoSleeps = 2 * sleepMs;
        System.out.println("no task ends before its own 2 x 50 ms = " + Worked.num(twoSleeps)
                + " ms");
        worked.check("03.1", twoSleeps, "ms", sleepMs, "one sleep: the second one forgotten");

        worked.exercise("03.2", "Serial: 200 tasks calling Thread.sleep(50) on that scheduler");
        // Thread.sleep yields only a virtual thread's continuation: here it blocks the one thread.
        double serial = 200 * sleepMs;
        System.out.println("200 sleeps in a row x 50 ms = " + Worked.num(serial) + " ms");
        worked.check("03.2", serial, "ms", sleepMs, "as if Thread.sleep yielded like our sleep");

        worked.exercise("03.3", "The floor: 500 platform threads sleeping 20 ms, 50 times");
        // Each sleep takes the OS thread off the CPU once: a voluntary context switch per sleep.
        double switches = 500 * 50;
        System.out.println("500 threads x 50 sleeps = " + Worked.num(switches)
                + " voluntary context switches at least");
        worked.check("03.3", switches, "switches", 500, "one per thread, not one per sleep");

        worked.exercise("03.4", "Change the code, re-measure: blockers = 20");
        int blockers = 20;
        System.out.println("prediction: " + blockers + " Thread.sleep calls in a row on one"
                + " thread, " + blockers + " x " + sleepMs + " ms = "
                + Worked.num(blockers * sleepMs) + " ms");
        double measuredMs = blockedMs(blockers, sleepMs);
        System.out.println("measured " + Worked.num(measuredMs) + " ms = "
                + Worked.ratio(measuredMs / sleepMs) + " x one sleep (a demonstration in this JVM,"
                + " as the notebook's is in the kernel's)");
        worked.check("03.4", measuredMs, "ms", 10 * sleepMs, "the unchanged cell: 10 blockers");
        worked.finish();
    }

    /** The notebook's scheduler: one platform thread, queues of ready and sleeping tasks. */
    static final class OneThreadScheduler {
        final ContinuationScope scope = new ContinuationScope("one-thread");
        final ArrayDeque<Continuation> ready = new ArrayDeque<>();
        final PriorityQueue<Map.Entry<Long, Continuation>> sleepers =
                new PriorityQueue<>(Map.Entry.comparingByKey());   // by wake-up time
        Continuation current;

        void submit(Runnable task) {
            ready.add(new Continuation(scope, task));
        }

        /** The notebook's runAll: move the sleepers that are due to ready, run the next. */
        void runAll() {
            while (!ready.isEmpty() || !sleepers.isEmpty()) {
                if (Thread.interrupted()) throw new CancellationException("interrupted");
                long now = System.nanoTime();
                while (!sleepers.isEmpty() && sleepers.peek().getKey() <= now) {
                    ready.add(sleepers.poll().getValue());
                }
                Continuation next = ready.poll();
                if (next == null) {
                    LockSupport.parkNanos(sleepers.peek().getKey() - now);
                    continue;
                }
                current = next;
                next.run();   // returns when the task yields (sleeps) or ends
            }
        }
    }

    /** The notebook's cell: {@code blockers} tasks calling a plain Thread.sleep, timed as it is. */
    static double blockedMs(int blockers, long sleepMs) {
        var blocking = new OneThreadScheduler();
        for (int i = 0; i < blockers; i++) {
            blocking.submit(() -> {
                try {
                    Thread.sleep(sleepMs);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        long start = System.nanoTime();
        blocking.runAll();
        return (System.nanoTime() - start) / 1e6;
    }
}
