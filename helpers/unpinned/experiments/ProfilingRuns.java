//SOURCES ../showing/Charts.java
//SOURCES ../showing/DrawnChart.java
//SOURCES ../showing/FlameGraph.java
//SOURCES Profiling.java
//SOURCES ../core/Show.java
//SOURCES ../showing/Tables.java
package unpinned.experiments;

import unpinned.experiments.Profiling.Endpoint;
import unpinned.experiments.Profiling.Overhead;
import unpinned.experiments.Profiling.Result;
import unpinned.experiments.Profiling.Seen;
import unpinned.experiments.Profiling.Switching;
import unpinned.core.Show;
import unpinned.showing.Charts;
import unpinned.showing.DrawnChart;
import unpinned.showing.FlameGraph;
import unpinned.showing.Tables;
import tech.tablesaw.api.Table;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Chapter 10's page: S34's runs (through {@link Profiling#run}), their tables, charts, flame graphs and the sentences
 * that say what they mean, each computed from the run. When async-profiler can't run here, the parts that need it
 * say why in one line and show nothing else.
 */
public final class ProfilingRuns {
    private ProfilingRuns() {}

    /** The word every flame graph's title starts with (flame graphs are counted by it). */
    public static final String FLAME_GRAPH = "Flame graph";

    // ---- part 1: the CPU endpoint ------------------------------------------------------------------------------

    /** Whether {@code r} has async-profiler's parts; if not, shows the one line that says why. */
    public static boolean profiled(Result r) {
        if (r.unavailable() == null) return true;
        Show.markdown("**async-profiler could not run here:** " + r.unavailable() + ". The JFR parts of this chapter"
                + " run without it.");
        return false;
    }

    /** The two servers' profiles: throughput, CPU, samples against the samples their CPU allows, shares. */
    public static Table endpointTable(Result r) {
        List<List<?>> rows = new ArrayList<>();
        for (Endpoint e : r.endpoint()) {
            rows.add(List.of(e.server(), e.throughput(), e.cpuSeconds(), e.samples(),
                    Math.round(e.cpuSeconds() * 1000 / r.intervalMs()), Profiling.percent(e.inWorkShare()),
                    Profiling.percent(e.reachingShare()), e.threads() + ": " + String.join(", ",
                            e.threadShapes().stream().filter(t -> t.contains("pool") || t.contains("ForkJoin"))
                                    .toList())));
        }
        return Tables.of("Chapter 04's CPU endpoint, one window profiled by async-profiler (" + r.endpoint().get(0)
                        .event() + ", one sample per " + r.intervalMs() + " ms of a thread's CPU)",
                List.of("server", "requests/s", "JVM CPU (s)", "samples", "at most (CPU / interval)",
                        "in Work.sumTwice", "of those, reaching run()", "threads sampled in it"), rows);
    }

    /** The flame graph of a profile S34 kept (its collapsed stacks). */
    public static DrawnChart flameGraph(String what, String collapsedFile) {
        return FlameGraph.of(FLAME_GRAPH + ": " + what, Path.of(collapsedFile));
    }

    /** The endpoint's flame graph for {@code server} ("pool of 200" or "virtual threads"). */
    public static DrawnChart endpointFlameGraph(Result r, String server) {
        Endpoint e = r.endpoint().stream().filter(x -> x.server().equals(server)).findFirst().orElseThrow();
        return flameGraph("the CPU endpoint on " + (server.startsWith("pool") ? "a " : "") + server + " ("
                + String.format(Locale.ROOT, "%,d", e.samples()) + " samples)", e.collapsedFile());
    }

    // ---- part 2: what each profiler sees ------------------------------------------------------------------------

    /** Every view of the requests: per JDK, profiler mode and depth, the shares and the thread names. */
    public static Table seenTable(Result r) {
        List<List<?>> rows = new ArrayList<>();
        for (Seen s : r.seen()) {
            rows.add(List.of(shortLabel(s), s.depth(), s.workload(), Profiling.percent(s.reachingShare()),
                    s.reaching() == s.workload() ? "-" : s.cutAt().replaceFirst("^jdk\\.internal\\.vm\\.", ""),
                    Double.isNaN(s.framesCut()) ? "-" : String.format(Locale.ROOT, "%.0f of %.0f", s.framesCut(),
                            s.framesFull()),
                    s.threadNames() + " " + (s.threadKind().equals("carrier") ? "carriers" : s.threadKind())));
        }
        return Tables.of("Samples with a request's frame on them, by profiler and depth, pooled over the windows",
                List.of("profiler", "depth", "samples", "reaching run()", "the rest cut at", "frames, cut / whole",
                        "threads named"), rows);
    }

    /** A profiler view's short name for tables and a chart's axis: "async cpu", "JFR execution (JDK 21)"... */
    static String shortLabel(Seen s) {
        String mode = switch (s.mode()) {
            case "jdk.ExecutionSample" -> "execution";
            case "jdk.CPUTimeSample" -> "CPU-time";
            case "cpu cstack=vm" -> "cstack=vm";
            default -> s.mode();
        };
        String name = (s.profiler().equals("JFR") ? "JFR " : "async ") + mode;
        return s.jdk().equals("JDK " + Runtime.version().feature()) ? name : name + " (" + s.jdk() + ")";
    }

    /** The share reaching run(), one group per profiler view, one bar per depth. */
    public static DrawnChart reachingChart(Result r) {
        List<String> labels = new ArrayList<>();
        for (Seen s : r.seen()) if (!labels.contains(shortLabel(s))) labels.add(shortLabel(s));
        Map<String, double[]> series = new LinkedHashMap<>();
        for (int d : r.depths()) {
            series.put(d + " frames deep", labels.stream().mapToDouble(l -> r.seen().stream()
                    .filter(s -> shortLabel(s).equals(l) && s.depth() == d).findFirst()
                    .map(Seen::reachingShare).orElse(Double.NaN)).toArray());
        }
        return Charts.groupedBars("Request samples whose stack reaches the request's run(), by profiler",
                "share of samples", labels, series, Map.of("every sample", 1.0, "the work before the block", 0.5));
    }

    /** The deep stack's flame graph from async-profiler (cpu), where the cut shows as a second, short tower. */
    public static DrawnChart deepFlameGraph(Result r) {
        var run = r.stacks().stream().filter(s -> s.collapsedFile() != null).findFirst().orElseThrow();
        int deep = r.depths().get(r.depths().size() - 1);
        return flameGraph("requests " + deep + " frames deep, async-profiler cpu, " + run.jdk(), run.collapsedFile());
    }

    /** Each profiler's cost: throughput and CPU per request, with and without it, and the windows' spreads. */
    public static Table overheadTable(Result r) {
        List<List<?>> rows = new ArrayList<>();
        for (Overhead o : r.overheads()) {
            rows.add(List.of(o.jdk() + " " + o.profiler(), o.depth(), String.format(Locale.ROOT, "%,.0f / %,.0f",
                    o.throughput(), o.baseline()), signed(-o.overhead()) + " ± " + Profiling.percent(o.spread()),
                    String.format(Locale.ROOT, "%.0f / %.0f", o.cpuUsPerRequest(), o.baselineCpuUs()),
                    signed(o.cpuOverhead()) + " ± " + Profiling.percent(o.cpuSpread())));
        }
        return Tables.of("What each profiler costs the requests: medians of its windows against the same JVM's windows"
                        + " without it (± the larger spread of the two sets)",
                List.of("profiler", "depth", "requests/s with / without", "throughput change",
                        "CPU µs per request with / without", "CPU per request change"), rows);
    }

    // ---- part 3: freeze and thaw ---------------------------------------------------------------------------------

    /** The ping-pong on each kind of thread: hand-offs, CPU per hand-off with and without async-profiler. */
    public static Table switchesTable(Result r) {
        List<List<?>> rows = new ArrayList<>();
        for (Switching s : r.switches()) {
            rows.add(List.of(s.kind() + (s.carriers() > 0 ? " (" + s.carriers() + " carrier)" : ""),
                    s.unprofiledHandoffsPerSecond(), s.handoffsPerSecond(), s.unprofiledCpuUsPerHandoff(),
                    s.cpuUsPerHandoff(), s.samples(), s.kernelFrames() ? "yes" : "no (itimer)"));
        }
        return Tables.of("The hand-off ping-pong, before async-profiler was loaded and while it sampled (cstack=vm)",
                List.of("threads", "hand-offs/s before", "hand-offs/s profiled", "CPU µs per hand-off before",
                        "CPU µs per hand-off profiled", "samples", "kernel frames"), rows);
    }

    /** Where a hand-off's CPU goes, by part of the switch, one bar per kind of thread. */
    public static DrawnChart switchesChart(Result r) {
        List<String> parts = new ArrayList<>();
        for (Switching s : r.switches()) for (String p : s.shares().keySet()) if (!parts.contains(p)) parts.add(p);
        Map<String, double[]> series = new LinkedHashMap<>();
        for (Switching s : r.switches()) {
            series.put(s.kind() + " threads", parts.stream().mapToDouble(p -> s.shares().getOrDefault(p, 0.0))
                    .toArray());
        }
        return Charts.groupedBars("Where a hand-off's CPU goes: the part of the switch each sample is in",
                "share of CPU samples", parts, series, Map.of());
    }

    /** The ping-pong's flame graph for {@code kind} ("virtual" or "platform"). */
    public static DrawnChart switchFlameGraph(Result r, String kind) {
        Switching s = r.switches().stream().filter(x -> x.kind().equals(kind)).findFirst().orElseThrow();
        return flameGraph("the hand-off ping-pong on " + kind + " threads, with native frames", s.collapsedFile());
    }

    /** One line: the share of the virtual threads' CPU samples in freeze and in thaw, and in the kernel's futex. */
    public static void freezeThawLine(Result r) {
        Map<String, Double> v = r.switches().stream().filter(x -> x.kind().equals("virtual")).findFirst()
                .map(Switching::shares).orElse(Map.of());
        Map<String, Double> p = r.switches().stream().filter(x -> x.kind().equals("platform")).findFirst()
                .map(Switching::shares).orElse(Map.of());
        Show.markdown(String.format(Locale.ROOT, "**This run:** virtual threads spent %s of their CPU samples in"
                + " freeze and %s in thaw (%s in the kernel's futex path); platform threads %s in the kernel's"
                + " futex path.", Profiling.percent(v.getOrDefault("freeze", 0.0)),
                Profiling.percent(v.getOrDefault("thaw", 0.0)), Profiling.percent(v.getOrDefault("kernel: futex", 0.0)),
                Profiling.percent(p.getOrDefault("kernel: futex", 0.0))));
    }

    private static String signed(double share) {
        return String.format(Locale.ROOT, "%+.0f %%", 100 * share);
    }
}
