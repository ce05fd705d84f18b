//SOURCES ../core/RunGuard.java
package unpinned.showing;

import unpinned.core.RunGuard;

import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.Locale;

/**
 * Quick wall-clock timing for a notebook cell. It is a demonstration, not a benchmark:
 * no forking, no dead-code or JIT control, so every result says so in its toString.
 * Claims about performance belong to JMH (see {@code Jmh}); this shows the shape of an effect. Besides wall time it
 * reports the whole JVM's CPU time over the timed repetitions (every thread: carriers, pools, the GC), which the
 * kernel's own cell timing can't show, since it counts the cell's thread only.
 */
public final class Demo {
    private Demo() {}

    /** The code under demonstration; it may throw, and the exception ends the timing. */
    @FunctionalInterface
    public interface Body {
        void run() throws Exception;
    }

    /**
     * Wall times of the measured repetitions, in milliseconds, and the whole process's CPU time per repetition (the
     * mean over all of them; NaN where the JVM can't tell): cpuMsPerRep / mean wall time is how many cores were busy.
     */
    public record Timing(String label, int reps, double minMs, double medianMs, double maxMs, double meanMs,
                         double cpuMsPerRep) {
        /** Cores the whole process kept busy on average while the repetitions ran. */
        public double coresBusy() {
            return meanMs > 0 ? cpuMsPerRep / meanMs : Double.NaN;
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "[demonstration] %s: median %.2f ms (min %.2f, max %.2f, %d reps);"
                    + " whole-process CPU %.2f ms per rep, %.2f cores busy", label, medianMs, minMs, maxMs, reps,
                    cpuMsPerRep, coresBusy());
        }
    }

    /**
     * Runs {@code body} {@code warmups} times untimed, then {@code reps} times timed.
     * An interrupt (e.g. the notebook's stop button) is honoured between repetitions:
     * the method throws InterruptedException instead of starting another one.
     */
    public static Timing time(String label, int warmups, int reps, Body body) throws Exception {
        if (label == null || label.isBlank()) {
            throw new IllegalArgumentException("label must be a non-blank string, got "
                    + (label == null ? "null" : "'" + label + "'"));
        }
        if (warmups < 0) throw new IllegalArgumentException("warmups must be >= 0, got " + warmups);
        if (reps < 1) throw new IllegalArgumentException("reps must be >= 1, got " + reps);
        if (body == null) throw new IllegalArgumentException("body must not be null");
        RunGuard.check("timing '" + label + "'");
        try {
            return timed(label, warmups, reps, body);
        } catch (Exception e) {
            RunGuard.halt(label); // interrupted or failed: later queued cells must not show an older timing
            throw e;
        }
    }

    private static Timing timed(String label, int warmups, int reps, Body body) throws Exception {
        for (int i = 0; i < warmups; i++) {
            stopIfInterrupted(label);
            body.run();
        }
        double[] ms = new double[reps];
        long cpu0 = processCpuNanos();
        for (int i = 0; i < reps; i++) {
            stopIfInterrupted(label);
            long start = System.nanoTime();
            body.run();
            ms[i] = (System.nanoTime() - start) / 1e6;
        }
        long cpu1 = processCpuNanos();
        double cpuMsPerRep = cpu0 < 0 || cpu1 < 0 ? Double.NaN : (cpu1 - cpu0) / 1e6 / reps;
        double mean = Arrays.stream(ms).average().orElse(Double.NaN);
        Arrays.sort(ms);
        // Median of an even count is the mean of the middle two.
        double median = reps % 2 == 1 ? ms[reps / 2] : (ms[reps / 2 - 1] + ms[reps / 2]) / 2;
        return new Timing(label, reps, ms[0], median, ms[reps - 1], mean, cpuMsPerRep);
    }

    /** The whole JVM's CPU time so far (all threads), or -1 where the platform can't tell. */
    static long processCpuNanos() {
        return ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os
                ? os.getProcessCpuTime() : -1;
    }

    private static void stopIfInterrupted(String label) throws InterruptedException {
        if (Thread.interrupted()) throw new InterruptedException("interrupted while timing '" + label + "'");
    }
}
