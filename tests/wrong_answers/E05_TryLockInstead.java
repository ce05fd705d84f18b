///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../../helpers/unpinned/course/CodeExercises.java

/*
 * A wrong answer to exercise 05.fix-the-pin, kept to show that its check fails it with a hint.
 *
 * tryLock() "so that nobody waits", and unlock() in finally as usual: a refresh that did not get the
 * lock skips the bank and then gives back a lock it never held.
 *
 * hint: refresh threw
 * hint: IllegalMonitorStateException
 */

import unpinned.course.CodeExercises;

import java.util.concurrent.locks.ReentrantLock;

public class E05_TryLockInstead {

    static final class Account implements CodeExercises.Account {
        private final ReentrantLock lock = new ReentrantLock();
        private int balance;

        @Override
        public void refresh() throws InterruptedException {
            boolean got = lock.tryLock();
            try {
                if (!got) return;
                int read = balance;
                Thread.sleep(50);
                balance = read + 1;
            } finally {
                lock.unlock();
            }
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
