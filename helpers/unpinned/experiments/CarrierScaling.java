//SOURCES ../running/ChildRun.java
//SOURCES ../core/Expectations.java
//SOURCES ../core/Experiment.java
//SOURCES ../core/Figure.java
//SOURCES ../core/Measurement.java
//SOURCES ../core/Protocol.java
//SOURCES ../core/RunGuard.java
package unpinned.experiments;

import unpinned.core.Experiment;
import unpinned.core.Expectations;
import unpinned.core.Expectations.Line;
import unpinned.core.Figure;
import unpinned.core.Measurement;
import unpinned.core.Protocol;
import unpinned.core.RunGuard;
import unpinned.running.ChildRun;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ForkJoinPool;

/**
 * One run of snippet S14 (alias carrier-scaling) on P carriers, in its own JVM: a sleeping batch and a computing
 * batch, each with its bound. Chapter 04 draws them; chapter 08 runs one fresh to compare machines; both keep them
 * through {@link #EXPECTED}. Medians, with every measured batch beside them for the spread. The snippet saves a
 * {@link Run}; {@link #run(int)} reads it back typed. Needs ChildRun.java, Carriers.java, Measurement.java,
 * Protocol.java (and what they need) alongside.
 */
public record CarrierScaling(int carriers, int cores, double ioWallMs, double ioBoundMs, double cpuWallMs,
                             double cpuWallMinMs, double cpuBoundMs, double carrierCpuMs, double[] ioWallMsAll,
                             double[] cpuWallMsAll, double othersCores) implements Measurement.Measured {

    /** A row measured without the other processes' share of the cores (NaN: unknown, counted as none). */
    public CarrierScaling(int carriers, int cores, double ioWallMs, double ioBoundMs, double cpuWallMs,
                          double cpuWallMinMs, double cpuBoundMs, double carrierCpuMs, double[] ioWallMsAll,
                          double[] cpuWallMsAll) {
        this(carriers, cores, ioWallMs, ioBoundMs, cpuWallMs, cpuWallMinMs, cpuBoundMs, carrierCpuMs, ioWallMsAll,
                cpuWallMsAll, Double.NaN);
    }

    /** Runs S14 with {@code --carriers carriers} in a child JVM; refuses if a run before it was stopped. */
    public static CarrierScaling run(int carriers) {
        if (carriers < 1 || carriers > 256) {
            throw new IllegalArgumentException("carriers must be between 1 and 256, got " + carriers);
        }
        RunGuard.requireFresh();
        return of(ChildRun.result(Run.class, "S14_CarrierScaling.java", "--carriers", Integer.toString(carriers)));
    }

    /** The row of a run: the parallelism its scheduler reported, then each batch's medians, bounds and batches. */
    public static CarrierScaling of(Run r) {
        return new CarrierScaling(r.parallelismSeen(), r.cores(), r.io().wallMs(), r.io().boundMs(), r.cpu().wallMs(),
                r.cpu().wallMsMin(), r.cpu().carrierBoundMs(), r.cpu().carrierCpuMs(), r.io().wallMsAll(),
                r.cpu().wallMsAll(), r.cpu().othersCores());
    }

    /**
     * The cores the computing batches could have: the cores less those other processes used meanwhile (measured
     * around each batch), never fewer than the carriers did use (the two clocks tick apart), at most the cores.
     */
    public double freeCores() {
        double others = Double.isFinite(othersCores) ? Math.max(0, othersCores) : 0;
        double used = cpuWallMs > 0 ? carrierCpuMs / cpuWallMs : 0;
        double free = Math.min(cores, Math.max(cores - others, used));
        return free > 0 ? free : cores;
    }

    /** The computing batch's bound on the cores it could have: the carriers' CPU time / min(P, free cores). */
    public double cpuFreeBoundMs() {
        return carrierCpuMs / Math.min(carriers, freeCores());
    }

    /** True when other processes used enough of the cores during the computing batches to move its bound. */
    boolean sharedTheCores() {
        return Double.isFinite(othersCores) && othersCores >= NOTICED_CORES;
    }

    /** Other processes' use of the cores from which a page names it: half a 10 ms tick a batch on each core. */
    static final double NOTICED_CORES = 0.05;

    /** The sleeping batch's time with its 95 % interval over the measured batches. */
    public Figure ioTime() {
        return batches(ioWallMsAll, ioWallMs);
    }

    /** The computing batch's time with its 95 % interval over the measured batches. */
    public Figure cpuTime() {
        return batches(cpuWallMsAll, cpuWallMs);
    }

    private static Figure batches(double[] all, double median) {
        return all == null || all.length == 0 ? Figure.single(median) : Figure.samples(all, "batches");
    }

    /** Each batch's median wall time against the time it can't beat: one sleep; CPU / min(P, cores). */
    @Override
    public List<Measurement> measurements() {
        String p = "P=" + carriers; // the labels chapter 08's reference runs use: "P=2 · io", "P=2 · cpu"
        return List.of(Measurement.of(p + " · io", ioWallMs, "ms").bound(ioBoundMs, Measurement.Bound.LOWER_TIME),
                Measurement.of(p + " · cpu", cpuWallMs, "ms")
                        .bound(cpuBoundMs, Measurement.Bound.LOWER_TIME));
    }

    /**
     * What chapters 04 and 08 expect of the batches on P carriers. Waiting holds no carrier: the sleeping batch stays
     * near one sleep on any P. Computing needs a carrier and a core: the computing batch stays near its CPU time /
     * min(P, cores), so up to the cores each carrier more divides its time, and beyond them none does (the source's
     * "only as many run at once as there are carriers, i.e. cores").
     */
    public static final Expectations<List<CarrierScaling>> EXPECTED = Expectations.<List<CarrierScaling>>of(
                    "04-carrier-scaling")
            .expect("no-sleeping-batch-beats-one-sleep", "the sleeping batch closest to one sleep", "one sleep",
                    rows -> Figure.lowest(rows, r -> r.ioTime().over(r.ioBoundMs())), Line.atLeast(0.999)).limit()
            // the carriers' CPU time comes from the JVM's per-thread clocks, read at each batch's edges: 3 % of room
            .expect("no-computing-batch-beats-its-cpu", "the computing batch closest to its CPU time / min(P, cores)",
                    "that bound", rows -> Figure.lowest(rows, r -> r.cpuTime().over(r.cpuBoundMs())),
                    Line.atLeast(0.97)).limit()
            .expect("waiting-needs-no-carrier", "the sleeping batch furthest from one sleep", "one sleep",
                    rows -> Figure.highest(rows, r -> r.ioTime().over(r.ioBoundMs())), Line.atMost(1.25))
            // other processes take cores from the carriers: these three count the cores each run could have
            .expect("computing-needs-a-core", "the computing batch furthest from its CPU time / min(P, free cores)",
                    "that bound", rows -> Figure.highest(rows, r -> r.cpuTime().over(r.cpuFreeBoundMs())),
                    Line.atMost(1.25))
            .because(CarrierScaling::othersTook)
            .expect("speed-up-to-the-cores", "the computing batch's speed-up from 1 carrier to as many as cores",
                    "the free cores' speed-up", rows -> carriersAt(rows, 1).orElseThrow().cpuTime()
                            .over(atCores(rows).orElseThrow().cpuTime()).times(1.0 / freeSpeedUp(rows)),
                    Line.atLeast(0.75))
            .untestableWhen(rows -> cores(rows) < 2 ? "one core: a second carrier has no core to run on"
                    : carriersAt(rows, 1).isEmpty() || atCores(rows).isEmpty() ? "it needs a run on 1 carrier and one"
                    + " on as many carriers as the " + cores(rows) + " cores" : null)
            .because(rows -> carriersAt(rows, 1).isEmpty() || atCores(rows).isEmpty()
                    || !rows.stream().anyMatch(CarrierScaling::sharedTheCores) ? null : String.format(Locale.ROOT,
                    "the free cores' speed-up is min(%d, %.2f free cores) / min(1, %.2f)", cores(rows),
                    atCores(rows).get().freeCores(), carriersAt(rows, 1).get().freeCores()))
            .expect("no-gain-beyond-the-cores", "the computing batch on as many carriers as cores, per free core",
                    "the same batch on the most carriers beyond them", rows -> atCores(rows).orElseThrow().cpuTime()
                            .times(usableCores(atCores(rows).get())).over(beyondCores(rows).orElseThrow().cpuTime()
                                    .times(usableCores(beyondCores(rows).get()))), Line.atMost(1.05))
            .claims("jmh-6")
            .untestableWhen(rows -> atCores(rows).isEmpty() || beyondCores(rows).isEmpty() ? "it needs a run on as"
                    + " many carriers as the " + cores(rows) + " cores and one on more" : null)
            .because(rows -> atCores(rows).isEmpty() || beyondCores(rows).isEmpty() ? null : String.format(Locale.ROOT,
                    "%d carriers on %d cores took %s ms a batch (mean), %d took %s ms%s",
                    atCores(rows).get().carriers(), cores(rows), Figure.number(atCores(rows).get().cpuTime().value()),
                    beyondCores(rows).get().carriers(), Figure.number(beyondCores(rows).get().cpuTime().value()),
                    !atCores(rows).get().sharedTheCores() && !beyondCores(rows).get().sharedTheCores() ? ""
                            : String.format(Locale.ROOT, ", on %.2f and %.2f free cores",
                            usableCores(atCores(rows).get()), usableCores(beyondCores(rows).get()))));

    /** The cores a run's computing batch could run on: min(P, free cores). */
    static double usableCores(CarrierScaling r) {
        return Math.min(r.carriers(), r.freeCores());
    }

    /** The speed-up from 1 carrier to as many as cores that the free cores allow. */
    static double freeSpeedUp(List<CarrierScaling> rows) {
        return usableCores(atCores(rows).orElseThrow()) / usableCores(carriersAt(rows, 1).orElseThrow());
    }

    /** "beside other processes using 0.90 of a core, 1 carrier's bound is its CPU time / 1.00 cores; ...", or null. */
    static String othersTook(List<CarrierScaling> rows) {
        List<String> parts = rows.stream().filter(CarrierScaling::sharedTheCores).map(r -> String.format(Locale.ROOT,
                "beside other processes using %.2f %s, %d %s bound is its CPU time / %.2f cores",
                r.othersCores(), r.othersCores() < 1 ? "of a core" : "cores", r.carriers(),
                r.carriers() == 1 ? "carrier's" : "carriers'", usableCores(r))).toList();
        return parts.isEmpty() ? null : String.join("; ", parts);
    }

    static int cores(List<CarrierScaling> rows) {
        return rows.stream().mapToInt(CarrierScaling::cores).min().orElse(1);
    }

    static Optional<CarrierScaling> carriersAt(List<CarrierScaling> rows, int p) {
        return rows.stream().filter(r -> r.carriers() == p).findFirst();
    }

    static Optional<CarrierScaling> atCores(List<CarrierScaling> rows) {
        return carriersAt(rows, cores(rows));
    }

    static Optional<CarrierScaling> beyondCores(List<CarrierScaling> rows) {
        return rows.stream().filter(r -> r.carriers() > cores(rows))
                .max(Comparator.comparingInt(CarrierScaling::carriers));
    }

    // ---- what S14 saves ---------------------------------------------------------------------------------------

    /**
     * One batch, first start to last join: wall, process CPU (10 ms ticks on Linux), the carriers' own CPU, and the
     * whole machine's CPU (1/100 s ticks; -1 where /proc/stat can't tell), in ns.
     */
    public record Batch(long wallNanos, long cpuNanos, long carrierCpuNanos, long machineCpuNanos) {}

    /** The sleeping batch: N x sleep S ms; it can't end before one sleep. */
    public record Io(int tasks, int sleepMs, double wallMs, double wallMsMin, double boundMs, double wallToBound,
                     double cpuMs, double[] wallMsAll) {}

    /**
     * The computing batch: N x ~W ms of hashing; it can't end before its CPU / min(P, cores). {@code boundMs} uses
     * the process's CPU (NaN when no 10 ms tick was seen), {@code carrierBoundMs} the carriers' own CPU.
     * {@code othersCores}: the cores other processes used during the measured batches (NaN: unknown).
     */
    public record Cpu(int tasks, double workMs, long iterationsPerTask, double nanosPerIteration, double wallMs,
                      double wallMsMin, double cpuMs, double cpuMsPerTask, double carrierCpuMs, double carrierBoundMs,
                      double boundMs, double wallToBound, double wallToCarrierBound, double[] wallMsAll,
                      double[] cpuMsAll, double[] carrierCpuMsAll, double othersCores) {}

    /** A whole S14 run: {@code io} or {@code cpu} is null when --kind left that batch out. */
    public record Run(int carriers, int cores, int parallelismSeen, int effectiveCarriers, int warmUps, int reps,
                      Io io, Cpu cpu, int carrierThreadsMax, String javaVersion) implements Measurement.Measured {
        @Override
        public List<Measurement> measurements() {
            List<Measurement> out = new ArrayList<>();
            String on = " · " + carriers + (carriers == 1 ? " carrier" : " carriers");
            if (io != null) out.add(Measurement.of("sleeping batch" + on, io.wallMs(), "ms")
                    .bound(io.boundMs(), Measurement.Bound.LOWER_TIME));
            if (cpu != null) out.add(Measurement.of("computing batch" + on, cpu.wallMs(), "ms")
                    .bound(cpu.carrierBoundMs(), Measurement.Bound.LOWER_TIME));
            return out;
        }
    }

    /** One batch of the experiment: the snippet's code under study. */
    @FunctionalInterface
    public interface BatchRun {
        Batch run() throws InterruptedException;
    }

    /** {@code warmUps} unmeasured batches, then {@code reps} measured ones (returned); notes the pool's size. */
    public static List<Batch> repeat(String what, int warmUps, int reps, ForkJoinPool pool, int[] carrierThreadsMax,
                                     BatchRun batch) throws InterruptedException {
        List<Batch> measured = new ArrayList<>();
        for (int i = 0; i < warmUps + reps; i++) {
            boolean warm = i < warmUps;
            Protocol.progress(String.format(Locale.ROOT, "%s %s %d/%d", what, warm ? "warm-up" : "measuring",
                    warm ? i + 1 : i - warmUps + 1, warm ? warmUps : reps));
            Batch b = batch.run();
            carrierThreadsMax[0] = Math.max(carrierThreadsMax[0], pool.getPoolSize());
            if (!warm) measured.add(b);
        }
        return measured;
    }

    /** The sleeping batches' figures, printed as one line. */
    public static Io io(List<Batch> batches, int tasks, int sleepMs, int carriers) {
        double[] wall = millis(batches, 0);
        double median = median(wall), min = Arrays.stream(wall).min().orElseThrow();
        System.out.printf(Locale.ROOT, "I/O  %,d x sleep %,d ms on %d carrier%s: wall median %,.1f ms (min %,.1f)"
                + " = %.2f x the bound %,d ms%n", tasks, sleepMs, carriers, carriers == 1 ? "" : "s", median, min,
                median / sleepMs, sleepMs);
        return new Io(tasks, sleepMs, median, min, sleepMs, median / sleepMs, mean(millis(batches, 1)), wall);
    }

    /** The computing batches' figures, with both CPU bounds, printed as two lines. */
    public static Cpu cpu(List<Batch> batches, int tasks, double workMs, long iterations, double nanosPerIteration,
                          int carriers, int effective) {
        double[] wall = millis(batches, 0), cpu = millis(batches, 1), carrierCpu = millis(batches, 2);
        double median = median(wall), min = Arrays.stream(wall).min().orElseThrow();
        // The mean, not the median: the process's CPU time comes in 10 ms ticks, and the mean of the
        // batches' counts is ~sqrt(reps) times closer to the truth than any one of them.
        double cpuMean = mean(cpu);
        double bound = cpuMean > 0 ? cpuMean / effective : Double.NaN; // no tick at all: not 0, unknown
        double carriersMean = mean(carrierCpu), carrierBound = carriersMean / effective;
        System.out.printf(Locale.ROOT, "CPU  %,d x %,d hash iterations (%.2f ns each: ~%s ms) on %d carrier%s:"
                + " wall median %,.1f ms (min %,.1f)%n", tasks, iterations, nanosPerIteration, plain(workMs),
                carriers, carriers == 1 ? "" : "s", median, min);
        String process = cpuMean > 0 ? String.format(Locale.ROOT, "%,.1f ms, bound %,.1f / %d = %,.1f ms, wall ="
                + " %.2f x", cpuMean, cpuMean, effective, bound, median / bound)
                : "under one 10 ms tick, too short to read (use more --tasks or --work-ms)";
        System.out.printf(Locale.ROOT, "     CPU a batch: the process %s; the carriers alone %,.1f ms (%.2f ms a"
                + " task), bound %,.1f ms, wall = %.2f x%n", process, carriersMean, carriersMean / tasks,
                carrierBound, median / carrierBound);
        double others = othersCores(batches);
        System.out.printf(Locale.ROOT, "     other processes meanwhile: %s%n", Double.isNaN(others) ? "unknown (no"
                + " /proc/stat)" : String.format(Locale.ROOT, "%.2f of %d cores", others,
                Runtime.getRuntime().availableProcessors()));
        return new Cpu(tasks, workMs, iterations, nanosPerIteration, median, min, cpuMean, cpuMean / tasks,
                carriersMean, carrierBound, bound, median / bound, median / carrierBound, wall, cpu, carrierCpu,
                others);
    }

    /** The cores other processes used over the batches: the machine's CPU less this process's, over the wall time. */
    static double othersCores(List<Batch> batches) {
        if (batches.stream().anyMatch(b -> b.machineCpuNanos() < 0)) return Double.NaN;
        double others = batches.stream().mapToDouble(b -> b.machineCpuNanos() - b.cpuNanos()).sum();
        double wall = batches.stream().mapToDouble(Batch::wallNanos).sum();
        return wall > 0 ? Math.max(0, others / wall) : Double.NaN;
    }

    private static double[] millis(List<Batch> batches, int field) {
        return batches.stream().mapToDouble(b -> (field == 0 ? b.wallNanos() : field == 1 ? b.cpuNanos()
                : b.carrierCpuNanos()) / 1e6).toArray();
    }

    static double mean(double[] values) {
        return Arrays.stream(values).average().orElse(Double.NaN);
    }

    static double median(double[] values) {
        double[] s = values.clone();
        Arrays.sort(s);
        int n = s.length;
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    }

    /** S14's first line: the carriers, as checked in the scheduler's pool. */
    public static void announce(int p, ForkJoinPool pool) {
        System.out.printf(Locale.ROOT, "%d carrier%s (checked: the scheduler's pool has parallelism %d), %d cores,"
                + " JDK %s%n", p, p == 1 ? "" : "s", pool.getParallelism(), Runtime.getRuntime().availableProcessors(),
                Runtime.version());
    }

    /** S14's line before the I/O batches: the bound, one sleep. */
    public static void announceIo(int tasks, int sleepMs) {
        System.out.printf(Locale.ROOT, "bound: I/O  %,d x sleep %,d ms: at least %,d ms, one sleep, whatever the"
                + " carriers (a sleeping virtual thread leaves its carrier)%n", tasks, sleepMs, sleepMs);
    }

    /** S14's line before the CPU batches: the bound, the CPU time over min(P, cores). */
    public static void announceCpu(int p, int tasks, double workMs, double expectedMs) {
        System.out.printf(Locale.ROOT, "bound: CPU  %,d x ~%s ms of hashing: at least its CPU time / min(carriers"
                + " %d, cores %d) = ~%,.0f ms (the CPU time is measured)%n", tasks, plain(workMs), p,
                Runtime.getRuntime().availableProcessors(), expectedMs);
    }

    /** S14's budget: (--warmups + --reps) x one batch on one carrier, at most 10 minutes. */
    public static void withinBudget(Experiment.Args a) {
        String kind = a.oneOf("--kind");
        int warmUps = a.intCount("--warmups"), reps = a.intCount("--reps");
        double batchMs = (kind.equals("cpu") ? 0 : a.count("--sleep-ms"))
                + (kind.equals("io") ? 0 : a.count("--tasks") * a.number("--work-ms"));
        if ((warmUps + reps) * batchMs > 10 * 60_000) {
            throw new IllegalArgumentException(String.format(Locale.ROOT, "(--warmups + --reps) x (sleep-ms"
                    + " + tasks x work-ms) = (%d + %d) x %,.0f ms = %,.0f s on one carrier; at most 10 minutes"
                    + " (600 s) allowed: use fewer --tasks, a smaller --work-ms or fewer --reps", warmUps, reps,
                    batchMs, (warmUps + reps) * batchMs / 1e3));
        }
    }

    /** 2 as "2", 0.5 as "0.5". */
    public static String plain(double d) {
        return d == Math.rint(d) ? String.format(Locale.ROOT, "%,.0f", d) : Double.toString(d);
    }
}
