package unpinned;

import java.io.PrintStream;
import java.util.Locale;

/**
 * Self-checks for the exercises in the notebooks. A wrong answer gets the hint, never the
 * expected value: the point is to redo the reasoning, not to copy a number.
 */
public final class Exercises {
    private Exercises() {}

    /**
     * True when {@code answer} is within {@code relTolerance} (e.g. 0.05 = 5 %) of {@code expected};
     * prints one line saying right or wrong. When {@code expected} is 0 the tolerance is absolute.
     */
    public static boolean check(String name, double answer, double expected, double relTolerance, String hint) {
        return check(System.out, name, answer, expected, relTolerance, hint);
    }

    static boolean check(PrintStream out, String name, double answer, double expected, double relTolerance, String hint) {
        if (name == null || name.isBlank()) throw new IllegalArgumentException("name must be a non-blank string, got "
                + (name == null ? "null" : "'" + name + "'"));
        if (!Double.isFinite(expected)) throw new IllegalArgumentException("expected must be a finite number, got " + expected);
        if (!(relTolerance >= 0 && relTolerance <= 1)) {
            throw new IllegalArgumentException("relTolerance must be between 0 and 1 (e.g. 0.05 for 5 %), got " + relTolerance);
        }
        double allowed = expected == 0 ? relTolerance : relTolerance * Math.abs(expected);
        boolean right = Double.isFinite(answer) && Math.abs(answer - expected) <= allowed;
        String yours = String.format(Locale.ROOT, "%.6g", answer);
        if (right) {
            out.println("✔ " + name + ": right (" + yours + ")");
        } else {
            String why = Double.isFinite(answer) ? "not yet (your answer: " + yours + ")" : "not yet (your answer is not a finite number)";
            out.println("✘ " + name + ": " + why + (hint == null || hint.isBlank() ? "" : ". Hint: " + hint));
        }
        return right;
    }
}
