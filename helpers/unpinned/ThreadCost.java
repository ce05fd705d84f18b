package unpinned;

import java.util.List;

/**
 * Chapter 03's cost of a blocked thread, one run of snippet S10 ({@code thread-cost}) in its own JVM: {@code threads}
 * threads of {@code kind} blocked at stack depth {@code depth}, what starting them took, and the heap and RSS they
 * added, per thread. Read typed from the snippet's result, so the notebook unpacks no JSON.
 */
public record ThreadCost(String kind, int threads, int depth, double startSeconds, double heapBytesPerThread,
                         double rssBytesPerThread, int liveThreads) implements Measurement.Measured {

    /** Runs S10 with these options in a child JVM. */
    public static ThreadCost run(String kind, int threads, int depth) {
        return ChildRun.result(ThreadCost.class, "S10_ThreadCost.java", "--kind", kind, "--threads", "" + threads,
                "--depth", "" + depth);
    }

    @Override
    public List<Measurement> measurements() {
        String what = String.format(java.util.Locale.ROOT, "%s · %,d threads at depth %d", kind, threads, depth);
        return List.of(Measurement.of(what + " · heap per thread", heapBytesPerThread, "bytes"),
                Measurement.of(what + " · RSS per thread", rssBytesPerThread, "bytes"),
                Measurement.of(what + " · start", startSeconds, "s"));
    }
}
