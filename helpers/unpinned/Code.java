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
        Path path = Course.home().resolve(file);
        List<String> lines;
        try {
            lines = Files.readAllLines(path);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path + ": " + e.getMessage(), e);
        }
        return "```java\n// " + file + "\n" + String.join("\n", extract(lines, signature, file)) + "\n```";
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
