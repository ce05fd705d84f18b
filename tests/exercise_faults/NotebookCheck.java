///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../../helpers/unpinned/course/CodeExercises.java

/*
 * A stand-in for a notebook's kernel: it checks one copy of a code exercise the way a notebook cell does
 * (CodeExercises.passes: the check in a JVM of its own, the verdict taken from the check, not from what
 * the code printed), prints what the cell would show, then "passes=true" or "passes=false".
 *
 *   tools/jbang tests/exercise_faults/NotebookCheck.java 07.guard-the-pool tests/exercise_faults/E07_FakesItsVerdict.java
 */

import unpinned.course.CodeExercises;

import java.nio.file.Path;

public class NotebookCheck {
    public static void main(String[] args) {
        if (args.length != 2) {
            System.err.println("NotebookCheck: give an exercise id and a file, e.g. 07.guard-the-pool exercises/E07_GuardThePool.java");
            System.exit(2);
        }
        System.out.println("passes=" + CodeExercises.passes(args[0], Path.of(args[1])));
    }
}
