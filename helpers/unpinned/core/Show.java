//SOURCES Protocol.java
package unpinned.core;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.awt.image.BufferedImage;
import java.io.UncheckedIOException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import javax.imageio.ImageIO;

/**
 * Puts HTML, Markdown and charts on the notebook page without a value left behind: JJava's {@code display(...)}
 * returns the output's id, and as a cell's last statement that id is printed as the cell's result (a bare UUID on
 * the page). These methods return nothing. In the kernel they talk to JJava by reflection (the helpers also run in
 * plain JVMs, where JJava is absent); outside it they print the text, so a snippet or a plain program can call them too.
 *
 * <p>{@link #register} teaches the kernel to show a type with metadata: {@link Charts} registers its charts, so each
 * carries its record (title, series and their points, anything clipped) into the page, where it can be read back.
 */
public final class Show {
    private static final String STATICS = "org.dflib.jjava.kernel.JavaNotebookStatics";
    private static final String DISPLAY_DATA = "org.dflib.jjava.jupyter.kernel.display.DisplayData";
    private static final String RENDER_FUNCTION = "org.dflib.jjava.jupyter.kernel.display.RenderFunction";
    private static final String BASE_STATICS = "org.dflib.jjava.jupyter.kernel.BaseNotebookStatics";
    private static final java.util.Set<Class<?>> registered = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private Show() {}

    /** The running JJava kernel, or null in a plain JVM. */
    static Object kernel() {
        try {
            Class<?> statics = Class.forName(STATICS, true, Show.class.getClassLoader());
            return statics.getMethod("kernel").invoke(null); // getKernelInstance() prints a deprecation warning
        } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
            return null;
        }
    }

    /** Shows HTML in the notebook (printed as is elsewhere). */
    public static void html(String html) {
        if (!display("putHTML", html)) System.out.println(html);
    }

    /** Shows HTML with a record in the output's metadata under {@code key} (printed as is elsewhere). */
    public static void html(String html, String key, Object metadata) {
        if (!display("putHTML", html, key, metadata)) System.out.println(html);
    }

    /** Shows Markdown in the notebook (printed as is elsewhere). */
    public static void markdown(String markdown) {
        if (!display("putMarkdown", markdown)) System.out.println(markdown);
    }

    /** Shows Markdown with a record in the output's metadata under {@code key} (printed as is elsewhere). */
    public static void markdown(String markdown, String key, Object metadata) {
        if (!display("putMarkdown", markdown, key, metadata)) System.out.println(markdown);
    }

    /**
     * Shows a PNG (base64, as {@link #png} makes it) with {@code describe} as its text stand-in and each entry of
     * {@code metadata} in the output's metadata (e.g. a chart's record); nothing outside a kernel.
     */
    public static void image(String base64Png, String describe, java.util.Map<String, Object> metadata) {
        Object kernel = kernel();
        if (kernel == null) return;
        try {
            Class<?> dataClass = Class.forName(DISPLAY_DATA, true, kernel.getClass().getClassLoader());
            Object data = dataClass.getConstructor().newInstance();
            dataClass.getMethod("putData", String.class, Object.class).invoke(data, "image/png", base64Png);
            dataClass.getMethod("putData", String.class, Object.class).invoke(data, "text/plain", describe);
            for (var e : metadata.entrySet()) {
                dataClass.getMethod("putMetaData", String.class, Object.class).invoke(data, e.getKey(), e.getValue());
            }
            kernel.getClass().getMethod("display", dataClass).invoke(kernel, data);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("the notebook kernel refused to show an image: " + e, e);
        }
    }

    private static boolean display(String put, String content) {
        return display(put, content, null, null);
    }

    private static boolean display(String put, String content, String key, Object metadata) {
        Object kernel = kernel();
        if (kernel == null) return false;
        try {
            Class<?> dataClass = Class.forName(DISPLAY_DATA, true, kernel.getClass().getClassLoader());
            Object data = dataClass.getConstructor().newInstance();
            dataClass.getMethod(put, String.class).invoke(data, content);
            if (key != null) dataClass.getMethod("putMetaData", String.class, Object.class).invoke(data, key, metadata);
            kernel.getClass().getMethod("display", dataClass).invoke(kernel, data);
            return true;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("the notebook kernel refused to show an output: " + e, e);
        }
    }

    /**
     * Teaches the kernel to show objects of {@code type} as {@code mime} data ({@code data} makes the payload, and
     * {@code describe} its text/plain stand-in) with {@code metadata} under {@code key} in the output's metadata;
     * once per type; nothing outside a kernel.
     */
    public static synchronized <T> void register(Class<T> type, String mime, Function<T, Object> data,
                                                 Function<T, String> describe, String key, Function<T, Object> metadata) {
        if (!registered.add(type)) return;
        Object kernel = kernel();
        if (kernel == null) return;
        try {
            ClassLoader loader = kernel.getClass().getClassLoader();
            Object renderer = kernel.getClass().getMethod("getRenderer").invoke(kernel);
            Object registration = renderer.getClass().getMethod("createRegistration", Class.class).invoke(renderer, type);
            registration = registration.getClass().getMethod("preferring", String[].class)
                    .invoke(registration, (Object) new String[] {mime});
            Class<?> function = Class.forName(RENDER_FUNCTION, true, loader);
            Object render = Proxy.newProxyInstance(loader, new Class<?>[] {function}, (proxy, method, args) -> {
                if (!method.getName().equals("render")) return method.invoke(new Object(), args);
                T value = type.cast(args[0]);
                Object output = args[1].getClass().getMethod("getOutputContainer").invoke(args[1]);
                output.getClass().getMethod("putData", String.class, Object.class).invoke(output, mime, data.apply(value));
                // the text a page without images shows (instead of the object's toString)
                output.getClass().getMethod("putData", String.class, Object.class).invoke(output, "text/plain", describe.apply(value));
                output.getClass().getMethod("putMetaData", String.class, Object.class)
                        .invoke(output, key, metadata.apply(value));
                return null;
            });
            registration.getClass().getMethod("register", function).invoke(registration, render);
        } catch (ReflectiveOperationException e) {
            registered.remove(type);
            throw new IllegalStateException("the notebook kernel refused a renderer for " + type.getSimpleName() + ": " + e, e);
        }
    }

    /** An image as base64 PNG, as notebook outputs carry it. */
    public static String png(BufferedImage image) {
        var bytes = new ByteArrayOutputStream();
        try {
            ImageIO.write(image, "png", bytes);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode a chart as PNG: " + e.getMessage(), e);
        }
        return Base64.getEncoder().encodeToString(bytes.toByteArray());
    }

    /**
     * Draws a run's samples as a chart the kernel can show ({@link Live#sample}): provided by {@code unpinned.showing}
     * (registered for {@link ServiceLoader} in the helpers' jar, helpers/Kernel.java), absent in snippets, where the
     * progress line stays text.
     */
    public interface SampleChart {
        /**
         * A chart of {@code samples}, taken {@code seconds} after the run started, under {@code title}: an object the
         * kernel renders (an image).
         */
        Object draw(String title, double[] seconds, List<Protocol.Sample> samples);
    }

    /** True in the notebook kernel. */
    public static boolean inKernel() {
        return kernel() != null;
    }

    /**
     * A line that updates in place while a run goes on (a progress line) and leaves nothing on the saved page
     * once {@linkplain #close() closed}: in the notebook one output, replaced each time; elsewhere a console line
     * rewritten with a carriage return. In the notebook, a run that reports {@linkplain #sample samples} turns that
     * output into a chart of them, redrawn about once a second, titled with the latest progress text.
     */
    public static final class Live implements AutoCloseable {
        /** The shortest time between two drawings of the chart. */
        static final long REDRAW_NANOS = TimeUnit.MILLISECONDS.toNanos(700);
        private final java.io.PrintStream console;
        private final long started = System.nanoTime();
        private final List<Double> seconds = new ArrayList<>();
        private final List<Protocol.Sample> samples = new ArrayList<>();
        private String id;
        private int width;
        private String text = "";
        private boolean charted; // the output shows the chart, not the line
        private boolean drawable = true; // false once drawing failed: the text line from then on
        private long drawnAt;
        private int drawings;
        private int generation; // one more at each close(): a drawing begun before it is not shown

        public Live(java.io.PrintStream console) {
            this.console = console;
        }

        public synchronized void show(String text) {
            this.text = text;
            if (charted) return; // the chart's next drawing carries it, in its title
            if (kernel() != null && statics(text, "text/plain") != null) return;
            String padded = width > text.length() ? text + " ".repeat(width - text.length()) : text;
            console.print("\r" + padded);
            console.flush();
            width = text.length();
        }

        /**
         * One sample of the run (about one a second): in the notebook, from the second one on, the output shows a
         * chart of all of them instead of the line; elsewhere, or when no chart can be drawn, nothing changes.
         */
        public void sample(Protocol.Sample sample) {
            SampleChart chart;
            String title;
            double[] xs;
            List<Protocol.Sample> ys;
            int generation;
            synchronized (this) {
                if (!drawable || kernel() == null) return;
                chart = sampleChart();
                if (chart == null) {
                    drawable = false;
                    return;
                }
                seconds.add((System.nanoTime() - started) / 1e9);
                samples.add(sample);
                long now = System.nanoTime();
                if (samples.size() < 2 || (charted && now - drawnAt < REDRAW_NANOS)) return;
                title = text.isBlank() ? "running" : text;
                xs = seconds.stream().mapToDouble(Double::doubleValue).toArray();
                ys = List.copyOf(samples);
                generation = this.generation;
            }
            // Drawn outside the lock: a Stop's close() must not wait for a drawing (JJava answers the Stop at once,
            // and an output emptied after that answer stays on the page); a drawing that ends after close() is dropped.
            Object image;
            try {
                image = chart.draw(title, xs, ys);
            } catch (RuntimeException | LinkageError e) {
                image = null;
            }
            synchronized (this) {
                if (generation != this.generation) return;
                try {
                    if (image == null || statics(image) == null) throw new IllegalStateException("no chart");
                    charted = true;
                    drawnAt = System.nanoTime(); // after drawing: a slow drawing is not followed by another at once
                    drawings++;
                } catch (RuntimeException e) {
                    drawable = false; // the text line from now on
                    if (charted) {
                        charted = false;
                        statics(text, "text/plain");
                    }
                }
            }
        }

        /** How many times the chart was drawn (0: the output stayed a line). */
        public synchronized int drawings() {
            return drawings;
        }

        /** Ends the line leaving {@code text} in its place, in the notebook and on a console alike. */
        public synchronized void keep(String text) {
            generation++;
            charted = false;
            if (id != null && statics(text, "text/plain") != null) {
                id = null;
                return;
            }
            show(text);
            if (id != null) {
                id = null;
                return;
            }
            console.println();
            width = 0;
        }

        /** Ends the line: in the notebook the output (line or chart) is emptied, on a console the line is ended (and kept). */
        @Override
        public synchronized void close() {
            generation++;
            charted = false;
            if (id != null) {
                statics("", "text/plain");
                id = null;
            }
            if (width > 0) {
                console.println();
                width = 0;
            }
        }

        // JJava's own display / updateDisplay, by reflection: the first call makes the output, later ones replace it.
        // With no MIME types, the kernel's renderer decides (a chart: its PNG and record, see register).
        private Object statics(Object value, String... mimes) {
            try {
                Class<?> statics = Class.forName(BASE_STATICS, true, kernel().getClass().getClassLoader());
                if (id == null) {
                    if (value instanceof String s && s.isEmpty()) return null; // nothing to empty
                    id = mimes.length == 0
                            ? (String) statics.getMethod("display", Object.class).invoke(null, value)
                            : (String) statics.getMethod("display", Object.class, String[].class).invoke(null, value, mimes);
                } else if (mimes.length == 0) {
                    statics.getMethod("updateDisplay", String.class, Object.class).invoke(null, id, value);
                } else {
                    statics.getMethod("updateDisplay", String.class, Object.class, String[].class)
                            .invoke(null, id, value, mimes);
                }
                return id;
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                return null; // the console line instead
            }
        }
    }

    private static volatile Optional<SampleChart> sampleChart;

    /** The helpers' {@link SampleChart}, looked up once; null where there is none (a snippet) or it can't load. */
    static SampleChart sampleChart() {
        Optional<SampleChart> found = sampleChart;
        if (found == null) {
            try {
                found = ServiceLoader.load(SampleChart.class, Show.class.getClassLoader()).findFirst();
            } catch (ServiceConfigurationError | RuntimeException | LinkageError e) {
                found = Optional.empty();
            }
            sampleChart = found;
        }
        return found.orElse(null);
    }
}
