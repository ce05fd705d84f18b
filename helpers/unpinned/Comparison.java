package unpinned;

/**
 * One row of the chart every experiment ends with: what we measured here, what the
 * back-of-the-envelope bound says, and what the source published. {@code Double.NaN}
 * marks a value that is not available (no bound, nothing published), never zero,
 * so a missing value can't be mistaken for a measurement.
 */
public record Comparison(String label, double measured, double bound, double published) {
    public Comparison {
        if (label == null || label.isBlank()) {
            throw new IllegalArgumentException("label must be a non-blank string, got "
                    + (label == null ? "null" : "'" + label + "'"));
        }
    }

    /** measured / bound, or NaN when either is missing: how close we came to the ceiling. */
    public double ofBound() {
        return measured / bound;
    }
}
