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
 * Every task run once, to its first pause: the turns are fair, and runAll returns with every
 * longer task unfinished.
 *
 * hint: runAll returned with tasks unfinished
 */

import jdk.internal.vm.Continuation;
import jdk.internal.vm.ContinuationScope;
import unpinned.course.CodeExercises;

import java.util.ArrayDeque;

public class E03_OneStepEach implements CodeExercises.TinyScheduler {
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
        }
    }

    @Override
    public void pause() {
        Continuation.yield(scope);
    }

    public static void main(String[] args) {
        CodeExercises.roundRobin(args, E03_OneStepEach::new);
    }
}
