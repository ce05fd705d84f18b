package unpinned.chapters;

import unpinned.core.Bounds;
import unpinned.core.Measurement;
import unpinned.core.Published;
import unpinned.core.RunGuard;
import unpinned.running.Jmh;

import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Chapter 01's two JMH batches, typed: snippet S01 (500 tasks sleeping 50 ms each, on a pool of 8, a pool of 200
 * and virtual threads) and S02 (500 SHA-256 tasks on a core-sized pool and on virtual threads). Each row holds the
 * measured time per batch and the time it can't beat: the wave bound ceil(N / P) x S for sleeping tasks, the CPU
 * the batch used / the cores for hashing ones (measured independently of the wall time).
 */
public final class ExecutorBatches {
    private ExecutorBatches() {}

    /** One executor's sleeping batch: ms per batch (JMH's score and error), its wave bound, the published figure. */
    public record IoRow(String executor, double measuredMs, double errorMs, double boundMs, double publishedMs)
            implements Measurement.Measured {
        @Override
        public List<Measurement> measurements() {
            Measurement m = Measurement.of(executor + " · sleeping batch", measuredMs, "ms").spread(errorMs)
                    .bound(boundMs, Measurement.Bound.LOWER_TIME);
            return List.of(publishedMs > 0 ? m.published(publishedMs, "vt-jmh-blog") : m);
        }
    }

    /** One executor's hashing batch: ms per batch, the CPU ms it used, and that CPU time / the cores. */
    public record CpuRow(String executor, double measuredMs, double errorMs, double cpuMs, double boundMs,
                         String updates) implements Measurement.Measured {
        @Override
        public List<Measurement> measurements() {
            return List.of(Measurement.of(executor + " · SHA-256 batch", measuredMs, "ms").spread(errorMs)
                    .bound(boundMs, Measurement.Bound.LOWER_TIME));
        }
    }

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
            return new IoRow(executor, r.score(), r.error(), waveBoundMs(executor,
                    Integer.parseInt(r.params().get("tasks")), Double.parseDouble(r.params().get("sleepMs"))),
                    Published.value("vt-jmh-blog", "scenario", "A-io", "executor", executor));
        }).toList();
    }

    /** CPU the benchmark's JVM used per batch (ms), averaged over the measured iterations. */
    public static double cpuMsPerBatch(Jmh.Result r) {
        double[] cpuMicros = r.secondary("cpuMicros"), batches = r.secondary("batches");
        return IntStream.range(0, cpuMicros.length).mapToDouble(i -> cpuMicros[i] / batches[i] / 1000)
                .average().orElseThrow();
    }

    /** Runs S02 (JMH, its own JVM) with {@code params} and returns one row per executor. */
    public static List<CpuRow> cpu(Map<String, String> params, String... jmhArgs) {
        RunGuard.requireFresh();
        int cores = Runtime.getRuntime().availableProcessors();
        return Jmh.run("S02_CpuBoundSha256.java", params, jmhArgs).stream().map(r -> new CpuRow(
                r.params().get("executor"), r.score(), r.error(), cpuMsPerBatch(r), cpuMsPerBatch(r) / cores,
                r.params().get("updates"))).toList();
    }
}
