///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 25
//JAVAC_OPTIONS --enable-preview --release 25
//RUNTIME_OPTIONS --enable-preview
//SOURCES ../helpers/unpinned/Profile.java
//SOURCES ../helpers/unpinned/Machine.java
//SOURCES ../helpers/unpinned/Course.java
//SOURCES ../helpers/unpinned/Json.java
//SOURCES ../helpers/unpinned/Results.java
//SOURCES ../helpers/unpinned/Measurement.java
//SOURCES ../helpers/unpinned/RunGuard.java
//SOURCES ../helpers/unpinned/Cli.java
//SOURCES ../helpers/unpinned/Protocol.java
//SOURCES ../helpers/unpinned/Database.java
//SOURCES ../helpers/unpinned/Experiment.java
//SOURCES ../helpers/unpinned/Measurement.java
//SOURCES ../helpers/unpinned/Backpressure.java
//SOURCES ../helpers/unpinned/Bounds.java
//SOURCES ../helpers/unpinned/ChildRun.java
//SOURCES ../helpers/unpinned/Show.java
//SOURCES ../helpers/unpinned/Published.java
package unpinned.snippets;

/*
 * S25: the same three-insert fan-out, when one insert fails: who stops the other two?
 *
 * The question: parallel-writes runs 3 inserts per request with CompletableFuture.supplyAsync and a join, as the
 * JDK 25 + JPA post did. Here one of the three fails at once (a duplicate primary key) while the other two are
 * slow (each runs SELECT pg_sleep(S), then its insert, then commits: a slow statement before the write). The
 * request has failed the moment the first insert fails. How long does it take to say so, and do the two slow
 * siblings still write their rows?
 *   structured      StructuredTaskScope.open(Joiner.awaitAllSuccessfulOrThrow()), scope.fork(...) x 3,
 *                   scope.join(): the first failure cancels the scope, which interrupts the siblings' threads;
 *                   close() waits until they have ended. JEP 505, a preview API in JDK 25.
 *   futures         3 x CompletableFuture.supplyAsync(..., a virtual-thread executor made for the request) and
 *                   CompletableFuture.allOf(...).join(), as the post's code: allOf waits for all three, so the
 *                   request fails only after S, and the siblings' rows are written.
 *   futures-cancel  the same, but on the first failure every other future is cancel(true)-ed and the request
 *                   returns at once (on an executor that outlives it; closing a per-request one would wait for
 *                   its tasks): CompletableFuture.cancel does NOT interrupt the task, so the siblings run on and
 *                   write their rows after the request has already answered "failed".
 *
 * The bounds: structured should fail in about the failing insert's time (a few ms), far below S; futures at
 * S or just above; futures-cancel fast, with the rows still written at S. The rows are counted for each request
 * after S (and a margin) has passed since it started, so a sibling that was going to write has written; each
 * sibling's fate (written, interrupted, failed, still running when the request returned) is recorded by the
 * sibling itself, with the time it ended.
 *
 * The pitfalls: cancellation is an interrupt, so a sibling stops only if what it blocks in responds to one. On a
 * virtual thread, JDBC over a java.net.Socket does: the interrupt closes the socket (the connection is then
 * broken, and HikariCP drops it). The server may run the sleep to its end, but the transaction never commits
 * (its INSERT is never sent). A sibling that ignores interrupts (a busy loop, a library that swallows them) makes
 * close() wait for it. And the API: structured concurrency is a preview API whose shape changes with the JDK:
 * JDK 21-24 have new StructuredTaskScope.ShutdownOnFailure() and scope.join().throwIfFailed(); JDK 25 has
 * StructuredTaskScope.open() with Joiners (this file); JDK 26 changes the Joiners again. Code compiled with
 * --enable-preview runs only on the JDK that compiled it, so this snippet asks JBang for exactly Java 25
 * (//JAVA 25) and refuses --jdk 21.
 *
 * One JVM, one database (embedded PostgreSQL; H2 in PostgreSQL mode if it can't start, where pg_sleep is an
 * interruptible Java sleep; your own with UNPINNED_DB_URL). Results go to results/s25-structured-fanout/.
 */

import unpinned.Backpressure;
import unpinned.Database;
import unpinned.Experiment;
import unpinned.Protocol;

import com.zaxxer.hikari.HikariDataSource;

import java.nio.channels.ClosedByInterruptException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.StructuredTaskScope;
import java.util.concurrent.StructuredTaskScope.Joiner;
import java.util.concurrent.StructuredTaskScope.Subtask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

public class S25_StructuredFanOut {
    static final String ID = "s25-structured-fanout";
    static final List<String> IMPLS = List.of("structured", "futures", "futures-cancel");
    static final String NEEDS_25 = "needs JDK 25 exactly: StructuredTaskScope is a preview API whose shape changes"
            + " with the JDK (JDK 21-24: new StructuredTaskScope.ShutdownOnFailure() and"
            + " scope.join().throwIfFailed(); JDK 25: StructuredTaskScope.open() with Joiners, which this snippet"
            + " uses; JDK 26 changes the Joiners again), and classes compiled with --enable-preview run only on the"
            + " JDK that compiled them; run it on the course JDK 25";
    static final String ONLY_COURSE = "the structured fan-out needs JDK 25's preview API, so 21 is refused";
    /** This run's own table: another run against the same database uses one of its own. */
    static final String TABLE = Database.runTable("s25_rows");
    static final String INSERT = "INSERT INTO " + TABLE + " (id, request_id, part) VALUES (?, ?, ?)";
    /** The key every request's failing insert tries to take: a row with it is there before any request. */
    static final long TAKEN_ID = 1;

    /** What one sibling did, in its own words: its fate and when it ended, in ms from the request's start. */
    static final class Fate {
        final String part;
        volatile String fate = "not started";
        volatile String where = "";
        volatile double endMs = Double.NaN;
        final CountDownLatch started = new CountDownLatch(1), ended = new CountDownLatch(1);

        Fate(String part) {
            this.part = part;
        }

        void start() {
            fate = "running";
            started.countDown();
        }

        void end(String what, String at, long requestStart) {
            fate = what;
            where = at;
            endMs = (System.nanoTime() - requestStart) / 1e6;
            ended.countDown();
        }
    }

    /** One request: how long until it answered (failed), its subtasks' fates then and at the end, its rows. */
    record Request(double elapsedMs, String error, List<String> fatesAtAnswer, List<Fate> fates, List<String> states,
                   long rows) {}

    public static void main(String[] args) {
        Experiment.named("S25", "one of three inserts fails: who stops the other two?", ID)
                .oneOf("--impl", "all", List.of("structured", "futures", "futures-cancel", "all"), "structured:"
                        + " StructuredTaskScope (JDK 25 preview); futures: CompletableFuture.allOf as the post;"
                        + " futures-cancel: the futures, cancel(true)-ed on the first failure; all: the three in turn")
                .count("--slow-ms", 1_000, 2_000, 100, 10_000, "how long each slow sibling's pg_sleep lasts before"
                        + " its insert, in ms")
                .count("--repeat", 2, 5, 1, 20, "requests per implementation")
                .text("--jdk", "course", "the course JDK (the only choice: " + ONLY_COURSE + ")")
                .check(Backpressure.courseJdk25(true, NEEDS_25, ONLY_COURSE)) // other JDKs can't load these classes
                .check(a -> Database.checkUrl())
                .run(args, S25_StructuredFanOut::measure);
    }

    /** Each implementation: a warm-up request, then --repeat requests, each counted after its siblings ended. */
    static Backpressure.FanOut measure(Experiment.Args a) throws InterruptedException {
        String impl = a.oneOf("--impl");
        List<String> impls = impl.equals("all") ? IMPLS : List.of(impl);
        int slowMs = a.intCount("--slow-ms"), repeat = a.intCount("--repeat");
        System.out.printf(Locale.ROOT, "S25: 3 inserts per request, one fails at once, two sleep %,d ms first;"
                + " %d request(s) per implementation; JDK %s%n", slowMs, repeat, Runtime.version());
        try (Database db = Database.start(System.out);
             ExecutorService shared = Executors.newVirtualThreadPerTaskExecutor()) { // futures-cancel's executor
            System.out.println("database: " + db.kind() + ", " + db.version());
            HikariDataSource pool = db.pool("s25", 12, Duration.ofSeconds(5));
            Map<String, Backpressure.FanOutImpl> results = new LinkedHashMap<>();
            try {
                createTable(pool);
                AtomicLong ids = new AtomicLong(1_000), requestIds = new AtomicLong();
                warmUp(pool, ids);
                for (String i : impls) {
                    Protocol.progress(i + ": a warm-up request (100 ms sleeps, not counted)");
                    request(i, 100, pool, shared, ids, requestIds.incrementAndGet()); // class loading, the JIT
                    List<Request> requests = new ArrayList<>();
                    for (int r = 0; r < repeat; r++) {
                        Protocol.progress(String.format(Locale.ROOT, "%s: request %d of %d", i, r + 1, repeat));
                        requests.add(request(i, slowMs, pool, shared, ids, requestIds.incrementAndGet()));
                    }
                    results.put(i, summarise(i, slowMs, requests));
                }
            } catch (IllegalStateException | IllegalArgumentException e) {
                throw new Experiment.RunFailed(oneLine(e) + "; nothing saved");
            } finally {
                Database.dropTable(pool, TABLE);
            }
            return new Backpressure.FanOut(slowMs, repeat, db.kind(), db.version(), results,
                    System.getProperty("java.version"));
        }
    }

    // ---- the three implementations of one request --------------------------------------------------------------

    /** Structured: the first failure cancels the scope; join() throws; close() waits for the cancelled siblings. */
    static void structured(DataSource db, int slowMs, AtomicLong ids, long requestId, List<Fate> fates, long t0,
                           List<String> states) throws InterruptedException {
        List<Subtask<Integer>> subtasks = new ArrayList<>();
        try (var scope = StructuredTaskScope.open(Joiner.<Integer>awaitAllSuccessfulOrThrow())) {
            subtasks.add(scope.fork(() -> slowInsert(db, ids.incrementAndGet(), requestId, 2, slowMs, fates.get(1), t0)));
            subtasks.add(scope.fork(() -> slowInsert(db, ids.incrementAndGet(), requestId, 3, slowMs, fates.get(2), t0)));
            subtasks.add(scope.fork(() -> failingInsert(db, requestId, fates.get(0), t0)));
            scope.join(); // throws StructuredTaskScope.FailedException: the duplicate key
        } finally {
            // after close(): every subtask has ended; a cancelled one stays UNAVAILABLE (it never completed)
            states.addAll(subtasks.stream().map(s -> s.state().name()).toList());
        }
    }

    /** As the post: three futures on a virtual-thread executor made (and closed) for the request, then allOf. */
    static void futures(DataSource db, int slowMs, AtomicLong ids, long requestId, List<Fate> fates, long t0) {
        try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
            List<CompletableFuture<Integer>> parts = List.of(
                    CompletableFuture.supplyAsync(() -> unchecked(() -> slowInsert(db, ids.incrementAndGet(), requestId,
                            2, slowMs, fates.get(1), t0)), ex),
                    CompletableFuture.supplyAsync(() -> unchecked(() -> slowInsert(db, ids.incrementAndGet(), requestId,
                            3, slowMs, fates.get(2), t0)), ex),
                    CompletableFuture.supplyAsync(() -> unchecked(() -> failingInsert(db, requestId, fates.get(0), t0)), ex));
            CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).join(); // waits for all three
        }
    }

    /** Fail fast by hand: the first failure cancel(true)s the others, and the request returns at once. */
    static void futuresCancel(DataSource db, int slowMs, AtomicLong ids, long requestId, List<Fate> fates, long t0,
                              ExecutorService shared) {
        List<CompletableFuture<Integer>> parts = List.of(
                CompletableFuture.supplyAsync(() -> unchecked(() -> slowInsert(db, ids.incrementAndGet(), requestId, 2,
                        slowMs, fates.get(1), t0)), shared),
                CompletableFuture.supplyAsync(() -> unchecked(() -> slowInsert(db, ids.incrementAndGet(), requestId, 3,
                        slowMs, fates.get(2), t0)), shared),
                CompletableFuture.supplyAsync(() -> unchecked(() -> failingInsert(db, requestId, fates.get(0), t0)), shared));
        for (CompletableFuture<Integer> p : parts) {
            p.whenComplete((r, e) -> {
                if (e != null) parts.forEach(other -> other.cancel(true)); // true: "may interrupt": it does not
            });
        }
        CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new)).join(); // cancelled: throws at once
    }

    /** Runs one request of {@code impl}; waits until the siblings have ended (or S + 5 s), then counts its rows. */
    static Request request(String impl, int slowMs, HikariDataSource db, ExecutorService shared, AtomicLong ids,
                           long requestId) throws InterruptedException {
        List<Fate> fates = List.of(new Fate("failing insert"), new Fate("slow insert 2"), new Fate("slow insert 3"));
        List<String> states = new ArrayList<>();
        String error = null;
        long t0 = System.nanoTime();
        try {
            switch (impl) {
                case "structured" -> structured(db, slowMs, ids, requestId, fates, t0, states);
                case "futures" -> futures(db, slowMs, ids, requestId, fates, t0);
                case "futures-cancel" -> futuresCancel(db, slowMs, ids, requestId, fates, t0, shared);
                default -> throw new IllegalArgumentException("no implementation " + impl);
            }
        } catch (StructuredTaskScope.FailedException | CompletionException | java.util.concurrent.CancellationException e) {
            error = oneLine(e);
        }
        double elapsedMs = (System.nanoTime() - t0) / 1e6;
        List<String> atAnswer = fates.stream().map(f -> f.fate).toList();
        if (error == null) throw new IllegalStateException(impl + ": the request did not fail, but its first insert"
                + " takes a key that is already there");
        for (Fate f : fates) { // a sibling still running (futures-cancel) writes or fails on its own
            // A future cancelled before its task began never runs it (CompletableFuture checks that first).
            if (!f.started.await(500, TimeUnit.MILLISECONDS) && f.fate.equals("not started")) continue;
            if (!f.ended.await(slowMs + 5_000L, TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(impl + ": " + f.part + " did not end within the sleep + 5 s");
            }
        }
        long waitMs = slowMs + 300 - (long) ((System.nanoTime() - t0) / 1e6); // the sleep has surely ended by then
        if (waitMs > 0) Thread.sleep(waitMs);
        if (impl.equals("structured") && !fates.get(1).fate.equals("interrupted")) {
            // the server's backend may still be in pg_sleep: its transaction can only roll back, but count after it
            Thread.sleep(slowMs);
        }
        long rows = countRows(db, requestId);
        requireOnlyTheDuplicateKey(impl, fates, rows);
        return new Request(elapsedMs, error, atAnswer, fates, states, rows);
    }

    /**
     * The one error the experiment expects is the failing insert's duplicate key. Any other (a sibling that failed
     * rather than being interrupted) ends the run, which then saves nothing; so do rows that contradict what the
     * siblings said they did (a sibling that wrote left its row; no more than the two siblings' rows).
     */
    static void requireOnlyTheDuplicateKey(String impl, List<Fate> fates, long rows) {
        Fate failing = fates.get(0);
        if (!failing.fate.equals("failed") || !failing.where.startsWith("SQLState 23505")) {
            throw new IllegalStateException(impl + ": the failing insert ended '" + failing.fate + "' ("
                    + failing.where + "), not with the duplicate key it was meant to hit");
        }
        long written = 0;
        for (Fate f : fates.subList(1, 3)) {
            if (f.fate.equals("failed")) {
                throw new IllegalStateException(impl + ": " + f.part + " failed in " + f.where + ", an error the"
                        + " experiment did not expect");
            }
            if (f.fate.equals("written")) written++;
        }
        if (rows < written || rows > 2) {
            throw new IllegalStateException(String.format(Locale.ROOT, "%s: the table holds %d rows of the request,"
                    + " but %d of its 2 siblings said they wrote one", impl, rows, written));
        }
    }

    // ---- the inserts -------------------------------------------------------------------------------------------

    /** Takes the key that is already there: fails at once with a duplicate-key error. */
    static int failingInsert(DataSource db, long requestId, Fate fate, long t0) throws SQLException {
        fate.start();
        try (Connection c = db.getConnection();
             PreparedStatement ps = c.prepareStatement(INSERT)) {
            ps.setLong(1, TAKEN_ID);
            ps.setLong(2, requestId);
            ps.setInt(3, 1);
            int n = ps.executeUpdate();
            fate.end("written", "commit", t0); // never: the key is taken
            return n;
        } catch (SQLException | RuntimeException e) {
            fate.end("failed", sqlState(e), t0);
            throw e;
        }
    }

    /** A slow write: SELECT pg_sleep(S), then the insert, then commit, in one transaction. */
    static int slowInsert(DataSource db, long id, long requestId, int part, int slowMs, Fate fate, long t0)
            throws SQLException {
        fate.start();
        String where = "getting a connection";
        try (Connection c = db.getConnection()) {
            c.setAutoCommit(false);
            where = "pg_sleep";
            try (PreparedStatement sleep = c.prepareStatement("SELECT pg_sleep(?)")) {
                sleep.setDouble(1, slowMs / 1000.0);
                sleep.execute();
            }
            where = "the insert";
            int n;
            try (PreparedStatement ps = c.prepareStatement(INSERT)) {
                ps.setLong(1, id);
                ps.setLong(2, requestId);
                ps.setInt(3, part);
                n = ps.executeUpdate();
            }
            where = "commit";
            c.commit();
            fate.end("written", where, t0);
            return n;
        } catch (SQLException | RuntimeException e) {
            boolean interrupted = Thread.currentThread().isInterrupted() || causedByInterrupt(e);
            fate.end(interrupted ? "interrupted" : "failed", where + (interrupted ? "" : ", " + sqlState(e)), t0);
            throw e;
        }
    }

    interface SqlCall<T> {
        T call() throws SQLException;
    }

    static <T> T unchecked(SqlCall<T> call) {
        try {
            return call.call();
        } catch (SQLException e) {
            throw new CompletionException(e);
        }
    }

    static boolean causedByInterrupt(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof InterruptedException || t instanceof ClosedByInterruptException) return true;
            if (t.getMessage() != null && t.getMessage().contains("Closed by interrupt")) return true;
        }
        return false;
    }

    static String sqlState(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SQLException s && s.getSQLState() != null) {
                return "SQLState " + s.getSQLState() + (s.getSQLState().equals("23505") ? ", duplicate key" : "");
            }
        }
        return e.getClass().getSimpleName();
    }

    // ---- the table and the summary -----------------------------------------------------------------------------

    static void createTable(DataSource db) {
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + TABLE + " (id BIGINT PRIMARY KEY, request_id BIGINT NOT NULL,"
                    + " part INT NOT NULL)");
            s.execute("INSERT INTO " + TABLE + " (id, request_id, part) VALUES (" + TAKEN_ID + ", 0, 0)");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create the table: " + oneLine(e), e);
        }
    }

    /** A few plain inserts and a short sleep first: the JDBC path's classes are loaded before any request is timed. */
    static void warmUp(DataSource db, AtomicLong ids) {
        try (Connection c = db.getConnection();
             PreparedStatement sleep = c.prepareStatement("SELECT pg_sleep(0.001)");
             PreparedStatement ps = c.prepareStatement(INSERT)) {
            for (int i = 0; i < 20; i++) {
                sleep.execute();
                ps.setLong(1, ids.incrementAndGet());
                ps.setLong(2, 0);
                ps.setInt(3, 0);
                ps.executeUpdate();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("the warm-up failed: " + oneLine(e), e);
        }
    }

    static long countRows(DataSource db, long requestId) {
        try (Connection c = db.getConnection();
             PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM " + TABLE + " WHERE request_id = ?")) {
            ps.setLong(1, requestId);
            try (ResultSet r = ps.executeQuery()) {
                r.next();
                return r.getLong(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("cannot count the rows: " + oneLine(e), e);
        }
    }

    static Backpressure.FanOutImpl summarise(String impl, int slowMs, List<Request> requests) {
        double[] elapsed = requests.stream().mapToDouble(Request::elapsedMs).sorted().toArray();
        double median = elapsed[elapsed.length / 2];
        long rows = requests.stream().mapToLong(Request::rows).sum();
        Map<String, Long> fatesAtAnswer = new TreeMap<>(), fates = new TreeMap<>(), detail = new TreeMap<>();
        double siblingEndMax = 0;
        for (Request r : requests) {
            for (int i = 1; i < 3; i++) { // the two siblings of the failing insert
                Fate f = r.fates().get(i);
                fatesAtAnswer.merge(r.fatesAtAnswer().get(i), 1L, Long::sum);
                fates.merge(f.fate, 1L, Long::sum);
                detail.merge(f.fate.equals("interrupted") || f.fate.equals("failed") ? f.fate + " in " + f.where
                        : f.fate, 1L, Long::sum);
                if (!Double.isNaN(f.endMs)) siblingEndMax = Math.max(siblingEndMax, f.endMs);
            }
        }
        Request last = requests.get(requests.size() - 1);
        System.out.printf(Locale.ROOT, "%-15s request failed after %,.1f ms (median of %d; %.3f x the %,d ms sleep);"
                        + " rows the siblings wrote: %d of %d; siblings when it answered: %s, in the end: %s"
                        + " (the last ended %,.0f ms after the start)%s%n", impl, median, elapsed.length,
                median / slowMs, slowMs, rows, 2 * requests.size(), fatesAtAnswer, detail, siblingEndMax,
                last.states().isEmpty() ? "" : "; subtask states " + last.states());
        System.out.println("                error: " + last.error());
        return new Backpressure.FanOutImpl(round(median, 2), Arrays.stream(elapsed).map(v -> round(v, 2)).boxed()
                .toList(), round(median / slowMs, 4), requests.size(), (int) rows, 2 * requests.size(),
                fatesAtAnswer, fates, detail, round(siblingEndMax, 1), last.states(), last.error());
    }

    static String oneLine(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t && (t instanceof CompletionException
                || t instanceof StructuredTaskScope.FailedException || t.getMessage() == null)) {
            t = t.getCause();
        }
        String m = (e == t ? "" : e.getClass().getSimpleName() + " <- ") + t.getClass().getSimpleName() + ": "
                + (t.getMessage() == null ? "" : t.getMessage());
        m = m.replaceAll("\\s+", " ").strip();
        return m.length() > 240 ? m.substring(0, 237) + "..." : m;
    }

    static double round(double v, int decimals) {
        if (Double.isNaN(v) || Double.isInfinite(v)) return v;
        double f = Math.pow(10, decimals);
        return Math.round(v * f) / f;
    }
}

/*
 * How to run:
 *   tools/jbang structured-fanout                                 (the three, 2 requests each, sleep 1 s)
 *   UNPINNED_PROFILE=full tools/jbang structured-fanout           (5 requests each, sleep 2 s)
 *   tools/jbang structured-fanout --impl structured --slow-ms 5000
 *   tools/jbang structured-fanout --jdk 21                        (refused: the API differs on 21-24)
 *
 * What you should see (2 cores, JDK 25, embedded PostgreSQL 17):
 *   quick profile (sleep 1,000 ms, 2 requests each):
 *   structured      fails after ~4-9 ms (0.005-0.009 x the sleep); 0 of 4 sibling rows; each sibling "interrupted
 *                   in pg_sleep" ~5 ms after the start; subtask states [UNAVAILABLE, UNAVAILABLE, FAILED]; the
 *                   error: FailedException <- PSQLException: duplicate key value violates unique constraint
 *   futures         fails after ~1,005 ms (1.005 x); 4 of 4 sibling rows written before it answered
 *   futures-cancel  fails after ~2 ms (0.002-0.003 x) with a CancellationException, and the siblings, still
 *                   "running" then, write 4 of 4 rows at ~1,004 ms
 *   Full profile (2,000 ms, 5 requests each): structured ~7 ms (0.004 x), 0 of 10 rows; futures ~2,010 ms
 *   (1.005 x), 10 of 10; futures-cancel ~4.5 ms (0.002 x), and still 10 of 10 rows at ~2,010 ms. The first
 *   structured request of a JVM took ~275 ms (class loading), hence a warm-up request per implementation.
 */
