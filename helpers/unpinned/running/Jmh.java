//SOURCES ChildRun.java
//SOURCES ../core/Course.java
//SOURCES ../core/Figure.java
//SOURCES ../core/Json.java
//SOURCES ../core/RunGuard.java
package unpinned.running;

import unpinned.core.Figure;

import unpinned.core.Course;
import unpinned.core.RunGuard;
import unpinned.core.Json;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs a JMH snippet as a child process and reads its results. JMH benchmarks cannot be declared
 * in a notebook cell (JShell runs no annotation processor), so a notebook calls
 *
 * <pre>{@code
 * List<Jmh.Result> rs = Jmh.run("S01_IoBoundExecutors.java", Map.of("tasks", "500"), "-i", "2");
 * }</pre>
 *
 * which runs {@code <home>/tools/jbang snippets/S01_IoBoundExecutors.java -i 2 -p tasks=500 -rf json -rff <tmp>}
 * through {@link ChildRun}: JMH's full output goes to a log file under the results folder, the cell
 * shows one line per benchmark that updates as its iterations come in, and the JSON report is
 * parsed. A failed benchmark makes the run fail loudly: the snippets run JMH with {@code -foe true},
 * so a benchmark that throws ends the child with a non-zero exit, and a report with fewer results
 * than the benchmarks JMH started is refused too. Interrupting the calling thread (a notebook's
 * stop button) kills the child and its forks and throws {@link CancellationException}.
 * Needs ChildRun.java, Json.java (Gson), Course.java, Results.java, Machine.java and Profile.java alongside.
 */
public final class Jmh {
    private Jmh() {}

    private static final Pattern PARAM_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

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
     * @param secondary every secondary metric (e.g. {@code @AuxCounters}) by name: its value per iteration,
     *                  in the same order as {@code samples}
     */
    public record Result(String benchmark, Map<String, String> params, String mode, double score, double error,
                         String unit, double[] samples, Map<String, double[]> secondary) {
        /** The benchmark method's simple name. */
        public String method() {
            int dot = benchmark.lastIndexOf('.');
            return dot < 0 ? benchmark : benchmark.substring(dot + 1);
        }

        /** The score with its 95 % interval over the measurement iterations (JMH's own 99.9 % one needs 3 or more). */
        public Figure figure() {
            if (samples.length == 0) return Figure.single(score);
            return Figure.samples(samples, "JMH iterations").at(score);
        }

        /** Secondary metric {@code name} per iteration; an error names the metrics there are. */
        public double[] secondary(String name) {
            double[] v = secondary.get(name);
            if (v == null) throw new IllegalArgumentException(method() + " has no secondary metric '" + name + "'; it has " + secondary.keySet());
            return v;
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
                    && unit.equals(r.unit) && Arrays.equals(samples, r.samples) && sameSecondary(secondary, r.secondary);
        }

        @Override
        public int hashCode() {
            return Objects.hash(benchmark, params, mode, score, error, unit, Arrays.hashCode(samples), secondary.keySet());
        }

        private static boolean sameSecondary(Map<String, double[]> a, Map<String, double[]> b) {
            return a.keySet().equals(b.keySet()) && a.keySet().stream().allMatch(k -> Arrays.equals(a.get(k), b.get(k)));
        }
    }

    /**
     * Runs {@code snippets/<snippet>} through the course's JBang with JMH parameters {@code params}
     * ({@code -p name=value}; several values as "a,b,c") and extra JMH arguments, and returns its results.
     *
     * @throws IllegalArgumentException bad snippet name, parameter or argument
     * @throws IllegalStateException    the run failed, or reported fewer results than the benchmarks it started
     *                                  (the message holds the end of its output and the log's path)
     * @throws CancellationException    the calling thread was interrupted: the child process tree is gone
     *                                  and the thread's interrupt flag is set again
     * @throws UncheckedIOException     the child could not be started or its report not read
     */
    public static List<Result> run(String snippet, Map<String, String> params, String... jmhArgs) {
        return run(Course.home(), snippet, params, jmhArgs);
    }

    /** How long {@link #run} waits for another JMH benchmark on this machine to end before starting its own. */
    static final Duration LOCK_WAIT = Duration.ofMinutes(5);

    /**
     * Waits while another JMH run on this machine holds JMH's lock file ({@code jmh.lock} in the temporary folder),
     * at most {@code max}: two benchmarks at once would measure each other, and the second JMH would refuse to start
     * ("Unable to acquire the JMH lock"). Says once that it waits; after {@code max}, or when the lock can't be
     * read, it returns and lets JMH decide.
     *
     * @throws CancellationException the calling thread was interrupted (its interrupt flag is set again)
     */
    static void awaitOtherBenchmarks(Duration max) {
        Path lock = Path.of(System.getProperty("java.io.tmpdir"), "jmh.lock");
        long deadline = System.nanoTime() + max.toNanos();
        boolean said = false;
        while (true) {
            try (FileChannel channel = FileChannel.open(lock, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 FileLock held = channel.tryLock()) {
                if (held != null) return;
            } catch (OverlappingFileLockException e) {
                // held in this JVM: another cell's benchmark is still running
            } catch (IOException | RuntimeException e) {
                return;
            }
            if (System.nanoTime() > deadline) return;
            if (!said) {
                System.out.println("another JMH benchmark is running on this machine: waiting for it to end (at most "
                        + max.toMinutes() + " min), so that the two don't measure each other");
                said = true;
            }
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CancellationException("interrupted while waiting for another JMH benchmark to end");
            }
        }
    }

    static List<Result> run(Path home, String snippet, Map<String, String> params, String... jmhArgs) {
        List<String> command = command(home, snippet, params, jmhArgs);
        long deadline = System.nanoTime() + LOCK_WAIT.toNanos();
        while (true) {
            awaitOtherBenchmarks(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
            Progress progress = new Progress();
            try {
                return runOnce(home, snippet, new ArrayList<>(command), progress);
            } catch (IllegalStateException e) {
                // Another benchmark can take JMH's lock between the wait above and this JMH's start (it takes seconds
                // to start): then nothing was measured, and waiting again is all there is to do.
                if (!progress.lockRefused || System.nanoTime() > deadline) throw e;
                RunGuard.lift(ChildRun.label(snippet));
                System.out.println("another JMH benchmark took JMH's lock as this one started: waiting for it to end,"
                        + " then starting again");
            }
        }
    }

    private static List<Result> runOnce(Path home, String snippet, List<String> command, Progress progress) {
        Path report;
        try {
            report = Files.createTempFile("unpinned-jmh-", ".json");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary file for the JMH report", e);
        }
        command.addAll(List.of("-rf", "json", "-rff", report.toString()));
        try (ChildRun child = ChildRun.start(ChildRun.label(snippet), home, command, progress::line)) {
            child.awaitExit();
            String json = Files.readString(report, StandardCharsets.UTF_8);
            if (json.isBlank()) throw child.failure("wrote no results (was -h or -l given?)");
            List<Result> results = parse(json);
            if (results.size() < progress.started) {
                throw child.failure("reported " + results.size() + " results for the " + progress.started
                        + " benchmarks it started");
            }
            return results;
        } catch (IOException e) {
            throw new UncheckedIOException("JMH run of snippets/" + snippet + ": cannot read its report: " + e.getMessage(), e);
        } finally {
            try {
                Files.deleteIfExists(report);
            } catch (IOException ignored) {
                // a temp file; the OS cleans up
            }
        }
    }

    /** The command line without the report options; validates everything first. */
    static List<String> command(Path home, String snippet, Map<String, String> params, String... jmhArgs) {
        List<String> args = new ArrayList<>();
        for (String a : jmhArgs == null ? new String[0] : jmhArgs) {
            if (a == null) throw new IllegalArgumentException("jmhArgs must not contain null");
            if (a.equals("-rf") || a.equals("-rff") || a.equals("-o")) {
                throw new IllegalArgumentException("jmhArgs must not contain " + a + ": Jmh.run sets the report file itself");
            }
            args.add(a);
        }
        if (params != null) {
            params.forEach((k, v) -> {
                if (k == null || !PARAM_NAME.matcher(k).matches()) {
                    throw new IllegalArgumentException("parameter names must be Java identifiers, got '" + k + "'");
                }
                if (v == null || v.isBlank() || v.contains(" ")) {
                    throw new IllegalArgumentException("parameter " + k + " needs a value without spaces (several as a,b,c), got '" + v + "'");
                }
                args.add("-p");
                args.add(k + "=" + v);
            });
        }
        return ChildRun.snippetCommand(home, snippet, args);
    }

    /**
     * Turns JMH's console output into one line per benchmark, updated as its iterations come in, e.g.
     * {@code sleepingTasksOnExecutor (executor=fixed-8) · iteration 2/5: 3,161 ms/op}, and counts the
     * benchmarks started.
     */
    static final class Progress {
        private static final Pattern ITERATIONS = Pattern.compile("# (Warmup|Measurement): (\\d+) iterations.*");
        private static final Pattern ITERATION = Pattern.compile("(# Warmup )?Iteration\\s+(\\d+): ([0-9.,]+) (\\S+).*");
        private static final Pattern RESULT = Pattern.compile("\\s+([0-9.,]+) ±\\(99\\.9%\\) ([0-9.,]+) (\\S+).*");
        int started;
        /** JMH refused to start: another benchmark held its lock. */
        boolean lockRefused;
        private int warmups, iterations;
        private String name = "";
        private boolean resultNext;

        String line(String line) {
            Matcher m;
            if (line.contains("Unable to acquire the JMH lock")) {
                lockRefused = true;
                return "another benchmark holds JMH's lock"; // a passing state, not trouble: run() waits and retries
            }
            if (line.startsWith("[jbang] ")) return line.substring(8);
            if ((m = ITERATIONS.matcher(line)).matches()) {
                if (m.group(1).equals("Warmup")) warmups = Integer.parseInt(m.group(2));
                else iterations = Integer.parseInt(m.group(2));
            } else if (line.startsWith("# Benchmark: ")) {
                started++;
                String b = line.substring("# Benchmark: ".length()).trim();
                name = b.substring(b.lastIndexOf('.') + 1);
            } else if (line.startsWith("# Parameters: (")) {
                name += " (" + line.substring("# Parameters: (".length(), line.length() - 1).replace(" = ", "=") + ")";
                return name + " · starting";
            } else if ((m = ITERATION.matcher(line)).matches()) {
                boolean warm = m.group(1) != null;
                return String.format(Locale.ROOT, "%s · %s %s/%d: %s %s", name, warm ? "warm-up" : "iteration",
                        m.group(2), warm ? warmups : iterations, number(m.group(3)), m.group(4));
            } else if (line.startsWith("Result \"")) {
                resultNext = true;
            } else if (resultNext && (m = RESULT.matcher(line)).matches()) {
                resultNext = false;
                return String.format(Locale.ROOT, "%s: %s ± %s %s%n", name, number(m.group(1)), number(m.group(2)), m.group(3));
            } else if (resultNext && !line.isBlank()) {
                resultNext = false; // too few iterations for an error: JMH prints the score alone
                String[] parts = line.trim().split("\\s+");
                return name + ": " + number(parts[0]) + (parts.length > 1 ? " " + parts[1] : "") + "\n";
            }
            return null;
        }

        private static String number(String jmh) {
            try {
                double v = Double.parseDouble(jmh.replace(",", ""));
                return String.format(Locale.ROOT, v >= 100 ? "%,.0f" : "%,.2f", v);
            } catch (NumberFormatException e) {
                return jmh;
            }
        }
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
            Map<String, double[]> secondary = new LinkedHashMap<>();
            if (o.has("secondaryMetrics") && o.get("secondaryMetrics").isJsonObject()) {
                o.getAsJsonObject("secondaryMetrics").entrySet().forEach(metric ->
                        secondary.put(metric.getKey(), raw(metric.getValue().getAsJsonObject())));
            }
            out.add(new Result(o.get("benchmark").getAsString(), Collections.unmodifiableMap(params),
                    o.get("mode").getAsString(), number(m.get("score")), number(m.get("scoreError")),
                    m.get("scoreUnit").getAsString(), raw(m), Collections.unmodifiableMap(secondary)));
        }
        return out;
    }

    /** A metric's per-iteration values, forks one after the other. */
    private static double[] raw(JsonObject metric) {
        List<Double> samples = new ArrayList<>();
        if (metric.has("rawData") && metric.get("rawData").isJsonArray()) {
            for (JsonElement fork : metric.getAsJsonArray("rawData")) {
                for (JsonElement v : (JsonArray) fork) samples.add(number(v));
            }
        }
        return samples.stream().mapToDouble(Double::doubleValue).toArray();
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
