package unpinned.workloads;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ForkJoinPool;
import org.junit.jupiter.api.Test;

public class CarriersTest {
    @Test
    void findsThePoolThatCarriesVirtualThreads() throws Exception {
        ForkJoinPool pool = Carriers.pool();
        assertTrue(pool.getParallelism() >= 1);
        assertEquals(Carriers.parallelism(), pool.getParallelism());
    }

    @Test
    void aBatchOfSleepersTakesAboutOneSleepAndNamesItsThreads() throws Exception {
        List<String> names = new CopyOnWriteArrayList<>();
        Carriers.Batch b = Carriers.timeBatch("sleepers", "batch-test-", 20, Duration.ofSeconds(30), Carriers.pool(), i -> {
            names.add(Thread.currentThread().getName());
            Thread.sleep(50);
        });
        // each thread sleeps the whole 50 ms itself (the lower bound); they overlap, so far less than 20 x 50 ms
        assertTrue(b.elapsedMs() >= 50 && b.elapsedMs() < 500, "elapsed " + b.elapsedMs());
        assertTrue(b.firstRunMaxMs() >= 0 && b.firstRunMaxMs() <= b.elapsedMs(), b.toString());
        assertTrue(b.carriersMax() >= 1, b.toString());
        assertEquals(20, names.size());
        assertTrue(names.contains("batch-test-0") && names.contains("batch-test-19"), names.toString());
    }

    @Test
    void aFailingTaskFailsTheBatchByName() {
        var e = assertThrows(IllegalStateException.class, () -> Carriers.timeBatch("case x", "batch-fail-", 3,
                Duration.ofSeconds(30), Carriers.pool(), i -> {
                    if (i == 1) throw new java.io.IOException("thread 1 broke");
                }));
        assertTrue(e.getMessage().startsWith("case x failed: java.io.IOException: thread 1 broke"), e.getMessage());
    }

    @Test
    void aStuckBatchTimesOutAndItsThreadsAreInterrupted() {
        List<Boolean> interrupted = new CopyOnWriteArrayList<>();
        var e = assertThrows(IllegalStateException.class, () -> Carriers.timeBatch("case stuck", "batch-stuck-", 2,
                Duration.ofMillis(200), Carriers.pool(), i -> {
                    try {
                        Thread.sleep(60_000);
                    } catch (InterruptedException ie) {
                        interrupted.add(true);
                    }
                }));
        assertTrue(e.getMessage().startsWith("case stuck: 2 of 2 threads had not ended after 0.2 s"), e.getMessage());
        long deadline = System.nanoTime() + 5_000_000_000L;
        while (interrupted.size() < 2 && System.nanoTime() < deadline) Thread.onSpinWait();
        assertEquals(2, interrupted.size(), "both sleepers were interrupted");
        assertThrows(IllegalArgumentException.class, () -> Carriers.timeBatch("x", "p-", 0, Duration.ofSeconds(1),
                Carriers.pool(), i -> { }));
    }
}
