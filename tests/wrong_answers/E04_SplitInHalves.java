///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../../helpers/unpinned/course/CodeExercises.java

/*
 * A wrong answer to exercise 04.give-the-carrier-back, kept to show that its check fails it with a hint.
 *
 * The work split in two halves on platform threads, to use both cores: the carrier is free, but the
 * recurrence is sequential and each half starts again from x = 1.
 *
 * hint: crunch returned the wrong checksum
 */

import unpinned.course.CodeExercises;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

public class E04_SplitInHalves {

    static final ExecutorService CPU = Executors.newFixedThreadPool(2, Thread.ofPlatform().daemon().factory());

    static long crunch(long n) {
        try {
            Future<Long> first = CPU.submit(() -> steps(n / 2));
            Future<Long> second = CPU.submit(() -> steps(n - n / 2));
            return first.get() ^ second.get();
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
        CodeExercises.giveTheCarrierBack(args, E04_SplitInHalves::crunch);
    }
}
