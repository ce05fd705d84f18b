///usr/bin/env jbang "$0" "$@" ; exit $?
// The entry point that gathers the shared helpers for the notebook kernel:
// `make setup` runs `jbang info classpath helpers/Kernel.java` and puts the result
// (helpers jar + pinned dependencies) on the course kernel's classpath.
// Running it prints the helpers' view of this machine.
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES unpinned/*.java

public class Kernel {
    public static void main(String... args) {
        System.out.println(unpinned.Machine.describe());
    }
}
