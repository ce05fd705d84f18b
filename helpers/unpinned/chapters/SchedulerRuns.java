package unpinned.chapters;

import unpinned.chapters.SchedulerInternals.Compensation;
import unpinned.chapters.SchedulerInternals.CompensationCase;
import unpinned.chapters.SchedulerInternals.QueuePath;
import unpinned.chapters.SchedulerInternals.Queues;
import unpinned.core.RunGuard;
import unpinned.running.Jdks;
import unpinned.showing.Charts;
import unpinned.showing.DrawnChart;
import unpinned.showing.Meaning;
import unpinned.showing.Tables;

import tech.tablesaw.api.Table;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Chapter 04's side of snippets S27 (which queue) and S28 (compensation): runs them on each JDK, draws them and
 * writes their meaning from the runs. Kept apart from {@link SchedulerInternals}, which the snippets compile, so
 * that they need neither the charts nor the JDK launcher.
 */
public final class SchedulerRuns {
    private SchedulerRuns() {}

    /** S27 on each JDK, oldest first: {@code threads} virtual threads per path on 2 carriers. */
    public static Map<String, Queues> whichQueue(List<Jdks.Jdk> jdks, int threads) {
        RunGuard.requireFresh();
        Map<String, Queues> runs = new LinkedHashMap<>();
        for (Jdks.Jdk jdk : jdks) {
            runs.put(jdk.label(), Jdks.result(jdk, Queues.class, "S27_WhichQueue.java", "--threads", "" + threads));
        }
        RunGuard.requireFresh();
        return runs;
    }

    /** Per path and JDK: the largest count seen in the submission queues and in the carriers' own queues. */
    public static DrawnChart queuesChart(Map<String, Queues> runs) {
        RunGuard.check("drawing a chart");
        List<String> paths = runs.values().iterator().next().paths().stream().map(QueuePath::path).toList();
        Map<String, double[]> series = new LinkedHashMap<>();
        runs.forEach((jdk, run) -> {
            series.put(jdk + ": submission queues", run.paths().stream().mapToDouble(QueuePath::submissionsMax)
                    .toArray());
            series.put(jdk + ": carriers' own queues", run.paths().stream().mapToDouble(QueuePath::workerQueueMax)
                    .toArray());
        });
        return Charts.groupedBars("Where runnable virtual threads waited: the largest count seen, per path",
                "tasks queued (largest sample)", paths, series, Map.of());
    }

    /** Every path's figures on every JDK, one row each (FIFO mode: {@link #fifo}). */
    public static Table queuesTable(Map<String, Queues> runs) {
        List<List<?>> rows = new ArrayList<>();
        runs.forEach((jdk, run) -> run.paths().forEach(p -> rows.add(List.of(jdk, p.path(), p.submissionsMax(),
                p.workerQueueMax(), p.steals(), p.poolSizeMax()))));
        return Tables.of("Which queue, per path and JDK (largest counts sampled)", List.of("JDK", "path",
                "submission queues", "carriers' own queues", "steals", "carriers"), rows);
    }

    /** "FIFO (async) mode: JDK 21 true, JDK 25 true", from each run's getAsyncMode(). */
    public static String fifo(Map<String, Queues> runs) {
        StringBuilder s = new StringBuilder("FIFO (async) mode, the pool's getAsyncMode():");
        runs.forEach((jdk, run) -> s.append(' ').append(jdk).append(' ').append(run.asyncMode()).append(';'));
        return s.substring(0, s.length() - 1);
    }

    /**
     * For one path on each JDK: the submission queues' share of the largest queues seen. Starts are expected at
     * 0.8 or more (they go to the submission queues), an unpark from a virtual thread at 0.2 or less.
     */
    public static List<Meaning.Outcome> queueShares(Map<String, Queues> runs, String path, boolean expectSubmission) {
        RunGuard.check("writing what the run means");
        List<Meaning.Outcome> outcomes = new ArrayList<>();
        runs.forEach((jdk, run) -> {
            QueuePath p = run.paths().stream().filter(q -> q.path().equals(path)).findFirst().orElseThrow();
            double all = Math.max(1, p.submissionsMax() + p.workerQueueMax());
            double measured = expectSubmission ? p.submissionsMax() : p.workerQueueMax();
            String where = expectSubmission ? "the submission queues" : "the carriers' own queues";
            outcomes.add(Meaning.share(where + "' share of the tasks queued on path " + path + " (" + jdk + ")",
                    measured, "all tasks queued", all, "tasks", 0.8, "the queues drain as fast as they fill:"
                            + " a larger --work-us or more --threads make them visible"));
        });
        return outcomes;
    }

    /** S28 on each JDK: {@code threads} virtual threads block {@code sleepMs} per case on one carrier. */
    public static Map<String, Compensation> compensation(List<Jdks.Jdk> jdks, int threads, int sleepMs) {
        RunGuard.requireFresh();
        Map<String, Compensation> runs = new LinkedHashMap<>();
        for (Jdks.Jdk jdk : jdks) {
            runs.put(jdk.label(), Jdks.result(jdk, Compensation.class, "S28_Compensation.java", "--threads",
                    "" + threads, "--sleep-ms", "" + sleepMs));
        }
        RunGuard.requireFresh();
        return runs;
    }

    /** Each case's time as a multiple of one sleep, a bar per JDK, against 1 x (overlap) and N x (turns). */
    public static DrawnChart compensationChart(Map<String, Compensation> runs) {
        RunGuard.check("drawing a chart");
        Compensation first = runs.values().iterator().next();
        List<String> cases = first.cases().stream().map(CompensationCase::name).toList();
        Map<String, double[]> series = new LinkedHashMap<>();
        runs.forEach((jdk, run) -> series.put(jdk, cases.stream().mapToDouble(c -> run.cases().stream()
                .filter(x -> x.name().equals(c)).mapToDouble(CompensationCase::ratioToSleep).findFirst()
                .orElse(Double.NaN)).toArray()));
        Map<String, Double> references = new LinkedHashMap<>();
        references.put("overlap: 1 x", 1.0);
        references.put("take turns: " + first.threads() + " x", (double) first.threads());
        return Charts.groupedBars(first.threads() + " virtual threads block on 1 carrier: time / one sleep",
                "time / sleep", cases, series, references);
    }

    /**
     * Every case on every JDK: time, pool size before and at most, and the pool size JDK 24+'s
     * jdk.management.VirtualThreadSchedulerMXBean reported after the case ("-" before JDK 24).
     */
    public static Table compensationTable(Map<String, Compensation> runs) {
        List<List<?>> rows = new ArrayList<>();
        runs.forEach((jdk, run) -> run.cases().forEach(c -> rows.add(List.of(jdk, c.name(), c.elapsedMs(),
                c.ratioToSleep(), c.poolSizeBefore(), c.poolSizeMax(),
                c.mxBeanPoolSizeAfter() == null ? "-" : c.mxBeanPoolSizeAfter().toString()))));
        return Tables.of("Compensation, per case and JDK", List.of("JDK", "case", "time (ms)", "time / sleep",
                "carriers before", "carriers (max)", "MXBean after"), rows);
    }

    /**
     * Per JDK: synchronized + sleep against Object.wait. JDK 21-23 pin the first and compensate the second, so it
     * takes longer (MORE); JDK 24+ unmount both (JEP 491), so the same.
     */
    public static List<Meaning.Outcome> pinnedVersusCompensated(Map<String, Compensation> runs) {
        RunGuard.check("writing what the run means");
        List<Meaning.Outcome> outcomes = new ArrayList<>();
        runs.forEach((jdk, run) -> {
            double sync = elapsed(run, "synchronized-sleep"), wait = elapsed(run, "object-wait");
            Meaning.Relation expected = run.feature() >= 24 ? Meaning.Relation.SAME : Meaning.Relation.MORE;
            outcomes.add(Meaning.compare("time for " + run.threads() + " blocked threads (" + jdk + ")",
                    "synchronized + sleep", sync, "Object.wait", wait, "ms", 0.5, expected,
                    "another process took the one carrier's core during the run: run the cell again"));
        });
        return outcomes;
    }

    private static double elapsed(Compensation run, String name) {
        return run.cases().stream().filter(c -> c.name().equals(name)).mapToDouble(CompensationCase::elapsedMs)
                .findFirst().orElseThrow(() -> new IllegalStateException("no case " + name + " in the run"));
    }
}
