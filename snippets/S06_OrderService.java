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
 * S06: one "order" service written three ways (chapter 02): GET /order?id=N asks a slow dependency
 * (100 ms) for the price, then a fast one (10 ms) for the stock: blocking on a pool (--impl pool) or
 * on virtual threads (virtual), non-blocking on Reactor Netty (reactive), and the classic mistake:
 * a blocking call hidden in the chain (reactive-blocking). The bound (Little's law): min(users,
 * concurrency) / 0.110 s, and the CPU. The pitfall: in-process fakes hide I/O (--deps: S07 over HTTP).
 */

import com.sun.net.httpserver.HttpServer;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.resources.*;
import unpinned.core.*;
import unpinned.running.ServerControl;
import unpinned.workloads.*;
import java.io.IOException;
import java.net.*;
import java.net.http.*;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.AtomicLong;

public class S06_OrderService {

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


    // ---------------------------------------------------------------- settings and counters

    /**
     * Failures, for the stack-trace lesson: the stock service has no record for ids >= 1,000,000, so
     * /order?id=1000000 fails deep inside; the server answers 500 with the stack trace as text (a course
     * server on loopback, not something to ship). &checkpoint=true adds Reactor's checkpoint() to the
     * reactive chain; --reactor-debug turns on Hooks.onOperatorDebug() for all.
     */
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
 *   tools/jbang http-load --url 'http://127.0.0.1:8080/order?id=42' --connections 1000
 *   curl 'http://127.0.0.1:8080/order?id=1000000'                (a failure: the 500 body is its stack trace)
 *   tools/jbang dependency-stub --port 8081 & tools/jbang order-service --deps http://127.0.0.1:8081
 *
 * What you should see: ~110 ms per order when lightly loaded; under load each version bends at its own
 * bound. Reference runs: data/reference-runs/snippets/S06-order-service.md
 */
