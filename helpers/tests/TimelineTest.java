package unpinned.experiments;

import static unpinned.workloads.MountRecorderTest.RUN;
import static unpinned.workloads.MountRecorderTest.SPAWNS;
import static unpinned.workloads.MountRecorderTest.W1;
import static unpinned.workloads.MountRecorderTest.W10;
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

public class TimelineTest {
    @Test
    void analysisOfAHandMadeRun() {
        assertEquals(List.of(W1, W2, W10), MountRecorder.carriers(RUN), "worker order, not text order");
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
        assertTrue(MountRecorder.CARRIER_ORDER.compare("ForkJoinPool-1-worker-2", "ForkJoinPool-1-worker-10") < 0);
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
        BoundsTest.assertMessage("segments must be a list of MountRecorder.Segment, got null", () -> MountRecorder.carriers(null));
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


}
