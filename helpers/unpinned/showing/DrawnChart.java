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
 * record in the output's metadata, where the page test reads it (a chart whose series holds no point is a blank
 * chart, whatever the PNG looks like).
 */
public final class DrawnChart extends BufferedImage {
    /** The key of the record in a notebook output's metadata. */
    public static final String METADATA_KEY = "unpinned/chart";

    /** One declared series and how many finite points of it were drawn. */
    public record Drawn(String name, int points) {}

    private final String title;
    private final List<Drawn> series;
    private final List<String> clipped;

    DrawnChart(BufferedImage image, String title, List<Drawn> series, List<String> clipped) {
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
            s.add(one);
        }
        m.put("series", s);
        m.put("clipped", clipped);
        return m;
    }
}
