package unpinned;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Chapter 07's results, typed: what S23 (db-pool-cap), S24 (parallel-writes), S25 (structured-fanout) and S26
 * (scoped-values) print on their {@code @@result} line, read as records, and the rows the notebook shows and keeps.
 * Each {@code run...} method starts the snippet in a JVM of its own, waits for it and checks that the kernel was not
 * halted meanwhile ({@link RunGuard#requireFresh()}), so a notebook cell holds one call and no JSON.
 * S25 and S26 run on the course JDK only; {@link #courseJdk25} is the check both make of it.
 * Needs Bounds.java, ChildRun.java, Experiment.java, Json.java, Measurement.java, Published.java, RunGuard.java
 * alongside.
 */
public final class Backpressure {
    private Backpressure() {
    }

    /**
     * The check of code only the course JDK runs (a preview API, or one final since JDK 25), for a snippet that
     * declares {@code --jdk} (text, default "course"): refuses with {@code why} on a JVM older than 25 ({@code
     * exactly}: other than 25) and for {@code --jdk 21}, and any other --jdk with {@code onlyCourse}.
     */
    public static Consumer<Experiment.Args> courseJdk25(boolean exactly, String why, String onlyCourse) {
        return a -> {
            int feature = Runtime.version().feature();
            if (exactly ? feature != 25 : feature < 25) throw new IllegalArgumentException(why);
            String jdk = a.text("--jdk").strip();
            if (jdk.equals("21")) throw new IllegalArgumentException(why);
            if (!jdk.equals("course")) {
                throw new IllegalArgumentException("--jdk must be course (" + onlyCourse + "); got '" + jdk + "'");
            }
        };
    }

    // ---- S23: the connection pool caps throughput -----------------------------------------------------------------

    /** The database a run used: its kind (embedded, external, H2 stand-in) and version. */
    public record DatabaseInfo(String kind, String version) {
    }

    /**
     * One measured level of S23: throughput against Little's law min(users, pool) / q ("bound") and the most a window
     * can count ("ceiling"), timeouts, waits; the slow... fields only in the mixed and bulkhead runs (else null).
     */
    public record Level(String run, int users, int fastUsers, int slowUsers, int pool, double querySeconds,
                        double throughput, double bound, double ceiling, double ratioToBound, long queries,
                        long timeouts, double timeoutShare, double waitMeanMs, double waitP99Ms, double poolWaitMeanMs,
                        double poolWaitP99Ms, double latencyMeanMs, int usersWithoutQuery, long errors,
                        Double slowQuerySeconds, Double slowThroughput, Double slowBound, Double slowCeiling,
                        Double slowRatioToBound, Long slowQueries, Long slowTimeouts, Long slowRejected,
                        Double slowWaitMeanMs, Double slowLatencyMeanMs, Integer slowUsersWithoutQuery,
                        double poolBusy, int poolWaitersMax, int permitWaitersMax, String firstError)
            implements Measurement.Measured {
        @Override
        public List<Measurement> measurements() {
            List<Measurement> m = new ArrayList<>();
            m.add(Measurement.of(run + " · " + users + " users", throughput, "queries/s")
                    .bound(bound, Measurement.Bound.LITTLE));
            if (slowThroughput != null && slowBound != null) {
                m.add(Measurement.of(run + " · " + slowUsers + " slow users", slowThroughput, "queries/s")
                        .bound(slowBound, Measurement.Bound.LITTLE));
            }
            return m;
        }

        /** The fast and slow users side by side (mixed and bulkhead runs): the notebook's bulkhead table. */
        public BulkheadRow bulkhead() {
            return new BulkheadRow(run, slowUsers, throughput, bound, ratioToBound, timeouts,
                    slowThroughput == null ? Double.NaN : slowThroughput, slowTimeouts == null ? 0 : slowTimeouts,
                    slowRejected == null ? 0 : slowRejected);
        }
    }

    /** A mixed or bulkhead level: the fast queries against their bound (P/2) / q, the slow calls' fate. */
    public record BulkheadRow(String run, int slowUsers, double fastThroughput, double fastBound,
                              double fastRatioToBound, long fastTimeouts, double slowThroughput, long slowTimeouts,
                              long slowTurnedAway) {
    }

    /** What S23 saves: its sizes and one {@link Level} per run and user level. */
    public record PoolCap(DatabaseInfo database, int pool, int queryMs, int slowQueryMs, int connectionTimeoutMs,
                          int bulkheadPermits, int bulkheadWaitMs, int fastUsersMixed, double warmupS,
                          double durationS, List<Integer> users, List<String> runs, List<Level> levels) {
        public List<BulkheadRow> bulkheadRows() {
            return levels.stream().map(Level::bulkhead).toList();
        }
    }

    /** The sizes every S23 run of the notebook shares: pool P, query time q, HikariCP's connection timeout. */
    public record PoolSizes(int pool, int queryMs, int timeoutMs) {
        /** Runs S23 with {@code guard} at these {@code users} levels. */
        public PoolCap run(String guard, List<Integer> users) {
            PoolCap result = ChildRun.result(PoolCap.class, "S23_PoolCap.java", "--guard", guard, "--pool",
                    "" + pool, "--query-ms", "" + queryMs, "--connection-timeout-ms", "" + timeoutMs, "--users",
                    users.stream().map(String::valueOf).collect(Collectors.joining(",")));
            RunGuard.requireFresh();
            return result;
        }

        /** Little's law: at most min(users, P) / q queries per second. */
        public double bound(int users) {
            return Bounds.littleThroughput(Math.min(users, pool), queryMs / 1e3);
        }

        /** The mean wait for a connection if users took turns: U q / P - q (0 up to P users). */
        public double predictedWaitMs(int users) {
            return Math.max(0, users * queryMs / (double) pool - queryMs);
        }
    }

    // ---- S24: three inserts in parallel per request ---------------------------------------------------------------

    /** One mode of S24 as it reports it (each mode runs in a JVM of its own). */
    public record WriteMode(String mode, double measuredSeconds, double insertMs, long requests, long requestsStarted,
                            long errors, double throughput, double meanMs, double p99Ms, int baselineThreads,
                            int liveThreads, int peakThreads, boolean stoppedByGuard, String stoppedBy,
                            double cpuMsPerRequest, double heapUsedMb, double connectionBound, double cpuBound,
                            double bound, double boundRatio) {
    }

    /** What S24 saves: the sizes and the modes by name. */
    public record Writes(int users, double durationS, int connections, int poolThreads,
                         Map<String, WriteMode> modes, double throughputRatio, double liveThreadsRatio) {
        public List<WriteRow> rows() {
            return modes.values().stream().map(WriteRow::of).toList();
        }
    }

    /**
     * One mode of S24 for the table and for chapter 08: requests/s against the lower of the connection pool's bound
     * and the CPU's (an estimate: the CPU side is CPU time read in 10 ms ticks), live threads after the run against
     * the JDK 25 post's figure where it has one.
     */
    public record WriteRow(String mode, double throughput, double bound, double ratioToBound, double meanMs,
                           double p99Ms, long requests, int liveThreadsAfter, int peakThreads, double cpuMsPerRequest,
                           double heapUsedMb, boolean stoppedByGuard, double connectionBound, double cpuUtilisation,
                           long requestsStarted) implements Measurement.Measured {
        static WriteRow of(WriteMode m) {
            return new WriteRow(m.mode(), m.throughput(), m.bound(), m.boundRatio(), m.meanMs(), m.p99Ms(),
                    m.requests(), m.liveThreads(), m.peakThreads(), m.cpuMsPerRequest(), m.heapUsedMb(),
                    m.stoppedByGuard(), m.connectionBound(), m.throughput() / m.cpuBound(), // share of free cores
                    m.requestsStarted());
        }

        @Override
        public List<Measurement> measurements() {
            Measurement rate = Measurement.of(mode + " · requests", throughput, "requests/s")
                    .bound(bound, Measurement.Bound.ESTIMATE);
            Measurement threads = Measurement.of(mode + " · live threads after", liveThreadsAfter, "threads");
            String executor = postExecutor(mode);
            if (executor != null) {
                rate = rate.published(postValue(executor, "throughput"), POST);
                threads = threads.published(postValue(executor, "liveThreads"), POST);
            }
            return List.of(rate, threads);
        }
    }

    /** The JDK 25 post that wrote three rows in parallel per request (data/sources.md). */
    public static final String POST = "vt-jdk25-jpa-blog";

    /** The post's executor for a mode of S24, or null where it has none. */
    public static String postExecutor(String mode) {
        return switch (mode) {
            case "virtual" -> "virtual-executor";
            case "fixed-leak" -> "fixed-pool-100";
            default -> null;
        };
    }

    /** The post's figure: "throughput" (requests/s) or "liveThreads", etc., for its executor. */
    public static double postValue(String executor, String metric) {
        String test = metric.equals("throughput") ? "post-three-rows" : "resources-after-post";
        return Published.value(POST, "test", test, "executor", executor, "metric", metric);
    }

    /** Runs S24 (every mode, each in its own JVM) with {@code args}. */
    public static Writes runWrites(String... args) {
        Writes result = ChildRun.result(Writes.class, "S24_ParallelWrites.java", args);
        RunGuard.requireFresh();
        return result;
    }

    // ---- S25: one insert fails; what happens to its siblings ------------------------------------------------------

    /** One implementation of S25 as it reports it. */
    public record FanOutImpl(double elapsedMs, List<Double> elapsedMsAll, double elapsedOverSleep, int requests,
                             int siblingRowsWritten, int siblingRowsPossible, Map<String, Long> siblingFatesAtAnswer,
                             Map<String, Long> siblingFates, Map<String, Long> siblingFatesDetail,
                             double siblingLastEndMs, List<String> subtaskStates, String error) {
    }

    /** What S25 saves: the siblings' sleep and the implementations by name. */
    public record FanOut(int slowMs, int repeat, String database, String databaseVersion,
                         Map<String, FanOutImpl> impls, String javaVersion) {
        public List<FanOutRow> rows() {
            return impls.entrySet().stream().map(e -> FanOutRow.of(e.getKey(), e.getValue(), slowMs)).toList();
        }

        /** The row of one implementation ("structured", "futures", "futures-cancel"). */
        public FanOutRow row(String impl) {
            FanOutImpl r = impls.get(impl);
            if (r == null) throw new IllegalArgumentException("no implementation " + impl + " in " + impls.keySet());
            return FanOutRow.of(impl, r, slowMs);
        }
    }

    /**
     * One implementation: how long until the request failed and what its siblings wrote. allOf waits for the
     * siblings, so their sleep is a time it can't beat (LOWER_TIME); the others have no bound.
     */
    public record FanOutRow(String impl, double elapsedMs, double elapsedOverSleep, int siblingRowsWritten,
                            int siblingRowsPossible, String siblingFates, int slowMs)
            implements Measurement.Measured {
        static FanOutRow of(String impl, FanOutImpl r, int slowMs) {
            return new FanOutRow(impl, r.elapsedMs(), r.elapsedOverSleep(), r.siblingRowsWritten(),
                    r.siblingRowsPossible(), String.valueOf(r.siblingFates()), slowMs);
        }

        @Override
        public List<Measurement> measurements() {
            Measurement m = Measurement.of(impl + " · time to fail", elapsedMs, "ms");
            return List.of(impl.equals("futures") ? m.bound(slowMs, Measurement.Bound.LOWER_TIME) : m);
        }
    }

    /** Runs S25 (the three implementations) with {@code args}. */
    public static FanOut runFanOut(String... args) {
        FanOut result = ChildRun.result(FanOut.class, "S25_StructuredFanOut.java", args);
        RunGuard.requireFresh();
        return result;
    }

    // ---- S26: per-thread copies vs one binding --------------------------------------------------------------------

    /** Heap one mode of S26 held with every thread parked. */
    public record Heap(double heapUsedMb, double bytesPerThread) {
    }

    /** One mode of S26 in a JVM of its own: the heap before and after its threads parked. */
    public record HeapRun(String mode, int threads, int valueBytes, double heapUsedMb, long bytesPerThread,
                          long heapBeforeBytes, long heapAfterBytes, double startSeconds, long maxHeapMb,
                          int liveThreads, String javaVersion) {
        public Heap heap() {
            return new Heap(heapUsedMb, bytesPerThread);
        }
    }

    /**
     * What S26 saves: the thread count, each mode's heap, and over the control: a copy's bytes, a binding's, and
     * the floor of one copy (its table and holder).
     */
    public record Scoped(int threads, int valueBytes, Heap threadlocal, Heap scopedvalue, Heap none, double ratio,
                         long copyBytesPerThread, long bindingBytesPerThread, double bindingOverCopy,
                         double copyBoundBytes, Map<String, HeapRun> runs, String javaVersion) {
        /** The control, then ScopedValue, then ThreadLocal. */
        public List<HeapRow> rows() {
            return List.of(new HeapRow("none", none.heapUsedMb(), none.bytesPerThread()),
                    new HeapRow("scopedvalue", scopedvalue.heapUsedMb(), scopedvalue.bytesPerThread()),
                    new HeapRow("threadlocal", threadlocal.heapUsedMb(), threadlocal.bytesPerThread()));
        }

        /** At least a copy each: the control's heap plus threads x the copy's own bytes, in MB. */
        public double floorMb() {
            return none.heapUsedMb() + threads * copyBoundBytes / 1e6;
        }

        public String boundLine() {
            return String.format(Locale.ROOT, "bound: %,d copies of >= %,.0f B each add >= %,.0f MB over the"
                    + " control", threads, copyBoundBytes, threads * copyBoundBytes / 1e6);
        }
    }

    /** One mode's heap for the table. */
    public record HeapRow(String mode, double heapUsedMb, double bytesPerThread) {
    }

    /** Runs S26 (the control, ScopedValue, ThreadLocal, each in its own JVM) with {@code args}. */
    public static Scoped runScoped(String... args) {
        Scoped result = ChildRun.result(Scoped.class, "S26_ScopedValues.java", args);
        RunGuard.requireFresh();
        return result;
    }
}
