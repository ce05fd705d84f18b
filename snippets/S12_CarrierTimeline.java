///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/experiments/CarrierTimeline.java
//SOURCES ../helpers/unpinned/workloads/Work.java
package unpinned.snippets;

/*
 * S12: which carrier runs which virtual thread, when: tasks that run away from their spawner's carrier.
 *
 * The question: one virtual thread starts thousands of short CPU tasks back to back; who runs them?
 * And do virtual threads that keep sleeping 1 ms come back on the carrier they left?
 * The estimate (not a bound): about (P - 1) / P of the tasks run on another carrier than the spawner's.
 * The pitfall: "each carrier's own queue, robbed by the others" is the wrong picture for starts.
 */

import unpinned.experiments.CarrierTimeline;
import unpinned.core.Experiment;
import unpinned.core.Protocol;
import unpinned.core.Results;
import unpinned.workloads.MountRecorder;
import unpinned.workloads.Work;
import static unpinned.experiments.CarrierTimeline.fail;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

public class S12_CarrierTimeline {

    /**
     * One "spawner" virtual thread starts {@code tasks} virtual threads back to back, noting its carrier at each
     * start; each task records one segment of {@code workNanos} of hashing. start() from a virtual thread
     * submits to a shared submission queue (JDK 21: ForkJoinPool.poolSubmit pushes to a worker's own queue only
     * when the caller is that worker; JDK 25: VirtualThread.start calls externalSubmitRunContinuationOrThrow;
     * S27 measures it on both). The spawner's carrier is busy running the spawner, so the others take the
     * tasks; getStealCount() counts every task taken from any queue, so it can't show this.
     */
    static Run unbalanced(int tasks, long workNanos) throws InterruptedException {
        MountRecorder rec = new MountRecorder(tasks + 1);
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

    record Run(MountRecorder recorder, double seconds) {}

    /**
     * {@code hoppers} virtual threads, each {@code hops} x (one segment of hashing, then sleep 1 ms). A thread
     * that wakes is submitted again and runs on whichever carrier takes it: it hops.
     */
    static Run hopping(int hoppers, int hops, long workNanos) throws InterruptedException {
        MountRecorder rec = new MountRecorder(hoppers * hops);
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
                .count("--hops", 20, 100, 1, 10_000, "CPU bursts per hopper (2 per core), each then Thread.sleep(1)")
                .check(CarrierTimeline::withinBudget)
                .check(a -> Results.checkDir())
                .notes("The estimated run time, --tasks x --work-us / cores + --hops x max(2 x --work-us,"
                        + " --work-us + 1 ms)\n(the 2 x cores hoppers share the cores), may be at most 10 minutes.")
                .budget(Duration.ofSeconds(3), Duration.ofSeconds(10))
                .run(args, S12_CarrierTimeline::measure);
    }

    /**
     * A small unrecorded warm-up of each scenario, then both recorded, their figures, saved with the charts.
     * Every virtual thread records its own segments (MountRecorder) from where it starts or resumes to before
     * it blocks or ends; the carrier comes from Thread.currentThread().toString() (no public API), so a segment
     * is the code between those points, not the exact mount instants.
     */
    static CarrierTimeline.Run measure(Experiment.Args a) throws InterruptedException {
        int tasks = a.intCount("--tasks"), workUs = a.intCount("--work-us"), hops = a.intCount("--hops");
        int hoppers = 2 * Runtime.getRuntime().availableProcessors(); // more than the carriers: they compete
        long work = TimeUnit.MICROSECONDS.toNanos(workUs);
        CarrierTimeline.announce(tasks, workUs, hoppers, hops);
        Protocol.progress("warm-up"); // JIT and carriers, unrecorded: about 0.2 s of tasks, and up to 5 hops
        unbalanced(Math.min(tasks, Math.max(2, 200_000 / workUs)), work);
        hopping(hoppers, Math.min(hops, 5), work);
        ForkJoinPool pool = MountRecorder.virtualThreadScheduler();
        long[] steals = {pool.getStealCount(), 0, 0}; // the pool's count before, between and after the two
        Protocol.progress(String.format(Locale.ROOT, "unbalanced: %,d tasks", tasks));
        Run u = unbalanced(tasks, work);
        steals[1] = pool.getStealCount();
        Protocol.progress(String.format(Locale.ROOT, "hopping: %d threads x %,d hops", hoppers, hops));
        Run h = hopping(hoppers, hops, work);
        steals[2] = pool.getStealCount();
        return CarrierTimeline.report(pool, workUs, steals, tasks, u.seconds(), u.recorder(), hoppers, hops,
                h.seconds(), h.recorder()); // printed, drawn and saved with the charts
    }
}

/*
 * How to run:
 *   tools/jbang carrier-timeline                          (2,000 tasks of 500 µs; 2 x cores hoppers, 20 hops)
 *   tools/jbang carrier-timeline --tasks 5000 --work-us 100
 *   tools/jbang carrier-timeline --hops 100
 * Charts: <results>/s12-carrier-timeline/<run>-unbalanced.png, -unbalanced-start.png and -hopping.png.
 *
 * What you should see: about (P - 1) / P of the tasks off the spawner's carrier, and hoppers on every
 * carrier. Reference runs: data/reference-runs/snippets/S12-carrier-timeline.md
 */
