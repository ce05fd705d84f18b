///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../helpers/unpinned/course/CodeExercises.java

/*
 * Exercise 05.fix-the-pin (notebooks/05-pinning-jdk-21-vs-25.ipynb).
 *
 * Account.refresh() reads the balance, waits 50 ms for the bank, and writes it back plus one. It is
 * synchronized, so two threads refreshing the same account can't lose an update. On JDK 21 that costs
 * dearly: a virtual thread that sleeps while holding a monitor is pinned, and keeps its carrier.
 *
 * Your task: change Account so that, on JDK 21 with one carrier, virtual threads refreshing their own
 * accounts wait together instead of taking turns, with no pin reported, while refreshes of one shared
 * account still exclude each other (no lost update). Change only the Account class.
 *
 * Check it: CodeExercises.check("05.fix-the-pin") in the notebook, or
 *   tools/jbang exercises/E05_FixThePin.java --check
 * It runs 8 threads on their own accounts and 4 on one shared account in a child JVM on JDK 21 with one
 * carrier (-Djdk.virtualThreadScheduler.parallelism=1, maxPoolSize=1, -Djdk.tracePinnedThreads=short),
 * and times the shared account against 4 x one refresh alone: one at a time takes at least that.
 */

import unpinned.course.CodeExercises;

public class E05_FixThePin {

    static final class Account implements CodeExercises.Account {
        private int balance;

        @Override
        public synchronized void refresh() throws InterruptedException {
            int read = balance;
            Thread.sleep(50);          // the bank answers
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
