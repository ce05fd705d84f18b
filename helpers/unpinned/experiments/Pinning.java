//SOURCES ../workloads/Carriers.java
//SOURCES ../running/ChildRun.java
//SOURCES ../core/Cli.java
//SOURCES ../core/Expectations.java
//SOURCES ../core/Experiment.java
//SOURCES ../core/Figure.java
//SOURCES ../running/Jdks.java
//SOURCES ../running/Jfr.java
//SOURCES ../core/Json.java
//SOURCES ../core/Measurement.java
//SOURCES ../core/Protocol.java
//SOURCES ../core/RunGuard.java
package unpinned.experiments;

import unpinned.workloads.Carriers;

import unpinned.core.Cli;
import unpinned.core.Experiment;
import unpinned.core.Expectations;
import unpinned.core.Expectations.Line;
import unpinned.core.Figure;
import unpinned.core.Json;
import unpinned.core.Measurement;
import unpinned.core.Protocol;
import unpinned.core.RunGuard;
import unpinned.running.ChildRun;
import unpinned.running.Jdks;
import unpinned.running.Jfr;

import com.google.gson.annotations.SerializedName;
import jdk.jfr.Recording;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToDoubleFunction;

/**
 * Chapter 05's pinning experiments, their shared pieces: the class whose static initializer blocks (S13, S17), the
 * one-carrier scheduler and its checks, the verdict and report line of one case (S17, S18, S31), the typed results they
 * save, and the wrappers the notebook calls on each JDK.
 * Needs Carriers.java, ChildRun.java, Cli.java, Experiment.java, Jdks.java, Jfr.java, Json.java, Measurement.java,
 * Profile.java, Protocol.java, Results.java and RunGuard.java alongside.
 */
public final class Pinning {
    public static final String PARALLELISM = "jdk.virtualThreadScheduler.parallelism";
    public static final String MAX_POOL_SIZE = "jdk.virtualThreadScheduler.maxPoolSize";
    public static final String MIN_RUNNABLE = "jdk.virtualThreadScheduler.minRunnable";
    public static final String MONITOR_ENTER = "jdk.JavaMonitorEnter";

    /** How long SlowInit's static initializer sleeps: public, as each copy of SlowInit is in a loader of its own. */
    public static volatile long classInitSleepMs;

    private Pinning() {}

    /** Blocks in its static initializer; defined afresh, by a class loader of its own, for every thread. */
    public static final class SlowInit {
        static {
            try {
                Thread.sleep(Pinning.classInitSleepMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        private SlowInit() {}
    }

    /**
     * Defines one class from its bytes, so each thread initializes a class of its own. (A hidden class would do too,
     * but JFR's tools hide hidden frames: `jfr view pinned-threads` would then blame the caller, not {@code <clinit>}.)
     */
    public static final class OneClassLoader extends ClassLoader {
        public OneClassLoader(ClassLoader parent) {
            super(parent);
        }

        /** Defines {@code name} from {@code bytes} and initializes it here, in the calling thread. */
        public void defineAndInitialize(String name, byte[] bytes) throws ClassNotFoundException {
            defineClass(name, bytes, 0, bytes.length);
            Class.forName(name, true, this); // finds the class just defined; runs its static initializer
        }
    }

    /** SlowInit's class file, to define a fresh copy of it per thread ({@link #initializeFreshCopy}). */
    public static byte[] slowInitBytes() {
        String file = "Pinning$SlowInit.class";
        try (InputStream in = SlowInit.class.getResourceAsStream(file)) {
            if (in == null) throw new IllegalStateException("cannot find " + file + " next to the helpers' classes");
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
    }

    /** Defines a new copy of SlowInit from {@code bytes} and initializes it: it sleeps classInitSleepMs. */
    public static void initializeFreshCopy(byte[] bytes) throws ClassNotFoundException {
        new OneClassLoader(Pinning.class.getClassLoader()).defineAndInitialize(SlowInit.class.getName(), bytes);
    }

    /** One carrier, before anything creates a virtual thread: the JDK reads these once, at the first one. */
    public static void oneCarrier() {
        System.setProperty(PARALLELISM, "1");
        System.setProperty(MAX_POOL_SIZE, "1"); // JDK 21: no extra carrier for Object.wait's managed blocking
        System.setProperty(MIN_RUNNABLE, "1");
    }

    /** The scheduler (created now, by the first virtual thread), checked to have one carrier; JFR checked too. */
    public static ForkJoinPool checkedPool() throws InterruptedException {
        ForkJoinPool pool = Carriers.pool();
        if (pool.getParallelism() != 1) {
            throw new IllegalStateException(String.format(Locale.ROOT, "the virtual-thread scheduler has %d carriers,"
                    + " not 1: a virtual thread was created before main set %s", pool.getParallelism(), PARALLELISM));
        }
        if (!Jfr.eventTypes().containsKey(Jfr.PINNED)) {
            throw new IllegalStateException("this JDK's JFR has no " + Jfr.PINNED + " event");
        }
        return pool;
    }

    public static IllegalStateException tooManyCarriers(int seen, String when) {
        return new IllegalStateException(String.format(Locale.ROOT, "the scheduler ran %d carrier threads during %s,"
                + " not 1 (%s was set to 1): the bounds assume one carrier", seen, when, MAX_POOL_SIZE));
    }

    /**
     * Passes everything on to {@code out} and counts the lines that start a pinned-thread trace of JDK 21-23
     * (jdk.tracePinnedThreads): "VirtualThread[#29,s17-...]/runnable@ForkJoinPool-1-worker-1 reason:MONITOR".
     */
    public static final class TraceCounter extends OutputStream {
        private final PrintStream out;
        private final ByteArrayOutputStream line = new ByteArrayOutputStream();
        private final Map<String, Long> reasons = new TreeMap<>();

        public TraceCounter(PrintStream out) {
            this.out = out;
        }

        @Override
        public synchronized void write(int b) {
            out.write(b);
            if (b == '\n') {
                String text = line.toString(StandardCharsets.UTF_8);
                int at = text.lastIndexOf(" reason:");
                if (text.startsWith("VirtualThread[") && at > 0) {
                    reasons.merge(text.substring(at + " reason:".length()).strip(), 1L, Long::sum);
                }
                line.reset();
            } else if (line.size() < 4_096) {
                line.write(b);
            }
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            for (int i = off; i < off + len; i++) write(b[i]);
        }

        @Override
        public void flush() {
            out.flush();
        }

        /** The traces printed, by the reason in their first line (MONITOR, NATIVE, ...). */
        public synchronized Map<String, Long> reasons() {
            return new TreeMap<>(reasons);
        }
    }

    /**
     * What one case measured outside JFR: the time from the first start to the last end; the longest wait of any
     * thread for the carrier and (contended-monitor) at the monitor; the most carriers seen; the pinned traces
     * printed by reason (S17; null in S18); the comparator calls and sleeps in upcalls (S18; null in S17).
     */
    public record Timed(String name, double elapsedMs, double carrierWaitMs, double monitorWaitMs,
                        int carrierThreadsMax, Map<String, Long> traces, Integer upcalls, Integer sleeps) {
        int traceBlocks() {
            return traces == null ? 0 : (int) traces.values().stream().mapToLong(Long::longValue).sum();
        }

        /** This timing with the longest wait at the monitor (S17), or the upcalls and sleeps in them (S18). */
        public Timed with(double monitorWaitMs, Integer upcalls, Integer sleeps) {
            return new Timed(name, elapsedMs, carrierWaitMs, monitorWaitMs, carrierThreadsMax, traces, upcalls, sleeps);
        }
    }

    /** One case's verdict and figures, as saved: its elapsed time against the sleep, a time it can't beat. */
    public record Case(@SerializedName("case") String name, String operation, double elapsedMs, double ratioToSleep,
                       long unmountBoundMs, long pinBoundMs, long pinnedEvents, double pinnedMs,
                       Map<String, Long> reasons, Map<String, Long> blockingOperations,
                       Map<String, Long> pinnedCarriers, double carrierWaitMsMax, Double monitorWaitMsMax,
                       Long monitorEnterEvents, Double monitorEnterMs, int carrierThreadsMax, Integer traceBlocks,
                       Map<String, Long> traceReasons, Integer upcalls, Integer sleepsInUpcalls, boolean pins,
                       String evidence) implements Measurement.Measured {
        @Override
        public List<Measurement> measurements() {
            return List.of(Measurement.of(name + " · elapsed", elapsedMs, "ms")
                    .bound(unmountBoundMs, Measurement.Bound.LOWER_TIME));
        }
    }

    /** What jdk.tracePinnedThreads did (S17). */
    public record Trace(String property, String setBy, boolean supported, int blocks, Map<String, Integer> blocksByCase,
                        String note) {}

    /** One run of S17 or S18 on one JDK: its cases, the events left out, and the .jfr beside it. */
    public record Run(String javaVersion, int feature, int carriers, int parallelismSeen, int threads, long sleepMs,
                      List<Case> cases, long warmUpPinnedEvents, long otherPinnedEvents,
                      Map<String, Long> otherPinnedReasons, boolean pinnedReasonFields, Trace tracePinned,
                      Boolean enableNativeAccessGiven, String recording, String recordingStart, String jfrFile)
            implements Measurement.Measured {
        @Override
        public List<Measurement> measurements() {
            return cases.stream().flatMap(c -> c.measurements().stream()).toList();
        }
    }

    /** One case run by a snippet: its threads started, timed to the last end. */
    @FunctionalInterface
    public interface CaseRun {
        Timed run(String name) throws InterruptedException;
    }

    /** The warm-up a snippet runs in the recording before its cases. */
    @FunctionalInterface
    public interface WarmUp {
        void run() throws InterruptedException;
    }

    /** What the warm-up thread does. */
    @FunctionalInterface
    public interface Blocking {
        void run() throws Exception;
    }

    /** The events of the recording, by group: a case's name (its threads' names), the warm-up, or "other". */
    public record Events(Map<String, Jfr.PinnedTally> pinned, Map<String, double[]> monitorEnters) {
        public Jfr.PinnedTally pinned(String group) {
            return pinned.getOrDefault(group, new Jfr.PinnedTally());
        }

        /** jdk.JavaMonitorEnter events of {@code group}: count, then milliseconds. */
        public double[] monitorEnters(String group) {
            return monitorEnters.getOrDefault(group, new double[2]);
        }
    }

    /**
     * What a run of S17 or S18 does: saves under {@code id}; names its threads {@code prefix}<case>-<i> (the warm-up
     * {@code prefix}warm-up); knows {@code known} cases and runs {@code cases}, {@code n} threads x {@code s} ms each.
     */
    public record Plan(String id, String prefix, List<String> known, List<String> cases, int n, long s) {
        public String warmUpName() {
            return prefix + "warm-up";
        }
    }

    /**
     * Refuses a run that may take more than 10 minutes if every case pinned (cases x threads x sleep-ms): for the
     * snippet's {@code .check(...)}, before anything runs.
     */
    public static void checkWorstCase(int cases, long threads, long sleepMs) {
        long worstMs = cases * threads * sleepMs;
        if (worstMs <= 600_000) return;
        boolean one = cases == 1;
        throw new IllegalArgumentException(String.format(Locale.ROOT, "%d case%s x --threads x --sleep-ms = %d x %,d"
                + " x %,d ms = %,d s if %s pinned; at most 10 minutes (600 s) allowed: use fewer --threads or a"
                + " shorter --sleep-ms%s", cases, one ? "" : "s", cases, threads, sleepMs, (worstMs + 999) / 1_000,
                one ? "it" : "every case", one ? "" : ", or one --case"));
    }

    /** {@code --jdk 21} (or {@code --jdk=21}) in {@code args}: {@code why} as one line, exit code 2 (S18). */
    public static void refuseJdk21(String name, String[] args, String why) {
        for (int i = 0; i < args.length; i++) {
            String a = args[i], option = Jdks.JDK_OPTION;
            String value = a.equals(option) && i + 1 < args.length ? args[i + 1]
                    : a.startsWith(option + "=") ? a.substring(option.length() + 1) : null;
            if (value != null && value.strip().equals(String.valueOf(Jdks.OLD_FEATURE))) Cli.exit(name, why);
        }
    }

    /**
     * Times {@code n} virtual threads doing case {@code name} on the one carrier, to the last end (generous timeout:
     * twice the pinned bound, and a minute, so a case that is stuck fails rather than hangs). With
     * {@code countTraces}, counts the pinned-thread traces the JDK prints meanwhile.
     */
    public static Timed timeCase(String name, Plan p, ForkJoinPool pool, boolean countTraces, Carriers.Task task)
            throws InterruptedException {
        PrintStream real = System.out;
        TraceCounter counter = new TraceCounter(real);
        if (countTraces) System.setOut(new PrintStream(counter, true, real.charset()));
        Carriers.Batch batch;
        try {
            batch = Carriers.timeBatch("case " + name, p.prefix() + name + "-", p.n(),
                    Duration.ofMillis(2 * p.n() * p.s()).plusSeconds(60), pool, task);
        } finally {
            System.out.flush();
            System.setOut(real);
        }
        if (batch.carriersMax() > 1) throw tooManyCarriers(batch.carriersMax(), "case " + name);
        return new Timed(name, batch.elapsedMs(), batch.firstRunMaxMs(), 0, batch.carriersMax(),
                countTraces ? counter.reasons() : null, null, null);
    }

    /**
     * Runs {@code body} in one virtual thread named after the plan's warm-up, before the cases (its events are left
     * out); {@code quiet}: what it prints (a pinned trace on JDK 21-23) is dropped.
     */
    public static void warmUp(Plan p, ForkJoinPool pool, boolean quiet, Blocking body) throws InterruptedException {
        AtomicReference<Throwable> failure = new AtomicReference<>();
        PrintStream real = System.out;
        if (quiet) System.setOut(new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8));
        try {
            Thread t = Thread.ofVirtual().name(p.warmUpName()).start(() -> {
                try {
                    body.run();
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                }
            });
            if (!t.join(Duration.ofSeconds(60))) throw new IllegalStateException("the warm-up thread had not ended");
        } finally {
            System.setOut(real);
        }
        if (failure.get() != null) throw new IllegalStateException("the warm-up failed: " + failure.get());
        if (pool.getPoolSize() > 1) throw tooManyCarriers(pool.getPoolSize(), "the warm-up");
    }

    /** The recording of a run: its events by group, its start, each case's timing, and the .jfr kept for it. */
    public record Recorded(Events events, String start, List<Timed> timed, Path jfr) {}

    /**
     * One JFR recording (threshold 0) around {@code warmUp} and each case in turn: pinned events with their stacks,
     * and jdk.JavaMonitorEnter when {@code monitorEnter}; dumped, read back (each event counted for the group of the
     * virtual thread that recorded it: a case, the warm-up, or "other") and kept in the results folder. Register
     * the .jfr with {@code Experiment.Args.kept}. A failure: "<why>; nothing saved", and no file left.
     */
    public static Recorded record(Plan p, boolean monitorEnter, WarmUp warmUp, CaseRun runCase) {
        if (!jdk.jfr.FlightRecorder.isAvailable()) throw new Experiment.RunFailed(Jfr.UNAVAILABLE);
        List<Recorded> out = new ArrayList<>();
        String failure = Jfr.run(p.id(), tmp -> {
            List<Timed> timed = new ArrayList<>();
            Map.Entry<Events, String> r = record(p, tmp, monitorEnter, warmUp, runCase, timed);
            out.add(new Recorded(r.getKey(), r.getValue(), timed, Jfr.keep(tmp, p.id())));
        });
        if (failure != null) throw new Experiment.RunFailed(failure);
        return out.getFirst();
    }

    private static Map.Entry<Events, String> record(Plan p, Path tmp, boolean monitorEnter, WarmUp warmUp,
                                                    CaseRun runCase, List<Timed> timed)
            throws InterruptedException, IOException {
        String start;
        try (Recording recording = new Recording()) {
            recording.setName(p.id());
            recording.enable(Jfr.PINNED).withThreshold(Duration.ZERO).withStackTrace();
            if (monitorEnter) recording.enable(MONITOR_ENTER).withThreshold(Duration.ZERO).withoutStackTrace();
            Protocol.progress("starting JFR");
            recording.start();
            start = recording.getStartTime().toString();
            try {
                warmUp.run();
                for (int i = 0; i < p.cases().size(); i++) {
                    Protocol.progress(String.format(Locale.ROOT, "case %d/%d: %s, %d x %,d ms", i + 1,
                            p.cases().size(), p.cases().get(i), p.n(), p.s()));
                    timed.add(runCase.run(p.cases().get(i)));
                }
            } finally {
                recording.stop();
            }
            Protocol.progress("dumping and reading the recording");
            recording.dump(tmp);
        }
        Map<String, Jfr.PinnedTally> pins = new LinkedHashMap<>();
        Map<String, double[]> enters = new LinkedHashMap<>();
        Jfr.forEachEvent(tmp, e -> {
            String type = e.getEventType().getName();
            String group = Jfr.threadGroup(e.getThread(), p.prefix(), p.known(), p.warmUpName());
            if (type.equals(Jfr.PINNED)) pins.computeIfAbsent(group, x -> new Jfr.PinnedTally()).add(e);
            if (!type.equals(MONITOR_ENTER)) return;
            double[] m = enters.computeIfAbsent(group, x -> new double[2]);
            m[0]++;
            m[1] += e.getDuration().toNanos() / 1e6;
        });
        return Map.entry(new Events(pins, enters), start);
    }

    /** The run's first lines: what runs on one carrier, and the two bounds (or one, when n is 1). */
    public static void announce(ForkJoinPool pool, Plan p, String operation, String contendedNote) {
        int n = p.n();
        long s = p.s();
        System.out.printf(Locale.ROOT, "%,d virtual thread%s x %,d ms per case on 1 carrier (checked: the scheduler's"
                + " pool has parallelism %d; maxPoolSize 1), Java %s%n", n, n == 1 ? "" : "s", s,
                pool.getParallelism(), Runtime.version());
        if (n == 1) {
            System.out.printf(Locale.ROOT, "bounds: one thread takes ~%,d ms (1 x the sleep) whether it pins or not:"
                    + " only the pinned events can tell (use --threads 2 or more)%n", s);
        } else {
            System.out.printf(Locale.ROOT, "bounds: if the %s unmounts, the %,d overlap: ~%,d ms (1 x the sleep);"
                    + " if it pins, they take turns on the carrier: ~%,d ms (%,d x)%s%n", operation, n, s, n * s, n,
                    contendedNote);
        }
    }

    /**
     * The cases whose time can't tell (everyone waits for one thing that runs off the carrier, S31's init-wait):
     * the longest wait for the carrier does. Pinned, the first waiter holds the one carrier and the others can't start.
     */
    public static final Set<String> CARRIER_WAIT_TELLS = Set.of("init-wait");

    /** What each case does, as saved with it. */
    public static final Map<String, String> OPERATION = Map.ofEntries(Map.entry("init-wait", "a static method"
                    + " call that waits for another thread's static initializer (it sleeps S)"),
            Map.entry("forname-slow-loader", "Class.forName through a class loader whose findClass sleeps S, each"
                    + " thread its own loader"),
            Map.entry("loadclass-slow-loader", "ClassLoader.loadClass called from Java, findClass sleeping S, each"
                    + " thread its own loader"),
            Map.entry("none", "Thread.sleep"),
            Map.entry("synchronized-sleep", "Thread.sleep inside synchronized, each thread its own monitor"),
            Map.entry("contended-monitor", "Thread.sleep inside synchronized, all threads the same monitor"),
            Map.entry("object-wait", "Object.wait(S) inside synchronized, each thread its own lock"),
            Map.entry("reentrant-lock", "Thread.sleep holding a ReentrantLock, each thread its own"),
            Map.entry("class-init", "Thread.sleep in a static initializer, each thread its own class"),
            Map.entry("native-upcall-sleep", "Thread.sleep in a Java comparator that the C library's qsort calls"
                    + " (an FFM upcall inside a downcall), each thread its own sort and upcall stub"));

    /**
     * The run's result: each case judged and reported, the events left out reported, and the run as saved (with
     * S17's trace report when {@code nativeAccess} is null, else S18's native access); {@code note} ends the line
     * saying this JDK's events have no reason fields.
     */
    public static Run result(Plan p, ForkJoinPool pool, Recorded rec, boolean monitorEnter, String traceSetBy,
                             Boolean nativeAccess, String note) {
        boolean reasonFields = Jfr.hasField(Jfr.PINNED, "pinnedReason");
        List<Case> cases = new ArrayList<>();
        for (Timed t : rec.timed()) {
            double[] m = rec.events().monitorEnters(t.name());
            cases.add(judge(t, OPERATION.get(t.name()), p.n(), p.s(), rec.events().pinned(t.name()), reasonFields,
                    monitorEnter ? (Long) (long) m[0] : null, monitorEnter ? (Double) m[1] : null, traceSetBy != null));
        }
        Jfr.PinnedTally warm = rec.events().pinned(p.warmUpName()), other = rec.events().pinned("other");
        reportLeftOut(warm, other, reasonFields, note);
        boolean counted = rec.timed().stream().anyMatch(t -> t.traces() != null); // S17 counts traces; S18, S31 not
        Trace trace = counted ? trace(cases, traceSetBy) : null;
        return new Run(Runtime.version().toString(), Runtime.version().feature(), 1, pool.getParallelism(), p.n(),
                p.s(), cases, warm.events(), other.events(), other.reasons(), reasonFields, trace, nativeAccess,
                "one per run, threshold 0; events counted by the name of the virtual thread that recorded them ("
                        + p.prefix() + "<case>-<i>)", rec.start(), rec.jfr().toString());
    }

    /** Whether --enable-native-access was given to this JVM (S18), said on System.out. */
    public static boolean nativeAccessGiven() {
        boolean given = java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .anyMatch(arg -> arg.startsWith("--enable-native-access"));
        System.out.println("native: the C library's qsort through Linker.nativeLinker().defaultLookup(); "
                + (given ? "--enable-native-access given" : "no --enable-native-access: the JDK warned once"
                + " (WARNING: A restricted method ...); add --enable-native-access=ALL-UNNAMED"));
        return given;
    }

    // ---- jdk.tracePinnedThreads (S17) -----------------------------------------------------------------------------

    public static final String TRACE = "jdk.tracePinnedThreads";

    /**
     * Who set jdk.tracePinnedThreads: the "command line", "--trace-pinned" (which sets it to full now, before the
     * first virtual thread), or null; prints what this JDK does with it.
     */
    public static String traceSetBy(boolean tracePinned) {
        String setBy = System.getProperty(TRACE) != null ? "command line" : tracePinned ? "--trace-pinned" : null;
        if ("--trace-pinned".equals(setBy)) System.setProperty(TRACE, "full");
        if (setBy != null) System.out.println(traceNote(setBy));
        return setBy;
    }

    private static String traceNote(String setBy) {
        int feature = Runtime.version().feature();
        return feature < 24
                ? String.format(Locale.ROOT, "%s=%s (%s, before the first virtual thread): JDK %d prints a stack trace"
                + " on System.out when a virtual thread pins in a park or sleep", TRACE, System.getProperty(TRACE),
                setBy, feature)
                : String.format(Locale.ROOT, "%s=%s (%s): removed in JDK 24, so JDK %d ignores it; the pinned events"
                + " below are how to see pins now", TRACE, System.getProperty(TRACE), setBy, feature);
    }

    private static Trace trace(List<Case> cases, String setBy) {
        int feature = Runtime.version().feature();
        Map<String, Integer> byCase = new LinkedHashMap<>();
        for (Case c : cases) byCase.put(c.name(), c.traceBlocks());
        int blocks = byCase.values().stream().mapToInt(Integer::intValue).sum();
        String note = null;
        if (setBy != null) {
            note = traceNote(setBy);
            System.out.printf(Locale.ROOT, "%s=%s (%s): %d trace%s printed on System.out%s%n", TRACE,
                    System.getProperty(TRACE), setBy, blocks, blocks == 1 ? "" : "s", feature < 24
                            ? " (a stack is printed once per JVM: the second thread at the same place prints none;"
                            + " each class-init thread's class is new, so each prints; Object.wait prints none)"
                            : " (JDK " + feature + " ignores the property)");
        }
        return new Trace(System.getProperty(TRACE), setBy, feature < 24, blocks, byCase, note);
    }

    /**
     * The verdict on one case of {@code n} threads blocking {@code s} ms, and its report line: it pins when its time
     * is nearer n x s than 1 x s, or when it has pinned events. {@code monitorEnters}/{@code monitorEnterMs}: JFR's
     * jdk.JavaMonitorEnter events of its threads (null when not recorded); {@code traced}: report the traces.
     */
    public static Case judge(Timed t, String operation, int n, long s, Jfr.PinnedTally p, boolean reasonFields,
                             Long monitorEnters, Double monitorEnterMs, boolean traced) {
        long pinned = p.events();
        boolean contended = t.name().equals("contended-monitor"), waitTells = CARRIER_WAIT_TELLS.contains(t.name());
        long unmountBound = contended ? n * s : s, pinBound = waitTells ? s : n * s;
        double ratio = t.elapsedMs() / s;
        boolean timeTells = pinBound != unmountBound;
        boolean slow = timeTells && t.elapsedMs() > (unmountBound + pinBound) / 2.0;
        boolean held = waitTells && n > 1 && t.carrierWaitMs() > s / 2.0; // the others could not even start
        boolean pins = slow || held || pinned > 0;
        String evidence = slow && pinned > 0 ? "time and events" : slow ? "time" : pinned > 0 ? "events"
                : timeTells ? "time, and no pinned events" : "no pinned events; the time can't tell";
        if (waitTells) {
            evidence = (held ? "the carrier wait" : "no carrier wait") + (pinned > 0 ? " and events"
                    : ", and no pinned events");
        }
        if (contended && n > 1) { // who waited where: at the monitor (unmounted) or for the carrier (pinned)
            evidence += t.monitorWaitMs() > t.carrierWaitMs() ? "; the others waited at the monitor, not for the"
                    + " carrier" : "; the others waited for the carrier, not at the monitor";
        }
        String bounds = timeTells ? String.format(Locale.ROOT, "bounds: 1 x if it unmounts, %d x if it pins", n)
                : waitTells ? "bound: 1 x either way; a wait for the carrier of ~1 x if it pins, ~0 if not"
                : String.format(Locale.ROOT, "bound: %d x either way", n);
        StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%-20s %d thread%s x %,d ms on 1 carrier:"
                        + " %,.0f ms = %.2f x the sleep (%s); %d pinned event%s", t.name(), n, n == 1 ? "" : "s", s,
                t.elapsedMs(), ratio, bounds, pinned, pinned == 1 ? "" : "s"));
        if (pinned > 0) {
            line.append(reasonFields ? " (reason: " + Jfr.counted(p.reasons()) + "; blocking: "
                    + Jfr.counted(p.blockingOperations()) + ")" : " (no reason fields before JDK 24)");
        }
        line.append(String.format(Locale.ROOT, "; longest wait for the carrier %,.0f ms", t.carrierWaitMs()));
        if (contended) {
            line.append(String.format(Locale.ROOT, ", at the monitor %,.0f ms (%d jdk.JavaMonitorEnter event%s)",
                    t.monitorWaitMs(), monitorEnters, monitorEnters != null && monitorEnters == 1 ? "" : "s"));
        }
        if (traced) {
            line.append(String.format(Locale.ROOT, "; %d trace%s printed%s", t.traceBlocks(),
                    t.traceBlocks() == 1 ? "" : "s", t.traces().isEmpty() ? "" : " (" + Jfr.counted(t.traces()) + ")"));
        }
        if (t.upcalls() != null && t.name().equals("native-upcall-sleep")) {
            line.append(String.format(Locale.ROOT, "; %d upcall%s, %d slept", t.upcalls(), t.upcalls() == 1 ? "" : "s",
                    t.sleeps()));
        }
        line.append(" -> ").append(pins ? "pins" : "unmounts").append(" (").append(evidence).append(')');
        System.out.println(line);
        return new Case(t.name(), operation, round(t.elapsedMs(), 1), round(ratio, 3), unmountBound, pinBound, pinned,
                round(p.ms(), 1), p.reasons(), p.blockingOperations(), p.carriers(), round(t.carrierWaitMs(), 1),
                contended ? round(t.monitorWaitMs(), 1) : null, monitorEnters,
                monitorEnterMs == null ? null : round(monitorEnterMs, 1), t.carrierThreadsMax(),
                t.traces() == null ? null : t.traceBlocks(), t.traces(), t.upcalls(), t.sleeps(), pins, evidence);
    }

    /** "left out: N pinned events of the warm-up thread; M of other threads", and a note when JFR has no reasons. */
    public static void reportLeftOut(Jfr.PinnedTally warm, Jfr.PinnedTally other, boolean reasonFields, String note) {
        System.out.printf(Locale.ROOT, "left out: %d pinned event%s of the warm-up thread; %d of other threads%s%n",
                warm.events(), warm.events() == 1 ? "" : "s", other.events(),
                other.events() == 0 ? "" : " " + (reasonFields ? other.reasons() : "(no reason fields)"));
        if (!reasonFields) {
            System.out.println("(JDK " + Runtime.version().feature() + "'s " + Jfr.PINNED + " has no pinnedReason"
                    + " or blockingOperation: they came in JDK 24" + note + ")");
        }
    }

    static double round(double v, int decimals) {
        double f = Math.pow(10, decimals);
        return Math.round(v * f) / f;
    }

    // ---- for the notebook ---------------------------------------------------------------------------------------

    /** S17's six cases on each JDK, {@code threads} x {@code sleepMs} each: its run per JDK label. */
    public static Map<String, Run> measure(List<Jdks.Jdk> jdks, int threads, int sleepMs) {
        Map<String, Run> runs = new LinkedHashMap<>();
        for (Jdks.Jdk jdk : jdks) {
            runs.put(jdk.label(), Jdks.result(jdk, Run.class, "S17_PinningCases.java", "--case", "all",
                    "--threads", "" + threads, "--sleep-ms", "" + sleepMs));
        }
        RunGuard.requireFresh();
        return runs;
    }

    /** S31's three class-loading cases on each JDK, {@code threads} x {@code sleepMs} each: its run per JDK label. */
    public static Map<String, Run> classLoading(List<Jdks.Jdk> jdks, int threads, int sleepMs) {
        Map<String, Run> runs = new LinkedHashMap<>();
        for (Jdks.Jdk jdk : jdks) {
            runs.put(jdk.label(), Jdks.result(jdk, Run.class, "S31_ClassInitPinning.java", "--case", "all",
                    "--threads", "" + threads, "--sleep-ms", "" + sleepMs));
        }
        RunGuard.requireFresh();
        return runs;
    }

    /** {@code value} of each of {@code cases}, one series per JDK label (NaN where a JDK has no row): for a chart. */
    public static Map<String, double[]> byJdk(List<Row> rows, List<String> jdks, List<String> cases,
                                              ToDoubleFunction<Row> value) {
        Map<String, double[]> series = new LinkedHashMap<>();
        for (String jdk : jdks) {
            series.put(jdk, cases.stream().mapToDouble(name -> rows.stream().filter(r -> r.jdk().equals(jdk)
                    && r.operation().equals(name)).mapToDouble(value).findFirst().orElse(Double.NaN)).toArray());
        }
        return series;
    }

    /** S18's native-frame case on {@code jdk}, or null when it is older than 22 (FFM is final since JDK 22). */
    public static Run nativeFrame(Jdks.Jdk jdk, int threads, int sleepMs) {
        if (jdk.feature() < 22) return null;
        Run run = Jdks.result(jdk, Run.class, "S18_NativeFramePinning.java", "--threads", "" + threads,
                "--sleep-ms", "" + sleepMs);
        RunGuard.requireFresh();
        return run;
    }

    /** S17's synchronized-sleep case with --trace-pinned on a JDK: its run, and the trace lines it printed. */
    public record Traced(Run run, List<String> traceLines) {}

    /** The traced run on the oldest JDK before 24 (where the property exists), or null when none ran. */
    static Traced beforeJdk24(Map<String, Traced> runs) {
        return runs.values().stream().filter(t -> t.run().feature() < 24)
                .min(java.util.Comparator.comparingInt(t -> t.run().feature())).orElse(null);
    }

    /**
     * What chapter 05 expects of -Djdk.tracePinnedThreads (two threads sleeping inside synchronized on one carrier):
     * before JDK 24 a virtual thread that parks or sleeps while pinned prints its stack, once per distinct stack per
     * JVM, so at least one trace; JDK 24 removed the property, so a run on 24+ can't test it.
     */
    public static final Expectations<Map<String, Traced>> TRACE_EXPECTED =
            Expectations.<Map<String, Traced>>of("05-trace-pinned")
                    .expect("jdk-21-prints-the-pinned-stack", "the stacks -Djdk.tracePinnedThreads printed before"
                                    + " JDK 24", "one (once per distinct stack)",
                            runs -> Figure.exact(beforeJdk24(runs).run().tracePinned().blocks()), Line.atLeast(1.0))
                    .claims("sem-13")
                    .untestableWhen(runs -> beforeJdk24(runs) == null ? "no JDK before 24 ran, and JDK 24 removed"
                            + " -Djdk.tracePinnedThreads" : null);

    /** Runs S17's synchronized-sleep, 2 threads x {@code sleepMs}, with --trace-pinned on {@code jdk}. */
    public static Traced traced(Jdks.Jdk jdk, int sleepMs, int maxLines) {
        try (ChildRun child = Jdks.onJdk(jdk, "S17_PinningCases.java", List.of("--case", "synchronized-sleep",
                "--threads", "2", "--sleep-ms", "" + sleepMs, "--trace-pinned"))) {
            Run run = Json.read(child.awaitResult().toString(), Run.class);
            List<String> lines = Files.readAllLines(child.log()).stream().filter(line ->
                    line.startsWith("VirtualThread[") || line.startsWith("    ")).limit(maxLines).toList();
            RunGuard.requireFresh();
            return new Traced(run, lines);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the traced run's log: " + e.getMessage(), e);
        }
    }

    /** One row of chapter 05's table: a case on a JDK, its time against the sleep, and the verdict JEP 491 predicts. */
    public record Row(String jdk, String javaVersion, String operation, int threads, long sleepMs, double elapsedMs,
                      double timeToSleep, double carrierWaitToSleep, double pinnedEvents, String reasons,
                      String verdict, String expected)
            implements Measurement.Measured {
        @Override
        public List<Measurement> measurements() {
            if (Double.isNaN(elapsedMs)) return List.of();
            return List.of(Measurement.of(operation + " · " + jdk, elapsedMs, "ms")
                    .bound(sleepMs, Measurement.Bound.LOWER_TIME));
        }
    }

    /**
     * The prediction (JEP 491): before JDK 24 blocking while holding a monitor pins (loadClass's synchronized block
     * too); class initializers, class loading through the VM and native frames pin on every JDK; a plain sleep and a
     * ReentrantLock never do. Waiting for another thread's initializer pins up to JDK 25; JDK-8369238 (JDK 26) lets
     * it unmount when the wait comes from new, getstatic, putstatic or invokestatic (S31 calls a static method).
     */
    public static String expected(int feature, String operation) {
        return switch (operation) {
            case "none", "reentrant-lock" -> "unmounts";
            case "synchronized-sleep", "object-wait", "contended-monitor", "loadclass-slow-loader" ->
                    feature < 24 ? "pins" : "unmounts";
            case "init-wait" -> feature < 26 ? "pins" : "unmounts";
            default -> "pins"; // class-init, forname-slow-loader, native-upcall-sleep
        };
    }

    /** The rows of {@code run} on {@code jdk} (only {@code onlyCase}'s when not null). */
    public static List<Row> rows(String jdk, Run run, String onlyCase) {
        List<Row> rows = new ArrayList<>();
        if (run == null) return rows;
        for (Case c : run.cases()) {
            if (onlyCase != null && !c.name().equals(onlyCase)) continue;
            String reasons = String.join("; ", c.reasons().keySet());
            rows.add(new Row(jdk, run.javaVersion(), c.name(), run.threads(), run.sleepMs(), c.elapsedMs(),
                    c.ratioToSleep(), round(c.carrierWaitMsMax() / run.sleepMs(), 3), c.pinnedEvents(), reasons.isEmpty() ? "-" : reasons,
                    c.pins() ? "pins" : "unmounts", expected(run.feature(), c.name())));
        }
        return rows;
    }

    /** Of the cases measured (a JDK that can't run a case has no time), those whose verdict JEP 491 predicts. */
    static Figure asPredicted(List<Row> rows) {
        List<Row> measured = rows.stream().filter(r -> !Double.isNaN(r.elapsedMs())).toList();
        long right = measured.stream().filter(r -> r.verdict().equals(r.expected())).count();
        return Figure.exact(right).over(measured.size());
    }

    static String noneMeasured(List<Row> rows) {
        return rows.stream().allMatch(r -> Double.isNaN(r.elapsedMs())) ? "no case could run here" : null;
    }

    /** The JDK release of a row ("21" of "21.0.5"). */
    static int feature(Row r) {
        return Runtime.Version.parse(r.javaVersion()).feature();
    }

    /**
     * The row of {@code operation} measured on the oldest ({@code newest} false) or newest JDK whose release passes
     * {@code jdk}, or null when none measured it.
     */
    static Row measuredOn(List<Row> rows, String operation, java.util.function.IntPredicate jdk, boolean newest) {
        java.util.Comparator<Row> byRelease = java.util.Comparator.comparingInt(Pinning::feature);
        var measured = rows.stream().filter(r -> r.operation().equals(operation) && !Double.isNaN(r.elapsedMs())
                && jdk.test(feature(r)));
        return (newest ? measured.max(byRelease) : measured.min(byRelease)).orElse(null);
    }

    /** A case's time from the first start to the last end, over one sleep: one measurement. */
    static Figure timeToSleep(Row r) {
        return Figure.single(r.elapsedMs() / r.sleepMs());
    }

    static String notMeasured(Row r, String what) {
        return r == null ? what : null;
    }

    static Row synchronizedBefore24(List<Row> rows) {
        return measuredOn(rows, "synchronized-sleep", f -> f < 24, false);
    }

    static Row synchronizedSince24(List<Row> rows) {
        return measuredOn(rows, "synchronized-sleep", f -> f >= 24, true);
    }

    static Row nativeFrame(List<Row> rows) {
        return measuredOn(rows, "native-upcall-sleep", f -> true, true);
    }

    static Row reentrantLock(List<Row> rows) {
        return measuredOn(rows, "reentrant-lock", f -> true, false);
    }

    /** The JDK where two plain sleeps took longest: the claim must hold on every JDK. */
    static Row slowestPlainSleep(List<Row> rows) {
        return rows.stream().filter(r -> r.operation().equals("none") && !Double.isNaN(r.elapsedMs()))
                .max(java.util.Comparator.comparingDouble(Row::elapsedMs)).orElse(null);
    }

    /**
     * What chapter 05 expects of each case on each JDK ({@link #expected}): every measured case pins or unmounts as
     * JEP 491 predicts for its JDK. A pin is told by the time (nearer n sleeps than one), by a wait for the carrier, or
     * by pinned events; a sleep delayed by another process using the cores can look like a pin. Then the sources'
     * pinning claims, each on the JDK it is about, two threads on one carrier: pinned, they take turns (about 2 x one
     * sleep); unmounted, their sleeps overlap (about 1 x). A time wholly between the two is refuted: nothing else this
     * run measures holds a carrier that long.
     */
    public static final Expectations<List<Row>> PINNING_EXPECTED = Expectations.<List<Row>>of("05-pinning")
            .expect("cases-as-jep-491-predicts", "the cases whose verdict is the one JEP 491 predicts for their JDK",
                    "the cases measured", Pinning::asPredicted, Line.atLeast(1.0))
            .untestableWhen(Pinning::noneMeasured)
            .expect("synchronized-pins-before-jdk-24", "two threads sleeping inside synchronized on one carrier, on"
                            + " the oldest JDK before 24 measured (the sources' JDK 21)", "one sleep",
                    rows -> timeToSleep(synchronizedBefore24(rows)), Line.atLeast(1.8).directionFrom(1.2))
            .claims("sem-10")
            .untestableWhen(rows -> notMeasured(synchronizedBefore24(rows), "no JDK before 24 ran synchronized-sleep"))
            .expect("synchronized-unmounts-since-jdk-24", "two threads sleeping inside synchronized on one carrier, on"
                            + " the newest JDK 24 or later measured", "one sleep",
                    rows -> timeToSleep(synchronizedSince24(rows)), Line.atMost(1.2).directionFrom(1.8))
            .claims("jpa-10")
            .because(rows -> synchronizedSince24(rows).pinnedEvents() > 0 ? String.format(Locale.ROOT,
                    "%.0f pinned events on %s", synchronizedSince24(rows).pinnedEvents(),
                    synchronizedSince24(rows).jdk()) : null)
            .untestableWhen(rows -> notMeasured(synchronizedSince24(rows), "no JDK 24 or later ran"
                    + " synchronized-sleep"))
            .expect("plain-sleeps-overlap", "two threads sleeping on one carrier with nothing held, on the JDK where"
                    + " they took longest", "one sleep", rows -> timeToSleep(slowestPlainSleep(rows)),
                    Line.atMost(1.2).directionFrom(1.8))
            .claims("sem-30")
            .untestableWhen(rows -> notMeasured(slowestPlainSleep(rows), "no JDK ran the plain sleep"))
            .expect("native-frame-pins", "two threads sleeping inside a native frame (an FFM upcall) on one carrier,"
                    + " on the newest JDK measured", "one sleep", rows -> timeToSleep(nativeFrame(rows)),
                    Line.atLeast(1.8).directionFrom(1.2))
            .claims("sem-11")
            .untestableWhen(rows -> notMeasured(nativeFrame(rows), "no JDK here could run the FFM upcall (JDK 22+)"))
            .expect("reentrant-lock-unmounts", "two threads sleeping while holding a ReentrantLock on one carrier, on"
                    + " the oldest JDK measured", "one sleep", rows -> timeToSleep(reentrantLock(rows)),
                    Line.atMost(1.2).directionFrom(1.8))
            .claims("sem-12")
            .untestableWhen(rows -> notMeasured(reentrantLock(rows), "no JDK ran the ReentrantLock case"));

    /** The same for class initialization and loading (S31). */
    public static final Expectations<List<Row>> CLASS_LOADING_EXPECTED = Expectations.<List<Row>>of("05-class-loading")
            .expect("cases-as-predicted", "the class-loading cases whose verdict is the one predicted for their JDK",
                    "the cases measured", Pinning::asPredicted, Line.atLeast(1.0))
            .untestableWhen(Pinning::noneMeasured);

    /** A row for a JDK that can't run {@code operation}, saying why. */
    public static Row cannotRun(Jdks.Jdk jdk, String operation, int threads, long sleepMs, String why) {
        return new Row(jdk.label(), jdk.version(), operation, threads, sleepMs, Double.NaN, Double.NaN, Double.NaN,
                Double.NaN, "-", why, "-");
    }
}
