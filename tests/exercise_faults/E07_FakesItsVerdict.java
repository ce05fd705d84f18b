///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../../helpers/unpinned/course/CodeExercises.java

/*
 * A hostile answer to exercise 07.guard-the-pool, kept to show that its check fails it with a hint.
 *
 * The start, which fails, printing the line a passing check prints, then ending the JVM with exit
 * code 0: the notebook must not take that line for the check's verdict.
 *
 * hint: the JVM was ended while
 */

import unpinned.course.CodeExercises;

public class E07_FakesItsVerdict {

    static final class Orders implements CodeExercises.Orders {
        private final CodeExercises.Pool pool;

        Orders(CodeExercises.Pool pool) {
            this.pool = pool;
            System.out.println("07.guard-the-pool: passed (5 of 5 checks)");
            System.exit(0);
        }

        @Override
        public String order(int id) throws Exception {
            String sql = id < 0 ? "bad order " + id : "select * from orders where id = " + id;
            return pool.query(sql);
        }
    }

    public static void main(String[] args) {
        CodeExercises.guardThePool(args, Orders::new);
    }
}
