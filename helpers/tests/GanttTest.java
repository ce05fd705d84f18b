package unpinned.showing;

import static unpinned.workloads.MountRecorderTest.RUN;
import static unpinned.workloads.MountRecorderTest.W1;
import static unpinned.workloads.MountRecorderTest.W2;
import unpinned.core.BoundsTest;
import unpinned.core.Json;
import unpinned.showing.Charts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import java.awt.image.BufferedImage;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.knowm.xchart.XYChart;
import unpinned.experiments.Timeline;
import unpinned.showing.Gantt;
import unpinned.workloads.MountRecorder;
import unpinned.workloads.MountRecorder.Segment;
import unpinned.workloads.MountRecorder.Spawn;

public class GanttTest {
    private static final int BLUE = 0x1f77b4; // Charts' first colour: the first key to appear
    private static final int ORANGE = 0xff7f0e; // its second

    @Test
    void ganttDrawsOneLanePerCarrierColouredByKind() {
        XYChart chart = Gantt.ganttChart("A run", RUN, Segment::kind);
        assertEquals(List.of("spawner", "task", "hopper", Gantt.LANES_SERIES), List.copyOf(chart.getSeriesMap().keySet()),
                "legend in order of first appearance, then the axis-only series");
        var lanes = chart.getStyler().getyAxisTickLabelsFormattingFunction();
        assertEquals(List.of("worker-1", "worker-2", "worker-10"), List.of(lanes.apply(2.0), lanes.apply(1.0), lanes.apply(0.0)),
                "first carrier on top");
        assertTrue(lanes.apply(0.5).isBlank());
        assertTrue(!lanes.apply(-1.0).equals(lanes.apply(3.0)), "the axis ends differ, or XChart draws no tick labels");
        assertEquals("carrier (ForkJoinPool-1)", chart.getYAxisTitle());
        assertTrue(chart.getXAxisTitle().startsWith("ns"), "a 180 ns run is drawn in ns: " + chart.getXAxisTitle());
        BufferedImage img = Gantt.gantt("A run", RUN);
        assertEquals(Charts.WIDTH, img.getWidth());
        assertEquals(Charts.HEIGHT, img.getHeight());
        assertTrue(countColor(img, BLUE) > 300, "the spawner's bar is drawn");
        assertTrue(countColor(img, ORANGE) > 300, "the tasks' bars are drawn");
        assertEquals(List.of("h-2", "h-10", Gantt.LANES_SERIES), List.copyOf(Gantt.ganttChart("t", List.of(
                new Segment("h-10", W1, 0, 5, "hopper"), new Segment("h-2", W2, 1, 5, "hopper")), Segment::thread)
                .getSeriesMap().keySet()), "thread names in number order");
        assertEquals(new Gantt.Lanes(List.of("a", W1), "carrier"), Gantt.laneNames(List.of("a", W1)),
                "full names when not all are workers of one pool");
    }

    @Test
    void ganttStaysReadableWithThousandsOfShortSegments() {
        List<Segment> many = new ArrayList<>();
        for (int i = 0; i < 4_000; i++) {
            long start = 250_000L * (i / 4);
            many.add(new Segment("task-" + i, "ForkJoinPool-1-worker-" + (1 + i % 4), start, start + 200_000, "task"));
        }
        long t0 = System.nanoTime();
        BufferedImage img = Gantt.gantt("4,000 tasks on 4 carriers", many);
        assertTrue(System.nanoTime() - t0 < 20_000_000_000L, "drawn in under 20 s");
        assertEquals(Charts.WIDTH, img.getWidth());
        assertTrue(Gantt.ganttChart("t", many, Segment::kind).getXAxisTitle().startsWith("ms "));
        // four lanes of back-to-back 0.2 ms bars over 250 ms: solid-looking blue bands
        assertTrue(countColor(img, BLUE) > 20_000, "blue pixels: " + countColor(img, BLUE));
        // by thread: more colours than a chart can tell apart
        BoundsTest.assertMessage("colourBy gives 4000 different values, but a chart tells at most 10 colours apart",
                () -> Gantt.gantt("t", many, Segment::thread));
    }

    @Test
    void ganttFindsItsTicksForAnyNumberOfLanesAndAnySpan() {
        // XChart 3.8.8's tick search can loop forever on labels that repeat: guard every lane count we may meet
        for (int lanes : new int[] {1, 2, 3, 5, 8, 16, 64}) {
            for (long step : new long[] {1, 1_000, 1_000_000, 1_000_000_000}) {
                List<Segment> segs = new ArrayList<>();
                for (int i = 0; i < 2 * lanes; i++) {
                    segs.add(new Segment("t" + i, "ForkJoinPool-1-worker-" + (1 + i % lanes), i * step, i * step + step / 2, "task"));
                }
                String what = lanes + " lanes, step " + step + " ns";
                BufferedImage img = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> Gantt.gantt(what, segs), what);
                assertTrue(countColor(img, BLUE) > 0, what);
            }
        }
        BoundsTest.assertMessage("at most 64 carriers fit as lanes, got 65", () -> Gantt.gantt("t", java.util.stream.IntStream
                .range(0, 65).mapToObj(i -> new Segment("t", "c" + i, 0, 1, "k")).toList()));
    }

    @Test
    void ganttRefusesNothingToDraw() {
        BoundsTest.assertMessage("segments must hold at least one segment to draw, got none", () -> Gantt.gantt("t", List.of()));
        BoundsTest.assertMessage("title must be a non-blank string", () -> Gantt.gantt(" ", RUN));
        BoundsTest.assertMessage("colourBy must be a function such as Segment::kind, got null", () -> Gantt.gantt("t", RUN, null));
        BoundsTest.assertMessage("colourBy must give a non-blank legend text for every segment, got null",
                () -> Gantt.gantt("t", RUN, s -> null));
    }

    /** Runs {@code body} in a virtual thread named "v" and hands back what it threw, as a call that rethrows it. */
    private static int countColor(BufferedImage img, int rgb) {
        int n = 0;
        for (int y = 0; y < img.getHeight(); y++) {
            for (int x = 0; x < img.getWidth(); x++) {
                if ((img.getRGB(x, y) & 0xffffff) == rgb) n++;
            }
        }
        return n;
    }
}
