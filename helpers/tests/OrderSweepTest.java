package unpinned;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static unpinned.SleepServerTest.assertMessage;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class OrderSweepTest {
    @Test
    void littlesLawCapsThePoolAtItsThreadsAndTheOthersAtTheUsers() {
        assertEquals(100 / 0.110, OrderSweep.littleBound("pool", 100, 200), 1e-9);
        assertEquals(200 / 0.110, OrderSweep.littleBound("pool", 2_000, 200), 1e-9);
        assertEquals(2_000 / 0.110, OrderSweep.littleBound("virtual", 2_000, 200), 1e-9);
        assertEquals(2_000 / 0.110, OrderSweep.littleBound("reactive", 2_000, 200), 1e-9);
        assertMessage("impl must be one of [pool, virtual, reactive], got 'webflux'",
                () -> OrderSweep.littleBound("webflux", 10, 200));
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
    }
}
