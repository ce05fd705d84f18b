//DEPS org.knowm.xchart:xchart:3.8.8
//SOURCES ChartFonts.java
//SOURCES ChartReading.java
//SOURCES Comparison.java
//SOURCES DrawnChart.java
//SOURCES ../core/Machine.java
//SOURCES ../core/Measurement.java
//SOURCES ../core/Results.java
//SOURCES ../core/RunGuard.java
package unpinned.showing;

import unpinned.core.Machine;
import unpinned.core.Measurement;
import unpinned.core.Results;
import unpinned.core.RunGuard;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Line2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Annotation;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.CategoryStyler;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Charts as images (XChart), never windows: the kernel and CI have no display, and a
 * {@code BufferedImage} is what the notebook shows inline and what {@link #save} writes.
 * The compare chart ends every experiment; it carries the machine summary, because a number
 * without its machine means nothing. Needs Comparison.java, Machine.java, Profile.java and Results.java
 * (for {@link #save}) alongside.
 *
 * <p>Rules every chart here follows: a log axis says so in its title ("ms (log scale)"); the title
 * wraps onto a second line (and shrinks down to {@link #MIN_TITLE_POINTS} pt) rather than being
 * clipped, and a title that doesn't fit in two lines is refused; {@link #compare} on a linear axis
 * refuses values more than {@link #MAX_LINEAR_SPREAD} times apart (use a log axis or {@link #ratios}).
 */
public final class Charts {
    public static final int WIDTH = 720;
    public static final int HEIGHT = 420;
    /** Extra image height per legend entry when a legend lists its series one per line below the plot. */
    static final int LEGEND_LINE = 18;
    /** On a linear axis, {@link #compare} refuses a largest value more than this many times the smallest non-zero one. */
    public static final double MAX_LINEAR_SPREAD = 20;
    /** Title font size; longer titles wrap onto a second line, then shrink down to {@link #MIN_TITLE_POINTS}. */
    public static final int TITLE_POINTS = 15;
    public static final int MIN_TITLE_POINTS = 12;
    static final String MEASURED = "measured";
    static final String BOUND = "bound";
    static final String PUBLISHED = "published";
    static final String MEASURED_RATIO = "measured / bound";
    static final String PUBLISHED_RATIO = "published / bound";
    static final String RATIO_AXIS = "ratio to bound";
    /** What the error bars are, in the legend entry of the series that has them. */
    static final String ERROR_NOTE = "error bars: 99.9 % CI (JMH)";
    static final String LOG_SCALE = "(log scale)";
    private static final int PAD = 10; // XChart's chart padding, set explicitly: the title layout depends on it
    private static final int TITLE_GAP = 5; // above the first title line and below the last
    // XChart 3.8.8 draws its title as one unwrappable line, so it gets this blank stand-in (which only reserves the
    // room, through its padding) and TitleBlock draws the real lines.
    static final String TITLE_PLACEHOLDER = " ";
    private static final Color BLUE = new Color(0x1f77b4);
    private static final Color GREY = new Color(0x9a9a9a);
    private static final Color ORANGE = new Color(0xff7f0e);
    // Dark, and not a grey: anti-aliased black text makes greys, so a whisker's pixels can be told from text's.
    static final Color ERROR_BAR = new Color(0x222233);
    static final Color REFERENCE = new Color(0x555555);
    static final Color[] PALETTE = {BLUE, ORANGE, new Color(0x2ca02c), new Color(0xd62728), new Color(0x9467bd),
        new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f), new Color(0xbcbd22), new Color(0x17becf)};

    static {
        // Before any AWT class looks at it: no display needed, no window ever.
        if (System.getProperty("java.awt.headless") == null) System.setProperty("java.awt.headless", "true");
    }

    private Charts() {}

    /** One line of an x/y chart; NaN values leave a gap. */
    public record Series(String name, double[] x, double[] y) {
        public Series {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("series name must be a non-blank string, got "
                        + (name == null ? "null" : "'" + name + "'"));
            }
            if (x == null || y == null || x.length != y.length || x.length == 0) {
                throw new IllegalArgumentException("series '" + name + "' must have x and y of the same non-zero length, got "
                        + (x == null ? "null" : x.length) + " x and " + (y == null ? "null" : y.length) + " y values");
            }
        }
    }

    /**
     * Grouped bars measured / bound / published per label, linear y axis. Refuses values more than
     * {@link #MAX_LINEAR_SPREAD} times apart: use {@code logY = true} or {@link #ratios} for those.
     */
    public static DrawnChart compare(String title, String unit, List<Comparison> rows) {
        RunGuard.check("drawing a chart"); // before the arguments: after a Stop they are empty
        return compare(title, unit, rows, false);
    }

    /**
     * Grouped bars measured / bound / published per label; {@code logY} when they span decades. A
     * measured value with an {@link Comparison#error() error} gets an error bar (measured ± error).
     */
    public static DrawnChart compare(String title, String unit, List<Comparison> rows, boolean logY) {
        RunGuard.check("drawing a chart"); // before the arguments: after a Stop they are empty
        return render(compareChart(title, unit, rows, logY));
    }

    /**
     * {@link #compare(String, String, List, boolean)} with a labelled dashed line per entry of {@code references}:
     * a figure that is neither measured, nor a bound, nor published (e.g. the 1 MB stack a platform thread reserves).
     */
    public static DrawnChart compare(String title, String unit, List<Comparison> rows, boolean logY,
                                     Map<String, Double> references) {
        RunGuard.check("drawing a chart"); // before the arguments: after a Stop they are empty
        CategoryChart chart = compareChart(title, unit, rows, logY);
        if (references != null) {
            for (Map.Entry<String, Double> r : references.entrySet()) {
                text("each reference label", r.getKey());
                if (r.getValue() == null || !Double.isFinite(r.getValue()) || (logY && r.getValue() <= 0)) {
                    throw new IllegalArgumentException("reference '" + r.getKey() + "' must be a finite number"
                            + (logY ? " > 0 on a log axis" : "") + ", got " + r.getValue());
                }
                chart.addAnnotation(new ReferenceLine(r.getValue(), r.getKey()));
                fitAxis(chart, r.getValue(), logY);
            }
        }
        return render(chart);
    }

    // Widens the value axis so that a reference line at v is on it.
    private static void fitAxis(CategoryChart chart, double v, boolean logY) {
        CategoryStyler st = chart.getStyler();
        double top = st.getYAxisMax() != null ? st.getYAxisMax() : v;
        for (CategorySeries s : chart.getSeriesMap().values()) {
            for (Number y : s.getYData()) if (y != null) top = Math.max(top, y.doubleValue());
        }
        top = Math.max(top, v);
        if (logY) {
            double bottom = st.getYAxisMin() != null ? Math.min(st.getYAxisMin(), v) : v;
            double[] range = decades(bottom, top);
            st.setYAxisMin(range[0]);
            st.setYAxisMax(range[1]);
        } else {
            st.setYAxisMax(top * 1.1);
        }
    }

    /**
     * The chart behind {@link #compare}. A series whose values are all NaN is left out; a single
     * NaN leaves its bar out. With {@code logY} every available value must be > 0; without it the
     * values must be within {@link #MAX_LINEAR_SPREAD} times of each other.
     */
    static CategoryChart compareChart(String title, String unit, List<Comparison> rows, boolean logY) {
        text("title", title);
        text("unit", unit);
        List<String> labels = labels(rows);
        List<Double> measured = rows.stream().map(Comparison::measured).toList();
        List<Double> bound = rows.stream().map(Comparison::bound).toList();
        List<Double> published = rows.stream().map(Comparison::published).toList();
        if (!logY) checkSpread(unit, labels, measured, bound, published);
        CategoryChart chart = categoryChart(title, Machine.summary(), axisTitle(unit, logY));
        double[] range = {Double.POSITIVE_INFINITY}; // smallest non-zero |value|
        addBars(chart, MEASURED, BLUE, labels, measured, logY, range);
        addBars(chart, BOUND, GREY, labels, bound, logY, range);
        addBars(chart, PUBLISHED, ORANGE, labels, published, logY, range);
        if (chart.getSeriesMap().isEmpty()) {
            throw new IllegalArgumentException("rows must hold at least one value that is not NaN, got only NaN in " + rows);
        }
        finishCategory(chart, labels, logY, range);
        addErrorBars(chart, MEASURED, measured, rows.stream().map(Comparison::error).toList(), logY, range);
        return chart;
    }

    /**
     * Like with like: per label, measured / bound and published / bound as bars, with a reference
     * line at 1.0 labelled "bound" (1.0 = exactly the bound). Rows without a bound, or with neither a
     * measured nor a published value, are left out; a measured error becomes an error bar of error / bound.
     */
    public static DrawnChart ratios(String title, List<Comparison> rows) {
        RunGuard.check("drawing a chart"); // before the arguments: after a Stop they are empty
        return render(ratiosChart(title, rows));
    }

    static CategoryChart ratiosChart(String title, List<Comparison> rows) {
        text("title", title);
        List<String> all = labels(rows);
        List<String> labels = new ArrayList<>();
        List<Double> measured = new ArrayList<>();
        List<Double> published = new ArrayList<>();
        List<Double> errors = new ArrayList<>();
        for (Comparison c : rows) {
            if (Double.isNaN(c.bound()) || Double.isNaN(c.measured()) && Double.isNaN(c.published())) continue;
            if (c.bound() == 0 || Double.isInfinite(c.bound())) {
                throw new IllegalArgumentException("bound must be a finite non-zero number (or NaN to leave the row out) to divide by, got "
                        + c.bound() + " for '" + c.label() + "'");
            }
            labels.add(c.label());
            measured.add(c.measured() / c.bound());
            published.add(c.published() / c.bound());
            errors.add(c.error() / Math.abs(c.bound()));
        }
        if (labels.isEmpty()) {
            throw new IllegalArgumentException("rows must have at least one row with a bound and a measured or published value to divide, "
                    + "got none in " + all);
        }
        CategoryChart chart = categoryChart(title, Machine.summary(), RATIO_AXIS);
        double[] range = {Double.POSITIVE_INFINITY};
        addBars(chart, MEASURED_RATIO, BLUE, labels, measured, false, range);
        addBars(chart, PUBLISHED_RATIO, ORANGE, labels, published, false, range);
        finishCategory(chart, labels, false, range);
        // 0 and the reference line at 1.0 are always on the axis, whatever the ratios.
        double hi = 1;
        double lo = 0;
        for (int i = 0; i < labels.size(); i++) {
            double e = Double.isNaN(errors.get(i)) ? 0 : errors.get(i);
            if (!Double.isNaN(measured.get(i))) {
                hi = Math.max(hi, measured.get(i) + e);
                lo = Math.min(lo, measured.get(i) - e);
            }
            if (!Double.isNaN(published.get(i))) {
                hi = Math.max(hi, published.get(i));
                lo = Math.min(lo, published.get(i));
            }
        }
        chart.getStyler().setYAxisMin(lo);
        chart.getStyler().setYAxisMax(hi * 1.1);
        chart.addAnnotation(new ReferenceLine(1.0, BOUND));
        addErrorBars(chart, MEASURED_RATIO, measured, errors, false, range);
        chart.addAnnotation(new Raw(new ChartReading.RawValues(PUBLISHED_RATIO,
                rows.stream().filter(c -> !(Double.isNaN(c.bound()) || Double.isNaN(c.measured()) && Double.isNaN(c.published())))
                        .map(Comparison::published).toList())));
        return chart;
    }

    /**
     * Each measurement with a bound as a share of it ({@link Measurement#ofBound()}: 1 = at the bound, a time's
     * bound / the time), one bar per row, the published figure's share beside it where there is one, and a line at
     * 1.0. Rows without a bound are left out; a row whose bound is only an estimate is labelled "(estimate)".
     */
    public static DrawnChart ofBound(String title, List<Measurement> rows) {
        RunGuard.check("drawing a chart"); // before the arguments: after a Stop they are empty
        return render(ofBoundChart(title, rows));
    }

    static CategoryChart ofBoundChart(String title, List<Measurement> rows) {
        if (rows == null || rows.stream().anyMatch(java.util.Objects::isNull)) {
            throw new IllegalArgumentException("rows must be a list of measurements, got " + rows);
        }
        List<String> labels = new ArrayList<>();
        List<Double> measured = new ArrayList<>();
        List<Double> published = new ArrayList<>();
        for (Measurement m : rows) {
            if (m.boundKind() == null || !Double.isFinite(m.ofBound())) continue;
            String label = m.what() + (m.boundKind().isLimit() ? "" : " (estimate)");
            for (int n = 2; labels.contains(label); n++) label = m.what() + " (" + n + ")";
            labels.add(label);
            measured.add(m.ofBound());
            published.add(m.published() == null ? Double.NaN
                    : Measurement.of(m.what(), m.published(), m.unit()).bound(m.bound(), m.boundKind()).ofBound());
        }
        if (labels.isEmpty()) {
            throw new IllegalArgumentException("rows must hold at least one measurement with a bound, got none in "
                    + rows.stream().map(Measurement::what).toList());
        }
        Map<String, double[]> series = new java.util.LinkedHashMap<>();
        series.put(MEASURED, measured.stream().mapToDouble(Double::doubleValue).toArray());
        if (published.stream().anyMatch(Double::isFinite)) {
            series.put(PUBLISHED, published.stream().mapToDouble(Double::doubleValue).toArray());
        }
        CategoryChart chart = groupedBarsChart(title, "share of the bound", labels, series, Map.of("the bound", 1.0));
        List<Double> raw = rows.stream().filter(m -> m.boundKind() != null && Double.isFinite(m.ofBound()))
                .map(m -> m.published() == null ? Double.NaN : m.published()).toList();
        chart.addAnnotation(new Raw(new ChartReading.RawValues(PUBLISHED, raw)));
        return chart;
    }

    /** One bar per key, in the map's iteration order (use a LinkedHashMap); null or NaN leaves a gap. */
    public static DrawnChart bars(String title, String yLabel, Map<String, ? extends Number> values) {
        RunGuard.check("drawing a chart"); // before the arguments: after a Stop they are empty
        return render(barsChart(title, yLabel, values));
    }

    static CategoryChart barsChart(String title, String yLabel, Map<String, ? extends Number> values) {
        text("title", title);
        text("yLabel", yLabel);
        if (values == null || values.isEmpty()) throw new IllegalArgumentException("values must be a non-empty map of label -> number, got " + values);
        List<String> labels = new ArrayList<>();
        List<Double> ys = new ArrayList<>();
        values.forEach((k, v) -> {
            text("each label", k);
            labels.add(k);
            ys.add(v == null ? Double.NaN : v.doubleValue());
        });
        CategoryChart chart = categoryChart(title, null, yLabel);
        double[] range = {Double.POSITIVE_INFINITY}; // smallest non-zero |value|
        addBars(chart, yLabel, BLUE, labels, ys, false, range);
        if (chart.getSeriesMap().isEmpty()) throw new IllegalArgumentException("values must hold at least one number that is not NaN or null, got " + values);
        chart.getStyler().setLegendVisible(false);
        finishCategory(chart, labels, false, range);
        return chart;
    }

    /**
     * Grouped bars: one group per label, one bar per series in each (e.g. time / sleep per case, one series per
     * JDK), in the maps' iteration order (use LinkedHashMaps). NaN leaves a bar out (a case a JDK can't run).
     * {@code references} draws a labelled horizontal line per entry (e.g. "unmounts: 1 x" at 1, "pins: N x" at N);
     * the y axis starts at 0 and always shows them.
     */
    public static DrawnChart groupedBars(String title, String yLabel, List<String> labels, Map<String, double[]> series,
                                            Map<String, Double> references) {
        RunGuard.check("drawing a chart"); // before the arguments: after a Stop they are empty
        return render(groupedBarsChart(title, yLabel, labels, series, references));
    }

    /**
     * {@link #groupedBars(String, String, List, Map, Map)} of values measured on another machine (a saved run):
     * {@code machine}, that run's {@link Machine#summary(Map)}, goes under the chart in place of this machine's.
     */
    public static DrawnChart groupedBars(String title, String yLabel, List<String> labels, Map<String, double[]> series,
                                            Map<String, Double> references, String machine) {
        RunGuard.check("drawing a chart"); // before the arguments: after a Stop they are empty
        return render(groupedBarsChart(title, yLabel, labels, series, references, machine));
    }

    static CategoryChart groupedBarsChart(String title, String yLabel, List<String> labels, Map<String, double[]> series,
                                          Map<String, Double> references) {
        return groupedBarsChart(title, yLabel, labels, series, references, Machine.summary());
    }

    static CategoryChart groupedBarsChart(String title, String yLabel, List<String> labels, Map<String, double[]> series,
                                          Map<String, Double> references, String machine) {
        text("title", title);
        text("machine", machine);
        text("yLabel", yLabel);
        if (labels == null || labels.isEmpty()) throw new IllegalArgumentException("labels must be a non-empty list, got " + labels);
        labels.forEach(l -> text("each label", l));
        if (new HashSet<>(labels).size() != labels.size()) throw new IllegalArgumentException("labels must be unique, got " + labels);
        if (series == null || series.isEmpty()) throw new IllegalArgumentException("series must be a non-empty map of name -> values, got " + series);
        if (series.size() > PALETTE.length) {
            throw new IllegalArgumentException("at most " + PALETTE.length + " series can be told apart, got " + series.size());
        }
        Map<String, Double> refs = references == null ? Map.of() : references;
        // Three or more series: their legend lists them one per line below the plot, on a taller image (in one
        // row, long names ran past the right edge).
        int legendLines = series.size() >= 3 ? series.size() : 0;
        CategoryChart chart = categoryChart(title, machine, yLabel, HEIGHT + LEGEND_LINE * legendLines);
        if (legendLines > 0) chart.getStyler().setLegendLayout(Styler.LegendLayout.Vertical);
        double[] range = {Double.POSITIVE_INFINITY};
        double hi = 0;
        int i = 0;
        for (Map.Entry<String, double[]> e : series.entrySet()) {
            text("each series name", e.getKey());
            double[] values = e.getValue();
            if (values == null || values.length != labels.size()) {
                throw new IllegalArgumentException("series '" + e.getKey() + "' must have one value per label (" + labels.size()
                        + "), got " + (values == null ? "null" : values.length));
            }
            List<Double> ys = new ArrayList<>();
            for (double v : values) {
                ys.add(v);
                if (!Double.isNaN(v)) hi = Math.max(hi, v);
            }
            addBars(chart, e.getKey(), PALETTE[i++], labels, ys, false, range);
        }
        if (chart.getSeriesMap().isEmpty()) throw new IllegalArgumentException("series must hold at least one number that is not NaN");
        finishCategory(chart, labels, false, range);
        for (Map.Entry<String, Double> r : refs.entrySet()) {
            text("each reference label", r.getKey());
            if (r.getValue() == null || !Double.isFinite(r.getValue())) {
                throw new IllegalArgumentException("reference '" + r.getKey() + "' must be a finite number, got " + r.getValue());
            }
            hi = Math.max(hi, r.getValue());
            chart.addAnnotation(new ReferenceLine(r.getValue(), r.getKey()));
        }
        chart.getStyler().setYAxisMin(0.0);
        chart.getStyler().setYAxisMax(hi <= 0 ? 1 : hi * 1.15);
        chart.getStyler().setLegendVisible(true);
        return chart;
    }

    /** Lines with markers, e.g. throughput against users; log axes for sweeps over decades. */
    public static DrawnChart lines(String title, String xLabel, String yLabel, boolean logX, boolean logY, Series... s) {
        RunGuard.check("drawing a chart"); // before the arguments: after a Stop they are empty
        return render(padded(xyChart(title, xLabel, yLabel, logX, logY, false, s)));
    }

    /** Points only, e.g. one point per request or per run. */
    public static DrawnChart scatter(String title, String xLabel, String yLabel, boolean logX, boolean logY, Series... s) {
        RunGuard.check("drawing a chart"); // before the arguments: after a Stop they are empty
        return render(padded(xyChart(title, xLabel, yLabel, logX, logY, true, s)));
    }

    /**
     * Lines and points on one x/y chart: {@code lines} drawn as lines (bounds, e.g. Little's law against
     * users), {@code points} as markers only (measured and published figures), in that order of colours.
     */
    public static DrawnChart plot(String title, String xLabel, String yLabel, boolean logX, boolean logY,
                                     List<Series> lines, List<Series> points) {
        RunGuard.check("drawing a chart"); // before the arguments: after a Stop they are empty
        return render(plotChart(title, xLabel, yLabel, logX, logY, lines, points));
    }

    static XYChart plotChart(String title, String xLabel, String yLabel, boolean logX, boolean logY,
                             List<Series> lines, List<Series> points) {
        if (lines == null || points == null) throw new IllegalArgumentException("lines and points must be lists (maybe empty), got null");
        List<Series> all = new ArrayList<>(lines);
        all.addAll(points);
        // Many series: their legend goes below the plot, one per line, on a taller image. Beside the plot (XChart's
        // OutsideE) a wide legend took the whole width and left the plot with none: a blank chart.
        int legendLines = all.size() > 4 ? all.size() : 0;
        XYChart chart = xyChart(title, xLabel, yLabel, logX, logY, false, HEIGHT + LEGEND_LINE * legendLines,
                all.toArray(Series[]::new));
        for (Series line : lines) chart.getSeriesMap().get(line.name()).setMarker(SeriesMarkers.NONE);
        int index = 0;
        for (Series point : points) {
            XYSeries added = chart.getSeriesMap().get(point.name());
            added.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Scatter);
            added.setMarker(index++ == 0 ? SeriesMarkers.CIRCLE : new Ring());
        }
        chart.getStyler().setMarkerSize(9);
        if (legendLines > 0) chart.getStyler().setLegendLayout(Styler.LegendLayout.Vertical);
        return padded(chart);
    }

    private static XYChart padded(XYChart chart) {
        if (!chart.getStyler().isXAxisLogarithmic()) padTicks(chart, true);
        if (!chart.getStyler().isYAxisLogarithmic()) padTicks(chart, false);
        return chart;
    }

    public static XYChart xyChart(String title, String xLabel, String yLabel, boolean logX, boolean logY, boolean pointsOnly, Series... s) {
        return xyChart(title, xLabel, yLabel, logX, logY, pointsOnly, HEIGHT, s);
    }

    public static XYChart xyChart(String title, String xLabel, String yLabel, boolean logX, boolean logY, boolean pointsOnly,
                           int height, Series... s) {
        text("title", title);
        text("xLabel", xLabel);
        text("yLabel", yLabel);
        TitleLayout layout = titleLayout(title, WIDTH);
        if (s == null || s.length == 0) throw new IllegalArgumentException("at least one series is required, got none");
        Set<String> names = new HashSet<>();
        for (Series one : s) {
            if (one == null) throw new IllegalArgumentException("series must not be null");
            if (!names.add(one.name())) throw new IllegalArgumentException("series names must be unique, got '" + one.name() + "' twice");
            if (logX) positiveOnLog(one.name(), "x", one.x());
            if (logY) positiveOnLog(one.name(), "y", one.y());
        }
        XYChart chart = new XYChartBuilder().width(WIDTH).height(height).title(TITLE_PLACEHOLDER)
                .xAxisTitle(axisTitle(xLabel, logX)).yAxisTitle(axisTitle(yLabel, logY)).build();
        AxesChartStyler st = chart.getStyler();
        style(st);
        applyTitle(chart, layout);
        st.setXAxisLogarithmic(logX);
        st.setYAxisLogarithmic(logY);
        chart.getStyler().setDefaultSeriesRenderStyle(pointsOnly ? XYSeries.XYSeriesRenderStyle.Scatter : XYSeries.XYSeriesRenderStyle.Line);
        chart.getStyler().setLegendVisible(s.length > 1);
        st.setXAxisDecimalPattern(pattern(minAbs(Arrays.stream(s).map(Series::x).toArray(double[][]::new))));
        st.setYAxisDecimalPattern(pattern(minAbs(Arrays.stream(s).map(Series::y).toArray(double[][]::new))));
        st.setSeriesColors(PALETTE);
        int index = 0;
        for (Series one : s) {
            XYSeries added = chart.addSeries(one.name(), one.x().clone(), one.y().clone());
            // Later series are rings, so where two meet (lines at 0, points on each other), both are seen.
            if (pointsOnly) added.setMarker(index == 0 ? SeriesMarkers.CIRCLE : new Ring());
            else if (index > 0) added.setMarker(new Ring());
            index++;
        }

        // A log axis runs from decade to decade, two at least: both ends and one between are labelled.
        if (logX) {
            double[] range = decades(minOf(s, Series::x), maxOf(s, Series::x));
            st.setXAxisMin(range[0]);
            st.setXAxisMax(range[1]);
        }
        if (logY) {
            double[] range = decades(minOf(s, Series::y), maxOf(s, Series::y));
            st.setYAxisMin(range[0]);
            st.setYAxisMax(range[1]);
        }
        return chart;
    }

    /**
     * The decades a log axis spans so that its ends are labelled: from the power of ten at or below {@code lo} to
     * the one at or above {@code hi}, at least two decades (three labels), widened downwards.
     */
    static double[] decades(double lo, double hi) {
        if (!(lo > 0) || !(hi > 0) || Double.isInfinite(lo) || Double.isInfinite(hi)) return new double[] {0.1, 10};
        int bottom = (int) Math.floor(Math.log10(lo) + 1e-9);
        int top = (int) Math.ceil(Math.log10(hi) - 1e-9);
        if (top - bottom < 2) bottom = top - 2;
        return new double[] {Math.pow(10, bottom), Math.pow(10, top)};
    }

    private static double minOf(Series[] s, java.util.function.Function<Series, double[]> values) {
        double min = Double.POSITIVE_INFINITY;
        for (Series one : s) for (double v : values.apply(one)) if (Double.isFinite(v) && v > 0) min = Math.min(min, v);
        return min;
    }

    private static double maxOf(Series[] s, java.util.function.Function<Series, double[]> values) {
        double max = Double.NEGATIVE_INFINITY;
        for (Series one : s) for (double v : values.apply(one)) if (Double.isFinite(v) && v > 0) max = Math.max(max, v);
        return max;
    }

    /**
     * Points on lanes, one lane per whole number on the y axis (a carrier's number, a worker's): a category axis
     * whose ticks are exactly the lanes. Series share a lane side by side, each a little apart on the x axis, so no
     * series hides another where they meet; later series are drawn as rings, so a point under one still shows.
     */
    public static DrawnChart lanes(String title, String xLabel, String yLabel, Series... s) {
        RunGuard.check("drawing a chart"); // before the arguments: after a Stop they are empty
        return render(lanesChart(title, xLabel, yLabel, s));
    }

    static XYChart lanesChart(String title, String xLabel, String yLabel, Series... s) {
        if (s == null || s.length == 0) throw new IllegalArgumentException("at least one series is required, got none");
        long lo = Long.MAX_VALUE;
        long hi = Long.MIN_VALUE;
        double xMin = Double.POSITIVE_INFINITY;
        double xMax = Double.NEGATIVE_INFINITY;
        for (Series one : s) {
            if (one == null) throw new IllegalArgumentException("series must not be null");
            for (int i = 0; i < one.y().length; i++) {
                double v = one.y()[i];
                if (Double.isNaN(v)) continue;
                if (!Double.isFinite(v) || v != Math.rint(v)) {
                    throw new IllegalArgumentException("lanes are whole numbers: series '" + one.name() + "' has y = " + v);
                }
                lo = Math.min(lo, (long) v);
                hi = Math.max(hi, (long) v);
                if (Double.isFinite(one.x()[i])) {
                    xMin = Math.min(xMin, one.x()[i]);
                    xMax = Math.max(xMax, one.x()[i]);
                }
            }
        }
        if (lo > hi) throw new IllegalArgumentException("the series hold no point to draw");
        if (hi == lo) hi = lo + 1; // XChart puts its ticks on the lanes only when there are two or more
        double xSpan = Math.max(1e-9, xMax - xMin);
        // Side by side within a lane: 1/4 of the median x step between series, centred on the true x.
        double step = xSpan / Math.max(1, Arrays.stream(s).mapToInt(one -> one.x().length).max().orElse(1));
        double shift = s.length > 1 ? step / 4 : 0;
        List<Series> all = new ArrayList<>();
        // Axis only, first: XChart 3.8.8 puts its ticks at the data's y values when they are equally spaced in the
        // order it meets them, so this series names every lane in order, and the points add no other y value.
        int lanes = (int) (hi - lo + 1);
        double[] laneX = new double[lanes];
        double[] laneY = new double[lanes];
        for (int i = 0; i < lanes; i++) {
            laneX[i] = xMin;
            laneY[i] = lo + i;
        }
        all.add(new Series(LANES, laneX, laneY));
        for (int k = 0; k < s.length; k++) {
            double off = (k - (s.length - 1) / 2.0) * shift;
            List<double[]> kept = new ArrayList<>(); // a NaN would be a y value of its own, and cost the lanes their ticks
            for (int i = 0; i < s[k].x().length; i++) {
                if (Double.isFinite(s[k].x()[i]) && Double.isFinite(s[k].y()[i])) kept.add(new double[] {s[k].x()[i] + off, s[k].y()[i]});
            }
            if (kept.isEmpty()) kept.add(new double[] {xMin, lo}); // keeps its legend entry; the record counts its points
            all.add(new Series(s[k].name(), kept.stream().mapToDouble(p -> p[0]).toArray(),
                    kept.stream().mapToDouble(p -> p[1]).toArray()));
        }
        XYChart chart = xyChart(title, xLabel, yLabel, false, false, true, all.toArray(Series[]::new));
        XYSeries axisOnly = chart.getSeriesMap().get(LANES);
        axisOnly.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
        axisOnly.setMarker(SeriesMarkers.NONE);
        axisOnly.setLineColor(new Color(0, 0, 0, 0));
        axisOnly.setShowInLegend(false);
        int index = 0;
        for (Series one : s) {
            XYSeries added = chart.getSeriesMap().get(one.name());
            added.setMarker(index == 0 ? SeriesMarkers.CIRCLE : new Ring());
            added.setMarkerColor(PALETTE[index % PALETTE.length]);
            added.setLineColor(PALETTE[index % PALETTE.length]);
            index++;
        }
        var st = chart.getStyler();
        st.setLegendVisible(s.length > 1);
        st.setYAxisMin(lo - 0.5);
        st.setYAxisMax(hi + 0.5);
        st.setYAxisDecimalPattern("#,##0");
        st.setPlotGridHorizontalLinesVisible(false);
        markCategorical(chart, "y");
        return chart;
    }

    static final String LANES = "lanes (axis only)"; // ends with AXIS_ONLY
    static final String AXIS_ONLY = ChartReading.AXIS_ONLY;

    /**
     * XChart 3.8.8 ticks a numeric axis at the data's own values when they are equally spaced in the order it meets
     * them: data on two values (1 and 2 carriers) got two ticks, too few to read a value by. An axis-only point a
     * step beyond them (towards 0 where that stays at or above 0) gives XChart's own tick steps instead.
     */
    private static void padTicks(XYChart chart, boolean x) {
        java.util.LinkedHashSet<Double> seen = new java.util.LinkedHashSet<>();
        double firstX = Double.NaN;
        double firstY = Double.NaN;
        for (XYSeries one : chart.getSeriesMap().values()) {
            double[] v = x ? one.getXData() : one.getYData();
            for (int i = 0; i < v.length; i++) {
                seen.add(v[i]);
                if (Double.isNaN(firstX) && Double.isFinite(one.getXData()[i]) && Double.isFinite(one.getYData()[i])) {
                    firstX = one.getXData()[i];
                    firstY = one.getYData()[i];
                }
            }
        }
        List<Double> values = seen.stream().filter(Double::isFinite).toList();
        if (values.size() != 2 || seen.size() != 2) return;
        double lo = Math.min(values.get(0), values.get(1));
        double hi = Math.max(values.get(0), values.get(1));
        double beyond = lo - (hi - lo) >= 0 || lo < 0 ? lo - (hi - lo) : hi + (hi - lo);
        XYSeries pad = chart.addSeries((x ? "x" : "y") + AXIS_ONLY, new double[] {x ? beyond : firstX},
                new double[] {x ? firstY : beyond});
        pad.setMarker(SeriesMarkers.NONE);
        pad.setLineColor(new Color(0, 0, 0, 0));
        pad.setShowInLegend(false);
    }

    /**
     * Says that {@code axis} ("x" or "y") of {@code chart} counts categories (lanes, carriers), not a quantity: the
     * page's record then asks for whole numbers on its ticks.
     */
    public static void markCategorical(Chart<?, ?> chart, String axis) {
        chart.addAnnotation(new ChartReading.Categorical(axis));
    }

    /** Paints nothing: the values a series stood for before the chart divided them (see {@link ChartReading}). */
    static final class Raw extends Annotation {
        final ChartReading.RawValues values;

        Raw(ChartReading.RawValues values) {
            super(true);
            this.values = values;
            bounds = new Rectangle2D.Double();
        }

        @Override
        public void paint(Graphics2D g) {}
    }

    /**
     * A circle drawn as a ring, a little larger than a dot: a point of an earlier series under it still shows.
     * Later point series get it, so where two series meet, both are seen.
     */
    public static final class Ring extends org.knowm.xchart.style.markers.Marker implements ChartReading.SeeThrough {
        @Override
        public int size(int markerSize) {
            return markerSize + 3;
        }

        @Override
        public void paint(Graphics2D g, double x, double y, int markerSize) {
            double d = size(markerSize);
            g.setStroke(new BasicStroke(2f));
            g.draw(new java.awt.geom.Ellipse2D.Double(x - d / 2, y - d / 2, d, d));
        }
    }

    /**
     * Writes {@code img} as a PNG file (folders created), atomically ({@link Results#writeAtomically}: a failed write
     * leaves no torn file, and an older chart at that path stays whole); returns the path. A failure is a
     * {@link Results.SaveFailed} naming the file.
     */
    public static Path save(BufferedImage img, Path png) {
        if (img == null) throw new IllegalArgumentException("img must not be null");
        if (png == null || !png.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".png")) {
            throw new IllegalArgumentException("png must be a path ending in .png, got " + png);
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            if (!ImageIO.write(img, "png", bytes)) throw new IllegalStateException("no PNG writer in this JDK");
        } catch (IOException e) { // in memory: not the disk
            throw new UncheckedIOException("cannot encode the chart as PNG", e);
        }
        try {
            Path parent = png.toAbsolutePath().getParent();
            if (parent != null) Files.createDirectories(parent);
            return Results.writeAtomically(png, bytes.toByteArray(), true);
        } catch (IOException e) {
            throw new Results.SaveFailed("cannot save the chart " + png + ": " + Results.why(e), e);
        }
    }

    public static DrawnChart render(Chart<?, ?> chart) {
        RunGuard.check("drawing a chart");
        // In the notebook, the chart's record goes into the page's metadata beside the PNG.
        DrawnChart.register();
        if (chart instanceof CategoryChart && ChartReading.annotations(chart).stream().noneMatch(a -> a instanceof Overlay)) {
            chart.addAnnotation(new Overlay());
        }
        List<String> texts = texts(chart);
        String family = ChartFonts.familyFor(texts);
        if (!family.equals(Font.SANS_SERIF)) useFamily(chart, family);
        BufferedImage image = BitmapEncoder.getBufferedImage(chart);
        // Category labels wider than their slot overlap: turn them until they fit (drawn again, then checked).
        if (chart instanceof CategoryChart category) {
            for (int degrees : new int[] {45, 90}) {
                if (!labelsOverlap(category)) break;
                if (category.getStyler().getXAxisLabelRotation() >= degrees) continue;
                category.getStyler().setXAxisLabelRotation(degrees);
                image = BitmapEncoder.getBufferedImage(chart);
            }
        }
        List<String> clipped = new ArrayList<>();
        Rectangle2D legend = partBounds(chart, "legend");
        if (chart.getStyler().isLegendVisible() && legend != null && chart.getSeriesMap().size() > 1
                && (legend.getMinX() < 0 || legend.getMinY() < 0 || legend.getMaxX() > image.getWidth() + 1
                    || legend.getMaxY() > image.getHeight() + 1)) {
            clipped.add("legend");
        }
        if (chart instanceof CategoryChart category && labelsOverlap(category)) clipped.add("x-axis labels overlap");
        List<ChartReading.RawValues> raw = ChartReading.annotations(chart).stream()
                .filter(a -> a instanceof Raw).map(a -> ((Raw) a).values).toList();
        return new DrawnChart(image, titleOf(chart), drawnSeries(chart), clipped, ChartReading.read(chart, raw, texts));
    }

    /** Every text the chart draws: its title, axis titles, legend entries, category names and line labels. */
    static List<String> texts(Chart<?, ?> chart) {
        List<String> texts = new ArrayList<>();
        for (Object a : ChartReading.annotations(chart)) {
            if (a instanceof TitleBlock t) texts.addAll(t.layout.lines());
            if (a instanceof ReferenceLine r) texts.add(r.label());
        }
        texts.add(chart.getXAxisTitle());
        texts.add(chart.getYAxisTitle());
        for (var e : chart.getSeriesMap().entrySet()) {
            if (e.getValue().isShowInLegend()) texts.add(e.getKey());
            if (e.getValue() instanceof CategorySeries c) for (Object x : c.getXData()) texts.add(String.valueOf(x));
        }
        texts.removeIf(t -> t == null || t.isBlank());
        return texts;
    }

    // Every font of the chart in another family (one that can draw all its texts), the title laid out again in it.
    private static void useFamily(Chart<?, ?> chart, String family) {
        if (!(chart.getStyler() instanceof AxesChartStyler st)) return;
        st.setChartTitleFont(in(family, st.getChartTitleFont()));
        st.setAxisTitleFont(in(family, st.getAxisTitleFont()));
        st.setAxisTickLabelsFont(in(family, st.getAxisTickLabelsFont()));
        st.setLegendFont(in(family, st.getLegendFont()));
        if (st instanceof CategoryStyler cs) cs.setLabelsFont(in(family, cs.getLabelsFont()));
        for (Object a : ChartReading.annotations(chart)) {
            if (a instanceof TitleBlock t) {
                t.layout = titleLayout(String.join(" ", t.layout.lines()), chart.getWidth(), family);
                FontMetrics fm = Measure.GRAPHICS.getFontMetrics(t.layout.font());
                st.setChartTitlePadding((t.layout.lines().size() * fm.getHeight() + 2 * TITLE_GAP + 1) / 2);
            }
        }
    }

    private static Font in(String family, Font f) {
        return new Font(family, f.getStyle(), f.getSize());
    }

    /** Each declared series with its count of finite points (on a log axis, points > 0): what the chart shows of it. */
    static List<DrawnChart.Drawn> drawnSeries(Chart<?, ?> chart) {
        List<DrawnChart.Drawn> drawn = new ArrayList<>();
        boolean logY = chart.getStyler() instanceof AxesChartStyler a && a.isYAxisLogarithmic();
        boolean logX = chart.getStyler() instanceof AxesChartStyler a && a.isXAxisLogarithmic();
        for (var e : chart.getSeriesMap().entrySet()) {
            if (e.getKey().endsWith(AXIS_ONLY)) continue;
            int points = 0;
            if (e.getValue() instanceof XYSeries xy) {
                double[] x = xy.getXData();
                double[] y = xy.getYData();
                for (int i = 0; i < y.length; i++) {
                    if (Double.isFinite(x[i]) && Double.isFinite(y[i]) && (!logX || x[i] > 0) && (!logY || y[i] > 0)) points++;
                }
            } else if (e.getValue() instanceof CategorySeries c) {
                for (Number n : c.getYData()) {
                    if (n != null && Double.isFinite(n.doubleValue()) && (!logY || n.doubleValue() > 0)) points++;
                }
            }
            drawn.add(new DrawnChart.Drawn(e.getKey(), points));
        }
        return drawn;
    }

    private static String titleOf(Chart<?, ?> chart) {
        Object annotations = field(chart, "annotations");
        if (annotations instanceof List<?> list) {
            for (Object a : list) if (a instanceof TitleBlock t) return String.join(" ", t.layout.lines());
        }
        return chart.getTitle();
    }

    // True when the widest category label (as turned) is wider than the room each category has on the x axis.
    private static boolean labelsOverlap(CategoryChart chart) {
        Rectangle2D plot = partBounds(chart, "plot");
        int categories = 0;
        double widest = 0;
        Font font = chart.getStyler().getAxisTickLabelsFont();
        FontMetrics fm = Measure.GRAPHICS.getFontMetrics(font);
        for (CategorySeries series : chart.getSeriesMap().values()) {
            int n = 0;
            for (Object x : series.getXData()) {
                n++;
                widest = Math.max(widest, fm.stringWidth(String.valueOf(x)));
            }
            categories = Math.max(categories, n);
        }
        if (plot == null || categories == 0) return false;
        double turn = Math.toRadians(chart.getStyler().getXAxisLabelRotation());
        double footprint = widest * Math.cos(turn) + fm.getHeight() * Math.sin(turn);
        return footprint > plot.getWidth() / categories;
    }

    // XChart keeps its parts' bounds (set while painting) in protected fields; read, never changed.
    private static Rectangle2D partBounds(Chart<?, ?> chart, String part) {
        Object p = field(chart, part);
        if (p instanceof org.knowm.xchart.internal.chartpart.ChartPart cp) return cp.getBounds();
        return null;
    }

    private static Object field(Chart<?, ?> chart, String name) {
        try {
            var f = Chart.class.getDeclaredField(name);
            f.setAccessible(true);
            return f.get(chart);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    // ---- titles ---------------------------------------------------------------------------------------------

    /** A title as drawn: one or two lines, all in {@code font}, each at most {@link #titleWidth} wide. */
    record TitleLayout(List<String> lines, Font font) {}

    /** The width a title line may take on a chart {@code chartWidth} wide. */
    static int titleWidth(int chartWidth) {
        return chartWidth - 2 * PAD;
    }

    /**
     * How {@code title} is drawn on a chart {@code chartWidth} wide: on one line at {@link #TITLE_POINTS}
     * if it fits, else on two lines of about equal width, shrinking the font one point at a time down
     * to {@link #MIN_TITLE_POINTS}. Lines break only between words.
     *
     * @throws IllegalArgumentException when even two lines at {@link #MIN_TITLE_POINTS} are too narrow
     */
    static TitleLayout titleLayout(String title, int chartWidth) {
        return titleLayout(title, chartWidth, ChartFonts.familyFor(List.of(title)));
    }

    static TitleLayout titleLayout(String title, int chartWidth, String family) {
        text("title", title);
        String[] words = title.strip().split("\\s+");
        int available = titleWidth(chartWidth);
        Font full = new Font(family, Font.BOLD, TITLE_POINTS);
        if (textWidth(String.join(" ", words), full) <= available) return new TitleLayout(List.of(String.join(" ", words)), full);
        for (int points = TITLE_POINTS; points >= MIN_TITLE_POINTS; points--) {
            Font font = new Font(family, Font.BOLD, points);
            List<String> best = null;
            int bestWidth = Integer.MAX_VALUE;
            for (int cut = 1; cut < words.length; cut++) {
                String first = String.join(" ", Arrays.asList(words).subList(0, cut));
                String second = String.join(" ", Arrays.asList(words).subList(cut, words.length));
                int widest = Math.max(textWidth(first, font), textWidth(second, font));
                if (widest <= available && widest < bestWidth) {
                    best = List.of(first, second);
                    bestWidth = widest;
                }
            }
            if (best != null) return new TitleLayout(best, font);
        }
        throw new IllegalArgumentException("title must fit in 2 lines of " + available + " px on a chart " + chartWidth
                + " px wide (even at " + MIN_TITLE_POINTS + " pt), but '" + title + "' (" + title.length()
                + " characters) does not; shorten it, and put details in the text around the chart");
    }

    static Font titleFont(int points) {
        return new Font(Font.SANS_SERIF, Font.BOLD, points);
    }

    /** Width in pixels of {@code s} in {@code font}, as drawn on a chart image (anti-aliased). */
    public static int textWidth(String s, Font font) {
        return Measure.GRAPHICS.getFontMetrics(font).stringWidth(s);
    }

    /** One Graphics2D of a 1x1 image, set up like the charts', only for font metrics. */
    private static final class Measure {
        static final Graphics2D GRAPHICS = graphics();

        private static Graphics2D graphics() {
            Graphics2D g = new BufferedImage(1, 1, BufferedImage.TYPE_INT_RGB).createGraphics();
            textHints(g);
            return g;
        }
    }

    private static void textHints(Graphics2D g) {
        g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
        g.setRenderingHint(RenderingHints.KEY_FRACTIONALMETRICS, RenderingHints.VALUE_FRACTIONALMETRICS_OFF);
    }

    // XChart reserves (height of the placeholder, i.e. 0) + 2 * title padding above the plot; make that the block's height.
    private static void applyTitle(Chart<?, ?> chart, TitleLayout layout) {
        FontMetrics fm = Measure.GRAPHICS.getFontMetrics(layout.font());
        int block = layout.lines().size() * fm.getHeight() + 2 * TITLE_GAP;
        chart.setTitle(TITLE_PLACEHOLDER);
        chart.getStyler().setChartTitlePadding((block + 1) / 2);
        chart.addAnnotation(new TitleBlock(layout));
    }

    /** Draws the title lines in the band XChart reserved for its (blank) title, centred over the plot but never off the image. */
    static final class TitleBlock extends Annotation {
        TitleLayout layout;

        TitleBlock(TitleLayout layout) {
            super(true);
            this.layout = layout;
        }

        @Override
        public void paint(Graphics2D g) {
            RenderingHints saved = g.getRenderingHints();
            textHints(g);
            g.setFont(layout.font());
            g.setColor(styler.getChartFontColor());
            FontMetrics fm = g.getFontMetrics();
            double centre = (getXAxisScreenValueForMin() + getXAxisScreenValueForMax()) / 2.0;
            int y = PAD + TITLE_GAP + fm.getAscent();
            for (String line : layout.lines()) {
                int w = fm.stringWidth(line);
                int x = (int) Math.round(Math.max(PAD, Math.min(chart.getWidth() - PAD - w, centre - w / 2.0)));
                g.drawString(line, x, y);
                y += fm.getHeight();
            }
            bounds = new Rectangle2D.Double(PAD, PAD, chart.getWidth() - 2 * PAD, y - PAD);
            g.setRenderingHints(saved);
        }
    }

    // ---- axes and bars --------------------------------------------------------------------------------------

    /** An axis title that says when the axis is logarithmic, e.g. "ms (log scale)". */
    static String axisTitle(String label, boolean log) {
        if (!log || label.toLowerCase(Locale.ROOT).contains("log")) return label;
        return label + " " + LOG_SCALE;
    }

    private static List<String> labels(List<Comparison> rows) {
        if (rows == null || rows.isEmpty()) throw new IllegalArgumentException("rows must be a non-empty list of Comparison, got " + rows);
        List<String> labels = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (Comparison c : rows) {
            if (c == null) throw new IllegalArgumentException("rows must not contain null");
            if (!seen.add(c.label())) throw new IllegalArgumentException("row labels must be unique, got '" + c.label() + "' twice");
            labels.add(c.label());
        }
        return labels;
    }

    // Bars side by side on a linear axis: the smallest must still be readable next to the largest.
    private static void checkSpread(String unit, List<String> labels, List<Double> measured, List<Double> bound, List<Double> published) {
        double min = Double.POSITIVE_INFINITY;
        double max = 0;
        String minAt = null;
        String maxAt = null;
        for (List<Double> series : List.of(measured, bound, published)) {
            String name = series == measured ? MEASURED : series == bound ? BOUND : PUBLISHED;
            for (int i = 0; i < series.size(); i++) {
                double a = Math.abs(series.get(i));
                if (Double.isNaN(a) || Double.isInfinite(a) || a == 0) continue;
                if (a < min) {
                    min = a;
                    minAt = name + " of '" + labels.get(i) + "'";
                }
                if (a > max) {
                    max = a;
                    maxAt = name + " of '" + labels.get(i) + "'";
                }
            }
        }
        if (minAt != null && max > MAX_LINEAR_SPREAD * min) {
            throw new IllegalArgumentException("values more than " + (int) MAX_LINEAR_SPREAD + "x apart would be unreadable slivers on a linear axis: "
                    + minAt + " is " + format(min) + " " + unit + " but " + maxAt + " is " + format(max) + " " + unit
                    + " (" + String.format(Locale.ROOT, "%,.0f", max / min) + "x); use Charts.compare(title, unit, rows, logY=true) for a log axis, "
                    + "or Charts.ratios(title, rows) to show each value relative to its bound");
        }
    }

    private static CategoryChart categoryChart(String title, String xLabel, String yLabel) {
        return categoryChart(title, xLabel, yLabel, HEIGHT);
    }

    private static CategoryChart categoryChart(String title, String xLabel, String yLabel, int height) {
        TitleLayout layout = titleLayout(title, WIDTH);
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(height).title(TITLE_PLACEHOLDER)
                .xAxisTitle(xLabel == null ? "" : xLabel).yAxisTitle(yLabel).build();
        style(chart.getStyler());
        applyTitle(chart, layout);
        // The value labels are drawn by Overlay, which keeps them off each other, the bars and the lines.
        chart.getStyler().setLabelsVisible(false);
        chart.getStyler().setLabelsFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        chart.getStyler().setXAxisTitleVisible(xLabel != null);
        return chart;
    }

    // NaN becomes null (XChart draws no bar); a series with nothing to draw is not added at all.
    private static void addBars(CategoryChart chart, String name, Color color, List<String> labels, List<Double> values,
                                boolean logY, double[] range) {
        List<Double> ys = new ArrayList<>();
        boolean any = false;
        for (int i = 0; i < values.size(); i++) {
            double v = values.get(i);
            if (Double.isNaN(v)) {
                ys.add(null);
                continue;
            }
            if (Double.isInfinite(v)) throw new IllegalArgumentException(name + " of '" + labels.get(i) + "' must be finite or NaN, got " + v);
            if (logY && v <= 0) {
                throw new IllegalArgumentException("with logY every value must be > 0 (use NaN for 'not available' or logY=false), got "
                        + name + " = " + v + " for '" + labels.get(i) + "'");
            }
            ys.add(v);
            any = true;
            if (v != 0) range[0] = Math.min(range[0], Math.abs(v));
        }
        if (!any) return;
        CategorySeries s = chart.addSeries(name, labels, ys);
        s.setFillColor(color);
        s.setLineColor(color);
    }

    /**
     * Error bars (value ± error) on the bars of series {@code name}, where both are not NaN; its legend
     * entry then says what they are. Drawn here rather than with XChart's own error bars, which in
     * 3.8.8 fail on a series with a gap (null) and draw a wrong length on a log axis.
     */
    private static void addErrorBars(CategoryChart chart, String name, List<Double> values, List<Double> errors, boolean logY,
                                     double[] range) {
        CategorySeries series = chart.getSeriesMap().get(name);
        if (series == null) return;
        double top = Double.NEGATIVE_INFINITY; // the highest bar or error bar
        for (CategorySeries s : chart.getSeriesMap().values()) {
            for (Number y : s.getYData()) if (y != null) top = Math.max(top, y.doubleValue());
        }
        boolean any = false;
        for (int i = 0; i < values.size(); i++) {
            double v = values.get(i);
            double e = errors.get(i);
            if (Double.isNaN(v) || Double.isNaN(e)) continue;
            any = true;
            top = Math.max(top, v + e);
            if (v - e > 0) range[0] = Math.min(range[0], v - e);
        }
        if (!any) return;
        series.setLabel(name + " (" + ERROR_NOTE + ")");
        CategoryStyler st = chart.getStyler();
        // Make room for the top of the highest error bar (XChart's own range knows only the bars).
        if (st.getYAxisMax() == null || st.getYAxisMax() < top) st.setYAxisMax(top);
        if (logY) logAxis(chart, range[0], top);
        int index = new ArrayList<>(chart.getSeriesMap().keySet()).indexOf(name);
        chart.addAnnotation(new ErrorBars(index, values, errors));
    }

    /**
     * value ± error as a whisker with caps, centred on bar {@code i} of series {@code seriesIndex}. The
     * bar positions follow XChart 3.8.8's PlotContent_Category_Bar for side-by-side (not stacked, not
     * overlapped) bars, so each whisker lands on its bar.
     */
    static final class ErrorBars extends OnBarAxis {
        private final int seriesIndex;
        private final List<Double> values;
        private final List<Double> errors;
        private final List<Rectangle2D> whiskers = new ArrayList<>();

        List<Rectangle2D> whiskers() {
            return List.copyOf(whiskers);
        }

        ErrorBars(int seriesIndex, List<Double> values, List<Double> errors) {
            this.seriesIndex = seriesIndex;
            this.values = List.copyOf(values);
            this.errors = List.copyOf(errors);
        }

        @Override
        public void paint(Graphics2D g) {
            CategoryStyler st = (CategoryStyler) styler;
            double left = getXAxisScreenValueForMin();
            double width = getXAxisScreenValueForMax() - left;
            double plotTop = getYAxisScreenValueForMin();
            double plotBottom = getYAxisScreenValueForMax();
            double content = st.getPlotContentSize() * width;
            double step = content / values.size();
            double fill = st.getAvailableSpaceFill();
            double barWidth = step / chart.getSeriesMap().size() * fill;
            double first = left + (width - content) / 2 + step * (1 - fill) / 2 + seriesIndex * barWidth + barWidth / 2;
            double cap = Math.max(2, Math.min(5, barWidth / 4));
            whiskers.clear();
            g.setColor(ERROR_BAR);
            g.setStroke(new BasicStroke(2f));
            // Straight lines need no anti-aliasing, and without it they are exactly ERROR_BAR, a colour nothing else draws.
            RenderingHints saved = g.getRenderingHints();
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_OFF);
            for (int i = 0; i < values.size(); i++) {
                double v = values.get(i);
                double e = errors.get(i);
                if (Double.isNaN(v) || Double.isNaN(e)) continue;
                double x = first + i * step;
                double hi = clamp(y(v + e), plotTop, plotBottom);
                // On a log axis v - e <= 0 is below any axis: the whisker runs to the bottom of the plot.
                double lo = st.isYAxisLogarithmic() && v - e <= 0 ? plotBottom : clamp(y(v - e), plotTop, plotBottom);
                g.draw(new Line2D.Double(x, hi, x, lo));
                whiskers.add(new Rectangle2D.Double(x - cap, hi - 1, 2 * cap, lo - hi + 2));
                g.draw(new Line2D.Double(x - cap, hi, x + cap, hi));
                if (lo < plotBottom) g.draw(new Line2D.Double(x - cap, lo, x + cap, lo));
            }
            g.setRenderingHints(saved);
            bounds = new Rectangle2D.Double(left, plotTop, width, plotBottom - plotTop);
        }
    }

    /**
     * An annotation on a bar chart that places values on its y axis the way XChart 3.8.8's bar plot does: the axis's
     * span over the plot's content size, centred in the plot. XChart's own Annotation.getYAxisScreenValue gives the
     * plot's top for every value once the category labels stand upright (90 degrees), which drew lines, whiskers and
     * labels at the top. Where the axis's ends are not set (or on an x/y chart), XChart's own value.
     */
    abstract static class OnBarAxis extends Annotation {
        OnBarAxis() {
            super(false);
        }

        double y(double v) {
            double xchart = getYAxisScreenValue(v);
            if (!(chart instanceof CategoryChart cc)) return xchart;
            CategoryStyler st = cc.getStyler();
            Double min = st.getYAxisMin(), max = st.getYAxisMax();
            if (min == null || max == null || !(max > min)) return xchart;
            boolean log = st.isYAxisLogarithmic();
            if (log && (min <= 0 || v <= 0)) return xchart;
            double lo = log ? Math.log10(min) : min, hi = log ? Math.log10(max) : max, at = log ? Math.log10(v) : v;
            double plotTop = getYAxisScreenValueForMin(), plotBottom = getYAxisScreenValueForMax();
            double height = plotBottom - plotTop;
            double span = st.getPlotContentSize() * height;
            return plotBottom - ((height - span) / 2 + (at - lo) / (hi - lo) * span);
        }
    }

    /** A dashed horizontal line across the plot at {@code value}; {@link Overlay} puts its {@code label} beside it. */
    static final class ReferenceLine extends OnBarAxis implements ChartReading.Labelled {
        private final double value;
        private final String label;

        ReferenceLine(double value, String label) {
            this.value = value;
            this.label = label;
        }

        @Override
        public void paint(Graphics2D g) {
            double left = getXAxisScreenValueForMin();
            double right = getXAxisScreenValueForMax();
            double y = y(value);
            RenderingHints saved = g.getRenderingHints();
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_OFF);
            g.setColor(REFERENCE);
            g.setStroke(new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {6, 4}, 0));
            g.draw(new Line2D.Double(left, y, right, y));
            g.setRenderingHints(saved);
            bounds = new Rectangle2D.Double(left, y - 1, right - left, 2);
        }

        @Override
        public double value() {
            return value;
        }

        @Override
        public String label() {
            return label;
        }
    }

    /**
     * The texts inside a bar chart's plot, placed last, where nothing else is: each reference line's label (at the
     * right end above its line, else below it, else at the left end), then each bar's value (above the bar, else
     * stacked higher, else inside its top). A place that would cover another label, a bar, a whisker or a line is
     * passed over; a value with no free place is left out (the table beside the chart has it). Every box it drew,
     * and every bar and line, goes into the chart's record ({@link ChartReading}).
     */
    static final class Overlay extends OnBarAxis implements ChartReading.Boxed {
        /** The least room, px, between two labels side by side. */
        static final int LABEL_GAP = 4;
        private final List<DrawnChart.Box> boxes = new ArrayList<>();

        @Override
        public List<DrawnChart.Box> boxes() {
            return List.copyOf(boxes);
        }

        @Override
        public void paint(Graphics2D g) {
            boxes.clear();
            CategoryChart cc = (CategoryChart) chart;
            CategoryStyler st = cc.getStyler();
            double left = getXAxisScreenValueForMin();
            double right = getXAxisScreenValueForMax();
            double plotTop = getYAxisScreenValueForMin();
            double plotBottom = getYAxisScreenValueForMax();
            Rectangle2D plot = new Rectangle2D.Double(left, plotTop, right - left, plotBottom - plotTop);
            List<Rectangle2D> taken = new ArrayList<>();
            // The bars, where XChart 3.8.8's PlotContent_Category_Bar puts them (side by side, not stacked).
            List<String> names = new ArrayList<>(cc.getSeriesMap().keySet());
            int categories = cc.getSeriesMap().values().iterator().next().getXData().size();
            double width = right - left;
            double content = st.getPlotContentSize() * width;
            double step = content / categories;
            double fill = st.getAvailableSpaceFill();
            double barWidth = step / names.size() * fill;
            double zero = st.isYAxisLogarithmic() ? plotBottom : clamp(y(0), plotTop, plotBottom);
            record Bar(String owner, Rectangle2D box, double value) {}
            List<Bar> bars = new ArrayList<>();
            for (int k = 0; k < names.size(); k++) {
                List<? extends Number> ys = new ArrayList<>(cc.getSeriesMap().get(names.get(k)).getYData());
                for (int i = 0; i < ys.size(); i++) {
                    Number n = ys.get(i);
                    if (n == null) continue;
                    double x = left + (width - content) / 2 + step * i + step * (1 - fill) / 2 + k * barWidth;
                    double top = clamp(y(n.doubleValue()), plotTop, plotBottom);
                    Rectangle2D box = new Rectangle2D.Double(x, Math.min(top, zero), barWidth, Math.abs(zero - top));
                    String owner = names.get(k) + " #" + i;
                    bars.add(new Bar(owner, box, n.doubleValue()));
                    boxes.add(new DrawnChart.Box("bar", names.get(k), box.getX(), box.getY(), box.getWidth(), box.getHeight(), owner));
                }
            }
            for (Object a : ChartReading.annotations(cc)) {
                if (a instanceof ErrorBars e && e.getBounds() != null) taken.addAll(e.whiskers());
            }
            List<ReferenceLine> lines = new ArrayList<>();
            for (Object a : ChartReading.annotations(cc)) if (a instanceof ReferenceLine r) lines.add(r);
            for (ReferenceLine r : lines) {
                double y = y(r.value());
                boxes.add(new DrawnChart.Box("line", r.label(), left, y - 1, right - left, 2, ""));
            }
            RenderingHints saved = g.getRenderingHints();
            textHints(g);
            Font lineFont = st.getLabelsFont().deriveFont(Font.BOLD);
            FontMetrics lm = g.getFontMetrics(lineFont);
            g.setColor(REFERENCE);
            g.setFont(lineFont);
            for (ReferenceLine r : lines) {
                double y = y(r.value());
                int w = lm.stringWidth(r.label());
                int h = lm.getAscent() + lm.getDescent();
                List<Rectangle2D> places = new ArrayList<>(List.of(
                        new Rectangle2D.Double(right - w - 4, y - 3 - h, w, h),
                        new Rectangle2D.Double(right - w - 4, y + 3, w, h),
                        new Rectangle2D.Double(left + 4, y - 3 - h, w, h),
                        new Rectangle2D.Double(left + 4, y + 3, w, h)));
                // else in a gap between two groups of bars, from the right
                for (int i = categories - 1; i >= 1; i--) {
                    double gap = left + (width - content) / 2 + step * i - w / 2.0;
                    places.add(new Rectangle2D.Double(gap, y - 3 - h, w, h));
                    places.add(new Rectangle2D.Double(gap, y + 3, w, h));
                }
                // A line's label keeps off the room just above each bar too, where the bar's value goes.
                List<Rectangle2D> keepOff = new ArrayList<>(bars.stream().map(Bar::box).toList());
                for (Bar b : bars) {
                    double room = 2 * (lm.getAscent() + lm.getDescent()) + 6;
                    keepOff.add(new Rectangle2D.Double(b.box().getX(), b.box().getMinY() - room, b.box().getWidth(), room));
                }
                Rectangle2D at = free(places, plot, taken, keepOff, boxes, r.label(), "");
                if (at == null) at = free(places, plot, taken, bars.stream().map(Bar::box).toList(), boxes, r.label(), "");
                // Bars cross the line everywhere: the free place in the plot nearest the line, its label in its colour.
                List<Rectangle2D> anywhere = at == null ? farther(plot, y, w, h) : List.of();
                if (at == null) at = free(anywhere, plot, taken, keepOff, boxes, r.label(), "");
                if (at == null) at = free(anywhere, plot, taken, bars.stream().map(Bar::box).toList(), boxes, r.label(), "");
                if (at == null) at = places.get(0); // drawn all the same, and the record shows what it covers
                g.drawString(r.label(), (float) at.getX(), (float) (at.getY() + lm.getAscent()));
                taken.add(at);
                boxes.add(new DrawnChart.Box("line label", r.label(), at.getX(), at.getY(), at.getWidth(), at.getHeight(), ""));
            }
            Font valueFont = st.getLabelsFont();
            FontMetrics vm = g.getFontMetrics(valueFont);
            g.setFont(valueFont);
            g.setColor(styler.getChartFontColor());
            java.text.DecimalFormat format = new java.text.DecimalFormat(st.getDecimalPattern() == null ? "#,##0.###"
                    : st.getDecimalPattern(), DecimalFormatSymbols.getInstance(Locale.ROOT));
            for (Bar b : bars) {
                String text = format.format(b.value());
                int w = vm.stringWidth(text);
                int h = vm.getAscent() + vm.getDescent();
                double cx = b.box().getCenterX() - w / 2.0;
                boolean up = b.value() >= 0 || st.isYAxisLogarithmic();
                double edge = up ? b.box().getMinY() : b.box().getMaxY();
                // Above the bar, one line higher, inside its top (white, where it fits), then higher still: a label
                // far above its bar reads as its neighbour's.
                List<Rectangle2D> places = new ArrayList<>();
                for (int level = 0; level < 4; level++) {
                    places.add(new Rectangle2D.Double(cx, up ? edge - 2 - h - level * (h + 1) : edge + 2 + level * (h + 1), w, h));
                    if (level == 1 && b.box().getHeight() > h + 6 && b.box().getWidth() >= w) {
                        places.add(new Rectangle2D.Double(cx, up ? edge + 4 : edge - 4 - h, w, h));
                    }
                }
                Rectangle2D at = free(places, plot, taken, bars.stream().filter(o -> o != b).map(Bar::box).toList(), boxes,
                        text, b.owner());
                if (at == null) continue;
                boolean inside = at.getMinY() >= b.box().getMinY() && at.getMaxY() <= b.box().getMaxY();
                g.setColor(inside ? Color.WHITE : styler.getChartFontColor());
                g.drawString(text, (float) at.getX(), (float) (at.getY() + vm.getAscent()));
                taken.add(at);
                boxes.add(new DrawnChart.Box("value label", text, at.getX(), at.getY(), at.getWidth(), at.getHeight(), b.owner()));
            }
            g.setRenderingHints(saved);
            bounds = plot;
        }

        /** Places for a w x h label anywhere in the plot, on a grid, nearest to height y first. */
        private static List<Rectangle2D> farther(Rectangle2D plot, double y, int w, int h) {
            List<Rectangle2D> grid = new ArrayList<>();
            for (double top = plot.getMinY() + 2; top + h <= plot.getMaxY() - 2; top += h / 2.0) {
                for (double x = plot.getMaxX() - w - 4; x >= plot.getMinX() + 4; x -= Math.max(8, w / 4.0)) {
                    grid.add(new Rectangle2D.Double(x, top, w, h));
                }
            }
            grid.sort(Comparator.comparingDouble(p -> Math.abs(p.getCenterY() - y)));
            return grid;
        }

        // The first place inside the plot that covers no label, other bar, whisker or line.
        private static Rectangle2D free(List<Rectangle2D> places, Rectangle2D plot, List<Rectangle2D> taken,
                                        List<Rectangle2D> bars, List<DrawnChart.Box> drawn, String text, String owner) {
            for (Rectangle2D p : places) {
                if (p.getMinX() < plot.getMinX() - 1 || p.getMaxX() > plot.getMaxX() + 1 || p.getMinY() < plot.getMinY()
                        || p.getMaxY() > plot.getMaxY()) continue;
                // Two labels need a gap, or "2.01" and "2.04" side by side read as "2.012.04".
                Rectangle2D apart = new Rectangle2D.Double(p.getX() - LABEL_GAP, p.getY() - 1, p.getWidth() + 2 * LABEL_GAP,
                        p.getHeight() + 2);
                if (taken.stream().anyMatch(apart::intersects)) continue;
                if (bars.stream().anyMatch(b -> b.getHeight() > 0 && p.intersects(b))) continue;
                if (drawn.stream().anyMatch(d -> d.kind().equals("line") && p.intersects(d.x(), d.y(), d.w(), d.h()))) continue;
                return p;
            }
            return null;
        }
    }

    /** {@code v} with the decimals {@link #pattern} gives it, e.g. 0.512 or 50,000. */
    static String format(double v) {
        return new DecimalFormat(pattern(Math.abs(v)), DecimalFormatSymbols.getInstance(Locale.ROOT)).format(v);
    }

    private static double clamp(double v, double lo, double hi) {
        return Math.max(lo, Math.min(hi, v));
    }

    private static void finishCategory(CategoryChart chart, List<String> labels, boolean logY, double[] range) {
        var st = chart.getStyler();
        st.setYAxisLogarithmic(logY);
        // XChart starts log bars at 0 and then refuses them; start at the decade below the smallest value.
        // (With logY every value is > 0, so range[0] is the smallest value.)
        // A bar less than twice the floor would be a sliver: go one decade lower then.
        if (logY) logAxis(chart, range[0], Double.NaN);
        else roomAboveOneValue(chart);
        st.setDecimalPattern(pattern(range[0]));
        int chars = labels.stream().mapToInt(String::length).sum();
        if (chars > 70) st.setXAxisLabelRotation(20); // render() turns them further if they still overlap
    }

    /**
     * XChart 3.8.8 ticks a bar axis holding one value (and 0) at those two only, too few to read a value by: the axis
     * then ends at the next round number above it, and XChart's own tick steps come back.
     */
    private static void roomAboveOneValue(CategoryChart chart) {
        Set<Double> values = new HashSet<>(Set.of(0.0));
        for (CategorySeries s : chart.getSeriesMap().values()) {
            for (Number y : s.getYData()) if (y != null && Double.isFinite(y.doubleValue())) values.add(y.doubleValue());
        }
        double top = values.stream().mapToDouble(Double::doubleValue).max().orElse(0);
        if (values.size() > 2 || top <= 0 || chart.getStyler().getYAxisMax() != null) return;
        double decade = Math.pow(10, Math.floor(Math.log10(top)));
        for (double m : new double[] {1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10, 12}) {
            if (m * decade > top * 1.05) {
                chart.getStyler().setYAxisMax(m * decade);
                return;
            }
        }
    }

    /**
     * A log value axis of bars: from the decade below the smallest value (one more when a bar would be a sliver,
     * less than twice the floor) to the decade at or above the highest bar ({@code top} if given), two decades at
     * least, so both ends carry a label.
     */
    private static void logAxis(CategoryChart chart, double smallest, double top) {
        double hi = Double.isNaN(top) ? Double.NEGATIVE_INFINITY : top;
        for (CategorySeries s : chart.getSeriesMap().values()) {
            for (Number y : s.getYData()) if (y != null && y.doubleValue() > 0) hi = Math.max(hi, y.doubleValue());
        }
        double floor = Math.pow(10, Math.floor(Math.log10(smallest) + 1e-9));
        double[] range = decades(smallest < 2 * floor ? floor / 10 : floor, hi);
        chart.getStyler().setYAxisMin(range[0]);
        chart.getStyler().setYAxisMax(range[1]);
    }

    static void style(AxesChartStyler st) {
        st.setChartBackgroundColor(Color.WHITE);
        st.setPlotBackgroundColor(Color.WHITE);
        st.setPlotBorderVisible(false);
        st.setPlotGridLinesColor(new Color(0xe0e0e0));
        st.setChartPadding(PAD);
        st.setChartTitleFont(titleFont(TITLE_POINTS));
        st.setChartTitleBoxVisible(false);
        st.setAxisTitleFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        st.setAxisTickLabelsFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        st.setLegendFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        st.setLegendPosition(Styler.LegendPosition.OutsideS);
        st.setLegendLayout(Styler.LegendLayout.Horizontal);
        st.setLegendBorderColor(Color.WHITE);
        st.setAntiAlias(true);
    }

    // Three significant digits for the smallest value, so 0.5 isn't printed as "0" next to 50,000.
    public static String pattern(double minAbs) {
        if (!(minAbs > 0) || Double.isInfinite(minAbs)) return "#,##0.###";
        if (minAbs < 1e-4) return "0.##E0";
        int decimals = (int) Math.max(0, Math.min(6, 2 - Math.floor(Math.log10(minAbs))));
        return decimals == 0 ? "#,##0" : "#,##0." + "#".repeat(decimals);
    }

    private static double minAbs(double[]... arrays) {
        double min = Double.POSITIVE_INFINITY;
        for (double[] a : arrays) {
            for (double v : a) {
                if (Double.isFinite(v) && v != 0) min = Math.min(min, Math.abs(v));
            }
        }
        return min;
    }

    private static void positiveOnLog(String series, String axis, double[] values) {
        for (double v : values) {
            if (v <= 0) {
                throw new IllegalArgumentException("with a log " + axis + " axis every " + axis + " value must be > 0 (NaN leaves a gap), "
                        + "but series '" + series + "' has " + v);
            }
        }
    }

    private static void text(String what, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(what + " must be a non-blank string, got " + (value == null ? "null" : "'" + value + "'"));
        }
    }
}
