///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
// Netty loads native code; JDK 24+ warns unless native access is enabled (JDK 21 knows the flag too).
//RUNTIME_OPTIONS --enable-native-access=ALL-UNNAMED
//DEPS io.projectreactor.netty:reactor-netty-http:1.2.12
//DEPS org.slf4j:slf4j-nop:2.0.17
//SOURCES ../helpers/unpinned/Profile.java
//SOURCES ../helpers/unpinned/Cli.java
//SOURCES ../helpers/unpinned/Json.java
//SOURCES ../helpers/unpinned/Protocol.java
//SOURCES ../helpers/unpinned/ProcessStats.java
//SOURCES ../helpers/unpinned/ServerControl.java
package unpinned.snippets;

/*
 * S06: one "order" service written three ways (the start of chapter 02).
 *
 * GET /order?id=N looks up a price from a slow dependency (100 ms, like a remote call) and then the
 * stock from a fast one (10 ms, like a database query), and answers a small JSON document. The
 * same business steps, three ways:
 *   --impl pool      blocking code, a fixed pool of --threads platform threads (200: Tomcat's default)
 *   --impl virtual   the same blocking code, a new virtual thread per request
 *   --impl reactive  non-blocking code on Reactor Netty: Mono.delay instead of sleep, a few event loops
 * The blocking versions run on the JDK's HttpServer; the reactive one on Reactor Netty's.
 *
 * The question: with U users in a closed loop, how many orders per second? Little's law bounds every
 * version by min(U, concurrency) / 0.110 s, where concurrency is --threads for the pool and unbounded
 * for the other two; the CPU the machine has bounds all three too.
 *
 * Notebooks start it with ServerProcess (port 0, --control); standalone it runs until Ctrl-C.
 */

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import unpinned.Cli;
import unpinned.Profile;
import unpinned.ServerControl;

import java.io.IOException;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

public class S06_OrderService {
    static final Duration SLOW = Duration.ofMillis(100);
    static final Duration FAST = Duration.ofMillis(10);
    static final AtomicLong HANDLED = new AtomicLong();

    static final String USAGE = """
            usage: S06_OrderService [--impl pool|virtual|reactive] [--threads N] [--port N] [--control]
              --impl I      pool (blocking, fixed pool), virtual (blocking, virtual thread per request) or
                            reactive (non-blocking, Reactor Netty); default virtual
              --threads N   pool size for --impl pool, 1..10000 (default 200, Tomcat's default)
              --port N      0 (any free port, printed) or 1..65535 (default 0)
              --control     read commands on standard input (stats, stop); used by the course's ServerProcess""";

    // ---------------------------------------------------------------- blocking: pool and virtual threads

    /** The order, blocking: each call waits, and the thread waits with it. */
    static String orderBlocking(long id) throws InterruptedException {
        double price = priceService(id);   // slow dependency: 100 ms
        int stock = stockService(id);      // fast dependency: 10 ms
        return order(id, price, stock);
    }

    static double priceService(long id) throws InterruptedException {
        Thread.sleep(SLOW);
        return 10 + id % 90;
    }

    static int stockService(long id) throws InterruptedException {
        Thread.sleep(FAST);
        return (int) (id % 7);
    }

    // ---------------------------------------------------------------- reactive: Reactor

    /** The order, non-blocking: each call returns at once; the next step runs when its value arrives. */
    static Mono<String> orderReactive(long id) {
        return priceServiceReactive(id)
                .flatMap(price -> stockServiceReactive(id)
                        .map(stock -> order(id, price, stock)));
    }

    static Mono<Double> priceServiceReactive(long id) {
        return Mono.delay(SLOW).map(tick -> 10.0 + id % 90);
    }

    static Mono<Integer> stockServiceReactive(long id) {
        return Mono.delay(FAST).map(tick -> (int) (id % 7));
    }

    static String order(long id, double price, int stock) {
        HANDLED.incrementAndGet();
        return "{\"id\":" + id + ",\"price\":" + price + ",\"stock\":" + stock + "}";
    }

    static long id(String query) {
        if (query != null) {
            for (String pair : query.split("&")) {
                if (pair.startsWith("id=")) {
                    try {
                        return Long.parseLong(pair.substring(3));
                    } catch (NumberFormatException e) {
                        return -1;
                    }
                }
            }
        }
        return 0;
    }

    // ---------------------------------------------------------------- the servers

    /** The JDK HttpServer on 127.0.0.1 running {@link #orderBlocking} on {@code executor}. */
    static HttpServer blockingServer(int port, ExecutorService executor) throws IOException {
        InetAddress loopback = InetAddress.getByAddress("localhost", new byte[] {127, 0, 0, 1});
        HttpServer server = HttpServer.create(new InetSocketAddress(loopback, port), 4096);
        server.createContext("/order", exchange -> {
            try (exchange) {
                long id = id(exchange.getRequestURI().getRawQuery());
                if (id < 0) {
                    send(exchange, 400, "{\"error\":\"id must be a number\"}");
                    return;
                }
                send(exchange, 200, orderBlocking(id));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // the server is stopping
            }
        });
        server.setExecutor(executor);
        server.start();
        return server;
    }

    static void send(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** Reactor Netty on 127.0.0.1 running {@link #orderReactive}. */
    static DisposableServer reactiveServer(int port) {
        return reactor.netty.http.server.HttpServer.create()
                .host("127.0.0.1")
                .port(port)
                .route(routes -> routes.get("/order", (request, response) -> {
                    long id = id(URI.create(request.uri()).getRawQuery());
                    if (id < 0) return response.status(400).sendString(Mono.just("{\"error\":\"id must be a number\"}"));
                    return response.header("Content-Type", "application/json").sendString(orderReactive(id));
                }))
                .bindNow();
    }

    public static void main(String[] args) throws Exception {
        Profile.announceOrExit("S06");
        Cli cli = Cli.orExit("S06", USAGE, args, Set.of("--impl", "--threads", "--port"), Set.of("--control"));
        String impl;
        int threads, port;
        try {
            impl = cli.oneOf("--impl", "virtual", List.of("pool", "virtual", "reactive"));
            threads = cli.intValue("--threads", 200, 1, 10_000);
            port = cli.intValue("--port", 0, 0, 65_535);
        } catch (IllegalArgumentException e) {
            Cli.exit("S06", e.getMessage());
            return;
        }
        // The JDK server closes keep-alive connections beyond 200 idle ones; hundreds of users need more.
        System.setProperty("sun.net.httpserver.maxIdleConnections", "100000");
        URI uri;
        Runnable stop;
        try {
            if (impl.equals("reactive")) {
                DisposableServer server = reactiveServer(port);
                uri = URI.create("http://127.0.0.1:" + server.port() + "/order");
                stop = server::disposeNow;
            } else {
                ExecutorService executor = impl.equals("pool")
                        ? Executors.newFixedThreadPool(threads, Thread.ofPlatform().name("order-pool-", 0).factory())
                        : Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("order-vt-", 0).factory());
                HttpServer server = blockingServer(port, executor);
                uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/order");
                stop = () -> {
                    server.stop(0);
                    executor.shutdownNow();
                    try {
                        executor.awaitTermination(5, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                };
            }
        } catch (BindException | reactor.netty.ChannelBindException e) {
            Cli.exit("S06", "cannot listen on 127.0.0.1:" + port + " (" + e.getMessage()
                    + "); use 0 (any free port) or a free port 1024..65535");
            return;
        }
        System.out.println("serving " + impl + " orders at " + uri + "?id=1" + (cli.has("--control") ? "" : "; Ctrl-C stops it"));
        Map<String, Object> describe = new LinkedHashMap<>();
        describe.put("impl", impl);
        describe.put("threads", impl.equals("pool") ? threads : 0);
        ServerControl.serve(uri, describe, cli.has("--control"), () -> Map.of("handled", HANDLED.get()), stop);
        System.exit(0); // Netty's event loops are not daemons
    }
}

/*
 * How to run:
 *   tools/jbang order-service --impl reactive --port 8080          (until Ctrl-C)
 *   curl 'http://127.0.0.1:8080/order?id=42'
 *   tools/jbang http-load --url 'http://127.0.0.1:8080/order?id=42' --connections 1000
 *
 * What you should see (2 cores, JDK 25): every version answers in ~110 ms when lightly loaded; under
 * load the pool of 200 stops at ~200 / 0.110 s = 1,800 orders/s, while virtual threads and Reactor keep
 * rising until the two cores are busy. Chapter 02 measures where each bends.
 */
