package unpinned.workloads;

import unpinned.running.HttpLoad;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ConnectException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

public class SleepServerTest {

    @Test
    void answersOkAfterSleepingAndKeepsTheConnectionOpen() throws IOException {
        try (SleepServer server = SleepServer.virtual(Duration.ofMillis(20));
             Socket s = new Socket("127.0.0.1", server.port())) {
            assertEquals("http://127.0.0.1:" + server.port() + "/sleep", server.uri().toString());
            s.setSoTimeout(5_000);
            for (int i = 0; i < 2; i++) { // two requests on one connection: keep-alive works
                long t0 = System.nanoTime();
                String response = get(s, server.port());
                double ms = (System.nanoTime() - t0) / 1e6;
                assertTrue(response.startsWith("HTTP/1.1 200"), response);
                assertTrue(response.toLowerCase().contains("content-length: 3"), response);
                assertTrue(ms >= 20, "the handler sleeps 20 ms, answered in " + ms);
            }
            assertEquals(2, server.handled());
            assertEquals(1, server.peakConcurrency());
        }
    }

    /** Sends one GET and reads exactly one response with its 3-byte body. */
    private static String get(Socket s, int port) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(("GET /sleep HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        InputStream in = s.getInputStream();
        StringBuilder sb = new StringBuilder();
        while (!sb.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) break;
            sb.append((char) b);
        }
        sb.append(new String(in.readNBytes(3), StandardCharsets.US_ASCII));
        return sb.toString();
    }

    @Test
    void aPoolLimitsConcurrencyToItsThreads() throws Exception {
        try (SleepServer server = SleepServer.pooled(2, Duration.ofMillis(20))) {
            HttpLoad.Result r = HttpLoad.run(HttpLoad.Options.closedLoop(server.uri(), 6, Duration.ZERO, Duration.ofMillis(300)));
            assertEquals(0, r.errors());
            assertTrue(server.handled() >= r.requests() && r.requests() > 0, r.toString());
            assertEquals(2, server.peakConcurrency(), "a pool of 2 never runs more than 2 handlers");
            assertEquals("pool", server.mode());
            assertEquals(2, server.threads());
        }
    }

    @Test
    void theCpuEndpointAddsUpTwiceAndRefusesBadN() throws Exception {
        assertEquals(2 * (10L * 11 / 2), Work.sumTwice(10));
        assertEquals(2 * (2_000_000L * 2_000_001 / 2), Work.sumTwice(2_000_000));
        assertEquals(1_000_000, SleepServer.sumTo(null));
        assertEquals(42, SleepServer.sumTo("x=1&n=42"));
        assertMessage("n must be a whole number 1..10000000000, got 'ab'", () -> SleepServer.sumTo("n=ab"));
        assertMessage("n must be 1..10000000000, got 0", () -> SleepServer.sumTo("n=0"));
        try (SleepServer server = SleepServer.pooled(2, Duration.ofMillis(1))) {
            var client = java.net.http.HttpClient.newHttpClient();
            var cpu = server.uri().resolve(SleepServer.CPU_PATH + "?n=1000");
            var ok = client.send(java.net.http.HttpRequest.newBuilder(cpu).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(200, ok.statusCode());
            assertEquals(Long.toString(Work.sumTwice(1000)), ok.body().trim());
            var bad = client.send(java.net.http.HttpRequest.newBuilder(server.uri().resolve(SleepServer.CPU_PATH + "?n=-1"))
                    .build(), java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(400, bad.statusCode());
            assertTrue(bad.body().contains("n must be"), bad.body());
        }
    }

    @Test
    void closeStopsTheServer() {
        SleepServer server = SleepServer.virtual(Duration.ZERO);
        int port = server.port();
        server.close();
        server.close(); // idempotent
        assertThrows(ConnectException.class, () -> new Socket("127.0.0.1", port).close());
    }

    @Test
    void aPortInUseIsAClearError() {
        try (SleepServer first = SleepServer.virtual(Duration.ZERO)) {
            int port = first.port();
            var e = assertThrows(IllegalArgumentException.class,
                    () -> SleepServer.start("virtual", 0, Duration.ZERO, port).close());
            assertEquals("port " + port + " is in use; use 0 to let the system pick a free port", e.getMessage());
        }
    }

    @Test
    void badArgumentsSayWhatIsAllowed() {
        Duration d = Duration.ofMillis(1);
        assertMessage("threads must be between 1 and", () -> SleepServer.pooled(0, d));
        assertMessage("threads must be between 1 and", () -> SleepServer.pooled(SleepServer.MAX_POOL_THREADS + 1, d));
        assertMessage("mode must be 'pool' or 'virtual', got 'fast'", () -> SleepServer.start("fast", 1, d, 0));
        assertMessage("mode must be 'pool' or 'virtual', got null", () -> SleepServer.start(null, 1, d, 0));
        assertMessage("sleep must be between 0", () -> SleepServer.virtual(Duration.ofMillis(-1)));
        assertMessage("sleep must be between 0", () -> SleepServer.virtual(null));
        assertMessage("port must be 0 (any free port) or 1..65535, got 70000", () -> SleepServer.start("virtual", 0, d, 70_000));
    }

    public static void assertMessage(String expectedStart, org.junit.jupiter.api.function.Executable call) {
        var e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().startsWith(expectedStart), "message: " + e.getMessage());
    }
}
