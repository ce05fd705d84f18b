//SOURCES ../running/ChildRun.java
//SOURCES ../core/Expectations.java
//SOURCES ../core/Figure.java
//SOURCES ../core/Measurement.java
//SOURCES ../running/ProcessStats.java
//SOURCES StackChunks.java
package unpinned.experiments;

import unpinned.core.Expectations;
import unpinned.core.Expectations.Line;
import unpinned.core.Figure;
import unpinned.core.Measurement;
import unpinned.running.ChildRun;
import unpinned.running.ProcessStats;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Chapter 03's cost of a blocked thread, one run of snippet S10 ({@code thread-cost}) in its own JVM: {@code threads}
 * threads of {@code kind} blocked at stack depth {@code depth}, what starting them took, and the heap and RSS they
 * added, per thread. Read typed from the snippet's result, so the notebook unpacks no JSON.
 */
public record ThreadCost(String kind, int threads, int depth, double startSeconds, double heapBytesPerThread,
                         double rssBytesPerThread, int liveThreads) implements Measurement.Measured {

    /** Far below the OS limits, so a demo can never use up the machine's threads. */
    public static final int PLATFORM_CAP = 5_000;
    /**
     * Inside a 1 MB stack: compiled frames (the warm-up sees to that) take ~25 B a level, interpreted ones ~130 B.
     * (Under -Xint a virtual thread overflowed parking between 3,000 and 4,000 frames; the run then fails cleanly.)
     */
    public static final int MAX_DEPTH = 5_000;

    /** S10's refusals: the platform cap, the depth's limit and the heap the threads would need. */
    public static void checkSizes(String kind, int n, long depth) {
        boolean virtual = kind.equals("virtual");
        if (!virtual && n > PLATFORM_CAP) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "--threads %d refused: platform threads"
                    + " are capped at %,d here: each is an OS thread with its own stack, and the OS limits how many"
                    + " a user may have (this machine: %s); use --kind virtual for more", n, PLATFORM_CAP,
                    osThreadLimit()));
        }
        if (depth > MAX_DEPTH) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "--depth must be a whole number from 1 to"
                    + " %,d; got '%d' (5,000 at most: deeper recursion could overflow a thread's stack, 1 MB by"
                    + " default with -Xss; virtual threads have the same limit)", MAX_DEPTH, depth));
        }
        long perThread = StackChunks.heapEstimate(1, depth), estimate = StackChunks.heapEstimate(n, depth);
        if (virtual && estimate > 0.8 * Runtime.getRuntime().maxMemory()) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "%,d virtual threads at --depth %,d"
                    + " refused: they would need about %,d MB of heap (estimated %d + %d x depth = %,d bytes per"
                    + " blocked thread), more than 80%% of this JVM's %,d MB (-Xmx); use fewer threads or a smaller"
                    + " --depth", n, depth, estimate >> 20, StackChunks.ESTIMATE_BASE_BYTES,
                    StackChunks.ESTIMATE_FRAME_BYTES, perThread,
                    Runtime.getRuntime().maxMemory() >> 20));
        }
    }

    /** The run of {@code kind} with the most threads. */
    public static ThreadCost largest(List<ThreadCost> rows, String kind) {
        return rows.stream().filter(r -> r.kind().equals(kind)).max(java.util.Comparator.comparingInt(
                ThreadCost::threads)).orElseThrow(() -> new IllegalArgumentException("no " + kind + " run"));
    }

    /** Null when every platform run read its RSS, else why the RSS figures are missing. */
    private static String noRss(List<ThreadCost> rows) {
        return rows.stream().anyMatch(r -> r.kind().equals("platform") && r.rssBytesPerThread() <= 0)
                ? "RSS is read from /proc, which this system lacks" : null;
    }

    /** The carriers of the default scheduler: one per core. */
    private static final int CARRIERS = Runtime.getRuntime().availableProcessors();

    /**
     * What chapter 03 expects of blocked threads (each count one run, no spread): a platform thread holds an OS
     * thread, whose resident stack pages and bookkeeping are what the sources call 1-2 MB (reserved, so only part is
     * resident); a virtual thread holds no OS thread, and its heap is a small part of a platform thread's RSS,
     * about the source's 1 KB (confirmed up to 1.25 KiB), a tenth at most of a platform thread's RSS (ten times as many
     * in the same memory: hundreds of thousands where thousands fit); and a platform thread, an OS thread to create,
     * takes ten times as long or more to start.
     */
    public static final Expectations<List<ThreadCost>> COST_EXPECTED =
            Expectations.<List<ThreadCost>>of("03-thread-cost")
                    .expect("virtual-heap-a-tenth-at-most", "the heap per blocked virtual thread (largest count)",
                            "a blocked platform thread's RSS (largest count)",
                            rows -> Figure.single(largest(rows, "virtual").heapBytesPerThread())
                                    .over(largest(rows, "platform").rssBytesPerThread()), Line.atMost(0.1))
                    .claims("flux-12")
                    .untestableWhen(ThreadCost::noRss)
                    .expect("platform-rss-over-1-mib", "the RSS per blocked platform thread (largest count)",
                            "the 1 MiB stack it reserves", rows -> Figure.single(
                                    largest(rows, "platform").rssBytesPerThread()).over(1024.0 * 1024),
                            Line.atLeast(0.5))
                    .claims("pr-9")
                    .untestableWhen(ThreadCost::noRss)
                    .expect("platform-rss-over-2-mib", "the RSS per blocked platform thread (largest count)",
                            "2 MiB", rows -> Figure.single(largest(rows, "platform").rssBytesPerThread())
                                    .over(2.0 * 1024 * 1024), Line.atLeast(0.5))
                    .claims("sem-1")
                    .untestableWhen(ThreadCost::noRss)
                    // 10,000 threads left a few MB of GC noise that moved one run between 0.9 and 2.2 KiB a
                    // thread; at the largest count the same noise is a tenth of that per thread.
                    .expect("about-1-kib-a-blocked-virtual-thread", "the heap per blocked virtual thread (largest"
                                    + " count, 10 frames)", "1 KiB",
                            rows -> Figure.single(largest(rows, "virtual").heapBytesPerThread()).over(1024),
                            Line.atMost(1.25))
                    .claims("pr-10")
                    .expect("no-os-thread-per-virtual-thread", "the platform threads alive while the most virtual"
                                    + " threads were blocked", "those virtual threads",
                            rows -> Figure.exact(largest(rows, "virtual").liveThreads())
                                    .over(largest(rows, "virtual").threads()), Line.atMost(0.01))
                    .claims("jmh-10")
                    // a platform thread's start makes an OS thread (clone, its stack mapped); a virtual one's, a heap
                    // object and a queue entry
                    .expect("platform-start-costlier", "starting a platform thread (largest count)",
                            "starting a virtual thread (largest count)", rows -> Figure.single(
                                    largest(rows, "platform").startSecondsPerThread())
                                    .over(largest(rows, "virtual").startSecondsPerThread()), Line.atLeast(10))
                    .claims("sem-32")
                    // the pull request's arithmetic, with this run's resident memory in place of its 1 MB a stack:
                    // 5,000 virtual threads plus a carrier per core against 50 platform threads
                    .expect("five-thousand-virtual-in-less-than-fifty-platform", "5,000 blocked virtual threads' heap"
                                    + " plus one carrier per core (a platform thread's RSS each)",
                            "50 blocked platform threads' RSS", rows -> Figure.single(5_000 * largest(rows, "virtual")
                                    .heapBytesPerThread() + CARRIERS * largest(rows, "platform").rssBytesPerThread())
                                    .over(50 * largest(rows, "platform").rssBytesPerThread()), Line.atMost(1))
                    .claims("pr-11")
                    .untestableWhen(ThreadCost::noRss);


    /** The time starting them took, per thread. */
    public double startSecondsPerThread() {
        return startSeconds / threads;
    }

    /** The run of the fewest frames, and of the most. */
    public static ThreadCost shallowest(List<ThreadCost> rows) {
        return rows.stream().min(java.util.Comparator.comparingInt(ThreadCost::depth)).orElseThrow();
    }

    public static ThreadCost deepest(List<ThreadCost> rows) {
        return rows.stream().max(java.util.Comparator.comparingInt(ThreadCost::depth)).orElseThrow();
    }

    /**
     * What chapter 03 expects of parked virtual threads at several stack depths (one run each, no spread): the frames
     * are copied to the heap, so the deepest costs at least twice the shallowest.
     */
    public static final Expectations<List<ThreadCost>> DEPTH_EXPECTED =
            Expectations.<List<ThreadCost>>of("03-stack-depth")
                    .expect("deeper-costs-more", "the heap per parked virtual thread at the deepest stack measured",
                            "at the shallowest", rows -> Figure.single(deepest(rows).heapBytesPerThread())
                                    .over(shallowest(rows).heapBytesPerThread()), Line.atLeast(2))
                    .claims("sem-15");

    /** Runs S10 with these options in a child JVM. */
    public static ThreadCost run(String kind, int threads, int depth) {
        Run r = ChildRun.result(Run.class, "S10_ThreadCost.java", "--kind", kind, "--threads", "" + threads,
                "--depth", "" + depth);
        return new ThreadCost(r.kind(), r.threads(), r.depth(), r.startSeconds(), r.heapBytesPerThread(),
                r.rssBytesPerThread(), r.liveThreads());
    }

    /** What S10 saves: the row's figures and the readings they come from (-1 RSS: not Linux). */
    public record Run(String kind, int threads, int depth, double startSeconds, double totalSeconds,
                      long heapBytesPerThread, long rssBytesPerThread, long heapUsedBeforeBytes,
                      long heapUsedAfterBytes, long rssBeforeBytes, long rssAfterBytes, int liveThreads,
                      int osThreads, String javaVersion) {

        /** Per thread, from the readings before the threads started and while all were blocked. */
        public static Run of(String kind, int threads, int depth, double startSeconds, double releaseSeconds,
                             Map<String, Object> before, Map<String, Object> after) {
            long heapBefore = (long) before.get("heapUsedBytes"), heapAfter = (long) after.get("heapUsedBytes");
            long rssBefore = (long) before.get("rssBytes"), rssAfter = (long) after.get("rssBytes");
            long rssPerThread = rssBefore < 0 || rssAfter < 0 ? -1 // not Linux
                    : Math.round((rssAfter - rssBefore) / (double) threads);
            Run r = new Run(kind, threads, depth, startSeconds, startSeconds + releaseSeconds, // not the pause
                    Math.round((heapAfter - heapBefore) / (double) threads), rssPerThread, heapBefore, heapAfter,
                    rssBefore, rssAfter, ((Number) after.get("liveThreads")).intValue(),
                    ((Number) after.get("osThreads")).intValue(), System.getProperty("java.version"));
            System.out.printf(Locale.ROOT, "%,d %s threads, depth %,d: started and blocked in %.3f s; heap %,d B and"
                            + " RSS %,d B per thread; %d platform threads live (%d OS threads)%n", threads, kind,
                    depth, startSeconds, r.heapBytesPerThread(), rssPerThread, r.liveThreads(), r.osThreads());
            System.out.printf(Locale.ROOT, "  heap used %,.1f -> %,.1f MB, RSS %,.1f -> %,.1f MB while all were"
                            + " blocked; released and joined in %.3f s (%.3f s in all)%n", heapBefore / 1e6,
                    heapAfter / 1e6, rssBefore / 1e6, rssAfter / 1e6, releaseSeconds, r.totalSeconds());
            return r;
        }
    }

    /** Heap, RSS and threads after a few full GCs, so the heap figure counts live objects only. */
    public static Map<String, Object> settledSnapshot() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return ProcessStats.snapshot();
    }

    /** The tightest limit on this process's threads that Linux shows, with where it comes from. */
    public static String osThreadLimit() {
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

    @Override
    public List<Measurement> measurements() {
        String what = String.format(java.util.Locale.ROOT, "%s · %,d threads at depth %d", kind, threads, depth);
        return List.of(Measurement.of(what + " · heap per thread", heapBytesPerThread, "bytes"),
                Measurement.of(what + " · RSS per thread", rssBytesPerThread, "bytes"),
                Measurement.of(what + " · start", startSeconds, "s"));
    }
}
