///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../../helpers/unpinned/course/CodeExercises.java

/*
 * A wrong answer to exercise 07.guard-the-pool, kept to show that its check fails it with a hint.
 *
 * No guard: an order that times out in the pool just tries again. Every order ends up answered,
 * but all 60 wait inside the pool, where waiting times out.
 *
 * hint: threads were inside the pool at once, for 4 connections
 */

import unpinned.course.CodeExercises;

import java.util.concurrent.Semaphore;

public class E07_RetryOnTimeout {

    static final class Orders implements CodeExercises.Orders {
        private final CodeExercises.Pool pool;
        private final Semaphore permits;

        Orders(CodeExercises.Pool pool) {
            this.pool = pool;
            this.permits = new Semaphore(pool.size(), true);
        }

        @Override
        public String order(int id) throws Exception {
            String sql = id < 0 ? "bad order " + id : "select * from orders where id = " + id;
            while (true) {
                try {
                    return pool.query(sql);
                } catch (java.util.concurrent.TimeoutException e) {
                    // busy: try again
                }
            }
        }
    }

    public static void main(String[] args) {
        CodeExercises.guardThePool(args, Orders::new);
    }
}
