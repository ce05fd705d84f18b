///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/workloads/Carriers.java
//SOURCES ../helpers/unpinned/running/Jdks.java
//SOURCES ../helpers/unpinned/experiments/SchedulerInternals.java
package unpinned.snippets;

/*
 * S28: when does the virtual-thread scheduler add a carrier (compensate) for a blocked one, and how many?
 * The question: the scheduler compensates not for pinning but for "managed blocking", a call wrapped in
 * jdk.internal.misc.Blocker.begin()/end(), and which calls do that differs by JDK (see block). --mode cases: N
 * virtual threads block S ms on P carriers, one case at a time; --mode sweep: N = 1, 2, ... in a pipe read.
 * The bound: a case that unmounts or is compensated lets all N into the blocking call at once, one that holds the
 * carrier with no spare only P; with every carrier busy the sweep's pool is P + max(0, N - (P - minRunnable))
 * (see sweep).
 * The pitfall: a spare lives 30 s, so later cases may reuse it (each reports the pool before and during it); the
 * properties are read at the first virtual thread, so main sets them first. The pipes need Linux or macOS.
 * Results go to results/s28-compensation/.
 */

import unpinned.workloads.Carriers;
import unpinned.core.Experiment;
import unpinned.running.Jdks;
import unpinned.core.Protocol;
import unpinned.experiments.SchedulerInternals;
import unpinned.experiments.SchedulerInternals.CompensationCase;
import unpinned.experiments.SchedulerInternals.SweepStep;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

public class S28_Compensation {
    // ---- the code under study ---------------------------------------------------------------------------------

    static void synchronizedSleep(long ms) throws InterruptedException {
        Object own = new Object();
        synchronized (own) {
            Thread.sleep(ms);
        }
    }

    /** Waits on a lock of its own that nobody notifies; a spurious wake-up waits again. */
    static void objectWait(long ms) throws InterruptedException {
        Object own = new Object();
        synchronized (own) {
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
            for (long left; (left = end - System.nanoTime()) > 0; ) own.wait(Math.max(1, (left + 999_999) / 1_000_000));
        }
    }

    /** Reads one byte from a FIFO: blocks in FileInputStream.read() until main writes to it. */
    static void fileRead(Path fifo) throws IOException {
        try (InputStream in = new FileInputStream(fifo.toFile())) {
            in.read();
        }
    }

    /** Reads a child's standard output (a pipe): blocks in read() until the child ends (EOF). */
    static void processRead(Process child) throws Exception {
        try (InputStream in = child.getInputStream()) {
            while (in.read() != -1) { } // the child prints nothing
        }
    }

    /** Keeps a carrier busy until {@code deadline} (System.nanoTime), without blocking: no compensation. */
    static void spin(long deadline, AtomicBoolean stop) {
        while (System.nanoTime() < deadline && !stop.get()) Thread.onSpinWait();
    }

    /**
     * Case {@code name} for thread {@code i}: children (process-read) or the FIFO (file-read) come prepared.
     * Managed blocking asks for a spare (CarrierThread.beginBlocking -> ForkJoinPool.beginCompensatedBlock ->
     * tryCompensate). JDK 21.0.8 (javap -c): FileInputStream.read and Object.wait(long) call Blocker.begin. JDK 25
     * (src.zip): they call read0 and wait0 with no Blocker; Process.PipeInputStream, System.in,
     * FileDescriptor.sync, InetAddress and some FileChannelImpl and RandomAccessFile paths still do. Since JEP 491
     * (JDK 24) synchronized-sleep and object-wait unmount instead.
     */
    static void block(String name, int sleepMs, List<Process> children, Path fifo, int i) throws Exception {
        switch (name) {
            case "none" -> Thread.sleep(sleepMs);
            case "synchronized-sleep" -> synchronizedSleep(sleepMs);
            case "object-wait" -> objectWait(sleepMs);
            case "file-read" -> fileRead(fifo);
            case "process-read" -> processRead(children.get(i));
            default -> throw new IllegalArgumentException("no case " + name);
        }
    }

    // ---- the measurement --------------------------------------------------------------------------------------

    static final List<String> CASES = List.of("none", "synchronized-sleep", "object-wait", "file-read",
            "process-read");

    public static void main(String[] args) {
        args = Jdks.honourJdkOption("S28", "S28_Compensation.java", args);
        Experiment.named("S28", "when the scheduler adds a carrier", "s28-compensation")
                .oneOf("--mode", "cases", List.of("cases", "sweep"), "the cases on P carriers, or the sweep of N")
                .someOf("--case", CASES, "the ways to block (--mode cases)")
                .count("--threads", 3, 3, 1, 100, "virtual threads per case (--mode cases)")
                .counts("--sweep-threads", List.of(1, 2, 3, 4, 5, 6), List.of(1, 2, 3, 4, 5, 6, 7, 8), 1, 64,
                        "threads blocking at once, ascending (--mode sweep)")
                .count("--sleep-ms", 200, 200, 20, 10_000, "how long each blocks, ms")
                .count("--carriers", 1, 1, 1, 64, "the scheduler's parallelism (the sweep: give e.g. 4)")
                .count("--min-runnable", 1, 1, 1, 64, "jdk.virtualThreadScheduler.minRunnable, 1..carriers"
                        + " (default: the JDK's, max(P / 2, 1))")
                .count("--max-pool-size", 256, 256, 1, 256, "jdk.virtualThreadScheduler.maxPoolSize, P..256"
                        + " (default: the JDK's, max(P, 256))")
                .check(SchedulerInternals::checkCompensation)
                .notes("--jdk 21|course: run on the JDK 21 runtime set-up installs, or the course JDK (default: this"
                        + " JVM).\ncases x threads x sleep-ms may be at most 10 minutes (if every case held its"
                        + " carrier).")
                .budget(Duration.ofSeconds(3), Duration.ofSeconds(3))
                .run(args, S28_Compensation::measure);
    }

    /** The JDK reads the properties once, at the first virtual thread: set them, then make it. */
    static SchedulerInternals.Compensation measure(Experiment.Args a) throws Exception {
        int carriers = a.intCount("--carriers"), s = a.intCount("--sleep-ms");
        Integer maxPool = a.given("--max-pool-size") ? a.intCount("--max-pool-size") : null;
        Integer minRunnable = a.given("--min-runnable") ? a.intCount("--min-runnable") : null;
        System.setProperty("jdk.virtualThreadScheduler.parallelism", Integer.toString(carriers));
        if (maxPool != null) System.setProperty("jdk.virtualThreadScheduler.maxPoolSize", maxPool.toString());
        if (minRunnable != null) {
            System.setProperty("jdk.virtualThreadScheduler.minRunnable", minRunnable.toString());
        }
        ForkJoinPool pool = Carriers.pool(carriers); // the first virtual thread: the scheduler is created now
        boolean sweep = a.oneOf("--mode").equals("sweep");
        List<CompensationCase> rows = new ArrayList<>();
        List<SweepStep> steps = new ArrayList<>();
        int n = a.intCount("--threads");
        if (sweep) {
            steps = sweep(pool, carriers, minRunnable, maxPool, a.counts("--sweep-threads"), s);
        } else {
            SchedulerInternals.announceCompensation(carriers, maxPool, n, s);
            for (String name : CASES.stream().filter(a.someOf("--case")::contains).toList()) {
                Protocol.progress("case " + name);
                rows.add(runCase(name, pool, carriers, n, s));
                System.out.println(rows.get(rows.size() - 1).line());
            }
        }
        return new SchedulerInternals.Compensation(Runtime.version().toString(), Runtime.version().feature(),
                pool.getParallelism(), maxPool, n, s, rows, a.oneOf("--mode"), minRunnable,
                SchedulerInternals.minRunnable(carriers, minRunnable), steps);
    }

    /** One case: its threads blocking at once, the most of them inside the blocking call at the same time. */
    static CompensationCase runCase(String name, ForkJoinPool pool, int carriers, int n, int s) throws Exception {
        List<Process> children = new ArrayList<>();
        Path dir = null, fifo = null;
        RandomAccessFile holder = null; // the FIFO's writer end, so that a reader's open() does not block
        Thread releaser = null;
        try {
            for (int i = 0; name.equals("process-read") && i < n; i++) {
                children.add(new ProcessBuilder("sleep", String.format(Locale.ROOT, "%.3f", s / 1e3))
                        .redirectErrorStream(true).start());
            }
            if (name.equals("file-read")) {
                dir = Files.createTempDirectory("s28-");
                fifo = SchedulerInternals.mkfifo(dir.resolve("fifo"));
                holder = new RandomAccessFile(fifo.toFile(), "rw"); // O_RDWR: opens a FIFO without waiting
                RandomAccessFile out = holder;
                releaser = Thread.ofPlatform().daemon().name("s28-fifo-writer").start(() -> {
                    try {
                        Thread.sleep(s);
                        out.write(new byte[n]); // one byte per reader
                    } catch (InterruptedException | IOException e) {
                        // the case ends (or fails) without it: its readers are interrupted below
                    }
                });
            }
            AtomicInteger inside = new AtomicInteger(), insideMax = new AtomicInteger();
            int before = pool.getPoolSize();
            Path f = fifo;
            Carriers.Batch b = Carriers.timeBatch("case " + name, "s28-" + name + "-", n,
                    Duration.ofMillis(2L * n * s).plusSeconds(60), pool, i -> {
                        insideMax.accumulateAndGet(inside.incrementAndGet(), Math::max);
                        try {
                            block(name, s, children, f, i);
                        } finally {
                            inside.decrementAndGet();
                        }
                    });
            return CompensationCase.of(name, b.elapsedMs(), s, before, b.carriersMax(), carriers, insideMax.get());
        } finally {
            if (releaser != null) releaser.interrupt();
            if (holder != null) holder.close();
            for (Process p : children) p.destroyForcibly();
            if (fifo != null) Files.deleteIfExists(fifo);
            if (dir != null) Files.deleteIfExists(dir);
        }
    }

    /**
     * The sweep: for each N (ascending), N threads block in a pipe read while spinners keep every carrier busy.
     * ForkJoinPool.tryCompensate (21 and 25) first wakes an idle carrier; else, while more than minRunnable
     * carriers stay active, it only counts the blocked one inactive; only then does it start a spare, up to
     * maxPoolSize: P + max(0, N - (P - minRunnable)), minRunnable defaulting to max(P / 2, 1)
     * (VirtualThread.createDefaultScheduler). A spare lives 30 s and the next N reuses it, which the formula
     * allows for (it only grows with N); without the spinners idle carriers would be woken instead.
     */
    static List<SweepStep> sweep(ForkJoinPool pool, int p, Integer minRunnable, Integer maxPool, List<Integer> ns,
                                 int s) throws Exception {
        int min = SchedulerInternals.minRunnable(p, minRunnable);
        System.out.printf(Locale.ROOT, "%d carriers (checked), minRunnable %d%s, maxPoolSize %s, Java %s; N threads"
                + " block %,d ms in a pipe read while spinners keep every carrier busy; expected pool size"
                + " P + max(0, N - (P - minRunnable))%n", p, min, minRunnable == null ? " (the JDK's default)" : "",
                maxPool == null ? "the JDK's default" : maxPool, Runtime.version(), s);
        Protocol.progress("warm-up: every carrier started, a pipe read");
        warmUp(p);
        List<SweepStep> steps = new ArrayList<>();
        for (int n : ns) {
            Protocol.progress("sweep: " + n + " blocked");
            steps.add(sweepStep(pool, p, min, maxPool, n, s));
            System.out.println(steps.get(steps.size() - 1).line());
        }
        return steps;
    }

    /**
     * Starts all P carriers (2 x P spinners for 50 ms) and loads the classes of a pipe read, with every carrier idle
     * meanwhile: a block that finds an idle carrier wakes it, so this read makes no spare.
     */
    static void warmUp(int p) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
        Thread[] spinners = new Thread[2 * p];
        for (int i = 0; i < spinners.length; i++) spinners[i] = Thread.ofVirtual().start(() -> spin(until, stop));
        if (!Carriers.joinAll(spinners, System.nanoTime() + TimeUnit.SECONDS.toNanos(30))) {
            throw new Experiment.RunFailed("warm-up: a spinner had not ended after 30 s");
        }
        Process child = new ProcessBuilder("cat").redirectErrorStream(true).start();
        try {
            child.getOutputStream().close(); // cat ends at once: the read gets EOF
            Thread reader = Thread.ofVirtual().start(() -> {
                try {
                    processRead(child);
                } catch (Exception e) {
                    stop.set(true);
                }
            });
            if (!reader.join(Duration.ofSeconds(30)) || stop.get()) {
                throw new Experiment.RunFailed("warm-up: the pipe read failed or had not ended after 30 s");
            }
        } finally {
            child.destroyForcibly();
        }
    }

    /**
     * N blockers first, then more spinners than carriers can ever run at once (FIFO: the blockers go first). A blocker
     * reads only once all P carriers run something: the pool wakes its carriers one by one, and a block that found
     * one still idle would wake it instead of counting against minRunnable.
     */
    static SweepStep sweepStep(ForkJoinPool pool, int p, int min, Integer maxPool, int n, int s) throws Exception {
        List<Process> children = new ArrayList<>();
        List<Thread> threads = new ArrayList<>();
        AtomicBoolean stop = new AtomicBoolean();
        try {
            for (int i = 0; i < n; i++) children.add(new ProcessBuilder("cat").redirectErrorStream(true).start());
            AtomicInteger inside = new AtomicInteger(), insideMax = new AtomicInteger(), running = new AtomicInteger();
            int before = pool.getPoolSize();
            long t0 = System.nanoTime(), release = t0 + TimeUnit.MILLISECONDS.toNanos(s);
            long spinUntil = release + TimeUnit.MILLISECONDS.toNanos(30);
            for (Process child : children) {
                threads.add(Thread.ofVirtual().start(() -> {
                    running.incrementAndGet();
                    while (running.get() < p && System.nanoTime() < release) Thread.onSpinWait();
                    insideMax.accumulateAndGet(inside.incrementAndGet(), Math::max);
                    try {
                        processRead(child);
                    } catch (Exception e) {
                        stop.set(true); // a failed read is seen below: fewer inside than N
                    } finally {
                        inside.decrementAndGet();
                    }
                }));
            }
            for (int i = 0; i < p + n + 2; i++) {
                threads.add(Thread.ofVirtual().start(() -> {
                    running.incrementAndGet();
                    spin(spinUntil, stop);
                }));
            }
            int most = before;
            while (System.nanoTime() < release) {
                most = Math.max(most, pool.getPoolSize());
                Thread.sleep(1);
            }
            int blockedAtRelease = inside.get();
            for (Process child : children) child.getOutputStream().close(); // cat ends: each read gets EOF
            if (!Carriers.joinAll(threads.toArray(Thread[]::new), System.nanoTime() + TimeUnit.SECONDS.toNanos(30))) {
                throw new Experiment.RunFailed("sweep at " + n + " blocked threads: a thread had not ended after 30 s");
            }
            most = Math.max(most, pool.getPoolSize());
            return SweepStep.of(n, p, min, maxPool, before, most, insideMax.get(), blockedAtRelease,
                    (System.nanoTime() - t0) / 1e6);
        } finally {
            stop.set(true);
            for (Process child : children) child.destroyForcibly();
        }
    }
}

/*
 * How to run:
 *   tools/jbang compensation                      (five cases, 3 threads x 200 ms, on 1 carrier)
 *   tools/jbang compensation --jdk 21             (the same classes on the JDK 21 runtime)
 *   tools/jbang compensation --jdk 21 --max-pool-size 1   (no spare allowed)
 *   tools/jbang compensation --mode sweep --carriers 4 [--min-runnable 4]
 *
 * What you should see: cases: N threads in the call at once where the JDK unmounts or compensates, P where it pins
 * with no spare; sweep: the pool at exactly the formula's size. Reference runs:
 * data/reference-runs/snippets/S28-compensation.md.
 */
