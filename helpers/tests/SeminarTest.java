package unpinned.course;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import unpinned.core.RunGuard;
import unpinned.showing.Charts;
import unpinned.showing.DrawnChart;

public class SeminarTest {
    private static final String EXPERIMENT = "04-no-time-slicing";

    @AfterEach
    void reset() {
        Seminar.showReferenceRuns(false);
        RunGuard.reset();
    }

    private static DrawnChart chart(List<Double> values) {
        var bars = new LinkedHashMap<String, Double>();
        for (int i = 0; i < values.size(); i++) bars.put("run " + (i + 1), values.get(i));
        return Charts.bars("A live part", "ms", bars);
    }

    /** What {@code run} printed, and its result. */
    private static String printed(ThrowingRunnable run) throws Exception {
        PrintStream before = System.out;
        var bytes = new ByteArrayOutputStream();
        System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        try {
            run.run();
        } finally {
            System.setOut(before);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    @Test
    void aLivePartWithinItsSlotReturnsItsResult() throws Exception {
        String out = printed(() -> assertEquals(List.of(1.0, 2.0),
                Seminar.live(EXPERIMENT, EXPERIMENT, 30, () -> List.of(1.0, 2.0), SeminarTest::chart)));
        assertTrue(out.contains("Live: ") && out.contains("2 cores"), out);
    }

    @Test
    void aFailedOrRefusedRunShowsTheReferenceAndSaysWhy() throws Exception {
        String failed = printed(() -> assertNull(Seminar.live(EXPERIMENT, EXPERIMENT, 30, () -> {
            throw new IllegalStateException("the snippet exited 1");
        }, SeminarTest::chart)));
        assertTrue(failed.contains("Not live: it failed: the snippet exited 1"), failed);
        RunGuard.halt("an earlier run");
        String refused = printed(() -> assertNull(Seminar.live(EXPERIMENT, EXPERIMENT, 30, () -> {
            RunGuard.requireFresh();
            return List.of(1.0);
        }, SeminarTest::chart)));
        assertTrue(refused.contains("Not live: it was refused: "), refused);
        assertFalse(RunGuard.halted(), "the next live part may run: the reference was shown as such");
    }

    @Test
    void aRunPastItsSlotIsStoppedAndTheReferenceShown() throws Exception {
        var interrupted = new AtomicBoolean();
        var started = new CountDownLatch(1);
        long start = System.nanoTime();
        String out = printed(() -> assertNull(Seminar.live(EXPERIMENT, EXPERIMENT, 1, () -> {
            started.countDown();
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                interrupted.set(true);
                throw e;
            }
            return List.of(1.0);
        }, SeminarTest::chart)));
        double seconds = (System.nanoTime() - start) / 1e9;
        assertTrue(started.await(0, TimeUnit.SECONDS) && interrupted.get(), "the run was stopped");
        assertTrue(seconds < 20, "took " + seconds + " s");
        assertTrue(out.contains("Not live: it ran past its 1 s slot"), out);
    }

    @Test
    void theCellOptionShowsTheReferenceWithoutRunning() throws Exception {
        Seminar.showReferenceRuns(true);
        var ran = new AtomicBoolean();
        String out = printed(() -> assertNull(Seminar.live(EXPERIMENT, EXPERIMENT, 30, () -> {
            ran.set(true);
            return List.of(1.0);
        }, SeminarTest::chart)));
        assertFalse(ran.get());
        assertTrue(out.contains("the presenter chose the reference runs"), out);
    }

    @Test
    void badArgumentsAreRefusedBeforeAnythingRuns() {
        assertThrows(IllegalArgumentException.class, () -> Seminar.live(EXPERIMENT, EXPERIMENT, 0, () -> 1,
                x -> chart(List.of(1.0))));
        assertThrows(IllegalArgumentException.class, () -> Seminar.reference("99-nothing", "99-nothing"));
        assertThrows(IllegalArgumentException.class, () -> Seminar.lesson("speed"));
    }

    @Test
    void theRunningOrderSaysWhatItLeavesForQuestions() {
        String within = Seminar.planSentence(30.0);
        assertTrue(within.contains("30.0 min of the 45-min slot, leaving 15.0 min") && !within.contains("over"), within);
        String over = Seminar.planSentence(40.0);
        assertTrue(over.contains("leaving 5.0 min") && over.contains("3.0 min over the plan"), over);
    }

    @Test
    void eachLessonSaysItsNumbersFromTheReferenceRun() throws Exception {
        for (String lesson : List.of("thread-cap", "pool-cap", "semaphore", "executor-per-request", "tail-latency")) {
            String out = printed(() -> Seminar.lesson(lesson));
            assertTrue(out.startsWith("**Reference run:** ") && out.matches("(?s).*\\d.*") && !out.contains("?"),
                    lesson + ": " + out);
        }
    }

    @Test
    void theTailLatencyChartIsDrawnFromTheReferenceRunAndNamesItsMachine() throws Exception {
        Seminar.ReferenceRun run = Seminar.referenceRun("06-seminar");
        var m = run.saved().getAsJsonObject("machine");
        assertTrue(run.chartLine().startsWith("JDK " + m.get("jdk").getAsString() + ", " + m.get("cores").getAsString()
                + " cores") && run.chartLine().endsWith("profile " + m.get("profile").getAsString()), run.chartLine());
        var rows = run.saved().getAsJsonArray("data");
        DrawnChart chart = Seminar.tailLatencyChart(rows, run.chartLine());
        assertTrue(chart.title().contains("p99"), chart.title());
        assertEquals(List.of(new DrawnChart.Drawn("Tomcat's 200 threads", 4), new DrawnChart.Drawn("virtual threads", 4)),
                chart.series());
        assertTrue(chart.clipped().isEmpty(), chart.clipped().toString());
        // The machine line is on the image: another line draws another picture.
        assertFalse(samePixels(chart, Seminar.tailLatencyChart(rows, "JDK 99, 64 cores, elsewhere, profile full")));
        assertTrue(samePixels(chart, Seminar.tailLatencyChart(rows, run.chartLine())));
        assertThrows(IllegalArgumentException.class, () -> Seminar.referenceRun("99-nothing"));
    }

    private static boolean samePixels(DrawnChart a, DrawnChart b) {
        if (a.getWidth() != b.getWidth() || a.getHeight() != b.getHeight()) return false;
        for (int y = 0; y < a.getHeight(); y++) {
            for (int x = 0; x < a.getWidth(); x++) if (a.getRGB(x, y) != b.getRGB(x, y)) return false;
        }
        return true;
    }
}
