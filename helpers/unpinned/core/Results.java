//SOURCES Busy.java
//SOURCES Course.java
//SOURCES Json.java
//SOURCES Machine.java
//SOURCES Measurement.java
//SOURCES Profile.java
//SOURCES RunGuard.java
package unpinned.core;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Saves what an experiment measured, with the machine it ran on, as one JSON file per run:
 * {@code <dir>/<experiment>/<UTC yyyyMMdd-HHmmss-SSS>-<profile>.json}. File names sort by time,
 * so the latest run is the greatest name. Never writes into {@code <home>/data}: that folder
 * holds the reference results the notebooks compare against.
 *
 * <p>Every file a reader later trusts (a results file, a chart, a kept .jfr or thread dump) is put in place
 * atomically ({@link #writeAtomically}, {@link #moveAtomically}): written beside its target under a hidden name, then
 * renamed, so a failed write (a full disk) leaves no file at all. Readers ({@link #latest}, {@link Runs}) name on
 * stderr any results file they pass over ({@link #readSaved}).
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
     * A save that could not be written (a full disk, a folder that went away): nothing was saved. Its message is one
     * line; a snippet's {@code main} that lets it through ends with that line and exit code 1 ({@link #checkDir}).
     */
    public static final class SaveFailed extends IllegalStateException {
        public SaveFailed(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /**
     * {@link #dir()}, refused before anything is measured when it lies inside {@code <home>/data} (where a run
     * would later be refused its save) or cannot be written (a path that is a file, a read-only folder): call it
     * first thing. Every snippet that saves calls it before it measures, so it also makes such a snippet end with
     * one line, not a stack trace, if its save fails after all ({@link SaveFailed}, e.g. the disk filled up).
     */
    public static Path checkDir() {
        return checkDir(null);
    }

    /**
     * {@link #checkDir()} for a run that saves under {@code <dir>/<experiment>}: that folder, where it exists, must be
     * one too (a file, or a symbolic link leading nowhere, in its place is found now, not after measuring).
     */
    public static Path checkDir(String experiment) {
        Path dir = dir();
        Course.findHome().ifPresent(h -> refuseReferenceData(dir, h));
        checkWritable(experiment == null ? dir : dir.resolve(checkId(experiment)));
        endSnippetsWithOneLineOnSaveFailed();
        return dir;
    }

    /**
     * Refuses {@code dir} in one line naming it unless a file can be created there (or, if it does not exist yet,
     * in the nearest folder above it, where it will be created). Anything in the way is found here, before a run
     * measures: a file, or a symbolic link that leads nowhere (dangling, or a loop). Leaves nothing behind.
     */
    static void checkWritable(Path dir) {
        Path target = dir.toAbsolutePath().normalize();
        Path existing = target;
        while (existing != null && !Files.exists(existing, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            existing = existing.getParent();
        }
        String refused = "results cannot be saved in " + target + ": ";
        String fix = "; set " + DIR_ENV + " to a folder you can write";
        if (existing == null) throw new IllegalStateException(refused + "no part of that path exists" + fix);
        if (Files.isSymbolicLink(existing) && !Files.exists(existing)) {
            String why;
            try {
                existing.toRealPath();
                why = "leads nowhere";
            } catch (IOException e) {
                why = "leads nowhere (" + why(e) + ")";
            }
            throw new IllegalStateException(refused + existing + " is a symbolic link that " + why + fix);
        }
        if (!Files.isDirectory(existing)) {
            throw new IllegalStateException(refused + existing + " is a file, not a folder" + fix);
        }
        try {
            Files.delete(Files.createTempFile(existing, ".write-check-", ".part"));
        } catch (IOException e) {
            throw new IllegalStateException(refused + existing + " cannot be written (" + why(e) + ")" + fix, e);
        }
    }

    private static final AtomicBoolean HANDLER_SET = new AtomicBoolean();

    // A snippet's main that lets a SaveFailed through ends with its one line and the launcher's exit code 1; any
    // other uncaught exception is printed as the JVM prints it. In the notebook kernel, cells' exceptions never
    // get here (the kernel catches them), so this changes nothing there.
    private static void endSnippetsWithOneLineOnSaveFailed() {
        if (!HANDLER_SET.compareAndSet(false, true) || Thread.getDefaultUncaughtExceptionHandler() != null) return;
        Thread.setDefaultUncaughtExceptionHandler((thread, e) -> {
            if (e instanceof SaveFailed) {
                System.err.println(e.getMessage() + "; nothing saved");
            } else {
                System.err.print("Exception in thread \"" + thread.getName() + "\" ");
                e.printStackTrace(System.err);
            }
        });
    }

    static Path dir(String env, Supplier<Path> home) {
        if (env != null && !env.isBlank()) return Course.pathOf(DIR_ENV, env).toAbsolutePath().normalize();
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

    /** Saves {@code data} under {@code dir} (one-off runs); returns the file written. */
    public static Path save(Path dir, String experiment, Object data) {
        return save(dir, Course.findHome(), experiment, data);
    }

    static Path save(Path dir, Optional<Path> home, String experiment, Object data) {
        return save(dir, home, experiment, data, null, Busy.takeNoted());
    }

    /**
     * Saves {@code data} with the judgements of its declared expectations ({@code Expectations}: each a record) and
     * the state the machine was in while it was measured, so the ledger and chapter 08 read the verdicts
     * the page showed. Refused right after an interrupted or failed measurement.
     */
    public static Path save(Path dir, String experiment, Object data, List<Map<String, Object>> judged,
                            Busy.State machine) {
        RunGuard.check("saving '" + experiment + "'");
        return save(dir, Course.findHome(), experiment, data, judged, machine);
    }

    static Path save(Path dir, Optional<Path> home, String experiment, Object data, List<Map<String, Object>> judged,
                     Busy.State machine) {
        if (dir == null) throw new IllegalArgumentException("dir must be a folder path, got null");
        checkId(experiment);
        if (data == null) throw new IllegalArgumentException("data must not be null");
        Path folder = dir.toAbsolutePath().normalize().resolve(experiment);
        home.ifPresent(h -> refuseReferenceData(folder, h));

        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("experiment", experiment);
        doc.put("machine", Machine.describe());
        doc.put("busy", machine);
        String machineName = Machine.summary();
        doc.put("measurements", measurementsOf(data).stream().map(m -> m.on(machineName)).toList());
        if (judged != null) doc.put("judged", judged);
        doc.put("data", data);
        byte[] bytes = (Json.write(doc) + "\n").getBytes(StandardCharsets.UTF_8);
        String profile = Profile.current().id();
        boolean created = !Files.isDirectory(folder);
        try {
            Files.createDirectories(folder);
            // Never over another file: another process may have taken this name; then take the next millisecond.
            for (int attempt = 0; ; attempt++) {
                Path file = folder.resolve(STAMP.format(Instant.ofEpochMilli(nextMillis())) + "-" + profile + ".json");
                try {
                    return writeAtomically(file, bytes, false);
                } catch (FileAlreadyExistsException e) {
                    if (attempt == 100) throw e;
                }
            }
        } catch (IOException e) {
            if (created) deleteQuietly(folder); // only if still empty: a failed save leaves no trace
            throw new SaveFailed("cannot save results of '" + experiment + "' in " + folder + ": " + why(e), e);
        }
    }

    /**
     * The key figures {@code data} names: its own when it is {@link Measurement.Measured}, else those of each
     * element when it is a collection (or a map's values), in order; empty when it names none.
     */
    public static List<Measurement> measurementsOf(Object data) {
        if (data instanceof Measurement.Measured m) return m.measurements();
        if (data instanceof Measurement m) return List.of(m);
        java.util.Collection<?> items = data instanceof java.util.Collection<?> c ? c
                : data instanceof Map<?, ?> map ? map.values() : List.of();
        return items.stream().flatMap(i -> i instanceof Measurement.Measured || i instanceof Measurement
                ? measurementsOf(i).stream() : java.util.stream.Stream.empty()).toList();
    }

    /**
     * Writes {@code bytes} to {@code target} atomically: into a hidden file beside it, flushed to disk, then put in
     * place in one step, over an existing file only when {@code replace} (else {@link FileAlreadyExistsException}).
     * If anything fails, nothing is left: neither {@code target} nor the hidden file. Readable like any results file
     * (rw-r--r--). Returns {@code target}.
     */
    public static Path writeAtomically(Path target, byte[] bytes, boolean replace) throws IOException {
        if (bytes == null) throw new IllegalArgumentException("bytes must not be null");
        return place(target, replace, part -> Files.write(part, bytes, StandardOpenOption.TRUNCATE_EXISTING));
    }

    /**
     * Moves the finished file {@code source} (e.g. a temporary file on another file system) to {@code target} the
     * same way as {@link #writeAtomically}: a copy that fails halfway leaves nothing at the target, and
     * {@code source} stays where it was. Returns {@code target}.
     */
    public static Path moveAtomically(Path source, Path target, boolean replace) throws IOException {
        if (source == null) throw new IllegalArgumentException("source must be a file's path, got null");
        return place(target, replace, part -> Files.move(source, part, StandardCopyOption.REPLACE_EXISTING));
    }

    private interface Fill {
        void into(Path part) throws IOException;
    }

    private static Path place(Path target, boolean replace, Fill fill) throws IOException {
        if (target == null || target.getFileName() == null) {
            throw new IllegalArgumentException("target must be a file's path, got " + target);
        }
        Path folder = target.toAbsolutePath().normalize().getParent();
        if (!replace && Files.exists(target)) throw new FileAlreadyExistsException(target.toString());
        // A hidden name that no reader takes for a result (readers look for *.json, *.jfr, *.png...).
        Path part = Files.createTempFile(folder, "." + target.getFileName() + "-", ".part");
        try {
            fill.into(part);
            try (FileChannel channel = FileChannel.open(part, StandardOpenOption.WRITE)) {
                channel.force(true); // on disk before it has its name: a crash leaves the old state, not a torn file
            }
            try {
                Files.setPosixFilePermissions(part, PosixFilePermissions.fromString("rw-r--r--"));
            } catch (UnsupportedOperationException e) {
                // not a POSIX file system: its defaults stand
            }
            if (replace) {
                Files.move(part, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } else {
                linkWithoutReplacing(part, target);
            }
            return target;
        } finally {
            deleteQuietly(part); // gone after a move; after a link, or a failure, the hidden name goes
        }
    }

    // A hard link is atomic and fails if the name is taken; where links are not supported, rename after a check.
    private static void linkWithoutReplacing(Path part, Path target) throws IOException {
        try {
            Files.createLink(target, part);
        } catch (FileAlreadyExistsException e) {
            throw e;
        } catch (IOException | UnsupportedOperationException e) {
            if (Files.exists(target)) throw new FileAlreadyExistsException(target.toString());
            Files.move(part, target, StandardCopyOption.ATOMIC_MOVE);
        }
    }

    /** Why an I/O operation failed, in a few words (a FileSystemException's message is often just the path). */
    public static String why(IOException e) {
        if (e instanceof AccessDeniedException) return "permission denied";
        if (e instanceof NoSuchFileException) return "no such file or folder: " + e.getMessage();
        if (e instanceof NotDirectoryException) return "not a folder: " + e.getMessage();
        if (e instanceof FileAlreadyExistsException) return "a file is already there: " + e.getMessage();
        if (e instanceof FileSystemException f && f.getReason() != null) return f.getReason();
        return e.getMessage() == null ? e.getClass().getSimpleName() : firstLine(e.getMessage());
    }

    private static String firstLine(String s) {
        int nl = s.indexOf('\n');
        return (nl < 0 ? s : s.substring(0, nl)).strip();
    }

    private static void deleteQuietly(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            // a folder not empty after all, or a disk that fails this too: left alone
        }
    }

    /** The newest results file of {@code experiment} under {@link #dir()}, if any. */
    public static Optional<Path> latest(String experiment) {
        return latest(dir(), experiment);
    }

    /**
     * The newest results file of {@code experiment} under {@code dir}, if any. A newer file that is not a saved
     * result (empty, cut short, not JSON...) is passed over with one line on stderr naming it ({@link #readSaved}).
     */
    public static Optional<Path> latest(Path dir, String experiment) {
        return latest(dir, experiment, System.err::println);
    }

    static Optional<Path> latest(Path dir, String experiment, Consumer<String> passedOver) {
        try (SaidOnce once = new SaidOnce(passedOver)) {
            for (Path f : newestFirst(dir, experiment)) {
                if (readSaved(f, once) != null) return Optional.of(f);
            }
        }
        return Optional.empty();
    }

    /** The .json files of {@code experiment} under {@code dir}, newest first (names sort by time); none: empty. */
    private static List<Path> newestFirst(Path dir, String experiment) {
        if (dir == null) throw new IllegalArgumentException("dir must be a folder path, got null");
        checkId(experiment);
        Path folder = dir.resolve(experiment);
        if (!Files.isDirectory(folder)) return List.of();
        try (Stream<Path> files = Files.list(folder)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".json"))
                    .sorted(Comparator.comparing((Path f) -> f.getFileName().toString()).reversed()).toList();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + folder, e);
        }
    }

    /**
     * A reader's lines about the files it passed over, said when it is done: each of up to {@value #NAMED} files by
     * name, more than that in one line (the first, and how many more): 3,000 empty files are one line, not 3,000.
     */
    public static final class SaidOnce implements Consumer<String>, AutoCloseable {
        static final int NAMED = 3;
        private final Consumer<String> out;
        private final List<String> lines = new java.util.ArrayList<>();
        private int count;

        public SaidOnce(Consumer<String> out) {
            this.out = out;
        }

        @Override
        public void accept(String line) {
            if (count++ < NAMED) lines.add(line);
        }

        @Override
        public void close() {
            if (count <= NAMED) {
                lines.forEach(out);
            } else {
                out.accept(lines.get(0) + String.format(java.util.Locale.ROOT, "; and %,d more files that are not"
                        + " saved results were passed over too", count - 1));
            }
            lines.clear();
            count = 0;
        }
    }

    /** A kept result measured on this machine, JDK and profile: its data and when it was saved. */
    public record Earlier(JsonElement data, String time) {}

    /** What "measured here" compares: the machine's name, its cores, the JDK and the profile. */
    static final List<String> HERE = List.of("host", "cores", "jdk", "profile");

    /**
     * The latest kept run of {@code experiment} measured on this machine (its host name), with this JDK, cores and
     * profile: a later chapter compares with it instead of measuring the same servers again. A run copied from
     * another machine (the README invites sharing them), or a file that does not say where it ran, is passed over
     * (empty: none is from here).
     */
    public static Optional<Earlier> earlierHere(String experiment) {
        return earlierHere(dir(), experiment, Machine.describe(), System.err::println);
    }

    static Optional<Earlier> earlierHere(Path dir, String experiment, Map<String, String> here,
                                         Consumer<String> passedOver) {
        try (SaidOnce once = new SaidOnce(passedOver)) {
            for (Path f : newestFirst(dir, experiment)) {
                JsonObject saved = readSaved(f, once);
                JsonElement machine = saved == null ? null : saved.get("machine");
                if (machine == null || !machine.isJsonObject()) continue;
                JsonObject m = machine.getAsJsonObject();
                if (HERE.stream().allMatch(k -> here.get(k) != null && m.get(k) != null && m.get(k).isJsonPrimitive()
                        && here.get(k).equals(m.get(k).getAsString()))) {
                    JsonElement time = m.get("time");
                    return Optional.of(new Earlier(saved.get("data"), time != null && time.isJsonPrimitive()
                            ? time.getAsString() : f.getFileName().toString()));
                }
            }
        }
        return Optional.empty();
    }

    /** A results (or reference data) file as a JSON object with "experiment" (a string), "machine" and "data". */
    public static JsonObject read(Path file) {
        if (file == null) throw new IllegalArgumentException("file must be a path, got null");
        if (!Files.isRegularFile(file)) { // a FIFO would block the reader for good
            throw new IllegalArgumentException(file + " is not a results file: not a regular file");
        }
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read results file " + file + ": " + why(e), e);
        }
        Checked c = check(text);
        if (c.problem() != null) throw new IllegalArgumentException(file + " is not a results file: " + c.problem());
        return c.root().getAsJsonObject();
    }

    /**
     * For a reader going through a results folder: {@code file} as a saved result, or null. A JSON file that makes
     * no claim to be one (a snippet's thread dump beside its results: no "experiment" nor "data") is passed over
     * silently; one that cannot be read, is empty, is not JSON, or lacks what {@link #save} writes is passed over
     * with one line to {@code passedOver} naming it and why.
     */
    public static JsonObject readSaved(Path file, Consumer<String> passedOver) {
        if (!Files.isRegularFile(file)) { // a FIFO (reading it would block for good), a folder, a device
            passedOver.accept("passing over " + shown(file) + ": not a regular file");
            return null;
        }
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            passedOver.accept("passing over " + shown(file) + ": cannot read it (" + why(e) + ")");
            return null;
        }
        Checked c = check(text);
        if (c.problem() == null) return c.root().getAsJsonObject();
        boolean claimsToBeOne = c.root() == null || c.root().isJsonNull() || (c.root().isJsonObject()
                && (c.root().getAsJsonObject().has("experiment") || c.root().getAsJsonObject().has("data")));
        if (claimsToBeOne) passedOver.accept("passing over " + shown(file) + ": not a saved result (" + c.problem() + ")");
        return null;
    }

    /** A file's JSON (null when it is not JSON) and what keeps it from being what {@link #save} writes (or null). */
    private record Checked(JsonElement root, String problem) {}

    private static final Pattern WHERE = Pattern.compile("at line (\\d+) column (\\d+)");

    private static Checked check(String text) {
        if (text.isBlank()) return new Checked(null, "it is empty");
        JsonElement root;
        try {
            root = Json.parse(text);
        } catch (IllegalArgumentException e) { // Gson's message is long and about its own settings: say where
            Matcher at = WHERE.matcher(String.valueOf(e.getMessage()));
            String where = at.find() ? " (line " + at.group(1) + ", column " + at.group(2) + ")" : "";
            return new Checked(null, "it is not complete, valid JSON" + where);
        }
        if (!root.isJsonObject()) return new Checked(root, "it must hold an object with \"experiment\" and \"data\"");
        JsonElement experiment = root.getAsJsonObject().get("experiment");
        if (experiment == null || !experiment.isJsonPrimitive() || !experiment.getAsJsonPrimitive().isString()) {
            return new Checked(root, "\"experiment\" must be a string, got " + (experiment == null ? "none" : experiment));
        }
        if (!root.getAsJsonObject().has("data")) return new Checked(root, "it has no \"data\"");
        return new Checked(root, null);
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

    private static String checkId(String experiment) {
        if (experiment == null || !ID.matcher(experiment).matches()) {
            throw new IllegalArgumentException("experiment must match [a-z0-9-]+ (e.g. 'sleep-vs-pool'), got "
                    + (experiment == null ? "null" : "'" + experiment + "'"));
        }
        return experiment;
    }

    /**
     * {@link #save} for a notebook cell: one line with the file's path ({@link #shown}), and no value left behind
     * for the page to print.
     */
    public static void keep(String experiment, Object data) {
        Path saved = save(experiment, data);
        System.out.println("saved as " + shown(saved));
    }

    /**
     * Where results go, as a path the reader can open: relative to the course folder when inside it ("results/"),
     * else the whole path (a folder UNPINNED_RESULTS names elsewhere).
     */
    public static String where() {
        return shown(dir()) + "/";
    }

    /**
     * A file as a page names it, a path the reader can open: relative to the course folder (where JupyterLab and a
     * terminal in the checkout start) when it lies inside it, else the whole path.
     */
    public static String shown(Path file) {
        Path f = file.toAbsolutePath().normalize();
        return Course.findHome().map(h -> h.toAbsolutePath().normalize()).filter(f::startsWith)
                .map(h -> h.relativize(f).toString()).map(r -> r.isEmpty() ? "." : r).orElse(f.toString());
    }
}
