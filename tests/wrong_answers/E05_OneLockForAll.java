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
 * A wrong answer to exercise 05.fix-the-pin, kept to show that its check fails it with a hint.
 *
 * One ReentrantLock for every account: no pin and no update lost, but refreshes of different
 * accounts now take turns too.
 *
 * hint: threads on their own accounts took
 * hint: they take turns
 */

import unpinned.chapters.CodeExercises;

import java.util.concurrent.locks.ReentrantLock;

public class E05_OneLockForAll {

    static final class Account implements CodeExercises.Account {
        private static final ReentrantLock lock = new ReentrantLock();
        private int balance;

        @Override
        public void refresh() throws InterruptedException {
            lock.lock();
            try {
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
