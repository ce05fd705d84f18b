//DEPS org.openjdk.jmh:jmh-core:1.37
package unpinned;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A snippet's default JMH command line merged with the one the user typed: the user's flags win,
 * flag by flag (and of a flag given twice, the last). {@code -i 1} replaces the default {@code -i 5} and keeps every other default;
 * parameters are merged per name, so {@code -p tasks=16} replaces the default {@code -p tasks=...}
 * but keeps a default {@code -p updates=...}. Flags that may repeat ({@code -prof}) and benchmark
 * name patterns are added to the defaults. Plain JMH syntax only: {@code -flag value}.
 *
 * <pre>{@code
 * JmhArgs.merge(List.of("-f", "1", "-i", "5"), "-i", "1")  ->  [-f, 1, -i, 1]
 * }</pre>
 */
public final class JmhArgs {
    private JmhArgs() {}

    /** JMH options that take no value (they list or print, then exit). */
    static final Set<String> NO_VALUE = Set.of("-h", "-l", "-lp", "-lrf", "-lprof");
    /** Options that may be given several times, each adding to the others. */
    static final Set<String> REPEATABLE = Set.of("-prof");

    /**
     * The quick-profile defaults of the snippets: 1 fork, 1 x 1 s warm-up, 2 x 1 s measurement, and fail on
     * error ({@code -foe true}: a benchmark that throws ends the run with a non-zero exit, never a partial report).
     */
    public static final List<String> QUICK =
            List.of("-f", "1", "-wi", "1", "-w", "1s", "-i", "2", "-r", "1s", "-foe", "true");
    /** The full-profile defaults (the sources' JMH settings): 1 fork, 3 x 1 s warm-up, 5 x 1 s measurement. */
    public static final List<String> FULL =
            List.of("-f", "1", "-wi", "3", "-w", "1s", "-i", "5", "-r", "1s", "-foe", "true");

    /**
     * {@link #QUICK} or {@link #FULL}; on JDK 24+ also {@code -jvmArgsAppend --sun-misc-unsafe-memory-access=allow},
     * which silences the four-line sun.misc.Unsafe warning JMH 1.37 triggers in every fork (the flag does not
     * exist before JDK 23, so it is only added where it is understood).
     */
    public static List<String> defaults(Profile profile) {
        return defaults(profile, Runtime.version().feature());
    }

    /** The JVM flag that silences JMH's sun.misc.Unsafe warning, or empty where the JDK does not know it. */
    public static List<String> quietUnsafe(int jdkFeature) {
        return jdkFeature >= 24 ? List.of("--sun-misc-unsafe-memory-access=allow") : List.of();
    }

    static List<String> defaults(Profile profile, int jdkFeature) {
        if (profile == null) throw new IllegalArgumentException("profile must be QUICK or FULL, got null");
        List<String> d = new ArrayList<>(profile.pick(QUICK, FULL));
        for (String flag : quietUnsafe(jdkFeature)) d.addAll(List.of("-jvmArgsAppend", flag));
        return List.copyOf(d);
    }

    /** The merged command line: defaults first (in their order, overridden values in place), then new user flags. */
    public static String[] merge(List<String> defaults, String... user) {
        if (defaults == null) throw new IllegalArgumentException("defaults must be a list of JMH arguments, got null");
        List<String> userArgs = user == null ? List.of() : Arrays.asList(user);
        Map<String, List<String>> merged = new LinkedHashMap<>();
        List<String> patterns = new ArrayList<>();
        parse(defaults, merged, patterns);
        parse(userArgs, merged, patterns);
        List<String> out = new ArrayList<>();
        merged.forEach((key, values) -> {
            String flag = key.startsWith("-p ") ? "-p" : key;
            if (NO_VALUE.contains(flag)) {
                out.add(flag);
            } else {
                for (String v : values) {
                    out.add(flag);
                    out.add(v);
                }
            }
        });
        out.addAll(patterns);
        return out.toArray(String[]::new);
    }

    /** Whether the user's arguments set JMH parameter {@code name} ({@code -p name=...}). */
    public static boolean setsParam(String name, String... user) {
        if (user == null) return false;
        for (int i = 0; i + 1 < user.length; i++) {
            if (user[i].equals("-p") && user[i + 1].startsWith(name + "=")) return true;
        }
        return false;
    }

    /** The {@code -p name=a,b,c} parameters of a (merged) command line: name -> its values, in order. */
    public static Map<String, List<String>> params(String... args) {
        Map<String, List<String>> out = new LinkedHashMap<>();
        for (int i = 0; args != null && i + 1 < args.length; i++) {
            if (!args[i].equals("-p")) continue;
            String value = args[++i];
            int eq = value.indexOf('=');
            if (eq <= 0) throw new IllegalArgumentException("JMH option -p needs name=value (e.g. -p tasks=500), got " + value);
            out.put(value.substring(0, eq), List.of(value.substring(eq + 1).split(",", -1)));
        }
        return out;
    }

    /** Every value of parameter {@code name}, if given, must be one of {@code allowed}. */
    public static void requireOneOf(Map<String, List<String>> params, String name, List<String> allowed) {
        for (String v : params.getOrDefault(name, List.of())) {
            if (!allowed.contains(v.trim())) {
                throw new IllegalArgumentException("-p " + name + " must be one of " + String.join(", ", allowed)
                        + "; got '" + v + "'");
            }
        }
    }

    /** Every value of parameter {@code name}, if given, must be a whole number in [min, max]. */
    public static void requireInts(Map<String, List<String>> params, String name, long min, long max) {
        for (String v : params.getOrDefault(name, List.of())) requireInt(name, v, min, max);
    }

    /** {@code value} as a whole number in [min, max], or an error naming parameter {@code name} and the range. */
    public static long requireInt(String name, String value, long min, long max) {
        try {
            long n = Long.parseLong(value.trim());
            if (n >= min && n <= max) return n;
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(String.format(java.util.Locale.ROOT,
                "-p %s must be a whole number from %,d to %,d; got '%s'", name, min, max, value));
    }

    /**
     * A JMH snippet's {@code main}: merges its defaults with the user's arguments, lets {@code validate}
     * check the parameters, and runs JMH. Bad input ends the JVM with one line on stderr
     * ({@code <snippet>: <what is allowed>}) and exit code 2, before any fork starts; a failed benchmark
     * ends it with JMH's exit code (non-zero, thanks to {@code -foe true}).
     */
    public static void runOrExit(String snippet, List<String> defaults, String[] args,
                                 java.util.function.Consumer<Map<String, List<String>>> validate) throws Exception {
        String[] merged;
        try {
            merged = merge(defaults, args);
            validate.accept(params(merged));
        } catch (IllegalArgumentException e) {
            System.err.println(snippet + ": " + e.getMessage());
            System.exit(2);
            return;
        }
        System.out.println("JMH arguments: " + String.join(" ", merged));
        org.openjdk.jmh.Main.main(merged);
    }

    private static void parse(List<String> args, Map<String, List<String>> merged, List<String> patterns) {
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a == null) throw new IllegalArgumentException("JMH arguments must not contain null");
            if (!a.startsWith("-") || a.length() == 1 || isNumber(a)) {
                patterns.add(a); // a benchmark name pattern
                continue;
            }
            if (NO_VALUE.contains(a)) {
                merged.put(a, List.of());
                continue;
            }
            if (i + 1 >= args.size()) {
                throw new IllegalArgumentException("JMH option " + a + " needs a value, e.g. " + a + " 1");
            }
            String value = args.get(++i);
            String key = a;
            if (a.equals("-p")) {
                int eq = value.indexOf('=');
                if (eq <= 0) {
                    throw new IllegalArgumentException("JMH option -p needs name=value (e.g. -p tasks=500), got " + value);
                }
                key = "-p " + value.substring(0, eq);
            }
            if (REPEATABLE.contains(a)) {
                merged.computeIfAbsent(key, k -> new ArrayList<>()).add(value);
            } else {
                merged.put(key, List.of(value)); // a later value replaces an earlier one, in the earlier one's place
            }
        }
    }

    private static boolean isNumber(String s) {
        return s.matches("-\\d+(\\.\\d+)?");
    }
}
