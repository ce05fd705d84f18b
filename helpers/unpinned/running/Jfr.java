//SOURCES ../core/Profile.java
//SOURCES ../core/Protocol.java
//SOURCES ../core/Results.java
package unpinned.running;

import unpinned.core.Profile;
import unpinned.core.Protocol;
import unpinned.core.Results;

import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * What the snippets that record themselves with JDK Flight Recorder share: a run around a temporary {@code .jfr}
 * ({@link #runOrExit}: deleted if the run fails, so a failed run saves nothing), the recording kept next to the
 * run's JSON in the results folder ({@code <dir>/<experiment>/<UTC yyyyMMdd-HHmmss-SSS>-<profile>.jfr}, readable
 * like the JSON: {@link #keep}, {@link #saveWithRecording}), its events read one by one ({@link #forEachEvent}),
 * and the fields of {@value #PINNED} that only some JDKs record: pinnedReason, blockingOperation and carrierThread
 * came in JDK 24 ({@link #pinnedFields}, null where absent), counted by {@link PinnedTally}.
 *
 * <pre>{@code
 * Jfr.runOrExit("S17", tmp -> {             // "S17: <why>; nothing saved" and exit 1 if it fails
 *     try (Recording r = new Recording()) { ...; r.dump(tmp); }
 *     Jfr.PinnedTally pins = new Jfr.PinnedTally();
 *     Jfr.forEachEvent(tmp, e -> { if (e.getEventType().getName().equals(Jfr.PINNED)) pins.add(e); });
 *     Jfr.saveWithRecording("s17-pinning-cases", data, tmp); // the .json and the .jfr side by side
 * });
 * }</pre>
 * Needs Results.java, Profile.java, Protocol.java and what they need alongside.
 */
public final class Jfr {
    private Jfr() {}

    /** The event a virtual thread records when it blocks while pinned to its carrier. */
    public static final String PINNED = "jdk.VirtualThreadPinned";
    /** Why a snippet cannot record: its one line on stderr. */
    public static final String UNAVAILABLE = "JDK Flight Recorder is not available in this JVM (module jdk.jfr"
            + " missing or JFR disabled); run on a JDK with JFR";

    private static final Pattern ID = Pattern.compile("[a-z0-9-]+");
    private static final DateTimeFormatter STAMP =
            DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS").withZone(ZoneOffset.UTC);

    /** A measurement that records into {@code recording}, a temporary file that it may dump to and keep. */
    @FunctionalInterface
    public interface Recorded {
        public void run(Path recording) throws InterruptedException, IOException;
    }

    // ---- a run around a temporary recording ---------------------------------------------------------------------

    /**
     * For a snippet's {@code main}: runs {@code body} with a new temporary {@code .jfr} file (named after
     * {@code name}, e.g. "s17-...jfr", deleted when the JVM exits unless kept). If JFR is not available, or the run
     * fails (interrupted, an IllegalStateException, an UncheckedIOException, an IOException, out of memory), deletes
     * the file, prints {@code <name>: <why>; nothing saved} on stderr and ends the JVM with exit code 1 (a failed
     * measurement, not bad input). Other exceptions pass through.
     */
    public static void runOrExit(String name, Recorded body) {
        if (!FlightRecorder.isAvailable()) exit(name, UNAVAILABLE);
        String failure = run(name, body);
        if (failure != null) exit(name, failure);
    }

    /** {@link #runOrExit} without the exit: null when {@code body} ran, else why not ("...; nothing saved"). */
    public static String run(String name, Recorded body) {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("name must be a snippet's short name like 'S17', got '" + name + "'");
        }
        if (body == null) throw new IllegalArgumentException("body must be the measurement to run, got null");
        Path tmp = null;
        try {
            tmp = Files.createTempFile(name.strip().toLowerCase(Locale.ROOT) + "-", ".jfr");
            tmp.toFile().deleteOnExit(); // if the JVM is stopped midway (once kept, the file is no longer there)
            body.run(tmp);
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            deleteQuietly(tmp);
            return "interrupted; nothing saved";
        } catch (IllegalStateException | UncheckedIOException | OutOfMemoryError | IOException e) {
            deleteQuietly(tmp);
            return e.getMessage() + "; nothing saved";
        }
    }

    private static void exit(String name, String message) {
        System.err.println(name + ": " + message);
        System.exit(1);
    }

    // ---- keeping it next to the results -------------------------------------------------------------------------

    /**
     * Moves the recording {@code tmp} into the results folder ({@link Results#dir()}) as
     * {@code <experiment>/<stamp>-<profile>.jfr}, like {@link Results} names its files; returns where it went.
     */
    public static Path keep(Path tmp, String experiment) throws IOException {
        return keep(tmp, Results.dir(), experiment);
    }

    /** {@link #keep(Path, String)} into {@code dir}. */
    static Path keep(Path tmp, Path dir, String experiment) throws IOException {
        if (tmp == null) throw new IllegalArgumentException("tmp must be the path of a recording, got null");
        if (experiment == null || !ID.matcher(experiment).matches()) {
            throw new IllegalArgumentException("experiment must match [a-z0-9-]+ (e.g. 's17-pinning-cases'), got "
                    + (experiment == null ? "null" : "'" + experiment + "'"));
        }
        Path folder = dir.resolve(experiment);
        try {
            Files.createDirectories(folder);
            for (int attempt = 0; ; attempt++) {
                Path target = folder.resolve(STAMP.format(Instant.now().plusMillis(attempt)) + "-"
                        + Profile.current().id() + ".jfr");
                try { // atomically, readable like the .json beside it: a full disk leaves no torn .jfr
                    return Results.moveAtomically(tmp, target, false);
                } catch (FileAlreadyExistsException e) {
                    if (attempt == 100) throw e;
                }
            }
        } catch (IOException e) {
            throw new IOException("cannot keep the recording in " + folder + ": " + Results.why(e), e);
        }
    }

    /**
     * The end of a recorded run: keeps {@code tmp} ({@link #keep}), adds its path to {@code data} as "jfrFile",
     * prints the {@code @@result} line ({@link Protocol#result}), saves {@code data} ({@link Results#save}) and
     * prints "saved <json> and <jfr>". If saving fails, the kept recording is deleted: a run leaves both or neither.
     * Returns the kept recording.
     */
    public static Path saveWithRecording(String experiment, Map<String, Object> data, Path tmp) throws IOException {
        return saveWithRecording(Results.dir(), experiment, data, tmp, d -> Results.save(experiment, d));
    }

    /** {@link #saveWithRecording(String, Map, Path)} into {@code dir}, saving with {@code save}. */
    static Path saveWithRecording(Path dir, String experiment, Map<String, Object> data, Path tmp,
                                  Function<Map<String, Object>, Path> save) throws IOException {
        if (data == null) throw new IllegalArgumentException("data must be the run's result, got null");
        Path jfr = keep(tmp, dir, experiment);
        data.put("jfrFile", jfr.toString());
        Protocol.result(data);
        try {
            System.out.println("saved " + save.apply(data) + " and " + jfr);
        } catch (RuntimeException e) {
            deleteQuietly(jfr);
            throw e;
        }
        return jfr;
    }

    /**
     * {@link #saveWithRecording(String, Map, Path)} for a typed result: {@code withJfrFile} makes the record that
     * names the kept recording; it is printed and saved, or, if saving fails, the recording is deleted too.
     */
    public static Path saveRecorded(String experiment, Function<String, Object> withJfrFile, Path tmp)
            throws IOException {
        Path jfr = keep(tmp, Results.dir(), experiment);
        Object data = withJfrFile.apply(jfr.toString());
        Protocol.result(data);
        try {
            System.out.println("saved " + Results.save(experiment, data) + " and " + jfr);
        } catch (RuntimeException e) {
            deleteQuietly(jfr);
            throw e;
        }
        return jfr;
    }

    /**
     * S13's result (chapter 04) as the notebook reads it: the recording's event counts, the events per bucket of
     * time, the pinned events by reason, the continuation events and what jcmd said about the scheduler.
     * Read it with {@code ChildRun.result(Jfr.VirtualThreads.class, "S13_JfrVirtualThreads.java")}.
     */
    public record VirtualThreads(String javaVersion, int threads, int sleeps, int pins, long sleepMs, long pinMs,
                                 int carriers, long recordingMs, Map<String, Long> events,
                                 Map<String, Map<String, Long>> threadKinds, Map<String, Long> otherEvents,
                                 Series series, List<Phase> phases, long pinnedTotal, Map<String, Long> pinnedByCase,
                                 Map<String, Long> pinnedReasons, List<Pin> pinned, long pinsPhaseMs,
                                 List<FreezeThaw> freezeThawFields, String vthreadScheduler,
                                 String vthreadSchedulerNote, String jfrFile) {
        /** Events per bucket of {@code bucketMs}, by series name ("jdk.ThreadSleep/virtual"...). */
        public record Series(double bucketMs, List<String> names, Map<String, double[]> counts) {}

        /** A stretch of the workload, in ms since the recording started (for marking the chart). */
        public record Phase(String name, long startMs, long endMs) {}

        /** One pinned event: how long, which of the workload's cases, and its JDK 24+ fields (null before). */
        public record Pin(double durationMs, @com.google.gson.annotations.SerializedName("case") String pinCase,
                          String reason, String blockingOperation, String carrier) {}

        /**
         * One continuation event type: its fields and how many the run emitted; if any, the event threads that were
         * virtual, the distinct event threads and carriers, and one event's fields as text (else null).
         */
        public record FreezeThaw(String event, List<String> fields, long emitted, Long eventThreadVirtual,
                                 Integer distinctEventThreads, Integer distinctCarriers, Map<String, String> sample) {}

        /** The scheduler as jcmd Thread.vthread_scheduler printed it, or why it was not asked. */
        public String scheduler() {
            return vthreadScheduler != null ? vthreadScheduler : vthreadSchedulerNote;
        }
    }

    /** Deletes {@code p} if it is there; null, or a file that cannot be deleted, is left alone. */
    public static void deleteQuietly(Path p) {
        if (p == null) return;
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            // a temporary file; the OS cleans up eventually
        }
    }

    /** Milliseconds from {@code start} (e.g. a recording's start time) until now. */
    public static long sinceMs(Instant start) {
        return Duration.between(start, Instant.now()).toMillis();
    }

    // ---- reading it ---------------------------------------------------------------------------------------------

    /** The event types this JVM's JFR knows, by name. */
    public static Map<String, EventType> eventTypes() {
        Map<String, EventType> types = new LinkedHashMap<>();
        for (EventType t : FlightRecorder.getFlightRecorder().getEventTypes()) types.put(t.getName(), t);
        return types;
    }

    /** Whether this JVM's JFR has {@code event} with a field {@code field}: {@value #PINNED}'s pinnedReason on 24+. */
    public static boolean hasField(String event, String field) {
        EventType type = eventTypes().get(event);
        return type != null && type.getField(field) != null;
    }

    /** Hands every event of the recording {@code file} to {@code action}, in the file's order. */
    public static void forEachEvent(Path file, Consumer<RecordedEvent> action) throws IOException {
        try (RecordingFile rf = new RecordingFile(file)) {
            while (rf.hasMoreEvents()) action.accept(rf.readEvent());
        }
    }

    /** The field {@code field} of {@code e} as text; null if this JDK's event has no such field, or it is null. */
    public static String text(RecordedEvent e, String field) {
        if (!e.hasField(field)) return null;
        Object v = e.getValue(field);
        return v == null ? null : v.toString();
    }

    /** The thread in field {@code field} of {@code e} as {@link #describe} names it; null if absent or not a thread. */
    public static String threadName(RecordedEvent e, String field) {
        if (!e.hasField(field)) return null;
        Object v = e.getValue(field);
        return v instanceof RecordedThread t ? describe(t) : null;
    }

    /** A recorded thread's Java name (else its OS name, else "#<id>"), with " (virtual)" for a virtual thread. */
    public static String describe(RecordedThread t) {
        String name = t.getJavaName() != null ? t.getJavaName() : t.getOSName();
        String shown = name == null || name.isEmpty() ? "#" + t.getJavaThreadId() : name;
        return shown + (t.isVirtual() ? " (virtual)" : "");
    }

    /**
     * The fields of a {@value #PINNED} event that came in JDK 24, each null where the JDK does not record it.
     *
     * @param reason            why the thread could not unmount, e.g. "Native or VM frame on stack"
     * @param blockingOperation what it blocked in, e.g. "LockSupport.park"
     * @param carrier           the carrier it held, e.g. "ForkJoinPool-1-worker-1"
     */
    public record PinnedFields(String reason, String blockingOperation, String carrier) {}

    /** The JDK 24+ fields of a {@value #PINNED} event (any event: absent fields are null). */
    public static PinnedFields pinnedFields(RecordedEvent e) {
        return new PinnedFields(text(e, "pinnedReason"), text(e, "blockingOperation"), threadName(e, "carrierThread"));
    }

    /** Pinned events counted: how many, their total milliseconds, and how many per reason, operation and carrier. */
    public static final class PinnedTally {
        private long events;
        private double ms;
        private final Map<String, Long> reasons = new TreeMap<>(), blockingOperations = new TreeMap<>(),
                carriers = new TreeMap<>();

        /** Counts one {@value #PINNED} event. */
        public void add(RecordedEvent e) {
            add(e.getDuration().toNanos() / 1e6, pinnedFields(e));
        }

        /** Counts one pin of {@code ms} milliseconds; its null fields are counted in no map. */
        public void add(double ms, PinnedFields f) {
            events++;
            this.ms += ms;
            if (f.reason() != null) reasons.merge(f.reason(), 1L, Long::sum);
            if (f.blockingOperation() != null) blockingOperations.merge(f.blockingOperation(), 1L, Long::sum);
            if (f.carrier() != null) carriers.merge(f.carrier(), 1L, Long::sum);
        }

        public long events() {
            return events;
        }

        public double ms() {
            return ms;
        }

        /** Events per pinnedReason, sorted (empty before JDK 24). */
        public Map<String, Long> reasons() {
            return Collections.unmodifiableMap(reasons);
        }

        /** Events per blockingOperation, sorted (empty before JDK 24). */
        public Map<String, Long> blockingOperations() {
            return Collections.unmodifiableMap(blockingOperations);
        }

        /** Events per carrier thread, sorted (empty before JDK 24). */
        public Map<String, Long> carriers() {
            return Collections.unmodifiableMap(carriers);
        }
    }

    /** Counts as text, e.g. "Native or VM frame on stack x2, Monitor held"; "none given" when there are none. */
    public static String counted(Map<String, Long> counts) {
        if (counts.isEmpty()) return "none given";
        List<String> parts = new ArrayList<>();
        counts.forEach((k, v) -> parts.add(k + (v == 1 ? "" : " x" + v)));
        return String.join(", ", parts);
    }

    /**
     * Which group a JFR event's thread belongs to, by its name: a case's threads are named {@code prefix + case +
     * "-" + i} (as {@link Carriers#timeBatch} names them), the warm-up thread {@code warmUp}; anything else, or an
     * event without a thread, is "other".
     */
    public static String threadGroup(RecordedThread t, String prefix, List<String> cases, String warmUp) {
        String name = t == null ? null : t.getJavaName();
        if (name == null) return "other";
        if (name.equals(warmUp)) return warmUp;
        for (String c : cases) if (name.startsWith(prefix + c + "-")) return c;
        return "other";
    }
}
