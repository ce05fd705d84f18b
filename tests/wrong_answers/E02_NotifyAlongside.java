///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//DEPS io.projectreactor:reactor-core:3.7.13
// The check's machinery (helpers/unpinned/chapters/CodeExercises.java and what it uses): leave these lines as they are.
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
 * A wrong answer to exercise 02.wait-for-it, kept to show that its check fails it with a hint.
 *
 * Saving and telling shipping at once, with the name guessed from the id: it completes after both,
 * but shipping hears of an order that may never be saved.
 *
 * hint: shipping was told before the order had been saved
 */

import reactor.core.publisher.Mono;
import unpinned.chapters.CodeExercises;

public class E02_NotifyAlongside {

    static Mono<String> placeOrder(String id, CodeExercises.Shop shop) {
        return Mono.when(shop.save(id), shop.notifyShipping("order-" + id))
                .thenReturn("order-" + id);
    }

    public static void main(String[] args) {
        CodeExercises.waitForIt(args, E02_NotifyAlongside::placeOrder);
    }
}
