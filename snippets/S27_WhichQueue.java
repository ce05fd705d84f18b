///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/workloads/Carriers.java
//SOURCES ../helpers/unpinned/running/Jdks.java
//SOURCES ../helpers/unpinned/experiments/SchedulerInternals.java
package unpinned.snippets;

/*
 * S27: when a virtual thread becomes runnable, which queue of the scheduler does it wait in?
 * The question: the scheduler is a ForkJoinPool with one queue per carrier (which other carriers steal from) and
 * shared submission queues. N virtual threads go down each of six paths to "runnable" (start, unpark from a
 * virtual or a platform thread, sleep, yield), each spinning W µs, on P carriers, while a platform thread samples
 * the pool's queue counts. The JDK sources predict each path's queue (see start, unpark, sleepWakeup, yieldEach).
 * The prediction: all wait in submission queues but a virtual thread's unparks (its carrier's own queue).
 * The pitfall: the counters are estimates read while the pool runs, so the maxima depend on --sample-us and
 * --work-us; getStealCount() counts takes from the submission queues too. Results in results/s27-which-queue/.
 */

import static unpinned.experiments.SchedulerInternals.awaitState;
import static unpinned.experiments.SchedulerInternals.joinWithin;

import unpinned.workloads.Carriers;
import unpinned.core.Experiment;
import unpinned.running.Jdks;
import unpinned.core.Protocol;
import unpinned.experiments.SchedulerInternals;
import unpinned.experiments.SchedulerInternals.QueuePath;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

public class S27_WhichQueue {
    // ---- the code under study: how each path makes N virtual threads runnable -------------------------------

    /** Spins {@code micros}: short, non-zero work, so runnable threads pile up in the queues. */
    static void work(long micros) {
        long end = System.nanoTime() + micros * 1_000;
        while (System.nanoTime() < end) Thread.onSpinWait();
    }

    /**
     * Runs one path with {@code n} threads; {@code sampling} starts just before the threads are made runnable, the
     * samples count while {@code counting} is set, and {@code done} counts the threads' ends.
     */
    static void path(String name, int n, long workUs, Runnable sampling, AtomicBoolean counting, CountDownLatch done)
            throws Exception {
        Runnable task = () -> { work(workUs); done.countDown(); };
        switch (name) {
            case "start-virtual", "start-platform" -> start(name.endsWith("virtual"), n, task, sampling);
            case "unpark-virtual", "unpark-platform" -> unpark(name.endsWith("virtual"), n, task, sampling);
            case "sleep-wakeup" -> sleepWakeup(n, task, sampling);
            case "yield" -> yieldEach(n, workUs, task, sampling, counting);
            default -> throw new IllegalArgumentException("no path " + name);
        }
    }

    /**
     * n starts in a row, from a virtual thread or from main (a platform thread). JDK 21's start() calls
     * submitRunContinuation() -> execute(), and ForkJoinPool.poolSubmit pushes to a worker's own queue only if
     * Thread.currentThread() is that worker (in a virtual thread it is not); JDK 25's calls
     * externalSubmitRunContinuationOrThrow(). Both: submission queues.
     */
    static void start(boolean fromVirtual, int n, Runnable task, Runnable sampling) throws Exception {
        Runnable starter = () -> { for (int i = 0; i < n; i++) Thread.ofVirtual().start(task); };
        sampling.run();
        if (fromVirtual) joinWithin(Thread.ofVirtual().start(starter));
        else starter.run();
    }

    /**
     * n virtual threads park; once all are parked, one thread (virtual or platform) unparks them all. From a
     * virtual thread, JDK 21's unpark() does switchToCarrierThread() then submitRunContinuation(); JDK 25's pins
     * and calls execute(), and poolSubmit reads JLA.currentCarrierThread(): the waker's carrier's own queue (the
     * others steal). From a platform thread, not a worker: a submission queue (both).
     */
    static void unpark(boolean fromVirtual, int n, Runnable task, Runnable sampling) throws Exception {
        AtomicBoolean go = new AtomicBoolean();
        List<Thread> parked = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            parked.add(Thread.ofVirtual().start(() -> {
                while (!go.get()) LockSupport.park(); // a spurious wake-up parks again
                task.run();
            }));
        }
        awaitState(parked, Thread.State.WAITING); // all parked, none queued: then sample
        Runnable waker = () -> { go.set(true); for (Thread t : parked) LockSupport.unpark(t); };
        sampling.run();
        if (fromVirtual) joinWithin(Thread.ofVirtual().start(waker));
        else waker.run();
    }

    /**
     * n virtual threads sleep until the same instant, then work. JDK 21 schedules the unpark on
     * VirtualThread-unparker (a platform thread: submission queues); JDK 25 schedules parkTimeoutExpired in the
     * pool (ForkJoinPool.schedule): the timer task waits in a submission queue, and the carrier running it unparks
     * with lazySubmitRunContinuation() into its own queue. So 21 and 25 may differ here.
     */
    static void sleepWakeup(int n, Runnable task, Runnable sampling) throws Exception {
        long wakeAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50) + n * 2_000L; // all asleep by then
        List<Thread> sleepers = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            sleepers.add(Thread.ofVirtual().start(() -> {
                try {
                    Thread.sleep(TimeUnit.NANOSECONDS.toMillis(Math.max(1, wakeAt - System.nanoTime())));
                } catch (InterruptedException e) {
                    return; // never counted: the path then times out and fails
                }
                task.run();
            }));
        }
        awaitState(sleepers, Thread.State.TIMED_WAITING);
        sampling.run();
    }

    /**
     * Parked first, so that no thread waits to start (yielders would starve it: ForkJoinPool.runWorker keeps
     * taking from one queue while it has tasks, a hang on JDK 25); then each yields 10 times. afterYield()
     * submits externally when the carrier's own queue is empty, else pushes to it (both JDKs). The pool is FIFO
     * (createDefaultScheduler: asyncMode = true): a worker takes its own tasks from the end the thieves do.
     */
    static void yieldEach(int n, long workUs, Runnable task, Runnable sampling, AtomicBoolean counting)
            throws Exception {
        AtomicBoolean go = new AtomicBoolean();
        AtomicInteger resumed = new AtomicInteger();
        List<Thread> parked = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            parked.add(Thread.ofVirtual().start(() -> {
                while (!go.get()) LockSupport.park();
                if (resumed.incrementAndGet() == n) counting.set(true); // only yields queued from now on
                for (int y = 0; y < YIELDS; y++) { work(workUs); Thread.yield(); }
                task.run();
            }));
        }
        awaitState(parked, Thread.State.WAITING);
        counting.set(false);
        sampling.run();
        go.set(true);
        for (Thread t : parked) LockSupport.unpark(t);
    }

    // ---- the measurement ------------------------------------------------------------------------------------

    static final List<String> PATHS = List.of("start-virtual", "start-platform", "unpark-virtual", "unpark-platform",
            "sleep-wakeup", "yield");
    static final int YIELDS = 10, WARM_UP_THREADS = 200;

    public static void main(String[] args) {
        args = Jdks.honourJdkOption("S27", "S27_WhichQueue.java", args);
        Experiment.named("S27", "which queue a runnable virtual thread waits in", "s27-which-queue")
                .someOf("--path", PATHS, "the paths to runnable")
                .count("--threads", 2_000, 2_000, 1, 100_000, "virtual threads per path")
                .count("--carriers", 2, 2, 1, 64, "carriers of the scheduler")
                .count("--work-us", 20, 20, 1, 10_000, "what each thread spins once runnable, µs")
                .count("--sample-us", 20, 20, 0, 1_000, "pause between two samples of the pool, µs (0: spin)")
                .check(S27_WhichQueue::withinBudget)
                .notes("--jdk 21|course: run on the JDK 21 runtime set-up installs, or the course JDK (default: this"
                        + " JVM).\npaths x threads x work-us x (1 + yields) may be at most 10 minutes (as if on one"
                        + " carrier).")
                .budget(Duration.ofSeconds(5), Duration.ofSeconds(5))
                .run(args, S27_WhichQueue::measure);
    }

    /** A warm-up round of every path, then each path sampled. */
    static SchedulerInternals.Queues measure(Experiment.Args a) throws Exception {
        int carriers = a.intCount("--carriers"), threads = a.intCount("--threads"), workUs = a.intCount("--work-us");
        // Before the first virtual thread: the JDK reads these once (VirtualThread.createDefaultScheduler).
        System.setProperty("jdk.virtualThreadScheduler.parallelism", Integer.toString(carriers));
        System.setProperty("jdk.virtualThreadScheduler.maxPoolSize", Integer.toString(carriers));
        ForkJoinPool pool = Carriers.pool(carriers); // the first virtual thread: the scheduler is created now
        System.out.printf(Locale.ROOT, "%d carriers (checked: parallelism %d), FIFO (async) mode: %s, Java %s;"
                + " %,d threads per path, each spinning %d µs once runnable%n", carriers, pool.getParallelism(),
                pool.getAsyncMode(), Runtime.version(), threads, workUs);
        List<String> paths = a.someOf("--path");
        for (String p : paths) sampled(p, Math.min(WARM_UP_THREADS, threads), a, pool); // warm-up
        List<QueuePath> rows = new ArrayList<>();
        for (String p : paths) {
            Protocol.progress("path " + p);
            rows.add(sampled(p, threads, a, pool));
            System.out.println(rows.get(rows.size() - 1).line());
        }
        return new SchedulerInternals.Queues(Runtime.version().toString(), Runtime.version().feature(), carriers,
                pool.getAsyncMode(), threads, workUs, a.intCount("--sample-us"), rows);
    }

    static QueuePath sampled(String path, int n, Experiment.Args a, ForkJoinPool pool) throws Exception {
        int workUs = a.intCount("--work-us");
        return SchedulerInternals.sampled(path, n, workUs, a.intCount("--sample-us"), 1 + YIELDS, pool,
                (sampling, counting, done) -> path(path, n, workUs, sampling, counting, done));
    }

    static void withinBudget(Experiment.Args a) {
        long worstUs = (long) a.someOf("--path").size() * a.count("--threads") * a.count("--work-us") * (1 + YIELDS);
        if (worstUs > TimeUnit.MINUTES.toMicros(10)) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "--path x --threads x --work-us x %d ="
                    + " %,d s of work; at most 10 minutes (600 s) allowed: use fewer --threads or less --work-us",
                    1 + YIELDS, worstUs / 1_000_000));
        }
    }
}

/*
 * How to run:
 *   tools/jbang which-queue                          (all six paths, 2,000 threads each, on 2 carriers)
 *   tools/jbang which-queue --jdk 21                 (the same classes on the JDK 21 runtime)
 *   tools/jbang which-queue --path unpark-virtual --threads 10000 --carriers 4
 *
 * What you should see: every path but unpark-virtual queued in the submission queues, unpark-virtual in the
 * waker's carrier's own queue, FIFO mode, pool size P. Reference runs:
 * data/reference-runs/snippets/S27-which-queue.md.
 */
