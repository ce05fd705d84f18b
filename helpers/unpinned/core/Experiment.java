//SOURCES Busy.java
//SOURCES Cli.java
//SOURCES Profile.java
//SOURCES Protocol.java
//SOURCES Results.java
package unpinned.core;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The harness every measuring snippet runs through, so the snippet itself holds only the code under study and its
 * measure method. A snippet declares its options once (name, quick and full default, limits, help); the harness
 * prints the profile, parses and validates every option before anything is measured, prints the time budget, calls
 * the measure method, prints the {@code @@result} line, saves atomically, and ends with exit code 0. Bad input is one
 * line on stderr and exit code 2; a failure while measuring is one line and exit code 1, and nothing is saved.
 *
 * <pre>{@code
 * public static void main(String[] args) {
 *     Experiment.named("S09", "order service three ways under rising load", "s09-order-sweep")
 *             .count("--pool", 200, 200, 1, 10_000, "platform threads of the pool version")
 *             .seconds("--duration-s", 2, 5, 1, 3_600, "seconds measured per level")
 *             .run(args, S09_OrderSweep::measure);
 * }
 * static Object measure(Experiment.Args a) { ... return result; }
 * }</pre>
 * Needs Cli.java, Profile.java, Protocol.java, Results.java (and what it needs) alongside.
 */
public final class Experiment {
    /** The measure method: reads its options from {@code a}, measures, returns what is saved (a record or map). */
    @FunctionalInterface
    public interface Body {
        Object measure(Args a) throws Exception;
    }

    private record Option(String name, String kind, Object quick, Object full, double min, double max,
                          List<String> allowed, String help) {
        boolean isFlag() {
            return kind.equals("flag");
        }
    }

    private final String name, title, resultsId;
    private final Map<String, Option> options = new LinkedHashMap<>();
    private final List<Consumer<Args>> checks = new ArrayList<>();
    private final List<Path> keptFiles = new ArrayList<>();
    private Duration quickBudget, fullBudget;
    private Duration limit;
    private java.util.function.Function<Args, Time> total;
    private String notes = "";

    private Experiment(String name, String title, String resultsId) {
        this.name = name;
        this.title = title;
        this.resultsId = resultsId;
    }

    /**
     * An experiment called {@code name} (the snippet's number, e.g. "S09", which starts its one-line errors),
     * described by {@code title}, saving under {@code results/<resultsId>/} (null: prints its result, saves nothing).
     */
    public static Experiment named(String name, String title, String resultsId) {
        return new Experiment(name, title, resultsId);
    }

    /** A whole number in [min, max]: {@code quick} in the quick profile, {@code full} in the full one. */
    public Experiment count(String option, long quick, long full, long min, long max, String help) {
        return add(new Option(option, "count", quick, full, min, max, List.of(), help));
    }

    /** A number in [min, max] (seconds, a rate...): {@code quick} or {@code full} by profile. */
    public Experiment number(String option, double quick, double full, double min, double max, String help) {
        return add(new Option(option, "number", quick, full, min, max, List.of(), help));
    }

    /** Comma-separated whole numbers, each in [min, max] (e.g. user levels): {@code quick} or {@code full}. */
    public Experiment counts(String option, List<Integer> quick, List<Integer> full, int min, int max, String help) {
        return add(new Option(option, "counts", quick, full, min, max, List.of(), help));
    }

    /** One of {@code allowed}; {@code fallback} when absent. */
    public Experiment oneOf(String option, String fallback, List<String> allowed, String help) {
        return add(new Option(option, "oneOf", fallback, fallback, 0, 0, List.copyOf(allowed), help));
    }

    /** Several of {@code allowed}, comma-separated, or "all" (the default): each once, in the order given. */
    public Experiment someOf(String option, List<String> allowed, String help) {
        return add(new Option(option, "someOf", "all", "all", 0, 0, List.copyOf(allowed), help));
    }

    /** Free text (a URL, a name) checked by the measure method or a {@link #check}; {@code fallback} when absent. */
    public Experiment text(String option, String fallback, String help) {
        return add(new Option(option, "text", fallback, fallback, 0, 0, List.of(), help));
    }

    /** A flag: present or not. */
    public Experiment flag(String option, String help) {
        return add(new Option(option, "flag", false, false, 0, 0, List.of(), help));
    }

    /** A check across options (or of a file the run will need), run before anything is measured. */
    public Experiment check(Consumer<Args> check) {
        checks.add(check);
        return this;
    }

    /**
     * About how long a run takes in each profile with the defaults; printed before a run that was given no option
     * (with options, only {@link #takes} can say how long it takes).
     */
    public Experiment budget(Duration quick, Duration full) {
        this.quickBudget = quick;
        this.fullBudget = full;
        return this;
    }

    /** A run's whole time, worked out from its options before anything runs, and the sum that gave it. */
    public record Time(double seconds, String sum) {
        public Time {
            if (!(seconds >= 0) || sum == null || sum.isBlank()) {
                throw new IllegalArgumentException("a run's time needs seconds >= 0 and its sum, got " + seconds);
            }
        }

        public static Time of(double seconds, String sum, Object... values) {
            return new Time(seconds, String.format(Locale.ROOT, sum, values));
        }
    }

    /** About how long starting one JVM through tools/jbang takes (a server's, a load generator's): in a run's time. */
    public static final double JVM_START_S = 2;

    /**
     * The whole run's time from its options: every warm-up, window, repeat, mode and level, and the JVMs it starts.
     * Worked out with the other checks, before anything runs: a run over {@code limit} is bad input (one line with
     * the sum, exit code 2); any other prints it as "about N s".
     */
    public Experiment takes(Duration limit, java.util.function.Function<Args, Time> total) {
        this.limit = limit;
        this.total = total;
        return this;
    }

    /** {@code time}, or bad input (its sum, in one line) when it is over {@code limit}. */
    public static Time requireWithin(Duration limit, Time time) {
        if (time.seconds() > limit.toSeconds()) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "%s = about %,.0f s; at most %s allowed:"
                    + " ask for fewer or shorter runs", time.sum(), time.seconds(), said(limit)));
        }
        return time;
    }

    /** A limit as a sentence says it: "1 h (3,600 s)", "30 minutes (1,800 s)". */
    static String said(Duration limit) {
        long s = limit.toSeconds();
        String whole = s % 3600 == 0 ? s / 3600 + " h" : s % 60 == 0 ? s / 60 + " minutes" : s + " s";
        return String.format(Locale.ROOT, "%s (%,d s)", whole, s);
    }

    /** Lines added under the options in {@link #usage()}. */
    public Experiment notes(String text) {
        this.notes = text.strip();
        return this;
    }

    private Experiment add(Option o) {
        if (!o.name().startsWith("--")) throw new IllegalArgumentException("an option starts with --, got " + o.name());
        if (options.putIfAbsent(o.name(), o) != null) throw new IllegalArgumentException(o.name() + " declared twice");
        return this;
    }

    /** The usage text, generated from the declarations: what {@code --help} prints. */
    public String usage() {
        StringBuilder s = new StringBuilder("usage: " + name + " (" + title + ")\n");
        for (Option o : options.values()) {
            String head = o.isFlag() ? o.name() : o.name() + " " + placeholder(o);
            if (head.length() > 24) s.append("  ").append(head).append('\n').append(" ".repeat(27));
            else s.append(String.format(Locale.ROOT, "  %-24s ", head));
            s.append(o.help()).append(defaults(o)).append('\n');
        }
        if (!notes.isEmpty()) s.append(notes.indent(2));
        if (limit != null) {
            s.append("  The whole run (every start, warm-up, window, repeat and mode) may take at most ")
                    .append(said(limit)).append(".\n");
        }
        return s.toString().stripTrailing();
    }

    private static String placeholder(Option o) {
        return switch (o.kind()) {
            case "count" -> "N";
            case "number" -> "X";
            case "counts" -> "N,N,...";
            case "oneOf" -> String.join("|", o.allowed());
            case "someOf" -> String.join("|", o.allowed()) + "|all";
            default -> "TEXT";
        };
    }

    private static String defaults(Option o) {
        return switch (o.kind()) {
            case "flag" -> "";
            case "count", "number" -> " (" + plain(o.min()) + ".." + plain(o.max()) + "; " + defaultText(o) + ")";
            case "counts" -> o.max() == Integer.MAX_VALUE ? " (" + defaultText(o) + ")" // limits checked elsewhere
                    : " (each " + plain(o.min()) + ".." + plain(o.max()) + "; " + defaultText(o) + ")";
            default -> o.quick() == null ? "" : " (default " + o.quick() + ")";
        };
    }

    private static String defaultText(Option o) {
        String q = show(o.quick()), f = show(o.full());
        return q.equals(f) ? "default " + q : "quick " + q + ", full " + f;
    }

    private static String show(Object v) {
        if (v instanceof List<?> l) return String.join(",", l.stream().map(String::valueOf).toList());
        if (v instanceof Double d) return plain(d);
        return String.valueOf(v);
    }

    private static String plain(double d) {
        return d == Math.rint(d) ? String.format(Locale.ROOT, "%d", (long) d) : Double.toString(d);
    }

    /**
     * Runs the experiment as a snippet's {@code main}: never returns normally on failure (exit 2 for bad input,
     * 1 for a failed measurement), and ends the JVM with 0 after a run that saved its result.
     */
    public void run(String[] args, Body body) {
        Profile profile = Profile.announceOrExit(name);
        Set<String> withValue = new LinkedHashSet<>(), flags = new LinkedHashSet<>();
        options.values().forEach(o -> (o.isFlag() ? flags : withValue).add(o.name()));
        Cli cli = Cli.orExit(name, usage(), args, withValue, flags);
        Args a = new Args(cli, profile);
        Time time = null;
        try {
            for (Option o : options.values()) a.get(o.name()); // every option checked before anything runs
            for (Consumer<Args> c : checks) c.accept(a);
            if (total != null) time = requireWithin(limit, total.apply(a));
            if (resultsId != null) Results.checkDir(resultsId);
        } catch (IllegalArgumentException | IllegalStateException | UncheckedIOException e) {
            Cli.exit(name, e.getMessage());
        }
        Duration budget = profile.pick(quickBudget, fullBudget);
        if (time != null) {
            System.out.printf(Locale.ROOT, "%s: %s; about %,.0f s: %s%n", name, title, time.seconds(), time.sum());
        } else if (budget != null && args.length == 0) {
            System.out.printf(Locale.ROOT, "%s: %s; about %d s in the %s profile with the defaults%n", name, title,
                    budget.toSeconds(), profile.id());
        }
        Object data;
        Busy.Window busy = Busy.start();
        try {
            data = body.measure(a);
        } catch (Results.SaveFailed | RunFailed e) {
            failed(e.getMessage());
            return;
        } catch (Exception e) {
            failed("failed: " + e);
            return;
        }
        Protocol.result(data);
        busy.end();
        if (resultsId != null) {
            try {
                System.out.println("saved " + Results.save(resultsId, data));
            } catch (Results.SaveFailed e) {
                failed(e.getMessage() + "; nothing saved"); // the save is atomic
            }
        }
        System.out.flush();
        System.exit(0);
    }

    /** Ends a failed run: its one line on stderr, the files it kept deleted, exit code 1. */
    private void failed(String line) {
        System.err.println(name + ": " + line);
        for (Path f : keptFiles) {
            try {
                Files.deleteIfExists(f);
            } catch (IOException e) {
                System.err.println(name + ": could not delete " + f + ": " + e.getMessage());
            }
        }
        System.exit(1);
    }

    /** A measurement that went wrong in a way one line explains: exit code 1, that line, nothing saved. */
    public static final class RunFailed extends RuntimeException {
        public RunFailed(String message) {
            super(message);
        }
    }

    /** The options as the run sees them: typed, validated, with the profile's defaults filled in. */
    public final class Args {
        private final Cli cli;
        private final Profile profile;

        private Args(Cli cli, Profile profile) {
            this.cli = cli;
            this.profile = profile;
        }

        public Profile profile() {
            return profile;
        }

        /**
         * Names a file the run keeps beside its result (a thread dump, a recording): the harness deletes it again
         * if the run fails or its result cannot be saved, so a failed run leaves nothing behind.
         */
        public Path kept(Path file) {
            keptFiles.add(file);
            return file;
        }

        public long count(String option) {
            Option o = declared(option, "count");
            return cli.longValue(option, profile.pick((Long) o.quick(), (Long) o.full()), (long) o.min(), (long) o.max());
        }

        public int intCount(String option) {
            return Math.toIntExact(count(option));
        }

        public double number(String option) {
            Option o = declared(option, "number");
            return cli.doubleValue(option, profile.pick((Double) o.quick(), (Double) o.full()), o.min(), o.max());
        }

        /** A number of seconds as a duration (an option declared with {@link #number}). */
        public Duration seconds(String option) {
            return Duration.ofMillis(Math.round(number(option) * 1000));
        }

        @SuppressWarnings("unchecked")
        public List<Integer> counts(String option) {
            Option o = declared(option, "counts");
            String given = cli.value(option, null);
            if (given == null) return (List<Integer>) profile.pick(o.quick(), o.full());
            List<Integer> out = new ArrayList<>();
            for (String part : given.split(",", -1)) {
                try {
                    int n = Integer.parseInt(part.strip().replace("_", ""));
                    if (n >= o.min() && n <= o.max()) {
                        out.add(n);
                        continue;
                    }
                } catch (NumberFormatException e) {
                    // reported below
                }
                throw new IllegalArgumentException(String.format(Locale.ROOT,
                        "%s must be comma-separated whole numbers %s..%s, e.g. %s; got '%s'", option,
                        plain(o.min()), plain(o.max()), show(o.quick()), given));
            }
            return List.copyOf(out);
        }

        public String oneOf(String option) {
            Option o = declared(option, "oneOf");
            return cli.oneOf(option, (String) o.quick(), o.allowed());
        }

        public List<String> someOf(String option) {
            return cli.someOf(option, declared(option, "someOf").allowed());
        }

        public String text(String option) {
            return cli.value(option, (String) declared(option, "text").quick());
        }

        public boolean flag(String option) {
            declared(option, "flag");
            return cli.has(option);
        }

        /** True when the learner gave {@code option} on the command line (not its default). */
        public boolean given(String option) {
            declared(option, null);
            return cli.value(option, null) != null;
        }

        private Object get(String option) {
            return switch (options.get(option).kind()) {
                case "count" -> count(option);
                case "number" -> number(option);
                case "counts" -> counts(option);
                case "oneOf" -> oneOf(option);
                case "someOf" -> someOf(option);
                case "text" -> text(option);
                default -> flag(option);
            };
        }

        private Option declared(String option, String kind) {
            Option o = options.get(option);
            if (o == null || (kind != null && !o.kind().equals(kind))) {
                throw new IllegalStateException(name + " reads " + option + " as " + kind + " but declares "
                        + (o == null ? "no such option" : "it as " + o.kind()));
            }
            return o;
        }
    }
}
