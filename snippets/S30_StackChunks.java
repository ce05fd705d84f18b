///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/core/Experiment.java
//SOURCES ../helpers/unpinned/running/Jdks.java
//SOURCES ../helpers/unpinned/experiments/StackChunks.java
package unpinned.snippets;

/*
 * S30: where does a parked virtual thread keep its frames? Count the objects.
 *
 * The question: N virtual threads recurse D frames and park; their frames are frozen into
 * jdk.internal.vm.StackChunk objects on the heap. How many chunks, how many bytes, against N and D? A class
 * histogram of this JVM (what `jcmd <pid> GC.class_histogram` prints, live objects) counts them.
 * The bound: chunks >= parked threads (see bottom); bytes per chunk grow with D by one frame's size per frame.
 * The pitfall: the first threads run interpreted code (bigger frames), hence warm-up rounds first.
 * Results go to results/s30-stack-chunks/.
 */

import unpinned.core.Experiment;
import unpinned.core.Protocol;
import unpinned.running.Jdks;
import unpinned.experiments.StackChunks;
import unpinned.experiments.StackChunks.ChunkRow;
import unpinned.experiments.StackChunks.Count;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

public class S30_StackChunks {
    // ---- the code under study ---------------------------------------------------------------------------------

    /** Recurses {@code depth} frames (each keeps a value used after the call: the JIT keeps every frame). */
    static long descend(int depth, Step atBottom) throws InterruptedException {
        long here = depth * 0x9E3779B97F4A7C15L;
        if (depth <= 1) {
            atBottom.run();
            return here;
        }
        return Long.rotateLeft(descend(depth - 1, atBottom), 1) ^ here;
    }

    /**
     * What a thread does at the bottom of its first descent, per case: park, once or twice.
     * <p>
     * Why at least one chunk per parked thread (JDK 21.0.8 and 25 sources): a park ends in the VM's freeze
     * (continuationFreezeThaw.cpp, freeze_internal): the frames go into Continuation.tail if it has room
     * (size_if_fast_freeze_available), else allocate_chunk makes one of exactly their size, its parent the last
     * non-empty chunk. A resume thaws them back: all of them (thaw_fast) if the chunk holds under 500 words and
     * has no flag set (interpreted frames, or a GC processed it), and the emptied chunk stays the tail for the
     * next park ("park-again-same"); otherwise only the top frame or two, the rest staying in the chunk. Parking
     * again deeper than the room freed needs a new chunk, the old one kept as parent if not empty
     * ("park-again-deeper"). Freeze never reuses a chunk a GC has processed: the histogram's full GC is one.
     */
    static Step bottom(String kase, int depth, Gate first, Gate second) {
        return switch (kase) {
            case "park" -> first::park;
            case "park-again-same" -> () -> { first.park(); second.park(); };       // the same frames again
            case "park-again-deeper" -> () -> { first.park(); sink = descend(depth, second::park); }; // 2 x D
            default -> throw new IllegalArgumentException("no case " + kase);
        };
    }

    interface Step { void run() throws InterruptedException; }

    /** Threads count down {@code arrived}, then park until {@code open}. */
    record Gate(CountDownLatch arrived, CountDownLatch open) {
        Gate(int n) { this(new CountDownLatch(n), new CountDownLatch(1)); }
        void park() throws InterruptedException { arrived.countDown(); open.await(); }
    }

    // ---- the measurement --------------------------------------------------------------------------------------

    static final List<String> CASES = List.of("park", "park-again-same", "park-again-deeper");
    static volatile long sink;

    public static void main(String[] args) {
        args = Jdks.honourJdkOption("S30", "S30_StackChunks.java", args);
        Experiment.named("S30", "stack chunks of parked virtual threads", "s30-stack-chunks")
                .count("--threads", 1_000, 10_000, 1, 100_000, "virtual threads parked per count")
                .counts("--depths", List.of(1, 16, 64, 256), List.of(1, 16, 64, 256, 1_024), 1, 2_000,
                        "frames each thread recurses before it parks")
                .someOf("--case", CASES, "park once; park, resume, park at the same depth; or twice as deep")
                .check(a -> StackChunks.checkHeap(a.intCount("--threads"), a.counts("--depths"), a.someOf("--case")))
                .notes("--jdk 21|course: run on the JDK 21 runtime set-up installs, or the course JDK.")
                .budget(Duration.ofSeconds(3), Duration.ofSeconds(15))
                .run(args, S30_StackChunks::measure);
    }

    /** Warm-up, then per case and depth: a histogram before, N threads parked, a histogram, their release. */
    static StackChunks.Chunks measure(Experiment.Args a) throws Exception {
        int n = a.intCount("--threads");
        List<Integer> depths = a.counts("--depths");
        System.out.printf("%,d virtual threads per count, depths %s, Java %s%n", n, depths, Runtime.version());
        for (int round = 0; round < 2; round++) { // the JIT compiles descend and the park path: frames shrink
            Protocol.progress("warm-up round " + (round + 1) + " of 2");
            for (String kase : CASES) for (int d : depths) parkAndCount(kase, Math.min(n, 500), d, false);
        }
        List<ChunkRow> rows = new ArrayList<>();
        for (String kase : a.someOf("--case")) {
            for (int d : depths) {
                Protocol.progress(kase + ", depth " + d);
                rows.add(parkAndCount(kase, n, d, true));
                System.out.println(rows.get(rows.size() - 1).line());
            }
        }
        return new StackChunks.Chunks(Runtime.version().toString(), Runtime.version().feature(), n, rows);
    }

    /** Parks {@code n} threads as {@code kase} says, counts (if asked) while they wait, releases and joins them. */
    static ChunkRow parkAndCount(String kase, int n, int depth, boolean count) throws Exception {
        String before = count ? StackChunks.histogram() : "";
        Gate first = new Gate(n), second = new Gate(n);
        boolean twice = !kase.equals("park");
        List<Thread> threads = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                threads.add(Thread.ofVirtual().name("s30-" + kase + "-" + i).start(() -> {
                    try {
                        sink = descend(depth, bottom(kase, depth, first, second));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }));
            }
            awaitParked(first, threads);
            if (twice) {
                first.open().countDown();
                awaitParked(second, threads);
            }
            if (!count) return null;
            String after = StackChunks.histogram();
            Count chunks = StackChunks.count(after, StackChunks.CHUNK_CLASS)
                    .minus(StackChunks.count(before, StackChunks.CHUNK_CLASS));
            Count vts = StackChunks.count(after, StackChunks.VIRTUAL_THREAD_CLASS)
                    .minus(StackChunks.count(before, StackChunks.VIRTUAL_THREAD_CLASS));
            return ChunkRow.of(kase, depth, n, chunks, vts);
        } finally {
            first.open().countDown();
            second.open().countDown();
            for (Thread t : threads) {
                if (!t.join(Duration.ofSeconds(60))) throw new IllegalStateException(t + " did not end in 60 s");
            }
        }
    }

    /** Every thread counted down and is parked (WAITING: unmounted, its frames frozen). */
    static void awaitParked(Gate gate, List<Thread> threads) throws InterruptedException {
        if (!gate.arrived().await(60, TimeUnit.SECONDS)) throw new IllegalStateException("threads did not park");
        for (Thread t : threads) while (t.getState() != Thread.State.WAITING) Thread.sleep(1);
    }
}

/*
 * How to run:
 *   tools/jbang stack-chunks                 (1,000 threads at depths 1, 16, 64, 256; three cases)
 *   tools/jbang stack-chunks --jdk 21        (the same classes on the JDK 21 runtime)
 *
 * What you should see: park: one chunk per thread, bytes per chunk rising by tens of bytes per frame; parking
 * again keeps one chunk while the thaw emptied it, two once frames stay behind as the parent. Reference runs:
 * data/reference-runs/snippets/S30-stack-chunks.md.
 */
