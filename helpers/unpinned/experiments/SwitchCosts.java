//SOURCES ../showing/Charts.java
//SOURCES ../showing/Comparison.java
//SOURCES ../showing/DrawnChart.java
//SOURCES ../core/Expectations.java
//SOURCES ../core/Figure.java
//SOURCES ../running/Jdks.java
//SOURCES ../running/Jmh.java
//SOURCES LazyThaw.java
//SOURCES ../core/Measurement.java
//SOURCES ../core/RunGuard.java
//SOURCES ../core/Show.java
package unpinned.experiments;

import unpinned.core.Expectations;
import unpinned.core.Expectations.Line;
import unpinned.core.Figure;
import unpinned.core.Measurement;
import unpinned.core.RunGuard;
import unpinned.core.Show;
import unpinned.running.Jdks;
import unpinned.running.Jmh;
import unpinned.showing.Charts;
import unpinned.showing.Comparison;
import unpinned.showing.DrawnChart;

import org.knowm.xchart.AnnotationLine;
import org.knowm.xchart.AnnotationText;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.style.markers.SeriesMarkers;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * Chapter 03's switch costs: snippet S35 (alias switch-cost, JMH: a park/unpark ping-pong, and a continuation's run +
 * yield against its stack's depth) and S36 (alias lazy-thaw: the words still frozen after each return) run on each
 * JDK, charted against what continuationFreezeThaw.cpp predicts, and their meaning written from the runs.
 */
public final class SwitchCosts {
    private SwitchCosts() {}

    /** HotSpot's Thaw::thaw_fast copies a whole chunk below this many words, one frame at or above it (21u, 25u). */
    public static final int THAW_WHOLE_BELOW_WORDS = 500;

    /** One ping-pong: ns per round trip (JMH's score and 99.9 % error, each iteration) and OS switches per trip. */
    public record PingPong(String jdk, String threads, double nsPerRoundTrip, double errorNs, double[] samples,
                           double osSwitchesPerRoundTrip, double[] switchSamples) implements Measurement.Measured {
        @Override
        public List<Measurement> measurements() {
            return List.of(Measurement.of(threads + " threads · ping-pong round trip · " + jdk, nsPerRoundTrip, "ns")
                            .spread(errorNs),
                    Measurement.of(threads + " threads · OS context switches per round trip · " + jdk,
                            osSwitchesPerRoundTrip, "switches").bound(threads.equals("platform") ? 2 : 0,
                            Measurement.Bound.ESTIMATE));
        }

        /** ns per round trip with its 95 % interval over the JMH iterations. */
        public Figure time() {
            return iterations(samples, nsPerRoundTrip);
        }

        /** OS context switches per round trip with its 95 % interval over the JMH iterations. */
        public Figure osSwitches() {
            return iterations(switchSamples, osSwitchesPerRoundTrip);
        }
    }

    /** One depth: the words frozen after a yield, and ns per run + yield (JMH's score, error, each iteration). */
    public record Depth(String jdk, int depth, double chunkWords, double ns, double errorNs, double[] samples) {
        /** ns per run + yield with its 95 % interval over the JMH iterations. */
        public Figure time() {
            return iterations(samples, ns);
        }
    }

    /** S35 on one JDK: both benchmarks. */
    public record Run(String jdk, List<PingPong> pingPong, List<Depth> depths) {}

    /**
     * S35 on each JDK, oldest first (JMH in its own JVMs: the host and its forks on that JDK): the ping-pong, and
     * run + yield at {@code depths} frames.
     */
    public static Map<String, Run> run(List<Jdks.Jdk> jdks, List<Integer> depths) {
        RunGuard.requireFresh();
        String depthList = depths.stream().map(String::valueOf).collect(Collectors.joining(","));
        Map<String, Run> runs = new LinkedHashMap<>();
        for (Jdks.Jdk jdk : jdks) {
            String[] on = jdk.feature() == Runtime.version().feature() ? new String[0]
                    : new String[] {Jdks.JDK_OPTION, String.valueOf(jdk.feature())};
            List<Jmh.Result> results = Jmh.run("S35_SwitchCost.java", Map.of("depth", depthList), on);
            List<PingPong> pings = new ArrayList<>();
            List<Depth> deep = new ArrayList<>();
            for (Jmh.Result r : results) {
                if (r.method().equals("pingPong")) {
                    double[] sw = r.secondary("osSwitchesPerRoundTrip");
                    pings.add(new PingPong(jdk.label(), r.params().get("threads"), r.score(), r.error(), r.samples(),
                            Arrays.stream(sw).average().orElse(Double.NaN), sw));
                } else {
                    deep.add(new Depth(jdk.label(), Integer.parseInt(r.params().get("depth")),
                            Arrays.stream(r.secondary("chunkWords")).average().orElse(Double.NaN), r.score(),
                            r.error(), r.samples()));
                }
            }
            runs.put(jdk.label(), new Run(jdk.label(), pings, deep));
        }
        RunGuard.requireFresh();
        return runs;
    }

    static PingPong ping(Run r, String threads) {
        return r.pingPong().stream().filter(p -> p.threads().equals(threads)).findFirst()
                .orElseThrow(() -> new IllegalStateException("no " + threads + " ping-pong in the run of " + r.jdk()));
    }

    /** ns per round trip, per JDK and kind, with JMH's error bars; a log axis (the two are tens of times apart). */
    public static DrawnChart pingPongChart(Map<String, Run> runs) {
        RunGuard.check("drawing a chart");
        List<Comparison> rows = new ArrayList<>();
        runs.forEach((jdk, r) -> {
            for (String kind : List.of("virtual", "platform")) {
                PingPong p = ping(r, kind);
                rows.add(new Comparison(jdk + " · " + kind, p.nsPerRoundTrip(), finite(p.errorNs()), Double.NaN,
                        Double.NaN));
            }
        });
        return Charts.compare("Park/unpark round trip: virtual threads on one carrier (freeze_fast + thaw_fast, in"
                + " the JVM) vs platform threads (futex wait and wake)", "ns per round trip", rows, true);
    }

    /** OS context switches per round trip, per kind and JDK, against 2 (each side parks in the kernel once). */
    public static DrawnChart switchesChart(Map<String, Run> runs) {
        RunGuard.check("drawing a chart");
        List<String> kinds = List.of("virtual", "platform");
        Map<String, double[]> series = new LinkedHashMap<>();
        runs.forEach((jdk, r) -> series.put(jdk, kinds.stream().mapToDouble(k -> ping(r, k).osSwitchesPerRoundTrip())
                .toArray()));
        return Charts.groupedBars("OS context switches per round trip, counted by the run (/proc)", "switches per"
                + " round trip", kinds.stream().map(k -> k + " threads").toList(), series,
                Map.of("a park in the kernel on each side: 2", 2.0));
    }

    static Depth shallowest(Run r) {
        return r.depths().stream().min(java.util.Comparator.comparingDouble(Depth::chunkWords)).orElseThrow();
    }

    static Depth deepest(Run r) {
        return r.depths().stream().max(java.util.Comparator.comparingDouble(Depth::chunkWords)).orElseThrow();
    }

    /**
     * What chapter 03 expects of S35 on every JDK it ran on (JMH iterations give each figure its spread; the JDK
     * closest to each line is the one judged): a platform round trip goes through the kernel's scheduler twice (each
     * side parks once), a virtual one stays on its carrier, a few memory copies, so the platform one takes several
     * times as long; and because thaw_fast copies back one frame of a chunk of 500 words or more, the deepest stack's
     * run + yield costs a few times the shallowest's, where copying every word twice would cost tens of times.
     */
    public static final Expectations<Map<String, Run>> EXPECTED = Expectations.<Map<String, Run>>of("03-switch-cost")
            .expect("platform-round-trip-slower", "the platform threads' park/unpark round trip",
                    "virtual threads' on one carrier", runs -> Figure.lowest(runs.values(),
                            r -> ping(r, "platform").time().over(ping(r, "virtual").time())), Line.atLeast(2))
            .claims("pr-14")
            .expect("platform-parks-in-the-kernel", "the platform threads' OS context switches per round trip",
                    "two, one park in the kernel per side", runs -> Figure.lowest(runs.values(),
                            r -> ping(r, "platform").osSwitches().over(2)), Line.atLeast(0.5))
            .expect("virtual-stays-in-the-jvm", "the virtual threads' OS context switches per round trip",
                    "one per round trip", runs -> Figure.highest(runs.values(), r -> ping(r, "virtual").osSwitches()),
                    Line.atMost(0.5))
            .expect("deep-stack-thawed-lazily", "run + yield at the deepest stack measured", "at the shallowest",
                    runs -> Figure.highest(runs.values(), r -> deepest(r).time().over(shallowest(r).time())),
                    Line.atMost(8));

    /**
     * ns per run + yield against the words frozen (log axis), a line per JDK with JMH's error bars; the 500-word line
     * where thaw_fast stops copying the whole chunk, and the expected shape: rising below it (freeze_fast and
     * thaw_fast copy every word, a line fitted to the points there), flat above it (one frame thawed, the next ones
     * behind the return barrier: the mean of the points there).
     */
    public static DrawnChart depthChart(Map<String, Run> runs) {
        RunGuard.check("drawing a chart");
        List<Charts.Series> measured = new ArrayList<>();
        Map<String, List<Depth>> byWords = new LinkedHashMap<>();
        runs.forEach((jdk, r) -> {
            List<Depth> sorted = r.depths().stream().sorted(java.util.Comparator.comparingDouble(Depth::chunkWords))
                    .toList();
            byWords.put(jdk, sorted);
            measured.add(new Charts.Series(jdk + ": measured (JMH, 99.9 % CI)", sorted.stream()
                    .mapToDouble(Depth::chunkWords).toArray(), sorted.stream().mapToDouble(Depth::ns).toArray()));
        });
        int legendLines = 3 * runs.size();
        XYChart chart = Charts.xyChart("A continuation's run + yield against the words its stack holds: whole-chunk"
                + " copies below 500 words, one frame above", "words frozen (stack chunk bottom - sp, log scale)",
                "ns per run + yield", true, false, false, Charts.HEIGHT + 18 * legendLines,
                measured.toArray(Charts.Series[]::new));
        double top = 0;
        boolean first = true;   // the first JDK's points filled, the next as rings: equal points stay visible
        for (Map.Entry<String, List<Depth>> e : byWords.entrySet()) {
            Charts.Series s = measured.stream().filter(m -> m.name().startsWith(e.getKey() + ":")).findFirst()
                    .orElseThrow();
            double[] err = e.getValue().stream().mapToDouble(d -> finiteOr0(d.errorNs())).toArray();
            chart.removeSeries(s.name());
            chart.addSeries(s.name(), s.x(), s.y(), err).setMarker(first ? SeriesMarkers.CIRCLE : new Charts.Ring());
            first = false;
            for (Depth d : e.getValue()) top = Math.max(top, d.ns());
            Expected x = expected(e.getValue());
            if (x != null) {
                chart.addSeries(e.getKey() + ": expected, whole chunk (line fitted below 500)", x.belowX(), x.belowY())
                        .setMarker(SeriesMarkers.NONE);
                chart.addSeries(e.getKey() + ": expected, flat (mean above 500)", x.aboveX(), x.aboveY())
                        .setMarker(SeriesMarkers.NONE);
            }
        }
        var styler = chart.getStyler();
        styler.setYAxisMin(0.0);
        styler.setYAxisMax(top * 1.35);
        styler.setLegendLayout(org.knowm.xchart.style.Styler.LegendLayout.Vertical);
        styler.setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.OutsideS);
        styler.setAnnotationTextFont(new java.awt.Font(java.awt.Font.SANS_SERIF, java.awt.Font.BOLD, 11));
        styler.setAnnotationTextFontColor(new java.awt.Color(0x333333));
        styler.setAnnotationLineColor(new java.awt.Color(0x555555));
        chart.addAnnotation(new AnnotationLine(THAW_WHOLE_BELOW_WORDS, true, false));
        double lo = measured.stream().mapToDouble(m -> Arrays.stream(m.x()).min().orElse(1)).min().orElse(1);
        double hi = measured.stream().mapToDouble(m -> Arrays.stream(m.x()).max().orElse(1)).max().orElse(1);
        chart.addAnnotation(new AnnotationText("thaw_fast: whole chunk", Math.sqrt(lo * THAW_WHOLE_BELOW_WORDS),
                top * 1.25, false));
        chart.addAnnotation(new AnnotationText("thaw_fast: 1 frame + return barrier",
                Math.sqrt(THAW_WHOLE_BELOW_WORDS * hi), top * 1.25, false));
        return Charts.render(chart);
    }

    /** The expected shape for one run: a line fitted below 500 words, the mean above; null without 2 points each. */
    record Expected(double[] belowX, double[] belowY, double[] aboveX, double[] aboveY) {}

    static Expected expected(List<Depth> depths) {
        List<Depth> below = depths.stream().filter(d -> d.chunkWords() < THAW_WHOLE_BELOW_WORDS).toList();
        List<Depth> above = depths.stream().filter(d -> d.chunkWords() >= THAW_WHOLE_BELOW_WORDS).toList();
        if (below.size() < 2 || above.isEmpty()) return null;
        double[] fit = fit(below);
        double x0 = below.get(0).chunkWords(), x1 = THAW_WHOLE_BELOW_WORDS;
        double flat = above.stream().mapToDouble(Depth::ns).average().orElseThrow();
        double xMax = above.stream().mapToDouble(Depth::chunkWords).max().orElseThrow();
        return new Expected(new double[] {x0, x1}, new double[] {fit[0] + fit[1] * x0, fit[0] + fit[1] * x1},
                new double[] {x1, xMax}, new double[] {flat, flat});
    }

    /** Least squares ns = a + b * words over {@code points}: {a, b}. */
    static double[] fit(List<Depth> points) {
        double n = points.size(), sx = 0, sy = 0, sxx = 0, sxy = 0;
        for (Depth d : points) {
            sx += d.chunkWords();
            sy += d.ns();
            sxx += d.chunkWords() * d.chunkWords();
            sxy += d.chunkWords() * d.ns();
        }
        double b = (n * sxy - sx * sy) / (n * sxx - sx * sx);
        return new double[] {(sy - b * sx) / n, b};
    }

    /**
     * Per JDK: what one more word cost below 500 words and above, from the points on each side, and the deepest
     * stack against the shallowest.
     */
    public static void depthMeaning(Map<String, Run> runs) {
        RunGuard.check("writing what the run means");
        runs.forEach((jdk, r) -> {
            List<Depth> below = r.depths().stream().filter(d -> d.chunkWords() < THAW_WHOLE_BELOW_WORDS).toList();
            List<Depth> above = r.depths().stream().filter(d -> d.chunkWords() >= THAW_WHOLE_BELOW_WORDS).toList();
            Depth first = r.depths().get(0), last = r.depths().get(r.depths().size() - 1);
            String slopes = below.size() >= 2 && above.size() >= 2 ? String.format(Locale.ROOT, " Each extra word"
                    + " cost %.3f ns below 500 words and %.3f ns above (least squares over %d and %d depths).",
                    fit(below)[1], fit(above)[1], below.size(), above.size()) : "";
            Show.markdown(String.format(Locale.ROOT, "**This run, %s:** %,.0f words took %.2f x the time of %,.0f"
                    + " (%,.0f vs %,.0f ns) for %.0f x the words.%s", jdk, last.chunkWords(), last.ns() / first.ns(),
                    first.chunkWords(), last.ns(), first.ns(), last.chunkWords() / first.chunkWords(), slopes));
        });
    }

    // ---- S36: lazy thaw ---------------------------------------------------------------------------------------

    /** S36 on each JDK, oldest first. */
    public static Map<String, LazyThaw.Run> lazyThaw(List<Jdks.Jdk> jdks) {
        RunGuard.requireFresh();
        Map<String, LazyThaw.Run> runs = new LinkedHashMap<>();
        for (Jdks.Jdk jdk : jdks) runs.put(jdk.label(), Jdks.result(jdk, LazyThaw.Run.class, "S36_LazyThaw.java"));
        RunGuard.requireFresh();
        return runs;
    }

    /** The words still frozen against the frames returned, per JDK, with the 500-word line. */
    public static DrawnChart lazyThawChart(Map<String, LazyThaw.Run> runs) {
        RunGuard.check("drawing a chart");
        List<Charts.Series> series = new ArrayList<>();
        runs.forEach((jdk, r) -> {
            int[] after = r.deep().wordsAfterReturn();
            double[] x = new double[after.length + 1], y = new double[after.length + 1];
            y[0] = r.deep().wordsAfterResume();
            for (int i = 0; i < after.length; i++) {
                x[i + 1] = i + 1;
                y[i + 1] = after[i];
            }
            series.add(new Charts.Series(jdk + ", parked " + r.deep().depth() + " frames deep"
                    + (series.isEmpty() ? "" : " (on the line above)"), x, y));
        });
        XYChart chart = Charts.xyChart("Words still frozen as the thread returns: a frame per return behind the"
                + " return barrier, the last 500 words at once (thaw_fast)", "frames returned since the resume",
                "words still in the stack chunk", false, false, false, series.toArray(Charts.Series[]::new));
        LazyThaw.Run first = runs.values().iterator().next();
        int i = 0;
        for (Charts.Series s : series) { // the JDKs' lines coincide: the first drawn wide, the next ones thin on it
            var drawn = chart.getSeriesMap().get(s.name());
            drawn.setMarker(SeriesMarkers.NONE);
            drawn.setLineWidth(i++ == 0 ? 7f : 2f);
        }
        var styler = chart.getStyler();
        styler.setYAxisMin(0.0);
        int every = first.deep().depth() > 600 ? 200 : 50; // XChart labels every tick of integer data: thin them
        styler.setxAxisTickLabelsFormattingFunction(v -> Math.round(v) % every == 0 ? String.valueOf(Math.round(v))
                : "");
        styler.setAnnotationTextFont(new java.awt.Font(java.awt.Font.SANS_SERIF, java.awt.Font.BOLD, 11));
        styler.setAnnotationTextFontColor(new java.awt.Color(0x333333));
        styler.setAnnotationLineColor(new java.awt.Color(0x555555));
        chart.addAnnotation(new AnnotationLine(first.thresholdWords(), false, false));
        chart.addAnnotation(new AnnotationText("500 words: under it, thaw_fast takes the whole rest",
                first.deep().depth() * 0.32, first.thresholdWords() - first.deep().wordsParked() * 0.05, false));
        return Charts.render(chart);
    }

    /**
     * What chapter 03 expects of S36 on every JDK it ran on (counts, exact; the JDK with the most frames per thaw is
     * the one judged): behind the return barrier each thaw takes one frame of ours while the chunk holds 500 words
     * or more (thaw_fast's single-frame path); interpreted frames or a GC in between would take more at once. A park
     * under 500 words comes back whole at its first mount (thaw_fast copies the chunk), unless its chunk has to be
     * thawed slowly (a GC marked it, or it holds interpreted frames), one frame at a time.
     */
    public static final Expectations<Map<String, LazyThaw.Run>> LAZY_THAW_EXPECTED =
            Expectations.<Map<String, LazyThaw.Run>>of("03-lazy-thaw")
                    .expect("a-frame-per-thaw", "the frames of ours one thaw took behind the return barrier"
                                    + " (median, deep park)", "one frame", runs -> Figure.highest(runs.values(),
                                    r -> Figure.exact(framesPerThaw(r.deep()))), Line.atMost(1.5))
                    .expect("shallow-thawed-whole", "the words a park under 500 words left frozen after its first"
                                    + " mount", "the words it parked", runs -> Figure.highest(runs.values(),
                                    r -> Figure.exact(r.shallow().wordsAfterResume()).over(r.shallow().wordsParked())),
                            Line.atMost(0.1));

    /** The median frames per thaw while 500 words or more were left; none such: every frame came back at once. */
    static double framesPerThaw(LazyThaw.Park p) {
        return Double.isNaN(p.framesPerThaw()) ? p.wordsParked() / p.frameWords() : p.framesPerThaw();
    }

    /** Per JDK, in words: where the deep park's words went on the way back, and the shallow park's. */
    public static void describeLazyThaw(Map<String, LazyThaw.Run> runs) {
        RunGuard.check("writing what the run means");
        runs.forEach((jdk, r) -> {
            LazyThaw.Park d = r.deep();
            Show.markdown(String.format(Locale.ROOT, "**This run, %s:** parked %d frames deep (%,d words), %,d words"
                    + " stayed frozen after the resume and went %.2f frames (%.0f words each) per thaw over %,d"
                    + " thaws until %,d were left, which one thaw took; parked %d frames deep (%,d words), %,d words"
                    + " stayed frozen after the resume.", jdk, d.depth(), d.wordsParked(), d.wordsAfterResume(),
                    d.framesPerThaw(), d.frameWords(), d.thaws(), d.lastThawWords(), r.shallow().depth(),
                    r.shallow().wordsParked(), r.shallow().wordsAfterResume()));
        });
    }

    // ---- helpers ----------------------------------------------------------------------------------------------

    /** {@code mean} with the 95 % interval of the JMH iterations {@code samples} (none: no spread). */
    static Figure iterations(double[] samples, double mean) {
        if (samples == null || samples.length == 0) return Figure.single(mean);
        return Figure.samples(samples, "JMH iterations").at(mean);
    }

    private static double finite(double e) {
        return Double.isFinite(e) ? e : Double.NaN;
    }

    private static double finiteOr0(double e) {
        return Double.isFinite(e) ? e : 0;
    }
}
