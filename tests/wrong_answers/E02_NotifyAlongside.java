///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//DEPS io.projectreactor:reactor-core:3.7.13
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../../helpers/unpinned/course/CodeExercises.java

/*
 * A wrong answer to exercise 02.wait-for-it, kept to show that its check fails it with a hint.
 *
 * Saving and telling shipping at once, with the name guessed from the id: it completes after both,
 * but shipping hears of an order that may never be saved.
 *
 * hint: shipping was told before the order had been saved
 */

import reactor.core.publisher.Mono;
import unpinned.course.CodeExercises;

public class E02_NotifyAlongside {

    static Mono<String> placeOrder(String id, CodeExercises.Shop shop) {
        return Mono.when(shop.save(id), shop.notifyShipping("order-" + id))
                .thenReturn("order-" + id);
    }

    public static void main(String[] args) {
        CodeExercises.waitForIt(args, E02_NotifyAlongside::placeOrder);
    }
}
