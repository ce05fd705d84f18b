package unpinned.core;

import java.util.List;
import java.util.Locale;

/**
 * One key figure of a run, with what it is held against: the value and its unit, its bound and what kind of bound
 * that is, the published figure with the id of its source ({@code data/sources.md}), the spread over repeats, the
 * measured window and the machine. Snippets and notebooks save these beside their detailed data
 * ({@link Results#save(String, Object, List)}); {@code Tables}, {@code Charts}, chapter 08's comparison
 * ({@link Runs#ratios}) read them, so nothing downstream guesses a bound from a field's name.
 *
 * <pre>{@code
 * Measurement.of("virtual · 1000 users", 8_900, "orders/s").atMost(9_090, Measurement.Bound.LITTLE)
 * }</pre>
 */
public record Measurement(String what, double value, String unit, Double bound, Bound boundKind,
                          Double published, String source, Double spread, Double windowSeconds, String machine) {

    /** What a bound is: an upper limit a rate can't pass, a lower limit a time can't go under, or only an estimate. */
    public enum Bound {
        /** Little's law: concurrency / latency; a throughput can't exceed it. */
        LITTLE(true),
        /** Cores / CPU seconds per unit of work, measured in the same run; a throughput can't exceed it. */
        CPU(true),
        /** Another upper limit stated in the row's text (a pool's size, a count of started threads). */
        UPPER(true),
        /** A time that can't be beaten (a sleep, ceil(N/P) waves of S); the measured time is at or above it. */
        LOWER_TIME(false),
        /** Not a bound: an estimate or the expectation, which a run may pass either way. */
        ESTIMATE(true);

        private final boolean upper;

        Bound(boolean upper) {
            this.upper = upper;
        }

        /** True when the value sits at or under the bound (rates); false when at or over it (times). */
        public boolean isUpper() {
            return upper;
        }

        /** True for LITTLE, CPU, UPPER and LOWER_TIME: limits physics sets, which a correct run can't pass. */
        public boolean isLimit() {
            return this != ESTIMATE;
        }
    }

    public Measurement {
        if (what == null || what.isBlank()) throw new IllegalArgumentException("a measurement needs a name");
        if (unit == null) throw new IllegalArgumentException(what + ": a measurement needs a unit");
        if ((bound == null) != (boundKind == null)) {
            throw new IllegalArgumentException(what + ": a bound needs its kind, and a kind its bound");
        }
        if ((published == null) != (source == null)) {
            throw new IllegalArgumentException(what + ": a published figure needs the id of its source");
        }
    }

    /** {@code value} {@code unit} of {@code what}, with nothing to hold it against yet. */
    public static Measurement of(String what, double value, String unit) {
        return new Measurement(what, value, unit, null, null, null, null, null, null, null);
    }

    /** The same with {@code bound} of kind {@code kind}. */
    public Measurement bound(double bound, Bound kind) {
        return new Measurement(what, value, unit, bound, kind, published, source, spread, windowSeconds, machine);
    }

    /** The same with the figure {@code figure} published by {@code sourceId} (an id in data/sources.md). */
    public Measurement published(double figure, String sourceId) {
        return new Measurement(what, value, unit, bound, boundKind, figure, sourceId, spread, windowSeconds, machine);
    }

    /** The same with the spread over repeats (same unit as the value). */
    public Measurement spread(double spread) {
        return new Measurement(what, value, unit, bound, boundKind, published, source, spread, windowSeconds, machine);
    }

    /** The same with the length of the measured window in seconds. */
    public Measurement window(double seconds) {
        return new Measurement(what, value, unit, bound, boundKind, published, source, spread, seconds, machine);
    }

    /** The same, naming the machine it ran on ({@link Results} fills this in when it saves). */
    public Measurement on(String machineName) {
        return new Measurement(what, value, unit, bound, boundKind, published, source, spread, windowSeconds,
                machineName);
    }

    /**
     * The value as a share of its bound, 1 = at the bound: value / bound for an upper bound, bound / value for a
     * time's lower bound (so "below 1" always means "that far from the bound"). NaN without a bound.
     */
    public double ofBound() {
        if (bound == null || !(bound > 0) || !(value > 0)) return Double.NaN;
        return boundKind.isUpper() ? value / bound : bound / value;
    }

    /** True when a limit physics sets ({@link Bound#isLimit}) is passed by more than {@code tolerance} (0.03 = 3 %). */
    public boolean beatsBound(double tolerance) {
        return boundKind != null && boundKind.isLimit() && ofBound() > 1 + tolerance;
    }

    /** One line: "what: value unit (0.93 x its CPU bound)". */
    @Override
    public String toString() {
        String v = String.format(Locale.ROOT, "%s: %,.2f %s", what, value, unit);
        if (bound != null) v += String.format(Locale.ROOT, " (%.2f x its %s bound)", ofBound(),
                boundKind.name().toLowerCase(Locale.ROOT).replace('_', ' '));
        return v;
    }

    /** Rows that name their own measurements: a typed result row implements this to be compared and charted. */
    public interface Measured {
        List<Measurement> measurements();
    }
}
