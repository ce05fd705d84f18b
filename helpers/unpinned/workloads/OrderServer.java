package unpinned.workloads;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The order service's HTTP plumbing (snippet S06), apart from the code under study: the JDK's HttpServer on
 * 127.0.0.1, answers, query parameters, the stack trace a failed order answers with, and a clean stop; and the
 * Spring Boot versions' plumbing (snippet S22), Spring-free: default properties, what @@ready and "stats" say.
 */
public final class OrderServer {
    private OrderServer() {}

    /** The JDK HttpServer on 127.0.0.1:{@code port} (0: any free one) serving {@code path} on {@code executor}. */
    public static HttpServer jdk(int port, String path, ExecutorService executor, HttpHandler handler)
            throws IOException {
        InetAddress loopback = InetAddress.getByAddress("localhost", new byte[] {127, 0, 0, 1});
        HttpServer server = HttpServer.create(new InetSocketAddress(loopback, port), 4096);
        server.createContext(path, handler);
        server.setExecutor(executor);
        server.start();
        return server;
    }

    /** Stops {@code server} at once and its {@code executor}, waiting up to 5 s for the requests it interrupts. */
    public static Runnable stopper(HttpServer server, ExecutorService executor) {
        return () -> {
            server.stop(0);
            executor.shutdownNow();
            try {
                executor.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        };
    }

    public static void send(HttpExchange exchange, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type", type);
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    /** The value of {@code name} in a raw query string, or null. */
    public static String parameter(String query, String name) {
        if (query != null) {
            for (String pair : query.split("&")) {
                if (pair.startsWith(name + "=")) return pair.substring(name.length() + 1);
            }
        }
        return null;
    }

    /** The stack trace as the JVM prints it (causes and suppressed ones included): the lesson's evidence. */
    public static String trace(Throwable e) {
        StringWriter out = new StringWriter();
        e.printStackTrace(new PrintWriter(out));
        return out.toString();
    }

    /** The refusal when {@code port} can't be bound on 127.0.0.1. */
    public static String portTaken(int port) {
        return "port " + port + " is in use (or not allowed here): cannot listen on 127.0.0.1:" + port
                + "; use 0 to let the system pick a free port, or another port 1024..65535";
    }

    // ---- S22: the Spring Boot versions (chapter 06) ----------------------------------------------------------------

    /** S22 excludes it on --stack webflux: Tomcat could serve WebFlux too; this leaves Reactor Netty. */
    public static final String TOMCAT_REACTIVE =
            "org.springframework.boot.tomcat.autoconfigure.reactive.TomcatReactiveWebServerAutoConfiguration";

    /** The Spring properties --stack sets (refused on the command line). */
    public static final java.util.List<String> STACK_PROPERTIES = java.util.List.of(
            "spring.main.web-application-type", "spring.threads.virtual.enabled", "spring.autoconfigure.exclude");

    /** S22's defaults the command line can override (lowest precedence in Spring's order). */
    public static Map<String, Object> springDefaults() {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("spring.application.name", "unpinned-spring-orders");
        d.put("spring.main.banner-mode", "off");
        d.put("server.shutdown", "immediate");              // a course server stops at once; its load is over
        // Tomcat's defaults would cap the experiment before the threads do: 8,192 connections, a backlog of 100,
        // and a connection closed after 100 requests (a closed-loop user would reconnect every 100 orders).
        d.put("server.tomcat.max-connections", 20_000);
        d.put("server.tomcat.accept-count", 10_000);
        d.put("server.tomcat.max-keep-alive-requests", -1);
        // Reactor Netty's client warns, with an exception line, about each call the stop cuts short; an order that
        // fails in the window is a 500 the load generator counts, and "failed" in stats, so the warning says nothing.
        d.put("logging.level.reactor.netty.http.client", "ERROR");
        return d;
    }

    /** S22's counts, as "stats" reports them. */
    public record Counts(AtomicLong handled, AtomicLong failed, AtomicLong onVirtualThreads, AtomicLong dropped) {
        public Counts() {
            this(new AtomicLong(), new AtomicLong(), new AtomicLong(), new AtomicLong());
        }

        public Map<String, Object> stats() {
            Map<String, Object> own = new LinkedHashMap<>();
            own.put("handled", handled.get());
            own.put("failed", failed.get());
            own.put("handledOnVirtualThreads", onVirtualThreads.get());
            own.put("droppedAfterCancel", dropped.get());
            return own;
        }
    }

    /** What S22's @@ready line says, and the line it prints once serving. */
    public static Map<String, Object> springDescribe(String boot, String stack, String webServer, boolean virtual,
                                                     java.net.URI deps, double startSeconds, java.net.URI uri,
                                                     boolean control) {
        System.out.println(String.format(Locale.ROOT, "serving Spring Boot %s orders at %s?id=1, %s (%s); ready"
                        + " %.1f s after the JVM started%s", boot, uri, stack.equals("mvc")
                        ? "Spring MVC on Tomcat, a virtual thread per request" : "Spring WebFlux on Reactor Netty",
                deps == null ? "dependencies simulated" : "dependencies at " + deps, startSeconds,
                control ? "" : "; Ctrl-C stops it"));
        Map<String, Object> describe = new LinkedHashMap<>();
        describe.put("springBoot", boot);
        describe.put("stack", stack);
        describe.put("webServer", webServer);
        describe.put("virtualThreads", virtual);
        describe.put("deps", deps == null ? "simulated" : deps.toString());
        describe.put("startSeconds", startSeconds);
        describe.put("maxHeapMb", Runtime.getRuntime().maxMemory() >> 20);
        return describe;
    }
}
