//SOURCES ../core/Course.java
package unpinned.running;

import unpinned.core.Course;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import javax.management.ObjectName;

/**
 * async-profiler as set-up installs it: the native library for this machine, which {@code tools/course_install.py}
 * takes from Maven Central's {@code tools.profiler:async-profiler} jar (the one pinned version) and extracts into
 * {@value #FOLDER}{@code /<platform>/}{@value #LIBRARY}. It is loaded into the JVM that runs this code and driven
 * through the JVM's own diagnostic command {@code JVMTI.agent_load}: async-profiler takes every load of its library
 * as one command ({@code start,event=cpu,...}, {@code stop}, a dump), exactly what
 * {@code jcmd <pid> JVMTI.agent_load <library> "<command>"} sends from outside. So no Java API jar joins the
 * classpath, and the same calls work on JDK 21 and 25.
 *
 * <pre>{@code
 * String why = AsyncProfiler.unavailable();           // null: it can profile here
 * AsyncProfiler.Started s = AsyncProfiler.start("cpu", Duration.ofMillis(10), "");
 * ... the window to profile ...
 * AsyncProfiler.stop();
 * AsyncProfiler.dump("collapsed", Path.of("p.collapsed"));   // one line per stack: frames;...;leaf count
 * AsyncProfiler.dump("flamegraph", Path.of("p.html"));       // its own HTML flame graph, self-contained
 * }</pre>
 * A JVM that loads it should run with {@value #JVM_OPTION}: JDK 21 and later warn on stderr about an agent loaded
 * into a running JVM otherwise (JEP 451). Needs Course.java alongside.
 */
public final class AsyncProfiler {
    private AsyncProfiler() {}

    /** Where set-up puts the library, under the course folder; a {@code VERSION} file there names the version. */
    public static final String FOLDER = ".course/async-profiler";
    public static final String LIBRARY = "libasyncProfiler.so";
    /** The option that lets this JVM load an agent while it runs, without a warning (JDK 21+). */
    public static final String JVM_OPTION = "-XX:+EnableDynamicAgentLoading";
    private static final String DCMD = "com.sun.management:type=DiagnosticCommand";

    /** What started: the event asked for, the one that runs, and why they differ (null when they don't). */
    public record Started(String asked, String event, String fallback) {}

    /**
     * The jar's folder for an OS and architecture as Java names them ({@code os.name}, {@code os.arch}):
     * linux-x64, linux-arm64 or macos; empty where the jar has no library.
     */
    static Optional<String> platform(String osName, String osArch) {
        String os = osName == null ? "" : osName.toLowerCase(Locale.ROOT);
        String arch = osArch == null ? "" : osArch.toLowerCase(Locale.ROOT);
        if (os.startsWith("linux") && (arch.equals("amd64") || arch.equals("x86_64"))) return Optional.of("linux-x64");
        if (os.startsWith("linux") && (arch.equals("aarch64") || arch.equals("arm64"))) return Optional.of("linux-arm64");
        if (os.startsWith("mac")) return Optional.of("macos");
        return Optional.empty();
    }

    /** This machine's library, if set-up extracted it. */
    public static Optional<Path> library() {
        return library(Course.findHome().orElse(null), System.getProperty("os.name"), System.getProperty("os.arch"));
    }

    static Optional<Path> library(Path home, String osName, String osArch) {
        if (home == null) return Optional.empty();
        return platform(osName, osArch).map(p -> home.resolve(FOLDER).resolve(p).resolve(LIBRARY))
                .filter(Files::isRegularFile);
    }

    /** The version set-up extracted ("4.1"), or "not installed". */
    public static String version() {
        Path stamp = Course.findHome().map(h -> h.resolve(FOLDER).resolve("VERSION")).orElse(null);
        try {
            if (stamp != null && Files.isRegularFile(stamp)) return Files.readString(stamp).strip().split("\\s+")[0];
        } catch (IOException e) {
            // reported as not installed
        }
        return "not installed";
    }

    /**
     * Null when async-profiler can run here; otherwise one line saying why not: no library for this OS and
     * architecture in the jar, or set-up has not extracted it.
     */
    public static String unavailable() {
        String os = System.getProperty("os.name"), arch = System.getProperty("os.arch");
        if (platform(os, arch).isEmpty()) {
            return "async-profiler has no library for " + os + " on " + arch + " (its jar carries linux-x64,"
                    + " linux-arm64 and macOS)";
        }
        if (library().isEmpty()) {
            return "async-profiler is not installed in this checkout (" + FOLDER + "); run 'make setup', which"
                    + " fetches it from Maven Central";
        }
        return null;
    }

    /**
     * Sends one command to async-profiler in this JVM (loading it the first time) and returns what it logged;
     * throws with its own error line when it refuses.
     *
     * @throws IllegalStateException not installed, the library does not load here, or the command failed
     */
    public static String execute(String command) {
        if (command == null || command.isBlank() || command.contains("\"")) {
            throw new IllegalArgumentException("command must be async-profiler options like 'start,event=cpu', got '"
                    + command + "'");
        }
        String why = unavailable();
        if (why != null) throw new IllegalStateException(why);
        Path log = null;
        try {
            log = Files.createTempFile("async-profiler-", ".log");
            // the whole command in quotes: the diagnostic command's parser would read "a,b=c" as an option of its own
            String answer = (String) ManagementFactory.getPlatformMBeanServer().invoke(new ObjectName(DCMD),
                    "jvmtiAgentLoad", new Object[] {new String[] {library().orElseThrow().toString(),
                            "\"" + command + ",log=" + log + "\""}}, new String[] {String[].class.getName()});
            String logged = Files.readString(log, StandardCharsets.UTF_8).strip();
            String said = answer == null ? "" : answer.strip();
            if (!said.endsWith("return code: 0")) {
                String error = logged.lines().filter(l -> l.contains("[ERROR]")).findFirst()
                        .orElse(logged.isEmpty() ? said.lines().findFirst().orElse("no answer") : logged);
                throw new IllegalStateException("async-profiler refused '" + command + "': "
                        + error.replace("[ERROR]", "").strip());
            }
            return logged;
        } catch (IOException e) {
            throw new IllegalStateException("cannot talk to async-profiler: " + e.getMessage(), e);
        } catch (javax.management.JMException e) {
            throw new IllegalStateException("this JVM cannot load agents (" + e.getMessage() + ")", e);
        } finally {
            if (log != null) log.toFile().delete();
        }
    }

    /**
     * Loads async-profiler into this JVM now and returns its version line: the first load reads the JVM's and the
     * kernel's symbols, which can take a second or more, so a run loads it before the window it profiles.
     */
    public static String load() {
        return execute("version");
    }

    /**
     * Null when async-profiler loads into this JVM and can sample its CPU (perf_events, or itimer where those are
     * refused); otherwise one line saying why not: {@link #unavailable()}'s reasons, or the library refusing to load
     * or to start here (another C library, a seccomp filter...). It leaves the profiler loaded and stopped.
     */
    public static String whyNot() {
        String why = unavailable();
        if (why != null) return why;
        try {
            load();
            start("cpu", Duration.ofMillis(10), "");
            stop();
            return null;
        } catch (IllegalStateException e) {
            return "async-profiler " + version() + " does not run in this JVM: " + e.getMessage();
        }
    }

    /**
     * Starts sampling {@code event} ("cpu", "wall", "itimer"...) every {@code interval}, with {@code extra} options
     * (e.g. "cstack=vm,threads", or ""). "cpu" needs the kernel's perf_events; where the kernel refuses them
     * (perf_event_paranoid, a container's seccomp) it starts "itimer" instead and says so in
     * {@link Started#fallback()}.
     */
    public static Started start(String event, Duration interval, String extra) {
        String options = ",interval=" + interval.toNanos() + (extra == null || extra.isBlank() ? "" : "," + extra);
        try {
            execute("start,event=" + event + options);
            return new Started(event, event, null);
        } catch (IllegalStateException e) {
            if (!event.equals("cpu") || unavailable() != null) throw e;
            execute("start,event=itimer" + options);
            return new Started(event, "itimer", "perf_events refused (" + e.getMessage().replaceFirst(".*': ", "")
                    + "; perf_event_paranoid " + paranoid() + "): itimer samples instead, without kernel frames");
        }
    }

    /** Stops sampling; the profile stays for {@link #dump}. */
    public static void stop() {
        execute("stop");
    }

    /** Writes the last profile to {@code file} as {@code format}: "collapsed", "flamegraph" (HTML), "tree"... */
    public static Path dump(String format, Path file) {
        if (!List.of("collapsed", "flamegraph", "tree", "flat", "traces").contains(format)) {
            throw new IllegalArgumentException("format must be collapsed, flamegraph, tree, flat or traces, got '"
                    + format + "'");
        }
        execute(format + ",file=" + file.toAbsolutePath());
        return file;
    }

    /** The kernel's perf_event_paranoid setting (Linux), or "unknown". */
    static String paranoid() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/perf_event_paranoid")).strip();
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
