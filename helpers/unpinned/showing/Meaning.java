package unpinned.showing;

import unpinned.core.Show;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * "What it means" lines written from the run's own numbers, never typed ahead of it: who is faster and by how much,
 * how close a run came to its bound, whether that is what the chapter expects. When it is not, the line says so
 * plainly, with the likely cause, instead of prose that contradicts the chart above it. Each line goes to the page
 * with its numbers in the output's metadata ({@link #METADATA_KEY}), where the page test recomputes the verdict.
 */
public final class Meaning {
    /** The key of an outcome's record in a notebook output's metadata. */
    public static final String METADATA_KEY = "unpinned/outcome";
    /** The words every outcome that misses its expectation carries. */
    public static final String NOT_EXPECTED = "Not what the chapter expects";

    private Meaning() {}

    /** How one value stands to another, with {@code tie} as the share either way that counts as the same. */
    public enum Relation {
        MORE, SAME, LESS;

        static Relation of(double ratio, double tie) {
            if (ratio > 1 + tie) return MORE;
            if (ratio < 1 / (1 + tie)) return LESS;
            return SAME;
        }
    }

    /** One outcome: its sentence, the numbers it was written from, and whether the chapter expected it. */
    public record Outcome(String kind, String text, Map<String, Object> values, boolean met) {
        /** Shows the sentence in the notebook (Markdown, with its record), or prints it elsewhere. */
        public void show() {
            Map<String, Object> record = new LinkedHashMap<>(values);
            record.put("kind", kind);
            record.put("met", met);
            record.put("text", text);
            Show.markdown(text, METADATA_KEY, record);
        }
    }

    /**
     * {@code a} against {@code b} on one measure (higher is more): "Reactor Netty: 1.04 x virtual threads (1,208 vs
     * 1,165 orders/s), the same within 5 %". {@code expected} is the relation the chapter predicts (null: none);
     * {@code cause} the likely reason when the run disagrees.
     */
    public static Outcome compare(String measure, String a, double va, String b, double vb, String unit, double tie,
                                  Relation expected, String cause) {
        requireFinite(measure + " of " + a, va);
        requireFinite(measure + " of " + b, vb);
        if (vb == 0) throw new IllegalArgumentException(measure + " of " + b + " must not be 0 to compare with");
        double ratio = va / vb;
        Relation relation = Relation.of(ratio, tie);
        String verdict = switch (relation) {
            case MORE -> a + " higher by " + lead(ratio);
            case LESS -> b + " higher by " + lead(1 / ratio);
            case SAME -> String.format(Locale.ROOT, "the same within %.0f %%", tie * 100);
        };
        boolean met = expected == null || expected == relation;
        String text = String.format(Locale.ROOT, "**This run, %s:** %s at %s that of %s (%s vs %s %s): %s.", measure, a,
                ratioText(ratio), b, Tables.number(va), Tables.number(vb), unit, verdict);
        if (!met) text += " " + NOT_EXPECTED + " (" + describe(expected, a, b) + "); likely cause: " + cause(cause) + ".";
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("a", va);
        values.put("b", vb);
        values.put("ratio", ratio);
        values.put("tie", tie);
        values.put("relation", relation.name());
        values.put("expected", expected == null ? null : expected.name());
        return new Outcome("compare", text, values, met);
    }

    /**
     * A measurement against its bound: "the pool of 200: 0.97 of Little's law (1,765 of 1,818 orders/s)". It meets
     * the chapter's expectation when the share is at least {@code expectAtLeast} (NaN: no expectation).
     */
    public static Outcome share(String subject, double measured, String boundName, double bound, String unit,
                                double expectAtLeast, String cause) {
        double share = ratio(subject, measured, boundName, bound);
        boolean met = Double.isNaN(expectAtLeast) || share >= expectAtLeast;
        String text = String.format(Locale.ROOT, "**This run:** %s reached %s of %s (%s of %s %s).", subject,
                ratioText(share).replace(" x", ""), boundName, Tables.number(measured), Tables.number(bound), unit);
        String missed = String.format(Locale.ROOT, "at least %.2f", expectAtLeast);
        return against(text, measured, bound, share, "expectAtLeast", expectAtLeast, met, missed, cause);
    }

    /**
     * A time against the least it can take: "1,000 orders on one thread took 1.05 x one order's two steps (116 vs
     * 110 ms)". It meets the chapter's expectation when the ratio is at most {@code expectAtMost} (NaN: none).
     */
    public static Outcome times(String subject, double measured, String floorName, double floor, String unit,
                                double expectAtMost, String cause) {
        double ratio = ratio(subject, measured, floorName, floor);
        boolean met = Double.isNaN(expectAtMost) || ratio <= expectAtMost;
        String text = String.format(Locale.ROOT, "**This run:** %s took %s %s (%s vs %s %s).", subject,
                ratioText(ratio), floorName, Tables.number(measured), Tables.number(floor), unit);
        String missed = String.format(Locale.ROOT, "at most %.2f x", expectAtMost);
        return against(text, measured, floor, ratio, "expectAtMost", expectAtMost, met, missed, cause);
    }

    private static double ratio(String subject, double measured, String referenceName, double reference) {
        requireFinite(subject, measured);
        requireFinite(referenceName, reference);
        if (reference == 0) throw new IllegalArgumentException(referenceName + " must not be 0 to divide by");
        return measured / reference;
    }

    // A measurement against one reference (a bound, or a floor), as the page test reads it: kind "share".
    private static Outcome against(String text, double measured, double reference, double ratio, String expectKey,
                                   double expect, boolean met, String missed, String cause) {
        if (!met) text += " " + NOT_EXPECTED + " (" + missed + "); likely cause: " + cause(cause) + ".";
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("measured", measured);
        values.put("bound", reference);
        values.put("ratio", ratio);
        values.put(expectKey, Double.isNaN(expect) ? null : expect);
        return new Outcome("share", text, values, met);
    }

    // "4 %" for a small lead, "a factor of 21.7" for a large one
    private static String lead(double ratio) {
        return ratio < 2 ? String.format(Locale.ROOT, "%.0f %%", (ratio - 1) * 100)
                : String.format(Locale.ROOT, "a factor of %.1f", ratio);
    }

    /** The ratio as the sentence prints it, two decimals: the page test finds it there. */
    static String ratioText(double ratio) {
        return String.format(Locale.ROOT, "%.2f x", ratio);
    }

    private static String describe(Relation expected, String a, String b) {
        return switch (expected) {
            case MORE -> a + " higher";
            case LESS -> b + " higher";
            case SAME -> "the two about the same";
        };
    }

    private static String cause(String cause) {
        if (cause != null && !cause.isBlank()) return cause;
        return "another process using the cores, or too few of them (this machine has "
                + Runtime.getRuntime().availableProcessors() + ")";
    }

    private static void requireFinite(String what, double v) {
        if (!Double.isFinite(v)) throw new IllegalArgumentException(what + " must be a finite number to state an outcome, got " + v);
    }
}
