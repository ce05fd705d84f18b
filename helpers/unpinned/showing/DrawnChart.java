//SOURCES ../core/Show.java
package unpinned.showing;

import unpinned.core.Show;

import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A chart image that remembers what was drawn on it: its title, each series it declares with the number of
 * finite points it holds, and what did not fit (a legend or label cut off by the image's edge). It is a
 * {@link BufferedImage}, so it saves and shows like one; in the notebook kernel {@link Show} renders it with that
 * record in the output's metadata, where it can be read back from the page (a chart whose series holds no point is a blank
 * chart, whatever the PNG looks like). The record also holds what legibility is judged by: each axis's
 * labelled ticks ({@link Axis}), the boxes of the texts drawn inside the plot and of the bars and lines they must
 * not cover ({@link Box}), the points of a series that a later series covers, the values of a series labelled
 * "published" that are no published figure, and the texts the chart's font cannot draw.
 */
public final class DrawnChart extends BufferedImage {
    /** The key of the record in a notebook output's metadata. */
    public static final String METADATA_KEY = "unpinned/chart";

    /** One declared series and how many finite points of it were drawn. */
    public record Drawn(String name, int points) {}

    /**
     * One axis as drawn: {@code name} x, y (or y2... for more value axes); {@code kind} "value" (numbers on a scale)
     * or "category" (one tick per category: names, or numbers that count something, such as a carrier's);
     * its labelled ticks, left to right or bottom to top, with the value each stands at (NaN for a name); and the
     * range of the data drawn against it.
     */
    public record Axis(String name, String kind, boolean log, List<String> labels, List<Double> values,
                       double dataMin, double dataMax) {}

    /**
     * A rectangle on the image, in pixels: a text drawn in the plot ({@code kind} "value label", "line label"), or
     * what a text must not cover ("bar", "line", a series' "segment"). {@code owner} names the bar a value label
     * belongs to (it may sit on its own bar), else empty.
     */
    public record Box(String kind, String text, double x, double y, double w, double h, String owner) {}

    /** What the record holds beyond the series: see {@link DrawnChart}. */
    record Legibility(List<Axis> axes, List<Box> boxes, Map<String, Integer> hidden, Map<String, List<String>> unsourced,
                      List<String> undrawable) {
        static final Legibility NONE = new Legibility(List.of(), List.of(), Map.of(), Map.of(), List.of());
    }

    private final String title;
    private final List<Drawn> series;
    private final List<String> clipped;
    private final Legibility legibility;

    DrawnChart(BufferedImage image, String title, List<Drawn> series, List<String> clipped) {
        this(image, title, series, clipped, Legibility.NONE);
    }

    DrawnChart(BufferedImage image, String title, List<Drawn> series, List<String> clipped, Legibility legibility) {
        super(image.getWidth(), image.getHeight(), BufferedImage.TYPE_INT_ARGB);
        var g = createGraphics();
        try {
            g.drawImage(image, 0, 0, null);
        } finally {
            g.dispose();
        }
        this.title = title;
        this.series = List.copyOf(series);
        this.clipped = List.copyOf(clipped);
        this.legibility = legibility;
    }

    public List<Axis> axes() {
        return legibility.axes();
    }

    public List<Box> boxes() {
        return legibility.boxes();
    }

    /** Per series, how many of its points a series drawn after it covers (only series with any). */
    public Map<String, Integer> hidden() {
        return legibility.hidden();
    }

    /** Per series labelled "published", the values on it that are no figure in data/published (only those with any). */
    public Map<String, List<String>> unsourced() {
        return legibility.unsourced();
    }

    /** Texts on the chart with a character its font has no glyph for (drawn as empty boxes). */
    public List<String> undrawable() {
        return legibility.undrawable();
    }

    /** In the notebook kernel, shows every DrawnChart as a PNG with its record in the output's metadata. */
    static void register() {
        Show.register(DrawnChart.class, "image/png", Show::png, c -> "chart: " + c.title(), METADATA_KEY,
                DrawnChart::record);
    }

    public String title() {
        return title;
    }

    public List<Drawn> series() {
        return series;
    }

    /** What was drawn past the image's edge (legend entries, axis labels); empty when everything fits. */
    public List<String> clipped() {
        return clipped;
    }

    private static double round(double v) {
        return Math.round(v * 10) / 10.0;
    }

    /** Series that declare a name but hold no finite point: drawn as nothing. */
    public List<String> emptySeries() {
        return series.stream().filter(s -> s.points() == 0).map(Drawn::name).toList();
    }

    /** The record kept in the notebook output's metadata: plain maps and lists, for JSON. */
    public Map<String, Object> record() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("title", title);
        List<Map<String, Object>> s = new ArrayList<>();
        for (Drawn d : series) {
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("name", d.name());
            one.put("points", d.points());
            if (hidden().containsKey(d.name())) one.put("hidden", hidden().get(d.name()));
            if (unsourced().containsKey(d.name())) one.put("unsourced", unsourced().get(d.name()));
            s.add(one);
        }
        m.put("series", s);
        m.put("clipped", clipped);
        List<Map<String, Object>> axes = new ArrayList<>();
        for (Axis a : axes()) {
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("name", a.name());
            one.put("kind", a.kind());
            one.put("log", a.log());
            one.put("labels", a.labels());
            one.put("values", a.values().stream().map(v -> v.isNaN() ? null : v).toList());
            one.put("dataMin", Double.isFinite(a.dataMin()) ? a.dataMin() : null);
            one.put("dataMax", Double.isFinite(a.dataMax()) ? a.dataMax() : null);
            axes.add(one);
        }
        m.put("axes", axes);
        List<Map<String, Object>> boxes = new ArrayList<>();
        for (Box b : boxes()) {
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("kind", b.kind());
            one.put("text", b.text());
            one.put("box", List.of(round(b.x()), round(b.y()), round(b.w()), round(b.h())));
            if (!b.owner().isEmpty()) one.put("owner", b.owner());
            boxes.add(one);
        }
        m.put("boxes", boxes);
        // the references drawn as lines, by label: a title's promise may be kept by one
        Map<String, Object> unsourcedLines = new LinkedHashMap<>(unsourced());
        series.forEach(d -> unsourcedLines.remove(d.name()));
        if (!unsourcedLines.isEmpty()) m.put("unsourcedLines", unsourcedLines);
        m.put("undrawable", undrawable());
        return m;
    }
}
