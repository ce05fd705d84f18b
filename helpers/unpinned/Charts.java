//DEPS org.knowm.xchart:xchart:3.8.8
package unpinned;

import java.awt.Color;
import java.awt.Font;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
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
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Charts as images (XChart), never windows: the kernel and CI have no display, and a
 * {@code BufferedImage} is what the notebook shows inline and what {@link #save} writes.
 * The compare chart ends every experiment; it carries the machine summary, because a number
 * without its machine means nothing. Needs Comparison.java, Machine.java and Profile.java alongside.
 */
public final class Charts {
    public static final int WIDTH = 720;
    public static final int HEIGHT = 420;
    static final String MEASURED = "measured";
    static final String BOUND = "bound";
    static final String PUBLISHED = "published";
    private static final Color BLUE = new Color(0x1f77b4);
    private static final Color GREY = new Color(0x9a9a9a);
    private static final Color ORANGE = new Color(0xff7f0e);
    private static final Color[] PALETTE = {BLUE, ORANGE, new Color(0x2ca02c), new Color(0xd62728), new Color(0x9467bd),
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

    /** Grouped bars measured / bound / published per label, linear y axis. */
    public static BufferedImage compare(String title, String unit, List<Comparison> rows) {
        return compare(title, unit, rows, false);
    }

    /** Grouped bars measured / bound / published per label; {@code logY} when they span decades. */
    public static BufferedImage compare(String title, String unit, List<Comparison> rows, boolean logY) {
        return render(compareChart(title, unit, rows, logY));
    }

    /**
     * The chart behind {@link #compare}. A series whose values are all NaN is left out; a single
     * NaN leaves its bar out. With {@code logY} every available value must be > 0.
     */
    static CategoryChart compareChart(String title, String unit, List<Comparison> rows, boolean logY) {
        text("title", title);
        text("unit", unit);
        if (rows == null || rows.isEmpty()) throw new IllegalArgumentException("rows must be a non-empty list of Comparison, got " + rows);
        List<String> labels = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (Comparison c : rows) {
            if (c == null) throw new IllegalArgumentException("rows must not contain null");
            if (!seen.add(c.label())) throw new IllegalArgumentException("row labels must be unique, got '" + c.label() + "' twice");
            labels.add(c.label());
        }
        CategoryChart chart = categoryChart(title, Machine.summary(), unit);
        double[] range = {Double.POSITIVE_INFINITY}; // smallest non-zero |value|
        addBars(chart, MEASURED, BLUE, labels, rows.stream().map(Comparison::measured).toList(), logY, range);
        addBars(chart, BOUND, GREY, labels, rows.stream().map(Comparison::bound).toList(), logY, range);
        addBars(chart, PUBLISHED, ORANGE, labels, rows.stream().map(Comparison::published).toList(), logY, range);
        if (chart.getSeriesMap().isEmpty()) {
            throw new IllegalArgumentException("rows must hold at least one value that is not NaN, got only NaN in " + rows);
        }
        finishCategory(chart, labels, logY, range);
        return chart;
    }

    /** One bar per key, in the map's iteration order (use a LinkedHashMap); null or NaN leaves a gap. */
    public static BufferedImage bars(String title, String yLabel, Map<String, ? extends Number> values) {
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

    /** Lines with markers, e.g. throughput against users; log axes for sweeps over decades. */
    public static BufferedImage lines(String title, String xLabel, String yLabel, boolean logX, boolean logY, Series... s) {
        return render(xyChart(title, xLabel, yLabel, logX, logY, false, s));
    }

    /** Points only, e.g. one point per request or per run. */
    public static BufferedImage scatter(String title, String xLabel, String yLabel, boolean logX, boolean logY, Series... s) {
        return render(xyChart(title, xLabel, yLabel, logX, logY, true, s));
    }

    static XYChart xyChart(String title, String xLabel, String yLabel, boolean logX, boolean logY, boolean pointsOnly, Series... s) {
        text("title", title);
        text("xLabel", xLabel);
        text("yLabel", yLabel);
        if (s == null || s.length == 0) throw new IllegalArgumentException("at least one series is required, got none");
        Set<String> names = new HashSet<>();
        for (Series one : s) {
            if (one == null) throw new IllegalArgumentException("series must not be null");
            if (!names.add(one.name())) throw new IllegalArgumentException("series names must be unique, got '" + one.name() + "' twice");
            if (logX) positiveOnLog(one.name(), "x", one.x());
            if (logY) positiveOnLog(one.name(), "y", one.y());
        }
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title).xAxisTitle(xLabel).yAxisTitle(yLabel).build();
        AxesChartStyler st = chart.getStyler();
        style(st);
        st.setXAxisLogarithmic(logX);
        st.setYAxisLogarithmic(logY);
        chart.getStyler().setDefaultSeriesRenderStyle(pointsOnly ? XYSeries.XYSeriesRenderStyle.Scatter : XYSeries.XYSeriesRenderStyle.Line);
        chart.getStyler().setLegendVisible(s.length > 1);
        st.setXAxisDecimalPattern(pattern(minAbs(Arrays.stream(s).map(Series::x).toArray(double[][]::new))));
        st.setYAxisDecimalPattern(pattern(minAbs(Arrays.stream(s).map(Series::y).toArray(double[][]::new))));
        st.setSeriesColors(PALETTE);
        for (Series one : s) {
            XYSeries added = chart.addSeries(one.name(), one.x().clone(), one.y().clone());
            if (pointsOnly) added.setMarker(SeriesMarkers.CIRCLE);
        }
        return chart;
    }

    /** Writes {@code img} as a PNG file (folders created); returns the path. */
    public static Path save(BufferedImage img, Path png) {
        if (img == null) throw new IllegalArgumentException("img must not be null");
        if (png == null || !png.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".png")) {
            throw new IllegalArgumentException("png must be a path ending in .png, got " + png);
        }
        try {
            Path parent = png.toAbsolutePath().getParent();
            if (parent != null) Files.createDirectories(parent);
            if (!ImageIO.write(img, "png", png.toFile())) throw new IllegalStateException("no PNG writer in this JDK");
            return png;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + png, e);
        }
    }

    static BufferedImage render(Chart<?, ?> chart) {
        return BitmapEncoder.getBufferedImage(chart);
    }

    private static CategoryChart categoryChart(String title, String xLabel, String yLabel) {
        CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title)
                .xAxisTitle(xLabel == null ? "" : xLabel).yAxisTitle(yLabel).build();
        style(chart.getStyler());
        chart.getStyler().setLabelsVisible(true);
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

    private static void finishCategory(CategoryChart chart, List<String> labels, boolean logY, double[] range) {
        var st = chart.getStyler();
        st.setYAxisLogarithmic(logY);
        // XChart starts log bars at 0 and then refuses them; start at the decade below the smallest value.
        // (With logY every value is > 0, so range[0] is the smallest value.)
        if (logY) st.setYAxisMin(Math.pow(10, Math.floor(Math.log10(range[0]))));
        st.setDecimalPattern(pattern(range[0]));
        int chars = labels.stream().mapToInt(String::length).sum();
        if (chars > 70) st.setXAxisLabelRotation(20);
    }

    private static void style(AxesChartStyler st) {
        st.setChartBackgroundColor(Color.WHITE);
        st.setPlotBackgroundColor(Color.WHITE);
        st.setPlotBorderVisible(false);
        st.setPlotGridLinesColor(new Color(0xe0e0e0));
        st.setChartTitleFont(new Font(Font.SANS_SERIF, Font.BOLD, 15));
        st.setAxisTitleFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        st.setAxisTickLabelsFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
        st.setLegendFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        st.setLegendPosition(Styler.LegendPosition.OutsideS);
        st.setLegendLayout(Styler.LegendLayout.Horizontal);
        st.setLegendBorderColor(Color.WHITE);
        st.setAntiAlias(true);
    }

    // Three significant digits for the smallest value, so 0.5 isn't printed as "0" next to 50,000.
    static String pattern(double minAbs) {
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
