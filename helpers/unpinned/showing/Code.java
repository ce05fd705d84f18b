//SOURCES ../core/Course.java
//SOURCES ../core/Show.java
package unpinned.showing;

import unpinned.core.Course;
import unpinned.core.Show;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The code under study, shown in the notebook from the one file that runs it: a method or a class
 * of a snippet or helper, as a Markdown code block (display it with {@code display(md, "text/markdown")}).
 */
public final class Code {
    private Code() {}

    /**
     * The declaration in {@code file} (relative to the course folder) whose first line contains
     * {@code signature} (e.g. {@code "void handle("}), with its Javadoc, up to its closing brace.
     */
    public static String method(String file, String signature) {
        return "```java\n// " + file + "\n" + String.join("\n", extract(read(file), signature, file)) + "\n```";
    }

    /**
     * Declarations side by side, one column each, as an HTML table (display it with
     * {@code display(html, "text/html")}): {@code columns} alternates a column title and the
     * signature of a declaration in {@code file}, e.g. {@code "Blocking", "String orderBlocking("}.
     * A column may show several declarations: separate their signatures with {@code " | "}.
     */
    public static String sideBySide(String file, String... columns) {
        if (columns.length == 0 || columns.length % 2 != 0) {
            throw new IllegalArgumentException("give title/signature pairs, e.g. \"Blocking\", \"orderBlocking(\"; got "
                    + columns.length + " strings");
        }
        List<String> lines = read(file);
        // Columns as flex boxes, not table cells: JupyterLab right-aligns and wraps the cells of output tables,
        // which turns code into unreadable ragged text. Each <pre> keeps its own lines and scrolls if too wide.
        StringBuilder html = new StringBuilder("<div class=\"unpinned-code\" style=\"display:flex;gap:16px;"
                + "align-items:flex-start;text-align:left\">");
        for (int i = 0; i < columns.length; i += 2) {
            List<String> shown = new java.util.ArrayList<>();
            for (String signature : columns[i + 1].split(" \\| ")) {
                if (!shown.isEmpty()) shown.add("");
                shown.addAll(extract(lines, signature, file));
            }
            html.append("<div style=\"flex:1 1 0;min-width:0;text-align:left\"><div style=\"font-weight:bold;"
                            + "padding:4px 0\">").append(escape(columns[i])).append("</div>")
                    .append("<pre style=\"text-align:left;white-space:pre;overflow-x:auto;font-size:85%;margin:0;"
                            + "padding:6px;background:#f7f7f7\">")
                    .append(escape(String.join("\n", shown))).append("</pre></div>");
        }
        return html.append("</div><p><small>from ").append(escape(file)).append("</small></p>").toString();
    }

    /** Shows {@link #method} in the notebook (Markdown), leaving no value behind. */
    public static void show(String file, String signature) {
        Show.markdown(method(file, signature));
    }

    /** Shows {@link #sideBySide} in the notebook (HTML), leaving no value behind. */
    public static void showSideBySide(String file, String... columns) {
        Show.html(sideBySide(file, columns));
    }

    /** Lines of code in the declarations {@code signatures} of {@code file}: neither blank nor comments. */
    public static int linesOfCode(String file, String... signatures) {
        List<String> lines = read(file);
        int count = 0;
        for (String signature : signatures) {
            for (String line : extract(lines, signature, file)) {
                String t = line.strip();
                if (!t.isEmpty() && !t.startsWith("//") && !t.startsWith("*") && !t.startsWith("/*")) count++;
            }
        }
        return count;
    }

    static List<String> read(String file) {
        Path path = Course.home().resolve(file);
        try {
            return Files.readAllLines(path);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path + ": " + e.getMessage(), e);
        }
    }

    static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    static List<String> extract(List<String> lines, String signature, String file) {
        if (signature == null || signature.isBlank()) throw new IllegalArgumentException("signature must not be blank");
        int at = -1;
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).contains(signature) && !lines.get(i).trim().startsWith("*") && !lines.get(i).trim().startsWith("//")) {
                at = i;
                break;
            }
        }
        if (at < 0) throw new IllegalArgumentException("no declaration containing '" + signature + "' in " + file);
        int start = at;
        // take the annotations and Javadoc right above it
        while (start > 0) {
            String above = lines.get(start - 1).trim();
            if (above.startsWith("@") || above.startsWith("*") || above.startsWith("/**") || above.startsWith("*/")) start--;
            else break;
        }
        int depth = 0, end = at;
        boolean opened = false;
        for (int i = at; i < lines.size(); i++) {
            for (char c : lines.get(i).replaceAll("\"([^\"\\\\]|\\\\.)*\"|'([^'\\\\]|\\\\.)*'|//.*$", "").toCharArray()) {
                if (c == '{') {
                    depth++;
                    opened = true;
                } else if (c == '}') {
                    depth--;
                }
            }
            end = i;
            if (opened && depth == 0) break;
            if (!opened && lines.get(i).trim().endsWith(";")) break; // a one-line declaration
        }
        int indent = lines.get(at).length() - lines.get(at).stripLeading().length();
        return lines.subList(start, end + 1).stream()
                .map(l -> l.length() >= indent && l.substring(0, indent).isBlank() ? l.substring(indent) : l.stripLeading())
                .toList();
    }
}
