//DEPS tech.tablesaw:tablesaw-core:0.44.4
// Tablesaw logs through SLF4J; without a binding its first use prints a warning into the cell.
//DEPS org.slf4j:slf4j-nop:2.0.17
package unpinned;

import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
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

    /** A table with one column per record component, in declaration order, and one row per record. */
    public static Table fromRecords(String name, List<? extends Record> rows) {
        checkName(name);
        if (rows == null || rows.isEmpty()) {
            throw new IllegalArgumentException("rows must be a non-empty list of records (the columns come from the record type), got " + rows);
        }
        Class<?> type = rows.get(0).getClass();
        RecordComponent[] components = type.getRecordComponents();
        List<String> columns = new ArrayList<>();
        for (RecordComponent rc : components) columns.add(rc.getName());
        List<List<?>> values = new ArrayList<>();
        for (Record r : rows) {
            if (r == null || r.getClass() != type) {
                throw new IllegalArgumentException("rows must all be " + type.getSimpleName() + " records, got "
                        + (r == null ? "null" : r.getClass().getSimpleName()));
            }
            List<Object> row = new ArrayList<>();
            for (RecordComponent rc : components) row.add(component(r, rc));
            values.add(row);
        }
        if (columns.isEmpty()) {
            throw new IllegalArgumentException("rows must be records with at least one component, got " + type.getSimpleName() + "()");
        }
        return of(name, columns, values);
    }

    /** The table as an HTML {@code <table>}, at most {@link #MAX_HTML_ROWS} rows. */
    public static String html(Table t) {
        return html(t, MAX_HTML_ROWS);
    }

    /** The table as an HTML {@code <table>} with its name as caption, at most {@code maxRows} rows. */
    public static String html(Table t, int maxRows) {
        if (t == null) throw new IllegalArgumentException("table must not be null");
        if (maxRows < 0) throw new IllegalArgumentException("maxRows must be >= 0, got " + maxRows);
        StringBuilder sb = new StringBuilder("<table class=\"unpinned\">\n");
        if (t.name() != null && !t.name().isBlank()) sb.append("<caption>").append(escape(t.name())).append("</caption>\n");
        sb.append("<thead><tr>");
        for (Column<?> c : t.columns()) {
            sb.append(c instanceof NumericColumn<?> ? "<th style=\"text-align:right\">" : "<th style=\"text-align:left\">")
                    .append(escape(c.name())).append("</th>");
        }
        sb.append("</tr></thead>\n<tbody>\n");
        int shown = Math.min(maxRows, t.rowCount());
        for (int r = 0; r < shown; r++) {
            sb.append("<tr>");
            for (Column<?> c : t.columns()) {
                if (c instanceof NumericColumn<?> n) {
                    sb.append("<td style=\"text-align:right\">")
                            .append(n.isMissing(r) ? "n/a" : escape(number(n.getDouble(r))));
                } else {
                    sb.append("<td style=\"text-align:left\">").append(escape(c.getString(r)));
                }
                sb.append("</td>");
            }
            sb.append("</tr>\n");
        }
        sb.append("</tbody>\n</table>\n");
        if (t.rowCount() > shown) sb.append("<p>… ").append(t.rowCount() - shown).append(" more rows</p>\n");
        return sb.toString();
    }

    /** A number for reading: integers exactly (with grouping), others to about 4 significant digits. */
    static String number(double v) {
        if (Double.isNaN(v)) return "n/a";
        if (Double.isInfinite(v)) return v > 0 ? "∞" : "-∞";
        double a = Math.abs(v);
        if (v == Math.rint(v) && a < 1e15) return String.format(Locale.ROOT, "%,d", (long) v);
        if (a >= 1000) return String.format(Locale.ROOT, "%,.0f", v);
        if (a >= 1e-4) return new BigDecimal(v).round(new MathContext(4)).stripTrailingZeros().toPlainString();
        return String.format(Locale.ROOT, "%.3e", v);
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
