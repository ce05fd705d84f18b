//SOURCES ../showing/Charts.java
//SOURCES ../showing/DrawnChart.java
//SOURCES ../core/Expectations.java
//SOURCES ../core/Figure.java
//SOURCES ../running/Jdks.java
//SOURCES ../core/RunGuard.java
//SOURCES SchedulerInternals.java
//SOURCES ../showing/Tables.java
package unpinned.experiments;

import unpinned.experiments.SchedulerInternals.Compensation;
import unpinned.experiments.SchedulerInternals.CompensationCase;
import unpinned.experiments.SchedulerInternals.QueuePath;
import unpinned.experiments.SchedulerInternals.SweepStep;
import unpinned.experiments.SchedulerInternals.Queues;
import unpinned.core.Expectations;
import unpinned.core.Expectations.Line;
import unpinned.core.Figure;
import unpinned.core.RunGuard;
import unpinned.running.Jdks;
import unpinned.showing.Charts;
import unpinned.showing.DrawnChart;
import unpinned.showing.Tables;

import tech.tablesaw.api.Table;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Chapter 04's side of snippets S27 (which queue) and S28 (compensation): runs them on each JDK, draws them and
 * declares what the chapter expects of them ({@link #WHICH_QUEUE_EXPECTED}, {@link #COMPENSATION_EXPECTED},
 * {@link #SWEEP_EXPECTED}), which the seminar judges the same way. Kept apart from
 * {@link SchedulerInternals}, which the snippets compile, so that they need neither the charts nor the JDK launcher.
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
     * What chapter 04 expects of the queues (JDK 21 and 25 alike): a start waits in a submission queue, even from a
     * virtual thread (the pool pushes to a worker's own queue only when the caller is that worker's thread, and a
     * virtual thread is not); an unpark from a virtual thread waits in its carrier's own queue. The seminar write-up
     * says a start goes to a carrier's own queue: that claim is held against the JDK closest to it, so it stands if
     * either JDK bears it out. The chapter's own figures are taken on the JDK furthest from their lines.
     */
    public static final Expectations<Map<String, Queues>> WHICH_QUEUE_EXPECTED = Expectations.<Map<String, Queues>>of(
                    "04-which-queue")
            .expect("virtual-starts-go-to-a-carriers-queue", "starts from a virtual thread: the carriers' own queues'"
                    + " share", "all tasks queued", runs -> Figure.highest(runs.values(), q -> share(q, "start-virtual",
                    false)), Line.atLeast(0.5))
            .claims("sem-17")
            .untestableWhen(runs -> nothingQueued(runs, "start-virtual"))
            .expect("platform-starts-wait-in-submission-queues", "starts from a platform thread: the submission"
                    + " queues' share", "all tasks queued", runs -> Figure.lowest(runs.values(), q -> share(q,
                    "start-platform", true)), Line.atLeast(0.8))
            .untestableWhen(runs -> nothingQueued(runs, "start-platform"))
            .expect("unparks-wait-in-the-carriers-queue", "unparks from a virtual thread: the carriers' own queues'"
                    + " share", "all tasks queued", runs -> Figure.lowest(runs.values(), q -> share(q, "unpark-virtual",
                    false)), Line.atLeast(0.8))
            .claims("sem-18")
            .untestableWhen(runs -> nothingQueued(runs, "unpark-virtual"));

    static QueuePath path(Queues q, String path) {
        return q.paths().stream().filter(p -> p.path().equals(path)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no path " + path + " in the run"));
    }

    // the submission queues' (or the carriers' own queues') largest count over both largest counts of the path
    static Figure share(Queues q, String path, boolean submission) {
        QueuePath p = path(q, path);
        return Figure.exact(submission ? p.submissionsMax() : p.workerQueueMax())
                .over(p.submissionsMax() + p.workerQueueMax());
    }

    private static String nothingQueued(Map<String, Queues> runs, String path) {
        List<String> empty = runs.entrySet().stream().filter(e -> path(e.getValue(), path).workerQueueMax()
                + path(e.getValue(), path).submissionsMax() == 0).map(Map.Entry::getKey).toList();
        return empty.isEmpty() ? null : "nothing was seen queued on path " + path + " on " + String.join(", ", empty)
                + ": the queues drained as fast as they filled (a larger --work-us or more --threads make them"
                + " visible)";
    }

    /** S28's cases on each JDK: {@code threads} virtual threads block {@code sleepMs} per case on one carrier. */
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
        runs.forEach((jdk, run) -> run.cases().forEach(c -> rows.add(List.of(jdk, c.name(), c.blockedAtOnce(),
                c.elapsedMs(), c.ratioToSleep(), c.poolSizeBefore(), c.poolSizeMax(),
                c.mxBeanPoolSizeAfter() == null ? "-" : c.mxBeanPoolSizeAfter().toString()))));
        return Tables.of("Compensation, per case and JDK", List.of("JDK", "case", "blocked at once", "time (ms)",
                "time / sleep", "carriers before", "carriers (max)", "MXBean after"), rows);
    }

    /**
     * Per case and JDK: the most threads inside the blocking call at once, against all of them (each blocked one has
     * a carrier, or needs none) and the carriers (the call holds its carrier and no spare comes).
     */
    public static DrawnChart blockedAtOnceChart(Map<String, Compensation> runs) {
        RunGuard.check("drawing a chart");
        Compensation first = runs.values().iterator().next();
        List<String> cases = first.cases().stream().map(CompensationCase::name).toList();
        Map<String, double[]> series = new LinkedHashMap<>();
        runs.forEach((jdk, run) -> series.put(jdk, cases.stream().mapToDouble(c -> run.cases().stream()
                .filter(x -> x.name().equals(c)).mapToDouble(CompensationCase::blockedAtOnce).findFirst()
                .orElse(Double.NaN)).toArray()));
        Map<String, Double> references = new LinkedHashMap<>();
        references.put("each its own carrier, or none needed: " + first.threads(), (double) first.threads());
        references.put("held, no spare: " + first.parallelism(), (double) first.parallelism());
        return Charts.groupedBars(first.threads() + " virtual threads block on " + first.parallelism() + " carrier"
                + (first.parallelism() == 1 ? "" : "s") + ": how many were in the blocking call at once",
                "threads blocked at once", cases, series, references);
    }

    /**
     * What chapter 04 expects of the cases on one carrier (threads blocked at once, against the carriers), from the JDK
     * sources: a case that unmounts, or that the pool compensates with a spare carrier, lets every thread into its
     * blocking call at once; a case that holds its carrier with no spare lets in one per carrier. A sleep,
     * {@code Object.wait} (21: {@code Blocker}, a spare; 24+: it unmounts) and a child's pipe ({@code Blocker} on
     * both) overlap everywhere; {@code synchronized} + sleep pins before JDK 24 and unmounts from 24 (JEP 491); a FIFO
     * read through {@code FileInputStream} gets a spare on 21 and none on 25.
     */
    public static final Expectations<Map<String, Compensation>> COMPENSATION_EXPECTED =
            Expectations.<Map<String, Compensation>>of("04-compensation")
                    .expect("unmounted-or-compensated-overlap", "the case expected to overlap with the fewest in its"
                            + " call at once", "the carriers", runs -> Figure.lowest(cases(runs, true),
                            c -> Figure.exact(c.blockedAtOnce()).over(c.parallelism())), Line.atLeast(2))
                    .untestableWhen(runs -> cases(runs, true).isEmpty() ? "no case expected to overlap ran" : null)
                    .because(runs -> expectedCases(runs, true))
                    .expect("held-without-a-spare-takes-turns", "the case expected to take turns with the most in its"
                            + " call at once", "the carriers", runs -> Figure.highest(cases(runs, false),
                            c -> Figure.exact(c.blockedAtOnce()).over(c.parallelism())), Line.atMost(1))
                    .untestableWhen(runs -> cases(runs, false).isEmpty() ? "no case on these JDKs holds its carrier"
                            + " without a spare" : null)
                    .because(runs -> expectedCases(runs, false));

    /** One case of one JDK's run, with that run's settings. */
    record JdkCase(String jdk, int feature, int parallelism, int threads, String name, int blockedAtOnce) {}

    // true for the cases expected to overlap on their JDK, false for those expected to take turns
    static boolean overlaps(int feature, String name) {
        return switch (name) {
            case "synchronized-sleep" -> feature >= 24;
            case "file-read" -> feature < 25;
            default -> true; // none, object-wait, process-read
        };
    }

    static List<JdkCase> cases(Map<String, Compensation> runs, boolean overlap) {
        List<JdkCase> out = new ArrayList<>();
        runs.forEach((jdk, run) -> run.cases().stream().filter(c -> overlaps(run.feature(), c.name()) == overlap)
                .forEach(c -> out.add(new JdkCase(jdk, run.feature(), run.parallelism(), run.threads(), c.name(),
                        c.blockedAtOnce()))));
        return out;
    }

    private static String expectedCases(Map<String, Compensation> runs, boolean overlap) {
        Map<String, List<String>> byJdk = new LinkedHashMap<>();
        for (JdkCase c : cases(runs, overlap)) {
            byJdk.computeIfAbsent(c.jdk(), k -> new ArrayList<>()).add(c.name() + " " + c.blockedAtOnce() + " of "
                    + c.threads());
        }
        return "in their call at once: " + String.join("; ", byJdk.entrySet().stream().map(e -> e.getKey() + " "
                + String.join(", ", e.getValue())).toList());
    }

    /**
     * S28's sweep on each JDK, oldest first, each with the JDK's default minRunnable and then with {@code raised}:
     * N = 1.. threads block {@code sleepMs} in a pipe read on {@code carriers} carriers kept busy by spinners. Keyed
     * "JDK 21 · minRunnable 2 (default)".
     */
    public static Map<String, Compensation> compensationSweep(List<Jdks.Jdk> jdks, int carriers, int raised,
                                                              int sleepMs) {
        RunGuard.requireFresh();
        Map<String, Compensation> runs = new LinkedHashMap<>();
        for (Jdks.Jdk jdk : jdks) {
            for (Integer min : Arrays.asList(null, raised)) {
                List<String> args = new ArrayList<>(List.of("--mode", "sweep", "--carriers", "" + carriers,
                        "--sleep-ms", "" + sleepMs));
                if (min != null) args.addAll(List.of("--min-runnable", "" + min));
                Compensation run = Jdks.result(jdk, Compensation.class, "S28_Compensation.java",
                        args.toArray(String[]::new));
                runs.put(sweepLabel(jdk.label(), run), run);
            }
        }
        RunGuard.requireFresh();
        return runs;
    }

    static String sweepLabel(String jdk, Compensation run) {
        return jdk + " · minRunnable " + run.minRunnable() + (run.minRunnableSet() == null ? " (default)" : "");
    }

    /**
     * The pool's size against N, a point per run (the JDKs a hair apart, so both stay visible), and the rule as a
     * line per minRunnable: P + max(0, N - (P - minRunnable)), ForkJoinPool.tryCompensate.
     */
    public static DrawnChart sweepChart(Map<String, Compensation> runs) {
        RunGuard.check("drawing a chart");
        Compensation first = runs.values().iterator().next();
        int p = first.parallelism();
        List<Charts.Series> lines = new ArrayList<>(), points = new ArrayList<>();
        Map<Integer, Boolean> drawn = new LinkedHashMap<>();
        List<String> jdks = runs.values().stream().map(r -> "JDK " + r.feature()).distinct().toList();
        runs.forEach((label, run) -> {
            double[] n = run.sweep().stream().mapToDouble(SweepStep::threads).toArray();
            if (drawn.putIfAbsent(run.minRunnable(), true) == null) {
                lines.add(new Charts.Series(String.format(Locale.ROOT, "tryCompensate's rule, minRunnable %d: %d +"
                        + " max(0, N - %d)", run.minRunnable(), p, p - run.minRunnable()), n,
                        run.sweep().stream().mapToDouble(SweepStep::expected).toArray()));
            }
            double shift = 0.08 * (jdks.indexOf("JDK " + run.feature()) - (jdks.size() - 1) / 2.0);
            points.add(new Charts.Series(label, Arrays.stream(n).map(x -> x + shift).toArray(),
                    run.sweep().stream().mapToDouble(SweepStep::poolSizeMax).toArray()));
        });
        List<Charts.Series> all = new ArrayList<>(lines);
        all.addAll(points);
        var chart = Charts.xyChart(String.format(Locale.ROOT, "Carriers while N threads block in a pipe read and every"
                + " one of the %d is busy: measured against the rule", p), "threads blocked at once (N)",
                "carriers in the pool (most seen)", false, false, false, Charts.HEIGHT + 18 * all.size(),
                all.toArray(Charts.Series[]::new));
        for (Charts.Series line : lines) chart.getSeriesMap().get(line.name()).setMarker(SeriesMarkers.NONE);
        for (Charts.Series point : points) {
            var dots = chart.getSeriesMap().get(point.name());
            dots.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
            dots.setMarker(SeriesMarkers.CIRCLE);
        }
        var styler = chart.getStyler();
        styler.setMarkerSize(9);
        styler.setLegendLayout(Styler.LegendLayout.Vertical);
        styler.setLegendPosition(Styler.LegendPosition.OutsideS);
        double nMax = runs.values().stream().flatMap(r -> r.sweep().stream()).mapToInt(SweepStep::threads).max()
                .orElse(1);
        styler.setXAxisMin(0.0); // whole numbers of threads: an axis from 0 to one past the most gets whole ticks
        styler.setXAxisMax(nMax + 1);
        styler.setyAxisTickLabelsFormattingFunction(v -> v == Math.rint(v) ? String.valueOf(Math.round(v)) : "");
        return Charts.render(chart);
    }

    /** Every step of every sweep: N, the pool before and at most, the rule, the blockers in their read at once. */
    public static Table sweepTable(Map<String, Compensation> runs) {
        List<List<?>> rows = new ArrayList<>();
        runs.forEach((label, run) -> run.sweep().forEach(st -> rows.add(List.of(label, st.threads(),
                st.poolSizeBefore(), st.poolSizeMax(), st.expected(), st.blockedAtOnce()))));
        return Tables.of("The sweep: " + runs.values().iterator().next().parallelism() + " busy carriers, N blocked",
                List.of("JDK · minRunnable", "N blocked", "carriers before", "carriers (max)",
                        "P + max(0, N - (P - minRunnable))", "in their read at once"), rows);
    }

    /**
     * What chapter 04 expects of the sweep, JDK 21 and 25 alike ({@code ForkJoinPool.tryCompensate}): with every
     * carrier busy, each managed block first only lowers the count of active carriers while more than minRunnable
     * stay active, and past that starts one spare; so the pool holds P + max(0, N - (P - minRunnable)) carriers for N
     * blocked, never more, and with B of them in their read at once at least P + max(0, B - (P - minRunnable)).
     */
    public static final Expectations<Map<String, Compensation>> SWEEP_EXPECTED =
            Expectations.<Map<String, Compensation>>of("04-compensation-sweep")
                    .expect("never-above-the-rule", "the step furthest above P + max(0, N - (P - minRunnable))",
                            "that rule", runs -> Figure.highest(steps(runs), st -> Figure.exact(st.step().poolSizeMax())
                                    .over(st.step().expected())), Line.atMost(1))
                    .expect("a-spare-per-block-past-min-runnable", "the step furthest below the rule for the blockers"
                            + " in their read at once", "P + max(0, B - (P - minRunnable))", runs -> Figure.lowest(
                            steps(runs), st -> Figure.exact(st.step().poolSizeMax()).over(st.reached())),
                            Line.atLeast(1))
                    .because(runs -> String.join("; ", runs.entrySet().stream().map(e -> e.getKey() + ": "
                            + String.join(", ", e.getValue().sweep().stream().map(st -> st.poolSizeMax() + "/"
                            + st.expected()).toList())).toList()) + " (carriers / the rule, N = 1, 2, ...)");

    /** One step of one run, with what the rule gives for the blockers that were in their read at once. */
    record RunStep(SweepStep step, int reached) {}

    static List<RunStep> steps(Map<String, Compensation> runs) {
        List<RunStep> out = new ArrayList<>();
        runs.values().forEach(run -> run.sweep().forEach(st -> out.add(new RunStep(st, run.parallelism()
                + Math.max(0, st.blockedAtOnce() - (run.parallelism() - run.minRunnable()))))));
        if (out.isEmpty()) throw new IllegalArgumentException("no sweep step in " + runs.keySet());
        return out;
    }
}
