package unpinned.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

public class ProtocolTest {
    @Test
    void aSampleLineReadsBackAsItWasWritten() {
        Protocol.Sample s = Protocol.Sample.of("req/s", 4812, "p99_ms", 12.3456);
        assertEquals("req/s=4812 p99_ms=12.35", s.toString());
        Protocol.Sample back = Protocol.Sample.parse(s.toString());
        assertEquals(List.of("req/s", "p99_ms"), List.copyOf(back.values().keySet()), "the order is the axes'");
        assertEquals(4812, back.values().get("req/s"));
        assertEquals(12.35, back.values().get("p99_ms"), 1e-9);
        assertEquals("p99 ms", Protocol.Sample.label("p99_ms"));
    }

    @Test
    void aSecondWithoutAnswersIsNaNAndBadPairsArePassedOver() {
        assertEquals("req/s=0 p99_ms=NaN", Protocol.Sample.of("req/s", 0, "p99_ms", Double.NaN).toString());
        Protocol.Sample s = Protocol.Sample.parse("  req/s=0 p99_ms=NaN junk =5 threads=x carriers_busy=1.5e3 ");
        assertEquals(Map.of("req/s", 0.0, "p99_ms", Double.NaN, "carriers_busy", 1500.0), s.values());
        assertTrue(Protocol.Sample.parse("").values().isEmpty());
        assertTrue(Protocol.Sample.parse(null).values().isEmpty());
        assertEquals("x=0.0001235 y=-3", Protocol.Sample.of("x", 0.00012345, "y", -3).toString());
    }

    @Test
    void aNameWithASpaceOrAnEqualsSignIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> Protocol.Sample.of("req per s", 1, "p99", 2));
        assertThrows(IllegalArgumentException.class, () -> Protocol.Sample.of("a=b", 1, "p99", 2));
    }

    @Test
    void withoutAParentNoSamplingThreadStarts() {
        org.junit.jupiter.api.Assumptions.assumeFalse(Protocol.toParent(), "these tests run as a course child");
        long before = Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().equals("live-samples")).count();
        try (var sampling = Protocol.sampleEverySecond(() -> { throw new IllegalStateException("never asked"); })) {
            assertEquals(before, Thread.getAllStackTraces().keySet().stream()
                    .filter(t -> t.getName().equals("live-samples")).count());
        }
    }

    @Test
    void outsideTheKernelALiveLineIgnoresSamples() {
        var bytes = new ByteArrayOutputStream();
        try (var live = new Show.Live(new PrintStream(bytes, true, StandardCharsets.UTF_8))) {
            live.show("measuring 1/5 s");
            live.sample(Protocol.Sample.of("req/s", 1, "p99_ms", 2));
            live.sample(Protocol.Sample.of("req/s", 1, "p99_ms", 2));
            assertEquals(0, live.drawings());
        }
        assertEquals("\rmeasuring 1/5 s\n", bytes.toString(StandardCharsets.UTF_8), "the console line, as before");
    }
}
