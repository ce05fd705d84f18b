///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/experiments/WakeUps.java
package unpinned.snippets;

/*
 * S38: how long a wake-up takes: from LockSupport.unpark of a parked virtual thread to its next instruction, with
 * the carrier parked in the OS and with the carrier awake.
 *
 * The question: chapter 03 counted the OS context switches virtual threads still make, and found they come from the
 * carriers: a carrier that runs out of work parks in the kernel (ForkJoinPool's awaitWork / deactivate ->
 * LockSupport.park, a futex wait on Linux). What does that cost the next virtual thread to wake?
 *
 * The run, on one carrier (--carriers, default 1: nothing to steal, one carrier to watch): a virtual thread parks; a
 * platform thread (the waker) pauses --pause-us, notes the time and unparks it; the thread notes the time it runs
 * again and parks again; --wake-ups times. Two modes:
 *   idle  nothing else runs: during the pause the carrier runs out of work and parks in the OS, so the unpark's
 *         submission (a submission queue: the waker is a platform thread) must wake it first (ForkJoinPool
 *         .signalWork -> LockSupport.unpark of the carrier, a futex wake) and the OS must schedule it;
 *   busy  the waker is a virtual thread on the same carrier: it spins through the pause (the carrier stays awake),
 *         unparks the thread (into the carrier's own queue) and yields (behind it in that queue), so the carrier
 *         runs the woken thread next, with no OS in between.
 * (A carrier kept awake by a thread that spins and yields in a loop, with a platform waker, starves the woken
 * thread on JDK 25: ForkJoinPool.runWorker keeps taking from the queue the yielder resubmits to, and the unpark
 * waits in another submission queue. That was this snippet's first busy mode.)
 * The carriers' own OS context switches are counted over each mode (/proc/self/task/<tid>/status of the threads
 * named "ForkJoinPool-...", Linux).
 *
 * The prediction: idle about one carrier switch per wake-up (it sleeps in the kernel once each time) and a latency
 * of the OS's wake-up (tens of µs, more on a busy machine); busy about 0 switches and a few µs. Where the OS is not
 * involved, the latency is the JVM's: a submission, a scan, a thaw.
 *
 * The pitfalls: System.nanoTime on two threads (Linux x86-64: the TSC, the same clock on every core). The waker
 * waits until the thread has parked again before the next pause, so no unpark finds it still running. The
 * properties are read at the first virtual thread: main sets parallelism = maxPoolSize = --carriers first. A warm-up
 * round of each mode goes first. Results go to results/s38-wake-up-latency/.
 */

import unpinned.workloads.Carriers;
import unpinned.experiments.WakeUps;
import unpinned.core.Experiment;
import unpinned.core.Protocol;
import unpinned.running.Jdks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

public class S38_WakeUpLatency {

    // ---- the code under study ---------------------------------------------------------------------------------

    /** Parks, and each time it is unparked notes how long after {@code unparkedAt} it ran; ends at {@code n}. */
    static Thread sleeper(AtomicLong unparkedAt, long[] latencyNanos, AtomicLong woken) {
        return Thread.ofVirtual().name("sleeper").start(() -> {
            for (int i = 0; i < latencyNanos.length; ) {
                LockSupport.park();
                long at = unparkedAt.getAndSet(0);
                if (at == 0) continue; // a spurious wake-up: park again
                latencyNanos[i++] = System.nanoTime() - at;
                woken.incrementAndGet();
            }
        });
    }

    /**
     * The busy mode's waker, a virtual thread on the same carrier: it spins through each pause (the carrier stays
     * awake), unparks the sleeper (a virtual thread's unpark goes to its own carrier's queue) and yields, which puts
     * it behind the sleeper in that queue: the carrier runs the sleeper next.
     */
    static Thread virtualWaker(Thread sleeper, AtomicLong unparkedAt, int n, long pauseNanos) {
        return Thread.ofVirtual().name("waker").start(() -> {
            for (int i = 0; i < n; i++) {
                long end = System.nanoTime() + pauseNanos;
                while (System.nanoTime() < end) Thread.onSpinWait();
                unparkedAt.set(System.nanoTime());
                LockSupport.unpark(sleeper);
                Thread.yield();
            }
        });
    }

    // ---- the measurement --------------------------------------------------------------------------------------

    public static void main(String[] args) {
        args = Jdks.honourJdkOption("S38", "S38_WakeUpLatency.java", args);
        Experiment.named("S38", "unpark to run, carrier idle or busy", "s38-wake-up-latency")
                .count("--wake-ups", 400, 2_000, 10, 100_000, "wake-ups per mode")
                .count("--pause-us", 1_000, 1_000, 100, 100_000, "the waker's pause before each unpark, µs")
                .count("--carriers", 1, 1, 1, 64, "the scheduler's parallelism (and maxPoolSize)")
                .check(a -> {
                    if (a.count("--wake-ups") * a.count("--pause-us") > TimeUnit.MINUTES.toMicros(5)) {
                        throw new IllegalArgumentException("--wake-ups x --pause-us is over 5 minutes per mode");
                    }
                })
                .notes("--jdk 21|course: run on the JDK 21 runtime set-up installs, or the course JDK (default: this"
                        + " JVM).")
                .budget(Duration.ofSeconds(2), Duration.ofSeconds(6))
                .run(args, S38_WakeUpLatency::measure);
    }

    static WakeUps.Run measure(Experiment.Args a) throws Exception {
        int n = a.intCount("--wake-ups"), pauseUs = a.intCount("--pause-us"), p = a.intCount("--carriers");
        Carriers.fix(p);
        Carriers.pool(p);
        List<WakeUps.Mode> modes = new ArrayList<>();
        for (String mode : List.of("idle", "busy")) {
            Protocol.progress("warm-up, carrier " + mode);
            wakeUps(mode, Math.min(100, n), pauseUs); // JIT
            Protocol.progress(String.format("%,d wake-ups, carrier %s", n, mode));
            long before = WakeUps.carrierSwitches();
            double[] us = wakeUps(mode, n, pauseUs);
            long after = WakeUps.carrierSwitches();
            modes.add(WakeUps.Mode.of(mode, us, before < 0 || after < 0 ? -1 : (after - before) / (double) n));
            System.out.println(modes.get(modes.size() - 1).line());
        }
        return new WakeUps.Run(Runtime.version().toString(), Runtime.version().feature(), p, n, pauseUs, modes);
    }

    /**
     * One mode: n wake-ups of the sleeper, each after a pause; their latencies, µs. Idle: main (a platform thread)
     * pauses in the OS, and the carrier, out of work, parks there too; busy: a virtual waker keeps it running.
     */
    static double[] wakeUps(String mode, int n, int pauseUs) throws Exception {
        AtomicLong unparkedAt = new AtomicLong(), woken = new AtomicLong();
        long[] latency = new long[n];
        Thread sleeper = sleeper(unparkedAt, latency, woken);
        try {
            awaitParked(sleeper);
            if (mode.equals("busy")) {
                Thread waker = virtualWaker(sleeper, unparkedAt, n, pauseUs * 1_000L);
                if (!waker.join(Duration.ofSeconds(60 + (long) n * pauseUs / 1_000_000))) {
                    throw new Experiment.RunFailed("the busy waker had not ended");
                }
            } else {
                for (int i = 0; i < n; i++) {
                    awaitParked(sleeper);
                    LockSupport.parkNanos(pauseUs * 1_000L); // the carrier runs out of work and parks in the OS
                    unparkedAt.set(System.nanoTime());
                    LockSupport.unpark(sleeper);
                    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                    while (woken.get() <= i) {
                        if (System.nanoTime() > deadline) throw new Experiment.RunFailed("wake-up " + i + " never ran");
                        Thread.onSpinWait();
                    }
                }
            }
            if (!sleeper.join(Duration.ofSeconds(10))) throw new Experiment.RunFailed("the sleeper did not end");
        } finally {
            sleeper.interrupt();
        }
        double[] us = new double[n];
        for (int i = 0; i < n; i++) us[i] = latency[i] / 1e3;
        return us;
    }

    static void awaitParked(Thread t) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (t.getState() != Thread.State.WAITING) {
            if (System.nanoTime() > deadline) throw new Experiment.RunFailed("the sleeper never parked");
            Thread.onSpinWait();
        }
    }
}

/*
 * How to run:
 *   tools/jbang wake-up-latency                   (400 wake-ups per mode, 1 ms apart, on 1 carrier)
 *   tools/jbang wake-up-latency --jdk 21          (the same classes on JDK 21)
 *   tools/jbang wake-up-latency --carriers 2 --pause-us 200
 *
 * What you should see (2 cores shared with other work, 400 wake-ups per mode, 2026-11-28):
 *   JDK 25.0.3  idle: p50 11-44 us, p99 1-3 ms, 1.0 carrier switches per wake-up; busy: p50 2.2 us, 0.1.
 *   JDK 21.0.8  idle: p50 10 us, p99 1.1 ms, 1.0; busy: p50 2.4 us, 0.04.
 *   The idle figures move with the machine: they are the kernel waking a thread.
 */
