package unpinned.core;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Command-line options of the non-JMH snippets: {@code --name value}, {@code --name=value} and bare
 * flags. Every mistake is an {@link IllegalArgumentException} whose message names the option and
 * what is allowed; {@link #orExit} turns it into one line on stderr and exit code 2.
 *
 * <pre>{@code
 * Cli cli = Cli.orExit("S04", USAGE, args, Set.of("--mode", "--port"), Set.of("--control"));
 * int port = cli.intValue("--port", 0, 0, 65_535);
 * }</pre>
 */
public final class Cli {
    private final Map<String, String> values = new LinkedHashMap<>();

    private Cli() {}

    /** Parses {@code args}: {@code withValue} options take a value, {@code flags} don't; anything else is an error. */
    public static Cli parse(String[] args, Set<String> withValue, Set<String> flags) {
        Cli cli = new Cli();
        for (int i = 0; i < args.length; i++) {
            String a = args[i], value = null;
            int eq = a.indexOf('=');
            if (a.startsWith("--") && eq > 0) {
                value = a.substring(eq + 1);
                a = a.substring(0, eq);
            }
            if (flags.contains(a)) {
                if (value != null) throw new IllegalArgumentException(a + " takes no value");
                if (cli.values.containsKey(a)) throw new IllegalArgumentException(a + " is given twice; give it once");
                cli.values.put(a, "true");
            } else if (withValue.contains(a)) {
                if (value == null) {
                    if (i + 1 >= args.length) throw new IllegalArgumentException(a + " needs a value");
                    value = args[++i];
                }
                if (cli.values.containsKey(a)) { // the last one would win silently: which one was meant?
                    throw new IllegalArgumentException(a + " is given twice ('" + cli.values.get(a) + "', then '"
                            + value + "'); give it once (where it takes several values: comma-separated, in one)");
                }
                cli.values.put(a, value);
            } else {
                throw new IllegalArgumentException("unknown option '" + a + "'; allowed: "
                        + String.join(", ", new java.util.TreeSet<>(union(withValue, flags))));
            }
        }
        return cli;
    }

    /**
     * Like {@link #parse}, but {@code -h}/{@code --help} prints {@code usage} and ends the JVM with 0, and a
     * mistake prints {@code <name>: <message>} on stderr and ends it with 2.
     */
    public static Cli orExit(String name, String usage, String[] args, Set<String> withValue, Set<String> flags) {
        if (List.of(args).contains("-h") || List.of(args).contains("--help")) {
            System.out.println(usage);
            System.exit(0);
        }
        try {
            return parse(args, withValue, flags);
        } catch (IllegalArgumentException e) {
            return exit(name, e.getMessage());
        }
    }

    /** Prints {@code <name>: <message>} on stderr and ends the JVM with exit code 2 (bad input). */
    public static <T> T exit(String name, String message) {
        System.err.println(name + ": " + message);
        System.exit(2);
        throw new IllegalStateException("unreachable");
    }

    public boolean has(String flag) {
        return values.containsKey(flag);
    }

    public String value(String name, String fallback) {
        return values.getOrDefault(name, fallback);
    }

    /** A whole number in [min, max], or {@code fallback} when the option is absent. */
    public long longValue(String name, long fallback, long min, long max) {
        String v = values.get(name);
        if (v == null) return fallback;
        try {
            long n = Long.parseLong(v.trim().replace("_", ""));
            if (n >= min && n <= max) return n;
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(String.format(Locale.ROOT,
                "%s must be a whole number from %,d to %,d; got '%s'", name, min, max, v));
    }

    public int intValue(String name, int fallback, int min, int max) {
        return (int) longValue(name, fallback, min, max);
    }

    /** A number in [min, max], or {@code fallback} when the option is absent. */
    public double doubleValue(String name, double fallback, double min, double max) {
        String v = values.get(name);
        if (v == null) return fallback;
        try {
            double d = Double.parseDouble(v.trim());
            if (d >= min && d <= max) return d;
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(String.format(Locale.ROOT, "%s must be a number from %s to %s; got '%s'",
                name, plain(min), plain(max), v));
    }

    /** One of {@code allowed}, or {@code fallback} when the option is absent. */
    public String oneOf(String name, String fallback, List<String> allowed) {
        String v = values.getOrDefault(name, fallback);
        if (!allowed.contains(v)) {
            throw new IllegalArgumentException(name + " must be one of " + String.join(", ", allowed) + "; got '" + v + "'");
        }
        return v;
    }

    /**
     * Several of {@code allowed}, comma-separated ("all" for every one; {@code "all"} when the option is absent),
     * each once, in the order given.
     */
    public List<String> someOf(String name, List<String> allowed) {
        List<String> chosen = new java.util.ArrayList<>();
        for (String part : values.getOrDefault(name, "all").split(",", -1)) {
            String one = part.strip();
            if (one.equals("all")) chosen.addAll(allowed);
            else if (allowed.contains(one)) chosen.add(one);
            else throw new IllegalArgumentException(name + " must be one of " + String.join(", ", allowed)
                        + ", all (or several, comma-separated); got '" + one + "'");
        }
        return List.copyOf(new java.util.LinkedHashSet<>(chosen));
    }

    private static String plain(double d) {
        return d == Math.rint(d) ? String.format(Locale.ROOT, "%,.0f", d) : Double.toString(d);
    }

    private static Set<String> union(Set<String> a, Set<String> b) {
        Set<String> all = new java.util.HashSet<>(a);
        all.addAll(b);
        return all;
    }

    /**
     * Hosts of this machine written as literals: a name like 127.example.com, or 127.0.0.999 (no IP address: octets go
     * to 255), would go through DNS. Octets without leading zeros, which some resolvers read as octal.
     */
    private static final Pattern LOOPBACK_LITERAL =
            Pattern.compile("127(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]\\d|\\d)){3}|localhost|\\[::1]");

    /** True for a host that is this machine by its spelling alone: 127.x.y.z (each 0..255), localhost or [::1]. */
    public static boolean isLoopbackLiteral(String host) {
        return host != null && LOOPBACK_LITERAL.matcher(host).matches();
    }

    /**
     * {@code value} (given with {@code option}) as the base URI of an HTTP server on loopback, e.g. a dependency
     * stub; null when absent. {@code what} names that server in the message a wrong value gets.
     */
    public static URI loopbackBaseUrl(String option, String value, String what) {
        if (value == null) return null;
        URI uri;
        try {
            uri = URI.create(value.endsWith("/") ? value : value + "/");
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + " must be a URL like http://127.0.0.1:8081, got '" + value
                    + "'");
        }
        if (!"http".equals(uri.getScheme()) || uri.getPort() < 1 || !isLoopbackLiteral(uri.getHost())) {
            throw new IllegalArgumentException(option + " must be an http URL on loopback with a port, like "
                    + "http://127.0.0.1:8081 (" + what + "), got '" + value + "'");
        }
        return uri;
    }
}
