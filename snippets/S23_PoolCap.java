///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/experiments/Backpressure.java
//SOURCES ../helpers/unpinned/running/Database.java
package unpinned.snippets;

/*
 * S23: with virtual threads the threads stop being the cap; the connection pool becomes it.
 * The question: U virtual-thread users each run SELECT pg_sleep(q) back to back through a HikariCP pool of P
 * connections (embedded PostgreSQL; yours with UNPINNED_DB_URL). How many queries per second come back as U
 * grows, and what happens to the users the pool can't serve? Guards: none, semaphore, bulkhead (see User).
 * The bound: at most min(U, P) queries run at once, so throughput <= min(U, P) / q (Little's law; 10 / 0.050 s =
 * 200 queries/s quick); a W-second window may count floor(W / q) + 1 per connection, that edge above, never more.
 * The pitfall: virtual threads bring no backpressure: every user waits IN the pool, HikariCP times them out
 * (connectionTimeout, 500 ms here), and its queue barges, so count the users with no query done, not the mean.
 * Plumbing (tallies, sampling, the summary, the saved records): unpinned.experiments.Backpressure.
 */

import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.HikariPoolMXBean;
import unpinned.experiments.Backpressure;
import unpinned.experiments.Backpressure.Level;
import unpinned.experiments.Backpressure.PoolOptions;
import unpinned.experiments.Backpressure.Stats;
import unpinned.experiments.Backpressure.Tally;
import unpinned.experiments.Backpressure.Waiters;
import unpinned.running.Database;
import unpinned.core.Experiment;
import unpinned.core.Protocol;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

import static unpinned.experiments.Backpressure.PoolOptions.SLOW_FACTOR;
import static unpinned.experiments.Backpressure.acquire;
import static unpinned.experiments.Backpressure.inWindow;

public class S23_PoolCap {
    /**
     * One user: queries back to back until the window ends, at most maxQueries of them. Guards: none, every
     * user asks the pool (P / q, and timeouts once users outnumber it enough); semaphore, a fair Semaphore(P) in
     * front (the wait moves there, no timeouts); bulkhead, slow calls (pg_sleep(10 q)) behind a fair
     * Semaphore(P/2) with tryAcquire for one fast query's time, keeping P/2 connections for P/2 fast users.
     */
    record User(Tally tally, Semaphore permits, boolean tryOnly, double seconds, long windowStart, long windowEnd,
                int maxQueries, int bulkheadWaitMs, HikariDataSource pool) implements Runnable {
        public void run() {
            for (int i = 0; i < maxQueries && System.nanoTime() < windowEnd; i++) {
                if (Thread.currentThread().isInterrupted()) return;
                long ask = System.nanoTime();
                boolean held = false;
                try {
                    if (permits != null) {
                        // the bulkhead: a slow call waits a little for its turn, then is turned away
                        held = tryOnly ? permits.tryAcquire(bulkheadWaitMs, TimeUnit.MILLISECONDS) : acquire(permits);
                        if (!held && inWindow(System.nanoTime(), windowStart, windowEnd)) tally.rejected++;
                        if (!held) continue;
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
                    if (inWindow(end, windowStart, windowEnd)) {
                        tally.record(got - ask, got - asked, end - ask, end - windowStart);
                    }
                } catch (SQLTransientConnectionException e) { // HikariCP: no connection within connectionTimeout
                    if (inWindow(System.nanoTime(), windowStart, windowEnd)) tally.timeouts++;
                } catch (SQLException e) { // a broken database is not hammered: this user stops
                    if (!Thread.currentThread().isInterrupted()) tally.error(e);
                    return;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                } finally {
                    if (held) permits.release();
                }
            }
        }
    }

    /**
     * One level of one run: start the users, sample the queues over the window, wait for the users, add up.
     * Bounded: warm-up + window, no query started after it, a bounded count; a level whose users haven't ended a
     * minute after it fails.
     */
    static Level level(PoolOptions o, HikariDataSource pool, String run, int users) throws InterruptedException {
        boolean mixed = run.equals("mixed") || run.equals("bulkhead");
        int fastUsers = mixed ? o.fastUsersMixed() : users, slowUsers = mixed ? users : 0;
        double q = o.queryMs() / 1e3, slowQ = SLOW_FACTOR * q;
        Semaphore fastPermits = run.equals("semaphore") ? new Semaphore(o.pool(), true) : null;
        Semaphore slowPermits = run.equals("bulkhead") ? new Semaphore(o.bulkheadPermits(), true) : null;
        List<Tally> fast = new ArrayList<>(), slow = new ArrayList<>();
        List<Thread> threads = new ArrayList<>(fastUsers + slowUsers);
        long windowStart = System.nanoTime() + (long) (o.warmupS() * 1e9);
        long windowEnd = windowStart + (long) (o.durationS() * 1e9);
        for (int i = 0; i < fastUsers + slowUsers; i++) {
            boolean isSlow = i >= fastUsers;
            Tally t = new Tally();
            (isSlow ? slow : fast).add(t);
            User u = new User(t, isSlow ? slowPermits : fastPermits, isSlow && slowPermits != null,
                    isSlow ? slowQ : q, windowStart, windowEnd, o.maxQueries(), o.bulkheadWaitMs(), pool);
            threads.add(Thread.ofVirtual().name("s23-" + (isSlow ? "slow-" : "user-") + i).start(u));
        }
        HikariPoolMXBean mx = pool.getHikariPoolMXBean();
        Waiters waiters = null;
        try {
            waiters = Backpressure.sample(mx::getThreadsAwaitingConnection,
                    fastPermits != null ? fastPermits : slowPermits, windowStart, windowEnd);
        } finally { // everyone stops starting queries now; the last ones finish (a slow query, or a timeout)
            Backpressure.joinUsers(threads, windowEnd + TimeUnit.SECONDS.toNanos(60) + (long) (slowQ * 1e9)
                    + o.timeoutMs() * 1_000_000L, run + " at " + users + " users", waiters != null);
        }
        int slowServers = !mixed ? 0 : Math.min(slowUsers, run.equals("bulkhead") ? o.bulkheadPermits() : o.pool());
        return Level.of(run, fastUsers, slowUsers, o.pool(), q, slowQ, o.durationS(), Stats.of(fast), Stats.of(slow),
                Math.min(fastUsers, o.pool()), slowServers, waiters.pool(), waiters.permits());
    }

    static final int MAX_USERS = 10_000, MAX_LEVELS = 12;
    static final String SQL = "SELECT pg_sleep(?)";

    public static void main(String[] args) {
        Experiment.named("S23", "the connection pool caps virtual-thread users", "s23-pool-cap")
                .counts("--users", List.of(5, 10, 50, 200), List.of(25, 50, 200, 1_000), 0, Integer.MAX_VALUE,
                        "closed-loop virtual-thread users per level, each 1..10,000; with --guard bulkhead these"
                                + " are the slow users, next to pool/2 fast ones")
                .count("--pool", 10, 50, 1, Database.MAX_POOL, "HikariCP connections (bulkhead needs 2+)")
                .count("--query-ms", 50, 50, 1, 10_000, "each query is SELECT pg_sleep(N / 1000); the slow"
                        + " downstream of --guard bulkhead sleeps 10 x N")
                .count("--connection-timeout-ms", 500, 500, Database.MIN_TIMEOUT.toMillis(), 60_000, "how long a"
                        + " user waits in the pool before SQLTransientConnectionException (HikariCP refuses < 250)")
                .someOf("--guard", List.of("none", "semaphore", "bulkhead"), "none, semaphore, bulkhead (runs"
                        + " \"mixed\" unguarded, then \"bulkhead\"), several comma-separated (one JVM, one database),"
                        + " or all, in that order")
                .number("--warmup-s", 1, 3, 0, 60, "seconds of load before each level's window")
                .number("--duration-s", 2, 10, 1, 600, "seconds measured per level")
                .check(a -> Backpressure.checkUsers(a.counts("--users"), MAX_USERS, MAX_LEVELS))
                .check(a -> Backpressure.checkPoolPlan(PoolOptions.of(a).runs(), PoolOptions.of(a).pool()))
                .takes(Duration.ofMinutes(30), a -> {
                    PoolOptions o = PoolOptions.of(a);
                    return Backpressure.poolPlanTime(Database.START_S, o.runs(), o.users(), o.pool(), o.queryMs(),
                            o.timeoutMs(), o.warmupS(), o.durationS(), SLOW_FACTOR);
                })
                .check(a -> Database.checkUrl())
                .notes("""
                        Each level of each run is a warm-up, a window and the last query, and the connection
                        timeout where users outnumber the pool.
                        The database: UNPINNED_DB_URL (jdbc:postgresql://..., with UNPINNED_DB_USER,
                        UNPINNED_DB_PASSWORD) if set, else an embedded PostgreSQL on 127.0.0.1 that this run starts
                        and removes.""")
                .run(args, S23_PoolCap::measure);
    }

    /** Every run at every level, on one pool of one database, stopped (and its folder deleted) in every case. */
    static Backpressure.PoolCap measure(Experiment.Args a) throws InterruptedException {
        PoolOptions o = PoolOptions.of(a);
        o.print();
        try (Database db = Database.start(System.out)) { // close(): stops the server and deletes its folder
            System.out.println("database: " + db.version() + " (" + db.kind() + ", " + db.jdbcUrl() + ")");
            HikariDataSource pool = db.pool("s23-pool", o.pool(), Duration.ofMillis(o.timeoutMs()));
            HikariPoolMXBean mx = pool.getHikariPoolMXBean();
            List<Level> rows = new ArrayList<>();
            int total = o.runs().size() * o.users().size();
            for (String run : o.runs()) {
                if (run.equals("mixed")) o.printMixed();
                for (int users : o.users()) {
                    Protocol.progress(run + ": " + users + " users (" + (rows.size() + 1) + "/" + total + ")");
                    rows.add(level(o, pool, run, users));
                    System.out.println(rows.getLast().describe());
                    // a database that died shows as timeouts, which read like the pool's cap: such a run is no result
                    db.requireAlive("during " + run + " at " + users + " users");
                    if (rows.getLast().errors() > 0) {
                        throw new IllegalStateException(String.format(Locale.ROOT, "the database failed %,d queries"
                                + " during %s at %d users (first: %s)", rows.getLast().errors(), run, users,
                                rows.getLast().firstError()));
                    }
                    Backpressure.settle(mx::getIdleConnections, mx::getThreadsAwaitingConnection, o.pool());
                }
            }
            if (rows.stream().allMatch(r -> r.queries() + (r.slowQueries() == null ? 0 : r.slowQueries()) == 0)) {
                throw new Experiment.RunFailed("no query succeeded in any window; nothing saved");
            }
            Backpressure.summary(rows, o.pool(), o.queryMs(), o.timeoutMs(), o.bulkheadPermits());
            return new Backpressure.PoolCap(new Backpressure.DatabaseInfo(db.kind(), db.version()), o.pool(),
                    o.queryMs(), SLOW_FACTOR * o.queryMs(), o.timeoutMs(), o.bulkheadPermits(), o.bulkheadWaitMs(),
                    o.fastUsersMixed(), o.warmupS(), o.durationS(), o.users(), o.runs(), rows);
        } catch (IllegalArgumentException e) { // a pool the server can't hold
            throw new Experiment.RunFailed(e.getMessage());
        } catch (IllegalStateException e) { // a level that did not end, a database that failed
            throw new Experiment.RunFailed(e.getMessage() + "; nothing saved");
        }
    }
}

/*
 * How to run:
 *   tools/jbang db-pool-cap                                        (all runs: none, semaphore, mixed, bulkhead)
 *   tools/jbang db-pool-cap --guard none --users 10,200            (just the cap and the timeouts)
 *   tools/jbang db-pool-cap --guard semaphore --pool 20 --query-ms 20
 *   tools/jbang db-pool-cap --guard bulkhead --users 10,50
 *
 * What you should see: none at the pool's bound with timeouts and starved users once users outnumber the pool;
 * semaphore the same throughput and no timeouts; mixed fast queries losing throughput; bulkhead keeping them at
 * their bound. Reference runs: data/reference-runs/snippets/S23-db-pool-cap.md.
 */
