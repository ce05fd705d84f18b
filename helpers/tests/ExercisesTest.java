package unpinned.course;

import unpinned.experiments.CarrierScaling;

import unpinned.core.BoundsTest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import unpinned.core.Results;
import org.junit.jupiter.api.Test;

public class ExercisesTest {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);

    private String printed() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void rightAnswerWithinTolerance() {
        assertTrue(Exercises.check(out, "little", 1960, 2000, 0.05, "L = lambda W"));
        assertTrue(printed().contains("little: right"), printed());
        assertEquals(1, printed().lines().count());
    }

    @Test
    void wrongAnswerShowsHintNotAnswer() {
        assertFalse(Exercises.check(out, "makespan", 4321, 5000, 0.05, "count the rounds of 200"));
        String line = printed();
        assertTrue(line.contains("makespan: not yet"), line);
        assertTrue(line.contains("count the rounds of 200"), line);
        assertFalse(line.contains("5000") || line.contains("5,000") || line.contains("5.00000e+03"), line);
        assertEquals(1, line.lines().count());
    }

    @Test
    void toleranceEdges() {
        assertTrue(Exercises.check(out, "edge", 105, 100, 0.05, "h"));
        assertFalse(Exercises.check(out, "edge", 105.01, 100, 0.05, "h"));
        assertFalse(Exercises.check(out, "neg", 100, -100, 0.05, "sign"));
        assertTrue(Exercises.check(out, "zero", 0.01, 0, 0.05, "absolute around 0"));
        assertFalse(Exercises.check(out, "zero", 0.06, 0, 0.05, "absolute around 0"));
        assertFalse(Exercises.check(out, "inf", Double.POSITIVE_INFINITY, 1, 0.5, "h"));
        assertTrue(printed().contains("not a finite number"), printed());
        assertFalse(Exercises.check(out, "nan", Double.NaN, 1, 0.5, "h"));
        assertTrue(printed().contains("· nan: not answered yet") && !printed().contains("nan: not yet"), printed());
    }

    @Test
    void badArgumentsSayWhatIsAllowed() {
        BoundsTest.assertMessage("relTolerance must be between 0 and 1", () -> Exercises.check(out, "x", 1, 1, -0.1, "h"));
        BoundsTest.assertMessage("relTolerance must be between 0 and 1", () -> Exercises.check(out, "x", 1, 1, Double.NaN, "h"));
        BoundsTest.assertMessage("expected must be a finite number", () -> Exercises.check(out, "x", 1, Double.NaN, 0.1, "h"));
        BoundsTest.assertMessage("name must be a non-blank string", () -> Exercises.check(out, " ", 1, 1, 0.1, "h"));
        assertEquals("", printed());
    }

    @Test
    void theNotebooksExercisesAcceptTheRightAnswerAndRejectAWrongOne() {
        // Independent of the table in Exercises: the physics, worked out by hand.
        double[][] right = {{1, 100}, {2, 320}, {3, 10_000}, {4, 250}, {5, 1_250}, {6, 960}};
        for (double[] r : right) {
            String id = String.format("01.%d", (int) r[0]);
            assertTrue(Exercises.verdict(id, r[1]), id + " must accept " + r[1]);
            assertFalse(Exercises.verdict(id, r[1] * 1.3), id + " must reject " + r[1] * 1.3);
            assertFalse(Exercises.verdict(id, Double.NaN), id + ": NaN is not answered yet");
        }
        BoundsTest.assertMessage("no exercise '09.9'", () -> Exercises.verdict("09.9", 1));
    }

    @Test
    void aRemeasuredAnswerIsJudgedAgainstTheRunSavedAfterTheChangeAndNotBefore() throws Exception {
        Path results = Files.createTempDirectory("exercises-test");
        Exercises.Answer a = new Exercises.Answer("4. Re-measure", 2, 0.25, "divide the two times",
                new Exercises.Remeasured("04-carrier-scaling", data -> Exercises.savedSpeedUp(data, 1, 3),
                        "3-carrier batch", "run it with 3"));
        // nothing saved: even the right number is refused (the chapter may print it before the change)
        assertFalse(Exercises.verdict(out, a, 2, results));
        assertTrue(printed().contains("not yet: no 04-carrier-scaling run is saved yet: run it with 3"), printed());
        Results.save(results, "04-carrier-scaling", List.of(row(1, 1000), row(2, 510)));
        assertFalse(Exercises.verdict(out, a, 1000 / 510.0, results));   // the 1 -> 2 speed-up the chapter printed
        assertTrue(printed().contains("the newest saved 04-carrier-scaling run has no 3-carrier batch"), printed());
        Results.save(results, "04-carrier-scaling", List.of(row(1, 1000), row(2, 510), row(3, 540)));
        assertTrue(Exercises.verdict(out, a, 1000 / 540.0, results));
        assertTrue(Exercises.verdict(out, a, 1.9, results));              // read off the table, rounded
        assertFalse(Exercises.verdict(out, a, 3, results));               // as if carriers beyond the cores added CPU
        assertFalse(Exercises.verdict(out, a, Double.NaN, results));
        assertTrue(printed().lines().filter(l -> l.startsWith("✘")).noneMatch(l -> l.contains("1.85")),
                "a hint gives the measured value away: " + printed());
    }

    private static CarrierScaling row(int carriers, double cpuWallMs) {
        return new CarrierScaling(carriers, 2, 100, 100, cpuWallMs, cpuWallMs, cpuWallMs / carriers, cpuWallMs, null,
                null);
    }
}
