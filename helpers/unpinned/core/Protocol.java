package unpinned.core;

/**
 * The lines a snippet prints for the JVM that started it ({@link ChildRun}): one line each, a
 * prefix and a text or one-line JSON. Everything else a snippet prints is for people.
 */
public final class Protocol {
    private Protocol() {}

    /** A short progress text, shown by the parent as one line that updates in place. */
    public static final String PROGRESS = "@@progress ";
    /** A server listens: JSON with at least "uri". */
    public static final String READY = "@@ready ";
    /** A server's answer to "stats": JSON. */
    public static final String STATS = "@@stats ";
    /** What the run measured: JSON. */
    public static final String RESULT = "@@result ";
    /** A load generator's measured window starts now (so a server can be sampled at its edges). */
    public static final String WINDOW_START = "@@window start";
    /** ... and ends now. */
    public static final String WINDOW_END = "@@window end";

    public static void progress(String text) {
        line(PROGRESS + text);
    }

    public static void ready(Object json) {
        line(READY + Json.compact(json));
    }

    public static void stats(Object json) {
        line(STATS + Json.compact(json));
    }

    public static void result(Object json) {
        line(RESULT + Json.compact(json));
    }

    public static void windowStart() {
        line(WINDOW_START);
    }

    public static void windowEnd() {
        line(WINDOW_END);
    }

    private static void line(String text) {
        System.out.println(text);
        System.out.flush();
    }
}
