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
 * The property that does it for Tomcat, and nothing else: the flag, not the code, and each order
 * still makes its calls one after the other.
 *
 * hint: spring.threads.virtual.enabled is on
 * hint: made their two calls one after the other
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

@SpringBootConfiguration
@EnableAutoConfiguration
@Import(E06_PropertyOnly.Endpoints.class)
public class E06_PropertyOnly {

    static final Map<String, Object> PROPERTIES = Map.of(
            "server.tomcat.threads.max", 4,
            "spring.threads.virtual.enabled", true);

    @RestController
    public static class Endpoints {
        private final CodeExercises.Backend backend;

        Endpoints(CodeExercises.Backend backend) {
            this.backend = backend;
        }

        @GetMapping(value = "/order", produces = "text/plain")
        public String order(@RequestParam("id") int id) throws Exception {
            String price = backend.price(id);
            String stock = backend.stock(id);
            return "order " + id + ": " + price + ", " + stock;
        }
    }

    public static void main(String[] args) {
        CodeExercises.virtualTomcat(args, (port, checkBeans) -> {
            Map<String, Object> properties = new HashMap<>(PROPERTIES);
            properties.putAll(Map.of("server.address", "127.0.0.1", "server.port", port,
                    "spring.main.banner-mode", "off", "logging.level.root", "error"));
            SpringApplication app = new SpringApplication(E06_PropertyOnly.class);
            app.setDefaultProperties(properties);
            app.addInitializers(context -> checkBeans.forEach(context.getBeanFactory()::registerSingleton));
            return app.run();
        });
    }
}
