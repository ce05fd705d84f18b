//SOURCES ../core/Bounds.java
//SOURCES ChildRun.java
//SOURCES HttpLoad.java
//SOURCES ../core/Json.java
//SOURCES ProcessStats.java
//SOURCES ../core/Protocol.java
//SOURCES ServerProcess.java
package unpinned.running;

import unpinned.core.Bounds;
import unpinned.core.Json;
import unpinned.core.Protocol;

import com.google.gson.JsonObject;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One load run against a server in its own JVM, with the load generator in another JVM of its own
 * (snippet S05, alias {@code http-load}): the notebook's JVM only orchestrates, so neither side's
 * numbers include the notebook. The server's own figures are read just before and just after the
 * measured window (the generator says when it starts and ends), so its CPU per request, memory and
 * threads come with every measurement.
 *
 * <pre>{@code
 * try (var server = ServerProcess.start("S04_SleepServer.java", "--mode", "virtual")) {
 *     var m = LoadRun.measure(server, HttpLoad.Options.closedLoop(server.uri(), 500, Duration.ofSeconds(2), Duration.ofSeconds(5)));
 * }
 * }</pre>
 */
public final class LoadRun {
    private LoadRun() {}

    /**
     * What the load generator measured, what the server used in the same measured window, and what each
     * other process sampled with it used (e.g. a dependency the server calls), in the order given; and, slice by
     * slice of the window (the server read each quarter second), the cores the server kept busy and the CPU µs it
     * spent per request it answered (where it counts them).
     */
    public record Measured(HttpLoad.Result load, ServerProcess.Usage server, List<ServerProcess.Usage> others,
                           double machineBusyCores, double[] serverCoresSamples, double[] serverCpuUsSamples) {
        public Measured {
            others = List.copyOf(others);
            serverCoresSamples = serverCoresSamples == null ? new double[0] : serverCoresSamples.clone();
            serverCpuUsSamples = serverCpuUsSamples == null ? new double[0] : serverCpuUsSamples.clone();
        }

        /** A measurement without the server read inside its window. */
        public Measured(HttpLoad.Result load, ServerProcess.Usage server, List<ServerProcess.Usage> others,
                        double machineBusyCores) {
            this(load, server, others, machineBusyCores, null, null);
        }

        /**
         * Cores the rest of the machine kept busy during the window (this notebook, the system, a neighbour,
         * a hypervisor's steal): the machine's busy cores minus what the server, the generator and the others
         * used; NaN where the machine's CPU can't be read.
         */
        public double otherCores() {
            if (Double.isNaN(machineBusyCores) || !(load.seconds() > 0)) return Double.NaN;
            double ours = totalCpuUsPerRequest() * load.requests() / 1e6 / load.seconds();
            return Math.max(0, machineBusyCores - ours);
        }

        /** Server plus load generator plus the others: CPU microseconds the whole set-up spent per request. */
        public double totalCpuUsPerRequest() {
            double total = server.cpuUsPerRequest() + load.clientCpuUsPerRequest();
            for (ServerProcess.Usage other : others) total += other.cpuUsPerRequest();
            return total;
        }

        /**
         * The CPU bound of this measurement: the {@code cores}, less what the rest of the machine used, over the CPU
         * seconds one request cost the server, the generator and the others (NaN when none was measured).
         */
        public double cpuBoundThroughput(int cores) {
            double elsewhere = otherCores();
            return Bounds.cpuThroughput(cores - (Double.isNaN(elsewhere) ? 0 : elsewhere), totalCpuUsPerRequest());
        }

        @Override
        public String toString() {
            return load + "\n" + server;
        }
    }

    /**
     * Runs {@code o} from a child JVM against {@code server} and samples the server around it.
     *
     * @throws IllegalStateException the run failed (every request failed, too few open files...), with the
     *                               end of the generator's output
     */
    public static Measured measure(ServerProcess server, HttpLoad.Options o) {
        return measure(server, o, List.of());
    }

    /**
     * As {@link #measure(ServerProcess, HttpLoad.Options)}, and samples {@code others} (processes the server
     * depends on) over the same window; their usage is per request the load generator counted.
     */
    public static Measured measure(ServerProcess server, HttpLoad.Options o, List<ServerProcess> others) {
        return measureLevels(server, o, List.of(), o.warmUp(), others).get(0);
    }

    /**
     * Measures {@code first}, then the same load at each further count of {@code moreConnections} (each after
     * {@code laterWarmUp}), all from one load-generator JVM, sampling the server and {@code others} around each
     * window. One generator start instead of one per level: sweeps run faster, and measure the same.
     */
    public static List<Measured> measureLevels(ServerProcess server, HttpLoad.Options first, List<Integer> moreConnections,
                                               Duration laterWarmUp, List<ServerProcess> others) {
        List<Integer> counts = new ArrayList<>();
        counts.add(first.connections());
        counts.addAll(moreConnections);
        int most = counts.stream().mapToInt(Integer::intValue).max().orElseThrow();
        HttpLoad.requireOpenFiles(most + HttpLoad.SPARE_FILES, "the server's " + most + " connections");
        if (laterWarmUp == null || laterWarmUp.isNegative()) throw new IllegalArgumentException("laterWarmUp must be >= 0 s, got " + laterWarmUp);
        HttpLoad.requireRunLength(counts.size(), first.warmUp(), laterWarmUp, first.duration());
        List<String> args = arguments(first);
        if (!moreConnections.isEmpty()) {
            args.set(args.indexOf("--connections") + 1, String.join(",", counts.stream().map(String::valueOf).toList()));
            args.addAll(List.of("--level-warmup-s", seconds(laterWarmUp.toMillis())));
        }
        List<ServerProcess> all = new ArrayList<>();
        all.add(server);
        all.addAll(others);
        List<List<JsonObject>> before = new ArrayList<>(), after = new ArrayList<>();
        List<Double> machineBusyCores = new ArrayList<>(); // the whole machine, sampled with the processes
        // the first window may wait for the generator's first compile as well as its warm-up
        List<long[]> windows = new ArrayList<>(); // each level's window edges, nanoTime
        try (ChildRun generator = ChildRun.snippet("S05_HttpLoad.java", args); ServerTrace trace = new ServerTrace(server)) {
            generator.addToSamples(trace);
            for (int i = 0; i < counts.size(); i++) {
                Duration warmUp = i == 0 ? first.warmUp().plus(ServerProcess.READY_TIMEOUT) : laterWarmUp.plus(Duration.ofMinutes(1));
                generator.await(Protocol.WINDOW_START, warmUp);
                long startNanos = System.nanoTime();
                double busyBefore = ProcessStats.machineBusySeconds();
                before.add(all.stream().map(ServerProcess::stats).toList());
                trace.add(System.nanoTime(), before.get(i).get(0));
                trace.measuring(true);
                generator.await(Protocol.WINDOW_END, first.duration().plus(Duration.ofMinutes(1)));
                trace.measuring(false);
                after.add(all.stream().map(ServerProcess::stats).toList());
                trace.add(System.nanoTime(), after.get(i).get(0));
                double busy = ProcessStats.machineBusySeconds() - busyBefore;
                machineBusyCores.add(busy / ((System.nanoTime() - startNanos) / 1e9));
                windows.add(new long[] {startNanos, System.nanoTime()});
            }
            JsonObject result = generator.awaitResult();
            List<HttpLoad.Result> loads = new ArrayList<>();
            if (counts.size() == 1) loads.add(Json.read(result.toString(), HttpLoad.Result.class));
            else for (var level : result.getAsJsonArray("levels")) loads.add(Json.read(level.toString(), HttpLoad.Result.class));
            List<Measured> measured = new ArrayList<>();
            for (int i = 0; i < counts.size(); i++) {
                List<ServerProcess.Usage> usage = new ArrayList<>();
                for (int p = 0; p < all.size(); p++) {
                    usage.add(ServerProcess.Usage.between(before.get(i).get(p), after.get(i).get(p), loads.get(i).requests()));
                }
                long[] w = windows.get(i);
                measured.add(new Measured(loads.get(i), usage.get(0), usage.subList(1, usage.size()), machineBusyCores.get(i),
                        trace.cores(w[0], w[1]), trace.cpuUsPerRequest(w[0], w[1])));
            }
            return measured;
        }
    }

    /**
     * The server read while the generator runs: each quarter second inside a window (its CPU time and the requests it
     * answered, both read by the server at once: the cores it got and its CPU per request, slice by slice), each
     * second outside (for the live chart's carriers busy: virtual threads mounted, {@link
     * ProcessStats#mountedVirtualThreads}, from the first time one is busy; a pool server's count stays at 0 and is
     * not shown; none on JDK 21-23).
     */
    static final class ServerTrace implements java.util.function.Supplier<Map<String, Double>>, AutoCloseable {
        private final ServerProcess server;
        private final List<double[]> readings = new ArrayList<>(); // {nanoTime, cpuNanos, handled or NaN}
        private final Thread sampler;
        private volatile boolean measuring, stopped;
        private volatile JsonObject latest;
        private boolean seen;

        ServerTrace(ServerProcess server) {
            this.server = server;
            this.sampler = Thread.ofPlatform().daemon(true).name("server-trace").start(this::sample);
        }

        private void sample() {
            while (!stopped) {
                try {
                    add(System.nanoTime(), server.stats());
                    Thread.sleep(measuring ? 250 : 1000);
                } catch (RuntimeException | InterruptedException e) {
                    return; // the server ended, or the run did: the run itself says so
                }
            }
        }

        /** Between a window's edges the trace reads the server each quarter second. */
        void measuring(boolean on) {
            measuring = on;
        }

        @Override
        public Map<String, Double> get() {
            JsonObject s = latest;
            if (s == null) return Map.of();
            int mounted = s.has("mountedVirtualThreads") ? s.get("mountedVirtualThreads").getAsInt() : -1;
            if (mounted < 0) return Map.of(); // no figure on this JDK
            seen |= mounted > 0;
            return seen ? Map.of("carriers_busy", (double) mounted) : Map.of();
        }

        /** A reading of the server's stats, taken at {@code nanoTime}. */
        void add(long nanoTime, JsonObject stats) {
            latest = stats;
            double handled = stats.has("handled") ? stats.get("handled").getAsDouble() : Double.NaN;
            synchronized (readings) {
                readings.add(new double[] {nanoTime, stats.get("cpuNanos").getAsDouble(), handled});
                readings.sort(java.util.Comparator.comparingDouble(r -> r[0]));
            }
        }

        private List<double[]> inside(long from, long to) {
            synchronized (readings) {
                return readings.stream().filter(r -> r[0] >= from && r[0] <= to).toList();
            }
        }

        /** The server's cores busy in each stretch of at least 0.2 s between its readings inside [from, to]. */
        double[] cores(long from, long to) {
            List<double[]> in = inside(from, to);
            List<Double> out = new ArrayList<>();
            for (int i = 1; i < in.size(); i++) {
                double dt = in.get(i)[0] - in.get(i - 1)[0];
                if (dt >= 2e8) out.add((in.get(i)[1] - in.get(i - 1)[1]) / dt);
            }
            return out.stream().mapToDouble(Double::doubleValue).toArray();
        }

        /** The server's CPU µs per request it answered in each stretch between its readings inside [from, to]. */
        double[] cpuUsPerRequest(long from, long to) {
            List<double[]> in = inside(from, to);
            List<Double> out = new ArrayList<>();
            for (int i = 1; i < in.size(); i++) {
                double answered = in.get(i)[2] - in.get(i - 1)[2];
                if (in.get(i)[0] - in.get(i - 1)[0] >= 2e8 && answered > 0) {
                    out.add((in.get(i)[1] - in.get(i - 1)[1]) / 1e3 / answered);
                }
            }
            return out.stream().mapToDouble(Double::doubleValue).toArray();
        }

        @Override
        public void close() {
            stopped = true;
            try {
                sampler.join(ServerProcess.STATS_TIMEOUT.plusSeconds(1)); // a reading in progress ends first
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** The S05 command line for {@code o}. */
    static List<String> arguments(HttpLoad.Options o) {
        List<String> a = new ArrayList<>();
        a.addAll(List.of("--url", o.target().toString(), "--connections", Integer.toString(o.connections()),
                "--threads", Integer.toString(o.threads()), "--warmup-s", seconds(o.warmUp().toMillis()),
                "--duration-s", seconds(o.duration().toMillis()), "--timeout-s", seconds(o.timeout().toMillis())));
        if (!o.closed()) a.addAll(List.of("--rate", Double.toString(o.rate())));
        return a;
    }

    private static String seconds(long millis) {
        return String.format(Locale.ROOT, "%.3f", millis / 1000.0);
    }
}
