///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//RUNTIME_OPTIONS -Xmx256m
//DEPS org.springframework.boot:spring-boot-dependencies:4.1.1@pom
//DEPS org.springframework.boot:spring-boot-starter-webmvc:4.1.1
// The check's machinery (helpers/unpinned/chapters/CodeExercises.java and what it uses): leave these lines as they are.
//SOURCES ../helpers/unpinned/chapters/CodeExercises.java
//SOURCES ../helpers/unpinned/running/Jdks.java
//SOURCES ../helpers/unpinned/running/ChildRun.java
//SOURCES ../helpers/unpinned/core/Cli.java
//SOURCES ../helpers/unpinned/core/Course.java
//SOURCES ../helpers/unpinned/core/Json.java
//SOURCES ../helpers/unpinned/core/Machine.java
//SOURCES ../helpers/unpinned/core/Measurement.java
//SOURCES ../helpers/unpinned/core/Profile.java
//SOURCES ../helpers/unpinned/core/Protocol.java
//SOURCES ../helpers/unpinned/core/Results.java
//SOURCES ../helpers/unpinned/core/RunGuard.java
//SOURCES ../helpers/unpinned/core/Show.java
//SOURCES ../helpers/unpinned/core/Busy.java

/*
 * Worked solution to exercise 06.virtual-tomcat (notebooks/06-spring-boot.ipynb): try it there first.
 *
 * A Spring Boot service whose GET /order asks two slow dependencies at once (200 ms each, on an
 * executor of its own) and answers with the kind of thread that handled the request and the kind that
 * ran the two calls. Tomcat has 4 threads, the executor 4 more: 24 users at once wait in turns.
 *
 * Your task: make every request and every call of the fan-out run on a virtual thread, so that 24
 * requests at once take about one request's time. Keep the 4 Tomcat threads in PROPERTIES (with
 * virtual threads Tomcat no longer uses them for requests) and keep the endpoint's code as it is.
 *
 * Check it: CodeExercises.check("06.virtual-tomcat") in the notebook, or
 *   tools/jbang exercises/E06_VirtualTomcat.java --check
 * It starts this app on a free port of 127.0.0.1, reads what /order says about its threads, and
 * times 24 requests at once (after a first burst that warms the app up); then it stops the app.
 */

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import unpinned.chapters.CodeExercises;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

@SpringBootConfiguration
@EnableAutoConfiguration
@Import(E06_VirtualTomcat.Endpoints.class)
public class E06_VirtualTomcat {

    static final Map<String, Object> PROPERTIES = Map.of(
            "server.tomcat.threads.max", 4,
            "spring.threads.virtual.enabled", true);   // Tomcat runs each request on a new virtual thread

    /**
     * The executor /order fans out on: a new virtual thread per call. The property above covers Tomcat
     * (and Spring's own task executor and scheduler), not an executor the application makes itself.
     */
    @Bean(destroyMethod = "shutdownNow")
    ExecutorService fanOut() {
        return Executors.newVirtualThreadPerTaskExecutor();
    }

    @RestController
    public static class Endpoints {
        private final ExecutorService fanOut;

        Endpoints(ExecutorService fanOut) {
            this.fanOut = fanOut;
        }

        @GetMapping(value = "/order", produces = "text/plain")
        public String order() throws Exception {
            Future<String> price = fanOut.submit(() -> call("price"));
            Future<String> stock = fanOut.submit(() -> call("stock"));
            return "request=" + kind() + " fan-out=" + price.get() + "," + stock.get();
        }

        static String call(String what) throws InterruptedException {
            Thread.sleep(200);                     // a slow dependency: the thread waits
            return kind();
        }

        static String kind() {
            return Thread.currentThread().isVirtual() ? "virtual" : "platform";
        }
    }

    public static void main(String[] args) {
        CodeExercises.virtualTomcat(args, port -> {
            Map<String, Object> properties = new HashMap<>(PROPERTIES);
            properties.putAll(Map.of("server.address", "127.0.0.1", "server.port", port,
                    "spring.main.banner-mode", "off", "logging.level.root", "error"));
            SpringApplication app = new SpringApplication(E06_VirtualTomcat.class);
            app.setDefaultProperties(properties);
            return app.run();
        });
    }
}
