package unpinned;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MachineTest {
    @Test
    void describesThisJvm() {
        Map<String, String> m = Machine.describe();
        for (String key : List.of("jdk", "jdk_vendor", "cores", "os", "arch", "max_heap_mb", "profile", "time")) {
            assertTrue(m.containsKey(key) && m.get(key) != null && !m.get(key).isBlank(), "missing " + key + " in " + m);
        }
        assertEquals(Runtime.version().toString(), m.get("jdk"));
        assertEquals(Runtime.getRuntime().availableProcessors(), Integer.parseInt(m.get("cores")));
        assertEquals(Profile.current().id(), m.get("profile"));
        Duration age = Duration.between(Instant.parse(m.get("time")), Instant.now());
        assertTrue(!age.isNegative() && age.toSeconds() < 60, m.get("time"));
    }

    @Test
    void summaryIsOneLineWithJdkAndCores() {
        String s = Machine.summary();
        assertTrue(s.startsWith("JDK " + Runtime.version()), s);
        assertTrue(s.contains(Runtime.getRuntime().availableProcessors() + " cores"), s);
        assertTrue(s.contains("profile " + Profile.current().id()), s);
        assertEquals(1, s.lines().count());
    }
}
