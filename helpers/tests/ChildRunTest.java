package unpinned.running;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

public class ChildRunTest {
    @Test
    void aChildPassesItsChildsProgressAndSamplesOnToItsParent() {
        var bytes = new ByteArrayOutputStream();
        var p = new ChildRun.Progress(new PrintStream(bytes, true, StandardCharsets.UTF_8), true);
        p.show("HttpLoad · measuring 1/5 s");
        p.sample("req/s=4812 p99_ms=12.3");
        p.sample("nothing here");
        p.end();
        assertEquals("@@progress HttpLoad · measuring 1/5 s\n@@sample req/s=4812 p99_ms=12.3\n",
                bytes.toString(StandardCharsets.UTF_8).replace("\r\n", "\n"));
    }

    @Test
    void aTerminalGetsOneUpdatingLineAndNoSamples() {
        var bytes = new ByteArrayOutputStream();
        var p = new ChildRun.Progress(new PrintStream(bytes, true, StandardCharsets.UTF_8), false);
        p.show("a");
        p.sample("req/s=1 p99_ms=2");
        p.show("b");
        p.end();
        assertEquals("\ra\rb\n", bytes.toString(StandardCharsets.UTF_8));
    }

    @Test
    void whatArrivesAfterTheRunEndedMakesNoNewOutput() {
        var bytes = new ByteArrayOutputStream();
        var p = new ChildRun.Progress(new PrintStream(bytes, true, StandardCharsets.UTF_8), true);
        p.show("measuring 5/5 s");
        p.finish();
        p.show("a killed child's last progress line");
        p.sample("req/s=1 p99_ms=2");
        assertEquals("@@progress measuring 5/5 s\n", bytes.toString(StandardCharsets.UTF_8).replace("\r\n", "\n"));
    }

    @Test
    void figuresAddedToTheSamplesTravelWithThemUntilTheirSourceFails() {
        var bytes = new ByteArrayOutputStream();
        var p = new ChildRun.Progress(new PrintStream(bytes, true, StandardCharsets.UTF_8), true);
        int[] asked = {0};
        p.addToSamples(() -> {
            if (++asked[0] == 3) throw new IllegalStateException("the server went away");
            return java.util.Map.of("carriers_busy", 2.0, "req/s", -1.0); // the child's own req/s is kept
        });
        p.sample("req/s=4812 p99_ms=12.3");
        p.sample("nothing here"); // no sample: the source is not asked
        p.sample("req/s=4900 p99_ms=11");
        p.sample("req/s=5000 p99_ms=10"); // the source fails: the sample goes on without it
        p.sample("req/s=5100 p99_ms=9"); // and it is not asked again
        p.end();
        assertEquals("""
                @@sample req/s=4812 p99_ms=12.3 carriers_busy=2
                @@sample req/s=4900 p99_ms=11 carriers_busy=2
                @@sample req/s=5000 p99_ms=10
                @@sample req/s=5100 p99_ms=9
                """, bytes.toString(StandardCharsets.UTF_8).replace("\r\n", "\n"));
        assertEquals(3, asked[0]);
    }
}
