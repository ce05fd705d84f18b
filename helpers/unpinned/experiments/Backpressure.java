//SOURCES ../core/Bounds.java
//SOURCES ../running/ChildRun.java
//SOURCES ../core/Expectations.java
//SOURCES ../core/Experiment.java
//SOURCES ../core/Figure.java
//SOURCES ../running/Jdks.java
//SOURCES ../core/Measurement.java
//SOURCES ../core/Protocol.java
//SOURCES ../core/Published.java
//SOURCES ../core/RunGuard.java
package unpinned.experiments;

import unpinned.core.Bounds;
import unpinned.core.Expectations;
import unpinned.core.Expectations.Line;
import unpinned.core.Experiment;
import unpinned.core.Figure;
import unpinned.core.Measurement;
import unpinned.core.Protocol;
import unpinned.core.Published;
import unpinned.core.RunGuard;
import unpinned.running.ChildRun;
import unpinned.running.Jdks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Chapter 07's results, typed: what S23 (db-pool-cap), S24 (parallel-writes), S25 (structured-fanout) and S26
 * (scoped-values) print on their {@code @@result} line, read as records, and the rows the notebook shows and keeps.
 * Each {@code run...} method starts the snippet in a JVM of its own, waits for it and checks that the kernel was not
 * halted meanwhile ({@link RunGuard#requireFresh()}), so a notebook cell holds one call and no JSON.
 * S25 and S26 run on the course JDK only; {@link #courseJdk25} is the check both make of it.
 * Needs Bounds.java, ChildRun.java, Experiment.java, Jdks.java, Json.java, Measurement.java, Published.java, RunGuard.java
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
            int feature = Jdks.courseFeature(); // as this JDK's release file declares it
            if (exactly ? feature != Jdks.PREVIEW_FEATURE : feature < 25) throw new IllegalArgumentException(why);
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
                        double poolBusy, int poolWaitersMax, int permitWaitersMax, String firstError,
                        double throughputSpread)
            implements Measurement.Measured {
        /** Queries per second with their 95 % interval over the window's quarter seconds. */
        public Figure rate() {
            return Figure.of(throughput, throughputSpread, "quarter seconds of the window");
        }

        /** The wait for a connection the chapter predicts when users take turns: U q / P - q (0 up to P users). */
        public double predictedWaitMs() {
            return Math.max(0, (double) fastUsers * querySeconds * 1e3 / pool - querySeconds * 1e3);
        }

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

        /**
         * A level from its tallies: the fast users' against min(fast users, their servers) / q, the slow ones' (mixed
         * and bulkhead runs, {@code slowServers} > 0) against min(slow users, slowServers) / slowQ.
         */
        public static Level of(String run, int fastUsers, int slowUsers, int pool, double q, double slowQ, double w,
                               Stats f, Stats s, int fastServers, int slowServers, int poolWaitersMax,
                               int permitWaitersMax) {
            double bound = Bounds.closedLoopThroughput(fastUsers, fastServers, q);
            boolean mixed = slowServers > 0;
            double slowBound = mixed ? Bounds.closedLoopThroughput(slowUsers, slowServers, slowQ) : Double.NaN;
            return new Level(run, fastUsers + slowUsers, fastUsers, slowUsers, pool, q, f.ok() / w, bound,
                    Backpressure.ceiling(bound, q, w), f.ok() / w / bound, f.ok(), f.timeouts(),
                    f.ok() + f.timeouts() == 0 ? 0.0 : (double) f.timeouts() / (f.ok() + f.timeouts()),
                    f.waitMeanMs(), f.waitP99Ms(), f.poolWaitMeanMs(), f.poolWaitP99Ms(), f.latencyMeanMs(),
                    f.usersWithout(), f.errors() + s.errors(), mixed ? slowQ : null, mixed ? s.ok() / w : null,
                    mixed ? slowBound : null, mixed ? Backpressure.ceiling(slowBound, slowQ, w) : null,
                    mixed ? s.ok() / w / slowBound : null, mixed ? s.ok() : null, mixed ? s.timeouts() : null,
                    mixed ? s.rejected() : null, mixed ? s.waitMeanMs() : null, mixed ? s.latencyMeanMs() : null,
                    mixed ? s.usersWithout() : null, (f.ok() * q + s.ok() * slowQ) / w / pool, poolWaitersMax,
                    permitWaitersMax, f.firstError() != null ? f.firstError() : s.firstError(),
                    f.rateFigure(w).halfWidth());
        }

        /** One line for the run's output. */
        public String describe() {
            String fastBound = String.format(Locale.ROOT, "%d / %.3f s = %,.1f", Math.round(bound * querySeconds),
                    querySeconds, bound);
            String errs = errors == 0 ? "0 errors" : errors + " errors (first: " + firstError + ")";
            if (slowThroughput == null) {
                return String.format(Locale.ROOT, "%-9s %,6d users: %,8.1f q/s = %.2f x the bound %s; %,d timeouts"
                                + " (%.0f %%), %,d users got no query done; wait for a connection mean %,.1f ms, p99"
                                + " %,.1f ms (in the pool: %,.1f / %,.1f ms); latency mean %,.1f ms; pool busy %.2f; %s",
                        run, users, throughput, ratioToBound, fastBound, timeouts, 100 * timeoutShare,
                        usersWithoutQuery, waitMeanMs, waitP99Ms, poolWaitMeanMs, poolWaitP99Ms, latencyMeanMs,
                        poolBusy, errs);
            }
            return String.format(Locale.ROOT, "%-9s %d fast + %,d slow users: fast %,.1f q/s = %.2f x the bound %s,"
                            + " %,d timeouts, wait mean %,.1f ms; slow %,.1f q/s = %.2f x %d / %.3f s, %,d timeouts,"
                            + " %,d turned away by the bulkhead; pool busy %.2f; %s",
                    run, fastUsers, slowUsers, throughput, ratioToBound, fastBound, timeouts, waitMeanMs,
                    slowThroughput, slowRatioToBound, Math.round(slowBound * slowQuerySeconds), slowQuerySeconds,
                    slowTimeouts, slowRejected, poolBusy, errs);
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

        /** The same run with only the levels of {@code names} (one JVM measured several with --guard a,b). */
        public PoolCap only(String... names) {
            List<String> kept = List.of(names);
            return new PoolCap(database, pool, queryMs, slowQueryMs, connectionTimeoutMs, bulkheadPermits,
                    bulkheadWaitMs, fastUsersMixed, warmupS, durationS, users,
                    runs.stream().filter(kept::contains).toList(),
                    levels.stream().filter(l -> kept.contains(l.run())).toList());
        }
    }

    /** The most a window of w seconds can count: each of bound x q connections ends floor(w / q) + 1 queries. */
    public static double ceiling(double bound, double q, double w) {
        return bound * q * (Math.floor(w / q + 1e-9) + 1) / w;
    }

    /** What one S23 user counts: its own, so no user contends with another to count. */
    public static final class Tally {
        public long ok, timeouts, rejected, errors;
        public String firstError;
        int n;
        long[] waitNs = new long[16], poolWaitNs = new long[16], latencyNs = new long[16];
        /** Queries ended in each quarter second of the window: the spread of its rate. */
        long[] slices = new long[8];

        /** A query that got its connection and ended {@code sinceWindowStart} ns into the window. */
        public void record(long wait, long poolWait, long latency, long sinceWindowStart) {
            record(wait, poolWait, latency);
            int i = (int) (sinceWindowStart / SLICE_NANOS);
            if (i >= slices.length) slices = Arrays.copyOf(slices, Math.max(2 * slices.length, i + 1));
            slices[i]++;
        }

        /** A query that got its connection: the wait (semaphore included), the wait in the pool, the latency. */
        public void record(long wait, long poolWait, long latency) {
            if (n == waitNs.length) {
                waitNs = Arrays.copyOf(waitNs, 2 * n);
                poolWaitNs = Arrays.copyOf(poolWaitNs, 2 * n);
                latencyNs = Arrays.copyOf(latencyNs, 2 * n);
            }
            waitNs[n] = wait;
            poolWaitNs[n] = poolWait;
            latencyNs[n] = latency;
            n++;
            ok++;
        }

        /** A user stops at its first error other than a timeout: a broken database is not hammered. */
        public void error(Exception e) {
            errors++;
            if (firstError == null) firstError = e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    /** The slices a window's rate is sampled in. */
    static final long SLICE_NANOS = 250_000_000L;

    /** The tallies of one class of S23 users (fast or slow), added up. */
    public record Stats(long ok, long timeouts, long rejected, long errors, String firstError, double waitMeanMs,
                        double waitP99Ms, double poolWaitMeanMs, double poolWaitP99Ms, double latencyMeanMs,
                        int usersWithout, long[] slices) {
        /** The rate over a window of {@code w} seconds, with the spread of its whole quarter seconds. */
        public Figure rateFigure(double w) {
            int whole = (int) Math.floor(w * 1e9 / SLICE_NANOS + 1e-9);
            if (slices == null || whole < 2) return Figure.single(ok / w);
            double[] rates = new double[whole];
            for (int i = 0; i < whole; i++) rates[i] = (i < slices.length ? slices[i] : 0) / (SLICE_NANOS / 1e9);
            return Figure.samples(rates, "quarter seconds of the window").at(ok / w);
        }

        public static Stats of(List<Tally> tallies) {
            long ok = 0, timeouts = 0, rejected = 0, errors = 0;
            String first = null;
            int n = 0, without = 0;
            long[] slices = new long[0];
            for (Tally t : tallies) {
                if (t.slices.length > slices.length) slices = Arrays.copyOf(slices, t.slices.length);
                for (int i = 0; i < t.slices.length; i++) slices[i] += t.slices[i];
            }
            for (Tally t : tallies) {
                if (t.ok == 0) without++;
                ok += t.ok;
                timeouts += t.timeouts;
                rejected += t.rejected;
                errors += t.errors;
                if (first == null) first = t.firstError;
                n += t.n;
            }
            long[] wait = new long[n], poolWait = new long[n], latency = new long[n];
            int at = 0;
            for (Tally t : tallies) {
                System.arraycopy(t.waitNs, 0, wait, at, t.n);
                System.arraycopy(t.poolWaitNs, 0, poolWait, at, t.n);
                System.arraycopy(t.latencyNs, 0, latency, at, t.n);
                at += t.n;
            }
            return new Stats(ok, timeouts, rejected, errors, first, meanMs(wait), p99Ms(wait), meanMs(poolWait),
                    p99Ms(poolWait), meanMs(latency), without, slices);
        }

        static double meanMs(long[] ns) {
            return ns.length == 0 ? 0 : round(Arrays.stream(ns).average().orElse(0) / 1e6, 3);
        }

        static double p99Ms(long[] ns) {
            if (ns.length == 0) return 0;
            long[] sorted = ns.clone();
            Arrays.sort(sorted);
            return round(sorted[(int) Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)] / 1e6, 3);
        }
    }

    static double round(double v, int decimals) {
        double f = Math.pow(10, decimals);
        return Math.round(v * f) / f;
    }

    /**
     * Waits for an S23 level's users until {@code deadline} (System.nanoTime); fails naming {@code what} if some are
     * still running then; interrupts and joins (5 s each) whatever is left, in every case. {@code patient} false
     * (the level failed already): no waiting and no complaint, only the interrupts and joins.
     */
    public static void joinUsers(List<Thread> threads, long deadline, String what, boolean patient)
            throws InterruptedException {
        try {
            if (!patient) return;
            for (Thread t : threads) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !t.join(Duration.ofNanos(left))) break;
            }
            long stuck = threads.stream().filter(Thread::isAlive).count();
            if (stuck > 0) {
                throw new IllegalStateException(String.format(Locale.ROOT, "%s: %d users had not ended a minute"
                        + " after the window (is the database stuck?)", what, stuck));
            }
        } finally {
            boolean interrupted = Thread.interrupted();
            for (Thread t : threads) if (t.isAlive()) t.interrupt();
            for (Thread t : threads) {
                if (!t.isAlive()) continue;
                try {
                    t.join(Duration.ofSeconds(5));
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) Thread.currentThread().interrupt();
        }
        if (Thread.currentThread().isInterrupted()) throw new InterruptedException("interrupted in " + what);
    }

    /** S23's closing lines: at the most users, the pool's cap, the semaphore's effect, the bulkhead's. */
    public static void summary(List<Level> rows, int pool, int queryMs, int timeoutMs, int bulkheadPermits) {
        int top = rows.stream().mapToInt(r -> r.slowThroughput() != null ? r.slowUsers() : r.users()).max().orElse(0);
        Map<String, Level> atTop = new LinkedHashMap<>();
        for (Level r : rows) if ((r.slowThroughput() != null ? r.slowUsers() : r.users()) == top) atTop.put(r.run(), r);
        Level none = atTop.get("none"), sem = atTop.get("semaphore");
        if (none != null) {
            System.out.println(String.format(Locale.ROOT, "at %,d users the pool caps it: %,.1f q/s = %.2f x %d /"
                            + " %.3f s; %.0f %% of the attempts timed out after %,d ms and %,d users got no query done",
                    top, none.throughput(), none.ratioToBound(), pool, queryMs / 1e3, 100 * none.timeoutShare(),
                    timeoutMs, none.usersWithoutQuery()));
        }
        if (none != null && sem != null) {
            System.out.println(String.format(Locale.ROOT, "a Semaphore(%d) in front: %,.1f q/s (%.2f x unguarded)"
                            + " with %,d timeouts; the users wait at the semaphore instead (mean %,.0f ms, %,.1f ms in"
                            + " the pool)", pool, sem.throughput(), sem.throughput() / none.throughput(),
                    sem.timeouts(), sem.waitMeanMs(), sem.poolWaitMeanMs()));
        }
        Level mixed = atTop.get("mixed"), bulkhead = atTop.get("bulkhead");
        if (mixed != null && bulkhead != null) {
            System.out.println(String.format(Locale.ROOT, "fast queries next to %,d slow users (bound %,.1f q/s):"
                            + " unguarded %,.1f q/s, %,d + %,d slow calls timed out; behind a bulkhead of %d, %,.1f"
                            + " q/s, %,d + %,d timed out, %,d slow calls turned away", top, bulkhead.bound(),
                    mixed.throughput(), mixed.timeouts(), mixed.slowTimeouts(), bulkheadPermits,
                    bulkhead.throughput(), bulkhead.timeouts(), bulkhead.slowTimeouts(), bulkhead.slowRejected()));
        }
    }

    /** S23's --users: each level 1..maxUsers, at most maxLevels of them. */
    public static void checkUsers(List<Integer> levels, int maxUsers, int maxLevels) {
        for (int n : levels) {
            if (n < 1 || n > maxUsers) {
                throw new IllegalArgumentException(String.format(Locale.ROOT, "--users must be comma-separated whole"
                        + " numbers, each 1 to %,d; got %d", maxUsers, n));
            }
        }
        if (levels.size() > maxLevels) {
            throw new IllegalArgumentException("--users takes at most " + maxLevels + " levels; got " + levels.size());
        }
    }

    /** S23's plan: a bulkhead needs two connections. */
    public static void checkPoolPlan(List<String> runs, int pool) {
        if (runs.contains("bulkhead") && pool < 2) {
            throw new IllegalArgumentException("--guard bulkhead needs --pool 2 or more (half the pool for the"
                    + " slow calls, half for the fast ones); got --pool " + pool);
        }
    }

    /**
     * S23's whole time: every run at every level, each a warm-up, a window and the last query, plus the connection
     * timeout the last user waits out where users outnumber the pool (unguarded: "none", and "mixed" with its
     * pool - pool / 2 fast users), plus the database's start ({@code startS}).
     */
    public static Experiment.Time poolPlanTime(double startS, List<String> runs, List<Integer> users, int pool,
                                               int queryMs, int timeoutMs, double warmupS, double durationS,
                                               int slowFactor) {
        double slowS = runs.contains("mixed") ? slowFactor * queryMs / 1e3 : queryMs / 1e3;
        double totalS = startS;
        int queued = 0;
        for (String run : runs) {
            for (int u : users) {
                boolean queues = run.equals("none") ? u > pool : run.equals("mixed") && u > pool / 2;
                if (queues) queued++;
                totalS += warmupS + durationS + slowS + (queues ? timeoutMs / 1e3 : 0);
            }
        }
        return Experiment.Time.of(totalS, "the database's start of %.0f s + %d run%s x %d level%s x (warm-up %.1f s"
                        + " + window %.1f s + a last query of %.1f s) + a %.1f s connection timeout at the %d levels"
                        + " where users outnumber the pool", startS, runs.size(), runs.size() == 1 ? "" : "s",
                users.size(), users.size() == 1 ? "" : "s", warmupS, durationS, slowS, timeoutMs / 1e3, queued);
    }

    /** S23's options, read once: levels, pool P, query ms, HikariCP timeout, the runs --guard names, the window. */
    public record PoolOptions(List<Integer> users, int pool, int queryMs, int timeoutMs, List<String> runs,
                              double warmupS, double durationS) {
        /** The slow downstream of the mixed and bulkhead runs sleeps this many times a fast query. */
        public static final int SLOW_FACTOR = 10;

        public int bulkheadPermits() {
            return pool / 2;
        }

        public int fastUsersMixed() {
            return pool - bulkheadPermits();
        }

        /** A slow call turned away by the bulkhead waited at most this long for a permit. */
        public int bulkheadWaitMs() {
            return Math.max(queryMs, 10);
        }

        /** The most queries one user can run in a level: warm-up + window over the least an attempt takes, + 2. */
        public int maxQueries() {
            double shortest = Math.min(queryMs, timeoutMs) / 1e3;
            return (int) Math.min(Integer.MAX_VALUE, (long) Math.ceil((warmupS + durationS) / shortest) + 2);
        }

        public static PoolOptions of(Experiment.Args a) {
            List<String> runs = a.someOf("--guard").stream() // bulkhead: the mix unguarded first, then guarded
                    .flatMap(g -> g.equals("bulkhead") ? Stream.of("mixed", "bulkhead") : Stream.of(g)).toList();
            return new PoolOptions(a.counts("--users"), a.intCount("--pool"), a.intCount("--query-ms"),
                    a.intCount("--connection-timeout-ms"), runs, a.number("--warmup-s"), a.number("--duration-s"));
        }

        /** The plan line S23 prints before measuring. */
        public void print() {
            System.out.println(String.format(Locale.ROOT, "pool of %d connections, each query pg_sleep(%.3f s),"
                            + " connection timeout %,d ms; closed-loop virtual-thread users %s; runs %s; warm-up"
                            + " %.1f s, window %.1f s per level; bound: min(users, pool) / query seconds (Little's"
                            + " law)", pool, queryMs / 1e3, timeoutMs, users, String.join(", ", runs), warmupS,
                    durationS));
        }

        /** The line before the mixed run: who shares the pool, and what the bulkhead allows. */
        public void printMixed() {
            System.out.println(String.format(Locale.ROOT, "mixed and bulkhead: %d fast users (pg_sleep %.3f s) next"
                            + " to U slow users (pg_sleep %.3f s) on the same pool; the bulkhead lets at most %d slow"
                            + " calls hold a connection, each waiting at most %d ms for its turn", fastUsersMixed(),
                    queryMs / 1e3, SLOW_FACTOR * queryMs / 1e3, bulkheadPermits(), bulkheadWaitMs()));
        }
    }

    /** Only what ends inside the window counts. */
    public static boolean inWindow(long t, long windowStart, long windowEnd) {
        return t >= windowStart && t < windowEnd;
    }

    /** Takes a permit, waiting as long as it takes (no timeout: the user waits here, never in the pool's queue). */
    public static boolean acquire(java.util.concurrent.Semaphore permits) throws InterruptedException {
        permits.acquire();
        return true;
    }

    /** The longest queues seen in a level's window: threads waiting in the pool, and at the semaphore. */
    public record Waiters(int pool, int permits) {
    }

    /**
     * Samples the queues every 50 ms until {@code windowEnd}, counting from {@code windowStart}: {@code poolWaiters}
     * (HikariCP's threads awaiting a connection) and the queue of {@code permits} (null: none). Once a second, warm-up
     * included, both queues go to a parent's live chart.
     */
    public static Waiters sample(java.util.function.IntSupplier poolWaiters, java.util.concurrent.Semaphore permits,
                                 long windowStart, long windowEnd) throws InterruptedException {
        int pool = 0, queued = 0;
        long sampled = System.nanoTime();
        for (long now; (now = System.nanoTime()) < windowEnd; ) {
            if (now >= windowStart) {
                pool = Math.max(pool, poolWaiters.getAsInt());
                if (permits != null) queued = Math.max(queued, permits.getQueueLength());
            }
            if (now - sampled >= 1_000_000_000L) {
                sampled = now;
                Map<String, Double> waiting = new LinkedHashMap<>();
                waiting.put("threads_waiting_for_a_connection", (double) poolWaiters.getAsInt());
                if (permits != null) waiting.put("at_the_semaphore", (double) permits.getQueueLength());
                Protocol.sample(new Protocol.Sample(waiting));
            }
            Thread.sleep(Math.max(1, Math.min(50, (windowEnd - now) / 1_000_000)));
        }
        return new Waiters(pool, queued);
    }

    /** Waits until {@code idle} reaches {@code size} and nobody {@code awaiting} (at most 10 s): a full pool again. */
    public static void settle(java.util.function.IntSupplier idle, java.util.function.IntSupplier awaiting, int size)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while ((idle.getAsInt() < size || awaiting.getAsInt() > 0) && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
    }

    /** The sizes every S23 run of the notebook shares: pool P, query time q, HikariCP's connection timeout. */
    public record PoolSizes(int pool, int queryMs, int timeoutMs) {
        /** Runs S23 with {@code guard} (one, or several comma-separated: one JVM) at these {@code users} levels. */
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

    /**
     * What chapter 07 keeps of the pool's experiments: the sizes, the unguarded levels and the semaphore's level
     * ({@code rows}), and the mixed and bulkhead levels ({@code bulkhead}).
     */
    public record PoolCapRun(int pool, int queryMs, int timeoutMs, DatabaseInfo database, List<Level> rows,
                             List<Level> bulkhead) implements Measurement.Measured {
        @Override
        public List<Measurement> measurements() {
            return Stream.concat(rows.stream(), bulkhead.stream()).flatMap(l -> l.measurements().stream()).toList();
        }

        /** The level of {@code run} at its most users. */
        public Level top(String run) {
            return Stream.concat(rows.stream(), bulkhead.stream()).filter(l -> l.run().equals(run))
                    .max(java.util.Comparator.comparingInt(Level::users))
                    .orElseThrow(() -> new IllegalArgumentException("no '" + run + "' level"));
        }

        /**
         * The unguarded level with the most users whose mean wait, predicted as if users took turns, is above 0 and
         * under the timeout: where waiting could, or could not, reach the timeout. Null when no level is.
         */
        public Level underTheTimeout() {
            return rows.stream().filter(l -> l.run().equals("none"))
                    .filter(l -> l.predictedWaitMs() > 0 && l.predictedWaitMs() < timeoutMs)
                    .max(java.util.Comparator.comparingInt(Level::users)).orElse(null);
        }
    }

    /**
     * What chapter 07 expects of the pool: no window past its ceiling; the pool, not the users, capping throughput;
     * timeouts even where the mean wait stays under the timeout (users don't take turns in HikariCP's queue); the
     * burst of users reaching the pool's queue unguarded; a semaphore in front keeping the throughput; and a bulkhead
     * keeping the fast queries at their share of the pool.
     */
    public static final Expectations<PoolCapRun> POOL_EXPECTED = Expectations.<PoolCapRun>of("07-pool-cap")
            .expect("under-the-ceiling", "the level closest to its ceiling", "min(U, P) / q over its window",
                    d -> Figure.highest(Stream.concat(d.rows().stream(), d.bulkhead().stream()).toList(),
                            l -> l.rate().over(l.ceiling())), Line.atMost(1.0)).limit()
            .expect("pool-caps", "unguarded queries/s at the most users", "the pool's bound P / q",
                    d -> d.top("none").rate().over(d.top("none").bound()), Line.atLeast(0.9))
            .expect("timeouts-under-the-mean", "the share of attempts that timed out, unguarded, where the mean wait"
                    + " was predicted under the timeout", "all attempts", d -> Figure.exact(d.underTheTimeout()
                    .timeoutShare()), Line.atLeast(0.01)).claims("sem-23")
            .untestableWhen(d -> d.underTheTimeout() == null ? "no unguarded level here has more users than"
                    + " connections with a mean wait predicted under the timeout" : null)
            .because(d -> String.format(Locale.ROOT, "at %,d users on %d connections the mean wait was predicted at %s"
                            + " ms, (U - P) / P x q, against the %,d ms timeout; %,d of %,d attempts timed out and %,d"
                            + " users got no query done", d.underTheTimeout().users(), d.pool(),
                    Figure.number(d.underTheTimeout().predictedWaitMs()), d.timeoutMs(), d.underTheTimeout().timeouts(),
                    d.underTheTimeout().timeouts() + d.underTheTimeout().queries(),
                    d.underTheTimeout().usersWithoutQuery()))
            .expect("burst-reaches-the-pool", "the most users waiting in the pool's queue at once, unguarded, at the"
                    + " most users", "the users beyond its connections, U - P", d -> Figure.exact(d.top("none")
                    .poolWaitersMax()).over(Math.max(1, d.top("none").users() - d.pool())), Line.atLeast(0.5))
            .claims("sem-31")
            .untestableWhen(d -> d.top("none").users() <= d.pool() ? "no level here has more users than connections"
                    : null)
            .expect("semaphore-keeps-throughput", "queries/s behind a Semaphore(P) at the most users",
                    "the unguarded run's", d -> d.top("semaphore").rate().over(d.top("none").rate()), Line.atLeast(0.9))
            .claims("sem-24")
            .because(d -> String.format(Locale.ROOT, "behind the semaphore %,d attempts timed out (unguarded %,d) and"
                            + " the queries waited %s ms in the pool's own queue: the wait moved in front of it",
                    d.top("semaphore").timeouts(), d.top("none").timeouts(),
                    Figure.number(d.top("semaphore").poolWaitMeanMs())))
            .expect("bulkhead-keeps-fast", "the fast queries behind the bulkhead, next to the most slow users",
                    "their bound (P/2) / q", d -> d.top("bulkhead").rate().over(d.top("bulkhead").bound()),
                    Line.atLeast(0.9));

    // ---- S24: three inserts in parallel per request ---------------------------------------------------------------

    /** One mode of S24 as it reports it (each mode runs in a JVM of its own). */
    public record WriteMode(String mode, int users, double durationS, double measuredSeconds, int connections,
                            int poolThreads, String database, String databaseVersion, double insertMs, long requests,
                            long requestsStarted, long errors, long rowsWritten, double throughput, double meanMs,
                            double p99Ms, int baselineThreads, int liveThreads, int peakThreads,
                            boolean stoppedByGuard, String stoppedBy, double processCpuSeconds, double runCpuSeconds,
                            double heapUsedMb, double cpuMsPerRequest, double serverCpuMsPerRequest,
                            double otherCores, double connectionBound, double cpuBound, double bound,
                            double boundRatio, String javaVersion, double throughputSpread, double liveHeapMb) {
    }

    /** What S24 saves: the sizes and the modes by name. */
    public record Writes(int users, double durationS, int connections, int poolThreads,
                         Map<String, WriteMode> modes, double throughputRatio, double liveThreadsRatio,
                         String javaVersion) {
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
                           long requestsStarted, double throughputSpread, double liveHeapMb)
            implements Measurement.Measured {
        static WriteRow of(WriteMode m) {
            return new WriteRow(m.mode(), m.throughput(), m.bound(), m.boundRatio(), m.meanMs(), m.p99Ms(),
                    m.requests(), m.liveThreads(), m.peakThreads(), m.cpuMsPerRequest(), m.heapUsedMb(),
                    m.stoppedByGuard(), m.connectionBound(), m.throughput() / m.cpuBound(), // share of free cores
                    m.requestsStarted(), m.throughputSpread(), m.liveHeapMb());
        }

        /** Requests per second with their 95 % interval over the window's quarter seconds. */
        public Figure rate() {
            return Figure.of(throughput, throughputSpread, "quarter seconds of the window");
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

    static WriteRow write(List<WriteRow> rows, String mode) {
        return rows.stream().filter(r -> r.mode().equals(mode)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no " + mode + " run in " + rows.size() + " rows"));
    }

    // Live threads after a run beyond the virtual run's: what the run left behind
    static long leftBehind(List<WriteRow> rows, String mode) {
        return Math.max(0, write(rows, mode).liveThreadsAfter() - write(rows, "virtual").liveThreadsAfter());
    }

    /** Each fixed pool's task threads: one started per task (3 per request) until the pool's size. */
    static final int THREADS_PER_REQUEST = 3;

    /**
     * What chapter 07 expects of the post's parallel writes: nothing past the connection pool's bound; a pool made
     * per request and never shut down leaving the 3 threads its tasks started, every request; and the post's claims
     * judged against the same run: throughput, what closing the pools does to the gap in threads, CPU and heap.
     */
    public static final Expectations<List<WriteRow>> WRITES_EXPECTED =
            Expectations.<List<WriteRow>>of("07-parallel-writes")
            .expect("under-the-pool", "the mode closest to the connection pool's bound",
                    "connections / (3 x one insert's time)", rows -> Figure.highest(rows, r -> r.rate()
                            .over(r.connectionBound())), Line.atMost(1.0)).limit()
            .expect("virtual-faster", "the virtual executor's requests/s", "a new fixed pool per request's",
                    rows -> write(rows, "virtual").rate().over(write(rows, "fixed-leak").rate()),
                    Line.atLeast(1.35 / 1.25)).claims("jpa-4")
            .because(rows -> String.format(Locale.ROOT, "CPU per request (this JVM and PostgreSQL): virtual %s ms,"
                            + " leaking pools %s ms, closed pools %s ms", Figure.number(write(rows, "virtual")
                            .cpuMsPerRequest()), Figure.number(write(rows, "fixed-leak").cpuMsPerRequest()),
                    Figure.number(write(rows, "fixed-closed").cpuMsPerRequest())))
            .expect("leak-per-request", "the leaking run's threads left behind per request it started",
                    "the 3 threads each request's pool started", rows -> Figure.exact(leftBehind(rows, "fixed-leak"))
                            .over(Math.max(1, write(rows, "fixed-leak").requestsStarted()) * THREADS_PER_REQUEST),
                    Line.within(0.9, 1.1)).claims("jpa-5")
            .because(rows -> String.format(Locale.ROOT, "%,d live threads after the leaking run, %,d after the virtual"
                            + " one, %,d requests started", write(rows, "fixed-leak").liveThreadsAfter(),
                    write(rows, "virtual").liveThreadsAfter(), write(rows, "fixed-leak").requestsStarted()))
            .expect("gap-with-pools-closed", "the threads left behind with each pool closed after its request",
                    "those left behind with the pools never shut down", rows -> Figure.exact(leftBehind(rows,
                            "fixed-closed")).over(Math.max(1, leftBehind(rows, "fixed-leak"))), Line.atLeast(0.5))
            .claims("jpa-6")
            .expect("closed-pools-cost-cpu", "CPU per request with the pools closed", "the virtual executor's",
                    rows -> Figure.single(write(rows, "fixed-closed").cpuMsPerRequest())
                            .over(Figure.single(write(rows, "virtual").cpuMsPerRequest())), Line.atLeast(1.0))
            .expect("leak-costs-cpu", "CPU per request with the leaking pools", "the virtual executor's",
                    rows -> Figure.single(write(rows, "fixed-leak").cpuMsPerRequest())
                            .over(Figure.single(write(rows, "virtual").cpuMsPerRequest())), Line.atLeast(1.05))
            .claims("jpa-7")
            .expect("leak-costs-heap", "heap the leaking run held on to (after a full GC)", "the virtual run's",
                    rows -> Figure.single(write(rows, "fixed-leak").liveHeapMb())
                            .over(Figure.single(write(rows, "virtual").liveHeapMb())), Line.atLeast(1.1))
            .claims("jpa-8")
            .because(rows -> String.format(Locale.ROOT, "%.0f vs %.0f MB live; before that GC, garbage included as the"
                            + " post read it, %.0f vs %.0f MB", write(rows, "fixed-leak").liveHeapMb(),
                    write(rows, "virtual").liveHeapMb(), write(rows, "fixed-leak").heapUsedMb(),
                    write(rows, "virtual").heapUsedMb()));

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

    /**
     * What S25 saves: the siblings' sleep and the implementations by name; or, on a course JDK that can't run S25's
     * preview code, why it was {@code skipped} (no implementations, no rows).
     */
    public record FanOut(int slowMs, int repeat, String database, String databaseVersion,
                         Map<String, FanOutImpl> impls, String javaVersion, String skipped) {
        /** Whether S25 ran (false: skipped on this JDK, said in one line). */
        public boolean ran() {
            return skipped == null;
        }

        public List<FanOutRow> rows() {
            if (impls == null) return List.of();
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
                            int siblingRowsPossible, String siblingFates, int slowMs, double elapsedSpread)
            implements Measurement.Measured {
        static FanOutRow of(String impl, FanOutImpl r, int slowMs) {
            double spread = r.elapsedMsAll() == null || r.elapsedMsAll().size() < 2 ? Double.NaN
                    : Figure.samples(r.elapsedMsAll().stream().mapToDouble(Double::doubleValue).toArray(),
                    "requests").at(r.elapsedMs()).halfWidth();
            return new FanOutRow(impl, r.elapsedMs(), r.elapsedOverSleep(), r.siblingRowsWritten(),
                    r.siblingRowsPossible(), String.valueOf(r.siblingFates()), slowMs, spread);
        }

        /** The time until the request failed, with its interval over the repeated requests. */
        public Figure elapsed() {
            return Figure.of(elapsedMs, elapsedSpread, "repeated requests");
        }

        /** The sibling rows written, over those that could have been. */
        public Figure writtenShare() {
            return Figure.exact(siblingRowsWritten).over(Math.max(1, siblingRowsPossible));
        }

        @Override
        public List<Measurement> measurements() {
            Measurement m = Measurement.of(impl + " · time to fail", elapsedMs, "ms");
            return List.of(impl.equals("futures") ? m.bound(slowMs, Measurement.Bound.LOWER_TIME) : m);
        }
    }

    static FanOutRow fan(List<FanOutRow> rows, String impl) {
        return rows.stream().filter(r -> r.impl().equals(impl)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no implementation " + impl + " in " + rows.size() + " rows"));
    }

    /**
     * What chapter 07 expects when one of three inserts fails at once and its siblings sleep first: allOf can't
     * answer before the siblings' sleep; the scope answers at once and its interrupted siblings commit nothing;
     * cancel(true) answers at once too, but interrupts nothing, so the siblings still write.
     */
    public static final Expectations<List<FanOutRow>> FAN_OUT_EXPECTED =
            Expectations.<List<FanOutRow>>of("07-structured-fanout")
            .expect("all-of-waits", "allOf's time to fail", "the siblings' sleep",
                    rows -> fan(rows, "futures").elapsed().over(fan(rows, "futures").slowMs()), Line.atLeast(0.999)).limit()
            .expect("scope-answers-at-once", "the scope's time to fail", "the siblings' sleep",
                    rows -> fan(rows, "structured").elapsed().over(fan(rows, "structured").slowMs()), Line.atMost(0.25))
            .expect("scope-writes-nothing", "sibling rows the scope let commit", "the rows its siblings could write",
                    rows -> fan(rows, "structured").writtenShare(), Line.atMost(0))
            .expect("cancel-answers-at-once", "cancel(true)'s time to fail", "the siblings' sleep",
                    rows -> fan(rows, "futures-cancel").elapsed().over(fan(rows, "futures-cancel").slowMs()),
                    Line.atMost(0.25))
            .expect("cancel-still-writes", "sibling rows committed after cancel(true)",
                    "the rows its siblings could write", rows -> fan(rows, "futures-cancel").writtenShare(),
                    Line.atLeast(0.5));

    /**
     * Runs S25 (the three implementations) with {@code args}; on a course JDK other than 25 (its preview API), says so
     * in one line and returns a skipped FanOut instead (cells check {@link FanOut#ran()}).
     */
    public static FanOut runFanOut(String... args) {
        String skip = Jdks.previewSkip("the structured fan-out (S25)");
        if (skip != null) {
            System.out.println(skip);
            return new FanOut(0, 0, null, null, Map.of(), Runtime.version().toString(), skip);
        }
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

    /** What chapter 07 keeps of S26: the parked threads, the floor of one copy, the control's and each mode's heap. */
    public record ScopedRun(int threads, double copyBoundBytes, List<HeapRow> rows) {
        public HeapRow row(String mode) {
            return rows.stream().filter(r -> r.mode().equals(mode)).findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no " + mode + " row in " + rows));
        }

        /** Heap per thread over the control's: what a mode's way of reaching the value costs a thread, bytes. */
        public double overControl(String mode) {
            return Math.max(0, row(mode).bytesPerThread() - row("none").bytesPerThread());
        }
    }

    /**
     * What chapter 07 expects of the per-thread caches: every live thread keeps a whole ThreadLocal copy of its own
     * (at least the copy's own bytes each, over threads that touch nothing), while a ScopedValue's threads share one
     * object and hold less than a copy each.
     */
    public static final Expectations<ScopedRun> SCOPED_EXPECTED = Expectations.<ScopedRun>of("07-scoped-values")
            .expect("a-copy-per-thread", "heap per thread with a ThreadLocal copy, over threads that touch nothing",
                    "one copy's own bytes", d -> Figure.single(d.overControl("threadlocal")).over(d.copyBoundBytes()),
                    Line.atLeast(1.0)).claims("sem-25")
            .because(d -> String.format(Locale.ROOT, "%,d parked threads: %.0f MB of heap with a copy each, %.0f MB"
                            + " with a ScopedValue, %.0f MB touching nothing", d.threads(),
                    d.row("threadlocal").heapUsedMb(), d.row("scopedvalue").heapUsedMb(), d.row("none").heapUsedMb()))
            .expect("binding-costs-less", "heap per thread with a ScopedValue, over threads that touch nothing",
                    "the same with a ThreadLocal copy", d -> Figure.single(d.overControl("scopedvalue"))
                            .over(Figure.single(Math.max(1, d.overControl("threadlocal")))), Line.atMost(1.0));

    /** Runs S26 (the control, ScopedValue, ThreadLocal, each in its own JVM) with {@code args}. */
    public static Scoped runScoped(String... args) {
        Scoped result = ChildRun.result(Scoped.class, "S26_ScopedValues.java", args);
        RunGuard.requireFresh();
        return result;
    }
}
