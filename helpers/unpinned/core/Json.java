//DEPS com.google.code.gson:gson:2.11.0
package unpinned.core;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonDeserializer;
import com.google.gson.JsonElement;
import com.google.gson.JsonParseException;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import com.google.gson.JsonSerializer;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

/**
 * The one JSON dialect of the course (results files, reference data). Pretty, so a diff of two
 * results is readable; NaN and Infinity allowed, because "not available" is NaN throughout.
 * Instants, durations and paths are written as strings (ISO-8601 / the path text).
 */
public final class Json {
    private static final Gson GSON = new GsonBuilder()
            .setPrettyPrinting()
            .serializeSpecialFloatingPointValues()
            .disableHtmlEscaping()
            .registerTypeAdapter(Instant.class, (JsonSerializer<Instant>) (v, t, c) -> new JsonPrimitive(v.toString()))
            .registerTypeAdapter(Instant.class, (JsonDeserializer<Instant>) (j, t, c) -> Instant.parse(j.getAsString()))
            .registerTypeAdapter(Duration.class, (JsonSerializer<Duration>) (v, t, c) -> new JsonPrimitive(v.toString()))
            .registerTypeAdapter(Duration.class, (JsonDeserializer<Duration>) (j, t, c) -> Duration.parse(j.getAsString()))
            // Path is an interface (UnixPath, WindowsPath...), so match the whole hierarchy.
            .registerTypeHierarchyAdapter(Path.class, (JsonSerializer<Path>) (v, t, c) -> new JsonPrimitive(v.toString()))
            .registerTypeHierarchyAdapter(Path.class, (JsonDeserializer<Path>) (j, t, c) -> Path.of(j.getAsString()))
            .create();

    private Json() {}

    /** JSON on one line (for a protocol line such as {@code @@result {...}}). */
    public static String compact(Object value) {
        return JsonParser.parseString(GSON.toJson(value)).toString();
    }

    /** Pretty JSON for records, maps, lists, arrays, numbers and strings (null gives "null"). */
    public static String write(Object value) {
        return GSON.toJson(value);
    }

    /** The JSON tree of {@code json}; malformed input throws IllegalArgumentException. */
    public static JsonElement parse(String json) {
        if (json == null) throw new IllegalArgumentException("json must be a JSON text, got null");
        try {
            return JsonParser.parseString(json);
        } catch (JsonParseException e) {
            throw new IllegalArgumentException("json is not valid JSON: " + e.getMessage(), e);
        }
    }

    /** A JSON tree read as a {@code type} (records included); a tree of another shape throws IllegalArgumentException. */
    public static <T> T read(JsonElement json, Class<T> type) {
        if (json == null) throw new IllegalArgumentException("json must be a JSON tree, got null");
        if (type == null) throw new IllegalArgumentException("type must be a class, got null");
        try {
            return GSON.fromJson(json, type);
        } catch (RuntimeException e) { // Gson's own errors, and those of the Instant/Duration/Path readers
            throw new IllegalArgumentException("json is not a valid " + type.getSimpleName() + ": " + e.getMessage(), e);
        }
    }

    /** {@code json} read as a {@code type} (records included); malformed input throws IllegalArgumentException. */
    public static <T> T read(String json, Class<T> type) {
        if (json == null) throw new IllegalArgumentException("json must be a JSON text, got null");
        if (type == null) throw new IllegalArgumentException("type must be a class, got null");
        try {
            return GSON.fromJson(json, type);
        } catch (RuntimeException e) { // Gson's own errors, and those of the Instant/Duration/Path readers

            throw new IllegalArgumentException("json is not a valid " + type.getSimpleName() + ": " + e.getMessage(), e);
        }
    }
}
