package unpinned.experiments;

import unpinned.core.Course;
import unpinned.core.Profile;
import unpinned.running.HttpLoad;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static unpinned.workloads.SleepServerTest.assertMessage;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

public class OrderSweepTest {
    public static final String ALLOWED =
            "impl must be one of [pool, virtual, reactive, spring-mvc-virtual, spring-webflux], ";

    @Test
    void littlesLawCapsThePoolAtItsThreadsAndTheOthersAtTheUsers() {
        assertEquals(100 / 0.110, OrderSweep.littleBound("pool", 100, 200), 1e-9);
        assertEquals(200 / 0.110, OrderSweep.littleBound("pool", 2_000, 200), 1e-9);
        assertEquals(2_000 / 0.110, OrderSweep.littleBound("virtual", 2_000, 200), 1e-9);
        assertEquals(2_000 / 0.110, OrderSweep.littleBound("reactive", 2_000, 200), 1e-9);
        // Spring MVC on virtual threads and WebFlux cap nothing either: the pool's size plays no part.
        assertEquals(10_000 / 0.110, OrderSweep.littleBound("spring-mvc-virtual", 10_000, 200), 1e-9);
        assertEquals(10_000 / 0.110, OrderSweep.littleBound("spring-webflux", 10_000, 10), 1e-9);
        for (String bad : List.of("webflux", "spring", "Spring-webflux", "spring-mvc", "")) {
            assertMessage(ALLOWED + "got '" + bad + "'", () -> OrderSweep.littleBound(bad, 10, 200));
        }
    }

    @Test
    void chapter02RunsItsThreeOnS06AndTheSpringStacksRunOnS22() {
        assertEquals(List.of("pool", "virtual", "reactive"), OrderSweep.IMPLEMENTATIONS);
        assertEquals(List.of("spring-mvc-virtual", "spring-webflux"), OrderSweep.SPRING_IMPLEMENTATIONS);
        for (String impl : OrderSweep.IMPLEMENTATIONS) {
            assertEquals("S06_OrderService.java", OrderSweep.service(impl));
            assertEquals(List.of("--impl", impl, "--threads", "50"), OrderSweep.serviceArgs(impl, 50));
        }
        assertEquals("S22_SpringOrderService.java", OrderSweep.service("spring-mvc-virtual"));
        assertEquals("S22_SpringOrderService.java", OrderSweep.service("spring-webflux"));
        assertEquals(List.of("--stack", "mvc"), OrderSweep.serviceArgs("spring-mvc-virtual", 200));
        assertEquals(List.of("--stack", "webflux"), OrderSweep.serviceArgs("spring-webflux", 200));
        assertTrue(Files.isRegularFile(Course.home().resolve("snippets").resolve(OrderSweep.SPRING_SERVICE)),
                "the Spring service's snippet exists");
        assertMessage(ALLOWED + "got 'webflux'", () -> OrderSweep.service("webflux"));
        assertMessage(ALLOWED + "got 'mvc'",
                () -> OrderSweep.run("mvc", OrderSweep.Plan.of(Profile.QUICK), List.of()));
    }

    @Test
    void theCpuBoundIsCoresOverCpuSecondsPerOrder() {
        assertEquals(8_000, OrderSweep.cpuBound(2, 250), 1e-9);
        assertTrue(Double.isNaN(OrderSweep.cpuBound(2, 0)), "no CPU measured: no bound, not infinity");
    }

    @Test
    void aWindowCanCatchOneOrderPerSlotMoreThanTheSteadyState() {
        assertEquals(19 / (2 / 0.110), OrderSweep.windowEdge(2), 1e-9);
        assertTrue(OrderSweep.windowEdge(60) < 1.01, "long windows: the edge vanishes");
    }

    @Test
    void usersAndPlansRefuseAbsurdValuesInOneLine() {
        assertMessage("users must be 1..20,000 (each is one connection and one order in flight), got 0",
                () -> OrderSweep.requireUsers(0));
        assertMessage("users must be 1..20,000 (each is one connection and one order in flight), got 5,000,000",
                () -> OrderSweep.requireUsers(5_000_000));
        Duration s = Duration.ofSeconds(1);
        assertMessage("users must name at least one level, e.g. [100, 500]",
                () -> new OrderSweep.Plan(List.of(), s, s, s, 200));
        assertMessage("poolThreads must be 1..10000 (200 is Tomcat's default), got 0",
                () -> new OrderSweep.Plan(List.of(10), s, s, s, 0));
        assertMessage("measured must be 1 s to 1 h, got PT0.5S",
                () -> new OrderSweep.Plan(List.of(10), s, s, Duration.ofMillis(500), 200));
        assertEquals(List.of(100, 500, 1_000, 2_000), OrderSweep.Plan.of(Profile.QUICK).users());
        assertEquals(10_000, OrderSweep.Plan.of(Profile.FULL).users().getLast());
    }

    @Test
    void levelsBeyondTheOpenFilesLimitAreDroppedWithTheReason() {
        var out = new ByteArrayOutputStream();
        long limit = HttpLoad.openFilesLimit();
        List<Integer> fit = OrderSweep.levelsThatFit(List.of(10, 19_999), false, new PrintStream(out, true, StandardCharsets.UTF_8));
        if (limit < 19_999 + HttpLoad.SPARE_FILES) {
            assertEquals(List.of(10), fit);
            assertTrue(out.toString(StandardCharsets.UTF_8).contains("stopping at 10 users"), out.toString(StandardCharsets.UTF_8));
        } else {
            assertEquals(List.of(10, 19_999), fit);
        }
    }

    @Test
    void publishedFiguresExistOnlyWhereTheArticleGaveThem() {
        assertEquals(8_200, OrderSweep.published("virtual", 1_000, "throughput"), 1e-9);
        assertEquals(7_900, OrderSweep.published("reactive", 10_000, "throughput"), 1e-9);
        assertTrue(Double.isNaN(OrderSweep.published("pool", 1_000, "throughput")));
        assertTrue(Double.isNaN(OrderSweep.published("virtual", 2_000, "throughput")));
        // the article's own stacks: Spring MVC on virtual threads ("virtual") and Spring WebFlux ("webflux")
        assertEquals(8_200, OrderSweep.published("spring-mvc-virtual", 1_000, "throughput"), 1e-9);
        assertEquals(7_200, OrderSweep.published("spring-mvc-virtual", 10_000, "throughput"), 1e-9);
        assertEquals(8_500, OrderSweep.published("spring-webflux", 1_000, "throughput"), 1e-9);
        assertEquals(7_900, OrderSweep.published("spring-webflux", 10_000, "throughput"), 1e-9);
        assertTrue(Double.isNaN(OrderSweep.published("spring-webflux", 2_000, "throughput")));
        assertTrue(Double.isNaN(OrderSweep.published("webflux", 1_000, "throughput")), "not an implementation");
    }
}
