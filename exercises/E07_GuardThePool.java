///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../helpers/unpinned/course/CodeExercises.java

/*
 * Exercise 07.guard-the-pool (notebooks/07-a-real-database-and-backpressure.ipynb).
 *
 * Every request runs order() on its own virtual thread, 60 at once. The pool has 4 connections and,
 * like HikariCP's connectionTimeout, gives up on a borrower after 150 ms; each query takes 40 ms. Some
 * queries fail (a bad id): the pool gives their connection back itself.
 *
 * Your task: change Orders so that every order is answered (nobody times out in the pool) and all 4
 * connections stay busy, without touching the pool: the wait must move in front of it. Change only the
 * Orders class.
 *
 * Check it: CodeExercises.check("07.guard-the-pool") in the notebook, or
 *   tools/jbang exercises/E07_GuardThePool.java --check
 * It sends 8 failing orders (they must all end within 5 s), then 60 at once (within 10 s), and counts
 * the timeouts, the threads inside the pool at once and the connections in use at once.
 */

import unpinned.course.CodeExercises;

public class E07_GuardThePool {

    static final class Orders implements CodeExercises.Orders {
        private final CodeExercises.Pool pool;

        Orders(CodeExercises.Pool pool) {
            this.pool = pool;
        }

        @Override
        public String order(int id) throws Exception {
            String sql = id < 0 ? "bad order " + id : "select * from orders where id = " + id;
            return pool.query(sql);    // waits for a connection, at most the pool's timeout
        }
    }

    public static void main(String[] args) {
        CodeExercises.guardThePool(args, Orders::new);
    }
}
