//SOURCES Json.java
//SOURCES Profile.java
package unpinned.core;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The lines a snippet prints for the JVM that started it ({@link ChildRun}): one line each, a
 * prefix and a text or one-line JSON. Everything else a snippet prints is for people.
 */
public final class Protocol {
    private Protocol() {}

    /** A short progress text, shown by the parent as one line that updates in place. */
    public static final String PROGRESS = "@@progress ";
    /**
     * The figures of the last second, for a live chart: {@code name=value} pairs, e.g. {@code req/s=4812 p99_ms=12.3}
     * (an underscore in a name is a space on the chart). Printed only for a parent that reads them ({@link #toParent}).
     */
    public static final String SAMPLE = "@@sample ";
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

    /** Sends {@code sample} to the JVM that started this one; nothing when none did (a terminal gets no extra lines). */
    public static void sample(Sample sample) {
        if (toParent()) line(SAMPLE + sample);
    }

    /** A sampling started by {@link #sampleEverySecond}; closing it stops it. */
    public interface Sampling extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Sends {@code sample.get()} to the parent once a second, from a daemon thread, until closed: for an experiment
     * whose own thread is busy (starting threads, waiting on them). Without a parent, or once the supplier fails,
     * nothing is sent (no thread is started without a parent).
     */
    public static Sampling sampleEverySecond(java.util.function.Supplier<Sample> sample) {
        if (!toParent()) return () -> { };
        Thread t = Thread.ofPlatform().daemon(true).name("live-samples").start(() -> {
            try {
                while (!Thread.currentThread().isInterrupted()) {
                    Thread.sleep(1_000);
                    sample(sample.get());
                }
            } catch (InterruptedException | RuntimeException e) {
                // closed, or the figures can't be read: no more samples, the run goes on
            }
        });
        return () -> {
            t.interrupt();
            try {
                t.join(1_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
    }

    /** True in a JVM the course started as a child ({@link Profile#PARENT_PID_ENV}): a parent reads its protocol lines. */
    public static boolean toParent() {
        return System.getenv(Profile.PARENT_PID_ENV) != null;
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

    /**
     * One sample: figures by name, in the order given (the first is a live chart's left axis, the second its right
     * one); NaN where there was nothing to measure (no request completed in that second).
     */
    public record Sample(Map<String, Double> values) {
        public Sample {
            if (values == null) throw new IllegalArgumentException("values must not be null");
            for (String name : values.keySet()) {
                if (name == null || name.isEmpty() || !name.matches("[^\\s=]+")) {
                    throw new IllegalArgumentException("a sample's names must be words without spaces or '=', got '" + name + "'");
                }
            }
            values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
        }

        /** Two figures, e.g. {@code Sample.of("req/s", 4812, "p99_ms", 12.3)}. */
        public static Sample of(String name, double value, String name2, double value2) {
            Map<String, Double> m = new LinkedHashMap<>();
            m.put(name, value);
            m.put(name2, value2);
            return new Sample(m);
        }

        /** Reads {@link #toString}'s form; a pair that is not {@code name=number} is passed over. */
        public static Sample parse(String text) {
            Map<String, Double> m = new LinkedHashMap<>();
            for (String pair : (text == null ? "" : text.strip()).split("\\s+")) {
                int eq = pair.indexOf('=');
                if (eq <= 0) continue;
                try {
                    m.put(pair.substring(0, eq), Double.parseDouble(pair.substring(eq + 1)));
                } catch (NumberFormatException e) {
                    // not a figure: passed over
                }
            }
            return new Sample(m);
        }

        /** The name as a chart shows it: underscores as spaces. */
        public static String label(String name) {
            return name.replace('_', ' ');
        }

        /** {@code name=value} pairs, space-separated, values to 4 significant digits. */
        @Override
        public String toString() {
            StringBuilder b = new StringBuilder();
            values.forEach((k, v) -> b.append(b.isEmpty() ? "" : " ").append(k).append('=').append(number(v)));
            return b.toString();
        }

        private static String number(double v) {
            if (!Double.isFinite(v)) return Double.toString(v);
            if (v == Math.rint(v) && Math.abs(v) < 1e15) return Long.toString((long) v);
            return BigDecimal.valueOf(v).round(new MathContext(4)).stripTrailingZeros().toPlainString();
        }
    }

    private static void line(String text) {
        System.out.println(text);
        System.out.flush();
    }
}
