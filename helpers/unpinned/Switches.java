package unpinned;

import java.util.List;

/**
 * Chapter 03's context switches, one run of snippet S11 ({@code context-switches}) in its own JVM: the OS's
 * voluntary and involuntary switches of that process while its threads of {@code kind} sleep, their rate, the
 * user-to-kernel CPU ratio (NaN when no kernel tick fell in the window), and the fewest voluntary switches the
 * platform threads can make (one per sleep; 0 for virtual threads, whose sleeps don't block an OS thread).
 */
public record Switches(String kind, double elapsedSeconds, long voluntary, long involuntary,
                       double switchesPerSecond, double userToKernel, long minimumVoluntary)
        implements Measurement.Measured {

    /** Runs S11 with {@code --kind kind} in a child JVM. */
    public static Switches run(String kind) {
        return ChildRun.result(Switches.class, "S11_ContextSwitches.java", "--kind", kind);
    }

    @Override
    public List<Measurement> measurements() {
        Measurement v = Measurement.of(kind + " · voluntary context switches", voluntary, "switches");
        // one per sleep at least: a count can't go under it, like a time can't go under its sleep
        if (minimumVoluntary > 0) v = v.bound(minimumVoluntary, Measurement.Bound.LOWER_TIME);
        return List.of(v, Measurement.of(kind + " · context switches per second", switchesPerSecond, "1/s"));
    }
}
