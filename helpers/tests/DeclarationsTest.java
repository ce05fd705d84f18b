package unpinned.course;

import unpinned.experiments.Backpressure;
import unpinned.experiments.CarrierScaling;
import unpinned.experiments.CarrierTimeline;
import unpinned.experiments.EndpointLoad;
import unpinned.experiments.ExecutorBatches;
import unpinned.experiments.IoPath;
import unpinned.experiments.JfrRuns;
import unpinned.experiments.LazyThaw;
import unpinned.experiments.Mounting;
import unpinned.experiments.NoTimeSlicing;
import unpinned.experiments.OrderSweep;
import unpinned.experiments.Pinning;
import unpinned.experiments.Profiling;
import unpinned.experiments.ReactiveDriver;
import unpinned.experiments.SchedulerInternals;
import unpinned.experiments.SchedulerRuns;
import unpinned.experiments.SpringLoad;
import unpinned.experiments.StackChunks;
import unpinned.experiments.SwitchCosts;
import unpinned.experiments.Switches;
import unpinned.experiments.ThreadCost;
import unpinned.experiments.UnparkStealing;
import unpinned.experiments.VirtualThreadEvents;
import unpinned.experiments.WakeUps;
import unpinned.running.Jfr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
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
        return sleep(mode, threads, 100, throughput, meanMs, cpuBound);
    }

    static EndpointLoad.SleepRun sleep(String mode, int threads, int sleepMs, double throughput, double meanMs,
                                       double cpuBound) {
        int users = 500;
        double bound = Math.min(users, mode.equals("pool") ? threads : users) / (sleepMs / 1000.0);
        return new EndpointLoad.SleepRun(mode.equals("pool") ? "platform-pool-" + threads : "virtual", mode,
                mode.equals("pool") ? threads : 0, users, sleepMs, throughput, bound, Double.NaN, meanMs,
                Math.max(sleepMs, users / bound * 1000), Double.NaN, sleepMs + 0.2, meanMs * 1.1, meanMs * 1.3, 5, 0,
                60, 20, 200, 40, 0.05, users, 3, throughput * 0.01, meanMs * 0.01, cpuBound, Double.NaN);
    }

    @Test
    void sleepingEndpoint() {
        shownBothWays(EndpointLoad.SLEEP_EXPECTED, List.of(
                // at 10 ms the virtual server is capped by the CPU, so the gain grows with the wait
                List.of(sleep("pool", 50, 495, 1008, 20_000), sleep("virtual", 0, 4950, 101, 20_000),
                        sleep("pool", 50, 10, 4900, 102, 9_000), sleep("virtual", 0, 10, 8_900, 56, 9_000)),
                // two busy cores, a slow pool and a CPU-starved virtual server: every gain falls short
                List.of(sleep("pool", 50, 300, 1600, 1_000), sleep("virtual", 0, 320, 1500, 1_000)),
                // as many threads as users: nothing queues, latency stays the same; and CPU to spare at 10 ms too
                List.of(sleep("pool", 500, 4900, 102, 20_000), sleep("virtual", 0, 4950, 101, 20_000),
                        sleep("pool", 500, 10, 49_000, 10.2, 200_000), sleep("virtual", 0, 10, 49_500, 10.1, 200_000))));
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

    // ------------------------------------------------------------------------------------------ chapter 03

    static Mounting.Sleepers sleepers(double oneThreadMs, double virtualMs) {
        double[] one = {oneThreadMs, oneThreadMs * 1.01, oneThreadMs * 0.99, oneThreadMs * 1.02, oneThreadMs};
        double[] vt = {virtualMs, virtualMs * 1.01, virtualMs * 0.99, virtualMs * 1.02, virtualMs};
        return new Mounting.Sleepers(10_000, 50, one, vt);
    }

    @Test
    void sleepersOnOneThread() {
        shownBothWays(Mounting.SLEEPERS_EXPECTED, List.of(
                sleepers(60, 58),
                // a scheduler that ran the sleeps one after another would take 10,000 sleeps; this one lost time
                sleepers(200, 120)));
    }

    @Test
    void sleepInsideOurContinuation() {
        shownBothWays(Mounting.BLOCKING_EXPECTED, List.of(
                new Mounting.Blocking(10, 50, 503),
                // a sleep that had given the one thread back: about one sleep for all ten
                new Mounting.Blocking(10, 50, 55)));
    }

    @Test
    void carrierHops() {
        shownBothWays(Mounting.HOPS_EXPECTED, List.of(
                new Mounting.Hops(8, 200, 800, 2, 2),
                // two carriers taking turns: a change after almost every block, past a random pick's share
                new Mounting.Hops(8, 200, 1_550, 2, 2),
                // threads that kept to their carrier: almost no changes
                new Mounting.Hops(8, 200, 50, 2, 2),
                new Mounting.Hops(4, 200, 0, 1, 1)));
    }

    static ThreadCost cost(String kind, int threads, int depth, double heap, double rss, int live) {
        return new ThreadCost(kind, threads, depth, threads * (kind.equals("platform") ? 150e-6 : 2e-6), heap, rss,
                live);
    }

    @Test
    void threadCost() {
        shownBothWays(ThreadCost.COST_EXPECTED, List.of(
                List.of(cost("platform", 4_000, 10, 500, 1_100_000, 4_020), cost("virtual", 100_000, 10, 1_100, 1_000, 14)),
                // platform threads that touched little of their stacks; virtual ones with a carrier each, as slow
                // to start as an OS thread
                List.of(cost("platform", 4_000, 10, 500, 20_000, 4_020),
                        new ThreadCost("virtual", 100_000, 10, 15, 5_000, 6_000, 100_014))));
    }

    @Test
    void stackDepth() {
        shownBothWays(ThreadCost.DEPTH_EXPECTED, List.of(
                List.of(cost("virtual", 10_000, 10, 1_077, 1_100, 14), cost("virtual", 10_000, 1_000, 25_839, 26_000, 14)),
                // frames kept elsewhere than the heap, and a thread dearer than the source's 1 KB
                List.of(cost("virtual", 10_000, 10, 2_000, 2_100, 14), cost("virtual", 10_000, 1_000, 2_100, 2_200, 14))));
    }

    static StackChunks.Chunks chunks(int parked, long chunks) {
        return new StackChunks.Chunks("25", 25, parked, List.of(
                new StackChunks.ChunkRow("park", 10, parked, chunks, chunks * 500, chunks / (double) parked, 500, parked),
                new StackChunks.ChunkRow("park", 100, parked, chunks, chunks * 3_000, chunks / (double) parked, 3_000,
                        parked)));
    }

    @Test
    void stackChunks() {
        shownBothWays(StackChunks.EXPECTED, List.of(
                Map.of("JDK 21", chunks(1_000, 1_000), "JDK 25", chunks(1_000, 1_003))));
    }

    static Switches switches(String kind, long voluntary, double perSecond, long minimum) {
        return switches(kind, voluntary, perSecond, minimum, 2);
    }

    static Switches switches(String kind, long voluntary, double perSecond, long minimum, double userToKernel) {
        return new Switches(kind, 1.2, voluntary, 100, perSecond, userToKernel, minimum);
    }

    @Test
    void contextSwitches() {
        shownBothWays(Switches.EXPECTED, List.of(
                List.of(switches("platform", 20_700, 17_000, 20_000), switches("virtual", 5_800, 4_800, 0)),
                // the seminar's sizes: 3.8 x the switches, user:kernel 6.2 : 1 against 1.3 : 1
                List.of(switches("platform", 20_700, 19_900, 20_000, 1.3), switches("virtual", 5_800, 5_300, 0, 6.2)),
                // carriers that parked in the kernel after every wake-up, as often as the platform threads slept
                List.of(switches("platform", 20_700, 17_000, 20_000), switches("virtual", 20_600, 17_500, 0))));
    }

    static SwitchCosts.PingPong ping(String threads, double ns, double switches) {
        return new SwitchCosts.PingPong("JDK 25", threads, ns, ns * 0.05, new double[] {ns * 0.98, ns, ns * 1.02},
                switches, new double[] {switches * 0.99, switches, switches * 1.01});
    }

    static SwitchCosts.Depth depth(int frames, double words, double ns) {
        return new SwitchCosts.Depth("JDK 25", frames, words, ns, ns * 0.05, new double[] {ns * 0.98, ns, ns * 1.02});
    }

    static Map<String, SwitchCosts.Run> switchCost(double platformNs, double platformSwitches, double virtualNs,
                                                   double virtualSwitches, double deepNs) {
        return Map.of("JDK 25", new SwitchCosts.Run("JDK 25", List.of(ping("virtual", virtualNs, virtualSwitches),
                ping("platform", platformNs, platformSwitches)), List.of(depth(1, 20, 100), depth(1_000, 3_030, deepNs))));
    }

    @Test
    void switchCost() {
        shownBothWays(SwitchCosts.EXPECTED, List.of(
                switchCost(12_000, 2.1, 400, 0.001, 250),
                // platform threads that spun instead of parking, and each virtual switch through the kernel too;
                // a continuation that copied every word back at each thaw
                switchCost(600, 0.05, 500, 1.0, 6_000)));
    }

    static LazyThaw.Park park(int depth, int wordsAfterResume, int thaws, double framesPerThaw) {
        return new LazyThaw.Park(depth, depth * 7, wordsAfterResume, new int[] {0}, thaws, 7, framesPerThaw * 7,
                framesPerThaw, 300, depth);
    }

    @Test
    void lazyThaw() {
        shownBothWays(SwitchCosts.LAZY_THAW_EXPECTED, List.of(
                Map.of("JDK 25", new LazyThaw.Run("25", 25, 500, park(400, 2_780, 330, 1), park(40, 0, 0, Double.NaN))),
                // interpreted frames thawed several at a time (thaw_slow), the shallow chunk a frame at a time too
                Map.of("JDK 25", new LazyThaw.Run("25", 25, 500, park(400, 2_780, 100, 3), park(40, 250, 40, 1))),
                // no lazy thaw at all: every frame back at the first mount
                Map.of("JDK 25", new LazyThaw.Run("25", 25, 500, park(400, 0, 1, Double.NaN), park(40, 0, 0, Double.NaN)))));
    }

    // ------------------------------------------------------------------------------------------ chapter 05

    static Pinning.Row pin(String jdk, String operation, double timeToSleep, String verdict, String expected) {
        return new Pinning.Row(jdk, jdk.substring(4), operation, 2, 200, 200 * timeToSleep, timeToSleep, 0,
                verdict.equals("pins") ? 2 : 0, "-", verdict, expected);
    }

    @Test
    void pinningCases() {
        shownBothWays(Pinning.PINNING_EXPECTED, List.of(
                List.of(pin("JDK 21", "none", 1.01, "unmounts", "unmounts"),
                        pin("JDK 21", "synchronized-sleep", 2.0, "pins", "pins"),
                        pin("JDK 21", "reentrant-lock", 1.02, "unmounts", "unmounts"),
                        pin("JDK 25", "none", 1.01, "unmounts", "unmounts"),
                        pin("JDK 25", "synchronized-sleep", 1.02, "unmounts", "unmounts"),
                        pin("JDK 25", "native-upcall-sleep", 2.01, "pins", "pins")),
                // a JDK 25 whose monitors still pinned, and a native frame that did not: not what JEP 491 predicts
                List.of(pin("JDK 21", "synchronized-sleep", 2.0, "pins", "pins"),
                        pin("JDK 25", "synchronized-sleep", 2.0, "pins", "unmounts"),
                        pin("JDK 25", "native-upcall-sleep", 1.01, "unmounts", "pins")),
                // a JDK 21 whose monitors unmounted, a ReentrantLock that pinned, plain sleeps that took turns
                List.of(pin("JDK 21", "synchronized-sleep", 1.01, "unmounts", "pins"),
                        pin("JDK 21", "reentrant-lock", 2.0, "pins", "unmounts"),
                        pin("JDK 21", "none", 2.0, "pins", "unmounts"))));
        shownBothWays(Pinning.CLASS_LOADING_EXPECTED, List.of(
                List.of(pin("JDK 25", "class-init", 2.0, "pins", "pins")),
                List.of(pin("JDK 25", "loadclass-slow-loader", 2.0, "pins", "unmounts"))));
    }

    static Pinning.Traced traced(int feature, int blocks) {
        return new Pinning.Traced(new Pinning.Run("" + feature, feature, 1, 1, 2, 20, List.of(), 0, 0, Map.of(), false,
                new Pinning.Trace("jdk.tracePinnedThreads", "--trace-pinned", feature < 24, blocks, Map.of(), ""),
                null, null, null, null), List.of());
    }

    @Test
    void tracePinnedThreads() {
        shownBothWays(Pinning.TRACE_EXPECTED, List.of(
                Map.of("JDK 21", traced(21, 1), "JDK 25", traced(25, 0)),
                // a JDK 21 that printed nothing for a thread that pinned
                Map.of("JDK 21", traced(21, 0), "JDK 25", traced(25, 0)),
                Map.of("JDK 25", traced(25, 0))));
    }

    // ------------------------------------------------------------------------------------------ chapter 06

    /**
     * A Spring run: "Tomcat N" or "virtual threads" at {@code users} on an endpoint that waits {@code service} s (NaN:
     * it computes), with its figures' spreads at 1 % and 2 cores.
     */
    static SpringLoad.SpringRow spring(String experiment, String mode, int users, double service, double throughput,
                                       double meanMs, double p99Ms, double maxMs, double sdMs, double minMs,
                                       double serverCpuUs, double cpuBound, long errors) {
        boolean virtual = mode.startsWith("virtual");
        int threads = virtual ? users : Integer.parseInt(mode.substring("Tomcat ".length()));
        double bound = Double.isNaN(service) ? cpuBound : Math.min(users, threads) / service;
        double cores = throughput * serverCpuUs / 1e6;
        return new SpringLoad.SpringRow(experiment, mode, users, throughput, bound, throughput / bound, meanMs, minMs,
                maxMs, sdMs, p99Ms, errors, serverCpuUs, virtual ? 14 : threads + 11, Double.isNaN(service) ? 2 : 3,
                service, 50, throughput / cpuBound, throughput * 0.01, meanMs * 0.01, p99Ms * 0.01, maxMs * 0.01,
                sdMs * 0.01, serverCpuUs * 0.01, cores, cores * 0.01, 0.05, cpuBound, 2, virtual ? 1 : 0,
                virtual ? 1 : 0);
    }

    static SpringLoad.SpringRow sleep100(String mode, double throughput, double meanMs, double p99Ms, double maxMs,
                                         double sdMs, double minMs, double cpuBound, long errors) {
        return spring("pr", mode, 500, 0.1, throughput, meanMs, p99Ms, maxMs, sdMs, minMs, 400, cpuBound, errors);
    }

    @Test
    void pullRequest() {
        shownBothWays(SpringLoad.PR_EXPECTED, List.of(
                // the pull request's laptop: Tomcat 50 at its bound, virtual threads far above with cores to spare
                List.of(sleep100("Tomcat 50", 495, 1000, 1100, 1141, 197, 100.2, 20_000, 0),
                        sleep100("virtual threads", 4600, 105, 150, 177, 9.8, 100.1, 20_000, 0)),
                // a busy machine: the pool short of its bound and failing a few; virtual threads CPU-bound, queued for
                // the CPU with a long tail
                List.of(sleep100("Tomcat 50", 300, 1600, 1485, 1600, 150, 100.5, 1_600, 3),
                        sleep100("virtual threads", 1565, 320, 2771, 3000, 400, 100.3, 1_600, 0)),
                // virtual threads short of the source's gain with cores to spare; every pooled request queued
                List.of(sleep100("Tomcat 50", 495, 1000, 1100, 1141, 197, 950, 20_000, 0),
                        sleep100("virtual threads", 1000, 500, 900, 1000, 150, 100.1, 20_000, 0))));
    }

    static SpringLoad.SpringRow oneSecond(String mode, double throughput, double cpuBound, double onVirtual,
                                          double async, int cores) {
        SpringLoad.SpringRow r = spring("jpa-blog", mode, 200, 1.0, throughput, 200 / throughput * 1000,
                2000, 2100, 50, 1000.2, 900, cpuBound, 0);
        return new SpringLoad.SpringRow(r.experiment(), r.mode(), r.users(), r.throughput(), r.bound(),
                r.ratioToBound(), r.meanMs(), r.minMs(), r.maxMs(), r.stdDevMs(), r.p99Ms(), r.errors(),
                r.serverCpuUsPerRequest(), r.serverLiveThreads(), 5, r.serviceSeconds(), r.clientCpuUsPerRequest(),
                r.cpuUtilisation(), r.throughputSpread(), r.meanMsSpread(), r.p99MsSpread(), r.maxMsSpread(),
                r.stdDevMsSpread(), r.serverCpuUsSpread(), r.serverCores(), r.serverCoresSpread(), r.otherCpuCores(),
                r.cpuBound(), cores, onVirtual, async);
    }

    @Test
    void jdk25Post() {
        List<SpringLoad.ActuatorRow> actuator = List.of(new SpringLoad.ActuatorRow("Tomcat 10", 22, 80, 3),
                new SpringLoad.ActuatorRow("virtual threads", 15, 70, 3));
        shownBothWays(SpringLoad.POST_EXPECTED, List.of(
                new SpringLoad.PostRuns(List.of(oneSecond("Tomcat 10", 9.9, 20_000, 0, 0, 2),
                        oneSecond("virtual threads", 199, 20_000, 1, 1, 2)), actuator),
                // a Spring that ignored the property, a pool short of its 10 threads
                new SpringLoad.PostRuns(List.of(oneSecond("Tomcat 10", 5, 20_000, 0, 0, 2),
                        oneSecond("virtual threads", 5.2, 20_000, 0, 0, 2)), actuator),
                // a big machine: the small-server claim can't be tested there
                new SpringLoad.PostRuns(List.of(oneSecond("Tomcat 10", 9.9, 20_000, 0, 0, 16),
                        oneSecond("virtual threads", 199, 20_000, 1, 1, 16)), actuator)));
    }

    static List<SpringLoad.SpringRow> seminar(double ioPool, double ioVirtual, double ioVirtualCpuBound,
                                              double cpuPool, double cpuPoolUs, double cpuVirtual, double cpuVirtualUs) {
        return List.of(spring("io", "Tomcat 200", 100, 0.2, 495, 202, 240, 260, 5, 200.1, 900, 20_000, 0),
                spring("io", "Tomcat 200", 1000, 0.2, ioPool, 1000 / ioPool * 1000, 1100, 1200, 80, 200.1, 900,
                        20_000, 0),
                spring("io", "virtual threads", 100, 0.2, 495, 202, 230, 250, 5, 200.1, 900, 20_000, 0),
                spring("io", "virtual threads", 1000, 0.2, ioVirtual, 1000 / ioVirtual * 1000, 400, 500, 40, 200.1,
                        900, ioVirtualCpuBound, 0),
                spring("cpu", "Tomcat 200", 20, Double.NaN, cpuPool, 20 / cpuPool * 1000, 80, 90, 10, 5, cpuPoolUs,
                        cpuPool, 0),
                spring("cpu", "Tomcat 200", 200, Double.NaN, cpuPool, 200 / cpuPool * 1000, 800, 900, 100, 5,
                        cpuPoolUs, cpuPool, 0),
                spring("cpu", "virtual threads", 20, Double.NaN, cpuVirtual, 20 / cpuVirtual * 1000, 80, 90, 10, 5,
                        cpuVirtualUs, cpuVirtual, 0),
                spring("cpu", "virtual threads", 200, Double.NaN, cpuVirtual, 200 / cpuVirtual * 1000, 800, 900, 100,
                        5, cpuVirtualUs, cpuVirtual, 0));
    }

    @Test
    void seminarTest2() {
        shownBothWays(SpringLoad.SEMINAR_EXPECTED, List.of(
                // the write-up's shape: Tomcat at its bound, virtual threads 4.5 x; on /cpu each request costs the
                // virtual server 5 % more CPU
                seminar(990, 4500, 20_000, 300, 6000, 300, 6300),
                // a pool short of its bound, virtual threads hardly ahead with cores to spare; on /cpu the virtual
                // server spends less per request
                seminar(600, 700, 20_000, 300, 6000, 280, 5600),
                // the quick profile on 2 busy cores: virtual threads held by the CPU
                seminar(990, 1500, 1_550, 300, 6000, 210, 6050)));
    }

    @Test
    void frameworkCost() {
        shownBothWays(SpringLoad.FRAMEWORK_EXPECTED, List.of(
                List.of(new SpringLoad.FrameworkCost("virtual threads", "JDK HttpServer", 4900, 0.98, 150, 12, Double.NaN),
                        new SpringLoad.FrameworkCost("virtual threads", "Spring Boot", 4600, 0.92, 600, 15, 6)),
                // a framework leaner than the plain server it is compared with
                List.of(new SpringLoad.FrameworkCost("virtual threads", "JDK HttpServer", 4900, 0.98, 150, 12, Double.NaN),
                        new SpringLoad.FrameworkCost("virtual threads", "Spring Boot", 4900, 0.98, 100, 15, 1))));
    }

    static OrderSweep.Row springOrder(String impl, double throughput, double meanMs, double p99Ms, double rssMb,
                                      double serverCpuUs) {
        double little = OrderSweep.littleBound(impl, 200, 200), cpuBound = throughput * 1.02;
        return new OrderSweep.Row(impl, 200, throughput, little, cpuBound, throughput / Math.min(little, cpuBound),
                meanMs, 110, p99Ms, p99Ms * 1.5, 0, serverCpuUs, 400, 300, 0.05, rssMb, 100, 14, Double.NaN, 2,
                throughput / cpuBound, throughput * 0.01, meanMs * 0.01, p99Ms * 0.01);
    }

    @Test
    void mvcVsWebflux() {
        shownBothWays(OrderSweep.SPRING_EXPECTED, List.of(
                List.of(springOrder("virtual", 600, 330, 500, 90, 800), springOrder("reactive", 650, 310, 450, 80, 600),
                        springOrder("spring-mvc-virtual", 220, 909, 1200, 250, 3000),
                        springOrder("spring-webflux", 230, 870, 900, 180, 2600)),
                // WebFlux behind, slower on average, with the shorter tail on MVC's side and more memory; a Spring
                // cheaper than the HttpServer
                List.of(springOrder("virtual", 600, 330, 500, 90, 800), springOrder("reactive", 650, 310, 450, 80, 600),
                        springOrder("spring-mvc-virtual", 230, 870, 900, 250, 700),
                        springOrder("spring-webflux", 200, 1000, 1000, 260, 2600))));
    }

    // ------------------------------------------------------------------------------------------ chapter 07

    /** One S23 level: pool 10, 50 ms queries, a 2 s window counted in quarter seconds (1 % apart). */
    static Backpressure.Level level(String run, int fastUsers, int slowUsers, double fastThroughput, long timeouts,
                                    int poolWaiters) {
        double w = 2, q = 0.05;
        long ok = Math.round(fastThroughput * w);
        long[] slices = new long[8];
        for (int i = 0; i < 8; i++) slices[i] = Math.round(ok / 8.0 * (i % 2 == 0 ? 1.01 : 0.99));
        Backpressure.Stats f = new Backpressure.Stats(ok, timeouts, 0, 0, null, 5, 20, 1, 5, 60,
                timeouts > 0 ? fastUsers / 2 : 0, slices);
        Backpressure.Stats s = new Backpressure.Stats(slowUsers > 0 ? 20 : 0, 0, 0, 0, null, 1, 2, 1, 2, 500, 0,
                new long[8]);
        boolean mixed = run.equals("mixed") || run.equals("bulkhead");
        return Backpressure.Level.of(run, fastUsers, slowUsers, 10, q, 10 * q, w, f, s, Math.min(fastUsers, 10),
                mixed ? Math.min(slowUsers, run.equals("bulkhead") ? 5 : 10) : 0, poolWaiters, 0);
    }

    static Backpressure.PoolCapRun poolCap(double atTop, long timeoutsAt50, int waitersAtTop, double semaphore,
                                           double bulkheadFast) {
        return new Backpressure.PoolCapRun(10, 50, 500, new Backpressure.DatabaseInfo("postgresql-embedded", "17"),
                List.of(level("none", 5, 0, 97, 0, 0), level("none", 10, 0, 196, 0, 0),
                        level("none", 50, 0, 190, timeoutsAt50, 38), level("none", 200, 0, atTop, 700, waitersAtTop),
                        level("semaphore", 200, 0, semaphore, 0, 0)),
                List.of(level("mixed", 5, 200, 60, 30, 190), level("bulkhead", 5, 200, bulkheadFast, 0, 0)));
    }

    @Test
    void poolCap() {
        shownBothWays(Backpressure.POOL_EXPECTED, List.of(
                poolCap(198, 300, 185, 197, 98),
                // a fair pool: nobody waits past the mean; users held back before the pool (a thread cap); a slow
                // semaphore and a bulkhead that starves the fast queries
                poolCap(150, 0, 40, 100, 60)));
    }

    static Backpressure.WriteRow writes(String mode, double throughput, int liveAfter, long started, double cpuMs,
                                        double heapMb) {
        return new Backpressure.WriteRow(mode, throughput, throughput * 1.1, 0.9, 20, 80, Math.round(throughput * 2),
                liveAfter, liveAfter, cpuMs, heapMb, false, 250_000, 0.9, started, throughput * 0.01, heapMb * 0.8);
    }

    @Test
    void parallelWrites() {
        shownBothWays(Backpressure.WRITES_EXPECTED, List.of(
                List.of(writes("virtual", 8300, 15, 16_600, 0.2, 200), writes("fixed-leak", 880, 5715, 1900, 1.7, 250),
                        writes("fixed-closed", 900, 16, 1800, 1.8, 170)),
                // the post's reading: platform threads that stay after their pools close; a JDK that reclaims pools
                // never shut down; virtual threads no faster and no cheaper
                List.of(writes("virtual", 150, 38, 300, 0.2, 200), writes("fixed-leak", 156, 900, 1900, 0.2, 75),
                        writes("fixed-closed", 150, 3000, 1800, 0.15, 170))));
    }

    static ReactiveDriver.Row driver(String driver, String workload, double throughput, double clientUs) {
        boolean waits = workload.equals("wait");
        double bound = waits ? 500 : Double.NaN, ceiling = waits ? 510 : Double.NaN;
        return new ReactiveDriver.Row(driver, workload, 50, 10, waits ? 20 : 0, Math.round(throughput), throughput,
                bound, ceiling, throughput / bound, clientUs, 30, 0.9, driver.equals("jdbc") ? 20 : 12,
                driver.equals("jdbc") ? 50 : 0, throughput * 0.01);
    }

    @Test
    void reactiveDriver() {
        shownBothWays(ReactiveDriver.EXPECTED, List.of(
                List.of(driver("jdbc", "wait", 490, 40), driver("r2dbc", "wait", 485, 60),
                        driver("jdbc", "select1", 10_000, 40), driver("r2dbc", "select1", 16_000, 25)),
                List.of(driver("jdbc", "wait", 490, 40), driver("r2dbc", "wait", 300, 60),
                        driver("jdbc", "select1", 22_499, 40), driver("r2dbc", "select1", 4_337, 150))));
    }

    static Backpressure.FanOutRow fan(String impl, double elapsedMs, int written) {
        return new Backpressure.FanOutRow(impl, elapsedMs, elapsedMs / 500, written, 4, "{}", 500, elapsedMs * 0.02);
    }

    @Test
    void structuredFanOut() {
        shownBothWays(Backpressure.FAN_OUT_EXPECTED, List.of(
                List.of(fan("structured", 5, 0), fan("futures-cancel", 5, 4), fan("futures", 510, 4)),
                // a scope whose siblings ignore the interrupt, and a cancel that stops them before they write
                List.of(fan("structured", 300, 2), fan("futures-cancel", 300, 0), fan("futures", 510, 4))));
    }

    static Backpressure.ScopedRun scoped(double threadLocalBytes, double scopedBytes) {
        return new Backpressure.ScopedRun(100_000, 1040, List.of(new Backpressure.HeapRow("none", 74, 740),
                new Backpressure.HeapRow("scopedvalue", 74 + 0.1 * (scopedBytes - 740), scopedBytes),
                new Backpressure.HeapRow("threadlocal", 74 + 0.1 * (threadLocalBytes - 740), threadLocalBytes)));
    }

    @Test
    void scopedValues() {
        shownBothWays(Backpressure.SCOPED_EXPECTED, List.of(scoped(1990, 1200),
                // a ThreadLocal whose initial value is one shared object; a binding that copies
                scoped(1040, 1640)));
    }

    // ------------------------------------------------------------------------------------------ chapter 04

    @Test
    void stealCounter() {
        shownBothWays(UnparkStealing.STEAL_COUNTER_EXPECTED, List.of(new UnparkStealing.KernelSteals(5_000, 5_001),
                // a counter that counts only the tasks taken from another carrier's queue
                new UnparkStealing.KernelSteals(5_000, 300)));
    }

    static CarrierTimeline.Run timeline(int parallelism, int tasks, int stolen) {
        var u = new CarrierTimeline.Unbalanced(tasks, 0.5, 20, List.of("ForkJoinPool-1-worker-1"), stolen + 1, stolen,
                stolen / (double) tasks, (parallelism - 1.0) / parallelism, null, 0, null, List.of(), List.of());
        return new CarrierTimeline.Run(2, parallelism, parallelism, 100, 0, stolen + 1, stolen + 1, "25", u, null);
    }

    @Test
    void carrierTimeline() {
        shownBothWays(CarrierTimeline.EXPECTED, List.of(timeline(2, 2_000, 900),
                // the spawner's carrier ran nearly all: the other carrier busy elsewhere
                timeline(2, 2_000, 150), timeline(1, 2_000, 0)));
    }

    static UnparkStealing.Run unpark(int feature, int threads, int off, long wakerQueueMax, long submissionQueueMax) {
        return new UnparkStealing.Run(feature + "", feature, 2, threads, 50, 100, "ForkJoinPool-1-worker-1", 1, 60,
                off + 1, off, off / (double) threads, wakerQueueMax, 0, submissionQueueMax, List.of(), List.of());
    }

    @Test
    void unparkStealing() {
        shownBothWays(UnparkStealing.EXPECTED, List.of(
                Map.of("JDK 21", unpark(21, 2_000, 885, 1_998, 0), "JDK 25", unpark(25, 2_000, 718, 1_991, 0)),
                // an unpark that submits externally: the woken threads wait in the submission queues
                Map.of("JDK 25", unpark(25, 2_000, 900, 10, 1_990)),
                // the woken threads wait in the waker's queue and nobody steals them
                Map.of("JDK 25", unpark(25, 2_000, 20, 1_995, 0))));
    }

    static CarrierScaling scaling(int carriers, double ioMs, double cpuMs, double carrierCpuMs) {
        double[] io = {ioMs * 0.99, ioMs, ioMs * 1.01, ioMs, ioMs * 1.005};
        double[] cpu = {cpuMs * 0.99, cpuMs, cpuMs * 1.01, cpuMs, cpuMs * 1.005};
        return new CarrierScaling(carriers, 2, ioMs, 50, cpuMs, cpuMs * 0.99, carrierCpuMs / Math.min(carriers, 2),
                carrierCpuMs, io, cpu);
    }

    static CarrierScaling scaling(int carriers, double ioMs, double cpuMs, double carrierCpuMs, double othersCores) {
        var r = scaling(carriers, ioMs, cpuMs, carrierCpuMs);
        return new CarrierScaling(r.carriers(), r.cores(), r.ioWallMs(), r.ioBoundMs(), r.cpuWallMs(),
                r.cpuWallMinMs(), r.cpuBoundMs(), r.carrierCpuMs(), r.ioWallMsAll(), r.cpuWallMsAll(), othersCores);
    }

    // Beside a one-thread CPU hog on 2 cores the OS shares the cores among the runnable threads: P carriers get
    // 2P / (P + 1) cores (1, 1.33, 1.6) and the hog the rest (1, 0.67, 0.4).
    static final List<CarrierScaling> BESIDE_A_HOG = List.of(scaling(1, 52, 400, 395, 0.97),
            scaling(2, 53, 300, 396, 0.66), scaling(4, 53, 250, 398, 0.41));

    @Test
    void carrierScaling() {
        shownBothWays(CarrierScaling.EXPECTED, List.of(
                List.of(scaling(1, 52, 400, 395), scaling(2, 52, 205, 396), scaling(4, 53, 206, 398)),
                // a sleeping batch that waits for a carrier; a second carrier whose core is busy elsewhere; four
                // carriers that spend far less CPU than two (so they finish faster on the same cores)
                List.of(scaling(1, 70, 400, 395), scaling(2, 52, 390, 396), scaling(4, 53, 200, 396)),
                BESIDE_A_HOG,
                // beside a process using 0.66 of a core, two carriers no faster than one: a free core left idle
                List.of(scaling(1, 52, 400, 395, 0.97), scaling(2, 52, 400, 396, 0.66),
                        scaling(4, 53, 250, 398, 0.41))));
    }

    @Test
    void carrierScalingCountsTheCoresOtherProcessesLeft() {
        Busy.State hog = new Busy.State(0.7, 1.3, 2, 10);
        for (Busy.State machine : List.of(IDLE, hog)) {
            for (var j : CarrierScaling.EXPECTED.judge(BESIDE_A_HOG, machine).judgements()) {
                assertNotEquals(Verdict.REFUTED, j.verdict(), j.sentence());
            }
        }
        var needsACore = CarrierScaling.EXPECTED.judge(BESIDE_A_HOG, IDLE).get("computing-needs-a-core");
        assertEquals(Verdict.CONFIRMED, needsACore.verdict(), needsACore.sentence());
        assertTrue(needsACore.sentence().contains("beside other processes using 0.66 of a core, 2 carriers' bound is"
                + " its CPU time / 1.34 cores"), needsACore.sentence());
        // the same times on an idle machine: two carriers left a core unused
        var idle = List.of(scaling(1, 52, 400, 395), scaling(2, 53, 300, 396), scaling(4, 53, 250, 398));
        assertEquals(Verdict.REFUTED, CarrierScaling.EXPECTED.judge(idle, IDLE).get("computing-needs-a-core").verdict());
    }

    static NoTimeSlicing.Pings pings(String kind, double worstMs) {
        return new NoTimeSlicing.Pings(kind, 1_000, 0.1, worstMs, 0.1, new double[0], new double[0]);
    }

    @Test
    void noTimeSlicing() {
        shownBothWays(NoTimeSlicing.EXPECTED, List.of(List.of(pings("virtual", 980), pings("platform", 5)),
                // a scheduler that preempts virtual threads; an OS that lets a hog run its whole slice and more
                List.of(pings("virtual", 50), pings("platform", 900))));
    }

    static List<EndpointLoad.CpuRun> cpuRuns(String mode, double bound, double... throughputs) {
        List<EndpointLoad.CpuRun> out = new ArrayList<>();
        for (int i = 0; i < throughputs.length; i++) {
            double t = throughputs[i];
            out.add(new EndpointLoad.CpuRun(mode.equals("pool") ? "pool of 200" : "virtual threads", mode, i + 1,
                    mode.equals("pool") ? 200 : 0, t, bound, t / bound, t / bound, 20, 60, 0, 1_500, 400, 1_900, 0.05,
                    20, 100, 5));
        }
        return out;
    }

    static List<EndpointLoad.CpuRun> endpoint(List<EndpointLoad.CpuRun> a, List<EndpointLoad.CpuRun> b) {
        List<EndpointLoad.CpuRun> all = new ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    @Test
    void cpuEndpoint() {
        shownBothWays(EndpointLoad.CPU_EXPECTED, List.of(
                endpoint(cpuRuns("pool", 1_050, 1_000, 1_010, 990), cpuRuns("virtual", 1_040, 980, 1_000, 990)),
                // virtual threads spending far less CPU per request: 50 % ahead on cores as busy
                endpoint(cpuRuns("pool", 1_050, 1_000, 1_010, 990), cpuRuns("virtual", 1_550, 1_500, 1_510, 1_490)),
                // a server that leaves cores idle (a lock, too few threads)
                endpoint(cpuRuns("pool", 1_050, 1_000, 1_010, 990), cpuRuns("virtual", 1_040, 600, 610, 590))));
    }

    static IoPath.Result ioPath(int feature, int parked, long pending, int blocked) {
        var sockets = new IoPath.Sockets(100, null, "VTHREAD_POLLERS", List.of(), 1, 0, parked, 100, 0, null, null, 1);
        var timers = new IoPath.Timers(100, 100, List.of(), pending, "queue", feature < 25, feature >= 25, null);
        var unblocker = new IoPath.Unblocker(50, blocked, feature >= 24, null, null, 1);
        return new IoPath.Result(feature + "", feature, 2, sockets, timers, unblocker);
    }

    @Test
    void ioPath() {
        shownBothWays(IoPath.EXPECTED, List.of(
                Map.of("JDK 21", ioPath(21, 100, 100, 2), "JDK 25", ioPath(25, 100, 100, 50)),
                // readers that hold their carriers, sleepers the timer never saw, contenders that never wait at once
                // on 25 and all BLOCKED at once on 21 (a spare carrier each)
                Map.of("JDK 21", ioPath(21, 10, 5, 50), "JDK 25", ioPath(25, 100, 100, 2))));
    }

    static SchedulerInternals.Queues queues(int feature, int startSubmissions, long startWorker, int unparkSubmissions,
                                            long unparkWorker) {
        return new SchedulerInternals.Queues(feature + "", feature, 2, true, 500, 50, 100, List.of(
                new SchedulerInternals.QueuePath("start-virtual", startSubmissions, startWorker, 10, 2, 100, 20, ""),
                new SchedulerInternals.QueuePath("start-platform", startSubmissions, startWorker, 10, 2, 100, 20, ""),
                new SchedulerInternals.QueuePath("unpark-virtual", unparkSubmissions, unparkWorker, 10, 2, 100, 20,
                        "")));
    }

    @Test
    void whichQueue() {
        shownBothWays(SchedulerRuns.WHICH_QUEUE_EXPECTED, List.of(
                Map.of("JDK 21", queues(21, 480, 0, 0, 490), "JDK 25", queues(25, 470, 3, 2, 495)),
                // a start pushed to the caller's carrier's queue; an unpark submitted from outside the pool
                Map.of("JDK 25", queues(25, 5, 480, 490, 3)),
                // nothing seen queued: the queues drained as fast as they filled
                Map.of("JDK 25", queues(25, 0, 0, 0, 0))));
    }

    static unpinned.running.Jfr.VirtualThreads recording(int pins, long clinitEvents) {
        return new unpinned.running.Jfr.VirtualThreads("25", 1_000, 5, pins, 10, 50, 2, 1_000, Map.of(), Map.of(),
                Map.of(), null, List.of(), clinitEvents, Map.of(VirtualThreadEvents.CASE_CLINIT, clinitEvents),
                Map.of(), List.of(), 100, List.of(), null, "not asked", "recording.jfr");
    }

    @Test
    void jfrPins() {
        shownBothWays(JfrRuns.EXPECTED, List.of(recording(4, 4),
                // a recording that missed pins longer than the event's threshold
                recording(4, 1),
                // no pins made: nothing to record
                recording(0, 0)));
    }

    static SchedulerInternals.CompensationCase blockCase(String name, int blockedAtOnce) {
        return new SchedulerInternals.CompensationCase(name, 200, 1, 1, 1, false, null, blockedAtOnce);
    }

    static SchedulerInternals.Compensation cases(int feature, int sync, int objectWait, int file, int pipe) {
        return new SchedulerInternals.Compensation(feature + "", feature, 1, null, 3, 200, List.of(
                blockCase("none", 3), blockCase("synchronized-sleep", sync), blockCase("object-wait", objectWait),
                blockCase("file-read", file), blockCase("process-read", pipe)), "cases", null, 1, List.of());
    }

    @Test
    void compensation() {
        shownBothWays(SchedulerRuns.COMPENSATION_EXPECTED, List.of(
                Map.of("JDK 21", cases(21, 1, 3, 3, 3), "JDK 25", cases(25, 3, 3, 1, 3)),
                // a JDK that compensates a pinned thread and gives no spare to a Blocker-wrapped read
                Map.of("JDK 21", cases(21, 3, 1, 3, 1), "JDK 25", cases(25, 3, 3, 3, 3))));
    }

    static SchedulerInternals.Compensation sweep(int minRunnable, int[] poolSizes, int[] blockedAtOnce) {
        List<SchedulerInternals.SweepStep> steps = new ArrayList<>();
        for (int n = 1; n <= poolSizes.length; n++) {
            int expected = 4 + Math.max(0, n - (4 - minRunnable));
            steps.add(new SchedulerInternals.SweepStep(n, 4, poolSizes[n - 1], expected, poolSizes[n - 1] - 4,
                    blockedAtOnce[n - 1], blockedAtOnce[n - 1], 150));
        }
        return new SchedulerInternals.Compensation("25", 25, 4, null, poolSizes.length, 150, List.of(), "sweep",
                minRunnable == 2 ? null : minRunnable, minRunnable, steps);
    }

    @Test
    void compensationSweep() {
        shownBothWays(SchedulerRuns.SWEEP_EXPECTED, List.of(
                Map.of("JDK 25 · minRunnable 2 (default)", sweep(2, new int[] {4, 4, 5, 6}, new int[] {1, 2, 3, 4})),
                // a spare for every block from the first; none at all past minRunnable
                Map.of("JDK 25 · minRunnable 2 (default)", sweep(2, new int[] {5, 6, 7, 8}, new int[] {1, 2, 3, 4})),
                Map.of("JDK 25 · minRunnable 2 (default)", sweep(2, new int[] {4, 4, 4, 4}, new int[] {1, 2, 3, 4}))));
    }

    static WakeUps.Run wakeUps(int feature, double idleUs, double busyUs, double idleSwitches, double busySwitches) {
        double[] idle = new double[101], busy = new double[101];
        for (int i = 0; i < 101; i++) {
            idle[i] = idleUs * (0.9 + 0.002 * i);
            busy[i] = busyUs * (0.9 + 0.002 * i);
        }
        return new WakeUps.Run(feature + "", feature, 1, 101, 1_000, List.of(WakeUps.Mode.of("idle", idle,
                idleSwitches), WakeUps.Mode.of("busy", busy, busySwitches)));
    }

    @Test
    void wakeUpLatency() {
        shownBothWays(WakeUps.EXPECTED, List.of(
                Map.of("JDK 21", wakeUps(21, 10, 2.4, 1.0, 0.04), "JDK 25", wakeUps(25, 20, 2.2, 1.0, 0.1)),
                // a carrier that spins instead of parking in the OS when it has nothing to run
                Map.of("JDK 25", wakeUps(25, 2.5, 2.2, 0.05, 0.05)),
                // a carrier kept awake that still parks in the OS for every wake-up
                Map.of("JDK 25", wakeUps(25, 20, 2.2, 1.0, 1.0))));
    }

    // ------------------------------------------------------------------------------------------ chapter 10

    static Profiling.Endpoint server(String server, String event, double cpuSeconds, long samples, double inWork,
                                     int threads) {
        return new Profiling.Endpoint(server, 100, 2_000_000, 1_000, event, cpuSeconds, samples, inWork, 1.0,
                List.of(), threads, null, null);
    }

    static Profiling.Result profiled(List<Profiling.Endpoint> endpoint, List<Profiling.StacksRun> stacks,
                                     List<Profiling.Switching> switches) {
        return new Profiling.Result("25", "4.1", null, 10, endpoint, stacks, List.of(), switches);
    }

    @Test
    void profiledEndpoint() {
        shownBothWays(Profiling.ENDPOINT_EXPECTED, List.of(
                profiled(List.of(server("pool of 200", "cpu", 3.2, 240, 0.82, 100),
                        server("virtual threads", "cpu", 3.7, 366, 0.82, 2)), List.of(), List.of()),
                // the carriers lose more of their CPU to remainders than the pool; most samples outside the work
                profiled(List.of(server("pool of 200", "cpu", 3.2, 318, 0.3, 100),
                        server("virtual threads", "cpu", 3.7, 300, 0.3, 2)), List.of(), List.of()),
                profiled(List.of(server("pool of 200", "itimer", 3.2, 300, 0.82, 100),
                        server("virtual threads", "itimer", 3.7, 360, 0.82, 2)), List.of(), List.of()),
                // one process timer, yet the pool's profile short of its CPU
                profiled(List.of(server("pool of 200", "itimer", 3.2, 200, 0.82, 100),
                        server("virtual threads", "itimer", 3.7, 360, 0.82, 2)), List.of(), List.of())));
    }

    static Profiling.Seen view(String profiler, String mode, int depth, long workload, long reaching) {
        return new Profiling.Seen(Profiling.courseJdk(), profiler, mode, depth, workload + 10, workload, reaching,
                (double) reaching / workload, "", 40, 3, 2, "carrier", List.of());
    }

    static List<Profiling.Window> windows(String mode, double... cpuUs) {
        List<Profiling.Window> out = new ArrayList<>();
        for (int i = 0; i < cpuUs.length; i++) {
            out.add(new Profiling.Window(Profiling.courseJdk(), "async-profiler", mode, 4, i, 7_000, cpuUs[i]));
        }
        return out;
    }

    static Profiling.Result stacks(long asyncDeep, long jfrDeep, double... cpuWith) {
        List<Profiling.Window> w = new ArrayList<>(windows("none", 260, 262, 258));
        w.addAll(windows("cpu", cpuWith));
        var async = new Profiling.StacksRun(Profiling.courseJdk(), "async-profiler", null, null, w, List.of(
                view("async-profiler", "cpu", 4, 270, 270), view("async-profiler", "cpu", 40, 260, asyncDeep)),
                null, null);
        var jfr = new Profiling.StacksRun(Profiling.courseJdk(), "JFR", null, null, List.of(), List.of(
                view("JFR", "jdk.ExecutionSample", 4, 250, 250), view("JFR", "jdk.ExecutionSample", 40, 254, jfrDeep)),
                null, null);
        return profiled(List.of(), List.of(async, jfr), List.of());
    }

    @Test
    void whatEachProfilerSees() {
        shownBothWays(Profiling.STACKS_EXPECTED, List.of(
                stacks(126, 254, 265, 268, 266),
                // async-profiler's deep stacks whole, JFR's cut, and a profiler that costs a fifth more CPU
                stacks(250, 120, 320, 322, 318)));
    }

    static Profiling.Switching pingPong(String kind, double cpuUs, double unprofiledCpuUs) {
        return new Profiling.Switching(kind, kind.equals("virtual") ? 1 : 0, 1e6 / cpuUs, cpuUs, 1e6 / unprofiledCpuUs,
                unprofiledCpuUs, 100, Map.of(), true, null, null);
    }

    @Test
    void handOffs() {
        shownBothWays(Profiling.SWITCHES_EXPECTED, List.of(
                profiled(List.of(), List.of(), List.of(pingPong("virtual", 0.25, 0.21), pingPong("platform", 14, 22))),
                // a platform hand-off that never sleeps in the kernel; an agent that costs a switch nothing
                profiled(List.of(), List.of(), List.of(pingPong("virtual", 0.2, 0.25), pingPong("platform", 0.3, 0.3)))));
    }
}
