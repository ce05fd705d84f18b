package unpinned.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

public class MeasurementTest {
    @Test
    void aRateIsAShareOfItsUpperBoundAndATimeOfItsLowerOne() {
        assertEquals(0.5, Measurement.of("rate", 50, "req/s").bound(100, Measurement.Bound.LITTLE).ofBound(), 1e-12);
        // a time can't go under its bound: 200 ms against 100 ms is half-way, 0.5, not 2
        assertEquals(0.5, Measurement.of("time", 200, "ms").bound(100, Measurement.Bound.LOWER_TIME).ofBound(), 1e-12);
        assertTrue(Double.isNaN(Measurement.of("no bound", 1, "x").ofBound()));
    }

    @Test
    void onlyALimitCanBeBeatenAnEstimateCanBePassed() {
        assertTrue(Measurement.of("r", 110, "req/s").bound(100, Measurement.Bound.CPU).beatsBound(0.03));
        assertFalse(Measurement.of("r", 102, "req/s").bound(100, Measurement.Bound.CPU).beatsBound(0.03));
        assertFalse(Measurement.of("r", 150, "req/s").bound(100, Measurement.Bound.ESTIMATE).beatsBound(0.03));
    }

    @Test
    void aBoundNeedsItsKindAndAPublishedFigureItsSource() {
        BoundsTest.assertMessage("x: a bound needs its kind", () -> new Measurement("x", 1, "u", 2.0, null, null,
                null, null, null, null));
        BoundsTest.assertMessage("x: a published figure needs the id of its source", () -> new Measurement("x", 1,
                "u", null, null, 3.0, null, null, null, null));
    }

    @Test
    void resultsCollectTheMeasurementsOfTypedRows() {
        Measurement.Measured row = () -> List.of(Measurement.of("a", 1, "u"), Measurement.of("b", 2, "u"));
        assertEquals(4, Results.measurementsOf(List.of(row, row)).size());
        assertEquals(List.of(), Results.measurementsOf(List.of("not a row")));
    }
}
