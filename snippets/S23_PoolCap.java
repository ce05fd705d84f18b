///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/Database.java
//SOURCES ../helpers/unpinned/Profile.java
//SOURCES ../helpers/unpinned/Machine.java
//SOURCES ../helpers/unpinned/Course.java
//SOURCES ../helpers/unpinned/Json.java
//SOURCES ../helpers/unpinned/Results.java
//SOURCES ../helpers/unpinned/Measurement.java
//SOURCES ../helpers/unpinned/RunGuard.java
//SOURCES ../helpers/unpinned/Bounds.java
//SOURCES ../helpers/unpinned/Cli.java
//SOURCES ../helpers/unpinned/Protocol.java
package unpinned.snippets;

/*
 * S23: with virtual threads the threads stop being the cap; the connection pool becomes it.
 *
 * The question: U virtual-thread "users" each run SELECT pg_sleep(q) against a real PostgreSQL (embedded, on
 * 127.0.0.1; your own with UNPINNED_DB_URL), back to back, through a HikariCP pool of P connections. How many
 * queries per second come back as U grows, and what happens to the users the pool can't serve?
 *
 * The bound: a query holds its connection for q seconds, so at most min(U, P) run at once and Little's law gives
 * throughput <= min(U, P) / q, however many threads wait (10 / 0.050 s = 200 queries/s in the quick profile).
 * Counted inside a window of W seconds, a connection can finish floor(W / q) + 1 queries, so the measured figure
 * may sit that edge above P / q (the "ceiling"), never more. Beyond U = P more users add only waiting.
 *
 * The pitfall: a thread pool used to queue the extra work in front of the database; with a virtual thread per
 * user every one of them reaches the pool and waits IN it, and HikariCP lets each wait connectionTimeout (500 ms
 * here), then throws SQLTransientConnectionException. The database is as busy as it can be and a large share of
 * the users get errors (the seminar write-up's caution: virtual threads bring no backpressure of their own, so
 * downstream connections time out; use a Semaphore). Worse, HikariCP's queue is not first come, first served: a
 * connection handed to a waiting thread is free until that thread runs, and a user asking again at once takes it
 * first (barging). So a few users get every query done with almost no wait, and the rest get none and time out,
 * again and again: the mean wait of the queries that got a connection hides them; count the users that got no
 * query done in the window. Three guards, each in its own runs (--guard):
 *   none       every user asks the pool directly: P / q, and timeouts once users outnumber the pool well enough;
 *   semaphore  a fair Semaphore(P) in front of the pool, released after the connection is returned: users wait
 *              at the semaphore, which has no timeout, so none ever waits in HikariCP's queue: the same
 *              throughput and no timeouts (the wait moves, it doesn't go away: Little's law again);
 *   bulkhead   a second, slow downstream shares the pool: U "slow" users run pg_sleep(10 q) while P/2 "fast" users
 *              run pg_sleep(q). Unguarded (run "mixed") the slow calls hold connections ten times longer, the fast
 *              queries lose throughput as the slow users grow, and hundreds of calls time out; a bulkhead (a fair
 *              Semaphore(P/2) around the slow call only, tryAcquire waiting at most one fast query's time, so a
 *              slow call is turned away rather than queued) keeps P/2 connections for the fast users: fast at its
 *              bound (P/2) / q with no timeouts, slow capped at (P/2) / 10 q.
 * Each level reports throughput against its bound, timeouts (and calls the bulkhead turned away), the wait for a
 * connection (from asking, semaphore included, to holding one: mean and p99 of the queries that got one; "in the
 * pool" is HikariCP's part), mean latency, errors, and how busy the pool was (connection-seconds used / P).
 *
 * Bounded in time and in count: each level is warm-up + window seconds; a user starts no query after the window
 * and runs at most (warm-up + window) / min(q, timeout) + 2 of them; a level whose users haven't ended a minute
 * after the window is interrupted and fails. The database starts and stops inside this JVM (try/finally, and a
 * shutdown hook on Ctrl-C); if the embedded PostgreSQL can't start here (no user namespaces), H2 in PostgreSQL
 * mode stands in, with one line saying so. Results go to results/s23-pool-cap/.
 */

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import unpinned.Bounds;
import unpinned.Cli;
import unpinned.Database;
import unpinned.Profile;
import unpinned.Protocol;
import unpinned.Results;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

public class S23_PoolCap {
    static final String USAGE = """
            usage: S23_PoolCap [--users L] [--pool N] [--query-ms N] [--connection-timeout-ms N]
                               [--guard none|semaphore|bulkhead|all] [--warmup-s S] [--duration-s S]
              --users L                  closed-loop virtual-thread users per level, comma-separated, each 1..10,000
                                         (default 5,10,50,200; full 25,50,200,1000); with --guard bulkhead these
                                         are the slow users, next to pool/2 fast ones
              --pool N                   HikariCP connections, 1..1,000 (default 10; full 50; bulkhead needs 2+)
              --query-ms N               each query is SELECT pg_sleep(N / 1000), 1..10,000 (default 50); the slow
                                         downstream of --guard bulkhead sleeps 10 x N
              --connection-timeout-ms N  how long a user waits in the pool before SQLTransientConnectionException,
                                         250..60,000 (default 500; HikariCP refuses less than 250)
              --guard G                  none, semaphore, bulkhead (runs "mixed" unguarded, then "bulkhead"), or all
                                         (default all, in that order)
              --warmup-s S               seconds of load before each level's window, 0..60 (default 1; full 3)
              --duration-s S             seconds measured per level, 1..600 (default 2; full 10)
            Levels x runs x (warm-up + window + the last query, and the connection timeout where users outnumber
            the pool) may take at most 30 minutes.
            The database: UNPINNED_DB_URL (jdbc:postgresql://..., with UNPINNED_DB_USER, UNPINNED_DB_PASSWORD) if
            set, else an embedded PostgreSQL on 127.0.0.1 that this run starts and removes.""";

    static final String ID = "s23-pool-cap";
    static final List<String> GUARDS = List.of("none", "semaphore", "bulkhead");
    static final int MAX_USERS = 10_000, MAX_LEVELS = 12, SLOW_FACTOR = 10;
    static final long BUDGET_S = 30 * 60;
    static final String SQL = "SELECT pg_sleep(?)";

    record Options(List<Integer> users, int pool, int queryMs, int timeoutMs, List<String> runs, double warmupS,
                   double durationS) {
        int bulkheadPermits() {
            return pool / 2;
        }

        int fastUsersMixed() {
            return pool - bulkheadPermits();
        }

        /** A slow call turned away by the bulkhead waited at most this long for a permit. */
        int bulkheadWaitMs() {
            return Math.max(queryMs, 10);
        }
    }

    public static void main(String[] args) throws Exception {
        Profile profile = Profile.announceOrExit("S23");
        Options o = parse(profile, args);
        System.out.println(String.format(Locale.ROOT, "pool of %d connections, each query pg_sleep(%.3f s), connection"
                        + " timeout %,d ms; closed-loop virtual-thread users %s; runs %s; warm-up %.1f s, window %.1f s"
                        + " per level; bound: min(users, pool) / query seconds (Little's law)", o.pool(),
                o.queryMs() / 1e3, o.timeoutMs(), join(o.users()), String.join(", ", o.runs()), o.warmupS(),
                o.durationS()));
        String failure = null;
        Map<String, Object> data = null;
        Database db = null;
        try {
            db = Database.start(System.out);
            data = run(o, db);
        } catch (IllegalArgumentException e) { // a bad UNPINNED_DB_URL, or a pool the server can't hold
            db = closeQuietly(db);
            Cli.exit("S23", e.getMessage());
        } catch (IllegalStateException e) {
            failure = e.getMessage();
        } finally {
            closeQuietly(db); // stops the server and deletes its folder; idempotent
        }
        if (failure != null) {
            System.err.println("S23: " + failure + "; nothing saved");
            System.exit(1);
        }
        Protocol.result(data);
        System.out.println("saved " + Results.save(ID, data));
        System.out.println("database stopped" + (db != null && db.kind().equals(Database.EMBEDDED)
                ? " and its folder deleted" : ""));
    }

    static Database closeQuietly(Database db) {
        if (db != null) db.close();
        return db;
    }

    static Options parse(Profile profile, String[] args) {
        Cli cli = Cli.orExit("S23", USAGE, args, Set.of("--users", "--pool", "--query-ms", "--connection-timeout-ms",
                "--guard", "--warmup-s", "--duration-s"), Set.of());
        try {
            List<Integer> users = users(cli.value("--users", profile.pick("5,10,50,200", "25,50,200,1000")));
            int pool = cli.intValue("--pool", profile.pick(10, 50), 1, Database.MAX_POOL);
            int queryMs = cli.intValue("--query-ms", 50, 1, 10_000);
            int timeoutMs = cli.intValue("--connection-timeout-ms", 500, (int) Database.MIN_TIMEOUT.toMillis(), 60_000);
            List<String> allowed = new ArrayList<>(GUARDS);
            allowed.add("all");
            String guard = cli.oneOf("--guard", "all", allowed);
            List<String> runs = switch (guard) {
                case "none" -> List.of("none");
                case "semaphore" -> List.of("semaphore");
                case "bulkhead" -> List.of("mixed", "bulkhead");
                default -> List.of("none", "semaphore", "mixed", "bulkhead");
            };
            if (runs.contains("bulkhead") && pool < 2) {
                throw new IllegalArgumentException("--guard bulkhead needs --pool 2 or more (half the pool for the"
                        + " slow calls, half for the fast ones); got --pool " + pool);
            }
            double warmupS = cli.doubleValue("--warmup-s", profile.pick(1, 3), 0, 60);
            double durationS = cli.doubleValue("--duration-s", profile.pick(2, 10), 1, 600);
            double slowS = runs.contains("mixed") ? SLOW_FACTOR * queryMs / 1e3 : queryMs / 1e3;
            // After each window the last queries end; where users outnumber the pool (unguarded: "none", and "mixed"
            // with its pool - pool / 2 fast users) the last of them first waits up to the connection timeout.
            double totalS = 0;
            int queued = 0;
            for (String run : runs) {
                for (int u : users) {
                    boolean queues = run.equals("none") ? u > pool : run.equals("mixed") && u > pool / 2; // + fast ones
                    if (queues) queued++;
                    totalS += warmupS + durationS + slowS + (queues ? timeoutMs / 1e3 : 0);
                }
            }
            if (totalS > BUDGET_S) {
                throw new IllegalArgumentException(String.format(Locale.ROOT, "%d runs x %d levels x (warm-up %.1f s +"
                                + " window %.1f s + a last query of %.1f s), plus a %.1f s connection timeout at the %d"
                                + " levels where users outnumber the pool = %,.0f s; at most 30 minutes (1,800 s)"
                                + " allowed: fewer --users levels, one --guard, shorter windows or a shorter"
                                + " --connection-timeout-ms", runs.size(), users.size(), warmupS, durationS, slowS,
                        timeoutMs / 1e3, queued, totalS));
            }
            Database.checkUrl();
            Results.checkDir();
            return new Options(users, pool, queryMs, timeoutMs, runs, warmupS, durationS);
        } catch (IllegalArgumentException | IllegalStateException e) {
            return Cli.exit("S23", e.getMessage());
        }
    }

    static List<Integer> users(String list) {
        List<Integer> levels = new ArrayList<>();
        for (String part : list.split(",", -1)) {
            int n;
            try {
                n = Integer.parseInt(part.strip().replace("_", ""));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--users must be comma-separated whole numbers, each 1 to 10,000"
                        + " (e.g. 5,10,50,200); got '" + list + "'");
            }
            if (n < 1 || n > MAX_USERS) {
                throw new IllegalArgumentException("--users must be comma-separated whole numbers, each 1 to 10,000;"
                        + " got " + n);
            }
            levels.add(n);
        }
        if (levels.size() > MAX_LEVELS) {
            throw new IllegalArgumentException("--users takes at most " + MAX_LEVELS + " levels; got " + levels.size());
        }
        return levels;
    }

    // ---- the run --------------------------------------------------------------------------------------------------

    static Map<String, Object> run(Options o, Database db) throws InterruptedException {
        System.out.println("database: " + db.version() + " (" + db.kind() + ", " + db.jdbcUrl() + ")");
        HikariDataSource pool = db.pool("s23-pool", o.pool(), Duration.ofMillis(o.timeoutMs()));
        List<Map<String, Object>> rows = new ArrayList<>();
        int total = o.runs().size() * o.users().size(), done = 0;
        long queries = 0;
        for (String run : o.runs()) {
            if (run.equals("mixed")) {
                System.out.println(String.format(Locale.ROOT, "mixed and bulkhead: %d fast users (pg_sleep %.3f s)"
                                + " next to U slow users (pg_sleep %.3f s) on the same pool; the bulkhead lets at most"
                                + " %d slow calls hold a connection, each waiting at most %d ms for its turn",
                        o.fastUsersMixed(), o.queryMs() / 1e3, SLOW_FACTOR * o.queryMs() / 1e3, o.bulkheadPermits(),
                        o.bulkheadWaitMs()));
            }
            for (int users : o.users()) {
                Protocol.progress(String.format(Locale.ROOT, "%s: %d users (%d/%d)", run, users, ++done, total));
                Map<String, Object> row = level(o, pool, run, users);
                rows.add(row);
                queries += (long) row.get("queries") + (long) row.getOrDefault("slowQueries", 0L);
                System.out.println(describe(row));
                settle(pool, o.pool());
            }
        }
        if (queries == 0) throw new IllegalStateException("no query succeeded in any window");
        Map<String, Object> database = new LinkedHashMap<>();
        database.put("kind", db.kind());
        database.put("version", db.version());
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("database", database);
        data.put("pool", o.pool());
        data.put("queryMs", o.queryMs());
        data.put("slowQueryMs", SLOW_FACTOR * o.queryMs());
        data.put("connectionTimeoutMs", o.timeoutMs());
        data.put("bulkheadPermits", o.bulkheadPermits());
        data.put("bulkheadWaitMs", o.bulkheadWaitMs());
        data.put("fastUsersMixed", o.fastUsersMixed());
        data.put("warmupS", o.warmupS());
        data.put("durationS", o.durationS());
        data.put("users", o.users());
        data.put("runs", o.runs());
        data.put("levels", rows);
        summary(rows, o);
        return data;
    }

    /** What one user counts: its own, so no user contends with another to count. */
    static final class Tally {
        long ok, timeouts, rejected, errors;
        String firstError;
        int n;
        long[] waitNs = new long[16], poolWaitNs = new long[16], latencyNs = new long[16];

        void record(long wait, long poolWait, long latency) {
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
    }

    /** One user: queries back to back until the window ends, at most maxQueries of them. */
    record User(Tally tally, boolean slow, Semaphore permits, boolean tryOnly, double seconds, long windowStart,
                long windowEnd, int maxQueries, int bulkheadWaitMs, HikariDataSource pool) implements Runnable {
        @Override
        public void run() {
            for (int i = 0; i < maxQueries && System.nanoTime() < windowEnd; i++) {
                if (Thread.currentThread().isInterrupted()) return;
                long ask = System.nanoTime();
                boolean held = false;
                try {
                    if (permits != null) {
                        if (tryOnly) { // the bulkhead: a slow call waits a little for its turn, then is turned away
                            held = permits.tryAcquire(bulkheadWaitMs, TimeUnit.MILLISECONDS);
                            if (!held) {
                                if (inWindow(System.nanoTime())) tally.rejected++;
                                continue;
                            }
                        } else {
                            permits.acquire();
                            held = true;
                        }
                        if (System.nanoTime() >= windowEnd) return; // it waited past the window: no query after it
                    }
                    long asked = System.nanoTime(), got;
                    try (Connection c = pool.getConnection()) {
                        got = System.nanoTime();
                        try (PreparedStatement ps = c.prepareStatement(SQL)) {
                            ps.setDouble(1, seconds);
                            ps.execute();
                        }
                    } // the connection is back in the pool here, before the permit is released below
                    long end = System.nanoTime();
                    if (inWindow(end)) tally.record(got - ask, got - asked, end - ask);
                } catch (SQLTransientConnectionException e) { // HikariCP: no connection within connectionTimeout
                    if (inWindow(System.nanoTime())) tally.timeouts++;
                } catch (SQLException e) {
                    if (Thread.currentThread().isInterrupted()) return;
                    tally.errors++; // a broken database is not hammered: this user stops
                    if (tally.firstError == null) tally.firstError = e.getClass().getSimpleName() + ": " + e.getMessage();
                    return;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                } finally {
                    if (held) permits.release();
                }
            }
        }

        boolean inWindow(long t) {
            return t >= windowStart && t < windowEnd;
        }
    }

    /** One level of one run: start the users, sample the queues, wait for the users, add up. */
    static Map<String, Object> level(Options o, HikariDataSource pool, String run, int users)
            throws InterruptedException {
        boolean mixed = run.equals("mixed") || run.equals("bulkhead");
        int fastUsers = mixed ? o.fastUsersMixed() : users, slowUsers = mixed ? users : 0;
        double q = o.queryMs() / 1e3, slowQ = SLOW_FACTOR * q;
        Semaphore fastPermits = run.equals("semaphore") ? new Semaphore(o.pool(), true) : null;
        Semaphore slowPermits = run.equals("bulkhead") ? new Semaphore(o.bulkheadPermits(), true) : null;
        long warmNs = (long) (o.warmupS() * 1e9), windowNs = (long) (o.durationS() * 1e9);
        double shortest = Math.min(o.queryMs(), o.timeoutMs()) / 1e3; // the least any attempt can take
        int maxQueries = (int) Math.min(Integer.MAX_VALUE, (long) Math.ceil((o.warmupS() + o.durationS()) / shortest) + 2);

        List<Tally> fast = new ArrayList<>(), slow = new ArrayList<>();
        List<Thread> threads = new ArrayList<>(fastUsers + slowUsers);
        long start = System.nanoTime(), windowStart = start + warmNs, windowEnd = windowStart + windowNs;
        for (int i = 0; i < fastUsers + slowUsers; i++) {
            boolean isSlow = i >= fastUsers;
            Tally t = new Tally();
            (isSlow ? slow : fast).add(t);
            User u = new User(t, isSlow, isSlow ? slowPermits : fastPermits, isSlow && slowPermits != null,
                    isSlow ? slowQ : q, windowStart, windowEnd, maxQueries, o.bulkheadWaitMs(), pool);
            threads.add(Thread.ofVirtual().name("s23-" + (isSlow ? "slow-" : "user-") + i).start(u));
        }
        int poolWaitersMax = 0, permitWaitersMax = 0;
        try {
            HikariPoolMXBean mx = pool.getHikariPoolMXBean();
            for (long now; (now = System.nanoTime()) < windowEnd; ) {
                if (now >= windowStart) {
                    poolWaitersMax = Math.max(poolWaitersMax, mx.getThreadsAwaitingConnection());
                    Semaphore s = fastPermits != null ? fastPermits : slowPermits;
                    if (s != null) permitWaitersMax = Math.max(permitWaitersMax, s.getQueueLength());
                }
                Thread.sleep(Math.max(1, Math.min(50, (windowEnd - now) / 1_000_000)));
            }
            // Everyone stops starting queries now; the last ones finish (a slow query, or a timeout) well within this.
            long deadline = windowEnd + TimeUnit.SECONDS.toNanos(60) + (long) (slowQ * 1e9) + o.timeoutMs() * 1_000_000L;
            for (Thread t : threads) {
                long left = deadline - System.nanoTime();
                if (left <= 0 || !t.join(Duration.ofNanos(left))) break;
            }
            long stuck = threads.stream().filter(Thread::isAlive).count();
            if (stuck > 0) {
                throw new IllegalStateException(String.format(Locale.ROOT, "%s at %d users: %d users had not ended a"
                        + " minute after the window (is the database stuck?)", run, users, stuck));
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
        if (Thread.currentThread().isInterrupted()) throw new InterruptedException("interrupted in " + run);

        double w = o.durationS();
        int fastServers = mixed ? Math.min(fastUsers, o.pool()) : Math.min(users, o.pool());
        Stats f = Stats.of(fast), s = Stats.of(slow);
        double bound = Bounds.closedLoopThroughput(fastUsers, fastServers, q);
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("run", run);
        row.put("users", fastUsers + slowUsers);
        row.put("fastUsers", fastUsers);
        row.put("slowUsers", slowUsers);
        row.put("pool", o.pool());
        row.put("querySeconds", q);
        row.put("throughput", f.ok / w);
        row.put("bound", bound);
        row.put("ceiling", ceiling(bound, q, w));
        row.put("ratioToBound", f.ok / w / bound);
        row.put("queries", f.ok);
        row.put("timeouts", f.timeouts);
        row.put("timeoutShare", f.ok + f.timeouts == 0 ? 0.0 : (double) f.timeouts / (f.ok + f.timeouts));
        row.put("waitMeanMs", f.waitMeanMs);
        row.put("waitP99Ms", f.waitP99Ms);
        row.put("poolWaitMeanMs", f.poolWaitMeanMs);
        row.put("poolWaitP99Ms", f.poolWaitP99Ms);
        row.put("latencyMeanMs", f.latencyMeanMs);
        row.put("usersWithoutQuery", f.usersWithout); // users that got no query done in the whole window
        row.put("errors", f.errors + s.errors);
        if (mixed) {
            int slowServers = Math.min(slowUsers, run.equals("bulkhead") ? o.bulkheadPermits() : o.pool());
            double slowBound = Bounds.closedLoopThroughput(slowUsers, slowServers, slowQ);
            row.put("slowQuerySeconds", slowQ);
            row.put("slowThroughput", s.ok / w);
            row.put("slowBound", slowBound);
            row.put("slowCeiling", ceiling(slowBound, slowQ, w));
            row.put("slowRatioToBound", s.ok / w / slowBound);
            row.put("slowQueries", s.ok);
            row.put("slowTimeouts", s.timeouts);
            row.put("slowRejected", s.rejected);
            row.put("slowWaitMeanMs", s.waitMeanMs);
            row.put("slowLatencyMeanMs", s.latencyMeanMs);
            row.put("slowUsersWithoutQuery", s.usersWithout);
        }
        row.put("poolBusy", (f.ok * q + s.ok * slowQ) / w / o.pool());
        row.put("poolWaitersMax", poolWaitersMax);
        row.put("permitWaitersMax", permitWaitersMax);
        String firstError = f.firstError != null ? f.firstError : s.firstError;
        if (firstError != null) row.put("firstError", firstError);
        return row;
    }

    /** The most a window of w seconds can count: each of bound x q connections ends floor(w / q) + 1 queries. */
    static double ceiling(double bound, double q, double w) {
        return bound * q * (Math.floor(w / q + 1e-9) + 1) / w;
    }

    /** The tallies of one class of users (fast or slow), added up. */
    record Stats(long ok, long timeouts, long rejected, long errors, String firstError, double waitMeanMs,
                 double waitP99Ms, double poolWaitMeanMs, double poolWaitP99Ms, double latencyMeanMs, int usersWithout) {
        static Stats of(List<Tally> tallies) {
            long ok = 0, timeouts = 0, rejected = 0, errors = 0;
            String first = null;
            int n = 0, without = 0;
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
                    p99Ms(poolWait), meanMs(latency), without);
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

    /** Waits until every connection is back and idle, so the next level starts from a full pool. */
    static void settle(HikariDataSource pool, int size) throws InterruptedException {
        HikariPoolMXBean mx = pool.getHikariPoolMXBean();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while ((mx.getIdleConnections() < size || mx.getThreadsAwaitingConnection() > 0) && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
    }

    // ---- output ---------------------------------------------------------------------------------------------------

    static String describe(Map<String, Object> r) {
        String run = (String) r.get("run");
        double q = (double) r.get("querySeconds");
        String fastBound = String.format(Locale.ROOT, "%d / %.3f s = %,.1f", Math.round((double) r.get("bound") * q), q,
                (double) r.get("bound"));
        String errors = (long) r.get("errors") == 0 ? "0 errors"
                : r.get("errors") + " errors (first: " + r.get("firstError") + ")";
        if (run.equals("none") || run.equals("semaphore")) {
            return String.format(Locale.ROOT, "%-9s %,6d users: %,8.1f q/s = %.2f x the bound %s; %,d timeouts (%.0f %%),"
                            + " %,d users got no query done; wait for a connection mean %,.1f ms, p99 %,.1f ms (in the"
                            + " pool: %,.1f / %,.1f ms); latency mean %,.1f ms; pool busy %.2f; %s",
                    run, (int) r.get("users"), (double) r.get("throughput"), (double) r.get("ratioToBound"), fastBound,
                    (long) r.get("timeouts"), 100 * (double) r.get("timeoutShare"), (int) r.get("usersWithoutQuery"),
                    (double) r.get("waitMeanMs"),
                    (double) r.get("waitP99Ms"), (double) r.get("poolWaitMeanMs"), (double) r.get("poolWaitP99Ms"),
                    (double) r.get("latencyMeanMs"), (double) r.get("poolBusy"), errors);
        }
        double sq = (double) r.get("slowQuerySeconds");
        return String.format(Locale.ROOT, "%-9s %d fast + %,d slow users: fast %,.1f q/s = %.2f x the bound %s, %,d"
                        + " timeouts, wait mean %,.1f ms; slow %,.1f q/s = %.2f x %d / %.3f s, %,d timeouts, %,d turned"
                        + " away by the bulkhead; pool busy %.2f; %s",
                run, (int) r.get("fastUsers"), (int) r.get("slowUsers"), (double) r.get("throughput"),
                (double) r.get("ratioToBound"), fastBound, (long) r.get("timeouts"), (double) r.get("waitMeanMs"),
                (double) r.get("slowThroughput"), (double) r.get("slowRatioToBound"),
                Math.round((double) r.get("slowBound") * sq), sq, (long) r.get("slowTimeouts"),
                (long) r.get("slowRejected"), (double) r.get("poolBusy"), errors);
    }

    static void summary(List<Map<String, Object>> rows, Options o) {
        int top = o.users().stream().mapToInt(Integer::intValue).max().orElse(0);
        Map<String, Map<String, Object>> atTop = new LinkedHashMap<>();
        for (Map<String, Object> r : rows) {
            int slowOrAll = r.get("run").equals("mixed") || r.get("run").equals("bulkhead")
                    ? (int) r.get("slowUsers") : (int) r.get("users");
            if (slowOrAll == top) atTop.put((String) r.get("run"), r);
        }
        Map<String, Object> none = atTop.get("none"), sem = atTop.get("semaphore");
        if (none != null) {
            System.out.println(String.format(Locale.ROOT, "at %,d users the pool caps it: %,.1f q/s = %.2f x %d / %.3f s;"
                            + " %.0f %% of the attempts timed out after %,d ms and %,d users got no query done",
                    top, (double) none.get("throughput"), (double) none.get("ratioToBound"), o.pool(), o.queryMs() / 1e3,
                    100 * (double) none.get("timeoutShare"), o.timeoutMs(), (int) none.get("usersWithoutQuery")));
        }
        if (none != null && sem != null) {
            System.out.println(String.format(Locale.ROOT, "a Semaphore(%d) in front: %,.1f q/s (%.2f x unguarded) with %,d"
                            + " timeouts; the users wait at the semaphore instead (mean %,.0f ms, %,.1f ms in the pool)",
                    o.pool(), (double) sem.get("throughput"), (double) sem.get("throughput") / (double) none.get("throughput"),
                    (long) sem.get("timeouts"), (double) sem.get("waitMeanMs"), (double) sem.get("poolWaitMeanMs")));
        }
        Map<String, Object> mixed = atTop.get("mixed"), bulkhead = atTop.get("bulkhead");
        if (mixed != null && bulkhead != null) {
            System.out.println(String.format(Locale.ROOT, "fast queries next to %,d slow users (bound %,.1f q/s):"
                            + " unguarded %,.1f q/s, %,d + %,d slow calls timed out; behind a bulkhead of %d, %,.1f q/s,"
                            + " %,d + %,d timed out, %,d slow calls turned away", top, (double) bulkhead.get("bound"),
                    (double) mixed.get("throughput"), (long) mixed.get("timeouts"), (long) mixed.get("slowTimeouts"),
                    o.bulkheadPermits(), (double) bulkhead.get("throughput"), (long) bulkhead.get("timeouts"),
                    (long) bulkhead.get("slowTimeouts"), (long) bulkhead.get("slowRejected")));
        }
    }

    static String join(List<Integer> users) {
        return String.join(",", users.stream().map(String::valueOf).toList());
    }

    static double round(double v, int decimals) {
        double f = Math.pow(10, decimals);
        return Math.round(v * f) / f;
    }
}

/*
 * How to run:
 *   tools/jbang db-pool-cap                                        (all runs: none, semaphore, mixed, bulkhead)
 *   tools/jbang db-pool-cap --guard none --users 10,200            (just the cap and the timeouts)
 *   tools/jbang db-pool-cap --guard semaphore --pool 20 --query-ms 20
 *   tools/jbang db-pool-cap --guard bulkhead --users 10,50
 *   UNPINNED_DB_URL=jdbc:postgresql://127.0.0.1:5432/postgres UNPINNED_DB_USER=postgres \
 *       UNPINNED_DB_PASSWORD=secret tools/jbang db-pool-cap        (your own PostgreSQL; its max_connections
 *                                                                  must exceed --pool)
 *   on any other JDK 21+: java -cp "$(tools/jbang info classpath db-pool-cap)" unpinned.snippets.S23_PoolCap
 *
 * What you should see (2 cores, embedded PostgreSQL 17.11; quick profile: pool 10, 50 ms, 500 ms timeout, 1 s
 * warm-up + 2 s per level, about 60 s in all; bound 10 / 0.050 s = 200 queries/s from 10 users on):
 *   none       5 users ~97 q/s (0.97 x 100); 10 ~195 (0.96-0.98); 50 ~185-198 (0.91-0.99) with ~30 % of the
 *              attempts timed out and ~30 of the 50 users with no query done at all; 200 ~195-200 (0.97-1.00)
 *              with ~66 % timed out and ~185 of the 200 users with none done: the database is no busier, the
 *              same dozen users get everything (mean wait of those queries: a few ms)
 *   semaphore  the same throughput (200 users: ~198, 0.99 x) and 0 timeouts at every level, every user served;
 *              at 200 users the wait for a connection is ~975 ms (200 / 198 q/s - 50 ms: Little's law), all of
 *              it at the semaphore, 0.0 ms in the pool
 *   mixed      5 fast users (bound 100 q/s) next to 5 slow ones: ~98 fast, 10 slow, pool busy ~1.00; next to
 *              10, 50, 200 slow users the fast queries fall to somewhere between ~40 and ~90 q/s (it changes from
 *              run to run: who gets a returned connection is a race), and the calls time out by the hundred
 *              (~770 slow ones at 200 users) while the pool stays ~0.95-1.00 busy
 *   bulkhead   fast 97-100 q/s (0.97-1.00 x 100) and 0 timeouts at every level; slow capped at 10 q/s (5 / 0.5 s),
 *              0 timeouts, the rest turned away by the bulkhead within 50 ms (~7,800 at 200 slow users)
 *   The figures move with the machine's other load (a busy 2-core machine took 50 users down to 0.41 x once):
 *   compare pool busy with the ratio, and run again. If the embedded server can't start, one line says why and
 *   H2 stands in (pg_sleep is then a Java sleep in this JVM); the pool, not the database, sets the figures.
 */
