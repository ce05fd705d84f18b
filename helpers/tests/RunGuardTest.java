package unpinned.core;

import unpinned.showing.Demo;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

public class RunGuardTest {
    @AfterEach
    void forget() {
        RunGuard.reset();
    }

    @Test
    void afterAStoppedMeasurementTheQueuedCellsAreRefusedUntilTheKernelIsQuiet() {
        RunGuard.check("anything"); // nothing stopped: allowed
        RunGuard.halt("io-bound");
        long t = System.nanoTime();
        var e = assertThrows(IllegalStateException.class, () -> RunGuard.check("saving 'x'", t + 1_000));
        assertTrue(e.getMessage().startsWith("not saving 'x': the measurement 'io-bound' was interrupted or failed")
                && e.getMessage().contains("re-run the measurement above"), e.getMessage());
        // each refusal keeps the guard up: a queue of cells 2 s apart is still the same queue
        long step = TimeUnit.SECONDS.toNanos(2);
        assertThrows(IllegalStateException.class, () -> RunGuard.check("charting", t + step));
        assertThrows(IllegalStateException.class, () -> RunGuard.check("charting", t + 2 * step));
        // quiet for longer than QUIET_SECONDS: a person runs a cell again
        RunGuard.check("starting io-bound", t + 2 * step + TimeUnit.SECONDS.toNanos(RunGuard.QUIET_SECONDS));
        assertFalse(RunGuard.halted());
    }

    @Test
    void anInterruptedDemoStopsTheQueueToo() {
        Thread.currentThread().interrupt();
        assertThrows(InterruptedException.class, () -> Demo.time("demo", 0, 1, () -> { }));
        assertTrue(RunGuard.halted());
        assertThrows(IllegalStateException.class, () -> Results.save("x", 1));
    }
}
