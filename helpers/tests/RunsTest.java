package unpinned;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RunsTest {
    private static JsonObject machine(String host, String jdk, String profile) {
        JsonObject m = new JsonObject();
        m.addProperty("host", host);
        m.addProperty("cores", "2");
        m.addProperty("jdk", jdk);
        m.addProperty("profile", profile);
        return m;
    }

    private static void write(Path file, String experiment, JsonObject machine, String data) throws Exception {
        Files.createDirectories(file.getParent());
        Files.writeString(file, "{\"experiment\":\"" + experiment + "\",\"machine\":" + machine + ",\"data\":" + data + "}");
    }

    private static Runs.Run run(String data) {
        return new Runs.Run("here", "x", new JsonObject(), Json.parse(data), Path.of("x.json"));
    }

    @Test
    void timesAreInvertedSoOneIsAlwaysTheBound() {
        List<Runs.Ratio> r = Runs.ratios(run("[{\"executor\":\"fixed-8\",\"measuredMs\":3200,\"boundMs\":3150}]"));
        assertEquals(1, r.size());
        assertEquals("fixed-8", r.get(0).label());
        assertEquals(3150 / 3200.0, r.get(0).ofBound(), 1e-12);
    }

    @Test
    void throughputsAndGivenRatiosAreTakenAsTheyAre() {
        var r = Runs.ratios(run("[{\"impl\":\"virtual\",\"users\":200,\"throughput\":950,\"ratioToLowerBound\":0.97},"
                + "{\"executor\":\"pool\",\"throughput\":480,\"boundThroughput\":500},"
                + "{\"label\":\"blocking\",\"measured\":30,\"bound\":40}]"));
        assertEquals(List.of("virtual · 200 users", "pool", "blocking"), r.stream().map(Runs.Ratio::label).toList());
        assertEquals(0.97, r.get(0).ofBound(), 1e-12);
        assertEquals(0.96, r.get(1).ofBound(), 1e-12);
        assertEquals(0.75, r.get(2).ofBound(), 1e-12);
    }

    @Test
    void prefixedTimeBoundsAndNestedArraysEachGetALabel() {
        var r = Runs.ratios(run("{\"pool\":10,\"rows\":[{\"run\":\"semaphore\",\"ratioToBound\":0.9}],"
                + "\"bulkhead\":[{\"run\":\"fast\",\"ratioToBound\":0.8}],"
                + "\"scaling\":[{\"carriers\":2,\"ioWallMs\":52,\"ioBoundMs\":50,\"cpuWallMs\":200,\"cpuBoundMs\":190}]}"));
        assertEquals(List.of("semaphore", "bulkhead · fast", "scaling · P=2 · io", "scaling · P=2 · cpu"),
                r.stream().map(Runs.Ratio::label).toList());
        assertEquals(50 / 52.0, r.get(2).ofBound(), 1e-12);
    }

    @Test
    void rowsWithoutABoundAndNonPositiveFiguresAreLeftOut() {
        assertTrue(Runs.ratios(run("[{\"kind\":\"virtual\",\"heapBytesPerThread\":990}]")).isEmpty());
        assertTrue(Runs.ratios(run("{\"sleepMs\":50}")).isEmpty());
        assertTrue(Runs.ratios(run("[{\"mode\":\"x\",\"ratioToBound\":0}]")).isEmpty());
    }

    @Test
    void referenceRunsAreOneSourcePerFolder(@TempDir Path dir) throws Exception {
        write(dir.resolve("ref-a/01-io-bound.json"), "01-io-bound", machine("vm", "25.0.3+9-LTS", "quick"),
                "[{\"executor\":\"virtual\",\"measuredMs\":51,\"boundMs\":50}]");
        write(dir.resolve("ref-b/01-io-bound.json"), "01-io-bound", machine("mac", "21.0.8", "full"), "[]");
        Files.writeString(dir.resolve("README.md"), "not a run");
        var runs = Runs.references(dir);
        assertEquals(List.of("ref-a", "ref-b"), runs.stream().map(Runs.Run::source).toList());
        assertEquals("01-io-bound", runs.get(0).experiment());
    }

    @Test
    void aResultsFolderKeepsEachMachinesLatestRun(@TempDir Path dir) throws Exception {
        JsonObject here = machine("vm", "25.0.3+9-LTS", "quick");
        JsonObject other = machine("laptop", "21.0.8+9", "quick");
        String older = "[{\"executor\":\"virtual\",\"measuredMs\":60,\"boundMs\":50}]";
        String newer = "[{\"executor\":\"virtual\",\"measuredMs\":55,\"boundMs\":50}]";
        write(dir.resolve("01-io-bound/20261122-100000-000-quick.json"), "01-io-bound", here, older);
        write(dir.resolve("01-io-bound/20261122-110000-000-quick.json"), "01-io-bound", here, newer);
        write(dir.resolve("01-io-bound/20261122-090000-000-quick.json"), "01-io-bound", other, older);
        var runs = Runs.results(dir);
        assertEquals(2, runs.size());
        Map<String, Double> bySource = new java.util.TreeMap<>();
        Runs.ratios(runs).forEach(r -> bySource.put(r.source(), r.ofBound()));
        assertEquals(Map.of("laptop · 2 cores · JDK 21.0.8 · quick", 50 / 60.0, "vm · 2 cores · JDK 25.0.3 · quick", 50 / 55.0),
                bySource);
        assertTrue(Runs.results(dir.resolve("missing")).isEmpty());
        Files.createDirectories(dir.resolve("s19-thread-dump"));
        Files.writeString(dir.resolve("s19-thread-dump/20261122-threads.json"), "{\"threadDump\":{}}");
        Files.writeString(dir.resolve("01-io-bound/notes.json"), "not json at all");
        assertEquals(2, Runs.results(dir).size(), "files that are not saved results are passed over");
    }

    @Test
    void aFileThatIsNotAResultIsRefusedByName(@TempDir Path dir) throws Exception {
        Files.createDirectories(dir.resolve("ref"));
        Files.writeString(dir.resolve("ref/notes.json"), "{\"hello\":1}");
        var e = assertThrows(IllegalArgumentException.class, () -> Runs.references(dir));
        assertTrue(e.getMessage().contains("notes.json"), e.getMessage());
    }

    @Test
    void aResultWhoseExperimentIsNotAStringIsPassedOverByName(@TempDir Path dir) throws Exception {
        JsonObject here = machine("vm", "25.0.3+9-LTS", "quick");
        write(dir.resolve("01-io-bound/20261122-100000-000-quick.json"), "01-io-bound", here,
                "[{\"executor\":\"virtual\",\"measuredMs\":60,\"boundMs\":50}]");
        Path nulled = dir.resolve("01-io-bound/20261122-110000-000-quick.json");
        Files.writeString(nulled, "{\"experiment\":null,\"machine\":" + here + ",\"data\":[]}");
        Path number = dir.resolve("01-io-bound/20261122-120000-000-quick.json");
        Files.writeString(number, "{\"experiment\":{\"a\":1},\"machine\":" + here + ",\"data\":[]}");
        List<String> said = new java.util.ArrayList<>();
        var runs = Runs.results(dir, said::add);
        assertEquals(1, runs.size());
        assertEquals("01-io-bound", runs.get(0).experiment());
        assertEquals(2, said.size(), said.toString());
        assertTrue(said.get(0).contains(nulled.toString()), said.get(0));
        assertTrue(said.get(1).contains(number.toString()), said.get(1));
        // A reference run with such a file is refused by name, not with a Gson exception.
        Files.createDirectories(dir.resolve("refs/ref"));
        Files.copy(nulled, dir.resolve("refs/ref/01-io-bound.json"));
        var e = assertThrows(IllegalArgumentException.class, () -> Runs.references(dir.resolve("refs")));
        assertTrue(e.getMessage().contains("01-io-bound.json") && e.getMessage().contains("must be a string"), e.getMessage());
    }
}
