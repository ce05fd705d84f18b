package unpinned.showing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

public class FlameGraphTest {
    static final String COLLAPSED = String.join("\n",
            "[pool-1-thread-12 tid=5];java/lang/Thread.run;unpinned/snippets/S34.descend;unpinned/snippets/S34.descend;"
                    + "unpinned/snippets/S34.descend;unpinned/workloads/Work.hash 90",
            "[pool-1-thread-7 tid=6];java/lang/Thread.run;Unsafe_Park;Parker::park;___pthread_cond_wait;"
                    + "futex_wait.isra.0_[k] 9",
            "[pool-1-thread-7 tid=6];java/lang/Thread.run;java/lang/VirtualThread$$Lambda.0x00000000230033f0.run 1");

    @Test
    void framesAreTreeNodesWithRecursionAsOneBoxAndThreadsFolded() {
        FlameGraph.Node root = FlameGraph.tree(COLLAPSED);
        assertEquals(100, root.samples);
        FlameGraph.Node thread = root.children.get("[pool-N-thread-N]"); // 12 and 7 are one box
        assertEquals(100, thread.samples);
        FlameGraph.Node run = thread.children.get("Thread.run");
        assertEquals(90, run.children.get("S34.descend ×3").samples);
        assertEquals(1, run.children.get("VirtualThread$$Lambda.run").samples);
        assertEquals(7, root.depth(1)); // all, thread, run, park, Parker::park, pthread, futex (the longest)
        assertEquals(5, root.depth(10)); // all, thread, run, descend x3, hash: the thin tower is left out
    }

    @Test
    void kindsAndLabels() {
        assertEquals(FlameGraph.Kind.COURSE, FlameGraph.kind("unpinned/workloads/Work.hash"));
        assertEquals(FlameGraph.Kind.JAVA, FlameGraph.kind("java/lang/Thread.run"));
        assertEquals(FlameGraph.Kind.KERNEL, FlameGraph.kind("futex_wait_[k]"));
        assertEquals(FlameGraph.Kind.JVM, FlameGraph.kind("Thaw<Config<(oop_kind)0, G1BarrierSet> >::thaw_slow"));
        assertEquals(FlameGraph.Kind.JVM, FlameGraph.kind("cont_returnBarrier"));
        assertEquals(FlameGraph.Kind.NATIVE, FlameGraph.kind("__futex_abstimed_wait_common"));
        assertEquals(FlameGraph.Kind.THREAD, FlameGraph.kind("[ForkJoinPool-1-worker-1 tid=9]"));
        assertEquals(FlameGraph.Kind.JVM, FlameGraph.kind("[unknown]"));
        assertEquals("Thaw::thaw_slow", FlameGraph.label("Thaw<Config<(oop_kind)0, G1BarrierSet> >::thaw_slow",
                FlameGraph.Kind.JVM));
        assertEquals("thaw", FlameGraph.label("long* thaw<Config<(oop_kind)0, G1BarrierSet> >", FlameGraph.Kind.JVM));
        assertEquals("finish_task_switch", FlameGraph.label("finish_task_switch.isra.0_[k]", FlameGraph.Kind.KERNEL));
    }

    @Test
    void theImageDeclaresOneSeriesPerKindItDrewAndNothingClipped() {
        DrawnChart chart = FlameGraph.of("Flame graph: a test", COLLAPSED);
        List<String> kinds = chart.series().stream().map(DrawnChart.Drawn::name).toList();
        assertTrue(kinds.containsAll(List.of("thread", "the course's code", "Java (JDK, libraries)", "kernel")), kinds.toString());
        assertTrue(chart.series().stream().allMatch(s -> s.points() > 0));
        assertEquals(List.of(), chart.clipped());
        assertEquals(FlameGraph.WIDTH, chart.getWidth());
        assertThrows(IllegalArgumentException.class, () -> FlameGraph.of("Flame graph: empty", ""));
    }
}
