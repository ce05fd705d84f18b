///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//DEPS io.projectreactor:reactor-core:3.7.13
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../helpers/unpinned/course/CodeExercises.java

/*
 * Worked solution to exercise 02.wait-for-it (notebooks/02-reactive-and-one-service-three-ways.ipynb):
 * try it there first.
 *
 * placeOrder saves an order, then tells shipping. It looks fine and even works most of the time, but
 * the notification is fired and forgotten: subscribe() inside doOnSuccess starts it on the side, so the
 * Mono placeOrder returns completes before shipping has been told, and if telling shipping fails,
 * nobody hears of it (Reactor drops the error).
 *
 * Your task: rewrite placeOrder so its Mono completes, with the saved order's name, only once shipping
 * has been told, and fails when telling shipping fails. It must stay reactive: nothing happens before
 * someone subscribes, and subscribing never blocks. Change only placeOrder.
 *
 * Check it: CodeExercises.check("02.wait-for-it") in the notebook, or
 *   tools/jbang exercises/E02_WaitForIt.java --check
 * It hands placeOrder a shop whose save takes 150 ms and whose notification takes 100 ms (and fails
 * for an order named "...-bad"), and counts what ran when, in a JVM of its own under BlockHound, which
 * reports any thread that blocks in placeOrder's code (a scheduler made for blocking included).
 */

import reactor.core.publisher.Mono;
import unpinned.course.CodeExercises;

public class E02_WaitForIt {

    static Mono<String> placeOrder(String id, CodeExercises.Shop shop) {
        // The notification becomes part of the chain: flatMap subscribes to it when the save has emitted,
        // and the chain goes on (with the order's name) only when it completes; its error flows down.
        return shop.save(id)
                .flatMap(order -> shop.notifyShipping(order).thenReturn(order));
    }

    public static void main(String[] args) {
        CodeExercises.waitForIt(args, E02_WaitForIt::placeOrder);
    }
}
