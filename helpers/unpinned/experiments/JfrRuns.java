//SOURCES ../core/Expectations.java
//SOURCES ../core/Figure.java
//SOURCES ../running/Jfr.java
//SOURCES VirtualThreadEvents.java
package unpinned.experiments;

import unpinned.core.Expectations;
import unpinned.core.Expectations.Line;
import unpinned.core.Figure;
import unpinned.running.Jfr;

/**
 * What chapter 04 expects of snippet S13's recording ({@link Jfr.VirtualThreads}). Kept apart from
 * {@link VirtualThreadEvents}, which the snippet compiles, so that the snippet needs no declarations.
 */
public final class JfrRuns {
    private JfrRuns() {}

    /**
     * Blocking 50 ms in a class initializer pins its carrier on JDK 21 and 25 alike, above jdk.VirtualThreadPinned's
     * 20 ms threshold, so the recording should hold one pinned event for each such block: fewer means the event
     * missed pins a learner would be told to watch for.
     */
    public static final Expectations<Jfr.VirtualThreads> EXPECTED = Expectations.<Jfr.VirtualThreads>of("04-jfr")
            .expect("every-pin-recorded", "jdk.VirtualThreadPinned events from the class initializer",
                    "the threads that blocked in it", r -> Figure.exact(r.pinnedByCase()
                            .getOrDefault(VirtualThreadEvents.CASE_CLINIT, 0L)).over(r.pins()), Line.atLeast(1))
            .claims("flux-11")
            .untestableWhen(r -> r.pins() == 0 ? "the run made no pins (--pins 0)" : null);
}
