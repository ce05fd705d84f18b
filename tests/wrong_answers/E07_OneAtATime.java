///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
// The check's machinery (helpers/unpinned/chapters/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../../helpers/unpinned/chapters/CodeExercises.java
//SOURCES ../../helpers/unpinned/running/Jdks.java
//SOURCES ../../helpers/unpinned/running/ChildRun.java
//SOURCES ../../helpers/unpinned/core/Cli.java
//SOURCES ../../helpers/unpinned/core/Course.java
//SOURCES ../../helpers/unpinned/core/Json.java
//SOURCES ../../helpers/unpinned/core/Machine.java
//SOURCES ../../helpers/unpinned/core/Measurement.java
//SOURCES ../../helpers/unpinned/core/Profile.java
//SOURCES ../../helpers/unpinned/core/Protocol.java
//SOURCES ../../helpers/unpinned/core/Results.java
//SOURCES ../../helpers/unpinned/core/RunGuard.java
//SOURCES ../../helpers/unpinned/core/Show.java
//SOURCES ../../helpers/unpinned/core/Busy.java

/*
 * A wrong answer to exercise 07.guard-the-pool, kept to show that its check fails it with a hint.
 *
 * order() made synchronized instead of guarded: nobody times out, but one query runs at a time.
 *
 * hint: at most 1 of 4 connections were in use at once
 */

import unpinned.chapters.CodeExercises;

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
