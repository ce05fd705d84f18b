package unpinned.showing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.geom.Rectangle2D;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What a chart's record says was drawn, and the helpers' fixes that the page test's chart check holds them to. */
public class ChartReadingTest {

    private static DrawnChart.Axis axis(DrawnChart chart, String name) {
        return chart.axes().stream().filter(a -> a.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void aLogAxisRunsFromDecadeToDecadeSoBothEndsAreLabelled() {
        // one decade of data (700-7,000) had a single labelled tick
        DrawnChart chart = Charts.lines("Bytes per chunk", "depth", "bytes", true, true,
                new Charts.Series("a", new double[] {1, 16, 64, 256}, new double[] {700, 1500, 2800, 7000}));
        DrawnChart.Axis y = axis(chart, "y");
        assertTrue(y.log());
        assertTrue(y.labels().size() >= 3, y.labels().toString());
        assertTrue(y.values().get(0) <= 700 && y.values().get(y.values().size() - 1) >= 7000, y.values().toString());
        DrawnChart bars = Charts.compare("Orders/s", "orders/s", List.of(new Comparison("a", 40, 50, Double.NaN),
                new Comparison("b", 800, 900, Double.NaN)), true);
        DrawnChart.Axis barsY = axis(bars, "y");
        assertTrue(barsY.values().get(barsY.values().size() - 1) >= 900, barsY.labels().toString());
    }

    @Test
    void lanesTickEveryWholeNumberAndNothingBetween() {
        DrawnChart chart = Charts.lanes("Which carrier", "block", "carrier",
                new Charts.Series("vt 0", new double[] {0, 1, 2, 3}, new double[] {3, 4, 4, 3}),
                new Charts.Series("vt 1", new double[] {0, 1, 2, 3}, new double[] {3, 3, 4, 4}));
        DrawnChart.Axis y = axis(chart, "y");
        assertEquals("category", y.kind());
        assertEquals(List.of("3", "4"), y.labels());
        assertTrue(chart.hidden().isEmpty(), chart.hidden().toString());
    }

    @Test
    void aLaterFilledSeriesHidesPointsAndARingDoesNot() {
        double[] x = {1, 2, 3, 4, 5};
        double[] y = {1, 1, 1, 1, 1};
        var filled = Charts.xyChart("Two series on each other", "x", "y", false, false, true, new Charts.Series("under", x, y),
                new Charts.Series("over", x, y.clone()));
        filled.getSeriesMap().get("over").setMarker(org.knowm.xchart.style.markers.SeriesMarkers.CIRCLE);
        assertEquals(Map.of("under", 5), Charts.render(filled).hidden());
        var lines = Charts.lines("Two lines on each other", "x", "y", false, false, new Charts.Series("under", x, y),
                new Charts.Series("over", x, y.clone()));
        assertTrue(lines.hidden().isEmpty(), "a later line's points are rings: " + lines.hidden());
        var points = Charts.scatter("Two series on each other", "x", "y", false, false,
                new Charts.Series("under", x, y), new Charts.Series("over", x, y.clone()));
        assertTrue(points.hidden().isEmpty(), "the later series is drawn as rings: " + points.hidden());
    }

    @Test
    void dataOnTwoValuesStillGetsThreeTicks() {
        DrawnChart chart = Charts.plot("Wall time against the carriers", "carriers", "ms", false, false,
                List.of(new Charts.Series("bound", new double[] {1, 2}, new double[] {200, 100})),
                List.of(new Charts.Series("measured", new double[] {1, 2}, new double[] {190, 110})));
        assertTrue(axis(chart, "x").labels().size() >= 3, axis(chart, "x").labels().toString());
        assertEquals(List.of("bound", "measured"), chart.series().stream().map(DrawnChart.Drawn::name).toList());
    }

    @Test
    void valueLabelsKeepOffTheReferenceLinesAndEachOther() {
        Map<String, double[]> series = new LinkedHashMap<>();
        series.put("JDK 21", new double[] {1.01, 2.01, 2.02, 2.03, 2.04});
        series.put("JDK 25", new double[] {1.0, 1.02, 1.01, 2.02, 2.04});
        Map<String, Double> refs = new LinkedHashMap<>();
        refs.put("unmounts: 1 x", 1.0);
        refs.put("pins: 2 x", 2.0);
        DrawnChart chart = Charts.groupedBars("Time / sleep per case and JDK", "elapsed / sleep",
                List.of("none", "synchronized-sleep", "wait", "class-init", "contended-monitor"), series, refs);
        List<DrawnChart.Box> texts = chart.boxes().stream().filter(b -> b.kind().endsWith("label")).toList();
        List<DrawnChart.Box> shapes = chart.boxes().stream().filter(b -> b.kind().equals("line") || b.kind().equals("bar")).toList();
        assertEquals(12, texts.size(), "10 values and 2 line labels: " + texts);
        for (DrawnChart.Box t : texts) {
            Rectangle2D r = new Rectangle2D.Double(t.x(), t.y(), t.w(), t.h());
            for (DrawnChart.Box o : texts) { // and a gap between them: "2.01" "2.04" touching read "2.012.04"
                if (o != t) assertFalse(r.intersects(o.x() - 2, o.y(), o.w() + 4, o.h()), t + " next to " + o);
            }
            for (DrawnChart.Box s : shapes) {
                if (s.owner().equals(t.owner()) || s.h() <= 0) continue;
                assertFalse(r.intersects(s.x(), s.y(), s.w(), s.h()), t + " over " + s);
            }
        }
    }

    @Test
    void aValueLabelledPublishedMustBeAPublishedFigure() {
        // the 1 MB a platform thread reserves is no figure of data/published
        DrawnChart wrong = Charts.compare("RSS and the 1 MB", "bytes", List.of(new Comparison("a", 60_000, Double.NaN, 1 << 20)), true);
        assertEquals(List.of("1,048,576"), wrong.unsourced().get("published"));
        DrawnChart line = Charts.compare("RSS and the 1 MB", "bytes", List.of(new Comparison("a", 60_000, Double.NaN, Double.NaN)),
                true, Map.of("1 MB stack reserved (-Xss)", (double) (1 << 20)));
        assertTrue(line.unsourced().isEmpty(), line.unsourced().toString());
        assertTrue(ChartReading.published(4.0 / 2.0, Map.of("seminar/pinning", List.of(2.0, 4.0))), "a time / its sleep");
        assertFalse(ChartReading.published(1 << 20, Map.of("seminar/pinning", List.of(2.0, 4.0))));
        // chapter 06: the mean of the write-up's three runs, virtual over platform, as data/published has them
        var figures = ChartReading.publishedFigures().orElseThrow();
        assertTrue(ChartReading.published(((911 + 881 + 839) / 3.0) / ((189 + 188 + 189) / 3.0), figures));
        assertFalse(ChartReading.published(4.6, figures));
    }

    @Test
    void aTextNoFontCanDrawIsNamed() {
        List<String> none = ChartReading.undrawable(Charts.compareChart("t", "u", List.of(new Comparison("a", 1, 2, 3)), false),
                List.of("plain", "\uE000 private use"));
        assertEquals(List.of("\uE000 private use"), none);
    }
}
