//SOURCES ../core/Course.java
package unpinned.showing;

import unpinned.core.Course;

import java.awt.Font;
import java.awt.FontFormatException;
import java.awt.GraphicsEnvironment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.stream.Stream;

/**
 * The font family a chart draws its texts in: Java's logical sans-serif where it has a glyph for every character,
 * else a font the course installs for the scripts a machine may lack (Korean titles: Noto Sans KR, which
 * {@code make setup} puts in {@code .course/fonts/}). Java2D draws a character no font of the family has as an empty
 * box, and says nothing: {@link ChartReading#undrawable} names such texts in the chart's record.
 */
final class ChartFonts {
    /** Where set-up puts the fonts (tools/course_install.py). */
    static final String FOLDER = ".course/fonts";
    private static volatile List<Font> installed;

    private ChartFonts() {}

    static String familyFor(Collection<String> texts) {
        Font sans = new Font(Font.SANS_SERIF, Font.PLAIN, 12);
        if (texts.stream().allMatch(t -> t == null || sans.canDisplayUpTo(t) == -1)) return Font.SANS_SERIF;
        for (Font f : installed()) {
            if (texts.stream().allMatch(t -> t == null || f.canDisplayUpTo(t) == -1)) return f.getFamily();
        }
        return Font.SANS_SERIF;
    }

    /** The course's fonts, registered with Java2D once; none outside a course folder or before set-up. */
    static List<Font> installed() {
        if (installed == null) {
            synchronized (ChartFonts.class) {
                if (installed == null) installed = load(Course.findHome().map(h -> h.resolve(FOLDER)).orElse(null));
            }
        }
        return installed;
    }

    static List<Font> load(Path folder) {
        List<Font> fonts = new ArrayList<>();
        if (folder == null || !Files.isDirectory(folder)) return fonts;
        try (Stream<Path> files = Files.list(folder)) {
            for (Path f : files.filter(p -> p.toString().matches(".*\\.(otf|ttf)$")).sorted().toList()) {
                try {
                    Font font = Font.createFont(Font.TRUETYPE_FONT, f.toFile());
                    GraphicsEnvironment.getLocalGraphicsEnvironment().registerFont(font);
                    fonts.add(font);
                } catch (FontFormatException | IOException e) { // a broken file: charts fall back to sans-serif
                    System.err.println("[unpinned] cannot use the font " + f + ": " + e.getMessage());
                }
            }
        } catch (IOException e) {
            return fonts;
        }
        return List.copyOf(fonts);
    }
}
