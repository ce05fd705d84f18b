///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/Carriers.java
//SOURCES ../helpers/unpinned/CarrierScaling.java
//SOURCES ../helpers/unpinned/Work.java
//SOURCES ../helpers/unpinned/Experiment.java
//SOURCES ../helpers/unpinned/Measurement.java
//SOURCES ../helpers/unpinned/ChildRun.java
//SOURCES ../helpers/unpinned/Show.java
//SOURCES ../helpers/unpinned/Profile.java
//SOURCES ../helpers/unpinned/Machine.java
//SOURCES ../helpers/unpinned/Course.java
//SOURCES ../helpers/unpinned/Json.java
//SOURCES ../helpers/unpinned/Results.java
//SOURCES ../helpers/unpinned/Measurement.java
//SOURCES ../helpers/unpinned/RunGuard.java
//SOURCES ../helpers/unpinned/Cli.java
//SOURCES ../helpers/unpinned/Protocol.java
package unpinned.snippets;

/*
 * S14: the same batch of virtual threads on 1, 2, 4... carriers.
 *
 * The question: virtual threads run on carriers, the platform threads of one ForkJoinPool (one per core
 * unless jdk.virtualThreadScheduler.parallelism says otherwise). Does a batch finish sooner with more
 * carriers? Two batches of N virtual threads: each sleeps S ms (I/O-bound), or each computes for W ms
 * (CPU-bound: a hash loop whose result is used, so the JIT can't drop it).
 *
 * The bounds: a sleeping virtual thread leaves its carrier, so the I/O batch takes at least one sleep,
 * S ms, and one carrier is enough to get close: starting and waking a thread costs microseconds. The CPU
 * batch needs its CPU time somewhere: at least cpu / min(P, cores). Carriers beyond the cores add nothing
 * (the OS then time-slices them); two carriers on two cores halve the CPU batch, never the I/O batch.
 *
 * The pitfalls: the JVM reads the scheduler's properties once, when it creates its first virtual thread;
 * a property set after that is silently ignored. So main sets them before anything can start one, and
 * then checks the pool it got (and fails if it isn't P carriers). On JDK 21 the scheduler also adds
 * carriers, up to maxPoolSize (256 by default), while a carrier is pinned: maxPoolSize = P forbids that.
 * The CPU time is the whole process's (JIT, GC, the main thread too) and on Linux comes in 10 ms ticks, so
 * the bound uses its mean over the measured batches; and as other threads can run beside one carrier, on
 * one carrier that bound can sit a few % above the wall time. The carriers' own CPU time (to the
 * nanosecond) gives the strict bound, shown beside it. The hash loop's speed is measured on one thread
 * first to size each task, and warm-up batches go first so neither the JIT nor carrier creation is
 * charged to the measured ones. One carrier count per JVM. Results go to results/s14-carrier-scaling/.
 */

import unpinned.CarrierScaling;
import unpinned.CarrierScaling.Batch;
import unpinned.Carriers;
import unpinned.Experiment;
import unpinned.Work;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

public class S14_CarrierScaling {
    /** The first thing that went wrong in a task. */
    static final AtomicReference<Throwable> FAILURE = new AtomicReference<>();

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
        long carrierCpu = Carriers.cpuNanosSince(carriers0, pool);
        if (FAILURE.get() != null) {
            throw new Experiment.RunFailed("a task failed: " + FAILURE.get() + "; nothing saved");
        }
        return new Batch(wall, cpu, carrierCpu);
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
                .check(S14_CarrierScaling::withinBudget)
                .notes("(--warmups + --reps) x (sleep-ms + tasks x work-ms) may be at most 10 minutes.")
                .budget(Duration.ofSeconds(3), Duration.ofSeconds(8))
                .run(args, S14_CarrierScaling::measure);
    }

    /** Each kind of batch on P carriers: warm-ups, then the measured batches, with their bounds. */
    static CarrierScaling.Run measure(Experiment.Args a) throws InterruptedException {
        int p = a.intCount("--carriers"), tasks = a.intCount("--tasks"), sleepMs = a.intCount("--sleep-ms");
        int warmUps = a.intCount("--warmups"), reps = a.intCount("--reps");
        String kind = a.oneOf("--kind");
        double workMs = a.number("--work-ms");
        Carriers.fix(p); // before the first virtual thread: the scheduler reads its properties then, once
        ForkJoinPool pool = Carriers.pool(p);
        int cores = Runtime.getRuntime().availableProcessors(), effective = Math.min(p, cores);
        System.out.printf(Locale.ROOT, "%d carrier%s (checked: the scheduler's pool has parallelism %d), %d cores,"
                + " JDK %s%n", p, p == 1 ? "" : "s", pool.getParallelism(), cores, Runtime.version());
        int[] carrierThreadsMax = {pool.getPoolSize()};
        CarrierScaling.Io io = null;
        CarrierScaling.Cpu cpu = null;
        if (!kind.equals("cpu")) {
            System.out.printf(Locale.ROOT, "bound: I/O  %,d x sleep %,d ms: at least %,d ms, one sleep, whatever the"
                    + " carriers (a sleeping virtual thread leaves its carrier)%n", tasks, sleepMs, sleepMs);
            Duration timeout = Duration.ofMillis(10L * sleepMs + 60_000 + tasks / 20);
            io = CarrierScaling.io(CarrierScaling.repeat("I/O", warmUps, reps, pool, carrierThreadsMax,
                    () -> batch(sleeper(sleepMs), tasks, timeout, pool)), tasks, sleepMs, p);
        }
        if (!kind.equals("io")) {
            double nanos = Work.nanosPerIteration(); // the hash loop's speed on one thread, once compiled
            long iterations = Math.max(1, Math.round(workMs * 1e6 / nanos));
            double expectedMs = tasks * iterations * nanos / 1e6 / effective;
            System.out.printf(Locale.ROOT, "bound: CPU  %,d x ~%s ms of hashing: at least its CPU time / min(carriers"
                    + " %d, cores %d) = ~%,.0f ms (the CPU time is measured)%n", tasks,
                    CarrierScaling.plain(workMs), p, cores, expectedMs);
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

    static void withinBudget(Experiment.Args a) {
        String kind = a.oneOf("--kind");
        int warmUps = a.intCount("--warmups"), reps = a.intCount("--reps");
        double batchMs = (kind.equals("cpu") ? 0 : a.count("--sleep-ms"))
                + (kind.equals("io") ? 0 : a.count("--tasks") * a.number("--work-ms"));
        if ((warmUps + reps) * batchMs > TimeUnit.MINUTES.toMillis(10)) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "(--warmups + --reps) x (sleep-ms"
                    + " + tasks x work-ms) = (%d + %d) x %,.0f ms = %,.0f s on one carrier; at most 10 minutes"
                    + " (600 s) allowed: use fewer --tasks, a smaller --work-ms or fewer --reps", warmUps, reps,
                    batchMs, (warmUps + reps) * batchMs / 1e3));
        }
    }
}

/*
 * How to run:
 *   tools/jbang carrier-scaling --carriers 1
 *   tools/jbang carrier-scaling --carriers 2
 *   tools/jbang carrier-scaling --carriers 4 --kind cpu            (more carriers than cores)
 *   tools/jbang carrier-scaling --carriers 1 --kind io --tasks 100000
 *
 * What you should see (2 cores, JDK 25 and 21; quick profile, ~2.5-3 s a run):
 *   I/O  100 x 50 ms: ~52-54 ms on 1 carrier and on 2 (1.04-1.08 x the bound): the carriers hardly matter.
 *   CPU  100 x ~2 ms: ~203 ms on 1 carrier, ~102-105 ms on 2: a speed-up of ~1.94-1.99 (median batches; 1.97-2.00
 *        from the fastest), each at 1.00-1.03 x the carriers' CPU / min(carriers, cores). The process's CPU
 *        reads ~205-220 ms a batch (10 ms ticks, plus the JIT and the main thread), so on 1 carrier the wall can
 *        sit at ~0.97-0.99 x its bound. Another busy process on the machine shows at once as a smaller speed-up.
 *   Full profile (1,000 tasks of ~1 ms, 100 ms sleeps): CPU ~1,013 ms on 1 carrier, ~509 ms on 2 and the same
 *        on 4 (two cores); I/O ~102-105 ms on all three.
 */
