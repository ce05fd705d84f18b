package unpinned.showing;

import unpinned.core.BoundsTest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

public class MeaningTest {
    @Test
    void aComparisonSaysWhoIsAheadAndByHowMuchFromTheNumbers() {
        var o = Meaning.compare("throughput", "virtual threads", 1040, "the pool", 1000, "req/s", 0.05,
                Meaning.Relation.MORE, null);
        assertEquals("SAME", o.values().get("relation"));
        assertFalse(o.met());
        assertTrue(o.text().contains("1.04 x") && o.text().contains("the same within 5 %"), o.text());
        assertTrue(o.text().contains(Meaning.NOT_EXPECTED) && o.text().contains("likely cause"), o.text());
        var ahead = Meaning.compare("throughput", "a", 150, "b", 100, "req/s", 0.05, Meaning.Relation.MORE, null);
        assertTrue(ahead.met() && ahead.text().contains("a higher by 50 %"), ahead.text());
        var behind = Meaning.compare("throughput", "a", 70, "b", 100, "req/s", 0.05, null, null);
        assertTrue(behind.met() && behind.text().contains("b higher by 43 %"), behind.text());
    }

    @Test
    void aShareOfABoundSaysWhenItFallsShort() {
        var o = Meaning.share("both servers", 440, "their bound", 1000, "req/s", 0.9, "a busy neighbour");
        assertFalse(o.met());
        assertTrue(o.text().contains("0.44 of their bound") && o.text().contains("likely cause: a busy neighbour"), o.text());
        assertTrue(Meaning.share("x", 990, "Little's law", 1000, "req/s", 0.9, null).met());
        BoundsTest.assertMessage("x must be a finite number", () -> Meaning.share("x", Double.NaN, "b", 1, "u", 0.9, null));
    }

    @Test
    void aTimeAgainstItsFloorSaysWhenItTookTooLong() {
        var o = Meaning.times("1,000 orders on one thread", 583, "one order's two steps", 110, "ms", 2, null);
        assertFalse(o.met());
        assertTrue(o.text().contains("5.30 x one order's two steps (583 vs 110 ms)"), o.text());
        assertTrue(Meaning.times("x", 116, "y", 110, "ms", 2, null).met());
    }
}
