///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//RUNTIME_OPTIONS -Xmx3g
//SOURCES ../helpers/unpinned/Profile.java
//SOURCES ../helpers/unpinned/Machine.java
//SOURCES ../helpers/unpinned/Course.java
//SOURCES ../helpers/unpinned/Json.java
//SOURCES ../helpers/unpinned/Results.java
//SOURCES ../helpers/unpinned/Measurement.java
//SOURCES ../helpers/unpinned/RunGuard.java
//SOURCES ../helpers/unpinned/Cli.java
//SOURCES ../helpers/unpinned/Protocol.java
//SOURCES ../helpers/unpinned/ProcessStats.java
package unpinned.snippets;

/*
 * S10: what it costs to hold a thread.
 *
 * The question: N threads each call D methods deep and then block, as a request handler does while it
 * waits for a database. How long does it take to start them all until all are blocked, and how much
 * heap and resident memory does each blocked thread hold, for virtual and for platform threads?
 *
 * The pitfall: a thread's cost is its stack, not its object. A platform thread is an OS thread with a
 * stack reserved up front (1 MB by default, -Xss) of which the touched pages stay resident, so the OS
 * and the RAM cap how many can wait at once. A blocked virtual thread has no OS thread: its frames are
 * copied into a stack chunk on the heap, so its cost grows with the depth it blocked at, and the heap
 * (-Xmx, 3 GB here) is the cap. Neither is free: a million blocked virtual threads are about a
 * gigabyte of heap.
 *
 * One JVM per run. Warm-up rounds of the same kind go first, so class loading, the JIT and the
 * virtual threads' carrier pool are not charged to the measured threads. Heap is read after full GCs
 * (live objects only); RSS is the whole process's resident memory (/proc/self/status), so it also
 * moves with the heap the GC keeps committed. Results go to results/s10-thread-cost/.
 */

import unpinned.Cli;
import unpinned.ProcessStats;
import unpinned.Profile;
import unpinned.Protocol;
import unpinned.Results;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

public class S10_ThreadCost {
    static final String USAGE = """
            usage: S10_ThreadCost [--kind virtual|platform] [--threads N] [--depth D]
              --kind K      virtual or platform threads (default virtual)
              --threads N   threads to start and hold blocked: virtual 1..2,000,000 (default 10,000),
                            platform 1..5,000 (default 1,000)
              --depth D     frames each thread recurses before it blocks, 1..5,000 (default 10)""";

    static final int VIRTUAL_MAX = 2_000_000;
    /** Far below the OS limits, so a demo can never use up the machine's threads. */
    static final int PLATFORM_CAP = 5_000;
    /**
     * Inside a 1 MB stack: compiled frames (the warm-up sees to that) take ~25 B a level, interpreted ones ~130 B.
     * (Under -Xint a virtual thread overflowed parking between 3,000 and 4,000 frames; the run then fails cleanly.)
     */
    static final int MAX_DEPTH = 5_000;
    /** A generous guess at a blocked virtual thread's heap (thread, continuation, latch node, stack chunk). */
    static final long ESTIMATE_BASE_BYTES = 200, ESTIMATE_FRAME_BYTES = 100;
    static final Duration BUDGET = Duration.ofMinutes(10);

    /** The first thing that went wrong in a thread; checked by the main thread at every step. */
    static final AtomicReference<Throwable> FAILURE = new AtomicReference<>();
    static volatile long sink;

    record Options(String kind, int threads, int depth) {}

    public static void main(String[] args) {
        Profile.announceOrExit("S10");
        Options o = parse(args);
        try {
            run(o);
        } catch (InterruptedException e) {
            System.err.println("S10: interrupted; nothing saved");
            System.exit(1);
        }
    }

    static void run(Options o) throws InterruptedException {
        long deadline = System.nanoTime() + BUDGET.toNanos();
        Thread.Builder builder = o.kind().equals("virtual") ? Thread.ofVirtual() : Thread.ofPlatform();
        System.out.printf(Locale.ROOT, "%,d %s threads, each %,d frames deep, then blocked on a latch;"
                        + " heap max %,d MB, %d cores, JDK %s%n", o.threads(), o.kind(), o.depth(),
                Runtime.getRuntime().maxMemory() >> 20, Runtime.getRuntime().availableProcessors(), Runtime.version());

        warmUp(builder, o, deadline);
        Thread[] threads = new Thread[o.threads()]; // allocated before the baseline: it is not the threads' cost
        Protocol.progress("baseline: full GCs");
        Map<String, Object> before = settledSnapshot();
        Round round = startAndBlock(builder, threads, o.depth(), deadline, true);
        Protocol.progress(String.format(Locale.ROOT, "all %,d blocked: full GCs, then heap and RSS", o.threads()));
        Map<String, Object> after = settledSnapshot();
        checkFailure(round, "while they were blocked", deadline);
        double releaseSeconds = releaseAndJoin(round, deadline);

        long heapBefore = (long) before.get("heapUsedBytes"), heapAfter = (long) after.get("heapUsedBytes");
        long rssBefore = (long) before.get("rssBytes"), rssAfter = (long) after.get("rssBytes");
        long heapPerThread = Math.round((heapAfter - heapBefore) / (double) o.threads());
        long rssPerThread = rssBefore < 0 || rssAfter < 0 ? -1 // not Linux
                : Math.round((rssAfter - rssBefore) / (double) o.threads());
        System.out.printf(Locale.ROOT, "%,d %s threads, depth %,d: started and blocked in %.3f s; heap %,d B and"
                        + " RSS %,d B per thread; %d platform threads live (%d OS threads)%n", o.threads(), o.kind(),
                o.depth(), round.startSeconds(), heapPerThread, rssPerThread, after.get("liveThreads"),
                after.get("osThreads"));
        System.out.printf(Locale.ROOT, "  heap used %,.1f -> %,.1f MB, RSS %,.1f -> %,.1f MB while all were blocked;"
                        + " released and joined in %.3f s (%.3f s in all)%n", heapBefore / 1e6, heapAfter / 1e6,
                rssBefore / 1e6, rssAfter / 1e6, releaseSeconds, round.startSeconds() + releaseSeconds);

        Map<String, Object> data = new LinkedHashMap<>();
        data.put("kind", o.kind());
        data.put("threads", o.threads());
        data.put("depth", o.depth());
        data.put("startSeconds", round.startSeconds());
        data.put("totalSeconds", round.startSeconds() + releaseSeconds); // not counting the pause to measure
        data.put("heapBytesPerThread", heapPerThread);
        data.put("rssBytesPerThread", rssPerThread);
        data.put("heapUsedBeforeBytes", heapBefore);
        data.put("heapUsedAfterBytes", heapAfter);
        data.put("rssBeforeBytes", rssBefore);
        data.put("rssAfterBytes", rssAfter);
        data.put("liveThreads", after.get("liveThreads"));
        data.put("osThreads", after.get("osThreads"));
        data.put("javaVersion", System.getProperty("java.version"));
        Protocol.result(data);
        System.out.println("saved " + Results.save("s10-thread-cost", data));
    }

    static Options parse(String[] args) {
        Cli cli = Cli.orExit("S10", USAGE, args, Set.of("--kind", "--threads", "--depth"), Set.of());
        try {
            Results.checkDir();
            String kind = cli.oneOf("--kind", "virtual", List.of("virtual", "platform"));
            boolean virtual = kind.equals("virtual");
            int threads;
            try {
                threads = cli.intValue("--threads", virtual ? 10_000 : 1_000, 1, virtual ? VIRTUAL_MAX : PLATFORM_CAP);
            } catch (IllegalArgumentException e) {
                String given = cli.value("--threads", "").strip().replace("_", "");
                if (virtual || !given.matches("\\d{1,18}") || Long.parseLong(given) < 1) throw e;
                throw new IllegalArgumentException(String.format(Locale.ROOT, "--threads %s refused: platform threads"
                        + " are capped at %,d here: each is an OS thread with its own stack, and the OS limits how many"
                        + " a user may have (this machine: %s); use --kind virtual for more", given, PLATFORM_CAP,
                        osThreadLimit()));
            }
            int depth;
            try {
                depth = cli.intValue("--depth", 10, 1, MAX_DEPTH);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(e.getMessage() + " (5,000 at most: deeper recursion could overflow"
                        + " a thread's stack, 1 MB by default with -Xss; virtual threads have the same limit)");
            }
            long estimate = threads * (ESTIMATE_BASE_BYTES + ESTIMATE_FRAME_BYTES * depth);
            long allowed = (long) (0.8 * Runtime.getRuntime().maxMemory());
            if (virtual && estimate > allowed) {
                throw new IllegalArgumentException(String.format(Locale.ROOT, "%,d virtual threads at --depth %,d"
                                + " refused: they would need about %,d MB of heap (estimated %d + %d x depth = %,d bytes"
                                + " per blocked thread), more than 80%% of this JVM's %,d MB (-Xmx); use fewer threads"
                                + " or a smaller --depth", threads, depth, estimate >> 20, ESTIMATE_BASE_BYTES,
                        ESTIMATE_FRAME_BYTES, ESTIMATE_BASE_BYTES + ESTIMATE_FRAME_BYTES * depth,
                        Runtime.getRuntime().maxMemory() >> 20));
            }
            return new Options(kind, threads, depth);
        } catch (IllegalArgumentException | IllegalStateException e) {
            return Cli.exit("S10", e.getMessage());
        }
    }

    /** The tightest limit on this process's threads that Linux shows, with where it comes from. */
    static String osThreadLimit() {
        long best = Long.MAX_VALUE;
        String from = null;
        for (String file : List.of("/proc/sys/kernel/threads-max", "/proc/sys/kernel/pid_max",
                "/sys/fs/cgroup/pids.max")) {
            long n = number(read(file).strip());
            if (n > 0 && n < best) {
                best = n;
                from = file;
            }
        }
        for (String line : read("/proc/self/limits").split("\n")) {
            if (!line.startsWith("Max processes")) continue;
            long n = number(line.substring("Max processes".length()).strip().split("\\s+")[0]);
            if (n > 0 && n < best) {
                best = n;
                from = "ulimit -u, threads of all this user's processes";
            }
        }
        return from == null ? "unknown" : String.format(Locale.ROOT, "%,d, from %s", best, from);
    }

    static String read(String file) {
        try { // not Files.readString: it returned one character of /proc/sys files (size 0) on a 6.18 kernel
            return String.join("\n", Files.readAllLines(Path.of(file)));
        } catch (IOException | RuntimeException e) {
            return ""; // not Linux, or no such limit
        }
    }

    static long number(String s) {
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException e) {
            return -1; // "max", "unlimited"
        }
    }

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

    /**
     * Runs the same code on threads of the same kind first: the first threads of a JVM pay for class loading,
     * JIT compilation (its memory stays resident), the carrier pool and the allocator's arenas. Its size does
     * not depend on --threads, so runs of different sizes compare. Virtual: enough rounds for the park path to
     * reach C2; until then frames are interpreted or C1, and a stack chunk is up to twice the size.
     */
    static void warmUp(Thread.Builder builder, Options o, long deadline) throws InterruptedException {
        boolean virtual = o.kind().equals("virtual");
        int rounds = virtual ? 10 : 1, size = virtual ? 10_000 : 1_000;
        int depth = virtual ? Math.min(o.depth(), 10) : o.depth(); // shallow: deep virtual rounds would cost GBs
        Protocol.progress(String.format(Locale.ROOT, "warm-up: %d x %,d %s threads", rounds, size, o.kind()));
        for (int r = 0; r < rounds; r++) {
            releaseAndJoin(startAndBlock(builder, new Thread[size], depth, deadline, false), deadline);
        }
        ProcessStats.snapshot(); // its first call loads classes too
    }

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
                long r = descend(depth, parked, release);
                arrived = true;
                sink = r;
            } catch (Throwable e) { // StackOverflowError, OutOfMemoryError, an interrupt: the run is void
                FAILURE.compareAndSet(null, e);
            } finally {
                if (!arrived) parked.countDown(); // so the main thread stops waiting and sees the failure
            }
        };
        int step = Math.max(1, n / 4);
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            try {
                threads[i] = builder.unstarted(task);
                threads[i].start();
            } catch (OutOfMemoryError e) { // "unable to create native thread", or the heap is full
                threads[i] = null;
                String why = e.getMessage() == null ? e.toString() : e.getMessage();
                fail(new Round(threads, i, release, 0), String.format(Locale.ROOT, "started %,d of %,d threads,"
                        + " then the JVM could not start another: %s", i, n, why), deadline);
            }
            if (report && n >= 10_000 && (i + 1) % step == 0 && i + 1 < n) {
                Protocol.progress(String.format(Locale.ROOT, "started %,d of %,d", i + 1, n));
            }
        }
        Round round = new Round(threads, n, release, 0);
        if (!parked.await(remaining(deadline), TimeUnit.NANOSECONDS)) {
            fail(round, String.format(Locale.ROOT, "only %,d of %,d threads blocked within %d minutes",
                    n - parked.getCount(), n, BUDGET.toMinutes()), deadline);
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        checkFailure(round, "before all had blocked", deadline);
        // The latch counts down just before await(): wait until each thread is parked (a virtual one unmounted).
        for (Thread t : threads) {
            while (t.getState() != Thread.State.WAITING) {
                checkFailure(round, "before all had blocked", deadline);
                if (remaining(deadline) <= 0) fail(round, "threads did not park within the time budget", deadline);
                Thread.sleep(1);
            }
        }
        return new Round(threads, n, release, seconds);
    }

    /** Releases the round's threads and joins them; returns the seconds that took. */
    static double releaseAndJoin(Round round, long deadline) throws InterruptedException {
        long t0 = System.nanoTime();
        round.release().countDown();
        for (int i = 0; i < round.started(); i++) {
            if (!round.threads()[i].join(Duration.ofNanos(Math.max(1, remaining(deadline))))) {
                fail(round, "threads did not end within the time budget after they were released", deadline);
            }
        }
        checkFailure(round, "after they were released", deadline);
        return (System.nanoTime() - t0) / 1e9;
    }

    static void checkFailure(Round round, String when, long deadline) {
        Throwable e = FAILURE.get();
        if (e == null) return;
        String hint = e instanceof StackOverflowError ? "; try a smaller --depth"
                : e instanceof OutOfMemoryError ? "; try fewer threads or a smaller --depth" : "";
        fail(round, "a thread failed " + when + ": " + e + hint, deadline);
    }

    /** Releases and (briefly) joins what was started, prints one line and ends the JVM: nothing is saved. */
    static void fail(Round round, String message, long deadline) {
        round.release().countDown();
        long joinBy = Math.min(deadline, System.nanoTime() + TimeUnit.SECONDS.toNanos(30));
        try {
            for (int i = 0; i < round.started(); i++) {
                round.threads()[i].join(Duration.ofNanos(Math.max(1, joinBy - System.nanoTime())));
            }
        } catch (InterruptedException e) {
            // ending anyway
        }
        System.err.println("S10: " + message);
        System.exit(1);
    }

    static long remaining(long deadline) {
        return deadline - System.nanoTime();
    }

    /** Heap, RSS and threads after a few full GCs, so the heap figure counts live objects only. */
    static Map<String, Object> settledSnapshot() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return ProcessStats.snapshot();
    }
}

/*
 * How to run:
 *   tools/jbang thread-cost                                        (10,000 virtual threads, depth 10)
 *   tools/jbang thread-cost --threads 1000000                      (a million: about a gigabyte of heap)
 *   tools/jbang thread-cost --depth 1000                           (the heap per thread grows with depth)
 *   tools/jbang thread-cost --kind platform --threads 5000         (the cap: each is an OS thread)
 *
 * What you should see (2 cores, JDK 25, -Xmx3g):
 *   virtual, depth 10   ~1 KB of heap per blocked thread at 10,000, 100,000 and 1,000,000 threads (the stack
 *                       chunk is ~700 B of it); a million start and block in ~1.5-3 s, over half of it young GCs
 *                       copying the chunks; 9 platform threads live throughout
 *   virtual, deeper     heap per thread grows ~25 B a frame: ~3.2 KB at depth 100, ~26 KB at depth 1,000
 *   platform, depth 10  ~260 B of heap but ~15-20 KB of RSS per thread (stack pages, the JVM's and the OS's
 *                       per-thread structures); 1,000 start in ~0.1 s, 5,000 in ~0.7 s; one OS thread each
 * RSS per virtual thread tracks its heap plus whatever head-room the GC keeps committed, so it is noisier.
 */
