///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//RUNTIME_OPTIONS -Xmx256m
//DEPS org.springframework.boot:spring-boot-dependencies:4.1.1@pom
//DEPS org.springframework.boot:spring-boot-starter-webmvc:4.1.1
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../helpers/unpinned/course/CodeExercises.java

/*
 * Worked solution to exercise 06.virtual-tomcat (notebooks/06-spring-boot.ipynb): try it there first.
 *
 * A Spring Boot service whose GET /order?id=N asks two slow dependencies (the check's Backend: price
 * and stock, 200 ms each) one after the other, on Tomcat's 4 platform threads: an order takes 400 ms,
 * and 24 users at once wait in turns, 4 at a time.
 *
 * Your task: write the code that puts it all on virtual threads, what spring.threads.virtual.enabled
 * would do for you (the check reads that property and server.tomcat.threads.max back from the running
 * app: keep them as they are, off and 4):
 *   - every request runs on a virtual thread of its own: give Tomcat an executor (a bean of
 *     org.springframework.boot.tomcat.TomcatProtocolHandlerCustomizer, whose customize(handler) can
 *     call handler.setExecutor(...));
 *   - every order asks price and stock at once, each on a virtual thread of its own, and answers when
 *     both are back: an order takes one call's time.
 * Keep main as it is: it registers the check's beans (its Backend, and a filter that sees which thread
 * runs each request).
 *
 * Check it: CodeExercises.check("06.virtual-tomcat") in the notebook, or
 *   tools/jbang exercises/E06_VirtualTomcat.java --check
 * It starts this app on a free port of 127.0.0.1, reads the two properties, warms the app up with a
 * few requests, then sends 24 at once: its filter records the thread of every request and its Backend
 * the thread and the time of every call. Then it stops the app.
 */

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.tomcat.TomcatProtocolHandlerCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import unpinned.course.CodeExercises;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

@SpringBootConfiguration
@EnableAutoConfiguration
@Import(E06_VirtualTomcat.Endpoints.class)
public class E06_VirtualTomcat {

    static final Map<String, Object> PROPERTIES = Map.of(
            "server.tomcat.threads.max", 4,
            "spring.threads.virtual.enabled", false);

    /**
     * What spring.threads.virtual.enabled does for Tomcat, written out: its requests go to an executor
     * that starts a new virtual thread for each one. server.tomcat.threads.max then sizes a pool Tomcat no
     * longer uses for requests.
     */
    @Bean
    TomcatProtocolHandlerCustomizer<?> requestsOnVirtualThreads() {
        return handler -> handler.setExecutor(Executors.newVirtualThreadPerTaskExecutor());
    }

    @RestController
    public static class Endpoints {
        private final CodeExercises.Backend backend;

        Endpoints(CodeExercises.Backend backend) {
            this.backend = backend;
        }

        @GetMapping(value = "/order", produces = "text/plain")
        public String order(@RequestParam("id") int id) throws Exception {
            // Both calls at once, each on a virtual thread of its own; the request's (virtual) thread
            // waits for the two, and close() waits for both to end, also when one failed.
            try (var calls = Executors.newVirtualThreadPerTaskExecutor()) {
                Future<String> price = calls.submit(() -> backend.price(id));
                Future<String> stock = calls.submit(() -> backend.stock(id));
                return "order " + id + ": " + price.get() + ", " + stock.get();
            }
        }
    }

    public static void main(String[] args) {
        CodeExercises.virtualTomcat(args, (port, checkBeans) -> {
            Map<String, Object> properties = new HashMap<>(PROPERTIES);
            properties.putAll(Map.of("server.address", "127.0.0.1", "server.port", port,
                    "spring.main.banner-mode", "off", "logging.level.root", "error"));
            SpringApplication app = new SpringApplication(E06_VirtualTomcat.class);
            app.setDefaultProperties(properties);
            app.addInitializers(context -> checkBeans.forEach(context.getBeanFactory()::registerSingleton));
            return app.run();
        });
    }
}
