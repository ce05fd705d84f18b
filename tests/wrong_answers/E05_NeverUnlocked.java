///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../../helpers/unpinned/course/CodeExercises.java

/*
 * A wrong answer to exercise 05.fix-the-pin, kept to show that its check fails it with a hint.
 *
 * A ReentrantLock taken and never given back: the second refresh of the shared account waits for
 * ever.
 *
 * hint: the refreshes had not all ended after 10 s
 * hint: in ReentrantLock.lock
 * hint: is a lock taken and never given back?
 */

import unpinned.course.CodeExercises;

import java.util.concurrent.locks.ReentrantLock;

public class E05_NeverUnlocked {

    static final class Account implements CodeExercises.Account {
        private final ReentrantLock lock = new ReentrantLock();
        private int balance;

        @Override
        public void refresh() throws InterruptedException {
            lock.lock();
            int read = balance;
            Thread.sleep(50);
            balance = read + 1;
        }

        @Override
        public int balance() {
            lock.lock();
            try {
                return balance;
            } finally {
                lock.unlock();
            }
        }
    }

    public static void main(String[] args) {
        CodeExercises.fixThePin(args, Account::new);
    }
}
