package unpinned.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

public class CourseTest {
    @TempDir
    Path tmp;

    @Test
    void homeIsTheNearestFolderWithTheCatalog() throws Exception {
        Path home = Files.createDirectories(tmp.resolve("course"));
        Files.writeString(home.resolve(Course.MARKER), "{}");
        Path deep = Files.createDirectories(home.resolve("notebooks/sub"));
        assertEquals(home, Course.home(null, deep));
        assertEquals(home, Course.home("", home));
    }

    @Test
    void envWinsWhenItNamesAFolder() throws Exception {
        Path other = Files.createDirectories(tmp.resolve("elsewhere"));
        assertEquals(other, Course.home(other.toString(), tmp));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Course.home(tmp.resolve("missing").toString(), tmp));
        assertTrue(e.getMessage().contains("UNPINNED_HOME must name an existing folder"), e.getMessage());
    }

    @Test
    void noCatalogIsAClearError() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Course.home(null, tmp));
        assertTrue(e.getMessage().contains("jbang-catalog.json") && e.getMessage().contains("UNPINNED_HOME"), e.getMessage());
    }

    @Test
    void oldJdkIsRefused() {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> Course.requireJdk(17));
        assertTrue(e.getMessage().contains("JDK 21 or newer") && e.getMessage().contains("JDK 17"), e.getMessage());
        Course.requireJdk(21);
        Course.requireJdk(25);
    }

    @Test
    void setupPrintsProfileAndMachine() {
        PrintStream saved = System.out;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        Profile p;
        try {
            System.setOut(new PrintStream(bytes, true, StandardCharsets.UTF_8));
            p = Session.setup();
        } finally {
            System.setOut(saved);
        }
        String printed = bytes.toString(StandardCharsets.UTF_8);
        assertEquals(Profile.current(), p);
        assertTrue(printed.contains("Profile: " + p.id()), printed);
        assertTrue(printed.contains("Machine: JDK " + Runtime.version()), printed);
    }
}
