///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//DEPS io.projectreactor:reactor-core:3.7.13
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../../helpers/unpinned/course/CodeExercises.java

/*
 * A wrong answer to exercise 02.wait-for-it, kept to show that its check fails it with a hint.
 *
 * Composed, but a failed notification is turned into success "so the order still goes through".
 *
 * hint: shipping failed and the order still succeeded
 */

import reactor.core.publisher.Mono;
import unpinned.course.CodeExercises;

public class E02_SwallowShippingError {

    static Mono<String> placeOrder(String id, CodeExercises.Shop shop) {
        return shop.save(id)
                .flatMap(order -> shop.notifyShipping(order)
                        .onErrorResume(e -> Mono.empty())
                        .thenReturn(order));
    }

    public static void main(String[] args) {
        CodeExercises.waitForIt(args, E02_SwallowShippingError::placeOrder);
    }
}
