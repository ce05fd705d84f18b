package unpinned.experiments;

import unpinned.core.Json;
import unpinned.core.Measurement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

public class CarrierScalingTest {
    @Test
    void readsTheSnippetsResult() {
        var saved = Json.read("{\"carriers\":2,\"cores\":2,\"parallelismSeen\":2,\"io\":{\"wallMs\":52.5,"
                + "\"boundMs\":50,\"wallMsAll\":[52,52.5,53]},\"cpu\":{\"wallMs\":210,\"wallMsMin\":205,"
                + "\"carrierBoundMs\":200,\"carrierCpuMs\":400,\"wallMsAll\":[205,210,215]}}", CarrierScaling.Run.class);
        var r = CarrierScaling.of(saved);
        assertEquals(java.util.List.of(2, 2, 52.5, 50.0, 210.0, 205.0, 200.0, 400.0), java.util.List.of(r.carriers(),
                r.cores(), r.ioWallMs(), r.ioBoundMs(), r.cpuWallMs(), r.cpuWallMinMs(), r.cpuBoundMs(), r.carrierCpuMs()));
        assertEquals(210, r.cpuTime().value(), 1e-9);
        assertEquals(52.5, r.ioTime().value(), 1e-9);
        assertEquals(Measurement.Bound.LOWER_TIME, r.measurements().get(1).boundKind());
        assertEquals(2, saved.measurements().size());
    }

    @Test
    void countsTheCoresOtherProcessesUsedDuringTheBatches() {
        // two batches of 100 ms: the machine busy 300 ms of CPU, this process 200 ms of it: others used half a core
        var batches = java.util.List.of(new CarrierScaling.Batch(100_000_000, 100_000_000, 99_000_000, 160_000_000),
                new CarrierScaling.Batch(100_000_000, 100_000_000, 99_000_000, 140_000_000));
        assertEquals(0.5, CarrierScaling.othersCores(batches), 1e-9);
        assertEquals(Double.NaN, CarrierScaling.othersCores(java.util.List.of(
                new CarrierScaling.Batch(100_000_000, 100_000_000, 99_000_000, -1))));
        var beside = new CarrierScaling(2, 2, 52, 50, 300, 295, 198, 396, null, null, 0.66);
        assertEquals(1.34, beside.freeCores(), 1e-9);
        assertEquals(396 / 1.34, beside.cpuFreeBoundMs(), 1e-9);
        // others over-read by a tick: the carriers did use 1.32 cores, so at least those were free
        assertEquals(396 / 300.0, new CarrierScaling(2, 2, 52, 50, 300, 295, 198, 396, null, null, 0.9).freeCores(),
                1e-9);
        assertEquals(2, new CarrierScaling(2, 2, 52, 50, 200, 195, 198, 396, null, null).freeCores(), 1e-9);
    }

    @Test
    void refusesAbsurdCarrierCountsBeforeStartingAJvm() {
        assertThrows(IllegalArgumentException.class, () -> CarrierScaling.run(0));
        assertThrows(IllegalArgumentException.class, () -> CarrierScaling.run(100_000));
    }
}
