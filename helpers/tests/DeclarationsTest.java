package unpinned.chapters;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import unpinned.core.Busy;
import unpinned.core.Expectations;
import unpinned.core.Expectations.Kind;
import unpinned.core.Expectations.Verdict;
import unpinned.showing.Comparison;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Every declared expectation shown both ways: for each declaration, a few runs that could happen (every limit physics
 * sets holds in each of them) among which each of its expectations is confirmed at least once and refuted at least
 * once. An expectation no possible run can refute is no expectation.
 */
public class DeclarationsTest {
    private static final Busy.State IDLE = new Busy.State(0.0, 1.0, 2, 10);
    private static final Set<String> SHOWN = new TreeSet<>();
    private static int expectations;

    static <T> void shownBothWays(Expectations<T> declared, List<T> possibleRuns) {
        Map<String, List<Verdict>> seen = new LinkedHashMap<>();
        for (T run : possibleRuns) {
            Expectations.Judged j = declared.judge(run, IDLE);
            for (Expectations.Judgement x : j.judgements()) {
                if (x.kind() == Kind.LIMIT) {
                    assertEquals(Verdict.CONFIRMED, x.verdict(), declared.experiment() + ": an example breaks the limit "
                            + x.id() + ", so it is no possible run: " + x.sentence());
                } else {
                    seen.computeIfAbsent(x.id(), k -> new ArrayList<>()).add(x.verdict());
                }
            }
        }
        for (var e : seen.entrySet()) {
            if (e.getValue().stream().allMatch(v -> v == Verdict.NOT_RUN)) continue;
            assertTrue(e.getValue().contains(Verdict.CONFIRMED) && e.getValue().contains(Verdict.REFUTED),
                    declared.experiment() + " " + e.getKey() + " is not shown both ways: " + e.getValue());
            expectations++;
        }
        SHOWN.add(declared.experiment());
    }

    @AfterAll
    static void everyDeclarationIsShown() {
        List<String> all = Declarations.all().stream().map(Expectations::experiment).toList();
        assertEquals(new TreeSet<>(all), SHOWN, "every declaration needs its possible runs here");
        System.out.println("declarations: " + expectations + " expectations, each shown both ways with possible inputs");
    }

    // ------------------------------------------------------------------------------------------ chapter 01

    static ExecutorBatches.IoRow io(String executor, double ms, double bound, double submitMs) {
        return new ExecutorBatches.IoRow(executor, ms, ms * 0.01, bound, submitMs, Double.NaN);
    }

    @Test
    void sleepingBatches() {
        shownBothWays(ExecutorBatches.IO_EXPECTED, List.of(
                List.of(io("fixed-8", 3160, 3150, 2), io("fixed-200", 165, 150, 12), io("virtual", 51, 50, 0.5)),
                // virtual threads as slow as the pools' waves: one wave refuted, the order reversed
                List.of(io("fixed-8", 3160, 3150, 2), io("fixed-200", 160, 150, 8), io("virtual", 200, 50, 150)),
                // a pool far slower than its waves and its thread starts
                List.of(io("fixed-8", 3160, 3150, 2), io("fixed-200", 250, 150, 10), io("virtual", 51, 50, 0.5))));
    }

    static ExecutorBatches.CpuRow cpu(String executor, double ms, double cpuMs) {
        return new ExecutorBatches.CpuRow(executor, ms, ms * 0.01, cpuMs, cpuMs * 0.01, cpuMs / 2, "50000");
    }

    @Test
    void hashingBatches() {
        shownBothWays(ExecutorBatches.CPU_EXPECTED, List.of(
                List.of(cpu("fixed-cores", 100, 190), cpu("virtual", 104, 192)),
                // virtual threads much faster, on much less CPU: not what the same work on the same cores can do
                List.of(cpu("fixed-cores", 150, 190), cpu("virtual", 100, 150)),
                List.of(cpu("fixed-cores", 100, 190), cpu("virtual", 130, 250))));
    }

    static EndpointLoad.SleepRun sleep(String mode, int threads, double throughput, double meanMs, double cpuBound) {
        int users = 500;
        double bound = Math.min(users, mode.equals("pool") ? threads : users) / 0.1;
        return new EndpointLoad.SleepRun(mode.equals("pool") ? "platform-pool-" + threads : "virtual", mode,
                mode.equals("pool") ? threads : 0, users, 100, throughput, bound, Double.NaN, meanMs,
                Math.max(100, users / bound * 1000), Double.NaN, 100.2, meanMs * 1.1, meanMs * 1.3, 5, 0, 60, 20, 200,
                40, 0.05, users, 3, throughput * 0.01, meanMs * 0.01, cpuBound);
    }

    @Test
    void sleepingEndpoint() {
        shownBothWays(EndpointLoad.SLEEP_EXPECTED, List.of(
                List.of(sleep("pool", 50, 495, 1008, 20_000), sleep("virtual", 0, 4950, 101, 20_000)),
                // two busy cores, a slow pool and a CPU-starved virtual server: every gain falls short
                List.of(sleep("pool", 50, 300, 1600, 1_000), sleep("virtual", 0, 320, 1500, 1_000)),
                // as many threads as users: nothing queues, latency stays the same
                List.of(sleep("pool", 500, 4900, 102, 20_000), sleep("virtual", 0, 4950, 101, 20_000))));
    }

    // ------------------------------------------------------------------------------------------ chapter 02

    static OrderSweep.Row order(String impl, int users, double throughput, double cpuBound, int threads) {
        double little = OrderSweep.littleBound(impl, users, 200);
        return new OrderSweep.Row(impl, users, throughput, little, cpuBound, throughput / Math.min(little, cpuBound),
                users / throughput * 1000, 110, 150, 200, 0, 300, 80, Double.NaN, 0.05, 200, 100, threads, Double.NaN,
                3, throughput / cpuBound, throughput * 0.01, 1, 1.5);
    }

    @Test
    void orderSweep() {
        shownBothWays(OrderSweep.SWEEP_EXPECTED, List.of(
                List.of(order("pool", 1000, 1800, 20_000, 208), order("pool", 2000, 1810, 20_000, 208),
                        order("virtual", 1000, 8000, 9_000, 12), order("virtual", 2000, 8500, 9_000, 12),
                        order("reactive", 1000, 8200, 9_000, 10), order("reactive", 2000, 9000, 9_000, 10)),
                // a pool that falls far short of its 200 threads; virtual threads far under their CPU while Reactor
                // is at its own, and Reactor's lead shrinking
                List.of(order("pool", 1000, 900, 20_000, 208), order("pool", 2000, 1000, 20_000, 208),
                        order("virtual", 1000, 500, 9_000, 12), order("virtual", 2000, 1050, 9_000, 12),
                        order("reactive", 1000, 8000, 9_000, 300), order("reactive", 2000, 9000, 9_000, 300)),
                // the full profile's 5,000 and 10,000 users: throughput falls as the users grow
                List.of(order("pool", 5000, 1810, 20_000, 208), order("pool", 10000, 1815, 20_000, 208),
                        order("virtual", 5000, 8000, 8_500, 12), order("virtual", 10000, 7200, 7_600, 12),
                        order("reactive", 5000, 8100, 8_500, 10), order("reactive", 10000, 7900, 8_000, 10)),
                // and where it rises with the CPU to spare
                List.of(order("pool", 5000, 1810, 20_000, 208), order("pool", 10000, 1815, 20_000, 208),
                        order("virtual", 5000, 6000, 30_000, 12), order("virtual", 10000, 9000, 30_000, 12),
                        order("reactive", 5000, 6100, 30_000, 10), order("reactive", 10000, 9100, 30_000, 10))));
    }

    @Test
    void orderWithDependencies() {
        shownBothWays(OrderSweep.DEPENDENCIES_EXPECTED, List.of(
                List.of(order("virtual", 200, 1000, 1_050, 12), order("reactive", 200, 1100, 1_150, 10)),
                List.of(order("virtual", 200, 1000, 1_050, 12), order("reactive", 200, 500, 1_150, 10))));
    }

    @Test
    void hiddenBlocking() {
        shownBothWays(OrderSweep.HIDDEN_BLOCKING_EXPECTED, List.of(
                List.of(new Comparison("reactive", 900, 9, 909, Double.NaN),
                        new Comparison("reactive-blocking", 20, 0.5, 20.7, Double.NaN)),
                // a blocking call on few requests, or on loops that are many: hardly any collapse
                List.of(new Comparison("reactive", 900, 9, 909, Double.NaN),
                        new Comparison("reactive-blocking", 600, 6, 640, Double.NaN))));
    }

    @Test
    void stackTraces() {
        shownBothWays(OrderSweep.TRACES_EXPECTED, List.of(
                List.of(new OrderSweep.TraceCount("blocking, virtual threads", 40, 4, "stock <- stockService"),
                        new OrderSweep.TraceCount("reactive", 60, 1, "lambda")),
                // a reactive chain run with its debug hooks keeps the whole path
                List.of(new OrderSweep.TraceCount("blocking, virtual threads", 40, 4, "stock <- stockService"),
                        new OrderSweep.TraceCount("reactive", 90, 4, "stock <- stockServiceReactive"))));
    }
}
