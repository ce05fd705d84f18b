//DEPS tech.tablesaw:tablesaw-core:0.44.4
// Tablesaw logs through SLF4J; without a binding every first use prints a warning into the cell.
//DEPS org.slf4j:slf4j-nop:2.0.17
//SOURCES Course.java
package unpinned.core;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import tech.tablesaw.api.ColumnType;
import tech.tablesaw.api.Table;
import tech.tablesaw.io.csv.CsvReadOptions;

/**
 * The figures the sources published, read from {@code data/published/<name>.csv} (long format: one row a
 * figure, its number in the {@code value} column). Every column is read as text, so ids like {@code 000}
 * keep their zeros; only {@code value} is turned into a number. Every row's {@code value} is checked when the
 * file is read, so a bad one is an error naming the file, the row and the text, whichever figure is asked for.
 */
public final class Published {
    private Published() {}

    /**
     * Reads each named file now, so a missing or broken one stops a run before it measures, in one line naming the
     * file: for a snippet's or notebook's start, with the figures it will compare against after measuring.
     */
    public static void check(String... names) {
        Path home = Course.home();
        for (String name : names) read(home, name);
    }

    /** The whole file as a table, e.g. to show next to a measurement. */
    public static Table table(String name) {
        return read(Course.home(), name);
    }

    /**
     * The one figure whose columns match the given pairs, e.g.
     * {@code value("vt-jmh-blog", "scenario", "A-io", "executor", "fixed-8")}.
     * No match, or more than one, is an error that lists what the file has.
     */
    public static double value(String name, String... columnValuePairs) {
        return value(read(Course.home(), name), name, columnValuePairs);
    }

    static Table read(Path home, String name) {
        if (name == null || !name.matches("[a-z0-9-]+")) {
            throw new IllegalArgumentException("a published-figures name is like 'vt-jmh-blog' ([a-z0-9-]+), got '" + name + "'");
        }
        Path file = home.resolve("data").resolve("published").resolve(name + ".csv");
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("no published figures '" + name + "': " + file + " does not exist");
        }
        Table figures;
        try {
            figures = Table.read().usingOptions(CsvReadOptions.builder(file.toFile())
                    .tableName(name).columnTypes(column -> ColumnType.STRING));
        } catch (RuntimeException e) { // Tablesaw's messages ("Row number 1 contains 4 columns...") name no file
            if (e.getCause() instanceof IOException io) {
                throw new UncheckedIOException("cannot read published figures " + file + ": " + io.getMessage(), io);
            }
            String why = String.valueOf(e.getMessage()).lines().findFirst().orElse("").strip();
            throw new IllegalArgumentException(file + " is not a CSV table of figures (" + why + ")", e);
        }
        // Every row now, not only the one asked for: a typo anywhere in the file is found on first use.
        if (!figures.columnNames().contains(VALUE)) {
            throw new IllegalArgumentException(shown(name) + " has no '" + VALUE + "' column; its columns are " + figures.columnNames());
        }
        for (int row = 0; row < figures.rowCount(); row++) number(figures, name, row);
        return figures;
    }

    /** The column that holds each figure's number. */
    static final String VALUE = "value";

    /** A plain decimal number, as a person writes it: no NaN, Infinity, hex, thousands separators or units. */
    private static final Pattern NUMBER = Pattern.compile("[+-]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?");

    /** The file as a person finds it in the course folder. */
    private static String shown(String name) {
        return "data/published/" + name + ".csv";
    }

    /** Row {@code row}'s (0-based) value; an error naming the file, the 1-based data row and the text if it is no number. */
    private static double number(Table figures, String name, int row) {
        String text = figures.stringColumn(VALUE).get(row);
        String t = text == null ? "" : text.strip();
        if (NUMBER.matcher(t).matches()) {
            double v = Double.parseDouble(t);
            if (Double.isFinite(v)) return v;
        }
        throw new IllegalArgumentException(shown(name) + ", row " + (row + 1) + ": " + VALUE + " '" + (text == null ? "" : text)
                + "' is not a number (rows count from 1, the first line under the header)");
    }

    static double value(Table figures, String name, String... pairs) {
        if (pairs.length == 0 || pairs.length % 2 != 0) {
            throw new IllegalArgumentException("give column/value pairs, e.g. \"executor\", \"virtual\"; got " + pairs.length + " strings");
        }
        var matches = IntStream.range(0, figures.rowCount()).filter(row -> {
            for (int i = 0; i < pairs.length; i += 2) {
                if (!figures.columnNames().contains(pairs[i])) {
                    throw new IllegalArgumentException("'" + name + "' has no column '" + pairs[i] + "'; it has " + figures.columnNames());
                }
                if (!figures.stringColumn(pairs[i]).get(row).equals(pairs[i + 1])) return false;
            }
            return true;
        }).toArray();
        if (matches.length != 1) {
            String wanted = IntStream.range(0, pairs.length / 2).mapToObj(i -> pairs[2 * i] + "=" + pairs[2 * i + 1])
                    .collect(Collectors.joining(", "));
            throw new IllegalArgumentException(matches.length + " figures in '" + name + "' match " + wanted
                    + " (need exactly one); the file has:\n" + figures.print());
        }
        if (!figures.columnNames().contains(VALUE)) {
            throw new IllegalArgumentException(shown(name) + " has no '" + VALUE + "' column; its columns are " + figures.columnNames());
        }
        return number(figures, name, matches[0]);
    }
}
