package unpinned.core;

import java.util.Arrays;
import java.util.Locale;

/**
 * A measured figure with its interval: the value, the lowest and highest it plausibly is, and where that spread comes
 * from (JMH's iterations, repeats, a load test's seconds). A verdict is taken from the interval, never from the value
 * alone: a figure whose interval straddles an expectation's line is inconclusive, not confirmed or refuted.
 *
 * <pre>{@code
 * Figure.samples(new double[] {51.2, 50.8, 51.0}, "3 JMH iterations").over(Figure.exact(50))   // 1.02 x [1.01, 1.03]
 * }</pre>
 */
public record Figure(double value, double low, double high, String spread) {
    /** The spread of a figure that has none: one measurement, judged on its value alone. */
    public static final String NONE = "one measurement, no spread";
    /** The spread of a figure that is exact: a count, a configured size, a bound computed from them. */
    public static final String EXACT = "exact";

    public Figure {
        if (!Double.isFinite(value)) throw new IllegalArgumentException("a figure must be a finite number, got " + value);
        if (!(low <= value && value <= high)) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "a figure's interval [%s, %s] must hold its value %s",
                    low, high, value));
        }
        if (spread == null || spread.isBlank()) throw new IllegalArgumentException("a figure must say where its spread comes from");
    }

    /** An exact figure: a count, a configured size, or a bound computed from them. */
    public static Figure exact(double value) {
        return new Figure(value, value, value, EXACT);
    }

    /** One measurement with no spread recorded: judged on its value, and counted as such. */
    public static Figure single(double value) {
        return new Figure(value, value, value, NONE);
    }

    /** {@code value} ± {@code halfWidth}; a NaN or missing half-width gives {@link #single}. */
    public static Figure of(double value, double halfWidth, String from) {
        if (!(halfWidth >= 0) || !Double.isFinite(halfWidth)) return single(value);
        return new Figure(value, value >= 0 ? Math.max(0, value - halfWidth) : value - halfWidth, value + halfWidth, from);
    }

    /**
     * The mean of {@code samples} with its 95 % interval (Student's t over the samples, as if independent), e.g. the
     * iterations of a JMH run or the seconds of a load test. One sample gives {@link #single}.
     */
    public static Figure samples(double[] samples, String what) {
        double[] s = Arrays.stream(samples).filter(Double::isFinite).toArray();
        if (s.length == 0) throw new IllegalArgumentException("a figure needs at least one finite sample of " + what);
        double mean = Arrays.stream(s).average().orElseThrow();
        if (s.length == 1) return single(mean);
        double sd = Math.sqrt(Arrays.stream(s).map(x -> (x - mean) * (x - mean)).sum() / (s.length - 1));
        double half = studentT95(s.length - 1) * sd / Math.sqrt(s.length);
        // a quantity that can't be negative (a time, a rate, a count) keeps its interval at 0 or above
        double low = Arrays.stream(s).allMatch(x -> x >= 0) ? Math.max(0, mean - half) : mean - half;
        return new Figure(mean, low, mean + half, s.length + " " + what);
    }

    /** The same interval around {@code value} (a mean taken elsewhere, e.g. over a whole window, with the samples' spread). */
    public Figure at(double newValue) {
        if (spread.equals(NONE) || spread.equals(EXACT)) return new Figure(newValue, newValue, newValue, spread);
        double half = Math.max(value - low, high - value);
        return new Figure(newValue, low >= 0 ? Math.max(0, newValue - half) : newValue - half, newValue + half, spread);
    }

    /**
     * Two independent measurements of the same thing (two runs of an experiment) as one: their mean, with the
     * interval of a mean of two independent estimates (half-widths combined in quadrature, halved).
     */
    public static Figure pooled(Figure a, Figure b) {
        double mean = (a.value + b.value) / 2;
        if (!a.hasSpread() || !b.hasSpread()) return single(mean);
        double ha = Math.max(a.high - a.value, a.value - a.low), hb = Math.max(b.high - b.value, b.value - b.low);
        double half = Math.sqrt(ha * ha + hb * hb) / 2;
        return new Figure(mean, a.low >= 0 && b.low >= 0 ? Math.max(0, mean - half) : mean - half, mean + half,
                a.spread.equals(b.spread) ? "2 runs of " + a.spread : "2 runs");
    }

    /** The figure of the row whose figure is lowest (e.g. the run closest to a lower limit). */
    public static <R> Figure lowest(java.util.Collection<R> rows, java.util.function.Function<R, Figure> figure) {
        return rows.stream().map(figure).min(java.util.Comparator.comparingDouble(Figure::value))
                .orElseThrow(() -> new IllegalArgumentException("no rows to judge"));
    }

    /** The figure of the row whose figure is highest (e.g. the run closest to an upper limit). */
    public static <R> Figure highest(java.util.Collection<R> rows, java.util.function.Function<R, Figure> figure) {
        return rows.stream().map(figure).max(java.util.Comparator.comparingDouble(Figure::value))
                .orElseThrow(() -> new IllegalArgumentException("no rows to judge"));
    }

    /** Half the interval's width, the larger side (NaN without a spread): what a table's ± column shows. */
    public double halfWidth() {
        return hasSpread() && !spread.equals(EXACT) ? Math.max(high - value, value - low) : Double.NaN;
    }

    /** True unless the figure is one measurement with nothing to say how far it may be off. */
    public boolean hasSpread() {
        return !spread.equals(NONE);
    }

    /** This figure over {@code other}: the ratio and the widest interval their intervals allow (both positive). */
    public Figure over(Figure other) {
        if (!(other.value > 0) || !(low >= 0) || !(other.low >= 0)) {
            throw new IllegalArgumentException(String.format(Locale.ROOT,
                    "a ratio needs positive figures, got %s over %s", this, other));
        }
        String from = spread.equals(other.spread) ? spread
                : spread.equals(EXACT) ? other.spread : other.spread.equals(EXACT) ? spread
                : spread.equals(NONE) || other.spread.equals(NONE) ? NONE : spread + "; " + other.spread;
        // a denominator whose interval reaches 0 leaves the ratio unbounded above: nothing can be concluded there
        return new Figure(value / other.value, low / other.high, other.low > 0 ? high / other.low : Double.POSITIVE_INFINITY,
                from);
    }

    /** This figure over an exact {@code reference} (a bound, a published figure). */
    public Figure over(double reference) {
        return over(exact(reference));
    }

    /** This figure times an exact factor. */
    public Figure times(double factor) {
        if (!(factor > 0)) throw new IllegalArgumentException("a figure can only be scaled by a positive factor, got " + factor);
        return new Figure(value * factor, low * factor, high * factor, spread);
    }

    /**
     * The interval widened for a machine that was busy elsewhere: with a share {@code f} of its cores taken by other
     * processes, a timing may be off by up to that share either way (exact figures are not).
     */
    public Figure widened(double f) {
        if (!(f > 0) || spread.equals(EXACT)) return this;
        double k = 1 - Math.min(f, 0.9);
        return new Figure(value, low * k, high / k, spread);
    }

    @Override
    public String toString() {
        if (low == high) return number(value);
        return number(value) + " [" + number(low) + ", " + number(high) + "]";
    }

    /** Two decimals below 100, whole numbers with separators above, as the page prints figures. */
    public static String number(double v) {
        if (!Double.isFinite(v)) return String.valueOf(v);
        return Math.abs(v) >= 100 ? String.format(Locale.ROOT, "%,.0f", v) : String.format(Locale.ROOT, "%.2f", v);
    }

    // Student's t for a two-sided 95 % interval: the table up to 30 degrees of freedom, then the normal's 1.96.
    private static final double[] T95 = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201,
            2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052,
            2.048, 2.045, 2.042};

    static double studentT95(int degreesOfFreedom) {
        if (degreesOfFreedom < 1) throw new IllegalArgumentException("degrees of freedom must be >= 1, got " + degreesOfFreedom);
        return degreesOfFreedom <= T95.length ? T95[degreesOfFreedom - 1] : 1.96;
    }
}
