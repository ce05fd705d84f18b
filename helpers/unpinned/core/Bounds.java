package unpinned.core;

/**
 * The back-of-the-envelope numbers every experiment is checked against: if a measurement
 * beats its bound, the measurement (or the model) is wrong, so the bound comes first.
 * Pure arithmetic with no dependencies, so any snippet can source this file alone.
 */
public final class Bounds {
    private Bounds() {}

    /** Rounds of work when {@code tasks} equal tasks share {@code workers} workers: ceil(tasks / workers). */
    public static long batches(long tasks, int workers) {
        if (tasks < 0) throw new IllegalArgumentException("tasks must be >= 0, got " + tasks);
        if (workers < 1) throw new IllegalArgumentException("workers must be >= 1, got " + workers);
        return Math.ceilDiv(tasks, (long) workers);
    }

    /** Shortest possible wall time for the tasks when each batch takes {@code perTaskMs}. */
    public static double makespanMs(long tasks, int workers, double perTaskMs) {
        nonNegative("perTaskMs", perTaskMs);
        return batches(tasks, workers) * perTaskMs;
    }

    /** Little's law solved for throughput: lambda = L / W, in requests per second. */
    public static double littleThroughput(double concurrency, double latencySeconds) {
        nonNegative("concurrency", concurrency);
        positive("latencySeconds", latencySeconds);
        return concurrency / latencySeconds;
    }

    /** Little's law solved for concurrency: L = lambda * W, the requests in flight. */
    public static double littleConcurrency(double throughputPerSecond, double latencySeconds) {
        nonNegative("throughputPerSecond", throughputPerSecond);
        nonNegative("latencySeconds", latencySeconds);
        return throughputPerSecond * latencySeconds;
    }

    /**
     * Throughput ceiling of a closed loop: at most min(users, servers) requests are in
     * service at once, each taking {@code serviceSeconds}.
     */
    public static double closedLoopThroughput(int users, int servers, double serviceSeconds) {
        if (users < 0) throw new IllegalArgumentException("users must be >= 0, got " + users);
        if (servers < 1) throw new IllegalArgumentException("servers must be >= 1, got " + servers);
        positive("serviceSeconds", serviceSeconds);
        return Math.min(users, servers) / serviceSeconds;
    }

    /**
     * The CPU's throughput ceiling: {@code cores} CPU-seconds per second (less what other processes used) over the
     * CPU seconds one request costs; NaN when no CPU was measured (no bound, not infinity).
     */
    public static double cpuThroughput(double cores, double cpuUsPerRequest) {
        if (!(cpuUsPerRequest > 0)) return Double.NaN;
        return cores / (cpuUsPerRequest / 1e6);
    }

    private static void nonNegative(String name, double v) {
        // NaN fails both comparisons, so test the allowed range, not the forbidden one.
        if (!(v >= 0 && v < Double.POSITIVE_INFINITY)) {
            throw new IllegalArgumentException(name + " must be a finite number >= 0, got " + v);
        }
    }

    private static void positive(String name, double v) {
        if (!(v > 0 && v < Double.POSITIVE_INFINITY)) {
            throw new IllegalArgumentException(name + " must be a finite number > 0, got " + v);
        }
    }
}
