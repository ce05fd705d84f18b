///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/Carriers.java
//SOURCES ../helpers/unpinned/Profile.java
//SOURCES ../helpers/unpinned/Machine.java
//SOURCES ../helpers/unpinned/Course.java
//SOURCES ../helpers/unpinned/Json.java
//SOURCES ../helpers/unpinned/Results.java
//SOURCES ../helpers/unpinned/Measurement.java
//SOURCES ../helpers/unpinned/RunGuard.java
//SOURCES ../helpers/unpinned/Cli.java
//SOURCES ../helpers/unpinned/Protocol.java
//SOURCES ../helpers/unpinned/Jdks.java
//SOURCES ../helpers/unpinned/ChildRun.java
//SOURCES ../helpers/unpinned/Show.java
package unpinned.snippets;

/*
 * S27: when a virtual thread becomes runnable, which queue of the scheduler does it wait in?
 *
 * The question: the scheduler is a ForkJoinPool with two kinds of queues: one per carrier (a worker's own
 * queue, which other carriers steal from) and the pool's shared submission queues. N virtual threads go
 * down each of six paths to "runnable", each then spinning W µs (so that queues build up), on P carriers:
 *   start-virtual     started by one virtual thread       start-platform   started by a platform thread
 *   unpark-virtual    parked, unparked by a virtual thread unpark-platform  the same, by a platform thread
 *   sleep-wakeup      each wakes from Thread.sleep         yield            each yields 10 times (sampled once
 *                                                                           all are unparked and running)
 * A platform thread samples the pool every --sample-us while a path runs: getQueuedSubmissionCount()
 * (submission queues), getQueuedTaskCount() (the workers' own queues), getPoolSize(), and the steal count.
 *
 * The prediction, from the JDK sources (java.lang.VirtualThread; ForkJoinPool.poolSubmit):
 *   start: JDK 21 start() calls submitRunContinuation() -> scheduler.execute(), and ForkJoinPool.poolSubmit
 *     pushes to a worker's own queue only if Thread.currentThread() is that worker; in a virtual thread it
 *     is the virtual thread, so the task goes to a submission queue. JDK 25 start() calls
 *     externalSubmitRunContinuationOrThrow(): a submission queue on purpose. Both: submission queues.
 *   unpark from a virtual thread: JDK 21 unpark() does switchToCarrierThread() and then
 *     submitRunContinuation(); JDK 25 submitRunContinuation() pins and calls execute(), and poolSubmit reads
 *     JLA.currentCarrierThread(). Both: the waker's carrier's own queue, so the other carriers steal.
 *   unpark from a platform thread: not a worker, so a submission queue (both).
 *   sleep: JDK 21 schedules the unpark on a ScheduledThreadPoolExecutor ("VirtualThread-unparker", a
 *     platform thread: submission queues); JDK 25 schedules parkTimeoutExpired in the pool itself
 *     (ForkJoinPool.schedule): the expired timer task goes to a submission queue, and a carrier running it
 *     unparks with lazySubmitRunContinuation(): its own queue. So 21 and 25 may differ here.
 *   yield: afterYield() externalSubmitRunContinuation()s when the carrier's own queue is empty, else
 *     pushes to it (both): submission queues, as long as nothing else fills a worker's queue. Threads that
 *     wait by yielding in a loop kept threads still waiting to start from ever starting, in a first version of
 *     this snippet (a hang on JDK 25: ForkJoinPool.runWorker keeps taking from one queue while it has tasks),
 *     so here they park first and yield once unparked.
 * createDefaultScheduler() builds the pool with asyncMode = true (FIFO) on both: a worker takes its own
 * queue's tasks from the same end the thieves do, not "the other end". Read here: getAsyncMode().
 *
 * The pitfalls: the counters are estimates read while the pool runs, and a sample sees a moment, so the
 * maxima depend on --sample-us and on how long each task runs (--work-us): with no work, the queues drain as
 * fast as they fill. getStealCount() counts every task a worker took by scanning the pool's queues, the
 * submission queues included, so steals > 0 alone does not mean "taken from another carrier". The JVM
 * reads the scheduler's properties once, at its first virtual thread: main sets them first and checks the
 * pool it got (maxPoolSize = P: no extra carrier). A warm-up round of every path goes first (JIT).
 * Results go to results/s27-which-queue/.
 */

import unpinned.Carriers;
import unpinned.Cli;
import unpinned.Jdks;
import unpinned.Profile;
import unpinned.Protocol;
import unpinned.Results;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

public class S27_WhichQueue {
    static final String USAGE = """
            usage: S27_WhichQueue [--path NAME|all] [--threads N] [--carriers P] [--work-us W] [--sample-us S]
                                  [--jdk 21|course]
              --path NAME     start-virtual, start-platform, unpark-virtual, unpark-platform, sleep-wakeup, yield,
                              several comma-separated, or all (default all)
              --threads N     virtual threads per path, 1..100,000 (default 2,000)
              --carriers P    carriers of the scheduler, 1..64 (default 2)
              --work-us W     what each thread spins once runnable, 1..10,000 µs (default 20)
              --sample-us S   pause between two samples of the pool, 0..1,000 µs (default 20; 0: spin)
              --jdk 21|course run on the JDK 21 runtime set-up installs, or the course JDK (default: this JVM)
            paths x threads x work-us x (1 + yields) may be at most 10 minutes (as if on one carrier).""";

    static final String ID = "s27-which-queue";
    static final List<String> PATHS = List.of("start-virtual", "start-platform", "unpark-virtual", "unpark-platform",
            "sleep-wakeup", "yield");
    static final int YIELDS = 10, WARM_UP_THREADS = 200;
    static final long BUDGET_US = TimeUnit.MINUTES.toMicros(10);

    // ---- the code under study: how each path makes N virtual threads runnable -------------------------------

    /** Spins {@code micros}: short, non-zero work, so runnable threads pile up in the queues. */
    static void work(long micros) {
        long end = System.nanoTime() + micros * 1_000;
        while (System.nanoTime() < end) Thread.onSpinWait();
    }

    /**
     * Runs one path with {@code n} threads; {@code sampling} starts just before the threads are made runnable, the
     * samples count while {@code counting} is set, and {@code done} counts the threads' ends.
     */
    static void path(String name, int n, long workUs, Runnable sampling, AtomicBoolean counting, CountDownLatch done)
            throws Exception {
        Runnable task = () -> { work(workUs); done.countDown(); };
        switch (name) {
            case "start-virtual", "start-platform" -> {
                Runnable starter = () -> { for (int i = 0; i < n; i++) Thread.ofVirtual().start(task); };
                sampling.run();
                if (name.equals("start-virtual")) joinWithin(Thread.ofVirtual().start(starter));
                else starter.run(); // main: a platform thread
            }
            case "unpark-virtual", "unpark-platform" -> {
                AtomicBoolean go = new AtomicBoolean();
                List<Thread> parked = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    parked.add(Thread.ofVirtual().start(() -> {
                        while (!go.get()) LockSupport.park(); // a spurious wake-up parks again
                        task.run();
                    }));
                }
                awaitState(parked, Thread.State.WAITING); // all parked, none queued: then sample
                Runnable waker = () -> { go.set(true); for (Thread t : parked) LockSupport.unpark(t); };
                sampling.run();
                if (name.equals("unpark-virtual")) joinWithin(Thread.ofVirtual().start(waker));
                else waker.run();
            }
            case "sleep-wakeup" -> {
                long wakeAt = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50) + n * 2_000L; // all asleep by then
                List<Thread> sleepers = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    sleepers.add(Thread.ofVirtual().start(() -> {
                        try {
                            Thread.sleep(TimeUnit.NANOSECONDS.toMillis(Math.max(1, wakeAt - System.nanoTime())));
                        } catch (InterruptedException e) {
                            return; // never counted: the path then times out and fails
                        }
                        task.run();
                    }));
                }
                awaitState(sleepers, Thread.State.TIMED_WAITING);
                sampling.run();
            }
            case "yield" -> { // parked first, so that no thread waits to start (yielders would starve it)
                AtomicBoolean go = new AtomicBoolean();
                AtomicInteger resumed = new AtomicInteger();
                List<Thread> parked = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    parked.add(Thread.ofVirtual().start(() -> {
                        while (!go.get()) LockSupport.park();
                        if (resumed.incrementAndGet() == n) counting.set(true); // only yields queued from now on
                        for (int y = 0; y < YIELDS; y++) { work(workUs); Thread.yield(); }
                        task.run();
                    }));
                }
                awaitState(parked, Thread.State.WAITING);
                counting.set(false);
                sampling.run();
                go.set(true);
                for (Thread t : parked) LockSupport.unpark(t);
            }
            default -> throw new IllegalArgumentException("no path " + name);
        }
    }

    // ---- the measurement ------------------------------------------------------------------------------------

    record Options(List<String> paths, int threads, int carriers, int workUs, int sampleUs) {}

    /** One path's figures: the largest counts sampled, the steals during it, the samples taken. */
    record Measured(String path, int submissionsMax, long workerQueueMax, long steals, int poolSizeMax, long samples,
                    double elapsedMs) {
        String verdict() {
            if (submissionsMax == 0 && workerQueueMax == 0) return "no queue seen (more --threads or --work-us)";
            return submissionsMax >= workerQueueMax ? "queued in submission queues" : "in worker queues";
        }
    }

    public static void main(String[] args) {
        args = Jdks.honourJdkOption("S27", "S27_WhichQueue.java", args);
        Profile.announceOrExit("S27");
        Options o = parse(args);
        // Before the first virtual thread: the JDK reads these once (VirtualThread.createDefaultScheduler).
        System.setProperty("jdk.virtualThreadScheduler.parallelism", Integer.toString(o.carriers()));
        System.setProperty("jdk.virtualThreadScheduler.maxPoolSize", Integer.toString(o.carriers()));
        try {
            run(o);
        } catch (Exception | OutOfMemoryError e) {
            System.err.println("S27: " + (e.getMessage() != null ? e.getMessage() : e.toString()) + "; nothing saved");
            System.exit(1);
        }
    }

    static Options parse(String[] args) {
        Cli cli = Cli.orExit("S27", USAGE, args, Set.of("--path", "--threads", "--carriers", "--work-us",
                "--sample-us"), Set.of());
        try {
            List<String> paths = cli.someOf("--path", PATHS);
            int threads = cli.intValue("--threads", 2_000, 1, 100_000);
            int carriers = cli.intValue("--carriers", 2, 1, 64);
            int workUs = cli.intValue("--work-us", 20, 1, 10_000);
            int sampleUs = cli.intValue("--sample-us", 20, 0, 1_000);
            long worstUs = (long) paths.size() * threads * workUs * (1 + YIELDS);
            if (worstUs > BUDGET_US) {
                throw new IllegalArgumentException(String.format(Locale.ROOT, "--path x --threads x --work-us x %d ="
                        + " %,d s of work; at most 10 minutes (600 s) allowed: use fewer --threads or less --work-us",
                        1 + YIELDS, worstUs / 1_000_000));
            }
            Results.checkDir();
            return new Options(paths, threads, carriers, workUs, sampleUs);
        } catch (IllegalArgumentException | IllegalStateException e) {
            return Cli.exit("S27", e.getMessage());
        }
    }

    static void run(Options o) throws Exception {
        ForkJoinPool pool = Carriers.pool(); // the first virtual thread: the scheduler is created now
        if (pool.getParallelism() != o.carriers()) {
            throw new IllegalStateException(String.format(Locale.ROOT, "the scheduler has %d carriers, not the %d"
                    + " asked for: a virtual thread was created before main set the properties",
                    pool.getParallelism(), o.carriers()));
        }
        System.out.printf(Locale.ROOT, "%d carriers (checked: parallelism %d), FIFO (async) mode: %s, Java %s;"
                        + " %,d threads per path, each spinning %d µs once runnable%n", o.carriers(),
                pool.getParallelism(), pool.getAsyncMode(), Runtime.version(), o.threads(), o.workUs());
        for (String p : o.paths()) measure(p, Math.min(WARM_UP_THREADS, o.threads()), o, pool); // warm-up
        List<Map<String, Object>> rows = new ArrayList<>();
        for (String p : o.paths()) {
            Protocol.progress("path " + p);
            Measured m = measure(p, o.threads(), o, pool);
            System.out.printf(Locale.ROOT, "%-16s submissions max %,6d | worker queues max %,6d | steals %,6d |"
                            + " pool size max %d | %,d samples in %,.1f ms -> %s%n", m.path(), m.submissionsMax(),
                    m.workerQueueMax(), m.steals(), m.poolSizeMax(), m.samples(), m.elapsedMs(), m.verdict());
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("path", m.path());
            row.put("submissionsMax", m.submissionsMax());
            row.put("workerQueueMax", m.workerQueueMax());
            row.put("steals", m.steals());
            row.put("poolSizeMax", m.poolSizeMax());
            row.put("samples", m.samples());
            row.put("elapsedMs", Math.round(m.elapsedMs() * 10) / 10.0);
            row.put("verdict", m.verdict());
            rows.add(row);
        }
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("javaVersion", Runtime.version().toString());
        data.put("feature", Runtime.version().feature());
        data.put("carriers", o.carriers());
        data.put("asyncMode", pool.getAsyncMode());
        data.put("threads", o.threads());
        data.put("workUs", o.workUs());
        data.put("sampleUs", o.sampleUs());
        data.put("paths", rows);
        Protocol.result(data);
        System.out.println("saved " + Results.save(ID, data));
    }

    /** Runs one path while a platform thread samples the pool; fails if the path outlives a generous timeout. */
    static Measured measure(String name, int n, Options o, ForkJoinPool pool) throws Exception {
        CountDownLatch done = new CountDownLatch(n);
        AtomicBoolean counting = new AtomicBoolean(true);
        long[] max = new long[4]; // submissions, worker queues, pool size, samples: written by the sampler only
        long[] stealsBefore = new long[1], t0 = new long[1];
        Thread sampler = Thread.ofPlatform().daemon().name("s27-sampler").unstarted(() -> {
            while (done.getCount() > 0 && !Thread.currentThread().isInterrupted()) {
                if (counting.get()) {
                    max[0] = Math.max(max[0], pool.getQueuedSubmissionCount());
                    max[1] = Math.max(max[1], pool.getQueuedTaskCount());
                    max[2] = Math.max(max[2], pool.getPoolSize());
                    max[3]++;
                }
                if (o.sampleUs() > 0) LockSupport.parkNanos(o.sampleUs() * 1_000L);
                else Thread.onSpinWait();
            }
        });
        Runnable sampling = () -> { stealsBefore[0] = pool.getStealCount(); t0[0] = System.nanoTime(); sampler.start(); };
        long timeoutMs = 60_000 + (long) n * o.workUs() * (1 + YIELDS) / 1_000;
        try {
            path(name, n, o.workUs(), sampling, counting, done);
            if (!done.await(timeoutMs, TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(String.format(Locale.ROOT, "path %s: %,d of %,d threads had not"
                        + " ended after %,d s", name, done.getCount(), n, timeoutMs / 1_000));
            }
        } finally {
            sampler.interrupt();
            sampler.join(); // its maxima are visible after join
        }
        double elapsedMs = (System.nanoTime() - t0[0]) / 1e6;
        pool.awaitQuiescence(5, TimeUnit.SECONDS); // the steal counts settle once the workers are idle
        return new Measured(name, (int) max[0], max[1], pool.getStealCount() - stealsBefore[0], (int) max[2], max[3],
                elapsedMs);
    }

    static void joinWithin(Thread t) throws InterruptedException {
        if (!t.join(java.time.Duration.ofSeconds(60))) throw new IllegalStateException(t + " had not ended after 60 s");
    }

    /** Waits until every thread is in {@code state} (parked, or asleep): nothing of the path is queued then. */
    static void awaitState(List<Thread> threads, Thread.State state) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (Thread t : threads) {
            while (t.getState() != state) {
                if (System.nanoTime() > deadline) throw new IllegalStateException(t + " never reached " + state);
                Thread.sleep(1);
            }
        }
    }
}

/*
 * How to run:
 *   tools/jbang which-queue                          (all six paths, 2,000 threads each, on 2 carriers)
 *   tools/jbang which-queue --jdk 21                 (the same classes on the JDK 21 runtime)
 *   tools/jbang which-queue --path unpark-virtual --threads 10000 --carriers 4
 *
 * What you should see (2 cores, 2 carriers, 2,000 threads x 20 µs; JDK 25.0.3 and 21.0.8 alike, ~5 s / ~12 s):
 *   path             submissions max   worker queues max   steals          verdict
 *   start-virtual    ~1,600-1,800      0                   2,001           queued in submission queues
 *   start-platform   ~1,950-2,000      0                   2,000           queued in submission queues
 *   unpark-virtual   0                 ~1,850-1,900        ~1,025-1,030    in worker queues
 *   unpark-platform  ~1,900-1,950      0                   2,000           queued in submission queues
 *   sleep-wakeup     ~1,450-1,850      0 (25: at most 1)   2,000           queued in submission queues
 *   yield            ~2,000            0                   22,000          queued in submission queues
 *   FIFO (async) mode true, pool size never above 2. So chapter 04's "a started thread waits in its spawner's
 *   carrier's queue" holds for neither JDK: starts wait in the shared submission queues (every task taken from
 *   them counts as a steal: 2,000 of 2,000), and only the unparks a virtual thread makes fill one carrier's own
 *   queue, about half of which the other carrier steals. On 25 a sleep's timer task waits in a submission queue
 *   and the carrier that runs it pushes the woken thread to its own queue and runs it next (1 at most).
 */
