package unpinned.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

public class BoundsTest {
    @Test
    void batchesRoundUp() {
        assertEquals(4, Bounds.batches(10, 3));
        assertEquals(3, Bounds.batches(9, 3));
        assertEquals(1, Bounds.batches(1, 1000));
        assertEquals(0, Bounds.batches(0, 4));
        assertEquals(Long.MAX_VALUE, Bounds.batches(Long.MAX_VALUE, 1)); // no overflow in the rounding
        assertEquals(10_000, Bounds.batches(10_000, 1));
    }

    @Test
    void makespanIsBatchesTimesTaskTime() {
        // 10 000 tasks of 100 ms on a 200-thread pool: 50 rounds.
        assertEquals(5_000.0, Bounds.makespanMs(10_000, 200, 100), 1e-9);
        assertEquals(100.0, Bounds.makespanMs(10_000, 10_000, 100), 1e-9);
        assertEquals(0.0, Bounds.makespanMs(0, 8, 100), 1e-9);
    }

    @Test
    void littlesLawBothWaysAreInverse() {
        assertEquals(2_000.0, Bounds.littleThroughput(200, 0.1), 1e-9);
        assertEquals(200.0, Bounds.littleConcurrency(2_000, 0.1), 1e-9);
        for (double l : new double[] {1, 37, 10_000}) {
            for (double w : new double[] {0.001, 0.25, 3}) {
                assertEquals(l, Bounds.littleConcurrency(Bounds.littleThroughput(l, w), w), 1e-9 * l);
            }
        }
    }

    @Test
    void closedLoopIsCappedByTheSmallerSide() {
        assertEquals(2_000.0, Bounds.closedLoopThroughput(1_000, 200, 0.1), 1e-9);
        assertEquals(500.0, Bounds.closedLoopThroughput(50, 200, 0.1), 1e-9);
        assertEquals(0.0, Bounds.closedLoopThroughput(0, 200, 0.1), 1e-9);
    }

    @Test
    void badInputsSayWhatIsAllowed() {
        assertMessage("tasks must be >= 0, got -3", () -> Bounds.batches(-3, 2));
        assertMessage("workers must be >= 1, got 0", () -> Bounds.batches(3, 0));
        assertMessage("perTaskMs must be a finite number >= 0", () -> Bounds.makespanMs(3, 1, -1));
        assertMessage("perTaskMs must be a finite number >= 0", () -> Bounds.makespanMs(3, 1, Double.NaN));
        assertMessage("latencySeconds must be a finite number > 0", () -> Bounds.littleThroughput(3, 0));
        assertMessage("concurrency must be a finite number >= 0", () -> Bounds.littleThroughput(-1, 1));
        assertMessage("throughputPerSecond must be a finite number >= 0", () -> Bounds.littleConcurrency(Double.POSITIVE_INFINITY, 1));
        assertMessage("servers must be >= 1, got 0", () -> Bounds.closedLoopThroughput(1, 0, 1));
        assertMessage("users must be >= 0, got -1", () -> Bounds.closedLoopThroughput(-1, 1, 1));
        assertMessage("serviceSeconds must be a finite number > 0", () -> Bounds.closedLoopThroughput(1, 1, Double.NaN));
    }

    public static void assertMessage(String expected, Runnable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call::run);
        assertTrue(e.getMessage().contains(expected), () -> "message '" + e.getMessage() + "' should contain '" + expected + "'");
    }
}
