///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../../helpers/unpinned/course/CodeExercises.java

/*
 * A wrong answer to exercise 04.give-the-carrier-back, kept to show that its check fails it with a hint.
 *
 * The checksum written down once and returned after a sleep the length of the work: the probe wakes
 * all along and the checksum is right, but none of the work is done.
 *
 * hint: its checksum came without the work
 */

import unpinned.course.CodeExercises;

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
