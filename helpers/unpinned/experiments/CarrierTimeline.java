//SOURCES ../showing/Charts.java
//SOURCES ../running/ChildRun.java
//SOURCES ../core/Expectations.java
//SOURCES ../core/Experiment.java
//SOURCES ../core/Figure.java
//SOURCES ../showing/Gantt.java
//SOURCES ../core/Measurement.java
//SOURCES ../workloads/MountRecorder.java
//SOURCES ../core/Protocol.java
//SOURCES ../core/Results.java
//SOURCES ../core/RunGuard.java
//SOURCES Timeline.java
package unpinned.experiments;

import unpinned.core.Experiment;
import unpinned.core.Expectations;
import unpinned.core.Expectations.Line;
import unpinned.core.Figure;
import unpinned.core.Measurement;
import unpinned.core.Protocol;
import unpinned.core.Results;
import unpinned.core.RunGuard;
import unpinned.running.ChildRun;
import unpinned.showing.Charts;
import unpinned.showing.Gantt;
import unpinned.workloads.MountRecorder;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Function;

import unpinned.workloads.MountRecorder.Segment;
import unpinned.workloads.MountRecorder.Spawn;

/**
 * Snippet S12 (alias carrier-timeline): which carrier ran which virtual thread, when, in two scenarios (one spawner
 * starting many short tasks; sleepers that hop). The snippet records with {@link MountRecorder} and saves a
 * {@link Run} with its Gantt charts; chapter 04 reads the run typed through {@link #run()} and keeps it through
 * {@link #EXPECTED}. Needs Timeline.java,
 * Charts.java, ChildRun.java, Measurement.java, Results.java (and what they need) alongside.
 */
public final class CarrierTimeline {
    /** Segments per scenario in the result (the earliest ones); the charts and counts use all of them. */
    public static final int JSON_SEGMENTS = 2_500;
    static final String STOLEN = "task, another carrier took it";

    private CarrierTimeline() {}

    /**
     * What chapter 04 expects of the start path: every start waits in a submission queue, which any idle carrier
     * takes from, so about (P - 1) / P of the tasks run on another carrier than their spawner's: an estimate, not a
     * bound (the spawner's own carrier takes its share once the spawner is done).
     */
    public static final Expectations<Run> EXPECTED = Expectations.<Run>of("04-carrier-timeline")
            .expect("starts-spread-over-the-carriers", "the tasks run on another carrier than their spawner's",
                    "(P - 1) / P of them", r -> Figure.exact(r.unbalanced().stolenShare())
                            .over((r.parallelism() - 1.0) / r.parallelism()), Line.atLeast(0.5))
            .untestableWhen(r -> r.parallelism() < 2 ? "one carrier: every task ran on it" : null);

    /** Runs S12 with its defaults in a child JVM; refuses if a run before it was stopped. */
    public static Run run() {
        RunGuard.requireFresh();
        return ChildRun.result(Run.class, "S12_CarrierTimeline.java");
    }

    /** What S12 saves: the pool before and after, and both scenarios. */
    public record Run(int cores, int parallelism, int poolSize, int workUs, long stealsBefore, long stealsAfter,
                      long steals, String javaVersion, Unbalanced unbalanced, Hopping hopping)
            implements Measurement.Measured {
        /** The shares of tasks stolen and of resumes that changed carrier, against (P - 1) / P: expectations. */
        @Override
        public List<Measurement> measurements() {
            if (parallelism < 2) return List.of(); // one carrier: nothing to steal, no prediction to hold against
            double predicted = (parallelism - 1.0) / parallelism;
            String on = " · " + parallelism + " carriers";
            return List.of(Measurement.of("tasks run on another carrier than their spawner's" + on,
                            unbalanced.stolenShare(), "share").bound(predicted, Measurement.Bound.ESTIMATE),
                    Measurement.of("resumes on another carrier" + on, hopping.changeShare(), "share")
                            .bound(predicted, Measurement.Bound.ESTIMATE));
        }
    }

    /** One spawner starts {@code tasks} short CPU tasks back to back; {@code stolen} ran off its carrier. */
    public record Unbalanced(int tasks, double seconds, double spawnerMs, List<String> spawnerCarriers, long steals,
                             int stolen, double stolenShare, double predictedStolenShare, Lanes lanes,
                             long queuedAfter, Kept kept, List<Segment> segments, List<Spawn> spawns) {
        /**
         * The tasks (among the kept segments) that ran on another carrier than their spawner's: taken from a
         * submission queue, where a start waits (S27), not stolen from the spawner's carrier.
         */
        public Set<String> offSpawnerCarrier() {
            return Timeline.stolenThreads(segments, spawns);
        }

        /** A colour per segment: the spawner, a stolen task, or a task on its spawner's carrier. */
        public Function<Segment, String> colours() {
            Set<String> stolenOnes = offSpawnerCarrier();
            return s -> !s.kind().equals("task") ? s.kind()
                    : stolenOnes.contains(s.thread()) ? STOLEN : "task, ran on its spawner's carrier";
        }

        /** The kept segments that started while the spawner ran, and as long again after it, twice. */
        public List<Segment> opening() {
            long first = segments.stream().mapToLong(Segment::startNanos).min().orElse(0);
            long spawnerEnd = segments.stream().filter(s -> s.kind().equals("spawner"))
                    .mapToLong(Segment::endNanos).max().orElse(first);
            return segments.stream().filter(s -> s.startNanos() < first + 3 * (spawnerEnd - first)).toList();
        }
    }

    /** {@code hoppers} virtual threads, each {@code hops} x (CPU, then sleep 1 ms): how often they change carrier. */
    public record Hopping(int hoppers, int hops, double seconds, long steals, int threadsOnTwoOrMoreCarriers,
                          int carrierChanges, double changeShare, double predictedChangeShare, Lanes lanes,
                          Map<String, List<String>> carriersOfEachThread, Kept kept, List<Segment> segments) {}

    /** Carriers, segments and busy ms per carrier, the span, and overlaps (0 for a faithful recording). */
    public record Lanes(List<String> carriers, Map<String, Integer> segmentsPerCarrier,
                        Map<String, Double> busyMsPerCarrier, double spanMs, int overlaps) {
        public static Lanes of(List<Segment> segments) {
            return new Lanes(MountRecorder.carriers(segments), Timeline.segmentsPerCarrier(segments), busyMs(segments),
                    Timeline.spanNanos(segments) / 1e6, Timeline.overlaps(segments));
        }
    }

    /** How many segments were recorded, how many the result keeps (the earliest), and the ms those cover. */
    public record Kept(int segmentsRecorded, int segmentsInJson, double jsonCoversMs) {}

    /** The first {@link #JSON_SEGMENTS} segments by start, so the result stays small; the counts use all. */
    static List<Segment> kept(List<Segment> segments) {
        return segments.size() <= JSON_SEGMENTS ? segments : segments.subList(0, JSON_SEGMENTS);
    }

    static Kept keptOf(List<Segment> segments) {
        List<Segment> k = kept(segments);
        return new Kept(segments.size(), k.size(),
                k.isEmpty() ? 0 : (k.get(k.size() - 1).startNanos() - k.get(0).startNanos()) / 1e6);
    }

    /** S12's one-line failure: nothing is saved. */
    public static void fail(String message) {
        throw new Experiment.RunFailed(message + "; nothing saved");
    }

    /** S12's first line: both scenarios' sizes. */
    public static void announce(int tasks, int workUs, int hoppers, int hops) {
        System.out.printf(Locale.ROOT, "unbalanced: 1 spawner starts %,d tasks of %,d µs; hopping: %d virtual threads"
                + " x %,d x (%,d µs of CPU, sleep 1 ms); %d cores, JDK %s%n", tasks, workUs, hoppers, hops, workUs,
                Runtime.getRuntime().availableProcessors(), Runtime.version());
    }

    /** S12's budget: the estimated run time at most 10 minutes. */
    public static void withinBudget(Experiment.Args a) {
        long tasks = a.count("--tasks"), workUs = a.count("--work-us"), hops = a.count("--hops");
        int cores = Runtime.getRuntime().availableProcessors();
        // each hopper takes hops x (work + 1 ms) alone, but 2 x cores of them share the cores: hops x 2 x work
        double hopSeconds = Math.max(2 * workUs / 1e6, workUs / 1e6 + 1e-3);
        double seconds = (double) tasks * workUs / 1e6 / cores + hops * hopSeconds;
        if (seconds > 600) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "--tasks %,d, --work-us %,d and --hops %,d"
                    + " would take about %,.0f s on %d cores (tasks x work / cores + hops x max(2 x work,"
                    + " work + 1 ms)); at most 10 minutes (600 s) allowed", tasks, workUs, hops, seconds, cores));
        }
    }

    /**
     * S12's figures from both recorded scenarios and the pool's steal counts before, between and after them:
     * printed, drawn and saved with the charts.
     */
    public static Run report(ForkJoinPool pool, int workUs, long[] steals, int tasks, double uSeconds,
                             MountRecorder u, int hoppers, int hops, double hSeconds, MountRecorder h) {
        int cores = Runtime.getRuntime().availableProcessors();
        List<Segment> us = u.segments(), hs = h.segments();
        List<Spawn> spawns = u.spawns();
        var run = new Run(cores, pool.getParallelism(), pool.getPoolSize(), workUs, steals[0], steals[2],
                steals[2] - steals[0], System.getProperty("java.version"),
                unbalanced(tasks, uSeconds, us, spawns, steals[1] - steals[0], cores, pool.getQueuedTaskCount()),
                hopping(hoppers, hops, hSeconds, hs, steals[2] - steals[1], cores));
        print(run, us);
        Protocol.progress("drawing the timelines");
        save("s12-carrier-timeline", run, charts(run, us, spawns, hs));
        return run;
    }

    /** The unbalanced scenario's figures from its recording and the pool's steal count over it. */
    public static Unbalanced unbalanced(int tasks, double seconds, List<Segment> us, List<Spawn> spawns, long steals,
                                        int cores, long queuedAfter) {
        Set<String> stolen = Timeline.stolenThreads(us, spawns);
        Segment spawner = spawner(us);
        Set<String> spawnerCarriers = new TreeSet<>(MountRecorder.CARRIER_ORDER);
        spawns.forEach(s -> spawnerCarriers.add(s.carrier()));
        List<Segment> k = kept(us);
        Set<String> threads = new HashSet<>();
        k.forEach(s -> threads.add(s.thread()));
        return new Unbalanced(tasks, seconds, spawner.nanos() / 1e6, List.copyOf(spawnerCarriers), steals,
                stolen.size(), stolen.size() / (double) tasks, (cores - 1) / (double) cores, Lanes.of(us), queuedAfter,
                keptOf(us), k, spawns.stream().filter(s -> threads.contains(s.thread())).toList());
    }

    /** The hopping scenario's figures from its recording. */
    public static Hopping hopping(int hoppers, int hops, double seconds, List<Segment> hs, long steals, int cores) {
        int changes = Timeline.carrierChanges(hs), resumes = hoppers * (hops - 1);
        Map<String, List<String>> each = new LinkedHashMap<>();
        for (Segment s : hs) {
            List<String> list = each.computeIfAbsent(s.thread(), t -> new ArrayList<>());
            if (!list.contains(s.carrier())) list.add(s.carrier());
        }
        return new Hopping(hoppers, hops, seconds, steals, Timeline.threadsOnTwoOrMoreCarriers(hs).size(), changes,
                resumes == 0 ? Double.NaN : changes / (double) resumes, (cores - 1) / (double) cores, Lanes.of(hs),
                each, keptOf(hs), kept(hs));
    }

    static Segment spawner(List<Segment> segments) {
        return segments.stream().filter(s -> s.kind().equals("spawner")).findFirst().orElseThrow();
    }

    /** What both scenarios showed, in a few lines. */
    public static void print(Run r, List<Segment> us) {
        Unbalanced u = r.unbalanced();
        Hopping h = r.hopping();
        int cores = r.cores();
        System.out.printf(Locale.ROOT, "%nunbalanced: %,d tasks in %.3f s on %d carriers %s; the spawner ran %.1f ms"
                + " on %s%n", u.tasks(), u.seconds(), u.lanes().carriers().size(), u.lanes().segmentsPerCarrier(),
                u.spawnerMs(), u.spawnerCarriers());
        System.out.printf(Locale.ROOT, "  %,d of %,d tasks (%.0f %%) ran on another carrier than their"
                + " spawner's (prediction (P - 1) / P = %.0f %%)%n", u.stolen(), u.tasks(), 100.0 * u.stolenShare(),
                100.0 * (cores - 1) / cores);
        System.out.printf(Locale.ROOT, "  the pool's steal count rose by %,d for %,d virtual threads run (the tasks"
                + " and the spawner): it counts every task a carrier takes by scanning the queues, the submission"
                + " queues included%n", u.steals(),
                u.tasks() + 1);
        System.out.printf(Locale.ROOT, "  busy ms per carrier: %s%n", busyMs(us));
        int resumes = h.hoppers() * (h.hops() - 1);
        System.out.printf(Locale.ROOT, "hopping: %d threads x %,d hops in %.3f s; %d of %d threads ran on two or"
                + " more carriers; %,d carrier changes in %,d resumes (%.0f %%, prediction about %.0f %%); steal"
                + " count +%,d%n", h.hoppers(), h.hops(), h.seconds(), h.threadsOnTwoOrMoreCarriers(), h.hoppers(),
                h.carrierChanges(), resumes, resumes == 0 ? 0 : 100.0 * h.changeShare(),
                100.0 * (cores - 1) / cores, h.steals());
        System.out.printf(Locale.ROOT, "pool: parallelism %d, %d carriers now, steal count %,d -> %,d%n",
                r.parallelism(), r.poolSize(), r.stealsBefore(), r.stealsAfter());
    }

    /** The three charts of a run: the whole unbalanced run, its first milliseconds, and the hoppers. */
    public static Map<String, BufferedImage> charts(Run r, List<Segment> us, List<Spawn> spawns, List<Segment> hs) {
        Unbalanced u = r.unbalanced();
        Set<String> stolen = Timeline.stolenThreads(us, spawns);
        Function<Segment, String> colour = s -> !s.kind().equals("task") ? s.kind()
                : stolen.contains(s.thread()) ? STOLEN : "task, ran on its spawner's carrier";
        Segment spawner = spawner(us);
        long zoom = Math.max(3 * spawner.endNanos() - 2 * spawner.startNanos(),
                spawner.endNanos() + 20_000L * r.workUs());
        Map<String, BufferedImage> charts = new LinkedHashMap<>();
        charts.put("unbalanced", Gantt.gantt(String.format(Locale.ROOT, "One virtual thread starts %,d tasks of"
                + " %,d µs: the other carriers take them from the submission queue", u.tasks(), r.workUs()), us,
                colour));
        charts.put("unbalanced-start", Gantt.gantt(String.format(Locale.ROOT, "The first %.1f ms: while the"
                + " spawner runs, only the other carriers run tasks", zoom / 1e6),
                us.stream().filter(s -> s.startNanos() < zoom).toList(), colour));
        Hopping h = r.hopping();
        charts.put("hopping", Gantt.gantt(String.format(Locale.ROOT, "%d virtual threads, each %,d x (%,d µs of"
                + " CPU, then sleep 1 ms): they hop", h.hoppers(), h.hops(), r.workUs()), hs,
                h.hoppers() <= Gantt.MAX_COLOURS ? Segment::thread : Segment::kind));
        return charts;
    }

    /**
     * Saves the run and its charts beside it ({@code <run>-<name>.png}): all of them, or nothing (a chart that
     * fails to save takes the JSON and the charts before it away again).
     */
    public static void save(String experiment, Run r, Map<String, BufferedImage> charts) {
        Path saved = Results.save(experiment, r);
        String stem = saved.getFileName().toString().replaceFirst("\\.json$", "");
        List<Path> written = new ArrayList<>(List.of(saved));
        try {
            for (var png : charts.entrySet()) {
                written.add(Charts.save(png.getValue(), saved.resolveSibling(stem + "-" + png.getKey() + ".png")));
            }
        } catch (RuntimeException e) {
            for (Path p : written) {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // the disk that failed the chart may fail this too; the failure says what happened
                }
            }
            throw e;
        }
        for (Path p : written) System.out.println("saved " + p);
    }

    static Map<String, Double> busyMs(List<Segment> segments) {
        Map<String, Double> out = new LinkedHashMap<>();
        Timeline.busyNanosPerCarrier(segments).forEach((c, n) -> out.put(c, Math.round(n / 1e3) / 1e3));
        return out;
    }
}
