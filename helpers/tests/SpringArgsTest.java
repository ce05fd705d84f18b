package unpinned.running;

import unpinned.workloads.SleepServerTest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static unpinned.workloads.SleepServerTest.assertMessage;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

public class SpringArgsTest {
    public static SpringArgs parse(String... args) {
        return SpringArgs.parse(args, 8080, Set.of("--stack"), Set.of());
    }

    @Test
    void springPropertiesAndTheCoursesOptionsAreSplitAndTheServerStaysOnLoopback() {
        SpringArgs a = parse("--spring.threads.virtual.enabled=true", "--stack", "webflux", "--control",
                "--server.tomcat.threads.max=50");
        assertTrue(a.control());
        assertEquals("webflux", a.cli().value("--stack", null));
        assertEquals(8080, a.port(), "Spring's default port unless told");
        assertEquals(Map.of("spring.threads.virtual.enabled", "true", "server.tomcat.threads.max", "50"),
                a.properties());
        assertEquals(List.of("--spring.threads.virtual.enabled=true", "--server.tomcat.threads.max=50",
                "--server.address=127.0.0.1", "--server.port=8080"), a.spring(), "loopback and the port last");
        assertFalse(parse().control());
    }

    @Test
    void thePortComesFromEitherOptionOnce() {
        assertEquals(0, parse("--port", "0").port());
        assertEquals(9090, parse("--port=9_090").port());
        SpringArgs s = parse("--server.port=8081", "--server.address=localhost");
        assertEquals(8081, s.port());
        assertEquals(List.of("--server.address=127.0.0.1", "--server.port=8081"), s.spring(),
                "the given address and port are replaced, not repeated");
        assertMessage("give the port once: --port N or --server.port=N",
                () -> parse("--port", "1", "--server.port=2"));
        assertMessage("--server.port (or --port) must be a whole number from 0 to 65,535; got '70000'",
                () -> parse("--port", "70000"));
        assertMessage("--server.port (or --port) must be a whole number from 0 to 65,535; got 'http'",
                () -> parse("--server.port=http"));
    }

    @Test
    void mistakesAreOneLineThatSaysWhatIsAllowed() {
        assertMessage("Spring properties take their value after '=': --server.port=8080",
                () -> parse("--server.port", "8080"));
        assertMessage("Spring properties take their value after '=': --spring.main.banner-mode=VALUE",
                () -> parse("--spring.main.banner-mode"));
        assertMessage("unknown option '--mode'; allowed: --control, --port, --stack",
                () -> parse("--mode", "x"));
        assertMessage("unknown option '--mode'; allowed: --control, --port",
                () -> SpringArgs.parse(new String[] {"--mode", "virtual"}, 8080, Set.of(), Set.of()));
        assertMessage("this server binds 127.0.0.1 only; --server.address=0.0.0.0 is not allowed (leave it out)",
                () -> parse("--server.address=0.0.0.0"));
        assertMessage("Actuator shares the server's port and address here; management.server.* can't be set",
                () -> parse("--management.server.port=9000"));
        assertMessage("--server.tomcat.threads.max must be a whole number from 1 to 10,000; got '0'",
                () -> SpringArgs.whole("--server.tomcat.threads.max", "0", 1, 10_000));
        assertEquals(10_000, SpringArgs.whole("n", " 10_000 ", 1, 10_000));
    }

    @Test
    void aSnippetAddsItsOwnSettingsAfterwardsAndRefusesTheOnesItOwns() {
        SpringArgs a = parse("--port", "0").with("spring.main.web-application-type", "reactive");
        assertEquals("--spring.main.web-application-type=reactive", a.spring().getLast());
        assertEquals(0, a.port());
        parse().refuse("spring.threads.virtual.enabled", "--stack"); // absent: fine
        assertMessage("--spring.threads.virtual.enabled is set by --stack here; leave it out",
                () -> parse("--spring.threads.virtual.enabled=false")
                        .refuse("spring.threads.virtual.enabled", "--stack"));
    }

    @Test
    void aBusyPortIsRefusedByNameAndAFreeOneIsNot() throws IOException {
        SpringArgs.requireFreePort(0);
        try (ServerSocket busy = new ServerSocket()) {
            busy.bind(new InetSocketAddress(InetAddress.getByAddress("localhost", new byte[] {127, 0, 0, 1}),
                    0));
            int port = busy.getLocalPort();
            assertMessage("port " + port + " is in use; stop what listens there, or use --port 0 to let the system"
                    + " pick a free port", () -> SpringArgs.requireFreePort(port));
        }
    }

    @Test
    void aFailedStartIsNamedByItsInnermostCause() {
        class PortInUseException extends RuntimeException {
            PortInUseException() {
                super("Port 8080 is already in use");
            }
        }
        var wrapped = new IllegalStateException("context failed",
                new RuntimeException("web server", new PortInUseException()));
        assertTrue(SpringArgs.portInUse(wrapped));
        assertFalse(SpringArgs.portInUse(new IllegalStateException("no")));
        assertEquals("PortInUseException: Port 8080 is already in use", SpringArgs.rootMessage(wrapped));
        assertEquals("IllegalStateException: no", SpringArgs.rootMessage(new IllegalStateException("no")));
    }
}
