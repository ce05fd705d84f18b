package unpinned.workloads;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/** The platform threads that carry virtual threads, as seen from inside this JVM (no flags, no internal API). */
public final class Carriers {
    private Carriers() {}

    /**
     * The carriers' ForkJoinPool, found from inside a virtual thread: its toString names its carrier
     * ("VirtualThread[#22]/runnable@ForkJoinPool-1-worker-1"), a ForkJoinWorkerThread among the live threads.
     * Creating this probe is what makes the JVM create the scheduler, so scheduler properties must be set before.
     *
     * @throws IllegalStateException the probe did not end within 30 s, or no such carrier was found
     */
    public static ForkJoinPool pool() throws InterruptedException {
        AtomicReference<ForkJoinPool> found = new AtomicReference<>();
        AtomicReference<String> carrierName = new AtomicReference<>();
        Thread probe = Thread.ofVirtual().start(() -> {
            String me = Thread.currentThread().toString();
            String carrier = me.substring(me.lastIndexOf('@') + 1);
            carrierName.set(carrier);
            // looked up while the probe runs, so its carrier is certainly alive
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (t instanceof ForkJoinWorkerThread w && t.getName().equals(carrier)) found.set(w.getPool());
            }
        });
        if (!probe.join(Duration.ofSeconds(30))) throw new IllegalStateException("a probe virtual thread did not end");
        if (found.get() == null) {
            throw new IllegalStateException("cannot find the carriers' ForkJoinPool: no ForkJoinWorkerThread named '"
                    + carrierName.get() + "' among the live threads (does this JDK schedule virtual threads on a"
                    + " ForkJoinPool?)");
        }
        return found.get();
    }

    static final String PARALLELISM = "jdk.virtualThreadScheduler.parallelism";
    static final String MAX_POOL_SIZE = "jdk.virtualThreadScheduler.maxPoolSize";

    /**
     * Gives the virtual-thread scheduler exactly {@code p} carriers: parallelism and maxPoolSize {@code p}, minRunnable
     * 1. maxPoolSize = p forbids spares: the pool adds one only while a virtual thread is in a managed blocking call
     * (jdk.internal.misc.Blocker: JDK 21's Object.wait and file reads, a process pipe on both), never for a pinned
     * thread. The JVM reads these once, when it creates its
     * first virtual thread, and silently ignores them after: call this before anything can start one, then
     * {@link #pool(int)} checks the pool it got.
     */
    public static void fix(int p) {
        System.setProperty(PARALLELISM, Integer.toString(p));
        System.setProperty(MAX_POOL_SIZE, Integer.toString(p));
        System.setProperty("jdk.virtualThreadScheduler.minRunnable", "1");
    }

    /** {@link #pool()}, checked to have {@code p} carriers, as {@link #fix} asked. */
    public static ForkJoinPool pool(int p) throws InterruptedException {
        ForkJoinPool pool = pool();
        if (pool.getParallelism() != p) {
            throw new IllegalStateException(String.format(Locale.ROOT, "the virtual-thread scheduler has %d carriers,"
                    + " not the %d asked for: a virtual thread was created before main set %s", pool.getParallelism(),
                    p, PARALLELISM));
        }
        return pool;
    }

    /** Refuses a run whose scheduler added carriers beyond the {@code p} that {@link #fix} allowed. */
    public static void requireAtMost(int carrierThreads, int p) {
        if (carrierThreads > p) {
            throw new IllegalStateException(String.format(Locale.ROOT, "the scheduler ran %d carrier threads, more"
                    + " than the %d set (%s)", carrierThreads, p, MAX_POOL_SIZE));
        }
    }

    /** CPU nanoseconds so far of each live carrier thread of {@code pool}, by thread id (ns resolution). */
    public static Map<Long, Long> cpuNanosByThread(ForkJoinPool pool) {
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

    /** The CPU nanoseconds {@code pool}'s carriers used since {@code before} (a carrier started since: from 0). */
    public static long cpuNanosSince(Map<Long, Long> before, ForkJoinPool pool) {
        long sum = 0;
        for (Map.Entry<Long, Long> e : cpuNanosByThread(pool).entrySet()) {
            sum += e.getValue() - before.getOrDefault(e.getKey(), 0L);
        }
        return sum;
    }

    /** This process's CPU time so far, all threads (on Linux in 10 ms ticks). */
    public static long processCpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
    }

    /** Waits for each of {@code threads} (started ones) until {@code deadlineNanos} on the clock; false if late. */
    public static boolean joinAll(Thread[] threads, long deadlineNanos) throws InterruptedException {
        for (Thread t : threads) {
            if (t == null || t.getState() == Thread.State.NEW) continue; // join refuses a thread never started
            if (!t.join(Duration.ofNanos(Math.max(1, deadlineNanos - System.nanoTime())))) return false;
        }
        return true;
    }

    /** Interrupts {@code threads} and waits for them up to 5 s: after a failure, so nothing is left running. */
    public static void stop(Thread... threads) {
        for (Thread t : threads) if (t != null) t.interrupt();
        try {
            joinAll(threads, System.nanoTime() + TimeUnit.SECONDS.toNanos(5));
        } catch (InterruptedException e) {
            // ending anyway
        }
    }

    /** How many carriers run virtual threads at once: jdk.virtualThreadScheduler.parallelism, or the cores. */
    public static int parallelism() {
        String set = System.getProperty("jdk.virtualThreadScheduler.parallelism");
        try {
            if (set != null) return Integer.parseInt(set.trim());
        } catch (NumberFormatException e) {
            // the JDK refuses a bad value itself
        }
        return Runtime.getRuntime().availableProcessors();
    }

    /** Thread {@code i}'s work in a {@link #timeBatch}; may throw. */
    @FunctionalInterface
    public interface Task {
        void run(int i) throws Exception;
    }

    /**
     * What a {@link #timeBatch} measured: the time from the first start to the last end; the longest any thread
     * waited from that first start until it first ran (its wait for a carrier); the most carriers the pool had.
     */
    public record Batch(double elapsedMs, double firstRunMaxMs, int carriersMax) {}

    /**
     * Starts {@code n} virtual threads named {@code prefix0 .. prefix(n-1)}, each noting when it first ran and then
     * doing {@code task.run(i)}, and waits for the last to end, reading {@code pool}'s size every 5 ms (has the
     * scheduler added a carrier?). The task is called from the thread's own frame, so its method shows in stack
     * traces and JFR stacks. On a failure, a timeout or an interrupt every thread is interrupted.
     *
     * @param what    what to call the batch in messages, e.g. "case synchronized-sleep"
     * @param timeout how long the batch may take before it counts as stuck
     * @throws IllegalStateException a task threw (the first failure is named), or the batch outlived {@code timeout}
     */
    public static Batch timeBatch(String what, String prefix, int n, Duration timeout, ForkJoinPool pool, Task task)
            throws InterruptedException {
        if (n < 1) throw new IllegalArgumentException("n must be at least 1, got " + n);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(n);
        long[] firstRun = new long[n]; // read after done.await: the latch orders them
        long[] t0 = new long[1];
        Thread[] threads = new Thread[n];
        int carriersMax = pool.getPoolSize();
        long elapsed;
        try {
            Thread.Builder builder = Thread.ofVirtual().name(prefix, 0);
            t0[0] = System.nanoTime(); // before the first start: Thread.start orders it before the thread's reads
            for (int i = 0; i < n; i++) {
                int me = i;
                threads[i] = builder.start(() -> {
                    firstRun[me] = System.nanoTime() - t0[0];
                    try {
                        task.run(me);
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    } finally {
                        done.countDown();
                    }
                });
            }
            while (!done.await(5, TimeUnit.MILLISECONDS)) { // the calling thread is no carrier
                carriersMax = Math.max(carriersMax, pool.getPoolSize());
                if (System.nanoTime() - t0[0] > timeout.toNanos()) {
                    throw new IllegalStateException(String.format(Locale.ROOT, "%s: %d of %d threads had not ended"
                            + " after %,.1f s", what, done.getCount(), n, timeout.toMillis() / 1e3));
                }
            }
            elapsed = System.nanoTime() - t0[0];
            for (Thread t : threads) { // each has counted down: it is ending, if not gone
                if (!t.join(Duration.ofSeconds(10))) throw new IllegalStateException(t.getName() + " did not end");
            }
        } catch (InterruptedException | RuntimeException | OutOfMemoryError e) {
            for (Thread t : threads) if (t != null) t.interrupt();
            throw e;
        }
        carriersMax = Math.max(carriersMax, pool.getPoolSize());
        if (failure.get() != null) throw new IllegalStateException(what + " failed: " + failure.get());
        return new Batch(elapsed / 1e6, Arrays.stream(firstRun).max().orElse(0) / 1e6, carriersMax);
    }
}
