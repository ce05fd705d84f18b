///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../helpers/unpinned/course/CodeExercises.java

/*
 * Exercise 04.give-the-carrier-back (notebooks/04-the-scheduler.ipynb).
 *
 * crunch(n) is CPU-bound: n steps of arithmetic, no blocking call. Run in a virtual thread on a JVM with
 * one carrier, it keeps that carrier until it returns (no time slicing), and every other virtual thread
 * waits: here a probe that wants to wake every 5 ms.
 *
 * Your task: change how crunch runs so the probe keeps waking while it computes, on the course JDK with
 * one carrier, with the same work and the same checksum. Change only crunch (you may add fields or
 * methods). Try more than one idea: the check tells you which ones work on this JDK.
 *
 * Check it: CodeExercises.check("04.give-the-carrier-back") in the notebook, or
 *   tools/jbang exercises/E04_GiveTheCarrierBack.java --check
 * It runs the probe and crunch(200,000,000) in a child JVM on the course JDK with one carrier
 * (-Djdk.virtualThreadScheduler.parallelism=1, maxPoolSize=1): it times the probe's pace with the
 * carrier free and the CPU the work takes there, then counts the probe's wake-ups while crunch
 * computes (at least half of what the free pace allows) and the CPU crunch spends (at least half the
 * work's: the work must be done, not skipped).
 */

import unpinned.course.CodeExercises;

public class E04_GiveTheCarrierBack {

    /** Called on a virtual thread; returns the checksum of n steps. */
    static long crunch(long n) {
        long x = 1, sum = 0;
        for (long i = 0; i < n; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            sum ^= x >>> 17;
        }
        return sum;
    }

    public static void main(String[] args) {
        CodeExercises.giveTheCarrierBack(args, E04_GiveTheCarrierBack::crunch);
    }
}
