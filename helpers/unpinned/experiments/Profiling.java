//SOURCES ../running/AsyncProfiler.java
//SOURCES ../running/ChildRun.java
//SOURCES ../core/Expectations.java
//SOURCES ../core/Figure.java
//SOURCES ../core/Profile.java
//SOURCES ../core/Protocol.java
//SOURCES ../core/Results.java
package unpinned.experiments;

import unpinned.core.Expectations;
import unpinned.core.Expectations.Line;
import unpinned.core.Figure;
import unpinned.core.Profile;
import unpinned.core.Protocol;
import unpinned.core.Results;
import unpinned.running.AsyncProfiler;
import unpinned.running.ChildRun;

import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Chapter 10's profiles, as snippet S34 ({@code profiling}) records and reads them: the stacks a profiler sampled
 * (async-profiler's collapsed text, or a JFR recording's samples), what they show of a virtual thread (how many
 * reach its {@code run()}, where the others are cut, which thread names they carry), and the typed results the
 * notebook reads. Needs ChildRun.java, Results.java, Profile.java and what they need alongside.
 */
public final class Profiling {
    private Profiling() {}

    /** The result S34 saves under this id. */
    public static final String ID = "s34-profiling";
    /** The pool server's threads: Tomcat's default, as chapter 04's CPU endpoint uses. */
    public static final int POOL = 200;

    // ---- stacks, as each profiler writes them ----------------------------------------------------------------

    /**
     * One stack a profiler sampled {@code count} times: its frames from the thread's root to the leaf (Java frames
     * as {@code package.Class.method}, native and kernel frames as the profiler names them), on a thread with
     * {@code thread}'s name ("" when the profiler named none), {@code virtual} when the profiler said the thread
     * was a virtual one.
     */
    public record Stack(String thread, boolean virtual, List<String> frames, long count) {
        public Stack {
            frames = List.copyOf(frames);
        }

        /** Whether a frame of this stack is {@code frame} (a Java frame's full name, or a native name). */
        public boolean has(String frame) {
            return frames.contains(frame);
        }
    }

    private static final Pattern THREAD_FRAME = Pattern.compile("^\\[(.*?)(?: tid=\\d+)?]$");
    private static final Pattern JAVA_FRAME = Pattern.compile("^[\\w$]+(/[\\w$.]+)+\\.[\\w$<>]+$");

    /**
     * async-profiler's collapsed output: one line per distinct stack, its frames root first separated by ';', then
     * a space and its count. With the {@code threads} option the first frame is the thread, {@code [name tid=N]}.
     * Java frames come as {@code java/lang/Thread.run}: turned into {@code java.lang.Thread.run}.
     */
    public static List<Stack> collapsed(String text) {
        List<Stack> stacks = new ArrayList<>();
        for (String line : text.split("\n")) {
            line = line.strip();
            int space = line.lastIndexOf(' ');
            if (line.isEmpty() || space < 0) continue;
            long count;
            try {
                count = Long.parseLong(line.substring(space + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not async-profiler's collapsed format (frames;...;leaf count): '"
                        + line + "'");
            }
            List<String> frames = new ArrayList<>(List.of(line.substring(0, space).split(";")));
            String thread = "";
            Matcher m = THREAD_FRAME.matcher(frames.get(0));
            if (m.matches()) {
                thread = m.group(1);
                frames.remove(0);
            }
            stacks.add(new Stack(thread, false, frames.stream().map(Profiling::javaName).toList(), count));
        }
        return stacks;
    }

    /** {@code java/lang/Thread.run} as {@code java.lang.Thread.run}; other frames as they are. */
    static String javaName(String frame) {
        return JAVA_FRAME.matcher(frame).matches() ? frame.replace('/', '.') : frame;
    }

    /**
     * The samples of {@code eventType} (jdk.ExecutionSample, jdk.CPUTimeSample) in a JFR recording, each as a
     * stack of one, with the thread JFR attributes it to (its sampledThread or eventThread) and whether that is a
     * virtual thread. A sample without a stack (JFR failed to walk it) keeps an empty frame list.
     */
    public static List<Stack> jfr(Path recording, String eventType) throws IOException {
        List<Stack> stacks = new ArrayList<>();
        try (RecordingFile file = new RecordingFile(recording)) {
            while (file.hasMoreEvents()) {
                RecordedEvent e = file.readEvent();
                if (!e.getEventType().getName().equals(eventType)) continue;
                RecordedThread t = e.hasField("sampledThread") ? e.getThread("sampledThread")
                        : e.hasField("eventThread") ? e.getThread("eventThread") : null;
                List<String> frames = new ArrayList<>();
                if (e.getStackTrace() != null) {
                    for (RecordedFrame f : e.getStackTrace().getFrames()) {
                        frames.add(0, f.getMethod().getType().getName() + "." + f.getMethod().getName());
                    }
                }
                String name = t == null ? "" : t.getJavaName() == null ? "" : t.getJavaName();
                stacks.add(new Stack(name, t != null && t.isVirtual(), frames, 1));
            }
        }
        return stacks;
    }

    // ---- what a profile shows of the workload ----------------------------------------------------------------

    /** A carrier's name: ForkJoinPool-1-worker-2. */
    static final Pattern CARRIER = Pattern.compile("ForkJoinPool-\\d+-worker-\\d+");

    /**
     * What one profiler saw of the requests in one set of windows: {@code workload} samples had a request's own
     * frame on them; {@code reaching} of those reached the request's {@code run()} (the bottom of the virtual
     * thread's own code); the others are cut, most often just above {@code cutAt} (the frame below their
     * lowest request frame, or "(the stack's root)"). {@code framesFull} and {@code framesCut}: the request's own
     * frames a sample showed, median, in the stacks that reached run() and in the cut ones. The threads the
     * samples were attributed to: how many names, of which kind ("carrier", "virtual", "platform"), a few of them.
     */
    public record Seen(String jdk, String profiler, String mode, int depth, long samples, long workload, long reaching,
                       double reachingShare, String cutAt, double framesFull, double framesCut, int threadNames,
                       String threadKind, List<String> someThreads) {
        public Seen {
            someThreads = List.copyOf(someThreads);
        }

        /** "async-profiler cpu" or "JFR jdk.ExecutionSample": the profiler and its mode, as tables show them. */
        public String label() {
            return profiler + " " + mode;
        }
    }

    /**
     * Reads {@code stacks} for the requests: a sample belongs to the workload when one of {@code workFrames} is on
     * it; it reaches the request's run() when {@code runFrame} is on it too.
     */
    public static Seen seen(String jdk, String profiler, String mode, int depth, Collection<Stack> stacks,
                            String runFrame, Set<String> workFrames) {
        long samples = 0, workload = 0, reaching = 0;
        Map<String, Long> cutAt = new TreeMap<>();
        List<Double> full = new ArrayList<>(), cut = new ArrayList<>();
        Map<String, Long> threads = new LinkedHashMap<>();
        Set<String> kinds = new LinkedHashSet<>();
        for (Stack s : stacks) {
            samples += s.count();
            int lowest = -1, own = 0;
            for (int i = 0; i < s.frames().size(); i++) {
                String f = s.frames().get(i);
                if (workFrames.contains(f) || f.equals(runFrame)) {
                    if (lowest < 0) lowest = i;
                    own++;
                }
            }
            if (lowest < 0 || s.frames().stream().noneMatch(workFrames::contains)) continue;
            workload += s.count();
            boolean reaches = s.has(runFrame);
            if (reaches) reaching += s.count();
            else cutAt.merge(lowest == 0 ? "(the stack's root)" : s.frames().get(lowest - 1), s.count(), Long::sum);
            for (long c = 0; c < Math.min(s.count(), 10_000); c++) (reaches ? full : cut).add((double) own);
            threads.merge(s.thread(), s.count(), Long::sum);
            kinds.add(s.virtual() ? "virtual" : CARRIER.matcher(s.thread()).matches() ? "carrier"
                    : s.thread().isEmpty() ? "unnamed" : "platform");
        }
        String mostCut = cutAt.entrySet().stream().max(Map.Entry.comparingByValue()).map(Map.Entry::getKey)
                .orElse("");
        return new Seen(jdk, profiler, mode, depth, samples, workload, reaching,
                workload == 0 ? Double.NaN : (double) reaching / workload, mostCut, median(full), median(cut),
                threads.size(), String.join(" and ", kinds), threads.keySet().stream().limit(3).toList());
    }

    /** The share of {@code stacks}' samples with a frame matching {@code pattern} anywhere on them. */
    public static double share(Collection<Stack> stacks, Pattern pattern) {
        long all = 0, hit = 0;
        for (Stack s : stacks) {
            all += s.count();
            if (s.frames().stream().anyMatch(f -> pattern.matcher(f).find())) hit += s.count();
        }
        return all == 0 ? Double.NaN : (double) hit / all;
    }

    /** The distinct thread names in {@code stacks}, with digits as N (200 pool threads are one name). */
    public static Set<String> threadShapes(Collection<Stack> stacks) {
        Set<String> shapes = new LinkedHashSet<>();
        for (Stack s : stacks) if (!s.thread().isEmpty()) shapes.add(s.thread().replaceAll("\\d+", "N"));
        return shapes;
    }

    static double median(List<Double> values) {
        if (values.isEmpty()) return Double.NaN;
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    // ---- S34's child JVMs: windows of a workload, each with a profiler mode on ---------------------------------

    /** The workload a window runs: {@code depth} frames deep, for {@code length}. */
    @FunctionalInterface
    public interface Workload {
        Batch run(int depth, Duration length) throws InterruptedException;
    }

    /** What a window of requests did: how many ended, in how many seconds, with how much of this JVM's CPU. */
    public record Batch(long requests, double seconds, double cpuSeconds) {
        public double throughput() {
            return requests / seconds;
        }

        public double cpuUsPerRequest() {
            return cpuSeconds * 1e6 / requests;
        }
    }

    /** The windows of one child JVM: each run with its profiler mode on, its stacks pooled per mode and depth. */
    public static final class Windows {
        private final String jdk, profiler, runFrame;
        private final Duration interval, length;
        private final Path out;
        private final Workload workload;
        private final Set<String> workFrames;
        private final List<Window> windows = new ArrayList<>();
        private final Map<String, List<Stack>> pooled = new LinkedHashMap<>();
        private String fallback, collapsed, html;

        /**
         * Windows of {@code length} of {@code workload} in this JVM (named {@code jdk}) with {@code profiler}'s
         * modes, each sampling every {@code interval}; a kept profile goes to {@code out}; a sample belongs to the
         * workload by {@code workFrames} and reaches its run() by {@code runFrame} ({@link #seen}).
         */
        public Windows(String jdk, String profiler, Duration interval, Duration length, Path out, Workload workload,
                       String runFrame, Set<String> workFrames) {
            this.jdk = jdk;
            this.profiler = profiler;
            this.interval = interval;
            this.length = length;
            this.out = out;
            this.workload = workload;
            this.runFrame = runFrame;
            this.workFrames = Set.copyOf(workFrames);
        }

        /** What this JVM's windows saw, per mode that sampled and depth: the run S34's child prints. */
        public StacksRun result(List<String> modes, List<Integer> depths) {
            List<Seen> seen = new ArrayList<>();
            for (int d : depths) {
                for (String mode : modes) {
                    if (!mode.equals("none")) seen.add(seen(jdk, profiler, mode, d, pooled.get(mode + "|" + d), runFrame,
                            workFrames));
                }
            }
            return new StacksRun(jdk, profiler, null, fallback, windows, seen, collapsed, html);
        }

        /** One window of requests at {@code depth} with {@code mode} on ("none": nothing sampling). */
        public void run(String mode, int depth, int repetition, boolean keep) throws Exception {
            Protocol.progress(profiler + " " + mode + ", depth " + depth + ", window " + repetition);
            boolean async = profiler.equals("async-profiler") && !mode.equals("none");
            Recording jfr = null;
            if (async) {
                var s = AsyncProfiler.start(mode.split(" ")[0], interval, "threads" + (mode.contains("cstack=vm")
                        ? ",cstack=vm" : ""));
                if (s.fallback() != null) fallback = s.fallback();
            } else if (mode.startsWith("jdk.")) {
                jfr = new Recording();
                if (mode.equals("jdk.CPUTimeSample")) jfr.enable(mode).with("throttle", interval.toMillis() + "ms");
                else jfr.enable(mode).with("period", interval.toMillis() + " ms");
                jfr.start();
            }
            Batch b = workload.run(depth, length);
            windows.add(new Window(jdk, profiler, mode, depth, repetition, b.throughput(), b.cpuUsPerRequest()));
            List<Stack> stacks = pooled.computeIfAbsent(mode + "|" + depth, k -> new ArrayList<>());
            if (async) {
                AsyncProfiler.stop();
                Path tmp = AsyncProfiler.dump("collapsed", Files.createTempFile("s34-", ".collapsed"));
                stacks.addAll(collapsed(Files.readString(tmp)));
                if (keep) {
                    collapsed = Files.move(tmp, out.resolve("deep.collapsed")).toString();
                    html = AsyncProfiler.dump("flamegraph", out.resolve("deep.html")).toString();
                } else {
                    Files.delete(tmp);
                }
            } else if (jfr != null) {
                jfr.stop();
                Path tmp = Files.createTempFile("s34-", ".jfr");
                try {
                    jfr.dump(tmp);
                    stacks.addAll(jfr(tmp, mode));
                } finally {
                    jfr.close();
                    Files.delete(tmp);
                }
            }
        }
    }

    // ---- a switch, part by part ------------------------------------------------------------------------------

    /** Where a hand-off's CPU went, by the first of these a sample's frames match, from the leaf down. */
    static final Map<String, Pattern> SWITCH_PARTS = switchPatterns();

    static Map<String, Pattern> switchPatterns() {
        Map<String, Pattern> m = new LinkedHashMap<>();
        m.put("kernel: futex", Pattern.compile("futex.*_\\[k]$"));
        m.put("kernel: other", Pattern.compile("_\\[k]$"));
        m.put("freeze", Pattern.compile("[Ff]reeze|Continuation\\.doYield"));
        m.put("thaw", Pattern.compile("[Tt]haw"));
        m.put("JVMTI mount notifications", Pattern.compile("notify_jvmti_vthread|VTMS"));
        m.put("park and unpark (JVM, libc)", Pattern.compile("Unsafe_(Un)?[Pp]ark|Parker::|pthread_cond|futex"));
        m.put("mount and unmount (Java)", Pattern.compile("^java\\.lang\\.VirtualThread\\.|^jdk\\.internal\\.vm\\.Cont"));
        m.put("scheduler (ForkJoinPool)", Pattern.compile("^java\\.util\\.concurrent\\.ForkJoin"));
        m.put("the ping-pong's own code", Pattern.compile("PingPong|LockSupport"));
        return m;
    }

    /** The part of a switch one sample is in: the first frame from the leaf that matches a part; else "other". */
    static String partOf(Stack s) {
        for (int i = s.frames().size() - 1; i >= 0; i--) {
            String f = s.frames().get(i);
            if (f.endsWith("_[k]")) return s.frames().stream().anyMatch(x -> x.contains("futex")) ? "kernel: futex"
                    : "kernel: other";
            for (var e : SWITCH_PARTS.entrySet()) if (e.getValue().matcher(f).find()) return e.getKey();
        }
        return "other";
    }

    /** The share of {@code stacks}' samples in each part of a switch ({@link #partOf}), the parts with any. */
    public static Map<String, Double> switchParts(List<Stack> stacks) {
        Map<String, Long> counts = new LinkedHashMap<>();
        SWITCH_PARTS.keySet().forEach(k -> counts.put(k, 0L));
        counts.put("other", 0L);
        long samples = 0;
        for (Stack s : stacks) {
            counts.merge(partOf(s), s.count(), Long::sum);
            samples += s.count();
        }
        Map<String, Double> shares = new LinkedHashMap<>();
        for (var e : counts.entrySet()) if (e.getValue() > 0) shares.put(e.getKey(), (double) e.getValue() / samples);
        return shares;
    }

    // ---- what S34 saves ---------------------------------------------------------------------------------------

    /**
     * One server of chapter 04's CPU endpoint under load, profiled by async-profiler for one window: its
     * throughput, the CPU its JVM used in the window (at one sample per interval of CPU, the samples to expect), the
     * samples, the share in the endpoint's own work ({@code Work.sumTwice}), the share that reached
     * the thread's run(), the thread names (digits as N) and how many distinct threads, and the files kept.
     */
    public record Endpoint(String server, int users, long n, double throughput, String event, double cpuSeconds,
                           long samples,
                           double inWorkShare, double reachingShare, List<String> threadShapes, int threads,
                           String collapsedFile, String flameGraphFile) {
        public Endpoint {
            threadShapes = List.copyOf(threadShapes);
        }
    }

    /**
     * One measured window of the request workload in the JVM of {@code profiler}: with {@code mode} sampling
     * ("none": before async-profiler was loaded, or between JFR's recordings), its throughput and the JVM's CPU per
     * request.
     */
    public record Window(String jdk, String profiler, String mode, int depth, int repetition, double throughput,
                         double cpuUsPerRequest) {}

    /**
     * One JVM's run of the request workload (S34's child): its windows, what each profiler mode saw per depth, and
     * the collapsed stacks kept for a flame graph (async-profiler's cpu mode at the deepest depth), or why it
     * could not profile.
     */
    public record StacksRun(String jdk, String profiler, String skipped, String fallback, List<Window> windows,
                            List<Seen> seen, String collapsedFile, String flameGraphFile) {
        public StacksRun {
            windows = List.copyOf(windows);
            seen = List.copyOf(seen);
        }
    }

    /**
     * A profiler's cost on the request workload at one depth, from the medians of its windows against those of the
     * same JVM's windows with no profiler: the throughput lost ({@code overhead}, 1 - with / without) and the CPU per
     * request added ({@code cpuOverhead}, with / without - 1), each with the spread of both sets of windows
     * ((max - min) / median, the larger). On a busy machine the throughput moves with what the neighbours take; the
     * CPU per request much less.
     */
    public record Overhead(String jdk, String profiler, int depth, double throughput, double baseline,
                           double overhead, double spread, double cpuUsPerRequest, double baselineCpuUs,
                           double cpuOverhead, double cpuSpread, int windows) {}

    /**
     * The hand-off ping-pong on one kind of thread, profiled with native frames: hand-offs per second and the
     * process's CPU per hand-off (and both before async-profiler was loaded into the JVM), and the share of CPU
     * samples in each part of the switch.
     */
    public record Switching(String kind, int carriers, double handoffsPerSecond, double cpuUsPerHandoff,
                            double unprofiledHandoffsPerSecond, double unprofiledCpuUsPerHandoff, long samples,
                            Map<String, Double> shares, boolean kernelFrames, String collapsedFile,
                            String flameGraphFile) {
        public Switching {
            shares = new LinkedHashMap<>(shares);
        }
    }

    /** What S34 saves: whichever parts ran (the others empty), and why async-profiler could not run, if so. */
    public record Result(String javaVersion, String asyncProfiler, String unavailable, int intervalMs,
                         List<Endpoint> endpoint, List<StacksRun> stacks, List<Overhead> overheads,
                         List<Switching> switches) {
        public Result {
            endpoint = List.copyOf(endpoint);
            stacks = List.copyOf(stacks);
            overheads = List.copyOf(overheads);
            switches = List.copyOf(switches);
        }

        /** Every profiler's view, all JVMs and depths. */
        public List<Seen> seen() {
            return stacks.stream().flatMap(r -> r.seen().stream()).toList();
        }

        /** One view: a JDK ("JDK 25"), a label ("async-profiler cpu"), a depth; null when that did not run. */
        public Seen seen(String jdk, String label, int depth) {
            return seen().stream().filter(s -> s.jdk().equals(jdk) && s.label().equals(label) && s.depth() == depth)
                    .findFirst().orElse(null);
        }

        /** The depths the request workload ran at, shallowest first. */
        public List<Integer> depths() {
            return seen().stream().map(Seen::depth).distinct().sorted().toList();
        }
    }

    // ---- what chapter 10 expects, judged from each run's intervals ----------------------------------------------

    /** The JDK the course runs on, as a view's {@code jdk} names it: "JDK 25". */
    public static String courseJdk() {
        return "JDK " + Runtime.version().feature();
    }

    /**
     * {@code hit} of {@code of} sampled stacks as a share, with its 95 % interval (Wilson's, for a count of samples:
     * a profile is a sample of where the threads were).
     */
    static Figure sampledShare(long hit, long of) {
        double n = of, p = hit / n, z2 = 1.96 * 1.96;
        double centre = (p + z2 / (2 * n)) / (1 + z2 / n);
        double half = Math.sqrt(z2) / (1 + z2 / n) * Math.sqrt(p * (1 - p) / n + z2 / (4 * n * n));
        return new Figure(p, Math.max(0, Math.min(p, centre - half)), Math.min(1, Math.max(p, centre + half)),
                of + " samples (binomial)");
    }

    /** A view's share of request samples that reach the request's run(). */
    static Figure reaching(Seen s) {
        return sampledShare(s.reaching(), s.workload());
    }

    /**
     * A server's samples against the most its JVM's CPU allows (one per interval): the profiler starts just before
     * the CPU clock is read and stops just before it is read again, so a sample either side is the window's edge.
     */
    static Figure samplesPerInterval(Result r, Endpoint e) {
        return Figure.exact(e.samples()).over(Figure.of(e.cpuSeconds() * 1000 / r.intervalMs(), 2,
                "a sample at either edge of the window"));
    }

    static Endpoint server(Result r, String prefix) {
        return r.endpoint().stream().filter(e -> e.server().startsWith(prefix)).findFirst().orElseThrow();
    }

    static String noAsyncProfiler(Result r) {
        return r.unavailable() == null ? null : "async-profiler could not run here (" + r.unavailable() + ")";
    }

    /** Part 1: samples never outnumber the CPU they sample; per-thread timers lose each thread's remainder. */
    public static final Expectations<Result> ENDPOINT_EXPECTED = Expectations.<Result>of("10-endpoint")
            .expect("samples-within-cpu", "the profile with the most samples for its CPU",
                    "its JVM's CPU / the interval", r -> Figure.highest(r.endpoint(), e -> samplesPerInterval(r, e)),
                    Line.atMost(1.0)).limit()
            .untestableWhen(Profiling::noAsyncProfiler)
            .expect("mostly-the-work", "the server with fewer of its samples in Work.sumTwice", "all its samples",
                    r -> Figure.lowest(r.endpoint(), e -> sampledShare(Math.round(e.inWorkShare() * e.samples()),
                            e.samples())), Line.atLeast(0.5))
            .untestableWhen(Profiling::noAsyncProfiler)
            .expect("carriers-lose-less", "the virtual threads' samples per CPU interval", "the pool's",
                    r -> samplesPerInterval(r, server(r, "virtual")).over(samplesPerInterval(r, server(r, "pool"))),
                    Line.atLeast(1.0))
            .because(r -> r.endpoint().size() < 2 ? null : String.format(Locale.ROOT, "per-thread CPU timers (cpu):"
                    + " the pool's %d sampled threads each kept a remainder under %d ms unsampled, the %d carriers"
                    + " theirs", server(r, "pool").threads(), r.intervalMs(), server(r, "virtual").threads()))
            .untestableWhen(r -> noAsyncProfiler(r) != null ? noAsyncProfiler(r)
                    : r.endpoint().get(0).event().equals("cpu") ? null : "async-profiler sampled with "
                    + r.endpoint().get(0).event() + ", whose one timer counts the whole process's CPU")
            .expect("one-timer-same", "with one process timer (itimer), the virtual threads' samples per CPU interval",
                    "the pool's",
                    r -> samplesPerInterval(r, server(r, "virtual")).over(samplesPerInterval(r, server(r, "pool"))),
                    Line.within(0.9, 1.1))
            .untestableWhen(r -> noAsyncProfiler(r) != null ? noAsyncProfiler(r)
                    : r.endpoint().get(0).event().equals("cpu") ? "per-thread timers (cpu) ran here, judged above"
                    : null);

    static Seen deepest(Result r, String label) {
        List<Integer> d = r.depths();
        return d.size() < 2 ? null : r.seen(courseJdk(), label, d.get(d.size() - 1));
    }

    static Seen shallowest(Result r, String label) {
        List<Integer> d = r.depths();
        return d.size() < 2 ? null : r.seen(courseJdk(), label, d.get(0));
    }

    /** JFR's views at the deepest depth, every JDK and sampler. */
    static List<Seen> jfrDeep(Result r) {
        List<Integer> d = r.depths();
        return d.size() < 2 ? List.of() : r.seen().stream().filter(s -> s.profiler().equals("JFR")
                && s.depth() == d.get(d.size() - 1) && s.workload() > 0).toList();
    }

    static final String ASYNC = "async-profiler cpu", JFR_EXECUTION = "JFR jdk.ExecutionSample";

    static String missing(Seen... views) {
        for (Seen s : views) if (s == null || s.workload() == 0) return "this run sampled no such view at two depths";
        return null;
    }

    /**
     * Each profiler mode's CPU per request on the course JDK at the shallowest depth, over its own JVM's windows
     * without a profiler: the means of the windows, with their spread.
     */
    static List<Figure> cpuCosts(Result r) {
        List<Figure> out = new ArrayList<>();
        if (r.depths().isEmpty()) return out;
        int shallow = r.depths().get(0);
        for (StacksRun run : r.stacks()) {
            if (!run.jdk().equals(courseJdk())) continue;
            double[] without = run.windows().stream().filter(w -> w.mode().equals("none") && w.depth() == shallow)
                    .mapToDouble(Window::cpuUsPerRequest).toArray();
            for (String mode : run.windows().stream().map(Window::mode).filter(m -> !m.equals("none")).distinct()
                    .toList()) {
                double[] with = run.windows().stream().filter(w -> w.mode().equals(mode) && w.depth() == shallow)
                        .mapToDouble(Window::cpuUsPerRequest).toArray();
                if (with.length < 2 || without.length < 2) continue; // one window has no spread to judge by
                out.add(Figure.samples(with, "windows").over(Figure.samples(without, "windows")));
            }
        }
        return out;
    }

    /** Part 2: lazy thaw cuts async-profiler's deep stacks; JFR walks the frozen frames; a profiler costs little. */
    public static final Expectations<Result> STACKS_EXPECTED = Expectations.<Result>of("10-stacks")
            .expect("async-cut-when-deep", "async-profiler's share reaching run() at the deepest depth",
                    "its share at the shallowest", r -> reaching(deepest(r, ASYNC)).over(reaching(shallowest(r, ASYNC))),
                    Line.atMost(0.75))
            .untestableWhen(r -> missing(deepest(r, ASYNC), shallowest(r, ASYNC)))
            .expect("jfr-walks-frozen", "the JFR view reaching run() least often at the deepest depth",
                    "every request sample", r -> Figure.lowest(jfrDeep(r), Profiling::reaching), Line.atLeast(0.9))
            .untestableWhen(r -> jfrDeep(r).isEmpty() ? "JFR sampled no requests at two depths in this run" : null)
            .expect("async-sees-less-than-jfr", "async-profiler's share reaching run() at the deepest depth",
                    "JFR's (execution samples)", r -> reaching(deepest(r, ASYNC)).over(reaching(deepest(r,
                            JFR_EXECUTION))), Line.atMost(0.75))
            .untestableWhen(r -> missing(deepest(r, ASYNC), deepest(r, JFR_EXECUTION)))
            .expect("profilers-cost-little", "the costliest profiler's CPU per request at the shallowest depth",
                    "its JVM's windows without one", r -> Figure.highest(cpuCosts(r), f -> f), Line.atMost(1.1))
            .untestableWhen(r -> cpuCosts(r).isEmpty() ? "no profiler ran two windows beside two without it" : null);

    static Switching switching(Result r, String kind) {
        return r.switches().stream().filter(s -> s.kind().equals(kind)).findFirst().orElse(null);
    }

    static String noPingPong(Result r) {
        return noAsyncProfiler(r) != null ? noAsyncProfiler(r)
                : switching(r, "virtual") == null || switching(r, "platform") == null ? "the ping-pong did not run"
                : null;
    }

    /** Part 3: a virtual hand-off costs a fraction of a platform one; a loaded agent adds to every switch. */
    public static final Expectations<Result> SWITCHES_EXPECTED = Expectations.<Result>of("10-switches")
            .expect("virtual-handoff-cheaper", "CPU per virtual-thread hand-off, before async-profiler was loaded",
                    "a platform thread's", r -> Figure.single(switching(r, "virtual").unprofiledCpuUsPerHandoff())
                            .over(Figure.single(switching(r, "platform").unprofiledCpuUsPerHandoff())),
                    Line.atMost(0.5))
            .untestableWhen(Profiling::noPingPong)
            .expect("agent-adds-to-a-switch", "CPU per virtual-thread hand-off with async-profiler sampling",
                    "before it was loaded", r -> Figure.single(switching(r, "virtual").cpuUsPerHandoff())
                            .over(Figure.single(switching(r, "virtual").unprofiledCpuUsPerHandoff())),
                    Line.atLeast(1.0))
            .untestableWhen(Profiling::noPingPong);

    /**
     * The medians of each (JDK, profiler mode, depth)'s windows against the windows with no profiler that the same
     * JVM ran at that depth.
     */
    public static List<Overhead> overheads(List<Window> windows) {
        List<Overhead> rows = new ArrayList<>();
        Map<String, List<Window>> groups = new LinkedHashMap<>();
        for (Window w : windows) {
            groups.computeIfAbsent(w.jdk() + "|" + w.profiler() + "|" + w.mode() + "|" + w.depth(),
                    k -> new ArrayList<>()).add(w);
        }
        for (List<Window> group : groups.values()) {
            Window first = group.get(0);
            if (first.mode().equals("none")) continue;
            List<Window> base = groups.getOrDefault(first.jdk() + "|" + first.profiler() + "|none|" + first.depth(),
                    List.of());
            if (base.isEmpty() || group.size() < 2) continue; // one window has no spread to judge by
            double[] with = group.stream().mapToDouble(Window::throughput).toArray();
            double[] without = base.stream().mapToDouble(Window::throughput).toArray();
            double[] cpuWith = group.stream().mapToDouble(Window::cpuUsPerRequest).toArray();
            double[] cpuWithout = base.stream().mapToDouble(Window::cpuUsPerRequest).toArray();
            double m = median(with), b = median(without), c = median(cpuWith), cb = median(cpuWithout);
            rows.add(new Overhead(first.jdk(), first.profiler() + " " + first.mode(), first.depth(), m, b, 1 - m / b,
                    Math.max(spread(with), spread(without)), c, cb, c / cb - 1,
                    Math.max(spread(cpuWith), spread(cpuWithout)), group.size()));
        }
        return rows;
    }

    static double median(double[] v) {
        List<Double> l = new ArrayList<>();
        for (double d : v) l.add(d);
        return median(l);
    }

    /** (max - min) / median: how far apart the windows of one set were. */
    static double spread(double[] v) {
        double max = Double.NEGATIVE_INFINITY, min = Double.POSITIVE_INFINITY;
        for (double d : v) {
            max = Math.max(max, d);
            min = Math.min(min, d);
        }
        return v.length == 0 ? Double.NaN : (max - min) / median(v);
    }

    private static final DateTimeFormatter STAMP =
            DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS").withZone(ZoneOffset.UTC);

    /**
     * Moves a profile file {@code tmp} beside S34's results: {@code results/s34-profiling/<stamp>-<profile>-<label>
     * <ext>}, atomically (a full disk leaves no torn file); returns where it went.
     */
    public static Path keep(Path tmp, String label, String ext) throws IOException {
        Path folder = Results.dir().resolve(ID);
        Files.createDirectories(folder);
        for (int attempt = 0; ; attempt++) {
            Path target = folder.resolve(STAMP.format(Instant.now().plusMillis(attempt)) + "-" + Profile.current().id()
                    + "-" + label + ext);
            try {
                return Results.moveAtomically(tmp, target, false);
            } catch (FileAlreadyExistsException e) {
                if (attempt == 100) throw e;
            }
        }
    }

    // ---- the notebook's calls ---------------------------------------------------------------------------------

    /** Runs S34 in its own JVM for {@code part} (endpoint, stacks or switches), with any further options. */
    public static Result run(String part, String... more) {
        List<String> args = new ArrayList<>(List.of("--part", part));
        args.addAll(List.of(more));
        return ChildRun.result(Result.class, "S34_ProfilingVirtualThreads.java", args.toArray(String[]::new));
    }

    /** A share as the page prints it: "47 %". */
    public static String percent(double share) {
        return Double.isNaN(share) ? "-" : String.format(Locale.ROOT, "%.0f %%", 100 * share);
    }
}
