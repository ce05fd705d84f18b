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
//SOURCES ../helpers/unpinned/CarrierTimeline.java
//SOURCES ../helpers/unpinned/ChildRun.java
//SOURCES ../helpers/unpinned/Experiment.java
//SOURCES ../helpers/unpinned/Measurement.java
//SOURCES ../helpers/unpinned/Work.java
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
 * (ForkJoinWorkerThread.getPool()). A task's CPU work is Work.burn, a hash loop that runs until --work-us
 * have passed on the clock. Results, with a Gantt chart per scenario, go to results/s12-carrier-timeline/.
 */

import unpinned.CarrierTimeline;
import unpinned.Experiment;
import unpinned.Protocol;
import unpinned.Results;
import unpinned.Timeline;
import unpinned.Work;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

public class S12_CarrierTimeline {
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
                    long x = Work.burn(workNanos, initial);
                    rec.end();
                    Work.use(x);
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
                        x = Work.burn(workNanos, x);
                        rec.end();
                        if (hop + 1 < hops) Thread.sleep(1); // unmounts; the timer submits it again when due
                    }
                } catch (InterruptedException e) {
                    failure.compareAndSet(null, "a hopper was interrupted while sleeping");
                }
                Work.use(x);
            });
        }
        for (Thread t : threads) t.join();
        double seconds = (System.nanoTime() - t0) / 1e9;
        if (failure.get() != null) fail("the hopping run failed: " + failure.get());
        rec.problem().ifPresent(p -> fail("the hopping run failed: " + p));
        return new Run(rec, seconds);
    }

    public static void main(String[] args) {
        Experiment.named("S12", "which carrier runs which virtual thread, when", null) // saves with its charts
                .count("--tasks", 2_000, 10_000, 1, 100_000, "short CPU tasks one spawner virtual thread starts")
                .count("--work-us", 500, 500, 10, 100_000, "CPU work per task and per hop, µs")
                .count("--hops", 20, 100, 1, 10_000, "CPU bursts per hopper (2 x cores hoppers), each then"
                        + " Thread.sleep(1)")
                .check(S12_CarrierTimeline::withinBudget)
                .check(a -> Results.checkDir())
                .notes("The estimated run time, --tasks x --work-us / cores + --hops x max(2 x --work-us,"
                        + " --work-us + 1 ms)\n(the 2 x cores hoppers share the cores), may be at most 10 minutes.")
                .budget(Duration.ofSeconds(3), Duration.ofSeconds(10))
                .run(args, S12_CarrierTimeline::measure);
    }

    /** A small unrecorded warm-up of each scenario, then both recorded, their figures, saved with the charts. */
    static CarrierTimeline.Run measure(Experiment.Args a) throws InterruptedException {
        int tasks = a.intCount("--tasks"), workUs = a.intCount("--work-us"), hops = a.intCount("--hops");
        int cores = Runtime.getRuntime().availableProcessors(), hoppers = 2 * cores;
        long work = TimeUnit.MICROSECONDS.toNanos(workUs);
        System.out.printf(Locale.ROOT, "unbalanced: 1 spawner starts %,d tasks of %,d µs; hopping: %d virtual threads"
                + " x %,d x (%,d µs of CPU, sleep 1 ms); %d cores, JDK %s%n", tasks, workUs, hoppers, hops, workUs,
                cores, Runtime.version());
        Protocol.progress("warm-up"); // JIT and carriers, unrecorded: about 0.2 s of tasks, and up to 5 hops
        unbalanced(Math.min(tasks, Math.max(2, 200_000 / workUs)), work);
        hopping(hoppers, Math.min(hops, 5), work);
        ForkJoinPool pool = Timeline.virtualThreadScheduler();
        long stealsBefore = pool.getStealCount();
        Protocol.progress(String.format(Locale.ROOT, "unbalanced: %,d tasks", tasks));
        Run u = unbalanced(tasks, work);
        long stealsBetween = pool.getStealCount();
        Protocol.progress(String.format(Locale.ROOT, "hopping: %d threads x %,d hops", hoppers, hops));
        Run h = hopping(hoppers, hops, work);
        long stealsAfter = pool.getStealCount();
        var us = u.recorder().segments();
        var spawns = u.recorder().spawns();
        var hs = h.recorder().segments();
        var run = new CarrierTimeline.Run(cores, pool.getParallelism(), pool.getPoolSize(), workUs, stealsBefore,
                stealsAfter, stealsAfter - stealsBefore, System.getProperty("java.version"),
                CarrierTimeline.unbalanced(tasks, u.seconds(), us, spawns, stealsBetween - stealsBefore, cores,
                        pool.getQueuedTaskCount()),
                CarrierTimeline.hopping(hoppers, hops, h.seconds(), hs, stealsAfter - stealsBetween, cores));
        CarrierTimeline.print(run, us);
        Protocol.progress("drawing the timelines");
        CarrierTimeline.save("s12-carrier-timeline", run, CarrierTimeline.charts(run, us, spawns, hs));
        return run;
    }

    static void withinBudget(Experiment.Args a) {
        long tasks = a.count("--tasks"), workUs = a.count("--work-us"), hops = a.count("--hops");
        int cores = Runtime.getRuntime().availableProcessors();
        // each hopper takes hops x (work + 1 ms) alone, but 2 x cores of them share the cores: hops x 2 x work
        double hopSeconds = Math.max(2 * workUs / 1e6, workUs / 1e6 + 1e-3);
        double seconds = (double) tasks * workUs / 1e6 / cores + hops * hopSeconds;
        if (seconds > TimeUnit.MINUTES.toSeconds(10)) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "--tasks %,d, --work-us %,d and --hops %,d"
                    + " would take about %,.0f s on %d cores (tasks x work / cores + hops x max(2 x work,"
                    + " work + 1 ms)); at most 10 minutes (600 s) allowed", tasks, workUs, hops, seconds, cores));
        }
    }

    static void fail(String message) {
        throw new Experiment.RunFailed(message + "; nothing saved");
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
