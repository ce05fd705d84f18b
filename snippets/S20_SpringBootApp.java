///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21 -parameters
// A heap cap: under load with the default heap (a quarter of the machine's memory) the process grows to GBs.
// 512 MB is what the JDK 25 post fixed its heap at for its resource test. //CDS: the first run leaves a class-data
// archive next to JBang's jar, so later starts take ~2 s instead of ~4 (-Xlog:cds*=off: without its 100 warnings).
//RUNTIME_OPTIONS -Xmx512m -Xlog:cds*=off
//CDS
// Spring Boot's bill of materials pins every Spring, Tomcat, Jackson and Micrometer version to this release.
//DEPS org.springframework.boot:spring-boot-dependencies:4.1.1@pom
//DEPS org.springframework.boot:spring-boot-starter-webmvc:4.1.1
//DEPS org.springframework.boot:spring-boot-starter-actuator:4.1.1
//SOURCES ../helpers/unpinned/running/ServerControl.java
//SOURCES ../helpers/unpinned/workloads/SleepServer.java
//SOURCES ../helpers/unpinned/running/SpringArgs.java
package unpinned.snippets;

/*
 * S20: a real Spring Boot service (Spring MVC on embedded Tomcat, with Actuator), for chapter 06.
 * The question: does what the course's small HttpServer showed hold in the framework people run, where one
 * property (spring.threads.virtual.enabled) moves request handling from Tomcat's pool (server.tomcat.threads.max,
 * 200 by default) to a virtual thread per request? Endpoints on 127.0.0.1: /sleep, /io, /cpu, Actuator's metrics,
 * and one @Async probe (see Endpoints, AsyncProbe).
 * The bound (Little's law): throughput <= min(users, concurrency) / S, concurrency the pool's size on the pool and
 * the users on virtual threads; /cpu: cores / CPU seconds per request, for either.
 * The pitfall: server.tomcat.threads.max is a silent ceiling: requests queue in Tomcat and latency grows to
 * users / throughput; the default heap grows to GBs under load, so -Xmx512m above.
 * Standalone with Spring's --name=value arguments, or under the course's server protocol (--port 0 --control),
 * as S21 does; stops on "stop", at the end of its input and on SIGTERM.
 */

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpStatus;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.ResponseStatusException;
import unpinned.running.ServerControl;
import unpinned.workloads.SleepServer;
import unpinned.running.SpringArgs;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

@SpringBootConfiguration(proxyBeanMethods = false)
@EnableAutoConfiguration
@EnableAsync
@Import({S20_SpringBootApp.Endpoints.class, S20_SpringBootApp.AsyncProbe.class})
public class S20_SpringBootApp {
    /**
     * The endpoints: plain blocking Spring MVC code, the same on a pool and on virtual threads. /sleep?ms=100: one
     * blocking sleep (sunwon12's pull request: 100 ms; the JDK 25 post: 1,000 ms); /io?ms=500: two sleeps (the
     * seminar write-up's I/O endpoint); /cpu?n=N: adds up 1..N twice, never blocks (the seminar's N = 100,000,000).
     */
    @RestController
    public static class Endpoints {
        @GetMapping(value = "/sleep", produces = "text/plain")
        public String sleep(@RequestParam(name = "ms", defaultValue = "100") long ms) {
            check("ms", ms, 0, MAX_SLEEP_MS);
            return counted(() -> {
                Thread.sleep(ms);          // a slow query or remote call: the thread waits
                return "ok\n";
            });
        }

        @GetMapping(value = "/io", produces = "text/plain")
        public String io(@RequestParam(name = "ms", defaultValue = "500") long ms) {
            check("ms", ms, 0, MAX_SLEEP_MS / 2);
            return counted(() -> {
                Thread.sleep(ms);          // first call
                Thread.sleep(ms);          // second call
                return "ok\n";
            });
        }

        @GetMapping(value = "/cpu", produces = "text/plain")
        public String cpu(@RequestParam(name = "n", defaultValue = "" + DEFAULT_SUM_TO) long n) {
            check("n", n, 1, SleepServer.MAX_SUM_TO);
            return counted(() -> {
                long sum = unpinned.workloads.Work.sumTwice(n); // never blocks: a carrier (or a pool thread) computes all of it
                if (sum < 0) throw new InterruptedException("stopping");
                return sum + "\n";
            });
        }
    }

    /**
     * An @Async method: Spring runs it on the application's task executor, which the same property switches to
     * virtual threads (the JDK 25 post's first point). It says which kind of thread it ran on.
     */
    public static class AsyncProbe {
        @Async
        public CompletableFuture<Boolean> onVirtualThread() {
            return CompletableFuture.completedFuture(Thread.currentThread().isVirtual());
        }
    }

    interface Work {
        String run() throws InterruptedException;
    }

    /**
     * Runs a request's work, counting it: how many ran at once (at most the pool's size on a pool) and where. A stop
     * interrupts the requests still running: they answer 503 (not a logged stack trace each).
     */
    static String counted(Work work) {
        PEAK.accumulateAndGet(IN_FLIGHT.incrementAndGet(), Math::max);
        try {
            String answer = work.run();
            HANDLED.incrementAndGet();
            if (Thread.currentThread().isVirtual()) ON_VIRTUAL_THREADS.incrementAndGet();
            return answer;
        } catch (InterruptedException e) {
            throw new ResponseStatusException(HttpStatus.SERVICE_UNAVAILABLE, "the server is stopping");
        } finally {
            IN_FLIGHT.decrementAndGet();
        }
    }

    static final String USAGE = """
            usage: S20_SpringBootApp [--spring.property=value ...] [--port N] [--control]
              Spring's own properties, as --name=value, for example:
              --spring.threads.virtual.enabled=true|false   virtual threads or Tomcat's pool (default false)
              --server.tomcat.threads.max=N                 Tomcat's pool size, 1..10000 (default 200)
              --server.port=N                               0 (any free port, printed) or 1..65535 (default 8080)
              --port N        the same as --server.port=N (the course's servers all take it)
              --control       read commands on standard input (stats, stop); used by the course's ServerProcess
            It binds 127.0.0.1 only (server.address can't be changed); Actuator shares its port. It is always a
            servlet web server (spring.main.web-application-type can't be set).""";

    static final long MAX_SLEEP_MS = 60_000;
    static final int MAX_TOMCAT_THREADS = 10_000;
    static final int DEFAULT_PORT = 8080;
    static final long DEFAULT_SUM_TO = 1_000_000;

    static final AtomicLong HANDLED = new AtomicLong();
    static final AtomicLong ON_VIRTUAL_THREADS = new AtomicLong();
    static final AtomicInteger IN_FLIGHT = new AtomicInteger();
    static final AtomicInteger PEAK = new AtomicInteger();
    static volatile long readyNanos;

    static void check(String name, long value, long min, long max) {
        if (value < min || value > max) {
            throw new ResponseStatusException(HttpStatus.BAD_REQUEST,
                    String.format(Locale.ROOT, "%s must be %,d..%,d, got %d", name, min, max, value));
        }
    }

    /** S20's own rules over Spring's properties: always a servlet web server; a small pool gets a small minimum. */
    static SpringArgs rules(SpringArgs s) {
        // A web server, always: another application type (none, reactive) would start without one
        s.refuse("spring.main.web-application-type", "S20 (servlet: it is a web server)");
        s = s.with("spring.main.web-application-type", "servlet");
        Map<String, String> properties = s.properties();
        String virtual = properties.get("spring.threads.virtual.enabled");
        if (virtual != null && !virtual.equals("true") && !virtual.equals("false")) {
            throw new IllegalArgumentException("--spring.threads.virtual.enabled must be true or false; got '"
                    + virtual + "'");
        }
        String max = properties.get("server.tomcat.threads.max");
        int threads = max == null ? 200 : SpringArgs.whole("--server.tomcat.threads.max", max, 1, MAX_TOMCAT_THREADS);
        // Tomcat keeps min-spare threads (10 by default) ready; a smaller pool needs a smaller minimum.
        if (threads < 10 && !properties.containsKey("server.tomcat.threads.min-spare")) {
            s = s.with("server.tomcat.threads.min-spare", "" + threads);
        }
        return s;
    }

    /**
     * The three metrics the JDK 25 post read from /actuator/metrics, from the same Micrometer registry that endpoint
     * reads: over the control channel a reading right after the load doesn't queue behind the requests still
     * waiting for one of Tomcat's threads (200 users on 10 threads of 1 s each: 20 s).
     */
    static Map<String, Double> actuatorMetrics(MeterRegistry registry) {
        Map<String, Double> m = new LinkedHashMap<>();
        m.put("jvmThreadsLive", registry.get("jvm.threads.live").gauge().value());
        m.put("heapUsedMb", registry.get("jvm.memory.used").tag("area", "heap").gauges().stream()
                .mapToDouble(Gauge::value).sum() / 1048576.0);
        FunctionCounter cpu = registry.get("process.cpu.time").functionCounter();
        String unit = cpu.getId().getBaseUnit() == null ? "" : cpu.getId().getBaseUnit();
        m.put("processCpuSeconds", cpu.count() / (unit.startsWith("n") ? 1e9 : unit.startsWith("m") ? 1e3 : 1));
        return m;
    }

    /** Defaults the command line can override (lowest precedence in Spring's order). */
    static Map<String, Object> defaults() {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("spring.application.name", "unpinned-spring-app");
        d.put("spring.main.banner-mode", "off");
        d.put("management.endpoints.web.exposure.include", "health,metrics");
        d.put("spring.web.error.include-message", "always"); // a 400 says which parameter was wrong
        d.put("server.shutdown", "immediate");            // a course server stops at once; its load is over
        return d;
    }

    public static void main(String[] args) throws Exception {
        SpringArgs a = SpringArgs.parseOrExit("S20", USAGE, args, DEFAULT_PORT, Set.of(), Set.of(),
                S20_SpringBootApp::rules);
        SpringApplication app = new SpringApplication(S20_SpringBootApp.class);
        app.setDefaultProperties(defaults());
        app.addListeners((ApplicationListener<ApplicationEvent>) event -> {
            if (event instanceof ApplicationReadyEvent) readyNanos = System.nanoTime();
        });
        ConfigurableApplicationContext context = SpringArgs.startOrExit("S20", a.port(),
                () -> app.run(a.spring().toArray(String[]::new)), () -> readyNanos != 0);
        Environment env = context.getEnvironment();
        Integer port = env.getProperty("local.server.port", Integer.class);
        if (port == null) { // a property given turned the web server off
            context.close();
            System.err.println("S20: Spring Boot started without a web server; leave out the properties that turn it"
                    + " off");
            System.exit(1);
            return;
        }
        boolean virtual = env.getProperty("spring.threads.virtual.enabled", Boolean.class, false);
        // asked once, before any load: on Tomcat's pool this starts one thread of the task executor's pool
        boolean asyncVirtual = context.getBean(AsyncProbe.class).onVirtualThread().get(10, TimeUnit.SECONDS);
        int threads = env.getProperty("server.tomcat.threads.max", Integer.class, 200);
        double startSeconds = SpringArgs.secondsSinceJvmStart();
        URI uri = URI.create("http://127.0.0.1:" + port + "/");
        System.out.println(String.format(Locale.ROOT, "serving Spring Boot %s on %s, %s; ready %.1f s after the JVM"
                        + " started; try %ssleep?ms=100, io?ms=500, cpu?n=1000000, actuator/metrics%s",
                SpringBootVersion.getVersion(), uri, virtual ? "a virtual thread per request"
                        : "Tomcat's pool of " + threads + " platform threads", startSeconds, uri,
                a.control() ? "" : "; Ctrl-C stops it"));
        Map<String, Object> describe = new LinkedHashMap<>();
        describe.put("springBoot", SpringBootVersion.getVersion());
        describe.put("virtualThreads", virtual);
        describe.put("tomcatMaxThreads", threads);
        describe.put("startSeconds", startSeconds);
        describe.put("maxHeapMb", Runtime.getRuntime().maxMemory() >> 20);
        describe.put("asyncOnVirtualThread", asyncVirtual);
        ServerControl.serve(uri, describe, a.control(), () -> {
            Map<String, Object> own = new LinkedHashMap<>();
            own.put("handled", HANDLED.get());
            own.put("handledOnVirtualThreads", ON_VIRTUAL_THREADS.get());
            own.put("asyncOnVirtualThread", asyncVirtual);
            own.put("inFlight", IN_FLIGHT.get());
            own.put("peakConcurrency", PEAK.get());
            own.put("actuator", actuatorMetrics(context.getBean(MeterRegistry.class)));
            return own;
        }, context::close);
        System.exit(0); // stopped: context closed, Tomcat gone
    }
}

/*
 * How to run:
 *   tools/jbang spring-app --server.port=8080                                        (Tomcat's pool of 200)
 *   tools/jbang spring-app --server.port=8080 --spring.threads.virtual.enabled=true  (virtual threads)
 *   curl 'http://127.0.0.1:8080/sleep?ms=100'
 *   tools/jbang spring-load --experiment pr                       (the load test, both modes, in their own JVMs)
 *
 * What you should see: "ok" from /sleep?ms=100 in about 100 ms; live threads few on virtual threads, the pool's
 * size plus a dozen on Tomcat's pool; spring-load shows both next to their bounds. Reference runs:
 * data/reference-runs/snippets/S20-spring-app.md.
 */
