//SOURCES ../core/Expectations.java
//SOURCES ../core/Figure.java
package unpinned.experiments;

import unpinned.core.Expectations;
import unpinned.core.Expectations.Line;
import unpinned.core.Figure;

/** The toy experiment CONTRIBUTING walks through: the time to start virtual threads, per thread, in rounds. */
public final class Toy {
    private Toy() {}

    /** {@code threads} virtual threads started and joined in each round; each round's wall time in ms. */
    public record Run(int threads, double[] roundMs) {
        /** A round's time per thread over the loose bound of one millisecond per thread. */
        public Figure perThreadOverBound() {
            return Figure.samples(roundMs, "rounds").over(threads * 1.0);
        }
    }

    /** Starting a virtual thread costs microseconds: a round stays far under a millisecond per thread. */
    public static final Expectations<Run> EXPECTED = Expectations.<Run>of("99-toy")
            .expect("starts-under-a-ms", "starting and joining the virtual threads", "1 ms per thread",
                    Run::perThreadOverBound, Line.atMost(1.0));
}
