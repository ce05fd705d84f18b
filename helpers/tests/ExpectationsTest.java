package unpinned.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import unpinned.core.Expectations.Line;
import unpinned.core.Expectations.Verdict;

import java.util.List;

public class ExpectationsTest {
    private static final Busy.State IDLE = new Busy.State(0.0, 1.0, 2, 10);

    @Test
    void aFiguresIntervalComesFromItsSamples() {
        Figure f = Figure.samples(new double[] {100, 102, 98}, "seconds");
        assertEquals(100, f.value(), 1e-9);
        // t(0.975, 2) = 4.303, sd = 2, n = 3: half-width 4.97
        assertEquals(4.97, f.high() - f.value(), 0.01);
        assertEquals("3 seconds", f.spread());
        assertFalse(Figure.samples(new double[] {5}, "s").hasSpread());
        assertTrue(Figure.exact(5).hasSpread());
    }

    @Test
    void aRatioTakesTheWidestIntervalItsFiguresAllow() {
        Figure r = Figure.of(110, 10, "a").over(Figure.of(100, 5, "a"));
        assertEquals(1.10, r.value(), 1e-9);
        assertEquals(100 / 105.0, r.low(), 1e-9);
        assertEquals(120 / 95.0, r.high(), 1e-9);
        assertEquals("a", r.spread());
        assertEquals(Figure.NONE, Figure.single(3).over(Figure.of(2, 1, "b")).spread());
    }

    @Test
    void aVerdictIsTakenFromTheIntervalNotThePoint() {
        Line atLeast = Line.atLeast(1.0);
        assertEquals(Verdict.CONFIRMED, atLeast.of(Figure.of(1.2, 0.1, "s"), null));
        assertEquals(Verdict.REFUTED, atLeast.of(Figure.of(0.8, 0.1, "s"), null));
        assertEquals(Verdict.INCONCLUSIVE, atLeast.of(Figure.of(1.05, 0.1, "s"), null));
        assertEquals(Verdict.INCONCLUSIVE, atLeast.of(Figure.of(0.95, 0.1, "s"), null), "a point below, an interval across");
        Line within = Line.within(0.9, 1.03);
        assertEquals(Verdict.CONFIRMED, within.of(Figure.of(0.95, 0.02, "s"), null));
        assertEquals(Verdict.REFUTED, within.of(Figure.of(1.2, 0.02, "s"), null));
        assertEquals(Verdict.INCONCLUSIVE, within.of(Figure.of(1.02, 0.02, "s"), null));
    }

    @Test
    void aSizeThatFallsShortDependsOnlyOnAMeasuredDifference() {
        Line gain = Line.atLeast(6.56).directionFrom(1.1);
        Figure short4 = Figure.of(4.0, 0.2, "s");
        assertEquals(Verdict.DEPENDS, gain.of(short4, "on the cores: 2 here, 8 in the source"));
        assertEquals(Verdict.REFUTED, gain.of(short4, null), "with nothing measured to explain it");
        assertEquals(Verdict.REFUTED, gain.of(Figure.of(1.0, 0.05, "s"), "on the cores"), "the direction itself fails");
        assertEquals(Verdict.CONFIRMED, gain.of(Figure.of(9, 0.5, "s"), null));
    }

    @Test
    void aBusyMachineWidensTheIntervalSoANearLineRefutationIsInconclusive() {
        Figure near = Figure.of(0.95, 0.01, "s");
        assertEquals(Verdict.REFUTED, Line.atLeast(1.0).of(near, null));
        assertEquals(Verdict.INCONCLUSIVE, Line.atLeast(1.0).of(near.widened(0.2), null));
        assertEquals(Verdict.REFUTED, Line.atLeast(1.0).of(Figure.of(0.5, 0.01, "s").widened(0.2), null),
                "far from the line stays refuted");
        assertEquals(Figure.exact(3), Figure.exact(3).widened(0.5), "exact figures are not widened");
    }

    record Run(double measured, double spread, double bound, int users) {}

    static final Expectations<Run> DECLARED = Expectations.<Run>of("toy")
            .expect("at-bound", "the run", "its bound", r -> Figure.of(r.measured(), r.spread(), "s").over(r.bound()),
                    Line.atLeast(0.9)).claims("toy-1")
            .untestableWhen(r -> r.users() < 100 ? "it needs 100 users" : null)
            .expect("under-bound", "the run", "its bound",
                    r -> Figure.of(r.measured(), r.spread(), "s").over(r.bound()), Line.atMost(1.02)).limit();

    @Test
    void aDeclarationJudgesARunOnceAndSaysWhy() {
        Expectations.Judged j = DECLARED.judge(new Run(95, 2, 100, 500), IDLE);
        assertEquals(Verdict.CONFIRMED, j.get("at-bound").verdict());
        assertEquals(List.of("toy-1"), j.get("at-bound").claims());
        assertEquals(Expectations.Kind.LIMIT, j.get("under-bound").kind());
        assertTrue(j.text().startsWith("**What this run shows**"), j.text());
        assertTrue(j.get("at-bound").sentence().contains("0.95 x its bound") && j.get("at-bound").sentence()
                .startsWith("**confirmed** · ") && j.get("at-bound").sentence().endsWith("[toy-1]"),
                j.get("at-bound").sentence());
        assertTrue(j.text().contains("Bounds held: the run"), j.text());
        Expectations.Judged few = DECLARED.judge(new Run(95, 2, 100, 10), IDLE);
        assertEquals(Verdict.NOT_RUN, few.get("at-bound").verdict());
        assertNull(few.get("at-bound").ratio());
    }

    @Test
    void anInconclusiveFigureIsMeasuredAgainAndPooledBeforeItIsJudged(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        var runs = new java.util.concurrent.atomic.AtomicInteger();
        // each run alone straddles 0.9 (93 ± 4); two pooled give 93 ± 2.8, all above 0.9
        var kept = DECLARED.keepSettled(dir, () -> { runs.incrementAndGet(); return new Run(93, 4, 100, 500); },
                (a, b) -> new Run((a.measured() + b.measured()) / 2,
                        Math.sqrt(a.spread() * a.spread() + b.spread() * b.spread()) / 2, a.bound(), a.users()), 3);
        assertEquals(2, runs.get(), "measured once more, then settled");
        assertEquals(Verdict.CONFIRMED, kept.judged().get("at-bound").verdict());
        var once = new java.util.concurrent.atomic.AtomicInteger();
        DECLARED.keepSettled(dir, () -> { once.incrementAndGet(); return new Run(99, 1, 100, 500); }, (a, b) -> a, 3);
        assertEquals(1, once.get(), "a settled figure is not measured again");
        assertTrue(java.nio.file.Files.isDirectory(dir.resolve("toy")));
    }

    @Test
    void aBusyRunIsMarkedAndItsNearLineVerdictsAreInconclusive() {
        Busy.State busy = new Busy.State(0.6, 1.6, 2, 10);
        assertTrue(busy.busy());
        Expectations.Judged j = DECLARED.judge(new Run(88, 1, 100, 500), busy);
        assertEquals(Verdict.INCONCLUSIVE, j.get("at-bound").verdict());
        assertTrue(j.get("at-bound").busy());
        assertTrue(j.text().contains("The machine was busy") && j.text().contains("0.60 of 2 cores"), j.text());
        assertEquals(0.0, new Busy.State(1.0, 0.5, 2, 10).share(), 1e-9, "a neighbour on an idle core takes nothing");
        assertEquals(Verdict.REFUTED, DECLARED.judge(new Run(88, 1, 100, 500), IDLE).get("at-bound").verdict());
    }
}
