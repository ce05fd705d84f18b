package unpinned;

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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The order service's HTTP plumbing (snippet S06), apart from the code under study: the JDK's HttpServer on
 * 127.0.0.1, answers, query parameters, the stack trace a failed order answers with, and a clean stop.
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
}
