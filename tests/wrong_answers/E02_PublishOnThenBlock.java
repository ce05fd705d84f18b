///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//DEPS io.projectreactor:reactor-core:3.7.13
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../../helpers/unpinned/course/CodeExercises.java

/*
 * A wrong answer to exercise 02.wait-for-it, kept to show that its check fails it with a hint.
 *
 * The save composed, then a hop to the scheduler for blocking work to wait for the notification
 * there.
 *
 * hint: a thread blocked in placeOrder's code
 * hint: on boundedElastic-
 */

import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import unpinned.course.CodeExercises;

public class E02_PublishOnThenBlock {

    static Mono<String> placeOrder(String id, CodeExercises.Shop shop) {
        return shop.save(id)
                .publishOn(Schedulers.boundedElastic())
                .map(order -> {
                    shop.notifyShipping(order).block();
                    return order;
                });
    }

    public static void main(String[] args) {
        CodeExercises.waitForIt(args, E02_PublishOnThenBlock::placeOrder);
    }
}
