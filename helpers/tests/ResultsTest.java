package unpinned.core;

import unpinned.showing.Comparison;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

public class ResultsTest {
    @TempDir
    Path tmp;

    @Test
    void savesOneFilePerRunWithMachineAndData() {
        List<Comparison> rows = List.of(new Comparison("virtual", 1950, 2000, Double.NaN));
        Path file = Results.save(tmp, "sleep-vs-pool", rows);
        assertEquals(tmp.resolve("sleep-vs-pool"), file.getParent());
        assertTrue(file.getFileName().toString().matches("\\d{8}-\\d{6}-\\d{3}-" + Profile.current().id() + "\\.json"), file.toString());

        JsonObject doc = Results.read(file);
        assertEquals(List.of("experiment", "machine", "busy", "measurements", "data"), List.copyOf(doc.keySet()));
        assertEquals(0, doc.getAsJsonArray("measurements").size(), "Comparison rows name no measurements");
        assertEquals("sleep-vs-pool", doc.get("experiment").getAsString());
        JsonObject machine = doc.getAsJsonObject("machine");
        assertEquals(Runtime.version().toString(), machine.get("jdk").getAsString());
        assertEquals(Runtime.getRuntime().availableProcessors(), machine.get("cores").getAsInt());
        assertEquals(Profile.current().id(), machine.get("profile").getAsString());
        JsonObject row = doc.getAsJsonArray("data").get(0).getAsJsonObject();
        assertEquals("virtual", row.get("label").getAsString());
        assertEquals(1950.0, row.get("measured").getAsDouble());
        assertTrue(Double.isNaN(row.get("published").getAsDouble()));
    }

    @Test
    void latestIsTheNewestOfSeveralQuickSaves() throws Exception {
        assertEquals(Optional.empty(), Results.latest(tmp, "burst"));
        Path first = Results.save(tmp, "burst", List.of(1));
        Path second = Results.save(tmp, "burst", List.of(2));
        Path third = Results.save(tmp, "burst", List.of(3));
        assertNotEquals(first, second);
        assertNotEquals(second, third);
        assertEquals(Optional.of(third), Results.latest(tmp, "burst"));
        assertEquals(3, Results.read(third).getAsJsonArray("data").get(0).getAsInt());
        try (Stream<Path> files = Files.list(tmp.resolve("burst"))) {
            assertEquals(3, files.count());
        }
        assertEquals(Optional.empty(), Results.latest(tmp, "other"));
    }

    @Test
    void refusesTheReferenceDataFolder() throws Exception {
        Path home = Files.createDirectories(tmp.resolve("course"));
        Path data = Files.createDirectories(home.resolve("data"));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Results.save(data, Optional.of(home), "x", List.of(1)));
        assertTrue(e.getMessage().contains("reference data") && e.getMessage().contains("UNPINNED_RESULTS"), e.getMessage());
        // An experiment called "data" right under home would land in data/ too.
        assertThrows(IllegalStateException.class, () -> Results.save(home, Optional.of(home), "data", List.of(1)));
        // So would a path that only gets there through "..".
        assertThrows(IllegalStateException.class,
                () -> Results.save(home.resolve("results/../data/sub"), Optional.of(home), "x", List.of(1)));
        // Or through a symbolic link.
        Path link = Files.createSymbolicLink(tmp.resolve("sneaky"), data);
        assertThrows(IllegalStateException.class, () -> Results.save(link, Optional.of(home), "x", List.of(1)));
        try (Stream<Path> inData = Files.list(data)) {
            assertEquals(0, inData.count(), "nothing may be written into data/");
        }
        // Next to data/ is fine.
        Path ok = Results.save(home.resolve("results"), Optional.of(home), "x", List.of(1));
        assertTrue(Files.isRegularFile(ok));
    }

    @Test
    void dirComesFromEnvElseHome() {
        assertEquals(tmp.resolve("results"), Results.dir(null, () -> tmp));
        assertEquals(tmp.resolve("results"), Results.dir(" ", () -> tmp));
        assertEquals(tmp.resolve("elsewhere"), Results.dir(tmp.resolve("elsewhere").toString(), () -> {
            throw new AssertionError("home is not needed when the env is set");
        }));
    }

    @Test
    void outsideAnyCourseFolderResultsGoUnderTheWorkingDirectory() throws Exception {
        // A snippet run with `jbang alias@owner/unpinned` from a folder with no course above it: ./results, said.
        Path elsewhere = Files.createDirectories(tmp.resolve("elsewhere/deeper"));
        List<Path> said = new ArrayList<>();
        assertEquals(elsewhere, Results.homeOrWorkingDir(null, elsewhere, said::add));
        assertEquals(elsewhere, Results.homeOrWorkingDir(" ", elsewhere, said::add));
        assertEquals(List.of(elsewhere, elsewhere), said);
        // Inside a course folder, its folder; a set UNPINNED_HOME wins; one naming no folder is still an error.
        Path home = Files.createDirectories(tmp.resolve("course"));
        Files.writeString(home.resolve(Course.MARKER), "{}");
        Path inside = Files.createDirectories(home.resolve("notebooks"));
        assertEquals(home, Results.homeOrWorkingDir(null, inside, said::add));
        assertEquals(home, Results.homeOrWorkingDir(home.toString(), elsewhere, said::add));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Results.homeOrWorkingDir(tmp.resolve("missing").toString(), elsewhere, said::add));
        assertTrue(e.getMessage().contains("UNPINNED_HOME must name an existing folder"), e.getMessage());
        assertEquals(2, said.size(), "only a run outside any course folder is told where its results go");
    }

    @Test
    void badInputsSayWhatIsAllowed() throws Exception {
        for (String bad : new String[] {"Sleep", "sleep test", "", "../x", "a/b", "x.json"}) {
            BoundsTest.assertMessage("experiment must match [a-z0-9-]+", () -> Results.save(tmp, bad, List.of()));
        }
        BoundsTest.assertMessage("experiment must match [a-z0-9-]+", () -> Results.latest(tmp, null));
        BoundsTest.assertMessage("data must not be null", () -> Results.save(tmp, "x", null));
        try (Stream<Path> files = Files.list(tmp)) {
            assertEquals(0, files.count(), "a refused save writes nothing");
        }
        Path notResults = Files.writeString(tmp.resolve("other.json"), "[1, 2]");
        BoundsTest.assertMessage("is not a results file", () -> Results.read(notResults));
        assertFalse(Files.exists(tmp.resolve("x")));
    }

    @Test
    void latestPassesOverAFileThatIsNotASavedResultAndNamesIt() throws Exception {
        Path good = Results.save(tmp, "burst", List.of(1));
        Path folder = good.getParent();
        // Newer names than the good file: an empty file (a save cut off by a full disk), one cut short, one with a
        // null experiment, and a snippet's side file (valid JSON that claims nothing), which is passed over silently.
        Path empty = Files.writeString(folder.resolve("29991231-235959-997-quick.json"), "");
        Path cut = Files.writeString(folder.resolve("29991231-235959-998-quick.json"), "{\"experiment\": \"burst\", \"da");
        Path nullExperiment = Files.writeString(folder.resolve("29991231-235959-999-quick.json"),
                "{\"experiment\": null, \"data\": [1]}");
        Files.writeString(folder.resolve("29991231-235959-999-quick-threads.json"), "{\"threadDump\": {}}");
        List<String> said = new ArrayList<>();
        assertEquals(Optional.of(good), Results.latest(tmp, "burst", said::add));
        assertEquals(3, said.size(), said.toString());
        assertTrue(said.get(0).contains(nullExperiment.toString()) && said.get(0).contains("\"experiment\" must be a string"), said.get(0));
        assertTrue(said.get(1).contains(cut.toString()) && said.get(1).contains("not complete, valid JSON"), said.get(1));
        assertTrue(said.get(2).contains(empty.toString()) && said.get(2).contains("empty"), said.get(2));
        said.forEach(line -> assertFalse(line.contains("\n"), line));
        BoundsTest.assertMessage("is not a results file: \"experiment\" must be a string", () -> Results.read(nullExperiment));
    }

    @Test
    void atomicWritesLeaveTheTargetWholeOrAbsent() throws Exception {
        Path target = tmp.resolve("a.json");
        assertEquals(target, Results.writeAtomically(target, "1".getBytes(), false));
        assertThrows(java.nio.file.FileAlreadyExistsException.class, () -> Results.writeAtomically(target, "2".getBytes(), false));
        assertEquals("1", Files.readString(target), "a refused write leaves the file there alone");
        Results.writeAtomically(target, "3".getBytes(), true);
        assertEquals("3", Files.readString(target));
        // A move whose source is gone fails, and leaves neither the target nor its hidden part file.
        assertThrows(java.nio.file.NoSuchFileException.class,
                () -> Results.moveAtomically(tmp.resolve("missing.jfr"), tmp.resolve("b.jfr"), false));
        try (Stream<Path> files = Files.list(tmp)) {
            assertEquals(List.of("a.json"), files.map(f -> f.getFileName().toString()).toList());
        }
    }

    @Test
    void aResultsFolderThatCannotBeWrittenIsRefusedInOneLineNamingIt() throws Exception {
        Path file = Files.writeString(tmp.resolve("a-file"), "x");
        for (Path bad : List.of(file, file.resolve("results"))) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> Results.checkWritable(bad));
            assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("is a file, not a folder"),
                    e.getMessage());
            assertFalse(e.getMessage().contains("\n"), e.getMessage());
        }
        Results.checkWritable(tmp.resolve("not/yet/there")); // created at the first save
        try (Stream<Path> files = Files.list(tmp)) {
            assertEquals(1, files.count(), "the check leaves nothing behind");
        }
    }
}
