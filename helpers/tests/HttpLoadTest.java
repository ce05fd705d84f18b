package unpinned.running;

import unpinned.workloads.SleepServer;
import unpinned.workloads.SleepServerTest;
import unpinned.core.Bounds;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static unpinned.workloads.SleepServerTest.assertMessage;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

public class HttpLoadTest {
    public static final Duration WARM = Duration.ofMillis(300);
    public static final Duration MEASURE = Duration.ofMillis(1200);

    @Test
    void aClosedLoopOnVirtualThreadsStaysUnderLittlesBoundAndNearIt() throws Exception {
        int users = 20, sleepMs = 20;
        try (SleepServer server = SleepServer.virtual(Duration.ofMillis(sleepMs))) {
            HttpLoad.Result r = HttpLoad.run(HttpLoad.Options.closedLoop(server.uri(), users, WARM, MEASURE));
            double bound = Bounds.closedLoopThroughput(users, users, sleepMs / 1000.0); // 1,000 req/s
            assertEquals(0, r.errors(), r.toString());
            assertTrue(r.minMs() >= sleepMs, "no answer can beat the sleep: " + r);
            assertTrue(r.meanMs() >= r.minMs() && r.maxMs() >= r.p99Ms() && r.p99Ms() >= r.p50Ms(), r.toString());
            // only what completes inside the window counts: at most users x window / sleep, plus one per user
            assertTrue(r.requests() <= users * (MEASURE.toMillis() / sleepMs + 1), r.toString());
            assertTrue(r.throughput() <= bound * 1.05, "above Little's bound " + bound + ": " + r);
            assertTrue(r.throughput() >= bound * 0.5, "far below the bound " + bound + ": " + r);
            assertEquals(r.requests() / r.seconds(), r.throughput(), 1e-6);
            assertTrue(r.warmUpRequests() > 0, "the warm-up ran and was not counted: " + r);
            assertTrue(r.clientCpuUsPerRequest() > 0, r.toString());
        }
    }

    @Test
    void eachSecondReportsItsRateAndItsP99AfterItsProgressLine() throws Exception {
        int users = 10, sleepMs = 20;
        java.util.List<String> told = new java.util.concurrent.CopyOnWriteArrayList<>();
        try (SleepServer server = SleepServer.virtual(Duration.ofMillis(sleepMs))) {
            HttpLoad.run(HttpLoad.Options.closedLoop(server.uri(), users, WARM, MEASURE), new HttpLoad.Listener() {
                @Override
                public void progress(String line) {
                    told.add("progress");
                }

                @Override
                public void sample(double requestsPerSecond, double p99Ms) {
                    told.add(String.format(java.util.Locale.ROOT, "%.0f %.1f", requestsPerSecond, p99Ms));
                }
            });
        }
        assertTrue(told.size() >= 4 && told.size() % 2 == 0, told.toString());
        for (int i = 0; i < told.size(); i += 2) {
            assertEquals("progress", told.get(i), "a sample follows its progress line: " + told);
            String[] sample = told.get(i + 1).split(" ");
            double rate = Double.parseDouble(sample[0]), p99 = Double.parseDouble(sample[1]);
            // 10 users on a 20 ms sleep: at most 500 answers a second, each taking at least the sleep
            assertTrue(rate <= 500 * 1.1, told.toString());
            assertTrue(rate == 0 ? Double.isNaN(p99) : p99 >= sleepMs && p99 < 1000, told.toString());
        }
        assertTrue(told.stream().anyMatch(t -> !t.equals("progress") && !t.startsWith("0 ")), "some second had answers: " + told);
    }

    @Test
    void aPoolOfTwoCapsThroughputAtTwoOverTheSleep() throws Exception {
        int users = 10, sleepMs = 20;
        try (SleepServer server = SleepServer.pooled(2, Duration.ofMillis(sleepMs))) {
            HttpLoad.Result r = HttpLoad.run(HttpLoad.Options.closedLoop(server.uri(), users, WARM, MEASURE));
            double bound = Bounds.closedLoopThroughput(users, 2, sleepMs / 1000.0); // 100 req/s
            assertEquals(0, r.errors(), r.toString());
            assertTrue(r.throughput() <= bound * 1.05, "above Little's bound " + bound + ": " + r);
            assertTrue(r.throughput() >= bound * 0.5, "far below the bound " + bound + ": " + r);
            // 10 users share 2 threads: each waits for ~5 service times (Little: users / throughput)
            assertTrue(r.meanMs() >= 0.8 * users / bound * 1000, "queueing must show in the mean: " + r);
            assertEquals(2, server.peakConcurrency());
        }
    }

    @Test
    void anOpenLoopOffersItsRateAndCountsLatencyFromWhenARequestWasDue() throws Exception {
        try (SleepServer fast = SleepServer.virtual(Duration.ofMillis(5))) {
            HttpLoad.Result r = HttpLoad.run(HttpLoad.Options.openLoop(fast.uri(), 10, 200, WARM, MEASURE));
            assertEquals("open", r.loop());
            assertEquals(200, r.throughput(), 200 * 0.1, "an open loop sends at its rate: " + r);
            assertTrue(r.minMs() >= 5, r.toString());
        }
        // A server that can do 1 / 20 ms = 50 req/s, offered 100 req/s: throughput stays at its capacity and
        // latency grows with the backlog (it would look fine if measured from the late send).
        try (SleepServer slow = SleepServer.pooled(1, Duration.ofMillis(20))) {
            HttpLoad.Result r = HttpLoad.run(HttpLoad.Options.openLoop(slow.uri(), 4, 100, Duration.ZERO, MEASURE));
            assertTrue(r.throughput() <= 50 * 1.05, r.toString());
            assertTrue(r.maxMs() > 200, "the backlog must show as latency: " + r);
        }
    }

    @Test
    void failuresAreCountedAndSummarisedNotThrown() throws Exception {
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
            HttpLoad.Result r = HttpLoad.run(HttpLoad.Options.closedLoop(
                    URI.create("http://127.0.0.1:" + ss.getLocalPort() + "/"), 2, Duration.ZERO, Duration.ofMillis(300)));
            assertEquals(0, r.requests());
            assertTrue(r.errors() > 2, r.toString());
            assertEquals(1, r.errorKinds().size(), "one kind of error, counted once: " + r.errorKinds());
            assertTrue(r.errorKinds().containsKey("HTTP status 500"), r.errorKinds().toString());
            assertTrue(Double.isNaN(r.meanMs()));
            ss.close();
            acceptor.join(2_000);
        }
        // Nobody listening: connection refused, counted, and retried no faster than every 10 ms per connection.
        int freePort;
        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            freePort = ss.getLocalPort();
        }
        HttpLoad.Result refused = HttpLoad.run(HttpLoad.Options.closedLoop(
                URI.create("http://127.0.0.1:" + freePort + "/"), 2, Duration.ZERO, Duration.ofMillis(500)));
        assertEquals(0, refused.requests());
        assertTrue(refused.errors() >= 4 && refused.errors() <= 2 * (500 / 10 + 2), refused.toString());
        assertEquals(1, refused.errorKinds().size(), refused.errorKinds().toString());
    }

    @Test
    void anInterruptStopsTheRunAndClosesTheSockets() throws Exception {
        try (SleepServer server = SleepServer.pooled(1, Duration.ofMillis(200))) {
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread caller = Thread.ofPlatform().start(() -> {
                try {
                    HttpLoad.run(HttpLoad.Options.closedLoop(server.uri(), 5, Duration.ZERO, Duration.ofSeconds(60)));
                } catch (Throwable t) {
                    thrown.set(t);
                }
            });
            Thread.sleep(300);
            long t0 = System.nanoTime();
            caller.interrupt();
            caller.join(5_000);
            assertFalse(caller.isAlive(), "HttpLoad must return soon after an interrupt");
            assertTrue(thrown.get() instanceof InterruptedException, "got " + thrown.get());
            assertTrue((System.nanoTime() - t0) / 1e9 < 3, "stopping took too long");
        }
    }

    @Test
    void theParserReadsResponsesSplitAtEveryByte() throws Exception {
        String[] responses = {
                "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n",
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n1;x=y\r\n\n\r\n0\r\nTrailer: t\r\n\r\n",
                "HTTP/1.1 204 No Content\r\n\r\n",
                "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok",
        };
        for (String text : responses) {
            byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
            for (int cut = 0; cut <= bytes.length; cut++) {
                HttpLoad.ResponseParser p = new HttpLoad.ResponseParser();
                p.reset();
                ByteBuffer first = ByteBuffer.wrap(bytes, 0, cut), rest = ByteBuffer.wrap(bytes, cut, bytes.length - cut);
                boolean done = p.feed(first);
                assertEquals(cut == bytes.length, done, "cut at " + cut + " of " + text);
                if (!done) assertTrue(p.feed(rest), "cut at " + cut + " of " + text);
                assertFalse(rest.hasRemaining(), "the parser takes exactly one response");
            }
        }
        HttpLoad.ResponseParser p = new HttpLoad.ResponseParser();
        p.reset();
        p.feed(ByteBuffer.wrap("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok".getBytes(StandardCharsets.US_ASCII)));
        assertFalse(p.keepAlive(), "HTTP/1.0 without keep-alive closes");
        p.reset();
        assertFalse(p.feed(ByteBuffer.wrap("HTTP/1.1 200 OK\r\n\r\nbody".getBytes(StandardCharsets.US_ASCII))));
        assertTrue(p.endOfStream(), "no length: the body runs to the end of the connection");
        p.reset();
        assertThrows(IOException.class, () -> p.feed(ByteBuffer.wrap("SSH-2.0-OpenSSH\r\n\r\n".getBytes(StandardCharsets.US_ASCII))));
    }

    @Test
    void tooFewOpenFilesAreRefusedWithTheLimitAndTheFix() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> HttpLoad.checkOpenFiles(564, "500 connections", 512, 10));
        assertTrue(e.getMessage().startsWith("500 connections need about 564 open files but this process may open 512"
                + " (10 already open; `ulimit -n`); raise the limit, e.g. `ulimit -n 65536`"), e.getMessage());
        HttpLoad.checkOpenFiles(564, "500 connections", 65_536, 10);
    }

    @Test
    void onlyLoopbackTargets() {
        Duration d = Duration.ofSeconds(1);
        assertMessage("HttpLoad only targets loopback (127.0.0.0/8, ::1); got example.com",
                () -> HttpLoad.Options.closedLoop(URI.create("http://example.com/"), 1, d, d));
        assertMessage("HttpLoad only targets loopback (127.0.0.0/8, ::1); got 10.0.0.1",
                () -> HttpLoad.Options.closedLoop(URI.create("http://10.0.0.1:8080/"), 1, d, d));
        assertMessage("target must be an http:// URI",
                () -> HttpLoad.Options.closedLoop(URI.create("https://127.0.0.1/"), 1, d, d));
        assertEquals(8080, HttpLoad.loopbackAddress(URI.create("http://127.0.0.2:8080/x")).getPort());
        assertTrue(HttpLoad.loopbackAddress(URI.create("http://[::1]:8080/")).getAddress().isLoopbackAddress());
        assertTrue(HttpLoad.loopbackAddress(URI.create("http://localhost:8080/")).getAddress().isLoopbackAddress());
    }

    @Test
    void badOptionsSayWhatIsAllowed() {
        URI u = URI.create("http://127.0.0.1:9/");
        Duration d = Duration.ofSeconds(1), t = Duration.ofSeconds(30);
        assertMessage("connections must be a whole number from 1 to 50,000; got 0", () -> HttpLoad.Options.closedLoop(u, 0, d, d));
        assertMessage("connections must be a whole number from 1 to 50,000; got 50001",
                () -> HttpLoad.Options.closedLoop(u, 50_001, d, d));
        assertMessage("threads must be from 1 to the number of connections (2)", () -> new HttpLoad.Options(u, 2, 3, d, d, 0, t));
        assertMessage("duration must be longer than 0 s", () -> HttpLoad.Options.closedLoop(u, 1, d, Duration.ZERO));
        assertMessage("warmUp must be 0 s or longer", () -> HttpLoad.Options.closedLoop(u, 1, Duration.ofSeconds(-1), d));
        assertMessage("warm-up plus duration must be at most 1 h", () -> HttpLoad.Options.closedLoop(u, 1, d, Duration.ofHours(1)));
        assertMessage("rate must be 0 (closed loop) or a number of requests per second", () -> new HttpLoad.Options(u, 1, 1, d, d, -1, t));
        assertMessage("an open loop needs a rate > 0", () -> HttpLoad.Options.openLoop(u, 1, 0, d, d));
        assertMessage("target must be an http:// URI on loopback, got null", () -> HttpLoad.Options.closedLoop(null, 1, d, d));
        assertEquals(Math.min(2, Runtime.getRuntime().availableProcessors()), HttpLoad.Options.closedLoop(u, 2, d, d).threads());
    }

    @Test
    void aBodyThatEndsWithTheConnectionCountsAndTheUserReconnects() throws Exception {
        // HTTP/1.0 style: no Content-Length, the server closes after the body. Each answer must count at once and
        // the user must go on with a new connection (not wait for a timeout on a closed one).
        try (ServerSocket ss = new ServerSocket(0, 200, InetAddress.getLoopbackAddress())) {
            Thread acceptor = Thread.ofVirtual().start(() -> {
                while (!ss.isClosed()) {
                    try {
                        Socket s = ss.accept();
                        Thread.ofVirtual().start(() -> {
                            try (s) {
                                s.getInputStream().read(new byte[1024]);
                                s.getOutputStream().write("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nok".getBytes());
                            } catch (IOException ignored) {
                                // the client went away
                            }
                        });
                    } catch (IOException e) {
                        return;
                    }
                }
            });
            HttpLoad.Result r = HttpLoad.run(new HttpLoad.Options(URI.create("http://127.0.0.1:" + ss.getLocalPort() + "/"),
                    4, 1, Duration.ofMillis(200), Duration.ofMillis(600), 0, Duration.ofSeconds(5)));
            assertEquals(0, r.errors(), r.toString());
            assertTrue(r.requests() > 40, "4 users answered at once should manage far more than 40 in 0.6 s: " + r);
            ss.close();
            acceptor.join(2_000);
        }
    }
}
