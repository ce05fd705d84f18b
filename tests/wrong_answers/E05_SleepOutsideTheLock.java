///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../../helpers/unpinned/course/CodeExercises.java

/*
 * A wrong answer to exercise 05.fix-the-pin, kept to show that its check fails it with a hint.
 *
 * The wait for the bank moved out of the monitor, which now only guards the write: no pin, and no
 * update lost, but the read and the write are no longer one step, so refreshes overlap.
 *
 * hint: they overlapped, so another refresh can slip in between a read and its write
 */

import unpinned.course.CodeExercises;

public class E05_SleepOutsideTheLock {

    static final class Account implements CodeExercises.Account {
        private int balance;

        @Override
        public void refresh() throws InterruptedException {
            Thread.sleep(50);
            synchronized (this) {
                balance++;
            }
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
