package unpinned;

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
        StringBuilder html = new StringBuilder("<table style=\"border-collapse:collapse\"><tr>");
        for (int i = 0; i < columns.length; i += 2) {
            html.append("<th style=\"text-align:left;padding:4px 8px\">").append(escape(columns[i])).append("</th>");
        }
        html.append("</tr><tr>");
        for (int i = 1; i < columns.length; i += 2) {
            List<String> shown = new java.util.ArrayList<>();
            for (String signature : columns[i].split(" \\| ")) {
                if (!shown.isEmpty()) shown.add("");
                shown.addAll(extract(lines, signature, file));
            }
            html.append("<td style=\"vertical-align:top;padding:4px 8px\"><pre style=\"font-size:85%;margin:0\">")
                    .append(escape(String.join("\n", shown))).append("</pre></td>");
        }
        return html.append("</tr></table><p><small>from ").append(escape(file)).append("</small></p>").toString();
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
