//SOURCES Charts.java
//SOURCES DrawnChart.java
//SOURCES ../core/Machine.java
//SOURCES ../workloads/MountRecorder.java
package unpinned.showing;

import unpinned.core.Machine;
import unpinned.workloads.MountRecorder.Segment;

import static unpinned.workloads.MountRecorder.BY_START;
import static unpinned.workloads.MountRecorder.CARRIER_ORDER;
import static unpinned.workloads.MountRecorder.TRAILING_NUMBER;
import static unpinned.workloads.MountRecorder.byCarrier;
import static unpinned.workloads.MountRecorder.carriers;
import static unpinned.workloads.MountRecorder.checkSegments;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Annotation;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * A recorded timeline ({@code workloads/MountRecorder}) drawn as a Gantt chart: one lane per carrier, one bar per
 * segment, milliseconds since the first segment on x.
 *
 * <pre>{@code
 * Gantt.gantt("Four sleepers on two carriers", rec.segments(), MountRecorder.Segment::thread);
 * }</pre>
 */
public final class Gantt {
    /** The most colours a Gantt chart tells apart (Charts' palette); colour by kind when there are more threads. */
    public static final int MAX_COLOURS = 10;
    static final int MAX_LANES = 64;
    /** What the default scheduler's carriers are called: "ForkJoinPool-1-worker-3" is pool "ForkJoinPool-1", worker 3. */
    private static final Pattern WORKER = Pattern.compile("(.+)-worker-(\\d+)");

    static {
        // As in Charts, before any AWT class looks at it: no display needed, no window ever.
        if (System.getProperty("java.awt.headless") == null) System.setProperty("java.awt.headless", "true");
    }

    private Gantt() {}

    /** {@link #gantt(String, List, Function)} coloured by {@link Segment#kind()}. */
    public static DrawnChart gantt(String title, List<Segment> segments) {
        return gantt(title, segments, Segment::kind);
    }

    /**
     * A Gantt chart: one lane per carrier (in {@link unpinned.workloads.MountRecorder#CARRIER_ORDER}, top to bottom), milliseconds since the first
     * segment on x (µs or ns for a span under a millisecond or microsecond), each segment a bar coloured by {@code colourBy} (e.g. {@code Segment::kind} or
     * {@code Segment::thread}), with a legend in order of first appearance (in number order when every value ends
     * in a number, as thread names do); at most {@link #MAX_COLOURS} colours. A segment shorter than a
     * pixel is drawn one pixel wide, so thousands of short ones stay visible (as a solid run when back to back).
     */
    public static DrawnChart gantt(String title, List<Segment> segments, Function<? super Segment, String> colourBy) {
        return Charts.render(ganttChart(title, segments, colourBy));
    }

    static XYChart ganttChart(String title, List<Segment> segments, Function<? super Segment, String> colourBy) {
        text("title", title);
        checkSegments(segments);
        if (segments.isEmpty()) throw new IllegalArgumentException("segments must hold at least one segment to draw, got none");
        if (colourBy == null) throw new IllegalArgumentException("colourBy must be a function such as Segment::kind, got null");
        List<String> lanes = carriers(segments);
        if (lanes.size() > MAX_LANES) {
            throw new IllegalArgumentException("at most " + MAX_LANES + " carriers fit as lanes, got " + lanes.size());
        }
        List<Segment> sorted = new ArrayList<>(segments);
        sorted.sort(BY_START);
        Map<String, List<Segment>> byKey = new LinkedHashMap<>(); // colours in order of first appearance, or by number
        for (Segment s : sorted) {
            String key = colourBy.apply(s);
            if (key == null || key.isBlank()) {
                throw new IllegalArgumentException("colourBy must give a non-blank legend text for every segment, got "
                        + (key == null ? "null" : "'" + key + "'") + " for " + s);
            }
            byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(s);
        }
        if (byKey.keySet().stream().allMatch(k -> TRAILING_NUMBER.matcher(k).matches())) { // e.g. threads: hopper-0, hopper-1...
            Map<String, List<Segment>> sortedKeys = new java.util.TreeMap<>(CARRIER_ORDER);
            sortedKeys.putAll(byKey);
            byKey = new LinkedHashMap<>(sortedKeys);
        }
        if (byKey.size() > MAX_COLOURS) {
            throw new IllegalArgumentException("colourBy gives " + byKey.size() + " different values, but a chart tells at"
                    + " most " + MAX_COLOURS + " colours apart: colour by kind, or by a coarser key; first values: "
                    + List.copyOf(byKey.keySet()).subList(0, MAX_COLOURS + 1));
        }
        long t0 = sorted.get(0).startNanos();
        long last = t0;
        for (Segment s : sorted) last = Math.max(last, s.endNanos());
        // The time unit that makes the span at least 1 (XChart 3.8.8 takes x values less than 1e-4 apart as equally
        // spaced, and then puts its ticks only on them): ms for any real run, µs or ns for tiny hand-made ones.
        long spanNanos = Math.max(1, last - t0);
        double perUnit = spanNanos >= 1_000_000 ? 1e6 : spanNanos >= 1_000 ? 1e3 : 1;
        String unit = perUnit == 1e6 ? "ms" : perUnit == 1e3 ? "µs" : "ns";
        double span = spanNanos / perUnit;
        Map<String, Integer> laneOf = new HashMap<>();
        for (int i = 0; i < lanes.size(); i++) laneOf.put(lanes.get(i), lanes.size() - 1 - i); // first carrier on top

        // XChart draws the axes, the legend and the lane labels: one invisible series spans the lanes (a tick per
        // lane; no NaN, which would upset the tick labels), and a one-point series per colour gives the legend its
        // entry. The bars themselves are drawn by Bars, pixel-exact.
        List<Charts.Series> series = new ArrayList<>();
        for (String key : byKey.keySet()) series.add(new Charts.Series(key, new double[] {0}, new double[] {0}));
        // XChart 3.8.8 places ticks at the data's y values when they, with the axis ends, are equally spaced: lanes at
        // 0..n-1 and ends at -1 and n give one tick per lane. Its x values must NOT be equally spaced (with 0 and the
        // axis end), or the time axis would get ticks only there: hence the odd 0.37.
        double[] laneX = new double[lanes.size()];
        double[] laneY = new double[lanes.size()];
        for (int i = 0; i < lanes.size(); i++) {
            laneX[i] = 0.37 * span;
            laneY[i] = i;
        }
        series.add(new Charts.Series(LANES_SERIES, laneX, laneY));

        Lanes names = laneNames(lanes);
        String xLabel = unit + " since the first segment";
        Font axisFont = new Font(Font.SANS_SERIF, Font.PLAIN, 12);
        for (String withMachine : List.of(xLabel + "  ·  " + Machine.summary(), unit + "  ·  " + Machine.summary())) {
            // centred under the plot, which starts right of the lane labels: keep it narrower than the plot
            if (Charts.textWidth(withMachine, axisFont) <= Charts.WIDTH - 150) {
                xLabel = withMachine;
                break;
            }
        }
        XYChart chart = Charts.xyChart(title, xLabel, names.axisTitle(), false, false, false,
                series.toArray(Charts.Series[]::new));
        var st = chart.getStyler();
        for (XYSeries s : chart.getSeriesMap().values()) {
            s.setMarker(SeriesMarkers.NONE);
            s.setLineStyle(new BasicStroke(LEGEND_BAR, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER));
        }
        XYSeries laneSeries = chart.getSeriesMap().get(LANES_SERIES);
        laneSeries.setLineColor(new Color(0, 0, 0, 0));
        laneSeries.setShowInLegend(false);
        st.setLegendVisible(true);
        st.setLegendPosition(Styler.LegendPosition.OutsideS);
        st.setLegendSeriesLineLength(18);
        st.setXAxisMin(0.0);
        st.setXAxisMax(span);
        st.setXAxisDecimalPattern(Charts.pattern(span / 10));
        st.setYAxisMin(-1.0);
        st.setYAxisMax((double) lanes.size());
        st.setPlotGridHorizontalLinesVisible(false);
        List<String> labels = names.labels();
        st.setyAxisTickLabelsFormattingFunction(v -> {
            long lane = Math.round(v);
            // Every label must differ, or XChart 3.8.8 draws no ticks (ends that look alike) or never stops looking for
            // a tick step (duplicates): the ends are blank, but apart.
            if (Math.abs(v - lane) > 1e-6 || lane < 0 || lane >= labels.size()) return v < 0 ? " " : "  ";
            return labels.get(labels.size() - 1 - (int) lane);
        });

        List<List<double[]>> bars = new ArrayList<>(); // per colour: {from ms, to ms, lane}
        byKey.forEach((key, list) -> {
            List<double[]> one = new ArrayList<>(list.size());
            for (Segment s : list) {
                one.add(new double[] {(s.startNanos() - t0) / perUnit, (s.endNanos() - t0) / perUnit, laneOf.get(s.carrier())});
            }
            bars.add(one);
        });
        chart.addAnnotation(new Bars(List.copyOf(byKey.keySet()), bars));
        Charts.markCategorical(chart, "y");
        return chart;
    }

    static final String LANES_SERIES = "carrier lanes (axis only)";
    /** The height of a legend entry's bar, px. */
    private static final float LEGEND_BAR = 10;

    /**
     * The segments as bars, one lane per carrier, drawn without anti-aliasing so each bar is exactly its series'
     * colour: at least one pixel wide (a run of back-to-back short segments is a solid band), and with a
     * one-pixel gap at its end when it is at least {@link #GAP_FROM_PX} wide, so neighbours stay apart.
     */
    static final class Bars extends Annotation {
        private final List<String> keys;
        private final List<List<double[]>> bars;

        Bars(List<String> keys, List<List<double[]>> bars) {
            super(false);
            this.keys = keys;
            this.bars = bars;
        }

        @Override
        public void paint(Graphics2D g) {
            double left = getXAxisScreenValueForMin();
            double right = getXAxisScreenValueForMax();
            double top = getYAxisScreenValueForMin();
            double bottom = getYAxisScreenValueForMax();
            double laneStep = Math.abs(getYAxisScreenValue(0) - getYAxisScreenValue(1));
            int height = (int) Math.max(2, Math.min(MAX_BAR_PX, Math.round(0.6 * laneStep)));
            RenderingHints saved = g.getRenderingHints();
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_OFF);
            for (int k = 0; k < keys.size(); k++) {
                g.setColor(((XYSeries) chart.getSeriesMap().get(keys.get(k))).getLineColor());
                for (double[] b : bars.get(k)) {
                    int x0 = (int) Math.floor(getXAxisScreenValue(b[0]));
                    int x1 = (int) Math.round(getXAxisScreenValue(b[1]));
                    int width = Math.max(1, x1 - x0);
                    if (width >= GAP_FROM_PX) width--;
                    int y = (int) Math.round(getYAxisScreenValue(b[2]) - height / 2.0);
                    g.fillRect(x0, y, width, height);
                }
            }
            g.setRenderingHints(saved);
            bounds = new Rectangle2D.Double(left, Math.min(top, bottom), right - left, Math.abs(bottom - top));
        }
    }

    static final int GAP_FROM_PX = 4;
    static final int MAX_BAR_PX = 36;

    /** Lane labels: "worker-3" when every carrier is a worker of one pool (named in the axis title), else full names. */
    record Lanes(List<String> labels, String axisTitle) {}

    static Lanes laneNames(List<String> carriers) {
        String pool = null;
        List<String> shortNames = new ArrayList<>();
        for (String c : carriers) {
            Matcher m = WORKER.matcher(c);
            if (!m.matches() || pool != null && !pool.equals(m.group(1))) return new Lanes(List.copyOf(carriers), "carrier");
            pool = m.group(1);
            shortNames.add("worker-" + m.group(2));
        }
        return new Lanes(shortNames, "carrier (" + pool + ")");
    }

    private static void text(String what, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(what + " must be a non-blank string, got " + (value == null ? "null" : "'" + value + "'"));
        }
    }
}
