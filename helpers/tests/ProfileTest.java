package unpinned;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class ProfileTest {
    @Test
    void parsesBothProfilesAndDefaultsToQuick() {
        assertEquals(Profile.QUICK, Profile.parse("quick"));
        assertEquals(Profile.FULL, Profile.parse("full"));
        assertEquals(Profile.FULL, Profile.parse(" FULL "));
        assertEquals(Profile.QUICK, Profile.parse(null));
        assertEquals(Profile.QUICK, Profile.parse("  "));
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
}
