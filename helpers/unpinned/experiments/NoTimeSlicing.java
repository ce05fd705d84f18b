//SOURCES ../workloads/Carriers.java
//SOURCES ../running/ChildRun.java
//SOURCES ../core/Expectations.java
//SOURCES ../core/Experiment.java
//SOURCES ../core/Figure.java
//SOURCES ../core/Measurement.java
//SOURCES ../core/Protocol.java
//SOURCES ../core/RunGuard.java
package unpinned.experiments;

import unpinned.workloads.Carriers;

import unpinned.core.Experiment;
import unpinned.core.Expectations;
import unpinned.core.Expectations.Line;
import unpinned.core.Figure;
import unpinned.core.Measurement;
import unpinned.core.Protocol;
import unpinned.core.RunGuard;
import unpinned.running.ChildRun;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Snippet S15 (alias no-time-slicing): how late a sleeping "ping" thread wakes while CPU hogs hold every carrier
 * (or every core). The snippet saves a {@link Run}; chapter 04 reads one per kind of thread as {@link Pings} rows
 * through {@link #run(String)}, and keeps them through {@link #EXPECTED}. Needs ChildRun.java, Measurement.java,
 * Carriers.java, Experiment.java (and what they need) alongside.
 */
public final class NoTimeSlicing {
    private NoTimeSlicing() {}

    /** Runs S15 with {@code --kind kind} (virtual or platform) in a child JVM; refuses after a stopped run. */
    public static Pings run(String kind) {
        if (!kind.equals("virtual") && !kind.equals("platform")) {
            throw new IllegalArgumentException("kind must be virtual or platform, got '" + kind + "'");
        }
        RunGuard.requireFresh();
        return ChildRun.result(Run.class, "S15_NoTimeSlicing.java", "--kind", kind).row();
    }

    /**
     * One kind's pings for a notebook: the hog's run, the median lateness before and after the hogs, the worst
     * during them, and each ping's due time (ms from the hogs' start) and lateness. The worst lateness is held
     * against the hog's run, the expectation on virtual threads (an ESTIMATE, not a limit: platform threads stay
     * far below it).
     */
    public record Pings(String kind, double hogMs, double medianBeforeMs, double maxDuringHogsMs,
                        double medianAfterMs, double[] dueMs, double[] lateMs) implements Measurement.Measured {
        @Override
        public List<Measurement> measurements() {
            return List.of(Measurement.of("worst ping lateness during the hogs · " + kind + " threads",
                    maxDuringHogsMs, "ms").bound(hogMs, Measurement.Bound.ESTIMATE));
        }

        /** The worst lateness while the hogs ran: one measurement (the ping's worst sleep then). */
        public Figure worstDuringHogs() {
            return Figure.single(maxDuringHogsMs);
        }
    }

    /**
     * What chapter 04 expects while one CPU hog per carrier (or core) computes without blocking: the OS time-slices
     * platform threads, so their ping gets a core within a few ms; nothing preempts a virtual thread, so theirs waits
     * for a hog to end, nearly the whole run (it slept 10 ms before they began).
     */
    public static final Expectations<List<Pings>> EXPECTED = Expectations.<List<Pings>>of("04-no-time-slicing")
            .expect("virtual-ping-waits-a-hog", "the latest ping on virtual threads", "the hog's run",
                    rows -> kind(rows, "virtual").worstDuringHogs().over(kind(rows, "virtual").hogMs()),
                    Line.atLeast(0.9))
            .claims("jmh-13")
            .expect("platform-ping-gets-a-slice", "the latest ping on platform threads", "the hog's run",
                    rows -> kind(rows, "platform").worstDuringHogs().over(kind(rows, "platform").hogMs()),
                    Line.atMost(0.25));

    static Pings kind(List<Pings> rows, String kind) {
        return rows.stream().filter(r -> r.kind().equals(kind)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no " + kind + " pings in " + rows));
    }

    /** What S15 saves: the run's settings, the lateness by phase, and every ping and hog. */
    public record Run(String kind, int hogs, int hogMs, int cores, int carriers, int carrierThreads, int pings,
                      int pingEveryMs, int baselinePings, double predictedMinLatencyMs, double maxLatencyMsDuringHogs,
                      double medianLatencyMsDuringHogs, int pingsDuringHogs, double medianLatencyMsBeforeHogs,
                      double maxLatencyMsBeforeHogs, double medianLatencyMsAfterHogs, double hogsRanMs,
                      double[] hogRunMs, double[] hogStartDelayMs, double[] pingLatenciesMs, double[] pingDueMs,
                      List<String> pingPhases, String javaVersion) implements Measurement.Measured {
        public Pings row() {
            return new Pings(kind, hogMs, medianLatencyMsBeforeHogs, maxLatencyMsDuringHogs, medianLatencyMsAfterHogs,
                    pingDueMs, pingLatenciesMs);
        }

        @Override
        public List<Measurement> measurements() {
            return row().measurements();
        }
    }

    /** The settings of one run: the kind, the hogs, the ping's sleeps (the hogs start as sleep {@code baseline}). */
    public record Plan(String kind, int hogs, int hogMs, int pings, int everyMs, int baseline, int cores,
                       int carriers) {
        public boolean virtual() {
            return kind.equals("virtual");
        }
    }

    /** Prints the run and its prediction; returns the least lateness predicted during the hogs (0: none). */
    public static double predict(Plan p) {
        int lanes = p.virtual() ? p.carriers() : p.cores();
        double predicted = p.hogs() >= lanes && p.virtual() ? Math.max(0, p.hogMs() - p.everyMs()) : 0;
        System.out.printf(Locale.ROOT, "%s threads: %d hog%s computing %,d ms each, a ping sleeping %,d ms %,d times;"
                + " %d cores%s, JDK %s%n", p.kind(), p.hogs(), p.hogs() == 1 ? "" : "s", p.hogMs(), p.everyMs(),
                p.pings(), p.cores(), p.virtual() ? ", " + p.carriers() + " carriers (maxPoolSize " + p.cores() + ")"
                        : "", Runtime.version());
        if (!p.virtual()) {
            System.out.printf(Locale.ROOT, "prediction: the OS time-slices platform threads: the ping gets a core"
                    + " within a few ms of waking, hogs or not; its lateness during the hogs stays far below %,d ms%n",
                    p.hogMs());
        } else if (p.hogs() >= p.carriers()) {
            System.out.printf(Locale.ROOT, "prediction: the hogs take all %d carriers and never block; no time"
                    + " slices, so the ping, asleep when they start, waits for a hog to end: it wakes at least"
                    + " ~%,d ms late (hog %,d ms - the %,d ms it slept before they began)%s%n", p.carriers(),
                    (long) predicted, p.hogMs(), p.everyMs(), p.hogs() == p.carriers() ? ""
                            : "; later, if hogs still queued for a carrier go first");
        } else {
            System.out.printf(Locale.ROOT, "prediction: %d hog%s on %d carriers leave a carrier free: the ping runs on"
                    + " it and stays about as late as before the hogs%n", p.hogs(), p.hogs() == 1 ? "" : "s",
                    p.carriers());
        }
        return predicted;
    }

    /**
     * The pings' lateness before, during and after the hogs (from each ping's intended and actual wake-up, and the
     * hogs' start and end, all System.nanoTime), printed, as the result S15 saves.
     */
    public static Run summarize(Plan o, int carrierThreads, double predicted, long[] intended, long[] woke,
                                long hogsStart, long[] hogStart, long[] hogEnd) {
        int n = intended.length;
        long hogsEnd = Arrays.stream(hogEnd).max().orElseThrow();
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
                + " %,.1f-%,.1f ms; all done %,.1f ms after the start%n", min(hogDelay), max(hogDelay), min(hogRun),
                max(hogRun), (hogsEnd - hogsStart) / 1e6);
        System.out.printf(Locale.ROOT, "ping lateness: before the hogs median %.2f ms (max %.2f, %s); during them max"
                + " %,.1f ms (median %,.2f, %s); after them median %.2f ms (%s)%n", medianBefore, max(before),
                pings(before.size()), maxDuring, median(during), pings(during.size()), median(after),
                pings(after.size()));
        for (int i = 0; i < n && during.size() <= 5; i++) {
            if (!phase.get(i).equals("during")) continue;
            System.out.printf(Locale.ROOT, "  ping %d: due %,.1f ms after the hogs started, woke %,.1f ms late%n", i,
                    at[i], late[i]);
        }
        System.out.printf(Locale.ROOT, predicted > 0 ? "worst lateness during the hogs: %,.1f ms = %.2f x the hog's"
                + " %,d ms (predicted at least ~%,.0f ms)%n" : "worst lateness during the hogs: %,.1f ms = %.3f x the"
                + " hog's %,d ms%n", maxDuring, maxDuring / o.hogMs(), o.hogMs(), predicted);
        return new Run(o.kind(), o.hogs(), o.hogMs(), o.cores(), o.carriers(), carrierThreads, n, o.everyMs(),
                o.baseline(), predicted, maxDuring, median(during), during.size(), medianBefore, max(before),
                median(after), (hogsEnd - hogsStart) / 1e6, hogRun, hogDelay, late, at, phase,
                Runtime.version().toString());
    }

    /**
     * Starts the ping, then the hogs as it falls asleep, waits for them, then for the ping; returns when the hogs
     * started. {@code checkFailure} throws if a thread failed. Bounded by {@code pingBudget} (and the hogs' own).
     */
    public static long hogsDuringPings(Thread ping, Thread[] hogs, CountDownLatch hogsGo, long hogNanos,
                                       long pingBudget, Runnable checkFailure) throws InterruptedException {
        long deadline = System.nanoTime() + pingBudget;
        ping.start();
        if (!hogsGo.await(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
            throw new Experiment.RunFailed("the ping did not reach the sleep before the hogs in time; nothing saved");
        }
        checkFailure.run();
        Protocol.progress(String.format(Locale.ROOT, "%d hogs computing %,d ms", hogs.length, hogNanos / 1_000_000));
        long hogsStart = System.nanoTime();
        for (Thread hog : hogs) hog.start();
        long hogDeadline = hogsStart + hogNanos * (1 + hogs.length) + TimeUnit.SECONDS.toNanos(60);
        if (!Carriers.joinAll(hogs, hogDeadline)) {
            throw new Experiment.RunFailed(String.format(Locale.ROOT, "the hogs had not ended %.0f s after they"
                    + " started: the machine is overloaded; nothing saved", (hogDeadline - hogsStart) / 1e9));
        }
        Protocol.progress("pings after the hogs");
        if (!Carriers.joinAll(new Thread[] {ping}, deadline)) {
            throw new Experiment.RunFailed(String.format(Locale.ROOT, "the ping had not done its sleeps within"
                    + " %.0f s; nothing saved", pingBudget / 1e9));
        }
        checkFailure.run();
        return hogsStart;
    }

    /** S15's --pings, or by default H / E + 20: 10 pings before the hogs start, their run, 10 after. */
    public static int pingCount(Experiment.Args a) {
        int hogMs = a.intCount("--hog-ms"), everyMs = a.intCount("--ping-every-ms");
        return a.given("--pings") ? a.intCount("--pings") : (hogMs + everyMs - 1) / everyMs + 20;
    }

    /** S15's budget: N x E + ceil(K / cores) x H at most 10 minutes. */
    public static void withinBudget(Experiment.Args a) {
        int cores = Runtime.getRuntime().availableProcessors(), pings = pingCount(a);
        int everyMs = a.intCount("--ping-every-ms"), hogMs = a.intCount("--hog-ms");
        long rounds = (a.count("--hogs") + cores - 1) / cores; // hogs beyond the cores wait (or share a core)
        long totalMs = (long) pings * everyMs + rounds * hogMs;
        if (totalMs > TimeUnit.MINUTES.toMillis(10)) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "--pings x --ping-every-ms +"
                    + " ceil(--hogs / %d cores) x --hog-ms = %,d x %,d + %,d x %,d ms = %,.0f s; at most 10 minutes"
                    + " (600 s) allowed: fewer --hogs, a shorter --hog-ms or fewer --pings", cores, pings, everyMs,
                    rounds, hogMs, totalMs / 1e3));
        }
    }

    static String pings(int n) {
        return n + (n == 1 ? " ping" : " pings");
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
}
