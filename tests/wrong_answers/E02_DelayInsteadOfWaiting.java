///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//DEPS io.projectreactor:reactor-core:3.7.13
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../../helpers/unpinned/course/CodeExercises.java

/*
 * A wrong answer to exercise 02.wait-for-it, kept to show that its check fails it with a hint.
 *
 * Still fired and forgotten, with a delay long enough for shipping to be told "in practice".
 *
 * hint: shipping failed and the order still succeeded
 */

import reactor.core.publisher.Mono;

import java.time.Duration;
import unpinned.course.CodeExercises;

public class E02_DelayInsteadOfWaiting {

    static Mono<String> placeOrder(String id, CodeExercises.Shop shop) {
        return shop.save(id)
                .doOnSuccess(order -> shop.notifyShipping(order).subscribe())
                .delayElement(Duration.ofMillis(200));
    }

    public static void main(String[] args) {
        CodeExercises.waitForIt(args, E02_DelayInsteadOfWaiting::placeOrder);
    }
}
