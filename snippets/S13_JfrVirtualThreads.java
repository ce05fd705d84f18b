///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/experiments/Pinning.java
//SOURCES ../helpers/unpinned/experiments/VirtualThreadEvents.java
package unpinned.snippets;

/*
 * S13: mounting, unmounting and pinning seen through JDK Flight Recorder (JFR), in this JVM.
 *
 * The question: what does a recording show while virtual threads sleep, and when one pins its carrier?
 * The bound: a pinned sleep holds its carrier, so on 2 carriers P pins of 50 ms take >= P / 2 x 50 ms.
 * The pitfall: a default recording shows almost none of this, and no recording shows a mount.
 */

import unpinned.core.Experiment;
import unpinned.running.Jfr;
import unpinned.experiments.Pinning;
import unpinned.core.Protocol;
import unpinned.experiments.VirtualThreadEvents;
import unpinned.experiments.VirtualThreadEvents.Plan;
import unpinned.experiments.VirtualThreadEvents.SchedulerDump;
import unpinned.experiments.VirtualThreadEvents.Workload;
import jdk.jfr.*;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

public class S13_JfrVirtualThreads {

    /** N sleepers of K sleeps each, held while jcmd looks, released; then the pins: each step a phase. */
    static Workload workload(Plan o, Instant recordingStart, int feature) throws InterruptedException {
        List<Jfr.VirtualThreads.Phase> phases = new ArrayList<>();
        int n = o.threads(), k = o.sleeps();
        long minNanos = TimeUnit.MILLISECONDS.toNanos(k * SLEEP_MS);
        // Bounded but generous: twice the sleeping, a minute, and 20 µs per sleep for an overloaded scheduler.
        long timeoutNanos = 2 * minNanos + TimeUnit.SECONDS.toNanos(60) + 20_000L * n * (k + 1);
        long holdNanos = timeoutNanos + TimeUnit.SECONDS.toNanos(40); // + jcmd's 30 s + 10 s
        CountDownLatch slept = new CountDownLatch(n), release = new CountDownLatch(1);
        AtomicReference<String> failure = new AtomicReference<>();
        Runnable sleeper = sleeper(k, slept, release, holdNanos, failure);
        long p1 = Jfr.sinceMs(recordingStart);
        Thread[] sleepers = new Thread[n];
        SchedulerDump dump;
        try {
            Thread.Builder builder = Thread.ofVirtual().name("s13-sleeper-", 0);
            for (int i = 0; i < n; i++) sleepers[i] = builder.start(sleeper);
            if (!slept.await(timeoutNanos, TimeUnit.NANOSECONDS)) {
                throw new IllegalStateException(String.format(Locale.ROOT, "the sleepers had not done their %,d"
                        + " sleeps after %.0f s (at least %.2f s expected): the machine is overloaded", k,
                        timeoutNanos / 1e9, minNanos / 1e9));
            }
            long h = Jfr.sinceMs(recordingStart);
            phases.add(new Jfr.VirtualThreads.Phase("sleepers", p1, h));
            dump = VirtualThreadEvents.schedulerDump(feature); // jcmd, while the N sleepers wait
            phases.add(new Jfr.VirtualThreads.Phase(feature >= 24 ? "jcmd" : "wait", h, Jfr.sinceMs(recordingStart)));
        } catch (OutOfMemoryError e) {
            throw new IllegalStateException("cannot start " + n + " virtual threads: " + e.getMessage());
        } finally {
            long r = Jfr.sinceMs(recordingStart);
            VirtualThreadEvents.releaseAndJoin(release, sleepers);
            phases.add(new Jfr.VirtualThreads.Phase("release", r, Jfr.sinceMs(recordingStart)));
        }
        if (failure.get() != null) throw new IllegalStateException(failure.get());
        long p2 = Jfr.sinceMs(recordingStart), pinsMs = o.pins() > 0 ? pin(o.pins(), failure) : 0;
        if (o.pins() > 0) phases.add(new Jfr.VirtualThreads.Phase("pins", p2, Jfr.sinceMs(recordingStart)));
        return new Workload(phases, dump, pinsMs);
    }

    /** A sleeper: k sleeps of SLEEP_MS (each unmounts it), then a timed wait for the release while jcmd looks. */
    static Runnable sleeper(int k, CountDownLatch slept, CountDownLatch release, long holdNanos,
                            AtomicReference<String> failure) {
        return () -> {
            try {
                for (int i = 0; i < k; i++) Thread.sleep(SLEEP_MS);
            } catch (InterruptedException e) {
                failure.compareAndSet(null, "a sleeper was interrupted");
                return;
            } finally {
                slept.countDown();
            }
            try {
                // A timed wait: while jcmd looks, each sleeper is a parked virtual thread with a timer queued.
                if (!release.await(holdNanos, TimeUnit.NANOSECONDS)) failure.compareAndSet(null, "never released");
            } catch (InterruptedException e) {
                failure.compareAndSet(null, "a sleeper was interrupted while waiting");
            }
        };
    }

    /** {@code pins} threads block PIN_MS in a class initializer, as many in synchronized; returns the ms taken. */
    static long pin(int pins, AtomicReference<String> failure) throws InterruptedException {
        Protocol.progress(String.format(Locale.ROOT, "%d x %d ms in a class initializer, %d x %d ms in"
                + " synchronized", pins, PIN_MS, pins, PIN_MS));
        byte[] slowInit = Pinning.slowInitBytes(); // Pinning.SlowInit sleeps classInitSleepMs in <clinit>
        Pinning.classInitSleepMs = PIN_MS;
        List<Thread> pinners = new ArrayList<>();
        long t0 = System.nanoTime();
        for (int i = 0; i < pins; i++) {
            pinners.add(Thread.ofVirtual().name("s13-clinit-" + i).start(() -> {
                try {
                    // A new class each time, so its static initializer runs (and sleeps) again.
                    Pinning.initializeFreshCopy(slowInit);
                } catch (Throwable e) {
                    failure.compareAndSet(null, "defining and initializing a class failed: " + e);
                }
            }));
            Object lock = new Object();
            pinners.add(Thread.ofVirtual().name("s13-synchronized-" + i).start(() -> {
                try {
                    synchronizedSleep(lock);
                } catch (InterruptedException e) {
                    failure.compareAndSet(null, "a pinning thread was interrupted");
                }
            }));
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60)
                + TimeUnit.MILLISECONDS.toNanos(2L * PIN_MS * pinners.size());
        VirtualThreadEvents.joinAll(pinners, deadline);
        if (failure.get() != null) throw new IllegalStateException(failure.get());
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    }

    /** Pins on JDK 21 (a monitor held across a blocking call); unmounts on JDK 24+. */
    static void synchronizedSleep(Object lock) throws InterruptedException {
        synchronized (lock) {
            Thread.sleep(PIN_MS);
        }
    }

    public static void main(String[] args) {
        Experiment.named("S13", "virtual threads and pinning in a JFR recording", ID)
                .count("--threads", 1_000, 10_000, 1, 100_000, "virtual threads that each sleep K x 10 ms")
                .count("--sleeps", 5, 20, 1, 1_000, "sleeps per thread")
                .count("--pins", 4, 10, 0, 100, "virtual threads that block 50 ms in a class initializer, and as"
                        + " many more that block 50 ms inside synchronized")
                .check(a -> {
                    long total = a.count("--threads") * a.count("--sleeps");
                    if (total > MAX_TOTAL_SLEEPS) throw new IllegalArgumentException(String.format(Locale.ROOT,
                            "--threads x --sleeps = %,d x %,d = %,d sleeps; at most %,d allowed (each sleep is an"
                            + " event in the recording: a million make a ~40 MB .jfr file)", a.count("--threads"),
                            a.count("--sleeps"), total, MAX_TOTAL_SLEEPS));
                })
                .notes("--threads x --sleeps may be at most 1,000,000 (each sleep is an event: a million make a"
                        + " ~40 MB .jfr).")
                .budget(java.time.Duration.ofSeconds(5), java.time.Duration.ofSeconds(20))
                .run(args, S13_JfrVirtualThreads::measure);
    }

    /**
     * Records the workload (threshold 0), reads the recording, keeps it beside the result (.jfr next to the
     * .json); a failure leaves no file. Start/end events are off by default, jdk.VirtualThreadPinned reports only
     * pins of 20 ms or more, and jdk.ContinuationFreeze/Thaw (and their Fast/Slow variants) are in the metadata
     * of JDK 21 and 25 but compiled out of HotSpot: enabled, they stay at 0. jdk.VirtualThreadSubmitFailed needs
     * a full or shut-down scheduler, which this workload never causes. What a recording does show is the cause:
     * jdk.ThreadSleep in a virtual thread (each an unmount and a mount), jdk.ThreadPark on a carrier (out of ready
     * threads) or the timer thread, and jdk.ThreadPark in a virtual thread only when it blocks pinned (the carrier
     * itself parks). jcmd's Thread.vthread_scheduler needs JDK 24+.
     */
    static Jfr.VirtualThreads measure(Experiment.Args a) throws Exception {
        if (!FlightRecorder.isAvailable()) throw new Experiment.RunFailed(Jfr.UNAVAILABLE);
        Plan o = new Plan(a.intCount("--threads"), a.intCount("--sleeps"), a.intCount("--pins"), SLEEP_MS, PIN_MS);
        VirtualThreadEvents.announce(o);
        Path tmp = Files.createTempFile("s13-", ".jfr");
        try (Recording recording = VirtualThreadEvents.recording(ID)) {
            Protocol.progress("starting JFR");
            recording.start();
            Workload w;
            try {
                w = workload(o, recording.getStartTime(), Runtime.version().feature());
            } finally {
                recording.stop();
            }
            Protocol.progress("dumping and reading the recording");
            recording.dump(tmp);
            return VirtualThreadEvents.report(a, ID, o, w, tmp, recording.getStartTime(), recording.getStopTime());
        } catch (IllegalStateException | IOException | UncheckedIOException | OutOfMemoryError e) {
            throw new Experiment.RunFailed(e.getMessage() + "; nothing saved");
        } finally {
            Jfr.deleteQuietly(tmp); // kept recordings were moved away
        }
    }
    static final String ID = "s13-jfr-virtual-threads";
    static final long SLEEP_MS = 10;
    /** How long each pinning thread blocks: above the default 20 ms threshold of jdk.VirtualThreadPinned. */
    static final long PIN_MS = 50;
    static final long MAX_TOTAL_SLEEPS = 1_000_000;

}

/*
 * How to run:
 *   tools/jbang jfr-virtual-threads                                 (1,000 x 5 sleeps, 4 + 4 pinning threads)
 *   tools/jbang jfr-virtual-threads --threads 10000 --sleeps 10 --pins 10
 *   jfr view pinned-threads results/s13-jfr-virtual-threads/<newest>.jfr   (or JDK Mission Control)
 *
 * What you should see: a sleep event per sleep, pins from the class initializer (and, on JDK 21, from
 * synchronized), continuation events at 0. Reference runs: data/reference-runs/snippets/S13-jfr-virtual-threads.md
 */
