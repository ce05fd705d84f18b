//DEPS tech.tablesaw:tablesaw-core:0.44.4
// Tablesaw logs through SLF4J; without a binding its first use prints a warning into the cell.
//DEPS org.slf4j:slf4j-nop:2.0.17
//SOURCES ../core/Measurement.java
//SOURCES ../core/RunGuard.java
//SOURCES ../core/Show.java
package unpinned.showing;

import unpinned.core.Measurement;
import unpinned.core.RunGuard;
import unpinned.core.Show;

import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import tech.tablesaw.api.DoubleColumn;
import tech.tablesaw.api.NumericColumn;
import tech.tablesaw.api.StringColumn;
import tech.tablesaw.api.Table;
import tech.tablesaw.columns.Column;

/**
 * Results as Tablesaw tables, and tables as HTML for the notebook. tablesaw-core 0.44.4 has no
 * HTML writer (that is the separate tablesaw-html module, with its own dependencies), so a small
 * escaping renderer lives here; it also formats numbers for reading rather than for round-tripping.
 */
public final class Tables {
    /** Rows shown by {@link #html(Table)}; longer tables end with a "… N more rows" line. */
    public static final int MAX_HTML_ROWS = 200;
    /**
     * Columns a table shows at once: more do not fit a notebook page beside the code (JupyterLab cuts them off).
     * A wider table shows these first ones, or the ones the cell names, and keeps every column in a details view.
     */
    public static final int MAX_VISIBLE_COLUMNS = 8;
    /** Text longer than this may wrap in its cell (at spaces); shorter text, a name or a label, never does. */
    public static final int WRAP_FROM = 32;

    private Tables() {}

    /**
     * A table from rows of values. A column whose non-null values are all Numbers becomes a
     * DoubleColumn (null and NaN are missing), any other column a StringColumn.
     */
    public static Table of(String name, List<String> columns, List<List<?>> rows) {
        checkName(name);
        if (columns == null || columns.isEmpty()) {
            throw new IllegalArgumentException("columns must be a non-empty list of names, got " + columns);
        }
        Set<String> seen = new HashSet<>();
        for (String c : columns) {
            if (c == null || c.isBlank()) throw new IllegalArgumentException("column names must be non-blank, got " + columns);
            // Tablesaw matches column names ignoring case, so must we.
            if (!seen.add(c.toLowerCase(Locale.ROOT))) {
                throw new IllegalArgumentException("column names must be unique (ignoring case), got '" + c + "' twice in " + columns);
            }
        }
        if (rows == null) throw new IllegalArgumentException("rows must be a list (possibly empty), got null");
        for (int r = 0; r < rows.size(); r++) {
            List<?> row = rows.get(r);
            if (row == null || row.size() != columns.size()) {
                throw new IllegalArgumentException("each row must have " + columns.size() + " values (one per column "
                        + columns + "), but row " + r + " has " + (row == null ? "none (null)" : row.size()));
            }
        }
        Table table = Table.create(name);
        for (int c = 0; c < columns.size(); c++) {
            table.addColumns(column(columns.get(c), rows, c));
        }
        return table;
    }

    /**
     * A table with one column per record component, in declaration order, and one row per record.
     * Column names are {@link #header human headers} ("measuredMs" becomes "measured (ms)"); a
     * component that is null, NaN or blank in every row is left out, so no column is all "n/a".
     */
    public static Table fromRecords(String name, List<? extends Record> rows) {
        return fromRecords(name, rows, Map.of());
    }

    /**
     * Like {@link #fromRecords(String, List)}, with {@code headers} (record component name -> column
     * name) overriding the automatic {@link #header} for the components it names.
     */
    public static Table fromRecords(String name, List<? extends Record> rows, Map<String, String> headers) {
        checkName(name);
        if (rows == null || rows.isEmpty()) {
            throw new IllegalArgumentException("rows must be a non-empty list of records (the columns come from the record type), got " + rows);
        }
        if (headers == null) throw new IllegalArgumentException("headers must be a map of component name -> header (possibly empty), got null");
        if (rows.get(0) == null) throw new IllegalArgumentException("rows must not contain null");
        Class<?> type = rows.get(0).getClass();
        RecordComponent[] components = type.getRecordComponents();
        if (components.length == 0) {
            throw new IllegalArgumentException("rows must be records with at least one component, got " + type.getSimpleName() + "()");
        }
        List<String> names = new ArrayList<>();
        for (RecordComponent rc : components) names.add(rc.getName());
        headers.forEach((component, header) -> {
            if (!names.contains(component)) {
                throw new IllegalArgumentException("headers must name components of " + type.getSimpleName() + " " + names
                        + ", got '" + component + "'");
            }
            if (header == null || header.isBlank()) {
                throw new IllegalArgumentException("headers must be non-blank, got " + (header == null ? "null" : "'" + header + "'")
                        + " for '" + component + "'");
            }
        });
        List<List<Object>> values = new ArrayList<>();
        for (Record r : rows) {
            if (r == null || r.getClass() != type) {
                throw new IllegalArgumentException("rows must all be " + type.getSimpleName() + " records, got "
                        + (r == null ? "null" : r.getClass().getSimpleName()));
            }
            List<Object> row = new ArrayList<>();
            for (RecordComponent rc : components) row.add(component(r, rc));
            values.add(row);
        }
        List<Integer> kept = new ArrayList<>();
        for (int c = 0; c < components.length; c++) {
            int column = c;
            if (values.stream().anyMatch(row -> present(row.get(column)))) kept.add(c);
        }
        if (kept.isEmpty()) {
            throw new IllegalArgumentException("rows must have at least one component that is not null, NaN or blank, got only empty "
                    + names + " in " + rows.size() + " " + type.getSimpleName() + " records");
        }
        List<String> columns = new ArrayList<>();
        Map<String, String> byHeader = new HashMap<>();
        for (int c : kept) {
            String component = names.get(c);
            String header = headers.containsKey(component) ? headers.get(component) : header(component);
            String clash = byHeader.put(header.toLowerCase(Locale.ROOT), component);
            if (clash != null) {
                throw new IllegalArgumentException("components '" + clash + "' and '" + component + "' would both be headed '" + header
                        + "'; pass headers explicitly with Tables.fromRecords(name, rows, headers)");
            }
            columns.add(header);
        }
        List<List<?>> table = new ArrayList<>();
        for (List<Object> row : values) table.add(kept.stream().map(row::get).toList());
        return of(name, columns, table);
    }

    /**
     * A table of key figures, one row per {@link Measurement}: what, value, unit, bound, the bound's kind, the value
     * as a share of its bound ("x bound": {@link Measurement#ofBound()}, 1 = at the bound, times inverted), the
     * published figure and its source. A column empty in every row (no published figure, say) is left out.
     */
    public static Table fromMeasurements(String name, List<Measurement> rows) {
        checkName(name);
        if (rows == null || rows.isEmpty() || rows.stream().anyMatch(java.util.Objects::isNull)) {
            throw new IllegalArgumentException("rows must be a non-empty list of measurements, got " + rows);
        }
        List<String> columns = List.of("what", "value", "unit", "bound", "kind", "x bound", "published", "source");
        List<List<?>> values = new ArrayList<>();
        for (Measurement m : rows) {
            String kind = m.boundKind() == null ? null : m.boundKind().name().toLowerCase(Locale.ROOT).replace('_', ' ');
            values.add(java.util.Arrays.asList(m.what(), m.value(), m.unit(), m.bound(), kind,
                    m.boundKind() == null ? null : m.ofBound(), m.published(), m.source()));
        }
        List<Integer> kept = new ArrayList<>();
        for (int c = 0; c < columns.size(); c++) {
            int column = c;
            if (values.stream().anyMatch(row -> present(row.get(column)))) kept.add(c);
        }
        List<List<?>> table = new ArrayList<>();
        for (List<?> row : values) table.add(kept.stream().map(row::get).toList());
        return of(name, kept.stream().map(columns::get).toList(), table);
    }

    /**
     * Headers that the rule in {@link #header} gets wrong or can't know; component name -> header.
     */
    static final Map<String, String> HEADER_OVERRIDES = Map.of(
            "rps", "throughput (req/s)",
            "cpus", "CPUs",
            "littleBoundThroughput", "Little's law bound (req/s)",
            "otherCpuCores", "cores busy elsewhere",
            "cpuUtilisation", "CPU busy (share of free cores)",
            "cpuBoundThroughput", "at full CPU (req/s)");

    // Unit words (lower case) anywhere in a name -> the unit shown in brackets.
    private static final Map<String, String> UNITS = Map.of(
            "ns", "ns", "us", "µs", "ms", "ms", "kb", "KB", "mb", "MB", "gb", "GB");
    private static final Set<String> ACRONYMS = Set.of("cpu", "rss", "jvm", "jdk", "gc", "os", "io", "http");

    /**
     * A human column header for a camelCase (or snake_case) name, predictable by rule:
     * <ul>
     * <li>{@link #HEADER_OVERRIDES} first, for the few names the rule can't get right;</li>
     * <li>the name splits into lower-case words at capitals and underscores ("serverCpuUsPerRequest"
     *     -> server cpu us per request); CPU, RSS, JVM, JDK, GC, OS, IO and HTTP are written in capitals;</li>
     * <li>a unit word Ns, Us, Ms, Kb, Mb or Gb anywhere moves to the end in brackets as ns, µs, ms, KB,
     *     MB, GB: "serverCpuUsPerRequest" -> "server CPU per request (µs)", "serverRssMb" -> "server RSS (MB)";</li>
     * <li>a name ending in Throughput is a request rate: "boundThroughput" -> "bound (req/s)", and
     *     "throughput" alone -> "throughput (req/s)"; ending in Rate likewise keeps the word: "arrivalRate" ->
     *     "arrival rate (req/s)"; ending in PerSec or PerSecond: "opsPerSec" -> "ops/s";</li>
     * <li>a name whose first word is "error" with a time unit is a ± error: "errorMs" -> "± error (ms)";</li>
     * <li>percentiles stay as written, with a point after 99 for longer ones: "p99Ms" -> "p99 (ms)",
     *     "p999Ms" -> "p99.9 (ms)".</li>
     * </ul>
     */
    public static String header(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("name must be a non-blank string, got " + (name == null ? "null" : "'" + name + "'"));
        }
        String override = HEADER_OVERRIDES.get(name);
        if (override != null) return override;
        List<String> words = new ArrayList<>();
        for (String w : name.strip().split("_+|\\s+|(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")) {
            if (!w.isEmpty()) words.add(w.toLowerCase(Locale.ROOT));
        }
        if (words.isEmpty()) return name.strip(); // e.g. "_"
        String unit = null;
        String suffix = "";
        int n = words.size();
        String last = words.get(n - 1);
        if (n >= 3 && words.get(n - 2).equals("per") && (last.equals("sec") || last.equals("second"))) {
            words.subList(n - 2, n).clear();
            suffix = "/s";
        } else if (last.equals("throughput")) {
            if (n > 1) words.remove(n - 1);
            unit = "req/s";
        } else if (last.equals("rate")) {
            unit = "req/s";
        }
        if (unit == null && words.size() > 1) {
            for (int i = 0; i < words.size(); i++) {
                if (UNITS.containsKey(words.get(i))) {
                    unit = UNITS.get(words.remove(i));
                    break;
                }
            }
        }
        boolean error = words.size() > 0 && words.get(0).equals("error") && ("ns".equals(unit) || "µs".equals(unit) || "ms".equals(unit));
        List<String> shown = new ArrayList<>();
        for (String w : words) {
            if (ACRONYMS.contains(w)) shown.add(w.toUpperCase(Locale.ROOT));
            else if (w.matches("p99\\d+")) shown.add("p99." + w.substring(3));
            else shown.add(w);
        }
        return (error ? "± " : "") + String.join(" ", shown) + suffix + (unit == null ? "" : " (" + unit + ")");
    }

    // A value that makes its column worth showing: not null, not NaN, not blank.
    private static boolean present(Object v) {
        if (v == null) return false;
        if (v instanceof Double d) return !d.isNaN();
        if (v instanceof Float f) return !f.isNaN();
        if (v instanceof CharSequence cs) return !cs.toString().isBlank();
        return true;
    }

    /** The table as an HTML {@code <table>}, at most {@link #MAX_HTML_ROWS} rows. */
    public static String html(Table t) {
        return html(t, MAX_HTML_ROWS);
    }

    /** Shows the table in the notebook ({@link #html(Table)}), leaving no value behind. */
    public static void show(Table t) {
        Show.html(html(t));
    }

    /**
     * Shows the table with {@code shown} columns in view (header or record component names, at most
     * {@link #MAX_VISIBLE_COLUMNS}) and every column in a details view below them.
     */
    public static void show(Table t, String... shown) {
        Show.html(html(t, MAX_HTML_ROWS, shown));
    }

    /**
     * The table as an HTML {@code <table>} with its name as caption, at most {@code maxRows} rows.
     * Numbers are right-aligned and formatted by {@link #number}; no cell wraps ({@code white-space:
     * nowrap}), so "platform-pool-50" stays one word. Headers may wrap. A table wider than
     * {@link #MAX_VISIBLE_COLUMNS} shows its first columns and keeps all of them in a details view.
     */
    public static String html(Table t, int maxRows) {
        return html(t, maxRows, new String[0]);
    }

    static String html(Table t, int maxRows, String... shown) {
        RunGuard.check("showing a table");
        if (t == null) throw new IllegalArgumentException("table must not be null");
        if (maxRows < 0) throw new IllegalArgumentException("maxRows must be >= 0, got " + maxRows);
        List<Column<?>> all = new ArrayList<>(t.columns());
        if (shown.length == 0 && all.size() <= MAX_VISIBLE_COLUMNS) return table(t.name(), all, t.rowCount(), maxRows);
        List<Column<?>> visible = new ArrayList<>();
        if (shown.length == 0) {
            visible.addAll(all.subList(0, MAX_VISIBLE_COLUMNS));
        } else {
            if (shown.length > MAX_VISIBLE_COLUMNS) {
                throw new IllegalArgumentException("at most " + MAX_VISIBLE_COLUMNS + " columns fit in view, got " + shown.length);
            }
            for (String name : shown) {
                visible.add(all.stream().filter(c -> c.name().equals(name) || c.name().equals(header(name))).findFirst()
                        .orElseThrow(() -> new IllegalArgumentException("no column '" + name + "' in table '" + t.name()
                                + "'; it has " + all.stream().map(Column::name).toList())));
            }
        }
        if (visible.size() == all.size()) return table(t.name(), all, t.rowCount(), maxRows);
        return table(t.name(), visible, t.rowCount(), maxRows)
                + "<details><summary>All " + all.size() + " columns</summary>\n<div style=\"overflow-x:auto\">\n"
                + table(null, all, t.rowCount(), maxRows) + "</div></details>\n";
    }

    private static String table(String name, List<Column<?>> columns, int rows, int maxRows) {
        StringBuilder sb = new StringBuilder("<table class=\"unpinned\">\n");
        if (name != null && !name.isBlank()) sb.append("<caption>").append(escape(name)).append("</caption>\n");
        sb.append("<thead><tr>");
        for (Column<?> c : columns) {
            sb.append(c instanceof NumericColumn<?> ? "<th style=\"text-align:right\">"
                    : c.name().length() > WRAP_FROM ? "<th style=\"text-align:left\">"
                    : "<th style=\"text-align:left;white-space:nowrap\">").append(escape(c.name())).append("</th>");
        }
        sb.append("</tr></thead>\n<tbody>\n");
        int shown = Math.min(maxRows, rows);
        for (int r = 0; r < shown; r++) {
            sb.append("<tr>");
            for (Column<?> c : columns) {
                if (c instanceof NumericColumn<?> n) {
                    sb.append("<td style=\"text-align:right;white-space:nowrap\">")
                            .append(n.isMissing(r) ? "n/a" : escape(number(n.getDouble(r))));
                } else {
                    // Executor names like "platform-pool-50" read as one word: never broken over lines. A phrase
                    // (a list of thread names, a sequence of states) wraps at its spaces, or the table would run
                    // past the page's edge.
                    String text = c.getString(r);
                    sb.append(text.length() > WRAP_FROM ? "<td style=\"text-align:left;min-width:14em\">"
                            : "<td style=\"text-align:left;white-space:nowrap\">").append(escape(text));
                }
                sb.append("</td>");
            }
            sb.append("</tr>\n");
        }
        sb.append("</tbody>\n</table>\n");
        if (rows > shown) sb.append("<p>… ").append(rows - shown).append(" more rows</p>\n");
        return sb.toString();
    }

    /**
     * A number for reading, with thousands separators: whole numbers exactly ("1,000,000", "42"); others
     * with decimals by size: >= 100 none ("1,235"), >= 10 one ("12.3"), >= 0.1 two ("1.50", "0.12"),
     * smaller two significant digits ("0.0012"), below 0.0001 in scientific notation ("1.2e-05").
     */
    static String number(double v) {
        if (Double.isNaN(v)) return "n/a";
        if (Double.isInfinite(v)) return v > 0 ? "∞" : "-∞";
        double a = Math.abs(v);
        if (v == Math.rint(v) && a < 1e15) return String.format(Locale.ROOT, "%,d", (long) v);
        // Decide on the rounded size, so 99.96 is "100", not "100.0".
        if (a >= 99.5) return String.format(Locale.ROOT, "%,.0f", v);
        if (a >= 9.95) return String.format(Locale.ROOT, "%,.1f", v);
        if (a >= 0.0995) return String.format(Locale.ROOT, "%.2f", v);
        if (a >= 1e-4) return new BigDecimal(v).round(new MathContext(2)).stripTrailingZeros().toPlainString();
        return String.format(Locale.ROOT, "%.1e", v);
    }

    static String escape(String s) {
        if (s == null) return "";
        StringBuilder sb = new StringBuilder(s.length());
        for (char ch : s.toCharArray()) {
            switch (ch) {
                case '&' -> sb.append("&amp;");
                case '<' -> sb.append("&lt;");
                case '>' -> sb.append("&gt;");
                case '"' -> sb.append("&quot;");
                case '\'' -> sb.append("&#39;");
                default -> sb.append(ch);
            }
        }
        return sb.toString();
    }

    private static Column<?> column(String name, List<List<?>> rows, int c) {
        boolean numeric = false;
        boolean other = false;
        for (List<?> row : rows) {
            Object v = row.get(c);
            if (v instanceof Number) numeric = true;
            else if (v != null) other = true;
        }
        if (numeric && !other) {
            DoubleColumn col = DoubleColumn.create(name);
            for (List<?> row : rows) {
                if (row.get(c) instanceof Number n) col.append(n.doubleValue());
                else col.appendMissing();
            }
            return col;
        }
        StringColumn col = StringColumn.create(name);
        for (List<?> row : rows) {
            Object v = row.get(c);
            if (v == null) col.appendMissing();
            else col.append(text(v));
        }
        return col;
    }

    private static String text(Object v) {
        if (v.getClass().isArray()) {
            List<String> parts = new ArrayList<>();
            for (int i = 0; i < Array.getLength(v); i++) {
                Object e = Array.get(v, i);
                parts.add(e == null ? "null" : text(e));
            }
            return "[" + String.join(", ", parts) + "]";
        }
        return v.toString();
    }

    private static Object component(Record r, RecordComponent rc) {
        Method accessor = rc.getAccessor();
        try {
            // Records declared in a notebook cell or as a private nested class aren't public.
            accessor.setAccessible(true);
            return accessor.invoke(r);
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("cannot read " + r.getClass().getSimpleName() + "." + rc.getName()
                    + ": " + e.getMessage(), e);
        }
    }

    private static void checkName(String name) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("name must be a non-blank string, got "
                    + (name == null ? "null" : "'" + name + "'"));
        }
    }
}
