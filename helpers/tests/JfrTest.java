package unpinned.running;

import unpinned.workloads.SleepServerTest;
import unpinned.core.Profile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static unpinned.workloads.SleepServerTest.assertMessage;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import jdk.jfr.Event;
import jdk.jfr.Name;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

public class JfrTest {
    @TempDir
    Path tmp;

    /** A stand-in for JDK 24+'s jdk.VirtualThreadPinned: the three fields that JDK 21 does not record. */
    @Name("unpinned.test.PinnedWithFields")
    public static final class PinnedWithFields extends Event {
        String pinnedReason;
        String blockingOperation;
        Thread carrierThread;
    }

    /** ... and JDK 21's, which has none of them. */
    @Name("unpinned.test.PinnedBare")
    public static final class PinnedBare extends Event {}

    /** Blocks in its static initializer: a virtual thread that initializes it pins on JDK 21 and 25 alike. */
    public static final class SlowInit {
        static {
            try {
                Thread.sleep(30);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        static void touch() {}
    }

    @Test
    void keepMovesTheRecordingNextToTheResultsReadableByAll() throws Exception {
        Path recording = Files.writeString(Files.createTempFile(tmp, "s99-", ".jfr"), "not really a recording");
        Path kept = Jfr.keep(recording, tmp.resolve("results"), "s99-test");
        assertEquals(tmp.resolve("results").resolve("s99-test"), kept.getParent());
        assertTrue(kept.getFileName().toString().matches("\\d{8}-\\d{6}-\\d{3}-" + Profile.current().id() + "\\.jfr"),
                kept.toString());
        assertFalse(Files.exists(recording), "moved, not copied");
        assertEquals("not really a recording", Files.readString(kept));
        try {
            assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(kept)));
        } catch (UnsupportedOperationException e) {
            // not a POSIX file system
        }
        Path second = Jfr.keep(Files.createTempFile(tmp, "s99-", ".jfr"), tmp.resolve("results"), "s99-test");
        assertNotEquals(kept, second, "two recordings in one millisecond get two names");
        try (Stream<Path> files = Files.list(kept.getParent())) {
            assertEquals(2, files.count());
        }
    }

    @Test
    void keepNamesWhatItRefuses() {
        assertMessage("experiment must match [a-z0-9-]+ (e.g. 's17-pinning-cases'), got 'S99 Test'",
                () -> Jfr.keep(tmp.resolve("x.jfr"), tmp, "S99 Test"));
        assertMessage("experiment must match [a-z0-9-]+", () -> Jfr.keep(tmp.resolve("x.jfr"), tmp, null));
        assertMessage("tmp must be the path of a recording, got null", () -> Jfr.keep(null, tmp, "s99-test"));
    }

    @Test
    void aSavedRunLeavesTheJsonAndTheRecordingSideBySide() throws Exception {
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("threads", 2);
        Path json = tmp.resolve("run.json");
        Path jfr = Jfr.saveWithRecording(tmp, "s99-test", data, Files.createTempFile(tmp, "s99-", ".jfr"), d -> json);
        assertEquals(jfr.toString(), data.get("jfrFile"));
        assertTrue(Files.isRegularFile(jfr));
        assertEquals(List.of("threads", "jfrFile"), List.copyOf(data.keySet()));
    }

    @Test
    void aRunWhoseSaveFailsLeavesNoRecording() throws Exception {
        Path recording = Files.createTempFile(tmp, "s99-", ".jfr");
        var e = assertThrows(UncheckedIOException.class, () -> Jfr.saveWithRecording(tmp, "s99-test",
                new LinkedHashMap<>(), recording, d -> {
                    throw new UncheckedIOException(new IOException("disk full"));
                }));
        assertEquals("java.io.IOException: disk full", e.getMessage());
        assertFalse(Files.exists(recording));
        try (Stream<Path> files = Files.list(tmp.resolve("s99-test"))) {
            assertEquals(0, files.count(), "neither the .json nor the .jfr");
        }
    }

    @Test
    void aFailedRunDeletesItsTemporaryRecordingAndSaysWhy() {
        AtomicReference<Path> seen = new AtomicReference<>();
        assertNull(Jfr.run("S99", p -> {
            seen.set(p);
            Files.writeString(p, "recorded");
        }));
        assertTrue(seen.get().getFileName().toString().matches("s99-.*\\.jfr"), seen.get().toString());
        Jfr.deleteQuietly(seen.get());

        assertEquals("the scheduler has 2 carriers; nothing saved", Jfr.run("S99", p -> {
            seen.set(p);
            throw new IllegalStateException("the scheduler has 2 carriers");
        }));
        assertFalse(Files.exists(seen.get()), "a failed run saves nothing");
        assertEquals("cannot write; nothing saved", Jfr.run("S99", p -> {
            throw new IOException("cannot write");
        }));
        try {
            assertEquals("interrupted; nothing saved", Jfr.run("S99", p -> {
                throw new InterruptedException();
            }));
            assertTrue(Thread.currentThread().isInterrupted(), "the interrupt is kept");
        } finally {
            Thread.interrupted();
        }
        // anything else is a bug, not a failed measurement: it passes through with its stack trace
        assertThrows(ArithmeticException.class, () -> Jfr.run("S99", p -> {
            throw new ArithmeticException("/ by zero");
        }));
        assertMessage("name must be a snippet's short name like 'S17', got ' '", () -> Jfr.run(" ", p -> {}));
    }

    @Test
    void readsTheFieldsOnlySomeJdksRecord() throws Exception {
        Path file = tmp.resolve("fields.jfr");
        try (Recording r = new Recording()) {
            r.enable(PinnedWithFields.class).withThreshold(Duration.ZERO);
            r.enable(PinnedBare.class).withThreshold(Duration.ZERO);
            r.start();
            PinnedWithFields full = new PinnedWithFields();
            full.pinnedReason = "Native or VM frame on stack";
            full.blockingOperation = "LockSupport.park";
            full.carrierThread = Thread.currentThread();
            full.commit();
            Thread v = Thread.ofVirtual().name("jfr-test-virtual").start(() -> new PinnedBare().commit());
            v.join();
            r.stop();
            r.dump(file);
        }
        List<RecordedEvent> events = new ArrayList<>();
        Jfr.forEachEvent(file, e -> {
            if (e.getEventType().getName().startsWith("unpinned.test.")) events.add(e);
        });
        assertEquals(2, events.size(), events.toString());
        // the file orders events per thread buffer, not by commit: PinnedWithFields, then PinnedBare
        events.sort((a, b) -> b.getEventType().getName().compareTo(a.getEventType().getName()));
        RecordedEvent full = events.get(0), bare = events.get(1);
        assertEquals(new Jfr.PinnedFields("Native or VM frame on stack", "LockSupport.park",
                Thread.currentThread().getName()), Jfr.pinnedFields(full));
        assertEquals(new Jfr.PinnedFields(null, null, null), Jfr.pinnedFields(bare));
        assertNull(Jfr.text(full, "noSuchField"));
        assertNull(Jfr.threadName(full, "pinnedReason"), "a field that holds no thread");
        assertEquals("jfr-test-virtual (virtual)", Jfr.describe(bare.getThread()));

        Jfr.PinnedTally tally = new Jfr.PinnedTally();
        tally.add(full);
        tally.add(bare);
        assertEquals(2, tally.events());
        assertEquals(Map.of("Native or VM frame on stack", 1L), tally.reasons());
        assertEquals(Map.of("LockSupport.park", 1L), tally.blockingOperations());
        assertEquals(Map.of(Thread.currentThread().getName(), 1L), tally.carriers());
    }

    @Test
    void aTallyCountsEachPinAndItsKnownFields() {
        Jfr.PinnedTally tally = new Jfr.PinnedTally();
        assertEquals("none given", Jfr.counted(tally.reasons()));
        tally.add(200.25, new Jfr.PinnedFields("Native or VM frame on stack", "LockSupport.park", "worker-1"));
        tally.add(199.75, new Jfr.PinnedFields("Native or VM frame on stack", "LockSupport.park", "worker-1"));
        tally.add(1, new Jfr.PinnedFields("Monitor held", null, null)); // a field the JDK did not record is no count
        assertEquals(3, tally.events());
        assertEquals(401.0, tally.ms(), 1e-9);
        assertEquals("Monitor held, Native or VM frame on stack x2", Jfr.counted(tally.reasons()));
        assertEquals(Map.of("LockSupport.park", 2L), tally.blockingOperations());
        assertEquals(Map.of("worker-1", 2L), tally.carriers());
        assertThrows(UnsupportedOperationException.class, () -> tally.reasons().clear());
    }

    @Test
    void aRealPinIsCountedWithTheReasonsThisJdkGives() throws Exception {
        int feature = Runtime.version().feature();
        assertTrue(Jfr.eventTypes().containsKey(Jfr.PINNED));
        assertEquals(feature >= 24, Jfr.hasField(Jfr.PINNED, "pinnedReason"), "pinnedReason came in JDK 24");
        assertFalse(Jfr.hasField("no.such.Event", "pinnedReason"));

        Path file = tmp.resolve("pin.jfr");
        Instant start;
        try (Recording r = new Recording()) {
            r.enable(Jfr.PINNED).withThreshold(Duration.ZERO).withStackTrace();
            r.start();
            start = Instant.now();
            Thread v = Thread.ofVirtual().name("jfr-test-pin").start(SlowInit::touch); // sleeps 30 ms in <clinit>
            assertTrue(v.join(Duration.ofSeconds(30)));
            r.stop();
            r.dump(file);
        }
        assertTrue(Jfr.sinceMs(start) >= 30, "the pin took its 30 ms");
        Jfr.PinnedTally tally = new Jfr.PinnedTally();
        Jfr.forEachEvent(file, e -> {
            if (e.getThread() != null && "jfr-test-pin".equals(e.getThread().getJavaName())) tally.add(e);
        });
        assertEquals(1, tally.events());
        assertTrue(tally.ms() >= 25, "pinned while it slept: " + tally.ms() + " ms");
        if (feature >= 24) {
            String reason = tally.reasons().keySet().iterator().next();
            assertTrue(reason.contains("<clinit>"), reason);
            assertEquals(1, tally.carriers().size(), tally.carriers().toString());
        } else {
            assertTrue(tally.reasons().isEmpty(), "no pinnedReason before JDK 24: " + tally.reasons());
        }
    }
}
