//SOURCES ../core/Protocol.java
package unpinned.workloads;

import unpinned.core.Protocol;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * S26's plumbing for N virtual threads that are all alive at once: start them, wait until every one has parked,
 * read the heap after full GCs, release and join them, and report a thread that failed meanwhile (an
 * OutOfMemoryError, an interrupt) as one line. The task each thread runs ends in {@link #parkUntilReleased()}.
 * Needs Protocol.java alongside.
 */
public final class ParkedThreads {
    private ParkedThreads() {
    }

    /** The time budget of one mode's run: the deadline the methods take is computed from it. */
    public static final Duration BUDGET = Duration.ofMinutes(5);
    static final AtomicReference<Throwable> FAILURE = new AtomicReference<>();

    /** One round of started threads: how many started, the latch that releases them, how long they took to park. */
    public record Round(Thread[] threads, int started, CountDownLatch release, double startSeconds) {
    }

    static volatile CountDownLatch parked, release;
    /** Threads started and not yet joined, and the heap in use: a parent's live chart, sampled from the first start. */
    static final java.util.concurrent.atomic.AtomicInteger ALIVE = new java.util.concurrent.atomic.AtomicInteger();
    private static Protocol.Sampling live;

    public static void parkUntilReleased() {
        CountDownLatch p = parked, r = release;
        boolean arrived = false;
        try {
            p.countDown();
            arrived = true;
            r.await();
        } catch (InterruptedException e) { // the run is void: main sees it and ends the run
            FAILURE.compareAndSet(null, e);
        } catch (Throwable e) {
            FAILURE.compareAndSet(null, e);
        } finally {
            if (!arrived) p.countDown();
        }
    }

    /** Starts every thread of the array and returns once all have parked (after touching the value). */
    public static Round startAndPark(Runnable task, Thread[] threads, long deadline) throws InterruptedException {
        int n = threads.length;
        parked = new CountDownLatch(n);
        release = new CountDownLatch(1);
        CountDownLatch r = release;
        Thread.Builder builder = Thread.ofVirtual();
        int started = 0;
        synchronized (ParkedThreads.class) { // runs until the JVM ends: a daemon thread
            if (live == null) live = Protocol.sampleEverySecond(() -> Protocol.Sample.of("threads_alive", ALIVE.get(),
                    "heap_MB", (Runtime.getRuntime().totalMemory() - Runtime.getRuntime().freeMemory()) / 1e6));
        }
        long t0 = System.nanoTime();
        try {
            for (int i = 0; i < n; i++) {
                if (Thread.currentThread().isInterrupted()) throw new InterruptedException("interrupted while starting");
                threads[i] = builder.start(task);
                started++;
                ALIVE.incrementAndGet();
                if (n >= 100_000 && (i + 1) % (n / 4) == 0 && i + 1 < n) {
                    Protocol.progress(String.format(Locale.ROOT, "started %,d of %,d", i + 1, n));
                }
            }
            if (!parked.await(remaining(deadline), TimeUnit.NANOSECONDS)) {
                throw new IllegalStateException(String.format(Locale.ROOT, "only %,d of %,d threads parked within %d"
                        + " minutes", n - parked.getCount(), n, BUDGET.toMinutes()));
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            checkFailure("before all had parked");
            // The latch counts down just before await(): wait until each one is parked (unmounted).
            for (Thread t : threads) {
                while (t.getState() != Thread.State.WAITING) {
                    checkFailure("before all had parked");
                    if (remaining(deadline) <= 0) throw new IllegalStateException("threads did not park in time");
                    Thread.sleep(1);
                }
            }
            return new Round(threads, n, r, seconds);
        } catch (InterruptedException | RuntimeException | OutOfMemoryError e) {
            r.countDown(); // release what was started before giving up
            for (int i = 0; i < started; i++) threads[i].join(Duration.ofSeconds(1));
            throw e;
        }
    }

    /** Releases the round's threads and joins them; returns the seconds that took. */
    public static double releaseAndJoin(Round round, long deadline) throws InterruptedException {
        long t0 = System.nanoTime();
        round.release().countDown();
        for (int i = 0; i < round.started(); i++) {
            if (!round.threads()[i].join(Duration.ofNanos(Math.max(1, remaining(deadline))))) {
                throw new IllegalStateException("threads did not end within the time budget after they were released");
            }
            ALIVE.decrementAndGet();
        }
        checkFailure("after they were released");
        return (System.nanoTime() - t0) / 1e9;
    }

    public static void checkFailure(String when) {
        Throwable e = FAILURE.get();
        if (e == null) return;
        String hint = e instanceof OutOfMemoryError ? "; use fewer --threads or a smaller --value-bytes" : "";
        throw new IllegalStateException("a thread failed " + when + ": " + e + hint);
    }

    public static long remaining(long deadline) {
        return deadline - System.nanoTime();
    }

    /** Heap used after a few full GCs, so it counts live objects only. */
    public static long settledHeap() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

}
