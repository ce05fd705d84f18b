package unpinned.core;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * Where the course lives. Notebooks and snippets start in different folders, so paths are resolved from the
 * course folder, never from cwd. (The first thing every notebook runs is {@link Session#setup()}.)
 */
public final class Course {
    public static final String HOME_ENV = "UNPINNED_HOME";
    /** The file that marks the course folder. */
    public static final String MARKER = "jbang-catalog.json";
    static final int MIN_JDK = 21;

    private Course() {}

    /**
     * The course folder: env {@code UNPINNED_HOME} if set, else the nearest folder at or
     * above the working directory that holds {@code jbang-catalog.json}.
     */
    public static Path home() {
        return home(System.getenv(HOME_ENV), Path.of(""));
    }

    /** Like {@link #home()}, but empty instead of failing when there is no course folder. */
    public static Optional<Path> findHome() {
        try {
            return Optional.of(home());
        } catch (IllegalStateException e) {
            return Optional.empty();
        }
    }

    static Path home(String env, Path start) {
        if (env != null && !env.isBlank()) {
            Path p = pathOf(HOME_ENV, env).toAbsolutePath().normalize();
            if (!Files.isDirectory(p)) {
                throw new IllegalStateException(HOME_ENV + " must name an existing folder, got '" + env + "'");
            }
            return p;
        }
        Path from = start.toAbsolutePath().normalize();
        for (Path p = from; p != null; p = p.getParent()) {
            if (Files.isRegularFile(p.resolve(MARKER))) return p;
        }
        throw new IllegalStateException("cannot find the course folder: no " + MARKER + " in " + from
                + " or any folder above it; start from the course checkout or set " + HOME_ENV);
    }

    /**
     * The path environment variable {@code variable} names. A name this JVM cannot write as a file name (its locale's
     * encoding, e.g. LANG=C, has no 'ü') is refused in one line naming the variable and the locale.
     */
    public static Path pathOf(String variable, String value) {
        try {
            return Path.of(value);
        } catch (java.nio.file.InvalidPathException e) {
            String locale = java.util.stream.Stream.of("LC_ALL", "LC_CTYPE", "LANG")
                    .filter(v -> System.getenv(v) != null && !System.getenv(v).isEmpty()).findFirst()
                    .map(v -> v + "=" + System.getenv(v)).orElse("no LANG or LC_ALL set");
            throw new IllegalStateException(variable + " names a path with characters this JVM's locale cannot put in"
                    + " a file name (" + locale + ": file names in " + System.getProperty("sun.jnu.encoding") + "); run"
                    + " with a UTF-8 locale, e.g. LANG=C.UTF-8, or choose a path in plain ASCII");
        }
    }

    /** The course's JBang launcher, which always runs on the course JDK. */
    public static Path jbang() {
        return home().resolve("tools").resolve("jbang");
    }

    static void requireJdk(int feature) {
        if (feature < MIN_JDK) {
            throw new IllegalStateException("unpinned needs JDK " + MIN_JDK + " or newer (virtual threads are final in 21), "
                    + "but this runs JDK " + feature + "; run 'python3 tools/course.py setup' and pick the 'unpinned' kernel");
        }
    }
}
