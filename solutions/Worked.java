//SOURCES ../helpers/unpinned/course/Exercises.java
package unpinned.solutions;

import unpinned.course.Exercises;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What every worked solution does with its answers: it hands the worked answer and a plausible
 * wrong one to the notebook's own self-check ({@link Exercises#verdict}, which prints the line the
 * notebook shows), then prints one line per exercise: "01.1 accepted ...; rejected ... (the slip)".
 * The expected values stay private to Exercises: a solution computes its answers from the
 * exercise's givens, so a mistake on either side shows here.
 */
final class Worked {
    private final String chapter;
    private final List<String> misbehaved = new ArrayList<>();
    private int checked;

    Worked(String chapter) {
        this.chapter = chapter;
    }

    /** A heading for one exercise, before its reasoning. */
    void exercise(String id, String title) {
        System.out.println();
        System.out.println("== " + id + " " + title);
    }

    /**
     * The self-check must say right to {@code right} and not yet to {@code wrong}, the value
     * someone who made {@code slip} would enter.
     */
    void check(String id, double right, String unit, double wrong, String slip) {
        if (!id.startsWith(chapter + ".")) {
            throw new IllegalArgumentException(id + " is not in chapter " + chapter);
        }
        boolean accepted = Exercises.verdict(id, right);
        boolean rejected = !Exercises.verdict(id, wrong);
        checked++;
        if (!accepted || !rejected) misbehaved.add(id);
        System.out.println(id + (accepted ? " accepted " : " NOT ACCEPTED: ") + num(right) + " "
                + unit + "; " + (rejected ? "rejected " : "NOT REJECTED: ") + num(wrong) + " "
                + unit + " (" + slip + ")");
    }

    /** The last line; exit status 1 if any self-check misbehaved. */
    void finish() {
        System.out.println();
        if (misbehaved.isEmpty()) {
            System.out.println("chapter " + chapter + ": " + checked + " self-checks accept the"
                    + " worked answer and reject a wrong one");
            return;
        }
        System.out.println("chapter " + chapter + ": self-checks that misbehaved: " + misbehaved);
        System.exit(1);
    }

    /** A ratio to a bound or a prediction: 0.99, 1.10. */
    static String ratio(double v) {
        return String.format(Locale.ROOT, "%.2f", v);
    }

    /** A number as people write it: 320, 1,818.2, 0.800, 2.35. */
    static String num(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) return String.format(Locale.ROOT, "%,.0f", v);
        if (Math.abs(v) >= 100) return String.format(Locale.ROOT, "%,.1f", v);
        return String.format(Locale.ROOT, "%.3g", v);
    }
}
