///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
// BlockHound rewrites JDK classes at run time: JDK 13+ needs AllowRedefinitionToAddDeleteMethods (it
// prints a deprecation warning), and JDK 21+ wants dynamically loaded agents announced.
//RUNTIME_OPTIONS --enable-native-access=ALL-UNNAMED -XX:+AllowRedefinitionToAddDeleteMethods -XX:+EnableDynamicAgentLoading
//DEPS io.projectreactor.tools:blockhound:1.0.17.RELEASE
//SOURCES S06_OrderService.java
package unpinned.snippets;

/*
 * S08: the order service (S06) with BlockHound watching its non-blocking threads.
 *
 * The question: does the order chain block an event loop? BlockHound answers on the first request.
 * The bound: a blocked event loop caps throughput at (event loops) / (blocking time).
 * The pitfall: Mono.fromCallable(() -> priceService(id)) without subscribeOn looks reactive, passes
 * every functional test, and runs Thread.sleep on the event loop that subscribed to it.
 */

import reactor.blockhound.BlockHound;

public class S08_OrderServiceBlockHound {
    /**
     * BlockHound (a Java agent installed at start-up) instruments the JDK's blocking methods (sleep, socket
     * reads, locks...) and throws BlockingOperationError when one runs on a thread marked non-blocking:
     * Reactor's parallel schedulers and Netty's event loops. Every option of S06 works here.
     */
    public static void main(String[] args) throws Exception {
        BlockHound.install(); // loads the agent; from now on a blocking call on a non-blocking thread throws
        System.out.println("BlockHound installed: blocking calls on event loops and parallel schedulers throw");
        S06_OrderService.main(args); // announces the Profile, parses the options and serves
    }
}

/*
 * How to run:
 *   tools/jbang order-service-blockhound --impl reactive-blocking --port 8080      (until Ctrl-C)
 *   curl -i 'http://127.0.0.1:8080/order?id=42'
 *
 * What you should see: HTTP 500 with a BlockingOperationError naming S06_OrderService.priceService;
 * --impl reactive answers 200. Reference runs: data/reference-runs/snippets/S08-order-service-blockhound.md
 */
