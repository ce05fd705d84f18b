//SOURCES Course.java
//SOURCES Machine.java
//SOURCES Profile.java
//SOURCES Results.java
package unpinned.core;

/**
 * The first cell of every notebook: {@code var profile = Session.setup();}. Kept apart from {@link Course} (where
 * the course lives), which {@link Results} needs, so the two don't lean on each other.
 */
public final class Session {
    private Session() {}

    /**
     * Checks the JDK, prints the profile banner and the machine summary, and returns the
     * profile: the first cell of every notebook, so a wrong set-up fails before any measurement.
     */
    public static Profile setup() {
        Course.requireJdk(Runtime.version().feature());
        Profile p = Profile.announce();
        Results.checkDir(); // a results folder inside data/ is refused now, not after a measurement
        System.out.println("Machine: " + Machine.summary());
        return p;
    }
}
