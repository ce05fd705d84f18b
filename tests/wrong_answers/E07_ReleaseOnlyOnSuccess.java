///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../../helpers/unpinned/course/CodeExercises.java

/*
 * A wrong answer to exercise 07.guard-the-pool, kept to show that its check fails it with a hint.
 *
 * The permit is given back only when the query succeeds: each failing query keeps one, and after
 * four of them every later order waits in acquire() for ever.
 *
 * hint: is something taken and never given back when a query fails?
 * hint: in Semaphore.acquire
 */

import unpinned.course.CodeExercises;

import java.util.concurrent.Semaphore;

public class E07_ReleaseOnlyOnSuccess {

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
            permits.acquire();
            String row = pool.query(sql);
            permits.release();
            return row;
        }
    }

    public static void main(String[] args) {
        CodeExercises.guardThePool(args, Orders::new);
    }
}
