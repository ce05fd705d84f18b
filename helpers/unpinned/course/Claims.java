//DEPS com.google.code.gson:gson:2.11.0
//DEPS tech.tablesaw:tablesaw-core:0.44.4
// Tablesaw logs through SLF4J; without a binding its first use prints a warning into the cell.
//DEPS org.slf4j:slf4j-nop:2.0.17
//SOURCES ../core/Course.java
//SOURCES Declarations.java
//SOURCES ../core/Json.java
//SOURCES ../core/Results.java
//SOURCES ../core/RunGuard.java
//SOURCES ../core/Show.java
package unpinned.course;

import com.google.gson.JsonElement;
import tech.tablesaw.api.ColumnType;
import tech.tablesaw.api.Row;
import tech.tablesaw.api.Table;
import tech.tablesaw.io.RuntimeIOException;
import tech.tablesaw.io.csv.CsvReadOptions;
import unpinned.core.Course;
import unpinned.core.Json;
import unpinned.core.Results;
import unpinned.core.RunGuard;
import unpinned.core.Show;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The claims ledger: every claim of the five sources ({@code data/claims.csv}), each with the verdict of the declared
 * expectation that tests it ({@link Declarations}: each names the claims it decides), as its chapter's run judged and
 * saved it: confirmed, refuted, inconclusive or depends (on a difference from the source the run measured); "not run
 * yet" when the experiment has not run. Nothing is judged a second time here. A claim the course cannot test on one
 * machine says why in its row (untestable here).
 *
 * <pre>{@code
 * Claims.show("04");   // the chapter's claims table
 * }</pre>
 *
 * <p>{@code java -cp <helpers> unpinned.course.Claims --results DIR} prints every claim's verdict as JSON.
 */
public final class Claims {
    private Claims() {}

    /** What a run says about a claim. */
    public enum Verdict {
        CONFIRMED("confirmed"), REFUTED("refuted"), INCONCLUSIVE("inconclusive"), DEPENDS("depends"),
        NOT_RUN("not run yet"), UNTESTABLE("untestable here");

        private final String words;

        Verdict(String words) {
            this.words = words;
        }

        public String words() {
            return words;
        }
    }

    /** One row of {@code data/claims.csv}. */
    public record Claim(String id, String source, String chapter, String experiment, String claim, String rule,
                        String untestable) {
        public boolean testable() {
            return untestable.isBlank();
        }
    }

    /**
     * A claim's verdict: {@code because} says on what it depends (or why it is not run / not testable), {@code numbers}
     * the judged ratio and its interval, {@code sentence} the judgement's sentence as its chapter showed it.
     */
    public record Decision(String id, Verdict verdict, String because, Map<String, Double> numbers, String sentence) {}

    // ------------------------------------------------------------------------------------------ reading a run

    /** A saved judgement, as {@code Expectations.Judgement.record()} wrote it: the fields the ledger reads. */
    record SavedJudgement(List<String> claims, Double ratio, Double low, Double high, String verdict, String why,
                          String sentence) {}

    /** Only the claims a saved judgement decides: read first, so a judgement of another shape fails alone. */
    private record Decides(List<String> claims) {}

    /** What a result file keeps that the ledger reads: its judgements, each still unread. */
    private record SavedRun(List<JsonElement> judged) {}

    private static SavedRun savedRun(JsonElement doc) {
        try {
            return Json.read(doc, SavedRun.class);
        } catch (IllegalArgumentException e) {
            return new SavedRun(List.of()); // judgements of another shape decide nothing
        }
    }

    /** A run's saved results: a results folder ({@code <exp>/<stamp>.json}, the newest) or a reference run ({@code <exp>.json}). */
    static final class Saved {
        private final Path dir;
        private final Map<String, Optional<SavedRun>> cache = new LinkedHashMap<>();

        Saved(Path dir) {
            this.dir = dir;
        }

        private Optional<SavedRun> doc(String experiment) {
            return cache.computeIfAbsent(experiment, e -> {
                Path flat = dir.resolve(e + ".json");
                Optional<Path> file = Files.isRegularFile(flat) ? Optional.of(flat) : Results.latest(dir, e);
                return file.map(Results::read).map(Claims::savedRun);
            });
        }

        /** The saved judgement that decides {@code claim} (still unread), when the experiment declared its expectations. */
        Optional<JsonElement> judgement(String experiment, String claim) {
            if (experiment == null || experiment.isBlank()) return Optional.empty();
            List<JsonElement> judged = doc(experiment).map(SavedRun::judged).orElse(null);
            if (judged == null) return Optional.empty();
            for (JsonElement j : judged) {
                Decides d;
                try {
                    d = Json.read(j, Decides.class);
                } catch (IllegalArgumentException e) {
                    continue; // not a judgement this ledger can name
                }
                if (d != null && d.claims() != null && d.claims().contains(claim)) return Optional.of(j);
            }
            return Optional.empty();
        }
    }

    // ------------------------------------------------------------------------------------------ the ledger

    /** Every claim of {@code data/claims.csv}, in file order. */
    public static List<Claim> ledger() {
        return ledger(Course.home().resolve("data").resolve("claims.csv"));
    }

    static final List<String> HEADER = List.of("id", "source", "chapter", "experiment", "claim", "rule", "untestable");

    static List<Claim> ledger(Path csv) {
        Table table;
        try {
            // every column is text: an id such as "04" or a claim that looks like a number stays as written
            table = Table.read().usingOptions(CsvReadOptions.builder(csv.toFile())
                    .columnTypes(column -> ColumnType.STRING)
                    .maxCharsPerColumn(-1));
        } catch (RuntimeIOException e) {
            IOException cause = e.getCause() instanceof IOException io ? io : new IOException(e.getMessage(), e);
            throw new UncheckedIOException("cannot read the claims ledger " + csv + ": " + Results.why(cause), cause);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(csv + " is not a claims ledger (" + HEADER.size()
                    + " comma-separated fields a row, quoted with \"\" when they hold commas): " + e.getMessage(), e);
        }
        if (!table.columnNames().equals(HEADER)) {
            throw new IllegalArgumentException(csv + " must start with the header " + String.join(",", HEADER));
        }
        List<Claim> claims = new ArrayList<>();
        for (Row r : table) {
            claims.add(new Claim(r.getString(0), r.getString(1), r.getString(2), r.getString(3), r.getString(4),
                    r.getString(5), r.getString(6)));
        }
        return claims;
    }

    /** Each claim's verdict from the saved results under {@code dir} (a results folder or a reference run). */
    public static List<Decision> decide(List<Claim> claims, Path dir) {
        Saved run = new Saved(dir);
        List<Decision> out = new ArrayList<>();
        for (Claim c : claims) out.add(decide(c, run));
        return out;
    }

    static Decision decide(Claim c, Saved run) {
        if (!c.testable()) return new Decision(c.id(), Verdict.UNTESTABLE, c.untestable(), Map.of(), null);
        Optional<JsonElement> judged = run.judgement(c.experiment(), c.id());
        if (judged.isPresent()) {
            try {
                return fromJudgement(c.id(), Json.read(judged.get(), SavedJudgement.class));
            } catch (IllegalArgumentException | IllegalStateException e) {
                // a saved judgement of another shape (an object where its verdict belongs): this claim has no
                // verdict, the others still do
                return new Decision(c.id(), Verdict.NOT_RUN, c.experiment() + "'s saved judgement can't be read here ("
                        + e.getMessage() + ")", Map.of(), null);
            }
        }
        if (Declarations.decides(c.id())) {
            return new Decision(c.id(), Verdict.NOT_RUN, c.experiment() + " has no judged result in this run",
                    Map.of(), null);
        }
        throw new IllegalStateException("claim " + c.id() + " is testable but no declared expectation decides it: add"
                + " .claims(\"" + c.id() + "\") to the expectation that tests it, or say why it is untestable");
    }

    /**
     * A claim decided by its experiment's declared expectation (saved with the run's judgements): the verdict the
     * chapter's page showed, never decided again here.
     */
    static Decision fromJudgement(String id, SavedJudgement j) {
        String words = j.verdict() == null ? "" : j.verdict();
        Verdict verdict = switch (words) {
            case "confirmed" -> Verdict.CONFIRMED;
            case "refuted" -> Verdict.REFUTED;
            case "inconclusive" -> Verdict.INCONCLUSIVE;
            case "depends" -> Verdict.DEPENDS;
            case "not run" -> Verdict.NOT_RUN;
            default -> throw new IllegalStateException("claim " + id + ": a judgement with an unknown verdict '" + words + "'");
        };
        Map<String, Double> numbers = new LinkedHashMap<>();
        putFinite(numbers, "ratio", j.ratio());
        putFinite(numbers, "low", j.low());
        putFinite(numbers, "high", j.high());
        return new Decision(id, verdict, j.why(), numbers, j.sentence() == null ? "" : j.sentence());
    }

    private static void putFinite(Map<String, Double> numbers, String name, Double value) {
        if (value != null && Double.isFinite(value)) numbers.put(name, value);
    }

    // ------------------------------------------------------------------------------------------ on the page

    /** The chapter's claims ({@code "04"}): a table (claim, source, verdict, the numbers). */
    public static void show(String chapter) {
        RunGuard.check("showing the claims");
        List<Claim> claims = ledger().stream().filter(c -> c.chapter().equals(chapter)).toList();
        if (claims.isEmpty()) throw new IllegalArgumentException("no claims for chapter '" + chapter + "' in data/claims.csv");
        List<Decision> decisions = decide(claims, Results.dir());
        Map<String, Object> verdicts = new LinkedHashMap<>();
        for (Decision d : decisions) verdicts.put(d.id(), d.verdict().words());
        // each verdict's sentence is already on the page, in its experiment's "what this run shows"
        Show.html(html(claims, decisions), TABLE_KEY, Map.of("kind", "claims", "chapter", chapter, "verdicts", verdicts));
    }

    /** The key of a claims table's record (each claim's verdict) in the output's metadata. */
    public static final String TABLE_KEY = "unpinned/claims";

    /**
     * The whole ledger on every run there is: each reference run under {@code data/reference-runs/} and this
     * checkout's results, one column each (chapter 08). A run that lacks an experiment says "not run yet" there.
     */
    public static void showAcross() {
        RunGuard.check("showing the claims");
        Map<String, Path> runs = new LinkedHashMap<>();
        Path reference = Course.home().resolve("data").resolve("reference-runs");
        try (var list = Files.list(reference)) {
            list.filter(Files::isDirectory).sorted().forEach(p -> runs.put(p.getFileName().toString(), p));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + reference, e);
        }
        runs.put("your results (" + Results.where() + ")", Results.dir());
        List<Claim> claims = ledger();
        Map<String, List<Decision>> decided = new LinkedHashMap<>();
        runs.forEach((name, dir) -> decided.put(name, decide(claims, dir)));
        StringBuilder h = new StringBuilder("<table><caption>The sources' claims on every run: ");
        String sep = "";
        for (var e : decided.entrySet()) {
            h.append(sep).append(escape(e.getKey())).append(": ").append(escape(summary(e.getValue())));
            sep = "; ";
        }
        h.append("</caption><thead><tr><th>claim</th><th>source</th><th>chapter</th>");
        decided.keySet().forEach(name -> h.append("<th>").append(escape(name)).append("</th>"));
        h.append("</tr></thead><tbody>");
        for (int i = 0; i < claims.size(); i++) {
            Claim c = claims.get(i);
            h.append("<tr><td style=\"text-align:left\"><b>").append(escape(c.id())).append("</b> ")
                    .append(escape(c.claim())).append("</td><td>").append(escape(c.source())).append("</td><td>")
                    .append(escape(c.chapter())).append("</td>");
            for (List<Decision> ds : decided.values()) {
                Decision d = ds.get(i);
                h.append("<td style=\"text-align:left\">").append(escape(d.verdict().words()))
                        .append(d.verdict() == Verdict.DEPENDS && d.because() != null ? " (" + escape(d.because()) + ")"
                                : "").append("</td>");
            }
            h.append("</tr>");
        }
        Show.html(h.append("</tbody></table>").toString());
    }

    /** "12 claims: 5 confirmed, 2 refuted, 1 depends, 2 not run yet, 2 untestable here". */
    public static String summary(List<Decision> decisions) {
        Map<Verdict, Long> n = new LinkedHashMap<>();
        for (Verdict v : Verdict.values()) n.put(v, 0L);
        decisions.forEach(d -> n.merge(d.verdict(), 1L, Long::sum));
        StringBuilder s = new StringBuilder(decisions.size() + " claims:");
        String sep = " ";
        for (var e : n.entrySet()) {
            s.append(sep).append(e.getValue()).append(' ').append(e.getKey().words());
            sep = ", ";
        }
        return s.toString();
    }

    static String html(List<Claim> claims, List<Decision> decisions) {
        StringBuilder h = new StringBuilder("<table><caption>The sources' claims against this run: ")
                .append(escape(summary(decisions))).append("</caption><thead><tr><th>claim</th><th>source</th>")
                .append("<th>verdict</th><th>the numbers</th></tr></thead><tbody>");
        for (int i = 0; i < claims.size(); i++) {
            Claim c = claims.get(i);
            Decision d = decisions.get(i);
            String verdict = d.verdict().words() + (d.verdict() == Verdict.DEPENDS && d.because() != null
                    ? " (" + d.because() + ")" : "");
            h.append("<tr><td style=\"text-align:left\"><b>").append(escape(c.id())).append("</b> ").append(escape(c.claim()))
                    .append("</td><td style=\"text-align:left\">").append(escape(c.source()))
                    .append("</td><td style=\"text-align:left\">").append(escape(verdict))
                    .append("</td><td style=\"text-align:left\">").append(escape(numbers(d))).append("</td></tr>");
        }
        return h.append("</tbody></table>").toString();
    }

    /** The numbers a verdict used, short; or why there is none. */
    static String numbers(Decision d) {
        if (d.verdict() == Verdict.UNTESTABLE) return d.because();
        if (d.verdict() == Verdict.NOT_RUN) return "not run yet: " + d.because();
        if (d.numbers().containsKey("ratio")) { // a declared expectation's interval
            double lo = d.numbers().getOrDefault("low", Double.NaN), hi = d.numbers().getOrDefault("high", Double.NaN);
            return String.format(Locale.ROOT, "%.2f x", d.numbers().get("ratio"))
                    + (lo < hi ? String.format(Locale.ROOT, " (%.2f to %.2f)", lo, hi) : "")
                    + (d.because() == null || d.verdict() == Verdict.DEPENDS ? "" : "; " + d.because());
        }
        StringBuilder s = new StringBuilder();
        String sep = "";
        for (var e : d.numbers().entrySet()) {
            s.append(sep).append(e.getKey()).append(' ').append(count(e.getValue()));
            sep = ", ";
        }
        return s.toString();
    }

    static String count(double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) return String.format(Locale.ROOT, "%,d", (long) v);
        return Math.abs(v) >= 100 ? String.format(Locale.ROOT, "%,.0f", v)
                : String.format(Locale.ROOT, Math.abs(v) >= 1 ? "%.2f" : "%.3f", v);
    }

    private static String escape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    // ------------------------------------------------------------------------------------------ command line

    /**
     * {@code --results DIR}: every claim's verdict from that run, as JSON. {@code --declarations}: every declared
     * expectation, with the claims it decides.
     */
    public static void main(String[] args) throws IOException {
        if (args.length == 1 && args[0].equals("--declarations")) {
            System.out.println(Json.write(Declarations.records()));
        } else if (args.length == 2 && args[0].equals("--results")) {
            List<Claim> claims = ledger();
            List<Decision> decisions = decide(claims, Path.of(args[1]));
            List<Map<String, Object>> out = new ArrayList<>();
            for (int i = 0; i < claims.size(); i++) out.add(record(claims.get(i), decisions.get(i)));
            System.out.println(Json.write(out));
        } else {
            System.err.println("usage: Claims --results DIR | --declarations");
            System.exit(2);
        }
    }

    static Map<String, Object> record(Claim c, Decision d) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", c.id());
        m.put("source", c.source());
        m.put("chapter", c.chapter());
        m.put("experiment", c.experiment());
        m.put("verdict", d.verdict().words());
        m.put("because", d.because());
        m.put("numbers", d.numbers());
        m.put("sentence", d.sentence());
        return m;
    }
}
