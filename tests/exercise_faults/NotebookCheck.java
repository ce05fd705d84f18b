///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
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
 * A stand-in for a notebook's kernel: it checks one copy of a code exercise the way a notebook cell does
 * (CodeExercises.passes: the check in a JVM of its own, the verdict taken from the check, not from what
 * the code printed), prints what the cell would show, then "passes=true" or "passes=false".
 *
 *   tools/jbang tests/exercise_faults/NotebookCheck.java 07.guard-the-pool tests/exercise_faults/E07_FakesItsVerdict.java
 */

import unpinned.chapters.CodeExercises;

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
