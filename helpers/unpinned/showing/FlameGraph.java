//SOURCES Charts.java
//SOURCES DrawnChart.java
//SOURCES ../core/RunGuard.java
package unpinned.showing;

import unpinned.core.RunGuard;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.FontMetrics;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * A flame graph drawn as a PNG from async-profiler's collapsed stacks (one line per distinct stack: frames from the
 * root, separated by ';', then its sample count), so it shows the same in JupyterLab, the book and the slides, with no
 * script and no network: each box is a frame, as wide as the share of samples with it on their stack, its callers
 * below it. A run of the same frame calling itself is one box ("descend ×40"). Colours by kind of frame: the course's
 * own code, other Java, the JVM (C++ and its stubs), native libraries, the kernel, and the thread (async-profiler's
 * {@code threads} option; its digits shown as N, so a pool's 200 threads make one box).
 */
public final class FlameGraph {
    private FlameGraph() {}

    public static final int WIDTH = 1000;
    static final int ROW = 18, MARGIN = 10, LINE = 20, LEGEND_HEIGHT = 28;
    static final Font FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 12);
    /** Frames on fewer samples than this share are left out (a gap in the row), so the picture stays legible. */
    static final double SMALLEST = 0.005;
    static final String HOW_TO_READ = "Each box a frame, as wide as the share of samples with it on their stack;"
            + " its callers below it; frames on fewer than 0.5 % of the samples left out.";

    /** The kinds of frame, each with its colour and its legend's name. */
    enum Kind {
        THREAD("thread", new Color(0xC9, 0xC9, 0xC9)),
        COURSE("the course's code", new Color(0x6F, 0xA8, 0xDC)),
        JAVA("Java (JDK, libraries)", new Color(0x8C, 0xCB, 0x7E)),
        JVM("JVM (C++, stubs)", new Color(0xE8, 0xD4, 0x4D)),
        NATIVE("native libraries", new Color(0xF0, 0xA0, 0x60)),
        KERNEL("kernel", new Color(0xE0, 0x6C, 0x5C));

        final String legend;
        final Color colour;

        Kind(String legend, Color colour) {
            this.legend = legend;
            this.colour = colour;
        }
    }

    private static final Pattern JAVA = Pattern.compile("^[\\w$]+(?:[./][\\w$]+)*[./][\\w$<>]+$");
    private static final Pattern DIGITS = Pattern.compile("\\d+");

    /** One box: a frame (or a run of it) reached through the boxes below it, with the samples it was on. */
    static final class Node {
        final String label;
        final Kind kind;
        long samples;
        final Map<String, Node> children = new TreeMap<>();

        Node(String label, Kind kind) {
            this.label = label;
            this.kind = kind;
        }

        /** Rows of boxes at least {@code least} samples wide, this one included. */
        int depth(long least) {
            int d = 0;
            for (Node c : children.values()) if (c.samples >= least) d = Math.max(d, c.depth(least));
            return d + 1;
        }
    }

    /** The flame graph of the collapsed stacks in {@code file}. */
    public static DrawnChart of(String title, Path file) {
        try {
            return of(title, Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the profile " + file + ": " + e.getMessage(), e);
        }
    }

    /** The flame graph of {@code collapsed}, async-profiler's collapsed text. */
    public static DrawnChart of(String title, String collapsed) {
        RunGuard.check("drawing a flame graph");
        Node root = tree(collapsed);
        if (root.samples == 0) throw new IllegalArgumentException("the profile holds no samples: no flame graph to draw");
        long least = Math.max(1, (long) Math.ceil(SMALLEST * root.samples));
        int rows = root.depth(least);
        var titleLayout = Charts.titleLayout(title, WIDTH);
        int top = MARGIN + LINE * (titleLayout.lines().size() + 1); // the title's lines, then how to read it
        int height = top + rows * ROW + LEGEND_HEIGHT + 2 * MARGIN;
        BufferedImage image = new BufferedImage(WIDTH, height, BufferedImage.TYPE_INT_ARGB);
        Graphics2D g = image.createGraphics();
        Map<Kind, Integer> drawn = new EnumMap<>(Kind.class);
        int legendEnd;
        try {
            g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, WIDTH, height);
            g.setColor(Color.BLACK);
            g.setFont(titleLayout.font());
            for (int i = 0; i < titleLayout.lines().size(); i++) {
                g.drawString(titleLayout.lines().get(i), MARGIN, MARGIN + 16 + i * LINE);
            }
            g.setFont(FONT);
            g.setColor(Color.DARK_GRAY);
            g.drawString(HOW_TO_READ, MARGIN, top - 6);
            int bottom = top + MARGIN + rows * ROW; // the root's row ends here
            double scale = (WIDTH - 2.0 * MARGIN) / root.samples;
            draw(g, root, MARGIN, bottom - ROW, scale, root.samples, least, bottom - ROW, drawn);
            legendEnd = legend(g, drawn, height - LEGEND_HEIGHT + 4);
        } finally {
            g.dispose();
        }
        List<DrawnChart.Drawn> series = new ArrayList<>();
        drawn.forEach((kind, boxes) -> series.add(new DrawnChart.Drawn(kind.legend, boxes)));
        DrawnChart.register();
        return new DrawnChart(image, title, series, legendEnd > WIDTH ? List.of("legend") : List.of());
    }

    /** The tree of {@code collapsed}, under a root holding every sample. */
    static Node tree(String collapsed) {
        Node root = new Node("all samples", Kind.THREAD);
        for (String line : collapsed.split("\n")) {
            line = line.strip();
            int space = line.lastIndexOf(' ');
            if (line.isEmpty() || space < 0) continue;
            long count = Long.parseLong(line.substring(space + 1));
            String[] frames = line.substring(0, space).split(";");
            root.samples += count;
            Node at = root;
            for (int i = 0; i < frames.length; ) {
                int run = 1;
                while (i + run < frames.length && frames[i + run].equals(frames[i])) run++;
                Kind kind = kind(frames[i]);
                String label = label(frames[i], kind) + (run > 1 ? " ×" + run : "");
                at = at.children.computeIfAbsent(label, l -> new Node(l, kind));
                at.samples += count;
                i += run;
            }
        }
        return root;
    }

    static Kind kind(String frame) {
        if (frame.endsWith("_[k]")) return Kind.KERNEL;
        if (frame.startsWith("[") && frame.endsWith("]") && !frame.startsWith("[unknown")
                && !frame.startsWith("[not_walkable") && !frame.startsWith("[no_Java")) return Kind.THREAD;
        String f = frame.endsWith("_[j]") || frame.endsWith("_[i]") ? frame.substring(0, frame.length() - 4) : frame;
        if (JAVA.matcher(f).matches() && f.contains(".") ) {
            return f.startsWith("unpinned/") || f.startsWith("unpinned.") ? Kind.COURSE : Kind.JAVA;
        }
        if (f.contains("::") || f.contains("<") || f.startsWith("cont_") || f.startsWith("[") || f.contains(" ")
                || f.startsWith("Stub") || f.startsWith("Interpreter")) {
            return Kind.JVM;
        }
        return Kind.NATIVE;
    }

    /** What a box says: a Java frame as Class.method, C++ without its templates and return type. */
    static String label(String frame, Kind kind) {
        switch (kind) {
            case KERNEL:
                return frame.substring(0, frame.length() - 4).replaceAll("\\.(isra|constprop|part|cold)\\.\\d+", "");
            case THREAD: {
                String name = frame.substring(1, frame.length() - 1).replaceFirst(" tid=\\d+$", "");
                return "[" + DIGITS.matcher(name).replaceAll("N") + "]";
            }
            case JAVA:
            case COURSE: {
                String f = frame.replace('/', '.').replaceAll("_\\[[ji]]$", "");
                f = f.replaceAll("\\$\\$Lambda[.$/][\\w.$]*?\\.([\\w$<>]+)$", "\\$\\$Lambda.$1");
                int method = f.lastIndexOf('.');
                int cls = f.lastIndexOf('.', method - 1);
                return cls < 0 ? f : f.substring(cls + 1);
            }
            default: {
                String f = frame;
                String before;
                do { // innermost template arguments first, until none are left
                    before = f;
                    f = f.replaceAll("<[^<>]*>", "");
                } while (!f.equals(before));
                f = f.replaceAll("\\(.*\\)$", "").strip();
                int space = f.lastIndexOf(' ');
                return space < 0 || f.startsWith("C2 ") || f.startsWith("C1 ") ? f : f.substring(space + 1);
            }
        }
    }

    private static void draw(Graphics2D g, Node node, double x, int y, double scale, long total, long least,
                             int rootY, Map<Kind, Integer> drawn) {
        double w = node.samples * scale;
        if (node.samples < least) return;
        g.setColor(node.kind.colour);
        g.fillRect((int) Math.round(x), y, Math.max(1, (int) Math.round(x + w) - (int) Math.round(x)), ROW - 1);
        if (y != rootY) drawn.merge(node.kind, 1, Integer::sum); // the root ("all samples") is no kind
        if (w > 24) {
            g.setFont(FONT);
            FontMetrics fm = g.getFontMetrics();
            String share = String.format(Locale.ROOT, " %.0f %%", 100.0 * node.samples / total);
            String text = fm.stringWidth(node.label + share) <= w - 6 ? node.label + share : node.label;
            text = fit(text, fm, (int) w - 6);
            if (!text.isEmpty()) {
                g.setColor(Color.BLACK);
                g.drawString(text, (int) Math.round(x) + 3, y + ROW - 5);
            }
        }
        double cx = x;
        for (Node c : node.children.values()) {
            draw(g, c, cx, y - ROW, scale, total, least, rootY, drawn);
            cx += c.samples * scale;
        }
    }

    /** {@code text} cut to {@code width} pixels with "…" (empty when not even two letters fit). */
    static String fit(String text, FontMetrics fm, int width) {
        if (fm.stringWidth(text) <= width) return text;
        for (int n = text.length() - 1; n >= 2; n--) {
            String cut = text.substring(0, n) + "…";
            if (fm.stringWidth(cut) <= width) return cut;
        }
        return "";
    }

    /** The legend, one entry per kind drawn, in a row; returns where it ends. */
    private static int legend(Graphics2D g, Map<Kind, Integer> drawn, int y) {
        g.setFont(FONT);
        FontMetrics fm = g.getFontMetrics();
        int x = MARGIN;
        for (Kind kind : drawn.keySet()) {
            g.setColor(kind.colour);
            g.fillRect(x, y, 14, 14);
            g.setColor(Color.DARK_GRAY);
            g.setStroke(new BasicStroke(1));
            g.drawRect(x, y, 14, 14);
            g.setColor(Color.BLACK);
            g.drawString(kind.legend, x + 20, y + 12);
            x += 20 + fm.stringWidth(kind.legend) + 24;
        }
        return x - 24;
    }
}
