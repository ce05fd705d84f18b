package unpinned.experiments;

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
import unpinned.experiments.Timeline.Segment;
import unpinned.experiments.Timeline.Spawn;

public class TimelineTest {
    private static final String W1 = "ForkJoinPool-1-worker-1";
    private static final String W2 = "ForkJoinPool-1-worker-2";
    private static final String W10 = "ForkJoinPool-1-worker-10";
    private static final int BLUE = 0x1f77b4; // Charts' first colour: the first key to appear
    private static final int ORANGE = 0xff7f0e; // its second

    /** A spawner on worker 1 starts four tasks; three run elsewhere. A hopper then runs on 1, 2, 2. */
    private static final List<Segment> RUN = List.of(
            new Segment("spawner", W1, 0, 100, "spawner"),
            new Segment("task-0", W2, 10, 30, "task"),
            new Segment("task-1", W2, 30, 50, "task"),
            new Segment("task-3", W10, 20, 40, "task"),
            new Segment("task-2", W1, 100, 120, "task"),
            new Segment("h", W1, 130, 140, "hopper"),
            new Segment("h", W2, 150, 160, "hopper"),
            new Segment("h", W2, 170, 180, "hopper"));
    private static final List<Spawn> SPAWNS = List.of(new Spawn("task-0", W1, 1), new Spawn("task-1", W1, 2),
            new Spawn("task-2", W1, 3), new Spawn("task-3", W1, 4));

    @Test
    void carrierIsReadFromTheEndOfAVirtualThreadsToString() {
        assertEquals(Optional.of(W1), Timeline.carrierOf("VirtualThread[#22,task-1]/runnable@ForkJoinPool-1-worker-1"));
        assertEquals(Optional.of("ForkJoinPool-1-worker-12"), Timeline.carrierOf("VirtualThread[#21]/runnable@ForkJoinPool-1-worker-12"));
        // a name may hold anything, even what the format uses: state and carrier follow the last "]/"
        assertEquals(Optional.of("ForkJoinPool-2-worker-3"),
                Timeline.carrierOf("VirtualThread[#5,a]/b@c]/runnable@ForkJoinPool-2-worker-3"));
        assertEquals(Optional.empty(), Timeline.carrierOf("VirtualThread[#22]/waiting"), "not mounted: no carrier");
        assertEquals(Optional.empty(), Timeline.carrierOf("VirtualThread[#22,x@y]/terminated"));
        assertEquals(Optional.empty(), Timeline.carrierOf("Thread[#1,main,5,main]"), "a platform thread has none");
        assertEquals(Optional.empty(), Timeline.carrierOf("VirtualThread[#22]/runnable@"));
        BoundsTest.assertMessage("threadToString must be a Thread's toString(), got null", () -> Timeline.carrierOf(null));
    }

    @Test
    void aVirtualThreadKnowsItsCarrierAndAPlatformThreadIsRefused() throws Exception {
        AtomicReference<String> carrier = new AtomicReference<>();
        Thread.ofVirtual().start(() -> carrier.set(Timeline.currentCarrier())).join();
        assertTrue(carrier.get().matches("ForkJoinPool-\\d+-worker-\\d+"), carrier.get());
        IllegalStateException e = assertThrows(IllegalStateException.class, Timeline::currentCarrier);
        assertTrue(e.getMessage().contains("is a platform thread"), e.getMessage());
    }

    @Test
    void theSchedulerIsFoundThroughACarrier() throws Exception {
        ForkJoinPool pool = Timeline.virtualThreadScheduler();
        assertNotNull(pool);
        assertTrue(pool != ForkJoinPool.commonPool(), "not the common pool");
        assertTrue(pool.getParallelism() >= 1 && pool.getStealCount() >= 0, pool.toString());
    }

    @Test
    void theRecorderKeepsSegmentsAndSpawnsOfManyThreads() throws Exception {
        Timeline.Recorder rec = new Timeline.Recorder(100);
        Thread parent = Thread.ofVirtual().name("parent").start(() -> {
            rec.begin("spawner");
            List<Thread> kids = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                Thread t = Thread.ofVirtual().name("kid-" + i).unstarted(() -> {
                    rec.begin("task");
                    rec.end();
                });
                rec.spawned(t);
                t.start();
                kids.add(t);
            }
            rec.end();
            for (Thread t : kids) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            }
        });
        parent.join();
        assertEquals(Optional.empty(), rec.problem());
        List<Segment> segs = rec.segments();
        assertEquals(6, segs.size());
        assertEquals(6, rec.size());
        assertEquals("parent", segs.get(0).thread(), "by start: the spawner first");
        assertEquals("spawner", segs.get(0).kind());
        for (Segment s : segs) {
            assertTrue(s.carrier().contains("-worker-"), s.toString());
            assertTrue(s.endNanos() >= s.startNanos(), s.toString());
        }
        List<Spawn> spawns = rec.spawns();
        assertEquals(List.of("kid-0", "kid-1", "kid-2", "kid-3", "kid-4"), spawns.stream().map(Spawn::thread).toList());
        assertEquals(1, spawns.stream().map(Spawn::carrier).distinct().count(), "the parent never blocked while spawning");
        assertEquals(segs.get(0).carrier(), spawns.get(0).carrier());
        int stolen = Timeline.stolen(segs, spawns);
        assertTrue(stolen >= 0 && stolen <= 5);
        // an unnamed virtual thread is "#<id>"
        Timeline.Recorder anon = new Timeline.Recorder(1);
        Thread t = Thread.ofVirtual().start(() -> {
            anon.begin("x");
            anon.end();
        });
        t.join();
        assertEquals("#" + t.threadId(), anon.segments().get(0).thread());
    }

    @Test
    void theRecorderRefusesMisuseWithOneLine() throws Exception {
        BoundsTest.assertMessage("capacity must be a whole number from 1 to 1,000,000", () -> new Timeline.Recorder(0));
        BoundsTest.assertMessage("got 1,000,001", () -> new Timeline.Recorder(1_000_001));

        Timeline.Recorder rec = new Timeline.Recorder(1);
        assertState("is a platform thread", () -> rec.begin("task"));
        assertState("kind must be a non-blank string", inVirtual(() -> rec.begin(" ")));
        assertState("end() in 'v' without a begin(kind) before it", inVirtual(rec::end));
        assertState("begin(\"b\") in 'v' while its segment 'a' is still open: call end() first", inVirtual(() -> {
            rec.begin("a");
            rec.begin("b");
        }));
        assertTrue(rec.problem().isPresent(), "the first misuse is kept, for the thread that reads the timeline");

        Timeline.Recorder small = new Timeline.Recorder(1);
        assertState("recorder full: it keeps 1 segments (its capacity); make one with a larger capacity, up to 1,000,000",
                inVirtual(() -> {
                    small.begin("a");
                    small.end();
                    small.begin("a");
                    small.end();
                }));
        assertState("the recording is void: recorder full", small::segments);

        Timeline.Recorder open = new Timeline.Recorder(2);
        Thread t = Thread.ofVirtual().start(() -> open.begin("left open"));
        t.join();
        assertState("1 segment(s) still open (begin without end)", open::segments);
    }

    @Test
    void analysisOfAHandMadeRun() {
        assertEquals(List.of(W1, W2, W10), Timeline.carriers(RUN), "worker order, not text order");
        assertEquals(Map.of(W1, 3, W2, 4, W10, 1), Timeline.segmentsPerCarrier(RUN));
        assertEquals(List.of(W1, W2, W10), List.copyOf(Timeline.segmentsPerCarrier(RUN).keySet()));
        // worker 2's two tasks touch (10..30, 30..50): 40, plus the hopper's 10 + 10
        assertEquals(Map.of(W1, 130L, W2, 60L, W10, 20L), Timeline.busyNanosPerCarrier(RUN));
        assertEquals(Map.of("h", List.of(W1, W2)), Timeline.threadsOnTwoOrMoreCarriers(RUN));
        assertEquals(1, Timeline.carrierChanges(RUN), "h: worker 1 -> 2 is a change, 2 -> 2 is not");
        assertEquals(180, Timeline.spanNanos(RUN));
        assertEquals(0, Timeline.overlaps(RUN));
        assertEquals(Set.of("task-0", "task-1", "task-3"), Timeline.stolenThreads(RUN, SPAWNS));
        assertEquals(3, Timeline.stolen(RUN, SPAWNS));
        assertEquals(0, Timeline.stolen(RUN, List.of(new Spawn("task-2", W1, 3))));
        assertTrue(Timeline.CARRIER_ORDER.compare("ForkJoinPool-1-worker-2", "ForkJoinPool-1-worker-10") < 0);
    }

    @Test
    void overlapsOnOneCarrierCountOnceInBusyTime() {
        // a thread that blocked inside its segment: the carrier ran another one meanwhile
        List<Segment> segs = List.of(new Segment("a", W1, 0, 100, "task"), new Segment("b", W1, 50, 150, "task"),
                new Segment("c", W1, 200, 210, "task"));
        assertEquals(Map.of(W1, 160L), Timeline.busyNanosPerCarrier(segs));
        assertEquals(1, Timeline.overlaps(segs));
    }

    @Test
    void badSegmentsAndSpawnsAreRefusedByName() {
        BoundsTest.assertMessage("thread must be a non-blank string, got ''", () -> new Segment("", W1, 0, 1, "task"));
        BoundsTest.assertMessage("carrier must be a non-blank string, got null", () -> new Segment("t", null, 0, 1, "task"));
        BoundsTest.assertMessage("kind must be a non-blank string", () -> new Segment("t", W1, 0, 1, " "));
        BoundsTest.assertMessage("startNanos must be >= 0 (nanoseconds since the recording began), got -1 for thread 't'",
                () -> new Segment("t", W1, -1, 1, "task"));
        BoundsTest.assertMessage("endNanos must be >= startNanos, got 5 .. 4 for thread 't'",
                () -> new Segment("t", W1, 5, 4, "task"));
        BoundsTest.assertMessage("atNanos must be >= 0", () -> new Spawn("t", W1, -2));
        BoundsTest.assertMessage("spawned thread 'task-9' has no segment",
                () -> Timeline.stolen(RUN, List.of(new Spawn("task-9", W1, 1))));
        BoundsTest.assertMessage("thread 'task-0' is spawned twice",
                () -> Timeline.stolen(RUN, List.of(new Spawn("task-0", W1, 1), new Spawn("task-0", W1, 2))));
        BoundsTest.assertMessage("segments must be a list of Timeline.Segment, got null", () -> Timeline.carriers(null));
        List<Segment> withNull = new ArrayList<>(RUN);
        withNull.add(null);
        BoundsTest.assertMessage("segments must not contain null", () -> Timeline.busyNanosPerCarrier(withNull));
    }

    @Test
    void segmentsAndSpawnsRoundTripThroughTheResultJson() {
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("segments", RUN);
        result.put("spawns", SPAWNS);
        // as the notebook gets it: one @@result line, parsed into a tree
        JsonObject tree = Json.parse(Json.compact(Map.of("unbalanced", result))).getAsJsonObject();
        JsonObject unbalanced = tree.getAsJsonObject("unbalanced");
        assertEquals(RUN, Timeline.segments(unbalanced.get("segments")));
        assertEquals(SPAWNS, Timeline.spawns(unbalanced.get("spawns")));
        BoundsTest.assertMessage("segments must be a JSON array of {thread, carrier, startNanos, endNanos, kind}, got null",
                () -> Timeline.segments(null));
        BoundsTest.assertMessage("got {\"segments\"", () -> Timeline.segments(unbalanced));
        BoundsTest.assertMessage("spawns must be a JSON array", () -> Timeline.spawns(JsonNull.INSTANCE));
        BoundsTest.assertMessage("segment 0 of the JSON: endNanos must be >= startNanos", () -> Timeline.segments(Json.parse(
                "[{\"thread\": \"t\", \"carrier\": \"c\", \"startNanos\": 9, \"endNanos\": 1, \"kind\": \"task\"}]")));
        BoundsTest.assertMessage("carrier must be a non-blank string, got null", () -> Timeline.segments(Json.parse(
                "[{\"thread\": \"t\", \"startNanos\": 1, \"endNanos\": 2, \"kind\": \"task\"}]")));
    }

    @Test
    void ganttDrawsOneLanePerCarrierColouredByKind() {
        XYChart chart = Timeline.ganttChart("A run", RUN, Segment::kind);
        assertEquals(List.of("spawner", "task", "hopper", Timeline.LANES_SERIES), List.copyOf(chart.getSeriesMap().keySet()),
                "legend in order of first appearance, then the axis-only series");
        var lanes = chart.getStyler().getyAxisTickLabelsFormattingFunction();
        assertEquals(List.of("worker-1", "worker-2", "worker-10"), List.of(lanes.apply(2.0), lanes.apply(1.0), lanes.apply(0.0)),
                "first carrier on top");
        assertTrue(lanes.apply(0.5).isBlank());
        assertTrue(!lanes.apply(-1.0).equals(lanes.apply(3.0)), "the axis ends differ, or XChart draws no tick labels");
        assertEquals("carrier (ForkJoinPool-1)", chart.getYAxisTitle());
        assertTrue(chart.getXAxisTitle().startsWith("ns"), "a 180 ns run is drawn in ns: " + chart.getXAxisTitle());
        BufferedImage img = Timeline.gantt("A run", RUN);
        assertEquals(Charts.WIDTH, img.getWidth());
        assertEquals(Charts.HEIGHT, img.getHeight());
        assertTrue(countColor(img, BLUE) > 300, "the spawner's bar is drawn");
        assertTrue(countColor(img, ORANGE) > 300, "the tasks' bars are drawn");
        assertEquals(List.of("h-2", "h-10", Timeline.LANES_SERIES), List.copyOf(Timeline.ganttChart("t", List.of(
                new Segment("h-10", W1, 0, 5, "hopper"), new Segment("h-2", W2, 1, 5, "hopper")), Segment::thread)
                .getSeriesMap().keySet()), "thread names in number order");
        assertEquals(new Timeline.Lanes(List.of("a", W1), "carrier"), Timeline.laneNames(List.of("a", W1)),
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
        BufferedImage img = Timeline.gantt("4,000 tasks on 4 carriers", many);
        assertTrue(System.nanoTime() - t0 < 20_000_000_000L, "drawn in under 20 s");
        assertEquals(Charts.WIDTH, img.getWidth());
        assertTrue(Timeline.ganttChart("t", many, Segment::kind).getXAxisTitle().startsWith("ms "));
        // four lanes of back-to-back 0.2 ms bars over 250 ms: solid-looking blue bands
        assertTrue(countColor(img, BLUE) > 20_000, "blue pixels: " + countColor(img, BLUE));
        // by thread: more colours than a chart can tell apart
        BoundsTest.assertMessage("colourBy gives 4000 different values, but a chart tells at most 10 colours apart",
                () -> Timeline.gantt("t", many, Segment::thread));
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
                BufferedImage img = assertTimeoutPreemptively(Duration.ofSeconds(30), () -> Timeline.gantt(what, segs), what);
                assertTrue(countColor(img, BLUE) > 0, what);
            }
        }
        BoundsTest.assertMessage("at most 64 carriers fit as lanes, got 65", () -> Timeline.gantt("t", java.util.stream.IntStream
                .range(0, 65).mapToObj(i -> new Segment("t", "c" + i, 0, 1, "k")).toList()));
    }

    @Test
    void ganttRefusesNothingToDraw() {
        BoundsTest.assertMessage("segments must hold at least one segment to draw, got none", () -> Timeline.gantt("t", List.of()));
        BoundsTest.assertMessage("title must be a non-blank string", () -> Timeline.gantt(" ", RUN));
        BoundsTest.assertMessage("colourBy must be a function such as Segment::kind, got null", () -> Timeline.gantt("t", RUN, null));
        BoundsTest.assertMessage("colourBy must give a non-blank legend text for every segment, got null",
                () -> Timeline.gantt("t", RUN, s -> null));
    }

    /** Runs {@code body} in a virtual thread named "v" and hands back what it threw, as a call that rethrows it. */
    private static Runnable inVirtual(Runnable body) throws InterruptedException {
        AtomicReference<RuntimeException> thrown = new AtomicReference<>();
        Thread.ofVirtual().name("v").start(() -> {
            try {
                body.run();
            } catch (RuntimeException e) {
                thrown.set(e);
            }
        }).join();
        return () -> {
            if (thrown.get() != null) throw thrown.get();
        };
    }

    private static void assertState(String expected, Runnable call) {
        RuntimeException e = assertThrows(RuntimeException.class, call::run);
        assertTrue(e.getMessage().contains(expected), () -> "message '" + e.getMessage() + "' should contain '" + expected + "'");
    }

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
