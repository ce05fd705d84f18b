//DEPS org.hdrhistogram:HdrHistogram:2.2.2
package unpinned;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.io.BufferedInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A closed-loop HTTP load generator, like JMeter or k6 with no think time: {@code users} virtual
 * users, each on its own virtual thread with its own keep-alive connection, send
 * {@code GET target} one after the other, the next as soon as the previous answer has arrived,
 * {@code requestsPerUser} times each. With a server that holds each request for S seconds and
 * handles at most C at once, Little's law bounds the throughput to min(users, C) / S.
 *
 * <p>What is measured: every user first opens its connection; the clock starts when all are
 * connected (connect time is not part of the window). Each latency runs from writing the request
 * to reading the last byte of the answer. Throughput = successful requests / (last completion -
 * start). Min, max, mean and standard deviation are exact; percentiles come from an HdrHistogram
 * (3 significant digits).
 *
 * <p>Failures are counted, never thrown: non-200 answers, I/O errors (the user then reconnects
 * for its next request) and timeouts. {@code deadline} bounds the whole call: no request is
 * issued after it, a request still waiting at the deadline times out and counts as an error, and
 * requests never issued are reported in {@link Result#notIssued()}. Only loopback targets
 * (127.0.0.0/8, ::1, localhost) are accepted. Interrupting the calling thread stops every user,
 * closes every socket and throws {@link InterruptedException}.
 *
 * <p>The client is cheap (about 0.04 ms of CPU per request, no HttpClient), so on two cores it
 * keeps a 5,000 req/s bound within a few percent.
 */
public final class HttpLoad {
    private HttpLoad() {}

    /** Guard: more users than this is almost certainly a typo (each needs two file descriptors). */
    public static final int MAX_USERS = 50_000;
    /** Longest run accepted. */
    public static final Duration MAX_DEADLINE = Duration.ofHours(1);
    /** Longest a user waits for its connection to open. */
    public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

    private static final long HIGHEST_MICROS = TimeUnit.HOURS.toMicros(1);
    private static final int MAX_LINE = 8192;

    /**
     * What a run measured. {@code requests} counts successful (200) answers, {@code errors} every
     * failed attempt; times are in milliseconds; NaN where nothing succeeded.
     */
    public record Result(int users, long requests, long errors, double elapsedSeconds, double throughput,
                         double meanMs, double minMs, double maxMs, double stdDevMs,
                         double p50Ms, double p90Ms, double p99Ms, long notIssued) {
        @Override
        public String toString() {
            return String.format(Locale.ROOT,
                    "%d users: %d ok, %d errors%s in %.3f s = %.1f req/s; latency ms: mean %.1f, min %.1f, max %.1f, "
                            + "std dev %.2f, p50 %.1f, p90 %.1f, p99 %.1f",
                    users, requests, errors, notIssued > 0 ? ", " + notIssued + " not issued (deadline)" : "",
                    elapsedSeconds, throughput, meanMs, minMs, maxMs, stdDevMs, p50Ms, p90Ms, p99Ms);
        }
    }

    /**
     * Runs the closed loop and waits for it.
     *
     * @param target          an {@code http://} URI on a loopback address, e.g. {@code SleepServer.uri()}
     * @param users           concurrent users, 1..50,000
     * @param requestsPerUser requests each user sends, >= 1
     * @param deadline        time budget of the whole call, > 0 and <= 1 h
     */
    public static Result run(URI target, int users, int requestsPerUser, Duration deadline) throws InterruptedException {
        InetSocketAddress address = loopbackAddress(target);
        if (users < 1 || users > MAX_USERS) {
            throw new IllegalArgumentException("users must be between 1 and " + MAX_USERS + ", got " + users);
        }
        if (requestsPerUser < 1) {
            throw new IllegalArgumentException("requestsPerUser must be >= 1, got " + requestsPerUser);
        }
        if (deadline == null || deadline.isNegative() || deadline.isZero() || deadline.compareTo(MAX_DEADLINE) > 0) {
            throw new IllegalArgumentException("deadline must be > 0 and <= 1 h, got " + deadline);
        }
        return new Run(address, requestBytes(target), users, requestsPerUser, deadline).execute();
    }

    /**
     * A run of well under a second measures whatever the JIT has not compiled yet: on 2 cores the
     * compiler threads compete with the load. So before measuring, up to 40 requests per user (20,000
     * for 500 users, at most 5 s) go through the same client and server code against a virtual-thread
     * server sleeping 5 ms. Not part of any measurement.
     */
    public static Result jitWarmUp(int users) throws InterruptedException {
        try (SleepServer warm = SleepServer.virtual(Duration.ofMillis(5))) {
            int perUser = Math.max(2, Math.min(40, 20_000 / Math.max(1, users)));
            return run(warm.uri(), users, perUser, Duration.ofSeconds(5));
        }
    }

    /** One request per user, not part of any measurement: lets the JIT and the server warm up. */
    public static Result warmUp(URI target, int users) throws InterruptedException {
        return run(target, users, 1, Duration.ofSeconds(30));
    }

    /** The socket address of a loopback http:// target; anything else is refused without a DNS lookup. */
    static InetSocketAddress loopbackAddress(URI target) {
        if (target == null) throw new IllegalArgumentException("target must be an http:// URI on loopback, got null");
        if (!"http".equalsIgnoreCase(target.getScheme())) {
            throw new IllegalArgumentException("target must be an http:// URI (no TLS), got " + target);
        }
        String host = target.getHost();
        if (host == null || host.isEmpty()) {
            throw new IllegalArgumentException("target has no host: " + target);
        }
        String bare = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
        InetAddress address = null;
        if (bare.equalsIgnoreCase("localhost")) {
            address = InetAddress.getLoopbackAddress();
        } else if (isIpLiteral(bare)) {
            try {
                address = InetAddress.getByName(bare); // a literal: parsed, never looked up
            } catch (UnknownHostException e) {
                address = null;
            }
        }
        if (address == null || !address.isLoopbackAddress()) {
            throw new IllegalArgumentException("HttpLoad only targets loopback (127.0.0.0/8, ::1); got " + host);
        }
        int port = target.getPort() == -1 ? 80 : target.getPort();
        return new InetSocketAddress(address, port);
    }

    private static boolean isIpLiteral(String host) {
        return host.matches("\\d{1,3}(\\.\\d{1,3}){3}") || (host.contains(":") && host.matches("[0-9A-Fa-f:.%]+"));
    }

    private static byte[] requestBytes(URI target) {
        String path = target.getRawPath() == null || target.getRawPath().isEmpty() ? "/" : target.getRawPath();
        if (target.getRawQuery() != null) path += "?" + target.getRawQuery();
        String host = target.getHost() + (target.getPort() == -1 ? "" : ":" + target.getPort());
        return ("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\nConnection: keep-alive\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
    }

    /** One run: the users, their shared histogram and the clock. */
    private static final class Run {
        final InetSocketAddress address;
        final byte[] request;
        final int users;
        final int requestsPerUser;
        final long deadlineNanos;
        final Recorder recorder = new Recorder(1, HIGHEST_MICROS, 3);
        final CountDownLatch connected;
        final CountDownLatch go = new CountDownLatch(1);
        volatile boolean stop;

        Run(InetSocketAddress address, byte[] request, int users, int requestsPerUser, Duration deadline) {
            this.address = address;
            this.request = request;
            this.users = users;
            this.requestsPerUser = requestsPerUser;
            this.deadlineNanos = System.nanoTime() + deadline.toNanos();
            this.connected = new CountDownLatch(users);
        }

        Result execute() throws InterruptedException {
            List<User> all = new ArrayList<>(users);
            List<Thread> threads = new ArrayList<>(users);
            boolean finished = false;
            long start = 0;
            try {
                var factory = Thread.ofVirtual().name("http-load-user-", 0).factory();
                for (int i = 0; i < users; i++) {
                    User u = new User(this);
                    all.add(u);
                    Thread t = factory.newThread(u);
                    threads.add(t);
                    t.start();
                }
                connected.await(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
                start = System.nanoTime();
                go.countDown();
                long graceNanos = TimeUnit.SECONDS.toNanos(2);
                for (Thread t : threads) {
                    long left = deadlineNanos + graceNanos - System.nanoTime();
                    if (left <= 0 || !t.join(Duration.ofNanos(left))) break;
                }
                finished = threads.stream().noneMatch(Thread::isAlive);
            } finally {
                if (!finished) {
                    // interrupted, or someone is stuck past the deadline: stop everybody, close every socket
                    stop = true;
                    go.countDown();
                    for (User u : all) u.closeSocket();
                    for (Thread t : threads) t.interrupt();
                    boolean interrupted = Thread.interrupted();
                    for (Thread t : threads) {
                        try {
                            t.join(Duration.ofSeconds(1));
                        } catch (InterruptedException e) {
                            interrupted = true;
                        }
                    }
                    if (interrupted) Thread.currentThread().interrupt();
                }
                for (User u : all) u.closeSocket();
            }
            if (Thread.currentThread().isInterrupted()) {
                throw new InterruptedException("HttpLoad interrupted; every user stopped and every socket closed");
            }
            return summarize(all, start);
        }

        Result summarize(List<User> all, long start) {
            long ok = 0, errors = 0, notIssued = 0, sum = 0, end = start;
            long min = Long.MAX_VALUE, max = Long.MIN_VALUE;
            double sumSq = 0;
            for (User u : all) {
                synchronized (u) {
                    ok += u.ok;
                    errors += u.errors;
                    notIssued += u.notIssued;
                    sum += u.sumNanos;
                    sumSq += u.sumSqMs;
                    if (u.ok > 0) {
                        min = Math.min(min, u.minNanos);
                        max = Math.max(max, u.maxNanos);
                    }
                    end = Math.max(end, u.lastEndNanos);
                }
            }
            Histogram h = recorder.getIntervalHistogram();
            double elapsed = (end - start) / 1e9;
            double nan = Double.NaN;
            if (ok == 0) {
                return new Result(users, 0, errors, elapsed, 0, nan, nan, nan, nan, nan, nan, nan, notIssued);
            }
            double meanMs = sum / 1e6 / ok;
            double variance = Math.max(0, sumSq / ok - meanMs * meanMs);
            double minMs = min / 1e6, maxMs = max / 1e6;
            // The histogram rounds to 3 significant digits; keep its percentiles inside the exact range.
            java.util.function.DoubleUnaryOperator pct =
                    q -> Math.min(maxMs, Math.max(minMs, h.getValueAtPercentile(q) / 1e3));
            return new Result(users, ok, errors, elapsed, elapsed > 0 ? ok / elapsed : nan,
                    meanMs, minMs, maxMs, Math.sqrt(variance),
                    pct.applyAsDouble(50), pct.applyAsDouble(90), pct.applyAsDouble(99), notIssued);
        }
    }

    /** One virtual user: its connection, its loop and its own tallies (merged at the end). */
    private static final class User implements Runnable {
        final Run run;
        volatile Socket socket;
        InputStream in;
        OutputStream out;
        final byte[] line = new byte[MAX_LINE];
        final byte[] skip = new byte[4096];
        long ok, errors, notIssued, sumNanos, lastEndNanos;
        long minNanos = Long.MAX_VALUE, maxNanos = Long.MIN_VALUE;
        double sumSqMs;

        User(Run run) {
            this.run = run;
        }

        @Override
        public void run() {
            int done = 0;
            try {
                try {
                    connect();
                } catch (IOException e) {
                    synchronized (this) { errors++; }
                    closeSocket();
                } finally {
                    run.connected.countDown();
                }
                try {
                    run.go.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (; done < run.requestsPerUser; done++) {
                    if (run.stop || Thread.currentThread().isInterrupted()) break;
                    long left = run.deadlineNanos - System.nanoTime();
                    if (left <= 0) break;
                    long t0 = System.nanoTime();
                    try {
                        Socket s = socket;
                        if (s == null) s = connect();
                        s.setSoTimeout((int) Math.max(1, Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(left))));
                        out.write(run.request);
                        out.flush();
                        int status = readResponse();
                        long t1 = System.nanoTime();
                        if (status == 200) record(t1 - t0, t1);
                        else fail(t1);
                    } catch (IOException e) { // includes SocketTimeoutException
                        fail(System.nanoTime());
                        closeSocket();
                    }
                }
            } finally {
                synchronized (this) { notIssued += run.requestsPerUser - done; }
                closeSocket();
            }
        }

        private synchronized void record(long nanos, long end) {
            ok++;
            sumNanos += nanos;
            double ms = nanos / 1e6;
            sumSqMs += ms * ms;
            if (nanos < minNanos) minNanos = nanos;
            if (nanos > maxNanos) maxNanos = nanos;
            lastEndNanos = end;
            run.recorder.recordValue(Math.min(HIGHEST_MICROS, Math.max(1, nanos / 1_000)));
        }

        private synchronized void fail(long end) {
            errors++;
            lastEndNanos = end;
        }

        private Socket connect() throws IOException {
            Socket s = new Socket();
            synchronized (this) { socket = s; }
            s.setTcpNoDelay(true);
            long left = TimeUnit.NANOSECONDS.toMillis(run.deadlineNanos - System.nanoTime());
            if (left <= 0) throw new SocketTimeoutException("deadline reached before connecting");
            s.connect(run.address, (int) Math.max(1, Math.min(CONNECT_TIMEOUT.toMillis(), left)));
            in = new BufferedInputStream(s.getInputStream(), 8192);
            out = s.getOutputStream();
            return s;
        }

        void closeSocket() {
            Socket s;
            synchronized (this) {
                s = socket;
                socket = null;
            }
            if (s != null) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        }

        /** Reads one response (status line, headers, body); returns the status code. */
        private int readResponse() throws IOException {
            int n = readLine();
            if (n < 0) throw new EOFException("connection closed by the server");
            String status = new String(line, 0, n, StandardCharsets.US_ASCII);
            int sp = status.indexOf(' ');
            if (!status.startsWith("HTTP/") || sp < 0 || status.length() < sp + 4) {
                throw new IOException("not an HTTP status line: " + status);
            }
            int code;
            try {
                code = Integer.parseInt(status.substring(sp + 1, sp + 4));
            } catch (NumberFormatException e) {
                throw new IOException("not an HTTP status line: " + status);
            }
            long contentLength = -1;
            boolean chunked = false, close = status.startsWith("HTTP/1.0");
            while ((n = readLine()) > 0) {
                String h = new String(line, 0, n, StandardCharsets.US_ASCII);
                int colon = h.indexOf(':');
                if (colon <= 0) continue;
                String name = h.substring(0, colon).trim().toLowerCase(Locale.ROOT);
                String value = h.substring(colon + 1).trim().toLowerCase(Locale.ROOT);
                switch (name) {
                    case "content-length" -> {
                        try {
                            contentLength = Long.parseLong(value);
                        } catch (NumberFormatException e) {
                            throw new IOException("bad Content-Length: " + value);
                        }
                    }
                    case "transfer-encoding" -> chunked = value.contains("chunked");
                    case "connection" -> close = value.contains("close") || (close && !value.contains("keep-alive"));
                    default -> { }
                }
            }
            if (n < 0) throw new EOFException("connection closed inside the headers");
            boolean noBody = (code >= 100 && code < 200) || code == 204 || code == 304;
            if (noBody) {
                // nothing to read
            } else if (chunked) {
                readChunked();
            } else if (contentLength >= 0) {
                skipFully(contentLength);
            } else {
                while (in.read(skip) >= 0) { } // body runs to the end of the connection
                close = true;
            }
            if (close) closeSocket();
            return code;
        }

        private void readChunked() throws IOException {
            while (true) {
                int n = readLine();
                if (n < 0) throw new EOFException("connection closed inside a chunked body");
                String size = new String(line, 0, n, StandardCharsets.US_ASCII);
                int semi = size.indexOf(';');
                long len;
                try {
                    len = Long.parseLong((semi >= 0 ? size.substring(0, semi) : size).trim(), 16);
                } catch (NumberFormatException e) {
                    throw new IOException("bad chunk size: " + size);
                }
                if (len == 0) {
                    while ((n = readLine()) > 0) { } // trailers
                    return;
                }
                skipFully(len);
                readLine(); // CRLF after the chunk
            }
        }

        private void skipFully(long count) throws IOException {
            while (count > 0) {
                int r = in.read(skip, 0, (int) Math.min(skip.length, count));
                if (r < 0) throw new EOFException("connection closed inside the body");
                count -= r;
            }
        }

        /** Reads one CRLF-terminated line into {@code line}; returns its length without CRLF, -1 at end of stream. */
        private int readLine() throws IOException {
            int n = 0;
            while (true) {
                int b = in.read();
                if (b < 0) return n == 0 ? -1 : n;
                if (b == '\n') return n > 0 && line[n - 1] == '\r' ? n - 1 : n;
                if (n == line.length) throw new IOException("response line longer than " + MAX_LINE + " bytes");
                line[n++] = (byte) b;
            }
        }
    }
}
