///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21 -proc:full
//DEPS org.openjdk.jmh:jmh-core:1.37
//DEPS org.openjdk.jmh:jmh-generator-annprocess:1.37
//SOURCES ../helpers/unpinned/running/JmhArgs.java
//SOURCES ../helpers/unpinned/core/Measurement.java
package unpinned.snippets;

/*
 * S02: CPU-bound tasks on a core-sized pool and on virtual threads.
 *
 * The question: 500 tasks each hash bytes with SHA-256, never waiting. Do virtual threads finish
 * them sooner than a fixed pool with one platform thread per core?
 * The bound: a batch that used C CPU-seconds can't finish in less than C / cores.
 * The pitfall: virtual threads make waiting cheap, not computing fast.
 */

import org.openjdk.jmh.annotations.*;
import org.openjdk.jmh.infra.Blackhole;
import unpinned.running.JmhArgs;
import unpinned.core.Profile;
import java.lang.management.ManagementFactory;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.*;
import java.util.concurrent.*;

@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class S02_CpuBoundSha256 {

    /** Submits every hashing task, then consumes every digest. P cores burn at most P CPU-seconds a
     *  second, so a batch that used C seconds of CPU can't finish in less than C / P (see CpuTime). */
    @Benchmark
    public void hashingTasksOnExecutor(Batch batch, CpuTime cpu, Blackhole bh)
            throws InterruptedException, ExecutionException {
        try (ExecutorService pool = newExecutor(batch.executor)) {
            List<Future<byte[]>> digests = new ArrayList<>(batch.tasks);
            for (int i = 0; i < batch.tasks; i++) {
                int salt = i;
                digests.add(pool.submit(() -> hash(batch.updates, salt)));
            }
            for (Future<byte[]> d : digests) bh.consume(d.get());
        }
        cpu.batchDone();
    }

    /** The batch: who runs the tasks (a fixed pool with one platform thread per core, or a virtual thread per task). */
    @State(Scope.Benchmark)
    public static class Batch {
        @Param({"fixed-cores", "virtual"})
        public String executor;

        @Param("500")
        public int tasks;

        /** One-byte MessageDigest.update calls per task (the source's 500,000; the quick profile passes 50,000). */
        @Param("500000")
        public int updates;
    }

    /**
     * Per measured iteration: the JVM's CPU time since the iteration began, and the batches run. JMH
     * reports both next to the wall time ("cpuMicros" and "batches" in the JSON's secondary metrics).
     * Read in the same fork over the same window, so the bound comes from the same warmed code.
     * Process CPU time ticks in 10 ms steps on Linux, so it is read over a whole iteration (about
     * 1 s x cores of CPU), never per batch.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class CpuTime {
        private static final com.sun.management.OperatingSystemMXBean OS =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        private long iterationStartNanos;
        public long cpuMicros;
        public long batches;

        @Setup(Level.Iteration)
        public void startIteration() {
            cpuMicros = 0;
            batches = 0;
            iterationStartNanos = OS.getProcessCpuTime();
        }

        void batchDone() {
            batches++;
            cpuMicros = (OS.getProcessCpuTime() - iterationStartNanos) / 1_000;
        }
    }

    static ExecutorService newExecutor(String kind) {
        return switch (kind) {
            case "fixed-cores" -> Executors.newFixedThreadPool(Runtime.getRuntime().availableProcessors());
            case "virtual" -> Executors.newVirtualThreadPerTaskExecutor();
            default -> throw new IllegalArgumentException("executor must be fixed-cores or virtual, got " + kind);
        };
    }

    /** One task: {@code updates} one-byte updates, then the digest (returned, so the JIT cannot drop the work). */
    static byte[] hash(int updates, int salt) throws NoSuchAlgorithmException {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        byte[] one = {(byte) salt};
        for (int i = 0; i < updates; i++) {
            one[0] = (byte) (salt + i);
            sha.update(one);
        }
        return sha.digest();
    }

    /** Refuses parameters the benchmark can't run, before any JVM is forked. */
    static void validate(Map<String, List<String>> params) {
        JmhArgs.requireOneOf(params, "executor", List.of("fixed-cores", "virtual"));
        JmhArgs.requireInts(params, "tasks", 1, 1_000_000);
        JmhArgs.requireInts(params, "updates", 1, 100_000_000);
    }

    public static void main(String[] args) throws Exception {
        Profile profile = Profile.announceOrExit("S02");
        List<String> defaults = new ArrayList<>(JmhArgs.defaults(profile));
        defaults.addAll(List.of("-p", "updates=" + profile.pick(50_000, 500_000)));
        JmhArgs.runOrExit("S02", S02_CpuBoundSha256.class, defaults, args, S02_CpuBoundSha256::validate);
    }
}

/*
 * How to run:
 *   tools/jbang cpu-bound                          (quick: 50,000 updates per task, 2 iterations)
 *   UNPINNED_PROFILE=full tools/jbang cpu-bound    (the source's 500,000 updates, 5 iterations)
 *   tools/jbang cpu-bound -p updates=200000        (any JMH flag; yours win over the defaults)
 *
 * What you should see: both executors within a few percent of each other and at or just above
 * cpuMicros / batches / cores. Reference runs: data/reference-runs/snippets/S02-cpu-bound.md
 */
