///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
// jdk.internal.vm.Continuation is internal: javac refuses --add-exports together with --release, so
// this file compiles for the course JDK.
//JAVAC_OPTIONS --add-exports java.base/jdk.internal.vm=ALL-UNNAMED
//RUNTIME_OPTIONS --add-exports java.base/jdk.internal.vm=ALL-UNNAMED
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../../helpers/unpinned/course/CodeExercises.java

/*
 * A hostile answer to exercise 03.round-robin, kept to show that its check fails it with a hint.
 *
 * runAll goes round the line for ever, finished tasks and all: the check must stop it at its limit,
 * and stop with the JVM that started it.
 *
 * hint: the check was stopped at its limit of 15 s, while runAll ran the tasks
 * hint: E03_NeverReturns.runAll
 */

import jdk.internal.vm.Continuation;
import jdk.internal.vm.ContinuationScope;
import unpinned.course.CodeExercises;

import java.util.ArrayDeque;

public class E03_NeverReturns implements CodeExercises.TinyScheduler {
    private final ContinuationScope scope = new ContinuationScope("round-robin");
    private final ArrayDeque<Continuation> ready = new ArrayDeque<>();

    @Override
    public void submit(Runnable task) {
        ready.add(new Continuation(scope, task));
    }

    @Override
    public void runAll() {
        while (!ready.isEmpty()) {
            Continuation next = ready.peek();
            if (!next.isDone()) next.run();
        }
    }

    @Override
    public void pause() {
        Continuation.yield(scope);
    }

    public static void main(String[] args) {
        CodeExercises.roundRobin(args, E03_NeverReturns::new);
    }
}
