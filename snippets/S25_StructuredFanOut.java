///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 25
//JAVAC_OPTIONS --enable-preview --release 25
//RUNTIME_OPTIONS --enable-preview
//SOURCES ../helpers/unpinned/experiments/StructuredFanOut.java
package unpinned.snippets;

/*
 * S25: the same three-insert fan-out, when one insert fails: who stops the other two?
 * The question: one of three inserts fails at once (a duplicate key) while two are slow (SELECT pg_sleep(S) first).
 * How long until the request says it failed, and do the slow siblings still write? Three ways: structured
 * (StructuredTaskScope, JEP 505, preview in 25), futures (allOf, as the JDK 25 + JPA post), futures-cancel.
 * The bound: structured fails in about the failing insert's time (a few ms), far below S; futures at S or just
 * above; futures-cancel fast, its rows still written at S (see futuresCancel).
 * The pitfall: cancellation is an interrupt, which JDBC over a socket on a virtual thread obeys (see structured);
 * the preview API changes shape with the JDK, so this asks for exactly Java 25 and refuses --jdk 21. One JVM, one
 * database (embedded PostgreSQL; H2 if it can't start; yours with UNPINNED_DB_URL). Results go to
 * results/s25-structured-fanout/.
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
    // ---- the three implementations of one request --------------------------------------------------------------

    /**
     * Structured: the first failure cancels the scope; join() throws; close() waits for the cancelled siblings.
     * The cancel interrupts them: JDBC over a java.net.Socket on a virtual thread closes the socket (HikariCP
     * drops the broken connection), so the transaction never commits. A sibling that ignores interrupts makes
     * close() wait for it. JDK 21-24 had ShutdownOnFailure and join().throwIfFailed(); JDK 26 changes the Joiners.
     */
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

    /**
     * Fail fast by hand: the first failure cancel(true)s the others, and the request returns at once, on an
     * executor that outlives it (closing a per-request one would wait for its tasks). CompletableFuture.cancel
     * does NOT interrupt the task: the siblings run on and write their rows after the request answered "failed".
     */
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

    static final String ID = "s25-structured-fanout";
    static final List<String> IMPLS = List.of("structured", "futures", "futures-cancel");
    static final String NEEDS_25 = "needs JDK 25 exactly: StructuredTaskScope is a preview API whose shape changes"
            + " with the JDK (JDK 21-24: new StructuredTaskScope.ShutdownOnFailure() and"
            + " scope.join().throwIfFailed(); JDK 25: StructuredTaskScope.open() with Joiners, which this snippet"
            + " uses; JDK 26 changes the Joiners again), and classes compiled with --enable-preview run only on the"
            + " JDK that compiled them; run it on the course JDK 25";
    static final String ONLY_COURSE = "the structured fan-out needs JDK 25's preview API, so 21 is refused";

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
 * What you should see: structured fails in a few ms with no sibling rows written; futures after about S with every
 * row written; futures-cancel in a few ms, its siblings still writing every row at about S. Reference runs:
 * data/reference-runs/snippets/S25-structured-fanout.md.
 */
