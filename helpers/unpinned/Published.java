//DEPS tech.tablesaw:tablesaw-core:0.44.4
// Tablesaw logs through SLF4J; without a binding every first use prints a warning into the cell.
//DEPS org.slf4j:slf4j-nop:2.0.17
package unpinned;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import tech.tablesaw.api.ColumnType;
import tech.tablesaw.api.Table;
import tech.tablesaw.io.csv.CsvReadOptions;

/**
 * The figures the sources published, read from {@code data/seed-figures/<name>.csv} (long format: one row a
 * figure, its number in the {@code value} column). Every column is read as text, so ids like {@code 000}
 * keep their zeros; only {@code value} is turned into a number.
 */
public final class Published {
    private Published() {}

    /** The whole file as a table, e.g. to show next to a measurement. */
    public static Table table(String name) {
        return read(Course.home(), name);
    }

    /**
     * The one figure whose columns match the given pairs, e.g.
     * {@code value("seed000-jmh", "scenario", "A-io", "executor", "fixed-8")}.
     * No match, or more than one, is an error that lists what the file has.
     */
    public static double value(String name, String... columnValuePairs) {
        return value(read(Course.home(), name), name, columnValuePairs);
    }

    static Table read(Path home, String name) {
        if (name == null || !name.matches("[a-z0-9-]+")) {
            throw new IllegalArgumentException("a published-figures name is like 'seed000-jmh' ([a-z0-9-]+), got '" + name + "'");
        }
        Path file = home.resolve("data").resolve("seed-figures").resolve(name + ".csv");
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("no published figures '" + name + "': " + file + " does not exist");
        }
        try {
            return Table.read().usingOptions(CsvReadOptions.builder(file.toFile())
                    .tableName(name).columnTypes(column -> ColumnType.STRING));
        } catch (RuntimeException e) {
            if (e.getCause() instanceof IOException io) throw new UncheckedIOException(io);
            throw e;
        }
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
        return Double.parseDouble(figures.stringColumn("value").get(matches[0]));
    }
}
