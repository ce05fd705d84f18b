package unpinned.experiments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

public class SwitchCostsTest {
    @Test
    void aStaircaseOfOneFramePerReturnThenTheRestIsReadAsSuch() {
        // 2,472 words after the resume, 6 words per return while 500 or more are left, then the rest at once
        int[] after = new int[399];
        int left = 2_472;
        for (int i = 0; i < after.length; i++) {
            left = left >= 500 ? left - 6 : 0;
            after[i] = left;
        }
        var park = LazyThaw.Park.of(400, 2_554, 2_472, after, 6.0, 500);
        assertEquals(6.0, park.wordsPerThaw());
        assertEquals(1.0, park.framesPerThaw());
        assertTrue(park.lastThawWords() < 500 && park.lastThawWords() > 0, "" + park.lastThawWords());
        assertEquals(0, after[after.length - 1]);
        assertEquals(IntStream.of(after).filter(w -> w > 0).count() + 1, park.thaws());
    }

    @Test
    void aShallowParkThawedWholeHasNoThawOnTheWayBack() {
        var park = LazyThaw.Park.of(40, 394, 0, new int[39], 6.0, 500);
        assertEquals(0, park.thaws());
        assertTrue(Double.isNaN(park.framesPerThaw()));
        assertEquals(1, park.returnsBeforeEmpty());
    }

    @Test
    void thePoolSizeRuleOfTryCompensate() {
        assertEquals(List.of(4, 4, 5, 6, 7, 8), IntStream.rangeClosed(1, 6)
                .mapToObj(n -> SchedulerInternals.expectedPoolSize(4, 2, null, n)).toList());
        assertEquals(List.of(5, 6, 7, 8, 9, 10), IntStream.rangeClosed(1, 6)
                .mapToObj(n -> SchedulerInternals.expectedPoolSize(4, 4, null, n)).toList());
        assertEquals(6, SchedulerInternals.expectedPoolSize(4, 4, 6, 6)); // maxPoolSize caps it
        assertEquals(2, SchedulerInternals.minRunnable(4, null));
        assertEquals(1, SchedulerInternals.minRunnable(1, null));
        assertEquals(3, SchedulerInternals.minRunnable(4, 3));
    }

    @Test
    void wakeUpPercentilesComeFromTheSortedLatencies() {
        double[] us = IntStream.rangeClosed(1, 100).mapToDouble(i -> 101 - i).toArray();
        var mode = WakeUps.Mode.of("idle", us, 1.0);
        assertEquals(50.0, mode.p50Us());
        assertEquals(90.0, mode.p90Us());
        assertEquals(99.0, mode.p99Us());
    }

    @Test
    void aLineFittedThroughTheWholeChunkPoints() {
        var points = List.of(new SwitchCosts.Depth("JDK 25", 1, 26, 100, 1, new double[0]),
                new SwitchCosts.Depth("JDK 25", 40, 226, 120, 1, new double[0]),
                new SwitchCosts.Depth("JDK 25", 80, 426, 140, 1, new double[0]));
        double[] fit = SwitchCosts.fit(points);
        assertEquals(0.1, fit[1], 1e-9);
        assertEquals(97.4, fit[0], 1e-9);
    }
}
