package unpinned;

import java.util.Locale;

/**
 * The one setting that sizes every experiment: {@code quick} (CI and live seminars,
 * each notebook well under 2 minutes on 2 cores) or {@code full} (the sources' sizes).
 * Read from the environment variable {@code UNPINNED_PROFILE}, or the system property
 * {@code unpinned.profile} when set (handy for a single snippet run); default quick.
 */
public enum Profile {
    QUICK, FULL;

    public static final String ENV = "UNPINNED_PROFILE";
    public static final String PROPERTY = "unpinned.profile";

    /** The profile in force; an unknown value is an error that says what is allowed. */
    public static Profile current() {
        String raw = System.getProperty(PROPERTY);
        if (raw == null || raw.isBlank()) raw = System.getenv(ENV);
        return parse(raw);
    }

    static Profile parse(String raw) {
        if (raw == null || raw.isBlank()) return QUICK;
        return switch (raw.trim().toLowerCase(Locale.ROOT)) {
            case "quick" -> QUICK;
            case "full" -> FULL;
            default -> throw new IllegalArgumentException(
                    ENV + " must be 'quick' or 'full', got '" + raw + "'");
        };
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
}
