//SOURCES ../core/Expectations.java
//SOURCES ../core/Figure.java
package unpinned.experiments;

import com.google.gson.annotations.SerializedName;
import unpinned.core.Expectations;
import unpinned.core.Expectations.Line;
import unpinned.core.Figure;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.management.ObjectName;

/**
 * Chapter 03's stack chunks, as snippet S30 (alias stack-chunks) saves them: how many
 * {@code jdk.internal.vm.StackChunk} objects, and how many bytes, the heap holds while N virtual threads are parked
 * D frames deep, read from a class histogram of the snippet's own JVM, and what chapter 03 expects of them.
 */
public final class StackChunks {
    private StackChunks() {}

    /**
     * A generous guess at a parked virtual thread's heap: the thread, its continuation and latch node, and a stack
     * chunk of ~100 bytes a frame (interpreted frames are bigger than compiled ones). S10 refuses by it too.
     */
    public static final long ESTIMATE_BASE_BYTES = 200, ESTIMATE_FRAME_BYTES = 100;

    /** About the heap {@code threads} virtual threads parked {@code depth} frames deep hold at once. */
    public static long heapEstimate(long threads, long depth) {
        return threads * (ESTIMATE_BASE_BYTES + ESTIMATE_FRAME_BYTES * depth);
    }

    /**
     * S30's refusal before anything runs: N threads parked at the deepest depth asked for (twice it for
     * "park-again-deeper") must fit in 80 % of this JVM's heap; they ran out of it 22 s in, with a stack trace.
     */
    public static void checkHeap(int threads, List<Integer> depths, List<String> cases) {
        int deepest = depths.stream().mapToInt(Integer::intValue).max().orElse(1);
        long frames = cases.contains("park-again-deeper") ? 2L * deepest : deepest;
        long estimate = heapEstimate(threads, frames), max = Runtime.getRuntime().maxMemory();
        if (estimate > 0.8 * max) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "%,d virtual threads parked %,d frames"
                    + " deep%s would need about %,d MB of heap (estimated %d + %d x depth bytes each), more than 80%%"
                    + " of this JVM's %,d MB (-Xmx); use fewer --threads or smaller --depths", threads, frames,
                    frames > deepest ? " (park-again-deeper: twice the deepest --depths)" : "", estimate >> 20,
                    ESTIMATE_BASE_BYTES, ESTIMATE_FRAME_BYTES, max >> 20));
        }
    }

    /** The class of a frozen stack's objects, as a class histogram names it. */
    public static final String CHUNK_CLASS = "jdk.internal.vm.StackChunk";
    public static final String VIRTUAL_THREAD_CLASS = "java.lang.VirtualThread";

    /** What S30 saves: one row per case and depth. */
    public record Chunks(String javaVersion, int feature, int threads, List<ChunkRow> rows) {
        /** The rows of one case ("park" or "park-again-deeper"), in depth order. */
        public List<ChunkRow> of(String kase) {
            return rows.stream().filter(r -> r.kase().equals(kase)).toList();
        }

        /** The depths of a case's rows, for a chart's x axis. */
        public double[] depths(String kase) {
            return of(kase).stream().mapToDouble(ChunkRow::depth).toArray();
        }

        /** The bytes per chunk of a case's rows, for a chart's y axis. */
        public double[] bytesPerChunk(String kase) {
            return of(kase).stream().mapToDouble(ChunkRow::bytesPerChunk).toArray();
        }

        /**
         * Bytes one more frame adds to a chunk: the slope between the shallowest and the deepest "park" rows
         * (NaN with fewer than two depths).
         */
        public double bytesPerFrame() {
            List<ChunkRow> park = of("park");
            if (park.size() < 2) return Double.NaN;
            ChunkRow a = park.get(0), b = park.get(park.size() - 1);
            return (b.bytesPerChunk() - a.bytesPerChunk()) / (b.depth() - a.depth());
        }
    }

    /** Of the "park" rows, the deepest one's chunks over its parked threads. */
    static Figure chunksPerParked(Chunks c) {
        List<ChunkRow> park = c.of("park");
        ChunkRow deepest = park.get(park.size() - 1);
        return Figure.exact(deepest.chunks()).over(deepest.parked());
    }

    /**
     * What chapter 03 expects of the chunk counts on each JDK it ran on: a park ends in a freeze that copies the
     * frames into a chunk, so every parked thread has at least one (fewer means some thread had not parked).
     */
    public static final Expectations<Map<String, Chunks>> EXPECTED =
            Expectations.<Map<String, Chunks>>of("03-stack-chunks")
                    .expect("a-chunk-per-parked-thread", "the stack chunks of the deepest parked threads, on the JDK"
                                    + " with fewest", "the parked threads",
                            runs -> Figure.lowest(runs.values(), StackChunks::chunksPerParked), Line.atLeast(1.0))
                    .limit();

    /**
     * One count: {@code parked} virtual threads parked {@code depth} frames deep (for "park-again-deeper": parked
     * once at that depth, resumed, parked again twice as deep), and the live objects a histogram counted beyond
     * those counted before the threads started.
     */
    public record ChunkRow(@SerializedName("case") String kase, int depth, int parked, long chunks, long chunkBytes,
                           double chunksPerThread, double bytesPerChunk, long virtualThreads) {
        public static ChunkRow of(String kase, int depth, int parked, Count chunks, Count threads) {
            return new ChunkRow(kase, depth, parked, chunks.instances(), chunks.bytes(),
                    Math.round(1000.0 * chunks.instances() / parked) / 1000.0,
                    chunks.instances() == 0 ? 0 : Math.round(10.0 * chunks.bytes() / chunks.instances()) / 10.0,
                    threads.instances());
        }

        /** One line, as S30 prints it. */
        public String line() {
            return String.format(Locale.ROOT, "%-18s depth %,5d | %,6d parked | %,7d chunks = %.2f per thread |"
                    + " %,11d bytes = %,8.0f per chunk | %,6d VirtualThread objects", kase, depth, parked, chunks,
                    chunksPerThread, chunkBytes, bytesPerChunk, virtualThreads);
        }
    }

    /** A histogram line's instances and bytes (zero when the class is absent). */
    public record Count(long instances, long bytes) {
        public Count minus(Count before) {
            return new Count(instances - before.instances, bytes - before.bytes);
        }
    }

    /**
     * This JVM's class histogram of live objects, as {@code jcmd <pid> GC.class_histogram} prints it: through the
     * DiagnosticCommand MBean's {@code gcClassHistogram}, which runs a full GC first (only live objects count).
     */
    public static String histogram() throws Exception {
        return (String) ManagementFactory.getPlatformMBeanServer().invoke(
                new ObjectName("com.sun.management:type=DiagnosticCommand"), "gcClassHistogram",
                new Object[] {new String[0]}, new String[] {String[].class.getName()});
    }

    /** The line of {@code className} in a histogram ("  12:   1000   123456  jdk.internal.vm.StackChunk (java.base@25)"). */
    public static Count count(String histogram, String className) {
        for (String line : histogram.split("\n")) {
            String[] p = line.strip().split("\\s+");
            if (p.length >= 4 && p[0].endsWith(":") && p[3].equals(className)) {
                return new Count(Long.parseLong(p[1]), Long.parseLong(p[2]));
            }
        }
        return new Count(0, 0);
    }
}
