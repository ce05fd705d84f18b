package unpinned;

import com.google.gson.JsonObject;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One load run against a server in its own JVM, with the load generator in another JVM of its own
 * (snippet S05, alias {@code http-load}): the notebook's JVM only orchestrates, so neither side's
 * numbers include the notebook. The server's own figures are read just before and just after the
 * measured window (the generator says when it starts and ends), so its CPU per request, memory and
 * threads come with every measurement.
 *
 * <pre>{@code
 * try (var server = ServerProcess.start("S04_SleepServer.java", "--mode", "virtual")) {
 *     var m = LoadTest.measure(server, HttpLoad.Options.closedLoop(server.uri(), 500, Duration.ofSeconds(2), Duration.ofSeconds(5)));
 * }
 * }</pre>
 */
public final class LoadTest {
    private LoadTest() {}

    /** What the load generator measured, and what the server used in the same measured window. */
    public record Measured(HttpLoad.Result load, ServerProcess.Usage server) {
        @Override
        public String toString() {
            return load + "\n" + server;
        }
    }

    /**
     * Runs {@code o} from a child JVM against {@code server} and samples the server around it.
     *
     * @throws IllegalStateException the run failed (every request failed, too few open files...), with the
     *                               end of the generator's output
     */
    public static Measured measure(ServerProcess server, HttpLoad.Options o) {
        // The server inherits this process's open-files limit: refuse now rather than watch it fail.
        HttpLoad.requireOpenFiles(o.connections() + HttpLoad.SPARE_FILES, "the server's " + o.connections() + " connections");
        try (ChildRun generator = ChildRun.snippet("S05_HttpLoad.java", arguments(o))) {
            // the first run may compile the generator: allow for that before the warm-up ends
            generator.await(Protocol.WINDOW_START, o.warmUp().plus(ServerProcess.READY_TIMEOUT));
            JsonObject before = server.stats();
            generator.await(Protocol.WINDOW_END, o.duration().plus(Duration.ofMinutes(1)));
            JsonObject after = server.stats();
            HttpLoad.Result load = Json.read(generator.awaitResult().toString(), HttpLoad.Result.class);
            return new Measured(load, ServerProcess.Usage.between(before, after, load.requests()));
        }
    }

    /** The S05 command line for {@code o}. */
    static List<String> arguments(HttpLoad.Options o) {
        List<String> a = new ArrayList<>();
        a.addAll(List.of("--url", o.target().toString(), "--connections", Integer.toString(o.connections()),
                "--threads", Integer.toString(o.threads()), "--warmup-s", seconds(o.warmUp().toMillis()),
                "--duration-s", seconds(o.duration().toMillis()), "--timeout-s", seconds(o.timeout().toMillis())));
        if (!o.closed()) a.addAll(List.of("--rate", Double.toString(o.rate())));
        return a;
    }

    private static String seconds(long millis) {
        return String.format(Locale.ROOT, "%.3f", millis / 1000.0);
    }
}
