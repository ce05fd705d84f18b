///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/experiments/Switches.java
package unpinned.snippets;

/*
 * S11: how often the operating system switches threads while 200 threads keep sleeping.
 *
 * The question: 200 threads each sleep 10 ms, 100 times. How many context switches per second,
 * and how does CPU time split between user code and the kernel, for platform and virtual threads?
 * The bound: 200 platform threads switch at least 200 x 100 times in at least 1 s (~20,000/s);
 * virtual threads have no lower bound but 0: only the carriers and the timer thread block.
 * The pitfall: a sleeping platform thread is an OS thread; each sleep and wake-up is a kernel switch.
 */

import unpinned.workloads.Carriers;
import unpinned.core.Experiment;
import unpinned.core.Protocol;
import unpinned.experiments.Switches;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

public class S11_ContextSwitches {

    /**
     * A worker: sleeps {@code sleeps} times, counts down {@code done}, then stays alive until {@code release}.
     * A sleeping virtual thread unmounts with no OS switch; only the carriers (one per core) and the JDK's timer
     * thread block in the kernel, so the count follows how often the carriers run dry: at most about one switch
     * each per timer wake-up, not one per sleep, and it varies from run to run.
     */
    static Runnable sleeper(int sleeps, int sleepMs, CountDownLatch done, CountDownLatch release, long timeoutNanos,
                            AtomicReference<String> failure) {
        return () -> {
            try {
                for (int i = 0; i < sleeps; i++) Thread.sleep(sleepMs);
            } catch (InterruptedException e) {
                failure.compareAndSet(null, "a worker was interrupted while sleeping");
                return;
            } finally {
                done.countDown();
            }
            try {
                release.await(timeoutNanos, TimeUnit.NANOSECONDS); // alive until the second snapshot
            } catch (InterruptedException e) {
                // released or not, this worker is done
            }
        };
    }

    /** Workers' names, which Linux JDKs give their OS threads too (/proc/self/task/<tid>/comm). */
    static final String WORKER_PREFIX = "s11-worker-";


    /**
     * Starts the workers, waits until each has slept {@code sleeps} times, takes the second snapshot, then lets
     * them end. Switches are read per OS thread and an exited thread's are lost, so each worker waits on
     * {@code release} after its sleeps and is released only after that snapshot. Linux only
     * (helpers/unpinned/experiments/Switches.java): voluntary + involuntary switches summed over
     * /proc/self/task/<tid>/status; CPU is utime and stime of /proc/self/stat in 10 ms ticks (a window of a few
     * ticks gives a rough ratio). One kind per JVM: each JVM keeps the OS threads its kind needs.
     */
    static Switches.Window run(boolean platform, int threads, int sleeps, int sleepMs) throws InterruptedException {
        long minNanos = TimeUnit.MILLISECONDS.toNanos((long) sleeps * sleepMs);
        // Bounded but generous: twice the sleeping, a minute, and 20 µs per sleep for an overloaded scheduler.
        long timeoutNanos = 2 * minNanos + TimeUnit.SECONDS.toNanos(60) + 20_000L * threads * (sleeps + 1);
        CountDownLatch done = new CountDownLatch(threads), release = new CountDownLatch(1);
        AtomicReference<String> failure = new AtomicReference<>();
        Runnable worker = sleeper(sleeps, sleepMs, done, release, timeoutNanos, failure);
        Thread.Builder builder = platform ? Thread.ofPlatform().daemon(true).name(WORKER_PREFIX, 0)
                : Thread.ofVirtual().name(WORKER_PREFIX, 0);
        Thread[] workers = new Thread[threads];
        Switches.Snapshot before = Switches.Snapshot.take(), after;
        try {
            for (int i = 0; i < workers.length; i++) workers[i] = builder.start(worker);
            if (!done.await(timeoutNanos, TimeUnit.NANOSECONDS)) {
                throw new Experiment.RunFailed(String.format(Locale.ROOT, "the workers had not done their %,d"
                        + " sleeps after %.0f s (at least %.1f s expected): the machine is overloaded; nothing saved",
                        sleeps, timeoutNanos / 1e9, minNanos / 1e9));
            }
            after = Switches.Snapshot.end();
        } catch (OutOfMemoryError e) {
            throw new Experiment.RunFailed("cannot start " + threads + " threads: " + e.getMessage());
        } finally {
            release.countDown();
            for (Thread t : workers) if (t != null) t.join(TimeUnit.SECONDS.toMillis(10)); // they only return
        }
        if (failure.get() != null) throw new Experiment.RunFailed(failure.get() + "; nothing saved");
        // A joined thread's OS thread lingers a few ms: let it go now, so it can't vanish inside the next window.
        Switches.awaitOsThreadsGone(WORKER_PREFIX, TimeUnit.SECONDS.toNanos(10));
        return Switches.Window.between(before, after);
    }

    public static void main(String[] args) {
        Experiment.named("S11", "context switches while threads keep sleeping", "s11-context-switches")
                .oneOf("--kind", "virtual", List.of("platform", "virtual"), "platform or virtual threads; one kind"
                        + " per JVM")
                .count("--threads", 200, 200, 1, 1_000_000, "threads, each sleeping --sleeps times;"
                        + " platform at most 10,000 (each is an OS thread)")
                .count("--sleeps", 100, 100, 1, 100_000, "sleeps per thread")
                .count("--sleep-ms", 10, 10, 1, 10_000, "length of one sleep, ms")
                .count("--warmup-sleeps", 10, 10, 0, 10_000, "sleeps per thread in an unmeasured run first")
                .check(Switches::checkSizes)
                .check(Switches::requireCountable)
                .notes("(--warmup-sleeps + --sleeps) x --sleep-ms may be at most 10 minutes. Linux only (/proc).")
                .budget(Duration.ofSeconds(3), Duration.ofSeconds(3))
                .run(args, S11_ContextSwitches::measure);
    }

    /** A warm-up run (JIT compilation and carrier creation happen there), then the measured one. */
    static Switches.Run measure(Experiment.Args a) throws InterruptedException {
        String kind = a.oneOf("--kind");
        boolean platform = kind.equals("platform");
        int threads = a.intCount("--threads"), sleeps = a.intCount("--sleeps"), sleepMs = a.intCount("--sleep-ms");
        int warmUp = a.intCount("--warmup-sleeps");
        Switches.announce(kind, threads, sleeps, sleepMs); // the bound, or why there is none
        if (warmUp > 0) {
            Protocol.progress(kind + ": warm-up, " + warmUp + " x " + sleepMs + " ms per thread");
            run(platform, threads, warmUp, sleepMs);
        }
        Protocol.progress(kind + ": measuring, " + sleeps + " x " + sleepMs + " ms per thread");
        return Switches.Run.of(kind, threads, sleeps, sleepMs, run(platform, threads, sleeps, sleepMs));
    }
}

/*
 * How to run:
 *   tools/jbang context-switches --kind platform
 *   tools/jbang context-switches --kind virtual
 *   tools/jbang context-switches --kind platform --threads 2000     (10x the threads)
 *
 * What you should see: platform at ~1.04 x its 20,000/s minimum, kernel-heavy; virtual well under it,
 * different every run. Reference runs: data/reference-runs/snippets/S11-context-switches.md
 */
