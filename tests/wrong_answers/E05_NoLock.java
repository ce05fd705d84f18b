///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../../helpers/unpinned/course/CodeExercises.java

/*
 * A wrong answer to exercise 05.fix-the-pin, kept to show that its check fails it with a hint.
 *
 * synchronized simply removed: no pin, and every refresh of the shared account reads the same
 * balance.
 *
 * hint: updates: refreshes of one account must still exclude each other
 */

import unpinned.course.CodeExercises;

public class E05_NoLock {

    static final class Account implements CodeExercises.Account {
        private int balance;

        @Override
        public void refresh() throws InterruptedException {
            int read = balance;
            Thread.sleep(50);
            balance = read + 1;
        }

        @Override
        public int balance() {
            return balance;
        }
    }

    public static void main(String[] args) {
        CodeExercises.fixThePin(args, Account::new);
    }
}
