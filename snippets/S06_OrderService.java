///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
// Netty loads native code; JDK 24+ warns unless native access is enabled (JDK 21 knows the flag too).
//RUNTIME_OPTIONS --enable-native-access=ALL-UNNAMED
//DEPS io.projectreactor.netty:reactor-netty-http:1.2.12
//DEPS org.slf4j:slf4j-nop:2.0.17
//SOURCES ../helpers/unpinned/core/Cli.java
//SOURCES ../helpers/unpinned/workloads/OrderRules.java
//SOURCES ../helpers/unpinned/workloads/OrderServer.java
//SOURCES ../helpers/unpinned/running/ServerControl.java
package unpinned.snippets;

/*
 * S06: one "order" service written three ways (chapter 02).
 *
 * GET /order?id=N looks up a price from a slow dependency (100 ms, like a remote call) and then the
 * stock from a fast one (10 ms, like a database query), and answers a small JSON document. The
 * same business steps, three ways:
 *   --impl pool      blocking code, a fixed pool of --threads platform threads (200: Tomcat's default)
 *   --impl virtual   the same blocking code, a new virtual thread per request
 *   --impl reactive  non-blocking code on Reactor Netty: Mono.delay instead of sleep, a few event loops
 * and a fourth, the classic mistake:
 *   --impl reactive-blocking  Reactor Netty, but the price comes from the blocking priceService
 *                             wrapped in Mono.fromCallable: it runs on, and blocks, an event loop
 * The blocking versions run on the JDK's HttpServer; the reactive ones on Reactor Netty's.
 *
 * The pitfall: "the dependencies are fast in-process fakes" can hide what real I/O costs. With
 * --deps http://127.0.0.1:PORT the two dependencies are real HTTP calls to a dependency-stub
 * (snippet S07): the JDK HttpClient for the blocking code, Reactor Netty's client for the reactive.
 *
 * Failures, for the stack-trace lesson: the stock service has no record for ids >= 1,000,000, so
 * /order?id=1000000 fails deep inside; the server answers 500 with the exception's stack trace as
 * text (a course server on loopback, not something to ship). &checkpoint=true adds Reactor's
 * checkpoint() to the reactive chain; --reactor-debug turns on Hooks.onOperatorDebug() for all.
 *
 * The question: with U users in a closed loop, how many orders per second? Little's law bounds every
 * version by min(U, concurrency) / 0.110 s, where concurrency is --threads for the pool and unbounded
 * for the other two; the CPU the machine has bounds all three too.
 *
 * Notebooks start it with ServerProcess (port 0, --control); standalone it runs until Ctrl-C.
 */

import com.sun.net.httpserver.HttpServer;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.resources.ConnectionProvider;
import reactor.netty.resources.LoopResources;
import unpinned.core.Cli;
import unpinned.workloads.OrderRules;
import unpinned.workloads.OrderServer;
import unpinned.core.Profile;
import unpinned.running.ServerControl;

import java.io.IOException;
import java.net.BindException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

public class S06_OrderService {
    static final Duration SLOW = Duration.ofMillis(100);
    static final Duration FAST = Duration.ofMillis(10);
    static final Duration DEPENDENCY_TIMEOUT = Duration.ofSeconds(30);
    static final AtomicLong HANDLED = new AtomicLong();
    static final AtomicLong FAILED = new AtomicLong();
    /** Where the real dependencies live (--deps), or null: simulated in-process. */
    static URI deps;
    static HttpClient blockingClient;
    static reactor.netty.http.client.HttpClient reactiveClient;

    static final String USAGE = """
            usage: S06_OrderService [--impl pool|virtual|reactive|reactive-blocking] [--threads N] [--port N]
                                    [--deps http://127.0.0.1:PORT] [--reactor-debug] [--control]
              --impl I         pool (blocking, fixed pool), virtual (blocking, virtual thread per request),
                               reactive (non-blocking, Reactor Netty) or reactive-blocking (Reactor Netty
                               with a blocking call hidden in the chain); default virtual
              --threads N      pool size for --impl pool, 1..10000 (default 200, Tomcat's default)
              --port N         0 (any free port, printed) or 1..65535 (default 0)
              --deps URL       call the dependencies over HTTP at URL (a dependency-stub on loopback)
                               instead of simulating them in-process
              --reactor-debug  Hooks.onOperatorDebug(): every reactive step records where it was assembled
              --control        read commands on standard input (stats, stop); used by the course's ServerProcess""";

    // ---------------------------------------------------------------- blocking: pool and virtual threads

    /** The order, blocking: each call waits, and the thread waits with it. */
    static String orderBlocking(long id) throws IOException, InterruptedException {
        double price = priceService(id);   // slow dependency: 100 ms
        int stock = stockService(id);      // fast dependency: 10 ms
        return order(id, price, stock);
    }

    static double priceService(long id) throws IOException, InterruptedException {
        if (deps != null) return Double.parseDouble(call("/price?id=" + id));
        Thread.sleep(SLOW);                // simulated: the remote call's 100 ms
        return OrderRules.price(id);
    }

    static int stockService(long id) throws IOException, InterruptedException {
        if (deps != null) return Integer.parseInt(call("/stock?id=" + id));
        Thread.sleep(FAST);                // simulated: the query's 10 ms
        return OrderRules.stock(id);
    }

    /** One blocking HTTP call to a dependency: the calling thread waits for the answer. */
    static String call(String pathAndQuery) throws IOException, InterruptedException {
        HttpRequest request = HttpRequest.newBuilder(deps.resolve(pathAndQuery)).timeout(DEPENDENCY_TIMEOUT).build();
        HttpResponse<String> response = blockingClient.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) throw new IOException(pathAndQuery + " answered " + response.statusCode() + ": " + response.body());
        return response.body();
    }

    // ---------------------------------------------------------------- reactive: Reactor

    /** The order, non-blocking: each call returns at once; the next step runs when its value arrives. */
    static Mono<String> orderReactive(long id) {
        return priceServiceReactive(id)
                .flatMap(price -> stockServiceReactive(id)
                        .map(stock -> order(id, price, stock)));
    }

    static Mono<Double> priceServiceReactive(long id) {
        if (deps != null) return callReactive("/price?id=" + id).map(Double::parseDouble);
        return Mono.delay(SLOW).map(tick -> OrderRules.price(id));
    }

    static Mono<Integer> stockServiceReactive(long id) {
        if (deps != null) return callReactive("/stock?id=" + id).map(Integer::parseInt);
        return Mono.delay(FAST).map(tick -> OrderRules.stock(id));
    }

    /** One non-blocking HTTP call: returns at once; the body arrives later, on an event loop. */
    static Mono<String> callReactive(String pathAndQuery) {
        return reactiveClient.get().uri(pathAndQuery)
                .responseSingle((response, body) -> response.status().code() == 200
                        ? body.asString()
                        : body.asString().defaultIfEmpty("").flatMap(text -> Mono.error(new IOException(
                                pathAndQuery + " answered " + response.status().code() + ": " + text))))
                .timeout(DEPENDENCY_TIMEOUT);
    }

    /** Reactive on the outside, blocking inside: fromCallable runs priceService on the subscribing thread, an event loop. */
    static Mono<String> orderReactiveHiddenBlocking(long id) {
        return Mono.fromCallable(() -> priceService(id))   // blocks for 100 ms, on the event loop
                .flatMap(price -> stockServiceReactive(id)
                        .map(stock -> order(id, price, stock)));
    }

    static String order(long id, double price, int stock) {
        HANDLED.incrementAndGet();
        return OrderRules.orderJson(id, price, stock);
    }

    /** The stack trace as the JVM prints it, counted as a failure: the lesson's evidence. */
    static String trace(Throwable e) {
        FAILED.incrementAndGet();
        return OrderServer.trace(e);
    }

    // ---------------------------------------------------------------- the servers

    /** The JDK HttpServer on 127.0.0.1 running {@link #orderBlocking} on {@code executor}. */
    static HttpServer blockingServer(int port, ExecutorService executor) throws IOException {
        return OrderServer.jdk(port, "/order", executor, exchange -> {
            try (exchange) {
                long id = OrderRules.id(OrderServer.parameter(exchange.getRequestURI().getRawQuery(), "id"));
                if (id < 0) {
                    OrderServer.send(exchange, 400, "application/json", OrderRules.BAD_ID);
                    return;
                }
                String order;
                try {
                    order = orderBlocking(id);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt(); // the server is stopping
                    return;
                } catch (Exception e) {
                    OrderServer.send(exchange, 500, "text/plain", trace(e));
                    return;
                }
                OrderServer.send(exchange, 200, "application/json", order);
            }
        });
    }

    /** Reactor Netty on 127.0.0.1 running {@link #orderReactive} (or the hidden-blocking variant). */
    static DisposableServer reactiveServer(int port, boolean hiddenBlocking) {
        return reactor.netty.http.server.HttpServer.create()
                .host("127.0.0.1")
                .port(port)
                .route(routes -> routes.get("/order", (request, response) -> {
                    String query = URI.create(request.uri()).getRawQuery();
                    long id = OrderRules.id(OrderServer.parameter(query, "id"));
                    if (id < 0) return response.status(400).sendString(Mono.just(OrderRules.BAD_ID));
                    Mono<String> order = hiddenBlocking ? orderReactiveHiddenBlocking(id) : orderReactive(id);
                    if ("true".equals(OrderServer.parameter(query, "checkpoint"))) order = order.checkpoint("GET /order?id=" + id);
                    return response.header("Content-Type", "application/json")
                            .sendString(order.onErrorResume(e -> {
                                response.status(500).header("Content-Type", "text/plain");
                                return Mono.just(trace(e));
                            }));
                }))
                .bindNow();
    }

    public static void main(String[] args) throws Exception {
        Profile.announceOrExit("S06");
        Cli cli = Cli.orExit("S06", USAGE, args, Set.of("--impl", "--threads", "--port", "--deps"),
                Set.of("--control", "--reactor-debug"));
        String impl;
        int threads, port;
        try {
            impl = cli.oneOf("--impl", "virtual", List.of("pool", "virtual", "reactive", "reactive-blocking"));
            threads = cli.intValue("--threads", 200, 1, 10_000);
            port = cli.intValue("--port", 0, 0, 65_535);
            deps = Cli.loopbackBaseUrl("--deps", cli.value("--deps", null), "a dependency-stub");
        } catch (IllegalArgumentException e) {
            Cli.exit("S06", e.getMessage());
            return;
        }
        if (cli.has("--reactor-debug")) Hooks.onOperatorDebug();
        boolean reactive = impl.startsWith("reactive");
        if (deps != null) {
            if (reactive) {
                // Reactor Netty's default pool holds 2 x max(cores, 8) connections per host: with hundreds of
                // orders in flight it would become the limit. Size it like the JDK client: unbounded.
                reactiveClient = reactor.netty.http.client.HttpClient
                        .create(ConnectionProvider.builder("dependencies").maxConnections(100_000)
                                .pendingAcquireMaxCount(-1).build())
                        .baseUrl(deps.toString());
            }
            // the blocking code's client (reactive-blocking's hidden call uses it too)
            blockingClient = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        }
        // The JDK server closes keep-alive connections beyond 200 idle ones; hundreds of users need more.
        System.setProperty("sun.net.httpserver.maxIdleConnections", "100000");
        URI uri;
        Runnable stop;
        try {
            if (reactive) {
                DisposableServer server = reactiveServer(port, impl.equals("reactive-blocking"));
                uri = URI.create("http://127.0.0.1:" + server.port() + "/order");
                stop = server::disposeNow;
            } else {
                ExecutorService executor = impl.equals("pool")
                        ? Executors.newFixedThreadPool(threads, Thread.ofPlatform().name("order-pool-", 0).factory())
                        : Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("order-vt-", 0).factory());
                HttpServer server = blockingServer(port, executor);
                uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/order");
                stop = OrderServer.stopper(server, executor);
            }
        } catch (BindException | reactor.netty.ChannelBindException e) {
            Cli.exit("S06", OrderServer.portTaken(port));
            return;
        }
        System.out.println("serving " + impl + " orders at " + uri + "?id=1"
                + (deps == null ? " (dependencies simulated)" : " (dependencies at " + deps + ")")
                + (cli.has("--control") ? "" : "; Ctrl-C stops it"));
        Map<String, Object> describe = new LinkedHashMap<>();
        describe.put("impl", impl);
        describe.put("threads", impl.equals("pool") ? threads : 0);
        describe.put("eventLoops", reactive ? LoopResources.DEFAULT_IO_WORKER_COUNT : 0);
        describe.put("deps", deps == null ? "simulated" : deps.toString());
        describe.put("reactorDebug", cli.has("--reactor-debug"));
        ServerControl.serve(uri, describe, cli.has("--control"),
                () -> Map.of("handled", HANDLED.get(), "failed", FAILED.get()), stop);
        System.exit(0); // Netty's event loops are not daemons
    }
}

/*
 * How to run:
 *   tools/jbang order-service --impl reactive --port 8080          (until Ctrl-C)
 *   curl 'http://127.0.0.1:8080/order?id=42'
 *   tools/jbang http-load --url 'http://127.0.0.1:8080/order?id=42' --connections 1000
 *   curl 'http://127.0.0.1:8080/order?id=1000000'                (a failure: the 500 body is its stack trace)
 *   wrk -t2 -c1000 -d10s 'http://127.0.0.1:8080/order?id=42'
 *   tools/jbang dependency-stub --port 8081 & tools/jbang order-service --deps http://127.0.0.1:8081
 *
 * What you should see (2 cores, JDK 25): every version answers in ~110 ms when lightly loaded; under
 * load the pool of 200 stops at ~200 / 0.110 s = 1,800 orders/s, while virtual threads and Reactor keep
 * rising until the two cores are busy; reactive-blocking stops near (event loops) / 0.100 s, about 40
 * orders/s on a small machine. Chapter 02 measures where each bends.
 */
