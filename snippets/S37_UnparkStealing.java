///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/core/Experiment.java
//SOURCES ../helpers/unpinned/experiments/UnparkStealing.java
package unpinned.snippets;

/*
 * S37: stealing, drawn where it happens: one virtual thread unparks N parked ones, and the other carriers take them
 * from its carrier's own queue.
 *
 * The question: chapter 04's start path puts every new virtual thread in the pool's shared submission queues (S27),
 * so no carrier steals from another there. An unpark from a virtual thread is different: JDK 21's
 * VirtualThread.unpark calls switchToCarrierThread() and then submitRunContinuation(), JDK 25's
 * submitRunContinuation pins the continuation and calls execute(), and ForkJoinPool.poolSubmit reads
 * JLA.currentCarrierThread(): on both the woken thread is pushed to the waker's CARRIER's own queue. Its carrier is
 * busy running the waker, so the other carriers, finding their own queues empty, scan and take from it: that is
 * work-stealing. Once the waker ends, its own carrier pops the rest of its queue (ForkJoinPool.WorkQueue
 * .topLevelExec -> nextLocalTask).
 *
 * The run: N virtual threads park; once all are parked, one virtual thread (the waker) unparks them all; each woken
 * one spins --work-us and records a segment with its carrier (MountRecorder; the waker records its own). A
 * platform thread samples every --sample-us: each carrier's own queue (ForkJoinWorkerThread.getQueuedTaskCount()),
 * the submission queues (getQueuedSubmissionCount()) and the steal counter (getStealCount()).
 *
 * The prediction: the waker's carrier's queue fills to nearly N while the waker runs, the submission queues stay
 * near 0, and about (P - 1) / P of the woken threads run on another carrier: an estimate, not a bound. The steal
 * counter counts what a carrier takes by scanning (JDK 25: ForkJoinPool.runWorker adds one per task its scan takes;
 * JDK 21: WorkQueue.topLevelExec counts the scanned task and later polls of the same queue) but not the tasks the
 * waker's carrier pops from its own queue afterwards, so it should rise by about the stolen ones, not by N.
 *
 * The pitfalls: the scheduler's properties are read at the first virtual thread, so main sets parallelism =
 * maxPoolSize = --carriers first (no spare can join) and checks the pool; an unrecorded warm-up round goes first.
 * Results go to results/s37-unpark-stealing/.
 */

import unpinned.workloads.Carriers;
import unpinned.workloads.MountRecorder;
import unpinned.workloads.MountRecorder.Segment;
import unpinned.experiments.UnparkStealing;
import unpinned.experiments.UnparkStealing.Sample;
import unpinned.core.Experiment;
import unpinned.core.Protocol;
import unpinned.running.Jdks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

public class S37_UnparkStealing {

    // ---- the code under study ---------------------------------------------------------------------------------

    /** Each of {@code n} virtual threads parks until {@code go}, then records one segment of {@code workUs} spinning. */
    static List<Thread> parkers(int n, AtomicBoolean go, long workUs, MountRecorder rec, CountDownLatch done) {
        List<Thread> parked = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            parked.add(Thread.ofVirtual().name("woken-" + i).start(() -> {
                while (!go.get()) LockSupport.park(); // a spurious wake-up parks again
                rec.begin("woken");
                spin(workUs);
                rec.end();
                done.countDown();
            }));
        }
        return parked;
    }

    /** One virtual thread unparks them all, back to back: each goes to this carrier's own queue. */
    static Thread waker(List<Thread> parked, AtomicBoolean go, MountRecorder rec) {
        return Thread.ofVirtual().name("waker").start(() -> {
            rec.begin("waker");
            go.set(true);
            for (Thread t : parked) LockSupport.unpark(t);
            rec.end();
        });
    }

    static void spin(long micros) {
        long end = System.nanoTime() + micros * 1_000;
        while (System.nanoTime() < end) Thread.onSpinWait();
    }

    // ---- the measurement --------------------------------------------------------------------------------------

    public static void main(String[] args) {
        args = Jdks.honourJdkOption("S37", "S37_UnparkStealing.java", args);
        Experiment.named("S37", "one virtual thread unparks N: who runs them", "s37-unpark-stealing")
                .count("--threads", 2_000, 2_000, 10, 100_000, "parked virtual threads the waker unparks")
                .count("--carriers", 2, 2, 1, 64, "the scheduler's parallelism (and maxPoolSize)")
                .count("--work-us", 50, 50, 1, 10_000, "what each woken thread spins, µs")
                .count("--sample-us", 100, 100, 10, 10_000, "pause between two samples of the queues, µs")
                .check(a -> {
                    if (a.count("--threads") * a.count("--work-us") > TimeUnit.MINUTES.toMicros(10)) {
                        throw new IllegalArgumentException("--threads x --work-us is over 10 minutes of spinning");
                    }
                })
                .notes("--jdk 21|course: run on the JDK 21 runtime set-up installs, or the course JDK (default: this"
                        + " JVM).")
                .budget(Duration.ofSeconds(2), Duration.ofSeconds(2))
                .run(args, S37_UnparkStealing::measure);
    }

    static UnparkStealing.Run measure(Experiment.Args a) throws Exception {
        int n = a.intCount("--threads"), p = a.intCount("--carriers"), workUs = a.intCount("--work-us");
        Carriers.fix(p); // parallelism = maxPoolSize = p: no spare joins in
        ForkJoinPool pool = Carriers.pool(p);
        Protocol.progress("warm-up");
        round(Math.min(200, n), workUs, a.intCount("--sample-us"), pool, p);
        Protocol.progress(String.format("%,d unparked by one virtual thread, on %d carriers", n, p));
        UnparkStealing.Run run = round(n, workUs, a.intCount("--sample-us"), pool, p);
        System.out.println(run.line());
        return run;
    }

    /** One round: park n, wake them from one virtual thread while a platform thread samples the pool. */
    static UnparkStealing.Run round(int n, int workUs, int sampleUs, ForkJoinPool pool, int p) throws Exception {
        MountRecorder rec = new MountRecorder(n + 1);
        AtomicBoolean go = new AtomicBoolean();
        CountDownLatch done = new CountDownLatch(n);
        List<Thread> parked = parkers(n, go, workUs, rec, done);
        awaitParked(parked);
        List<ForkJoinWorkerThread> carriers = carriers(pool);
        List<int[]> queues = new ArrayList<>();
        List<long[]> rest = new ArrayList<>(); // {nanos since the origin, submissions, steals}
        AtomicBoolean sampling = new AtomicBoolean(true);
        long stealsBefore = pool.getStealCount();
        Thread sampler = Thread.ofPlatform().daemon().name("s37-sampler").start(() -> {
            while (sampling.get()) {
                int[] q = new int[carriers.size()];
                for (int i = 0; i < q.length; i++) q[i] = carriers.get(i).getQueuedTaskCount();
                queues.add(q);
                rest.add(new long[] {System.nanoTime() - rec.originNanos(), pool.getQueuedSubmissionCount(),
                        pool.getStealCount() - stealsBefore});
                LockSupport.parkNanos(sampleUs * 1_000L);
            }
        });
        long t0 = System.nanoTime();
        Thread waker = waker(parked, go, rec);
        try {
            if (!done.await(60 + (long) n * workUs / 1_000_000, TimeUnit.SECONDS) || !waker.join(Duration.ofSeconds(10))) {
                throw new Experiment.RunFailed(done.getCount() + " of " + n + " woken threads had not ended");
            }
        } finally {
            sampling.set(false);
            sampler.join();
        }
        double elapsedMs = (System.nanoTime() - t0) / 1e6;
        for (Thread t : parked) t.join();
        pool.awaitQuiescence(5, TimeUnit.SECONDS); // every carrier idle: its steals are in the count
        long steals = pool.getStealCount() - stealsBefore;
        List<Segment> segments = rec.segments();
        rec.problem().ifPresent(problem -> { throw new Experiment.RunFailed("the recording failed: " + problem); });
        Segment wake = segments.stream().filter(s -> s.kind().equals("waker")).findFirst().orElseThrow();
        String home = wake.carrier();
        int wakerIndex = -1;
        for (int i = 0; i < carriers.size(); i++) if (carriers.get(i).getName().equals(home)) wakerIndex = i;
        if (wakerIndex < 0) throw new Experiment.RunFailed("the waker's carrier " + home + " is none of " + carriers);
        List<Sample> samples = new ArrayList<>();
        long wakerMax = 0, othersMax = 0, submissionsMax = 0;
        for (int i = 0; i < queues.size(); i++) {
            int mine = queues.get(i)[wakerIndex], others = 0;
            for (int c = 0; c < carriers.size(); c++) if (c != wakerIndex) others += queues.get(i)[c];
            long[] r = rest.get(i);
            samples.add(new Sample(Math.round(r[0] / 1e3) / 1e3, mine, others, (int) r[1], r[2]));
            wakerMax = Math.max(wakerMax, mine);
            othersMax = Math.max(othersMax, others);
            submissionsMax = Math.max(submissionsMax, r[1]);
        }
        int off = (int) segments.stream().filter(s -> s.kind().equals("woken") && !s.carrier().equals(home)).count();
        return new UnparkStealing.Run(Runtime.version().toString(), Runtime.version().feature(), p, n, workUs, sampleUs,
                home, Math.round(wake.nanos() / 1e4) / 1e2, Math.round(elapsedMs * 10) / 10.0, steals, off,
                Math.round(off * 1000.0 / n) / 1000.0, wakerMax, othersMax, submissionsMax, segments, samples);
    }

    /** The pool's carriers (maxPoolSize = P: the same ones for the whole round). */
    static List<ForkJoinWorkerThread> carriers(ForkJoinPool pool) throws InterruptedException {
        Thread[] wake = new Thread[4 * pool.getParallelism()]; // makes every carrier start
        for (int i = 0; i < wake.length; i++) wake[i] = Thread.ofVirtual().start(() -> spin(2_000));
        for (Thread t : wake) t.join();
        List<ForkJoinWorkerThread> out = new ArrayList<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t instanceof ForkJoinWorkerThread w && w.getPool() == pool) out.add(w);
        }
        out.sort((x, y) -> MountRecorder.CARRIER_ORDER.compare(x.getName(), y.getName()));
        return out;
    }

    static void awaitParked(List<Thread> threads) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (Thread t : threads) {
            while (t.getState() != Thread.State.WAITING) {
                if (System.nanoTime() > deadline) throw new Experiment.RunFailed(t + " never parked");
                Thread.sleep(1);
            }
        }
    }
}

/*
 * How to run:
 *   tools/jbang unpark-stealing                      (2,000 threads, 50 µs each, on 2 carriers)
 *   tools/jbang unpark-stealing --jdk 21             (the same classes on JDK 21)
 *   tools/jbang unpark-stealing --carriers 4 --threads 10000
 *
 * What you should see (2 cores, 2,000 threads x 50 us, 2026-11-28):
 *   JDK 25.0.3  the waker ran 0.9 ms; its carrier's queue held up to 1,991, the other carrier's 0, the submission
 *               queues 0; 718 (36 %) run by the other carrier; the steal count rose by 719 (those and the waker).
 *   JDK 21.0.8  1.3 ms; up to 1,998 in the waker's carrier's queue, 0 elsewhere; 885 (44 %) stolen; steals +886,
 *               added in steps (WorkQueue.topLevelExec adds a run of polls from one queue when it ends).
 *   The share stolen moves with what else runs on the cores (an estimate of 50 %, not a bound).
 */
