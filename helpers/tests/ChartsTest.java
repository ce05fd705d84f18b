package unpinned;

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

class ChartsTest {
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
}
