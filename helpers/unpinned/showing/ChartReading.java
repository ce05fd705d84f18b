//DEPS org.knowm.xchart:xchart:3.8.8
//SOURCES ../core/Course.java
//SOURCES DrawnChart.java
package unpinned.showing;

import unpinned.core.Course;

import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.geom.Rectangle2D;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategorySeries;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Annotation;
import org.knowm.xchart.internal.chartpart.Axis;
import org.knowm.xchart.internal.chartpart.AxisPair;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.AxesChartStyler;
import org.knowm.xchart.style.markers.Marker;
import org.knowm.xchart.style.markers.None;

/**
 * Reads a painted chart back the way a reader's eye would: each axis's labelled ticks (from XChart's own tick
 * calculators, as drawn), the boxes of the texts the chart's overlays placed in the plot, the markers a later
 * series covers, the values labelled "published" that no source published, and the texts no font of the chart can
 * draw. XChart 3.8.8 keeps its axes in package-private fields: they are read, never changed.
 */
final class ChartReading {
    private ChartReading() {}

    /** Something drawn on the plot that records where its texts and shapes went while it painted. */
    interface Boxed {
        List<DrawnChart.Box> boxes();
    }

    /** Values a series stands for before a chart turned them into bars (e.g. published figures before / bound). */
    record RawValues(String series, List<Double> values) {}

    static DrawnChart.Legibility read(Chart<?, ?> chart, Collection<RawValues> raw, List<String> texts) {
        List<DrawnChart.Box> boxes = new ArrayList<>();
        for (Object a : annotations(chart)) if (a instanceof Boxed b) boxes.addAll(b.boxes());
        return new DrawnChart.Legibility(axes(chart), boxes, hidden(chart), unsourced(chart, raw), undrawable(chart, texts));
    }

    // ---- axes ---------------------------------------------------------------------------------------------

    static List<DrawnChart.Axis> axes(Chart<?, ?> chart) {
        List<DrawnChart.Axis> axes = new ArrayList<>();
        if (!(chart.getStyler() instanceof AxesChartStyler st)) return axes;
        AxisPair<?, ?> pair = (AxisPair<?, ?>) field(Chart.class, chart, "axisPair");
        if (pair == null) return axes;
        Axis<?, ?> x = pair.getXAxis();
        boolean categoryX = chart instanceof CategoryChart;
        axes.add(axis("x", categoryX || isCategorical(chart, "x") ? "category" : "value", st.isXAxisLogarithmic(),
                x, true, dataRange(chart, true, 0)));
        @SuppressWarnings("unchecked")
        TreeMap<Integer, Axis<?, ?>> ys = (TreeMap<Integer, Axis<?, ?>>) field(AxisPair.class, pair, "yAxisMap");
        if (ys != null) {
            for (var e : ys.entrySet()) {
                String name = e.getKey() == 0 ? "y" : "y" + (e.getKey() + 1);
                if (!hasSeriesOn(chart, e.getKey())) continue;
                axes.add(axis(name, isCategorical(chart, name) ? "category" : "value", st.isYAxisLogarithmic(),
                        e.getValue(), false, dataRange(chart, false, e.getKey())));
            }
        }
        return axes;
    }

    private static boolean hasSeriesOn(Chart<?, ?> chart, int group) {
        return chart.getSeriesMap().values().stream().anyMatch(s ->
                s instanceof org.knowm.xchart.internal.series.AxesChartSeries a && a.getYAxisGroup() == group);
    }

    private static DrawnChart.Axis axis(String name, String kind, boolean log, Axis<?, ?> axis, boolean horizontal,
                                        double[] range) {
        List<String> labels = new ArrayList<>();
        List<Double> values = new ArrayList<>();
        var calc = axis.getAxisTickCalculator();
        if (calc != null) {
            var b = axis.getBounds();
            for (int i = 0; i < calc.getTickLabels().size(); i++) {
                String label = calc.getTickLabels().get(i);
                if (label == null || label.isBlank()) continue;
                double location = calc.getTickLocations().get(i);
                double room = horizontal ? b.getWidth() : b.getHeight();
                if (!(location > 0 && location < room)) continue; // XChart draws only the labels inside the axis
                double screen = horizontal ? b.getX() + location : b.getY() + b.getHeight() - location;
                labels.add(label.strip());
                values.add(number(label).orElseGet(() -> kind.equals("category") && horizontal ? Double.NaN
                        : axis.getChartValue(screen)));
            }
        }
        return new DrawnChart.Axis(name, kind, log, labels, values, range[0], range[1]);
    }

    /** A tick label as a number: "1,000", "0.5", "1E3"; empty for a name. */
    static Optional<Double> number(String label) {
        String t = label.strip().replace(",", "").replace("\u2212", "-");
        if (!t.matches("[+-]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?")) return Optional.empty();
        return Optional.of(Double.parseDouble(t));
    }

    private static double[] dataRange(Chart<?, ?> chart, boolean x, int group) {
        boolean logX = chart.getStyler() instanceof AxesChartStyler a && a.isXAxisLogarithmic();
        boolean logY = chart.getStyler() instanceof AxesChartStyler a && a.isYAxisLogarithmic();
        double lo = Double.POSITIVE_INFINITY;
        double hi = Double.NEGATIVE_INFINITY;
        for (var s : chart.getSeriesMap().values()) {
            if (s instanceof XYSeries xy) {
                if (xy.getName().endsWith(AXIS_ONLY)) continue; // shapes an axis, is no data
                if (!xy.isShowInLegend() && !x) continue; // nor is a series that only lays out lanes
                if (xy.getYAxisGroup() != group && !x) continue;
                double[] xs = xy.getXData();
                double[] ys = xy.getYData();
                for (int i = 0; i < ys.length; i++) {
                    double v = x ? xs[i] : ys[i];
                    if (!Double.isFinite(xs[i]) || !Double.isFinite(ys[i])) continue;
                    if ((logX && xs[i] <= 0) || (logY && ys[i] <= 0)) continue;
                    if (xy.getMarker() instanceof None && xs.length == 1) continue; // a legend-only entry
                    lo = Math.min(lo, v);
                    hi = Math.max(hi, v);
                }
            } else if (s instanceof CategorySeries c && !x) {
                for (Number n : c.getYData()) {
                    if (n == null || !Double.isFinite(n.doubleValue()) || (logY && n.doubleValue() <= 0)) continue;
                    lo = Math.min(lo, n.doubleValue());
                    hi = Math.max(hi, n.doubleValue());
                }
            }
        }
        return new double[] {lo, hi};
    }

    // ---- markers a later series covers --------------------------------------------------------------------

    /**
     * Per XY series drawn with markers, the points a later series' filled marker covers: its centre within half a
     * marker of theirs, as big or bigger. A ring ({@link SeeThrough}) covers nothing: what is under it shows through.
     */
    static Map<String, Integer> hidden(Chart<?, ?> chart) {
        Map<String, Integer> hidden = new LinkedHashMap<>();
        if (!(chart instanceof XYChart xy)) return hidden;
        AxisPair<?, ?> pair = (AxisPair<?, ?>) field(Chart.class, chart, "axisPair");
        if (pair == null) return hidden;
        @SuppressWarnings("unchecked")
        TreeMap<Integer, Axis<?, ?>> ys = (TreeMap<Integer, Axis<?, ?>>) field(AxisPair.class, pair, "yAxisMap");
        Axis<?, ?> x = pair.getXAxis();
        int size = xy.getStyler().getMarkerSize();
        List<XYSeries> series = xy.getSeriesMap().values().stream()
                .filter(s -> s.getMarker() != null && !(s.getMarker() instanceof None) && s.isEnabled()).toList();
        List<double[][]> points = new ArrayList<>();
        for (XYSeries s : series) {
            Axis<?, ?> y = ys == null ? null : ys.get(s.getYAxisGroup());
            double[] xs = s.getXData();
            double[] yv = s.getYData();
            List<double[]> p = new ArrayList<>();
            for (int i = 0; i < yv.length; i++) {
                if (!Double.isFinite(xs[i]) || !Double.isFinite(yv[i]) || y == null) continue;
                p.add(new double[] {x.getScreenValue(xs[i]), y.getScreenValue(yv[i])});
            }
            points.add(p.toArray(double[][]::new));
        }
        for (int i = 0; i < series.size(); i++) {
            double r = radius(series.get(i).getMarker(), size);
            int count = 0;
            for (double[] p : points.get(i)) {
                boolean covered = false;
                for (int j = i + 1; j < series.size() && !covered; j++) {
                    Marker later = series.get(j).getMarker();
                    if (later instanceof SeeThrough) continue;
                    double rl = radius(later, size);
                    if (rl < r) continue;
                    for (double[] q : points.get(j)) {
                        if (Math.hypot(p[0] - q[0], p[1] - q[1]) <= rl - r + r / 2) {
                            covered = true;
                            break;
                        }
                    }
                }
                if (covered) count++;
            }
            if (count > 0) hidden.put(series.get(i).getName(), count);
        }
        return hidden;
    }

    private static double radius(Marker m, int size) {
        return (m instanceof SeeThrough ring ? ring.size(size) : size) / 2.0;
    }

    // ---- "published" values that no source published -----------------------------------------------------

    /**
     * Per series or reference line whose name says "published", the values that are no figure of data/published
     * (nor one of them divided by another of the same test, a time / sleep, nor a unit's power of ten away).
     * Outside a course folder nothing can be checked, and nothing is said.
     */
    static Map<String, List<String>> unsourced(Chart<?, ?> chart, Collection<RawValues> raw) {
        Map<String, List<String>> found = new LinkedHashMap<>();
        Optional<Map<String, List<Double>>> figures = publishedFigures();
        if (figures.isEmpty()) return found;
        Map<String, List<Double>> values = new LinkedHashMap<>();
        for (var e : chart.getSeriesMap().entrySet()) {
            if (!says(e.getKey())) continue;
            List<Double> v = new ArrayList<>();
            if (e.getValue() instanceof CategorySeries c) {
                for (Number n : c.getYData()) if (n != null) v.add(n.doubleValue());
            } else if (e.getValue() instanceof XYSeries xy) {
                for (double d : xy.getYData()) v.add(d);
            }
            values.put(e.getKey(), v);
        }
        for (RawValues r : raw) if (values.containsKey(r.series())) values.put(r.series(), r.values());
        for (Object a : annotations(chart)) {
            if (a instanceof Labelled line && says(line.label())) values.put(line.label(), List.of(line.value()));
        }
        values.forEach((name, vs) -> {
            List<String> bad = vs.stream().filter(Double::isFinite).filter(v -> !published(v, figures.get()))
                    .map(ChartReading::figure).toList();
            if (!bad.isEmpty()) found.put(name, bad);
        });
        return found;
    }

    /** A value as a reader would quote it: 0.512, 50,000. */
    private static String figure(double v) {
        return new java.text.DecimalFormat("#,##0.###", java.text.DecimalFormatSymbols.getInstance(Locale.ROOT)).format(v);
    }

    private static boolean says(String name) {
        return name.toLowerCase(Locale.ROOT).contains("published");
    }

    static boolean published(double v, Map<String, List<Double>> byTest) {
        for (List<Double> figures : byTest.values()) {
            for (double f : figures) {
                for (double scale : new double[] {1, 1e3, 1e-3, 1e6, 1e-6}) if (close(v, f * scale)) return true;
                for (double g : figures) if (g != 0 && close(v, f / g)) return true;
            }
        }
        return false;
    }

    private static boolean close(double a, double b) {
        return Math.abs(a - b) <= 1e-6 * Math.max(Math.abs(a), Math.abs(b));
    }

    private static volatile Optional<Map<String, List<Double>>> figures;

    /** data/published/*.csv's values by file and test; empty outside a course folder. */
    static Optional<Map<String, List<Double>>> publishedFigures() {
        if (figures == null) {
            figures = Course.findHome().map(home -> home.resolve("data").resolve("published"))
                    .filter(Files::isDirectory).map(ChartReading::readFigures);
        }
        return figures;
    }

    private static Map<String, List<Double>> readFigures(Path folder) {
        Map<String, List<Double>> byTest = new LinkedHashMap<>();
        try (Stream<Path> files = Files.list(folder)) {
            for (Path f : files.filter(p -> p.toString().endsWith(".csv")).sorted().toList()) {
                List<String> lines = Files.readAllLines(f);
                if (lines.isEmpty()) continue;
                List<String> header = cells(lines.get(0));
                int value = header.indexOf("value");
                int test = header.indexOf("test");
                int run = header.indexOf("run");
                if (value < 0) continue;
                // a figure published as several runs also stands as their mean (a chart shows the mean of the runs)
                Map<String, List<Double>> runs = new LinkedHashMap<>();
                for (String line : lines.subList(1, lines.size())) {
                    List<String> c = cells(line);
                    if (c.size() <= value) continue;
                    String group = f.getFileName() + "/" + (test >= 0 && test < c.size() ? c.get(test) : "");
                    Optional<Double> v = number(c.get(value));
                    if (v.isEmpty()) continue;
                    byTest.computeIfAbsent(group, k -> new ArrayList<>()).add(v.get());
                    if (run >= 0 && run < c.size() && !c.get(run).isBlank()) {
                        List<String> key = new ArrayList<>(c.subList(0, Math.min(c.size(), header.size())));
                        key.set(run, "");
                        key.set(value, "");
                        runs.computeIfAbsent(group + "\0" + String.join("\0", key.subList(0, Math.min(key.size(), value))),
                                k -> new ArrayList<>()).add(v.get());
                    }
                }
                runs.forEach((key, vs) -> {
                    if (vs.size() > 1) byTest.get(key.substring(0, key.indexOf('\0')))
                            .add(vs.stream().mapToDouble(Double::doubleValue).average().orElseThrow());
                });
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the published figures in " + folder, e);
        }
        return byTest;
    }

    /** One CSV line's cells (quoted cells may hold commas and doubled quotes). */
    static List<String> cells(String line) {
        List<String> cells = new ArrayList<>();
        StringBuilder cell = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < line.length(); i++) {
            char ch = line.charAt(i);
            if (quoted) {
                if (ch == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
                    cell.append('"');
                    i++;
                } else if (ch == '"') {
                    quoted = false;
                } else {
                    cell.append(ch);
                }
            } else if (ch == '"') {
                quoted = true;
            } else if (ch == ',') {
                cells.add(cell.toString());
                cell.setLength(0);
            } else {
                cell.append(ch);
            }
        }
        cells.add(cell.toString());
        return cells;
    }

    // ---- glyphs -------------------------------------------------------------------------------------------

    /** The texts of {@code texts} that the chart's fonts can't draw whole (their characters become empty boxes). */
    static List<String> undrawable(Chart<?, ?> chart, List<String> texts) {
        Font font = chart.getStyler().getLegendFont();
        return texts.stream().filter(t -> t != null && font.canDisplayUpTo(t) != -1).distinct().toList();
    }

    // ---- XChart's fields ----------------------------------------------------------------------------------

    /** The end of the name of a series that only shapes an axis: drawn as nothing, not in the legend or the record. */
    static final String AXIS_ONLY = " (axis only)";

    /** A marker that covers nothing: what is under it shows through (a ring, {@code size} across). */
    interface SeeThrough {
        int size(int markerSize);
    }

    /** An annotation that stands for a value with a label (a reference line). */
    interface Labelled {
        String label();

        double value();
    }

    static boolean isCategorical(Chart<?, ?> chart, String axis) {
        return annotations(chart).stream().anyMatch(a -> a instanceof Categorical c && c.axis.equals(axis));
    }

    /** Paints nothing: says which axis counts categories. */
    static final class Categorical extends Annotation {
        final String axis;

        Categorical(String axis) {
            super(true);
            this.axis = axis;
            bounds = new Rectangle2D.Double();
        }

        @Override
        public void paint(Graphics2D g) {}
    }

    static List<?> annotations(Chart<?, ?> chart) {
        return field(Chart.class, chart, "annotations") instanceof List<?> l ? l : List.of();
    }

    static Object field(Class<?> owner, Object target, String name) {
        try {
            var f = owner.getDeclaredField(name);
            f.setAccessible(true);
            return f.get(target);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }
}
