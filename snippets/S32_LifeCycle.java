///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//RUNTIME_OPTIONS --add-opens java.base/java.lang=ALL-UNNAMED --add-exports java.base/jdk.internal.vm=ALL-UNNAMED -XX:+UnlockDiagnosticVMOptions -XX:+ShowHiddenFrames
//SOURCES ../helpers/unpinned/core/Experiment.java
//SOURCES ../helpers/unpinned/running/Jdks.java
//SOURCES ../helpers/unpinned/experiments/LifeCycle.java
package unpinned.snippets;

/*
 * S32: the life of one virtual thread, watched from outside: its states, its stack while mounted and parked, and
 * why a continuation sometimes cannot yield.
 * The question: which of java.lang.VirtualThread's private states (finer than Thread.State, by JDK: see
 * constants) does a thread pass through as it runs, parks, sleeps, yields, blocks, waits and ends; where do mount and
 * unmount show in stack traces; and where does a continuation's yield fail (see yieldInside)?
 * The bound: on ONE carrier a "hog" keeps our thread in its runnable-but-unmounted states long enough to be seen;
 * passing states (PARKING, YIELDING, BLOCKING) show only when a read falls in.
 * The pitfall: the mount frames are hidden by default (-XX:+ShowHiddenFrames in //RUNTIME_OPTIONS).
 * Results go to results/s32-life-cycle/.
 */

import unpinned.core.Experiment;
import unpinned.running.Jdks;
import unpinned.experiments.LifeCycle;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

public class S32_LifeCycle {
    // ---- the code under study: the thread's script -----------------------------------------------------------

    /** What the watched thread does, step by step as main allows (its states: see {@link #constants}). */
    static void script() throws InterruptedException {
        mountedTrace = Thread.currentThread().getStackTrace();
        await(1);                               // run: spins, mounted (RUNNING)
        parkUntil(2);                           // LockSupport.park until unparked
        await(3);
        Thread.sleep(HOLD_MS);                  // a timed park
        await(4);
        Thread.yield();                         // offers the carrier to the queued hogs
        await(5);
        synchronized (LOCK) { }                 // main holds LOCK: blocks on monitor enter
        await(6);
        synchronized (LOCK) { while (!notified) LOCK.wait(); }   // Object.wait until notified
        await(7);
        synchronized (new Object()) { parkUntil(8); }            // parks while holding a monitor
    }

    /** Parks until main has set {@code step} to k (a permit left by sleep or a spurious wake-up parks again). */
    static void parkUntil(int k) { while (step < k) LockSupport.park(); }

    static void await(int k) { while (step < k) Thread.onSpinWait(); }

    // ---- the code under study: a continuation of our own that yields where it can't -----------------------------

    static class YieldsInItsInitializer {
        static String outcome = "yielded";
        static {
            try { LifeCycle.yieldOurs(); } catch (IllegalStateException e) { outcome = e.getMessage(); }
        }
    }

    /**
     * Runs one case in a new Continuation on this thread; its outcome: "yielded" or onPinned's reason.
     * Continuation.yield0 calls onPinned(reason) when the VM's freeze fails (continuationFreezeThaw.cpp,
     * freeze_internal: pin() count -> CRITICAL_SECTION, held monitors -> MONITOR; recurse_freeze: a frame neither
     * compiled nor interpreted Java, like a class initializer's call stub -> NATIVE), and the default onPinned
     * throws IllegalStateException("Pinned: " + reason). JDK 25 counts held monitors only in legacy locking, so
     * synchronized no longer pins; its Pinned adds EXCEPTION.
     */
    static String yieldInside(String kase) {
        String[] outcome = {"yielded"};
        LifeCycle.runToEnd(() -> {
            try {
                switch (kase) {
                    case "nothing held" -> LifeCycle.yieldOurs();
                    case "synchronized" -> { synchronized (new Object()) { LifeCycle.yieldOurs(); } }
                    case "class initializer" -> outcome[0] = YieldsInItsInitializer.outcome;
                    case "pin() .. unpin()" -> {
                        LifeCycle.pin();
                        try { LifeCycle.yieldOurs(); } finally { LifeCycle.unpin(); }
                    }
                    default -> throw new IllegalArgumentException(kase);
                }
            } catch (IllegalStateException e) { // the default onPinned: "Pinned: " + reason
                outcome[0] = e.getMessage();
            }
        });
        return outcome[0].replace("Pinned: ", "");
    }

    // ---- the measurement --------------------------------------------------------------------------------------

    static final long HOLD_MS = 100; // how long each state is held, so the sampler sees it
    static final Object LOCK = new Object();
    static volatile int step;
    static volatile boolean notified;
    /**
     * The thread's own trace while mounted: it ends in VirtualThread.run <- Continuation.enter0 <- enter (@Hidden
     * frames); its carrier's starts at Continuation.run; parked, its frozen frames start at Continuation.yield0 <-
     * yield (JDK 25; JDK 21's at yield).
     */
    static volatile StackTraceElement[] mountedTrace;
    /**
     * VirtualThread's private state constants, read through reflection: JDK 21.0.8 has NEW 0, STARTED 1, RUNNING 2,
     * PARKING 3, PARKED 4, PINNED 5, TIMED_PARKING 6, TIMED_PARKED 7, TIMED_PINNED 8, UNPARKED 9, YIELDING 10,
     * YIELDED 11, TERMINATED 99; JDK 25 adds BLOCKING 12, BLOCKED 13, UNBLOCKED 14 and WAITING 15, WAIT 16,
     * TIMED_WAITING 17, TIMED_WAIT 18 (JEP 491 lets monitor enter and Object.wait unmount).
     */
    static Map<String, Integer> constants;

    public static void main(String[] args) {
        args = Jdks.honourJdkOption("S32", "S32_LifeCycle.java", args);
        Experiment.named("S32", "a virtual thread's states, stacks and pinning", "s32-life-cycle")
                .notes("--jdk 21|course: run on the JDK 21 runtime set-up installs, or the course JDK.")
                .budget(Duration.ofSeconds(2), Duration.ofSeconds(2))
                .run(args, a -> measure());
    }

    static LifeCycle.Cycle measure() throws Exception {
        System.setProperty("jdk.virtualThreadScheduler.parallelism", "1"); // before the first virtual thread
        constants = LifeCycle.constants();
        System.out.println("Java " + Runtime.version() + ", VirtualThread's states: " + constants);
        Thread subject = Thread.ofVirtual().name("s32-subject").unstarted(() -> {
            try { script(); } catch (InterruptedException e) { Thread.currentThread().interrupt(); }
        });
        List<LifeCycle.Phase> phases = new ArrayList<>();
        List<LifeCycle.Trace> traces = new ArrayList<>();
        try (LifeCycle.Sampler s = new LifeCycle.Sampler(subject, constants)) {
                        phase(s, phases, "new", "created, not started", () -> held(subject));
            phase(s, phases, "start", "started while a hog holds the carrier", () -> {
                hog("RUNNING"); subject.start(); awaitState(subject, "RUNNING"); return held(subject); });
            phase(s, phases, "run", "spins", () -> {
                String held = held(subject);
                traces.add(LifeCycle.trace("the thread itself, mounted", mountedTrace));
                traces.add(LifeCycle.trace("its carrier, while the thread is mounted",
                        LifeCycle.carrier(subject).getStackTrace()));
                return held; });
            phase(s, phases, "park", "LockSupport.park; unparked during a hog", () -> {
                step = 1; awaitState(subject, "PARKED");
                traces.add(LifeCycle.trace("the thread, parked (its frozen frames)", subject.getStackTrace()));
                String held = held(subject); hog("RUNNING"); step = 2; LockSupport.unpark(subject);
                awaitState(subject, "RUNNING"); return held; });
            phase(s, phases, "sleep", "Thread.sleep", () -> {
                step = 3; awaitThreadState(subject, Thread.State.TIMED_WAITING);
                awaitState(subject, "RUNNING"); return "TIMED_WAITING"; });
            phase(s, phases, "yield", "Thread.yield, two hogs queued", () -> { // not joined: the
                hog("STARTED"); hog("STARTED"); step = 4;   // scheduler may run our thread before them
                Thread.sleep(HOLD_MS); awaitState(subject, "RUNNING"); return "RUNNABLE"; });
            phase(s, phases, "monitor enter", "synchronized on a lock main holds", () -> {
                String held;
                synchronized (LOCK) { step = 5; held = awaitThreadState(subject, Thread.State.BLOCKED); }
                awaitThreadState(subject, Thread.State.RUNNABLE); return held; });
            phase(s, phases, "wait", "Object.wait until notified", () -> {
                step = 6; String held = awaitThreadState(subject, Thread.State.WAITING);
                synchronized (LOCK) { notified = true; LOCK.notifyAll(); }
                awaitThreadState(subject, Thread.State.RUNNABLE); return held; });
            phase(s, phases, "park in monitor", "LockSupport.park inside synchronized", () -> {
                step = 7; String held = awaitThreadState(subject, Thread.State.WAITING);
                step = 8; LockSupport.unpark(subject); subject.join(Duration.ofSeconds(10));
                return held; });
        } finally {
            step = 99;
            LockSupport.unpark(subject);
        }
        List<LifeCycle.PinCase> pins = new ArrayList<>();
        for (String kase : List.of("nothing held", "synchronized", "class initializer", "pin() .. unpin()")) {
            pins.add(new LifeCycle.PinCase(kase, yieldInside(kase)));
        }
        phases.forEach(p -> System.out.println(p.line()));
        traces.forEach(t -> System.out.println(t.when() + ":\n    " + String.join("\n    ", t.frames())));
        pins.forEach(p -> System.out.println("yield of our own Continuation, " + p.kase() + ": " + p.outcome()));
        return new LifeCycle.Cycle(Runtime.version().toString(), Runtime.version().feature(), constants,
                LifeCycle.pinnedReasons(), phases, traces, pins);
    }

    interface Action { String run() throws Exception; }

    /** One phase: the states sampled while {@code a} runs, and the Thread.State it saw while the state was held. */
    static void phase(LifeCycle.Sampler s, List<LifeCycle.Phase> phases, String name, String action, Action a)
            throws Exception {
        s.phase(name);
        String threadState = a.run();
        Thread.sleep(HOLD_MS / 4); // the last change is read
        phases.add(new LifeCycle.Phase(name, action, s.statesIn(name), threadState));
    }

    /** Holds the current state HOLD_MS; returns the Thread.State seen then. */
    static String held(Thread t) throws InterruptedException {
        Thread.sleep(HOLD_MS);
        return t.getState().toString();
    }

    /** Waits until {@code t}'s internal state is the one called {@code name} (read directly, not sampled). */
    static void awaitState(Thread t, String name) throws InterruptedException {
        LifeCycle.awaitState(t, constants.get(name));
    }

    static Thread hog(String state) throws InterruptedException {
        return LifeCycle.hog(HOLD_MS, constants.get(state));
    }

    static String awaitThreadState(Thread t, Thread.State state) throws InterruptedException {
        return LifeCycle.awaitThreadState(t, state, HOLD_MS);
    }
}

/*
 * How to run:
 *   tools/jbang life-cycle            (on the course JDK)
 *   tools/jbang life-cycle --jdk 21   (the same classes on the JDK 21 runtime)
 *
 * What you should see: the internal states of each phase (NEW, STARTED, RUNNING, PARKED, UNPARKED, ...), JDK 25
 * unmounting on monitors where JDK 21 stays RUNNING, and the pinned reason of each yield. Reference runs:
 * data/reference-runs/snippets/S32-life-cycle.md.
 */
