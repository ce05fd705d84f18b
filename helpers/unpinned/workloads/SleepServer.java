//SOURCES Work.java
package unpinned.workloads;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The endpoint every load experiment hits: {@code GET /sleep} blocks for a fixed time (standing in
 * for a slow database or remote call), then answers {@code 200 ok} with a Content-Length, so the
 * connection stays open for the next request (HTTP/1.1 keep-alive).
 *
 * <p>It is the JDK's own {@link HttpServer} (one dispatcher thread accepts connections and reads
 * requests) with the handler running on either a fixed pool of platform threads ({@code "pool"},
 * at most {@code threads} requests sleep at once, the rest queue) or one new virtual thread per
 * request ({@code "virtual"}, no limit). Bound to 127.0.0.1 only; port 0 lets the system pick a
 * free port. Always close it (try-with-resources): {@link #close()} stops the server and its
 * executor.
 *
 * <pre>{@code
 * try (var server = SleepServer.virtual(Duration.ofMillis(100))) {
 *     var r = HttpLoad.run(HttpLoad.Options.closedLoop(server.uri(), 500, Duration.ofSeconds(2), Duration.ofSeconds(5)));
 * }
 * }</pre>
 */
public final class SleepServer implements AutoCloseable {
    /** Path of the sleeping endpoint. */
    public static final String PATH = "/sleep";
    /**
     * Path of the CPU-bound endpoint: {@code GET /cpu?n=N} adds up 1..N twice, as the seminar write-up's CPU
     * endpoint did (N = 100,000,000 there); it never blocks, so a thread is busy for all of it.
     */
    public static final String CPU_PATH = "/cpu";
    /** Largest N the CPU endpoint accepts (about ten seconds of one core). */
    public static final long MAX_SUM_TO = 10_000_000_000L;
    /** Accept queue length asked of the OS (Linux caps it at net.core.somaxconn). */
    public static final int BACKLOG = 4096;
    /** Guard against a platform-thread explosion by a typo. */
    public static final int MAX_POOL_THREADS = 10_000;
    /** Longest handler sleep accepted. */
    public static final Duration MAX_SLEEP = Duration.ofMinutes(1);

    private static final byte[] BODY = "ok\n".getBytes(StandardCharsets.US_ASCII);

    static {
        // The JDK server closes a keep-alive connection that goes idle while 200 others are idle
        // (sun.net.httpserver.maxIdleConnections): with hundreds of users finishing a 100 ms sleep
        // together, that would drop live connections. Raise the limit, unless the user chose one.
        // The server reads these properties once per JVM, when the first HttpServer is created.
        if (System.getProperty("sun.net.httpserver.maxIdleConnections") == null) {
            System.setProperty("sun.net.httpserver.maxIdleConnections", "100000");
        }
    }
    private static final AtomicInteger SERVERS = new AtomicInteger();

    private final String mode;
    private final int threads;
    private final Duration sleep;
    private final HttpServer server;
    private final ExecutorService executor;
    private final URI uri;
    private final AtomicLong handled = new AtomicLong();
    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicInteger peak = new AtomicInteger();
    private volatile boolean closed;

    /** A server whose handler runs on a fixed pool of {@code threads} platform threads, on a free port. */
    public static SleepServer pooled(int threads, Duration sleep) {
        return start("pool", threads, sleep, 0);
    }

    /** A server whose handler runs on a new virtual thread per request, on a free port. */
    public static SleepServer virtual(Duration sleep) {
        return start("virtual", 0, sleep, 0);
    }

    /**
     * Starts a server.
     *
     * @param mode    "pool" (fixed pool of {@code threads} platform threads) or "virtual" (virtual thread per request)
     * @param threads pool size, 1..10,000; ignored for "virtual"
     * @param sleep   how long each request sleeps, 0..1 min
     * @param port    0 (the system picks a free port) or 1..65535
     */
    public static SleepServer start(String mode, int threads, Duration sleep, int port) {
        return new SleepServer(mode, threads, sleep, port);
    }

    private SleepServer(String mode, int threads, Duration sleep, int port) {
        if (mode == null) throw new IllegalArgumentException("mode must be 'pool' or 'virtual', got null");
        String m = mode.trim().toLowerCase(Locale.ROOT);
        if (!m.equals("pool") && !m.equals("virtual")) {
            throw new IllegalArgumentException("mode must be 'pool' or 'virtual', got '" + mode + "'");
        }
        if (m.equals("pool") && (threads < 1 || threads > MAX_POOL_THREADS)) {
            throw new IllegalArgumentException(
                    "threads must be between 1 and " + MAX_POOL_THREADS + " for a pool, got " + threads);
        }
        if (sleep == null || sleep.isNegative() || sleep.compareTo(MAX_SLEEP) > 0) {
            throw new IllegalArgumentException("sleep must be between 0 and " + MAX_SLEEP.toSeconds() + " s, got " + sleep);
        }
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port must be 0 (any free port) or 1..65535, got " + port);
        }
        this.mode = m;
        this.threads = m.equals("pool") ? threads : 0;
        this.sleep = sleep;

        InetAddress loopback;
        try {
            loopback = InetAddress.getByAddress("localhost", new byte[] {127, 0, 0, 1});
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // cannot happen for a 4-byte literal
        }
        HttpServer s;
        try {
            s = HttpServer.create(new InetSocketAddress(loopback, port), BACKLOG);
        } catch (BindException e) {
            String why = String.valueOf(e.getMessage());
            throw new IllegalArgumentException(why.contains("in use")
                    ? "port " + port + " is in use; use 0 to let the system pick a free port"
                    : "cannot listen on 127.0.0.1:" + port + " (" + why + "); use 0 (any free port) or 1024..65535", e);
        } catch (IOException e) {
            throw new IllegalStateException("could not start the HTTP server on 127.0.0.1:" + port + ": " + e, e);
        }
        int id = SERVERS.incrementAndGet();
        this.executor = m.equals("pool")
                ? Executors.newFixedThreadPool(threads, Thread.ofPlatform().name("sleep-server-" + id + "-pool-", 0).daemon(true).factory())
                : Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("sleep-server-" + id + "-vt-", 0).factory());
        this.server = s;
        try {
            server.createContext(PATH, this::handle);
            server.createContext(CPU_PATH, this::handleCpu);
            server.setExecutor(executor);
            server.start();
        } catch (RuntimeException e) {
            server.stop(0);
            executor.shutdownNow();
            throw e;
        }
        this.uri = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + PATH);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            try (InputStream in = exchange.getRequestBody()) {
                in.transferTo(OutputStream.nullOutputStream());
            }
            peak.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            try {
                if (!sleep.isZero()) Thread.sleep(sleep);
            } catch (InterruptedException e) {
                // close() interrupts sleeping handlers: answer 503 and let the thread end
                Thread.currentThread().interrupt();
                exchange.getResponseHeaders().set("Connection", "close");
                exchange.sendResponseHeaders(503, -1);
                return;
            } finally {
                inFlight.decrementAndGet();
            }
            handled.incrementAndGet(); // counted before answering, so a client that has its answer sees it counted
            exchange.getResponseHeaders().set("Content-Type", "text/plain");
            exchange.sendResponseHeaders(200, BODY.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(BODY);
            }
        }
    }

    /** The n of {@code /cpu?n=N}: 1..{@link #MAX_SUM_TO}, default 1,000,000. */
    static long sumTo(String query) {
        String value = null;
        if (query != null) {
            for (String pair : query.split("&")) if (pair.startsWith("n=")) value = pair.substring(2);
        }
        if (value == null) return 1_000_000;
        long n;
        try {
            n = Long.parseLong(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("n must be a whole number 1.." + MAX_SUM_TO + ", got '" + value + "'");
        }
        if (n < 1 || n > MAX_SUM_TO) throw new IllegalArgumentException("n must be 1.." + MAX_SUM_TO + ", got " + n);
        return n;
    }

    private void handleCpu(HttpExchange exchange) throws IOException {
        try (exchange) {
            try (InputStream in = exchange.getRequestBody()) {
                in.transferTo(OutputStream.nullOutputStream());
            }
            long n;
            try {
                n = sumTo(exchange.getRequestURI().getRawQuery());
            } catch (IllegalArgumentException e) {
                byte[] why = (e.getMessage() + "\n").getBytes(StandardCharsets.UTF_8);
                exchange.sendResponseHeaders(400, why.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(why);
                }
                return;
            }
            peak.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            long result;
            try {
                result = Work.sumTwice(n);
            } finally {
                inFlight.decrementAndGet();
            }
            if (result < 0) { // close() interrupted the work: the server is stopping
                exchange.getResponseHeaders().set("Connection", "close");
                exchange.sendResponseHeaders(503, -1);
                return;
            }
            handled.incrementAndGet();
            byte[] body = (result + "\n").getBytes(StandardCharsets.US_ASCII);
            exchange.getResponseHeaders().set("Content-Type", "text/plain");
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    /** {@code http://127.0.0.1:PORT/sleep} */
    public URI uri() {
        return uri;
    }

    public int port() {
        return uri.getPort();
    }

    /** "pool" or "virtual". */
    public String mode() {
        return mode;
    }

    /** Pool size, or 0 for "virtual" (no limit). */
    public int threads() {
        return threads;
    }

    public Duration sleep() {
        return sleep;
    }

    /** Requests answered (or being answered) with 200 so far. */
    public long handled() {
        return handled.get();
    }

    /** Requests sleeping in the handler right now. */
    public int inFlight() {
        return inFlight.get();
    }

    /** Most requests ever sleeping in the handler at the same time: at most {@link #threads()} for a pool. */
    public int peakConcurrency() {
        return peak.get();
    }

    /** Stops accepting, closes every connection, interrupts sleeping handlers and waits (briefly) for them. */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        try {
            server.stop(0);
        } finally {
            executor.shutdownNow();
            try {
                executor.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String toString() {
        return "SleepServer[" + (mode.equals("pool") ? "pool of " + threads + " platform threads" : "virtual thread per request")
                + ", sleep " + sleep.toMillis() + " ms, " + uri + "]";
    }
}
