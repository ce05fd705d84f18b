package unpinned.core;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * How busy the rest of the machine was while a run measured: the cores that processes other than this JVM (and the
 * children it started and waited for) kept busy, steal included, read from Linux's {@code /proc}. A verdict taken on a
 * busy machine widens its interval by that share ({@link Figure#widened}), so a figure near its line comes out
 * inconclusive rather than refuted, and the page says the machine was busy.
 *
 * <pre>{@code
 * Busy.Window w = Busy.start();  ... run ...  Busy.State s = w.end();   // s.otherCores() = 0.4 of 2 cores
 * }</pre>
 */
public final class Busy {
    private Busy() {}

    /** A share of the cores busy elsewhere from which a run counts as measured on a busy machine. */
    public static final double BUSY_SHARE = 0.10;

    /**
     * The cores kept busy by other processes and by this run itself (this JVM and the children it waited for) during
     * {@code seconds} of measuring, out of {@code cores}; NaN where {@code /proc} can't tell (not Linux, or a
     * container whose {@code /proc/stat} shows the host's CPUs).
     */
    public record State(double otherCores, double ownCores, int cores, double seconds) {
        /** Nothing known: no widening, not marked busy. */
        public static final State UNKNOWN = new State(Double.NaN, Double.NaN, Runtime.getRuntime().availableProcessors(), 0);

        /** The share of the cores others used, 0 when unknown. */
        public double otherShare() {
            return Double.isFinite(otherCores) && cores > 0 ? Math.max(0, otherCores / cores) : 0;
        }

        /**
         * The share of the cores others took from this run: what they used beyond the room the run left, once the
         * run and they together wanted more than the cores (a neighbour on an idle core takes nothing from a run).
         */
        public double share() {
            if (!Double.isFinite(otherCores) || cores <= 0) return 0;
            double own = Double.isFinite(ownCores) ? ownCores : cores; // unknown: assume the run wanted every core
            double excess = Math.max(0, own + otherCores - SATURATED * cores);
            return Math.min(otherCores, excess) / cores;
        }

        /** True when others took at least {@link #BUSY_SHARE} of the cores. */
        public boolean busy() {
            return otherShare() >= BUSY_SHARE;
        }

        /** "1.10 of 2 cores busy elsewhere, beside 0.60 of this run's" (or that it is unknown). */
        public String describe() {
            if (!Double.isFinite(otherCores)) return "the rest of the machine's load unknown";
            String own = Double.isFinite(ownCores) ? String.format(Locale.ROOT, " beside %.2f of this run's", ownCores) : "";
            return String.format(Locale.ROOT, "%.2f of %d cores busy elsewhere%s", Math.min(otherCores, cores), cores, own);
        }

        /** The busier of two states: a result judged from several runs takes the worst of them. */
        public State worst(State other) {
            if (other == null || !Double.isFinite(other.otherCores)) return this;
            if (!Double.isFinite(otherCores) || other.share() > share()
                    || (other.share() == share() && other.otherShare() > otherShare())) return other;
            return this;
        }
    }

    /** The share of the cores at which a machine counts as full: above it, runnable threads wait for a core. */
    static final double SATURATED = 0.9;

    /** A measuring window begun: the machine's and this process tree's CPU so far. */
    public record Window(double machineSeconds, double ownSeconds, long startNanos) {
        /** What the rest of the machine used since the window began. */
        public State end() {
            State s = between(this, start());
            note(s);
            return s;
        }
    }

    /** Begins a window now. */
    public static Window start() {
        return new Window(machineBusySeconds(), ownSeconds(), System.nanoTime());
    }

    static State between(Window from, Window to) {
        int cores = Runtime.getRuntime().availableProcessors();
        double seconds = (to.startNanos - from.startNanos) / 1e9;
        double machine = to.machineSeconds - from.machineSeconds, own = to.ownSeconds - from.ownSeconds;
        // /proc counts in 1/100 s ticks: a window under a second says too little to count
        if (!(seconds >= 1) || !Double.isFinite(machine) || !Double.isFinite(own)) {
            return new State(Double.NaN, Double.NaN, cores, seconds);
        }
        return new State(Math.max(0, (machine - own) / seconds), own / seconds, cores, seconds);
    }

    // The busiest state noted since it was last taken: what a notebook's result, made of several runs, was measured under.
    private static State sinceSave;

    static synchronized void note(State s) {
        sinceSave = sinceSave == null ? s : sinceSave.worst(s);
    }

    /** The busiest window noted since the last call (UNKNOWN if none), for the result about to be judged or saved. */
    public static synchronized State takeNoted() {
        State s = sinceSave == null ? State.UNKNOWN : sinceSave;
        sinceSave = null;
        return s;
    }

    /**
     * CPU seconds the whole machine has been busy since boot, summed over its CPUs (user, nice, system, irq, softirq
     * and steal, in 1/100 s ticks), or NaN where {@code /proc/stat} can't be read or doesn't describe this JVM's CPUs.
     */
    public static double machineBusySeconds() {
        try {
            return machineBusySeconds(Files.readAllLines(Path.of("/proc/stat")), Runtime.getRuntime().availableProcessors());
        } catch (IOException | RuntimeException e) {
            return Double.NaN; // not Linux
        }
    }

    static double machineBusySeconds(List<String> procStat, int cores) {
        long cpus = procStat.stream().filter(l -> l.matches("cpu\\d+ .*")).count();
        String total = procStat.stream().filter(l -> l.startsWith("cpu ")).findFirst().orElse(null);
        if (total == null || cpus != cores) return Double.NaN;
        String[] f = total.trim().split("\\s+");
        if (f.length < 9) return Double.NaN;
        long busy = 0;
        for (int i : new int[] {1, 2, 3, 6, 7, 8}) busy += Long.parseLong(f[i]); // user nice system irq softirq steal
        return busy / 100.0;
    }

    /** CPU seconds of this JVM plus the children it has waited for (utime, stime, cutime, cstime), NaN off Linux. */
    static double ownSeconds() {
        try {
            String stat = Files.readString(Path.of("/proc/self/stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14])) / 100.0;
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }
}
