///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/core/Experiment.java
//SOURCES ../helpers/unpinned/experiments/UnparkStealing.java
package unpinned.snippets;

/*
 * S37: stealing, drawn where it happens: one virtual thread unparks N parked ones, and the other carriers take
 * them from its carrier's own queue.
 * The bound: about (P - 1) / P of the woken threads run on another carrier (an estimate, not a bound); the steal
 * counter rises by about the stolen ones, not by N.
 * The pitfall: the scheduler reads its properties at the first virtual thread, so main fixes parallelism =
 * maxPoolSize = --carriers first. Results go to results/s37-unpark-stealing/.
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

    /**
     * One virtual thread unparks them all, back to back: each goes to this carrier's own queue. JDK 21's
     * VirtualThread.unpark calls switchToCarrierThread() then submitRunContinuation(); JDK 25's pins the
     * continuation and calls execute(); on both ForkJoinPool.poolSubmit reads JLA.currentCarrierThread() and
     * pushes to that carrier's queue, not to the shared submission queues a start uses (S27). That carrier is busy
     * running the waker, so idle carriers scan and steal; once the waker ends, its carrier pops the rest
     * (WorkQueue.topLevelExec -> nextLocalTask). The steal counter counts scanned takes only (JDK 25:
     * ForkJoinPool.runWorker; JDK 21: WorkQueue.topLevelExec, with later polls of the same queue).
     */
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
 * What you should see: the waker's carrier's queue fills to nearly N, the submission queues stay near 0, and a
 * share near (P - 1) / P runs on another carrier. Reference runs:
 * data/reference-runs/snippets/S37-unpark-stealing.md.
 */
