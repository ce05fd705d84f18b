package unpinned.showing;

import unpinned.core.Machine;

import unpinned.core.BoundsTest;
import unpinned.core.Measurement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

public class ChartsTest {
    private static final int BLUE = 0x1f77b4; // the measured bars
    private static final int ORANGE = 0xff7f0e; // the published bars

    @TempDir
    Path tmp;

    private static final List<Comparison> ROWS = List.of(
            new Comparison("platform pool", 1_900, 2_000, 1_950),
            new Comparison("virtual", 9_500, 10_000, 9_800),
            new Comparison("virtual + synchronized", 1_800, 2_000, Double.NaN));

    @Test
    void compareDrawsThreeSeriesAtTheDefaultSize() {
        assertEquals(List.of("measured", "bound", "published"),
                List.copyOf(Charts.compareChart("Sleep server", "requests/s", ROWS, false).getSeriesMap().keySet()));
        BufferedImage img = Charts.compare("Sleep server", "requests/s", ROWS);
        assertDrawn(img);
        assertTrue(countColor(img, BLUE) > 500, "measured bars visible");
        assertTrue(countColor(img, ORANGE) > 500, "published bars visible");
    }

    @Test
    void compareLeavesOutSeriesThatAreAllNaN() {
        List<Comparison> rows = List.of(new Comparison("a", 10, 12, Double.NaN), new Comparison("b", 20, Double.NaN, Double.NaN));
        assertEquals(List.of("measured", "bound"),
                List.copyOf(Charts.compareChart("t", "ms", rows, false).getSeriesMap().keySet()));
        BufferedImage img = Charts.compare("t", "ms", rows);
        assertDrawn(img);
        assertEquals(0, countColor(img, ORANGE), "no published bars");
    }

    @Test
    void compareOnLogAxisHandlesDecadesAndGaps() {
        List<Comparison> rows = List.of(new Comparison("tiny", 0.5, 1, Double.NaN), new Comparison("huge", 50_000, 100_000, 80_000));
        BufferedImage img = Charts.compare("t", "ops/s", rows, true);
        assertDrawn(img);
        assertTrue(countColor(img, BLUE) > 200, "measured bars visible on log axis");
        BoundsTest.assertMessage("with logY every value must be > 0",
                () -> Charts.compare("t", "ops/s", List.of(new Comparison("zero", 0, 1, 1)), true));
    }

    @Test
    void compareRefusesNothingToDraw() {
        BoundsTest.assertMessage("rows must be a non-empty list",() -> Charts.compare("t", "u", List.of()));
        BoundsTest.assertMessage("rows must hold at least one value that is not NaN",
                () -> Charts.compare("t", "u", List.of(new Comparison("a", Double.NaN, Double.NaN, Double.NaN))));
        BoundsTest.assertMessage("row labels must be unique",
                () -> Charts.compare("t", "u", List.of(new Comparison("a", 1, 1, 1), new Comparison("a", 2, 2, 2))));
        BoundsTest.assertMessage("unit must be a non-blank string", () -> Charts.compare("t", "", ROWS));
    }

    @Test
    void barsOnePerKeyInOrder() {
        Map<String, Number> values = new LinkedHashMap<>();
        values.put("pool 200", 1_900);
        values.put("virtual", 9_500.5);
        values.put("missing", null);
        assertEquals(List.of("pool 200", "virtual", "missing"),
                Charts.barsChart("Throughput", "requests/s", values).getSeriesMap().get("requests/s").getXData());
        BufferedImage img = Charts.bars("Throughput", "requests/s", values);
        assertDrawn(img);
        assertTrue(countColor(img, BLUE) > 500);
        BoundsTest.assertMessage("values must be a non-empty map", () -> Charts.bars("t", "y", Map.of()));
    }

    @Test
    void linesAndScatterOnLogAxes() {
        double[] users = {1, 10, 100, 1_000, 10_000};
        Charts.Series pool = new Charts.Series("pool", users, new double[] {10, 100, 1_000, 2_000, 2_000});
        Charts.Series virt = new Charts.Series("virtual", users, new double[] {10, 100, 1_000, 10_000, Double.NaN});
        assertEquals(2, Charts.xyChart("t", "users", "rps", true, true, false, pool, virt).getSeriesMap().size());
        assertDrawn(Charts.lines("Throughput vs users", "users", "requests/s", true, true, pool, virt));
        assertDrawn(Charts.scatter("Latency", "users", "ms", false, false, pool));
        BoundsTest.assertMessage("series 'zero' has 0.0", () -> Charts.lines("t", "x", "y", false, true,
                new Charts.Series("zero", new double[] {1, 2}, new double[] {0, 1})));
        BoundsTest.assertMessage("same non-zero length", () -> new Charts.Series("s", new double[] {1, 2}, new double[] {1}));
        BoundsTest.assertMessage("at least one series", () -> Charts.lines("t", "x", "y", false, false));
        BoundsTest.assertMessage("series names must be unique", () -> Charts.scatter("t", "x", "y", false, false, pool, pool));
    }

    @Test
    void savesAPngAndStaysHeadless() throws Exception {
        BufferedImage img = Charts.compare("t", "u", ROWS);
        Path png = Charts.save(img, tmp.resolve("sub/chart.png"));
        assertTrue(Files.size(png) > 1_000);
        BufferedImage back = ImageIO.read(png.toFile());
        assertEquals(Charts.WIDTH, back.getWidth());
        assertEquals(Charts.HEIGHT, back.getHeight());
        assertEquals("true", System.getProperty("java.awt.headless"));
        assertTrue(java.awt.GraphicsEnvironment.isHeadless());
        BoundsTest.assertMessage("png must be a path ending in .png", () -> Charts.save(img, tmp.resolve("chart.jpg")));
    }

    @Test
    void labelPatternKeepsTheSmallestValueReadable() {
        assertEquals("#,##0", Charts.pattern(1_900));
        assertEquals("#,##0.#", Charts.pattern(12.3));
        assertEquals("#,##0.###", Charts.pattern(0.5));
        assertEquals("#,##0.####", Charts.pattern(0.0123));
        assertEquals("0.##E0", Charts.pattern(0.00001));
        assertEquals("#,##0.###", Charts.pattern(Double.POSITIVE_INFINITY)); // nothing non-zero to go by
    }

    @Test
    void compareDrawsErrorBarsOnTheMeasuredBars() {
        List<Comparison> rows = List.of(
                new Comparison("platform pool", 1_900, 150, 2_000, 1_950),
                new Comparison("no estimate", 1_700, Double.NaN, 2_000, Double.NaN),
                new Comparison("bound only", Double.NaN, 2_100, Double.NaN),
                new Comparison("virtual", 9_500, 400, 10_000, 9_800));
        var chart = Charts.compareChart("t", "req/s", rows, false);
        assertEquals(List.of("measured", "bound", "published"), List.copyOf(chart.getSeriesMap().keySet()), "series keys stay");
        assertEquals("measured (error bars: 99.9 % CI (JMH))", chart.getSeriesMap().get("measured").getLabel());
        assertEquals("bound", chart.getSeriesMap().get("bound").getLabel());
        BufferedImage img = Charts.render(chart);
        assertDrawn(img);
        List<Integer> whiskers = whiskerColumns(img);
        // Two rows have an error; a 2 px wide whisker is one or two adjacent columns each.
        assertEquals(2, clusters(whiskers).size(), "whisker columns " + whiskers);
        for (int x : clusters(whiskers)) {
            // Centred on a measured bar: blue on both sides of it, a little way below the whisker's top.
            int top = firstRow(img, x, Charts.ERROR_BAR.getRGB() & 0xffffff);
            boolean onBar = false;
            for (int y = top; y < img.getHeight() && !onBar; y++) {
                onBar = (img.getRGB(x - 10, y) & 0xffffff) == BLUE && (img.getRGB(x + 10, y) & 0xffffff) == BLUE;
            }
            assertTrue(onBar, "the whisker at x=" + x + " is over a measured bar");
        }
    }

    @Test
    void withoutErrorsThereAreNoErrorBarsAndNoNote() {
        var chart = Charts.compareChart("t", "req/s", ROWS, false);
        assertEquals("measured", chart.getSeriesMap().get("measured").getLabel());
        assertEquals(List.of(), whiskerColumns(Charts.render(chart)));
    }

    @Test
    void errorBarsOnALogAxisSpanMeasuredPlusMinusError() {
        // 0.5 ± 0.4 reaches down to 0.1, 50,000 ± 60,000 below any log axis: that whisker runs to the bottom.
        List<Comparison> rows = List.of(new Comparison("tiny", 0.5, 0.4, 1, Double.NaN),
                new Comparison("gap", Double.NaN, 100, 200),
                new Comparison("huge", 50_000, 60_000, 100_000, 80_000));
        BufferedImage img = Charts.compare("t", "ops/s", rows, true);
        assertDrawn(img);
        assertEquals(2, clusters(whiskerColumns(img)).size());
    }

    @Test
    void logAxesSaySoInTheirTitles() {
        List<Comparison> rows = List.of(new Comparison("a", 0.5, 1, 2), new Comparison("b", 500, 1_000, Double.NaN));
        assertEquals("ms (log scale)", Charts.compareChart("t", "ms", rows, true).getYAxisTitle());
        assertEquals("ms", Charts.compareChart("t", "ms", List.of(new Comparison("a", 5, 6, 7)), false).getYAxisTitle());
        Charts.Series s = new Charts.Series("s", new double[] {1, 10}, new double[] {1, 100});
        var both = Charts.xyChart("t", "users", "req/s", true, true, false, s);
        assertEquals("users (log scale)", both.getXAxisTitle());
        assertEquals("req/s (log scale)", both.getYAxisTitle());
        var onlyX = Charts.xyChart("t", "users", "req/s", true, false, true, s);
        assertEquals("users (log scale)", onlyX.getXAxisTitle());
        assertEquals("req/s", onlyX.getYAxisTitle());
        assertEquals("log10 ms", Charts.axisTitle("log10 ms", true), "no second 'log'");
    }

    @Test
    void shortTitlesStayOnOneLineAtFullSize() {
        Charts.TitleLayout t = Charts.titleLayout("  Sleep   server ", Charts.WIDTH);
        assertEquals(List.of("Sleep server"), t.lines());
        assertEquals(Charts.TITLE_POINTS, t.font().getSize());
    }

    @Test
    void longTitlesWrapOntoTwoLinesThatFit() {
        String title = "500 SHA-256 tasks: wall time per batch vs the CPU bound (CPU time / cores), pool and virtual threads";
        assertTrue(title.length() >= 90);
        assertTrue(Charts.textWidth(title, Charts.titleFont(Charts.TITLE_POINTS)) > Charts.titleWidth(Charts.WIDTH),
                "on one line it would be clipped");
        Charts.TitleLayout t = Charts.titleLayout(title, Charts.WIDTH);
        assertEquals(2, t.lines().size());
        assertEquals(title, String.join(" ", t.lines()), "every word, in order");
        for (String line : t.lines()) {
            assertTrue(Charts.textWidth(line, t.font()) <= Charts.titleWidth(Charts.WIDTH), line);
        }
        // The chart draws both lines inside the image: ink in two bands at the top, none at the edges.
        var chart = Charts.compareChart(title, "ms", List.of(new Comparison("a", 5, 6, 7)), false);
        assertEquals(Charts.TITLE_PLACEHOLDER, chart.getTitle(), "XChart's own one-line title is blank; the lines are drawn by Charts");
        BufferedImage img = Charts.render(chart);
        int band = chart.getStyler().getChartPadding() + 2 * chart.getStyler().getChartTitlePadding(); // what XChart leaves for the title
        List<Integer> inkedRows = new java.util.ArrayList<>();
        for (int y = 0; y < band; y++) {
            for (int x = 0; x < img.getWidth(); x++) {
                if ((img.getRGB(x, y) & 0xffffff) != 0xffffff) {
                    assertTrue(x >= 5 && x < img.getWidth() - 5, "title ink at the edge, x=" + x + " y=" + y);
                    if (!inkedRows.contains(y)) inkedRows.add(y);
                }
            }
        }
        assertEquals(2, clusters(inkedRows).size(), "two lines of text in the title band, rows " + inkedRows);
    }

    @Test
    void titlesShrinkBeforeTheyAreRefused() {
        StringBuilder title = new StringBuilder("Throughput");
        Charts.TitleLayout last = Charts.titleLayout(title.toString(), Charts.WIDTH);
        boolean shrank = false;
        while (true) {
            String longer = title + " word";
            try {
                last = Charts.titleLayout(longer, Charts.WIDTH);
            } catch (IllegalArgumentException e) {
                assertTrue(e.getMessage().contains("title must fit in 2 lines of " + Charts.titleWidth(Charts.WIDTH) + " px"), e.getMessage());
                break;
            }
            title.append(" word");
            for (String line : last.lines()) assertTrue(Charts.textWidth(line, last.font()) <= Charts.titleWidth(Charts.WIDTH));
            assertTrue(last.lines().size() <= 2);
            if (last.font().getSize() < Charts.TITLE_POINTS) shrank = true;
            assertTrue(title.length() < 1_000, "a title this long must be refused");
        }
        assertTrue(shrank, "two lines at full size were not enough, so the font shrank");
        assertTrue(last.font().getSize() >= Charts.MIN_TITLE_POINTS);
        assertEquals(2, last.lines().size());
        String tooLong = title + " word";
        BoundsTest.assertMessage("title must fit in 2 lines", () -> Charts.compare(tooLong, "ms", ROWS));
        BoundsTest.assertMessage("title must fit in 2 lines", () -> Charts.bars(tooLong, "ms", Map.of("a", 1)));
        BoundsTest.assertMessage("title must fit in 2 lines", () -> Charts.lines(tooLong, "x", "y", false, false,
                new Charts.Series("s", new double[] {1}, new double[] {1})));
    }

    @Test
    void compareOnALinearAxisRefusesSlivers() {
        List<Comparison> rows = List.of(new Comparison("pool", 50, 60, Double.NaN), new Comparison("virtual", 2_000, 2_500, Double.NaN));
        BoundsTest.assertMessage("use Charts.compare(title, unit, rows, logY=true) for a log axis, or Charts.ratios(title, rows)",
                () -> Charts.compare("t", "req/s", rows));
        BoundsTest.assertMessage("measured of 'pool' is 50 req/s but bound of 'virtual' is 2,500 req/s (50x)",
                () -> Charts.compare("t", "req/s", rows, false));
        assertDrawn(Charts.compare("t", "req/s", rows, true));
        // Exactly 20x is still fine, and zeros don't count as "smallest".
        assertDrawn(Charts.compare("t", "ms", List.of(new Comparison("a", 0, 5, Double.NaN), new Comparison("b", 100, 90, 80))));
    }

    @Test
    void ratiosShowEachValueRelativeToItsBound() {
        List<Comparison> rows = List.of(
                new Comparison("pool", 450, 10, 500, 480),
                new Comparison("no bound", 3, Double.NaN, 4),
                new Comparison("virtual", 4_600, 200, 5_000, Double.NaN),
                new Comparison("bound only", Double.NaN, 10, Double.NaN));
        var chart = Charts.ratiosChart("Ratios", rows);
        assertEquals(List.of("measured / bound", "published / bound"), List.copyOf(chart.getSeriesMap().keySet()));
        assertEquals(List.of("pool", "virtual"), List.copyOf(chart.getSeriesMap().get("measured / bound").getXData()));
        assertEquals(List.of(0.9, 0.92), List.copyOf(chart.getSeriesMap().get("measured / bound").getYData()));
        assertEquals(Arrays.asList(0.96, null), new java.util.ArrayList<>(chart.getSeriesMap().get("published / bound").getYData()));
        assertEquals("ratio to bound", chart.getYAxisTitle());
        assertEquals("measured / bound (error bars: 99.9 % CI (JMH))", chart.getSeriesMap().get("measured / bound").getLabel());
        BufferedImage img = Charts.render(chart);
        assertDrawn(img);
        assertEquals(2, clusters(whiskerColumns(img)).size());
        // The dashed reference line at 1.0: one row with a long run of its colour.
        int reference = Charts.REFERENCE.getRGB() & 0xffffff;
        int best = 0;
        for (int y = 0; y < img.getHeight(); y++) {
            int n = 0;
            for (int x = 0; x < img.getWidth(); x++) if ((img.getRGB(x, y) & 0xffffff) == reference) n++;
            best = Math.max(best, n);
        }
        assertTrue(best > 300, "reference line drawn across the plot, longest row has " + best + " pixels");
        assertDrawn(Charts.ratios("Ratios", List.of(new Comparison("only published", Double.NaN, 10, 40))));
    }

    @Test
    void groupedBarsDrawOneBarPerSeriesAndTheReferenceLines() {
        List<String> cases = List.of("none", "synchronized", "native frame");
        Map<String, double[]> jdks = new LinkedHashMap<>();
        jdks.put("JDK 21", new double[] {1.0, 2.0, Double.NaN});
        jdks.put("JDK 25", new double[] {1.0, 1.0, 2.0});
        Map<String, Double> refs = new LinkedHashMap<>();
        refs.put("unmounts: 1 x", 1.0);
        refs.put("pins: 2 x", 2.0);
        var chart = Charts.groupedBarsChart("Time / sleep", "time / sleep", cases, jdks, refs);
        assertEquals(List.of("JDK 21", "JDK 25"), List.copyOf(chart.getSeriesMap().keySet()));
        assertEquals(Arrays.asList(1.0, 2.0, null), new java.util.ArrayList<>(chart.getSeriesMap().get("JDK 21").getYData()));
        assertTrue(chart.getStyler().getYAxisMax() >= 2.0, "the highest reference line is on the axis");
        BufferedImage img = Charts.render(chart);
        assertDrawn(img);
        assertTrue(countColor(img, BLUE) > 300 && countColor(img, ORANGE) > 300, "both series drawn");
        BoundsTest.assertMessage("series 'JDK 25' must have one value per label (3), got 2", () -> Charts.groupedBarsChart("t", "y",
                cases, Map.of("JDK 25", new double[] {1, 2}), Map.of()));
        BoundsTest.assertMessage("labels must be unique", () -> Charts.groupedBarsChart("t", "y", List.of("a", "a"),
                Map.of("s", new double[] {1, 2}), Map.of()));
        BoundsTest.assertMessage("reference 'r' must be a finite number", () -> Charts.groupedBarsChart("t", "y", List.of("a"),
                Map.of("s", new double[] {1}), Map.of("r", Double.NaN)));
    }

    @Test
    void aChartOfAnotherMachinesRunNamesThatMachineAndALiveChartThisOne() {
        Map<String, String> saved = new LinkedHashMap<>(unpinned.core.Machine.describe());
        saved.put("jdk", "21.0.9+10-LTS");
        saved.put("cores", "64");
        saved.put("cpu_model", "Ampere Altra");
        saved.put("profile", "full");
        String elsewhere = unpinned.core.Machine.summary(saved);
        assertEquals("JDK 21.0.9+10-LTS, 64 cores (Ampere Altra), " + saved.get("os") + " " + saved.get("arch")
                + ", profile full", elsewhere);
        List<String> labels = List.of("mean", "p99");
        Map<String, double[]> series = Map.of("virtual threads", new double[] {236, 1443});
        var reference = Charts.groupedBarsChart("Latency", "ms", labels, series, Map.of(), elsewhere);
        assertEquals(elsewhere, reference.getXAxisTitle());
        assertTrue(Charts.texts(reference).contains(elsewhere), "the line is drawn: " + Charts.texts(reference));
        var live = Charts.groupedBarsChart("Latency", "ms", labels, series, Map.of());
        assertEquals(unpinned.core.Machine.summary(), live.getXAxisTitle());
        BoundsTest.assertMessage("machine must be a non-blank string", () -> Charts.groupedBarsChart("Latency", "ms",
                labels, series, Map.of(), " "));
    }

    @Test
    void barsAllNearTheirLineAreDrawnFromZero() {
        DrawnChart chart = Charts.groupedBars("Shares", "share of the bound", List.of("Tomcat 200 · 20 users · CPU busy",
                        "Tomcat 200 · 200 users · CPU busy", "virtual threads · 20 users · CPU busy", "virtual threads · 200 users · CPU busy"),
                Map.of("this run", new double[] {0.985, 1.001, 0.991, 0.997}), Map.of("the bound", 1.0));
        // Upright category labels once put every bar, and the line, at the top of the plot with no height.
        DrawnChart.Box line = chart.boxes().stream().filter(b -> b.kind().equals("line")).findFirst().orElseThrow();
        for (DrawnChart.Box bar : chart.boxes().stream().filter(b -> b.kind().equals("bar")).toList()) {
            assertTrue(bar.h() > 40 && Math.abs(bar.y() - (line.y() + 1)) < 0.03 * bar.h() + 2,
                    "bar " + bar + " drawn from 0 up to about its line " + line);
        }
    }

    @Test
    void oneBarStillGetsAnAxisToReadItBy() {
        for (double v : new double[] {961, 0.42, 3, 1_234_567}) {
            DrawnChart chart = Charts.bars("One bar", "req/s", Map.of("virtual", v));
            for (DrawnChart.Axis axis : chart.axes()) {
                if (axis.kind().equals("value")) assertTrue(axis.labels().size() >= 3, v + ": ticks " + axis.labels());
            }
        }
    }

    @Test
    void aLineCrossedByBarsInEveryGroupLabelsWhereNothingIsDrawn() {
        List<String> views = List.of("async cpu", "async wall", "JFR execution", "JFR CPU-time");
        Map<String, double[]> depths = new LinkedHashMap<>();
        depths.put("4 frames deep", new double[] {0.55, 0.6, 0.98, 0.97});
        depths.put("40 frames deep", new double[] {0.52, 0.58, 0.99, 0.95});
        DrawnChart chart = Charts.groupedBars("Shares", "share of samples", views, depths,
                Map.of("every sample", 1.0, "the work before the block", 0.5));
        List<DrawnChart.Box> shapes = chart.boxes().stream().filter(b -> b.kind().equals("bar") || b.kind().equals("line")).toList();
        for (DrawnChart.Box label : chart.boxes().stream().filter(b -> b.kind().equals("line label")).toList()) {
            for (DrawnChart.Box shape : shapes) {
                boolean meets = label.x() < shape.x() + shape.w() && shape.x() < label.x() + label.w()
                        && label.y() < shape.y() + shape.h() && shape.y() < label.y() + label.h();
                assertTrue(!meets || shape.h() <= 0, "'" + label.text() + "' drawn over " + shape.kind() + " '" + shape.text() + "'");
            }
        }
    }

    @Test
    void ratiosRefuseNothingToDivide() {
        BoundsTest.assertMessage("rows must have at least one row with a bound and a measured or published value",
                () -> Charts.ratios("t", List.of(new Comparison("a", 1, Double.NaN, 2))));
        BoundsTest.assertMessage("bound must be a finite non-zero number", () -> Charts.ratios("t", List.of(new Comparison("a", 1, 0, 2))));
        BoundsTest.assertMessage("rows must be a non-empty list", () -> Charts.ratios("t", List.of()));
        BoundsTest.assertMessage("row labels must be unique",
                () -> Charts.ratios("t", List.of(new Comparison("a", 1, 1, 1), new Comparison("a", 2, 2, 2))));
    }

    // Columns with a vertical run of at least 8 pixels of exactly the error-bar colour.
    private static List<Integer> whiskerColumns(BufferedImage img) {
        int rgb = Charts.ERROR_BAR.getRGB() & 0xffffff;
        List<Integer> columns = new java.util.ArrayList<>();
        for (int x = 0; x < img.getWidth(); x++) {
            int run = 0;
            int longest = 0;
            for (int y = 0; y < img.getHeight(); y++) {
                run = (img.getRGB(x, y) & 0xffffff) == rgb ? run + 1 : 0;
                longest = Math.max(longest, run);
            }
            if (longest >= 8) columns.add(x);
        }
        return columns;
    }

    // Sorted numbers grouped into runs of neighbours (gap <= 2); the first of each run.
    private static List<Integer> clusters(List<Integer> sorted) {
        List<Integer> firsts = new java.util.ArrayList<>();
        for (int i = 0; i < sorted.size(); i++) {
            if (i == 0 || sorted.get(i) - sorted.get(i - 1) > 2) firsts.add(sorted.get(i));
        }
        return firsts;
    }

    private static int firstRow(BufferedImage img, int x, int rgb) {
        for (int y = 0; y < img.getHeight(); y++) if ((img.getRGB(x, y) & 0xffffff) == rgb) return y;
        throw new AssertionError("no pixel of " + Integer.toHexString(rgb) + " in column " + x);
    }

    /** The default size, and more than a blank canvas: a fair share of non-white pixels in several colours. */
    private static void assertDrawn(BufferedImage img) {
        assertEquals(Charts.WIDTH, img.getWidth());
        assertEquals(Charts.HEIGHT, img.getHeight());
        int inked = 0;
        java.util.Set<Integer> colors = new java.util.HashSet<>();
        for (int y = 0; y < img.getHeight(); y++) {
            for (int x = 0; x < img.getWidth(); x++) {
                int rgb = img.getRGB(x, y) & 0xffffff;
                if (rgb != 0xffffff) inked++;
                colors.add(rgb);
            }
        }
        int total = img.getWidth() * img.getHeight();
        assertTrue(inked > total / 100, "only " + inked + " non-white pixels");
        assertTrue(colors.size() > 10, "only " + colors.size() + " colours: " + Arrays.toString(colors.toArray()));
    }

    private static int countColor(BufferedImage img, int rgb) {
        int n = 0;
        for (int y = 0; y < img.getHeight(); y++) {
            for (int x = 0; x < img.getWidth(); x++) {
                if ((img.getRGB(x, y) & 0xffffff) == rgb) n++;
            }
        }
        return n;
    }

    @Test
    void plotDrawsBoundsAsLinesAndMeasurementsAsPoints() {
        var bound = new Charts.Series("bound", new double[] {100, 1_000}, new double[] {909, 9_091});
        var measured = new Charts.Series("measured", new double[] {100, 1_000}, new double[] {900, Double.NaN});
        var chart = Charts.plotChart("t", "users", "orders/s", true, true, List.of(bound), List.of(measured));
        assertEquals(org.knowm.xchart.XYSeries.XYSeriesRenderStyle.Scatter,
                chart.getSeriesMap().get("measured").getXYSeriesRenderStyle());
        assertEquals(org.knowm.xchart.style.markers.SeriesMarkers.NONE, chart.getSeriesMap().get("bound").getMarker());
        BufferedImage img = Charts.plot("t", "users", "orders/s", true, true, List.of(bound), List.of(measured));
        assertEquals(Charts.WIDTH, img.getWidth());
    }

    @Test
    void everyChartRecordsItsSeriesAndTheirPoints() {
        DrawnChart chart = Charts.plot("A sweep", "users", "req/s", true, true,
                List.of(new Charts.Series("bound", new double[] {1, 10, 100}, new double[] {10, 100, 1000})),
                List.of(new Charts.Series("measured", new double[] {1, 10, 100}, new double[] {9, Double.NaN, 800}),
                        new Charts.Series("blank", new double[] {1, 10}, new double[] {Double.NaN, Double.NaN})));
        assertEquals("A sweep", chart.title());
        assertEquals(List.of(new DrawnChart.Drawn("bound", 3), new DrawnChart.Drawn("measured", 2),
                new DrawnChart.Drawn("blank", 0)), chart.series());
        assertEquals(List.of("blank"), chart.emptySeries());
        assertEquals(List.of(), chart.clipped());
        DrawnChart bars = Charts.compare("Two bars", "req/s", List.of(new Comparison("a", 1, 2, Double.NaN)));
        assertEquals(List.of(new DrawnChart.Drawn("measured", 1), new DrawnChart.Drawn("bound", 1)), bars.series());
    }

    @Test
    void labelsThatWouldOverlapAreTurnedUntilTheyFit() {
        Map<String, Double> many = new LinkedHashMap<>();
        for (int i = 0; i < 15; i++) many.put("a rather long label number " + i, (double) i + 1);
        DrawnChart chart = Charts.bars("Fifteen long labels", "value", many);
        assertEquals(List.of(), chart.clipped(), "labels must be turned until they no longer overlap");
    }

    @Test
    void ofBoundDrawsEachShareOfItsBoundAndLeavesFiguresWithoutOneOut() {
        var chart = Charts.ofBoundChart("Shares", List.of(
                Measurement.of("virtual", 55, "ms").bound(50, Measurement.Bound.LOWER_TIME).published(54, "vt-jmh-blog"),
                Measurement.of("pool", 480, "req/s").bound(500, Measurement.Bound.LITTLE),
                Measurement.of("heap", 990, "B"),
                Measurement.of("expected", 90, "req/s").bound(100, Measurement.Bound.ESTIMATE)));
        assertEquals(List.of("measured", "published"), List.copyOf(chart.getSeriesMap().keySet()));
        assertEquals(List.of("virtual", "pool", "expected (estimate)"),
                List.copyOf(chart.getSeriesMap().get("measured").getXData()));
        assertEquals(List.of(50 / 55.0, 0.96, 0.9), List.copyOf(chart.getSeriesMap().get("measured").getYData()));
        assertEquals(Arrays.asList(50 / 54.0, null, null),
                new java.util.ArrayList<>(chart.getSeriesMap().get("published").getYData()));
        BoundsTest.assertMessage("rows must hold at least one measurement with a bound",
                () -> Charts.ofBoundChart("t", List.of(Measurement.of("heap", 990, "B"))));
    }
}
