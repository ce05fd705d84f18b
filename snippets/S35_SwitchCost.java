///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21 -proc:full
//DEPS org.openjdk.jmh:jmh-core:1.37
//DEPS org.openjdk.jmh:jmh-generator-annprocess:1.37
//SOURCES ../helpers/unpinned/running/Jdks.java
//SOURCES ../helpers/unpinned/running/JmhArgs.java
//SOURCES ../helpers/unpinned/experiments/LazyThaw.java
//SOURCES ../helpers/unpinned/experiments/Switches.java
package unpinned.snippets;

/*
 * S35: what a switch between virtual threads costs, timed (JMH): a park/unpark ping-pong, and a continuation's
 * yield and run against the depth of its stack.
 * The question: a virtual thread that blocks unmounts (its frames frozen into a heap stack chunk) and the one it
 * wakes is mounted (thawed back): how long does that take, and what does it depend on?
 * The bound: a platform round trip is two OS context switches (futex waits), a virtual one on ONE carrier none
 * (see pingPong); a yield and run grows with the stack below 500 words and stays flat above (see yieldAndRun).
 * The pitfall: the scheduler's properties are read at the first virtual thread (Pair sets them in its static
 * initializer); a continuation's frames must be compiled before it is built (Deep.warmUp); JMH's own threads,
 * the JIT and the GC switch too, a few hundred per iteration against millions of round trips.
 */

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;
import unpinned.experiments.LazyThaw;
import unpinned.experiments.Switches;
import unpinned.core.Profile;
import unpinned.running.Jdks;
import unpinned.running.JmhArgs;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class S35_SwitchCost {
    // ---- the code under study ---------------------------------------------------------------------------------

    /** Two threads of {@code builder} take turns {@code rounds} times: unpark the other, park until it is my turn. */
    static void pingPong(Thread.Builder builder, int rounds) throws InterruptedException {
        AtomicInteger turn = new AtomicInteger(0);
        Thread[] pair = new Thread[2];
        for (int me = 0; me < 2; me++) {
            int self = me;
            pair[me] = builder.unstarted(Counters.ownSwitches(() -> {
                for (int r = 0; r < rounds; r++) {
                    while (turn.get() != self) LockSupport.park(); // a spurious wake-up parks again
                    turn.set(1 - self);
                    LockSupport.unpark(pair[1 - self]);
                }
            }));
        }
        pair[0].start();
        pair[1].start();
        pair[0].join();
        pair[1].join();
    }

    /** {@code depth} frames, then {@code bottom} (one frame per level: never inlined, see the fork's options). */
    static long descend(int depth, Runnable bottom) {
        if (depth <= 1) {
            bottom.run();
            return 1;
        }
        return descend(depth - 1, bottom) + 1;
    }

    /** The continuation's code: {@code depth} frames down, then yield {@code yields} times (each run() resumes it). */
    record Body(int depth, long yields) implements Runnable {
        @Override
        public void run() {
            descend(depth, () -> {
                for (long y = 0; y < yields; y++) Continuations.yieldOurs();
            });
        }
    }

    // ---- the benchmarks ---------------------------------------------------------------------------------------

    static final int ROUNDS = 2_000;

    @State(Scope.Benchmark)
    public static class Pair {
        static {
            // Read once, at the fork's first virtual thread: one carrier, no spare.
            System.setProperty("jdk.virtualThreadScheduler.parallelism", "1");
            System.setProperty("jdk.virtualThreadScheduler.maxPoolSize", "1");
        }

        @Param({"virtual", "platform"})
        public String threads;

        Thread.Builder builder;

        @Setup(Level.Trial)
        public void setUp() throws InterruptedException {
            builder = switch (threads) {
                case "virtual" -> Thread.ofVirtual();
                case "platform" -> Thread.ofPlatform();
                default -> throw new IllegalArgumentException("threads must be virtual or platform, got " + threads);
            };
            String[] carrier = new String[1];
            Thread.ofVirtual().start(() -> carrier[0] = Thread.currentThread().toString()).join();
            int parallelism = ((java.util.concurrent.ForkJoinWorkerThread) Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t instanceof java.util.concurrent.ForkJoinWorkerThread
                            && carrier[0].endsWith("@" + t.getName())).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no carrier found for " + carrier[0])))
                    .getPool().getParallelism();
            if (parallelism != 1) throw new IllegalStateException("the scheduler has " + parallelism + " carriers, not 1");
        }
    }

    /**
     * A round trip: each of the two threads parks once and unparks the other once. Virtual, on ONE carrier: two
     * unmounts and two mounts in the JVM (VirtualThread.park -> Continuation.yield, freeze_fast; the unparked
     * thread waits in the carrier's own queue and is mounted by thaw_fast), the carrier never blocking in the OS.
     * Platform: each park is a futex wait, unless the other side's unpark came first. Counters reports the OS
     * switches per round trip: about 2 for platform threads, about 0 for virtual ones.
     */
    @Benchmark
    @OperationsPerInvocation(ROUNDS)
    public void pingPong(Pair pair) throws InterruptedException {
        pingPong(pair.builder, ROUNDS);
        Counters.ROUND_TRIPS.addAndGet(ROUNDS);
    }

    @State(Scope.Thread)
    public static class Deep {
        @Param({"1", "40", "80", "120", "160", "1000"})
        public int depth;

        Object continuation;

        /**
         * Compiles every frame the measured continuation will hold (descend, Body.run, the yield loop, the method
         * handles, Continuation.enter) in thousands of short continuations first: a chunk with an interpreted frame
         * is flagged and takes the slow path.
         */
        @Setup(Level.Trial)
        public void warmUp() throws InterruptedException {
            long sink = 0;
            for (int i = 0; i < 20_000; i++) sink += descend(40, () -> { });
            for (int i = 0; i < 6_000; i++) {
                Object c = Continuations.create(new Body(3, 10));
                for (int y = 0; y <= 10; y++) Continuations.run(c);
            }
            if (sink == 42) System.out.println(sink);
            Thread.sleep(300); // the compiler queue drains
        }

        @Setup(Level.Iteration)
        public void build() {
            continuation = Continuations.create(new Body(depth, Long.MAX_VALUE));
            Continuations.run(continuation); // descends and yields: every frame frozen
            Counters.CHUNK_WORDS.set(LazyThaw.frozenWordsOf(continuation)); // the chunk's bottom - sp
        }
    }

    /**
     * One run() of a continuation parked {@code depth} frames deep, until it yields again: a thaw and a freeze.
     * HotSpot (continuationFreezeThaw.cpp, 21 and 25 alike): freeze_fast copies the frames above the last thaw;
     * Thaw::thaw_fast copies the WHOLE chunk back when it holds under 500 words ("threshold = 500; // words") and
     * no flag is set, otherwise only the top frame, patching the return address below it to
     * StubRoutines::cont_returnBarrier (thaw_slow, for interpreted or GC-seen chunks: 2 frames, then 1). So the
     * time grows with the stack below 500 words and stays flat above; the words are reported as "chunkWords".
     */
    @Benchmark
    @Fork(jvmArgsPrepend = {"--add-exports=java.base/jdk.internal.vm=ALL-UNNAMED",
        "--add-opens=java.base/jdk.internal.vm=ALL-UNNAMED", "--add-opens=java.base/java.lang=ALL-UNNAMED",
        "-XX:CompileCommand=quiet",
        "-XX:CompileCommand=dontinline,unpinned.snippets.S35_SwitchCost::descend"})
    public void yieldAndRun(Deep deep) {
        Continuations.run(deep.continuation);
    }

    /** jdk.internal.vm.Continuation through method handles: internal, so not compiled against. */
    static final class Continuations {
        static final MethodHandle NEW, RUN, YIELD;
        static final Object SCOPE;

        static {
            try {
                Class<?> scope = Class.forName("jdk.internal.vm.ContinuationScope");
                Class<?> cont = Class.forName("jdk.internal.vm.Continuation");
                MethodHandles.Lookup lookup = MethodHandles.lookup();
                SCOPE = scope.getConstructor(String.class).newInstance("s35");
                NEW = lookup.findConstructor(cont, MethodType.methodType(void.class, scope, Runnable.class))
                        .asType(MethodType.methodType(Object.class, Object.class, Runnable.class));
                RUN = lookup.findVirtual(cont, "run", MethodType.methodType(void.class))
                        .asType(MethodType.methodType(void.class, Object.class));
                YIELD = MethodHandles.insertArguments(lookup.findStatic(cont, "yield",
                        MethodType.methodType(boolean.class, scope)), 0, SCOPE);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("jdk.internal.vm needs --add-exports"
                        + " java.base/jdk.internal.vm=ALL-UNNAMED: " + e, e);
            }
        }

        static Object create(Runnable body) {
            try {
                return (Object) NEW.invokeExact(SCOPE, body);
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        }

        static void run(Object continuation) {
            try {
                RUN.invokeExact(continuation);
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        }

        static void yieldOurs() {
            try {
                boolean ignored = (boolean) YIELD.invokeExact();
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        }

    }

    /**
     * The run's own counts beside JMH's times, per iteration, as secondary results: the OS context switches of the
     * whole JVM per round trip of {@link #pingPong} ("osSwitchesPerRoundTrip": the voluntary and involuntary
     * switches of every live thread, /proc/self/task/<tid>/status on Linux, before and after the iteration, plus
     * those each platform player counted for itself before it ended) and the words frozen by {@link #yieldAndRun}'s
     * first yield ("chunkWords"). Named on JMH's command line: -prof unpinned.snippets.S35_SwitchCost$Counters.
     */
    public static final class Counters implements InternalProfiler {
        static final AtomicLong ROUND_TRIPS = new AtomicLong(), ENDED_THREADS_SWITCHES = new AtomicLong();
        static final AtomicLong CHUNK_WORDS = new AtomicLong(-1);
        private long switchesBefore, roundTripsBefore;

        @Override
        public String getDescription() {
            return "OS context switches per ping-pong round trip (/proc, Linux); words frozen per yield";
        }

        @Override
        public void beforeIteration(BenchmarkParams benchmark, IterationParams iteration) {
            roundTripsBefore = ROUND_TRIPS.get();
            switchesBefore = liveSwitches() + ENDED_THREADS_SWITCHES.get();
        }

        @Override
        public Collection<? extends Result> afterIteration(BenchmarkParams benchmark, IterationParams iteration,
                                                           IterationResult result) {
            List<Result> out = new ArrayList<>();
            long trips = ROUND_TRIPS.get() - roundTripsBefore;
            long switches = liveSwitches() + ENDED_THREADS_SWITCHES.get() - switchesBefore;
            if (trips > 0 && switches >= 0) {
                out.add(new ScalarResult("osSwitchesPerRoundTrip", (double) switches / trips, "#/round trip",
                        AggregationPolicy.AVG));
            }
            if (CHUNK_WORDS.get() >= 0) {
                out.add(new ScalarResult("chunkWords", CHUNK_WORDS.get(), "words", AggregationPolicy.AVG));
            }
            return out;
        }

        /**
         * {@code body}, and for a platform thread the switches of its own OS thread while it ran, counted before it
         * ends (an ended thread leaves /proc/self/task). A virtual thread's OS thread is its carrier, which lives on.
         */
        static Runnable ownSwitches(Runnable body) {
            return () -> {
                boolean platform = !Thread.currentThread().isVirtual();
                long before = platform ? Switches.ownSwitches() : 0;
                try {
                    body.run();
                } finally {
                    if (platform && before >= 0) {
                        long after = Switches.ownSwitches();
                        if (after >= before) ENDED_THREADS_SWITCHES.addAndGet(after - before);
                    }
                }
            };
        }

        static long liveSwitches() {
            return Switches.liveSwitches(null);
        }
    }

    // ---- running it -------------------------------------------------------------------------------------------

    /** Refuses parameters the benchmarks can't run, before any JVM is forked. */
    static void validate(Map<String, List<String>> params) {
        JmhArgs.requireOneOf(params, "threads", List.of("virtual", "platform"));
        JmhArgs.requireInts(params, "depth", 1, 5_000);
    }

    public static void main(String[] args) throws Exception {
        args = Jdks.honourJdkOption("S35", "S35_SwitchCost.java", args); // --jdk 21: the same classes on JDK 21
        Profile profile = Profile.announceOrExit("S35");
        List<String> defaults = new ArrayList<>(JmhArgs.defaults(profile));
        defaults.addAll(profile.pick(List.of("-w", "200ms", "-r", "200ms", "-i", "3"), List.<String>of()));
        defaults.addAll(List.of("-prof", Counters.class.getName()));
        JmhArgs.runOrExit("S35", S35_SwitchCost.class, defaults, args, S35_SwitchCost::validate);
    }
}

/*
 * How to run:
 *   tools/jbang switch-cost                                   (both benchmarks, quick: 3 x 200 ms iterations)
 *   tools/jbang switch-cost --jdk 21                          (the same classes, host and forks on JDK 21)
 *   tools/jbang switch-cost pingPong                          (one benchmark; any JMH flag, yours win)
 *   tools/jbang switch-cost yieldAndRun -p depth=1,20,40,60,80,100,120,160,250,500,1000
 *
 * What you should see: pingPong: virtual well under 1 µs and about 0 OS switches per round trip, platform several
 * µs and about 2; yieldAndRun: rising with chunkWords up to 500 words, flat above. The -Xint run of the reference
 * file shows the slow path. Reference runs: data/reference-runs/snippets/S35-switch-cost.md.
 */
