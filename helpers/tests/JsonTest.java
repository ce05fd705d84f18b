package unpinned.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.gson.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

public class JsonTest {
    record Run(String label, int users, double throughput, double published, Instant at, Duration took, Path file) {}

    @Test
    void writesRecordsPrettilyWithNaNAndStrings() {
        Run r = new Run("virtual <1>", 200, 1987.5, Double.NaN, Instant.parse("2025-01-02T03:04:05Z"),
                Duration.ofMillis(1500), Path.of("results", "x.json"));
        String json = Json.write(r);
        assertTrue(json.contains("\n  \"label\": \"virtual <1>\""), json); // pretty, and no HTML escaping
        assertTrue(json.contains("\"published\": NaN"), json);
        assertTrue(json.contains("\"at\": \"2025-01-02T03:04:05Z\""), json);
        assertTrue(json.contains("\"took\": \"PT1.5S\""), json);
        assertTrue(json.contains("\"file\": \"" + Path.of("results", "x.json") + "\""), json);
    }

    @Test
    void recordsRoundTripIncludingNaN() {
        Run r = new Run("pool", 10, 99.5, Double.NaN, Instant.parse("2025-01-02T03:04:05.123Z"),
                Duration.ofSeconds(3), Path.of("a/b.json"));
        Run back = Json.read(Json.write(r), Run.class);
        assertEquals(r, back); // record equals treats NaN == NaN (Double.compare)
    }

    @Test
    void parseGivesTheTreeAndKeepsMapOrder() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("zeta", 1);
        m.put("alpha", List.of(1.5, Double.POSITIVE_INFINITY));
        m.put("mid", Map.of("k", "v"));
        String json = Json.write(m);
        assertTrue(json.indexOf("zeta") < json.indexOf("alpha") && json.indexOf("alpha") < json.indexOf("mid"), json);
        JsonObject o = Json.parse(json).getAsJsonObject();
        assertEquals(1, o.get("zeta").getAsInt());
        assertEquals(Double.POSITIVE_INFINITY, o.getAsJsonArray("alpha").get(1).getAsDouble());
        assertEquals("v", o.getAsJsonObject("mid").get("k").getAsString());
        assertEquals("null", Json.write(null));
    }

    @Test
    void badInputSaysWhatIsWrong() {
        BoundsTest.assertMessage("json is not valid JSON", () -> Json.parse("{\"a\": [1, 2"));
        BoundsTest.assertMessage("json must be a JSON text, got null", () -> Json.parse(null));
        BoundsTest.assertMessage("json is not a valid Run", () -> Json.read("{\"users\": \"many\"}", Run.class));
        BoundsTest.assertMessage("json is not a valid Run", () -> Json.read("{\"at\": \"yesterday\"}", Run.class));
        BoundsTest.assertMessage("type must be a class", () -> Json.read("{}", null));
    }
}
