///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/experiments/NoTimeSlicing.java
//SOURCES ../helpers/unpinned/workloads/Work.java
package unpinned.snippets;

/*
 * S15: virtual threads are not time-sliced.
 *
 * The question: K "hogs" compute for H ms without blocking, one per core, while a "ping" thread
 * sleeps 10 ms again and again. How late does the ping wake while the hogs run, virtual or platform?
 * The prediction: the OS time-slices platform threads (a woken one gets a core within ms); a virtual
 * thread keeps its carrier until it blocks or ends, so the ping waits about H - 10 ms for a hog to end.
 * The pitfall: the experiment must take every carrier, and the ping must be asleep when hogs start.
 */

import unpinned.workloads.Carriers;
import unpinned.core.Experiment;
import unpinned.experiments.NoTimeSlicing;
import unpinned.core.Protocol;
import unpinned.workloads.Work;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

public class S15_NoTimeSlicing {

    /**
     * The latency-sensitive thread: sleeps {@code everyMs} {@code n} times, noting when each sleep should have
     * ended and when it did; just before sleep number {@code baseline} it lets the main thread start the hogs,
     * so it is asleep when they arrive (awake, it could be the one running then).
     */
    static Thread ping(Thread.Builder builder, int n, int everyMs, int baseline, long[] intended, long[] woke,
                       CountDownLatch hogsGo) {
        long every = TimeUnit.MILLISECONDS.toNanos(everyMs);
        return builder.name("ping").unstarted(() -> {
            try {
                for (int i = 0; i < n; i++) {
                    if (i == baseline) hogsGo.countDown(); // about to sleep: the main thread starts the hogs now
                    long before = System.nanoTime();
                    Thread.sleep(everyMs);
                    woke[i] = System.nanoTime();
                    intended[i] = before + every;
                }
            } catch (InterruptedException e) {
                FAILURE.compareAndSet(null, new InterruptedException("the ping was interrupted"));
            } catch (Throwable e) {
                FAILURE.compareAndSet(null, e);
            } finally {
                hogsGo.countDown(); // never leave the main thread waiting
            }
        });
    }

    /** A hog: computes for {@code hogNanos} without ever blocking (it looks at the clock and its interrupt flag). */
    static Thread hog(Thread.Builder builder, int id, long hogNanos, long[] start, long[] end) {
        return builder.name("hog-" + id).unstarted(() -> {
            start[id] = System.nanoTime();
            long h = Work.burn(hogNanos, id);
            end[id] = System.nanoTime();
            if (Thread.currentThread().isInterrupted()) {
                FAILURE.compareAndSet(null, new InterruptedException("a hog was interrupted"));
            }
            Work.use(h);
        });
    }

    static final AtomicReference<Throwable> FAILURE = new AtomicReference<>();


    public static void main(String[] args) {
        int cores = Runtime.getRuntime().availableProcessors();
        Experiment.named("S15", "virtual threads are not time-sliced", "s15-no-time-slicing")
                .oneOf("--kind", "virtual", List.of("virtual", "platform"), "the ping and the hogs; one kind per JVM")
                .count("--hogs", cores, cores, 1, 256, "threads that compute without blocking (default: the cores)")
                .count("--hog-ms", 500, 2_000, 10, 60_000, "how long each hog computes, ms")
                .count("--pings", 70, 220, 2, 100_000, "sleeps of the ping thread (default H / E + 20: 10"
                        + " before the hogs start, their run, 10 after)")
                .count("--ping-every-ms", 10, 10, 1, 1_000, "the ping's sleep, ms")
                .check(NoTimeSlicing::withinBudget)
                .notes("N x E + ceil(K / cores) x H may be at most 10 minutes (hogs beyond the cores queue for a"
                        + " carrier,\nor share the cores, so each further round of them adds H).")
                .budget(Duration.ofSeconds(2), Duration.ofSeconds(5))
                .run(args, S15_NoTimeSlicing::measure);
    }

    /**
     * One kind per JVM: the ping alone, then with a hog on every carrier (or core), then alone again. Parallelism
     * is set to the cores before the first virtual thread (when the JVM reads it), so a -D from elsewhere can't
     * leave a carrier free; maxPoolSize too, so no managed blocking call (jdk.internal.misc.Blocker, e.g. JDK 21's
     * Object.wait) adds a spare carrier that would serve the ping.
     */
    static NoTimeSlicing.Run measure(Experiment.Args a) throws InterruptedException {
        int cores = Runtime.getRuntime().availableProcessors(), hogMs = a.intCount("--hog-ms");
        int everyMs = a.intCount("--ping-every-ms"), n = NoTimeSlicing.pingCount(a), hogCount = a.intCount("--hogs");
        boolean virtual = a.oneOf("--kind").equals("virtual");
        if (virtual) Carriers.fix(cores); // every carrier taken by a hog, none added (see the pitfalls above)
        ForkJoinPool pool = virtual ? Carriers.pool(cores) : null;
        var plan = new NoTimeSlicing.Plan(a.oneOf("--kind"), hogCount, hogMs, n, everyMs,
                Math.max(1, Math.min(10, n / 4)), cores, virtual ? pool.getParallelism() : 0);
        double predicted = NoTimeSlicing.predict(plan);
        Thread.Builder builder = virtual ? Thread.ofVirtual() : Thread.ofPlatform().daemon(true);
        long[] intended = new long[n], woke = new long[n], hogStart = new long[hogCount], hogEnd = new long[hogCount];
        CountDownLatch hogsGo = new CountDownLatch(1);
        Thread ping = ping(builder, n, everyMs, plan.baseline(), intended, woke, hogsGo);
        long hogNanos = TimeUnit.MILLISECONDS.toNanos(hogMs);
        Thread[] hogs = new Thread[hogCount]; // made now, started later: in microseconds, inside the ping's sleep
        for (int k = 0; k < hogCount; k++) hogs[k] = hog(builder, k, hogNanos, hogStart, hogEnd);
        long pingBudget = n * TimeUnit.MILLISECONDS.toNanos(everyMs) * 3 + hogNanos * (1 + hogCount)
                + TimeUnit.SECONDS.toNanos(60);
        Protocol.progress(String.format(Locale.ROOT, "%d pings before the hogs", plan.baseline()));
        long hogsStart;
        try {
            hogsStart = NoTimeSlicing.hogsDuringPings(ping, hogs, hogsGo, hogNanos, pingBudget,
                    S15_NoTimeSlicing::checkFailure);
        } catch (InterruptedException | RuntimeException | OutOfMemoryError e) {
            Carriers.stop(ping);
            Carriers.stop(hogs);
            throw e;
        }
        int carrierThreads = pool == null ? 0 : pool.getPoolSize();
        if (virtual) Carriers.requireAtMost(carrierThreads, cores);
        return NoTimeSlicing.summarize(plan, carrierThreads, predicted, intended, woke, hogsStart, hogStart, hogEnd);
    }

    static void checkFailure() {
        Throwable e = FAILURE.get();
        if (e != null) throw new Experiment.RunFailed((e instanceof InterruptedException ? e.getMessage()
                : e.toString()) + "; nothing saved");
    }
}

/*
 * How to run:
 *   tools/jbang no-time-slicing --kind virtual
 *   tools/jbang no-time-slicing --kind platform
 *   tools/jbang no-time-slicing --kind virtual --hogs 1       (a carrier stays free: the ping is on time)
 *   tools/jbang no-time-slicing --kind virtual --hog-ms 2000  (the ping waits as long as the hogs compute)
 *
 * What you should see: the virtual ping ~0.98 x H late while the hogs run, the platform ping a few ms at
 * worst. Reference runs: data/reference-runs/snippets/S15-no-time-slicing.md
 */
