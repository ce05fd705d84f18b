//DEPS org.openjdk.jmh:jmh-core:1.37
//SOURCES ../core/Profile.java
//SOURCES ../core/Protocol.java
package unpinned.running;

import unpinned.core.Profile;
import unpinned.core.Protocol;

import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatFactory;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Defaults;
import org.openjdk.jmh.runner.NoBenchmarksException;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.format.OutputFormat;
import org.openjdk.jmh.runner.format.OutputFormatFactory;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * A snippet's default JMH command line merged with the one the user typed: the user's flags win,
 * flag by flag (and of a flag given twice, the last). {@code -i 1} replaces the default {@code -i 5} and keeps every other default;
 * parameters are merged per name, so {@code -p tasks=16} replaces the default {@code -p tasks=...}
 * but keeps a default {@code -p updates=...}. Flags that may repeat ({@code -prof}) and benchmark
 * name patterns are added to the defaults. Plain JMH syntax only: {@code -flag value}.
 *
 * <pre>{@code
 * JmhArgs.merge(List.of("-f", "1", "-i", "5"), "-i", "1")  ->  [-f, 1, -i, 1]
 * }</pre>
 */
public final class JmhArgs {
    private JmhArgs() {}

    /** JMH options that take no value (they list or print, then exit). */
    static final Set<String> NO_VALUE = Set.of("-h", "-l", "-lp", "-lrf", "-lprof");
    /** Options that may be given several times, each adding to the others. */
    static final Set<String> REPEATABLE = Set.of("-prof");

    /**
     * The quick-profile defaults of the snippets: 1 fork, 1 x 1 s warm-up, 4 x 0.5 s measurement, and fail on
     * error ({@code -foe true}: a benchmark that throws ends the run with a non-zero exit, never a partial report).
     * Four short iterations, not two long ones: the same two seconds give an interval about four times narrower
     * (Student's t with 3 degrees of freedom instead of 1), so a verdict can be taken from it.
     */
    public static final List<String> QUICK =
            List.of("-f", "1", "-wi", "1", "-w", "1s", "-i", "4", "-r", "500ms", "-foe", "true");
    /** The full-profile defaults (the sources' JMH settings): 1 fork, 3 x 1 s warm-up, 5 x 1 s measurement. */
    public static final List<String> FULL =
            List.of("-f", "1", "-wi", "3", "-w", "1s", "-i", "5", "-r", "1s", "-foe", "true");

    /**
     * {@link #QUICK} or {@link #FULL}; on JDK 24+ also {@code -jvmArgsAppend --sun-misc-unsafe-memory-access=allow},
     * which silences the four-line sun.misc.Unsafe warning JMH 1.37 triggers in every fork (the flag does not
     * exist before JDK 23, so it is only added where it is understood).
     */
    public static List<String> defaults(Profile profile) {
        return defaults(profile, Runtime.version().feature());
    }

    /** The JVM flag that silences JMH's sun.misc.Unsafe warning, or empty where the JDK does not know it. */
    public static List<String> quietUnsafe(int jdkFeature) {
        return jdkFeature >= 24 ? List.of("--sun-misc-unsafe-memory-access=allow") : List.of();
    }

    static List<String> defaults(Profile profile, int jdkFeature) {
        if (profile == null) throw new IllegalArgumentException("profile must be QUICK or FULL, got null");
        List<String> d = new ArrayList<>(profile.pick(QUICK, FULL));
        for (String flag : quietUnsafe(jdkFeature)) d.addAll(List.of("-jvmArgsAppend", flag));
        return List.copyOf(d);
    }

    /** The merged command line: defaults first (in their order, overridden values in place), then new user flags. */
    public static String[] merge(List<String> defaults, String... user) {
        if (defaults == null) throw new IllegalArgumentException("defaults must be a list of JMH arguments, got null");
        List<String> userArgs = user == null ? List.of() : Arrays.asList(user);
        Map<String, List<String>> merged = new LinkedHashMap<>();
        List<String> patterns = new ArrayList<>();
        parse(defaults, merged, patterns);
        parse(userArgs, merged, patterns);
        List<String> out = new ArrayList<>();
        merged.forEach((key, values) -> {
            String flag = key.startsWith("-p ") ? "-p" : key;
            if (NO_VALUE.contains(flag)) {
                out.add(flag);
            } else {
                for (String v : values) {
                    out.add(flag);
                    out.add(v);
                }
            }
        });
        out.addAll(patterns);
        return out.toArray(String[]::new);
    }

    /** Whether the user's arguments set JMH parameter {@code name} ({@code -p name=...}). */
    public static boolean setsParam(String name, String... user) {
        if (user == null) return false;
        for (int i = 0; i + 1 < user.length; i++) {
            if (user[i].equals("-p") && user[i + 1].startsWith(name + "=")) return true;
        }
        return false;
    }

    /** The {@code -p name=a,b,c} parameters of a (merged) command line: name -> its values, in order. */
    public static Map<String, List<String>> params(String... args) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (int i = 0; args != null && i + 1 < args.length; i++) {
            if (!args[i].equals("-p")) continue;
            String value = args[++i];
            int eq = value.indexOf('=');
            if (eq <= 0) throw new IllegalArgumentException("JMH option -p needs name=value (e.g. -p tasks=500), got " + value);
            out.put(value.substring(0, eq), List.of(value.substring(eq + 1).split(",", -1)));
        }
        return out;
    }

    /** Every value of parameter {@code name}, if given, must be one of {@code allowed}. */
    public static void requireOneOf(Map<String, List<String>> params, String name, List<String> allowed) {
        for (String v : params.getOrDefault(name, List.of())) {
            if (!allowed.contains(v.trim())) {
                throw new IllegalArgumentException("-p " + name + " must be one of " + String.join(", ", allowed)
                        + "; got '" + v + "'");
            }
        }
    }

    /** Every value of parameter {@code name}, if given, must be a whole number in [min, max]. */
    public static void requireInts(Map<String, List<String>> params, String name, long min, long max) {
        for (String v : params.getOrDefault(name, List.of())) requireInt(name, v, min, max);
    }

    /** {@code value} as a whole number in [min, max], or an error naming parameter {@code name} and the range. */
    public static long requireInt(String name, String value, long min, long max) {
        try {
            long n = Long.parseLong(value.trim());
            if (n >= min && n <= max) return n;
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(String.format(Locale.ROOT,
                "-p %s must be a whole number from %,d to %,d; got '%s'", name, min, max, value));
    }

    /** The flags that ask for help instead of a run. */
    static final Set<String> HELP = Set.of("-h", "--help", "-help");
    /** JMH's listing flags: they print, run nothing and save nothing. */
    static final Set<String> LISTING = Set.of("-l", "-lp", "-lrf", "-lprof");

    /**
     * A JMH snippet's {@code main}: merges its defaults with the user's arguments, lets {@code validate} check the
     * parameters, and runs JMH. {@code -h} or {@code --help} prints the snippet's usage (its parameters and
     * defaults), then JMH's options, and exits 0. Bad input (a {@code -p} parameter the benchmark does not have,
     * a value {@code validate} refuses, an option JMH does not know) ends the JVM with one line on stderr
     * ({@code <snippet>: <what is allowed>}) and exit code 2, before any fork starts. A run that failed, or that
     * produced fewer results than the benchmarks it started (a fork that died under {@code -foe false}), ends it
     * with one line and exit code 1, and saves nothing: the result file ({@code -rf}, {@code -rff}) is written
     * only after a complete run, all at once.
     */
    public static void runOrExit(String snippet, Class<?> benchmark, List<String> defaults, String[] args,
                                 Consumer<Map<String, List<String>>> validate) throws Exception {
        if (args != null && Arrays.stream(args).anyMatch(HELP::contains)) {
            System.out.println(usage(snippet, benchmark, defaults));
            new CommandLineOptions("-h").showHelp();
            System.exit(0);
        }
        String[] merged;
        CommandLineOptions options, report;
        Map<String, List<String>> effective; // each parameter's values in this run: the benchmark's, then -p's
        try {
            merged = merge(defaults, args);
            Map<String, List<String>> params = params(merged);
            effective = new TreeMap<>(parameters(benchmark, defaults));
            requireKnown(params, effective.keySet());
            validate.accept(params);
            effective.putAll(params);
            report = new CommandLineOptions(merged);
            options = new CommandLineOptions(withoutReport(merged));
            // files JMH would write only after the benchmark ran: a folder that is not there is found now
            if (resultFile(report) != null) requireFolderFor("-rff", resultFile(report));
            if (options.getOutput().hasValue()) requireFolderFor("-o", Path.of(options.getOutput().get()));
        } catch (IllegalArgumentException | CommandLineOptionException e) {
            System.err.println(snippet + ": " + oneLine(e.getMessage()) + " (-h lists what is allowed)");
            System.exit(2);
            return;
        }
        System.out.println("JMH arguments: " + String.join(" ", merged));
        if (Arrays.stream(merged).anyMatch(LISTING::contains)) {
            org.openjdk.jmh.Main.main(merged); // lists, then returns
            return;
        }
        Set<String> varying = new TreeSet<>();
        effective.forEach((name, values) -> {
            if (values.size() > 1) varying.add(name);
        });
        String failure = run(options, report, varying);
        if (failure != null) {
            System.out.flush();
            System.err.println(snippet + ": " + failure + "; nothing saved");
            System.exit(1);
        }
    }

    /** Runs JMH; null when every benchmark it started gave a result (then saved, if asked), else why not. */
    private static String run(CommandLineOptions options, CommandLineOptions report, Set<String> varying)
            throws IOException {
        // JMH's own console output (or -o's file), counting the benchmarks it starts; System.out stays open
        PrintStream out = options.getOutput().hasValue()
                ? new PrintStream(new FileOutputStream(options.getOutput().get()), true, StandardCharsets.UTF_8)
                : System.out;
        OutputFormat console = OutputFormatFactory.createFormatInstance(out,
                options.verbosity().orElse(Defaults.VERBOSITY));
        int[] started = {0};
        OutputFormat counting = (OutputFormat) Proxy.newProxyInstance(JmhArgs.class.getClassLoader(),
                new Class<?>[] {OutputFormat.class}, (proxy, method, a) -> {
                    if (method.getName().equals("startBenchmark")) started[0]++;
                    if (method.getName().equals("close") && out == System.out) {
                        console.flush();
                        return null;
                    }
                    Object answer;
                    try {
                        answer = method.invoke(console, a);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                    if (method.getName().equals("iterationResult")) { // a parent's live chart: each iteration's score
                        console.flush(); // after JMH's "Iteration   1: 52.1 ms/op" line, on a line of its own
                        IterationResult r = (IterationResult) a[3];
                        Protocol.sample(new Protocol.Sample(Map.of(seriesName((BenchmarkParams) a[0], varying,
                                r.getScoreUnit()), r.getPrimaryResult().getScore())));
                    }
                    return answer;
                });
        Collection<RunResult> results;
        try {
            results = new Runner(options, counting).run();
        } catch (NoBenchmarksException e) {
            return "no benchmark matches the name patterns given";
        } catch (RunnerException e) {
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) root = root.getCause();
            return "the benchmark failed (" + oneLine(root.getMessage() == null ? root.getClass().getSimpleName()
                    : root.getMessage()) + "; its output is above)";
        }
        if (results.isEmpty() || results.size() < started[0]) {
            return started[0] == 0 ? "no benchmark ran" : String.format(Locale.ROOT, "%d of the %d benchmarks"
                    + " started produced no result (a fork failed: its output is above)", started[0] - results.size(),
                    started[0]);
        }
        Path file = resultFile(report);
        if (file != null) {
            ResultFormatType type = report.getResultFormat().orElse(Defaults.RESULT_FORMAT);
            Path partial = Files.createTempFile(file.getParent(), ".jmh-result-", ".partial");
            try {
                ResultFormatFactory.getInstance(type, partial.toString()).writeOut(results);
                Files.move(partial, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(partial);
            }
            System.out.println("Benchmark result is saved to " + file);
        }
        return null;
    }

    /** The result file {@code -rf} / {@code -rff} ask for, named as JMH names it, or null when none is. */
    static Path resultFile(CommandLineOptions report) {
        if (!report.getResult().hasValue() && !report.getResultFormat().hasValue()) return null;
        ResultFormatType type = report.getResultFormat().orElse(Defaults.RESULT_FORMAT);
        return Path.of(report.getResult().orElse(Defaults.RESULT_FILE_PREFIX + "."
                + type.toString().toLowerCase(Locale.ROOT))).toAbsolutePath();
    }

    /** Refuses {@code option}'s {@code file} unless its folder exists and a file can be made there. */
    static void requireFolderFor(String option, Path file) {
        Path target = file.toAbsolutePath().normalize(), folder = target.getParent();
        if (Files.isDirectory(target)) {
            throw new IllegalArgumentException(option + " " + target + " is a folder; name a file in it");
        }
        if (folder == null || !Files.isDirectory(folder)) {
            throw new IllegalArgumentException(option + " " + target + ": the folder " + folder + " does not exist;"
                    + " create it first, or name a file in a folder that exists");
        }
        try {
            Files.delete(Files.createTempFile(folder, ".jmh-write-check-", ".part"));
        } catch (IOException e) {
            throw new IllegalArgumentException(option + " " + target + ": the folder " + folder + " cannot be"
                    + " written (" + e.getClass().getSimpleName() + ")");
        }
    }

    /**
     * A live chart's name for one benchmark's iterations: the values of the parameters that vary in this run (or the
     * method's name), then the unit, as {@code fixed-8_ms/op}; figures in one unit share an axis.
     */
    static String seriesName(BenchmarkParams b, Set<String> varying, String unit) {
        List<String> parts = new ArrayList<>();
        for (String key : b.getParamsKeys()) if (varying.contains(key)) parts.add(b.getParam(key));
        if (parts.isEmpty()) parts.add(b.getBenchmark().substring(b.getBenchmark().lastIndexOf('.') + 1));
        parts.add(unit);
        return String.join("_", parts).replaceAll("[\\s=]+", "-");
    }

    /** The merged command line less {@code -rf} and {@code -rff}: {@link #runOrExit} writes the result file itself. */
    static String[] withoutReport(String[] merged) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < merged.length; i++) {
            if ((merged[i].equals("-rf") || merged[i].equals("-rff")) && i + 1 < merged.length) {
                i++;
            } else {
                out.add(merged[i]);
            }
        }
        return out.toArray(String[]::new);
    }

    /**
     * The benchmark's JMH parameters and their values: its {@code @Param} fields (in it, its state classes and
     * their superclasses), with the snippet's own defaults ({@code -p} in {@code defaults}) in place of the
     * annotation's.
     */
    public static Map<String, List<String>> parameters(Class<?> benchmark, List<String> defaults) {
        Map<String, List<String>> out = new TreeMap<>();
        collectParams(benchmark, out, new HashSet<>());
        if (defaults != null) {
            params(defaults.toArray(String[]::new)).forEach((name, values) -> {
                if (out.containsKey(name)) out.put(name, values);
            });
        }
        return out;
    }

    private static void collectParams(Class<?> c, Map<String, List<String>> out, Set<Class<?>> seen) {
        if (c == null || c == Object.class || !seen.add(c)) return;
        for (Field f : c.getDeclaredFields()) {
            Param p = f.getAnnotation(Param.class);
            if (p != null) out.put(f.getName(), List.of(p.value()));
        }
        collectParams(c.getSuperclass(), out, seen);
        for (Class<?> nested : c.getDeclaredClasses()) collectParams(nested, out, seen);
    }

    /** A {@code -p} parameter the benchmark does not have: JMH would ignore it and run the defaults. */
    static void requireKnown(Map<String, List<String>> params, Set<String> known) {
        for (String name : params.keySet()) {
            if (!known.contains(name)) {
                throw new IllegalArgumentException("-p " + name + " is not a parameter of this benchmark; its"
                        + " parameters: " + String.join(", ", new TreeSet<>(known)));
            }
        }
    }

    /** The snippet's usage: its parameters with their default values, and the JMH flags it passes unless told. */
    static String usage(String snippet, Class<?> benchmark, List<String> defaults) {
        StringBuilder b = new StringBuilder("usage: ").append(snippet)
                .append(" [-p name=value[,value...]]... [JMH options] [benchmark name pattern]\n")
                .append("  parameters (-p; several values run one after the other), and their defaults:\n");
        parameters(benchmark, defaults).forEach((name, values) ->
                b.append("    ").append(name).append(" = ").append(String.join(",", values)).append('\n'));
        List<String> flags = new ArrayList<>();
        for (int i = 0; i < defaults.size(); i++) {
            if (defaults.get(i).equals("-p")) {
                i++;
            } else {
                flags.add(defaults.get(i));
            }
        }
        return b.append("  JMH flags passed unless you give your own (yours win, flag by flag): ")
                .append(String.join(" ", flags)).append('\n')
                .append("  -h, --help: this text, then JMH's options:").toString();
    }

    private static String oneLine(String s) {
        return s == null ? "" : s.replaceAll("\\s+", " ").strip();
    }

    private static void parse(List<String> args, Map<String, List<String>> merged, List<String> patterns) {
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a == null) throw new IllegalArgumentException("JMH arguments must not contain null");
            if (!a.startsWith("-") || a.length() == 1 || isNumber(a)) {
                patterns.add(a); // a benchmark name pattern
                continue;
            }
            if (NO_VALUE.contains(a)) {
                merged.put(a, List.of());
                continue;
            }
            if (i + 1 >= args.size()) {
                throw new IllegalArgumentException("JMH option " + a + " needs a value, e.g. " + a + " 1");
            }
            String value = args.get(++i);
            String key = a;
            if (a.equals("-p")) {
                int eq = value.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("JMH option -p needs name=value (e.g. -p tasks=500), got " + value);
                }
                key = "-p " + value.substring(0, eq);
            }
            if (REPEATABLE.contains(a)) {
                merged.computeIfAbsent(key, k -> new ArrayList<>()).add(value);
            } else {
                merged.put(key, List.of(value)); // a later value replaces an earlier one, in the earlier one's place
            }
        }
    }

    private static boolean isNumber(String s) {
        return s.matches("-\\d+(\\.\\d+)?");
    }
}
