package unpinned.experiments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

public class ProfilingTest {
    static final String RUN = "unpinned.snippets.S34$Request.run";
    static final Set<String> WORK = Set.of("unpinned.snippets.S34.descend", "unpinned.snippets.S34.handle");

    /** async-profiler's collapsed lines: a whole stack, one cut at enterSpecial, and one of another thread. */
    static final String COLLAPSED = String.join("\n",
            "[ForkJoinPool-1-worker-1 tid=101];java/util/concurrent/ForkJoinWorkerThread.run;"
                    + "jdk/internal/vm/Continuation.enterSpecial;java/lang/VirtualThread.run;"
                    + "unpinned/snippets/S34$Request.run;unpinned/snippets/S34.descend;unpinned/snippets/S34.descend;"
                    + "unpinned/snippets/S34.handle;unpinned/workloads/Work.hash 6",
            "[ForkJoinPool-1-worker-2 tid=102];java/util/concurrent/ForkJoinWorkerThread.run;"
                    + "jdk/internal/vm/Continuation.enterSpecial;unpinned/snippets/S34.handle;unpinned/workloads/Work.hash 4",
            "[C2 CompilerThre tid=7];start_thread;C2Compiler::compile_method;futex_wait_[k] 3",
            "");

    @Test
    void collapsedLinesBecomeStacksWithTheirThreadAndJavaNames() {
        List<Profiling.Stack> stacks = Profiling.collapsed(COLLAPSED);
        assertEquals(3, stacks.size());
        assertEquals("ForkJoinPool-1-worker-1", stacks.get(0).thread());
        assertEquals("java.util.concurrent.ForkJoinWorkerThread.run", stacks.get(0).frames().get(0));
        assertEquals(6, stacks.get(0).count());
        assertEquals("C2Compiler::compile_method", stacks.get(2).frames().get(1)); // native names stay as they are
        assertEquals("futex_wait_[k]", stacks.get(2).frames().get(2));
        assertThrows(IllegalArgumentException.class, () -> Profiling.collapsed("a;b;c many"));
    }

    @Test
    void aStackReachesRunOnlyWithItsFramesAndTheCutIsNamedByTheFrameBelow() {
        Profiling.Seen s = Profiling.seen("JDK 25", "async-profiler", "cpu", 2, Profiling.collapsed(COLLAPSED), RUN,
                WORK);
        assertEquals(13, s.samples());
        assertEquals(10, s.workload()); // the compiler thread's samples are not the requests'
        assertEquals(6, s.reaching());
        assertEquals(0.6, s.reachingShare(), 1e-9);
        assertEquals("jdk.internal.vm.Continuation.enterSpecial", s.cutAt());
        assertEquals(4.0, s.framesFull()); // run, descend, descend, handle
        assertEquals(1.0, s.framesCut()); // handle
        assertEquals(2, s.threadNames());
        assertEquals("carrier", s.threadKind());
    }

    @Test
    void virtualThreadsCountAsVirtualAndANoRequestProfileHasNoShare() {
        var v = new Profiling.Stack("request-7", true, List.of("java.lang.VirtualThread.run", RUN,
                "unpinned.snippets.S34.handle"), 1);
        Profiling.Seen s = Profiling.seen("JDK 21", "JFR", "jdk.ExecutionSample", 4, List.of(v), RUN, WORK);
        assertEquals("virtual", s.threadKind());
        assertEquals(1.0, s.reachingShare());
        assertEquals("", s.cutAt());
        Profiling.Seen none = Profiling.seen("JDK 21", "JFR", "x", 4, List.of(), RUN, WORK);
        assertTrue(Double.isNaN(none.reachingShare()));
    }

    @Test
    void overheadsCompareEachModeWithItsOwnJvmsWindowsWithoutAProfiler() {
        List<Profiling.Window> w = List.of(
                new Profiling.Window("JDK 25", "JFR", "none", 4, 1, 100, 200),
                new Profiling.Window("JDK 25", "JFR", "none", 4, 2, 110, 190),
                new Profiling.Window("JDK 25", "JFR", "jdk.ExecutionSample", 4, 1, 90, 210),
                new Profiling.Window("JDK 25", "JFR", "jdk.ExecutionSample", 4, 2, 100, 230),
                new Profiling.Window("JDK 25", "async-profiler", "none", 4, 1, 50, 400), // another JVM's baseline
                new Profiling.Window("JDK 25", "async-profiler", "cpu cstack=vm", 4, 1, 40, 500)); // one window
        List<Profiling.Overhead> rows = Profiling.overheads(w);
        assertEquals(1, rows.size());
        Profiling.Overhead o = rows.get(0);
        assertEquals("JFR jdk.ExecutionSample", o.profiler());
        assertEquals(1 - 95 / 105.0, o.overhead(), 1e-9);
        assertEquals(220 / 195.0 - 1, o.cpuOverhead(), 1e-9);
        assertEquals(10 / 95.0, o.spread(), 1e-9); // the larger of (110 - 100) / 105 and (100 - 90) / 95
        assertEquals(20 / 220.0, o.cpuSpread(), 1e-9);
    }

    @Test
    void aSwitchSampleBelongsToTheFirstPartFromItsLeaf() {
        var thaw = new Profiling.Stack("", false, List.of("java.util.concurrent.ForkJoinWorkerThread.run",
                "jdk.internal.vm.Continuation.run", "cont_thaw", "long* thaw<Config<(oop_kind)0, G1BarrierSet> >",
                "__memmove_avx_unaligned_erms"), 3);
        var futex = new Profiling.Stack("", false, List.of("java.lang.Thread.run", "Parker::park",
                "__futex_abstimed_wait_common", "do_futex_[k]", "schedule_[k]"), 1);
        var fjp = new Profiling.Stack("", false, List.of("java.util.concurrent.ForkJoinWorkerThread.run",
                "java.util.concurrent.ForkJoinPool.runWorker", "jdk.internal.misc.Unsafe.park"), 1);
        assertEquals("thaw", Profiling.partOf(thaw));
        assertEquals("kernel: futex", Profiling.partOf(futex));
        assertEquals("scheduler (ForkJoinPool)", Profiling.partOf(fjp));
        Map<String, Double> shares = Profiling.switchParts(List.of(thaw, futex, fjp));
        assertEquals(0.6, shares.get("thaw"), 1e-9);
        assertFalse(shares.containsKey("freeze")); // parts with no sample are left out
    }

    @Test
    void withoutAsyncProfilerThePageSaysWhyInOneLineAndShowsNothingOfItsParts() {
        var why = "async-profiler has no library for Linux on riscv64 (its jar carries linux-x64, linux-arm64 and macOS)";
        var r = new Profiling.Result("25.0.3", "not installed", why, 10, List.of(), List.of(), List.of(), List.of());
        var out = new java.io.ByteArrayOutputStream();
        var before = System.out;
        System.setOut(new java.io.PrintStream(out, true));
        try {
            assertFalse(ProfilingRuns.profiled(r));
        } finally {
            System.setOut(before);
        }
        assertEquals(1, out.toString().strip().lines().count(), out.toString());
        assertTrue(out.toString().contains(why), out.toString());
        var with = new Profiling.Result("25.0.3", "4.1", null, 10, List.of(), List.of(), List.of(), List.of());
        assertTrue(ProfilingRuns.profiled(with));
    }

    @Test
    void threadShapesFoldTheDigits() {
        assertEquals(Set.of("ForkJoinPool-N-worker-N", "CN CompilerThre"),
                Profiling.threadShapes(Profiling.collapsed(COLLAPSED)));
    }
}
