package unpinned;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;

class TablesTest {
    private record Row(String mode, int users, double throughput, long[] sample) {}

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
        assertEquals(List.of("mode", "users", "throughput", "sample"), t.columnNames());
        assertEquals(2, t.rowCount());
        assertEquals(9_800.0, t.doubleColumn("throughput").getDouble(1));
        assertEquals("[1, 2]", t.stringColumn("sample").get(0));
        Table c = Tables.fromRecords("comparisons", List.of(new Comparison("x", 1, Double.NaN, 3)));
        assertEquals(List.of("label", "measured", "bound", "published"), c.columnNames());
        assertTrue(c.doubleColumn("bound").isMissing(0));
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
        assertTrue(html.contains(">1,234,567</td>") && html.contains(">0.1235</td>") && html.contains(">12</td>"), html);
        assertTrue(html.contains(">n/a</td>"), html);
        assertFalse(html.contains("<friends>"), html);
        assertEquals(2, html.split("<tr>", -1).length - 2, "one header row and two body rows");
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
        assertEquals("1,000,000", Tables.number(1e6));
        assertEquals("1,235", Tables.number(1234.5678));
        assertEquals("123.5", Tables.number(123.456));
        assertEquals("0.001235", Tables.number(0.00123456));
        assertEquals("1.235e-05", Tables.number(0.0000123456));
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
}
