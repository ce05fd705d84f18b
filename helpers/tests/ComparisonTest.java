package unpinned.showing;

import unpinned.core.BoundsTest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

public class ComparisonTest {
    @Test
    void keepsValuesAndNaNMeansMissing() {
        Comparison c = new Comparison("virtual", 1900, 2000, Double.NaN);
        assertEquals("virtual", c.label());
        assertEquals(1900, c.measured());
        assertEquals(2000, c.bound());
        assertTrue(Double.isNaN(c.published()));
        assertEquals(0.95, c.ofBound(), 1e-12);
        assertTrue(Double.isNaN(new Comparison("x", 1, Double.NaN, 1).ofBound()));
    }

    @Test
    void theFourArgumentConstructorHasNoError() {
        Comparison c = new Comparison("virtual", 1900, 2000, 1950);
        assertTrue(Double.isNaN(c.error()));
        assertFalse(c.hasError());
        assertEquals(new Comparison("virtual", 1900, Double.NaN, 2000, 1950), c);
    }

    @Test
    void theFiveArgumentConstructorKeepsTheError() {
        Comparison c = new Comparison("virtual", 1900, 25, 2000, 1950);
        assertEquals(1900, c.measured());
        assertEquals(25, c.error());
        assertEquals(2000, c.bound());
        assertEquals(1950, c.published());
        assertTrue(c.hasError());
        assertTrue(new Comparison("exact", 10, 0, 12, Double.NaN).hasError(), "an error of 0 is an estimate too");
    }

    @Test
    void labelIsRequired() {
        BoundsTest.assertMessage("label must be a non-blank string, got null", () -> new Comparison(null, 1, 1, 1));
        BoundsTest.assertMessage("label must be a non-blank string, got ' '", () -> new Comparison(" ", 1, 1, 1));
        BoundsTest.assertMessage("label must be a non-blank string, got null", () -> new Comparison(null, 1, 0.1, 1, 1));
    }

    @Test
    void errorMustBeAHalfWidthOfAMeasuredValue() {
        BoundsTest.assertMessage("error must be NaN (none) or a finite number >= 0", () -> new Comparison("a", 10, -1, 12, 11));
        BoundsTest.assertMessage("got Infinity for 'a'", () -> new Comparison("a", 10, Double.POSITIVE_INFINITY, 12, 11));
        BoundsTest.assertMessage("error needs a measured value, got error = 1.0 but measured = NaN for 'a'",
                () -> new Comparison("a", Double.NaN, 1, 12, 11));
    }
}
