package unpinned.experiments;

import unpinned.core.Json;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

public class StackChunksTest {
    static final String HISTOGRAM = """
             num     #instances         #bytes  class name (module)
            -------------------------------------------------------
               1:          1000        7296000  jdk.internal.vm.StackChunk (java.base@25.0.3)
               2:          1002         200400  java.lang.VirtualThread (java.base@25.0.3)
            Total          2002        7496400
            """;

    @Test
    void readsAClassFromAHistogramAndZeroWhenAbsent() {
        assertEquals(new StackChunks.Count(1000, 7_296_000), StackChunks.count(HISTOGRAM, StackChunks.CHUNK_CLASS));
        assertEquals(new StackChunks.Count(1002, 200_400),
                StackChunks.count(HISTOGRAM, StackChunks.VIRTUAL_THREAD_CLASS));
        assertEquals(new StackChunks.Count(0, 0), StackChunks.count(HISTOGRAM, "java.lang.Thread"));
    }

    @Test
    void perThreadAndPerFrameFiguresComeFromTheRows() {
        var park1 = StackChunks.ChunkRow.of("park", 1, 1000, new StackChunks.Count(1000, 1_000_000),
                new StackChunks.Count(1000, 0));
        var park256 = StackChunks.ChunkRow.of("park", 256, 1000, new StackChunks.Count(1000, 7_375_000),
                new StackChunks.Count(1000, 0));
        var deeper = StackChunks.ChunkRow.of("park-again-deeper", 256, 1000, new StackChunks.Count(2000, 14_000_000),
                new StackChunks.Count(1000, 0));
        var run = new StackChunks.Chunks("25", 25, 1000, List.of(park1, park256, deeper));
        assertEquals(1000.0, park1.bytesPerChunk());
        assertEquals(2.0, deeper.chunksPerThread());
        assertEquals(25.0, run.bytesPerFrame(), 1e-9);
        assertEquals(List.of(park1, park256), run.of("park"));
        assertEquals(run, Json.read(Json.write(run), StackChunks.Chunks.class)); // "case" in the JSON
    }
}
