///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/core/Experiment.java
//SOURCES ../helpers/unpinned/experiments/OrderSweep.java
package unpinned.snippets;

/*
 * S09: chapter 02's experiment in one command: the order service three ways under rising load.
 *
 * The question: with U users in a closed loop, how many orders (100 ms + 10 ms dependencies) per
 * second does each version serve: a pool of 200 platform threads, virtual threads, Reactor Netty?
 * The bounds: Little's law, min(U, concurrency) / 0.110 s (1,818 orders/s for the pool of 200), and
 * cores / (CPU seconds one order costs the server, the load generator and any dependency).
 * The pitfall: one bound is not enough; on a small machine the CPU bound bites first, for every version.
 */

import unpinned.core.Experiment;
import unpinned.experiments.OrderSweep;
import unpinned.core.Published;
import unpinned.running.ServerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

public class S09_OrderSweep {

    /**
     * Each implementation in turn, each level measured in its own window; the rows carry both bounds. Each
     * server runs in its own JVM (S06; chapter 06's Spring Boot stacks are S22), the load generator in another
     * (S05); this JVM samples the server's CPU, memory and threads at the edges of each window. With --deps a
     * stub (S07) serves the dependencies over real HTTP and its CPU counts too.
     */
    static OrderSweep.Sweep sweep(Experiment.Args a) {
        boolean deps = a.flag("--deps");
        List<Integer> levels = OrderSweep.levelsThatFit(a.counts("--users"), deps, System.out);
        if (levels.isEmpty()) throw new Experiment.RunFailed("no user level fits this process's open-files limit");
        OrderSweep.Plan defaults = OrderSweep.Plan.of(a.profile());
        OrderSweep.Plan plan = new OrderSweep.Plan(levels, a.seconds("--warmup-s"), defaults.warmUp(),
                a.seconds("--duration-s"), a.intCount("--pool"));
        System.out.printf(Locale.ROOT, "order service (100 ms + 10 ms dependencies%s), users %s, closed loop on"
                        + " 127.0.0.1; warm-up %.1f s, measured %.1f s per level, %d cores%n",
                deps ? ", real HTTP to a stub" : ", simulated", levels, plan.firstWarmUp().toMillis() / 1e3,
                plan.measured().toMillis() / 1e3, Runtime.getRuntime().availableProcessors());
        List<OrderSweep.Row> rows = new ArrayList<>();
        try (ServerProcess stub = deps ? ServerProcess.start(OrderSweep.STUB) : null) {
            for (String impl : OrderSweep.implementations(a.oneOf("--impl"))) {
                System.out.printf("%n== %s%n", impl);
                rows.addAll(deps ? OrderSweep.run(impl, plan, List.of(stub), "--deps", stub.uri().toString())
                        : OrderSweep.run(impl, plan, List.of()));
            }
        }
        System.out.println();
        return new OrderSweep.Sweep(deps ? "http stub" : "simulated", plan.poolThreads(),
                plan.firstWarmUp().toMillis() / 1e3, plan.measured().toMillis() / 1e3, rows);
    }

    public static void main(String[] args) {
        Experiment.named("S09", "the order service three ways under rising load", "s09-order-sweep")
                .oneOf("--impl", "all", List.of("pool", "virtual", "reactive", "all", "spring-mvc-virtual",
                        "spring-webflux", "spring"), "chapter 02's implementations (S06), or chapter 06's (S22)")
                .counts("--users", List.of(100, 500, 1_000, 2_000), List.of(100, 500, 1_000, 2_000, 5_000, 10_000),
                        0, Integer.MAX_VALUE, "user levels, each 1..20000")
                .count("--pool", 200, 200, 1, 10_000, "platform threads of the pool version")
                .number("--warmup-s", 2, 5, 0, 600, "seconds of load before the first level is measured")
                .number("--duration-s", 2, 5, 1, 3_600, "seconds measured per level")
                .flag("--deps", "real HTTP dependencies: start a dependency stub (S07) and call it")
                .check(a -> a.counts("--users").forEach(OrderSweep::requireUsers))
                .check(a -> Published.check(OrderSweep.PUBLISHED)) // a broken file is found before measuring
                .takes(Duration.ofHours(1), S09_OrderSweep::time)
                .run(args, S09_OrderSweep::sweep);
    }

    /**
     * Each implementation's server, then one generator run through every level: the first warm-up, then a window
     * per level with the profile's short warm-up between levels (HttpLoad refuses one generator run over 1 h too).
     */
    static Experiment.Time time(Experiment.Args a) {
        int impls = OrderSweep.implementations(a.oneOf("--impl")).size(), levels = a.counts("--users").size();
        double warmUp = a.number("--warmup-s"), window = a.number("--duration-s");
        double between = OrderSweep.Plan.of(a.profile()).warmUp().toMillis() / 1e3, start = Experiment.JVM_START_S;
        double seconds = impls * (2 * start + warmUp + levels * window + (levels - 1) * between)
                + (a.flag("--deps") ? start : 0);
        return Experiment.Time.of(seconds, "%d implementation%s x (2 JVM starts of %.0f s + warm-up %,.1f s + %d"
                        + " level%s x window %,.1f s + %d x %,.1f s between levels)", impls, impls == 1 ? "" : "s",
                start, warmUp, levels, levels == 1 ? "" : "s", window, levels - 1, between);
    }
}

/*
 * How to run:
 *   tools/jbang order-sweep                                     (all three, quick profile: about a minute)
 *   tools/jbang order-sweep --impl reactive --users 1000,5000
 *   tools/jbang order-sweep --deps --users 500                  (real HTTP dependencies)
 *   tools/jbang order-sweep --impl spring --deps --users 500,1000   (chapter 06: Spring MVC on VTs vs WebFlux)
 *
 * What you should see: the pool flat at its Little's-law bound, the others rising to their CPU bound;
 * each "x the lower bound" at or under 1.00. Reference runs: data/reference-runs/snippets/S09-order-sweep.md
 */
