//DEPS com.google.code.gson:gson:2.11.0
package unpinned.chapters;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import unpinned.core.Course;
import unpinned.core.Json;
import unpinned.core.Results;
import unpinned.core.RunGuard;
import unpinned.core.Show;
import unpinned.showing.Meaning;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The claims ledger: every claim of the five sources ({@code data/claims.csv}), each with a verdict computed from
 * this run's own saved results. One rule per testable claim, named by the claim's id, in two steps: {@code extract}
 * reads the few numbers the claim is about from the chapter's saved results (nothing when the experiment has not run:
 * "not run yet"); {@code decide} turns those numbers into <b>confirmed</b>, <b>refuted</b> or <b>depends</b> (on
 * what), with one sentence written by {@link Meaning}, so the page test recomputes its ratio. A claim the course cannot
 * test on one machine has no rule and says why in its row (untestable here).
 *
 * <pre>{@code
 * Claims.show("04");   // the chapter's claims table and one sentence per verdict
 * }</pre>
 *
 * <p>{@code java -cp <helpers> unpinned.chapters.Claims --results DIR} prints every claim's verdict as JSON;
 * {@code --decide FILE} decides made-up numbers ({@code {"id": {"name": value, ...}, ...}}) without any run, which is
 * how the tests check each rule on both sides.
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
     * the measured values the rule used, {@code outcome} the sentence ({@code null} for a count that has no ratio).
     */
    public record Decision(String id, Verdict verdict, String because, Map<String, Double> numbers,
                           Meaning.Outcome outcome, String sentence) {}

    /** Where a confirmed / refuted / depends verdict sits on the rule's ratio: confirmed in [lo, hi], refuted outside [rlo, rhi]. */
    record Band(double lo, double hi, double rlo, double rhi, String dependsOn) {
        Verdict of(double r) {
            if (r >= lo && r <= hi) return Verdict.CONFIRMED;
            if (r < rlo || r > rhi) return Verdict.REFUTED;
            return Verdict.DEPENDS;
        }

        Map<String, Object> record() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("confirmFrom", finite(lo));
            m.put("confirmTo", finite(hi));
            m.put("refuteBelow", finite(rlo));
            m.put("refuteAbove", finite(rhi));
            return m;
        }

        private static Double finite(double v) {
            return Double.isFinite(v) ? v : null;
        }
    }

    private static final double INF = Double.POSITIVE_INFINITY;

    /** Confirmed at {@code k} or more, refuted below. */
    static Band atLeast(double k) {
        return new Band(k, INF, k, INF, null);
    }

    /** Confirmed at {@code k} or more, depends (on {@code on}) from {@code from} to {@code k}, refuted below {@code from}. */
    static Band atLeast(double k, double from, String on) {
        return new Band(k, INF, from, INF, on);
    }

    /** Confirmed at most {@code k}, refuted above. */
    static Band atMost(double k) {
        return new Band(0, k, 0, k, null);
    }

    /** Confirmed at most {@code k}, depends (on {@code on}) from {@code k} to {@code to}, refuted above {@code to}. */
    static Band atMost(double k, double to, String on) {
        return new Band(0, k, 0, to, on);
    }

    /** Confirmed from {@code lo} to {@code hi}, refuted outside. */
    static Band within(double lo, double hi) {
        return new Band(lo, hi, lo, hi, null);
    }

    // ------------------------------------------------------------------------------------------------- the rules

    /** The numbers a rule read, by name. */
    static final class Vals {
        final Map<String, Double> map;

        Vals(Map<String, Double> map) {
            this.map = map;
        }

        double get(String name) {
            Double v = map.get(name);
            if (v == null || !Double.isFinite(v)) throw new NotRun("no finite value '" + name + "' (has " + map.keySet() + ")");
            return v;
        }
    }

    /** What a decision found before it is named: the verdict, on what it depends, the sentence's outcome. */
    record Found(Verdict verdict, String because, Meaning.Outcome outcome, Band band, String text) {
        Found withBecause(String why) {
            return new Found(verdict, why, outcome, band, text);
        }
    }

    interface Extract {
        Map<String, Double> from(Saved run);
    }

    interface Decide {
        Found from(Vals v);
    }

    record Rule(String experiment, Extract extract, Decide decide) {}

    /** An experiment that has not run (or recorded no such value): no verdict. */
    static final class NotRun extends RuntimeException {
        NotRun(String why) {
            super(why, null, false, false);
        }
    }

    private static final Map<String, Rule> RULES = new LinkedHashMap<>();

    private static void rule(String id, String experiment, Extract extract, Decide decide) {
        if (RULES.put(id, new Rule(experiment, extract, decide)) != null) throw new IllegalStateException("two rules for " + id);
    }

    /** The claim ids that have a rule, in order. */
    public static List<String> ruleIds() {
        return List.copyOf(RULES.keySet());
    }

    /** The experiment a rule reads. */
    public static String experimentOf(String id) {
        return RULES.get(id).experiment();
    }

    // A comparison of a against b (ratio a / b), decided by the band.
    static Found compare(Vals v, String measure, String a, String aKey, String b, String bKey, String unit, Band band) {
        Meaning.Outcome o = Meaning.compare(measure, a, v.get(aKey), b, v.get(bKey), unit, 0.05, null, null);
        return found(o, band);
    }

    // A value as a share of a reference (ratio value / reference), decided by the band.
    static Found share(Vals v, String subject, String key, String refName, String refKey, String unit, Band band) {
        Meaning.Outcome o = Meaning.share(subject, v.get(key), refName, v.get(refKey), unit, Double.NaN, null);
        return found(o, band);
    }

    // A time against its floor (ratio time / floor), decided by the band.
    static Found times(Vals v, String subject, String key, String floorName, String floorKey, String unit, Band band) {
        Meaning.Outcome o = Meaning.times(subject, v.get(key), floorName, v.get(floorKey), unit, Double.NaN, null);
        return found(o, band);
    }

    static Found found(Meaning.Outcome o, Band band) {
        Verdict verdict = band.of(ratio(o));
        return new Found(verdict, verdict == Verdict.DEPENDS ? band.dependsOn() : null, o, band, null);
    }

    static double ratio(Meaning.Outcome o) {
        return ((Number) o.values().get("ratio")).doubleValue();
    }

    static Found with(Found f, Verdict verdict, String because) {
        return new Found(verdict, because, f.outcome(), null, f.text());
    }

    static Found counted(Verdict verdict, String text) {
        return new Found(verdict, null, null, null, text);
    }

    static Map<String, Double> vals(Object... nameValue) {
        Map<String, Double> m = new LinkedHashMap<>();
        for (int i = 0; i < nameValue.length; i += 2) m.put((String) nameValue[i], ((Number) nameValue[i + 1]).doubleValue());
        return m;
    }

    static {
        // -------------------------------------------------------------------------------------- vt-http-pr
        rule("pr-11", "01-sleep-endpoint", r -> r.pair("01-sleep-endpoint", "executor", "serverRssMb", "virtual", "platform-pool-50"),
                v -> compare(v, "server resident memory", "virtual threads", "virtual", "the pool of 50", "platform-pool-50",
                        "MB", atMost(0.9, 1.1, "within 10 %")));

        // -------------------------------------------------------------------------------------- vt-jdk25-jpa-blog
    }

    // ------------------------------------------------------------------------------------------ shared rule parts

    private static Map<String, Double> reactiveLeadByUsers(Saved r) {
        Map<Double, Double> vt = new TreeMap<>(), rx = new TreeMap<>();
        for (JsonObject o : r.rows("02-order-sweep")) {
            String impl = str(o, "impl");
            if (impl.equals("virtual")) vt.put(num(o, "users"), num(o, "throughput"));
            if (impl.equals("reactive")) rx.put(num(o, "users"), num(o, "throughput"));
        }
        List<Double> users = vt.keySet().stream().filter(rx::containsKey).sorted().toList();
        if (users.size() < 2) throw new NotRun("fewer than two user levels with both reactive and virtual threads");
        double top = users.get(users.size() - 1), below = users.get(users.size() - 2);
        return vals("top", rx.get(top) / vt.get(top), "below", rx.get(below) / vt.get(below), "topUsers", top,
                "belowUsers", below);
    }


    // ------------------------------------------------------------------------------------------ reading a run

    /** A run's saved results: a results folder ({@code <exp>/<stamp>.json}, the newest) or a reference run ({@code <exp>.json}). */
    static final class Saved {
        private final Path dir;
        private final Map<String, Optional<JsonObject>> cache = new LinkedHashMap<>();

        Saved(Path dir) {
            this.dir = dir;
        }

        private JsonObject doc(String experiment) {
            Optional<JsonObject> d = cache.computeIfAbsent(experiment, e -> {
                Path flat = dir.resolve(e + ".json");
                Optional<Path> file = Files.isRegularFile(flat) ? Optional.of(flat) : Results.latest(dir, e);
                return file.map(Results::read);
            });
            return d.orElseThrow(() -> new NotRun(experiment + " has not run"));
        }

        JsonElement data(String experiment) {
            return doc(experiment).get("data");
        }

        /** The saved judgement that decides {@code claim}, when the experiment declared its expectations. */
        Optional<JsonObject> judgement(String experiment, String claim) {
            if (experiment == null || experiment.isBlank()) return Optional.empty();
            JsonObject d;
            try {
                d = doc(experiment);
            } catch (NotRun e) {
                return Optional.empty();
            }
            for (JsonObject j : objects(d.get("judged"))) {
                for (JsonElement c : j.has("claims") && j.get("claims").isJsonArray() ? j.getAsJsonArray("claims")
                        : new JsonArray()) {
                    if (c.isJsonPrimitive() && c.getAsString().equals(claim)) return Optional.of(j);
                }
            }
            return Optional.empty();
        }

        /** The experiment's data as one object. */
        JsonObject top(String experiment) {
            JsonElement d = data(experiment);
            if (!d.isJsonObject()) throw new NotRun(experiment + ": its data is not one object");
            return d.getAsJsonObject();
        }

        double top(String experiment, String field) {
            return Claims.num(top(experiment), field);
        }

        /** Its rows (the data as a list, or its "rows"), keeping those whose fields equal the given pairs. */
        List<JsonObject> rows(String experiment, String... pairs) {
            JsonElement d = data(experiment);
            if (d.isJsonObject() && d.getAsJsonObject().has("runs")) d = d.getAsJsonObject().get("runs");
            else if (d.isJsonObject() && d.getAsJsonObject().has("rows")) d = d.getAsJsonObject().get("rows");
            List<JsonObject> out = new ArrayList<>();
            for (JsonObject o : objects(d)) {
                boolean match = true;
                for (int i = 0; i < pairs.length; i += 2) match &= matches(o, pairs[i], pairs[i + 1]);
                if (match) out.add(o);
            }
            return out;
        }

        JsonObject row(String experiment, String... pairs) {
            List<JsonObject> found = rows(experiment, pairs);
            if (found.isEmpty()) throw new NotRun(experiment + " has no row " + String.join("=", pairs));
            return found.get(0);
        }

        double num(String experiment, String key, String value, String field) {
            return Claims.num(row(experiment, key, value), field);
        }

        /** {@code field} of the rows whose {@code key} is {@code a} and {@code b}, named by those. */
        Map<String, Double> pair(String experiment, String key, String field, String a, String b) {
            return vals(a, num(experiment, key, a, field), b, num(experiment, key, b, field));
        }

        JsonObject maxBy(List<JsonObject> rows, String field) {
            return rows.stream().max(Comparator.comparingDouble(o -> Claims.num(o, field)))
                    .orElseThrow(() -> new NotRun("no rows to take the largest " + field + " of"));
        }
    }

    static List<JsonObject> objects(JsonElement e) {
        List<JsonObject> out = new ArrayList<>();
        if (e != null && e.isJsonArray()) {
            for (JsonElement x : (JsonArray) e) if (x.isJsonObject()) out.add(x.getAsJsonObject());
        }
        return out;
    }

    private static boolean matches(JsonObject o, String key, String value) {
        JsonElement e = o.get(key);
        if (e == null || !e.isJsonPrimitive()) return false;
        if (e.getAsJsonPrimitive().isNumber()) {
            try {
                return e.getAsDouble() == Double.parseDouble(value);
            } catch (NumberFormatException x) {
                return false;
            }
        }
        return e.getAsString().equals(value);
    }

    static double num(JsonObject o, String field) {
        double v = num(o, field, Double.NaN);
        if (!Double.isFinite(v)) throw new NotRun("no finite '" + field + "' recorded");
        return v;
    }

    static double num(JsonObject o, String field, double otherwise) {
        JsonElement e = o.get(field);
        if (e == null || e.isJsonNull() || !e.isJsonPrimitive()) return otherwise;
        try {
            return e.getAsDouble();
        } catch (NumberFormatException | UnsupportedOperationException x) {
            return otherwise;
        }
    }

    static String str(JsonObject o, String field) {
        JsonElement e = o.get(field);
        if (e == null || e.isJsonNull()) return "";
        if (!e.isJsonPrimitive()) throw new NotRun("a saved row's \"" + field + "\" is " + e + ", not a text");
        return e.getAsString();
    }

    // ------------------------------------------------------------------------------------------ the ledger

    /** Every claim of {@code data/claims.csv}, in file order. */
    public static List<Claim> ledger() {
        return ledger(Course.home().resolve("data").resolve("claims.csv"));
    }

    static List<Claim> ledger(Path csv) {
        List<List<String>> rows;
        try {
            rows = parseCsv(Files.readString(csv, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the claims ledger " + csv + ": " + Results.why(e), e);
        }
        List<String> header = List.of("id", "source", "chapter", "experiment", "claim", "rule", "untestable");
        if (rows.isEmpty() || !rows.get(0).equals(header)) {
            throw new IllegalArgumentException(csv + " must start with the header " + String.join(",", header));
        }
        List<Claim> claims = new ArrayList<>();
        for (int i = 1; i < rows.size(); i++) {
            List<String> r = rows.get(i);
            if (r.size() != header.size()) {
                throw new IllegalArgumentException(csv + ", row " + i + ": " + r.size() + " fields, need " + header.size());
            }
            claims.add(new Claim(r.get(0), r.get(1), r.get(2), r.get(3), r.get(4), r.get(5), r.get(6)));
        }
        return claims;
    }

    // RFC 4180: fields separated by commas, quoted with "" when they hold commas, quotes or line breaks.
    static List<List<String>> parseCsv(String text) {
        List<List<String>> rows = new ArrayList<>();
        List<String> row = new ArrayList<>();
        StringBuilder field = new StringBuilder();
        boolean quoted = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (quoted) {
                if (c == '"' && i + 1 < text.length() && text.charAt(i + 1) == '"') {
                    field.append('"');
                    i++;
                } else if (c == '"') {
                    quoted = false;
                } else {
                    field.append(c);
                }
            } else if (c == '"') {
                quoted = true;
            } else if (c == ',') {
                row.add(field.toString());
                field.setLength(0);
            } else if (c == '\n' || c == '\r') {
                if (c == '\r' && i + 1 < text.length() && text.charAt(i + 1) == '\n') i++;
                row.add(field.toString());
                field.setLength(0);
                rows.add(row);
                row = new ArrayList<>();
            } else {
                field.append(c);
            }
        }
        if (field.length() > 0 || !row.isEmpty()) {
            row.add(field.toString());
            rows.add(row);
        }
        return rows;
    }

    /** Each claim's verdict from the saved results under {@code dir} (a results folder or a reference run). */
    public static List<Decision> decide(List<Claim> claims, Path dir) {
        Saved run = new Saved(dir);
        List<Decision> out = new ArrayList<>();
        for (Claim c : claims) out.add(decide(c, run));
        return out;
    }

    static Decision decide(Claim c, Saved run) {
        if (!c.testable()) return new Decision(c.id(), Verdict.UNTESTABLE, c.untestable(), Map.of(), null, null);
        Optional<JsonObject> judged = run.judgement(c.experiment(), c.id());
        if (judged.isPresent()) return fromJudgement(c.id(), judged.get());
        if (Declarations.decides(c.id())) {
            return new Decision(c.id(), Verdict.NOT_RUN, c.experiment() + " has no judged result in this run",
                    Map.of(), null, null);
        }
        Rule rule = RULES.get(c.id());
        if (rule == null) throw new IllegalStateException("claim " + c.id() + " is testable but has no rule in Claims");
        Map<String, Double> numbers;
        try {
            numbers = rule.extract().from(run);
        } catch (NotRun e) {
            return new Decision(c.id(), Verdict.NOT_RUN, e.getMessage(), Map.of(), null, null);
        } catch (IllegalStateException | UnsupportedOperationException | ClassCastException | NumberFormatException e) {
            // a saved file of another shape (a field an object where text belongs): this claim has no verdict, the
            // others still do
            return new Decision(c.id(), Verdict.NOT_RUN, rule.experiment() + "'s saved result can't be read here ("
                    + e.getClass().getSimpleName() + ": " + e.getMessage() + ")", Map.of(), null, null);
        }
        return decide(c.id(), numbers);
    }

    /**
     * A claim decided by its experiment's declared expectation (saved with the run's judgements): the verdict the
     * chapter's page showed, never decided again here.
     */
    static Decision fromJudgement(String id, JsonObject j) {
        String words = str(j, "verdict");
        Verdict verdict = switch (words) {
            case "confirmed" -> Verdict.CONFIRMED;
            case "refuted" -> Verdict.REFUTED;
            case "inconclusive" -> Verdict.INCONCLUSIVE;
            case "depends" -> Verdict.DEPENDS;
            case "not run" -> Verdict.NOT_RUN;
            default -> throw new IllegalStateException("claim " + id + ": a judgement with an unknown verdict '" + words + "'");
        };
        Map<String, Double> numbers = new LinkedHashMap<>();
        for (String k : List.of("ratio", "low", "high")) {
            double v = num(j, k, Double.NaN);
            if (Double.isFinite(v)) numbers.put(k, v);
        }
        String why = j.has("why") && !j.get("why").isJsonNull() ? j.get("why").getAsString() : null;
        return new Decision(id, verdict, why, numbers, null, str(j, "sentence"));
    }

    /** The verdict of claim {@code id}'s rule on the given numbers (made-up ones in the tests). */
    public static Decision decide(String id, Map<String, Double> numbers) {
        Rule rule = RULES.get(id);
        if (rule == null) throw new IllegalArgumentException("no rule for claim '" + id + "'");
        Found f;
        try {
            f = rule.decide().from(new Vals(numbers));
        } catch (NotRun e) {
            return new Decision(id, Verdict.NOT_RUN, e.getMessage(), numbers, null, null);
        }
        String head = "**" + id + ": " + f.verdict().words() + "**" + (f.because() == null ? "" : " (" + f.because() + ")")
                + ". ";
        String body = f.text() != null ? f.text() : f.outcome().text();
        String sentence = head + body;
        Meaning.Outcome outcome = null;
        if (f.outcome() != null) {
            Map<String, Object> values = new LinkedHashMap<>(f.outcome().values());
            values.put("claim", id);
            values.put("verdict", f.verdict().words());
            if (f.band() != null) values.putAll(f.band().record());
            outcome = new Meaning.Outcome(f.outcome().kind(), sentence, values, f.outcome().met());
        }
        return new Decision(id, f.verdict(), f.because(), numbers, outcome, sentence);
    }

    // ------------------------------------------------------------------------------------------ on the page

    /** The chapter's claims ({@code "04"}): a table (claim, source, verdict, the numbers), then one sentence per verdict. */
    public static void show(String chapter) {
        RunGuard.check("showing the claims");
        List<Claim> claims = ledger().stream().filter(c -> c.chapter().equals(chapter)).toList();
        if (claims.isEmpty()) throw new IllegalArgumentException("no claims for chapter '" + chapter + "' in data/claims.csv");
        List<Decision> decisions = decide(claims, Results.dir());
        Map<String, Object> verdicts = new LinkedHashMap<>();
        for (Decision d : decisions) verdicts.put(d.id(), d.verdict().words());
        Show.html(html(claims, decisions), TABLE_KEY, Map.of("kind", "claims", "chapter", chapter, "verdicts", verdicts));
        // a declared expectation's sentence is already on the page, in its experiment's "what this run shows"
        for (Decision d : decisions) {
            if (Declarations.decides(d.id())) continue;
            if (d.outcome() != null) d.outcome().show();
            else if (d.sentence() != null) Show.markdown(d.sentence());
        }
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
        StringBuilder s = new StringBuilder();
        if (d.outcome() != null) {
            s.append(String.format(Locale.ROOT, "%.2f x; ", ratio(d.outcome())));
        }
        if (d.outcome() == null && d.numbers().containsKey("ratio")) { // a declared expectation's interval
            double lo = d.numbers().getOrDefault("low", Double.NaN), hi = d.numbers().getOrDefault("high", Double.NaN);
            return String.format(Locale.ROOT, "%.2f x", d.numbers().get("ratio"))
                    + (lo < hi ? String.format(Locale.ROOT, " (%.2f to %.2f)", lo, hi) : "")
                    + (d.because() == null || d.verdict() == Verdict.DEPENDS ? "" : "; " + d.because());
        }
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
     * {@code --results DIR}: every claim's verdict from that run, as JSON. {@code --decide FILE}: the rules on made-up
     * numbers ({@code {"id": {"name": value}}} or {@code {"id": [{...}, {...}]}}), as JSON.
     * {@code --rules}: the claim ids that have a rule.
     */
    public static void main(String[] args) throws IOException {
        if (args.length == 1 && args[0].equals("--rules")) {
            System.out.println(Json.write(ruleIds()));
        } else if (args.length == 1 && args[0].equals("--declarations")) {
            System.out.println(Json.write(Declarations.records()));
        } else if (args.length == 2 && args[0].equals("--results")) {
            List<Claim> claims = ledger();
            List<Decision> decisions = decide(claims, Path.of(args[1]));
            List<Map<String, Object>> out = new ArrayList<>();
            for (int i = 0; i < claims.size(); i++) out.add(record(claims.get(i), decisions.get(i)));
            System.out.println(Json.write(out));
        } else if (args.length == 2 && args[0].equals("--decide")) {
            JsonObject cases = Json.parse(Files.readString(Path.of(args[1]))).getAsJsonObject();
            Map<String, List<String>> out = new LinkedHashMap<>();
            for (var e : cases.entrySet()) {
                List<JsonElement> each = new ArrayList<>();
                if (e.getValue().isJsonArray()) e.getValue().getAsJsonArray().forEach(each::add);
                else each.add(e.getValue());
                List<String> verdicts = new ArrayList<>();
                for (JsonElement c : each) {
                    Map<String, Double> numbers = new LinkedHashMap<>();
                    c.getAsJsonObject().entrySet().forEach(n -> numbers.put(n.getKey(), n.getValue().getAsDouble()));
                    verdicts.add(decide(e.getKey(), numbers).verdict().words());
                }
                out.put(e.getKey(), verdicts);
            }
            System.out.println(Json.write(out));
        } else {
            System.err.println("usage: Claims --results DIR | --decide FILE | --rules | --declarations");
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
