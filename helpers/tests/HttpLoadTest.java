package unpinned;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static unpinned.SleepServerTest.assertMessage;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class HttpLoadTest {

    @Test
    void virtualServerRunsEveryUserAtOnce() throws Exception {
        int users = 20, requests = 5, sleepMs = 20;
        try (SleepServer server = SleepServer.virtual(Duration.ofMillis(sleepMs))) {
            HttpLoad.warmUp(server.uri(), users);
            HttpLoad.Result r = HttpLoad.run(server.uri(), users, requests, Duration.ofSeconds(20));
            double bound = Bounds.closedLoopThroughput(users, users, sleepMs / 1000.0); // 1,000 req/s
            assertEquals(0, r.errors(), r.toString());
            assertEquals(users * requests, r.requests());
            assertEquals(0, r.notIssued());
            assertTrue(r.minMs() >= sleepMs, "no answer can beat the sleep: " + r);
            assertTrue(r.meanMs() >= r.minMs() && r.maxMs() >= r.p99Ms() && r.p99Ms() >= r.p50Ms(), r.toString());
            assertTrue(r.throughput() <= bound * 1.05, "above Little's bound " + bound + ": " + r);
            assertTrue(r.throughput() >= bound * 0.5, "far below the bound " + bound + ": " + r);
            assertEquals(r.requests() / r.elapsedSeconds(), r.throughput(), 1e-6);
        }
    }

    @Test
    void aPoolOfTwoCapsThroughputAtTwoOverTheSleep() throws Exception {
        int users = 10, sleepMs = 20;
        try (SleepServer server = SleepServer.pooled(2, Duration.ofMillis(sleepMs))) {
            HttpLoad.Result r = HttpLoad.run(server.uri(), users, 4, Duration.ofSeconds(20));
            double bound = Bounds.closedLoopThroughput(users, 2, sleepMs / 1000.0); // 100 req/s
            assertEquals(0, r.errors(), r.toString());
            assertTrue(r.throughput() <= bound * 1.05, "above Little's bound " + bound + ": " + r);
            assertTrue(r.throughput() >= bound * 0.5, "far below the bound " + bound + ": " + r);
            // 10 users share 2 threads: each waits for ~5 service times (Little: users / throughput)
            assertTrue(r.meanMs() >= 0.8 * users / bound * 1000, "queueing must show in the mean: " + r);
        }
    }

    @Test
    void theDeadlineStopsIssuingRequests() throws Exception {
        try (SleepServer server = SleepServer.pooled(1, Duration.ofMillis(50))) {
            long t0 = System.nanoTime();
            HttpLoad.Result r = HttpLoad.run(server.uri(), 2, 1_000, Duration.ofMillis(400));
            double seconds = (System.nanoTime() - t0) / 1e9;
            assertTrue(seconds < 2.5, "the run must end near its deadline, took " + seconds + " s");
            assertTrue(r.notIssued() > 0, r.toString());
            assertTrue(r.requests() <= 10, "1 thread x 50 ms in 0.4 s: at most ~8 answers, " + r);
        }
    }

    @Test
    void failuresAreCountedNotThrown() throws Exception {
        // A server that answers 500 and closes: every attempt is an error, the run still returns.
        try (ServerSocket ss = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = Thread.ofVirtual().start(() -> {
                while (!ss.isClosed()) {
                    try (Socket s = ss.accept()) {
                        s.getInputStream().read(new byte[1024]);
                        s.getOutputStream().write("HTTP/1.1 500 Oops\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".getBytes());
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            HttpLoad.Result r = HttpLoad.run(URI.create("http://127.0.0.1:" + ss.getLocalPort() + "/"), 2, 3, Duration.ofSeconds(10));
            assertEquals(0, r.requests());
            assertEquals(6, r.errors(), r.toString());
            assertTrue(Double.isNaN(r.meanMs()));
            ss.close();
            acceptor.join(2_000);
        }
        // Nobody listening: connection refused, counted.
        int freePort;
        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            freePort = ss.getLocalPort();
        }
        HttpLoad.Result refused = HttpLoad.run(URI.create("http://127.0.0.1:" + freePort + "/"), 2, 2, Duration.ofSeconds(5));
        assertEquals(0, refused.requests());
        assertTrue(refused.errors() >= 4, refused.toString());
    }

    @Test
    void anInterruptStopsTheRunAndClosesTheSockets() throws Exception {
        try (SleepServer server = SleepServer.pooled(1, Duration.ofMillis(200))) {
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread caller = Thread.ofPlatform().start(() -> {
                try {
                    HttpLoad.run(server.uri(), 5, 100, Duration.ofSeconds(60));
                } catch (Throwable t) {
                    thrown.set(t);
                }
            });
            Thread.sleep(300);
            long t0 = System.nanoTime();
            caller.interrupt();
            caller.join(5_000);
            assertTrue(!caller.isAlive(), "HttpLoad must return soon after an interrupt");
            assertTrue(thrown.get() instanceof InterruptedException, "got " + thrown.get());
            assertTrue((System.nanoTime() - t0) / 1e9 < 3, "stopping took too long");
        }
    }

    @Test
    void onlyLoopbackTargets() {
        assertMessage("HttpLoad only targets loopback (127.0.0.0/8, ::1); got example.com",
                () -> HttpLoad.run(URI.create("http://example.com/"), 1, 1, Duration.ofSeconds(1)));
        assertMessage("HttpLoad only targets loopback (127.0.0.0/8, ::1); got 10.0.0.1",
                () -> HttpLoad.run(URI.create("http://10.0.0.1:8080/"), 1, 1, Duration.ofSeconds(1)));
        assertMessage("target must be an http:// URI",
                () -> HttpLoad.run(URI.create("https://127.0.0.1/"), 1, 1, Duration.ofSeconds(1)));
        assertEquals(8080, HttpLoad.loopbackAddress(URI.create("http://127.0.0.2:8080/x")).getPort());
        assertTrue(HttpLoad.loopbackAddress(URI.create("http://[::1]:8080/")).getAddress().isLoopbackAddress());
        assertTrue(HttpLoad.loopbackAddress(URI.create("http://localhost:8080/")).getAddress().isLoopbackAddress());
    }

    @Test
    void badArgumentsSayWhatIsAllowed() {
        URI u = URI.create("http://127.0.0.1:9/");
        Duration d = Duration.ofSeconds(1);
        assertMessage("users must be between 1 and 50000, got 0", () -> HttpLoad.run(u, 0, 1, d));
        assertMessage("users must be between 1 and 50000, got 50001", () -> HttpLoad.run(u, 50_001, 1, d));
        assertMessage("requestsPerUser must be >= 1, got 0", () -> HttpLoad.run(u, 1, 0, d));
        assertMessage("deadline must be > 0", () -> HttpLoad.run(u, 1, 1, Duration.ZERO));
        assertMessage("deadline must be > 0", () -> HttpLoad.run(u, 1, 1, null));
        assertMessage("target must be an http:// URI on loopback, got null", () -> HttpLoad.run(null, 1, 1, d));
    }
}
