package unpinned;

import java.time.Duration;
import java.util.Arrays;
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
