package unpinned.workloads;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * CPU work the JIT can't skip, one copy for the whole course: the carriers' experiments (S12, S14, S15, chapter
 * 04's steal counter) and the CPU endpoint of S04/S20 all burn through here.
 *
 * <ul>
 *   <li>{@link #hash} mixes a count of values into a long: each step needs the one before (multiply, shift,
 *       xor), so neither the JIT nor the CPU can skip or overlap steps. A fixed amount of work.</li>
 *   <li>{@link #burn} hashes until some nanoseconds have passed on the clock: a fixed time, however fast the
 *       machine (a carrier the OS takes away shows as a longer stretch, not as less work done).</li>
 *   <li>{@link #sumTwice} is the CPU endpoint's work: 1 + 2 + ... + n, twice, as the published benchmark does.</li>
 * </ul>
 * Every result must be used: hand it to {@link #use} (or return it), or the JIT may drop the loop.
 */
public final class Work {
    /** Hash iterations between two looks at the interrupt flag in {@link #hashFor}: tens of microseconds. */
    public static final int CHUNK = 10_000;
    /** Hash iterations between two looks at the clock in {@link #burn}: well under a microsecond. */
    static final int BATCH = 64;
    private static final AtomicLong SINK = new AtomicLong();

    private Work() {}

    /** Mixes {@code iterations} values into {@code h}; each step needs the one before. */
    public static long hash(long h, long iterations) {
        for (long i = 0; i < iterations; i++) {
            h = (h ^ i) * 0x9E3779B97F4A7C15L;
            h ^= h >>> 29;
        }
        return h;
    }

    /**
     * Real CPU work for {@code nanos} on the clock: {@link #hash} in batches of 64 until the time has passed.
     * Stops early, leaving the interrupt flag set, if the thread is interrupted.
     */
    public static long burn(long nanos, long initial) {
        long until = System.nanoTime() + nanos, h = initial;
        do {
            h = hash(h, BATCH);
        } while (System.nanoTime() < until && !Thread.currentThread().isInterrupted());
        return h;
    }

    /** {@code iterations} of {@link #hash} in chunks; stops early, flag still set, if the thread is interrupted. */
    public static long hashFor(long iterations, long initial) {
        long h = initial;
        for (long done = 0; done < iterations && !Thread.currentThread().isInterrupted(); done += CHUNK) {
            h = hash(h, Math.min(CHUNK, iterations - done));
        }
        return h;
    }

    /**
     * Nanoseconds per {@link #hash} iteration on this thread, once compiled: 0.2 s of chunks first (the JIT
     * compiles the loop), then the fastest of 30 timed runs of 20 chunks (one the OS interrupted only takes longer).
     */
    public static double nanosPerIteration() {
        long h = 1, until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
        while (System.nanoTime() < until) h = hash(h, CHUNK);
        long best = Long.MAX_VALUE;
        int chunks = 20;
        for (int i = 0; i < 30; i++) {
            long t0 = System.nanoTime();
            for (int j = 0; j < chunks; j++) h = hash(h, CHUNK);
            best = Math.min(best, System.nanoTime() - t0);
        }
        use(h);
        return (double) best / (chunks * (long) CHUNK);
    }

    /** The CPU endpoint's work: 1 + 2 + ... + n, computed twice; -1 if interrupted on the way (the server stops). */
    public static long sumTwice(long n) {
        long total = 0;
        for (int round = 0; round < 2; round++) {
            long sum = 0;
            for (long i = 1; i <= n; i++) {
                sum += i;
                if ((i & 0xF_FFFF) == 0 && Thread.currentThread().isInterrupted()) return -1;
            }
            total += sum;
        }
        return total;
    }

    /** Keeps a result alive, so the JIT must compute it. */
    public static void use(long result) {
        SINK.addAndGet(result);
    }
}
