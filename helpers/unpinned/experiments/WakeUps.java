//SOURCES ../showing/Charts.java
//SOURCES ../showing/DrawnChart.java
//SOURCES ../core/Expectations.java
//SOURCES ../core/Figure.java
//SOURCES ../running/Jdks.java
//SOURCES ../core/Measurement.java
//SOURCES ../core/RunGuard.java
//SOURCES Switches.java
//SOURCES ../showing/Tables.java
package unpinned.experiments;

import unpinned.core.Expectations;
import unpinned.core.Expectations.Line;
import unpinned.core.Figure;
import unpinned.core.Measurement;
import unpinned.core.RunGuard;
import unpinned.running.Jdks;
import unpinned.showing.Charts;
import unpinned.showing.DrawnChart;
import unpinned.showing.Tables;

import tech.tablesaw.api.Table;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Chapter 04's wake-up latency, as snippet S38 (alias wake-up-latency) saves it: the time from LockSupport.unpark of
 * a parked virtual thread to its first instruction, when the carrier is parked in the OS (idle) and when it is
 * awake running another virtual thread (busy), with the carriers' OS context switches per wake-up; and the
 * notebook's side (each JDK, a histogram, and what chapter 04 expects: {@link #EXPECTED}). The carriers' switches
 * are read from /proc (Linux, through Switches): the OS threads whose name starts "ForkJoinPool-" (the default
 * scheduler's workers; the common pool's are "ForkJoinPool.commonPool-..."). Needs Switches.java, Measurement.java,
 * Charts.java, Tables.java and Jdks.java (and what they need) alongside.
 */
public final class WakeUps {
    private WakeUps() {}

    /** What S38 saves: one row per mode ("idle", "busy") on this JDK. */
    public record Run(String javaVersion, int feature, int carriers, int wakeUps, int pauseUs, List<Mode> modes)
            implements Measurement.Measured {
        @Override
        public List<Measurement> measurements() {
            return modes.stream().map(m -> Measurement.of("wake-up latency, median, carriers " + m.mode() + " · JDK "
                    + feature, m.p50Us(), "µs")).toList();
        }

        public Mode mode(String name) {
            return modes.stream().filter(m -> m.mode().equals(name)).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no mode " + name + " in the run"));
        }
    }

    /**
     * One mode: every wake-up's latency (µs), its percentiles, and the carriers' OS context switches over the mode
     * divided by the wake-ups (-1 without /proc).
     */
    public record Mode(String mode, double[] latenciesUs, double p50Us, double p90Us, double p99Us,
                       double carrierSwitchesPerWakeUp) {
        public static Mode of(String mode, double[] us, double switchesPerWakeUp) {
            double[] s = us.clone();
            Arrays.sort(s);
            return new Mode(mode, us, round(pct(s, 50)), round(pct(s, 90)), round(pct(s, 99)),
                    Math.round(switchesPerWakeUp * 1000) / 1000.0);
        }

        /**
         * The median wake-up with its distribution-free 95 % interval: the order statistics n/2 - 0.98 sqrt(n) and
         * n/2 + 1 + 0.98 sqrt(n) of the sorted latencies.
         */
        public Figure median() {
            double[] s = latenciesUs.clone();
            Arrays.sort(s);
            int n = s.length;
            if (n < 3) return Figure.single(p50Us);
            double half = 0.98 * Math.sqrt(n);
            int mid = (int) Math.ceil(0.5 * n) - 1;
            int lo = Math.max(0, (int) Math.floor(n / 2.0 - half) - 1);
            int hi = Math.min(n - 1, (int) Math.ceil(n / 2.0 + 1 + half) - 1);
            return new Figure(s[mid], Math.min(s[lo], s[mid]), Math.max(s[hi], s[mid]), n + " wake-ups (the median's"
                    + " order statistics)");
        }

        /** One line, as S38 prints it. */
        public String line() {
            return String.format(Locale.ROOT, "%-4s carriers: unpark to run p50 %,.1f µs, p90 %,.1f, p99 %,.1f (%d"
                    + " wake-ups); the carriers' OS context switches per wake-up %.2f", mode, p50Us, p90Us, p99Us,
                    latenciesUs.length, carrierSwitchesPerWakeUp);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Mode m && mode.equals(m.mode) && Arrays.equals(latenciesUs, m.latenciesUs);
        }

        @Override
        public int hashCode() {
            return 31 * mode.hashCode() + Arrays.hashCode(latenciesUs);
        }
    }

    static double pct(double[] sorted, double p) {
        if (sorted.length == 0) return Double.NaN;
        int i = (int) Math.ceil(p / 100 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
    }

    static double round(double v) {
        return Math.round(v * 10) / 10.0;
    }

    /** The OS context switches so far of the default scheduler's carriers ("ForkJoinPool-..."); -1 without /proc. */
    public static long carrierSwitches() {
        return Switches.liveSwitches("ForkJoinPool-");
    }

    // ---- the notebook's side ------------------------------------------------------------------------------------

    /** S38 on each JDK, oldest first, with its defaults. */
    public static Map<String, Run> run(List<Jdks.Jdk> jdks) {
        RunGuard.requireFresh();
        Map<String, Run> runs = new LinkedHashMap<>();
        for (Jdks.Jdk jdk : jdks) runs.put(jdk.label(), Jdks.result(jdk, Run.class, "S38_WakeUpLatency.java"));
        RunGuard.requireFresh();
        return runs;
    }

    /** Bin edges in µs, 4 per decade from 0.1 µs to 10 ms. */
    static final double[] EDGES = java.util.stream.IntStream.rangeClosed(-4, 16)
            .mapToDouble(i -> Math.pow(10, i / 4.0)).toArray();

    /** The share of wake-ups per bin (log-spaced), a line per JDK and mode. */
    public static DrawnChart histogram(Map<String, Run> runs) {
        RunGuard.check("drawing a chart");
        List<Charts.Series> series = new ArrayList<>();
        runs.forEach((jdk, r) -> r.modes().forEach(m -> {
            double[] x = new double[EDGES.length - 1], y = new double[EDGES.length - 1];
            for (int b = 0; b + 1 < EDGES.length; b++) {
                double lo = EDGES[b], hi = EDGES[b + 1];
                x[b] = Math.sqrt(lo * hi);
                y[b] = Arrays.stream(m.latenciesUs()).filter(v -> v >= lo && v < hi).count()
                        / (double) m.latenciesUs().length;
            }
            series.add(new Charts.Series(jdk + ", carrier " + m.mode(), x, y));
        }));
        return Charts.lines("Unpark to run: the carrier parked in the OS (idle) or awake running another virtual"
                + " thread (busy)", "µs from unpark to the thread's next instruction (log scale)",
                "share of the wake-ups", true, false, series.toArray(Charts.Series[]::new));
    }

    /** Per JDK and mode: percentiles and the carriers' OS switches per wake-up. */
    public static Table table(Map<String, Run> runs) {
        List<List<?>> rows = new ArrayList<>();
        runs.forEach((jdk, r) -> r.modes().forEach(m -> rows.add(List.of(jdk, m.mode(), m.latenciesUs().length,
                m.p50Us(), m.p90Us(), m.p99Us(), m.carrierSwitchesPerWakeUp()))));
        return Tables.of("Wake-up latency, per JDK and carrier state", List.of("JDK", "carrier", "wake-ups",
                "p50 (µs)", "p90 (µs)", "p99 (µs)", "carrier OS switches per wake-up"), rows);
    }

    /**
     * What chapter 04 expects of a wake-up, on each JDK: a carrier with nothing to run parks in the OS, so each wake-up
     * first wakes it there (one OS context switch, an OS wake-up's latency); a carrier kept awake by another virtual
     * thread takes the woken one from its queue without the OS. Each figure is taken on the JDK furthest from its line.
     */
    public static final Expectations<Map<String, Run>> EXPECTED = Expectations.<Map<String, Run>>of(
                    "04-wake-up-latency")
            .expect("an-idle-carrier-is-woken-first", "the median wake-up with the carrier idle", "the same with it"
                    + " busy", runs -> Figure.lowest(runs.values(), r -> r.mode("idle").median()
                            .over(r.mode("busy").median())), Line.atLeast(1.5))
            .expect("an-idle-carrier-sleeps-in-the-os", "the idle carrier's OS context switches per wake-up",
                    "one per wake-up", runs -> Figure.lowest(runs.values(), r -> Figure.exact(
                            r.mode("idle").carrierSwitchesPerWakeUp())), Line.atLeast(0.5))
            .untestableWhen(WakeUps::noSwitchCounts)
            .expect("a-busy-carrier-stays-awake", "the busy carrier's OS context switches per wake-up",
                    "the idle carrier's", runs -> Figure.highest(runs.values(), r -> Figure.exact(
                            r.mode("busy").carrierSwitchesPerWakeUp()).over(r.mode("idle").carrierSwitchesPerWakeUp())),
                    Line.atMost(0.5))
            .untestableWhen(runs -> noSwitchCounts(runs) != null ? noSwitchCounts(runs) : runs.values().stream()
                    .anyMatch(r -> r.mode("idle").carrierSwitchesPerWakeUp() <= 0) ? "the idle carrier made no OS"
                    + " context switch to compare with" : null);

    private static String noSwitchCounts(Map<String, Run> runs) {
        return runs.values().stream().anyMatch(r -> r.mode("idle").carrierSwitchesPerWakeUp() < 0
                || r.mode("busy").carrierSwitchesPerWakeUp() < 0) ? "no per-thread context switch counts here (they"
                + " come from /proc, on Linux)" : null;
    }
}
