//SOURCES ../core/Cli.java
//SOURCES ../core/Profile.java
package unpinned.running;

import unpinned.core.Cli;
import unpinned.core.Profile;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

/**
 * The command line of the course's Spring Boot snippets (chapter 06), without Spring: Spring's own properties
 * as {@code --name=value} (a name with a dot), beside the course's options ({@code --port N}, {@code --control}
 * and a snippet's own, read with {@link Cli}). It keeps a course server where the course's servers are: on
 * 127.0.0.1, Actuator on the same port, the port given once.
 *
 * <pre>{@code
 * SpringArgs a = SpringArgs.parse(args, 8080, Set.of("--stack"), Set.of());
 * SpringArgs.requireFreePort(a.port());
 * app.run(a.with("spring.threads.virtual.enabled", "true").spring().toArray(String[]::new));
 * }</pre>
 *
 * @param cli        the course's options (always {@code --port} and {@code --control}, plus the snippet's)
 * @param port       0 (any free port) or 1..65535, from {@code --port N} or {@code --server.port=N}
 * @param properties Spring's properties as given, in order (server.port and server.address included)
 * @param spring     what goes to SpringApplication.run: the properties, then server.address=127.0.0.1 and the
 *                   port last, so no environment variable can move the server off loopback or off its port
 */
public record SpringArgs(Cli cli, int port, Map<String, String> properties, List<String> spring) {
    public SpringArgs {
        properties = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(properties));
        spring = List.copyOf(spring);
    }

    /**
     * Splits {@code args}: {@code --name=value} with a dot in the name is Spring's, the rest the course's. The
     * course's options are {@code --port}, {@code --control}, {@code withValue} and {@code flags}; any mistake
     * is an {@link IllegalArgumentException} with a one-line message.
     */
    public static SpringArgs parse(String[] args, int defaultPort, Set<String> withValue, Set<String> flags) {
        List<String> ours = new ArrayList<>();
        Map<String, String> properties = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            int eq = a.indexOf('=');
            String name = a.startsWith("--") ? a.substring(2, eq < 0 ? a.length() : eq) : "";
            if (!name.contains(".")) {
                ours.add(a);
                continue;
            }
            if (eq < 0) {
                throw new IllegalArgumentException("Spring properties take their value after '=': --" + name + "="
                        + (i + 1 < args.length ? args[i + 1] : "VALUE"));
            }
            properties.put(name, a.substring(eq + 1));
        }
        Cli cli = Cli.parse(ours.toArray(String[]::new), union(withValue, "--port"), union(flags, "--control"));
        if (cli.has("--port") && properties.containsKey("server.port")) {
            throw new IllegalArgumentException("give the port once: --port N or --server.port=N");
        }
        String port = cli.has("--port") ? cli.value("--port", null)
                : properties.getOrDefault("server.port", "" + defaultPort);
        int p = whole("--server.port (or --port)", port, 0, 65_535);
        String address = properties.get("server.address");
        if (address != null && !List.of("127.0.0.1", "localhost").contains(address.trim())) {
            throw new IllegalArgumentException("this server binds 127.0.0.1 only; --server.address=" + address
                    + " is not allowed (leave it out)");
        }
        if (properties.keySet().stream().anyMatch(k -> k.startsWith("management.server."))) {
            throw new IllegalArgumentException("Actuator shares the server's port and address here;"
                    + " management.server.* can't be set");
        }
        List<String> spring = new ArrayList<>();
        properties.forEach((k, v) -> {
            if (!k.equals("server.port") && !k.equals("server.address")) spring.add("--" + k + "=" + v);
        });
        spring.add("--server.address=127.0.0.1");
        spring.add("--server.port=" + p);
        return new SpringArgs(cli, p, properties, spring);
    }

    /** Whether {@code --control} was given: commands on standard input (ServerProcess). */
    public boolean control() {
        return cli.has("--control");
    }

    /** The same, with {@code --name=value} added to what Spring gets (after what was given). */
    public SpringArgs with(String name, String value) {
        List<String> more = new ArrayList<>(spring);
        more.add("--" + name + "=" + value);
        return new SpringArgs(cli, port, properties, more);
    }

    /** Refuses a property the snippet sets itself (from an option of its own), naming what sets it. */
    public void refuse(String property, String instead) {
        if (properties.containsKey(property)) {
            throw new IllegalArgumentException("--" + property + " is set by " + instead
                    + " here; leave it out");
        }
    }

    /** A whole number in [min, max] (underscores allowed), or a one-line message naming {@code name}. */
    public static int whole(String name, String value, int min, int max) {
        try {
            int n = Integer.parseInt(value.trim().replace("_", ""));
            if (n >= min && n <= max) return n;
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(String.format(Locale.ROOT,
                "%s must be a whole number from %,d to %,d; got '%s'", name, min, max, value));
    }

    /**
     * Refuses a busy port in one line before Spring starts (Spring would print a page about it): an
     * {@link IllegalArgumentException} saying what to do. Port 0 is always free.
     */
    public static void requireFreePort(int port) {
        if (port == 0) return;
        try (ServerSocket probe = new ServerSocket()) {
            probe.setReuseAddress(true); // as Tomcat binds: a port in TIME_WAIT is free, a listening one is not
            InetAddress loopback = InetAddress.getByAddress("localhost", new byte[] {127, 0, 0, 1});
            probe.bind(new InetSocketAddress(loopback, port));
        } catch (BindException e) {
            String why = String.valueOf(e.getMessage());
            throw new IllegalArgumentException(why.contains("in use") ? "port " + port + " is in use; stop what"
                    + " listens there, or use --port 0 to let the system pick a free port" : "cannot listen on"
                    + " 127.0.0.1:" + port + " (" + why + "); use 0 (any free port) or 1024..65535");
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot listen on 127.0.0.1:" + port + ": " + e.getMessage());
        }
    }

    /** Whether Spring failed to start because its port was taken (its PortInUseException, found by name). */
    public static boolean portInUse(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t.getClass().getSimpleName().equals("PortInUseException")) return true;
            if (t.getCause() == t) break;
        }
        return false;
    }

    /** The innermost cause, as {@code SimpleName: message}: one line for a failed start. */
    public static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        return root.getClass().getSimpleName() + ": " + root.getMessage();
    }

    private static Set<String> union(Set<String> names, String name) {
        Set<String> all = new HashSet<>(names);
        all.add(name);
        return all;
    }
    /**
     * A Spring snippet's command line, or its one-line refusal (exit code 2): announces the profile, prints
     * {@code usage} for -h/--help (exit 0), parses, applies the snippet's own rules ({@code rules}: refusals and
     * properties it sets) and checks the port is free, all before Spring starts.
     */
    public static SpringArgs parseOrExit(String name, String usage, String[] args, int defaultPort,
                                         Set<String> withValue, Set<String> flags, UnaryOperator<SpringArgs> rules) {
        Profile.announceOrExit(name);
        if (List.of(args).contains("-h") || List.of(args).contains("--help")) {
            System.out.println(usage);
            System.exit(0);
        }
        try {
            SpringArgs a = rules.apply(parse(args, defaultPort, withValue, flags));
            requireFreePort(a.port());
            return a;
        } catch (IllegalArgumentException e) {
            return Cli.exit(name, e.getMessage());
        }
    }

    /**
     * Starts Spring ({@code start}: {@code SpringApplication.run(...)}) or ends the JVM with one line: the port taken
     * meanwhile (exit 2), a failed start (exit 1, Spring's report above it), or a return without {@code ready}
     * (ApplicationReadyEvent never came, exit 1).
     */
    public static <T> T startOrExit(String name, int port, Callable<T> start, BooleanSupplier ready) {
        T context;
        try {
            context = start.call();
        } catch (Exception e) {
            if (portInUse(e)) {
                Cli.exit(name, "port " + port + " is in use; use --port 0 to let the system pick a free port");
            }
            System.err.println(name + ": Spring Boot did not start (" + rootMessage(e) + "); its report is above");
            System.exit(1);
            return null;
        }
        if (!ready.getAsBoolean()) {
            System.err.println(name + ": Spring Boot returned without saying the application is ready");
            System.exit(1);
        }
        return context;
    }

    /** Seconds since this JVM started: what a Spring start took, JBang's launch aside. */
    public static double secondsSinceJvmStart() {
        return (System.currentTimeMillis() - ManagementFactory.getRuntimeMXBean().getStartTime()) / 1e3;
    }
}
