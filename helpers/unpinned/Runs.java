package unpinned;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * Saved runs from several machines, made comparable: each result's figures as a share of its own physical bound.
 * Absolute numbers differ with cores and CPUs; "how close to the bound" should not, so that is compared first.
 *
 * <p>Two kinds of folders: a reference run ({@code data/reference-runs/<name>/<experiment>.json}, one file per
 * experiment) and a results folder ({@code results/<experiment>/<stamp>-<profile>.json}, many runs, possibly copied
 * from several machines or JDKs). A results folder is split by machine (host, cores, JDK, profile), and only each
 * machine's latest run of an experiment is kept. Needs Json.java and Results.java (and what it needs) alongside.
 */
public final class Runs {
    private Runs() {}

    /** One saved result: where it came from (a reference run's name or a machine), its experiment and data. */
    public record Run(String source, String experiment, JsonObject machine, JsonElement data, Path file) {}

    /** One figure as a share of its bound: 1 = at the bound; below 1 = that far from it (time bounds inverted). */
    public record Ratio(String source, String experiment, String label, double ofBound) {}

    // Fields that name a row, in the order they go into its label.
    private static final List<String> LABEL_FIELDS =
            List.of("executor", "impl", "server", "mode", "label", "kind", "run", "version", "jdk");

    /** Every reference run under {@code folder} (e.g. data/reference-runs), one source per sub-folder. */
    public static List<Run> references(Path folder) {
        List<Run> runs = new ArrayList<>();
        for (Path dir : list(folder).stream().filter(Files::isDirectory).toList()) {
            for (Path file : list(dir).stream().filter(p -> p.toString().endsWith(".json")).toList()) {
                runs.add(readReference(file, dir.getFileName().toString()));
            }
        }
        return runs;
    }

    /**
     * The runs saved in a results folder (e.g. {@link Results#dir()}): for each machine, the latest run of each
     * experiment. Other JSON files there (a snippet's thread dump, say) are passed over; a file that should be a
     * saved result but is not (empty, cut short, "experiment" not a string...) is passed over with one line on stderr
     * naming it. An empty list when the folder does not exist yet.
     */
    public static List<Run> results(Path folder) {
        return results(folder, System.err::println);
    }

    static List<Run> results(Path folder, Consumer<String> passedOver) {
        Map<String, Run> latest = new TreeMap<>();
        for (Path dir : list(folder).stream().filter(Files::isDirectory).toList()) {
            List<Path> files = list(dir).stream().filter(p -> p.toString().endsWith(".json")).toList();
            for (Path file : files) { // names sort by time, so a later file replaces an earlier one
                JsonObject saved = Results.readSaved(file, passedOver);
                if (saved == null) continue;
                Run run = run(file, null, saved);
                latest.put(run.source() + "\u0000" + run.experiment(), run);
            }
        }
        return new ArrayList<>(latest.values());
    }

    /** How a machine is named in charts: host, cores, JDK and profile, e.g. "vm · 2 cores · JDK 25.0.3 · quick". */
    public static String machineName(JsonObject machine) {
        String jdk = text(machine, "jdk").replaceFirst("\\+.*", "");
        return text(machine, "host") + " · " + text(machine, "cores") + " cores · JDK " + jdk + " · "
                + text(machine, "profile");
    }

    /**
     * Every figure in {@code run} that has a bound beside it, as a share of that bound. A row qualifies when it
     * carries {@code ratioToBound} or {@code ratioToLowerBound}, a throughput with its bound ({@code boundThroughput}
     * or {@code bound}), {@code measured} with {@code bound}, or a time {@code <x>BoundMs} with its measured
     * {@code <x>WallMs} or {@code <x>Ms} (then bound / measured: a time can't beat its bound from below). Rows are
     * the data's array, or the arrays inside its object (their key then starts the label).
     */
    public static List<Ratio> ratios(Run run) {
        List<Ratio> out = new ArrayList<>();
        for (Map.Entry<String, JsonArray> rows : rowArrays(run.data()).entrySet()) {
            for (JsonElement e : rows.getValue()) {
                if (!e.isJsonObject()) continue;
                JsonObject row = e.getAsJsonObject();
                String label = label(rows.getKey(), row);
                for (Map.Entry<String, Double> r : rowRatios(row).entrySet()) {
                    double v = r.getValue();
                    if (Double.isFinite(v) && v > 0) {
                        String name = r.getKey().isEmpty() ? label : label.isEmpty() ? r.getKey() : label + " · " + r.getKey();
                        out.add(new Ratio(run.source(), run.experiment(), name.isEmpty() ? "all" : name, v));
                    }
                }
            }
        }
        return out;
    }

    /** {@link #ratios(Run)} of many runs, in order. */
    public static List<Ratio> ratios(List<Run> runs) {
        return runs.stream().flatMap(r -> ratios(r).stream()).toList();
    }

    static Map<String, JsonArray> rowArrays(JsonElement data) {
        Map<String, JsonArray> arrays = new LinkedHashMap<>();
        if (data == null) return arrays;
        if (data.isJsonArray()) {
            arrays.put("", data.getAsJsonArray());
        } else if (data.isJsonObject()) {
            for (Map.Entry<String, JsonElement> e : data.getAsJsonObject().entrySet()) {
                if (e.getValue().isJsonArray()) {
                    // "rows" and "runs" say nothing a reader needs; other keys (e.g. "bulkhead") do
                    arrays.put(List.of("rows", "runs").contains(e.getKey()) ? "" : e.getKey(), e.getValue().getAsJsonArray());
                }
            }
        }
        return arrays;
    }

    static Map<String, Double> rowRatios(JsonObject row) {
        Map<String, Double> found = new LinkedHashMap<>();
        if (has(row, "ratioToBound")) found.put("", num(row, "ratioToBound"));
        else if (has(row, "ratioToLowerBound")) found.put("", num(row, "ratioToLowerBound"));
        else if (has(row, "throughput") && has(row, "boundThroughput")) found.put("", num(row, "throughput") / num(row, "boundThroughput"));
        else if (has(row, "throughput") && has(row, "bound")) found.put("", num(row, "throughput") / num(row, "bound"));
        else if (has(row, "measured") && has(row, "bound")) found.put("", num(row, "measured") / num(row, "bound"));
        for (String key : row.keySet()) {
            if (!key.endsWith("BoundMs") && !key.equals("boundMs")) continue;
            String prefix = key.equals("boundMs") ? "" : key.substring(0, key.length() - "BoundMs".length());
            String measured = prefix.isEmpty() ? "measuredMs"
                    : has(row, prefix + "WallMs") ? prefix + "WallMs" : prefix + "Ms";
            if (has(row, measured)) found.putIfAbsent(prefix, num(row, key) / num(row, measured));
        }
        return found;
    }

    static String label(String prefix, JsonObject row) {
        List<String> parts = new ArrayList<>();
        if (!prefix.isEmpty()) parts.add(prefix);
        for (String f : LABEL_FIELDS) {
            if (row.has(f) && row.get(f).isJsonPrimitive()) parts.add(row.get(f).getAsString());
        }
        if (has(row, "carriers")) parts.add("P=" + row.get("carriers").getAsInt());
        if (has(row, "users")) parts.add(row.get("users").getAsInt() + " users");
        return String.join(" · ", parts);
    }

    private static boolean has(JsonObject row, String key) {
        JsonElement e = row.get(key);
        return e != null && e.isJsonPrimitive() && e.getAsJsonPrimitive().isNumber();
    }

    private static double num(JsonObject row, String key) {
        return row.get(key).getAsDouble();
    }

    private static String text(JsonObject o, String key) {
        return o != null && o.has(key) && o.get(key).isJsonPrimitive() ? o.get(key).getAsString() : "unknown";
    }

    /**
     * The reference run saved in {@code file}, named {@code source}: a file that is not what {@link Results#save}
     * writes (an object with "data", and "experiment" a string if present) is refused by name.
     */
    private static Run readReference(Path file, String source) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        JsonElement parsed;
        try {
            parsed = Json.parse(text);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(file + " is not JSON; keep only Results.save files there", e);
        }
        JsonObject o = parsed.isJsonObject() ? parsed.getAsJsonObject() : null;
        if (o == null || !o.has("data")) {
            throw new IllegalArgumentException(file + " is not a saved result (no \"data\"); keep only Results.save"
                    + " files in that folder");
        }
        JsonElement experiment = o.get("experiment");
        if (experiment != null && !(experiment.isJsonPrimitive() && experiment.getAsJsonPrimitive().isString())) {
            throw new IllegalArgumentException(file + " is not a saved result: \"experiment\" must be a string, got "
                    + experiment + "; keep only Results.save files in that folder");
        }
        return run(file, source, o);
    }

    /** The run in {@code o}, read from {@code file}, named {@code source} (or after its machine when null). */
    private static Run run(Path file, String source, JsonObject o) {
        JsonObject machine = o.has("machine") && o.get("machine").isJsonObject() ? o.getAsJsonObject("machine") : new JsonObject();
        String experiment = o.has("experiment") ? o.get("experiment").getAsString()
                : file.getFileName().toString().replaceFirst("\\.json$", "");
        return new Run(source != null ? source : machineName(machine), experiment, machine, o.get("data"), file);
    }

    private static List<Path> list(Path folder) {
        if (folder == null || !Files.isDirectory(folder)) return List.of();
        try (Stream<Path> s = Files.list(folder)) {
            return s.sorted(Comparator.comparing(Path::toString)).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + folder, e);
        }
    }
}
