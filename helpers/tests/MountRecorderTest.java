package unpinned.workloads;

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

public class MountRecorderTest {
    public static final String W1 = "ForkJoinPool-1-worker-1";
    public static final String W2 = "ForkJoinPool-1-worker-2";
    public static final String W10 = "ForkJoinPool-1-worker-10";

    /**
     * A hand-made run, shared by the Timeline and Gantt tests: a spawner on worker 1 starts four tasks; three
     * run elsewhere. A hopper then runs on 1, 2, 2.
     */
    public static final List<Segment> RUN = List.of(
            new Segment("spawner", W1, 0, 100, "spawner"),
            new Segment("task-0", W2, 10, 30, "task"),
            new Segment("task-1", W2, 30, 50, "task"),
            new Segment("task-3", W10, 20, 40, "task"),
            new Segment("task-2", W1, 100, 120, "task"),
            new Segment("h", W1, 130, 140, "hopper"),
            new Segment("h", W2, 150, 160, "hopper"),
            new Segment("h", W2, 170, 180, "hopper"));
    public static final List<Spawn> SPAWNS = List.of(new Spawn("task-0", W1, 1), new Spawn("task-1", W1, 2),
            new Spawn("task-2", W1, 3), new Spawn("task-3", W1, 4));

    @Test
    void carrierIsReadFromTheEndOfAVirtualThreadsToString() {
        assertEquals(Optional.of(W1), MountRecorder.carrierOf("VirtualThread[#22,task-1]/runnable@ForkJoinPool-1-worker-1"));
        assertEquals(Optional.of("ForkJoinPool-1-worker-12"), MountRecorder.carrierOf("VirtualThread[#21]/runnable@ForkJoinPool-1-worker-12"));
        // a name may hold anything, even what the format uses: state and carrier follow the last "]/"
        assertEquals(Optional.of("ForkJoinPool-2-worker-3"),
                MountRecorder.carrierOf("VirtualThread[#5,a]/b@c]/runnable@ForkJoinPool-2-worker-3"));
        assertEquals(Optional.empty(), MountRecorder.carrierOf("VirtualThread[#22]/waiting"), "not mounted: no carrier");
        assertEquals(Optional.empty(), MountRecorder.carrierOf("VirtualThread[#22,x@y]/terminated"));
        assertEquals(Optional.empty(), MountRecorder.carrierOf("Thread[#1,main,5,main]"), "a platform thread has none");
        assertEquals(Optional.empty(), MountRecorder.carrierOf("VirtualThread[#22]/runnable@"));
        BoundsTest.assertMessage("threadToString must be a Thread's toString(), got null", () -> MountRecorder.carrierOf(null));
    }

    @Test
    void aVirtualThreadKnowsItsCarrierAndAPlatformThreadIsRefused() throws Exception {
        AtomicReference<String> carrier = new AtomicReference<>();
        Thread.ofVirtual().start(() -> carrier.set(MountRecorder.currentCarrier())).join();
        assertTrue(carrier.get().matches("ForkJoinPool-\\d+-worker-\\d+"), carrier.get());
        IllegalStateException e = assertThrows(IllegalStateException.class, MountRecorder::currentCarrier);
        assertTrue(e.getMessage().contains("is a platform thread"), e.getMessage());
    }

    @Test
    void theSchedulerIsFoundThroughACarrier() throws Exception {
        ForkJoinPool pool = MountRecorder.virtualThreadScheduler();
        assertNotNull(pool);
        assertTrue(pool != ForkJoinPool.commonPool(), "not the common pool");
        assertTrue(pool.getParallelism() >= 1 && pool.getStealCount() >= 0, pool.toString());
    }

    @Test
    void theRecorderKeepsSegmentsAndSpawnsOfManyThreads() throws Exception {
        MountRecorder rec = new MountRecorder(100);
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
        MountRecorder anon = new MountRecorder(1);
        Thread t = Thread.ofVirtual().start(() -> {
            anon.begin("x");
            anon.end();
        });
        t.join();
        assertEquals("#" + t.threadId(), anon.segments().get(0).thread());
    }

    @Test
    void theRecorderRefusesMisuseWithOneLine() throws Exception {
        BoundsTest.assertMessage("capacity must be a whole number from 1 to 1,000,000", () -> new MountRecorder(0));
        BoundsTest.assertMessage("got 1,000,001", () -> new MountRecorder(1_000_001));

        MountRecorder rec = new MountRecorder(1);
        assertState("is a platform thread", () -> rec.begin("task"));
        assertState("kind must be a non-blank string", inVirtual(() -> rec.begin(" ")));
        assertState("end() in 'v' without a begin(kind) before it", inVirtual(rec::end));
        assertState("begin(\"b\") in 'v' while its segment 'a' is still open: call end() first", inVirtual(() -> {
            rec.begin("a");
            rec.begin("b");
        }));
        assertTrue(rec.problem().isPresent(), "the first misuse is kept, for the thread that reads the timeline");

        MountRecorder small = new MountRecorder(1);
        assertState("recorder full: it keeps 1 segments (its capacity); make one with a larger capacity, up to 1,000,000",
                inVirtual(() -> {
                    small.begin("a");
                    small.end();
                    small.begin("a");
                    small.end();
                }));
        assertState("the recording is void: recorder full", small::segments);

        MountRecorder open = new MountRecorder(2);
        Thread t = Thread.ofVirtual().start(() -> open.begin("left open"));
        t.join();
        assertState("1 segment(s) still open (begin without end)", open::segments);
    }

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

}
