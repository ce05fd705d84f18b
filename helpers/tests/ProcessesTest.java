package unpinned.running;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

public class ProcessesTest {

    @Test
    void startsAndStreamsItsOutputLineByLine() throws Exception {
        List<String> lines = new CopyOnWriteArrayList<>();
        Processes.Ended e = Processes.of("sh", "-c", "echo one; echo two >&2; echo \"$UNPINNED_T\"; exit 3")
                .env("UNPINNED_T", "three").mergeErrors().lines(lines::add).run(Duration.ofSeconds(20));
        assertEquals(new Processes.Ended(3, false), e);
        assertEquals(List.of("one", "two", "three"), lines);
    }

    @Test
    void writesItsOutputToAFileInItsFolder() throws Exception {
        Path dir = Files.createTempDirectory("processes-test");
        Path out = dir.resolve("out.txt");
        try {
            Processes.Ended e = Processes.of("pwd").directory(dir).outputTo(out).run(Duration.ofSeconds(20));
            assertEquals(0, e.exit());
            assertEquals(dir.toRealPath().toString(), Files.readString(out, StandardCharsets.UTF_8).strip());
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(dir);
        }
    }

    @Test
    void leavesOutTheEnvironmentItIsToldTo() throws Exception {
        List<String> lines = new CopyOnWriteArrayList<>();
        Processes.of("sh", "-c", "echo \"[${HOME:-none}] [${UNPINNED_T:-none}]\"").env("UNPINNED_T", "set")
                .unsetEnv("HOME").unsetEnv("UNPINNED_T").lines(lines::add).run(Duration.ofSeconds(20));
        assertEquals(List.of("[none] [none]"), lines);
    }

    @Test
    void aRunOverItsLimitIsKilledWithWhatItStarted() throws Exception {
        List<String> lines = new CopyOnWriteArrayList<>();
        long t0 = System.nanoTime();
        Processes.Ended e = Processes.of("sh", "-c", "echo $$; sleep 60 & sleep 60").lines(lines::add)
                .run(Duration.ofMillis(500));
        assertTrue(e.timedOut());
        assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(20), "the time limit was not kept");
        long shell = Long.parseLong(lines.get(0));
        assertFalse(ProcessHandle.of(shell).map(ProcessHandle::isAlive).orElse(false), "the shell survived");
    }

    @Test
    void killsTheTreeGrandchildrenFirst() throws Exception {
        Process p = Processes.of("sh", "-c", "sleep 60 & sleep 60").start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (p.descendants().count() < 2 && System.nanoTime() < deadline) Thread.sleep(20);
            List<ProcessHandle> tree = p.descendants().toList();
            assertEquals(2, tree.size(), "the shell should have two sleeps: " + tree);
            Processes.destroyTree(p);
            assertFalse(p.isAlive());
            for (ProcessHandle h : tree) {
                h.onExit().get(5, TimeUnit.SECONDS);
                assertFalse(h.isAlive(), "descendant " + h.pid() + " survived");
            }
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void killsAtOnceWithoutGrace() throws Exception {
        // a shell that ignores SIGTERM still ends: no grace means SIGKILL
        Process p = Processes.of("sh", "-c", "trap '' TERM; sleep 60 & sleep 60").start();
        try {
            Thread.sleep(200);
            long t0 = System.nanoTime();
            Processes.destroyTree(p, Duration.ZERO);
            assertFalse(p.isAlive());
            assertTrue(System.nanoTime() - t0 < TimeUnit.SECONDS.toNanos(2));
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void aMissingProgramFailsInOneLine() {
        IOException e = assertThrows(IOException.class, () -> Processes.of("no-such-program-unpinned").start());
        assertTrue(e.getMessage().contains("no-such-program-unpinned"), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
    }

    @Test
    void anEmptyCommandIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> Processes.of(List.of()));
    }
}
