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
 * Object.wait(50) in place of the sleep, "so the monitor is let go while waiting": other refreshes get
 * in between the read and the write, and on JDK 21 wait() still keeps the carrier.
 *
 * hint: they take turns
 */

import unpinned.chapters.CodeExercises;

public class E05_WaitInsteadOfSleep {

    static final class Account implements CodeExercises.Account {
        private int balance;

        @Override
        public synchronized void refresh() throws InterruptedException {
            int read = balance;
            wait(50);
            balance = read + 1;
        }

        @Override
        public synchronized int balance() {
            return balance;
        }
    }

    public static void main(String[] args) {
        CodeExercises.fixThePin(args, Account::new);
    }
}
