///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../../helpers/unpinned/course/CodeExercises.java

/*
 * A wrong answer to exercise 05.fix-the-pin, kept to show that its check fails it with a hint.
 *
 * Object.wait(50) in place of the sleep, "so the monitor is let go while waiting": other refreshes get
 * in between the read and the write, and on JDK 21 wait() still keeps the carrier.
 *
 * hint: they take turns
 */

import unpinned.course.CodeExercises;

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
