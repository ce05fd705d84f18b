package unpinned.showing;

import unpinned.core.Protocol;
import unpinned.core.Show;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

public class LiveChartTest {
    @Test
    void drawsEachFigureAgainstTheSecondsOnItsOwnAxis() {
        List<Protocol.Sample> samples = new ArrayList<>();
        double[] seconds = {1, 2, 3, 4};
        for (int i = 0; i < seconds.length; i++) {
            samples.add(Protocol.Sample.of("req/s", 1000 + 900 * i, "p99_ms", i == 0 ? Double.NaN : 100 + i));
        }
        Show.SampleChart chart = new LiveChart();
        DrawnChart drawn = (DrawnChart) chart.draw("SleepEndpointLoad · HttpLoad · measuring 2/5 s", seconds, samples);
        assertEquals(LiveChart.WIDTH, drawn.getWidth());
        assertEquals(LiveChart.HEIGHT, drawn.getHeight());
        assertEquals(List.of(new DrawnChart.Drawn("req/s", 4), new DrawnChart.Drawn("p99 ms", 3)), drawn.series());
        assertEquals(List.of(), drawn.clipped());
        assertTrue(drawn.title().contains("measuring 2/5 s"), drawn.title());
    }

    @Test
    void aLongTitleIsCutAtAWordToOneLine() {
        String longTitle = "SpringLoad · HttpLoad · 1000 connections · measuring 12/20 s · 4,812 req/s · 0 errors"
                + " · and then a good deal more that no chart of 600 pixels could hold on one line";
        String fitted = LiveChart.fit(longTitle);
        assertTrue(fitted.endsWith(" …") && longTitle.startsWith(fitted.substring(0, fitted.length() - 2)), fitted);
        assertEquals("short", LiveChart.fit("short"));
    }

    @Test
    void noSamplesIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new LiveChart().draw("t", new double[0], List.of()));
    }
}
