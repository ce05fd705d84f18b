///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21 -proc:full
//DEPS org.openjdk.jmh:jmh-core:1.37
//DEPS org.openjdk.jmh:jmh-generator-annprocess:1.37
//SOURCES ../helpers/unpinned/running/JmhArgs.java
//SOURCES ../helpers/unpinned/core/Measurement.java
package unpinned.snippets;

/*
 * S01: I/O-bound tasks on a small pool, a big pool and virtual threads.
 *
 * The question: 500 tasks each wait 50 ms and use almost no CPU. How long do they take on a
 * fixed pool of 8, a fixed pool of 200, and one virtual thread per task?
 * The bound: ceil(500 / N) rounds of 50 ms for a pool of N (3,150 and 150 ms); one round (50 ms)
 * for virtual threads. A measurement can only be slower.
 * The pitfall: a waiting task still holds its platform thread, however idle the CPU is.
 */

import org.openjdk.jmh.annotations.*;
import unpinned.running.JmhArgs;
import unpinned.core.Profile;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class S01_IoBoundExecutors {

    /** Submits every sleeping task and waits for all (close() does): a pool of N sleeps in
     *  ceil(tasks / N) rounds; a sleeping virtual thread is unmounted, so all sleep at once. */
    @Benchmark
    public void sleepingTasksOnExecutor(Submitting submitting) {
        long start = System.nanoTime();
        try (ExecutorService pool = newExecutor(executor)) {
            for (int i = 0; i < tasks; i++) {
                pool.submit(() -> {
                    Thread.sleep(sleepMs);
                    return null;
                });
            }
            submitting.batchSubmitted(System.nanoTime() - start);
        }
    }

    /** Who runs the tasks: a fixed pool of 8 or 200 platform threads, or a new virtual thread per task. */
    @Param({"fixed-8", "fixed-200", "virtual"})
    public String executor;

    @Param("500")
    public int tasks;

    @Param("50")
    public int sleepMs;

    /** A fresh executor per operation, so no thread outlives the op and the pool's warm-up is part of the cost. */
    static ExecutorService newExecutor(String kind) {
        return switch (kind) {
            case "virtual" -> Executors.newVirtualThreadPerTaskExecutor();
            default -> {
                if (!kind.startsWith("fixed-")) {
                    throw new IllegalArgumentException("executor must be fixed-N or virtual, got " + kind);
                }
                yield Executors.newFixedThreadPool(Integer.parseInt(kind.substring("fixed-".length())));
            }
        };
    }

    /**
     * Per iteration: how long the submit loop took, summed over the batches. A fixed pool starts a platform thread
     * for each of its first P tasks inside submit(), so this is where starting 200 threads shows: the last of them
     * begins its rounds of sleeps only then ("submitMicros" / "batches" in the JSON's secondary metrics).
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Submitting {
        public long submitMicros;
        public long batches;

        @Setup(Level.Iteration)
        public void startIteration() {
            submitMicros = 0;
            batches = 0;
        }

        void batchSubmitted(long nanos) {
            batches++;
            submitMicros += nanos / 1_000;
        }
    }

    /** Refuses parameters the benchmark can't run, before any JVM is forked. */
    static void validate(Map<String, List<String>> params) {
        for (String kind : params.getOrDefault("executor", List.of())) {
            if (kind.equals("virtual")) continue;
            if (!kind.startsWith("fixed-")) {
                throw new IllegalArgumentException("-p executor must be fixed-N (a pool of N threads, 1 to 10,000)"
                        + " or virtual; got '" + kind + "'");
            }
            JmhArgs.requireInt("executor (the N of fixed-N)", kind.substring("fixed-".length()), 1, 10_000);
        }
        JmhArgs.requireInts(params, "tasks", 1, 1_000_000);
        JmhArgs.requireInts(params, "sleepMs", 0, 60_000);
    }

    public static void main(String[] args) throws Exception {
        Profile profile = Profile.announceOrExit("S01");
        JmhArgs.runOrExit("S01", S01_IoBoundExecutors.class, JmhArgs.defaults(profile), args, S01_IoBoundExecutors::validate);
    }
}

/*
 * How to run:
 *   tools/jbang io-bound                          (quick profile: 1 fork, 1 warm-up, 4 x 0.5 s iterations)
 *   UNPINNED_PROFILE=full tools/jbang io-bound    (the source's settings: 3 warm-ups, 5 iterations)
 *   tools/jbang io-bound -p executor=virtual -p tasks=10000   (any JMH flag; yours win over the defaults)
 *
 * What you should see: ms/op at or just above each bound, never below; virtual near one round.
 * Reference runs: data/reference-runs/snippets/S01-io-bound.md
 */
