package unpinned.course;

import unpinned.running.Jdks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

public class CodeExercisesTest {

    /** A child's main: what a check's child JVM prints, key=value lines. */
    public static class Child {
        public static void main(String[] args) {
            if (!args[0].equals(CodeExercises.CHILD)) System.exit(3);
            System.out.println("answer=" + (40 + args.length));
            System.out.println("carriers " + System.getProperty("jdk.virtualThreadScheduler.parallelism"));
        }
    }

    @Test
    void anUnknownExerciseIsRefusedNamingTheOnesThereAre() {
        var e = assertThrows(IllegalArgumentException.class, () -> CodeExercises.check("05.no-such"));
        assertTrue(e.getMessage().contains("05.fix-the-pin"), e.getMessage());
        var f = assertThrows(IllegalArgumentException.class, () -> CodeExercises.passes("05.fix-the-pin", "snippets"));
        assertTrue(f.getMessage().contains("exercises or solutions"), f.getMessage());
    }

    @Test
    void everyExerciseIsNamedAfterItsChapterAndFile() {
        for (var e : CodeExercises.EXERCISES.values()) {
            assertTrue(e.id().matches("0[2-7]\\.[a-z-]+"), e.id());
            assertTrue(e.file().startsWith("E" + e.id().substring(0, 2) + "_"), e.file());
        }
    }

    @Test
    void aChildJvmRunsTheGivenClassWithItsOptionsAndEnds() {
        var out = CodeExercises.child(Jdks.course().java(), CodeExercises.ONE_CARRIER, Child.class, Duration.ofSeconds(20),
                "x", "y");
        assertEquals(0, out.exit(), String.join("\n", out.lines()));
        assertFalse(out.stopped());
        assertNull(out.stillRunning());
        assertEquals(43, out.number("answer"));
        assertTrue(Double.isNaN(out.number("nothing")));
        assertEquals(1, out.count("carriers 1"));
    }

    @Test
    void fairnessIsNoTaskMoreThanOneStepAheadOfAnUnfinishedOne() {
        int[] steps = {3, 3, 1};
        assertNull(CodeExercises.unfairness(List.of("A0", "B0", "C0", "A1", "B1", "E0", "A2", "B2"), steps));
        // C has ended after its one step: A and B may go on without it
        assertNull(CodeExercises.unfairness(List.of("C0", "A0", "B0", "A1", "B1", "A2", "B2"), steps));
        String unfair = CodeExercises.unfairness(List.of("A0", "A1", "A2", "B0"), steps);
        assertTrue(unfair != null && unfair.startsWith("task A ran its step 1 while task B had run only 0"), unfair);
    }

    @Test
    void theWorkOfExercise04IsTheDocumentedRecurrence() {
        long x = 1, sum = 0;
        for (int i = 0; i < 3; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            sum ^= x >>> 17;
        }
        assertEquals(sum, CodeExercises.reference(3));
        assertEquals(0, CodeExercises.reference(0));
    }

    @Test
    void whereSaysWhatTheCodeUnderCheckCalledAndFromWhichLine() {
        StackTraceElement[] waiting = {
                new StackTraceElement("jdk.internal.misc.Unsafe", "park", "Unsafe.java", -2),
                new StackTraceElement("java.util.concurrent.Semaphore", "acquire", "Semaphore.java", 318),
                new StackTraceElement("E07_Try$Orders", "order", "E07_Try.java", 47),
                new StackTraceElement("E07_Try", "main", "E07_Try.java", 60)};
        assertEquals("in Semaphore.acquire, called from E07_Try.Orders.order (E07_Try.java:47)",
                CodeExercises.where(waiting, "E07_Try"));
        StackTraceElement[] looping = {new StackTraceElement("E03_Try", "runAll", "E03_Try.java", 52)};
        assertEquals("running E03_Try.runAll (E03_Try.java:52)", CodeExercises.where(looping, "E03_Try"));
        StackTraceElement[] lambda = {
                new StackTraceElement("java.lang.Thread", "sleep", "Thread.java", 500),
                new StackTraceElement("E02_Try", "lambda$placeOrder$0", "E02_Try.java", 40)};
        assertEquals("in Thread.sleep, called from E02_Try.placeOrder (a lambda in it) (E02_Try.java:40)",
                CodeExercises.where(lambda, "E02_Try"));
        // the check's own thread, waiting in the check for the code under check: nothing of the code's
        StackTraceElement[] checking = {
                new StackTraceElement("java.util.concurrent.CountDownLatch", "await", "CountDownLatch.java", 1),
                new StackTraceElement("unpinned.course.CodeExercises", "guardThePool", "CodeExercises.java", 1),
                new StackTraceElement("E07_Try", "main", "E07_Try.java", 60)};
        assertNull(CodeExercises.where(checking, "E07_Try"));
        assertNull(CodeExercises.where(waiting, "E05_Other"));
        assertNull(CodeExercises.where(waiting, ""));
    }

    @Test
    void aProcessIsDescribedByItsCommandOrForAJvmItsMainClass() {
        String self = CodeExercises.described(ProcessHandle.current());
        assertTrue(self.endsWith("(pid " + ProcessHandle.current().pid() + ")"), self);
        assertTrue(self.contains("JVM"), self);
    }

    @Test
    void aChildStoppedAtItsDeadlineSaysWhatWasStillRunning() {
        var stopped = new CodeExercises.ChildOutput(CodeExercises.CHILD_TIMED_OUT,
                List.of("ownMs=51", "stillRunning=3 threads in ReentrantLock.lock"), true);
        assertEquals("3 threads in ReentrantLock.lock", stopped.stillRunning());
        assertEquals(51, stopped.number("ownMs"));
        var silent = new CodeExercises.ChildOutput(-1, List.of(), true);
        assertTrue(silent.stillRunning().startsWith("nothing of the code under check"), silent.stillRunning());
    }

    @Test
    void everyExerciseHasATimeLimitOfAFewTensOfSeconds() {
        for (var e : CodeExercises.EXERCISES.values()) {
            assertTrue(e.limit().toSeconds() >= 10 && e.limit().toSeconds() <= 120, e.id() + ": " + e.limit());
        }
    }
}
