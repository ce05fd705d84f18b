///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 25+
//JAVAC_OPTIONS --release 25
//RUNTIME_OPTIONS -Xmx4g
//SOURCES ../helpers/unpinned/experiments/Backpressure.java
//SOURCES ../helpers/unpinned/workloads/ParkedThreads.java
package unpinned.snippets;

/*
 * S26: what a per-thread cache costs when every request has a thread of its own.
 * The question: libraries keep per-thread caches in a ThreadLocal (a SimpleDateFormat, a scratch buffer). With a
 * virtual thread per request every thread builds its own copy and holds it while it lives. How much heap do N live
 * virtual threads hold that each touched such a cache (--mode threadlocal), against N bound to ONE immutable
 * object through a ScopedValue (--mode scopedvalue)? The control (none) is the parked thread itself.
 * The bound: the copies cost at least N x the value's size (--value-bytes) plus a ThreadLocalMap each (~150 B); a
 * binding costs each thread a few small objects pointing at the one value.
 * The pitfall: the fix is sharing ONE object, so it must be immutable or thread-safe; a ScopedValue makes that the
 * only way to use it. ScopedValue is final since JDK 25 (JEP 506), so --jdk 21 is refused. One JVM per mode
 * (see both), -Xmx4g; results go to results/s26-scoped-values/.
 */

import unpinned.experiments.Backpressure;
import unpinned.running.ChildRun;
import unpinned.core.Cli;
import unpinned.core.Experiment;
import unpinned.workloads.ParkedThreads;
import unpinned.core.Protocol;

import static unpinned.workloads.ParkedThreads.checkFailure;
import static unpinned.workloads.ParkedThreads.parkUntilReleased;
import static unpinned.workloads.ParkedThreads.releaseAndJoin;
import static unpinned.workloads.ParkedThreads.settledHeap;
import static unpinned.workloads.ParkedThreads.startAndPark;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

public class S26_ScopedValues {
    // ---- the code under study ---------------------------------------------------------------------------------

    /** What each virtual thread runs: touch the value, count down, park until released (see SHARED). */
    static Runnable task(String mode, Formatter shared) {
        return switch (mode) {
            case "threadlocal" -> () -> {
                Formatter mine = PER_THREAD.get(); // this thread's first get(): builds its own copy
                sink = mine.format(Thread.currentThread().threadId());
                parkUntilReleased();
            };
            case "scopedvalue" -> () -> ScopedValue.where(SHARED, shared).run(() -> {
                Formatter one = SHARED.get(); // the one object main built, for every thread
                sink = one.format(Thread.currentThread().threadId());
                parkUntilReleased(); // inside the binding: it lives as long as the thread's work does
            });
            case "none" -> () -> parkUntilReleased(); // the control: what the parked thread itself costs
            default -> throw new IllegalArgumentException("no mode " + mode);
        };
    }

    /**
     * What the threads need: a formatter with its lookup table, about {@code valueBytes} of heap. Built afresh by
     * each thread in threadlocal mode; built once and shared (so it must never change) in scopedvalue mode.
     */
    record Formatter(byte[] table) {
        static Formatter build(int valueBytes) {
            byte[] table = new byte[valueBytes];
            for (int i = 0; i < table.length; i++) table[i] = (byte) ('0' + i % 10);
            return new Formatter(table);
        }

        /** Uses the table, so the value is really touched. */
        int format(long v) {
            return table.length == 0 ? (int) v : table[(int) Math.floorMod(v, (long) table.length)];
        }
    }

    /** The per-thread cache as libraries write it: each thread's first get() builds its own copy. */
    static volatile int valueBytes;
    static final ThreadLocal<Formatter> PER_THREAD = ThreadLocal.withInitial(() -> Formatter.build(valueBytes));
    /**
     * The shared value: bound by each thread for the extent of its work, to the one object built in main, as a
     * framework binds a request's context around its handler: a thread from Thread.ofVirtual() does NOT inherit
     * its parent's bindings (only StructuredTaskScope forks do, a preview API in 25).
     */
    static final ScopedValue<Formatter> SHARED = ScopedValue.newInstance();

    static volatile int sink;

    // ---- the measurement --------------------------------------------------------------------------------------

    static final String ID = "s26-scoped-values";
    static final List<String> MODES = List.of("threadlocal", "scopedvalue", "none", "both");
    static final int MAX_THREADS = 2_000_000, MAX_VALUE_BYTES = 65_536;
    static final String NEEDS_25 = "needs JDK 25+: ScopedValue is final since JDK 25 (JEP 506); in JDK 21-24 it is"
            + " only a preview API (--enable-preview, and its API changed between previews), so this snippet is"
            + " compiled for Java 25 and JDK 21 cannot run it; run it on the course JDK (JDK 25+)";
    static final String ONLY_COURSE = "ScopedValue is final since JDK 25, so 21 is refused";
    /** A parked virtual thread that went a few frames deep (thread-cost measures ~1 KB), with head-room. */
    static final long ESTIMATE_THREAD_BYTES = 1_400;
    /** A thread's ThreadLocalMap (the map, its 16-slot table, one entry) and the value's holder and array headers. */
    static final long ESTIMATE_COPY_OVERHEAD_BYTES = 250;

    record Options(String mode, int threads, int valueBytes) {}

    public static void main(String[] args) {
        Experiment.named("S26", "heap of N parked virtual threads: a ThreadLocal copy each vs one ScopedValue", ID)
                .oneOf("--mode", "both", MODES, "threadlocal: each virtual thread builds its own copy of the value in"
                        + " a ThreadLocal; scopedvalue: one immutable value, built once, bound by each thread in a"
                        + " ScopedValue; none: the control, threads that touch no value (what a parked thread"
                        + " costs); both: threadlocal and scopedvalue, then the control, each in a JVM of its own")
                .count("--threads", 100_000, 1_000_000, 1, MAX_THREADS, "virtual threads alive at once, each"
                        + " parked after touching the value")
                .count("--value-bytes", 1_024, 1_024, 0, MAX_VALUE_BYTES, "size of the value's table in bytes (a"
                        + " formatter's tables, a scratch buffer)")
                .text("--jdk", "course", "the course JDK (the only choice: " + ONLY_COURSE + ")")
                .check(Backpressure.courseJdk25(false, NEEDS_25, ONLY_COURSE)) // a JDK < 25 can't load these classes
                .check(a -> checkHeap(a.oneOf("--mode"), a.intCount("--threads"), a.intCount("--value-bytes")))
                .run(args, S26_ScopedValues::measure);
    }

    /** --mode both: the three modes, each in a JVM of its own, compared; else one mode in this JVM. */
    static Object measure(Experiment.Args a) throws InterruptedException {
        Options o = new Options(a.oneOf("--mode"), a.intCount("--threads"), a.intCount("--value-bytes"));
        System.out.printf(Locale.ROOT, "S26: %,d virtual threads alive at once, value %,d B, mode %s; heap max %,d MB;"
                        + " JDK %s%n", o.threads(), o.valueBytes(), o.mode(), Runtime.getRuntime().maxMemory() >> 20,
                Runtime.version());
        if (o.mode().equals("both")) return both(o);
        try {
            return measure(o);
        } catch (IllegalStateException | OutOfMemoryError e) { // the threads were released; nothing is saved
            throw new Experiment.RunFailed(e.getMessage() + "; nothing saved");
        }
    }

    /** Refuses a run whose threads would not fit in 80 % of the heap (-Xmx) or of the machine's memory. */
    static void checkHeap(String mode, int threads, int bytes) {
        boolean copies = mode.equals("threadlocal") || mode.equals("both"); // both: threadlocal is the bigger run
        long perThread = ESTIMATE_THREAD_BYTES + (copies ? ESTIMATE_COPY_OVERHEAD_BYTES + align(bytes) : 0);
        long estimate = threads * perThread;
        long heap = Runtime.getRuntime().maxMemory();
        long ram = physicalMemory();
        String what = String.format(Locale.ROOT, "%,d threads x %,d B (a parked virtual thread%s) = about %,d MB of"
                        + " heap", threads, perThread,
                copies ? String.format(Locale.ROOT, " and its own copy of the %,d B value", bytes) : "", estimate >> 20);
        if (estimate > 0.8 * heap) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "--threads %,d refused: %s, more than 80%% of"
                            + " this JVM's %,d MB heap (-Xmx, set in //RUNTIME_OPTIONS); use fewer threads or a smaller"
                            + " --value-bytes", threads, what, heap >> 20));
        }
        if (ram > 0 && estimate > 0.8 * ram) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "--threads %,d refused: %s, more than 80%% of"
                    + " this machine's %,d MB of memory; use fewer threads", threads, what, ram >> 20));
        }
    }

    static long align(long bytes) {
        return (16 + bytes + 7) / 8 * 8; // an array's header and padding to 8 bytes
    }

    static long physicalMemory() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getTotalMemorySize();
        }
        return -1;
    }

    // ---- both modes, each in a JVM of its own -------------------------------------------------------------------

    /**
     * The three modes, each in a fresh JVM: classes, the JIT's data and the carrier pool of a first run would be
     * charged to the second. Each reads the heap after full GCs, before the threads start and while all N are
     * parked, after warm-up rounds of the same mode; each mode is judged over the control.
     */
    static Backpressure.Scoped both(Options o) {
        Map<String, Backpressure.HeapRun> runs = new LinkedHashMap<>();
        for (String mode : List.of("threadlocal", "scopedvalue", "none")) {
            Protocol.progress(mode + ": in a JVM of its own");
            try {
                runs.put(mode, ChildRun.result(Backpressure.HeapRun.class, "S26_ScopedValues.java", "--mode", mode,
                        "--threads", String.valueOf(o.threads()), "--value-bytes", String.valueOf(o.valueBytes())));
            } catch (IllegalStateException e) { // also CancellationException: the child was killed
                Cli.exit("S26", "the " + mode + " run failed: " + e.getMessage().lines().findFirst().orElse(""));
            }
        }
        Backpressure.HeapRun tl = runs.get("threadlocal"), sv = runs.get("scopedvalue"), none = runs.get("none");
        double ratio = sv.heapUsedMb() / tl.heapUsedMb();
        long copyBytes = tl.bytesPerThread() - none.bytesPerThread(), bindingBytes = sv.bytesPerThread()
                - none.bytesPerThread();
        long copyBound = align(o.valueBytes()) + 16; // the table and its holder: each copy is at least this
        double valueRatio = copyBytes > 0 ? bindingBytes / (double) copyBytes : Double.NaN;
        System.out.printf(Locale.ROOT, "%,d virtual threads alive, value %,d B, each mode in its own JVM:%n",
                o.threads(), o.valueBytes());
        System.out.printf(Locale.ROOT, "  threadlocal  %,9.1f MB of heap, %,6d B per thread%n", tl.heapUsedMb(),
                tl.bytesPerThread());
        System.out.printf(Locale.ROOT, "  scopedvalue  %,9.1f MB of heap, %,6d B per thread  (%.2f x the ThreadLocal"
                + " heap)%n", sv.heapUsedMb(), sv.bytesPerThread(), ratio);
        System.out.printf(Locale.ROOT, "  none         %,9.1f MB of heap, %,6d B per thread  (the control: the parked"
                + " thread itself)%n", none.heapUsedMb(), none.bytesPerThread());
        System.out.printf(Locale.ROOT, "  over the control: each ThreadLocal copy %,d B (%.2f x its own %,d B: the"
                        + " table and its holder; the rest is the thread's ThreadLocalMap), each ScopedValue binding"
                        + " %,d B (%.2f x the copy)%n", copyBytes, copyBytes / (double) copyBound, copyBound,
                bindingBytes, valueRatio);
        return new Backpressure.Scoped(o.threads(), o.valueBytes(), tl.heap(), sv.heap(), none.heap(),
                round(ratio, 4), copyBytes, bindingBytes, round(valueRatio, 4), copyBound, runs,
                System.getProperty("java.version"));
    }

    // ---- one mode in this JVM -----------------------------------------------------------------------------------

    static Backpressure.HeapRun measure(Options o) throws InterruptedException {
        long deadline = System.nanoTime() + ParkedThreads.BUDGET.toNanos();
        valueBytes = o.valueBytes();
        Formatter shared = Formatter.build(o.valueBytes()); // scopedvalue: the one copy (built before the baseline)
        Runnable task = task(o.mode(), shared);

        // Enough rounds for the park path to reach C2 (until then its frames are interpreted or C1, and a parked
        // thread's stack chunk is up to twice the size), then a pause for the compilations still queued.
        int warmSize = 10_000, warmRounds = 10;
        Protocol.progress(String.format(Locale.ROOT, "warm-up: %d x %,d %s threads", warmRounds, warmSize, o.mode()));
        for (int r = 0; r < warmRounds; r++) releaseAndJoin(startAndPark(task, new Thread[warmSize], deadline), deadline);
        Thread.sleep(500);

        Thread[] threads = new Thread[o.threads()]; // allocated before the baseline: not the threads' cost
        Protocol.progress("baseline: full GCs");
        long before = settledHeap();
        ParkedThreads.Round round = null;
        long after;
        try {
            round = startAndPark(task, threads, deadline);
            Protocol.progress(String.format(Locale.ROOT, "all %,d parked: full GCs, then the heap", o.threads()));
            after = settledHeap();
            checkFailure("while they were parked");
        } finally {
            if (round != null) round.release().countDown(); // whatever happened, let them end
        }
        double releaseSeconds = releaseAndJoin(round, deadline);

        long perThread = Math.round((after - before) / (double) o.threads());
        double heapMb = (after - before) / 1e6;
        System.out.printf(Locale.ROOT, "%s: %,d virtual threads started and parked in %.3f s; heap %,.1f -> %,.1f MB:"
                        + " %,.1f MB for the threads, %,d B per thread; released and joined in %.3f s%n", o.mode(),
                o.threads(), round.startSeconds(), before / 1e6, after / 1e6, heapMb, perThread, releaseSeconds);
        return new Backpressure.HeapRun(o.mode(), o.threads(), o.valueBytes(), round(heapMb, 3), perThread, before,
                after, round(round.startSeconds(), 4), Runtime.getRuntime().maxMemory() >> 20,
                ManagementFactory.getThreadMXBean().getThreadCount(), System.getProperty("java.version"));
    }

    static double round(double v, int decimals) {
        double f = Math.pow(10, decimals);
        return Math.round(v * f) / f;
    }
}

/*
 * How to run:
 *   tools/jbang scoped-values                                    (both modes, 100,000 threads, each in its own JVM)
 *   UNPINNED_PROFILE=full tools/jbang scoped-values              (1,000,000 threads: ~2 GB of ThreadLocal copies)
 *   tools/jbang scoped-values --mode threadlocal --threads 1000000 --value-bytes 4096   (refused: over the heap)
 *   tools/jbang scoped-values --jdk 21                           (refused: ScopedValue is final since JDK 25)
 *
 * What you should see: over the control, a ThreadLocal copy a little over the value's size per thread, a
 * ScopedValue binding a small fraction of it; a run over the heap refused in one line. Reference runs:
 * data/reference-runs/snippets/S26-scoped-values.md.
 */
