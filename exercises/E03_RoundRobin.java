///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
// jdk.internal.vm.Continuation is internal: javac refuses --add-exports together with --release, so
// this file compiles for the course JDK.
//JAVAC_OPTIONS --add-exports java.base/jdk.internal.vm=ALL-UNNAMED
//RUNTIME_OPTIONS --add-exports java.base/jdk.internal.vm=ALL-UNNAMED
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../helpers/unpinned/course/CodeExercises.java

/*
 * Exercise 03.round-robin (notebooks/03-what-a-virtual-thread-is.ipynb).
 *
 * A scheduler in the spirit of the notebook's one-thread scheduler: each task is a Continuation, run on
 * the thread that calls runAll(); a task calls pause() to stop and let the others run. This one is
 * unfair: runAll() gives a task back the thread until it ends, so the others wait for all of it.
 *
 * Your task: make runAll() fair, so tasks take turns, one step each, and a task submitted while runAll()
 * runs gets its turns too. Everything still runs on the thread that called runAll().
 *
 * Check it: CodeExercises.check("03.round-robin") in the notebook, or
 *   tools/jbang exercises/E03_RoundRobin.java --check
 * It submits four tasks of 4, 4, 1 and 6 steps (the first submits a fifth one on its way), each logging
 * a step and pausing, and reads the log: every step ran, on the caller's thread, none more than one
 * step ahead of another unfinished task.
 */

import jdk.internal.vm.Continuation;
import jdk.internal.vm.ContinuationScope;
import unpinned.course.CodeExercises;

import java.util.ArrayDeque;

public class E03_RoundRobin implements CodeExercises.TinyScheduler {
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
            while (!next.isDone()) {
                next.run();            // returns when the task pauses or ends
            }
        }
    }

    @Override
    public void pause() {
        Continuation.yield(scope);     // back to the run() call in runAll
    }

    public static void main(String[] args) {
        CodeExercises.roundRobin(args, E03_RoundRobin::new);
    }
}
