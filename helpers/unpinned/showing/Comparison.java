package unpinned.showing;

/**
 * One row of the chart every experiment ends with: what we measured here, what the
 * back-of-the-envelope bound says, and what the source published. {@code Double.NaN}
 * marks a value that is not available (no bound, nothing published, no error estimate),
 * never zero, so a missing value can't be mistaken for a measurement.
 *
 * <p>{@code error} is the half-width of JMH's 99.9 % confidence interval for {@code measured}
 * (JMH's "Error" column, {@code RunResult.error()}), in the same unit; NaN when there is none,
 * e.g. a single fork and iteration, or a measurement that isn't from JMH. {@link Charts#compare}
 * draws it as an error bar.
 */
public record Comparison(String label, double measured, double error, double bound, double published) {
    public Comparison {
        if (label == null || label.isBlank()) {
            throw new IllegalArgumentException("label must be a non-blank string, got "
                    + (label == null ? "null" : "'" + label + "'"));
        }
        if (!Double.isNaN(error)) {
            if (error < 0 || Double.isInfinite(error)) {
                throw new IllegalArgumentException("error must be NaN (none) or a finite number >= 0 (the half-width of the "
                        + "99.9 % confidence interval), got " + error + " for '" + label + "'");
            }
            if (Double.isNaN(measured)) {
                throw new IllegalArgumentException("error needs a measured value, got error = " + error
                        + " but measured = NaN for '" + label + "'");
            }
        }
    }

    /** Without an error estimate: {@code error} is NaN. */
    public Comparison(String label, double measured, double bound, double published) {
        this(label, measured, Double.NaN, bound, published);
    }

    /** Whether there is an error estimate to draw. */
    public boolean hasError() {
        return !Double.isNaN(error);
    }

    /** measured / bound, or NaN when either is missing: how close we came to the ceiling. */
    public double ofBound() {
        return measured / bound;
    }
}
