///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/Carriers.java
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

import unpinned.Carriers;
import unpinned.Cli;
import unpinned.Profile;
import unpinned.Protocol;
import unpinned.Results;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToLongFunction;

public class S14_CarrierScaling {
    static final String USAGE = """
            usage: S14_CarrierScaling [--carriers P] [--kind io|cpu|both] [--tasks N] [--sleep-ms S] [--work-ms W]
                                      [--warmups N] [--reps N]
              --carriers P   carriers of the virtual-thread scheduler, 1..256 (default: the cores)
              --kind K       io (each task sleeps), cpu (each task hashes), or both (default both)
              --tasks N      virtual threads per batch, 1..1,000,000 (default 100; full 1,000)
              --sleep-ms S   the I/O task's sleep, 1..60,000 ms (default 50; full 100)
              --work-ms W    the CPU task's computing, sized from the loop's measured speed, 0.01..10,000 ms
                             (default 2; full 1)
              --warmups N    unmeasured batches of each kind first, 0..100 (default 1; full 3)
              --reps N       measured batches of each kind, 1..100 (default 5; full 7)
            (--warmups + --reps) x (sleep-ms + tasks x work-ms) may be at most 10 minutes.""";

    static final int MAX_CARRIERS = 256;
    static final long BUDGET_MS = TimeUnit.MINUTES.toMillis(10);
    /** Hash iterations between two interrupt checks: tens of microseconds once compiled. */
    static final int CHUNK = 10_000;
    static final String PARALLELISM = "jdk.virtualThreadScheduler.parallelism";
    static final String MAX_POOL_SIZE = "jdk.virtualThreadScheduler.maxPoolSize";
    static final String MIN_RUNNABLE = "jdk.virtualThreadScheduler.minRunnable";

    /** Every task's result lands here, so the JIT must compute it. */
    static final AtomicLong SINK = new AtomicLong();
    /** The first thing that went wrong in a task. */
    static final AtomicReference<Throwable> FAILURE = new AtomicReference<>();

    record Options(int carriers, String kind, int tasks, int sleepMs, double workMs, int warmUps, int reps) {
        boolean io() {
            return !kind.equals("cpu");
        }

        boolean cpu() {
            return !kind.equals("io");
        }
    }

    /**
     * One batch, from the first start to the last join: wall-clock, process CPU (in the OS's 10 ms ticks on Linux)
     * and the carrier threads' own CPU (ns resolution) nanoseconds.
     */
    record Batch(long wallNanos, long cpuNanos, long carrierCpuNanos) {}

    public static void main(String[] args) {
        Profile profile = Profile.announceOrExit("S14");
        Options o = parse(args, profile); // reading the profile and parsing start no thread
        // Before anything can create a virtual thread: the scheduler reads these once, at the first one.
        System.setProperty(PARALLELISM, Integer.toString(o.carriers()));
        System.setProperty(MAX_POOL_SIZE, Integer.toString(o.carriers())); // JDK 21: no extra carrier when pinned
        System.setProperty(MIN_RUNNABLE, "1"); // compensate only when every carrier is blocked (capped anyway)
        try {
            Results.checkDir();
        } catch (IllegalStateException e) {
            Cli.exit("S14", e.getMessage());
        }
        try {
            run(o);
        } catch (InterruptedException e) {
            fail("interrupted; nothing saved");
        } catch (IllegalStateException | OutOfMemoryError e) {
            fail(e.getMessage() + "; nothing saved");
        }
    }

    static void run(Options o) throws InterruptedException {
        int cores = Runtime.getRuntime().availableProcessors();
        int effective = Math.min(o.carriers(), cores);
        ForkJoinPool pool = Carriers.pool();
        int seen = pool.getParallelism();
        if (seen != o.carriers()) {
            throw new IllegalStateException(String.format(Locale.ROOT, "the virtual-thread scheduler has %d carriers,"
                    + " not the %d asked for: a virtual thread was created before main set %s", seen, o.carriers(),
                    PARALLELISM));
        }
        System.out.printf(Locale.ROOT, "%d carrier%s (checked: the scheduler's pool has parallelism %d), %d cores,"
                + " JDK %s%n", o.carriers(), o.carriers() == 1 ? "" : "s", seen, cores, Runtime.version());
        double expectedCpuMs = o.tasks() * o.workMs();
        System.out.println("bounds:");
        if (o.io()) {
            System.out.printf(Locale.ROOT, "  I/O  %,d x sleep %,d ms: at least %,d ms, one sleep, whatever the"
                            + " carriers (a sleeping virtual thread leaves its carrier)%n", o.tasks(), o.sleepMs(),
                    o.sleepMs());
        }
        if (o.cpu()) {
            System.out.printf(Locale.ROOT, "  CPU  %,d x ~%s ms of hashing: at least its CPU time / min(carriers %d,"
                            + " cores %d) = ~%,.0f / %d = ~%,.0f ms (the CPU time is measured)%n", o.tasks(),
                    plain(o.workMs()), o.carriers(), cores, expectedCpuMs, effective, expectedCpuMs / effective);
        }

        Map<String, Object> data = new LinkedHashMap<>();
        data.put("carriers", o.carriers());
        data.put("cores", cores);
        data.put("parallelismSeen", seen);
        data.put("effectiveCarriers", effective);
        data.put("warmUps", o.warmUps());
        data.put("reps", o.reps());
        int[] carrierThreadsMax = {pool.getPoolSize()};

        if (o.io()) {
            Runnable sleeper = () -> {
                try {
                    Thread.sleep(o.sleepMs());
                } catch (InterruptedException e) {
                    FAILURE.compareAndSet(null, e);
                }
            };
            long timeout = TimeUnit.MILLISECONDS.toNanos(10L * o.sleepMs()) + TimeUnit.SECONDS.toNanos(60)
                    + 50_000L * o.tasks();
            List<Batch> batches = batches("I/O", sleeper, o, timeout, pool, carrierThreadsMax);
            double[] wall = millis(batches, Batch::wallNanos);
            double median = median(wall), min = Arrays.stream(wall).min().orElseThrow();
            Map<String, Object> io = new LinkedHashMap<>();
            io.put("tasks", o.tasks());
            io.put("sleepMs", o.sleepMs());
            io.put("wallMs", median);
            io.put("wallMsMin", min);
            io.put("boundMs", (double) o.sleepMs());
            io.put("wallToBound", median / o.sleepMs());
            io.put("cpuMs", mean(millis(batches, Batch::cpuNanos)));
            io.put("wallMsAll", wall);
            data.put("io", io);
            System.out.printf(Locale.ROOT, "I/O  %,d x sleep %,d ms on %d carrier%s: wall median %,.1f ms (min %,.1f)"
                            + " = %.2f x the bound %,d ms%n", o.tasks(), o.sleepMs(), o.carriers(),
                    o.carriers() == 1 ? "" : "s", median, min, median / o.sleepMs(), o.sleepMs());
        }

        if (o.cpu()) {
            Protocol.progress("measuring the hash loop's speed on one thread");
            double nanosPerIteration = calibrate();
            long iterations = Math.max(1, Math.round(o.workMs() * 1e6 / nanosPerIteration));
            Runnable hasher = () -> {
                long h = Thread.currentThread().threadId();
                for (long done = 0; done < iterations; done += CHUNK) {
                    h = hash(h, Math.min(CHUNK, iterations - done));
                    if (Thread.interrupted()) {
                        FAILURE.compareAndSet(null, new InterruptedException("a CPU task was interrupted"));
                        return;
                    }
                }
                SINK.addAndGet(h);
            };
            double expectedWallMs = o.tasks() * iterations * nanosPerIteration / 1e6 / effective;
            long timeout = TimeUnit.MILLISECONDS.toNanos((long) (10 * expectedWallMs)) + TimeUnit.SECONDS.toNanos(60);
            List<Batch> batches = batches("CPU", hasher, o, timeout, pool, carrierThreadsMax);
            double[] wall = millis(batches, Batch::wallNanos), cpu = millis(batches, Batch::cpuNanos);
            double[] carrierCpu = millis(batches, Batch::carrierCpuNanos);
            double median = median(wall), min = Arrays.stream(wall).min().orElseThrow();
            // The mean, not the median: the process's CPU time comes in 10 ms ticks, and the mean of the
            // batches' counts is ~sqrt(reps) times closer to the truth than any one of them.
            double cpuMean = mean(cpu);
            // No tick in any batch: too short to read; the bound is then not available (NaN), not 0.
            double bound = cpuMean > 0 ? cpuMean / effective : Double.NaN;
            double carriersMean = mean(carrierCpu), carrierBound = carriersMean / effective;
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("tasks", o.tasks());
            c.put("workMs", o.workMs());
            c.put("iterationsPerTask", iterations);
            c.put("nanosPerIteration", nanosPerIteration);
            c.put("wallMs", median);
            c.put("wallMsMin", min);
            c.put("cpuMs", cpuMean);
            c.put("cpuMsPerTask", cpuMean / o.tasks());
            c.put("carrierCpuMs", carriersMean);
            c.put("carrierBoundMs", carrierBound);
            c.put("boundMs", bound);
            c.put("wallToBound", median / bound);
            c.put("wallToCarrierBound", median / carrierBound);
            c.put("wallMsAll", wall);
            c.put("cpuMsAll", cpu);
            c.put("carrierCpuMsAll", carrierCpu);
            data.put("cpu", c);
            System.out.printf(Locale.ROOT, "CPU  %,d x %,d hash iterations (%.2f ns each: ~%s ms) on %d carrier%s:"
                            + " wall median %,.1f ms (min %,.1f)%n", o.tasks(), iterations, nanosPerIteration,
                    plain(o.workMs()), o.carriers(), o.carriers() == 1 ? "" : "s", median, min);
            String process = cpuMean > 0 ? String.format(Locale.ROOT, "%,.1f ms, bound %,.1f / %d = %,.1f ms, wall ="
                    + " %.2f x", cpuMean, cpuMean, effective, bound, median / bound)
                    : "under one 10 ms tick, too short to read (use more --tasks or --work-ms)";
            System.out.printf(Locale.ROOT, "     CPU a batch: the process %s; the carriers alone %,.1f ms"
                            + " (%.2f ms a task), bound %,.1f ms, wall = %.2f x%n", process, carriersMean,
                    carriersMean / o.tasks(), carrierBound, median / carrierBound);
        }
        data.put("carrierThreadsMax", carrierThreadsMax[0]);
        data.put("javaVersion", Runtime.version().toString());
        if (carrierThreadsMax[0] > o.carriers()) {
            throw new IllegalStateException(String.format(Locale.ROOT, "the scheduler ran %d carrier threads, more"
                    + " than the %d set (%s)", carrierThreadsMax[0], o.carriers(), MAX_POOL_SIZE));
        }
        System.out.printf(Locale.ROOT, "carrier threads: at most %d alive (maxPoolSize %d)%n", carrierThreadsMax[0],
                o.carriers());
        Protocol.result(data);
        System.out.println("saved " + Results.save("s14-carrier-scaling", data));
    }

    /** Warm-up batches, then the measured ones; returns the measured. */
    static List<Batch> batches(String what, Runnable task, Options o, long timeoutNanos, ForkJoinPool pool,
                               int[] carrierThreadsMax) throws InterruptedException {
        List<Batch> measured = new ArrayList<>();
        for (int i = 0; i < o.warmUps() + o.reps(); i++) {
            boolean warm = i < o.warmUps();
            Protocol.progress(String.format(Locale.ROOT, "%s %s %d/%d", what, warm ? "warm-up" : "measuring",
                    warm ? i + 1 : i - o.warmUps() + 1, warm ? o.warmUps() : o.reps()));
            Batch b = batch(task, o.tasks(), timeoutNanos, pool);
            carrierThreadsMax[0] = Math.max(carrierThreadsMax[0], pool.getPoolSize());
            if (!warm) measured.add(b);
        }
        return measured;
    }

    /** Starts {@code n} virtual threads running {@code task} and joins them all; bounded by {@code timeoutNanos}. */
    static Batch batch(Runnable task, int n, long timeoutNanos, ForkJoinPool pool) throws InterruptedException {
        Thread[] threads = new Thread[n];
        Thread.Builder builder = Thread.ofVirtual();
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
        Map<Long, Long> carriers0 = carrierCpuNanos(pool);
        long cpu0 = processCpuNanos(), t0 = System.nanoTime(), deadline = t0 + timeoutNanos;
        try {
            for (int i = 0; i < n; i++) threads[i] = builder.start(counted);
            if (!done.await(timeoutNanos, TimeUnit.NANOSECONDS)) {
                throw new IllegalStateException(String.format(Locale.ROOT, "a batch of %,d tasks had not ended"
                        + " after %.0f s: the machine is overloaded", n, timeoutNanos / 1e9));
            }
            for (Thread t : threads) { // each has counted down: it is ending, if not gone
                if (!t.join(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())))) {
                    throw new IllegalStateException("a task did not end after it finished its work");
                }
            }
        } catch (InterruptedException | RuntimeException | OutOfMemoryError e) {
            stop(threads);
            throw e;
        }
        long wall = System.nanoTime() - t0, cpu = processCpuNanos() - cpu0, carrierCpu = 0;
        for (Map.Entry<Long, Long> e : carrierCpuNanos(pool).entrySet()) {
            carrierCpu += e.getValue() - carriers0.getOrDefault(e.getKey(), 0L); // a new carrier: from 0
        }
        Throwable failure = FAILURE.get();
        if (failure != null) throw new IllegalStateException("a task failed: " + failure);
        return new Batch(wall, cpu, carrierCpu);
    }

    /** Interrupts what was started and waits for it briefly: the tasks check their interrupt flag. */
    static void stop(Thread[] threads) {
        for (Thread t : threads) if (t != null) t.interrupt();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        for (Thread t : threads) {
            if (t == null) continue;
            try {
                t.join(Duration.ofNanos(Math.max(1, until - System.nanoTime())));
            } catch (InterruptedException e) {
                return; // ending anyway
            }
        }
    }

    /**
     * Mixes {@code iterations} values into {@code h}. Each step needs the one before (multiply, shift, xor), so
     * neither the JIT nor the CPU can skip or overlap steps; the caller uses the result.
     */
    static long hash(long h, long iterations) {
        for (long i = 0; i < iterations; i++) {
            h = (h ^ i) * 0x9E3779B97F4A7C15L;
            h ^= h >>> 29;
        }
        return h;
    }

    /**
     * Nanoseconds per hash iteration on this thread, once compiled: 0.2 s of chunks first (the JIT compiles the
     * loop), then the fastest of 30 timed chunks (a chunk the OS interrupted only takes longer).
     */
    static double calibrate() {
        long h = 1, until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
        while (System.nanoTime() < until) h = hash(h, CHUNK);
        long best = Long.MAX_VALUE;
        int chunks = 20;
        for (int i = 0; i < 30; i++) {
            long t0 = System.nanoTime();
            for (int j = 0; j < chunks; j++) h = hash(h, CHUNK);
            best = Math.min(best, System.nanoTime() - t0);
        }
        SINK.addAndGet(h);
        return (double) best / (chunks * (long) CHUNK);
    }

    /** CPU nanoseconds so far of each live carrier thread of {@code pool}, by thread id. */
    static Map<Long, Long> carrierCpuNanos(ForkJoinPool pool) {
        Map<Long, Long> byThread = new LinkedHashMap<>();
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t instanceof ForkJoinWorkerThread w && w.getPool() == pool) {
                long nanos = threads.getThreadCpuTime(t.threadId());
                if (nanos >= 0) byThread.put(t.threadId(), nanos);
            }
        }
        return byThread;
    }

    static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    static double[] millis(List<Batch> batches, ToLongFunction<Batch> field) {
        return batches.stream().mapToDouble(b -> field.applyAsLong(b) / 1e6).toArray();
    }

    static double mean(double[] values) {
        return Arrays.stream(values).average().orElse(Double.NaN);
    }

    static double median(double[] values) {
        double[] s = values.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    static String plain(double d) {
        return d == Math.rint(d) ? String.format(Locale.ROOT, "%,.0f", d) : Double.toString(d);
    }

    /** A failed measurement (not bad input): one line on stderr, exit code 1. */
    static void fail(String message) {
        System.err.println("S14: " + message);
        System.exit(1);
    }

    static Options parse(String[] args, Profile profile) {
        Cli cli = Cli.orExit("S14", USAGE, args,
                Set.of("--carriers", "--kind", "--tasks", "--sleep-ms", "--work-ms", "--warmups", "--reps"), Set.of());
        try {
            int carriers = cli.intValue("--carriers", Runtime.getRuntime().availableProcessors(), 1, MAX_CARRIERS);
            String kind = cli.oneOf("--kind", "both", List.of("io", "cpu", "both"));
            int tasks = cli.intValue("--tasks", profile.pick(100, 1_000), 1, 1_000_000);
            int sleepMs = cli.intValue("--sleep-ms", profile.pick(50, 100), 1, 60_000);
            double workMs = cli.doubleValue("--work-ms", profile.pick(2.0, 1.0), 0.01, 10_000);
            int warmUps = cli.intValue("--warmups", profile.pick(1, 3), 0, 100);
            int reps = cli.intValue("--reps", profile.pick(5, 7), 1, 100);
            double batchMs = (kind.equals("cpu") ? 0 : sleepMs) + (kind.equals("io") ? 0 : tasks * workMs);
            if ((warmUps + reps) * batchMs > BUDGET_MS) {
                throw new IllegalArgumentException(String.format(Locale.ROOT, "(--warmups + --reps) x (sleep-ms"
                        + " + tasks x work-ms) = (%d + %d) x %,.0f ms = %,.0f s on one carrier; at most 10 minutes"
                        + " (600 s) allowed: use fewer --tasks, a smaller --work-ms or fewer --reps", warmUps, reps,
                        batchMs, (warmUps + reps) * batchMs / 1e3));
            }
            return new Options(carriers, kind, tasks, sleepMs, workMs, warmUps, reps);
        } catch (IllegalArgumentException e) {
            return Cli.exit("S14", e.getMessage());
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
