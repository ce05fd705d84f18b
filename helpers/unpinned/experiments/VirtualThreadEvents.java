//SOURCES ../workloads/Carriers.java
//SOURCES ../core/Experiment.java
//SOURCES ../running/Jfr.java
//SOURCES ../running/Processes.java
package unpinned.experiments;

import unpinned.workloads.Carriers;

import unpinned.core.Experiment;
import unpinned.running.Jfr;
import unpinned.running.Processes;

import jdk.jfr.EventSettings;
import jdk.jfr.EventType;
import jdk.jfr.Recording;
import jdk.jfr.ValueDescriptor;
import jdk.jfr.consumer.RecordedClass;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Chapter 04's JFR piece (snippet S13): the recording of virtual-thread events with threshold 0, reading it back
 * (counts per type, per kind of thread and per bucket of time, the pinned events by case and reason, the
 * continuation events), what jcmd Thread.vthread_scheduler says, and the printed report and typed result
 * ({@link Jfr.VirtualThreads}). Needs Jfr.java, Experiment.java, Carriers.java, Protocol.java and what they need.
 */
public final class VirtualThreadEvents {
    private VirtualThreadEvents() {}

    public static final String START = "jdk.VirtualThreadStart", END = "jdk.VirtualThreadEnd",
            PINNED = Jfr.PINNED, SUBMIT_FAILED = "jdk.VirtualThreadSubmitFailed",
            SLEEP = "jdk.ThreadSleep", PARK = "jdk.ThreadPark",
            FREEZE = "jdk.ContinuationFreeze", THAW = "jdk.ContinuationThaw";
    static final List<String> CONTINUATION_EVENTS = List.of(FREEZE, THAW, "jdk.ContinuationFreezeFast",
            "jdk.ContinuationFreezeSlow", "jdk.ContinuationThawFast", "jdk.ContinuationThawSlow");
    /** The events recorded, in the order they are reported; the continuation ones exist on some JDKs only. */
    public static final List<String> EVENTS = Stream.concat(Stream.of(START, END, PINNED, SUBMIT_FAILED, SLEEP,
            PARK), CONTINUATION_EVENTS.stream()).toList();
    /** Events with a duration: recorded from 0 ns instead of their default threshold (20 ms for most). */
    static final Set<String> TIMED = Set.of(PINNED, SLEEP, PARK, FREEZE, THAW);
    /** Always in the time series (zeros included), so a chart has the same lines on every JDK. */
    static final List<String> MAIN_SERIES = List.of(START, END, PINNED, SLEEP + "/virtual", PARK + "/carrier");
    public static final String CASE_CLINIT = "class initializer", CASE_SYNCHRONIZED = "synchronized";
    static final Duration JCMD_TIMEOUT = Duration.ofSeconds(30);
    /** Pinned events listed one by one in the result (all are counted). */
    static final int PINNED_LISTED = 20;
    /** The time series has at most this many buckets: 50 ms each, doubled until they fit. */
    static final int MAX_BUCKETS = 200;
    static final long FIRST_BUCKET_MS = 50;

    /** What jcmd Thread.vthread_scheduler said, or why there is no answer. */
    public record SchedulerDump(String text, String note) {}

    /** What the workload did, besides the recording. */
    public record Workload(List<Jfr.VirtualThreads.Phase> phases, SchedulerDump scheduler, long pinsPhaseMs) {}

    /** What a run was asked to do. */
    public record Plan(int threads, int sleeps, int pins, long sleepMs, long pinMs) {}

    /** A recording of {@link #EVENTS}: threshold 0 for timed ones, stack traces for pinned and submit-failed only. */
    public static Recording recording(String name) {
        Recording recording = new Recording();
        recording.setName(name);
        for (String event : EVENTS) { // enabling a name this JDK doesn't have is harmless
            EventSettings s = recording.enable(event);
            if (TIMED.contains(event)) s.withThreshold(Duration.ZERO);
            if (event.equals(PINNED) || event.equals(SUBMIT_FAILED)) s.withStackTrace();
            else s.withoutStackTrace(); // a stack per start, sleep and park would only bloat the file
        }
        return recording;
    }

    /** Prints the plan and which of {@link #EVENTS} this JDK has. */
    public static void announce(Plan p) {
        Map<String, EventType> present = Jfr.eventTypes();
        System.out.printf(Locale.ROOT, "%,d virtual threads x %,d sleeps of %d ms, then %d x 2 pinning threads"
                        + " (%d ms in a class initializer / in synchronized); %d carriers, Java %s%n", p.threads(),
                p.sleeps(), p.sleepMs(), p.pins(), p.pinMs(), Carriers.parallelism(), Runtime.version());
        List<String> absent = EVENTS.stream().filter(n -> !present.containsKey(n)).toList();
        System.out.println("JFR event types on this JDK: " + String.join(", ",
                EVENTS.stream().filter(present::containsKey).map(n -> n.substring(4)).toList())
                + (absent.isEmpty() ? "" : "; absent: " + String.join(", ", absent)));
    }

    /** Releases the sleepers and waits up to a minute for them to end. */
    public static void releaseAndJoin(CountDownLatch release, Thread[] sleepers) throws InterruptedException {
        release.countDown();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (Thread t : sleepers) {
            if (t != null) t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        }
        for (Thread t : sleepers) {
            if (t != null && t.isAlive()) throw new IllegalStateException("a sleeper had not ended 60 s after its"
                    + " release");
        }
    }

    /** Joins {@code threads} by a deadline ({@code seconds} from now), failing for the first still alive. */
    public static void joinAll(List<Thread> threads, long deadlineNanos) throws InterruptedException {
        for (Thread t : threads) {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime())));
            if (t.isAlive()) throw new IllegalStateException(t.getName() + " had not ended in time");
        }
    }

    /** jcmd of this JDK, on this process: the virtual-thread scheduler's state (JDK 24+). */
    public static SchedulerDump schedulerDump(int feature) throws InterruptedException {
        if (feature < 24) {
            return new SchedulerDump(null, "jcmd Thread.vthread_scheduler needs JDK 24+; this is JDK " + feature);
        }
        boolean windows = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", windows ? "jcmd.exe" : "jcmd");
        if (!Files.isExecutable(jcmd)) return new SchedulerDump(null, "no jcmd at " + jcmd + " (a JRE?)");
        Path out = null;
        try {
            out = Files.createTempFile("s13-jcmd-", ".txt");
            // jcmd is a JVM too: options meant for this one would only add "Picked up ..." lines to its answer.
            Processes.Ended p = Processes.of(jcmd.toString(), Long.toString(ProcessHandle.current().pid()),
                    "Thread.vthread_scheduler").mergeErrors().outputTo(out)
                    .unsetEnv("JAVA_TOOL_OPTIONS").unsetEnv("JDK_JAVA_OPTIONS").run(JCMD_TIMEOUT);
            if (p.timedOut()) {
                return new SchedulerDump(null, "jcmd gave no answer in " + JCMD_TIMEOUT.toSeconds() + " s");
            }
            String text = Files.readString(out, StandardCharsets.UTF_8).strip();
            // jcmd prints "<pid>:" on a line of its own, then the answer.
            List<String> lines = text.lines().toList();
            int at = lines.indexOf(ProcessHandle.current().pid() + ":");
            if (at >= 0) text = String.join("\n", lines.subList(at + 1, lines.size())).strip();
            if (p.exit() != 0) {
                return new SchedulerDump(null, "jcmd exited with " + p.exit() + ": " + text.lines().findFirst()
                        .orElse(""));
            }
            return new SchedulerDump(text, null);
        } catch (IOException e) {
            return new SchedulerDump(null, "cannot run " + jcmd + ": " + e.getMessage());
        } finally {
            Jfr.deleteQuietly(out);
        }
    }

    // ---- reading the recording ----------------------------------------------------------------------------------

    static final class Parsed {
        int buckets;
        /** Events per type, as `jfr summary` counts them. */
        final Map<String, Long> counts = new TreeMap<>();
        /** Sleeps and parks per kind of thread: virtual, carrier, timer, other. */
        final Map<String, Map<String, Long>> kinds = new TreeMap<>();
        /** Per series label (an event name, or name/kind for sleeps and parks): counts per bucket. */
        final Map<String, long[]> series = new LinkedHashMap<>();
        final List<Jfr.VirtualThreads.Pin> pins = new ArrayList<>();
        /** Per continuation event type that was emitted at all: who the threads were, one sample. */
        final Map<String, ContinuationFacts> continuation = new LinkedHashMap<>();
    }

    static final class ContinuationFacts {
        long events, virtualEventThread;
        final Set<Long> eventThreads = new HashSet<>();
        final Set<String> carriers = new HashSet<>();
        Map<String, String> sample;
    }

    static Parsed parse(Path file, Instant start, long bucketMs, int buckets) throws IOException {
        Parsed p = new Parsed();
        p.buckets = buckets;
        long bucketNanos = TimeUnit.MILLISECONDS.toNanos(bucketMs);
        record Timed(Instant start, Jfr.VirtualThreads.Pin pin) {}
        List<Timed> pins = new ArrayList<>();
        Jfr.forEachEvent(file, e -> {
            String name = e.getEventType().getName();
            p.counts.merge(name, 1L, Long::sum);
            if (!EVENTS.contains(name)) return;
            String label = name;
            if (name.equals(SLEEP) || name.equals(PARK)) {
                String kind = threadKind(e.getThread());
                p.kinds.computeIfAbsent(name, x -> new TreeMap<>()).merge(kind, 1L, Long::sum);
                label = name + "/" + kind;
            }
            long[] s = p.series.computeIfAbsent(label, x -> new long[buckets]);
            long at = Duration.between(start, e.getStartTime()).toNanos() / bucketNanos;
            s[(int) Math.max(0, Math.min(buckets - 1, at))]++;
            if (name.equals(PINNED)) {
                Jfr.PinnedFields f = Jfr.pinnedFields(e); // pinnedReason, blockingOperation, carrierThread: JDK 24+
                pins.add(new Timed(e.getStartTime(), new Jfr.VirtualThreads.Pin(e.getDuration().toNanos() / 1e6,
                        pinCase(e), f.reason(), f.blockingOperation(), f.carrier())));
            } else if (CONTINUATION_EVENTS.contains(name)) {
                ContinuationFacts f = p.continuation.computeIfAbsent(name, x -> new ContinuationFacts());
                if (f.sample == null) f.sample = sample(e);
                f.events++;
                RecordedThread t = e.getThread();
                if (t != null) {
                    f.eventThreads.add(t.getJavaThreadId());
                    if (t.isVirtual()) f.virtualEventThread++;
                }
                String carrier = Jfr.threadName(e, "carrierThread");
                if (carrier != null) f.carriers.add(carrier);
            }
        });
        pins.sort(Comparator.comparing(Timed::start));
        pins.forEach(t -> p.pins.add(t.pin()));
        return p;
    }

    /**
     * virtual; carrier (a worker of the virtual-thread scheduler: ForkJoinPool-N-worker-M); timer (the thread that
     * wakes sleepers when they are due: ForkJoinPool-N-delayScheduler on JDK 25, VirtualThread-unparker on 21);
     * or other.
     */
    static String threadKind(RecordedThread t) {
        if (t == null) return "other";
        if (t.isVirtual()) return "virtual";
        String name = t.getJavaName() == null ? "" : t.getJavaName();
        if (name.startsWith("ForkJoinPool-") && name.contains("-worker-")) return "carrier";
        if (name.contains("delayScheduler") || name.startsWith("VirtualThread-unparker")) return "timer";
        return "other";
    }

    /** Which of S13's pinning cases an event came from, by its stack trace. */
    static String pinCase(RecordedEvent e) {
        RecordedStackTrace st = e.getStackTrace();
        if (st == null) return "unknown (no stack trace)";
        for (RecordedFrame f : st.getFrames()) {
            if (f.getMethod() == null) continue;
            String method = f.getMethod().getName(), type = f.getMethod().getType().getName();
            if (method.equals("<clinit>") && type.contains("SlowInit")) return CASE_CLINIT;
            if (method.equals("synchronizedSleep")) return CASE_SYNCHRONIZED;
        }
        return "other";
    }

    /** Every field of one event as text (stack traces left out). */
    static Map<String, String> sample(RecordedEvent e) {
        Map<String, String> m = new LinkedHashMap<>();
        for (ValueDescriptor d : e.getFields()) {
            Object v = e.getValue(d.getName());
            if (v instanceof RecordedStackTrace) continue;
            String text = v instanceof RecordedThread t ? Jfr.describe(t) + ", id " + t.getJavaThreadId()
                    : v instanceof RecordedClass c ? c.getName() : String.valueOf(v);
            m.put(d.getName(), text);
        }
        return m;
    }

    // ---- the report ---------------------------------------------------------------------------------------------

    /**
     * Reads the recording {@code tmp} (made from {@code start} to {@code end}), prints the report, keeps the
     * recording beside the result ({@code a.kept}: deleted again if the save fails) and returns the result.
     */
    public static Jfr.VirtualThreads report(Experiment.Args a, String experiment, Plan o, Workload w, Path tmp,
                                            Instant start, Instant end) throws IOException {
        long recordingMs = Duration.between(start, end).toMillis();
        long bucketMs = FIRST_BUCKET_MS;
        while ((recordingMs + bucketMs - 1) / bucketMs > MAX_BUCKETS) bucketMs *= 2;
        int buckets = (int) Math.max(1, (recordingMs + bucketMs - 1) / bucketMs);
        Parsed p = parse(tmp, start, bucketMs, buckets);
        Map<String, EventType> present = Jfr.eventTypes();
        Map<String, Long> events = new LinkedHashMap<>();
        for (String name : EVENTS) if (present.containsKey(name)) events.put(name, p.counts.getOrDefault(name, 0L));
        Map<String, Long> others = new TreeMap<>(p.counts);
        others.keySet().removeAll(EVENTS);

        System.out.printf(Locale.ROOT, "recording: %.2f s; events per type (threshold 0):%n", recordingMs / 1e3);
        for (Map.Entry<String, Long> e : events.entrySet()) {
            Map<String, Long> kinds = p.kinds.get(e.getKey());
            System.out.printf(Locale.ROOT, "  %-30s %,9d%s%n", e.getKey(), e.getValue(),
                    kinds == null ? "" : "  " + kinds);
        }
        if (!others.isEmpty()) System.out.println("  also in the file: " + others);
        long n = o.threads(), k = o.sleeps(), pinners = 2L * o.pins();
        System.out.printf(Locale.ROOT, "expected: %,d starts and ends (%,d sleepers + %,d pinning threads); %,d sleeps"
                + " in virtual threads (%,d x %,d + one each in the pinning threads), each an unmount and a"
                + " mount that JFR shows only as the sleep%n", n + pinners, n, pinners, n * k + pinners, n, k);

        Map<String, Long> byCase = new TreeMap<>(), reasons = new TreeMap<>();
        for (Jfr.VirtualThreads.Pin pin : p.pins) {
            byCase.merge(pin.pinCase(), 1L, Long::sum);
            reasons.merge(pin.reason() == null ? "(no pinnedReason field)" : pin.reason(), 1L, Long::sum);
        }
        printPins(o, w, p.pins, byCase);
        List<Jfr.VirtualThreads.FreezeThaw> freezeThaw = freezeThaw(present, p);
        SchedulerDump d = w.scheduler();
        if (d.text() != null) {
            System.out.println("jcmd Thread.vthread_scheduler while the sleepers waited:");
            d.text().lines().forEach(l -> System.out.println("  " + l));
        } else {
            System.out.println("jcmd Thread.vthread_scheduler skipped: " + d.note());
        }

        List<String> names = new ArrayList<>(MAIN_SERIES);
        p.series.keySet().stream().filter(x -> !names.contains(x)).sorted().forEach(names::add);
        Map<String, double[]> counts = new LinkedHashMap<>();
        for (String name : names) {
            long[] c = p.series.getOrDefault(name, new long[p.buckets]);
            counts.put(name, java.util.Arrays.stream(c).asDoubleStream().toArray());
        }
        List<Jfr.VirtualThreads.Pin> listed = p.pins.subList(0, Math.min(PINNED_LISTED, p.pins.size())).stream()
                .map(x -> new Jfr.VirtualThreads.Pin(Math.round(x.durationMs() * 100) / 100.0, x.pinCase(),
                        x.reason(), x.blockingOperation(), x.carrier())).toList();
        Path jfr = a.kept(Jfr.keep(tmp, experiment)); // deleted again if the result cannot be saved
        return new Jfr.VirtualThreads(Runtime.version().toString(), o.threads(), o.sleeps(), o.pins(), o.sleepMs(),
                o.pinMs(), Carriers.parallelism(), recordingMs, events, p.kinds, others.isEmpty() ? null : others,
                new Jfr.VirtualThreads.Series(bucketMs, names, counts), w.phases(), p.pins.size(), byCase, reasons,
                listed, w.pinsPhaseMs(), freezeThaw, d.text(), d.note(), jfr.toString());
    }

    private static void printPins(Plan o, Workload w, List<Jfr.VirtualThreads.Pin> pins, Map<String, Long> byCase) {
        System.out.printf(Locale.ROOT, "pinned: %d events; %d x %d ms in a class initializer and %d x %d ms in"
                + " synchronized were run%n", pins.size(), o.pins(), o.pinMs(), o.pins(), o.pinMs());
        for (String c : byCase.keySet()) {
            List<Jfr.VirtualThreads.Pin> of = pins.stream().filter(x -> x.pinCase().equals(c)).toList();
            Map<String, Long> why = new TreeMap<>(), blocking = new TreeMap<>(), carriers = new TreeMap<>();
            for (Jfr.VirtualThreads.Pin x : of) {
                if (x.reason() != null) why.merge(x.reason(), 1L, Long::sum);
                if (x.blockingOperation() != null) blocking.merge(x.blockingOperation(), 1L, Long::sum);
                if (x.carrier() != null) carriers.merge(x.carrier(), 1L, Long::sum);
            }
            System.out.printf(Locale.ROOT, "  %-17s %3d x %.1f-%.1f ms; %s%n", c, of.size(),
                    of.stream().mapToDouble(Jfr.VirtualThreads.Pin::durationMs).min().orElse(0),
                    of.stream().mapToDouble(Jfr.VirtualThreads.Pin::durationMs).max().orElse(0),
                    why.isEmpty() && blocking.isEmpty() && carriers.isEmpty()
                            ? "(no pinnedReason, blockingOperation or carrierThread fields before JDK 24)"
                            : "reasons " + why + "; blocking " + blocking + "; carriers " + carriers);
        }
        if (o.pins() > 0) {
            int carriers = Carriers.parallelism();
            long workloadPins = byCase.getOrDefault(CASE_CLINIT, 0L) + byCase.getOrDefault(CASE_SYNCHRONIZED, 0L);
            System.out.printf(Locale.ROOT, "pins phase: %,d ms for %d threads that each block %d ms. A pinned one"
                            + " holds its carrier while it sleeps: %d pinned on %d carriers take at least %,d ms, and"
                            + " threads queued behind them start late (unpinned, all would end after ~%d ms)%n",
                    w.pinsPhaseMs(), 2L * o.pins(), o.pinMs(), workloadPins, carriers,
                    (workloadPins + carriers - 1) / carriers * o.pinMs(), o.pinMs());
        }
        if (byCase.containsKey("other")) {
            System.out.println("  (\"other\": brief pins the workload didn't ask for, seen only because the threshold"
                    + " is 0, e.g. virtual threads waiting while another initializes a JFR class for its first event)");
        }
    }

    private static List<Jfr.VirtualThreads.FreezeThaw> freezeThaw(Map<String, EventType> present, Parsed p) {
        List<Jfr.VirtualThreads.FreezeThaw> out = new ArrayList<>();
        for (String name : CONTINUATION_EVENTS) {
            EventType type = present.get(name);
            if (type == null) continue;
            List<String> fields = type.getFields().stream().map(ValueDescriptor::getName).toList();
            ContinuationFacts f = p.continuation.get(name);
            out.add(f == null ? new Jfr.VirtualThreads.FreezeThaw(name, fields, 0, null, null, null, null)
                    : new Jfr.VirtualThreads.FreezeThaw(name, fields, f.events, f.virtualEventThread,
                    f.eventThreads.size(), f.carriers.size(), f.sample));
            System.out.printf(Locale.ROOT, "%s: fields %s; %s%n", name, fields, f == null
                    ? "enabled, never emitted"
                    : String.format(Locale.ROOT, "%,d emitted, event thread virtual in %,d, %d distinct carriers;"
                    + " e.g. %s", f.events, f.virtualEventThread, f.carriers.size(), f.sample));
        }
        if (!out.isEmpty() && p.continuation.isEmpty()) {
            System.out.println("  (the continuation events exist in the metadata, but HotSpot emits them only when"
                    + " built for continuation performance debugging: mounts and unmounts show as the sleeps and"
                    + " parks above)");
        }
        return out;
    }
}
