///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../../helpers/unpinned/course/CodeExercises.java

/*
 * A wrong answer to exercise 07.guard-the-pool, kept to show that its check fails it with a hint.
 *
 * A guard of 2 "to be safe": nobody times out, but half the pool sits idle.
 *
 * hint: connections were in use at once: the guard lets fewer through than the pool could serve
 */

import unpinned.course.CodeExercises;

import java.util.concurrent.Semaphore;

public class E07_HalfThePermits {

    static final class Orders implements CodeExercises.Orders {
        private final CodeExercises.Pool pool;
        private final Semaphore permits;

        Orders(CodeExercises.Pool pool) {
            this.pool = pool;
            this.permits = new Semaphore(2, true);
        }

        @Override
        public String order(int id) throws Exception {
            String sql = id < 0 ? "bad order " + id : "select * from orders where id = " + id;
            permits.acquire();
            try {
                return pool.query(sql);
            } finally {
                permits.release();
            }
        }
    }

    public static void main(String[] args) {
        CodeExercises.guardThePool(args, Orders::new);
    }
}
