//SOURCES Backpressure.java
//SOURCES ../running/Database.java
package unpinned.experiments;

import unpinned.running.Database;

import java.nio.channels.ClosedByInterruptException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;

/**
 * S25's plumbing (structured-fanout): each sibling's {@link Fate}, the failing and the slow insert, the table, the
 * wait after a request and the checks of its rows, the summary. The three implementations of a request stay in the
 * snippet (StructuredTaskScope is a preview API: this class compiles without preview features, so it names
 * StructuredTaskScope.FailedException only by its class name).
 * Needs Backpressure.java, Database.java alongside.
 */
public final class StructuredFanOut {
    private StructuredFanOut() {
    }

    /** This run's own table: another run against the same database uses one of its own. */
    public static final String TABLE = Database.runTable("s25_rows");
    static final String INSERT = "INSERT INTO " + TABLE + " (id, request_id, part) VALUES (?, ?, ?)";
    /** The key every request's failing insert tries to take: a row with it is there before any request. */
    static final long TAKEN_ID = 1;
    static final String FAILED = "java.util.concurrent.StructuredTaskScope$FailedException";

    /** What one sibling did, in its own words: its fate and when it ended, in ms from the request's start. */
    public static final class Fate {
        public final String part;
        public volatile String fate = "not started";
        public volatile String where = "";
        public volatile double endMs = Double.NaN;
        public final CountDownLatch started = new CountDownLatch(1), ended = new CountDownLatch(1);

        public Fate(String part) {
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
    public record Request(double elapsedMs, String error, List<String> fatesAtAnswer, List<Fate> fates,
                          List<String> states, long rows) {}

    /**
     * After one request of {@code impl} answered (t0: its start; error: why it failed, null if it did not): waits
     * until the siblings have ended (or S + 5 s), then counts its rows and checks them against the fates.
     */
    public static Request settle(String impl, int slowMs, DataSource db, long requestId, long t0, String error,
                                 List<Fate> fates, List<String> states) throws InterruptedException {
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
    public static int failingInsert(DataSource db, long requestId, Fate fate, long t0) throws SQLException {
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
    public static int slowInsert(DataSource db, long id, long requestId, int part, int slowMs, Fate fate, long t0)
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

    public interface SqlCall<T> {
        T call() throws SQLException;
    }

    public static <T> T unchecked(SqlCall<T> call) {
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

    public static void createTable(DataSource db) {
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE " + TABLE + " (id BIGINT PRIMARY KEY, request_id BIGINT NOT NULL,"
                    + " part INT NOT NULL)");
            s.execute("INSERT INTO " + TABLE + " (id, request_id, part) VALUES (" + TAKEN_ID + ", 0, 0)");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create the table: " + oneLine(e), e);
        }
    }

    /** A few plain inserts and a short sleep first: the JDBC path's classes are loaded before any request is timed. */
    public static void warmUp(DataSource db, AtomicLong ids) {
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

    public static Backpressure.FanOutImpl summarise(String impl, int slowMs, List<Request> requests) {
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

    /**
     * The exception in one line: through CompletionException and StructuredTaskScope.FailedException (by name:
     * this class compiles without preview features) to the cause.
     */
    public static String oneLine(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t && (t instanceof CompletionException
                || t.getClass().getName().equals(FAILED) || t.getMessage() == null)) {
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
