//SOURCES ../core/Experiment.java
//SOURCES ../core/Measurement.java
//SOURCES ../running/Processes.java
package unpinned.experiments;

import unpinned.core.Experiment;
import unpinned.core.Measurement;
import unpinned.running.Processes;

import com.google.gson.annotations.SerializedName;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * Chapter 04's internals of the virtual-thread scheduler, as snippets S27 (alias which-queue: which queue a runnable
 * virtual thread waits in) and S28 (alias compensation: when the pool adds a carrier) save them, and the sampling
 * S27 does. Needs Measurement.java and Protocol.java alongside.
 */
public final class SchedulerInternals {
    private SchedulerInternals() {}

    // ---- S27: which queue ---------------------------------------------------------------------------------------

    /** What S27 saves: the pool's mode and, per path, the largest queue counts sampled. */
    public record Queues(String javaVersion, int feature, int carriers, boolean asyncMode, int threads, int workUs,
                         int sampleUs, List<QueuePath> paths) {}

    /** One path's figures: the largest counts sampled, the steals during it, the samples taken. */
    public record QueuePath(String path, int submissionsMax, long workerQueueMax, long steals, int poolSizeMax,
                            long samples, double elapsedMs, String verdict) {
        static QueuePath of(String path, int submissionsMax, long workerQueueMax, long steals, int poolSizeMax,
                            long samples, double elapsedMs) {
            String verdict = submissionsMax == 0 && workerQueueMax == 0 ? "no queue seen (more --threads or --work-us)"
                    : submissionsMax >= workerQueueMax ? "queued in submission queues" : "in worker queues";
            return new QueuePath(path, submissionsMax, workerQueueMax, steals, poolSizeMax, samples,
                    Math.round(elapsedMs * 10) / 10.0, verdict);
        }

        /** One line, as S27 prints it. */
        public String line() {
            return String.format(Locale.ROOT, "%-16s submissions max %,6d | worker queues max %,6d | steals %,6d |"
                    + " pool size max %d | %,d samples in %,.1f ms -> %s", path, submissionsMax, workerQueueMax, steals,
                    poolSizeMax, samples, elapsedMs, verdict);
        }
    }

    /** A path under study: makes {@code n} threads runnable, calling {@code sampling} just before. */
    @FunctionalInterface
    public interface Path {
        void run(Runnable sampling, AtomicBoolean counting, CountDownLatch done) throws Exception;
    }

    /**
     * Runs one path of {@code n} threads while a platform thread samples the pool every {@code sampleUs} (0: spins):
     * submission queues, the workers' queues, the pool size, while {@code counting} is set; the steals over the
     * path. Fails if the path outlives a generous timeout.
     */
    public static QueuePath sampled(String name, int n, int workUs, int sampleUs, int rounds, ForkJoinPool pool,
                                    Path path) throws Exception {
        CountDownLatch done = new CountDownLatch(n);
        AtomicBoolean counting = new AtomicBoolean(true);
        long[] max = new long[4]; // submissions, worker queues, pool size, samples: written by the sampler only
        long[] stealsBefore = new long[1], t0 = new long[1];
        Thread sampler = Thread.ofPlatform().daemon().name("s27-sampler").unstarted(() -> {
            while (done.getCount() > 0 && !Thread.currentThread().isInterrupted()) {
                if (counting.get()) {
                    max[0] = Math.max(max[0], pool.getQueuedSubmissionCount());
                    max[1] = Math.max(max[1], pool.getQueuedTaskCount());
                    max[2] = Math.max(max[2], pool.getPoolSize());
                    max[3]++;
                }
                if (sampleUs > 0) LockSupport.parkNanos(sampleUs * 1_000L);
                else Thread.onSpinWait();
            }
        });
        Runnable sampling = () -> {
            stealsBefore[0] = pool.getStealCount();
            t0[0] = System.nanoTime();
            sampler.start();
        };
        long timeoutMs = 60_000 + (long) n * workUs * rounds / 1_000;
        try {
            path.run(sampling, counting, done);
            if (!done.await(timeoutMs, TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(String.format(Locale.ROOT, "path %s: %,d of %,d threads had not"
                        + " ended after %,d s", name, done.getCount(), n, timeoutMs / 1_000));
            }
        } finally {
            sampler.interrupt();
            sampler.join(); // its maxima are visible after join
        }
        double elapsedMs = (System.nanoTime() - t0[0]) / 1e6;
        pool.awaitQuiescence(5, TimeUnit.SECONDS); // the steal counts settle once the workers are idle
        return QueuePath.of(name, (int) max[0], max[1], pool.getStealCount() - stealsBefore[0], (int) max[2], max[3],
                elapsedMs);
    }

    /** Joins {@code t}, or fails after 60 s. */
    public static void joinWithin(Thread t) throws InterruptedException {
        if (!t.join(java.time.Duration.ofSeconds(60))) throw new IllegalStateException(t + " had not ended after 60 s");
    }

    /** Waits until every thread is in {@code state} (parked, or asleep): nothing of the path is queued then. */
    public static void awaitState(List<Thread> threads, Thread.State state) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (Thread t : threads) {
            while (t.getState() != state) {
                if (System.nanoTime() > deadline) throw new IllegalStateException(t + " never reached " + state);
                Thread.sleep(1);
            }
        }
    }

    // ---- S28: compensation --------------------------------------------------------------------------------------

    /**
     * What S28 saves: the scheduler's settings and, per case ({@code mode} "cases"), how long the blocked threads
     * took and how many were inside the blocking call at once; or, per N ({@code mode} "sweep"), the pool's size
     * against P + max(0, N - (P - minRunnable)). {@code minRunnableSet} is null when the JDK's default was used;
     * {@code minRunnable} is the value in force either way.
     */
    public record Compensation(String javaVersion, int feature, int parallelism, Integer maxPoolSize, int threads,
                               int sleepMs, List<CompensationCase> cases, String mode, Integer minRunnableSet,
                               int minRunnable, List<SweepStep> sweep) implements Measurement.Measured {
        /** Each case's time against one sleep (the time no case can beat); each sweep step's pool against its rule. */
        @Override
        public List<Measurement> measurements() {
            if ("sweep".equals(mode)) {
                return sweep.stream().map(st -> Measurement.of(String.format(Locale.ROOT, "pool size, %d blocked on"
                        + " %d carriers, minRunnable %d · JDK %d", st.threads(), parallelism, minRunnable, feature),
                        st.poolSizeMax(), "carriers").bound(st.expected(), Measurement.Bound.UPPER)).toList();
            }
            return cases.stream().map(c -> Measurement.of(c.name() + " · JDK " + feature, c.elapsedMs(), "ms")
                    .bound(sleepMs, Measurement.Bound.LOWER_TIME)).toList();
        }
    }

    /**
     * One case: the threads' time from the first start to the last end, the pool's size before and during, and the
     * most threads inside the blocking call at the same time ({@code blockedAtOnce}: all of them when each has a
     * carrier or needs none; the carriers' count when the call holds its carrier with no spare).
     */
    public record CompensationCase(@SerializedName("case") String name, double elapsedMs, double ratioToSleep,
                                   int poolSizeBefore, int poolSizeMax, boolean aboveParallelism,
                                   Long mxBeanPoolSizeAfter, int blockedAtOnce) {
        public static CompensationCase of(String name, double elapsedMs, int sleepMs, int before, int max,
                                          int parallelism, int blockedAtOnce) {
            return new CompensationCase(name, Math.round(elapsedMs * 10) / 10.0,
                    Math.round(elapsedMs / sleepMs * 1000) / 1000.0, before, max, max > parallelism,
                    mxBeanPoolSize(), blockedAtOnce);
        }

        /** One line, as S28 prints it. */
        public String line() {
            return String.format(Locale.ROOT, "%-18s %,6.0f ms = %.2f x S | %d blocked at once | pool size %d"
                    + " before, max %d during%s -> %s", name, elapsedMs, ratioToSleep, blockedAtOnce, poolSizeBefore,
                    poolSizeMax, mxBeanPoolSizeAfter == null ? "" : " (MXBean after: " + mxBeanPoolSizeAfter + ")",
                    aboveParallelism ? "more carriers than parallelism" : "no carrier added");
        }
    }

    /**
     * One N of the sweep: the pool's size before and at most during, against {@code expected} = P + max(0, N - (P -
     * minRunnable)) (at most maxPoolSize), the spares that made, and how many blockers were inside their read at
     * once (at most) and when they were released.
     */
    public record SweepStep(int threads, int poolSizeBefore, int poolSizeMax, int expected, int sparesAdded,
                            int blockedAtOnce, int blockedAtRelease, double elapsedMs) {
        public static SweepStep of(int n, int p, int minRunnable, Integer maxPool, int before, int max,
                                   int blockedAtOnce, int blockedAtRelease, double elapsedMs) {
            return new SweepStep(n, before, max, expectedPoolSize(p, minRunnable, maxPool, n), max - before,
                    blockedAtOnce, blockedAtRelease, Math.round(elapsedMs * 10) / 10.0);
        }

        /** One line, as S28 prints it. */
        public String line() {
            return String.format(Locale.ROOT, "%2d blocked: pool size %d before, max %d (expected %d; %d added) |"
                    + " %d in their read at once, %d at the release | %,.0f ms", threads, poolSizeBefore, poolSizeMax,
                    expected, sparesAdded, blockedAtOnce, blockedAtRelease, elapsedMs);
        }
    }

    /** P + max(0, N - (P - minRunnable)), at most maxPoolSize (default max(P, 256)): tryCompensate's rule. */
    public static int expectedPoolSize(int p, int minRunnable, Integer maxPool, int n) {
        int max = maxPool == null ? Math.max(p, 256) : maxPool;
        return Math.min(max, p + Math.max(0, n - (p - minRunnable)));
    }

    /** The minRunnable in force: the one set, or the JDK's default max(P / 2, 1) (21 and 25 alike). */
    public static int minRunnable(int p, Integer set) {
        return set != null ? set : Math.max(p / 2, 1);
    }

    /** S28's line before the cases: the settings and the two times to compare against. */
    public static void announceCompensation(int carriers, Integer maxPool, int n, int s) {
        System.out.printf(Locale.ROOT, "%d carrier%s (checked), maxPoolSize %s, Java %s; %d virtual threads block"
                + " %,d ms per case: ~%,d ms if they overlap (unmounted or compensated), ~%,d ms if they take"
                + " turns%n", carriers, carriers == 1 ? "" : "s", maxPool == null ? "the JDK's default" : maxPool,
                Runtime.version(), n, s, s, (long) s * (n + carriers - 1) / carriers);
    }

    /**
     * S28's cross-option checks: --max-pool-size and --min-runnable against --carriers; the sweep's N ascending;
     * at most 10 minutes if every case held its carrier.
     */
    public static void checkCompensation(Experiment.Args a) {
        int carriers = a.intCount("--carriers");
        if (a.given("--max-pool-size") && a.count("--max-pool-size") < carriers) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "--max-pool-size must be a whole number"
                    + " from %,d to 256; got '%d'", carriers, a.count("--max-pool-size")));
        }
        if (a.given("--min-runnable") && a.count("--min-runnable") > carriers) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "--min-runnable must be a whole number"
                    + " from 1 to --carriers (%d); got '%d'", carriers, a.count("--min-runnable")));
        }
        List<Integer> ns = a.counts("--sweep-threads");
        for (int i = 1; i < ns.size(); i++) {
            if (ns.get(i) <= ns.get(i - 1)) {
                throw new IllegalArgumentException("--sweep-threads must go up (a spare carrier lives 30 s, so each N"
                        + " reuses the ones before it), e.g. 1,2,3,4,5,6; got " + ns);
            }
        }
        if ((long) a.someOf("--case").size() * a.count("--threads") * a.count("--sleep-ms")
                > TimeUnit.MINUTES.toMillis(10)) {
            throw new IllegalArgumentException("cases x --threads x --sleep-ms is over 10 minutes (600 s):"
                    + " use fewer --threads or a shorter --sleep-ms");
        }
    }

    private static final java.time.Duration MKFIFO_TIMEOUT = java.time.Duration.ofSeconds(30);

    /** Makes a FIFO (named pipe) with the mkfifo command (Linux, macOS); fails in one line where it can't. */
    public static java.nio.file.Path mkfifo(java.nio.file.Path fifo) throws IOException, InterruptedException {
        StringBuilder said = new StringBuilder();
        Processes.Ended p;
        try {
            p = Processes.of("mkfifo", fifo.toString()).mergeErrors().lines(line -> said.append(line).append('\n'))
                    .run(MKFIFO_TIMEOUT);
        } catch (IOException e) {
            throw new Experiment.RunFailed("the file-read case needs the mkfifo command (Linux, macOS): " + e.getMessage());
        }
        if (p.timedOut()) throw new Experiment.RunFailed("mkfifo " + fifo + " gave no answer in " + MKFIFO_TIMEOUT.toSeconds() + " s");
        if (p.exit() != 0) throw new Experiment.RunFailed("mkfifo " + fifo + " failed: " + said.toString().strip());
        return fifo;
    }

    /** VirtualThreadSchedulerMXBean.getPoolSize() on JDK 24+ (null before): reflection, so 21 runs these classes. */
    static Long mxBeanPoolSize() {
        try {
            Class<?> type = Class.forName("jdk.management.VirtualThreadSchedulerMXBean");
            @SuppressWarnings({"unchecked", "rawtypes"})
            Object bean = ManagementFactory.getPlatformMXBean((Class) type);
            return ((Number) type.getMethod("getPoolSize").invoke(bean)).longValue();
        } catch (ReflectiveOperationException | IllegalArgumentException e) {
            return null;
        }
    }
}
