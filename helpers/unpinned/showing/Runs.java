//SOURCES ../core/Busy.java
//SOURCES ../core/Figure.java
//SOURCES ../core/Json.java
//SOURCES ../core/Measurement.java
//SOURCES ../core/Results.java
package unpinned.showing;

import unpinned.core.Busy;
import unpinned.core.Figure;
import unpinned.core.Json;
import unpinned.core.Measurement;
import unpinned.core.Results;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
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
 * machine's latest run of an experiment is kept. Each run is read for its {@code "measurements"}: the typed
 * {@link Measurement}s {@link Results#save} writes beside the data, each with its bound and the bound's kind, so
 * nothing here guesses a bound from a field's name. A file saved before results named their measurements has none
 * to compare and is refused by name. Needs Json.java, Measurement.java and Results.java (and what it needs).
 */
public final class Runs {
    private Runs() {}

    /**
     * One saved result: where it came from (a reference run's name or a machine), its experiment and figures, and
     * how busy the rest of the machine was while it ran ({@link Busy.State#UNKNOWN} for a file that did not record it).
     */
    public record Run(String source, String experiment, JsonObject machine, List<Measurement> measurements,
                      Path file, Busy.State busy) {}

    /**
     * One figure as a share of its bound: 1 = at the bound; below 1 = that far from it (time bounds inverted); with
     * its interval where the run recorded a spread, and its run's machine state.
     */
    public record Ratio(String source, String experiment, String label, double ofBound, Figure share, Busy.State busy) {}

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
     * saved result but is not (empty, cut short, "experiment" not a string...), or was saved before results named
     * their measurements (no "measurements"), is passed over with one line on stderr naming it. An empty list when
     * the folder does not exist yet.
     */
    public static List<Run> results(Path folder) {
        return results(folder, System.err::println);
    }

    static List<Run> results(Path folder, Consumer<String> passedOver) {
        Map<String, Run> latest = new TreeMap<>();
        try (Results.SaidOnce once = new Results.SaidOnce(passedOver)) { // 3,000 bad files: one line
            for (Path dir : list(folder).stream().filter(Files::isDirectory).toList()) {
                List<Path> files = list(dir).stream().filter(p -> p.toString().endsWith(".json")).toList();
                for (Path file : files) { // names sort by time, so a later file replaces an earlier one
                    JsonObject saved = Results.readSaved(file, once); // passes over a FIFO, unread
                    if (saved == null) continue;
                    List<Measurement> measurements;
                    try {
                        measurements = measurements(saved);
                    } catch (IllegalArgumentException e) {
                        once.accept("passing over " + Results.shown(file) + ": " + e.getMessage()
                                + "; run its chapter again to compare it");
                        continue;
                    }
                    Run run = run(file, null, saved, measurements);
                    latest.put(run.source() + "\u0000" + run.experiment(), run);
                }
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
     * Every figure of {@code run} held against a limit physics sets (Little's law, the CPU, another upper limit, a
     * time that can't be beaten), as a share of it: {@link Measurement#ofBound()}, 1 = at the bound. Figures whose
     * bound is only an estimate ({@link Measurement.Bound#ESTIMATE}) are left out: they are no bound to be near.
     */
    public static List<Ratio> ratios(Run run) {
        return run.measurements().stream()
                .filter(m -> m.boundKind() != null && m.boundKind().isLimit())
                .filter(m -> Double.isFinite(m.ofBound()))
                .map(m -> new Ratio(run.source(), run.experiment(), m.what(), m.ofBound(), share(m), run.busy()))
                .toList();
    }

    /**
     * A figure of one run against the same figure of a reference run, each a share of its bound with its interval:
     * "degraded" when the run's whole interval sits below the reference's, "above" the other way, else "as the
     * reference" (within both spreads); {@code why} names the machine state that explains a degraded figure, measured.
     */
    public record AgainstReference(String experiment, String figure, double share, double reference, String verdict,
                                   String why) {}

    /** Each figure {@code source} shares with {@code referenceSource}, judged against it; degraded ones first. */
    public static List<AgainstReference> againstReference(List<Ratio> ratios, String source, String referenceSource) {
        Map<String, Ratio> reference = new TreeMap<>();
        ratios.stream().filter(r -> r.source().equals(referenceSource))
                .forEach(r -> reference.put(r.experiment() + "\u0000" + r.label(), r));
        List<AgainstReference> out = new ArrayList<>();
        for (Ratio r : ratios) {
            if (!r.source().equals(source)) continue;
            Ratio ref = reference.get(r.experiment() + "\u0000" + r.label());
            if (ref == null) continue;
            String verdict = r.share().high() < ref.share().low() ? DEGRADED
                    : r.share().low() > ref.share().high() ? "above" : "as the reference";
            out.add(new AgainstReference(r.experiment(), r.label(), r.ofBound(), ref.ofBound(), verdict,
                    verdict.equals(DEGRADED) ? explanation(r.busy(), ref.busy()) : ""));
        }
        out.sort(Comparator.comparing((AgainstReference a) -> !a.verdict().equals(DEGRADED))
                .thenComparingDouble(a -> a.share() - a.reference()));
        return out;
    }

    /**
     * One sentence, from {@link #againstReference}'s rows: how many figures sit as the reference, how many are
     * degraded (and in which experiments, with what explains them), how many above.
     */
    public static String summary(String source, String referenceSource, List<AgainstReference> rows) {
        long degraded = rows.stream().filter(r -> r.verdict().equals(DEGRADED)).count();
        long above = rows.stream().filter(r -> r.verdict().equals("above")).count();
        StringBuilder b = new StringBuilder(String.format(java.util.Locale.ROOT, "**%s against the reference run %s:**"
                        + " of %d shared figures, %d sit as the reference within both spreads, %d are degraded (below it"
                        + " by more than both spreads) and %d above it.", source, referenceSource, rows.size(),
                rows.size() - degraded - above, degraded, above));
        Map<String, List<AgainstReference>> byExperiment = new TreeMap<>();
        rows.stream().filter(r -> r.verdict().equals(DEGRADED))
                .forEach(r -> byExperiment.computeIfAbsent(r.experiment(), k -> new ArrayList<>()).add(r));
        byExperiment.forEach((e, rs) -> b.append(String.format(java.util.Locale.ROOT, " %s: %d degraded (the furthest"
                        + " %.2f of its bound against %.2f); %s.", e, rs.size(), rs.get(0).share(), rs.get(0).reference(),
                rs.get(0).why())));
        return b.toString();
    }

    /** The verdict of a figure below the reference's by more than both spreads. */
    public static final String DEGRADED = "degraded";

    // What the run measured of its machine that explains a lower share, or that nothing it measured does
    static String explanation(Busy.State mine, Busy.State reference) {
        if (mine.busy()) {
            return "the machine was busy: " + mine.describe()
                    + (Double.isFinite(reference.otherCores()) ? " (the reference: " + reference.describe() + ")" : "");
        }
        if (!Double.isFinite(mine.otherCores())) return "this run recorded no machine state to explain it";
        return "not a busy machine (" + mine.describe() + "): compare cores, CPU, JDK and profile";
    }

    /**
     * {@link Measurement#ofBound()} with its interval, from the spread the row recorded (none otherwise): two runs'
     * shares are told apart only when their intervals are.
     */
    public static Figure share(Measurement m) {
        if (!Double.isFinite(m.ofBound())) throw new IllegalArgumentException(m.what() + " has no bound to be a share of");
        Figure v = m.spread() == null ? Figure.single(m.value()) : Figure.of(m.value(), m.spread(), "the run's spread");
        return m.boundKind().isUpper() ? v.over(m.bound()) : Figure.exact(m.bound()).over(v);
    }

    /** {@link #ratios(Run)} of many runs, in order. */
    public static List<Ratio> ratios(List<Run> runs) {
        return runs.stream().flatMap(r -> ratios(r).stream()).toList();
    }

    private static String text(JsonObject o, String key) {
        return o != null && o.has(key) && o.get(key).isJsonPrimitive() ? o.get(key).getAsString() : "unknown";
    }

    /**
     * The measurements a saved result names; a file without them (saved before results named their measurements)
     * or with ones that can't be read is refused in one line.
     */
    static List<Measurement> measurements(JsonObject saved) {
        JsonElement m = saved.get("measurements");
        if (m == null) {
            throw new IllegalArgumentException("saved before results named their measurements (no \"measurements\")");
        }
        if (!m.isJsonArray()) throw new IllegalArgumentException("\"measurements\" must be a list, got " + m);
        try {
            Measurement[] read = Json.read(m.toString(), Measurement[].class);
            if (Arrays.asList(read).contains(null)) throw new IllegalArgumentException("a measurement is null");
            return List.of(read);
        } catch (IllegalArgumentException e) {
            String why = String.valueOf(e.getMessage()).lines().findFirst().orElse("").strip();
            throw new IllegalArgumentException("its \"measurements\" can't be read (" + why + ")", e);
        }
    }

    /**
     * The reference run saved in {@code file}, named {@code source}: a file that is not what {@link Results#save}
     * writes (an object with "data", and "experiment" a string if present) is refused by name.
     */
    private static Run readReference(Path file, String source) {
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException(file + " is not a regular file; keep only Results.save files in that"
                    + " folder");
        }
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
        try {
            return run(file, source, o, measurements(o));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(file + " is refused: " + e.getMessage() + "; keep only files the"
                    + " current Results.save writes in that folder", e);
        }
    }

    /** The run in {@code o}, read from {@code file}, named {@code source} (or after its machine when null). */
    private static Run run(Path file, String source, JsonObject o, List<Measurement> measurements) {
        JsonObject machine = o.has("machine") && o.get("machine").isJsonObject() ? o.getAsJsonObject("machine") : new JsonObject();
        String experiment = o.has("experiment") ? o.get("experiment").getAsString()
                : file.getFileName().toString().replaceFirst("\\.json$", "");
        Busy.State busy = Busy.State.UNKNOWN;
        if (o.has("busy") && o.get("busy").isJsonObject()) {
            try {
                busy = Json.read(o.get("busy").toString(), Busy.State.class);
            } catch (IllegalArgumentException e) {
                busy = Busy.State.UNKNOWN; // a state it can't read says nothing about the machine
            }
        }
        return new Run(source != null ? source : machineName(machine), experiment, machine, measurements,
                file, busy);
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
