///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../../helpers/unpinned/course/CodeExercises.java

/*
 * A wrong answer to exercise 07.guard-the-pool, kept to show that its check fails it with a hint.
 *
 * order() made synchronized instead of guarded: nobody times out, but one query runs at a time.
 *
 * hint: at most 1 of 4 connections were in use at once
 */

import unpinned.course.CodeExercises;

public class E07_OneAtATime {

    static final class Orders implements CodeExercises.Orders {
        private final CodeExercises.Pool pool;

        Orders(CodeExercises.Pool pool) {
            this.pool = pool;
        }

        @Override
        public synchronized String order(int id) throws Exception {
            String sql = id < 0 ? "bad order " + id : "select * from orders where id = " + id;
            return pool.query(sql);
        }
    }

    public static void main(String[] args) {
        CodeExercises.guardThePool(args, Orders::new);
    }
}
