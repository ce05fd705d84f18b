///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../helpers/unpinned/course/CodeExercises.java

/*
 * Worked solution to exercise 05.fix-the-pin (notebooks/05-pinning-jdk-21-vs-25.ipynb): try it there first.
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

import java.util.concurrent.locks.ReentrantLock;

public class E05_FixThePin {

    static final class Account implements CodeExercises.Account {
        // A java.util.concurrent lock: a virtual thread waiting while holding it unmounts, even on JDK 21
        // (a monitor pins there until JEP 491, JDK 24). It still lets one thread in at a time.
        private final ReentrantLock lock = new ReentrantLock();
        private int balance;

        @Override
        public void refresh() throws InterruptedException {
            lock.lock();
            try {
                int read = balance;
                Thread.sleep(50);          // the bank answers
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
