///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../../helpers/unpinned/course/CodeExercises.java

/*
 * A wrong answer to exercise 05.fix-the-pin, kept to show that its check fails it with a hint.
 *
 * No lock at all, an AtomicInteger instead: no pin and no update lost, but nothing keeps two
 * refreshes of one account apart any more.
 *
 * hint: they overlapped, so another refresh can slip in between a read and its write
 */

import unpinned.course.CodeExercises;

import java.util.concurrent.atomic.AtomicInteger;

public class E05_AtomicNoLock {

    static final class Account implements CodeExercises.Account {
        private final AtomicInteger balance = new AtomicInteger();

        @Override
        public void refresh() throws InterruptedException {
            Thread.sleep(50);
            balance.incrementAndGet();
        }

        @Override
        public int balance() {
            return balance.get();
        }
    }

    public static void main(String[] args) {
        CodeExercises.fixThePin(args, Account::new);
    }
}
