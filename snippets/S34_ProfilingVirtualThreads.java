///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//RUNTIME_OPTIONS -XX:+EnableDynamicAgentLoading
//SOURCES ../helpers/unpinned/core/Experiment.java
//SOURCES ../helpers/unpinned/running/Jdks.java
//SOURCES ../helpers/unpinned/running/ProcessStats.java
//SOURCES ../helpers/unpinned/experiments/Profiling.java
//SOURCES ../helpers/unpinned/workloads/SleepServer.java
package unpinned.snippets;

/*
 * S34: what a profiler sees of a virtual thread.
 * The question: requests, each a new virtual thread D frames deep, work, block, work again. Of the samples with a
 * request's frame on them, what share reaches the request's run(), for async-profiler (it walks the carrier's OS
 * stack) and for JFR (jdk.ExecutionSample, JDK 25's jdk.CPUTimeSample: they walk a continuation's frozen frames)?
 * The bound: 1 for every profiler while nothing is frozen; after the block a deep stack is thawed lazily (see
 * handle), so async-profiler's share falls to about the share of the work done after it (one half), JFR's stays 1.
 * The pitfall: "the profiler lost my stack" is lazy thaw, not a bug; and a profiler costs CPU, judged against the
 * same JVM's windows without it. Also: chapter 04's CPU endpoint's flame graphs, and a hand-off ping-pong (freeze
 * and thaw against the kernel's futex). Results go to results/s34-profiling/, flame graphs beside the JSON.
 */

import unpinned.core.Course;
import unpinned.core.Experiment;
import unpinned.core.Json;
import unpinned.core.Protocol;
import unpinned.running.AsyncProfiler;
import unpinned.running.ChildRun;
import unpinned.running.Jdks;
import unpinned.running.ProcessStats;
import unpinned.experiments.Profiling;
import unpinned.experiments.Profiling.Endpoint;
import unpinned.experiments.Profiling.Seen;
import unpinned.experiments.Profiling.Stack;
import unpinned.experiments.Profiling.StacksRun;
import unpinned.experiments.Profiling.Switching;
import unpinned.workloads.SleepServer;
import unpinned.workloads.Work;

import com.google.gson.JsonObject;
import jdk.jfr.FlightRecorder;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

public class S34_ProfilingVirtualThreads {

    // ---- the code under study ---------------------------------------------------------------------------------

    /** One request: its own frames, {@code depth} deep, down to the handler; ends by freeing its place. */
    record Request(int depth, Semaphore inFlight) implements Runnable {
        @Override
        public void run() {
            try {
                Work.use(descend(depth, depth));
            } finally {
                inFlight.release();
            }
        }
    }

    /**
     * One frame of the service's code: sixteen values alive across its call, as a real frame keeps its locals
     * (about 150 bytes a frame). JFR walks up to 64 frames by default (-XX:FlightRecorderOptions:stackdepth).
     */
    static long descend(int depth, long start) {
        long a = start * 31, b = a ^ 7, c = b * 17, d = c + a, e = d ^ b, f = e * 3, g = f + c, h = g ^ d;
        long i = h * 5, j = i + e, k = j ^ f, l = k * 11, m = l + g, n = m ^ h, o = n * 13, p = o + i;
        long below = depth <= 1 ? handle(start) : descend(depth - 1, start + 1);
        return below ^ a ^ b ^ c ^ d ^ e ^ f ^ g ^ h ^ i ^ j ^ k ^ l ^ m ^ n ^ o ^ p;
    }

    /** Hash steps before and after the block: about 0.1 ms of CPU each. */
    static final long WORK = 80_000;

    /**
     * The handler: work, a blocking call (the virtual thread unmounts: its frames are frozen), more work. On the
     * resume the JVM thaws all of a small stack (under 500 words, about 4 KB) but only the top frame of a bigger
     * one, with a return barrier under it that thaws the next on return (JDK 21 and 25: continuationFreezeThaw.cpp,
     * Thaw::thaw_fast, threshold = 500): a profiler that walks the carrier's stack sees only the thawed frames.
     */
    static long handle(long start) {
        long h = Work.hash(start, WORK);
        Thread.yield(); // any blocking call unmounts the same way; yielding keeps the run CPU-bound
        return Work.hash(h, WORK);
    }

    /** Two threads hand a turn back and forth: each hand-off parks one and unparks the other. */
    static final class PingPong {
        volatile Thread a, b;
        volatile boolean aToMove = true, stop;
        final AtomicLong handoffs = new AtomicLong();

        void play(boolean isA) {
            while (!stop) {
                while (aToMove != isA && !stop) LockSupport.park(this);
                aToMove = !isA;
                handoffs.incrementAndGet();
                LockSupport.unpark(isA ? b : a);
            }
        }
    }

    // ---- the measurement --------------------------------------------------------------------------------------

    static final String SNIPPET = "S34_ProfilingVirtualThreads.java";
    static final List<String> PARTS = List.of("endpoint", "stacks", "switches");
    static final String CHILD = "--child";
    /** The request workload's frames: its run(), and the frames only a request runs. */
    static final String RUN_FRAME = S34_ProfilingVirtualThreads.Request.class.getName() + ".run";
    static final Set<String> WORK_FRAMES = Set.of(S34_ProfilingVirtualThreads.class.getName() + ".descend",
            S34_ProfilingVirtualThreads.class.getName() + ".handle");
    /** Requests in flight at once: enough to keep every carrier busy while some are between steps. */
    static final int REQUESTS_IN_FLIGHT = 8;

    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals(CHILD)) {
            child(Arrays.copyOfRange(args, 1, args.length));
            return;
        }
        Experiment.named("S34", "what each profiler sees of a virtual thread", Profiling.ID)
                .someOf("--part", PARTS, "endpoint: flame graphs of chapter 04's CPU endpoint, pool and virtual;"
                        + " stacks: what each profiler sees, and what it costs; switches: freeze and thaw")
                .count("--interval-ms", 10, 10, 1, 1_000, "every profiler samples once per this many ms")
                .count("--users", 100, 400, 1, 10_000, "endpoint: concurrent users (connections)")
                .count("--n", 2_000_000, 10_000_000, 1, 10_000_000_000L, "endpoint: each request adds up 1..N twice")
                .number("--warmup-s", 1.5, 5, 0, 600, "endpoint: seconds of load before the profiled window")
                .number("--duration-s", 2, 10, 1, 600, "endpoint: seconds profiled per server")
                .counts("--depths", List.of(4, 40), List.of(4, 40), 1, 500,
                        "stacks: a request's frames below its run(), shallow and deep (JFR keeps 64 frames)")
                .someOf("--profilers", List.of("async-profiler", "JFR"), "stacks: which profilers, each in its own JVM")
                .count("--repeat", 3, 5, 1, 20, "stacks: windows per profiler mode and depth")
                .number("--window-s", 0.5, 2, 0.1, 60, "stacks: seconds per window")
                .number("--switch-s", 1, 3, 0.2, 60, "switches: seconds profiled per kind of thread")
                .notes("async-profiler comes from set-up (.course/async-profiler); without it the parts that need it"
                        + " say why and the rest runs. Each profiler of 'stacks' runs in a JVM of its own, and JFR's"
                        + " also on the JDK 21 runtime when set-up installed it.")
                .check(a -> Course.home()) // child JVMs of this snippet, and the load generator, start from it
                .budget(Duration.ofSeconds(45), Duration.ofSeconds(150))
                .run(args, S34_ProfilingVirtualThreads::measure);
    }

    static Profiling.Result measure(Experiment.Args a) throws Exception {
        List<String> parts = a.someOf("--part");
        int intervalMs = a.intCount("--interval-ms");
        String why = AsyncProfiler.whyNot(); // loads it here: the endpoint part profiles this JVM
        System.out.println("async-profiler " + AsyncProfiler.version() + (why == null ? "" : ": " + why)
                + "; every profiler samples each " + intervalMs + " ms; Java " + Runtime.version());
        List<Endpoint> endpoint = new ArrayList<>();
        List<StacksRun> stacks = new ArrayList<>();
        List<Switching> switches = new ArrayList<>();
        if (parts.contains("endpoint") && why == null) endpoint = endpoint(a, intervalMs);
        if (parts.contains("stacks")) stacks = stacks(a, intervalMs, why);
        if (parts.contains("switches") && why == null) switches = switches(a, intervalMs);
        List<Profiling.Window> windows = stacks.stream().flatMap(r -> r.windows().stream()).toList();
        return new Profiling.Result(Runtime.version().toString(), AsyncProfiler.version(), why, intervalMs, endpoint,
                stacks, Profiling.overheads(windows), switches);
    }

    // ---- part 1: the CPU endpoint's flame graphs --------------------------------------------------------------

    /** Each server in this JVM (the same SleepServer S04 runs), its load from a JVM of its own, one window profiled. */
    static List<Endpoint> endpoint(Experiment.Args a, int intervalMs) throws IOException {
        int users = a.intCount("--users");
        long n = a.count("--n");
        List<Endpoint> rows = new ArrayList<>();
        AsyncProfiler.load(); // before any window: its first load reads the symbols
        for (String mode : List.of("pool", "virtual")) {
            Protocol.progress("CPU endpoint, " + mode + ": load and one profiled window");
            try (SleepServer server = SleepServer.start(mode, Profiling.POOL, Duration.ZERO, 0);
                 ChildRun load = ChildRun.snippet("S05_HttpLoad.java", List.of("--url",
                         server.uri().resolve(SleepServer.CPU_PATH + "?n=" + n).toString(), "--connections", "" + users,
                         "--warmup-s", seconds(a.number("--warmup-s")), "--duration-s",
                         seconds(a.number("--duration-s"))))) {
                load.await(Protocol.WINDOW_START, Duration.ofMinutes(3));
                AsyncProfiler.Started started = AsyncProfiler.start("cpu", Duration.ofMillis(intervalMs), "threads");
                long cpu0 = ProcessStats.cpuNanos();
                load.await(Protocol.WINDOW_END, Duration.ofMinutes(2));
                AsyncProfiler.stop();
                double cpuSeconds = (ProcessStats.cpuNanos() - cpu0) / 1e9;
                double throughput = load.awaitResult().get("throughput").getAsDouble();
                String label = "endpoint-" + mode;
                Path collapsed = a.kept(Profiling.keep(AsyncProfiler.dump("collapsed", temp(label)), label,
                        ".collapsed"));
                Path html = a.kept(Profiling.keep(AsyncProfiler.dump("flamegraph", temp(label)), label, ".html"));
                List<Stack> stacks = Profiling.collapsed(Files.readString(collapsed));
                String server0 = mode.equals("pool") ? "pool of " + Profiling.POOL : "virtual threads";
                Seen seen = Profiling.seen("", "async-profiler", started.event(), 0, stacks,
                        mode.equals("pool") ? "java.lang.Thread.run" : "java.lang.VirtualThread.run",
                        Set.of(Work.class.getName() + ".sumTwice"));
                var row = new Endpoint(server0, users, n, throughput, started.event(), cpuSeconds, seen.samples(),
                        (double) seen.workload() / seen.samples(), seen.reachingShare(),
                        List.copyOf(Profiling.threadShapes(stacks)), seen.threadNames(), collapsed.toString(),
                        html.toString());
                System.out.println(String.format(Locale.ROOT, "%-15s %,7.1f req/s; %,d samples for %.2f s of CPU"
                        + " (%,.0f at one per %d ms), %s in Work.sumTwice, %s of those reach the thread's run(); on %d"
                        + " threads named %s", server0, throughput, row.samples(), cpuSeconds,
                        cpuSeconds * 1000 / intervalMs, intervalMs, Profiling.percent(row.inWorkShare()),
                        Profiling.percent(row.reachingShare()), row.threads(), row.threadShapes()));
                rows.add(row);
            }
        }
        return rows;
    }

    // ---- part 2: what each profiler sees, each in a JVM of its own --------------------------------------------

    static List<StacksRun> stacks(Experiment.Args a, int intervalMs, String why) throws IOException {
        List<String> options = List.of("--depths", a.counts("--depths").stream().map(String::valueOf)
                        .reduce((x, y) -> x + "," + y).orElseThrow(), "--repeat", "" + a.intCount("--repeat"),
                "--window-s", seconds(a.number("--window-s")), "--interval-ms", "" + intervalMs);
        Jdks.Jdk course = Jdks.course();
        List<Object[]> plan = new ArrayList<>(); // {jdk, profiler}
        List<String> profilers = a.someOf("--profilers");
        if (profilers.contains("async-profiler")) plan.add(new Object[] {course, "async-profiler"});
        if (profilers.contains("JFR")) {
            plan.add(new Object[] {course, "JFR"});
            for (Jdks.Jdk jdk : Jdks.sideBySide()) if (jdk.feature() != course.feature()) plan.add(new Object[] {jdk, "JFR"});
        }
        List<StacksRun> runs = new ArrayList<>();
        for (Object[] step : plan) {
            Jdks.Jdk jdk = (Jdks.Jdk) step[0];
            String profiler = (String) step[1];
            if (profiler.equals("async-profiler") && why != null) {
                runs.add(new StacksRun(jdk.label(), profiler, why, null, List.of(), List.of(), null, null));
                continue;
            }
            Protocol.progress("requests on " + jdk.label() + ", profiler: " + profiler);
            Path out = Files.createTempDirectory("s34-");
            out.toFile().deleteOnExit(); // empty by then: what it held was moved beside the result
            List<String> args = new ArrayList<>(List.of(CHILD, "stacks", "--profiler", profiler, "--out", out.toString()));
            args.addAll(options);
            StacksRun run;
            try (ChildRun child = ChildRun.start("S34-" + profiler.replaceAll("\\W", "") + "-jdk" + jdk.feature(),
                    Jdks.commandOn(jdk, SNIPPET, args), line -> null)) {
                run = Json.read(child.awaitResult().toString(), StacksRun.class);
            }
            if (run.collapsedFile() != null) {
                String label = "stacks-" + profiler.replaceAll("\\W", "") + "-jdk" + jdk.feature();
                run = new StacksRun(run.jdk(), run.profiler(), run.skipped(), run.fallback(), run.windows(), run.seen(),
                        a.kept(Profiling.keep(Path.of(run.collapsedFile()), label, ".collapsed")).toString(),
                        a.kept(Profiling.keep(Path.of(run.flameGraphFile()), label, ".html")).toString());
            }
            for (Seen s : run.seen()) System.out.println(line(s));
            runs.add(run);
        }
        return runs;
    }

    static String line(Seen s) {
        return String.format(Locale.ROOT, "%s %-32s depth %2d: %,6d request samples, %s reach run()%s; threads: %d"
                        + " %s, e.g. %s", s.jdk(), s.label(), s.depth(), s.workload(), Profiling.percent(s.reachingShare()),
                s.reaching() == s.workload() ? "" : ", the rest cut at " + s.cutAt(), s.threadNames(), s.threadKind(),
                s.someThreads());
    }

    // ---- part 3: freeze and thaw, with native frames ----------------------------------------------------------

    /** The ping-pong in a JVM whose scheduler has one carrier, so each hand-off is an unmount and a mount. */
    static List<Switching> switches(Experiment.Args a, int intervalMs) throws IOException {
        Path out = Files.createTempDirectory("s34-");
        out.toFile().deleteOnExit(); // empty by then: what it held was moved beside the result
        List<String> args = new ArrayList<>(List.of(CHILD, "switches", "--out", out.toString(), "--interval-ms",
                "" + intervalMs, "--switch-s", seconds(a.number("--switch-s"))));
        List<String> command = new ArrayList<>(Jdks.commandOn(Jdks.course(), SNIPPET, args));
        command.addAll(1, List.of("-Djdk.virtualThreadScheduler.parallelism=1",
                "-Djdk.virtualThreadScheduler.maxPoolSize=1"));
        Protocol.progress("hand-off ping-pong, virtual then platform threads");
        List<Switching> rows = new ArrayList<>();
        try (ChildRun child = ChildRun.start("S34-switches", command, line -> null)) {
            for (var e : child.awaitResult().getAsJsonArray("switches")) {
                Switching s = Json.read(e.toString(), Switching.class);
                String label = "switches-" + s.kind();
                s = new Switching(s.kind(), s.carriers(), s.handoffsPerSecond(), s.cpuUsPerHandoff(),
                        s.unprofiledHandoffsPerSecond(), s.unprofiledCpuUsPerHandoff(), s.samples(), s.shares(),
                        s.kernelFrames(),
                        a.kept(Profiling.keep(Path.of(s.collapsedFile()), label, ".collapsed")).toString(),
                        a.kept(Profiling.keep(Path.of(s.flameGraphFile()), label, ".html")).toString());
                System.out.println(String.format(Locale.ROOT, "%-8s %,10.0f hand-offs/s, %.2f µs of CPU each (before"
                        + " async-profiler was loaded: %,.0f/s, %.2f µs); %s", s.kind(), s.handoffsPerSecond(),
                        s.cpuUsPerHandoff(), s.unprofiledHandoffsPerSecond(), s.unprofiledCpuUsPerHandoff(),
                        s.shares().entrySet().stream().map(x -> x.getKey() + " " + Profiling.percent(x.getValue()))
                                .toList()));
                rows.add(s);
            }
        }
        return rows;
    }

    // ---- the child JVMs ---------------------------------------------------------------------------------------

    /** A JVM of its own for one profiler's windows ("stacks") or the ping-pong ("switches"); prints its result. */
    static void child(String[] args) {
        Experiment.named("S34", "a child JVM of S34 (started by S34 itself)", null)
                .oneOf("--role", "stacks", List.of("stacks", "switches"), "what this JVM runs")
                .oneOf("--profiler", "JFR", List.of("async-profiler", "JFR"), "stacks: the one profiler")
                .text("--out", "", "folder for the kept profiles")
                .counts("--depths", List.of(4, 40), List.of(4, 40), 1, 500, "stacks: frames below run()")
                .count("--repeat", 3, 5, 1, 20, "stacks: windows per mode and depth")
                .number("--window-s", 0.5, 2, 0.1, 60, "stacks: seconds per window")
                .count("--interval-ms", 10, 10, 1, 1_000, "sampling interval, ms")
                .number("--switch-s", 1, 3, 0.2, 60, "switches: seconds per kind")
                .run(withRole(args), a -> a.oneOf("--role").equals("stacks") ? stacksChild(a) : switchesChild(a));
    }

    static String[] withRole(String[] args) {
        List<String> all = new ArrayList<>(List.of("--role", args.length > 0 ? args[0] : ""));
        all.addAll(Arrays.asList(args).subList(Math.min(1, args.length), args.length));
        return all.toArray(String[]::new);
    }

    /**
     * One profiler's windows, each mode in turn at each depth, and windows with no profiler as the baseline: taken
     * between JFR's (a stopped recording leaves nothing running), before async-profiler is first loaded (it stays).
     */
    static StacksRun stacksChild(Experiment.Args a) throws Exception {
        String profiler = a.oneOf("--profiler"), jdk = "JDK " + Runtime.version().feature();
        boolean async = profiler.equals("async-profiler");
        List<String> modes = async ? List.of("cpu", "wall", "cpu cstack=vm")
                : cpuTimeSampler() ? List.of("none", "jdk.ExecutionSample", "jdk.CPUTimeSample")
                : List.of("none", "jdk.ExecutionSample");
        List<Integer> depths = a.counts("--depths");
        int repeat = a.intCount("--repeat"), deepest = depths.stream().max(Integer::compare).orElseThrow();
        for (int d : depths) requests(d, Duration.ofMillis(500)); // the JIT compiles every frame before any window
        Profiling.Windows w = new Profiling.Windows(jdk, profiler, Duration.ofMillis(a.count("--interval-ms")), a.seconds("--window-s"),
                Path.of(a.text("--out")), S34_ProfilingVirtualThreads::requests, RUN_FRAME, WORK_FRAMES);
        if (async) {
            for (int r = 1; r <= repeat; r++) for (int d : depths) w.run("none", d, r, false);
            AsyncProfiler.load(); // its first load reads the symbols
        }
        for (int r = 1; r <= repeat; r++) {
            for (int d : depths) {
                for (String mode : modes) {
                    // a third view of the same stacks, where they are cut: one window per depth is enough
                    if (mode.contains("cstack") && r < repeat) continue;
                    w.run(mode, d, r, async && mode.equals("cpu") && d == deepest && r == repeat);
                }
            }
        }
        return w.result(modes, depths);
    }

    /** Whether this JVM has JDK 25's CPU-time sampler (JEP 509: Linux only, where it takes samples). */
    static boolean cpuTimeSampler() {
        return System.getProperty("os.name", "").startsWith("Linux") && FlightRecorder.getFlightRecorder()
                .getEventTypes().stream().anyMatch(t -> t.getName().equals("jdk.CPUTimeSample"));
    }

    /** Requests for {@code length}: a new virtual thread per request, {@value #REQUESTS_IN_FLIGHT} in flight at once. */
    static Profiling.Batch requests(int depth, Duration length) throws InterruptedException {
        Semaphore inFlight = new Semaphore(REQUESTS_IN_FLIGHT);
        Thread.Builder builder = Thread.ofVirtual().name("request-", 0);
        long started = 0, cpu0 = ProcessStats.cpuNanos(), t0 = System.nanoTime(), end = t0 + length.toNanos();
        while (System.nanoTime() < end) {
            inFlight.acquire();
            builder.start(new Request(depth, inFlight));
            started++;
        }
        inFlight.acquire(REQUESTS_IN_FLIGHT); // every request has ended
        return new Profiling.Batch(started, (System.nanoTime() - t0) / 1e9, (ProcessStats.cpuNanos() - cpu0) / 1e9);
    }

    static JsonObject switchesChild(Experiment.Args a) throws Exception {
        Duration interval = Duration.ofMillis(a.count("--interval-ms"));
        long length = a.seconds("--switch-s").toNanos();
        Path out = Path.of(a.text("--out"));
        Map<String, double[]> before = new LinkedHashMap<>(); // kind -> {hand-offs/s, CPU µs per hand-off}
        for (String kind : List.of("virtual", "platform")) {
            Protocol.progress("ping-pong on " + kind + " threads, before async-profiler is loaded");
            pingPong(kind, 300_000_000L); // warm-up
            long cpu0 = ProcessStats.cpuNanos();
            double[] done = pingPong(kind, length / 2);
            before.put(kind, new double[] {done[0] / done[1], (ProcessStats.cpuNanos() - cpu0) / 1e3 / done[0]});
        }
        AsyncProfiler.load(); // its first load reads the symbols
        List<Switching> rows = new ArrayList<>();
        for (String kind : List.of("virtual", "platform")) {
            Protocol.progress("ping-pong on " + kind + " threads, profiled");
            AsyncProfiler.start("cpu", interval, "cstack=vm");
            long cpu0 = ProcessStats.cpuNanos();
            double[] done = pingPong(kind, length);
            long cpu = ProcessStats.cpuNanos() - cpu0;
            AsyncProfiler.stop();
            Path collapsed = AsyncProfiler.dump("collapsed", out.resolve(kind + ".collapsed"));
            Path html = AsyncProfiler.dump("flamegraph", out.resolve(kind + ".html"));
            List<Stack> stacks = Profiling.collapsed(Files.readString(collapsed));
            long samples = stacks.stream().mapToLong(Stack::count).sum();
            boolean kernel = stacks.stream().anyMatch(s -> s.frames().stream().anyMatch(f -> f.endsWith("_[k]")));
            Map<String, Double> shares = Profiling.switchParts(stacks);
            rows.add(new Switching(kind, kind.equals("virtual") ? 1 : 0, done[0] / done[1], cpu / 1e3 / done[0],
                    before.get(kind)[0], before.get(kind)[1], samples, shares, kernel, collapsed.toString(),
                    html.toString()));
        }
        JsonObject result = new JsonObject();
        result.add("switches", Json.parse(Json.write(rows)));
        return result;
    }

    /** Runs the ping-pong on two threads of {@code kind} for {@code nanos}; returns {hand-offs, seconds}. */
    static double[] pingPong(String kind, long nanos) throws InterruptedException {
        PingPong game = new PingPong();
        Thread.Builder builder = kind.equals("virtual") ? Thread.ofVirtual() : Thread.ofPlatform();
        game.a = builder.name("ping").unstarted(() -> game.play(true));
        game.b = builder.name("pong").unstarted(() -> game.play(false));
        long t0 = System.nanoTime();
        game.a.start();
        game.b.start();
        Thread.sleep(Duration.ofNanos(nanos));
        game.stop = true;
        LockSupport.unpark(game.a);
        LockSupport.unpark(game.b);
        game.a.join();
        game.b.join();
        return new double[] {game.handoffs.get(), (System.nanoTime() - t0) / 1e9};
    }

    static Path temp(String label) throws IOException {
        return Files.createTempFile("s34-" + label + "-", ".tmp");
    }

    static String seconds(double s) {
        return String.format(Locale.ROOT, "%.3f", s);
    }
}

/*
 * How to run:
 *   tools/jbang profiling                          (all three parts; about 45 s in the quick profile)
 *   tools/jbang profiling --part stacks --depths 4,16,40 --repeat 5
 *   tools/jbang profiling --part switches --switch-s 3
 *
 * What you should see: endpoint: most samples in the work, all reaching run(); stacks: async-profiler's share
 * reaching run() near 1 when shallow and near one half when deep, JFR's 1 at every depth; switches: virtual
 * hand-offs in freeze and thaw, platform ones in the futex path. Reference runs:
 * data/reference-runs/snippets/S34-profiling.md.
 */
