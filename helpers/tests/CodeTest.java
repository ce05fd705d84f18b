package unpinned;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static unpinned.SleepServerTest.assertMessage;

import java.util.List;
import org.junit.jupiter.api.Test;

class CodeTest {
    static final List<String> FILE = List.of(
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
}
