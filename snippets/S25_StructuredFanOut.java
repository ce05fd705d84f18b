///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 25
//JAVAC_OPTIONS --enable-preview --release 25
//RUNTIME_OPTIONS --enable-preview
//SOURCES ../helpers/unpinned/experiments/StructuredFanOut.java
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

import unpinned.experiments.Backpressure;
import unpinned.running.Database;
import unpinned.core.Experiment;
import unpinned.core.Protocol;
import unpinned.experiments.StructuredFanOut;
import unpinned.experiments.StructuredFanOut.Fate;
import unpinned.experiments.StructuredFanOut.Request;

import static unpinned.experiments.StructuredFanOut.createTable;
import static unpinned.experiments.StructuredFanOut.failingInsert;
import static unpinned.experiments.StructuredFanOut.slowInsert;
import static unpinned.experiments.StructuredFanOut.summarise;
import static unpinned.experiments.StructuredFanOut.unchecked;
import static unpinned.experiments.StructuredFanOut.warmUp;

import com.zaxxer.hikari.HikariDataSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.StructuredTaskScope;
import java.util.concurrent.StructuredTaskScope.Joiner;
import java.util.concurrent.StructuredTaskScope.Subtask;
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
            error = StructuredFanOut.oneLine(e);
        }
        return StructuredFanOut.settle(impl, slowMs, db, requestId, t0, error, fates, states);
    }

    public static void main(String[] args) {
        Experiment.named("S25", "one of three inserts fails: who stops the other two?", ID)
                .oneOf("--impl", "all", List.of("structured", "futures", "futures-cancel", "all"), "structured:"
                        + " StructuredTaskScope (JDK 25 preview); futures: CompletableFuture.allOf as the post;"
                        + " futures-cancel: the futures, cancel(true)-ed on the first failure; all: the three in turn")
                .count("--slow-ms", 500, 2_000, 100, 10_000, "how long each slow sibling's pg_sleep lasts before"
                        + " its insert, in ms")
                .count("--repeat", 2, 5, 1, 20, "requests per implementation")
                .text("--jdk", "course", "the course JDK (the only choice: " + ONLY_COURSE + ")")
                .check(Backpressure.courseJdk25(true, NEEDS_25, ONLY_COURSE)) // other JDKs can't load these classes
                .check(a -> Database.checkUrl())
                .takes(java.time.Duration.ofMinutes(15), a -> {
                    int impls = a.oneOf("--impl").equals("all") ? IMPLS.size() : 1, repeat = a.intCount("--repeat");
                    double slow = a.intCount("--slow-ms") / 1e3;
                    return Experiment.Time.of(Database.START_S + impls * (1 + repeat) * slow, "a database's start of"
                            + " %.0f s + %d implementation%s x (a warm-up request + %d) x at most %,.1f s", Database.START_S,
                            impls, impls == 1 ? "" : "s", repeat, slow);
                })
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
                throw new Experiment.RunFailed(StructuredFanOut.oneLine(e) + "; nothing saved");
            } finally {
                Database.dropTable(pool, StructuredFanOut.TABLE);
            }
            return new Backpressure.FanOut(slowMs, repeat, db.kind(), db.version(), results,
                    System.getProperty("java.version"), null);
        }
    }
}

/*
 * How to run:
 *   tools/jbang structured-fanout                                 (the three, 2 requests each, sleep 0.5 s)
 *   UNPINNED_PROFILE=full tools/jbang structured-fanout           (5 requests each, sleep 2 s)
 *   tools/jbang structured-fanout --impl structured --slow-ms 5000
 *   tools/jbang structured-fanout --jdk 21                        (refused: the API differs on 21-24)
 *
 * What you should see (2 cores, JDK 25, embedded PostgreSQL 17):
 *   quick profile (sleep 500 ms, 2 requests each):
 *   structured      fails after ~4-9 ms (0.01-0.02 x the sleep); 0 of 4 sibling rows; each sibling "interrupted
 *                   in pg_sleep" ~5 ms after the start; subtask states [UNAVAILABLE, UNAVAILABLE, FAILED]; the
 *                   error: FailedException <- PSQLException: duplicate key value violates unique constraint
 *   futures         fails after ~505 ms (1.01 x); 4 of 4 sibling rows written before it answered
 *   futures-cancel  fails after ~2-5 ms (0.005-0.01 x) with a CancellationException, and the siblings, still
 *                   "running" then, write 4 of 4 rows at ~504 ms
 *   Full profile (2,000 ms, 5 requests each): structured ~7 ms (0.004 x), 0 of 10 rows; futures ~2,010 ms
 *   (1.005 x), 10 of 10; futures-cancel ~4.5 ms (0.002 x), and still 10 of 10 rows at ~2,010 ms. The first
 *   structured request of a JVM took ~275 ms (class loading), hence a warm-up request per implementation.
 */
