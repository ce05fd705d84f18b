//SOURCES ProcessStats.java
//SOURCES ../core/Protocol.java
package unpinned.running;

import unpinned.core.Protocol;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.function.Supplier;

/**
 * The server side of {@link ServerProcess}: a server snippet announces itself with one
 * {@code @@ready} line, then (with {@code --control}) reads commands on its standard input:
 * {@code stats} answers one {@code @@stats} line with the process's own figures
 * ({@link ProcessStats#snapshot()}) plus the server's; {@code stop}, or the end of its input (the parent
 * went away), stops the server and ends the JVM. Without {@code --control} the server runs until
 * it is killed (Ctrl-C), for use with wrk, k6 or JMeter.
 */
public final class ServerControl {
    private ServerControl() {}

    /**
     * Prints the ready line for {@code uri}, then serves control commands (if {@code control}) or waits
     * to be killed. {@code stats} adds the server's own figures to each stats answer; {@code stop}
     * closes the server. Returns when the server should end.
     */
    public static void serve(URI uri, Map<String, Object> describe, boolean control, Supplier<Map<String, Object>> stats,
                             Runnable stop) throws InterruptedException {
        Map<String, Object> ready = new LinkedHashMap<>();
        ready.put("uri", uri.toString());
        ready.put("pid", ProcessHandle.current().pid());
        ready.putAll(describe);
        Protocol.ready(ready);
        if (!control) {
            CountDownLatch forever = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(stop));
            forever.await();
            return;
        }
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            for (String line; (line = in.readLine()) != null; ) {
                switch (line.trim()) {
                    case "stats" -> {
                        Map<String, Object> all = ProcessStats.snapshot();
                        all.putAll(stats.get());
                        Protocol.stats(all);
                    }
                    case "stop" -> {
                        stop.run();
                        return;
                    }
                    case "" -> { }
                    default -> System.out.println("unknown command '" + line.trim() + "'; use stats or stop");
                }
            }
        } catch (IOException e) {
            // the parent is gone: stop below
        }
        stop.run();
    }
}
