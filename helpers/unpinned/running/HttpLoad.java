//DEPS org.hdrhistogram:HdrHistogram:2.2.2
//SOURCES ../core/Figure.java
//SOURCES ProcessStats.java
package unpinned.running;

import unpinned.core.Figure;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.SingleWriterRecorder;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.net.URI;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * The course's HTTP load generator, built like wrk: a few event-loop threads (one per core by
 * default), each driving its share of keep-alive connections with non-blocking sockets, so the
 * client spends a few microseconds of CPU per request and is not what limits a run on a small
 * machine.
 *
 * <p><b>Two ways to load a server.</b> Closed loop ({@code rate == 0}): each connection is a user
 * with no think time, sending its next request as soon as the previous answer arrives, so at most
 * {@code connections} requests are in flight; Little's law bounds the throughput to
 * min(connections, server concurrency) / service time. Open loop ({@code rate > 0}): requests are
 * due at a fixed total rate, spread evenly over the connections; a connection still waiting when
 * its next request is due sends it as soon as it can, and that request's latency counts from when
 * it was due (wrk2's correction for coordinated omission), so a slow server shows as latency
 * instead of silently lowering the offered load.
 *
 * <p><b>What is counted.</b> A run has a warm-up phase and a measured phase, both by time (as wrk
 * and JMH do). Connections start spread over the first part of the warm-up, so they don't hit the
 * server in lock-step. Only responses that complete inside the measured window count: throughput
 * is those responses divided by the window's length, and their latencies (from writing the request,
 * or from when it was due in an open loop, to its last byte) go into an HdrHistogram. Min, max,
 * mean and standard deviation are exact. The client's own CPU time during the window (its JVM's
 * process CPU time) divided by the counted responses is reported with every run.
 *
 * <p><b>Failures are counted, never thrown</b>: refused or reset connections, timeouts, statuses
 * outside 2xx, malformed answers. Each kind is tallied once with its count, so a dead server makes
 * one line, not thousands. Only loopback targets are accepted. Before it starts, the run checks
 * that the process may open enough files for its connections. Interrupting the calling thread
 * stops the event loops, closes every socket and throws {@link InterruptedException}.
 */
public final class HttpLoad {
    private HttpLoad() {}

    /** Guard: more connections than this is almost certainly a typo. */
    public static final int MAX_CONNECTIONS = 50_000;
    /** Longest run (warm-up plus measurement) accepted. */
    public static final Duration MAX_RUN = Duration.ofHours(1);
    /**
     * Refuses one generator run of {@code levels} measured windows of {@code duration}, the first after {@code warmUp}
     * and each further one after {@code levelWarmUp}, that would take longer than {@link #MAX_RUN} in all.
     */
    public static void requireRunLength(int levels, Duration warmUp, Duration levelWarmUp, Duration duration) {
        Duration total = warmUp.plus(duration).plus(levelWarmUp.plus(duration).multipliedBy(Math.max(0, levels - 1)));
        if (total.compareTo(MAX_RUN) > 0) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "%d level%s: warm-up %,.1f s + %d x %,.1f s"
                            + " measured + %d x %,.1f s of warm-up between levels = %,.0f s in one run; at most 1 h"
                            + " (3,600 s) allowed: fewer levels or shorter windows", levels, levels == 1 ? "" : "s",
                    warmUp.toMillis() / 1e3, levels, duration.toMillis() / 1e3, levels - 1, levelWarmUp.toMillis() / 1e3,
                    total.toMillis() / 1e3));
        }
    }

    /** Highest open-loop rate accepted, requests per second. */
    public static final double MAX_RATE = 1_000_000;
    /** File descriptors kept in reserve besides one per connection (the JVM's own jars, pipes, epoll). */
    public static final int SPARE_FILES = 64;

    private static final long HIGHEST_MICROS = TimeUnit.HOURS.toMicros(1);
    private static final int MAX_HEADER_BYTES = 16 * 1024;
    private static final long RETRY_AFTER_ERROR_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    /**
     * How to load the target.
     *
     * @param target      an {@code http://} URI on a loopback address
     * @param connections keep-alive connections (closed loop: users), 1..50,000
     * @param threads     event-loop threads, 1..connections (wrk's -t); 0 picks min(cores, connections)
     * @param warmUp      time before the measured window, >= 0 (connections ramp up in its first half, at most 1 s)
     * @param duration    the measured window, > 0
     * @param rate        total requests per second for an open loop, or 0 for a closed loop
     * @param timeout     longest wait for one answer before it counts as an error and the connection is renewed
     */
    public record Options(URI target, int connections, int threads, Duration warmUp, Duration duration, double rate,
                          Duration timeout) {
        public Options {
            loopbackAddress(target);
            if (connections < 1 || connections > MAX_CONNECTIONS) {
                throw new IllegalArgumentException(String.format(Locale.ROOT,
                        "connections must be a whole number from 1 to %,d; got %d", MAX_CONNECTIONS, connections));
            }
            if (threads == 0) threads = Math.min(Runtime.getRuntime().availableProcessors(), connections);
            if (threads < 1 || threads > connections) {
                throw new IllegalArgumentException("threads must be from 1 to the number of connections ("
                        + connections + "), or 0 for one per core; got " + threads);
            }
            if (warmUp == null || warmUp.isNegative()) {
                throw new IllegalArgumentException("warmUp must be 0 s or longer, got " + warmUp);
            }
            if (duration == null || duration.isNegative() || duration.isZero()) {
                throw new IllegalArgumentException("duration must be longer than 0 s, got " + duration);
            }
            if (warmUp.plus(duration).compareTo(MAX_RUN) > 0) {
                throw new IllegalArgumentException("warm-up plus duration must be at most 1 h, got " + warmUp.plus(duration));
            }
            if (!(rate >= 0 && rate <= MAX_RATE)) {
                throw new IllegalArgumentException(String.format(Locale.ROOT,
                        "rate must be 0 (closed loop) or a number of requests per second up to %,.0f; got %s", MAX_RATE, rate));
            }
            if (timeout == null || timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("timeout must be longer than 0 s, got " + timeout);
            }
        }

        /** A closed loop: {@code connections} users, no think time, default threads and a 30 s timeout. */
        public static Options closedLoop(URI target, int connections, Duration warmUp, Duration duration) {
            return new Options(target, connections, 0, warmUp, duration, 0, Duration.ofSeconds(30));
        }

        /** An open loop at {@code rate} requests per second over {@code connections} connections. */
        public static Options openLoop(URI target, int connections, double rate, Duration warmUp, Duration duration) {
            if (!(rate > 0)) throw new IllegalArgumentException("an open loop needs a rate > 0 requests per second, got " + rate);
            return new Options(target, connections, 0, warmUp, duration, rate, Duration.ofSeconds(30));
        }

        public boolean closed() {
            return rate == 0;
        }
    }

    /**
     * What a run measured, inside the measured window only (times in ms; NaN where nothing succeeded).
     *
     * @param requests            2xx responses completed inside the window
     * @param errors              failures inside the window (all kinds)
     * @param errorKinds          every failure of the whole run (warm-up too) by kind, with its count
     * @param clientCpuUsPerRequest the client JVM's CPU time in the window, in microseconds, per counted response
     */
    public record Result(String loop, int connections, int threads, double rate, long requests, long errors,
                         double seconds, double throughput, double meanMs, double minMs, double maxMs,
                         double stdDevMs, double p50Ms, double p90Ms, double p99Ms, double p999Ms,
                         double clientCpuUsPerRequest, long warmUpRequests, Map<String, Long> errorKinds,
                         double[] perSecondThroughput, double[] perSecondMeanMs, double[] perSecondP99Ms,
                         double[] perSecondMaxMs, double[] perSecondStdDevMs) {
        /** A result with no per-second tails (as before they were kept): its p99, max and std dev have no spread. */
        public Result(String loop, int connections, int threads, double rate, long requests, long errors, double seconds,
                      double throughput, double meanMs, double minMs, double maxMs, double stdDevMs, double p50Ms,
                      double p90Ms, double p99Ms, double p999Ms, double clientCpuUsPerRequest, long warmUpRequests,
                      Map<String, Long> errorKinds, double[] perSecondThroughput, double[] perSecondMeanMs) {
            this(loop, connections, threads, rate, requests, errors, seconds, throughput, meanMs, minMs, maxMs, stdDevMs,
                    p50Ms, p90Ms, p99Ms, p999Ms, clientCpuUsPerRequest, warmUpRequests, errorKinds, perSecondThroughput,
                    perSecondMeanMs, null, null, null);
        }

        /** Throughput with its 95 % interval over the window's seconds (a spread of none for a one-second window). */
        public Figure throughputFigure() {
            return perSecondThroughput == null || perSecondThroughput.length == 0 ? Figure.single(throughput)
                    : Figure.samples(perSecondThroughput, "seconds of the load window").at(throughput);
        }

        /** Mean latency with its 95 % interval over the window's seconds. */
        public Figure meanMsFigure() {
            return perSecondMeanMs == null || perSecondMeanMs.length == 0 ? Figure.single(meanMs)
                    : Figure.samples(perSecondMeanMs, "seconds of the load window").at(meanMs);
        }

        /** The window's 99th percentile latency, with the spread of each second's own p99 around it. */
        public Figure p99MsFigure() {
            return around(p99Ms, perSecondP99Ms);
        }

        /** The window's slowest answer, with the spread of each second's slowest around it. */
        public Figure maxMsFigure() {
            return around(maxMs, perSecondMaxMs);
        }

        /** The window's latency standard deviation, with the spread of each second's own around it. */
        public Figure stdDevMsFigure() {
            return around(stdDevMs, perSecondStdDevMs);
        }

        private static Figure around(double value, double[] perSecond) {
            return perSecond == null || perSecond.length == 0 || !Double.isFinite(value) ? Figure.single(value)
                    : Figure.samples(perSecond, "seconds of the load window").at(value);
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT,
                    "%s loop, %d connections%s: %,d ok, %,d errors in %.1f s = %,.1f req/s; latency ms: mean %.1f,"
                            + " min %.1f, p50 %.1f, p99 %.1f, max %.1f, std dev %.2f; client CPU %.1f µs/request",
                    loop, connections, rate > 0 ? String.format(Locale.ROOT, " at %,.0f req/s", rate) : "",
                    requests, errors, seconds, throughput, meanMs, minMs, p50Ms, p99Ms, maxMs, stdDevMs,
                    clientCpuUsPerRequest);
        }
    }

    /**
     * What a run tells while it runs: a progress line about once a second, each followed by that second's sample,
     * and the edges of the measured window.
     */
    public interface Listener {
        default void progress(String line) { }

        /**
         * The second just past, warm-up included: answers per second and their 99th percentile latency in ms (NaN
         * when none completed).
         */
        default void sample(double requestsPerSecond, double p99Ms) { }

        default void windowStarted() { }

        default void windowEnded() { }
    }

    /** Runs the load quietly. */
    public static Result run(Options o) throws InterruptedException {
        return run(o, new Listener() { });
    }

    /**
     * Runs the load and waits for it, telling {@code listener} its progress (phase, elapsed, current rate,
     * errors so far) and when the measured window starts and ends.
     *
     * @throws IllegalStateException the process may not open enough files for the connections
     */
    public static Result run(Options o, Listener listener) throws InterruptedException {
        if (o == null) throw new IllegalArgumentException("options must not be null");
        if (listener == null) throw new IllegalArgumentException("listener must not be null");
        requireOpenFiles(o.connections() + SPARE_FILES, o.connections() + " connections");
        return new Run(o, listener).execute();
    }

    /** The most files this process may open ({@code ulimit -n}); Long.MAX_VALUE where the JVM can't tell (not Unix). */
    public static long openFilesLimit() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean os) {
            return os.getMaxFileDescriptorCount();
        }
        return Long.MAX_VALUE;
    }

    /**
     * Refuses to start when this process may not open {@code needed} more files (each connection is one):
     * the message names the limit and how to raise it. Where the JVM can't tell (not Unix), it passes.
     */
    public static void requireOpenFiles(long needed, String forWhat) {
        if (!(ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean os)) {
            return;
        }
        long limit = os.getMaxFileDescriptorCount(), open = os.getOpenFileDescriptorCount();
        checkOpenFiles(needed, forWhat, limit, open);
    }

    static void checkOpenFiles(long needed, String forWhat, long limit, long open) {
        if (open + needed > limit) {
            throw new IllegalStateException(String.format(Locale.ROOT,
                    "%s need about %,d open files but this process may open %,d (%,d already open; `ulimit -n`);"
                            + " raise the limit, e.g. `ulimit -n 65536` in the shell that starts JupyterLab or the snippet,"
                            + " or use fewer connections", forWhat, needed, limit, open));
        }
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

    static byte[] requestBytes(URI target) {
        String path = target.getRawPath() == null || target.getRawPath().isEmpty() ? "/" : target.getRawPath();
        if (target.getRawQuery() != null) path += "?" + target.getRawQuery();
        String host = target.getHost() + (target.getPort() == -1 ? "" : ":" + target.getPort());
        return ("GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII);
    }

    // ------------------------------------------------------------------------------------------ the run

    /** One run: its clock, its event loops and what they counted. */
    private static final class Run {
        final Options o;
        final Listener listener;
        final InetSocketAddress address;
        final byte[] request;
        final long start, measureStart, end, rampNanos, timeoutNanos;
        final LongAdder completed = new LongAdder();
        final LongAdder failed = new LongAdder();
        volatile boolean stop;
        volatile long cpuAtMeasureStart = -1;
        /** The client JVM's CPU time over the measured window, or -1 if the window never started. */
        long cpuWindowNanos = -1;
        /** Each whole second of the window: its completions per second, and its answers' mean, p99, max, std dev (ms). */
        double[] perSecondThroughput = {}, perSecondMeanMs = {}, perSecondP99Ms = {}, perSecondMaxMs = {},
                perSecondStdDevMs = {};

        Run(Options o, Listener listener) {
            this.o = o;
            this.listener = listener;
            this.address = loopbackAddress(o.target());
            this.request = requestBytes(o.target());
            this.start = System.nanoTime();
            this.measureStart = start + o.warmUp().toNanos();
            this.end = measureStart + o.duration().toNanos();
            this.rampNanos = Math.min(o.warmUp().toNanos() / 2, TimeUnit.SECONDS.toNanos(1));
            this.timeoutNanos = o.timeout().toNanos();
        }

        Result execute() throws InterruptedException {
            List<Loop> loops = new ArrayList<>();
            List<Thread> threads = new ArrayList<>();
            try {
                for (int t = 0; t < o.threads(); t++) {
                    // connections t, t + threads, t + 2 x threads...: the ramp stays even across the loops
                    List<Integer> mine = new ArrayList<>();
                    for (int c = t; c < o.connections(); c += o.threads()) mine.add(c);
                    Loop loop = new Loop(this, mine);
                    loops.add(loop);
                    threads.add(Thread.ofPlatform().daemon(true).name("http-load-" + t).start(loop));
                }
                report(loops, threads);
            } finally {
                stop = true;
                for (Loop l : loops) l.selector.wakeup();
                boolean interrupted = Thread.interrupted();
                for (Thread t : threads) {
                    while (t.isAlive()) {
                        try {
                            t.join();
                        } catch (InterruptedException e) {
                            interrupted = true;
                        }
                    }
                }
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
            if (Thread.currentThread().isInterrupted()) {
                throw new InterruptedException("HttpLoad interrupted; every connection closed");
            }
            for (Loop l : loops) {
                if (l.crash != null) throw new IllegalStateException("an event loop of HttpLoad failed: " + l.crash, l.crash);
            }
            return summarize(loops);
        }

        /** Waits for the end of the run, printing a progress line and a sample about once a second. */
        private void report(List<Loop> loops, List<Thread> threads) throws InterruptedException {
            long lastCount = 0, lastTime = start;
            Histogram second = new Histogram(1, HIGHEST_MICROS, 2);
            List<Double> windowRates = new ArrayList<>(), windowMeans = new ArrayList<>(), windowP99s = new ArrayList<>(),
                    windowMaxes = new ArrayList<>(), windowStdDevs = new ArrayList<>();
            boolean measuring = false;
            while (true) {
                long now = System.nanoTime();
                if (!measuring && now >= measureStart) {
                    measuring = true;
                    cpuAtMeasureStart = ProcessStats.cpuNanos();
                    listener.windowStarted();
                }
                if (now >= end || threads.stream().noneMatch(Thread::isAlive)) break;
                long next = Math.min(end, measuring ? now + TimeUnit.SECONDS.toNanos(1)
                        : Math.min(measureStart, now + TimeUnit.SECONDS.toNanos(1)));
                TimeUnit.NANOSECONDS.sleep(Math.max(1, next - now)); // throws when interrupted
                now = System.nanoTime();
                long count = completed.sum();
                double rate = (count - lastCount) / ((now - lastTime) / 1e9);
                long sliceStart = lastTime;
                lastCount = count;
                lastTime = now;
                boolean inWindow = now > measureStart;
                double phase = (now - (inWindow ? measureStart : start)) / 1e9;
                double phaseLength = (inWindow ? o.duration() : o.warmUp()).toNanos() / 1e9;
                listener.progress(String.format(Locale.ROOT, "%s %.0f/%.0f s · %,.0f req/s · %,d errors",
                        inWindow ? "measuring" : "warm-up", Math.min(phase, phaseLength), phaseLength, rate, failed.sum()));
                second.reset();
                for (Loop l : loops) second.add(l.recent.getIntervalHistogram());
                listener.sample(rate, second.getTotalCount() == 0 ? Double.NaN : second.getValueAtPercentile(99) / 1e3);
                // a whole second inside the window is one sample of the window's spread
                if (sliceStart >= measureStart && now - sliceStart >= TimeUnit.MILLISECONDS.toNanos(900)
                        && second.getTotalCount() > 0) {
                    windowRates.add(rate);
                    windowMeans.add(second.getMean() / 1e3);
                    windowP99s.add(second.getValueAtPercentile(99) / 1e3);
                    windowMaxes.add(second.getMaxValue() / 1e3);
                    windowStdDevs.add(second.getStdDeviation() / 1e3);
                }
            }
            perSecondThroughput = windowRates.stream().mapToDouble(Double::doubleValue).toArray();
            perSecondMeanMs = windowMeans.stream().mapToDouble(Double::doubleValue).toArray();
            perSecondP99Ms = windowP99s.stream().mapToDouble(Double::doubleValue).toArray();
            perSecondMaxMs = windowMaxes.stream().mapToDouble(Double::doubleValue).toArray();
            perSecondStdDevMs = windowStdDevs.stream().mapToDouble(Double::doubleValue).toArray();
            long cpuEnd = ProcessStats.cpuNanos();
            stop = true;
            listener.windowEnded();
            cpuWindowNanos = cpuAtMeasureStart < 0 ? -1 : cpuEnd - cpuAtMeasureStart;
        }

        Result summarize(List<Loop> loops) {
            Histogram h = new Histogram(1, HIGHEST_MICROS, 3);
            long ok = 0, errors = 0, warm = 0, sumNanos = 0, min = Long.MAX_VALUE, max = Long.MIN_VALUE;
            double sumSqMs = 0;
            Map<String, Long> kinds = new LinkedHashMap<>();
            long cpu = cpuWindowNanos;
            for (Loop l : loops) {
                h.add(l.histogram);
                ok += l.ok;
                errors += l.errors;
                warm += l.warmUpOk;
                sumNanos += l.sumNanos;
                sumSqMs += l.sumSqMs;
                if (l.ok > 0) {
                    min = Math.min(min, l.minNanos);
                    max = Math.max(max, l.maxNanos);
                }
                l.errorKinds.forEach((k, v) -> kinds.merge(k, v, Long::sum));
            }
            double seconds = o.duration().toNanos() / 1e9;
            double nan = Double.NaN;
            String loop = o.closed() ? "closed" : "open";
            if (ok == 0) {
                return new Result(loop, o.connections(), o.threads(), o.rate(), 0, errors, seconds, 0,
                        nan, nan, nan, nan, nan, nan, nan, nan, nan, warm, kinds, perSecondThroughput, perSecondMeanMs,
                        perSecondP99Ms, perSecondMaxMs, perSecondStdDevMs);
            }
            double meanMs = sumNanos / 1e6 / ok;
            double minMs = min / 1e6, maxMs = max / 1e6;
            double variance = Math.max(0, sumSqMs / ok - meanMs * meanMs);
            // The histogram rounds to 3 significant digits; keep its percentiles inside the exact range.
            java.util.function.DoubleUnaryOperator pct =
                    q -> Math.min(maxMs, Math.max(minMs, h.getValueAtPercentile(q) / 1e3));
            return new Result(loop, o.connections(), o.threads(), o.rate(), ok, errors, seconds, ok / seconds,
                    meanMs, minMs, maxMs, Math.sqrt(variance), pct.applyAsDouble(50), pct.applyAsDouble(90),
                    pct.applyAsDouble(99), pct.applyAsDouble(99.9), cpu < 0 ? nan : cpu / 1e3 / ok, warm, kinds,
                    perSecondThroughput, perSecondMeanMs, perSecondP99Ms, perSecondMaxMs, perSecondStdDevMs);
        }
    }

    /** One event loop: a selector and its share of the connections, with its own tallies (merged at the end). */
    private static final class Loop implements Runnable {
        final Run run;
        final Selector selector;
        final List<Conn> conns = new ArrayList<>();
        /** Connections waiting to send, by when they may (ramp start, open-loop schedule, retry after an error). */
        final PriorityQueue<Conn> due = new PriorityQueue<>((a, b) -> Long.compare(a.dueAt, b.dueAt));
        final ByteBuffer readBuffer = ByteBuffer.allocateDirect(64 * 1024);
        final Histogram histogram = new Histogram(1, HIGHEST_MICROS, 3);
        /** Every answer's latency since the reporter last asked (warm-up too), to 2 digits: each second's p99. */
        final SingleWriterRecorder recent = new SingleWriterRecorder(1, HIGHEST_MICROS, 2);
        final Map<String, Long> errorKinds = new LinkedHashMap<>();
        long ok, errors, warmUpOk, sumNanos, minNanos = Long.MAX_VALUE, maxNanos = Long.MIN_VALUE;
        double sumSqMs;
        volatile Throwable crash;

        Loop(Run run, List<Integer> ids) {
            this.run = run;
            try {
                this.selector = Selector.open();
            } catch (IOException e) {
                throw new IllegalStateException("cannot open a selector: " + e.getMessage(), e);
            }
            long interval = run.o.closed() ? 0 : (long) (1e9 * run.o.connections() / run.o.rate());
            // The request in native memory, one view per connection: a write from a heap buffer would copy it first
            ByteBuffer request = ByteBuffer.allocateDirect(run.request.length).put(run.request).flip();
            for (int id : ids) {
                Conn c = new Conn(request.duplicate());
                // Spread the first requests: over the ramp for a closed loop, over one interval for an open one.
                long offset = run.o.closed() ? run.rampNanos * id / run.o.connections() : interval * id / run.o.connections();
                c.interval = interval;
                c.dueAt = run.start + offset;
                conns.add(c);
                c.queued = true;
                due.add(c);
            }
        }

        @Override
        public void run() {
            try {
                loop();
            } catch (Throwable t) {
                crash = t;
            } finally {
                for (Conn c : conns) c.close();
                try {
                    selector.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        }

        private void loop() throws IOException {
            long nextTimeoutCheck = 0;
            while (!run.stop) {
                long now = System.nanoTime();
                if (now >= run.end) break;
                while (!due.isEmpty() && due.peek().dueAt <= now) {
                    Conn c = due.poll();
                    c.queued = false;
                    send(c, now);
                }
                long wait = Math.min(run.end - now, TimeUnit.MILLISECONDS.toNanos(100));
                if (!due.isEmpty()) wait = Math.min(wait, due.peek().dueAt - now);
                if (wait <= 0) {
                    selector.selectNow(this::ready);
                } else {
                    selector.select(this::ready, Math.max(1, TimeUnit.NANOSECONDS.toMillis(wait + 999_999)));
                }
                now = System.nanoTime();
                if (now >= nextTimeoutCheck) {
                    nextTimeoutCheck = now + TimeUnit.MILLISECONDS.toNanos(50);
                    for (Conn c : conns) {
                        if (c.waiting && now - c.sentAt > run.timeoutNanos) fail(c, "timeout: no answer in " + run.o.timeout(), now);
                    }
                }
            }
        }

        /** One connection the selector found ready: connected, writable or readable. */
        private void ready(SelectionKey key) {
            Conn c = (Conn) key.attachment();
            if (!key.isValid()) return;
            try {
                int ops = key.readyOps();
                if ((ops & SelectionKey.OP_CONNECT) != 0) connected(c);
                else if ((ops & SelectionKey.OP_WRITE) != 0) write(c);
                else if ((ops & SelectionKey.OP_READ) != 0) read(c);
            } catch (IOException | RuntimeException e) {
                fail(c, kind(e), System.nanoTime());
            }
        }

        /** Sends the connection's next request, connecting first if it has no socket. */
        private void send(Conn c, long now) {
            c.latencyFrom = run.o.closed() ? now : c.dueAt; // open loop: latency counts from when it was due
            try {
                if (c.channel == null) {
                    c.channel = SocketChannel.open();
                    c.channel.configureBlocking(false);
                    c.channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    c.sentAt = now;
                    c.waiting = true;
                    if (c.channel.connect(run.address)) {
                        c.key = c.channel.register(selector, 0, c);
                        c.parser.reset();
                        c.out.clear();
                        write(c);
                    } else {
                        c.key = c.channel.register(selector, SelectionKey.OP_CONNECT, c);
                    }
                    return;
                }
                c.sentAt = now;
                c.waiting = true;
                c.parser.reset();
                c.out.clear();
                write(c);
            } catch (IOException | RuntimeException e) {
                fail(c, kind(e), System.nanoTime());
            }
        }

        private void connected(Conn c) throws IOException {
            c.channel.finishConnect();
            c.parser.reset();
            c.out.clear();
            write(c);
        }

        private void write(Conn c) throws IOException {
            c.channel.write(c.out);
            c.key.interestOps(c.out.hasRemaining() ? SelectionKey.OP_WRITE : SelectionKey.OP_READ);
        }

        private void read(Conn c) throws IOException {
            readBuffer.clear();
            int n = c.channel.read(readBuffer);
            if (n < 0 && !c.waiting) {
                c.close(); // the server closed an idle connection: the next request opens a new one
                return;
            }
            if (n < 0) {
                if (c.parser.endOfStream()) {
                    completed(c, System.nanoTime()); // closes this connection; the next request opens a new one
                    return;
                }
                throw new IOException("connection closed by the server");
            }
            readBuffer.flip();
            if (!c.waiting) throw new IOException("bytes arrived with no request outstanding");
            if (c.parser.feed(readBuffer)) {
                if (readBuffer.hasRemaining()) throw new IOException("more bytes than one response");
                completed(c, System.nanoTime());
            }
        }

        private void completed(Conn c, long now) {
            c.waiting = false;
            if (c.parser.status() < 200 || c.parser.status() > 299) {
                fail(c, "HTTP status " + c.parser.status(), now);
                return;
            }
            if (!c.parser.keepAlive()) c.close();
            long nanos = now - c.latencyFrom;
            recent.recordValue(Math.max(1, Math.min(HIGHEST_MICROS, nanos / 1_000)));
            if (now >= run.measureStart && now < run.end) {
                ok++;
                sumNanos += nanos;
                double ms = nanos / 1e6;
                sumSqMs += ms * ms;
                minNanos = Math.min(minNanos, nanos);
                maxNanos = Math.max(maxNanos, nanos);
                histogram.recordValue(Math.max(1, Math.min(HIGHEST_MICROS, nanos / 1_000)));
            } else if (now < run.measureStart) {
                warmUpOk++;
            }
            run.completed.increment();
            schedule(c, now, 0);
        }

        private void fail(Conn c, String kind, long now) {
            c.waiting = false;
            c.close();
            errorKinds.merge(kind, 1L, Long::sum);
            if (now >= run.measureStart && now < run.end) errors++;
            run.failed.increment();
            // an idle connection of an open loop is waiting in the schedule already: it reconnects at its slot
            if (!c.queued) schedule(c, now, RETRY_AFTER_ERROR_NANOS); // no busy spin against a dead server
        }

        /** Closed loop: next request at once; open loop: at its slot in the schedule (at once if late). */
        private void schedule(Conn c, long now, long delay) {
            if (run.o.closed()) c.dueAt = now + delay;
            else c.dueAt = delay > 0 ? Math.max(c.dueAt + c.interval, now + delay) : c.dueAt + c.interval; // late stays late
            if (c.dueAt <= now && delay == 0) {
                send(c, now);
            } else {
                c.queued = true;
                due.add(c);
            }
        }

        private static String kind(Throwable e) {
            String m = e.getMessage();
            return e.getClass().getSimpleName() + (m == null ? "" : ": " + m);
        }
    }

    /** One keep-alive connection and the request it is working on. */
    private static final class Conn {
        final ByteBuffer out;
        final ResponseParser parser = new ResponseParser();
        SocketChannel channel;
        SelectionKey key;
        long dueAt, interval, sentAt, latencyFrom;
        /** A request is out and its answer not yet read. */
        boolean waiting;
        /** In the loop's schedule ({@code due}), waiting for its time to send. */
        boolean queued;

        Conn(ByteBuffer request) {
            this.out = request;
        }

        void close() {
            SocketChannel ch = channel;
            channel = null;
            key = null;
            if (ch != null) {
                try {
                    ch.close(); // also cancels its key
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------------ parsing

    /**
     * An incremental HTTP/1.1 response parser: status line and headers, then a body framed by
     * Content-Length, chunked transfer-encoding, or the end of the connection. Fed whatever bytes
     * arrive; says when one whole response has been read. It reads the headers as bytes, in place:
     * no string is made for a well-formed response, so a request costs the client no garbage.
     */
    static final class ResponseParser {
        private enum State { HEADERS, BODY, CHUNK_SIZE, CHUNK_DATA, CHUNK_END, TRAILERS, UNTIL_CLOSE, DONE }

        private static final byte[] CONTENT_LENGTH = ascii("content-length");
        private static final byte[] TRANSFER_ENCODING = ascii("transfer-encoding");
        private static final byte[] CONNECTION = ascii("connection");
        private static final byte[] CHUNKED = ascii("chunked");
        private static final byte[] CLOSE = ascii("close");
        private static final byte[] KEEP_ALIVE = ascii("keep-alive");
        private static final int MAX_LINE = 1024;

        private final byte[] header = new byte[MAX_HEADER_BYTES];
        private int headerLength;
        private State state = State.HEADERS;
        private long remaining;
        private int status;
        private boolean keepAlive;
        private final byte[] line = new byte[MAX_LINE + 1];
        private int lineLength;

        void reset() {
            state = State.HEADERS;
            headerLength = 0;
            remaining = 0;
            status = 0;
            keepAlive = true;
            lineLength = 0;
        }

        int status() {
            return status;
        }

        boolean keepAlive() {
            return keepAlive;
        }

        /** The connection ended: true if that ends a body that runs to the end of the connection. */
        boolean endOfStream() {
            if (state == State.UNTIL_CLOSE) {
                state = State.DONE;
                keepAlive = false;
                return true;
            }
            return false;
        }

        /** Consumes bytes of {@code in} up to the end of the response; true once the response is complete. */
        boolean feed(ByteBuffer in) throws IOException {
            while (in.hasRemaining() && state != State.DONE) {
                switch (state) {
                    case HEADERS -> headers(in);
                    case BODY -> {
                        int skip = (int) Math.min(remaining, in.remaining());
                        in.position(in.position() + skip);
                        remaining -= skip;
                        if (remaining == 0) state = State.DONE;
                    }
                    case CHUNK_SIZE, CHUNK_END, TRAILERS -> chunkLine(in);
                    case CHUNK_DATA -> {
                        int skip = (int) Math.min(remaining, in.remaining());
                        in.position(in.position() + skip);
                        remaining -= skip;
                        if (remaining == 0) state = State.CHUNK_END;
                    }
                    case UNTIL_CLOSE -> in.position(in.limit());
                    case DONE -> { }
                }
            }
            return state == State.DONE;
        }

        /** Copies what arrived of the headers and, once their blank line is in, gives back what follows it. */
        private void headers(ByteBuffer in) throws IOException {
            if (headerLength == header.length) throw new IOException("response headers longer than " + MAX_HEADER_BYTES + " bytes");
            int before = headerLength, start = in.position();
            int n = Math.min(in.remaining(), header.length - headerLength);
            in.get(header, headerLength, n);
            headerLength += n;
            for (int i = Math.max(3, before); i < headerLength; i++) { // the blank line may straddle two reads
                if (header[i] == '\n' && header[i - 1] == '\r' && header[i - 2] == '\n' && header[i - 3] == '\r') {
                    headerLength = i + 1;
                    in.position(start + (headerLength - before));
                    headersDone();
                    return;
                }
            }
        }

        /** One line of the chunked framing (a size, the CRLF after a chunk, a trailer), read byte by byte: rare. */
        private void chunkLine(ByteBuffer in) throws IOException {
            byte b = in.get();
            if (b != '\n') {
                if (lineLength == MAX_LINE) throw new IOException("chunk line too long");
                line[lineLength++] = b;
                return;
            }
            int from = 0, to = lineLength;
            lineLength = 0;
            while (from < to && isSpace(line[from])) from++;
            while (to > from && isSpace(line[to - 1])) to--;
            if (state == State.CHUNK_END) {
                if (to > from) throw new IOException("missing CRLF after a chunk");
                state = State.CHUNK_SIZE;
            } else if (state == State.TRAILERS) {
                if (to == from) state = State.DONE;
            } else {
                int end = from;
                while (end < to && line[end] != ';') end++;
                while (end > from && isSpace(line[end - 1])) end--;
                remaining = hex(line, from, end);
                state = remaining == 0 ? State.TRAILERS : State.CHUNK_DATA;
            }
        }

        private static long hex(byte[] b, int from, int to) throws IOException {
            long v = 0;
            boolean ok = from < to;
            for (int i = from; ok && i < to; i++) {
                int d = Character.digit(b[i], 16);
                ok = d >= 0 && v <= (Long.MAX_VALUE >> 4);
                v = v * 16 + d;
            }
            if (!ok) {
                throw new IOException("bad chunk size: " + new String(b, from, to - from, StandardCharsets.ISO_8859_1));
            }
            return v;
        }

        /** The status line and the headers that frame the body, read from the header bytes. */
        private void headersDone() throws IOException {
            int end = headerLength - 4; // the headers without their blank line
            int eol = lineEnd(0, end);
            if (eol < 12 || !startsWith(header, 0, "HTTP/1.") || header[8] != ' ') {
                String first = new String(header, 0, Math.min(eol, 40), StandardCharsets.ISO_8859_1);
                throw new IOException("not an HTTP/1.x status line: " + first);
            }
            int code = 0;
            for (int i = 9; i < 12; i++) {
                int d = header[i] - '0';
                if (d < 0 || d > 9) {
                    throw new IOException("not an HTTP status line: " + new String(header, 0, eol, StandardCharsets.ISO_8859_1));
                }
                code = code * 10 + d;
            }
            status = code;
            keepAlive = header[7] == '1'; // HTTP/1.1 keeps the connection unless it says otherwise
            long length = -1;
            boolean chunked = false;
            for (int from = eol + 2; from < end; ) {
                int to = lineEnd(from, end);
                int colon = indexOf(header, from, to, (byte) ':');
                if (colon > from) {
                    int ns = from, ne = colon, vs = colon + 1, ve = to;
                    while (ns < ne && isSpace(header[ns])) ns++;
                    while (ne > ns && isSpace(header[ne - 1])) ne--;
                    while (vs < ve && isSpace(header[vs])) vs++;
                    while (ve > vs && isSpace(header[ve - 1])) ve--;
                    if (named(ns, ne, CONTENT_LENGTH)) {
                        length = decimal(vs, ve);
                    } else if (named(ns, ne, TRANSFER_ENCODING)) {
                        chunked = contains(vs, ve, CHUNKED);
                    } else if (named(ns, ne, CONNECTION)) {
                        if (contains(vs, ve, CLOSE)) keepAlive = false;
                        else if (contains(vs, ve, KEEP_ALIVE)) keepAlive = true;
                    }
                }
                from = to + 2;
            }
            boolean noBody = (status >= 100 && status < 200) || status == 204 || status == 304;
            if (noBody || length == 0) {
                state = State.DONE;
            } else if (chunked) {
                state = State.CHUNK_SIZE;
            } else if (length > 0) {
                remaining = length;
                state = State.BODY;
            } else {
                state = State.UNTIL_CLOSE;
                keepAlive = false;
            }
        }

        /** Where the line starting at {@code from} ends: its CR of CRLF, or {@code end}. */
        private int lineEnd(int from, int end) {
            for (int i = from; i + 1 < end; i++) {
                if (header[i] == '\r' && header[i + 1] == '\n') return i;
            }
            return end;
        }

        private long decimal(int from, int to) throws IOException {
            long v = 0;
            for (int i = from; i < to; i++) {
                int d = header[i] - '0';
                if (d < 0 || d > 9 || v > (Long.MAX_VALUE - 9) / 10) {
                    throw new IOException("bad Content-Length: "
                            + new String(header, from, to - from, StandardCharsets.ISO_8859_1).toLowerCase(Locale.ROOT));
                }
                v = v * 10 + d;
            }
            if (from == to) throw new IOException("bad Content-Length: ");
            return v;
        }

        /** The header name in [from, to) is {@code lower}, in any case. */
        private boolean named(int from, int to, byte[] lower) {
            if (to - from != lower.length) return false;
            for (int i = 0; i < lower.length; i++) {
                if (lowerCase(header[from + i]) != lower[i]) return false;
            }
            return true;
        }

        /** The header value in [from, to) contains {@code lower}, in any case. */
        private boolean contains(int from, int to, byte[] lower) {
            outer:
            for (int i = from; i + lower.length <= to; i++) {
                for (int j = 0; j < lower.length; j++) {
                    if (lowerCase(header[i + j]) != lower[j]) continue outer;
                }
                return true;
            }
            return false;
        }

        private static int indexOf(byte[] b, int from, int to, byte value) {
            for (int i = from; i < to; i++) {
                if (b[i] == value) return i;
            }
            return -1;
        }

        private static boolean startsWith(byte[] b, int at, String prefix) {
            for (int i = 0; i < prefix.length(); i++) {
                if (b[at + i] != prefix.charAt(i)) return false;
            }
            return true;
        }

        private static byte lowerCase(byte b) {
            return b >= 'A' && b <= 'Z' ? (byte) (b + ('a' - 'A')) : b;
        }

        private static boolean isSpace(byte b) {
            return b == ' ' || b == '\t' || b == '\r';
        }

        private static byte[] ascii(String s) {
            return s.getBytes(StandardCharsets.US_ASCII);
        }
    }
}
