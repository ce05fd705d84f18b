package unpinned;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PublishedTest {
    @TempDir Path home;

    private void figures(String csv) throws Exception {
        Path dir = Files.createDirectories(home.resolve("data/seed-figures"));
        Files.writeString(dir.resolve("seed999-test.csv"), csv);
    }

    @Test
    void findsTheOneMatchingFigureAndKeepsIdsAsText() throws Exception {
        figures("seed,executor,metric,value\n007,pool,mean,977\n007,virtual,mean,105.5\n");
        var table = Published.read(home, "seed999-test");
        assertEquals(105.5, Published.value(table, "seed999-test", "executor", "virtual", "metric", "mean"));
        assertEquals("007", table.stringColumn("seed").get(0));
    }

    @Test
    void ambiguousOrMissingMatchesAreErrorsThatShowTheFile() throws Exception {
        figures("seed,executor,metric,value\n1,pool,mean,977\n1,pool,max,1141\n");
        var table = Published.read(home, "seed999-test");
        var ambiguous = assertThrows(IllegalArgumentException.class,
                () -> Published.value(table, "seed999-test", "executor", "pool"));
        assertTrue(ambiguous.getMessage().startsWith("2 figures"), ambiguous.getMessage());
        var none = assertThrows(IllegalArgumentException.class,
                () -> Published.value(table, "seed999-test", "executor", "virtual"));
        assertTrue(none.getMessage().startsWith("0 figures"), none.getMessage());
        var column = assertThrows(IllegalArgumentException.class,
                () -> Published.value(table, "seed999-test", "threads", "50"));
        assertTrue(column.getMessage().contains("no column 'threads'"), column.getMessage());
    }

    @Test
    void badNamesAndOddPairsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> Published.read(home, "../secrets"));
        var missing = assertThrows(IllegalArgumentException.class, () -> Published.read(home, "seed123-none"));
        assertTrue(missing.getMessage().contains("does not exist"));
        assertThrows(IllegalArgumentException.class, () -> Published.value((tech.tablesaw.api.Table) null, "x", "executor"));
    }
}
