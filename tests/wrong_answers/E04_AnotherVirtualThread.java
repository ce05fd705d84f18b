///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../../helpers/unpinned/course/CodeExercises.java

/*
 * A wrong answer to exercise 04.give-the-carrier-back, kept to show that its check fails it with a hint.
 *
 * The work handed to another virtual thread: the caller unmounts while it waits, but the work now
 * holds the same only carrier.
 *
 * hint: the carrier came back too seldom
 */

import unpinned.course.CodeExercises;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;

public class E04_AnotherVirtualThread {

    static long crunch(long n) {
        try (var other = Executors.newVirtualThreadPerTaskExecutor()) {
            return other.submit(() -> steps(n)).get();
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
        CodeExercises.giveTheCarrierBack(args, E04_AnotherVirtualThread::crunch);
    }
}
