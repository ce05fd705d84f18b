package unpinned.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

public class PublishedTest {
    @TempDir Path home;

    private void figures(String csv) throws Exception {
        Path dir = Files.createDirectories(home.resolve("data/published"));
        Files.writeString(dir.resolve("test-source.csv"), csv);
    }

    @Test
    void findsTheOneMatchingFigureAndKeepsIdsAsText() throws Exception {
        figures("source,executor,metric,value\n007,pool,mean,977\n007,virtual,mean,105.5\n");
        var table = Published.read(home, "test-source");
        assertEquals(105.5, Published.value(table, "test-source", "executor", "virtual", "metric", "mean"));
        assertEquals("007", table.stringColumn("source").get(0));
    }

    @Test
    void ambiguousOrMissingMatchesAreErrorsThatShowTheFile() throws Exception {
        figures("source,executor,metric,value\n1,pool,mean,977\n1,pool,max,1141\n");
        var table = Published.read(home, "test-source");
        var ambiguous = assertThrows(IllegalArgumentException.class,
                () -> Published.value(table, "test-source", "executor", "pool"));
        assertTrue(ambiguous.getMessage().startsWith("2 figures"), ambiguous.getMessage());
        var none = assertThrows(IllegalArgumentException.class,
                () -> Published.value(table, "test-source", "executor", "virtual"));
        assertTrue(none.getMessage().startsWith("0 figures"), none.getMessage());
        var column = assertThrows(IllegalArgumentException.class,
                () -> Published.value(table, "test-source", "threads", "50"));
        assertTrue(column.getMessage().contains("no column 'threads'"), column.getMessage());
    }

    private void figures(String name, String csv) throws Exception {
        Path dir = Files.createDirectories(home.resolve("data/published"));
        Files.writeString(dir.resolve(name + ".csv"), csv);
    }

    @Test
    void aBadValueAnywhereIsAnErrorNamingTheFileRowAndText() throws Exception {
        figures("x", "source,executor,metric,value\n1,pool,mean,977\n1,pool,max,1141\n1,virtual,mean,105.5\n1,virtual,max,abc\n");
        var bad = assertThrows(IllegalArgumentException.class, () -> Published.read(home, "x"));
        assertTrue(bad.getMessage().startsWith("data/published/x.csv, row 4: value 'abc' is not a number"), bad.getMessage());
    }

    @Test
    void numbersAreWhatAPersonWritesNotWhatJavaAccepts() throws Exception {
        for (String ok : new String[] {"977", "-3", "+2.5", "105.", ".5", "1e3", "1.5E-2", " 42 "}) {
            figures("x", "metric,value\nmean,\"" + ok + "\"\n");
            assertEquals(Double.parseDouble(ok.strip()), Published.value(Published.read(home, "x"), "x", "metric", "mean"), ok);
        }
        for (String bad : new String[] {"", "NaN", "Infinity", "0x10", "1d", "1,234", "12 ms", "1e999"}) {
            figures("x", "metric,value\nmean,977\nmax,\"" + bad + "\"\n");
            var e = assertThrows(IllegalArgumentException.class, () -> Published.read(home, "x"), bad);
            assertTrue(e.getMessage().startsWith("data/published/x.csv, row 2: value '"), e.getMessage());
            assertTrue(e.getMessage().contains("' is not a number"), e.getMessage());
        }
    }

    @Test
    void aFileWithoutAValueColumnIsRefused() throws Exception {
        figures("x", "source,executor,metric,number\n1,pool,mean,977\n");
        var e = assertThrows(IllegalArgumentException.class, () -> Published.read(home, "x"));
        assertTrue(e.getMessage().startsWith("data/published/x.csv has no 'value' column"), e.getMessage());
        assertTrue(e.getMessage().contains("number"), e.getMessage());
    }

    @Test
    void aBadValueInATableNotReadFromAFileIsStillNamed() throws Exception {
        var table = tech.tablesaw.api.Table.create("x",
                tech.tablesaw.api.StringColumn.create("metric", "mean", "max"),
                tech.tablesaw.api.StringColumn.create("value", "977", "lots"));
        assertEquals(977, Published.value(table, "x", "metric", "mean"));
        var e = assertThrows(IllegalArgumentException.class, () -> Published.value(table, "x", "metric", "max"));
        assertTrue(e.getMessage().startsWith("data/published/x.csv, row 2: value 'lots' is not a number"), e.getMessage());
    }

    @Test
    void theCoursesOwnPublishedFiguresAllRead() throws Exception {
        Path course = Course.home();
        try (var files = Files.list(course.resolve("data/published"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".csv")).toList()) {
                String name = f.getFileName().toString().replaceFirst("\\.csv$", "");
                assertTrue(Published.read(course, name).rowCount() > 0, name);
            }
        }
    }

    @Test
    void badNamesAndOddPairsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> Published.read(home, "../secrets"));
        var missing = assertThrows(IllegalArgumentException.class, () -> Published.read(home, "no-such-source"));
        assertTrue(missing.getMessage().contains("does not exist"));
        assertThrows(IllegalArgumentException.class, () -> Published.value((tech.tablesaw.api.Table) null, "x", "executor"));
    }

    @Test
    void aFileThatIsNotACsvTableIsRefusedInOneLineNamingIt() throws Exception {
        for (String broken : new String[] {"metric,value\nmean,1,extra,more\n", "metric,value\n\"mean,1\n"}) {
            figures("x", broken);
            var e = assertThrows(IllegalArgumentException.class, () -> Published.read(home, "x"), broken);
            assertTrue(e.getMessage().contains(home.resolve("data/published/x.csv").toString()), e.getMessage());
            assertTrue(!e.getMessage().contains("\n"), e.getMessage());
        }
    }
}
