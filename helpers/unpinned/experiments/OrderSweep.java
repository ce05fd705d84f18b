//SOURCES ../core/Bounds.java
//SOURCES ../showing/Comparison.java
//SOURCES ../core/Expectations.java
//SOURCES ../core/Figure.java
//SOURCES ../running/HttpLoad.java
//SOURCES ../core/Json.java
//SOURCES ../running/LoadRun.java
//SOURCES ../core/Measurement.java
//SOURCES ../core/Profile.java
//SOURCES ../core/Published.java
//SOURCES ../core/Results.java
//SOURCES ../core/RunGuard.java
//SOURCES ../running/ServerProcess.java
package unpinned.experiments;

import unpinned.core.Bounds;
import unpinned.core.Expectations;
import unpinned.core.Expectations.Line;
import unpinned.core.Figure;
import unpinned.core.Json;
import unpinned.core.Measurement;
import unpinned.core.Profile;
import unpinned.core.Published;
import unpinned.core.Results;
import unpinned.core.RunGuard;
import unpinned.running.HttpLoad;
import unpinned.running.LoadRun;
import unpinned.running.ServerProcess;
import unpinned.showing.Comparison;

import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Chapter 02's experiment, one copy for the notebook and for snippet S09 ({@code order-sweep}): the
 * order service (snippet S06) under a closed loop of rising users, each implementation in its own
 * JVM, each level measured by the load generator in another (see {@link LoadRun}), with two bounds.
 * Chapter 06 runs the same endpoint in Spring Boot (snippet S22): {@link #SPRING_IMPLEMENTATIONS}, Spring
 * MVC on virtual threads and Spring WebFlux, the comparison article's two stacks.
 * <ul>
 *   <li>Little's law: at most min(users, concurrency) orders are in service, each for at least
 *       {@link #SERVICE_SECONDS}, so throughput &lt;= min(U, P) / 0.110 s (P = the pool's threads;
 *       unbounded for virtual threads, Reactor and both Spring stacks);</li>
 *   <li>the CPU: the machine's cores can't burn more than cores CPU-seconds per second, and whatever
 *       else runs on it takes its share first, so throughput &lt;= (cores - cores busy elsewhere) /
 *       (CPU seconds per order of server + load generator + dependencies), all measured in the same
 *       window.</li>
 * </ul>
 */
public final class OrderSweep {
    private OrderSweep() {}

    /** The order's dependencies, one after the other: 100 ms + 10 ms. */
    public static final double SERVICE_SECONDS = 0.110;
    public static final String SERVICE = "S06_OrderService.java";
    /** Chapter 06's Spring Boot version of the same service: {@code --stack mvc} or {@code --stack webflux}. */
    public static final String SPRING_SERVICE = "S22_SpringOrderService.java";
    public static final String STUB = "S07_DependencyStub.java";
    /** Chapter 02's three, served by S06: what a sweep runs unless told otherwise. */
    public static final List<String> IMPLEMENTATIONS = List.of("pool", "virtual", "reactive");
    /** Chapter 06's two, served by S22: Spring MVC on a virtual thread per request, and Spring WebFlux. */
    public static final List<String> SPRING_IMPLEMENTATIONS = List.of("spring-mvc-virtual", "spring-webflux");
    /** Every name {@link #run} accepts. */
    public static final List<String> ALL_IMPLEMENTATIONS =
            java.util.stream.Stream.concat(IMPLEMENTATIONS.stream(), SPRING_IMPLEMENTATIONS.stream()).toList();
    /** Far beyond what a laptop's loopback serves in a closed loop; a typo's guard, not a capacity claim. */
    public static final int MAX_USERS = 20_000;
    /** The item every load test orders (any id below 1,000,000 works; those above fail on purpose). */
    public static final long ITEM = 42;

    /**
     * What a sweep runs: the user levels, the warm-up before the first level (JIT, connections) and
     * before each later one (new connections only), the measured window, and the pool's size.
     */
    public record Plan(List<Integer> users, Duration firstWarmUp, Duration warmUp, Duration measured, int poolThreads) {
        public Plan {
            users = List.copyOf(users);
            if (users.isEmpty()) throw new IllegalArgumentException("users must name at least one level, e.g. [100, 500]");
            for (int u : users) requireUsers(u);
            if (poolThreads < 1 || poolThreads > 10_000) {
                throw new IllegalArgumentException("poolThreads must be 1..10000 (200 is Tomcat's default), got " + poolThreads);
            }
            requireSeconds("firstWarmUp", firstWarmUp, 0);
            requireSeconds("warmUp", warmUp, 0);
            requireSeconds("measured", measured, 1);
        }

        /** The profile's plan: quick 100, 500, 1,000, 2,000 users with short windows; full up to 10,000. */
        public static Plan of(Profile profile) {
            return new Plan(profile.pick(List.of(100, 500, 1_000, 2_000), List.of(100, 500, 1_000, 2_000, 5_000, 10_000)),
                    Duration.ofSeconds(profile.pick(2, 5)), Duration.ofMillis(profile.pick(1_000, 3_000)),
                    Duration.ofSeconds(profile.pick(2, 5)), 200);
        }

        public Plan withUsers(List<Integer> levels) {
            return new Plan(levels, firstWarmUp, warmUp, measured, poolThreads);
        }

        public Plan withPoolThreads(int threads) {
            return new Plan(users, firstWarmUp, warmUp, measured, threads);
        }
    }

    /**
     * One level of one implementation: what was measured and both limits, as the notebook's table shows it. Little's
     * law is a bound. The CPU limit ({@code cpuBoundThroughput}) is what this window's own CPU per order would allow at
     * full CPU: the measurement equals it whenever the cores were saturated, by construction, so it is shown as
     * {@code cpuUtilisation} (throughput / that limit: the share of the free cores the set-up kept busy), not as a bound.
     */
    public record Row(String impl, int users, double throughput, double littleBoundThroughput, double cpuBoundThroughput,
                      double ratioToLowerBound, double meanMs, double p50Ms, double p99Ms, double maxMs, long errors,
                      double serverCpuUsPerRequest, double clientCpuUsPerRequest, double dependencyCpuUsPerRequest,
                      double otherCpuCores, double serverRssMb, double serverHeapUsedMb, int serverLiveThreads,
                      double publishedThroughput, double windowSeconds, double cpuUtilisation,
                      double throughputSpread, double meanMsSpread, double p99MsSpread)
            implements Measurement.Measured {
        /** Orders per second with their 95 % interval over the window's seconds. */
        public Figure rate() {
            return Figure.of(throughput, throughputSpread, "seconds of the load window");
        }

        /** Mean latency with its 95 % interval over the window's seconds. */
        public Figure mean() {
            return Figure.of(meanMs, meanMsSpread, "seconds of the load window");
        }

        /** The window's p99 latency, with the spread of each second's own p99 around it. */
        public Figure p99() {
            return Figure.of(p99Ms, p99MsSpread, "seconds of the load window");
        }

        /** Throughput as a share of the lower of its two limits, Little's law and this window's CPU. */
        public Figure shareOfReach() {
            return rate().over(lowerBound());
        }

        /** Throughput against Little's law (and the published figure), and how busy the cores were. */
        @Override
        public List<Measurement> measurements() {
            String what = impl + " · " + users + " users";
            Measurement orders = Measurement.of(what, throughput, "orders/s")
                    .bound(littleBoundThroughput, Measurement.Bound.LITTLE).window(windowSeconds);
            if (Double.isFinite(throughputSpread)) orders = orders.spread(throughputSpread);
            if (publishedThroughput > 0) orders = orders.published(publishedThroughput, PUBLISHED);
            return List.of(orders, Measurement.of(what + " · CPU busy", cpuUtilisation, "share of the cores")
                    .bound(1.0, Measurement.Bound.UPPER).window(windowSeconds));
        }

        public double lowerBound() {
            return Math.min(littleBoundThroughput, cpuBoundThroughput);
        }

        /** Server plus load generator (plus dependencies): the CPU one order cost the whole set-up, µs. */
        public double totalCpuUsPerOrder() {
            return serverCpuUsPerRequest + clientCpuUsPerRequest + (Double.isNaN(dependencyCpuUsPerRequest) ? 0
                    : dependencyCpuUsPerRequest);
        }

        /**
         * Why this level fell short of Little's law, from its own figures (for a "not what the chapter expects" line):
         * other processes using the cores, or the cores saturated by the set-up itself; null when neither shows.
         */
        public String likelyCause() {
            int cores = Runtime.getRuntime().availableProcessors();
            if (otherCpuCores >= 0.2) {
                return String.format(Locale.ROOT, "other processes kept %.1f of the %d cores busy during this window",
                        otherCpuCores, cores);
            }
            if (cpuUtilisation >= 0.9) {
                return String.format(Locale.ROOT, "the %d cores were saturated (CPU %.0f %% busy): orders/s = free cores /"
                        + " CPU per order (%,.0f µs here)", cores, 100 * cpuUtilisation, totalCpuUsPerOrder());
            }
            return null;
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%-8s %,6d users: %,8.0f orders/s = %.2f of Little's law (%,.0f);"
                            + " CPU %.0f %% busy%s, %,.0f µs per order; mean %,.0f ms, p99 %,.0f ms, %d errors", impl,
                    users, throughput, throughput / littleBoundThroughput, littleBoundThroughput, 100 * cpuUtilisation,
                    otherCpuCores >= 0.05 ? String.format(Locale.ROOT, " (%.2f cores busy elsewhere)", otherCpuCores) : "",
                    totalCpuUsPerOrder(), meanMs, p99Ms, errors);
        }
    }

    /**
     * What chapter 02 expects of the sweep: nothing above Little's law, the pool capped at its 200 threads, and at the
     * most users virtual threads and Reactor both near the lower of their limits (Little's law, or the CPU once the
     * cores are full), so whichever spends fewer µs of CPU per order serves more; the sources' claims judged there.
     */
    public static final Expectations<List<Row>> SWEEP_EXPECTED = Expectations.<List<Row>>of("02-order-sweep")
            .expect("under-little", "the level closest to Little's law", "min(U, P) / 110 ms over its window",
                    rows -> Figure.highest(rows, r -> r.rate().over(r.littleBoundThroughput() * windowEdge(r.windowSeconds()))),
                    Line.atMost(1.0)).limit()
            .expect("pool-caps", "the pool of 200 at the most users", "its Little bound 200 / 110 ms",
                    rows -> top(rows, "pool").rate().over(top(rows, "pool").littleBoundThroughput()), Line.atLeast(0.9))
            .claims("sem-20")
            .expect("virtual-over-pool", "virtual threads at the most users", "the pool of 200's orders/s",
                    rows -> top(rows, "virtual").rate().over(top(rows, "pool").rate()),
                    Line.atLeast(1.5).directionFrom(1.1)).claims("jmh-9")
            .dependsOn(rows -> usersFitThePool(rows))
            .expect("reactive-over-pool", "Reactor Netty at the most users, by the smaller of its two leads",
                    "the pool of 200 (orders/s, and live threads the other way round)", rows -> Figure.lowest(List.of(
                            top(rows, "reactive").rate().over(top(rows, "pool").rate()),
                            Figure.exact(top(rows, "pool").serverLiveThreads()).over(top(rows, "reactive").serverLiveThreads())),
                            f -> f), Line.atLeast(1.5).directionFrom(1.1)).claims("sem-21")
            .dependsOn(rows -> usersFitThePool(rows))
            .expect("virtual-reach-like-reactive", "virtual threads' share of their limit at the most users",
                    "Reactor Netty's share of its own", rows -> top(rows, "virtual").shareOfReach()
                            .over(top(rows, "reactive").shareOfReach()), Line.atLeast(0.9)).claims("flux-7")
            .because(rows -> cpuPerOrder(top(rows, "virtual"), top(rows, "reactive")))
            .expect("reactive-lead-grows", "Reactor Netty's lead over virtual threads at the most users",
                    "its lead one level below", OrderSweep::leadGrowth, Line.atLeast(1.0)).claims("flux-2")
            .expect("virtual-falls-with-users", "virtual threads' orders/s at the most users", "one level below",
                    rows -> top(rows, "virtual").rate().over(below(rows, "virtual").rate()),
                    Line.atMost(0.97).directionFrom(1.0)).claims("flux-3")
            .untestableWhen(rows -> top(rows, "virtual").users() < 5_000 ? String.format(Locale.ROOT, "the claim is"
                    + " about 1,000 to 10,000 users, and this profile's most is %,d (the full profile runs 5,000 and"
                    + " 10,000)", top(rows, "virtual").users()) : null)
            .dependsOn(rows -> top(rows, "virtual").cpuUtilisation() < 0.9 ? String.format(Locale.ROOT, "on cores: the"
                    + " fall comes once the CPU is full, and the top level used %.2f of it",
                    top(rows, "virtual").cpuUtilisation()) : null);

    /**
     * What chapter 02 expects with real HTTP dependencies: both versions near the lower of their limits, so the same
     * share of them; their orders/s then differ only by the CPU each spends per order.
     */
    public static final Expectations<List<Row>> DEPENDENCIES_EXPECTED =
            Expectations.<List<Row>>of("02-order-http-dependencies")
            .expect("under-little", "the version closest to Little's law", "min(U, P) / 110 ms over its window",
                    rows -> Figure.highest(rows, r -> r.rate().over(r.littleBoundThroughput() * windowEdge(r.windowSeconds()))),
                    Line.atMost(1.0)).limit()
            .expect("same-reach", "Reactor Netty's share of its limit", "virtual threads' share of theirs",
                    rows -> top(rows, "reactive").shareOfReach().over(top(rows, "virtual").shareOfReach()),
                    Line.within(0.9, 1.1))
            .because(rows -> cpuPerOrder(top(rows, "virtual"), top(rows, "reactive")));

    /**
     * What chapter 02 expects of a blocking call hidden in the reactive chain: the event loops, each asleep 100 ms per
     * order, serve at most loops x 10 orders/s: a collapse to a quarter or less of the same service without the call
     * (a few per cent, in fact, at 100 users). The rows are
     * "reactive" and "reactive-blocking", each with its interval as its error.
     */
    public static final Expectations<List<Comparison>> HIDDEN_BLOCKING_EXPECTED =
            Expectations.<List<Comparison>>of("02-hidden-blocking")
            .expect("under-the-loops-bound", "the blocked service", "its event loops x one order per 100 ms",
                    rows -> measured(rows, "reactive-blocking").over(comparison(rows, "reactive-blocking").bound()),
                    Line.atMost(1.0)).limit()
            .expect("collapses", "the blocked service's orders/s", "the same service's without the blocking call",
                    rows -> measured(rows, "reactive-blocking").over(measured(rows, "reactive")), Line.atMost(0.25));

    /**
     * What chapter 06 expects of the order service on Spring (MVC on virtual threads, and WebFlux) beside chapter
     * 02's minimal servers: nothing above Little's law; the framework costing server CPU per order on top of the JDK
     * HttpServer's; and the comparison article's claims, each against this run's intervals, with the CPU each
     * version spent per order beside them (on shared cores, the one that spends less serves more).
     */
    public static final Expectations<List<Row>> SPRING_EXPECTED = Expectations.<List<Row>>of("06-order-mvc-vs-webflux")
            .expect("under-little", "the version closest to Little's law", "users / 110 ms over its window",
                    rows -> Figure.highest(rows, r -> r.rate().over(r.littleBoundThroughput() * windowEdge(r.windowSeconds()))),
                    Line.atMost(1.0)).limit()
            .expect("framework-costs-cpu", "Spring MVC's server CPU per order", "the JDK HttpServer's (the same model)",
                    rows -> Figure.single(top(rows, "spring-mvc-virtual").serverCpuUsPerRequest())
                            .over(Figure.single(top(rows, "virtual").serverCpuUsPerRequest())), Line.atLeast(1.0))
            .expect("webflux-ahead", "Spring WebFlux's orders/s", "Spring MVC on virtual threads'",
                    rows -> top(rows, "spring-webflux").rate().over(top(rows, "spring-mvc-virtual").rate()),
                    Line.atLeast(1.0)).claims("flux-1")
            .because(rows -> String.format(Locale.ROOT, "CPU per order (server, load generator and stub): WebFlux %s µs,"
                            + " MVC %s µs; CPU busy %.0f %% and %.0f %%",
                    Figure.number(top(rows, "spring-webflux").totalCpuUsPerOrder()),
                    Figure.number(top(rows, "spring-mvc-virtual").totalCpuUsPerOrder()),
                    100 * top(rows, "spring-webflux").cpuUtilisation(), 100 * top(rows, "spring-mvc-virtual").cpuUtilisation()))
            .expect("same-mean", "Spring WebFlux's mean latency", "Spring MVC's",
                    rows -> top(rows, "spring-webflux").mean().over(top(rows, "spring-mvc-virtual").mean()),
                    Line.within(0.9, 1.1)).claims("flux-4")
            .expect("webflux-tail", "Spring MVC's p99 latency", "Spring WebFlux's",
                    rows -> top(rows, "spring-mvc-virtual").p99().over(top(rows, "spring-webflux").p99()),
                    Line.atLeast(1.1)).claims("flux-5")
            .expect("webflux-memory", "Spring WebFlux's resident memory", "Spring MVC's",
                    rows -> Figure.single(top(rows, "spring-webflux").serverRssMb())
                            .over(Figure.single(top(rows, "spring-mvc-virtual").serverRssMb())), Line.atMost(0.9))
            .claims("flux-6");

    /** One failure's stack trace, counted: its frames, those in the order service's own code, and their methods. */
    public record TraceCount(String version, long frames, long framesInOurCode, String ourMethods) {
        /** Counts {@code trace}, the text a failing order returned (frames of S06's own code named by method). */
        public static TraceCount of(String version, String trace) {
            List<String> frames = trace.lines().filter(l -> l.strip().startsWith("at ")).toList();
            List<String> ours = frames.stream().filter(l -> l.contains("S06_OrderService.")).toList();
            List<String> methods = ours.stream().map(l -> l.replaceAll(".*S06_OrderService\\.([\\w$]+)\\(.*", "$1"))
                    .distinct().toList();
            return new TraceCount(version, frames.size(), ours.size(), String.join(" <- ", methods));
        }
    }

    /** What chapter 02 expects of the traces: the reactive one keeps fewer frames of the request's path. */
    public static final Expectations<List<TraceCount>> TRACES_EXPECTED = Expectations.<List<TraceCount>>of("02-stack-traces")
            .expect("reactive-loses-the-path", "the reactive trace's frames in our code", "the blocking trace's",
                    rows -> Figure.exact(trace(rows, "reactive").framesInOurCode())
                            .over(trace(rows, "blocking, virtual threads").framesInOurCode()), Line.atMost(0.75))
            .claims("sem-22");

    static TraceCount trace(List<TraceCount> rows, String version) {
        return rows.stream().filter(t -> t.version().equals(version)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no '" + version + "' trace in " + rows));
    }

    static Comparison comparison(List<Comparison> rows, String label) {
        return rows.stream().filter(c -> c.label().equals(label)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no '" + label + "' row in " + rows));
    }

    private static Figure measured(List<Comparison> rows, String label) {
        Comparison c = comparison(rows, label);
        return Figure.of(c.measured(), c.error(), "seconds of the load window");
    }

    static Row top(List<Row> rows, String impl) {
        return rows.stream().filter(r -> r.impl().equals(impl)).max(java.util.Comparator.comparingInt(Row::users))
                .orElseThrow(() -> new IllegalArgumentException("no " + impl + " level in " + rows.size() + " rows"));
    }

    static Row below(List<Row> rows, String impl) {
        List<Row> levels = rows.stream().filter(r -> r.impl().equals(impl))
                .sorted(java.util.Comparator.comparingInt(Row::users)).toList();
        if (levels.size() < 2) throw new IllegalArgumentException("fewer than two levels of " + impl);
        return levels.get(levels.size() - 2);
    }

    // reactive / virtual at the top level over the same one level below
    private static Figure leadGrowth(List<Row> rows) {
        Figure atTop = top(rows, "reactive").rate().over(top(rows, "virtual").rate());
        Figure oneBelow = below(rows, "reactive").rate().over(below(rows, "virtual").rate());
        return atTop.over(oneBelow);
    }

    // The most virtual threads' lead over the pool can be at the top: their limit (users, or the CPU) over the pool's
    private static String usersFitThePool(List<Row> rows) {
        Row pool = top(rows, "pool"), virtual = top(rows, "virtual");
        double allowed = virtual.lowerBound() / pool.littleBoundThroughput();
        return allowed < 1.5 ? String.format(Locale.ROOT, "on users: with %,d users against a pool of %.0f, at most"
                + " %.2f x is possible", pool.users(), pool.littleBoundThroughput() * SERVICE_SECONDS, allowed) : null;
    }

    private static String cpuPerOrder(Row virtual, Row reactive) {
        return String.format(Locale.ROOT, "virtual threads served %.2f x Reactor's orders/s, spending %s vs %s µs of CPU"
                        + " per order (server and load generator)", virtual.throughput() / reactive.throughput(),
                Figure.number(virtual.totalCpuUsPerOrder()), Figure.number(reactive.totalCpuUsPerOrder()));
    }

    /**
     * The columns a notebook shows of a {@link Row} at once (the rest in its details view): throughput against the
     * one true bound (Little's law), how busy the CPU was, what one order cost it, the tail, the errors.
     */
    public static final String[] SHOWN = {"impl", "users", "throughput", "littleBoundThroughput", "cpuUtilisation",
        "serverCpuUsPerRequest", "p99Ms", "errors"};

    /** A user count a sweep accepts: 1..{@link #MAX_USERS}. */
    /** A whole sweep as S09 saves it: how it was run, and one row per implementation and level. */
    public record Sweep(String dependencies, int poolThreads, double warmUpSeconds, double measuredSeconds,
                        List<Row> rows) implements Measurement.Measured {
        @Override
        public List<Measurement> measurements() {
            return rows.stream().flatMap(r -> r.measurements().stream()).toList();
        }
    }

    /** The last (highest) level of {@code impl} in {@code rows}; refuses after a stopped measurement. */
    public static Row last(List<Row> rows, String impl) {
        return at(rows, impl, -1);
    }

    /** The row of {@code impl} at {@code users} (-1: its last level); refuses after a stopped measurement. */
    public static Row at(List<Row> rows, String impl, int users) {
        RunGuard.requireFresh();
        return rows.stream().filter(r -> r.impl().equals(impl) && (users < 0 || r.users() == users))
                .reduce((a, b) -> b).orElseThrow(() -> new IllegalArgumentException("no row of " + impl
                        + (users < 0 ? "" : " at " + users + " users") + " in these " + rows.size() + " rows"));
    }

    /** Rows saved by an earlier run, and when that run was. */
    public record Reused(List<Row> rows, String time) {}

    /**
     * The latest kept run of {@code experiment} (e.g. chapter 02's "02-order-http-dependencies") when it was
     * measured on this machine, JDK and profile at {@code users} users: a later chapter compares with it instead
     * of measuring the same servers again.
     */
    public static Optional<Reused> reuse(String experiment, int users) {
        return Results.earlierHere(experiment)
                .map(e -> new Reused(List.of(Json.read(e.data().toString(), Row[].class)), e.time()))
                .filter(r -> !r.rows().isEmpty() && r.rows().stream().allMatch(row -> row.users() == users));
    }

    /** The implementations an {@code --impl} choice names: "all" is chapter 02's three, "spring" chapter 06's two. */
    public static List<String> implementations(String choice) {
        return switch (choice) {
            case "all" -> IMPLEMENTATIONS;
            case "spring" -> SPRING_IMPLEMENTATIONS;
            default -> List.of(requireImpl(choice));
        };
    }

    public static int requireUsers(int users) {
        if (users < 1 || users > MAX_USERS) {
            throw new IllegalArgumentException(String.format(Locale.ROOT,
                    "users must be 1..%,d (each is one connection and one order in flight), got %,d", MAX_USERS, users));
        }
        return users;
    }

    /** The implementation name a sweep accepts. */
    public static String requireImpl(String impl) {
        if (!ALL_IMPLEMENTATIONS.contains(impl)) {
            throw new IllegalArgumentException("impl must be one of " + ALL_IMPLEMENTATIONS + ", got '" + impl + "'");
        }
        return impl;
    }

    /** The snippet that serves {@code impl}: S06 for chapter 02's three, S22 for the Spring stacks. */
    public static String service(String impl) {
        return SPRING_IMPLEMENTATIONS.contains(requireImpl(impl)) ? SPRING_SERVICE : SERVICE;
    }

    /** The arguments that make {@link #service}{@code (impl)} serve {@code impl} (before any of the caller's). */
    public static List<String> serviceArgs(String impl, int poolThreads) {
        return switch (requireImpl(impl)) {
            case "spring-mvc-virtual" -> List.of("--stack", "mvc");
            case "spring-webflux" -> List.of("--stack", "webflux");
            default -> List.of("--impl", impl, "--threads", Integer.toString(poolThreads));
        };
    }

    /** Little's law for a closed loop of {@code users}: min(U, P) / 0.110 s, P unbounded but for the pool. */
    public static double littleBound(String impl, int users, int poolThreads) {
        int concurrency = requireImpl(impl).equals("pool") ? Math.min(users, poolThreads) : users;
        return Bounds.littleThroughput(concurrency, SERVICE_SECONDS);
    }

    /**
     * How far a count over a window of {@code windowSeconds} may exceed Little's law: each of the P slots ends at
     * most one order per {@link #SERVICE_SECONDS}, so at most floor(T / S) + 1 in the window, not T / S.
     */
    public static double windowEdge(double windowSeconds) {
        double perWindow = windowSeconds / SERVICE_SECONDS;
        return (Math.floor(perWindow) + 1) / perWindow;
    }

    /**
     * The CPU bound: the {@code cores} this set-up can have (CPU-seconds per second) over the CPU seconds one order
     * cost. Other processes' CPU comes off first: cores minus what the rest of the machine used meanwhile.
     */
    public static double cpuBound(double cores, double cpuUsPerRequest) {
        return Bounds.cpuThroughput(cores, cpuUsPerRequest);
    }

    /**
     * The levels of {@code wanted} this process can run: each needs one open file per connection in the
     * load generator and in the server (the dependencies' calls too, with {@code withDependencies}).
     * Prints where it stops and why; returns the levels that fit.
     */
    public static List<Integer> levelsThatFit(List<Integer> wanted, boolean withDependencies, PrintStream out) {
        long limit = HttpLoad.openFilesLimit();
        List<Integer> fit = new ArrayList<>();
        for (int users : wanted) {
            long needed = (withDependencies ? 3L : 1L) * users + HttpLoad.SPARE_FILES;
            if (needed > limit) {
                out.printf(Locale.ROOT, "stopping at %,d users: %,d users need about %,d open files per process and"
                        + " this one may open %,d (`ulimit -n`; raise it in the shell that starts JupyterLab)%n",
                        fit.isEmpty() ? 0 : fit.get(fit.size() - 1), users, needed, limit);
                break;
            }
            fit.add(users);
        }
        return fit;
    }

    /**
     * Starts {@code impl} (its own JVM: S06, or S22 for the Spring stacks), measures each level of {@code plan}
     * against it in turn and stops it (also when interrupted). {@code serverArgs} go to the server as they are
     * (e.g. {@code --deps URL}, which both take);
     * {@code dependencies} are sampled with the server. Prints one line per level.
     */
    public static List<Row> run(String impl, Plan plan, List<ServerProcess> dependencies, String... serverArgs) {
        Published.check(PUBLISHED); // the figures each row is compared with: a broken file stops us before measuring
        List<String> args = new ArrayList<>(serviceArgs(impl, plan.poolThreads()));
        args.addAll(List.of(serverArgs));
        int cores = Runtime.getRuntime().availableProcessors();
        List<Row> rows = new ArrayList<>();
        try (ServerProcess server = ServerProcess.start(service(impl), args.toArray(String[]::new))) {
            URI target = URI.create(server.uri() + "?id=" + ITEM);
            List<LoadRun.Measured> levels = LoadRun.measureLevels(server,
                    HttpLoad.Options.closedLoop(target, plan.users().get(0), plan.firstWarmUp(), plan.measured()),
                    plan.users().subList(1, plan.users().size()), plan.warmUp(), dependencies);
            for (int i = 0; i < levels.size(); i++) {
                Row row = row(impl, plan.users().get(i), plan.poolThreads(), cores, levels.get(i));
                System.out.println(row);
                rows.add(row);
            }
        }
        return rows;
    }

    /**
     * Chapter 02's part 8: virtual threads and Reactor with their two dependencies over real HTTP (the stub, S07, in a
     * JVM of its own), at a moderate load: each order is now three HTTP exchanges, and the first level warms up 3 s
     * so the HTTP clients' code is compiled too.
     */
    public static List<Row> withDependencies(Profile profile, Plan plan) {
        Plan deps = new Plan(List.of(profile.pick(200, 500)), Duration.ofSeconds(3), plan.warmUp(), plan.measured(),
                plan.poolThreads());
        List<Row> rows = new ArrayList<>();
        try (ServerProcess stub = ServerProcess.start(STUB)) {
            for (String impl : List.of("virtual", "reactive")) {
                rows.addAll(run(impl, deps, List.of(stub), "--deps", stub.uri().toString()));
            }
        }
        return rows;
    }

    /**
     * Chapter 02's part 10: the reactive service with one blocking call hidden in its chain, under 100 users, against
     * the same service without it ({@code sweep}'s reactive level at 100 users). Each event loop ends at most one
     * order per 100 ms, plus one at the window's edge: that is the blocked service's bound. The rows are
     * "reactive" and "reactive-blocking", each with its interval as its error ({@link #HIDDEN_BLOCKING_EXPECTED}).
     */
    public static List<Comparison> hiddenBlocking(Profile profile, List<Row> sweep) {
        int users = 100, windowSeconds = profile.pick(3, 10);
        Row reactive = at(sweep, "reactive", users);
        try (ServerProcess server = ServerProcess.start(SERVICE, "--impl", "reactive-blocking")) {
            int loops = server.describedCount("eventLoops");
            double bound = loops * (Math.floor(windowSeconds / 0.100) + 1) / windowSeconds;
            System.out.println(String.format(Locale.ROOT, "%d event loops: at most %.1f orders/s", loops, bound));
            LoadRun.Measured m = LoadRun.measure(server, HttpLoad.Options.closedLoop(URI.create(server.uri() + "?id="
                    + ITEM), users, Duration.ofSeconds(1), Duration.ofSeconds(windowSeconds)));
            return List.of(new Comparison("reactive", reactive.throughput(), reactive.throughputSpread(),
                            reactive.littleBoundThroughput(), Double.NaN),
                    new Comparison("reactive-blocking", m.load().throughput(), m.load().throughputFigure().halfWidth(),
                            bound, Double.NaN));
        }
    }

    /** The published figures every row is compared with ({@link #published}): data/published/vt-webflux-blog.csv. */
    public static final String PUBLISHED = "vt-webflux-blog";

    /** The row for one measurement: its figures, both bounds, and the published throughput at that level. */
    public static Row row(String impl, int users, int poolThreads, int cores, LoadRun.Measured m) {
        HttpLoad.Result r = m.load();
        ServerProcess.Usage s = m.server();
        double little = littleBound(impl, users, poolThreads);
        double elsewhere = m.otherCores();
        double cpu = m.cpuBoundThroughput(cores);
        double lower = Double.isNaN(cpu) ? little : Math.min(little, cpu);
        double dependencies = m.others().stream().mapToDouble(ServerProcess.Usage::cpuUsPerRequest).sum();
        return new Row(impl, users, r.throughput(), little, cpu, r.throughput() / lower, r.meanMs(), r.p50Ms(),
                r.p99Ms(), r.maxMs(), r.errors(), s.cpuUsPerRequest(), r.clientCpuUsPerRequest(),
                m.others().isEmpty() ? Double.NaN : dependencies, elsewhere, s.rssMb(), s.heapUsedMb(), s.liveThreads(),
                published(impl, users, "throughput"), r.seconds(), Double.isNaN(cpu) ? Double.NaN : r.throughput() / cpu,
                r.throughputFigure().halfWidth(), r.meanMsFigure().halfWidth(), r.p99MsFigure().halfWidth());
    }

    /**
     * The comparison article's figure for {@code impl} at {@code users}, or NaN where it published none. Its
     * "virtual" rows are Spring MVC on virtual threads and its "webflux" rows Spring WebFlux: chapter 06's Spring
     * stacks exactly, chapter 02's plain versions (virtual threads, Reactor Netty) the same models without Spring.
     */
    public static double published(String impl, int users, String metric) {
        String implementation = switch (impl) {
            case "virtual", "spring-mvc-virtual" -> "virtual";
            case "reactive", "spring-webflux" -> "webflux";
            default -> null;
        };
        if (implementation == null || !(users == 1_000 || users == 5_000 || users == 10_000)) return Double.NaN;
        return Published.value(PUBLISHED, "implementation", implementation, "users", Integer.toString(users),
                "metric", metric);
    }

    private static void requireSeconds(String name, Duration d, long minSeconds) {
        if (d == null || d.isNegative() || d.toMillis() < minSeconds * 1000 || d.toSeconds() > 3_600) {
            throw new IllegalArgumentException(name + " must be " + minSeconds + " s to 1 h, got " + d);
        }
    }
}
