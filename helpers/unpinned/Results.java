package unpinned;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Saves what an experiment measured, with the machine it ran on, as one JSON file per run:
 * {@code <dir>/<experiment>/<UTC yyyyMMdd-HHmmss-SSS>-<profile>.json}. File names sort by time,
 * so the latest run is the greatest name. Never writes into {@code <home>/data}: that folder
 * holds the reference results the notebooks compare against.
 * Needs Json.java, Machine.java, Profile.java and Course.java alongside.
 */
public final class Results {
    public static final String DIR_ENV = "UNPINNED_RESULTS";
    private static final Pattern ID = Pattern.compile("[a-z0-9-]+");
    private static final DateTimeFormatter STAMP =
            DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS").withZone(ZoneOffset.UTC);
    // Last stamp handed out, so two saves in one millisecond still get distinct, ordered names.
    private static final AtomicLong LAST_MILLIS = new AtomicLong();
    private static final AtomicBoolean NOTED_OUTSIDE = new AtomicBoolean();

    private Results() {}

    /**
     * Where results go: env {@code UNPINNED_RESULTS}, else {@code <home>/results}; outside any course folder (a
     * snippet run from anywhere with {@code jbang alias@owner/unpinned}) {@code ./results}, said once.
     */
    public static Path dir() {
        return dir(System.getenv(DIR_ENV), () -> homeOrWorkingDir(System.getenv(Course.HOME_ENV), Path.of(""), here -> {
            if (NOTED_OUTSIDE.compareAndSet(false, true)) {
                System.out.println("Results: no course folder here (no " + Course.MARKER + " in " + here + " or above,"
                        + " " + Course.HOME_ENV + " unset), so they go to " + here.resolve("results") + "; set "
                        + DIR_ENV + " to choose another folder");
            }
        }));
    }

    /**
     * The folder that holds {@code results/} when {@code UNPINNED_RESULTS} is not set: the course folder, or the
     * working directory when there is none (then handed to {@code outside} first). A {@code UNPINNED_HOME} naming
     * no folder is still an error.
     */
    static Path homeOrWorkingDir(String homeEnv, Path cwd, Consumer<Path> outside) {
        if (homeEnv != null && !homeEnv.isBlank()) return Course.home(homeEnv, cwd);
        try {
            return Course.home(null, cwd);
        } catch (IllegalStateException e) {
            Path here = cwd.toAbsolutePath().normalize();
            outside.accept(here);
            return here;
        }
    }

    /**
     * {@link #dir()}, refused before anything is measured when it lies inside {@code <home>/data}
     * (where a run would later be refused its save): call it first thing.
     */
    public static Path checkDir() {
        Path dir = dir();
        Course.findHome().ifPresent(h -> refuseReferenceData(dir, h));
        return dir;
    }

    static Path dir(String env, Supplier<Path> home) {
        if (env != null && !env.isBlank()) return Path.of(env).toAbsolutePath().normalize();
        return home.get().resolve("results");
    }

    /**
     * Saves {@code data} under {@link #dir()}; returns the file written. Refused right after an interrupted
     * or failed measurement ({@link RunGuard}): the data would be the previous run's.
     */
    public static Path save(String experiment, Object data) {
        RunGuard.check("saving '" + experiment + "'");
        return save(dir(), experiment, data);
    }

    /** Saves {@code data} under {@code dir} (for tests and one-off runs); returns the file written. */
    public static Path save(Path dir, String experiment, Object data) {
        return save(dir, Course.findHome(), experiment, data);
    }

    static Path save(Path dir, Optional<Path> home, String experiment, Object data) {
        if (dir == null) throw new IllegalArgumentException("dir must be a folder path, got null");
        checkId(experiment);
        if (data == null) throw new IllegalArgumentException("data must not be null");
        Path folder = dir.toAbsolutePath().normalize().resolve(experiment);
        home.ifPresent(h -> refuseReferenceData(folder, h));

        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("experiment", experiment);
        doc.put("machine", Machine.describe());
        doc.put("data", data);
        byte[] bytes = (Json.write(doc) + "\n").getBytes(StandardCharsets.UTF_8);
        String profile = Profile.current().id();
        try {
            Files.createDirectories(folder);
            // CREATE_NEW: another process may have taken this name; then take the next millisecond.
            for (int attempt = 0; ; attempt++) {
                Path file = folder.resolve(STAMP.format(Instant.ofEpochMilli(nextMillis())) + "-" + profile + ".json");
                try {
                    return Files.write(file, bytes, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
                } catch (FileAlreadyExistsException e) {
                    if (attempt == 100) throw e;
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot save results of '" + experiment + "' in " + folder, e);
        }
    }

    /** The newest results file of {@code experiment} under {@link #dir()}, if any. */
    public static Optional<Path> latest(String experiment) {
        return latest(dir(), experiment);
    }

    /** The newest results file of {@code experiment} under {@code dir}, if any. */
    public static Optional<Path> latest(Path dir, String experiment) {
        if (dir == null) throw new IllegalArgumentException("dir must be a folder path, got null");
        checkId(experiment);
        Path folder = dir.resolve(experiment);
        if (!Files.isDirectory(folder)) return Optional.empty();
        try (Stream<Path> files = Files.list(folder)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".json") && Files.isRegularFile(f))
                    .max((a, b) -> a.getFileName().toString().compareTo(b.getFileName().toString()));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + folder, e);
        }
    }

    /** A results (or reference data) file as a JSON object with "experiment", "machine" and "data". */
    public static JsonObject read(Path file) {
        if (file == null) throw new IllegalArgumentException("file must be a path, got null");
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read results file " + file, e);
        }
        JsonElement root = Json.parse(text);
        if (!root.isJsonObject() || !root.getAsJsonObject().has("experiment") || !root.getAsJsonObject().has("data")) {
            throw new IllegalArgumentException(file + " is not a results file: it must hold an object with \"experiment\" and \"data\"");
        }
        return root.getAsJsonObject();
    }

    static void refuseReferenceData(Path folder, Path home) {
        Path data = home.toAbsolutePath().normalize().resolve("data");
        Path target = folder.toAbsolutePath().normalize();
        if (target.startsWith(data) || realPath(target).startsWith(realPath(data))) {
            throw new IllegalStateException("refusing to write results into " + target + ": " + data
                    + " holds the reference data; set " + DIR_ENV + " to another folder (default <home>/results)");
        }
    }

    // The real location of p, or of its nearest existing ancestor, so a symlink can't sneak into data/.
    private static Path realPath(Path p) {
        Path rest = Path.of("");
        for (Path q = p; q != null; q = q.getParent()) {
            try {
                return q.toRealPath().resolve(rest);
            } catch (IOException e) {
                if (q.getFileName() == null) break;
                rest = q.getFileName().resolve(rest);
            }
        }
        return p;
    }

    private static long nextMillis() {
        long now = System.currentTimeMillis();
        return LAST_MILLIS.accumulateAndGet(now, (last, n) -> Math.max(last + 1, n));
    }

    private static void checkId(String experiment) {
        if (experiment == null || !ID.matcher(experiment).matches()) {
            throw new IllegalArgumentException("experiment must match [a-z0-9-]+ (e.g. 'sleep-vs-pool'), got "
                    + (experiment == null ? "null" : "'" + experiment + "'"));
        }
    }

    /**
     * {@link #save} for a notebook cell: one line naming the experiment and file (not the folder's path, which may be
     * a temporary one) and no value left behind for the page to print.
     */
    public static void keep(String experiment, Object data) {
        Path saved = save(experiment, data);
        System.out.println("saved as " + experiment + "/" + saved.getFileName() + " in the results folder");
    }

    /** Where results go, as a page may say it: "results/ in the course folder", or the variable that chose it. */
    public static String where() {
        Path dir = dir();
        if (Course.findHome().map(h -> h.resolve("results").equals(dir)).orElse(false)) return "results/ in the course folder";
        return "the folder " + DIR_ENV + " names";
    }
}
