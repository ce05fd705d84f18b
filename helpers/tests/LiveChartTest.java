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
    void figuresInTheFirstOnesUnitShareItsAxis() {
        // JMH's iterations, one executor after another: each series holds only its own stretch of the run
        List<Protocol.Sample> samples = new ArrayList<>();
        String[] names = {"fixed-8_ms/op", "fixed-200_ms/op", "virtual_ms/op"};
        double[] seconds = new double[6];
        for (int i = 0; i < 6; i++) {
            seconds[i] = i + 1;
            samples.add(new Protocol.Sample(java.util.Map.of(names[i / 2], 3_000.0 / (i / 2 + 1))));
        }
        DrawnChart drawn = (DrawnChart) new LiveChart().draw("S01 · JMH", seconds, samples);
        assertEquals(List.of(new DrawnChart.Drawn("fixed-8 ms/op", 2), new DrawnChart.Drawn("fixed-200 ms/op", 2),
                new DrawnChart.Drawn("virtual ms/op", 2)), drawn.series());
        assertEquals("ms/op", LiveChart.unit("virtual_ms/op"));
        assertEquals("ms", LiveChart.unit("p99_ms"));
        assertEquals("req/s", LiveChart.unit("req/s"));
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
