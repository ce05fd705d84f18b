///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../../helpers/unpinned/course/CodeExercises.java

/*
 * A wrong answer to exercise 04.give-the-carrier-back, kept to show that its check fails it with a hint.
 *
 * A 1 ms sleep every 20 million steps: the carrier comes back ten times in all, far too seldom for a
 * probe that wants it every 5 ms.
 *
 * hint: the carrier came back too seldom
 */

import unpinned.course.CodeExercises;

public class E04_SleepEvery20M {

    static long crunch(long n) {
        long x = 1, sum = 0;
        for (long i = 0; i < n; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            sum ^= x >>> 17;
            if (i % 20_000_000 == 0) {
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        return sum;
    }

    public static void main(String[] args) {
        CodeExercises.giveTheCarrierBack(args, E04_SleepEvery20M::crunch);
    }
}
