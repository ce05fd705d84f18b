///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
// The check's machinery (helpers/unpinned/chapters/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../../helpers/unpinned/chapters/CodeExercises.java
//SOURCES ../../helpers/unpinned/running/Jdks.java
//SOURCES ../../helpers/unpinned/running/ChildRun.java
//SOURCES ../../helpers/unpinned/core/Cli.java
//SOURCES ../../helpers/unpinned/core/Course.java
//SOURCES ../../helpers/unpinned/core/Json.java
//SOURCES ../../helpers/unpinned/core/Machine.java
//SOURCES ../../helpers/unpinned/core/Measurement.java
//SOURCES ../../helpers/unpinned/core/Profile.java
//SOURCES ../../helpers/unpinned/core/Protocol.java
//SOURCES ../../helpers/unpinned/core/Results.java
//SOURCES ../../helpers/unpinned/core/RunGuard.java
//SOURCES ../../helpers/unpinned/core/Show.java
//SOURCES ../../helpers/unpinned/core/Busy.java

/*
 * A wrong answer to exercise 04.give-the-carrier-back, kept to show that its check fails it with a hint.
 *
 * The checksum written down once and returned after a sleep the length of the work: the probe wakes
 * all along and the checksum is right, but none of the work is done.
 *
 * hint: its checksum came without the work
 */

import unpinned.chapters.CodeExercises;

public class E04_HardCodedChecksum {

    static long crunch(long n) {
        try {
            Thread.sleep(150);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return 4466548527722L;   // crunch(200,000,000), computed once
    }

    public static void main(String[] args) {
        CodeExercises.giveTheCarrierBack(args, E04_HardCodedChecksum::crunch);
    }
}
