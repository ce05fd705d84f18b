package unpinned.showing;

import unpinned.core.Busy;

import unpinned.core.Json;
import unpinned.core.Measurement;
import unpinned.core.Results;

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

public class RunsTest {
    private static JsonObject machine(String host, String jdk, String profile) {
        JsonObject m = new JsonObject();
        m.addProperty("host", host);
        m.addProperty("cores", "2");
        m.addProperty("jdk", jdk);
        m.addProperty("profile", profile);
        return m;
    }

    // A file as Results.save writes it: the data, and beside it the measurements (io: measured 51 ms, bound 50 ms).
    private static void write(Path file, String experiment, JsonObject machine, String measurements) throws Exception {
        Files.createDirectories(file.getParent());
        Files.writeString(file, "{\"experiment\":\"" + experiment + "\",\"machine\":" + machine
                + ",\"measurements\":" + measurements + ",\"data\":[{\"anything\":1}]}");
    }

    private static String io(double measuredMs) {
        return Json.compact(List.of(Measurement.of("virtual", measuredMs, "ms").bound(50, Measurement.Bound.LOWER_TIME)));
    }

    private static Runs.Run run(Measurement... measurements) {
        return new Runs.Run("here", "x", new JsonObject(), List.of(measurements), Path.of("x.json"), unpinned.core.Busy.State.UNKNOWN);
    }

    @Test
    void aShareBelowTheReferenceByMoreThanBothSpreadsIsDegradedAndABusyMachineNamed() {
        var busy = new unpinned.core.Busy.State(1.1, 0.8, 2, 20);
        var idle = new unpinned.core.Busy.State(0.05, 1.0, 2, 20);
        var ratios = new java.util.ArrayList<Runs.Ratio>();
        for (var m : List.of(
                Measurement.of("spring · 500 users", 600, "req/s").bound(5000, Measurement.Bound.LITTLE).spread(20),
                Measurement.of("pool · 500 users", 490, "req/s").bound(500, Measurement.Bound.LITTLE).spread(10))) {
            ratios.add(new Runs.Ratio("mine", "06-x", m.what(), m.ofBound(), Runs.share(m), busy));
        }
        for (var m : List.of(
                Measurement.of("spring · 500 users", 2600, "req/s").bound(5000, Measurement.Bound.LITTLE).spread(40),
                Measurement.of("pool · 500 users", 495, "req/s").bound(500, Measurement.Bound.LITTLE).spread(10))) {
            ratios.add(new Runs.Ratio("ref", "06-x", m.what(), m.ofBound(), Runs.share(m), idle));
        }
        var rows = Runs.againstReference(ratios, "mine", "ref");
        assertEquals(List.of(Runs.DEGRADED, "as the reference"), rows.stream().map(Runs.AgainstReference::verdict).toList());
        assertTrue(rows.get(0).why().contains("the machine was busy: 1.10 of 2 cores"), rows.get(0).why());
        String said = Runs.summary("mine", "ref", rows);
        assertTrue(said.contains("of 2 shared figures, 1 sit as the reference") && said.contains("1 are degraded"), said);
    }

    @Test
    void timesAreInvertedSoOneIsAlwaysTheBound() {
        List<Runs.Ratio> r = Runs.ratios(run(Measurement.of("fixed-8", 3200, "ms").bound(3150, Measurement.Bound.LOWER_TIME)));
        assertEquals(1, r.size());
        assertEquals("fixed-8", r.get(0).label());
        assertEquals(3150 / 3200.0, r.get(0).ofBound(), 1e-12);
    }

    @Test
    void everyLimitCountsAndItsNameIsTheLabel() {
        var r = Runs.ratios(run(Measurement.of("virtual · 200 users", 950, "orders/s").bound(1000, Measurement.Bound.LITTLE),
                Measurement.of("pool", 480, "req/s").bound(500, Measurement.Bound.CPU),
                Measurement.of("CPU busy", 0.75, "share of the cores").bound(1.0, Measurement.Bound.UPPER)));
        assertEquals(List.of("virtual · 200 users", "pool", "CPU busy"), r.stream().map(Runs.Ratio::label).toList());
        assertEquals(0.95, r.get(0).ofBound(), 1e-12);
        assertEquals(0.96, r.get(1).ofBound(), 1e-12);
        assertEquals(0.75, r.get(2).ofBound(), 1e-12);
    }

    @Test
    void estimatesFiguresWithoutABoundAndNonPositiveFiguresAreLeftOut() {
        assertTrue(Runs.ratios(run(Measurement.of("heap per thread", 990, "B"))).isEmpty());
        assertTrue(Runs.ratios(run(Measurement.of("expected", 90, "req/s").bound(100, Measurement.Bound.ESTIMATE))).isEmpty());
        assertTrue(Runs.ratios(run(Measurement.of("x", 0, "req/s").bound(100, Measurement.Bound.LITTLE))).isEmpty());
        assertTrue(Runs.ratios(run(Measurement.of("x", Double.NaN, "ms").bound(100, Measurement.Bound.LOWER_TIME))).isEmpty());
    }

    record IoRow(String executor, double measuredMs) implements Measurement.Measured {
        public List<Measurement> measurements() {
            return List.of(Measurement.of(executor, measuredMs, "ms").bound(50, Measurement.Bound.LOWER_TIME)
                    .published(54, "vt-jmh-blog"));
        }
    }

    @Test
    void aSavedFileIsReadBackWithItsMeasurements(@TempDir Path dir) throws Exception {
        Results.save(dir, "01-io-bound", List.of(new IoRow("virtual", 55)));
        var runs = Runs.results(dir);
        assertEquals(1, runs.size());
        Measurement m = runs.get(0).measurements().get(0);
        assertEquals(List.of("virtual", 55.0, 50.0, Measurement.Bound.LOWER_TIME, 54.0, "vt-jmh-blog"),
                List.of(m.what(), m.value(), m.bound(), m.boundKind(), m.published(), m.source()));
        assertEquals(50 / 55.0, Runs.ratios(runs).get(0).ofBound(), 1e-12);
    }

    @Test
    void referenceRunsAreOneSourcePerFolder(@TempDir Path dir) throws Exception {
        write(dir.resolve("ref-a/01-io-bound.json"), "01-io-bound", machine("vm", "25.0.3+9-LTS", "quick"),
                io(51));
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
        String older = io(60);
        String newer = io(55);
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
        write(dir.resolve("01-io-bound/20261122-100000-000-quick.json"), "01-io-bound", here, io(60));
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

    @Test
    void aFileSavedBeforeMeasurementsIsRefusedInOneLineNamingIt(@TempDir Path dir) throws Exception {
        JsonObject here = machine("vm", "25.0.3+9-LTS", "quick");
        write(dir.resolve("01-io-bound/20261122-100000-000-quick.json"), "01-io-bound", here, io(60));
        // newer, as chapter 01 saved it before results named their measurements: only "data"
        Path old = dir.resolve("01-io-bound/20261122-110000-000-quick.json");
        Files.writeString(old, "{\"experiment\":\"01-io-bound\",\"machine\":" + here
                + ",\"data\":[{\"executor\":\"virtual\",\"measuredMs\":55,\"boundMs\":50}]}");
        Path unreadable = dir.resolve("01-io-bound/20261122-120000-000-quick.json");
        Files.writeString(unreadable, "{\"experiment\":\"01-io-bound\",\"machine\":" + here
                + ",\"measurements\":[{\"what\":\"virtual\"}],\"data\":[]}");
        List<String> said = new java.util.ArrayList<>();
        var runs = Runs.results(dir, said::add);
        assertEquals(1, runs.size(), "the older run with measurements is the one compared");
        assertEquals(50 / 60.0, Runs.ratios(runs).get(0).ofBound(), 1e-12);
        assertEquals(2, said.size(), said.toString());
        assertTrue(said.get(0).contains(old.toString()) && said.get(0).contains("no \"measurements\""), said.get(0));
        assertTrue(said.get(1).contains(unreadable.toString()) && said.get(1).contains("measurements"), said.get(1));
        assertTrue(said.stream().noneMatch(l -> l.contains("\n")), "one line each: " + said);
        // A reference run saved that way is refused by name, in one line.
        Files.createDirectories(dir.resolve("refs/ref"));
        Files.copy(old, dir.resolve("refs/ref/01-io-bound.json"));
        var e = assertThrows(IllegalArgumentException.class, () -> Runs.references(dir.resolve("refs")));
        assertTrue(e.getMessage().contains("01-io-bound.json") && e.getMessage().contains("no \"measurements\"")
                && !e.getMessage().contains("\n"), e.getMessage());
    }
}
