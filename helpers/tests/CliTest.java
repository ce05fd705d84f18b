package unpinned.core;

import unpinned.workloads.SleepServerTest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static unpinned.workloads.SleepServerTest.assertMessage;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

public class CliTest {
    public static final Set<String> VALUES = Set.of("--users", "--rate", "--mode");
    public static final Set<String> FLAGS = Set.of("--control");

    @Test
    void readsValuesBothWaysAndFlags() {
        Cli cli = Cli.parse(new String[] {"--users", "500", "--rate=2.5", "--control"}, VALUES, FLAGS);
        assertEquals(500, cli.intValue("--users", 1, 1, 50_000));
        assertEquals(2.5, cli.doubleValue("--rate", 0, 0, 10));
        assertTrue(cli.has("--control"));
        assertEquals("both", cli.oneOf("--mode", "both", List.of("pool", "virtual", "both")));
        assertEquals(7, Cli.parse(new String[0], VALUES, FLAGS).intValue("--users", 7, 1, 10));
    }

    @Test
    void mistakesNameTheOptionAndWhatIsAllowed() {
        assertMessage("--users must be a whole number from 1 to 50,000; got '-5'",
                () -> Cli.parse(new String[] {"--users", "-5"}, VALUES, FLAGS).intValue("--users", 1, 1, 50_000));
        assertMessage("--users must be a whole number from 1 to 50,000; got 'abc'",
                () -> Cli.parse(new String[] {"--users=abc"}, VALUES, FLAGS).intValue("--users", 1, 1, 50_000));
        assertMessage("--rate must be a number from 0 to 10; got 'NaN'",
                () -> Cli.parse(new String[] {"--rate", "NaN"}, VALUES, FLAGS).doubleValue("--rate", 0, 0, 10));
        assertMessage("--mode must be one of pool, virtual; got 'x'",
                () -> Cli.parse(new String[] {"--mode", "x"}, VALUES, FLAGS).oneOf("--mode", "pool", List.of("pool", "virtual")));
        assertMessage("unknown option '--user'; allowed: --control, --mode, --rate, --users",
                () -> Cli.parse(new String[] {"--user", "5"}, VALUES, FLAGS));
        assertMessage("--users needs a value", () -> Cli.parse(new String[] {"--users"}, VALUES, FLAGS));
        assertMessage("--control takes no value", () -> Cli.parse(new String[] {"--control=yes"}, VALUES, FLAGS));
    }

    @Test
    void aLoopbackUrlIsALiteralOfThisMachineWithAPort() {
        assertEquals("http://127.0.0.1:8081/",
                Cli.loopbackBaseUrl("--deps", "http://127.0.0.1:8081", "a stub").toString());
        assertEquals(null, Cli.loopbackBaseUrl("--deps", null, "a stub"));
        for (String bad : List.of("http://127.evil.example:8081", "http://example.com:80", "http://127.0.0.1",
                "https://127.0.0.1:8081")) {
            var e = assertThrows(IllegalArgumentException.class, () -> Cli.loopbackBaseUrl("--deps", bad, "a stub"));
            assertEquals("--deps must be an http URL on loopback with a port, like http://127.0.0.1:8081"
                    + " (a stub), got '" + bad + "'", e.getMessage());
        }
        assertTrue(Cli.isLoopbackLiteral("localhost") && Cli.isLoopbackLiteral("[::1]"));
        assertFalse(Cli.isLoopbackLiteral("127.0.0.1.nip.io") || Cli.isLoopbackLiteral(null));
        assertTrue(Cli.isLoopbackLiteral("127.255.0.9"));
        assertFalse(Cli.isLoopbackLiteral("127.0.0.999") || Cli.isLoopbackLiteral("127.0.0.256")
                || Cli.isLoopbackLiteral("127.0.0.01"), "not IP literals: they would go to DNS");
    }
}
