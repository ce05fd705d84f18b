//SOURCES ../showing/Charts.java
//SOURCES ../showing/DrawnChart.java
//SOURCES ../core/Expectations.java
//SOURCES ../core/Figure.java
//SOURCES ../showing/Gantt.java
//SOURCES ../running/Jdks.java
//SOURCES ../core/Measurement.java
//SOURCES ../workloads/MountRecorder.java
//SOURCES ../core/RunGuard.java
//SOURCES ../showing/Tables.java
package unpinned.experiments;

import unpinned.workloads.MountRecorder.Segment;
import unpinned.core.Expectations;
import unpinned.core.Expectations.Line;
import unpinned.core.Figure;
import unpinned.core.Measurement;
import unpinned.core.RunGuard;
import unpinned.running.Jdks;
import unpinned.showing.Charts;
import unpinned.showing.DrawnChart;
import unpinned.showing.Gantt;
import unpinned.showing.Tables;

import tech.tablesaw.api.Table;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;

/**
 * Chapter 04's stealing, drawn where it happens: one virtual thread unparks N parked ones, which wait in the waker's
 * carrier's own queue, and the other carriers steal from it (snippet S37, alias unpark-stealing). The snippet saves a
 * {@link Run} (every segment, the queues sampled over time, the steal counter); the notebook runs it on each JDK
 * ({@link #run}), draws it and keeps it through {@link #EXPECTED}. Needs Gantt.java, Charts.java, Tables.java,
 * Jdks.java and what they need alongside.
 */
public final class UnparkStealing {
    private UnparkStealing() {}

    /** The colours of the timeline: the waker, a woken thread its own carrier ran, one another carrier took. */
    public static final String WAKER = "the waker", HOME = "woken, run by the waker's carrier",
            STOLEN = "woken, stolen by another carrier";

    /**
     * What S37 saves: the settings, the waker's carrier, every segment (the waker's and each woken thread's), the
     * queues sampled while it ran and the figures below.
     *
     * @param stealsDelta          the pool's getStealCount() after minus before (counted once every carrier was idle)
     * @param tasksOffWakerCarrier woken threads that ran on another carrier than the waker's (from the segments)
     * @param offWakerCarrierShare that over the woken threads
     * @param wakerQueueMax        the most tasks seen in the waker's carrier's own queue (ForkJoinWorkerThread
     *                             .getQueuedTaskCount())
     * @param otherQueuesMax       the most seen in the other carriers' own queues together
     * @param submissionQueueMax   the most seen in the pool's submission queues (getQueuedSubmissionCount())
     */
    public record Run(String javaVersion, int feature, int parallelism, int threads, int workUs, int sampleUs,
                      String wakerCarrier, double wakerMs, double elapsedMs, long stealsDelta, int tasksOffWakerCarrier,
                      double offWakerCarrierShare, long wakerQueueMax, long otherQueuesMax, long submissionQueueMax,
                      List<Segment> segments, List<Sample> samples) implements Measurement.Measured {
        /** The share run off the waker's carrier against (P - 1) / P: an expectation, not a bound. */
        @Override
        public List<Measurement> measurements() {
            if (parallelism < 2) return List.of();
            return List.of(Measurement.of("woken threads run off the waker's carrier · JDK " + feature + " · "
                            + parallelism + " carriers", offWakerCarrierShare, "share")
                    .bound((parallelism - 1.0) / parallelism, Measurement.Bound.ESTIMATE));
        }

        /** One line, as S37 prints it. */
        public String line() {
            return String.format(Locale.ROOT, "%,d woken in %,.1f ms (the waker %,.2f ms on %s): %,d (%.0f %%) ran on"
                    + " another carrier; the waker's queue held up to %,d, the other carriers' %,d, the submission"
                    + " queues %,d; the steal counter rose by %,d", threads, elapsedMs, wakerMs, wakerCarrier,
                    tasksOffWakerCarrier, 100 * offWakerCarrierShare, wakerQueueMax, otherQueuesMax,
                    submissionQueueMax, stealsDelta);
        }
    }

    /**
     * One sample of the pool while the woken threads ran, {@code ms} after the recording's origin: the waker's
     * carrier's own queue, the other carriers' own queues together, the submission queues, and the steal counter's
     * rise since the waker began.
     */
    public record Sample(double ms, int wakerQueue, int otherQueues, int submissions, long steals) {}

    // ---- the notebook's side ------------------------------------------------------------------------------------

    /** S37 on each JDK, oldest first, with its defaults (2,000 threads on 2 carriers). */
    public static Map<String, Run> run(List<Jdks.Jdk> jdks) {
        RunGuard.requireFresh();
        Map<String, Run> runs = new LinkedHashMap<>();
        for (Jdks.Jdk jdk : jdks) runs.put(jdk.label(), Jdks.result(jdk, Run.class, "S37_UnparkStealing.java"));
        RunGuard.requireFresh();
        return runs;
    }

    /** A segment's colour: the waker, or a woken thread on the waker's carrier or another one. */
    public static Function<Segment, String> colours(Run r) {
        return s -> s.kind().equals("waker") ? WAKER : s.carrier().equals(r.wakerCarrier()) ? HOME : STOLEN;
    }

    /** The timeline of one run: a lane per carrier, the waker first. */
    public static DrawnChart gantt(String jdk, Run r) {
        return Gantt.gantt(String.format(Locale.ROOT, "%s: one virtual thread unparks %,d; the other carrier"
                + " steals from its carrier's queue", jdk, r.threads()), r.segments(), colours(r));
    }

    /**
     * The queues over time, every run on one chart (the same time axis as the timelines): each JDK's waker's carrier's
     * own queue and the submission queues (the other carriers' own queues stay empty: the table has their maximum).
     */
    public static DrawnChart queuesChart(Map<String, Run> runs) {
        RunGuard.check("drawing a chart");
        List<Charts.Series> series = new ArrayList<>();
        runs.forEach((jdk, r) -> {
            double t0 = r.segments().stream().mapToLong(Segment::startNanos).min().orElse(0) / 1e6;
            double[] ms = r.samples().stream().mapToDouble(s -> s.ms() - t0).toArray();
            series.add(new Charts.Series(jdk + ": the waker's carrier's own queue", ms,
                    r.samples().stream().mapToDouble(Sample::wakerQueue).toArray()));
            series.add(new Charts.Series(jdk + ": submission queues", ms,
                    r.samples().stream().mapToDouble(Sample::submissions).toArray()));
        });
        return linesLegendBelow("Where the woken threads waited: tasks queued over time", "ms since the waker began",
                "tasks queued", series);
    }

    /**
     * The steal counter's rise over time against the woken threads that had ended on another carrier by then (from
     * the segments): the counter counts a task a carrier takes by scanning, not one it pops from its own queue.
     */
    public static DrawnChart stealsChart(Map<String, Run> runs) {
        RunGuard.check("drawing a chart");
        List<Charts.Series> series = new ArrayList<>();
        runs.forEach((jdk, r) -> {
            double t0 = r.segments().stream().mapToLong(Segment::startNanos).min().orElse(0) / 1e6;
            double[] ms = r.samples().stream().mapToDouble(s -> s.ms() - t0).toArray();
            // the last point: the count once every carrier was idle (JDK 21 adds a carrier's steals when its run
            // of polls from one queue ends, so its line climbs in steps)
            double[] atEnd = java.util.Arrays.copyOf(ms, ms.length + 1), steals = java.util.Arrays.copyOf(
                    r.samples().stream().mapToDouble(Sample::steals).toArray(), ms.length + 1);
            atEnd[ms.length] = ms.length == 0 ? 0 : ms[ms.length - 1] + 0.5;
            steals[ms.length] = r.stealsDelta();
            series.add(new Charts.Series(jdk + ": the pool's steal count (rise)", atEnd, steals));
            List<Segment> stolen = r.segments().stream().filter(s -> !s.kind().equals("waker")
                    && !s.carrier().equals(r.wakerCarrier())).toList();
            series.add(new Charts.Series(jdk + ": woken threads run on another carrier", ms,
                    r.samples().stream().mapToDouble(s -> stolen.stream()
                            .filter(g -> g.endNanos() / 1e6 <= s.ms()).count()).toArray()));
        });
        return linesLegendBelow("Steals counted against tasks taken from another carrier's queue", "ms since the"
                + " waker began", "tasks (cumulative)", series);
    }

    /** Lines without markers, their legend one per line below the plot (the names are long). */
    static DrawnChart linesLegendBelow(String title, String xLabel, String yLabel, List<Charts.Series> series) {
        var chart = Charts.xyChart(title, xLabel, yLabel, false, false, false, Charts.HEIGHT + 18 * series.size(),
                series.toArray(Charts.Series[]::new));
        chart.getSeriesMap().values().forEach(s -> s.setMarker(org.knowm.xchart.style.markers.SeriesMarkers.NONE));
        chart.getStyler().setLegendLayout(org.knowm.xchart.style.Styler.LegendLayout.Vertical);
        chart.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideS);
        return Charts.render(chart);
    }

    /** Per JDK: the figures {@link #EXPECTED} judges, one row each. */
    public static Table table(Map<String, Run> runs) {
        List<List<?>> rows = new ArrayList<>();
        runs.forEach((jdk, r) -> rows.add(List.of(jdk, r.threads(), r.wakerQueueMax(), r.otherQueuesMax(),
                r.submissionQueueMax(), r.tasksOffWakerCarrier(), r.stealsDelta(), String.format(Locale.ROOT,
                        "%.2f", r.offWakerCarrierShare()))));
        return Tables.of("The unpark path, per JDK", List.of("JDK", "woken threads", "waker's queue (max)",
                "other carriers' queues (max)", "submission queues (max)", "run on another carrier",
                "steal count rise", "share off the waker's carrier"), rows);
    }

    /**
     * What chapter 04 expects of the unpark path, on JDK 21 and 25 alike: a virtual thread's unpark pushes the woken
     * thread to its own carrier's queue (21: {@code switchToCarrierThread}; 25: {@code poolSubmit} reads
     * {@code currentCarrierThread}), so the woken threads pile up there while the submission queues stay empty; an idle
     * carrier steals from that queue (the source's "a carrier with nothing to do steals work from the other
     * carriers"), about (P - 1) / P of them. Each figure is taken on the JDK furthest from its line.
     */
    public static final Expectations<Map<String, Run>> EXPECTED = Expectations.<Map<String, Run>>of(
                    "04-unpark-stealing")
            .expect("woken-wait-in-the-wakers-queue", "the waker's carrier's own queue at its fullest",
                    "the woken threads", runs -> Figure.lowest(runs.values(), r -> Figure.exact(r.wakerQueueMax())
                            .over(r.threads())), Line.atLeast(0.5))
            .expect("submission-queues-stay-empty", "the submission queues at their fullest", "the woken threads",
                    runs -> Figure.highest(runs.values(), r -> Figure.exact(r.submissionQueueMax()).over(r.threads())),
                    Line.atMost(0.05))
            .expect("idle-carriers-steal", "the woken threads run off the waker's carrier", "(P - 1) / P of them",
                    runs -> Figure.lowest(stealable(runs), r -> Figure.exact(r.offWakerCarrierShare())
                            .over((r.parallelism() - 1.0) / r.parallelism())), Line.atLeast(0.5))
            .claims("sem-19")
            .untestableWhen(runs -> runs.values().stream().allMatch(r -> r.parallelism() < 2)
                    ? "one carrier: no other carrier to steal" : stealable(runs).isEmpty() ? "the woken threads did"
                    + " not wait in the waker's queue (fewer than half of them at its fullest, or the submission"
                    + " queues fuller), so running on another carrier would be no steal" : null)
            .because(runs -> String.join("; ", runs.entrySet().stream().map(e -> String.format(Locale.ROOT,
                    "%s: %,d of %,d on another carrier, the waker's queue up to %,d, the submission queues %,d",
                    e.getKey(), e.getValue().tasksOffWakerCarrier(), e.getValue().threads(),
                    e.getValue().wakerQueueMax(), e.getValue().submissionQueueMax())).toList()));

    /** Chapter 04's demonstration in its kernel: one virtual thread starts {@code tasks} short ones. */
    public record KernelSteals(int tasks, long stealsDelta) {}

    /**
     * What chapter 04 expects of the pool's steal counter in that demonstration: about one per virtual thread run
     * (the tasks and their spawner), each taken by a carrier's scan of the queues, the submission queues included
     * (JDK 25's {@code ForkJoinPool.runWorker}; JDK 21's {@code WorkQueue.topLevelExec}).
     */
    public static final Expectations<KernelSteals> STEAL_COUNTER_EXPECTED = Expectations.<KernelSteals>of(
                    "04-steal-counter")
            .expect("counts-every-run", "the pool's steal count rise", "the virtual threads run (tasks and spawner)",
                    k -> Figure.exact(k.stealsDelta()).over(k.tasks() + 1), Line.atLeast(0.9));

    // the runs whose woken threads waited in the waker's queue, on more than one carrier: where stealing can be seen
    static List<Run> stealable(Map<String, Run> runs) {
        return runs.values().stream().filter(r -> r.parallelism() > 1 && 2 * r.wakerQueueMax() >= r.threads()
                && r.wakerQueueMax() > r.submissionQueueMax()).toList();
    }
}
