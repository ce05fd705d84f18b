///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/core/Cli.java
//SOURCES ../helpers/unpinned/running/ServerControl.java
//SOURCES ../helpers/unpinned/workloads/SleepServer.java
package unpinned.snippets;

/*
 * S04: the sleeping endpoint as a server of its own, for load tests from any tool.
 *
 * GET /sleep blocks --sleep-ms (a slow query's stand-in), then answers "ok", on a fixed pool of
 * --threads platform threads (--mode pool) or a new virtual thread per request (--mode virtual).
 * The bound (Little's law): throughput <= threads / sleep with a pool; clients / sleep with virtual.
 * The pitfall: a pool caps concurrency, however many clients wait.
 */

import unpinned.core.Cli;
import unpinned.core.Profile;
import unpinned.running.ServerControl;
import unpinned.workloads.SleepServer;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

public class S04_SleepServer {

    /**
     * Starts SleepServer (the JDK's HttpServer on 127.0.0.1 only) and serves until Ctrl-C.
     * Notebooks start it with ServerProcess: port 0, --control (commands on standard input,
     * "stats" for the process's own CPU, memory and threads).
     */
    public static void main(String[] args) throws Exception {
        Profile.announceOrExit("S04");
        Cli cli = Cli.orExit("S04", USAGE, args, Set.of("--mode", "--threads", "--sleep-ms", "--port"), Set.of("--control"));
        SleepServer server;
        try {
            String mode = cli.oneOf("--mode", "virtual", List.of("pool", "virtual"));
            int threads = cli.intValue("--threads", 50, 1, SleepServer.MAX_POOL_THREADS);
            int sleepMs = cli.intValue("--sleep-ms", 100, 0, 60_000);
            int port = cli.intValue("--port", 0, 0, 65_535);
            server = SleepServer.start(mode, threads, Duration.ofMillis(sleepMs), port);
        } catch (IllegalArgumentException e) {
            Cli.exit("S04", e.getMessage());
            return;
        }
        System.out.println("serving " + server + (cli.has("--control") ? "" : "; Ctrl-C stops it"));
        Map<String, Object> describe = new LinkedHashMap<>();
        describe.put("mode", server.mode());
        describe.put("threads", server.threads());
        describe.put("sleepMs", server.sleep().toMillis());
        ServerControl.serve(server.uri(), describe, cli.has("--control"), () -> {
            Map<String, Object> own = new LinkedHashMap<>();
            own.put("handled", server.handled());
            own.put("inFlight", server.inFlight());
            own.put("peakConcurrency", server.peakConcurrency());
            return own;
        }, server::close);
    }

    static final String USAGE = """
            usage: S04_SleepServer [--mode pool|virtual] [--threads N] [--sleep-ms N] [--port N] [--control]
              --mode M       pool (fixed pool of platform threads) or virtual (a virtual thread per request); default virtual
              --threads N    pool size for --mode pool, 1..10000 (default 50)
              --sleep-ms N   how long each request sleeps, 0..60000 ms (default 100)
              --port N       0 (any free port, printed) or 1..65535 (default 0)
              --control      read commands on standard input (stats, stop); used by the course's ServerProcess""";
}

/*
 * How to run:
 *   tools/jbang sleep-server --mode virtual --port 8080            (until Ctrl-C; or --mode pool --threads 50)
 * then, from another terminal, any load tool on loopback:
 *   wrk -t2 -c500 -d15s http://127.0.0.1:8080/sleep
 *   tools/jbang http-load --url http://127.0.0.1:8080/sleep --connections 500
 *
 * What you should see: each mode near its Little's-law bound; the pool's requests wait for a thread.
 * Reference runs: data/reference-runs/snippets/S04-sleep-server.md
 */
