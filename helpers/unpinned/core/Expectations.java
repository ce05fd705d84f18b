//SOURCES Busy.java
//SOURCES Figure.java
//SOURCES Results.java
//SOURCES RunGuard.java
//SOURCES Show.java
package unpinned.core;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * What one experiment expects of its key figures, declared once beside its result type, and judged from the run's
 * intervals. Everything that judges a figure reads this declaration: the chapter's "what this run shows" sentences,
 * the claims ledger (an expectation names the claims it decides) and chapter 08, through the judgements a
 * result saves ({@link #keep}). Nothing else states a threshold for these figures.
 *
 * <pre>{@code
 * static final Expectations<List<IoRow>> EXPECTED = Expectations.<List<IoRow>>of("01-io-bound")
 *     .expect("virtual-one-wave", "500 sleeps on virtual threads", "one sleep",
 *             rows -> row(rows, "virtual").time().over(50), Line.atMost(1.2))
 *     .claims("jmh-2");
 * }</pre>
 *
 * <p>A verdict comes from the figure's interval against the line: <b>confirmed</b> when all of it is on the
 * expected side, <b>refuted</b> when all of it is past the refuting line, <b>inconclusive</b> when it straddles a
 * line. A line may leave a gap between the two (the direction holds, the size falls short): there the verdict is
 * <b>depends</b>, naming a dependency this run measured to differ from the source's (its cores, say), or refuted
 * when no such dependency explains it. A run on a busy machine widens the interval first ({@link Busy}).
 */
public final class Expectations<T> {
    /** The verdicts an interval can give. */
    public enum Verdict {
        CONFIRMED("confirmed"), REFUTED("refuted"), INCONCLUSIVE("inconclusive"), DEPENDS("depends"),
        /** This run could not test it (too few users in this profile, say): the reason says what it needs. */
        NOT_RUN("not run");

        private final String words;

        Verdict(String words) {
            this.words = words;
        }

        public String words() {
            return words;
        }
    }

    /**
     * Where a ratio is expected: confirmed inside [{@code confirmFrom}, {@code confirmTo}], refuted below
     * {@code refuteBelow} or above {@code refuteAbove}; between the two lines only the size falls short.
     */
    public record Line(double confirmFrom, double confirmTo, double refuteBelow, double refuteAbove) {
        private static final double INF = Double.POSITIVE_INFINITY;

        public Line {
            if (!(refuteBelow <= confirmFrom && confirmFrom <= confirmTo && confirmTo <= refuteAbove)) {
                throw new IllegalArgumentException(String.format(Locale.ROOT,
                        "a line needs refuteBelow <= confirmFrom <= confirmTo <= refuteAbove, got %s <= %s <= %s <= %s",
                        refuteBelow, confirmFrom, confirmTo, refuteAbove));
            }
        }

        /** At least {@code k}. */
        public static Line atLeast(double k) {
            return new Line(k, INF, k, INF);
        }

        /** At most {@code k}. */
        public static Line atMost(double k) {
            return new Line(0, k, 0, k);
        }

        /** From {@code lo} to {@code hi}. */
        public static Line within(double lo, double hi) {
            return new Line(lo, hi, lo, hi);
        }

        /**
         * The same, refuted only past {@code d} in the expected direction's opposite: between {@code d} and the line,
         * the direction holds but the size falls short (e.g. at least 6.6 x, refuted below 1.1 x).
         */
        public Line directionFrom(double d) {
            if (confirmTo == INF) return new Line(confirmFrom, confirmTo, Math.min(d, confirmFrom), refuteAbove);
            if (confirmFrom == 0) return new Line(confirmFrom, confirmTo, refuteBelow, Math.max(d, confirmTo));
            throw new IllegalStateException("directionFrom needs an at-least or at-most line");
        }

        /** "at least 1.20 x", "at most 1.10 x", "from 0.90 to 1.03 x". */
        public String words() {
            if (confirmTo == INF) return String.format(Locale.ROOT, "at least %s x", Figure.number(confirmFrom));
            if (confirmFrom == 0) return String.format(Locale.ROOT, "at most %s x", Figure.number(confirmTo));
            return String.format(Locale.ROOT, "from %s to %s x", Figure.number(confirmFrom), Figure.number(confirmTo));
        }

        /** The verdict of an interval; {@code dependsOn} is the measured reason a short size may have, or null. */
        public Verdict of(Figure f, String dependsOn) {
            if (f.low() >= confirmFrom && f.high() <= confirmTo) return Verdict.CONFIRMED;
            if (f.high() < refuteBelow || f.low() > refuteAbove) return Verdict.REFUTED;
            if (inGap(f)) return dependsOn == null ? Verdict.REFUTED : Verdict.DEPENDS;
            return Verdict.INCONCLUSIVE;
        }

        /** True when all of the interval lies between a refuting line and its confirming one: only the size is short. */
        boolean inGap(Figure f) {
            return (f.low() >= refuteBelow && f.high() < confirmFrom) || (f.high() <= refuteAbove && f.low() > confirmTo);
        }

        Map<String, Object> record() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("confirmFrom", finite(confirmFrom));
            m.put("confirmTo", finite(confirmTo));
            m.put("refuteBelow", finite(refuteBelow));
            m.put("refuteAbove", finite(refuteAbove));
            return m;
        }

        private static Double finite(double v) {
            return Double.isFinite(v) ? v : null;
        }
    }

    /** What an expectation is: a limit physics sets, the course's own prediction, or a source's claim tested. */
    public enum Kind {
        /** A bound a correct measurement can't pass; refuted means the measurement is broken. */
        LIMIT,
        /** What the chapter predicts; refuted means this machine behaved otherwise, and the page says why. */
        PREDICTION,
        /** A source's claim, either outcome legitimate. */
        CLAIM
    }

    /** One declared expectation: its ratio, read from the typed result, held against its line. */
    public record Expectation<T>(String id, Kind kind, String subject, String reference, Function<T, Figure> ratio,
                                 Line line, Function<T, String> dependsOn, Function<T, String> because,
                                 Function<T, String> untestable, List<String> claims) {
        public Expectation {
            claims = List.copyOf(claims);
        }
    }

    /**
     * One judged expectation of a run: the ratio with its interval (widened when the machine was busy), the line, the
     * verdict and its reason in words, and the sentence the page shows.
     */
    public record Judgement(String experiment, String id, Kind kind, List<String> claims, String subject,
                            String reference, Figure ratio, Line line, Verdict verdict, String why, boolean busy,
                            String sentence) {
        /** Everything the page test and the ledger need to recompute and read the verdict. */
        public Map<String, Object> record() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("experiment", experiment);
            m.put("id", id);
            m.put("kind", kind.name());
            m.put("claims", claims);
            // JSON has no infinity: an interval unbounded above is saved without its high end
            m.put("ratio", ratio == null ? null : ratio.value());
            m.put("low", ratio == null ? null : ratio.low());
            m.put("high", ratio == null || !Double.isFinite(ratio.high()) ? null : ratio.high());
            m.put("spread", ratio == null ? null : ratio.spread());
            m.putAll(line.record());
            m.put("verdict", verdict.words());
            m.put("why", why);
            m.put("busy", busy);
            m.put("sentence", sentence);
            return m;
        }
    }

    /** A run's judgements, with the state of the machine they were taken under. */
    public record Judged(String experiment, Busy.State machine, List<Judgement> judgements) {
        public Judged {
            judgements = List.copyOf(judgements);
        }

        /** The judgement with this id (an expectation of this experiment). */
        public Judgement get(String id) {
            return judgements.stream().filter(j -> j.id().equals(id)).findFirst().orElseThrow(() ->
                    new IllegalArgumentException(experiment + " declares no expectation '" + id + "'; it has "
                            + judgements.stream().map(Judgement::id).toList()));
        }

        /** Each judgement's record, as a result file keeps them. */
        public List<Map<String, Object>> records() {
            return judgements.stream().map(Judgement::record).toList();
        }

        /**
         * The page's "what this run shows": one line per judged figure, verdict first; the limits physics sets in one
         * line when they all held; and the machine's state when it was busy.
         */
        public String text() {
            StringBuilder b = new StringBuilder("**What this run shows** (95 % intervals):\n");
            List<Judgement> limits = judgements.stream().filter(j -> j.kind() == Kind.LIMIT).toList();
            for (Judgement j : judgements) {
                if (j.kind() != Kind.LIMIT || limits.stream().anyMatch(l -> l.verdict() != Verdict.CONFIRMED)) {
                    b.append("- ").append(j.sentence()).append('\n');
                }
            }
            if (!limits.isEmpty() && limits.stream().allMatch(l -> l.verdict() == Verdict.CONFIRMED)) {
                b.append("- Bounds held: ").append(String.join("; ", limits.stream().map(l -> l.subject() + " at "
                        + String.format(Locale.ROOT, "%.2f x", l.ratio().value()) + " " + l.reference()).toList()))
                        .append(".\n");
            }
            if (machine.busy()) {
                b.append("\n*The machine was busy* (").append(machine.describe()).append(machine.share() > 0
                        ? String.format(Locale.ROOT, "): each interval was widened by the %.0f %% of the cores the rest"
                        + " of the machine took from this run, so a figure near its line reads as inconclusive.",
                        100 * machine.share())
                        : "): the run left the others room on the cores, so no interval was widened; run it again on"
                        + " an idle machine to be sure.");
            }
            return b.toString().strip();
        }

        /** Shows the paragraph in the notebook, each judgement's record in the output's metadata for the page test. */
        public void show() {
            RunGuard.check("showing what the run shows");
            Map<String, Object> record = new LinkedHashMap<>();
            record.put("kind", "judged");
            record.put("experiment", experiment);
            record.put("busy", machine.busy());
            record.put("judgements", records());
            Show.markdown(text(), METADATA_KEY, record);
        }
    }

    /** The key of a judged paragraph's record in a notebook output's metadata. */
    public static final String METADATA_KEY = "unpinned/judged";

    private final String experiment;
    private final List<Draft<T>> items = new ArrayList<>();

    // An expectation while its declaration is being written: the fluent calls after expect(...) fill it in.
    private static final class Draft<T> {
        final String id, subject, reference;
        final Function<T, Figure> ratio;
        final Line line;
        Kind kind = Kind.PREDICTION;
        Function<T, String> dependsOn = t -> null, because = t -> null, untestable = t -> null;
        List<String> claims = List.of();

        Draft(String id, String subject, String reference, Function<T, Figure> ratio, Line line) {
            this.id = id;
            this.subject = subject;
            this.reference = reference;
            this.ratio = ratio;
            this.line = line;
        }

        Expectation<T> done() {
            return new Expectation<>(id, kind, subject, reference, ratio, line, dependsOn, because, untestable, claims);
        }
    }

    private Expectations(String experiment) {
        this.experiment = experiment;
    }

    /** The declaration for the result saved as {@code experiment}. */
    public static <T> Expectations<T> of(String experiment) {
        return new Expectations<>(experiment);
    }

    public String experiment() {
        return experiment;
    }

    public List<Expectation<T>> expectations() {
        return items.stream().map(Draft::done).toList();
    }

    /**
     * Declares one expectation: {@code subject} at {@code ratio} x {@code reference}, held against {@code line}.
     * Its kind is {@link Kind#PREDICTION} until {@link #limit} or {@link #claims} says otherwise.
     */
    public Expectations<T> expect(String id, String subject, String reference, Function<T, Figure> ratio, Line line) {
        if (items.stream().anyMatch(e -> e.id.equals(id))) throw new IllegalStateException(experiment + ": two expectations named " + id);
        items.add(new Draft<>(Objects.requireNonNull(id), subject, reference, Objects.requireNonNull(ratio),
                Objects.requireNonNull(line)));
        return this;
    }

    /** The last expectation is a limit physics sets (a bound no correct measurement passes). */
    public Expectations<T> limit() {
        last().kind = Kind.LIMIT;
        return this;
    }

    /** The last expectation decides these claims of {@code data/claims.csv}. */
    public Expectations<T> claims(String... ids) {
        Draft<T> d = last();
        if (d.kind != Kind.LIMIT) d.kind = Kind.CLAIM;
        d.claims = List.of(ids);
        return this;
    }

    /**
     * Where the last expectation's size falls short of its line but its direction holds: the dependency this run
     * measured to differ from the source's, in words with its numbers, or null when nothing measured explains it.
     */
    public Expectations<T> dependsOn(Function<T, String> measured) {
        last().dependsOn = Objects.requireNonNull(measured);
        return this;
    }

    /** A measured cost that explains the last expectation's figure, in words with its numbers (or null). */
    public Expectations<T> because(Function<T, String> explanation) {
        last().because = Objects.requireNonNull(explanation);
        return this;
    }

    /**
     * The last expectation can't be tested by some runs (a profile with too few users, say): {@code why} says what
     * this run lacks, or null when it can test it. Such a run records "not run", never a verdict.
     */
    public Expectations<T> untestableWhen(Function<T, String> why) {
        last().untestable = Objects.requireNonNull(why);
        return this;
    }

    private Draft<T> last() {
        if (items.isEmpty()) throw new IllegalStateException(experiment + ": declare an expectation first");
        return items.get(items.size() - 1);
    }

    /**
     * Judges {@code data} and saves it with its judgements under the results folder, as this declaration's
     * experiment; returns them, for the page's "what this run shows".
     */
    public Judged keep(T data) {
        return keepSettled(() -> data, (a, b) -> a, 1).judged();
    }

    /**
     * Measures with {@code measure} and, while one of its claims or predictions comes out inconclusive and runs remain
     * (at most {@code runs} in all, the profile's choice), measures again and pools the runs with {@code pool} (two
     * runs' figures as one, their intervals narrower); then judges and saves as {@link #keep} does. One figure that
     * cannot settle a claim is measured again before it is judged, never judged twice.
     */
    public Kept<T> keepSettled(java.util.function.Supplier<T> measure, java.util.function.BinaryOperator<T> pool,
                               int runs) {
        return keepSettled(Results.dir(), measure, pool, runs);
    }

    Kept<T> keepSettled(Path dir, java.util.function.Supplier<T> measure, java.util.function.BinaryOperator<T> pool,
                        int runs) {
        if (runs < 1) throw new IllegalArgumentException("runs must be at least 1, got " + runs);
        T data = measure.get();
        Busy.State machine = Busy.takeNoted();
        for (int run = 2; run <= runs && unsettled(judge(data, machine)); run++) {
            System.out.println(experiment + ": inconclusive after " + (run - 1) + (run == 2 ? " run" : " runs")
                    + "; measuring once more");
            T again = measure.get();
            machine = machine.worst(Busy.takeNoted());
            data = pool.apply(data, again);
        }
        RunGuard.check("saving '" + experiment + "'");
        Judged judged = judge(data, machine);
        Path saved = Results.save(dir, experiment, data, judged.records(), machine);
        System.out.println("saved as " + experiment + "/" + saved.getFileName() + " in the results folder");
        return new Kept<>(data, judged);
    }

    /** What {@link #keepSettled} kept: the data (pooled over its runs) and its judgements. */
    public record Kept<T>(T data, Judged judged) {
        /**
         * Shows what {@code kept} judged. After a Stop the cell that measured left {@code kept} empty: this says to
         * run that measurement again instead of failing on what it never kept.
         */
        public static void show(Kept<?> kept) {
            RunGuard.check("showing what the run shows");
            kept.judged().show();
        }
    }

    private static boolean unsettled(Judged j) {
        return j.judgements().stream().anyMatch(x -> x.kind() != Kind.LIMIT && x.verdict() == Verdict.INCONCLUSIVE);
    }

    /** Judges {@code data} under the machine's state while it was measured (the child runs noted since the last judgement). */
    public Judged judge(T data) {
        return judge(data, Busy.takeNoted());
    }

    /** Judges {@code data} against every expectation, under {@code machine}'s state. */
    public Judged judge(T data, Busy.State machine) {
        List<Judgement> out = new ArrayList<>();
        for (Draft<T> d : items) out.add(judge(d.done(), data, machine));
        return new Judged(experiment, machine, out);
    }

    private Judgement judge(Expectation<T> e, T data, Busy.State machine) {
        String untestable = e.untestable().apply(data);
        if (untestable != null) {
            return new Judgement(experiment, e.id(), e.kind(), e.claims(), e.subject(), e.reference(), null, e.line(),
                    Verdict.NOT_RUN, untestable, false, "**not run** · " + e.subject() + ": " + untestable + "."
                    + (e.claims().isEmpty() ? "" : " [" + String.join(", ", e.claims()) + "]"));
        }
        Figure measured = e.ratio().apply(data);
        Figure ratio = e.kind() == Kind.LIMIT ? measured : measured.widened(machine.share());
        String dependsOn = e.dependsOn().apply(data);
        Verdict verdict = e.line().of(ratio, dependsOn);
        // a limit holds unless the whole interval is past it: a figure at its bound within its spread did not beat it
        if (e.kind() == Kind.LIMIT && verdict == Verdict.INCONCLUSIVE) verdict = Verdict.CONFIRMED;
        String why = switch (verdict) {
            case CONFIRMED -> null;
            case INCONCLUSIVE -> "its interval straddles the line";
            case DEPENDS -> dependsOn;
            case REFUTED -> e.line().inGap(ratio) ? "the direction holds but the size falls short, and nothing this"
                    + " run measured explains it" : null;
            case NOT_RUN -> throw new IllegalStateException("a measured figure always has a verdict");
        };
        String because = e.because().apply(data);
        String sentence = sentence(e, ratio, verdict, why, because);
        return new Judgement(experiment, e.id(), e.kind(), e.claims(), e.subject(), e.reference(), ratio, e.line(),
                verdict, why, machine.busy() && e.kind() != Kind.LIMIT, sentence);
    }

    // "**confirmed** · 500 sleeps on virtual threads: 1.02 x one sleep (1.01 to 1.03, 4 JMH iterations); expected at
    // most 1.20 x. [jmh-2]"
    static String sentence(Expectation<?> e, Figure ratio, Verdict verdict, String why, String because) {
        String interval = ratio.low() == ratio.high() ? ratio.spread()
                : Figure.number(ratio.low()) + " to " + (Double.isFinite(ratio.high()) ? Figure.number(ratio.high())
                : "unbounded") + ", " + ratio.spread();
        String s = String.format(Locale.ROOT, "**%s** · %s: %.2f x %s (%s); expected %s", verdict.words(), e.subject(),
                ratio.value(), e.reference(), interval, e.line().words());
        if (why != null && verdict != Verdict.CONFIRMED) s += "; " + why;
        if (because != null && !because.isBlank()) s += "; " + because;
        return s + "." + (e.claims().isEmpty() ? "" : " [" + String.join(", ", e.claims()) + "]");
    }
}
