package unpinned;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Runs a JMH snippet as a child process and reads its results. JMH benchmarks cannot be declared
 * in a notebook cell (JShell runs no annotation processor), so a notebook calls
 *
 * <pre>{@code
 * List<Jmh.Result> rs = Jmh.run("S01_IoBoundExecutors.java", Map.of("tasks", "500"), "-i", "2");
 * }</pre>
 *
 * which runs {@code <home>/tools/jbang snippets/S01_IoBoundExecutors.java -i 2 -p tasks=500 -rf json -rff <tmp>}
 * in the course folder, prints JMH's output line by line as it arrives, and parses the JSON report.
 * Interrupting the calling thread (a notebook's stop button) kills the child and everything it
 * started (JMH's forked JVMs included), sets the interrupt flag again and throws
 * {@link CancellationException}; any other failure kills the tree too.
 * Needs Json.java (Gson), Course.java, Machine.java and Profile.java alongside.
 */
public final class Jmh {
    private Jmh() {}

    private static final Pattern SNIPPET = Pattern.compile("[A-Za-z0-9_]+\\.java");
    private static final Pattern PARAM_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
    private static final int TAIL_LINES = 40;

    /**
     * One benchmark x parameter combination of a JMH report.
     *
     * @param benchmark the benchmark method, e.g. {@code unpinned.snippets.S01_IoBoundExecutors.sleepingTasks}
     * @param params    its @Param values
     * @param mode      "avgt", "thrpt", "sample", "ss"
     * @param score     the mean over the measurement iterations
     * @param error     the 99.9 % confidence half-width (NaN with fewer than 2 iterations)
     * @param unit      e.g. "ms/op"
     * @param samples   every measurement iteration's score, forks one after the other
     */
    public record Result(String benchmark, Map<String, String> params, String mode, double score, double error,
                         String unit, double[] samples) {
        /** The benchmark method's simple name. */
        public String method() {
            int dot = benchmark.lastIndexOf('.');
            return dot < 0 ? benchmark : benchmark.substring(dot + 1);
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%s %s %s: %.3f ± %.3f %s (%d samples)",
                    method(), params, mode, score, error, unit, samples.length);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Result r && benchmark.equals(r.benchmark) && params.equals(r.params)
                    && mode.equals(r.mode) && Double.compare(score, r.score) == 0 && Double.compare(error, r.error) == 0
                    && unit.equals(r.unit) && Arrays.equals(samples, r.samples);
        }

        @Override
        public int hashCode() {
            return Objects.hash(benchmark, params, mode, score, error, unit, Arrays.hashCode(samples));
        }
    }

    /**
     * Runs {@code snippets/<snippet>} through the course's JBang with JMH parameters {@code params}
     * ({@code -p name=value}; several values as "a,b,c") and extra JMH arguments, and returns its results.
     *
     * @throws IllegalArgumentException bad snippet name, parameter or argument
     * @throws IllegalStateException    the run failed (the message holds the end of its output)
     * @throws CancellationException    the calling thread was interrupted: the child process tree is gone
     *                                  and the thread's interrupt flag is set again
     * @throws UncheckedIOException     the child could not be started or its report not read
     */
    public static List<Result> run(String snippet, Map<String, String> params, String... jmhArgs) {
        Path home = Course.home();
        List<String> command = command(home, snippet, params, jmhArgs);
        Path report;
        try {
            report = Files.createTempFile("unpinned-jmh-", ".json");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary file for the JMH report", e);
        }
        command.add("-rf");
        command.add("json");
        command.add("-rff");
        command.add(report.toString());
        Deque<String> tail = new ArrayDeque<>();
        Process process = null;
        Thread pump = null;
        try {
            System.out.println("[jmh] " + String.join(" ", command));
            process = new ProcessBuilder(command).directory(home.toFile()).redirectErrorStream(true).start();
            process.getOutputStream().close();
            Process p = process;
            // Reading a pipe cannot be interrupted, so a helper thread pumps the output and this thread waits.
            pump = Thread.ofPlatform().daemon(true).name("jmh-output").start(() -> pump(p, tail));
            int exit = process.waitFor();
            pump.join(TimeUnit.SECONDS.toMillis(10));
            if (exit != 0) {
                throw new IllegalStateException("JMH run of snippets/" + snippet + " failed with exit code " + exit
                        + "; its last lines:\n" + tail(tail));
            }
            String json = Files.readString(report, StandardCharsets.UTF_8);
            if (json.isBlank()) {
                throw new IllegalStateException("JMH run of snippets/" + snippet + " wrote no results (was -h or -l given?)"
                        + "; its last lines:\n" + tail(tail));
            }
            return parse(json);
        } catch (InterruptedException e) {
            destroyTree(process);
            Thread.currentThread().interrupt();
            CancellationException c = new CancellationException("JMH run of snippets/" + snippet
                    + " interrupted; the child process and its descendants were killed");
            c.initCause(e);
            throw c;
        } catch (IOException e) {
            throw new UncheckedIOException("JMH run of snippets/" + snippet + " failed: " + e.getMessage(), e);
        } finally {
            if (process != null && process.isAlive()) destroyTree(process);
            if (pump != null) pump.interrupt();
            try {
                Files.deleteIfExists(report);
            } catch (IOException ignored) {
                // a temp file; the OS cleans up
            }
        }
    }

    /** The command line without the report options; validates everything first. */
    static List<String> command(Path home, String snippet, Map<String, String> params, String... jmhArgs) {
        if (snippet == null || !SNIPPET.matcher(snippet).matches()) {
            throw new IllegalArgumentException("snippet must be a file name in snippets/ like 'S01_IoBoundExecutors.java', got "
                    + (snippet == null ? "null" : "'" + snippet + "'"));
        }
        Path file = home.resolve("snippets").resolve(snippet);
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("no snippet " + snippet + " in " + file.getParent() + "; there are: " + snippets(home));
        }
        List<String> command = new ArrayList<>();
        command.add(home.resolve("tools").resolve("jbang").toString());
        // JBang runs the snippet's host JVM on the kernel's JDK: quiet JMH's Unsafe warning there too.
        for (String flag : JmhArgs.quietUnsafe(Runtime.version().feature())) command.add("--runtime-option=" + flag);
        command.add("snippets/" + snippet);
        for (String a : jmhArgs == null ? new String[0] : jmhArgs) {
            if (a == null) throw new IllegalArgumentException("jmhArgs must not contain null");
            if (a.equals("-rf") || a.equals("-rff") || a.equals("-o")) {
                throw new IllegalArgumentException("jmhArgs must not contain " + a + ": Jmh.run sets the report file itself");
            }
            command.add(a);
        }
        if (params != null) {
            params.forEach((k, v) -> {
                if (k == null || !PARAM_NAME.matcher(k).matches()) {
                    throw new IllegalArgumentException("parameter names must be Java identifiers, got '" + k + "'");
                }
                if (v == null || v.isBlank() || v.contains(" ")) {
                    throw new IllegalArgumentException("parameter " + k + " needs a value without spaces (several as a,b,c), got '" + v + "'");
                }
                command.add("-p");
                command.add(k + "=" + v);
            });
        }
        return command;
    }

    private static String snippets(Path home) {
        try (Stream<Path> s = Files.list(home.resolve("snippets"))) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".java")).sorted().toList().toString();
        } catch (IOException e) {
            return "(none)";
        }
    }

    private static void pump(Process p, Deque<String> tail) {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                System.out.println(line);
                synchronized (tail) {
                    tail.addLast(line);
                    if (tail.size() > TAIL_LINES) tail.removeFirst();
                }
            }
        } catch (IOException e) {
            // the process was killed: nothing more to read
        }
    }

    private static String tail(Deque<String> tail) {
        synchronized (tail) {
            return String.join("\n", tail);
        }
    }

    /** Kills the process and every descendant (JBang's JVM, JMH's forks), children first listed before any dies. */
    static void destroyTree(Process process) {
        if (process == null) return;
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        Collections.reverse(tree);
        tree.add(process.toHandle());
        tree.forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        boolean interrupted = Thread.interrupted();
        for (ProcessHandle h : tree) {
            try {
                long left = deadline - System.nanoTime();
                if (left > 0) h.onExit().get(left, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                interrupted = true;
            } catch (Exception e) {
                // timed out or failed: forced below
            }
        }
        tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
        if (interrupted) Thread.currentThread().interrupt();
    }

    /** Parses a JMH JSON report ({@code -rf json}). */
    public static List<Result> parse(String json) {
        JsonElement root = Json.parse(json);
        if (!root.isJsonArray()) {
            throw new IllegalArgumentException("a JMH JSON report is an array of benchmark results, got: "
                    + json.substring(0, Math.min(80, json.length())));
        }
        List<Result> out = new ArrayList<>();
        for (JsonElement e : root.getAsJsonArray()) {
            JsonObject o = e.getAsJsonObject();
            Map<String, String> params = new LinkedHashMap<>();
            if (o.has("params") && o.get("params").isJsonObject()) {
                o.getAsJsonObject("params").entrySet().forEach(p -> params.put(p.getKey(), p.getValue().getAsString()));
            }
            JsonObject m = o.getAsJsonObject("primaryMetric");
            List<Double> samples = new ArrayList<>();
            if (m.has("rawData") && m.get("rawData").isJsonArray()) {
                for (JsonElement fork : m.getAsJsonArray("rawData")) {
                    for (JsonElement v : (JsonArray) fork) samples.add(number(v));
                }
            }
            out.add(new Result(o.get("benchmark").getAsString(), Collections.unmodifiableMap(params),
                    o.get("mode").getAsString(), number(m.get("score")), number(m.get("scoreError")),
                    m.get("scoreUnit").getAsString(), samples.stream().mapToDouble(Double::doubleValue).toArray()));
        }
        return out;
    }

    // JMH writes NaN as the string "NaN".
    private static double number(JsonElement v) {
        if (v == null || v.isJsonNull()) return Double.NaN;
        try {
            return v.getAsDouble();
        } catch (NumberFormatException | UnsupportedOperationException e) {
            return Double.NaN;
        }
    }

}
