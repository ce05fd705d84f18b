///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
// A load window lasts seconds: C2 would still be compiling in it (40 % of the client's CPU in an
// 8 s window after 3 s of warm-up), and the loop allocates almost nothing per request: C1 and serial GC.
//JAVA_OPTIONS -XX:TieredStopAtLevel=1 -XX:+UseSerialGC
//SOURCES ../helpers/unpinned/core/Cli.java
//SOURCES ../helpers/unpinned/running/HttpLoad.java
//SOURCES ../helpers/unpinned/core/Protocol.java
package unpinned.snippets;

/*
 * S05: the course's HTTP load generator, in a JVM of its own (like wrk).
 *
 * The question behind every load test in the course: how many requests per second does a server
 * answer, and how long does each take, when C clients keep it busy?
 * The bound (closed loop, Little's law): throughput <= min(connections, server concurrency) / service time.
 * The pitfall: a load generator that burns CPU, or counts from a simultaneous start, measures itself.
 */

import unpinned.core.Cli;
import unpinned.running.HttpLoad;
import unpinned.core.Profile;
import unpinned.core.Protocol;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

public class S05_HttpLoad {

    /**
     * Loads the target level by level: non-blocking sockets on a few event-loop threads (a few µs of CPU per
     * request), a warm-up, then only what completes in the measured window counts; its own CPU time per request
     * is printed. Closed loop (default): each connection sends its next request when the last answer arrives.
     * Open loop (--rate R): R requests/s in total; latency counts from when each was due (wrk2's correction).
     */
    public static void main(String[] args) throws Exception {
        Profile.announceOrExit("S05");
        Cli cli = Cli.orExit("S05", USAGE, args, Set.of("--url", "--connections", "--threads", "--warmup-s",
                "--level-warmup-s", "--duration-s", "--rate", "--timeout-s"), Set.of());
        List<HttpLoad.Options> levels = new ArrayList<>();
        try {
            String url = cli.value("--url", null);
            if (url == null) throw new IllegalArgumentException("--url is required, e.g. --url http://127.0.0.1:8080/sleep");
            List<Integer> connections = connections(cli.value("--connections", "100"));
            int fewest = connections.stream().mapToInt(Integer::intValue).min().orElseThrow();
            int threads = cli.intValue("--threads", 0, 0, fewest);
            Duration warmUp = Duration.ofMillis((long) (cli.doubleValue("--warmup-s", 2, 0, 600) * 1000));
            Duration levelWarmUp = Duration.ofMillis((long) (cli.doubleValue("--level-warmup-s", warmUp.toMillis() / 1e3, 0, 600) * 1000));
            Duration duration = Duration.ofMillis((long) (cli.doubleValue("--duration-s", 5, 1, 3600) * 1000));
            double rate = cli.doubleValue("--rate", 0, 0, HttpLoad.MAX_RATE);
            Duration timeout = Duration.ofMillis((long) (cli.doubleValue("--timeout-s", 30, 1, 600) * 1000));
            for (int c : connections) {
                levels.add(new HttpLoad.Options(URI.create(url), c, threads, levels.isEmpty() ? warmUp : levelWarmUp,
                        duration, rate, timeout));
            }
            HttpLoad.requireRunLength(levels.size(), warmUp, levelWarmUp, duration);
            int most = connections.stream().mapToInt(Integer::intValue).max().orElseThrow();
            HttpLoad.requireOpenFiles(most + HttpLoad.SPARE_FILES, most + " connections");
        } catch (IllegalArgumentException | IllegalStateException e) {
            Cli.exit("S05", e.getMessage());
            return;
        }
        List<HttpLoad.Result> results = new ArrayList<>();
        for (HttpLoad.Options o : levels) {
            System.out.printf(Locale.ROOT, "%s loop, %d connections on %d threads%s, warm-up %.1f s, measured %.1f s: %s%n",
                    o.closed() ? "closed" : "open", o.connections(), o.threads(),
                    o.closed() ? "" : String.format(Locale.ROOT, " at %,.0f req/s", o.rate()),
                    o.warmUp().toMillis() / 1e3, o.duration().toMillis() / 1e3, o.target());
            HttpLoad.Result r = HttpLoad.run(o, new HttpLoad.Listener() {
                @Override
                public void progress(String line) {
                    Protocol.progress((levels.size() > 1 ? o.connections() + " connections · " : "") + line);
                }

                @Override
                public void sample(double requestsPerSecond, double p99Ms) {
                    // a parent's live chart (a terminal gets none)
                    Protocol.sample(Protocol.Sample.of("req/s", requestsPerSecond, "p99_ms", p99Ms));
                }

                @Override
                public void windowStarted() {
                    Protocol.windowStart(); // a parent may sample the server now
                }

                @Override
                public void windowEnded() {
                    Protocol.windowEnd();
                }
            });
            print(r);
            if (r.requests() == 0) {
                System.err.println("S05: no request succeeded in the measured window (" + r.errors()
                        + " errors) at " + o.connections() + " connections; nothing to report. Is the server running at "
                        + o.target() + "?");
                System.exit(1);
            }
            results.add(r);
        }
        // one level: its result; several: {"levels": [...]} in the order measured
        if (results.size() == 1) Protocol.result(results.get(0));
        else Protocol.result(Map.of("levels", results));
    }

    /** The --connections value: one count, or a comma-separated list of counts, each 1..MAX_CONNECTIONS. */
    static List<Integer> connections(String value) {
        List<Integer> counts = new ArrayList<>();
        for (String part : value.split(",", -1)) {
            int c;
            try {
                c = Integer.parseInt(part.strip());
            } catch (NumberFormatException e) {
                c = -1;
            }
            if (c < 1 || c > HttpLoad.MAX_CONNECTIONS) {
                throw new IllegalArgumentException("--connections must be a whole number 1.." + HttpLoad.MAX_CONNECTIONS
                        + " or a comma-separated list of them (e.g. 100,500), got '" + value + "'");
            }
            counts.add(c);
        }
        return counts;
    }

    static void print(HttpLoad.Result r) {
        System.out.printf(Locale.ROOT, "%n  %,d requests in %.1f s = %,.1f req/s, %,d errors%n",
                r.requests(), r.seconds(), r.throughput(), r.errors());
        System.out.printf(Locale.ROOT, "  latency ms: mean %.2f, std dev %.2f, min %.2f, p50 %.2f, p90 %.2f, p99 %.2f,"
                + " p99.9 %.2f, max %.2f%n", r.meanMs(), r.stdDevMs(), r.minMs(), r.p50Ms(), r.p90Ms(), r.p99Ms(),
                r.p999Ms(), r.maxMs());
        System.out.printf(Locale.ROOT, "  client CPU: %.1f µs per request (this JVM, measured window)%n",
                r.clientCpuUsPerRequest());
        int shown = 0;
        for (Map.Entry<String, Long> e : r.errorKinds().entrySet()) {
            if (shown++ == 5) {
                System.out.println("  ... and " + (r.errorKinds().size() - 5) + " more kinds of error");
                break;
            }
            System.out.printf(Locale.ROOT, "  error x %,d: %s%n", e.getValue(), e.getKey());
        }
    }

    static final String USAGE = """
            usage: S05_HttpLoad --url http://127.0.0.1:PORT/path [--connections N[,N...]] [--threads N]
                                [--warmup-s S] [--level-warmup-s S] [--duration-s S] [--rate R] [--timeout-s S]
              --url U          the target, on loopback only (127.0.0.0/8, ::1, localhost)
              --connections N  keep-alive connections (closed loop: users), 1..50000 (default 100); a
                               comma-separated list (100,500,1000) measures each level in turn, in this JVM
              --level-warmup-s S  warm-up before each level after the first, 0..600 (default: --warmup-s)
              --threads N      event-loop threads, 1..connections; 0 = one per core (default 0)
              --warmup-s S     seconds before the measured window, 0..600 (default 2)
              --duration-s S   seconds measured, 1..3600 (default 5)
              --rate R         0 = closed loop (default); R > 0 = open loop at R requests/s in total
              --timeout-s S    longest wait for one answer, 1..600 (default 30)
            All levels together, warm-ups included, may take at most 1 h.""";
}

/*
 * How to run (start a server first, e.g. `tools/jbang sleep-server --mode virtual --port 8080`):
 *   tools/jbang http-load --url http://127.0.0.1:8080/sleep --connections 500
 *   tools/jbang http-load --url http://127.0.0.1:8080/sleep --connections 500 --rate 2000   (open loop)
 *   wrk -t2 -c500 -d10s http://127.0.0.1:8080/sleep                                         (to compare)
 *
 * What you should see: throughput near the server's bound, 0 errors, a few µs of client CPU per request.
 * Reference runs: data/reference-runs/snippets/S05-http-load.md
 */
