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
 * cores too: JDK 21 adds carriers, up to 256, while one is pinned, and a spare carrier would serve the ping.
 * And the ping must be asleep when the hogs start, or it could be the one running when they arrive: it
 * signals the main thread just before one sleep, and the main thread starts the hogs then. Each hog checks
 * System.nanoTime against its deadline and its interrupt flag between chunks of work, so it can be stopped.
 * One kind per JVM. Results go to results/s15-no-time-slicing/.
 */

import unpinned.Carriers;
import unpinned.Cli;
import unpinned.Profile;
import unpinned.Protocol;
import unpinned.Results;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

public class S15_NoTimeSlicing {
    static final String USAGE = """
            usage: S15_NoTimeSlicing [--kind virtual|platform] [--hogs K] [--hog-ms H] [--pings N]
                                     [--ping-every-ms E]
              --kind K           the ping and the hogs are virtual (default) or platform threads; one kind per JVM
              --hogs K           threads that compute without blocking, 1..256 (default: the cores, so every
                                 carrier is taken)
              --hog-ms H         how long each hog computes, 10..60,000 ms (default 500; full 2,000)
              --pings N          sleeps of the ping thread, 2..100,000 (default H / E + 20: 10 before the hogs start,
                                 their run, 10 after); the hogs start as sleep min(10, N / 4) + 1 begins
              --ping-every-ms E  the ping's sleep, 1..1,000 ms (default 10)
            N x E + ceil(K / cores) x H may be at most 10 minutes (hogs beyond the cores queue for a carrier, or
            share the cores, so each further round of them adds H).""";

    static final int MAX_HOGS = 256;
    static final long BUDGET_MS = TimeUnit.MINUTES.toMillis(10);
    static final int CHUNK = 10_000; // hash iterations between two looks at the clock: tens of microseconds
    static final int BASELINE_MAX = 10;
    static final String PARALLELISM = "jdk.virtualThreadScheduler.parallelism";
    static final String MAX_POOL_SIZE = "jdk.virtualThreadScheduler.maxPoolSize";
    static final String MIN_RUNNABLE = "jdk.virtualThreadScheduler.minRunnable";
    static final AtomicLong SINK = new AtomicLong();
    static final AtomicReference<Throwable> FAILURE = new AtomicReference<>();

    record Options(String kind, int hogs, int hogMs, int pings, int everyMs) {
        boolean virtual() {
            return kind.equals("virtual");
        }

        /** Pings before the hogs start: the hogs start as ping number {@code baseline()} (from 0) falls asleep. */
        int baseline() {
            return Math.max(1, Math.min(BASELINE_MAX, pings / 4));
        }
    }

    public static void main(String[] args) {
        Profile profile = Profile.announceOrExit("S15");
        int cores = Runtime.getRuntime().availableProcessors();
        Options o = parse(args, profile, cores); // reading the profile and parsing start no thread
        if (o.virtual()) {
            // Before the first virtual thread, when the JVM reads them: one carrier per core and never more, so
            // the hogs can take them all (see the pitfalls above).
            System.setProperty(PARALLELISM, Integer.toString(cores));
            System.setProperty(MAX_POOL_SIZE, Integer.toString(cores));
            System.setProperty(MIN_RUNNABLE, "1");
        }
        try {
            Results.checkDir();
        } catch (IllegalStateException e) {
            Cli.exit("S15", e.getMessage());
        }
        try {
            run(o, cores);
        } catch (InterruptedException e) {
            fail("interrupted; nothing saved");
        } catch (IllegalStateException | OutOfMemoryError e) {
            fail(e.getMessage() + "; nothing saved");
        }
    }

    static void run(Options o, int cores) throws InterruptedException {
        ForkJoinPool pool = null;
        int carriers = 0;
        if (o.virtual()) {
            pool = Carriers.pool();
            carriers = pool.getParallelism();
            if (carriers != cores) {
                throw new IllegalStateException(String.format(Locale.ROOT, "the virtual-thread scheduler has %d"
                        + " carriers, not the %d set: a virtual thread was created before main set %s", carriers,
                        cores, PARALLELISM));
            }
        }
        int lanes = o.virtual() ? carriers : cores;
        double predicted = o.hogs() >= lanes && o.virtual() ? Math.max(0, o.hogMs() - o.everyMs()) : 0;
        System.out.printf(Locale.ROOT, "%s threads: %d hog%s computing %,d ms each, a ping sleeping %,d ms %,d times;"
                        + " %d cores%s, JDK %s%n", o.kind(), o.hogs(), o.hogs() == 1 ? "" : "s", o.hogMs(), o.everyMs(),
                o.pings(), cores, o.virtual() ? ", " + carriers + " carriers (maxPoolSize " + cores + ")" : "",
                Runtime.version());
        if (!o.virtual()) {
            System.out.printf(Locale.ROOT, "prediction: the OS time-slices platform threads: the ping gets a core"
                    + " within a few ms of waking, hogs or not; its lateness during the hogs stays far below %,d ms%n",
                    o.hogMs());
        } else if (o.hogs() >= carriers) {
            System.out.printf(Locale.ROOT, "prediction: the hogs take all %d carriers and never block; no time"
                            + " slices, so the ping, asleep when they start, waits for a hog to end: it wakes at least"
                            + " ~%,d ms late (hog %,d ms - the %,d ms it slept before they began)%s%n", carriers,
                    (long) predicted, o.hogMs(), o.everyMs(), o.hogs() == carriers ? ""
                            : "; later, if hogs still queued for a carrier go first");
        } else {
            System.out.printf(Locale.ROOT, "prediction: %d hog%s on %d carriers leave a carrier free: the ping runs on"
                    + " it and stays about as late as before the hogs%n", o.hogs(), o.hogs() == 1 ? "" : "s", carriers);
        }

        Thread.Builder builder = o.virtual() ? Thread.ofVirtual() : Thread.ofPlatform().daemon(true);
        int n = o.pings(), baseline = o.baseline();
        long every = TimeUnit.MILLISECONDS.toNanos(o.everyMs());
        long[] intended = new long[n], woke = new long[n];
        CountDownLatch hogsGo = new CountDownLatch(1);
        Thread ping = builder.name("ping").unstarted(() -> {
            try {
                for (int i = 0; i < n; i++) {
                    if (i == baseline) hogsGo.countDown(); // about to sleep: the main thread starts the hogs now
                    long before = System.nanoTime();
                    Thread.sleep(o.everyMs());
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

        long hogNanos = TimeUnit.MILLISECONDS.toNanos(o.hogMs());
        long[] hogStart = new long[o.hogs()], hogEnd = new long[o.hogs()];
        Thread[] hogs = new Thread[o.hogs()];
        // Created now, started later: starting them must take microseconds, well inside the ping's sleep.
        for (int k = 0; k < hogs.length; k++) {
            int id = k;
            hogs[k] = builder.name("hog-" + k).unstarted(() -> {
                long start = System.nanoTime(), end = start + hogNanos, h = id;
                hogStart[id] = start;
                while (true) {
                    h = hash(h, CHUNK);
                    if (System.nanoTime() >= end) break;
                    if (Thread.interrupted()) {
                        FAILURE.compareAndSet(null, new InterruptedException("a hog was interrupted"));
                        break;
                    }
                }
                hogEnd[id] = System.nanoTime();
                SINK.addAndGet(h);
            });
        }
        long pingBudget = (long) n * every * 3 + hogNanos * (1 + o.hogs()) + TimeUnit.SECONDS.toNanos(60);
        long deadline = System.nanoTime() + pingBudget;
        long hogsStart;
        Protocol.progress(String.format(Locale.ROOT, "%d pings before the hogs", baseline));
        ping.start();
        try {
            if (!hogsGo.await(remaining(deadline), TimeUnit.NANOSECONDS)) {
                throw new IllegalStateException("the ping did not reach its " + baseline + "th sleep in time");
            }
            checkFailure();
            Protocol.progress(String.format(Locale.ROOT, "%d hogs computing %,d ms", o.hogs(), o.hogMs()));
            hogsStart = System.nanoTime();
            for (Thread hog : hogs) hog.start();
            long hogDeadline = hogsStart + hogNanos * (1 + o.hogs()) + TimeUnit.SECONDS.toNanos(60);
            for (Thread hog : hogs) {
                if (!hog.join(Duration.ofNanos(Math.max(1, hogDeadline - System.nanoTime())))) {
                    throw new IllegalStateException(String.format(Locale.ROOT, "the hogs had not ended %.0f s after"
                            + " they started: the machine is overloaded", (hogDeadline - hogsStart) / 1e9));
                }
            }
            Protocol.progress("pings after the hogs");
            if (!ping.join(Duration.ofNanos(Math.max(1, remaining(deadline))))) {
                throw new IllegalStateException(String.format(Locale.ROOT, "the ping had not done its %,d sleeps"
                        + " within %.0f s", n, pingBudget / 1e9));
            }
            checkFailure();
        } catch (InterruptedException | RuntimeException | OutOfMemoryError e) {
            stop(ping, hogs);
            throw e;
        }
        int carrierThreads = pool == null ? 0 : pool.getPoolSize();
        if (o.virtual() && carrierThreads > cores) {
            throw new IllegalStateException(String.format(Locale.ROOT, "the scheduler ran %d carrier threads, more"
                    + " than the %d set (%s)", carrierThreads, cores, MAX_POOL_SIZE));
        }
        long hogsEnd = Arrays.stream(hogEnd).max().orElseThrow();
        summarize(o, cores, carriers, carrierThreads, predicted, intended, woke, hogsStart, hogsEnd, hogStart, hogEnd);
    }

    static void summarize(Options o, int cores, int carriers, int carrierThreads, double predicted, long[] intended,
                          long[] woke, long hogsStart, long hogsEnd, long[] hogStart, long[] hogEnd) {
        int n = intended.length;
        double[] late = new double[n], at = new double[n];
        List<String> phase = new ArrayList<>();
        List<Double> before = new ArrayList<>(), during = new ArrayList<>(), after = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            late[i] = (woke[i] - intended[i]) / 1e6;
            at[i] = (intended[i] - hogsStart) / 1e6;
            String p = intended[i] < hogsStart ? "before" : intended[i] <= hogsEnd ? "during" : "after";
            phase.add(p);
            (p.equals("before") ? before : p.equals("during") ? during : after).add(late[i]);
        }
        double[] hogRun = new double[hogEnd.length], hogDelay = new double[hogEnd.length];
        for (int k = 0; k < hogEnd.length; k++) {
            hogRun[k] = (hogEnd[k] - hogStart[k]) / 1e6;
            hogDelay[k] = (hogStart[k] - hogsStart) / 1e6;
        }
        double maxDuring = max(during), medianBefore = median(before);
        long firstHog = Arrays.stream(hogStart).min().orElseThrow();
        if (firstHog > intended[Math.min(n - 1, o.baseline())]) {
            System.out.printf(Locale.ROOT, "note: no hog had started when the ping that slept as they were started"
                    + " was due (the hogs started %,.1f ms late): a slow start, not what this experiment measures%n",
                    (firstHog - hogsStart) / 1e6);
        }
        System.out.printf(Locale.ROOT, "hogs: started %,.1f-%,.1f ms after the main thread started them, each computed"
                        + " %,.1f-%,.1f ms; all done %,.1f ms after the start%n", min(hogDelay), max(hogDelay),
                min(hogRun), max(hogRun), (hogsEnd - hogsStart) / 1e6);
        System.out.printf(Locale.ROOT, "ping lateness: before the hogs median %.2f ms (max %.2f, %s); during them max"
                        + " %,.1f ms (median %,.2f, %s); after them median %.2f ms (%s)%n", medianBefore, max(before),
                pings(before.size()), maxDuring, median(during), pings(during.size()), median(after),
                pings(after.size()));
        for (int i = 0; i < n && during.size() <= 5; i++) {
            if (!phase.get(i).equals("during")) continue;
            System.out.printf(Locale.ROOT, "  ping %d: due %,.1f ms after the hogs started, woke %,.1f ms late%n", i,
                    at[i], late[i]);
        }
        if (predicted > 0) {
            System.out.printf(Locale.ROOT, "worst lateness during the hogs: %,.1f ms = %.2f x the hog's %,d ms"
                    + " (predicted at least ~%,.0f ms)%n", maxDuring, maxDuring / o.hogMs(), o.hogMs(), predicted);
        } else {
            System.out.printf(Locale.ROOT, "worst lateness during the hogs: %,.1f ms = %.3f x the hog's %,d ms%n",
                    maxDuring, maxDuring / o.hogMs(), o.hogMs());
        }

        Map<String, Object> data = new LinkedHashMap<>();
        data.put("kind", o.kind());
        data.put("hogs", o.hogs());
        data.put("hogMs", o.hogMs());
        data.put("cores", cores);
        data.put("carriers", carriers); // the scheduler's parallelism (virtual only; 0 for platform)
        data.put("carrierThreads", carrierThreads);
        data.put("pings", n);
        data.put("pingEveryMs", o.everyMs());
        data.put("baselinePings", o.baseline());
        data.put("predictedMinLatencyMs", predicted);
        data.put("maxLatencyMsDuringHogs", maxDuring);
        data.put("medianLatencyMsDuringHogs", median(during));
        data.put("pingsDuringHogs", during.size());
        data.put("medianLatencyMsBeforeHogs", medianBefore);
        data.put("maxLatencyMsBeforeHogs", max(before));
        data.put("medianLatencyMsAfterHogs", median(after));
        data.put("hogsRanMs", (hogsEnd - hogsStart) / 1e6);
        data.put("hogRunMs", hogRun);
        data.put("hogStartDelayMs", hogDelay);
        data.put("pingLatenciesMs", late);
        data.put("pingDueMs", at); // when each ping was due, from the hogs' start (negative: before it)
        data.put("pingPhases", phase);
        data.put("javaVersion", Runtime.version().toString());
        Protocol.result(data);
        System.out.println("saved " + Results.save("s15-no-time-slicing", data));
    }

    /** The hash loop of S14 (carrier-scaling): each step needs the one before, and the caller uses the result. */
    static long hash(long h, long iterations) {
        for (long i = 0; i < iterations; i++) {
            h = (h ^ i) * 0x9E3779B97F4A7C15L;
            h ^= h >>> 29;
        }
        return h;
    }

    static void checkFailure() {
        Throwable e = FAILURE.get();
        if (e == null) return;
        throw new IllegalStateException(e instanceof InterruptedException ? e.getMessage() : e.toString());
    }

    /** Interrupts the ping and the hogs and waits for them briefly: each checks its interrupt flag. */
    static void stop(Thread ping, Thread[] hogs) {
        ping.interrupt();
        for (Thread t : hogs) if (t != null) t.interrupt();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        try {
            ping.join(Duration.ofNanos(Math.max(1, until - System.nanoTime())));
            for (Thread t : hogs) { // join refuses a thread never started
                if (t != null && t.getState() != Thread.State.NEW) {
                    t.join(Duration.ofNanos(Math.max(1, until - System.nanoTime())));
                }
            }
        } catch (InterruptedException e) {
            // ending anyway
        }
    }

    static String pings(int n) {
        return n + (n == 1 ? " ping" : " pings");
    }

    static long remaining(long deadline) {
        return Math.max(1, deadline - System.nanoTime());
    }

    static double median(List<Double> values) {
        if (values.isEmpty()) return Double.NaN;
        double[] s = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    static double max(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    static double max(double[] values) {
        return Arrays.stream(values).max().orElse(Double.NaN);
    }

    static double min(double[] values) {
        return Arrays.stream(values).min().orElse(Double.NaN);
    }

    /** A failed measurement (not bad input): one line on stderr, exit code 1. */
    static void fail(String message) {
        System.err.println("S15: " + message);
        System.exit(1);
    }

    static Options parse(String[] args, Profile profile, int cores) {
        Cli cli = Cli.orExit("S15", USAGE, args,
                Set.of("--kind", "--hogs", "--hog-ms", "--pings", "--ping-every-ms"), Set.of());
        try {
            String kind = cli.oneOf("--kind", "virtual", List.of("virtual", "platform"));
            int hogs = cli.intValue("--hogs", cores, 1, MAX_HOGS);
            int hogMs = cli.intValue("--hog-ms", profile.pick(500, 2_000), 10, 60_000);
            int everyMs = cli.intValue("--ping-every-ms", 10, 1, 1_000);
            int pings = cli.intValue("--pings", (hogMs + everyMs - 1) / everyMs + 2 * BASELINE_MAX, 2, 100_000);
            long rounds = (hogs + cores - 1) / cores; // hogs beyond the cores wait for a carrier (or share a core)
            long totalMs = (long) pings * everyMs + rounds * hogMs;
            if (totalMs > BUDGET_MS) {
                throw new IllegalArgumentException(String.format(Locale.ROOT, "--pings x --ping-every-ms +"
                        + " ceil(--hogs / %d cores) x --hog-ms = %,d x %,d + %,d x %,d ms = %,.0f s; at most 10 minutes"
                        + " (600 s) allowed: fewer --hogs, a shorter --hog-ms or fewer --pings", cores, pings, everyMs,
                        rounds, hogMs, totalMs / 1e3));
            }
            return new Options(kind, hogs, hogMs, pings, everyMs);
        } catch (IllegalArgumentException e) {
            return Cli.exit("S15", e.getMessage());
        }
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
