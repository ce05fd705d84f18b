///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21 -parameters
// A heap cap as S20 (512 MB); //CDS: later starts take ~2 s, not ~4; Netty loads native code (JDK 24+ warns).
//RUNTIME_OPTIONS -Xmx512m -Xlog:cds*=off --enable-native-access=ALL-UNNAMED
//CDS
//DEPS org.springframework.boot:spring-boot-dependencies:4.1.1@pom
//DEPS org.springframework.boot:spring-boot-starter-webmvc:4.1.1
//DEPS org.springframework.boot:spring-boot-starter-webflux:4.1.1
//SOURCES ../helpers/unpinned/workloads/OrderRules.java
//SOURCES ../helpers/unpinned/workloads/OrderServer.java
//SOURCES ../helpers/unpinned/running/ServerControl.java
//SOURCES ../helpers/unpinned/running/SpringArgs.java
package unpinned.snippets;

/*
 * S22: chapter 02's order service in Spring Boot, twice (chapter 06): Spring MVC on virtual threads vs WebFlux.
 * The question: an article found the same order endpoint within a few percent as MVC on virtual threads and as
 * WebFlux (8,200 vs 8,500 orders/s, 1,000 users, 8 vCPU). Same steps, two models: --stack mvc (Tomcat, a virtual
 * thread per request) or --stack webflux (Reactor Netty, a Mono chain). GET /order?id=N is S06's contract:
 * price from a slow dependency (100 ms), then stock from a fast one (10 ms); 400 for a bad id, 500 for id >= 1e6.
 * The bound: neither caps concurrency, so Little's law gives users / 0.110 s for both, and the cores cap both at
 * cores / (CPU seconds per order).
 * The pitfall: on a small machine both reach the CPU bound first, so what differs is CPU per request, not
 * concurrency. Dependencies are simulated in-process, or with --deps real HTTP calls to S07's stub.
 * Command line, port, --control and stopping as S20 (unpinned.running.SpringArgs, unpinned.workloads.OrderServer).
 */

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.http.client.JdkClientHttpRequestFactory;
import org.springframework.http.client.reactive.ReactorClientHttpConnector;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.client.RestClient;
import org.springframework.web.reactive.function.client.WebClient;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;
import reactor.netty.resources.ConnectionProvider;
import unpinned.core.Cli;
import unpinned.workloads.OrderRules;
import unpinned.workloads.OrderServer;
import unpinned.running.ServerControl;
import unpinned.running.SpringArgs;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;

@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
@Import({S22_SpringOrderService.BlockingOrders.class, S22_SpringOrderService.ReactiveOrders.class})
public class S22_SpringOrderService {
    // ---------------------------------------------------------------- mvc: blocking code, a virtual thread each

    /** Registered only when Spring runs a servlet stack (Tomcat): --stack mvc. */
    @RestController
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    public static class BlockingOrders implements AutoCloseable {
        private final HttpClient http;
        private final RestClient rest;

        public BlockingOrders() {
            // Explicitly the JDK client: with Reactor Netty on the classpath RestClient would otherwise pick it.
            // HTTP/1.1 as S06 (the stub speaks no HTTP/2); its connection pool has no size limit.
            http = deps == null ? null : HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            JdkClientHttpRequestFactory factory = deps == null ? null : new JdkClientHttpRequestFactory(http);
            if (factory != null) factory.setReadTimeout(DEPENDENCY_TIMEOUT);
            rest = deps == null ? null : RestClient.builder().requestFactory(factory).build();
        }

        @GetMapping("/order")
        public ResponseEntity<String> order(@RequestParam(name = "id", required = false) String id) {
            long n = OrderRules.id(id);
            if (n < 0) return badId();
            try {
                double price = priceService(n);   // slow dependency: the thread waits 100 ms (unmounted)
                int stock = stockService(n);      // fast dependency: 10 ms
                if (Thread.currentThread().isVirtual()) COUNTS.onVirtualThreads().incrementAndGet();
                return json(orderJson(n, price, stock));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt(); // the server is stopping
                return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body("the server is stopping\n");
            } catch (Exception e) {
                return failed(e);
            }
        }

        double priceService(long id) throws IOException, InterruptedException {
            if (rest != null) return Double.parseDouble(call("/price?id=" + id));
            Thread.sleep(SLOW);
            return OrderRules.price(id);
        }

        int stockService(long id) throws IOException, InterruptedException {
            if (rest != null) return Integer.parseInt(call("/stock?id=" + id));
            Thread.sleep(FAST);
            return OrderRules.stock(id);
        }

        /** One blocking HTTP call: the virtual thread waits for the answer, its carrier does not. */
        String call(String pathAndQuery) {
            return rest.get().uri(deps.resolve(pathAndQuery)).exchange((request, response) -> {
                String body = new String(response.getBody().readAllBytes(), StandardCharsets.UTF_8);
                int status = response.getStatusCode().value();
                if (status != 200) throw new IOException(pathAndQuery + " answered " + status + ": " + body);
                return body;
            });
        }

        @Override
        public void close() {
            if (http != null) http.close(); // its selector thread and connections (JDK 21+)
        }
    }

    // ---------------------------------------------------------------- webflux: the same steps as a Mono chain

    /** Registered only when Spring runs a reactive stack (Reactor Netty): --stack webflux. */
    @RestController
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    public static class ReactiveOrders implements AutoCloseable {
        private final ConnectionProvider connections;
        private final WebClient web;

        public ReactiveOrders() {
            // Reactor Netty's default pool holds 2 x max(cores, 8) connections per host: with hundreds of orders
            // in flight it would be the limit. Sized as S06's: unbounded, like the JDK client.
            connections = deps == null ? null : ConnectionProvider.builder("dependencies")
                    .maxConnections(100_000).pendingAcquireMaxCount(-1).build();
            web = deps == null ? null : WebClient.builder()
                    .clientConnector(new ReactorClientHttpConnector(reactor.netty.http.client.HttpClient
                            .create(connections))).build();
        }

        @GetMapping("/order")
        public Mono<ResponseEntity<String>> order(@RequestParam(name = "id", required = false) String id) {
            long n = OrderRules.id(id);
            if (n < 0) return Mono.just(badId());
            return priceService(n)
                    .flatMap(price -> stockService(n)
                            .map(stock -> json(orderJson(n, price, stock))))
                    .onErrorResume(e -> Mono.just(failed(e)));
        }

        Mono<Double> priceService(long id) {
            if (web != null) return call("/price?id=" + id).map(Double::parseDouble);
            return Mono.delay(SLOW).map(tick -> OrderRules.price(id)); // a timer, not a thread, waits
        }

        Mono<Integer> stockService(long id) {
            if (web != null) return call("/stock?id=" + id).map(Integer::parseInt);
            return Mono.delay(FAST).map(tick -> OrderRules.stock(id));
        }

        /** One non-blocking HTTP call: returns at once; the body arrives later, on an event loop. */
        Mono<String> call(String pathAndQuery) {
            return web.get().uri(deps.resolve(pathAndQuery))
                    .exchangeToMono(response -> response.bodyToMono(String.class).defaultIfEmpty("")
                            .flatMap(body -> response.statusCode().value() == 200 ? Mono.just(body)
                                    : Mono.error(new IOException(pathAndQuery + " answered "
                                            + response.statusCode().value() + ": " + body))))
                    .timeout(DEPENDENCY_TIMEOUT);
        }

        @Override
        public void close() {
            if (connections != null) connections.dispose();
        }
    }

    // ---------------------------------------------------------------- the answers (rules: unpinned.workloads.OrderRules, as S06)

    static String orderJson(long id, double price, int stock) {
        COUNTS.handled().incrementAndGet();
        return OrderRules.orderJson(id, price, stock);
    }

    static ResponseEntity<String> json(String body) {
        return ResponseEntity.ok().contentType(MediaType.APPLICATION_JSON).body(body);
    }

    static ResponseEntity<String> badId() {
        return ResponseEntity.badRequest().contentType(MediaType.APPLICATION_JSON).body(OrderRules.BAD_ID);
    }

    /** 500 with the stack trace as the JVM prints it: the lesson's evidence (blocking and reactive differ). */
    static ResponseEntity<String> failed(Throwable e) {
        COUNTS.failed().incrementAndGet();
        return ResponseEntity.internalServerError().contentType(MediaType.TEXT_PLAIN).body(OrderServer.trace(e));
    }

    // ---------------------------------------------------------------- start, serve, stop

    static final String USAGE = """
            usage: S22_SpringOrderService [--stack mvc|webflux] [--deps http://127.0.0.1:PORT] [--port N]
                                          [--spring.property=value ...] [--control]
              --stack S       mvc: Spring MVC on Tomcat, a virtual thread per request (blocking code);
                              webflux: Spring WebFlux on Reactor Netty (a Mono chain); default mvc
              --deps URL      call the dependencies over HTTP at URL (a dependency-stub on loopback)
                              instead of simulating them in-process
              --port N        0 (any free port, printed) or 1..65535 (default 8080); or --server.port=N
              --control       read commands on standard input (stats, stop); used by the course's ServerProcess
              Spring's own properties as --name=value (e.g. --server.tomcat.max-connections=30000), except
              what --stack sets: spring.main.web-application-type, spring.threads.virtual.enabled and
              spring.autoconfigure.exclude. It binds 127.0.0.1 only (server.address can't be changed).""";

    static final int DEFAULT_PORT = 8080;
    static final Duration SLOW = Duration.ofMillis(100), FAST = Duration.ofMillis(10);
    static final Duration DEPENDENCY_TIMEOUT = Duration.ofSeconds(30);
    static final OrderServer.Counts COUNTS = new OrderServer.Counts();
    /** Where the real dependencies live (--deps, checked to be loopback), or null: simulated in-process. */
    static URI deps;
    static volatile long readyNanos;

    public static void main(String[] args) throws Exception {
        SpringArgs a = SpringArgs.parseOrExit("S22", USAGE, args, DEFAULT_PORT,
                Set.of("--stack", "--deps"), Set.of(), s -> {
                    s.cli().oneOf("--stack", "mvc", List.of("mvc", "webflux"));
                    deps = Cli.loopbackBaseUrl("--deps", s.cli().value("--deps", null), "a dependency-stub");
                    for (String p : OrderServer.STACK_PROPERTIES) s.refuse(p, "--stack");
                    return s;
                });
        String stack = a.cli().oneOf("--stack", "mvc", List.of("mvc", "webflux"));
        boolean mvc = stack.equals("mvc");
        // Both starters are on the classpath, so Spring would pick the servlet stack: --stack decides. On the
        // reactive stack Tomcat could serve WebFlux too; excluding its factory leaves Reactor Netty.
        a = a.with("spring.main.web-application-type", mvc ? "servlet" : "reactive")
                .with("spring.threads.virtual.enabled", "" + mvc);
        if (!mvc) a = a.with("spring.autoconfigure.exclude", OrderServer.TOMCAT_REACTIVE);
        // A load generator that hangs up while orders are in flight cancels their WebClient calls; Reactor then
        // logs every late error ("onErrorDropped") with a stack trace. Counted instead: stats' droppedAfterCancel.
        Hooks.onErrorDropped(e -> COUNTS.dropped().incrementAndGet());
        SpringApplication app = new SpringApplication(S22_SpringOrderService.class);
        app.setDefaultProperties(OrderServer.springDefaults());
        app.addListeners((ApplicationListener<ApplicationEvent>) event -> {
            if (event instanceof ApplicationReadyEvent) readyNanos = System.nanoTime();
        });
        List<String> spring = a.spring();
        ConfigurableApplicationContext context = SpringArgs.startOrExit("S22", a.port(),
                () -> app.run(spring.toArray(String[]::new)), () -> readyNanos != 0);
        Environment env = context.getEnvironment();
        URI uri = URI.create("http://127.0.0.1:" + env.getRequiredProperty("local.server.port", Integer.class)
                + "/order");
        String webServer = context instanceof WebServerApplicationContext w
                ? w.getWebServer().getClass().getSimpleName() : "unknown";
        ServerControl.serve(uri, OrderServer.springDescribe(SpringBootVersion.getVersion(), stack, webServer,
                        env.getProperty("spring.threads.virtual.enabled", Boolean.class, false), deps,
                        SpringArgs.secondsSinceJvmStart(), uri, a.control()),
                a.control(), COUNTS::stats, context::close);
        System.exit(0); // stopped: context closed, the server and the clients gone
    }
}

/*
 * How to run:
 *   tools/jbang spring-order-service --stack mvc --port 8080           (until Ctrl-C; or --stack webflux)
 *   curl 'http://127.0.0.1:8080/order?id=42'
 *   tools/jbang dependency-stub --port 8081 & tools/jbang spring-order-service --deps http://127.0.0.1:8081
 *   tools/jbang order-sweep --impl spring --users 200,500 --deps   (both stacks, each in its own JVM, vs bounds)
 *
 * What you should see: {"id":42,"price":52.0,"stock":0} in about 110 ms from either stack; under load both near
 * Little's law or their CPU bound, set by CPU per order, not by the model. Reference runs:
 * data/reference-runs/snippets/S22-spring-order-service.md.
 */