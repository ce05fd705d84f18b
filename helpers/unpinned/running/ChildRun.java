//SOURCES ../core/Busy.java
//SOURCES ../core/Course.java
//SOURCES ../core/Json.java
//SOURCES Processes.java
//SOURCES ../core/Profile.java
//SOURCES ../core/Protocol.java
//SOURCES ../core/Results.java
//SOURCES ../core/RunGuard.java
//SOURCES ../core/Show.java
package unpinned.running;

import unpinned.core.Busy;
import unpinned.core.Course;
import unpinned.core.Json;
import unpinned.core.Profile;
import unpinned.core.Protocol;
import unpinned.core.Results;
import unpinned.core.RunGuard;
import unpinned.core.Show;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CancellationException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A child JVM (a snippet run through the course's JBang), as every measurement runs: never inside
 * the notebook's own JVM. Its output is written in full to a log file under the results folder and
 * shown compactly: one progress line that updates in place (in the notebook a live chart once samples
 * come), plus anything that looks like an error. A child that starts children of its own passes their
 * progress and samples on to its parent, so the notebook shows them too. A snippet talks back with protocol lines on its standard output:
 *
 * <pre>
 * &#64;&#64;progress warm-up 2/3 s · 4,812 req/s      (shown as the updating line)
 * &#64;&#64;sample req/s=4812 p99_ms=12.3               (that second's figures: in the notebook, a chart updated in place)
 * &#64;&#64;ready {"uri": "http://127.0.0.1:40123/sleep"}   (a server is listening)
 * &#64;&#64;stats {...}                               (a server's answer to "stats" on its standard input)
 * &#64;&#64;result {...}                              (what the run measured, as JSON)
 * </pre>
 *
 * Interrupting the waiting thread (a notebook's stop button) kills the child and everything it
 * started, sets the interrupt flag again and throws {@link CancellationException}. If this JVM dies
 * without a chance to do so (SIGKILL, a crash), the child ends itself within a second: it is told
 * this JVM's pid ({@link Profile#PARENT_PID_ENV}). A child that
 * exits non-zero, or ends without the line it was expected to print, raises
 * {@link IllegalStateException} with the last lines of its output and the log's path.
 */
public final class ChildRun implements AutoCloseable {

    private static final Pattern SNIPPET = Pattern.compile("[A-Za-z0-9_]+\\.java");
    /** Lines worth showing besides the progress line: trouble, in the words JVMs and snippets use for it. */
    // Trouble, as a line says it: an exception, a line that starts with ERROR or WARNING, a "name: message" that
    // refuses or fails. Not a word inside a line of results ("jdk.VirtualThreadSubmitFailed 0", a case that "can't
    // tell", a pin reason "Freeze or preempt failed"): those are the child's output, and stay in its log.
    static final Pattern SHOWN = Pattern.compile("(.*\\b[\\w.$]*Exception\\b.*|.*\\b[\\w.$]*Error:.*"
            + "|\\s*(\\[unpinned\\] )?(ERROR|WARNING|Warning|error|warning|cannot)\\b.*"
            + "|\\S+: .*(must be|[Rr]efus|[Ff]ailed|[Cc]annot|can't|not allowed|error|ERROR).*)");
    private static final int TAIL_LINES = 40;
    private static final DateTimeFormatter STAMP =
            DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS").withZone(ZoneOffset.UTC);

    private final String label;
    private final Process process;
    private final Path log;
    private final Writer logWriter;
    private final Thread pump;
    private final Deque<String> tail = new ArrayDeque<>();
    private final BlockingQueue<String> protocol = new LinkedBlockingQueue<>();
    private final Function<String, String> progressOf;
    private final PrintStream console;
    private final Progress progress;
    private volatile boolean ended;
    private volatile String result;
    // the rest of the machine's load while the child ran, noted for the result saved next (Busy)
    private final Busy.Window busy = Busy.start();
    private boolean busyNoted;

    private ChildRun(String label, Path dir, List<String> command, Function<String, String> progressOf) {
        this.label = label;
        this.progressOf = progressOf;
        this.console = System.out; // the cell's output stream, captured now: the pump thread prints into it
        this.progress = new Progress(console);
        this.log = logFile(label);
        Writer writer = null;
        try {
            writer = Files.newBufferedWriter(log, StandardCharsets.UTF_8);
            writer.write("$ " + String.join(" ", command) + "\n");
            // tied: the child ends itself when this JVM is gone, even by SIGKILL (Profile.announceOrExit watches)
            this.process = Processes.of(command).directory(dir).tied().mergeErrors().start();
        } catch (IOException e) {
            if (writer != null) {
                try {
                    writer.close();
                } catch (IOException ignored) {
                    // reporting the start failure below
                }
            }
            throw new UncheckedIOException(label + ": cannot start " + String.join(" ", command) + ": " + e.getMessage(), e);
        }
        this.logWriter = writer;
        // Reading a pipe cannot be interrupted, so a helper thread pumps the output and the caller waits.
        this.pump = Thread.ofPlatform().daemon(true).name("child-output-" + label).start(this::pump);
    }

    /**
     * Starts {@code command} in the course folder. {@code progressOf} turns a line of ordinary output into
     * a progress text (or null: log only; a text ending in a newline stays as a line of its own);
     * protocol lines are handled whatever it says.
     */
    public static ChildRun start(String label, List<String> command, Function<String, String> progressOf) {
        return start(label, Course.home(), command, progressOf);
    }

    static ChildRun start(String label, Path dir, List<String> command, Function<String, String> progressOf) {
        RunGuard.check("starting " + label);
        if (label == null || !label.matches("[A-Za-z0-9._-]+")) {
            throw new IllegalArgumentException("label must be a short name like 'io-bound' ([A-Za-z0-9._-]+), got '" + label + "'");
        }
        if (command == null || command.isEmpty()) throw new IllegalArgumentException("command must not be empty");
        return new ChildRun(label, dir, List.copyOf(command), progressOf == null ? line -> null : progressOf);
    }

    /** Starts {@code snippets/<snippet>} through the course's JBang with {@code args}. */
    public static ChildRun snippet(String snippet, List<String> args) {
        return start(label(snippet), snippetCommand(snippet, args), line -> null);
    }

    /**
     * Runs {@code snippets/<snippet>} to its end and returns the JSON of its last {@code @@result} line.
     *
     * @throws IllegalArgumentException no such snippet
     * @throws IllegalStateException    it failed, or printed no result
     * @throws CancellationException    the calling thread was interrupted; the child tree is gone
     */
    public static JsonObject json(String snippet, String... args) {
        try (ChildRun run = snippet(snippet, List.of(args))) {
            return run.awaitResult();
        }
    }

    /**
     * {@link #json(String, String...)} read as a {@code type}: the typed result a snippet saved (a record such as
     * {@code OrderSweep.Sweep}), so a notebook reads fields, not JSON.
     */
    public static <T> T result(Class<T> type, String snippet, String... args) {
        return Json.read(json(snippet, args).toString(), type);
    }

    /** Waits for the child to exit successfully and returns the JSON of its last {@code @@result} line. */
    public JsonObject awaitResult() {
        awaitExit();
        String json = result;
        if (json == null) throw failure("ended without a result line (" + Protocol.RESULT.trim() + ")");
        JsonElement e = Json.parse(json);
        if (!e.isJsonObject()) throw failure("printed a result that is not a JSON object");
        return e.getAsJsonObject();
    }

    /** The command that runs a snippet of this course; validates the name. */
    public static List<String> snippetCommand(String snippet, List<String> args) {
        return snippetCommand(Course.home(), snippet, args);
    }

    static List<String> snippetCommand(Path home, String snippet, List<String> args) {
        if (snippet == null || !SNIPPET.matcher(snippet).matches()) {
            throw new IllegalArgumentException("snippet must be a file name in snippets/ like 'S01_IoBoundExecutors.java', got "
                    + (snippet == null ? "null" : "'" + snippet + "'"));
        }
        if (!Files.isRegularFile(home.resolve("snippets").resolve(snippet))) {
            throw new IllegalArgumentException("no snippet " + snippet + " in " + home.resolve("snippets") + "; there are: " + snippets(home));
        }
        List<String> command = new ArrayList<>();
        command.add(home.resolve("tools").resolve("jbang").toString());
        command.add("snippets/" + snippet);
        for (String a : args) {
            if (a == null) throw new IllegalArgumentException("arguments must not contain null");
            command.add(a);
        }
        return command;
    }

    /** Waits for the child to exit; a non-zero exit raises with the end of its output. */
    public void awaitExit() {
        try {
            int exit = process.waitFor();
            pump.join(TimeUnit.SECONDS.toMillis(10));
            if (exit != 0) throw failure("failed with exit code " + exit);
            noteBusy();
        } catch (InterruptedException e) {
            throw cancelled(e);
        } finally {
            progress.finish();
        }
    }

    /**
     * Waits for the next protocol line starting with {@code prefix} (e.g. {@link Protocol#READY}; other protocol
     * lines before it are passed over) and returns the rest of it; raises if the child exits first or nothing
     * comes within {@code timeout}.
     */
    public String await(String prefix, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            while (true) {
                long left = deadline - System.nanoTime();
                if (left <= 0) throw failure("printed no '" + prefix.trim() + "' line within " + timeout.toSeconds() + " s");
                String line = protocol.poll(Math.min(left, TimeUnit.MILLISECONDS.toNanos(200)), TimeUnit.NANOSECONDS);
                if (line != null && line.startsWith(prefix)) return line.substring(prefix.length());
                if (line == null && ended && protocol.isEmpty()) {
                    int exit = process.waitFor();
                    throw failure("exited with code " + exit + " before printing '" + prefix.trim() + "'");
                }
            }
        } catch (InterruptedException e) {
            throw cancelled(e);
        }
    }

    /**
     * Adds {@code figures} to each sample the child reports (a server's carriers busy next to the load generator's
     * requests per second): asked from the thread that reads the child, so it must answer fast; once it fails or
     * returns null, the samples go on without it.
     */
    public ChildRun addToSamples(java.util.function.Supplier<Map<String, Double>> figures) {
        progress.addToSamples(figures);
        return this;
    }

    /** Writes one line to the child's standard input (a command such as "stats"). */
    public void send(String line) {
        try {
            OutputStream in = process.getOutputStream();
            in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
            in.flush();
        } catch (IOException e) {
            // not a failed measurement by itself (e.g. stopping a server that already ended): no RunGuard halt
            throw new IllegalStateException(label + " is not listening on its standard input any more ("
                    + e.getMessage() + ")", e);
        }
    }

    /** Closes the child's standard input: a server started with --control takes that as "stop". */
    public void closeInput() {
        try {
            process.getOutputStream().close();
        } catch (IOException ignored) {
            // already gone
        }
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** The full output of the child, for reading after the fact. */
    public Path log() {
        return log;
    }

    /** Waits up to {@code grace} for a clean exit, then kills the child and everything it started. */
    public void stop(Duration grace) {
        boolean interrupted = false;
        try {
            if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) Processes.destroyTree(process);
        } catch (InterruptedException e) {
            interrupted = true;
        } finally {
            if (process.isAlive()) Processes.destroyTree(process);
            try {
                pump.join(TimeUnit.SECONDS.toMillis(2));
            } catch (InterruptedException e) {
                interrupted = true;
            }
            progress.finish();
            if (interrupted) Thread.currentThread().interrupt();
        }
    }

    // Only after a clean, waited-for exit: the child's CPU is then this JVM's (cutime), not the rest of the machine's.
    private void noteBusy() {
        if (busyNoted) return;
        busyNoted = true;
        busy.end();
    }

    /** Kills the child tree if it still runs; always safe to call. */
    @Override
    public void close() {
        if (process.isAlive()) {
            progress.finish(); // before the wait for the child to die: see cancelled()
            Processes.destroyTree(process);
        }
        try {
            pump.join(TimeUnit.SECONDS.toMillis(2));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        progress.finish();
    }

    IllegalStateException failure(String what) {
        RunGuard.halt(label);
        return new IllegalStateException(label + " " + what + "; its last lines:\n" + tail() + "\n(full output: " + log + ")");
    }

    private CancellationException cancelled(InterruptedException e) {
        // First: the notebook answers a Stop at once (JJava cancels the cell's future), and a live output emptied
        // after that answer stays on the page
        progress.finish();
        RunGuard.halt(label);
        Processes.destroyTree(process);
        Thread.currentThread().interrupt();
        CancellationException c = new CancellationException(label + " interrupted; the child process and its"
                + " descendants were killed (partial output: " + log + ")");
        c.initCause(e);
        return c;
    }

    String tail() {
        synchronized (tail) {
            return String.join("\n", tail);
        }
    }

    private void pump() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            boolean logging = true;
            while ((line = r.readLine()) != null) {
                if (logging) {
                    try {
                        logWriter.write(line);
                        logWriter.write('\n');
                    } catch (IOException e) {
                        logging = false; // a full disk must not stop the reading: the child would block
                    }
                }
                synchronized (tail) {
                    tail.addLast(line);
                    if (tail.size() > TAIL_LINES) tail.removeFirst();
                }
                if (line.startsWith("@@")) {
                    if (line.startsWith(Protocol.PROGRESS)) {
                        progress.show(label + " · " + line.substring(Protocol.PROGRESS.length()));
                    }
                    else if (line.startsWith(Protocol.SAMPLE)) progress.sample(line.substring(Protocol.SAMPLE.length()));
                    else if (line.startsWith(Protocol.RESULT)) result = line.substring(Protocol.RESULT.length());
                    else protocol.add(line);
                    continue;
                }
                String shown = progressOf.apply(line);
                if (shown != null && shown.endsWith("\n")) {
                    progress.keep(label + " · " + shown.strip()); // a finished step: its line stays
                } else if (shown != null) {
                    progress.show(label + " · " + shown);
                } else if (SHOWN.matcher(line).matches()) {
                    progress.print(line);
                }
            }
        } catch (IOException e) {
            // the process was killed: nothing more to read
        } finally {
            ended = true;
            try {
                logWriter.close();
            } catch (IOException ignored) {
                // the log is best effort
            }
        }
    }

    /**
     * One line that updates in place (carriage return), as Jupyter and terminals both show it, and in the notebook a
     * live chart of the samples (Show.Live: it leaves nothing on the saved page); lines that stay. In a JVM that is a
     * child itself, the progress and the samples go on to its parent as protocol lines instead.
     */
    static final class Progress {
        private final PrintStream out;
        private final Show.Live live;
        private final boolean forward;
        private boolean finished;

        Progress(PrintStream out) {
            this(out, Protocol.toParent() && !Show.inKernel());
        }

        Progress(PrintStream out, boolean forward) {
            this.out = out;
            this.live = new Show.Live(out);
            this.forward = forward;
        }

        synchronized void show(String text) {
            if (finished) return;
            if (forward) line(Protocol.PROGRESS + text);
            else live.show(text);
        }

        private volatile java.util.function.Supplier<Map<String, Double>> extra;

        void addToSamples(java.util.function.Supplier<Map<String, Double>> figures) {
            extra = figures;
        }

        /** A sample line's text ({@code req/s=4812 p99_ms=12.3}), with the figures {@link #addToSamples} gives. */
        void sample(String text) {
            Protocol.Sample sample = Protocol.Sample.parse(text);
            var figures = extra;
            if (figures != null && !sample.values().isEmpty()) { // outside the lock: it may ask another process
                Map<String, Double> more;
                try {
                    more = figures.get();
                } catch (RuntimeException e) {
                    more = null;
                }
                if (more == null) extra = null;
                else {
                    Map<String, Double> all = new java.util.LinkedHashMap<>(sample.values());
                    more.forEach(all::putIfAbsent);
                    sample = new Protocol.Sample(all);
                }
            }
            showSample(sample);
        }

        private synchronized void showSample(Protocol.Sample sample) {
            if (finished || sample.values().isEmpty()) return;
            if (forward) line(Protocol.SAMPLE + sample);
            else live.sample(sample);
        }

        private void line(String text) {
            out.println(text);
            out.flush();
        }

        /** A line of its own, kept: ends the progress line first. */
        synchronized void print(String line) {
            end();
            out.println(line);
        }

        synchronized void keep(String text) {
            live.keep(text);
        }

        synchronized void end() {
            live.close();
        }

        /**
         * Ends the line for good, when the run is over (also stopped or failed): a progress line or sample the output
         * pump still reads after this (a killed child's last words) makes no new output that would stay on the page.
         */
        synchronized void finish() {
            finished = true;
            live.close();
        }
    }

    static String label(String snippet) {
        return snippet == null ? "child" : snippet.replaceFirst("\\.java$", "").replaceFirst("^S\\d\\d_", "");
    }

    private static Path logFile(String label) {
        Path dir = Results.checkDir().resolve("logs");
        try {
            Files.createDirectories(dir);
            return Files.createTempFile(dir, STAMP.format(Instant.now()) + "-" + label + "-", ".log");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a log file in " + dir + ": " + e.getMessage(), e);
        }
    }

    private static String snippets(Path home) {
        try (Stream<Path> s = Files.list(home.resolve("snippets"))) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".java")).sorted().toList().toString();
        } catch (IOException e) {
            return "(none)";
        }
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "ChildRun[%s, pid %d, %s]", label, process.pid(), process.isAlive() ? "running" : "ended");
    }
}
