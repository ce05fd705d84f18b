package unpinned.showing;

import unpinned.core.BoundsTest;
import unpinned.core.Measurement;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

public class TablesTest {
    private record Row(String mode, int users, double throughput, long[] sample) {}

    @Test
    void longTextWrapsAndNamesDoNot() {
        String phrase = "MasterPoller (platform), SubPoller-0 (virtual), SubPoller-1 (virtual)";
        tech.tablesaw.api.Table t = Tables.of("wrapping", java.util.List.of("executor", "pollers seen in the dump, with their kind"),
                java.util.List.of(java.util.List.of("platform-pool-50", phrase)));
        String html = Tables.html(t);
        assertTrue(html.contains("<td style=\"text-align:left;white-space:nowrap\">platform-pool-50</td>"), html);
        assertTrue(html.contains("<td style=\"text-align:left;min-width:14em\">" + phrase + "</td>"), html);
        assertTrue(html.contains("<th style=\"text-align:left\">pollers seen in the dump, with their kind</th>"), html);
    }

    @Test
    void numbersBecomeDoubleColumnsAndTheRestStrings() {
        Table t = Tables.of("runs", List.of("mode", "users", "rps", "mixed"), List.of(
                List.of("pool", 200, 1950.5, "a"),
                Arrays.asList("virtual", 10_000L, null, 3),
                Arrays.asList(null, 1, Double.NaN, true)));
        assertEquals("runs", t.name());
        assertEquals(List.of("mode", "users", "rps", "mixed"), t.columnNames());
        assertEquals(3, t.rowCount());
        assertInstanceOf(StringColumn.class, t.column("mode"));
        assertInstanceOf(DoubleColumn.class, t.column("users"));
        assertInstanceOf(DoubleColumn.class, t.column("rps"));
        assertInstanceOf(StringColumn.class, t.column("mixed"), "a column mixing numbers and text stays text");
        assertEquals(10_000.0, t.doubleColumn("users").getDouble(1));
        assertTrue(t.doubleColumn("rps").isMissing(1) && t.doubleColumn("rps").isMissing(2));
        assertTrue(t.stringColumn("mode").isMissing(2));
        assertEquals("3", t.stringColumn("mixed").get(1));
    }

    @Test
    void recordsGiveOneColumnPerComponent() {
        Table t = Tables.fromRecords("rows", List.of(new Row("pool", 200, 1950.5, new long[] {1, 2}),
                new Row("virtual", 10_000, 9_800, new long[0])));
        assertEquals(List.of("mode", "users", "throughput (req/s)", "sample"), t.columnNames());
        assertEquals(2, t.rowCount());
        assertEquals(9_800.0, t.doubleColumn("throughput (req/s)").getDouble(1));
        assertEquals("[1, 2]", t.stringColumn("sample").get(0));
        Table c = Tables.fromRecords("comparisons", List.of(new Comparison("x", 1, Double.NaN, 3), new Comparison("y", 2, 4, Double.NaN)));
        assertEquals(List.of("label", "measured", "bound", "published"), c.columnNames(), "no error column: it is NaN in every row");
        assertTrue(c.doubleColumn("bound").isMissing(0));
    }

    private record Sparse(String executor, double measuredMs, double errorMs, String note, Double publishedMs, long errors) {}

    @Test
    void columnsThatAreEmptyInEveryRowAreLeftOut() {
        Table t = Tables.fromRecords("sparse", List.of(
                new Sparse("virtual", 12.5, Double.NaN, null, null, 0),
                new Sparse("platform-pool-50", 130, Double.NaN, " ", Double.NaN, 3)));
        assertEquals(List.of("executor", "measured (ms)", "errors"), t.columnNames());
        String html = Tables.html(t);
        assertFalse(html.contains("n/a"), html);
        assertTrue(html.contains(">0</td>") && html.contains(">3</td>"), "zero is a value, not an empty column: " + html);
        Table kept = Tables.fromRecords("one value", List.of(new Sparse("a", 1, Double.NaN, null, 2.0, 0), new Sparse("b", 1, 0.5, null, null, 0)));
        assertEquals(List.of("executor", "measured (ms)", "± error (ms)", "published (ms)", "errors"), kept.columnNames());
        assertTrue(kept.doubleColumn("± error (ms)").isMissing(0));
    }

    @Test
    void headersAreHumanWithUnits() {
        Map<String, String> expected = new LinkedHashMap<>();
        expected.put("measuredMs", "measured (ms)");
        expected.put("errorMs", "± error (ms)");
        expected.put("errorUs", "± error (µs)");
        expected.put("boundThroughput", "bound (req/s)");
        expected.put("throughput", "throughput (req/s)");
        expected.put("publishedThroughput", "published (req/s)");
        expected.put("serverCpuUsPerRequest", "server CPU per request (µs)");
        expected.put("clientCpuUsPerRequest", "client CPU per request (µs)");
        expected.put("serverLiveThreads", "server live threads");
        expected.put("serverRssMb", "server RSS (MB)");
        expected.put("cpuMs", "CPU (ms)");
        expected.put("boundMs", "bound (ms)");
        expected.put("publishedMs", "published (ms)");
        expected.put("sleepMs", "sleep (ms)");
        expected.put("p99Ms", "p99 (ms)");
        expected.put("p999Ms", "p99.9 (ms)");
        expected.put("minMs", "min (ms)");
        expected.put("maxMs", "max (ms)");
        expected.put("meanMs", "mean (ms)");
        expected.put("errors", "errors");
        expected.put("executor", "executor");
        expected.put("updates", "updates");
        expected.put("users", "users");
        expected.put("opsPerSec", "ops/s");
        expected.put("requestsPerSecond", "requests/s");
        expected.put("arrivalRate", "arrival rate (req/s)");
        expected.put("jvmHeapMB", "JVM heap (MB)");
        expected.put("gcPauseNs", "GC pause (ns)");
        expected.put("mean_ms", "mean (ms)");
        expected.put("rps", "throughput (req/s)");
        expected.put("ms", "ms");
        expected.put("errorCount", "error count");
        expected.put("_", "_");
        Map<String, String> actual = new LinkedHashMap<>();
        expected.keySet().forEach(name -> actual.put(name, Tables.header(name)));
        assertEquals(expected, actual);
        BoundsTest.assertMessage("name must be a non-blank string", () -> Tables.header(" "));
    }

    private record HttpRow(String executor, double throughput, double boundThroughput, double serverCpuUsPerRequest) {}

    @Test
    void headersCanBeGivenExplicitly() {
        List<HttpRow> rows = List.of(new HttpRow("virtual", 4_900, 5_000, 41.5));
        Table t = Tables.fromRecords("http", rows, Map.of("throughput", "measured (req/s)", "executor", "threads"));
        assertEquals(List.of("threads", "measured (req/s)", "bound (req/s)", "server CPU per request (µs)"), t.columnNames());
        BoundsTest.assertMessage("headers must name components of HttpRow [executor, throughput, boundThroughput, serverCpuUsPerRequest], got 'thruput'",
                () -> Tables.fromRecords("http", rows, Map.of("thruput", "x")));
        BoundsTest.assertMessage("headers must be non-blank", () -> Tables.fromRecords("http", rows, Map.of("throughput", " ")));
        BoundsTest.assertMessage("components 'throughput' and 'boundThroughput' would both be headed 'bound (req/s)'",
                () -> Tables.fromRecords("http", rows, Map.of("throughput", "bound (req/s)")));
        BoundsTest.assertMessage("headers must be a map", () -> Tables.fromRecords("http", rows, null));
    }

    @Test
    void htmlHasColumnsValuesAndEscapes() {
        Table t = Tables.of("a <b> & c", List.of("mode", "rps", "p99 <ms>"), List.of(
                List.of("pool & <friends>", 1_234_567, 0.123456),
                Arrays.asList("virtual", Double.NaN, 12.0)));
        String html = Tables.html(t);
        assertTrue(html.startsWith("<table"), html);
        assertTrue(html.contains("<caption>a &lt;b&gt; &amp; c</caption>"), html);
        assertTrue(html.contains(">mode</th>") && html.contains(">rps</th>") && html.contains(">p99 &lt;ms&gt;</th>"), html);
        assertTrue(html.contains(">pool &amp; &lt;friends&gt;</td>"), html);
        assertTrue(html.contains(">1,234,567</td>") && html.contains(">0.12</td>") && html.contains(">12</td>"), html);
        assertTrue(html.contains(">n/a</td>"), html);
        assertFalse(html.contains("<friends>"), html);
        assertEquals(2, html.split("<tr>", -1).length - 2, "one header row and two body rows");
    }

    @Test
    void textCellsNeverWrap() {
        String html = Tables.html(Tables.fromRecords("t", List.of(new HttpRow("platform-pool-50", 490, 500, 80))));
        assertTrue(html.contains("<td style=\"text-align:left;white-space:nowrap\">platform-pool-50</td>"), html);
        assertTrue(html.contains("<th style=\"text-align:left;white-space:nowrap\">executor</th>"), html);
    }

    @Test
    void htmlTruncatesLongTables() {
        List<List<?>> rows = new java.util.ArrayList<>();
        for (int i = 0; i < 10; i++) rows.add(List.of(i));
        String html = Tables.html(Tables.of("n", List.of("i"), rows), 3);
        assertEquals(4, html.split("<tr>", -1).length - 1, "header + 3 rows");
        assertTrue(html.contains("… 7 more rows"), html);
    }

    @Test
    void numbersAreFormattedForReading() {
        assertEquals("0", Tables.number(0));
        assertEquals("-42", Tables.number(-42));
        assertEquals("12", Tables.number(12.0), "whole numbers exactly");
        assertEquals("1,000,000", Tables.number(1e6));
        assertEquals("1,235", Tables.number(1234.5678));
        assertEquals("-12,346", Tables.number(-12_345.6));
        assertEquals("123", Tables.number(123.456), ">= 100: no decimals");
        assertEquals("100", Tables.number(99.96), "rounds to 100, so no decimals");
        assertEquals("12.3", Tables.number(12.345), ">= 10: one decimal");
        assertEquals("10.0", Tables.number(9.996));
        assertEquals("1.50", Tables.number(1.5), "else two decimals");
        assertEquals("0.12", Tables.number(0.123456));
        assertEquals("0.0012", Tables.number(0.00123456), "below 0.1: two significant digits, not 0.00");
        assertEquals("0.05", Tables.number(0.05));
        assertEquals("1.2e-05", Tables.number(0.0000123456));
        assertEquals("n/a", Tables.number(Double.NaN));
        assertEquals("∞", Tables.number(Double.POSITIVE_INFINITY));
    }

    @Test
    void badInputsSayWhatIsAllowed() {
        BoundsTest.assertMessage("each row must have 2 values", () -> Tables.of("t", List.of("a", "b"), List.of(List.of(1))));
        BoundsTest.assertMessage("but row 1 has 3", () -> Tables.of("t", List.of("a", "b"), List.of(List.of(1, 2), List.of(1, 2, 3))));
        BoundsTest.assertMessage("column names must be unique", () -> Tables.of("t", List.of("a", "A"), List.of()));
        BoundsTest.assertMessage("columns must be a non-empty list", () -> Tables.of("t", List.of(), List.of()));
        BoundsTest.assertMessage("name must be a non-blank string", () -> Tables.of(" ", List.of("a"), List.of()));
        BoundsTest.assertMessage("rows must be a non-empty list of records", () -> Tables.fromRecords("t", List.of()));
        BoundsTest.assertMessage("maxRows must be >= 0", () -> Tables.html(Tables.of("t", List.of("a"), List.of()), -1));
        List<Record> mixed = List.of(new Comparison("x", 1, 1, 1), new Row("a", 1, 1, new long[0]));
        BoundsTest.assertMessage("rows must all be Comparison records", () -> Tables.fromRecords("t", mixed));
    }

    @Test
    void aWideTableShowsEightColumnsAndKeepsAllInADetailsView() {
        List<String> names = new java.util.ArrayList<>();
        List<Object> row = new java.util.ArrayList<>();
        for (int i = 0; i < 12; i++) {
            names.add("c" + i);
            row.add(i);
        }
        Table t = Tables.of("wide", names, List.of(row));
        String html = Tables.html(t);
        String inView = html.substring(0, html.indexOf("<details>"));
        assertEquals(Tables.MAX_VISIBLE_COLUMNS, inView.split("<th ").length - 1, inView);
        assertTrue(html.contains("<summary>All 12 columns</summary>"), html);
        assertEquals(12, html.substring(html.indexOf("<details>")).split("<th ").length - 1, html);
        String chosen = Tables.html(t, Tables.MAX_HTML_ROWS, "c0", "c11");
        assertTrue(chosen.substring(0, chosen.indexOf("<details>")).contains(">c11</th>"), chosen);
        BoundsTest.assertMessage("no column 'nope' in table 'wide'", () -> Tables.html(t, 10, "nope"));
        assertFalse(Tables.html(Tables.of("narrow", List.of("a", "b"), List.of(List.of(1, 2)))).contains("<details>"));
    }

    @Test
    void measurementsGiveTheirBoundItsKindAndTheShareOfIt() {
        Table t = Tables.fromMeasurements("io", List.of(
                Measurement.of("virtual", 55, "ms").bound(50, Measurement.Bound.LOWER_TIME).published(54, "vt-jmh-blog"),
                Measurement.of("heap per thread", 990, "B")));
        assertEquals(List.of("what", "value", "unit", "bound", "kind", "x bound", "published", "source"), t.columnNames());
        assertEquals("lower time", t.stringColumn("kind").get(0));
        assertEquals(50 / 55.0, t.doubleColumn("x bound").getDouble(0), 1e-12);
        assertTrue(t.doubleColumn("bound").isMissing(1));
        Table bare = Tables.fromMeasurements("bare", List.of(Measurement.of("x", 1, "ms").bound(1, Measurement.Bound.UPPER)));
        assertEquals(List.of("what", "value", "unit", "bound", "kind", "x bound"), bare.columnNames(),
                "no published figure in any row: no published or source column");
        BoundsTest.assertMessage("rows must be a non-empty list of measurements", () -> Tables.fromMeasurements("x", List.of()));
    }
}
