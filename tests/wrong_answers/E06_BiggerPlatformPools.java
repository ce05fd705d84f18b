///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//RUNTIME_OPTIONS -Xmx256m
//DEPS org.springframework.boot:spring-boot-dependencies:4.1.1@pom
//DEPS org.springframework.boot:spring-boot-starter-webmvc:4.1.1
// The check's machinery (helpers/unpinned/course/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../../helpers/unpinned/course/CodeExercises.java

/*
 * A wrong answer to exercise 06.virtual-tomcat, kept to show that its check fails it with a hint.
 *
 * Platform threads, more of them: Tomcat allowed 48 and the calls made on a fixed pool of 48, and
 * the answer says "virtual" for good measure. Fast enough, and nothing runs on a virtual thread.
 *
 * hint: server.tomcat.threads.max is 48, not 4
 * hint: requests ran on platform threads
 * hint: calls to price and stock ran on platform threads
 */

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import unpinned.course.CodeExercises;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

@SpringBootConfiguration
@EnableAutoConfiguration
@Import(E06_BiggerPlatformPools.Endpoints.class)
public class E06_BiggerPlatformPools {

    static final Map<String, Object> PROPERTIES = Map.of(
            "server.tomcat.threads.max", 48,
            "spring.threads.virtual.enabled", false);

    static final ExecutorService CALLS = Executors.newFixedThreadPool(48);

    @RestController
    public static class Endpoints {
        private final CodeExercises.Backend backend;

        Endpoints(CodeExercises.Backend backend) {
            this.backend = backend;
        }

        @GetMapping(value = "/order", produces = "text/plain")
        public String order(@RequestParam("id") int id) throws Exception {
            Future<String> price = CALLS.submit(() -> backend.price(id));
            Future<String> stock = CALLS.submit(() -> backend.stock(id));
            return "order " + id + ": " + price.get() + ", " + stock.get() + " (virtual)";
        }
    }

    public static void main(String[] args) {
        CodeExercises.virtualTomcat(args, (port, checkBeans) -> {
            Map<String, Object> properties = new HashMap<>(PROPERTIES);
            properties.putAll(Map.of("server.address", "127.0.0.1", "server.port", port,
                    "spring.main.banner-mode", "off", "logging.level.root", "error"));
            SpringApplication app = new SpringApplication(E06_BiggerPlatformPools.class);
            app.setDefaultProperties(properties);
            app.addInitializers(context -> checkBeans.forEach(context.getBeanFactory()::registerSingleton));
            return app.run();
        });
    }
}
