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
 * A ReentrantLock taken and never given back: the second refresh of the shared account waits for
 * ever.
 *
 * hint: the refreshes had not all ended after 10 s
 * hint: in ReentrantLock.lock
 * hint: is a lock taken and never given back?
 */

import unpinned.chapters.CodeExercises;

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
