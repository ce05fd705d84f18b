package unpinned.showing;

import unpinned.core.BoundsTest;
import unpinned.core.RunGuard;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

public class DemoTest {
    @AfterEach
    void clearInterrupt() {
        Thread.interrupted(); // never leak an interrupt into the next test
        RunGuard.reset(); // the interrupt tests stop the queue on purpose
    }

    @Test
    void cpuCountsTheWholeProcessNotOnlyTheTimedThread() throws Exception {
        // The body sleeps, so its own thread burns nothing; another thread spins meanwhile. The kernel's cell timing
        // would see ~0 CPU; the whole process's CPU sees the spinner (a wide margin: the machine may be shared).
        java.util.concurrent.atomic.AtomicBoolean spin = new java.util.concurrent.atomic.AtomicBoolean(true);
        Thread spinner = Thread.ofPlatform().daemon().start(() -> { while (spin.get()) Thread.onSpinWait(); });
        try {
            Demo.Timing t = Demo.time("sleep beside a spinner", 0, 3, () -> Thread.sleep(50));
            assertTrue(t.cpuMsPerRep() > 0.1 * t.meanMs(), t::toString);
            assertTrue(t.toString().contains("whole-process CPU"), t::toString);
        } finally {
            spin.set(false);
            spinner.join();
        }
        Demo.Timing idle = Demo.time("sleep alone", 0, 3, () -> Thread.sleep(50));
        assertTrue(idle.coresBusy() < 0.9, idle::toString); // a sleep keeps no core busy
    }

    @Test
    void sleepTakesAtLeastItsDuration() throws Exception {
        Demo.Timing t = Demo.time("sleep 20 ms", 1, 3, () -> Thread.sleep(20));
        assertEquals("sleep 20 ms", t.label());
        assertEquals(3, t.reps());
        assertTrue(t.minMs() >= 20, () -> "min " + t.minMs());
        assertTrue(t.minMs() <= t.medianMs() && t.medianMs() <= t.maxMs(), t::toString);
        assertTrue(t.maxMs() < 5_000, t::toString);
        assertTrue(t.toString().startsWith("[demonstration] sleep 20 ms"), t::toString);
    }

    @Test
    void runsWarmupsPlusReps() throws Exception {
        AtomicInteger runs = new AtomicInteger();
        Demo.time("count", 2, 5, runs::incrementAndGet);
        assertEquals(7, runs.get());
    }

    @Test
    void medianOfEvenCountIsMeanOfMiddleTwo() throws Exception {
        int[] sleeps = {1, 100, 10, 50}; // sorted 1, 10, 50, 100 -> median 30 (+ overhead), not 10 or 50
        AtomicInteger i = new AtomicInteger();
        Demo.Timing t = Demo.time("varied", 0, 4, () -> Thread.sleep(sleeps[i.getAndIncrement()]));
        assertTrue(t.medianMs() >= 30 && t.medianMs() < 50, t::toString);
        assertTrue(t.minMs() >= 1 && t.minMs() < 10 && t.maxMs() >= 100, t::toString);
    }

    @Test
    void pendingInterruptStopsBeforeTheFirstRun() {
        AtomicInteger runs = new AtomicInteger();
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> Demo.time("x", 0, 3, runs::incrementAndGet));
        assertEquals(0, runs.get());
        assertFalse(Thread.currentThread().isInterrupted(), "InterruptedException clears the flag");
    }

    @Test
    void interruptDuringARepStopsTheNextOne() {
        AtomicInteger runs = new AtomicInteger();
        assertThrows(InterruptedException.class, () -> Demo.time("x", 1, 10, () -> {
            if (runs.incrementAndGet() == 2) Thread.currentThread().interrupt();
        }));
        assertEquals(2, runs.get());
    }

    @Test
    void bodyExceptionPropagates() {
        IOException boom = new IOException("boom");
        IOException e = assertThrows(IOException.class, () -> Demo.time("x", 0, 1, () -> {
            throw boom;
        }));
        assertSame(boom, e);
    }

    @Test
    void badArgumentsSayWhatIsAllowed() {
        BoundsTest.assertMessage("reps must be >= 1, got 0", () -> time("x", 0, 0, () -> {}));
        BoundsTest.assertMessage("warmups must be >= 0, got -1", () -> time("x", -1, 1, () -> {}));
        BoundsTest.assertMessage("label must be a non-blank string", () -> time("", 0, 1, () -> {}));
        BoundsTest.assertMessage("body must not be null", () -> time("x", 0, 1, null));
    }

    private static void time(String label, int warmups, int reps, Demo.Body body) {
        try {
            Demo.time(label, warmups, reps, body);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
