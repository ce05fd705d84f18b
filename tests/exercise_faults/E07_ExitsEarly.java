///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../../helpers/unpinned/course/CodeExercises.java

/*
 * A hostile answer to exercise 07.guard-the-pool, kept to show that its check fails it with a hint.
 *
 * The worked answer, except that an order ends the whole JVM with exit code 0: no verdict may come
 * out of that as passed.
 *
 * hint: the JVM was ended while
 * hint: System.exit, called from E07_ExitsEarly.Orders.order
 */

import unpinned.course.CodeExercises;

import java.util.concurrent.Semaphore;

public class E07_ExitsEarly {

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
            if (id == 7) System.exit(0);
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
