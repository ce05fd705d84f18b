package unpinned;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ComparisonTest {
    @Test
    void keepsValuesAndNaNMeansMissing() {
        Comparison c = new Comparison("virtual", 1900, 2000, Double.NaN);
        assertEquals("virtual", c.label());
        assertEquals(1900, c.measured());
        assertTrue(Double.isNaN(c.published()));
        assertEquals(0.95, c.ofBound(), 1e-12);
        assertTrue(Double.isNaN(new Comparison("x", 1, Double.NaN, 1).ofBound()));
    }

    @Test
    void labelIsRequired() {
        BoundsTest.assertMessage("label must be a non-blank string, got null", () -> new Comparison(null, 1, 1, 1));
        BoundsTest.assertMessage("label must be a non-blank string, got ' '", () -> new Comparison(" ", 1, 1, 1));
    }
}
