///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
// Netty loads native code; JDK 24+ warns unless native access is enabled (JDK 21 knows the flag too).
//RUNTIME_OPTIONS --enable-native-access=ALL-UNNAMED
//DEPS io.projectreactor.netty:reactor-netty-http:1.2.12
//DEPS org.slf4j:slf4j-nop:2.0.17
//SOURCES ../helpers/unpinned/core/Cli.java
//SOURCES ../helpers/unpinned/running/ServerControl.java
package unpinned.snippets;

/*
 * S07: the order service's two dependencies as a real HTTP server (a stub), for chapter 02.
 *
 *   GET /price?id=N   answers the price after --slow-ms (100 ms: a remote API)
 *   GET /stock?id=N   answers the stock after --fast-ms (10 ms: a database query); 404 for ids >= 1,000,000
 * The bound: each call answers after its delay, however many wait at once.
 * The pitfall it removes: dependencies faked in-process never open a socket nor parse a response.
 */

import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServerResponse;
import unpinned.core.Cli;
import unpinned.core.Profile;
import unpinned.running.ServerControl;
import java.net.URI;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.atomic.AtomicLong;

public class S07_DependencyStub {

    /**
     * Answers {@code body} after {@code delay}, without holding a thread while it waits (Reactor Netty,
     * Mono.delay): thousands of calls wait at once on a few event loops, so the stub is never the bottleneck.
     * With S06 --deps every order makes two real loopback calls, and the clients' CPU shows.
     */
    static Mono<Void> answerLater(HttpServerResponse response, Duration delay, String body) {
        CALLS.incrementAndGet();
        return response.header("Content-Type", "text/plain").sendString(Mono.delay(delay).map(tick -> body)).then();
    }

    static final long ITEMS = 1_000_000; // as in S06: ids beyond have no stock record
    static final AtomicLong CALLS = new AtomicLong();

    static final String USAGE = """
            usage: S07_DependencyStub [--slow-ms MS] [--fast-ms MS] [--port N] [--control]
              --slow-ms MS  delay of GET /price, 0..60000 (default 100)
              --fast-ms MS  delay of GET /stock, 0..60000 (default 10)
              --port N      0 (any free port, printed) or 1..65535 (default 0)
              --control     read commands on standard input (stats, stop); used by the course's ServerProcess""";

    static long id(String uri) {
        String query = URI.create(uri).getRawQuery();
        if (query == null || !query.startsWith("id=")) return -1;
        try {
            return Long.parseLong(query.substring(3));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    public static void main(String[] args) throws Exception {
        Profile.announceOrExit("S07");
        Cli cli = Cli.orExit("S07", USAGE, args, Set.of("--slow-ms", "--fast-ms", "--port"), Set.of("--control"));
        Duration slow, fast;
        int port;
        try {
            slow = Duration.ofMillis(cli.intValue("--slow-ms", 100, 0, 60_000));
            fast = Duration.ofMillis(cli.intValue("--fast-ms", 10, 0, 60_000));
            port = cli.intValue("--port", 0, 0, 65_535);
        } catch (IllegalArgumentException e) {
            Cli.exit("S07", e.getMessage());
            return;
        }
        DisposableServer server;
        try {
            server = reactor.netty.http.server.HttpServer.create().host("127.0.0.1").port(port)
                    .route(routes -> routes
                            .get("/price", (request, response) -> {
                                long id = id(request.uri());
                                if (id < 0) return response.status(400).sendString(Mono.just("id must be a number")).then();
                                return answerLater(response, slow, Double.toString(10 + id % 90));
                            })
                            .get("/stock", (request, response) -> {
                                long id = id(request.uri());
                                if (id < 0) return response.status(400).sendString(Mono.just("id must be a number")).then();
                                if (id >= ITEMS) return response.status(404).sendString(Mono.just("no stock record for item " + id)).then();
                                return answerLater(response, fast, Integer.toString((int) (id % 7)));
                            }))
                    .bindNow();
        } catch (reactor.netty.ChannelBindException e) {
            Cli.exit("S07", "port " + port + " is in use (or not allowed here): cannot listen on 127.0.0.1:" + port
                    + "; use 0 to let the system pick a free port, or another port 1024..65535");
            return;
        }
        URI uri = URI.create("http://127.0.0.1:" + server.port() + "/");
        System.out.println("dependency stub at " + uri + "price?id=1 (" + slow.toMillis() + " ms) and " + uri
                + "stock?id=1 (" + fast.toMillis() + " ms)" + (cli.has("--control") ? "" : "; Ctrl-C stops it"));
        Map<String, Object> describe = new LinkedHashMap<>();
        describe.put("slowMs", slow.toMillis());
        describe.put("fastMs", fast.toMillis());
        ServerControl.serve(uri, describe, cli.has("--control"), () -> Map.of("calls", CALLS.get()), server::disposeNow);
        System.exit(0); // Netty's event loops are not daemons
    }
}

/*
 * How to run:
 *   tools/jbang dependency-stub --port 8081                      (until Ctrl-C)
 *   curl 'http://127.0.0.1:8081/price?id=42'                       (after 100 ms: 52.0)
 *   tools/jbang order-service --impl virtual --port 8080 --deps http://127.0.0.1:8081
 *
 * What you should see: each call answers after its delay; an order takes ~110 ms plus two round trips.
 * Reference runs: data/reference-runs/snippets/S07-dependency-stub.md
 */
