//SOURCES ../core/Bounds.java
//SOURCES ../core/Expectations.java
//SOURCES ../core/Figure.java
//SOURCES ../running/Jmh.java
//SOURCES ../core/Measurement.java
//SOURCES ../core/Published.java
//SOURCES ../core/RunGuard.java
package unpinned.experiments;

import unpinned.core.Bounds;
import unpinned.core.Expectations;
import unpinned.core.Expectations.Line;
import unpinned.core.Figure;
import unpinned.core.Measurement;
import unpinned.core.Published;
import unpinned.core.RunGuard;
import unpinned.running.Jmh;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Chapter 01's two JMH batches, typed: snippet S01 (500 tasks sleeping 50 ms each, on a pool of 8, a pool of 200
 * and virtual threads) and S02 (500 SHA-256 tasks on a core-sized pool and on virtual threads). Each row holds the
 * measured time per batch with its 95 % interval over JMH's iterations, and the time it can't beat: the wave bound
 * ceil(N / P) x S for sleeping tasks, the CPU the batch used / the cores for hashing ones (measured independently of
 * the wall time). What the chapter expects of them is declared once, below each row type.
 */
public final class ExecutorBatches {
    private ExecutorBatches() {}

    /**
     * One executor's sleeping batch: ms per batch (JMH's score and the 95 % half-width over its iterations), its wave
     * bound, the time the batch spent submitting (where a pool starts its threads), the published figure.
     */
    public record IoRow(String executor, double measuredMs, double errorMs, double boundMs, double submitMs,
                        double publishedMs) implements Measurement.Measured {
        /** The time per batch with its interval. */
        public Figure time() {
            return Figure.of(measuredMs, errorMs, "JMH iterations");
        }

        @Override
        public List<Measurement> measurements() {
            Measurement m = Measurement.of(executor + " · sleeping batch", measuredMs, "ms").spread(errorMs)
                    .bound(boundMs, Measurement.Bound.LOWER_TIME);
            return List.of(publishedMs > 0 ? m.published(publishedMs, "vt-jmh-blog") : m);
        }
    }

    /**
     * What chapter 01 expects of the sleeping batches. A pool runs them in waves, and starts its threads while the
     * tasks are submitted, so its last thread begins its waves only when submitting ends: the expected time of a pool
     * is its waves plus that submit phase, both measured in the same fork.
     */
    public static final Expectations<List<IoRow>> IO_EXPECTED = Expectations.<List<IoRow>>of("01-io-bound")
            .expect("no-batch-beats-its-waves", "the batch closest to its wave bound", "that bound",
                    rows -> Figure.lowest(rows, r -> r.time().over(r.boundMs())), Line.atLeast(0.999)).limit()
            .expect("one-wave", "500 sleeps on virtual threads", "one sleep",
                    rows -> io(rows, "virtual").time().over(io(rows, "virtual").boundMs()), Line.atMost(1.2))
            .claims("jmh-2")
            .expect("in-order", "virtual < pool of 200 < pool of 8, by the closer of the two steps",
                    "the next-faster executor's time", ExecutorBatches::narrowerStep, Line.atLeast(1.0))
            .claims("jmh-1")
            .expect("pools-in-waves", "the pool furthest from its waves plus its own thread starts", "that time",
                    rows -> Figure.highest(pools(rows), r -> r.time().over(r.boundMs() + r.submitMs())), Line.atMost(1.1))
            .claims("jmh-3")
            .because(rows -> String.format(Locale.ROOT, "submitting took the pool of 200 %s ms of its %s ms (it starts"
                    + " a platform thread per task until it has 200), the pool of 8 %s ms", Figure.number(
                    io(rows, "fixed-200").submitMs()), Figure.number(io(rows, "fixed-200").measuredMs()),
                    Figure.number(io(rows, "fixed-8").submitMs())));

    /** One executor's hashing batch: ms per batch (± 95 %), the CPU ms it used (± 95 %), and that CPU time / cores. */
    public record CpuRow(String executor, double measuredMs, double errorMs, double cpuMs, double cpuErrorMs,
                         double boundMs, String updates) implements Measurement.Measured {
        public Figure time() {
            return Figure.of(measuredMs, errorMs, "JMH iterations");
        }

        public Figure cpu() {
            return Figure.of(cpuMs, cpuErrorMs, "JMH iterations");
        }

        @Override
        public List<Measurement> measurements() {
            return List.of(Measurement.of(executor + " · SHA-256 batch", measuredMs, "ms").spread(errorMs)
                    .bound(boundMs, Measurement.Bound.LOWER_TIME));
        }
    }

    /** Two runs of the hashing batches as one: each executor's time and CPU pooled ({@link Figure#pooled}). */
    public static List<CpuRow> pooled(List<CpuRow> a, List<CpuRow> b) {
        int cores = Runtime.getRuntime().availableProcessors();
        return a.stream().map(r -> {
            CpuRow o = cpu(b, r.executor());
            Figure time = Figure.pooled(r.time(), o.time()), cpu = Figure.pooled(r.cpu(), o.cpu());
            return new CpuRow(r.executor(), time.value(), time.halfWidth(), cpu.value(), cpu.halfWidth(),
                    cpu.value() / cores, r.updates());
        }).toList();
    }

    /**
     * What chapter 01 expects of the hashing batches: with nothing to wait for there is nothing to unmount, so the
     * two executors run the same work on the same cores, at about the same time and the same CPU per batch.
     */
    public static final Expectations<List<CpuRow>> CPU_EXPECTED = Expectations.<List<CpuRow>>of("01-cpu-bound")
            // process CPU time ticks in 10 ms steps over ~1 s iterations: 3 % of room for the clock
            .expect("no-batch-beats-its-cpu", "the batch closest to its CPU time / cores", "that bound",
                    rows -> Figure.lowest(rows, r -> r.time().over(r.boundMs())), Line.atLeast(0.97)).limit()
            .expect("no-faster", "the core-sized pool's time", "the virtual threads'",
                    rows -> cpu(rows, "fixed-cores").time().over(cpu(rows, "virtual").time()), Line.atMost(1.1))
            .claims("jmh-4")
            .expect("slightly-slower", "the virtual threads' time", "the core-sized pool's",
                    rows -> cpu(rows, "virtual").time().over(cpu(rows, "fixed-cores").time()), Line.atLeast(1.0))
            .claims("jmh-5")
            .expect("same-cpu", "the virtual threads' CPU per batch", "the pool's",
                    rows -> cpu(rows, "virtual").cpu().over(cpu(rows, "fixed-cores").cpu()), Line.within(0.9, 1.1));

    // ------------------------------------------------------------------------------------------ the runs

    /** The time N tasks of S ms can't beat on {@code executor}: ceil(N / P) waves, P = the pool or N for virtual. */
    public static double waveBoundMs(String executor, int tasks, double sleepMs) {
        int workers = executor.equals("virtual") ? tasks : Integer.parseInt(executor.substring("fixed-".length()));
        return Bounds.makespanMs(tasks, workers, sleepMs);
    }

    /** Runs S01 (JMH, its own JVM) with {@code params} and returns one row per executor. */
    public static List<IoRow> io(Map<String, String> params, String... jmhArgs) {
        RunGuard.requireFresh();
        return Jmh.run("S01_IoBoundExecutors.java", params, jmhArgs).stream().map(r -> {
            String executor = r.params().get("executor");
            Figure time = r.figure();
            return new IoRow(executor, time.value(), time.halfWidth(), waveBoundMs(executor,
                    Integer.parseInt(r.params().get("tasks")), Double.parseDouble(r.params().get("sleepMs"))),
                    perBatch(r, "submitMicros") / 1000,
                    Published.value("vt-jmh-blog", "scenario", "A-io", "executor", executor));
        }).toList();
    }

    /** Runs S02 (JMH, its own JVM) with {@code params} and returns one row per executor. */
    public static List<CpuRow> cpu(Map<String, String> params, String... jmhArgs) {
        RunGuard.requireFresh();
        int cores = Runtime.getRuntime().availableProcessors();
        return Jmh.run("S02_CpuBoundSha256.java", params, jmhArgs).stream().map(r -> {
            Figure time = r.figure(), cpu = cpuMsPerBatch(r);
            return new CpuRow(r.params().get("executor"), time.value(), time.halfWidth(), cpu.value(),
                    cpu.halfWidth(), cpu.value() / cores, r.params().get("updates"));
        }).toList();
    }

    /** CPU the benchmark's JVM used per batch (ms), over the measured iterations, with its interval. */
    public static Figure cpuMsPerBatch(Jmh.Result r) {
        double[] cpuMicros = r.secondary("cpuMicros"), batches = r.secondary("batches");
        return Figure.samples(IntStream.range(0, cpuMicros.length).mapToDouble(i -> cpuMicros[i] / batches[i] / 1000)
                .toArray(), "JMH iterations");
    }

    // A secondary metric summed over each iteration, per batch, averaged over the iterations.
    private static double perBatch(Jmh.Result r, String metric) {
        double[] total = r.secondary(metric), batches = r.secondary("batches");
        return IntStream.range(0, total.length).mapToDouble(i -> total[i] / batches[i]).average().orElse(Double.NaN);
    }

    // ------------------------------------------------------------------------------------------ reading rows

    static IoRow io(List<IoRow> rows, String executor) {
        return rows.stream().filter(r -> r.executor().equals(executor)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no " + executor + " batch in " + rows));
    }

    static CpuRow cpu(List<CpuRow> rows, String executor) {
        return rows.stream().filter(r -> r.executor().equals(executor)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no " + executor + " batch in " + rows));
    }

    private static List<IoRow> pools(List<IoRow> rows) {
        return rows.stream().filter(r -> r.executor().startsWith("fixed-")).toList();
    }

    // virtual < pool of 200 < pool of 8: each next executor's time over the one before, the smaller of the two
    private static Figure narrowerStep(List<IoRow> rows) {
        Figure first = io(rows, "fixed-200").time().over(io(rows, "virtual").time());
        Figure second = io(rows, "fixed-8").time().over(io(rows, "fixed-200").time());
        return first.value() <= second.value() ? first : second;
    }

}
