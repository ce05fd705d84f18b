package unpinned;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class CarrierScalingTest {
    @Test
    void readsTheSnippetsJson() {
        var r = CarrierScaling.of(Json.parse("{\"parallelismSeen\":2,\"io\":{\"wallMs\":52.5,\"boundMs\":50},"
                + "\"cpu\":{\"wallMs\":210,\"wallMsMin\":205,\"carrierBoundMs\":200,\"carrierCpuMs\":400}}")
                .getAsJsonObject());
        assertEquals(new CarrierScaling(2, 52.5, 50, 210, 205, 200, 400), r);
    }

    @Test
    void refusesAbsurdCarrierCountsBeforeStartingAJvm() {
        assertThrows(IllegalArgumentException.class, () -> CarrierScaling.run(0));
        assertThrows(IllegalArgumentException.class, () -> CarrierScaling.run(100_000));
    }
}
