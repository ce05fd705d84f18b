///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/Profile.java
//SOURCES ../helpers/unpinned/Machine.java
//SOURCES ../helpers/unpinned/Course.java
//SOURCES ../helpers/unpinned/Json.java
//SOURCES ../helpers/unpinned/Results.java
//SOURCES ../helpers/unpinned/Bounds.java
//SOURCES ../helpers/unpinned/Cli.java
//SOURCES ../helpers/unpinned/Protocol.java
//SOURCES ../helpers/unpinned/ProcessStats.java
//SOURCES ../helpers/unpinned/ChildRun.java
//SOURCES ../helpers/unpinned/Show.java
//SOURCES ../helpers/unpinned/RunGuard.java
//SOURCES ../helpers/unpinned/ServerProcess.java
//SOURCES ../helpers/unpinned/HttpLoad.java
//SOURCES ../helpers/unpinned/LoadTest.java
//SOURCES ../helpers/unpinned/Published.java
//SOURCES ../helpers/unpinned/OrderSweep.java
package unpinned.snippets;

/*
 * S09: chapter 02's experiment in one command: the order service three ways under rising load.
 *
 * The question: an order calls a 100 ms dependency, then a 10 ms one. With U users in a closed loop,
 * how many orders per second does each version serve: blocking code on a pool of 200 platform
 * threads (Tomcat's default), the same code on virtual threads, and Reactor Netty?
 *
 * The pitfall: one bound is not enough. Little's law caps each version at min(U, concurrency) / 0.110 s
 * (1,818 orders/s for the pool of 200, U / 0.110 s for the others); the machine's cores cap everything
 * at cores / (CPU seconds one order costs the server, the load generator and any dependency). On a
 * small machine the second one bites first, for every implementation; that is also why published
 * figures at 5,000 and 10,000 users sit far below U / 0.110 s.
 *
 * Each implementation runs in its own JVM (S06, alias order-service) on 127.0.0.1, the load generator
 * in another (S05, alias http-load); this JVM orchestrates and samples the server's own CPU, memory
 * and threads at the edges of each measured window. With --deps, a dependency stub (S07) serves the
 * two dependencies over real HTTP and its CPU counts too. Results go to results/s09-order-sweep/.
 *
 * Chapter 06 sweeps the same endpoint in Spring Boot (S22, alias spring-order-service), the comparison
 * article's two stacks: --impl spring-mvc-virtual (Spring MVC, a virtual thread per request), --impl
 * spring-webflux (Spring WebFlux on Reactor Netty), or --impl spring for both. Neither caps concurrency,
 * so Little's law is U / 0.110 s for both; the CPU bound is what separates them.
 */

import unpinned.Cli;
import unpinned.HttpLoad;
import unpinned.OrderSweep;
import unpinned.Profile;
import unpinned.Published;
import unpinned.Results;
import unpinned.ServerProcess;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

public class S09_OrderSweep {
    static final String USAGE = """
            usage: S09_OrderSweep [--impl pool|virtual|reactive|all|spring-mvc-virtual|spring-webflux|spring]
                                  [--users N,N,...] [--pool N] [--warmup-s S] [--duration-s S] [--deps]
              --impl I        one of chapter 02's implementations (S06), or all three (default all); or
                              chapter 06's Spring Boot stacks (S22): spring-mvc-virtual, spring-webflux,
                              or spring for both
              --users L       comma-separated user counts, each 1..20000
                              (default 100,500,1000,2000; full profile up to 10000)
              --pool N        platform threads of the pool version, 1..10000 (default 200)
              --warmup-s S    seconds of load before the first level is measured, 0..600 (default 3; full 5)
              --duration-s S  seconds measured per level, 1..3600 (default 2; full 5)
              --deps          real HTTP dependencies: start a dependency stub (S07) and call it""";

    public static void main(String[] args) throws Exception {
        Profile profile = Profile.announceOrExit("S09");
        Cli cli = Cli.orExit("S09", USAGE, args, Set.of("--impl", "--users", "--pool", "--warmup-s", "--duration-s"),
                Set.of("--deps"));
        OrderSweep.Plan plan;
        List<String> impls;
        try {
            OrderSweep.Plan defaults = OrderSweep.Plan.of(profile);
            String impl = cli.oneOf("--impl", "all", List.of("pool", "virtual", "reactive", "all",
                    "spring-mvc-virtual", "spring-webflux", "spring"));
            impls = switch (impl) {
                case "all" -> OrderSweep.IMPLEMENTATIONS;
                case "spring" -> OrderSweep.SPRING_IMPLEMENTATIONS;
                default -> List.of(impl);
            };
            String users = cli.value("--users", null);
            plan = new OrderSweep.Plan(users == null ? defaults.users() : users(users),
                    Duration.ofMillis((long) (1000 * cli.doubleValue("--warmup-s", defaults.firstWarmUp().toMillis() / 1e3, 0, 600))),
                    defaults.warmUp(),
                    Duration.ofMillis((long) (1000 * cli.doubleValue("--duration-s", defaults.measured().toMillis() / 1e3, 1, 3600))),
                    cli.intValue("--pool", 200, 1, 10_000));
            Results.checkDir();
            Published.check(OrderSweep.PUBLISHED); // compared with after measuring: a broken file is found now
        } catch (IllegalArgumentException | IllegalStateException | UncheckedIOException e) {
            Cli.exit("S09", e.getMessage());
            return;
        }
        boolean deps = cli.has("--deps");
        List<Integer> levels = OrderSweep.levelsThatFit(plan.users(), deps, System.out);
        if (levels.isEmpty()) Cli.exit("S09", "no user level fits this process's open-files limit; see above");
        plan = plan.withUsers(levels);
        System.out.printf(Locale.ROOT, "order service (100 ms + 10 ms dependencies%s), users %s, closed loop on 127.0.0.1;"
                        + " warm-up %.1f s, measured %.1f s per level, %d cores%n", deps ? ", real HTTP to a stub" : ", simulated",
                levels, plan.firstWarmUp().toMillis() / 1e3, plan.measured().toMillis() / 1e3,
                Runtime.getRuntime().availableProcessors());
        List<OrderSweep.Row> rows = new ArrayList<>();
        ServerProcess stub = deps ? ServerProcess.start(OrderSweep.STUB) : null;
        try {
            for (String impl : impls) {
                System.out.printf("%n== %s%n", impl);
                rows.addAll(deps ? OrderSweep.run(impl, plan, List.of(stub), "--deps", stub.uri().toString())
                        : OrderSweep.run(impl, plan, List.of()));
            }
        } finally {
            if (stub != null) stub.close();
        }
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("dependencies", deps ? "http stub" : "simulated");
        data.put("poolThreads", plan.poolThreads());
        data.put("warmUpSeconds", plan.firstWarmUp().toMillis() / 1e3);
        data.put("measuredSeconds", plan.measured().toMillis() / 1e3);
        data.put("rows", rows);
        System.out.println();
        System.out.println("saved " + Results.save("s09-order-sweep", data));
    }

    static List<Integer> users(String list) {
        List<Integer> levels = new ArrayList<>();
        for (String part : list.split(",")) {
            try {
                levels.add(OrderSweep.requireUsers(Integer.parseInt(part.strip())));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--users must be comma-separated whole numbers 1..20000, e.g. 100,500;"
                        + " got '" + list + "'");
            }
        }
        return levels;
    }
}

/*
 * How to run:
 *   tools/jbang order-sweep                                     (all three, quick profile: about a minute)
 *   tools/jbang order-sweep --impl reactive --users 1000,5000
 *   tools/jbang order-sweep --deps --users 500                  (real HTTP dependencies)
 *   tools/jbang order-sweep --impl spring --deps --users 500,1000   (chapter 06: Spring MVC on VTs vs WebFlux)
 *
 * What you should see (2 cores, JDK 25): the pool of 200 flat at ~1,800 orders/s from 500 users on
 * (Little's law: 200 / 0.110 s); virtual threads and Reactor at ~U / 0.110 s until the two cores run
 * out, then at their CPU bound, both well above 3x the pool at 2,000 users; each line's "x the lower
 * bound" at or under 1.00. --impl spring at 200 users with --deps (after 20 s of warm-up): Spring MVC on
 * virtual threads ~1,080 orders/s at its CPU bound (~1,300 µs of server CPU per order), WebFlux ~1,690
 * (~350 µs); chapter 02's virtual threads and Reactor Netty spend ~750 and ~620 µs (8 s of warm-up).
 */
