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
 * The pitfall: a blocking call inside a reactive chain compiles, runs and passes every functional
 * test; it only shows under load, when the few event loops that serve every connection sit blocked
 * and throughput collapses to (event loops) / (blocking time). S06's reactive-blocking variant does
 * exactly that: Mono.fromCallable(() -> priceService(id)) looks reactive, but without subscribeOn it
 * runs Thread.sleep on the event loop that subscribed to it.
 *
 * BlockHound (io.projectreactor.tools:blockhound, a Java agent installed at start-up) instruments the
 * JDK's blocking methods (sleep, socket reads, locks...) and throws BlockingOperationError when one runs
 * on a thread marked non-blocking: Reactor's parallel schedulers and Netty's event loops. The order
 * fails on its first request, with the offending call in the stack trace, long before any load test.
 *
 * Every option of S06 works here; BlockHound is installed before the server starts.
 */

import reactor.blockhound.BlockHound;

public class S08_OrderServiceBlockHound {
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
 * What you should see: HTTP 500 and a stack trace that starts with
 *   reactor.blockhound.BlockingOperationError: Blocking call! java.lang.Thread.sleep...
 * and names S06_OrderService.priceService and the event-loop thread (reactor-http-epoll-N or -nio-N).
 * The same request to --impl reactive answers 200: Mono.delay waits without blocking anything.
 */
