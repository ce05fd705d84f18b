///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/experiments/NoTimeSlicing.java
//SOURCES ../helpers/unpinned/workloads/Work.java
package unpinned.snippets;

/*
 * S15: virtual threads are not time-sliced.
 *
 * The question: K "hogs" compute for H ms without ever blocking, one per core. Meanwhile a latency-sensitive
 * "ping" thread sleeps 10 ms again and again and notes how late it woke. How late is it while the hogs run,
 * when all of them are virtual threads, and when all are platform threads?
 *
 * The prediction: the OS time-slices platform threads: a thread that wakes gets a core within a few ms even
 * when every core is busy (Linux favours a thread that slept). The virtual-thread scheduler does not: a virtual
 * thread keeps its carrier until it blocks or ends. With a hog on every carrier, the ping, asleep when the hogs
 * start, wakes to find no free carrier and waits until a hog ends: it is late by about H minus the part of its
 * sleep before the hogs began (H - 10 ms here), however short its own work.
 *
 * The pitfalls: the experiment has to take every carrier. The scheduler's parallelism is set to the cores
 * explicitly (System.setProperty before the first virtual thread, which is when the JVM reads it), so a
 * -Djdk.virtualThreadScheduler.parallelism from elsewhere can't leave a carrier free, and maxPoolSize to the
 * cores too: a hog never blocks, so it gets no spare carrier, and maxPoolSize = P keeps one from appearing for
 * any managed blocking call (jdk.internal.misc.Blocker, e.g. JDK 21's Object.wait), which would serve the ping.
 * And the ping must be asleep when the hogs start, or it could be the one running when they arrive: it
 * signals the main thread just before one sleep, and the main thread starts the hogs then. Each hog checks
 * System.nanoTime against its deadline and its interrupt flag between chunks of work, so it can be stopped.
 * One kind per JVM. Results go to results/s15-no-time-slicing/.
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
    static final AtomicReference<Throwable> FAILURE = new AtomicReference<>();

    /**
     * The latency-sensitive thread: sleeps {@code everyMs} {@code n} times, noting when each sleep should have
     * ended and when it did; just before sleep number {@code baseline} it lets the main thread start the hogs.
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

    /** One kind: the ping alone, then with a hog on every carrier (or core), then alone again. */
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
 * What you should see (2 cores, JDK 25 and 21, quick profile: 2 hogs of 500 ms, a ping every 10 ms, ~2 s a run):
 *   virtual   before the hogs the ping wakes ~0.2-0.3 ms late (median); the one ping due while they run wakes
 *             ~491 ms late (0.98 x the hog's 500 ms: it waited for a hog to end); after them ~0.2 ms again.
 *   platform  before ~0.1 ms; ~49 pings while the hogs run, median ~0.1 ms, the worst 0.1-4 ms late (the OS
 *             gives the woken ping a core at once); after ~0.1 ms.
 *   --hogs 1 (virtual): the worst ~2 ms: a carrier stays free. --hogs 4 (virtual): ~990 ms, as the two hogs
 *             queued for a carrier ran before the ping. --hog-ms 2000: ~1,990 ms (virtual), ~3 ms (platform).
 */
