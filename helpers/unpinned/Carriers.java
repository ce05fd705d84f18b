package unpinned;

import java.time.Duration;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ForkJoinWorkerThread;
import java.util.concurrent.atomic.AtomicReference;

/** The platform threads that carry virtual threads, as seen from inside this JVM (no flags, no internal API). */
public final class Carriers {
    private Carriers() {}

    /**
     * The carriers' ForkJoinPool, found from inside a virtual thread: its toString names its carrier
     * ("VirtualThread[#22]/runnable@ForkJoinPool-1-worker-1"), a ForkJoinWorkerThread among the live threads.
     * Creating this probe is what makes the JVM create the scheduler, so scheduler properties must be set before.
     *
     * @throws IllegalStateException the probe did not end within 30 s, or no such carrier was found
     */
    public static ForkJoinPool pool() throws InterruptedException {
        AtomicReference<ForkJoinPool> found = new AtomicReference<>();
        AtomicReference<String> carrierName = new AtomicReference<>();
        Thread probe = Thread.ofVirtual().start(() -> {
            String me = Thread.currentThread().toString();
            String carrier = me.substring(me.lastIndexOf('@') + 1);
            carrierName.set(carrier);
            // looked up while the probe runs, so its carrier is certainly alive
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (t instanceof ForkJoinWorkerThread w && t.getName().equals(carrier)) found.set(w.getPool());
            }
        });
        if (!probe.join(Duration.ofSeconds(30))) throw new IllegalStateException("a probe virtual thread did not end");
        if (found.get() == null) {
            throw new IllegalStateException("cannot find the carriers' ForkJoinPool: no ForkJoinWorkerThread named '"
                    + carrierName.get() + "' among the live threads (does this JDK schedule virtual threads on a"
                    + " ForkJoinPool?)");
        }
        return found.get();
    }

    /** How many carriers run virtual threads at once: jdk.virtualThreadScheduler.parallelism, or the cores. */
    public static int parallelism() {
        String set = System.getProperty("jdk.virtualThreadScheduler.parallelism");
        try {
            if (set != null) return Integer.parseInt(set.trim());
        } catch (NumberFormatException e) {
            // the JDK refuses a bad value itself
        }
        return Runtime.getRuntime().availableProcessors();
    }
}
