///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../../helpers/unpinned/course/CodeExercises.java

/*
 * A wrong answer to exercise 07.guard-the-pool, kept to show that its check fails it with a hint.
 *
 * The guard counts one permit more than the pool has connections: five threads get in at once, and
 * the fifth waits inside the pool.
 *
 * hint: 5 threads were inside the pool at once, for 4 connections
 */

import unpinned.course.CodeExercises;

import java.util.concurrent.Semaphore;

public class E07_OnePermitTooMany {

    static final class Orders implements CodeExercises.Orders {
        private final CodeExercises.Pool pool;
        private final Semaphore permits;

        Orders(CodeExercises.Pool pool) {
            this.pool = pool;
            this.permits = new Semaphore(pool.size() + 1, true);
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
