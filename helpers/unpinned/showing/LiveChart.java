//DEPS org.knowm.xchart:xchart:3.8.8
//SOURCES Charts.java
//SOURCES DrawnChart.java
//SOURCES ../core/Protocol.java
//SOURCES ../core/Show.java
package unpinned.showing;

import unpinned.core.Protocol;
import unpinned.core.Show;

import java.awt.Color;
import java.awt.Font;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The chart a run draws while it runs ({@link Show.Live#sample}): each figure its child reports once a second
 * (requests per second and p99 latency of a load test, the server's carriers busy; a JMH run's iterations) against
 * the seconds since the run started, the first unit on the left axis, the others on the right. Small ({@value
 * #WIDTH} x {@value #HEIGHT}); the cell empties it when the run ends, so only the cell's own charts stay on the
 * page. Found by {@link Show} through {@link java.util.ServiceLoader} (helpers/Kernel.java registers it), so
 * {@code core} needs no import of this package.
 */
public final class LiveChart implements Show.SampleChart {
    public static final int WIDTH = 600;
    public static final int HEIGHT = 250;
    private static final Font TITLE = new Font(Font.SANS_SERIF, Font.BOLD, 12);

    public LiveChart() {}

    @Override
    public DrawnChart draw(String title, double[] seconds, List<Protocol.Sample> samples) {
        if (seconds == null || samples == null || seconds.length != samples.size() || seconds.length == 0) {
            throw new IllegalArgumentException("seconds and samples must be non-empty and as many, got "
                    + (seconds == null ? "null" : seconds.length) + " and " + (samples == null ? "null" : samples.size()));
        }
        Set<String> names = new LinkedHashSet<>();
        for (Protocol.Sample s : samples) names.addAll(s.values().keySet());
        if (names.isEmpty()) throw new IllegalArgumentException("the samples hold no figure");
        XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(fit(title))
                .xAxisTitle("seconds since the start").build();
        Charts.style(chart.getStyler());
        chart.getStyler().setChartTitleFont(TITLE);
        chart.getStyler().setXAxisDecimalPattern("#,##0");
        chart.getStyler().setSeriesColors(Charts.PALETTE);
        // One axis per unit (the last word of a figure's name: "p99_ms" is in ms, JMH's "fixed-8_ms/op" and
        // "virtual_ms/op" share ms/op): the first unit's on the left, the others on the right, each titled by its
        // figure, or by the unit where several figures share it, in the colour of its first line.
        List<String> units = names.stream().map(LiveChart::unit).distinct().toList();
        Set<Integer> titled = new HashSet<>();
        int index = 0;
        for (String name : names) {
            double[] y = samples.stream().mapToDouble(s -> s.values().getOrDefault(name, Double.NaN)).toArray();
            String label = Protocol.Sample.label(name);
            XYSeries series = chart.addSeries(label, seconds.clone(), y);
            series.setMarker(SeriesMarkers.NONE);
            int axis = units.indexOf(unit(name));
            series.setYAxisGroup(axis);
            if (titled.add(axis)) {
                boolean shared = names.stream().filter(n -> unit(n).equals(unit(name))).count() > 1;
                chart.setYAxisGroupTitle(axis, shared ? Protocol.Sample.label(unit(name)) : label);
                chart.getStyler().setYAxisGroupTitleColor(axis, shared ? Color.DARK_GRAY
                        : Charts.PALETTE[index % Charts.PALETTE.length]);
                chart.getStyler().setYAxisGroupPosition(axis, axis == 0 ? Styler.YAxisPosition.Left
                        : Styler.YAxisPosition.Right);
            }
            index++;
            double smallest = Arrays.stream(y).filter(v -> Double.isFinite(v) && v != 0).map(Math::abs).min().orElse(1);
            chart.getStyler().putYAxisGroupDecimalPatternMap(axis, Charts.pattern(smallest));
            if (Arrays.stream(y).noneMatch(v -> v < 0)) chart.getStyler().setYAxisMin(axis, 0.0); // a dip shows as it is
        }
        return Charts.render(chart);
    }

    /** A figure's unit: the last word of its name ("p99_ms": ms; "req/s": req/s). */
    static String unit(String name) {
        return name.substring(name.lastIndexOf('_') + 1);
    }

    /** The title cut at a word (with an ellipsis) to one line of the chart's width. */
    static String fit(String title) {
        String t = title == null || title.isBlank() ? "running" : title.strip();
        int room = WIDTH - 30;
        if (Charts.textWidth(t, TITLE) <= room) return t;
        List<String> words = new ArrayList<>(Arrays.asList(t.split("\\s+")));
        while (words.size() > 1 && Charts.textWidth(String.join(" ", words) + " …", TITLE) > room) {
            words.remove(words.size() - 1);
        }
        return String.join(" ", words) + " …";
    }
}
