///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../../helpers/unpinned/course/CodeExercises.java

/*
 * A hostile answer to exercise 04.give-the-carrier-back, kept to show that its check fails it with a hint.
 *
 * The worked answer, which also starts a long sleep (a process of its own) and leaves it running.
 * The sleep's seconds come from UNPINNED_TEST_SLEEP (417 by default), so a test can tell its own.
 *
 * hint: the code left a process running when it was done: sleep
 */

import unpinned.course.CodeExercises;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

public class E04_LeavesAProcess {

    static final ExecutorService CPU = Executors.newFixedThreadPool(
            Runtime.getRuntime().availableProcessors(), Thread.ofPlatform().daemon().factory());

    static long crunch(long n) {
        try {
            new ProcessBuilder("sleep", System.getenv().getOrDefault("UNPINNED_TEST_SLEEP", "417")).start();
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        try {
            return CPU.submit(() -> steps(n)).get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    static long steps(long n) {
        long x = 1, sum = 0;
        for (long i = 0; i < n; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            sum ^= x >>> 17;
        }
        return sum;
    }

    public static void main(String[] args) {
        CodeExercises.giveTheCarrierBack(args, E04_LeavesAProcess::crunch);
    }
}
