package unpinned.showing;

import unpinned.workloads.SleepServerTest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static unpinned.workloads.SleepServerTest.assertMessage;

import java.util.List;
import org.junit.jupiter.api.Test;

public class CodeTest {
    public static final List<String> FILE = List.of(
            "class A {",
            "    /** Says hi. */",
            "    @Override",
            "    public String hi(int n) {",
            "        if (n > 0) { return \"}\"; } // a brace in a string: }",
            "        return \"{\";",
            "    }",
            "    int x = compute(",
            "            1);",
            "}");

    @Test
    void extractsAMethodWithItsJavadocAndAnnotationsUpToItsClosingBrace() {
        assertEquals(List.of("/** Says hi. */", "@Override", "public String hi(int n) {",
                        "    if (n > 0) { return \"}\"; } // a brace in a string: }", "    return \"{\";", "}"),
                Code.extract(FILE, "String hi(", "A.java"));
        assertEquals(List.of("int x = compute(", "        1);"), Code.extract(FILE, "int x =", "A.java"));
        assertMessage("no declaration containing 'bye(' in A.java", () -> Code.extract(FILE, "bye(", "A.java"));
    }

    @Test
    void sideBySideShowsEachColumnEscapedAndCountsLinesOfCode() {
        String html = Code.sideBySide("snippets/S06_OrderService.java", "Blocking", "String orderBlocking(",
                "Reactive", "Mono<String> orderReactive( | Mono<Double> priceServiceReactive(");
        assertTrue(html.contains(">Blocking</div>"), html);
        // JupyterLab right-aligns and wraps table cells: the code must be in no table, left-aligned, never wrapped
        assertFalse(html.contains("<td") || html.contains("<table"), html);
        assertTrue(html.contains("<pre style=\"text-align:left;white-space:pre;"), html);
        assertTrue(html.contains("static Mono&lt;String&gt; orderReactive(long id) {"), html);
        assertTrue(html.contains("priceServiceReactive(long id) {"), html);
        assertMessage("give title/signature pairs, e.g. \"Blocking\", \"orderBlocking(\"; got 1 strings",
                () -> Code.sideBySide("snippets/S06_OrderService.java", "Blocking"));
        // orderBlocking: signature, 3 statements, closing brace; its Javadoc line is not code
        assertEquals(5, Code.linesOfCode("snippets/S06_OrderService.java", "String orderBlocking("));
    }
}
