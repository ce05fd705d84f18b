///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21 -proc:full
//DEPS org.openjdk.jmh:jmh-core:1.37
//DEPS org.openjdk.jmh:jmh-generator-annprocess:1.37
//SOURCES ../helpers/unpinned/Profile.java
//SOURCES ../helpers/unpinned/JmhArgs.java
package unpinned.snippets;

/*
 * S02: CPU-bound tasks on a core-sized pool and on virtual threads.
 *
 * The question: 500 tasks each hash bytes with SHA-256 (no waiting at all). Do virtual threads
 * finish them sooner than a fixed pool with one platform thread per core?
 *
 * The pitfall: virtual threads make waiting cheap, not computing fast. They run on a carrier
 * pool with one thread per core, so CPU work gets exactly the cores it had before.
 *
 * Hypothesis (the bound): both take total CPU work / cores. With W = one task's hashing time,
 * makespan >= ceil(500 / cores) x W for the pool and >= 500 x W / cores for virtual threads:
 * the same on this machine, within noise. Virtual threads may be a little slower (more
 * scheduling and allocation), never faster by more than noise.
 * The source (seeds/000, 8 cores, 500,000 updates per task) published ~6,200 ms for a pool of 8
 * and ~6,350 ms for virtual threads.
 */

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;
import unpinned.JmhArgs;
import unpinned.Profile;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class S02_CpuBoundSha256 {

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
     * The same tasks one after another on the calling thread: the serial time gives this machine's work
     * bound, serial / cores. (Timing one task alone is not enough: a single long call is compiled through
     * on-stack replacement, which runs slower than the code the JIT makes for 500 calls, so it overstates W.)
     */
    @State(Scope.Benchmark)
    public static class Serial {
        @Param("500")
        public int tasks;

        @Param("500000")
        public int updates;
    }

    static ExecutorService newExecutor(String kind) {
        return switch (kind) {
            case "fixed-cores" -> Executors.newFixedThreadPool(Runtime.getRuntime().availableProcessors());
            case "virtual" -> Executors.newVirtualThreadPerTaskExecutor();
            default -> throw new IllegalArgumentException("executor must be fixed-cores or virtual, got " + kind);
        };
    }

    /** One task: {@code updates} one-byte updates, then the digest (returned, so the JIT cannot drop the work). */
    static byte[] hash(int updates, int seed) throws NoSuchAlgorithmException {
        MessageDigest sha = MessageDigest.getInstance("SHA-256");
        byte[] one = {(byte) seed};
        for (int i = 0; i < updates; i++) {
            one[0] = (byte) (seed + i);
            sha.update(one);
        }
        return sha.digest();
    }

    /** Submits every hashing task, then consumes every digest. */
    @Benchmark
    public void hashingTasksOnExecutor(Batch batch, Blackhole bh) throws InterruptedException, ExecutionException {
        try (ExecutorService pool = newExecutor(batch.executor)) {
            List<Future<byte[]>> digests = new ArrayList<>(batch.tasks);
            for (int i = 0; i < batch.tasks; i++) {
                int seed = i;
                digests.add(pool.submit(() -> hash(batch.updates, seed)));
            }
            for (Future<byte[]> d : digests) bh.consume(d.get());
        }
    }

    /** Every task in turn on one thread, no executor: the total CPU work in the bound. */
    @Benchmark
    public void allTasksOnOneThread(Serial serial, Blackhole bh) throws NoSuchAlgorithmException {
        for (int i = 0; i < serial.tasks; i++) bh.consume(hash(serial.updates, i));
    }

    public static void main(String[] args) throws Exception {
        Profile profile = Profile.announce();
        List<String> defaults = new ArrayList<>(JmhArgs.defaults(profile));
        defaults.addAll(List.of("-p", "updates=" + profile.pick(50_000, 500_000)));
        String[] merged = JmhArgs.merge(defaults, args);
        System.out.println("JMH arguments: " + String.join(" ", merged));
        org.openjdk.jmh.Main.main(merged);
    }
}

/*
 * How to run:
 *   tools/jbang cpu-bound                          (quick: 50,000 updates per task, 2 iterations)
 *   UNPINNED_PROFILE=full tools/jbang cpu-bound    (the source's 500,000 updates, 5 iterations)
 *   tools/jbang cpu-bound -p updates=200000        (any JMH flag; yours win over the defaults)
 *
 * What you should see (ms/op): fixed-cores and virtual within a few percent of each other, and which one
 * is ahead changes from run to run. Measured on 2 cores, JDK 25: quick (50,000 updates) 108.6 vs 106.0;
 * full size (500,000) 1,078 +- 168 vs 1,040 +- 82. Both are the total CPU work divided by the cores:
 * ten times the updates, ten times the time. The source's 8-core machine published ~6,200 vs ~6,350.
 */
