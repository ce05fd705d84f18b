//SOURCES ChildRun.java
//SOURCES HttpLoad.java
//SOURCES ../core/Json.java
//SOURCES ../core/Protocol.java
package unpinned.running;

import unpinned.core.Json;
import unpinned.core.Protocol;

import com.google.gson.JsonObject;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A server snippet running as its own JVM on 127.0.0.1, started and stopped by a notebook or
 * another snippet. {@link #start} runs it through the course's JBang with {@code --port 0
 * --control}, waits for its {@code @@ready} line (never a fixed sleep) and exposes its URI;
 * {@link #stats()} asks the server for its own CPU time, resident memory, heap and threads;
 * {@link #close()} always stops it (also after an interrupt), killing the process tree if it does
 * not stop by itself within a few seconds.
 *
 * <pre>{@code
 * try (var server = ServerProcess.start("S04_SleepServer.java", "--mode", "virtual", "--sleep-ms", "100")) {
 *     var before = server.stats();
 *     ... load server.uri() ...
 *     var usage = ServerProcess.Usage.between(before, server.stats(), requests);
 * }
 * }</pre>
 */
public final class ServerProcess implements AutoCloseable {
    /** First start of a snippet may compile it (and fetch its dependencies): allow for that. */
    public static final Duration READY_TIMEOUT = Duration.ofMinutes(3);
    public static final Duration STATS_TIMEOUT = Duration.ofSeconds(20);

    private final ChildRun child;
    private final URI uri;
    private final JsonObject ready;

    private ServerProcess(ChildRun child) {
        this.child = child;
        try {
            this.ready = Json.parse(child.await(Protocol.READY, READY_TIMEOUT)).getAsJsonObject();
            if (!ready.has("uri")) throw child.failure("said it was ready but named no \"uri\": " + ready);
            this.uri = URI.create(ready.get("uri").getAsString());
            HttpLoad.loopbackAddress(uri); // a course server binds loopback only; refuse anything else
        } catch (RuntimeException e) {
            child.close();
            throw e;
        }
    }

    /** Starts {@code snippets/<snippet>} with {@code args} plus {@code --control} (and {@code --port 0} unless a port is given). */
    public static ServerProcess start(String snippet, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        if (!all.contains("--port") && all.stream().noneMatch(a -> a.startsWith("--port="))) all.addAll(List.of("--port", "0"));
        all.add("--control");
        return new ServerProcess(ChildRun.snippet(snippet, all));
    }

    /** Where it listens, e.g. {@code http://127.0.0.1:40123/sleep}. */
    public URI uri() {
        return uri;
    }

    public long pid() {
        return child.pid();
    }

    /** What the server said about itself when it became ready (mode, threads...). */
    public JsonObject describe() {
        return ready;
    }

    /** A whole number the server said about itself when it became ready, e.g. {@code "eventLoops"}. */
    public int describedCount(String key) {
        if (ready == null || !ready.has(key) || !ready.get(key).isJsonPrimitive()) {
            throw new IllegalStateException(this + " did not say its " + key + " when it became ready: " + ready);
        }
        return ready.get(key).getAsInt();
    }

    /** The server's own figures now: cpuNanos, rssBytes, heapUsedBytes, liveThreads, osThreads, and its own counters. */
    public synchronized JsonObject stats() { // a live chart asks each second, the run at its window's ends
        child.send("stats");
        return Json.parse(child.await(Protocol.STATS, STATS_TIMEOUT)).getAsJsonObject();
    }

    /**
     * A server's resource use over a load run.
     *
     * @param cpuSeconds          process CPU time used during the run
     * @param cpuUsPerRequest     that CPU time per request answered, in microseconds
     * @param rssMb               resident memory at the end (NaN where the OS doesn't tell)
     * @param heapUsedMb          heap in use at the end (garbage included)
     * @param liveThreads         live platform threads at the end, as the JVM counts them
     * @param osThreads           operating-system threads of the process at the end (-1 where unknown)
     */
    public record Usage(double cpuSeconds, double cpuUsPerRequest, double rssMb, double heapUsedMb, int liveThreads,
                        int osThreads) {
        /** What the server used between two {@link #stats()} answers, for {@code requests} requests answered. */
        public static Usage between(JsonObject before, JsonObject after, long requests) {
            double cpu = (after.get("cpuNanos").getAsLong() - before.get("cpuNanos").getAsLong()) / 1e9;
            long rss = after.get("rssBytes").getAsLong();
            return new Usage(cpu, requests > 0 ? cpu * 1e6 / requests : Double.NaN,
                    rss < 0 ? Double.NaN : rss / 1048576.0, after.get("heapUsedBytes").getAsLong() / 1048576.0,
                    after.get("liveThreads").getAsInt(), after.get("osThreads").getAsInt());
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "server CPU %.2f s (%.0f µs/request), RSS %.0f MB, heap used %.0f MB,"
                    + " %d live threads", cpuSeconds, cpuUsPerRequest, rssMb, heapUsedMb, liveThreads);
        }
    }

    /** Asks the server to stop, waits a few seconds, then kills whatever is left of its process tree. */
    @Override
    public void close() {
        if (child.isAlive()) {
            try {
                child.send("stop");
            } catch (IllegalStateException e) {
                // its input is closed already: it is going down
            }
            child.closeInput();
        }
        child.stop(Duration.ofSeconds(5));
    }

    @Override
    public String toString() {
        return "ServerProcess[" + uri + ", pid " + child.pid() + "]";
    }
}
