///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES Worked.java
//SOURCES ../helpers/unpinned/experiments/OrderSweep.java
package unpinned.solutions;

/*
 * Worked solutions to the exercises of chapter 02
 * (notebooks/02-reactive-and-one-service-three-ways.ipynb). Try them in the notebook first: the
 * reasoning is the point, not the number.
 *
 * Two bounds cap every implementation: Little's law, min(U, P) / S, and the CPU, cores / (CPU
 * seconds per order). A blocking call on an event loop makes the loops the P: L loops / 0.100 s.
 */

import com.google.gson.JsonObject;
import unpinned.core.Bounds;
import unpinned.running.ChildRun;
import unpinned.core.Course;
import unpinned.running.HttpLoad;
import unpinned.core.Json;
import unpinned.experiments.OrderSweep;
import unpinned.core.Profile;
import unpinned.core.Protocol;
import unpinned.running.ServerProcess;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import java.util.stream.Stream;

public class Chapter02 {

    public static void main(String[] args) throws IOException {
        Profile profile = Profile.announce();
        Worked worked = new Worked("02");

        worked.exercise("02.1", "Little's law: the pool of 200 at 5,000 users, 110 ms per order");
        // 100 ms for the price, then 10 ms for the stock: S = 0.110 s; 200 orders in service.
        double poolBound = OrderSweep.littleBound("pool", 5_000, 200);
        System.out.println("min(5,000, 200) / 0.110 s = " + Worked.num(poolBound) + " orders/s");
        worked.check("02.1", poolBound, "orders/s", Bounds.littleThroughput(200, 0.100),
                "S = 100 ms: the 10 ms stock query forgotten");

        worked.exercise("02.2", "The CPU bound: 2 cores, 250 µs of CPU per order");
        // 2 cores burn at most 2 CPU-seconds per second; an order needs 250e-6 of them.
        double cpuBound = OrderSweep.cpuBound(2, 250);
        System.out.println("2 / 250e-6 s = " + Worked.num(cpuBound) + " orders/s");
        worked.check("02.2", cpuBound, "orders/s", 2 / 0.250, "250 µs read as 250 ms");

        worked.exercise("02.3", "Read a published figure: 7,900 orders/s on 8 vCPUs");
        // If the CPUs were the limit, 7,900 orders used all 8 CPU-seconds of each second.
        double cpuUsPerOrder = 8 / 7_900.0 * 1e6;
        System.out.println("CPU per order <= 8 / 7,900 s = " + Worked.num(cpuUsPerOrder) + " µs");
        worked.check("02.3", cpuUsPerOrder, "µs", 8 / 7_900.0 * 1e3, "ms, not µs");

        worked.exercise("02.4", "Event loops: 8 loops, each blocked 100 ms per order");
        // A blocked loop serves nothing else: each ends one order per 100 ms, whatever the users.
        double loopsBound = Bounds.littleThroughput(8, 0.100);
        System.out.println("8 / 0.100 s = " + Worked.num(loopsBound) + " orders/s");
        worked.check("02.4", loopsBound, "orders/s", Bounds.littleThroughput(100, 0.100),
                "100 users / 0.100 s: the users counted, not the loops");

        worked.exercise("02.5", "Change the code, re-measure: subscribeOn(boundedElastic())");
        Offloaded measured = offloaded(profile);
        worked.check("02.5", measured.throughput(), "orders/s", measured.eventLoops() / 0.100,
                "the unchanged server: the call blocks its " + measured.eventLoops() + " loops");
        worked.finish();
    }

    record Offloaded(double throughput, int eventLoops) {}

    static final String HIDDEN_CALL = "Mono.fromCallable(() -> priceService(id))";
    static final String OFFLOADED_CALL = HIDDEN_CALL + ".subscribeOn(Schedulers.boundedElastic())";
    static final String MONO = "import reactor.core.publisher.Mono;";
    static final String SCHEDULERS = "import reactor.core.scheduler.Schedulers;";

    /**
     * The hidden-blocking cell after the exercise's edit: a copy of S06 with subscribeOn (the
     * course's snippet stays as it is) in its own JVM with --impl reactive-blocking, loaded by the
     * course's load generator (S05) with the cell's 100 users, 1 s of warm-up and its window.
     * (ServerProcess starts only the course's own snippets, so the copy is started and stopped
     * here the way ServerProcess does it.)
     */
    static Offloaded offloaded(Profile profile) throws IOException {
        int users = 100, windowSeconds = profile.pick(3, 10);
        // boundedElastic caps its threads at 10 x cores (Reactor's default): those may block.
        int cores = Runtime.getRuntime().availableProcessors(), elastic = 10 * cores;
        double prediction = Math.min(Math.min(users, elastic) / 0.100,
                users / OrderSweep.SERVICE_SECONDS);
        System.out.println(String.format(Locale.ROOT, "the blocking call now runs on"
                + " boundedElastic, at most 10 x %d cores = %d threads: <= min(%d users, %d)"
                + " / 0.100 s and <= %d / 0.110 s (Little's law): %s orders/s", cores, elastic,
                users, elastic, users, Worked.num(prediction)));
        Path dir = Files.createTempDirectory("unpinned-02.5-");
        ChildRun server = null;
        try {
            Path snippet = editedOrderService(dir);
            server = ChildRun.start("order-service-offloaded", List.of(Course.jbang().toString(),
                    snippet.toString(), "--impl", "reactive-blocking", "--port", "0", "--control"),
                    line -> null);
            JsonObject ready = Json.parse(server.await(Protocol.READY, ServerProcess.READY_TIMEOUT))
                    .getAsJsonObject();
            URI target = URI.create(ready.get("uri").getAsString() + "?id=" + OrderSweep.ITEM);
            var load = HttpLoad.Options.closedLoop(target, users, Duration.ofSeconds(1),
                    Duration.ofSeconds(windowSeconds));
            JsonObject result = ChildRun.json("S05_HttpLoad.java", "--url", target.toString(),
                    "--connections", "" + load.connections(), "--threads", "" + load.threads(),
                    "--warmup-s", seconds(load.warmUp()), "--duration-s", seconds(load.duration()),
                    "--timeout-s", seconds(load.timeout()));
            double throughput = result.get("throughput").getAsDouble();
            System.out.println("measured " + Worked.num(throughput) + " orders/s in "
                    + windowSeconds + " s (" + profile.id() + " profile) = "
                    + Worked.ratio(throughput / prediction) + " x the prediction; mean "
                    + Worked.num(result.get("meanMs").getAsDouble()) + " ms, "
                    + result.get("errors").getAsLong() + " errors");
            return new Offloaded(throughput, ready.get("eventLoops").getAsInt());
        } finally {
            if (server != null) stop(server);
            deleteTree(dir);
        }
    }

    /** S06 with the exercise's edit, in {@code dir}/snippets beside a link to the helpers. */
    static Path editedOrderService(Path dir) throws IOException {
        Path original = Course.home().resolve("snippets").resolve(OrderSweep.SERVICE);
        String text = Files.readString(original);
        if (text.split(Pattern.quote(HIDDEN_CALL), -1).length != 2 || !text.contains(MONO)) {
            throw new IllegalStateException(original + " must contain '" + HIDDEN_CALL + "' once"
                    + " and '" + MONO + "' (exercise 02.5 edits them): has the snippet changed?");
        }
        text = text.replace(HIDDEN_CALL, OFFLOADED_CALL);
        if (!text.contains(SCHEDULERS)) text = text.replace(MONO, MONO + "\n" + SCHEDULERS);
        // the copy's //SOURCES ../helpers/... must find the course's helpers
        Path helpers = Files.createSymbolicLink(dir.resolve("helpers"),
                Course.home().resolve("helpers"));
        Path snippets = Files.createDirectory(dir.resolve("snippets"));
        Path edited = Files.writeString(snippets.resolve(OrderSweep.SERVICE), text);
        // deleted in finally; these cover Ctrl-C (shutdown hooks run, finally blocks don't)
        for (Path p : List.of(dir, helpers, snippets, edited)) p.toFile().deleteOnExit();
        System.out.println("edited a copy of snippets/" + OrderSweep.SERVICE + ": "
                + OFFLOADED_CALL);
        return edited;
    }

    /** As ServerProcess.close(): ask the server to stop, kill what is left after 5 s. */
    static void stop(ChildRun server) {
        try {
            server.send("stop");
        } catch (IllegalStateException e) {
            // its input is closed already: it is going down
        }
        server.closeInput();
        server.stop(Duration.ofSeconds(5));
    }

    static String seconds(Duration d) {
        return String.format(Locale.ROOT, "%.3f", d.toMillis() / 1e3);
    }

    static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {   // walk doesn't follow the helpers link
            List<Path> all = new ArrayList<>(paths.toList());
            all.sort(Comparator.reverseOrder());
            for (Path p : all) Files.delete(p);
        }
    }
}
