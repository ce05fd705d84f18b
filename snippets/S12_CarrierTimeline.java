///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/Profile.java
//SOURCES ../helpers/unpinned/Machine.java
//SOURCES ../helpers/unpinned/Course.java
//SOURCES ../helpers/unpinned/Json.java
//SOURCES ../helpers/unpinned/Results.java
//SOURCES ../helpers/unpinned/Measurement.java
//SOURCES ../helpers/unpinned/RunGuard.java
//SOURCES ../helpers/unpinned/Cli.java
//SOURCES ../helpers/unpinned/Protocol.java
//SOURCES ../helpers/unpinned/Comparison.java
//SOURCES ../helpers/unpinned/Charts.java
//SOURCES ../helpers/unpinned/Show.java
//SOURCES ../helpers/unpinned/DrawnChart.java
//SOURCES ../helpers/unpinned/Carriers.java
//SOURCES ../helpers/unpinned/Timeline.java
package unpinned.snippets;

/*
 * S12: which carrier runs which virtual thread, when: the scheduler's work-stealing, drawn.
 *
 * The question: the default scheduler is a ForkJoinPool with one carrier thread per core, each with its own
 * queue. When one virtual thread starts thousands of short CPU tasks back to back, who runs them? And when a
 * few virtual threads keep sleeping 1 ms, do they come back on the carrier they left?
 *
 * The pitfall: "one shared queue" is the wrong picture. A virtual thread started from a carrier goes onto
 * THAT carrier's local queue, and the carrier is busy running the spawner, so the other carriers only get
 * the tasks by stealing them; the spawner's carrier joins in once the spawner ends. With P carriers about
 * (P - 1) / P of the tasks should run somewhere other than where they were queued. (Don't read that off the
 * pool's getStealCount(): measured on JDK 25, it rises by one for every task run, those a carrier takes from
 * its own queue included.) A virtual thread that wakes from a sleep is submitted again by the timer,
 * and runs on whichever carrier takes it: it hops.
 *
 * Both scenarios run in this one JVM on the default scheduler, after a small unrecorded warm-up of each
 * (JIT, carriers started). Every virtual thread records its own segments with Timeline.Recorder: begin at
 * each point where it starts or resumes running, end before it blocks or ends; the carrier is read from
 * Thread.currentThread().toString() at the segment's start (there is no public API for it). So a segment
 * is the code between those points, not the JVM's exact mount and unmount instants. The pool's counters
 * (steals, size, parallelism) are read before and after through the carrier threads themselves
 * (ForkJoinWorkerThread.getPool()). A task's CPU work is a hash loop that runs until --work-us have passed
 * on the clock. Results, with a Gantt chart per scenario, go to results/s12-carrier-timeline/.
 */

import unpinned.Charts;
import unpinned.Cli;
import unpinned.Profile;
import unpinned.Protocol;
import unpinned.Results;
import unpinned.Timeline;
import unpinned.Timeline.Segment;
import unpinned.Timeline.Spawn;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

public class S12_CarrierTimeline {
    static final String USAGE = """
            usage: S12_CarrierTimeline [--tasks M] [--work-us W] [--hops N]
              --tasks M     short CPU tasks that one spawner virtual thread starts back to back,
                            1..100,000 (default 2,000; full profile 10,000)
              --work-us W   CPU work per task and per hop, in microseconds, 10..100,000 (default 500)
              --hops N      CPU bursts per hopper (2 x cores hoppers), each followed by Thread.sleep(1),
                            1..10,000 (default 20; full profile 100)
            The estimated run time, --tasks x --work-us / cores + --hops x max(2 x --work-us, --work-us + 1 ms)
            (the 2 x cores hoppers share the cores), may be at most 10 minutes.""";

    static final int MAX_TASKS = 100_000;
    static final long MAX_SECONDS = TimeUnit.MINUTES.toSeconds(10);
    /** Segments per scenario in the result JSON (the earliest ones); the charts and counts use all of them. */
    static final int JSON_SEGMENTS = 2_500;

    static volatile long sink; // the hash loops' results end here, so the JIT can't drop the work

    record Options(int tasks, int workUs, int hops, int hoppers) {
        long workNanos() {
            return TimeUnit.MICROSECONDS.toNanos(workUs);
        }
    }

    public static void main(String[] args) {
        Profile profile = Profile.announceOrExit("S12");
        Options o = parse(profile, args);
        int cores = Runtime.getRuntime().availableProcessors();
        System.out.printf(Locale.ROOT, "unbalanced: 1 spawner starts %,d tasks of %,d µs; hopping: %d virtual threads x"
                        + " %,d x (%,d µs of CPU, sleep 1 ms); %d cores, JDK %s%n", o.tasks(), o.workUs(), o.hoppers(),
                o.hops(), o.workUs(), cores, Runtime.version());
        try {
            run(o, cores);
        } catch (InterruptedException e) {
            fail("interrupted; nothing saved");
        } catch (IllegalStateException | OutOfMemoryError e) {
            fail(e.getMessage() + "; nothing saved");
        }
    }

    static void run(Options o, int cores) throws InterruptedException {
        Protocol.progress("warm-up");
        // JIT and carrier start-up, not in the measured runs: about 0.2 s of tasks, and up to 5 hops
        unbalanced(Math.min(o.tasks(), Math.max(2, 200_000 / o.workUs())), o.workNanos());
        hopping(o.hoppers(), Math.min(o.hops(), 5), o.workNanos());
        ForkJoinPool pool = Timeline.virtualThreadScheduler();

        long stealsBefore = pool.getStealCount();
        Protocol.progress(String.format(Locale.ROOT, "unbalanced: %,d tasks", o.tasks()));
        Run u = unbalanced(o.tasks(), o.workNanos());
        long stealsBetween = pool.getStealCount();
        Protocol.progress(String.format(Locale.ROOT, "hopping: %d threads x %,d hops", o.hoppers(), o.hops()));
        Run h = hopping(o.hoppers(), o.hops(), o.workNanos());
        long stealsAfter = pool.getStealCount();

        List<Segment> us = u.recorder().segments();
        List<Spawn> spawns = u.recorder().spawns();
        List<Segment> hs = h.recorder().segments();
        Set<String> stolen = Timeline.stolenThreads(us, spawns);
        Map<String, List<String>> hoppersOnTwo = Timeline.threadsOnTwoOrMoreCarriers(hs);
        int changes = Timeline.carrierChanges(hs);
        int resumes = o.hoppers() * (o.hops() - 1);
        Segment spawner = us.stream().filter(s -> s.kind().equals("spawner")).findFirst().orElseThrow();
        Set<String> spawnerCarriers = new TreeSet<>(Timeline.CARRIER_ORDER);
        spawns.forEach(s -> spawnerCarriers.add(s.carrier()));

        Map<String, Object> unbalanced = new LinkedHashMap<>();
        unbalanced.put("tasks", o.tasks());
        unbalanced.put("seconds", u.seconds());
        unbalanced.put("spawnerMs", spawner.nanos() / 1e6);
        unbalanced.put("spawnerCarriers", List.copyOf(spawnerCarriers));
        unbalanced.put("steals", stealsBetween - stealsBefore);
        unbalanced.put("stolen", stolen.size());
        unbalanced.put("stolenShare", stolen.size() / (double) o.tasks());
        unbalanced.put("predictedStolenShare", (cores - 1) / (double) cores);
        describe(unbalanced, us);
        unbalanced.put("queuedAfter", pool.getQueuedTaskCount());
        keep(unbalanced, us, spawns);

        Map<String, Object> hopping = new LinkedHashMap<>();
        hopping.put("hoppers", o.hoppers());
        hopping.put("hops", o.hops());
        hopping.put("seconds", h.seconds());
        hopping.put("steals", stealsAfter - stealsBetween);
        hopping.put("threadsOnTwoOrMoreCarriers", hoppersOnTwo.size());
        hopping.put("carrierChanges", changes);
        hopping.put("changeShare", resumes == 0 ? Double.NaN : changes / (double) resumes);
        hopping.put("predictedChangeShare", (cores - 1) / (double) cores);
        describe(hopping, hs);
        hopping.put("carriersOfEachThread", carriersOfEachThread(hs));
        keep(hopping, hs, List.of());

        Map<String, Object> data = new LinkedHashMap<>();
        data.put("cores", cores);
        data.put("parallelism", pool.getParallelism());
        data.put("poolSize", pool.getPoolSize());
        data.put("workUs", o.workUs());
        data.put("stealsBefore", stealsBefore);
        data.put("stealsAfter", stealsAfter);
        data.put("steals", stealsAfter - stealsBefore);
        data.put("javaVersion", System.getProperty("java.version"));
        data.put("unbalanced", unbalanced);
        data.put("hopping", hopping);

        List<String> uc = Timeline.carriers(us);
        System.out.printf(Locale.ROOT, "%nunbalanced: %,d tasks in %.3f s on %d carriers %s; the spawner ran %.1f ms on %s%n",
                o.tasks(), u.seconds(), uc.size(), Timeline.segmentsPerCarrier(us), spawner.nanos() / 1e6, spawnerCarriers);
        System.out.printf(Locale.ROOT, "  stolen: %,d of %,d tasks (%.0f %%) ran on another carrier than their spawner's"
                        + " (prediction (P - 1) / P = %.0f %%)%n", stolen.size(), o.tasks(), 100.0 * stolen.size() / o.tasks(),
                100.0 * (cores - 1) / cores);
        System.out.printf(Locale.ROOT, "  the pool's steal count rose by %,d for %,d virtual threads run (the tasks and the"
                + " spawner): it counts the tasks a carrier takes from its own queue too%n",
                stealsBetween - stealsBefore, o.tasks() + 1);
        System.out.printf(Locale.ROOT, "  busy ms per carrier: %s%n", busyMs(us));
        System.out.printf(Locale.ROOT, "hopping: %d threads x %,d hops in %.3f s; %d of %d threads ran on two or more"
                        + " carriers; %,d carrier changes in %,d resumes (%.0f %%, prediction about %.0f %%);"
                        + " steal count +%,d%n", o.hoppers(), o.hops(), h.seconds(), hoppersOnTwo.size(), o.hoppers(),
                changes, resumes, resumes == 0 ? 0 : 100.0 * changes / resumes, 100.0 * (cores - 1) / cores,
                stealsAfter - stealsBetween);
        System.out.printf(Locale.ROOT, "pool: parallelism %d, %d carriers now, steal count %,d -> %,d%n",
                pool.getParallelism(), pool.getPoolSize(), stealsBefore, stealsAfter);

        Protocol.progress("drawing the timelines");
        Function<Segment, String> taskColour = s -> !s.kind().equals("task") ? s.kind()
                : stolen.contains(s.thread()) ? "task, stolen (ran on another carrier)" : "task, ran on its spawner's carrier";
        BufferedImage unbalancedChart = Timeline.gantt(String.format(Locale.ROOT,
                "One virtual thread starts %,d tasks of %,d µs: the other carriers steal them", o.tasks(), o.workUs()),
                us, taskColour);
        long zoomNanos = Math.max(3 * spawner.endNanos() - 2 * spawner.startNanos(), spawner.endNanos() + 20 * o.workNanos());
        List<Segment> start = us.stream().filter(s -> s.startNanos() < zoomNanos).toList();
        BufferedImage startChart = Timeline.gantt(String.format(Locale.ROOT,
                "The first %.1f ms: while the spawner runs, only the other carriers run tasks", zoomNanos / 1e6),
                start, taskColour);
        BufferedImage hoppingChart = Timeline.gantt(String.format(Locale.ROOT,
                "%d virtual threads, each %,d x (%,d µs of CPU, then sleep 1 ms): they hop", o.hoppers(), o.hops(),
                o.workUs()), hs, o.hoppers() <= Timeline.MAX_COLOURS ? Segment::thread : Segment::kind);

        Protocol.result(data);
        Path saved = Results.save("s12-carrier-timeline", data);
        String stem = saved.getFileName().toString().replaceFirst("\\.json$", "");
        List<Path> written = new ArrayList<>(List.of(saved));
        try {
            for (var png : List.of(Map.entry("unbalanced", unbalancedChart), Map.entry("unbalanced-start", startChart),
                    Map.entry("hopping", hoppingChart))) {
                written.add(Charts.save(png.getValue(), saved.resolveSibling(stem + "-" + png.getKey() + ".png")));
            }
        } catch (RuntimeException e) { // a run leaves its JSON and all its charts, or nothing
            for (Path p : written) {
                try {
                    Files.deleteIfExists(p);
                } catch (IOException ignored) {
                    // the disk that failed the chart may fail this too; the failure below says what happened
                }
            }
            throw e;
        }
        for (Path p : written) System.out.println("saved " + p);
    }

    record Run(Timeline.Recorder recorder, double seconds) {}

    /**
     * One "spawner" virtual thread starts {@code tasks} virtual threads back to back, noting its carrier at each
     * start; each task records one segment of {@code workNanos} of hashing.
     */
    static Run unbalanced(int tasks, long workNanos) throws InterruptedException {
        Timeline.Recorder rec = new Timeline.Recorder(tasks + 1);
        Thread[] threads = new Thread[tasks];
        long t0 = System.nanoTime();
        Thread spawner = Thread.ofVirtual().name("spawner").start(() -> {
            rec.begin("spawner");
            for (int i = 0; i < tasks; i++) {
                long initial = i;
                Thread t = Thread.ofVirtual().name("task-" + i).unstarted(() -> {
                    rec.begin("task");
                    long x = burn(workNanos, initial);
                    rec.end();
                    sink = x;
                });
                rec.spawned(t);
                t.start();
                threads[i] = t;
            }
            rec.end();
        });
        spawner.join();
        for (Thread t : threads) {
            if (t == null) break; // the spawner failed; the recorder says why
            t.join();
        }
        double seconds = (System.nanoTime() - t0) / 1e9;
        rec.problem().ifPresent(p -> fail("the unbalanced run failed: " + p));
        return new Run(rec, seconds);
    }

    /** {@code hoppers} virtual threads, each {@code hops} x (one segment of hashing, then sleep 1 ms). */
    static Run hopping(int hoppers, int hops, long workNanos) throws InterruptedException {
        Timeline.Recorder rec = new Timeline.Recorder(hoppers * hops);
        AtomicReference<String> failure = new AtomicReference<>();
        Thread[] threads = new Thread[hoppers];
        long t0 = System.nanoTime();
        for (int i = 0; i < hoppers; i++) {
            long initial = i;
            threads[i] = Thread.ofVirtual().name("hopper-" + i).start(() -> {
                long x = initial;
                try {
                    for (int hop = 0; hop < hops; hop++) {
                        rec.begin("hopper");
                        x = burn(workNanos, x);
                        rec.end();
                        if (hop + 1 < hops) Thread.sleep(1); // unmounts; the timer submits it again when due
                    }
                } catch (InterruptedException e) {
                    failure.compareAndSet(null, "a hopper was interrupted while sleeping");
                }
                sink = x;
            });
        }
        for (Thread t : threads) t.join();
        double seconds = (System.nanoTime() - t0) / 1e9;
        if (failure.get() != null) fail("the hopping run failed: " + failure.get());
        rec.problem().ifPresent(p -> fail("the hopping run failed: " + p));
        return new Run(rec, seconds);
    }

    /** Real CPU work: a multiply-xorshift hash, in batches of 64, until {@code nanos} have passed on the clock. */
    static long burn(long nanos, long initial) {
        long until = System.nanoTime() + nanos;
        long x = initial;
        do {
            for (int i = 0; i < 64; i++) {
                x = (x ^ (x >>> 31)) * 0x9E3779B97F4A7C15L + i;
            }
        } while (System.nanoTime() < until);
        return x;
    }

    /** Carriers, segments and busy time per carrier, the span, and overlaps (0 for a faithful recording). */
    static void describe(Map<String, Object> into, List<Segment> segments) {
        into.put("carriers", Timeline.carriers(segments));
        into.put("segmentsPerCarrier", Timeline.segmentsPerCarrier(segments));
        into.put("busyMsPerCarrier", busyMs(segments));
        into.put("spanMs", Timeline.spanNanos(segments) / 1e6);
        into.put("overlaps", Timeline.overlaps(segments));
    }

    static Map<String, Double> busyMs(List<Segment> segments) {
        Map<String, Double> out = new LinkedHashMap<>();
        Timeline.busyNanosPerCarrier(segments).forEach((c, n) -> out.put(c, Math.round(n / 1e3) / 1e3));
        return out;
    }

    static Map<String, List<String>> carriersOfEachThread(List<Segment> segments) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (Segment s : segments) {
            List<String> list = out.computeIfAbsent(s.thread(), k -> new ArrayList<>());
            if (!list.contains(s.carrier())) list.add(s.carrier());
        }
        return out;
    }

    /**
     * The earliest {@link #JSON_SEGMENTS} segments (by start) and the spawns of the threads among them, so the
     * result stays small; the counts above use every segment.
     */
    static void keep(Map<String, Object> into, List<Segment> segments, List<Spawn> spawns) {
        List<Segment> kept = segments.size() <= JSON_SEGMENTS ? segments : segments.subList(0, JSON_SEGMENTS);
        Set<String> threads = new java.util.HashSet<>();
        kept.forEach(s -> threads.add(s.thread()));
        into.put("segmentsRecorded", segments.size());
        into.put("segmentsInJson", kept.size());
        into.put("jsonCoversMs", kept.isEmpty() ? 0 : (kept.get(kept.size() - 1).startNanos() - kept.get(0).startNanos()) / 1e6);
        into.put("segments", kept);
        if (!spawns.isEmpty()) into.put("spawns", spawns.stream().filter(s -> threads.contains(s.thread())).toList());
    }

    static Options parse(Profile profile, String[] args) {
        Cli cli = Cli.orExit("S12", USAGE, args, Set.of("--tasks", "--work-us", "--hops"), Set.of());
        try {
            Results.checkDir();
            int tasks = cli.intValue("--tasks", profile.pick(2_000, 10_000), 1, MAX_TASKS);
            int workUs = cli.intValue("--work-us", 500, 10, 100_000);
            int hops = cli.intValue("--hops", profile.pick(20, 100), 1, 10_000);
            int cores = Runtime.getRuntime().availableProcessors();
            // each hopper takes hops x (work + 1 ms) alone, but 2 x cores of them share the cores: hops x 2 x work
            double hopSeconds = Math.max(2 * workUs / 1e6, workUs / 1e6 + 1e-3);
            double seconds = (double) tasks * workUs / 1e6 / cores + hops * hopSeconds;
            if (seconds > MAX_SECONDS) {
                throw new IllegalArgumentException(String.format(Locale.ROOT, "--tasks %,d, --work-us %,d and --hops %,d"
                                + " would take about %,.0f s on %d cores (tasks x work / cores + hops x max(2 x work,"
                                + " work + 1 ms)); at most 10 minutes (600 s) allowed", tasks, workUs, hops, seconds,
                        cores));
            }
            return new Options(tasks, workUs, hops, 2 * cores);
        } catch (IllegalArgumentException | IllegalStateException e) {
            return Cli.exit("S12", e.getMessage());
        }
    }

    /** A failed measurement (not bad input): one line on stderr, exit code 1. */
    static void fail(String message) {
        System.err.println("S12: " + message);
        System.exit(1);
    }
}

/*
 * How to run:
 *   tools/jbang carrier-timeline                          (2,000 tasks of 500 µs; 2 x cores hoppers, 20 hops)
 *   tools/jbang carrier-timeline --tasks 5000 --work-us 100
 *   tools/jbang carrier-timeline --hops 100
 * Charts: <results>/s12-carrier-timeline/<run>-unbalanced.png (the whole run), -unbalanced-start.png (its
 * first milliseconds: the spawner and the stealing) and -hopping.png (each hopper its own colour).
 *
 * What you should see (2 cores, JDK 25):
 *   unbalanced  2,000 tasks in ~0.54 s; the spawner runs 15-35 ms on one carrier, and all that time the other
 *               carrier runs tasks back to back: stolen; then both share the rest. 49-52 % of the tasks run on
 *               the carrier that was not the spawner's (prediction 50 %); busy ~520 ms per carrier (balanced).
 *               The pool's steal count rises by 2,001, one per virtual thread run (own queue included).
 *               Full profile (10,000 tasks): 51 %; --tasks 5000 --work-us 100: 55 % (the spawner's 41 ms
 *               are a larger share of the run).
 *   hopping     every hopper runs on both carriers; 36-63 % of the resumes change carrier, different every run
 *               (prediction about 50 %: 1/P stay where they were); the chart shows each colour on both lanes.
 *   A segment a few times longer than --work-us is a carrier the OS took away (the JIT's threads, other
 *   processes), since the hash loop runs by the clock; a gap in a lane is time no recorded code ran.
 */
