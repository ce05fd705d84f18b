///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
// jdk.internal.vm.Continuation is internal: javac refuses --add-exports together with --release, so
// this file compiles for the course JDK.
//JAVAC_OPTIONS --add-exports java.base/jdk.internal.vm=ALL-UNNAMED
//RUNTIME_OPTIONS --add-exports java.base/jdk.internal.vm=ALL-UNNAMED
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../../helpers/unpinned/course/CodeExercises.java

/*
 * A wrong answer to exercise 03.round-robin, kept to show that its check fails it with a hint.
 *
 * A task goes back in line whether it finished or not: the next turn of a finished one fails.
 *
 * hint: IllegalStateException
 * hint: was thrown while runAll ran the tasks
 * hint: E03_RunsFinishedTasks.runAll
 */

import jdk.internal.vm.Continuation;
import jdk.internal.vm.ContinuationScope;
import unpinned.course.CodeExercises;

import java.util.ArrayDeque;

public class E03_RunsFinishedTasks implements CodeExercises.TinyScheduler {
    private final ContinuationScope scope = new ContinuationScope("round-robin");
    private final ArrayDeque<Continuation> ready = new ArrayDeque<>();

    @Override
    public void submit(Runnable task) {
        ready.add(new Continuation(scope, task));
    }

    @Override
    public void runAll() {
        Continuation next;
        while ((next = ready.poll()) != null) {
            next.run();
            ready.add(next);
        }
    }

    @Override
    public void pause() {
        Continuation.yield(scope);
    }

    public static void main(String[] args) {
        CodeExercises.roundRobin(args, E03_RunsFinishedTasks::new);
    }
}
