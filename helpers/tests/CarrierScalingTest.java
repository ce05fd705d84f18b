package unpinned.chapters;

import unpinned.core.Json;
import unpinned.core.Measurement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

public class CarrierScalingTest {
    @Test
    void readsTheSnippetsResult() {
        var saved = Json.read("{\"carriers\":2,\"parallelismSeen\":2,\"io\":{\"wallMs\":52.5,\"boundMs\":50},"
                + "\"cpu\":{\"wallMs\":210,\"wallMsMin\":205,\"carrierBoundMs\":200,\"carrierCpuMs\":400}}",
                CarrierScaling.Run.class);
        var r = CarrierScaling.of(saved);
        assertEquals(new CarrierScaling(2, 52.5, 50, 210, 205, 200, 400), r);
        assertEquals(Measurement.Bound.LOWER_TIME, r.measurements().get(1).boundKind());
        assertEquals(2, saved.measurements().size());
    }

    @Test
    void refusesAbsurdCarrierCountsBeforeStartingAJvm() {
        assertThrows(IllegalArgumentException.class, () -> CarrierScaling.run(0));
        assertThrows(IllegalArgumentException.class, () -> CarrierScaling.run(100_000));
    }
}
