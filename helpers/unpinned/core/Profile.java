package unpinned.core;

import java.time.Instant;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The one setting that sizes every experiment: {@code quick} (CI and live seminars,
 * each notebook well under 2 minutes on 2 cores) or {@code full} (the sources' sizes).
 * Read from the environment variable {@code UNPINNED_PROFILE}, or the system property
 * {@code unpinned.profile} when set (handy for a single snippet run); default quick.
 *
 * <p>{@link #announceOrExit}, the first call of every snippet's main, also ties a snippet that the course started
 * as a child JVM to the JVM that started it ({@link #PARENT_PID_ENV}): it ends when that one is gone.
 */
public enum Profile {
    QUICK, FULL;

    public static final String ENV = "UNPINNED_PROFILE";
    public static final String PROPERTY = "unpinned.profile";
    /**
     * The pid of the JVM that started this one, set by the course in the environment of every JVM it starts as a
     * child ({@link ChildRun}; a {@code --jdk 21} run): such a JVM ends itself within a second of that parent's
     * end, however it ended. A SIGKILL or a crash runs no finally block and no shutdown hook in the parent, so
     * only the child can notice.
     */
    public static final String PARENT_PID_ENV = "UNPINNED_PARENT_PID";
    static final long PARENT_POLL_MS = 500;
    /** Shutdown hooks (servers, databases, a child of our own) get this long before the JVM is halted. */
    static final long HOOKS_GRACE_MS = 10_000;
    private static volatile boolean watching;

    /** The profile in force; an unknown value is an error that says what is allowed. */
    public static Profile current() {
        String raw = System.getProperty(PROPERTY);
        if (raw == null || raw.trim().isEmpty()) raw = System.getenv(ENV);
        return parse(raw);
    }

    /**
     * The rule tools/course_base.py's profile() follows too, character for character: characters up to U+0020 around
     * the value are dropped (Java's trim), nothing left means quick, and only ASCII letters are compared without case.
     * Anything else (a pasted no-break space) is refused, with invisible and non-ASCII characters shown as \\uXXXX.
     */
    static Profile parse(String raw) {
        String value = raw == null ? "" : raw.trim();
        if (value.isEmpty()) return QUICK;
        boolean ascii = value.chars().allMatch(c -> c < 0x80);
        return switch (ascii ? value.toLowerCase(Locale.ROOT) : value) {
            case "quick" -> QUICK;
            case "full" -> FULL;
            default -> throw new IllegalArgumentException(
                    ENV + " must be 'quick' or 'full', got '" + shown(raw) + "'");
        };
    }

    /** {@code raw} with each character outside printable ASCII as \\uXXXX (a UTF-16 unit), so a message shows it. */
    static String shown(String raw) {
        StringBuilder s = new StringBuilder();
        for (char c : raw.toCharArray()) {
            if (c >= 0x20 && c < 0x7f) s.append(c);
            else s.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
        }
        return s.toString();
    }

    /** The quick value under the quick profile, the full one under the full profile. */
    public <T> T pick(T quick, T full) {
        return this == QUICK ? quick : full;
    }

    public int pick(int quick, int full) {
        return this == QUICK ? quick : full;
    }

    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /** One line every notebook and snippet prints before it measures anything. */
    public String banner() {
        return "Profile: " + id() + (this == QUICK
                ? " (reduced sizes; set " + ENV + "=full for the sources' sizes)"
                : " (the sources' sizes; set " + ENV + "=quick for a fast run)");
    }

    /**
     * {@link #announce()} for a snippet's main: a bad {@code UNPINNED_PROFILE} ends the JVM with one line on stderr
     * ({@code <snippet>: <what is allowed>}) and exit code 2, not a stack trace.
     */
    public static Profile announceOrExit(String snippet) {
        endWithParent(snippet);
        try {
            return announce();
        } catch (IllegalArgumentException e) {
            System.err.println(snippet + ": " + e.getMessage());
            System.exit(2);
            throw e; // unreachable
        }
    }

    /** Prints the banner and returns the profile in force. */
    public static Profile announce() {
        Profile p = current();
        System.out.println(p.banner());
        return p;
    }

    /** Names this JVM as the parent of the JVM {@code builder} starts, which then ends when this one does. */
    public static ProcessBuilder tiedToThisJvm(ProcessBuilder builder) {
        builder.environment().put(PARENT_PID_ENV, Long.toString(ProcessHandle.current().pid()));
        return builder;
    }

    /**
     * In a JVM the course started as a child ({@link #PARENT_PID_ENV} set: a snippet, or the kernel of
     * {@code make book}), starts a daemon thread that ends this JVM (exit code 1, shutdown hooks run, one line on
     * stderr) once the parent is gone; at once if it is gone already. Anywhere else (a terminal, an IDE) it does
     * nothing. Once per JVM.
     */
    public static synchronized void endWithParent(String snippet) {
        OptionalLong parent = parentPid(System.getenv(PARENT_PID_ENV));
        if (watching || parent.isEmpty()) return;
        watching = true;
        long pid = parent.getAsLong();
        Thread.ofPlatform().daemon(true).name("unpinned-parent-watch").start(() -> {
            try {
                while (isRunning(pid)) Thread.sleep(PARENT_POLL_MS);
            } catch (InterruptedException e) {
                return;
            }
            System.err.println(snippet + ": the process that started this one (pid " + pid + ") is gone; stopping");
            Thread.ofPlatform().daemon(true).name("unpinned-parent-watch-halt").start(() -> {
                try {
                    Thread.sleep(HOOKS_GRACE_MS);
                } catch (InterruptedException ignored) {
                    // halting now
                }
                Runtime.getRuntime().halt(1); // a shutdown hook hung: the JVM must end all the same
            });
            System.exit(1);
        });
    }

    /** The parent's pid from the value of {@link #PARENT_PID_ENV}; empty (nothing to watch) if unset or not a pid. */
    static OptionalLong parentPid(String value) {
        if (value == null || value.isBlank()) return OptionalLong.empty();
        try {
            long pid = Long.parseLong(value.strip());
            return pid > 0 && pid != ProcessHandle.current().pid() ? OptionalLong.of(pid) : OptionalLong.empty();
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /**
     * Whether process {@code pid} runs and started before this JVM: a process that started later is not our parent
     * but a newcomer that was given its pid after it ended.
     */
    static boolean isRunning(long pid) {
        Optional<Instant> self = ProcessHandle.current().info().startInstant();
        return ProcessHandle.of(pid).filter(ProcessHandle::isAlive).filter(p -> {
            Optional<Instant> started = p.info().startInstant();
            return started.isEmpty() || self.isEmpty() || !started.get().isAfter(self.get());
        }).isPresent();
    }
}
