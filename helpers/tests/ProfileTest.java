package unpinned.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

public class ProfileTest {
    @Test
    void parsesBothProfilesAndDefaultsToQuick() {
        assertEquals(Profile.QUICK, Profile.parse("quick"));
        assertEquals(Profile.FULL, Profile.parse("full"));
        assertEquals(Profile.FULL, Profile.parse(" FULL "));
        assertEquals(Profile.QUICK, Profile.parse(null));
        assertEquals(Profile.QUICK, Profile.parse("  "));
    }

    @Test
    void anInvisibleCharacterIsRefusedAndShownAsPythonShowsIt() {
        // tools/course_base.py's profile() refuses the same values with the same message
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Profile.parse("\u00a0"));
        assertEquals("UNPINNED_PROFILE must be 'quick' or 'full', got '\\u00a0'", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Profile.parse("\u2003quick"));
        assertEquals(Profile.QUICK, Profile.parse("\tQuick\n"));
    }

    @Test
    void unknownValueSaysWhatIsAllowed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Profile.parse("fast"));
        assertTrue(e.getMessage().contains("'quick' or 'full'") && e.getMessage().contains("'fast'"), e.getMessage());
    }

    @Test
    void systemPropertyOverridesEnvironment() {
        String saved = System.getProperty(Profile.PROPERTY);
        try {
            System.setProperty(Profile.PROPERTY, "full");
            assertEquals(Profile.FULL, Profile.current());
            System.setProperty(Profile.PROPERTY, "quick");
            assertEquals(Profile.QUICK, Profile.current());
            System.setProperty(Profile.PROPERTY, "medium");
            assertThrows(IllegalArgumentException.class, Profile::current);
        } finally {
            if (saved == null) System.clearProperty(Profile.PROPERTY);
            else System.setProperty(Profile.PROPERTY, saved);
        }
    }

    @Test
    void pickAndBanner() {
        assertEquals(10, Profile.QUICK.pick(10, 10_000));
        assertEquals(10_000, Profile.FULL.pick(10, 10_000));
        assertEquals("a", Profile.QUICK.pick("a", "b"));
        assertEquals("b", Profile.FULL.pick("a", "b"));
        assertEquals("quick", Profile.QUICK.id());
        assertEquals("full", Profile.FULL.id());
        assertTrue(Profile.QUICK.banner().startsWith("Profile: quick"));
        assertTrue(Profile.FULL.banner().startsWith("Profile: full"));
    }

    @Test
    void onlyAParentPidIsWatched() {
        assertTrue(Profile.parentPid(null).isEmpty());
        assertTrue(Profile.parentPid(" ").isEmpty());
        assertTrue(Profile.parentPid("abc").isEmpty());
        assertTrue(Profile.parentPid("-4").isEmpty());
        assertTrue(Profile.parentPid(Long.toString(ProcessHandle.current().pid())).isEmpty(), "not this JVM itself");
        assertEquals(4242, Profile.parentPid(" 4242 ").getAsLong());
    }

    @Test
    void aParentRunsUntilItEndsAndAPidGivenToALaterProcessIsNotIt() throws Exception {
        long parent = ProcessHandle.current().parent().orElseThrow().pid();
        assertTrue(Profile.isRunning(parent), "the process that started this JVM runs");
        Process later = new ProcessBuilder("sleep", "30").start(); // started after this JVM: a reused pid looks so
        try {
            assertFalse(Profile.isRunning(later.pid()), "a process younger than this JVM is not its parent");
        } finally {
            later.destroyForcibly().waitFor();
        }
        assertFalse(Profile.isRunning(later.pid()), "an ended process does not run");
    }

    @Test
    void aChildRunIsTiedToThisJvm() {
        ProcessBuilder b = Profile.tiedToThisJvm(new ProcessBuilder("true"));
        assertEquals(Long.toString(ProcessHandle.current().pid()), b.environment().get(Profile.PARENT_PID_ENV));
    }
}
