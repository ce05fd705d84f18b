///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/experiments/WakeUps.java
package unpinned.snippets;

/*
 * S38: how long a wake-up takes: from LockSupport.unpark of a parked virtual thread to its next instruction, with
 * the carrier parked in the OS (idle) and with the carrier awake (busy).
 * The bound: idle pays one OS wake-up of the carrier per wake-up (about one carrier context switch each, tens of
 * µs); busy pays none, only the JVM's submission, scan and thaw (a few µs).
 * The pitfall: System.nanoTime on two threads (Linux x86-64: one TSC clock); the waker waits until the sleeper
 * parked again; main sets parallelism = maxPoolSize = --carriers first. Results in results/s38-wake-up-latency/.
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
     * it behind the sleeper in that queue: the carrier runs the sleeper next. (A platform waker with a virtual
     * thread spinning and yielding to keep the carrier awake starves the sleeper on JDK 25: ForkJoinPool.runWorker
     * keeps taking from the queue the yielder resubmits to, and the unpark waits in a submission queue.)
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
     * pauses in the OS, and the carrier, out of work, parks there too (ForkJoinPool awaitWork -> LockSupport.park,
     * a futex wait), so the unpark must wake it (signalWork, a futex wake) and the OS schedule it; busy: a virtual
     * waker keeps it running. The carriers' context switches are read from /proc/self/task/TID/status (Linux).
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
 * What you should see: idle: tens of µs at p50 and about 1 carrier switch per wake-up; busy: a few µs and about 0.
 * Reference runs: data/reference-runs/snippets/S38-wake-up-latency.md.
 */
