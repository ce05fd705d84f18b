///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/experiments/CarrierScaling.java
//SOURCES ../helpers/unpinned/workloads/Carriers.java
//SOURCES ../helpers/unpinned/workloads/Work.java
package unpinned.snippets;

/*
 * S14: the same batch of virtual threads on 1, 2, 4... carriers.
 *
 * The question: does a batch of N virtual threads finish sooner with more carriers, when each sleeps
 * S ms (I/O-bound) or computes for W ms (CPU-bound: a hash loop whose result is used)?
 * The bounds: the I/O batch takes at least S ms (a sleeper leaves its carrier); the CPU batch at least
 * cpu / min(P, cores). Two carriers on two cores halve the CPU batch, never the I/O batch.
 * The pitfall: the scheduler reads its properties once, at the first virtual thread (set them first).
 */

import unpinned.experiments.CarrierScaling;
import unpinned.experiments.CarrierScaling.Batch;
import unpinned.workloads.Carriers;
import unpinned.core.Busy;
import unpinned.core.Experiment;
import unpinned.workloads.Work;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

public class S14_CarrierScaling {

    /** Starts {@code n} virtual threads running {@code task} and waits for them all, within {@code timeout}. */
    static Batch batch(Runnable task, int n, Duration timeout, ForkJoinPool pool) throws InterruptedException {
        Thread[] threads = new Thread[n];
        // One wake-up for the main thread when the last task ends, not one join per task: each wake-up could
        // take a core from a carrier for a moment.
        CountDownLatch done = new CountDownLatch(n);
        Runnable counted = () -> {
            try {
                task.run();
            } finally {
                done.countDown();
            }
        };
        var carriers0 = Carriers.cpuNanosByThread(pool);
        double machine0 = Busy.machineBusySeconds(); // the whole machine's CPU: what others took from the cores
        long cpu0 = Carriers.processCpuNanos(), t0 = System.nanoTime();
        try {
            for (int i = 0; i < n; i++) threads[i] = Thread.ofVirtual().start(counted);
            if (!done.await(timeout.toNanos(), TimeUnit.NANOSECONDS)) {
                throw new Experiment.RunFailed(String.format(Locale.ROOT, "a batch of %,d tasks had not ended"
                        + " after %.0f s: the machine is overloaded; nothing saved", n, timeout.toMillis() / 1e3));
            }
            if (!Carriers.joinAll(threads, t0 + timeout.toNanos())) { // each has counted down: it is ending
                throw new Experiment.RunFailed("a task did not end after it finished its work; nothing saved");
            }
        } catch (InterruptedException | RuntimeException | OutOfMemoryError e) {
            Carriers.stop(threads);
            throw e;
        }
        long wall = System.nanoTime() - t0, cpu = Carriers.processCpuNanos() - cpu0;
        double machine = Busy.machineBusySeconds() - machine0;
        long carrierCpu = Carriers.cpuNanosSince(carriers0, pool);
        if (FAILURE.get() != null) {
            throw new Experiment.RunFailed("a task failed: " + FAILURE.get() + "; nothing saved");
        }
        return new Batch(wall, cpu, carrierCpu, Double.isFinite(machine) ? Math.round(machine * 1e9) : -1);
    }

    /** The I/O task: sleep, leaving the carrier. */
    static Runnable sleeper(int sleepMs) {
        return () -> {
            try {
                Thread.sleep(sleepMs);
            } catch (InterruptedException e) {
                FAILURE.compareAndSet(null, e);
            }
        };
    }

    /** The CPU task: {@code iterations} of the hash loop, never blocking. */
    static Runnable hasher(long iterations) {
        return () -> {
            long h = Work.hashFor(iterations, Thread.currentThread().threadId());
            if (!Thread.interrupted()) Work.use(h);
            else FAILURE.compareAndSet(null, new InterruptedException("a CPU task was interrupted"));
        };
    }

    /** The first thing that went wrong in a task. */
    static final AtomicReference<Throwable> FAILURE = new AtomicReference<>();


    public static void main(String[] args) {
        int cores = Runtime.getRuntime().availableProcessors();
        Experiment.named("S14", "the same batches of virtual threads on P carriers", "s14-carrier-scaling")
                .count("--carriers", cores, cores, 1, 256, "carriers of the scheduler (default: the cores)")
                .oneOf("--kind", "both", List.of("io", "cpu", "both"), "io (tasks sleep), cpu (they hash), or both")
                .count("--tasks", 100, 1_000, 1, 1_000_000, "virtual threads per batch")
                .count("--sleep-ms", 50, 100, 1, 60_000, "the I/O task's sleep, ms")
                .number("--work-ms", 2, 1, 0.01, 10_000, "the CPU task's computing, ms (sized by speed)")
                .count("--warmups", 1, 3, 0, 100, "unmeasured batches of each kind first")
                .count("--reps", 5, 7, 1, 100, "measured batches of each kind")
                .check(CarrierScaling::withinBudget)
                .notes("(--warmups + --reps) x (sleep-ms + tasks x work-ms) may be at most 10 minutes.")
                .budget(Duration.ofSeconds(3), Duration.ofSeconds(8))
                .run(args, S14_CarrierScaling::measure);
    }

    /**
     * Each kind of batch on P carriers: warm-ups, then the measured batches, with their bounds. One carrier count
     * per JVM. The pool adds a spare carrier during a managed blocking call (jdk.internal.misc.Blocker: JDK 21's
     * Object.wait and file reads, a process pipe on both; never for a pinned thread): maxPoolSize = P forbids it.
     * The process's CPU time (JIT, GC, main too) comes in 10 ms ticks, so on one carrier its bound can sit a few %
     * above the wall; the carriers' own CPU time gives the strict bound, beside it. The machine's CPU time
     * (/proc/stat) is read around each batch, so the cores other processes took are kept with the batches.
     */
    static CarrierScaling.Run measure(Experiment.Args a) throws InterruptedException {
        int p = a.intCount("--carriers"), tasks = a.intCount("--tasks"), sleepMs = a.intCount("--sleep-ms");
        int warmUps = a.intCount("--warmups"), reps = a.intCount("--reps");
        String kind = a.oneOf("--kind");
        Carriers.fix(p); // before the first virtual thread: the scheduler reads its properties then, once
        ForkJoinPool pool = Carriers.pool(p);
        int cores = Runtime.getRuntime().availableProcessors(), effective = Math.min(p, cores);
        CarrierScaling.announce(p, pool);
        int[] carrierThreadsMax = {pool.getPoolSize()};
        CarrierScaling.Io io = null;
        CarrierScaling.Cpu cpu = null;
        if (!kind.equals("cpu")) {
            CarrierScaling.announceIo(tasks, sleepMs);
            Duration timeout = Duration.ofMillis(10L * sleepMs + 60_000 + tasks / 20);
            io = CarrierScaling.io(CarrierScaling.repeat("I/O", warmUps, reps, pool, carrierThreadsMax,
                    () -> batch(sleeper(sleepMs), tasks, timeout, pool)), tasks, sleepMs, p);
        }
        if (!kind.equals("io")) {
            double nanos = Work.nanosPerIteration(), workMs = a.number("--work-ms"); // speed on one thread, compiled
            long iterations = Math.max(1, Math.round(workMs * 1e6 / nanos));
            double expectedMs = tasks * iterations * nanos / 1e6 / effective;
            CarrierScaling.announceCpu(p, tasks, workMs, expectedMs);
            Duration timeout = Duration.ofMillis((long) (10 * expectedMs) + 60_000);
            cpu = CarrierScaling.cpu(CarrierScaling.repeat("CPU", warmUps, reps, pool, carrierThreadsMax,
                    () -> batch(hasher(iterations), tasks, timeout, pool)), tasks, workMs, iterations, nanos, p,
                    effective);
        }
        Carriers.requireAtMost(carrierThreadsMax[0], p);
        System.out.printf(Locale.ROOT, "carrier threads: at most %d alive (maxPoolSize %d)%n", carrierThreadsMax[0], p);
        return new CarrierScaling.Run(p, cores, pool.getParallelism(), effective, warmUps, reps, io, cpu,
                carrierThreadsMax[0], Runtime.version().toString());
    }
}

/*
 * How to run:
 *   tools/jbang carrier-scaling --carriers 1
 *   tools/jbang carrier-scaling --carriers 2
 *   tools/jbang carrier-scaling --carriers 4 --kind cpu            (more carriers than cores)
 *   tools/jbang carrier-scaling --carriers 1 --kind io --tasks 100000
 *
 * What you should see: I/O batches at ~1.05 x one sleep on any carriers; CPU batches at their CPU bound, twice
 * as fast on 2 carriers as on 1. Reference runs: data/reference-runs/snippets/S14-carrier-scaling.md
 */
