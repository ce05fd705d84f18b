//SOURCES ../core/Bounds.java
//SOURCES ../experiments/OrderSweep.java
//SOURCES ../core/Results.java
package unpinned.course;

import unpinned.experiments.OrderSweep;

import com.google.gson.JsonElement;
import unpinned.core.Bounds;
import unpinned.core.Results;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.function.Function;

/**
 * Self-checks for the exercises in the notebooks. A wrong answer gets the hint, never the
 * expected value: the point is to redo the reasoning, not to copy a number.
 */
public final class Exercises {
    private Exercises() {}

    /**
     * One exercise: its title, the expected value, the relative tolerance and a hint that doesn't give it away; for a
     * "change the code, re-measure" exercise whose answer the chapter may already print, the measurement it must come
     * from.
     */
    record Answer(String title, double expected, double relTolerance, String hint, Remeasured remeasured) {
        Answer(String title, double expected, double relTolerance, String hint) {
            this(title, expected, relTolerance, hint, null);
        }
    }

    /**
     * An answer that must come from a run made after the change: the newest run of {@code experiment} saved in the
     * results folder, read by {@code measured} (empty when that run does not have the change), against which the
     * answer is judged within {@link #REMEASURED_TOLERANCE}; {@code change} names what that run must have ("3-carrier
     * batch"), {@code notYet} what to run when there is none.
     */
    record Remeasured(String experiment, Function<JsonElement, OptionalDouble> measured, String change, String notYet) {}

    /** How close an answer must be to the value its saved run measured: read off a table, rounded. */
    static final double REMEASURED_TOLERANCE = 0.05;

    // Kept here, not in the notebooks, so the self-check cell doesn't show the answers.
    private static final Map<String, Answer> ANSWERS = Map.ofEntries(
            Map.entry("01.1", new Answer("1. Little's law", 20 / 0.200, 0.01,
                    "at most P requests are in service, each for S: lambda <= min(U, P) / S")),
            Map.entry("01.2", new Answer("2. Waves", Bounds.makespanMs(1_000, 64, 20), 0.01,
                    "how many waves of 64 does it take to cover 1,000 tasks, and how long is each?")),
            Map.entry("01.3", new Answer("3. Response time", 1_000 / (20 / 0.200) * 1_000, 0.05,
                    "Little's law again: in a closed loop all U users are inside, so R = U / lambda")),
            Map.entry("01.4", new Answer("4. Predict, then measure", Bounds.makespanMs(1_000, 200, 50), 0.01,
                    "the wave bound: ceil(N / P) waves of 50 ms; the measurement should land just above it")),
            Map.entry("01.5", new Answer("5. Scale it", Bounds.makespanMs(5_000, 200, 50), 0.01,
                    "ceil(5,000 / 200) waves of 50 ms; virtual threads still need one")),
            Map.entry("01.6", new Answer("6. Change the code, re-measure", Bounds.closedLoopThroughput(500, 100, 0.100), 0.15,
                    "a measurement, so it can't beat min(U, P) / S with P = 100; did you re-run the measurement cells?")),
            Map.entry("02.1", new Answer("1. Little's law", OrderSweep.littleBound("pool", 5_000, 200), 0.01,
                    "at most P orders are in service, each for S: lambda <= min(U, P) / S")),
            Map.entry("02.2", new Answer("2. The CPU bound", OrderSweep.cpuBound(2, 250), 0.01,
                    "cores CPU-seconds per second, divided by the CPU seconds one order costs")),
            Map.entry("02.3", new Answer("3. Read a published figure", 8 / 7_900.0 * 1e6, 0.02,
                    "turn the CPU bound around: CPU per order <= cores / throughput (then into µs)")),
            Map.entry("02.4", new Answer("4. Event loops", 8 / 0.100, 0.01,
                    "each loop finishes at most one order per blocked interval")),
            Map.entry("02.5", new Answer("5. Change the code, re-measure", offloadedBound(), 0.25,
                    "a measurement can't beat (threads that may block at once) / 0.100 s; Schedulers.boundedElastic()"
                            + " caps its threads at a multiple of the cores (see its Javadoc); did the server restart"
                            + " with your change?")),
            Map.entry("03.1", new Answer("1. Bound", 2 * 50, 0.01,
                    "no task can end before its own sleeps are over, one after the other")),
            Map.entry("03.2", new Answer("2. Serial", 200 * 50, 0.01,
                    "Thread.sleep holds the only thread: nothing else runs until it returns")),
            Map.entry("03.3", new Answer("3. The floor", 500 * 50, 0.01,
                    "a sleeping platform thread leaves the CPU at least once per sleep")),
            Map.entry("03.4", new Answer("4. Change the code, re-measure", 20 * 50, 0.2,
                    "a measurement: the sleeps run one after another on one thread; did you re-run the cell"
                            + " after changing blockers?")),
            Map.entry("04.1", new Answer("1. The default", 16, 0.01,
                    "the scheduler's parallelism defaults to a number the machine tells you")),
            Map.entry("04.2", new Answer("2. The CPU bound", 400 * 5 / 2.0, 0.01,
                    "CPU time over the carriers that can run it at once (and carriers can't exceed useful cores)")),
            Map.entry("04.3", new Answer("3. No time slicing", 300 - 10, 0.05,
                    "a carrier frees only when its hog ends; when does the earliest one end, after the sleeper's due"
                            + " time?")),
            Map.entry("04.4", new Answer("4. Change the code, re-measure", carrierSpeedUp(3), 0.25,
                    "a measurement: the computing batch's 1-carrier time divided by its 3-carrier time, from the run"
                            + " you saved with List.of(1, 2, 3); more carriers than cores add no CPU",
                    new Remeasured("04-carrier-scaling", data -> savedSpeedUp(data, 1, 3), "3-carrier batch",
                            "change the list to List.of(1, 2, 3), run that cell and the next (it saves the run), then"
                                    + " enter the speed-up it measured"))),
            Map.entry("05.1", new Answer("1. Pinned turns", 5 * 100, 0.05,
                    "one carrier, and a pinned sleep keeps it: who can run while the first thread sleeps?")),
            Map.entry("05.2", new Answer("2. After JEP 491", 100, 0.1,
                    "what does a virtual thread do with its carrier when it sleeps holding a monitor on JDK 24+?")),
            Map.entry("05.3", new Answer("3. More carriers", Bounds.makespanMs(40, 4, 50), 0.05,
                    "each carrier is held for a whole query; how many rounds of 4 cover 40 threads?")),
            Map.entry("05.4", new Answer("4. Change the code, re-measure", 3, 0.15,
                    "a measurement: a static initializer still pins on JDK 25, so the threads take turns; did you"
                            + " re-run the cases after changing pinThreads?")),
            Map.entry("06.1", new Answer("1. The cap", Bounds.closedLoopThroughput(300, 25, 0.200), 0.01,
                    "at most P requests are in service, each for S: lambda <= min(U, P) / S")),
            Map.entry("06.2", new Answer("2. Response time", 300 / Bounds.closedLoopThroughput(300, 25, 0.200) * 1_000,
                    0.02, "Little's law again: in a closed loop all U users are inside, so R = U / lambda")),
            Map.entry("06.3", new Answer("3. Virtual threads", Bounds.closedLoopThroughput(300, 300, 0.200), 0.01,
                    "a virtual thread per request: how many can be in service at once?")),
            Map.entry("06.4", new Answer("4. Change the code, re-measure", Bounds.closedLoopThroughput(500, 100, 0.100),
                    0.1, "a measurement can't beat min(U, P) / S with P = 100; did you re-run the pull request's"
                            + " cells after the change?")),
            Map.entry("07.1", new Answer("1. The pool's cap", Bounds.littleThroughput(20, 0.025), 0.01,
                    "at most P queries hold a connection at once, each for q: lambda <= P / q")),
            Map.entry("07.2", new Answer("2. The wait", (300 / Bounds.littleThroughput(20, 0.025) - 0.025) * 1_000, 0.05,
                    "all U users are inside the loop: each query takes U / lambda, of which q is the query itself")),
            Map.entry("07.3", new Answer("3. The leak", 4 * 500, 0.01,
                    "a fixed pool starts a thread per task until it is full, and never ends one without shutdown()")),
            Map.entry("07.4", new Answer("4. Change the code, re-measure", Bounds.littleThroughput(20, 0.050), 0.1,
                    "a measurement can't beat P / q with P = 20; did you re-run the cells down to the table after"
                            + " the change?")),
            Map.entry("08.1", new Answer("1. Share of a time bound", Bounds.makespanMs(500, 8, 50) / 3_300.0, 0.01,
                    "the wave bound is ceil(N / P) x the sleep; for a time, the share is bound / measured")),
            Map.entry("08.2", new Answer("2. Same share, other machine", 0.99 * Bounds.closedLoopThroughput(500, 50, 0.100),
                    0.02, "the pool caps the requests in service on any machine: min(U, P) / S, whatever the cores")),
            Map.entry("10.1", new Answer("1. Samples to expect", 1.5 * 20 / 0.010, 0.01,
                    "one sample per 10 ms of CPU time: CPU seconds / the interval")),
            Map.entry("10.2", new Answer("2. Where the cut falls", 3 / 4.0, 0.02,
                    "over 500 words only the top frame comes back after the block; which samples still see run()?")),
            Map.entry("10.3", new Answer("3. Change the code, re-measure", 0, 0.05,
                    "a measurement; JFR keeps the 64 frames nearest the leaf: count the frames above run() at depth"
                            + " 70 (did you re-run the cells after the change?)")));

    /**
     * Exercise 04.4 from a saved chapter 04 run ({@link CarrierScaling} rows: "carriers", "cpuWallMs"): the computing
     * batch's time on {@code from} carriers over its time on {@code to}; empty when the run lacks either.
     */
    static OptionalDouble savedSpeedUp(JsonElement data, int from, int to) {
        OptionalDouble slow = OptionalDouble.empty(), fast = OptionalDouble.empty();
        if (data == null || !data.isJsonArray()) return OptionalDouble.empty();
        for (JsonElement row : data.getAsJsonArray()) {
            if (!row.isJsonObject() || !row.getAsJsonObject().has("carriers") || !row.getAsJsonObject().has("cpuWallMs")) continue;
            int carriers = row.getAsJsonObject().get("carriers").getAsInt();
            double ms = row.getAsJsonObject().get("cpuWallMs").getAsDouble();
            if (carriers == from) slow = OptionalDouble.of(ms);
            if (carriers == to) fast = OptionalDouble.of(ms);
        }
        return slow.isPresent() && fast.isPresent() && fast.getAsDouble() > 0
                ? OptionalDouble.of(slow.getAsDouble() / fast.getAsDouble()) : OptionalDouble.empty();
    }

    /** Exercise 04.4: a CPU-bound batch on {@code carriers} carriers can't run faster than min(carriers, cores) x. */
    static double carrierSpeedUp(int carriers) {
        return Math.min(carriers, Runtime.getRuntime().availableProcessors());
    }

    /**
     * Exercise 02.5: 100 users, the blocking 100 ms moved to Reactor's boundedElastic scheduler, whose threads are
     * capped at 10 per core: throughput <= min(users, 10 x cores) / 0.100 s, and Little's law for 110 ms orders.
     */
    static double offloadedBound() {
        int threads = 10 * Runtime.getRuntime().availableProcessors();
        return Math.min(Math.min(100, threads) / 0.100, 100 / OrderSweep.SERVICE_SECONDS);
    }

    /**
     * Checks the answer to exercise {@code id} (e.g. "01.1") against the value kept in this class and prints one
     * line: right, not yet (with a hint, never the value), or not answered yet when {@code answer} is NaN.
     * Returns nothing, so the cell shows only those lines.
     */
    public static void check(String id, double answer) {
        verdict(id, answer);
    }

    /**
     * {@link #check(String, double)}, returning whether the answer was right. Public for the worked solutions
     * (solutions/), which show that each check accepts the right answer and rejects a wrong one without being
     * able to read the expected values.
     */
    public static boolean verdict(String id, double answer) {
        Answer a = ANSWERS.get(id);
        if (a == null) throw new IllegalArgumentException("no exercise '" + id + "'; there are " + new java.util.TreeSet<>(ANSWERS.keySet()));
        return verdict(System.out, a, answer, a.remeasured() == null ? null : Results.dir());
    }

    /**
     * {@link #verdict(String, double)} with the results folder a re-measured answer is read from: such an answer is
     * judged against the value its newest saved run measured, and not at all until a run with the change is saved
     * (the chapter may print the same number before the change).
     */
    static boolean verdict(PrintStream out, Answer a, double answer, Path results) {
        Remeasured r = a.remeasured();
        if (r == null || Double.isNaN(answer)) return check(out, a.title(), answer, a.expected(), a.relTolerance(), a.hint());
        Optional<Path> saved = Results.latest(results, r.experiment());
        OptionalDouble measured = saved.map(f -> r.measured().apply(Results.read(f).get("data")))
                .orElse(OptionalDouble.empty());
        if (measured.isEmpty()) {
            out.println("✘ " + a.title() + ": not yet: " + (saved.isEmpty() ? "no " + r.experiment() + " run is saved"
                    + " yet" : "the newest saved " + r.experiment() + " run has no " + r.change()) + ": " + r.notYet());
            return false;
        }
        return check(out, a.title(), answer, measured.getAsDouble(), REMEASURED_TOLERANCE, a.hint());
    }

    /**
     * True when {@code answer} is within {@code relTolerance} (e.g. 0.05 = 5 %) of {@code expected};
     * prints one line saying right or wrong. When {@code expected} is 0 the tolerance is absolute.
     */
    public static boolean check(String name, double answer, double expected, double relTolerance, String hint) {
        return check(System.out, name, answer, expected, relTolerance, hint);
    }

    static boolean check(PrintStream out, String name, double answer, double expected, double relTolerance, String hint) {
        if (name == null || name.isBlank()) throw new IllegalArgumentException("name must be a non-blank string, got "
                + (name == null ? "null" : "'" + name + "'"));
        if (!Double.isFinite(expected)) throw new IllegalArgumentException("expected must be a finite number, got " + expected);
        if (!(relTolerance >= 0 && relTolerance <= 1)) {
            throw new IllegalArgumentException("relTolerance must be between 0 and 1 (e.g. 0.05 for 5 %), got " + relTolerance);
        }
        double allowed = expected == 0 ? relTolerance : relTolerance * Math.abs(expected);
        boolean right = Double.isFinite(answer) && Math.abs(answer - expected) <= allowed;
        String yours = String.format(Locale.ROOT, "%.6g", answer);
        if (Double.isNaN(answer)) {
            out.println("· " + name + ": not answered yet");
        } else if (right) {
            out.println("✔ " + name + ": right (" + yours + ")");
        } else {
            String why = Double.isFinite(answer) ? "not yet (your answer: " + yours + ")" : "not yet (your answer is not a finite number)";
            out.println("✘ " + name + ": " + why + (hint == null || hint.isBlank() ? "" : ". Hint: " + hint));
        }
        return right;
    }
}
