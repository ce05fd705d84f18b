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
package unpinned.snippets;

/*
 * S11: how often the operating system switches threads while 200 threads keep sleeping.
 *
 * The question: 200 threads each sleep 10 ms, 100 times. How many context switches does the
 * process cause per second, and how does its CPU time split between user code and the kernel,
 * when they are platform threads and when they are virtual threads?
 *
 * The pitfall: a sleeping platform thread is an OS thread; each sleep blocks it in the kernel and
 * each wake-up schedules it again. So 200 platform threads cause at least 200 x 100 = 20,000
 * voluntary switches in at least 100 x 10 ms = 1 s, about threads / sleep = 20,000 switches/s,
 * and much of their CPU time is the kernel's. A sleeping virtual thread unmounts from its carrier
 * with no OS switch. Only the carriers (one per core) and the JDK's timer thread, which makes due
 * sleepers ready, block in the kernel: a carrier when no virtual thread is ready, the timer until the
 * next sleeper is due. So the count follows how often the carriers run dry, at most about one switch
 * each per timer wake-up, not one per sleep; its only lower bound is 0, and it varies from run to run.
 *
 * The source (Ray123's seminar write-up, perf on Linux, 3 runs; see data/sources.md) published
 * ~19,900 switches/s with user:kernel ~1.3 : 1 for platform threads, ~5,300/s and ~6.2 : 1 for virtual.
 * perf stat covers the whole JVM, start-up and JIT compilation included (mostly user time); this
 * snippet counts only the measured window, so its user:kernel ratios are lower for both kinds.
 *
 * How it counts (Linux only): switches are voluntary_ctxt_switches + nonvoluntary_ctxt_switches summed
 * over /proc/self/task/<tid>/status, one snapshot before the first worker starts and one after all
 * have done their sleeps. A thread that exits takes its counts with it, so every worker stays alive
 * (waiting on a latch) until the second snapshot, and tasks that vanished anyway are reported. CPU is
 * utime and stime of /proc/self/stat, which cover exited threads too, in 10 ms ticks (so a window of
 * a few ticks gives a rough ratio). One kind per JVM: each JVM keeps the OS threads its kind needs.
 * Results go to results/s11-context-switches/.
 */

import unpinned.Carriers;
import unpinned.Cli;
import unpinned.Profile;
import unpinned.Protocol;
import unpinned.Results;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

public class S11_ContextSwitches {
    static final String USAGE = """
            usage: S11_ContextSwitches [--kind platform|virtual] [--threads N] [--sleeps N] [--sleep-ms N]
                                       [--warmup-sleeps N]
              --kind K           platform or virtual threads (default virtual); one kind per JVM
              --threads N        threads, each sleeping --sleeps times: 1..10000 platform (each is an OS thread),
                                 1..1000000 virtual (default 200)
              --sleeps N         sleeps per thread, 1..100000 (default 100)
              --sleep-ms N       length of one sleep, 1..10000 ms (default 10)
              --warmup-sleeps N  sleeps per thread in an unmeasured run first, 0..10000 (default 10)
            (--warmup-sleeps + --sleeps) x --sleep-ms may be at most 10 minutes. Linux only (reads /proc).""";

    static final int MAX_PLATFORM_THREADS = 10_000;
    static final int MAX_VIRTUAL_THREADS = 1_000_000;
    static final long MAX_SLEEPING_MS = TimeUnit.MINUTES.toMillis(10);
    /** USER_HZ: /proc gives CPU time in ticks of 1/100 s on every mainstream Linux build. */
    static final double TICKS_PER_SECOND = 100;
    static final Path PROC_TASKS = Path.of("/proc/self/task");
    static final Path PROC_STAT = Path.of("/proc/self/stat");
    /** Workers' names, which Linux JDKs give their OS threads too (/proc/self/task/<tid>/comm). */
    static final String WORKER_PREFIX = "s11-worker-";

    record Options(String kind, int threads, int sleeps, int sleepMs, int warmUpSleeps) {
        boolean platform() {
            return kind.equals("platform");
        }
    }

    /** What one run measured: switches and CPU ticks between the two snapshots. */
    record Measured(double elapsedSeconds, long voluntary, long involuntary, long userTicks, long kernelTicks,
                    int tasksVanished, int osThreadsAtEnd) {}

    public static void main(String[] args) {
        Profile.announceOrExit("S11");
        Options o = parse(args);
        try {
            Results.checkDir();
        } catch (IllegalStateException e) {
            Cli.exit("S11", e.getMessage());
        }
        if (!Files.isReadable(PROC_STAT) || !Files.isDirectory(PROC_TASKS)) {
            Cli.exit("S11", "this experiment reads Linux's /proc (per-thread context switches and process CPU time),"
                    + " which this system doesn't have; run it on Linux");
        }
        System.out.printf(Locale.ROOT, "%s threads: %,d x %,d sleeps of %,d ms, %d cores, Java %s%n", o.kind(),
                o.threads(), o.sleeps(), o.sleepMs(), Runtime.getRuntime().availableProcessors(), Runtime.version());
        if (o.platform()) {
            System.out.printf(Locale.ROOT, "expect at least %,d voluntary switches (one per sleep per thread) over at"
                    + " least %.2f s%n", (long) o.threads() * o.sleeps(), (double) o.sleeps() * o.sleepMs() / 1000);
        } else {
            System.out.printf(Locale.ROOT, "expect far fewer than one per sleep: a sleeping virtual thread unmounts"
                    + " with no OS switch; only the %d carriers and the timer thread block in the kernel, when they run"
                    + " out of work%n", Carriers.parallelism());
        }

        Measured m;
        try {
            if (o.warmUpSleeps() > 0) {
                Protocol.progress(o.kind() + ": warm-up, " + o.warmUpSleeps() + " x " + o.sleepMs() + " ms per thread");
                run(o, o.warmUpSleeps()); // JIT compilation and carrier creation happen here, not in the window
            }
            Protocol.progress(o.kind() + ": measuring, " + o.sleeps() + " x " + o.sleepMs() + " ms per thread");
            m = run(o, o.sleeps());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail("interrupted; nothing saved");
            return;
        } catch (IllegalStateException | UncheckedIOException | OutOfMemoryError e) {
            fail(e.getMessage() + "; nothing saved");
            return;
        }
        Map<String, Object> data = summarize(o, m);
        Protocol.result(data);
        System.out.println("saved " + Results.save("s11-context-switches", data));
    }

    /** A failed measurement (not bad input): one line on stderr, exit code 1. */
    static void fail(String message) {
        System.err.println("S11: " + message);
        System.exit(1);
    }

    static Options parse(String[] args) {
        Cli cli = Cli.orExit("S11", USAGE, args,
                Set.of("--kind", "--threads", "--sleeps", "--sleep-ms", "--warmup-sleeps"), Set.of());
        try {
            String kind = cli.oneOf("--kind", "virtual", List.of("platform", "virtual"));
            boolean platform = kind.equals("platform");
            int threads;
            try {
                threads = cli.intValue("--threads", 200, 1, platform ? MAX_PLATFORM_THREADS : MAX_VIRTUAL_THREADS);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(e.getMessage() + (!platform ? "" : " (with --kind platform each"
                        + " thread is an OS thread; --kind virtual allows up to 1,000,000)"));
            }
            int sleeps = cli.intValue("--sleeps", 100, 1, 100_000);
            int sleepMs = cli.intValue("--sleep-ms", 10, 1, 10_000);
            int warmUp = cli.intValue("--warmup-sleeps", 10, 0, 10_000);
            long sleepingMs = (long) (warmUp + sleeps) * sleepMs;
            if (sleepingMs > MAX_SLEEPING_MS) {
                throw new IllegalArgumentException(String.format(Locale.ROOT, "(--warmup-sleeps + --sleeps) x"
                        + " --sleep-ms = (%,d + %,d) x %,d ms = %,.0f s of sleeping per thread; at most 10 minutes"
                        + " (600 s) allowed", warmUp, sleeps, sleepMs, sleepingMs / 1e3));
            }
            return new Options(kind, threads, sleeps, sleepMs, warmUp);
        } catch (IllegalArgumentException e) {
            return Cli.exit("S11", e.getMessage());
        }
    }

    /**
     * Starts the workers, waits until each has slept {@code sleeps} times, takes the second snapshot, then lets
     * them end. Switches are read per OS thread and an exited thread's are lost, so each worker waits on
     * {@code release} after its sleeps and is released only after that snapshot.
     */
    static Measured run(Options o, int sleeps) throws InterruptedException {
        long minNanos = TimeUnit.MILLISECONDS.toNanos((long) sleeps * o.sleepMs());
        // Bounded but generous: twice the sleeping, a minute, and 20 µs per sleep for an overloaded scheduler.
        long timeoutNanos = 2 * minNanos + TimeUnit.SECONDS.toNanos(60) + 20_000L * o.threads() * (sleeps + 1);
        CountDownLatch done = new CountDownLatch(o.threads());
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<String> failure = new AtomicReference<>();
        Runnable worker = () -> {
            try {
                for (int i = 0; i < sleeps; i++) Thread.sleep(o.sleepMs());
            } catch (InterruptedException e) {
                failure.compareAndSet(null, "a worker was interrupted while sleeping");
                return;
            } finally {
                done.countDown();
            }
            try {
                release.await(timeoutNanos, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                // released or not, this worker is done
            }
        };
        Thread.Builder builder = o.platform() ? Thread.ofPlatform().daemon(true).name(WORKER_PREFIX, 0)
                : Thread.ofVirtual().name(WORKER_PREFIX, 0);
        Thread[] workers = new Thread[o.threads()];

        // Switches first, then CPU: reading hundreds of status files costs kernel time, kept out of the CPU delta.
        Map<Long, long[]> before = switches();
        long[] cpuBefore = cpuTicks();
        long start = System.nanoTime();
        long end;
        long[] cpuAfter;
        Map<Long, long[]> after;
        try {
            for (int i = 0; i < workers.length; i++) workers[i] = builder.start(worker);
            if (!done.await(timeoutNanos, TimeUnit.NANOSECONDS)) {
                throw new IllegalStateException(String.format(Locale.ROOT, "the workers had not done their %,d sleeps"
                        + " after %.0f s (at least %.1f s expected): the machine is overloaded", sleeps,
                        timeoutNanos / 1e9, minNanos / 1e9));
            }
            end = System.nanoTime();
            cpuAfter = cpuTicks();
            after = switches();
        } catch (OutOfMemoryError e) {
            throw new IllegalStateException("cannot start " + o.threads() + " " + o.kind() + " threads: "
                    + e.getMessage());
        } finally {
            release.countDown();
            for (Thread t : workers) {
                if (t != null) t.join(TimeUnit.SECONDS.toMillis(10)); // they only have to return
            }
        }
        if (failure.get() != null) throw new IllegalStateException(failure.get());
        // A joined thread's OS thread lingers a few ms: let it go now, so it can't vanish inside the next window.
        awaitOsThreadsGone(WORKER_PREFIX, TimeUnit.SECONDS.toNanos(10));

        long voluntary = 0, involuntary = 0;
        for (Map.Entry<Long, long[]> e : after.entrySet()) {
            long[] now = e.getValue(), then = before.getOrDefault(e.getKey(), new long[2]); // new task: from 0
            if (now[0] < then[0] || now[1] < then[1]) then = new long[2]; // task id reused by a new thread
            voluntary += now[0] - then[0];
            involuntary += now[1] - then[1];
        }
        int vanished = 0;
        for (Long tid : before.keySet()) if (!after.containsKey(tid)) vanished++;
        return new Measured((end - start) / 1e9, voluntary, involuntary, cpuAfter[0] - cpuBefore[0],
                cpuAfter[1] - cpuBefore[1], vanished, after.size());
    }

    /** Prints the summary and returns the result record. */
    static Map<String, Object> summarize(Options o, Measured m) {
        long switches = m.voluntary() + m.involuntary();
        double perSecond = switches / m.elapsedSeconds();
        double user = m.userTicks() / TICKS_PER_SECOND, kernel = m.kernelTicks() / TICKS_PER_SECOND;
        double ratio = m.kernelTicks() == 0 ? Double.NaN : (double) m.userTicks() / m.kernelTicks();
        long minimumVoluntary = o.platform() ? (long) o.threads() * o.sleeps() : 0;
        System.out.printf(Locale.ROOT, "%s: %,d threads x %,d sleeps of %,d ms in %.2f s: %,d context switches"
                        + " (%,d voluntary, %,d involuntary) = %,.0f/s; CPU user %.2f s : kernel %.2f s = %s%n",
                o.kind(), o.threads(), o.sleeps(), o.sleepMs(), m.elapsedSeconds(), switches, m.voluntary(),
                m.involuntary(), perSecond, user, kernel, Double.isNaN(ratio) ? "n/a (no kernel tick in the window)"
                        : String.format(Locale.ROOT, "%.1f : 1", ratio));
        System.out.printf(Locale.ROOT, "%d OS threads at the end, %d vanished during the window (their switches are"
                + " not counted)%s%n", m.osThreadsAtEnd(), m.tasksVanished(), !o.platform() ? ""
                : String.format(Locale.ROOT, "; voluntary / minimum %,d = %.2f", minimumVoluntary,
                        (double) m.voluntary() / minimumVoluntary));
        if (o.threads() == 200 && o.sleeps() == 100 && o.sleepMs() == 10) {
            System.out.println("published (perf over the whole JVM, 3 runs): " + (o.platform()
                    ? "~19,900/s, user:kernel ~1.3 : 1" : "~5,300/s, user:kernel ~6.2 : 1"));
        }
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("kind", o.kind());
        data.put("threads", o.threads());
        data.put("sleeps", o.sleeps());
        data.put("sleepMs", o.sleepMs());
        data.put("elapsedSeconds", m.elapsedSeconds());
        data.put("voluntary", m.voluntary());
        data.put("involuntary", m.involuntary());
        data.put("switches", switches);
        data.put("switchesPerSecond", perSecond);
        data.put("userSeconds", user);
        data.put("kernelSeconds", kernel);
        data.put("userToKernel", ratio);
        data.put("minimumVoluntary", minimumVoluntary);
        data.put("tasksVanished", m.tasksVanished());
        data.put("osThreadsAtEnd", m.osThreadsAtEnd());
        data.put("javaVersion", Runtime.version().toString());
        return data;
    }

    /** Each live OS thread of this process: task id -> {voluntary, involuntary} switches so far. */
    static Map<Long, long[]> switches() {
        Map<Long, long[]> byTask = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(PROC_TASKS)) {
            for (Path task : tasks) {
                List<String> status;
                try {
                    status = Files.readAllLines(task.resolve("status"));
                } catch (IOException e) {
                    continue; // exited between listing and reading (ENOENT, or ESRCH while being reaped)
                }
                long[] counts = {-1, -1};
                for (String line : status) {
                    if (line.startsWith("voluntary_ctxt_switches:")) counts[0] = number(line);
                    else if (line.startsWith("nonvoluntary_ctxt_switches:")) counts[1] = number(line);
                }
                if (counts[0] < 0 || counts[1] < 0) {
                    throw new IllegalStateException(task + "/status has no voluntary_ctxt_switches and"
                            + " nonvoluntary_ctxt_switches lines");
                }
                byTask.put(Long.parseLong(task.getFileName().toString()), counts);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + PROC_TASKS + ": " + e, e);
        }
        return byTask;
    }

    static long number(String statusLine) {
        return Long.parseLong(statusLine.substring(statusLine.indexOf(':') + 1).trim());
    }

    /** {utime, stime} of /proc/self/stat (fields 14 and 15): the whole process, exited threads included. */
    static long[] cpuTicks() {
        String stat;
        try {
            stat = Files.readString(PROC_STAT);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + PROC_STAT + ": " + e, e);
        }
        // Field 2 is "(comm)", which may hold spaces and parentheses: field 3 on follow the last ')'.
        String[] f = stat.substring(stat.lastIndexOf(')') + 1).trim().split("\\s+");
        if (f.length < 13) throw new IllegalStateException(PROC_STAT + " has too few fields: " + stat.strip());
        return new long[] {Long.parseLong(f[14 - 3]), Long.parseLong(f[15 - 3])};
    }

    /** Waits, at most {@code timeoutNanos}, until no OS thread of this process has a name starting {@code prefix}. */
    static void awaitOsThreadsGone(String prefix, long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        while (System.nanoTime() < deadline && osThreadsNamed(prefix) > 0) Thread.sleep(1);
    }

    static int osThreadsNamed(String prefix) {
        int n = 0;
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(PROC_TASKS)) {
            for (Path task : tasks) {
                try {
                    if (Files.readString(task.resolve("comm")).startsWith(prefix)) n++;
                } catch (IOException e) {
                    // exited between listing and reading
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + PROC_TASKS + ": " + e, e);
        }
        return n;
    }

}

/*
 * How to run:
 *   tools/jbang context-switches --kind platform
 *   tools/jbang context-switches --kind virtual
 *   tools/jbang context-switches --kind platform --threads 2000     (10x the threads)
 *
 * What you should see (2 cores, JDK 25):
 *   platform  ~20,000-20,600 switches/s: ~20,700 voluntary (1.04 x the minimum of 20,000) and 300-700
 *             involuntary in 1.03-1.07 s; user:kernel 0.4-0.9 : 1 in the window; 219 OS threads.
 *   virtual   ~3,500-10,000/s, different every run (how often the carriers run dry depends on how the
 *             sleepers' wake-ups spread), always well under platform; user:kernel ~4-10 : 1; 22 OS threads.
 *   perf stat -e context-switches on the snippet's JVM agrees on what 100 more sleeps add to within 2%;
 *   over the whole JVM (start-up included) its user:sys is ~1.3 : 1 (platform) and ~5 : 1 (virtual),
 *   near the source's figures.
 *   --threads 2000: platform ~90,000/s and 2.4 s instead of 1 s (two cores can't wake 200,000 threads a
 *   second on time), virtual ~17,000/s in 1.06 s.
 */
