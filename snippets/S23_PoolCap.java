///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/experiments/Backpressure.java
//SOURCES ../helpers/unpinned/running/Database.java
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
 * Counted in a window of W seconds a connection can finish floor(W / q) + 1 queries, so the figure may sit that
 * edge above P / q (the "ceiling"), never more. Beyond U = P more users add only waiting.
 *
 * The pitfall: a thread pool used to queue the extra work in front of the database; with a virtual thread per
 * user every one of them waits IN the pool, and HikariCP lets each wait connectionTimeout (500 ms here), then
 * throws SQLTransientConnectionException: the database is as busy as it can be and many users get errors
 * (virtual threads bring no backpressure of their own). Worse, HikariCP's queue is not first come, first served
 * (a user asking again at once takes a returned connection first: barging), so a few users get every query and
 * the rest time out again and again: count the users with no query done, not the mean wait. Guards (--guard):
 *   none       every user asks the pool directly: P / q, and timeouts once users outnumber the pool enough;
 *   semaphore  a fair Semaphore(P) in front of the pool (no timeout): the same throughput and no timeouts;
 *              the wait moves to the semaphore, it doesn't go away (Little's law again);
 *   bulkhead   a slow downstream (pg_sleep(10 q), U users) shares the pool with P/2 fast users. Unguarded ("mixed")
 *              the fast queries lose throughput and calls time out by the hundred; a bulkhead (a fair
 *              Semaphore(P/2) around the slow call, tryAcquire for one fast query's time, then turned away) keeps
 *              P/2 connections for the fast users: fast at (P/2) / q with no timeouts, slow capped at (P/2) / 10 q.
 * Bounded: each level is warm-up + window; a user starts no query after the window and runs a bounded count; a
 * level whose users haven't ended a minute after it fails. The database starts and stops in this JVM; if the
 * embedded PostgreSQL can't start here, H2 in PostgreSQL mode stands in (one line says so).
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
    static final int MAX_USERS = 10_000, MAX_LEVELS = 12;
    static final String SQL = "SELECT pg_sleep(?)";

    /** One user: queries back to back until the window ends, at most maxQueries of them. */
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

    /** One level of one run: start the users, sample the queues over the window, wait for the users, add up. */
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
