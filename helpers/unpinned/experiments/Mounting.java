//SOURCES ../core/Expectations.java
//SOURCES ../core/Figure.java
package unpinned.experiments;

import unpinned.core.Expectations;
import unpinned.core.Expectations.Line;
import unpinned.core.Figure;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Chapter 03's demonstrations in the kernel's own JVM: sleepers run by one platform thread (a scheduler of
 * continuations written in the notebook) and by virtual threads, and virtual threads changing carrier as they block.
 * Each result type is declared here with what the chapter expects of it.
 */
public final class Mounting {
    private Mounting() {}

    /**
     * {@code sleepers} tasks that each sleep {@code sleepMs}, timed in rounds (ms per round): on one platform thread
     * through our own scheduler, and on virtual threads.
     */
    public record Sleepers(int sleepers, long sleepMs, double[] oneThreadMs, double[] virtualThreadsMs) {
        public Figure oneThread() {
            return Figure.samples(oneThreadMs, "rounds");
        }

        public Figure virtualThreads() {
            return Figure.samples(virtualThreadsMs, "rounds");
        }

        /** The mean of a batch's rounds, as the chart and the page print it. */
        public static double mean(double[] rounds) {
            return Arrays.stream(rounds).average().orElse(Double.NaN);
        }
    }

    /**
     * What chapter 03 expects of the sleepers: no batch ends before its own sleep; one thread that gives itself back
     * at every sleep runs them all in about one sleep, and so do virtual threads, whose carriers are not held while
     * they sleep.
     */
    public static final Expectations<Sleepers> SLEEPERS_EXPECTED = Expectations.<Sleepers>of("03-one-thread-scheduler")
            .expect("no-batch-beats-one-sleep", "the faster batch", "one sleep",
                    s -> Figure.lowest(List.of(s.oneThread(), s.virtualThreads()), f -> f.over(s.sleepMs())),
                    Line.atLeast(0.999)).limit()
            .expect("one-thread-overlaps", "the sleepers on one platform thread (our scheduler)", "one sleep",
                    s -> s.oneThread().over(s.sleepMs()), Line.atMost(1.5))
            .claims("jmh-8")
            .expect("virtual-threads-overlap", "the sleepers on virtual threads", "one sleep",
                    s -> s.virtualThreads().over(s.sleepMs()), Line.atMost(1.5))
            .claims("sem-16");

    /**
     * {@code blockers} tasks that each call {@code Thread.sleep(sleepMs)} inside our one-thread scheduler's
     * continuations, and the wall time they took in all ({@code blockedMs}): one demonstration, no spread.
     */
    public record Blocking(int blockers, long sleepMs, double blockedMs) {
        /** The wall time over the sleeps one after another. */
        public Figure inARow() {
            return Figure.single(blockedMs).over(blockers * (double) sleepMs);
        }
    }

    /**
     * What chapter 03 expects of a plain Thread.sleep inside our own continuation: it yields only a virtual thread's
     * continuation, so on the scheduler's platform thread it blocks that thread and the sleeps run one after another.
     */
    public static final Expectations<Blocking> BLOCKING_EXPECTED = Expectations.<Blocking>of("03-sleep-in-continuation")
            .expect("sleeps-in-a-row", "the tasks calling Thread.sleep inside our continuations", "their sleeps in a"
                    + " row", Blocking::inARow, Line.atLeast(0.95));

    /**
     * {@code threads} virtual threads that each blocked {@code blocks} times, the carrier changes seen after those
     * blocks ({@code hops}), the carriers seen at all, and the cores (the default scheduler's carriers).
     */
    public record Hops(int threads, int blocks, long hops, long carriersSeen, int cores) {
        /** The share of blocks after which a thread resumed on another carrier, its interval binomial. */
        public Figure share() {
            double n = (double) threads * blocks, p = hops / n;
            return Figure.of(p, 1.96 * Math.sqrt(p * (1 - p) / n), String.format(Locale.ROOT, "binomial over %,d"
                    + " blocks", (long) n));
        }

        /** The share if each resume picked one of P carriers at random: (P - 1) / P. */
        public double predicted() {
            return (cores - 1.0) / cores;
        }
    }

    /**
     * What chapter 03 expects of the hops: nothing ties a thread to its carrier, so it changes carrier after a large
     * share of its blocks, at least half of the (P - 1) / P a random pick would give. The pool does not pick at
     * random: a wake-up goes to whichever carrier scans for it first, so with two carriers, one of them busy with
     * another thread, it goes to the other every time, and the share can pass (P - 1) / P.
     */
    public static final Expectations<Hops> HOPS_EXPECTED = Expectations.<Hops>of("03-carrier-hops")
            .expect("not-tied-to-a-carrier", "the share of blocks after which a thread changed carrier",
                    "(P - 1) / P, a random pick's", h -> h.share().over(h.predicted()), Line.atLeast(0.5))
            .untestableWhen(h -> h.cores() < 2 ? "one core, so one carrier: no thread could change carrier" : null);
}
