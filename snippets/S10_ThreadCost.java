///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//RUNTIME_OPTIONS -Xmx3g
//SOURCES ../helpers/unpinned/core/Experiment.java
//SOURCES ../helpers/unpinned/experiments/ThreadCost.java
package unpinned.snippets;

/*
 * S10: what it costs to hold a thread.
 *
 * The question: N threads each call D methods deep and then block, as a handler waiting for a
 * database does. How long to start them all until all are blocked, and how much heap and resident
 * memory does each blocked thread hold, virtual or platform?
 * The bound: a platform thread is an OS thread (the OS and RAM cap them); a blocked virtual thread's
 * frames are a stack chunk on the heap, so -Xmx caps them, and its cost grows with depth.
 * The pitfall: a thread's cost is its stack, not its object; a million virtual threads are ~1 GB.
 */

import unpinned.core.Experiment;
import unpinned.core.Protocol;
import unpinned.experiments.ThreadCost;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

public class S10_ThreadCost {

    /**
     * Recurses {@code depth} frames, then blocks. Each frame keeps a value that is used after the call returns,
     * so the JIT must keep every frame (Java has no tail calls; C2 may inline one level into its caller).
     */
    static long descend(int depth, CountDownLatch parked, CountDownLatch release) throws InterruptedException {
        long here = depth * 0x9E3779B97F4A7C15L;
        if (depth <= 1) {
            parked.countDown();
            release.await();
            return here;
        }
        return Long.rotateLeft(descend(depth - 1, parked, release), 1) ^ here;
    }

    static final int VIRTUAL_MAX = 2_000_000;
    static final Duration BUDGET = Duration.ofMinutes(10);

    /** The first thing that went wrong in a thread; checked by the main thread at every step. */
    static final AtomicReference<Throwable> FAILURE = new AtomicReference<>();
    static volatile long sink;
    /** Threads started and not yet joined, for the notebook's live chart. */
    static final AtomicInteger ALIVE = new AtomicInteger();


    record Round(Thread[] threads, int started, CountDownLatch release, double startSeconds) {}

    /**
     * Starts {@code threads.length} threads that recurse {@code depth} frames and block, and returns once every one
     * is blocked; startSeconds runs from the first start to the moment the last one has counted down.
     */
    static Round startAndBlock(Thread.Builder builder, Thread[] threads, int depth, long deadline, boolean report)
            throws InterruptedException {
        int n = threads.length;
        CountDownLatch parked = new CountDownLatch(n), release = new CountDownLatch(1);
        Runnable task = () -> {
            boolean arrived = false;
            try {
                sink = descend(depth, parked, release);
                arrived = true;
            } catch (Throwable e) { // StackOverflowError, OutOfMemoryError, an interrupt: the run is void
                FAILURE.compareAndSet(null, e);
            } finally {
                if (!arrived) parked.countDown(); // so the main thread stops waiting and sees the failure
            }
        };
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            try {
                threads[i] = builder.unstarted(task);
                threads[i].start();
                ALIVE.incrementAndGet(); // for the live chart
            } catch (OutOfMemoryError e) { // "unable to create native thread", or the heap is full
                threads[i] = null;
                throw fail(new Round(threads, i, release, 0), String.format(Locale.ROOT, "started %,d of %,d"
                        + " threads, then the JVM could not start another: %s", i, n, e.getMessage()), deadline);
            }
            if (report) showProgress(i + 1, n);
        }
        Round round = new Round(threads, n, release, 0);
        if (!parked.await(remaining(deadline), TimeUnit.NANOSECONDS)) {
            throw fail(round, String.format(Locale.ROOT, "only %,d of %,d threads blocked within %d minutes",
                    n - parked.getCount(), n, BUDGET.toMinutes()), deadline);
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        awaitParked(round, deadline);
        return new Round(threads, n, release, seconds);
    }

    /** The latch counts down just before await(): waits until each thread is parked (a virtual one unmounted). */
    static void awaitParked(Round round, long deadline) throws InterruptedException {
        checkFailure(round, "before all had blocked", deadline);
        for (Thread t : round.threads()) {
            while (t.getState() != Thread.State.WAITING) {
                checkFailure(round, "before all had blocked", deadline);
                if (remaining(deadline) <= 0) {
                    throw fail(round, "threads did not park within the time budget", deadline);
                }
                Thread.sleep(1);
            }
        }
    }

    public static void main(String[] args) {
        Experiment.named("S10", "what it costs to hold a blocked thread", "s10-thread-cost")
                .oneOf("--kind", "virtual", List.of("virtual", "platform"), "virtual or platform threads")
                .count("--threads", 10_000, 10_000, 1, VIRTUAL_MAX, "threads to start and hold blocked; platform:"
                        + " at most 5,000 (default 1,000)")
                .count("--depth", 10, 10, 1, Integer.MAX_VALUE, "frames each thread recurses before it blocks,"
                        + " at most 5,000")
                .check(a -> ThreadCost.checkSizes(a.oneOf("--kind"), threads(a), a.count("--depth")))
                .budget(Duration.ofSeconds(5), Duration.ofSeconds(10))
                .run(args, S10_ThreadCost::measure);
    }

    /**
     * Warm-up, a baseline, N threads blocked at depth D, heap and RSS while they wait, then their release. One
     * JVM per run; warm-up rounds of the same kind go first, so class loading, the JIT and the carrier pool are
     * not charged to the measured threads. Heap is read after full GCs (live objects only); RSS is the whole
     * process's (/proc/self/status), so it also moves with the heap the GC keeps committed.
     */
    static ThreadCost.Run measure(Experiment.Args a) throws InterruptedException {
        String kind = a.oneOf("--kind");
        int n = threads(a), depth = a.intCount("--depth");
        long deadline = System.nanoTime() + BUDGET.toNanos();
        Thread.Builder builder = kind.equals("virtual") ? Thread.ofVirtual() : Thread.ofPlatform();
        try (var live = Protocol.sampleEverySecond(() -> Protocol.Sample.of("threads_alive", ALIVE.get(), "heap_MB",
                (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()) / 1e6))) { // a live chart
            return blocked(kind, n, depth, deadline, builder);
        }
    }

    static ThreadCost.Run blocked(String kind, int n, int depth, long deadline, Thread.Builder builder)
            throws InterruptedException {
        System.out.printf(Locale.ROOT, "%,d %s threads, each %,d frames deep, then blocked on a latch; heap max %,d"
                + " MB, %d cores, JDK %s%n", n, kind, depth, Runtime.getRuntime().maxMemory() >> 20,
                Runtime.getRuntime().availableProcessors(), Runtime.version());
        warmUp(builder, kind, depth, deadline);
        Thread[] threads = new Thread[n]; // allocated before the baseline: it is not the threads' cost
        Protocol.progress("baseline: full GCs");
        Map<String, Object> before = ThreadCost.settledSnapshot();
        Round round = startAndBlock(builder, threads, depth, deadline, true);
        Protocol.progress(String.format(Locale.ROOT, "all %,d blocked: full GCs, then heap and RSS", n));
        Map<String, Object> after = ThreadCost.settledSnapshot();
        checkFailure(round, "while they were blocked", deadline);
        double releaseSeconds = releaseAndJoin(round, deadline);
        return ThreadCost.Run.of(kind, n, depth, round.startSeconds(), releaseSeconds, before, after);
    }

    /**
     * Runs the same code on threads of the same kind first: the first threads of a JVM pay for class loading,
     * JIT compilation (its memory stays resident), the carrier pool and the allocator's arenas. Its size does
     * not depend on --threads, so runs of different sizes compare. Virtual: enough rounds for the park path to
     * reach C2; until then frames are interpreted or C1, and a stack chunk is up to twice the size.
     */
    static void warmUp(Thread.Builder builder, String kind, int depth, long deadline) throws InterruptedException {
        boolean virtual = kind.equals("virtual");
        int rounds = virtual ? 10 : 1, size = virtual ? 10_000 : 1_000;
        int d = virtual ? Math.min(depth, 10) : depth; // shallow: deep virtual rounds would cost GBs
        Protocol.progress(String.format(Locale.ROOT, "warm-up: %d x %,d %s threads", rounds, size, kind));
        for (int r = 0; r < rounds; r++) {
            releaseAndJoin(startAndBlock(builder, new Thread[size], d, deadline, false), deadline);
        }
        ThreadCost.settledSnapshot(); // its first call loads classes too
    }

    static int threads(Experiment.Args a) {
        boolean virtual = a.oneOf("--kind").equals("virtual");
        return a.given("--threads") ? a.intCount("--threads") : virtual ? 10_000 : 1_000;
    }

    /** Releases the round's threads and joins them; returns the seconds that took. */
    static double releaseAndJoin(Round round, long deadline) throws InterruptedException {
        long t0 = System.nanoTime();
        round.release().countDown();
        for (int i = 0; i < round.started(); i++) {
            if (!round.threads()[i].join(Duration.ofNanos(Math.max(1, remaining(deadline))))) {
                throw fail(round, "threads did not end within the time budget after they were released", deadline);
            }
            ALIVE.decrementAndGet();
        }
        checkFailure(round, "after they were released", deadline);
        return (System.nanoTime() - t0) / 1e9;
    }

    static void checkFailure(Round round, String when, long deadline) {
        Throwable e = FAILURE.get();
        if (e == null) return;
        String hint = e instanceof StackOverflowError ? "; try a smaller --depth"
                : e instanceof OutOfMemoryError ? "; try fewer threads or a smaller --depth" : "";
        throw fail(round, "a thread failed " + when + ": " + e + hint, deadline);
    }

    /** Releases and (briefly) joins what was started; the failure to throw: one line, nothing saved. */
    static Experiment.RunFailed fail(Round round, String message, long deadline) {
        round.release().countDown();
        long joinBy = Math.min(deadline, System.nanoTime() + TimeUnit.SECONDS.toNanos(30));
        try {
            for (int i = 0; i < round.started(); i++) {
                round.threads()[i].join(Duration.ofNanos(Math.max(1, joinBy - System.nanoTime())));
            }
        } catch (InterruptedException e) {
            // ending anyway
        }
        return new Experiment.RunFailed(message);
    }

    static void showProgress(int started, int n) {
        if (n >= 10_000 && started % Math.max(1, n / 4) == 0 && started < n) {
            Protocol.progress(String.format(Locale.ROOT, "started %,d of %,d", started, n));
        }
    }

    static long remaining(long deadline) {
        return deadline - System.nanoTime();
    }
}

/*
 * How to run:
 *   tools/jbang thread-cost                                        (10,000 virtual threads, depth 10)
 *   tools/jbang thread-cost --threads 1000000                      (a million: about a gigabyte of heap)
 *   tools/jbang thread-cost --depth 1000                           (the heap per thread grows with depth)
 *   tools/jbang thread-cost --kind platform --threads 5000         (the cap: each is an OS thread)
 *
 * What you should see: ~1 KB of heap per blocked virtual thread at depth 10, growing with depth; a platform
 * thread costs little heap but ~15-20 KB of RSS. Reference runs: data/reference-runs/snippets/S10-thread-cost.md
 */
