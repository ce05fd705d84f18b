package unpinned.experiments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

public class IoPathTest {
    static final String POLLERS = """
            Master I/O poller:
            sun.nio.ch.EPollPoller@f4168b8 [registered = 3, owner = Thread[#28,MasterPoller,5,InnocuousThreadGroup]]

            Read I/O pollers:
            [0] sun.nio.ch.EPollPoller@40f08448 [registered = 80, owner = VirtualThread[#29,SubPoller-0]/waiting]
            [1] sun.nio.ch.EPollPoller@276438c9 [registered = 120, owner = VirtualThread[#30,SubPoller-1]/waiting]

            Write I/O pollers:
            [0] sun.nio.ch.EPollPoller@33b37288 [registered = 7, owner = VirtualThread[#31,SubPoller-2]/waiting]
            """;

    @Test
    void sumsOnlyTheReadPollersRegistrations() {
        assertEquals(200, IoPath.registered(POLLERS)); // not the master's 3 nor the writer's 7
        assertNull(IoPath.registered(null)); // JDK 21: no Thread.vthread_pollers
    }

    @Test
    void theTopFramePassesOverParkingPlumbing() {
        assertEquals("java.util.concurrent.DelayScheduler.loop(DelayScheduler.java:253)", IoPath.top(List.of(
                "jdk.internal.misc.Unsafe.park(Native Method)",
                "java.util.concurrent.DelayScheduler.loop(DelayScheduler.java:253)")));
        assertEquals("java.base/sun.nio.ch.Poller.poll(Poller.java:197)", IoPath.top(List.of(
                "java.base/java.lang.VirtualThread.park(VirtualThread.java:742)",
                "java.base/java.lang.System$1.parkVirtualThread(System.java:2285)",
                "java.base/sun.nio.ch.Poller.poll(Poller.java:197)")));
        assertEquals("(no frames)", IoPath.top(List.of()));
    }

    @Test
    void threadPrintOfThisJvmNamesItsThreadsAndAnUnknownCommandIsNull() throws Exception {
        List<IoPath.Stanza> print = IoPath.threadPrint();
        String me = Thread.currentThread().getName();
        var mine = print.stream().filter(s -> s.name().equals(me)).findFirst().orElseThrow();
        assertTrue(mine.lines().stream().anyMatch(l -> l.contains("IoPath.threadPrint")), mine.toString());
        assertFalse(mine.carrying());
        assertNull(IoPath.dcmd("No.such_command"));
    }

    @Test
    void aRowNamesEachJdksThreadsAndFigures() {
        var sockets = new IoPath.Sockets(200, null, "VTHREAD_POLLERS", List.of(new IoPath.Seen("MasterPoller",
                false, "EPoll.wait"), new IoPath.Seen("SubPoller-0", true, "Poller.poll")), 1, 1, 200, 200, 0, 200,
                POLLERS, 12.5);
        var wake = new IoPath.WakeUp(200, 200, Map.of("ForkJoinPool-1-delayScheduler", 5_000L), 900,
                Map.of("ForkJoinPool-1-worker-1", 3), List.of("VirtualThread.unpark"));
        var timers = new IoPath.Timers(200, 200, List.of(new IoPath.Seen("ForkJoinPool-1-delayScheduler", false,
                "DelayScheduler.loop")), 200L, "getDelayedTaskCount", false, true, wake);
        var unblocker = new IoPath.Unblocker(50, 50, true, "takeVirtualThreadListToUnblock", 300_000L, 1.0);
        var row = IoPath.Row.of("JDK 25", new IoPath.Result("25", 25, 2, sockets, timers, unblocker));
        assertEquals("MasterPoller (platform), SubPoller-0 (virtual)", row.pollerThreads());
        assertEquals("ForkJoinPool-1-worker-1", row.unparkRanOn());
        assertEquals(IoPath.UNBLOCKER, row.unblocker());
        assertEquals(200L, row.wakeUpsHeld());
        assertEquals(3, new IoPath.Result("25", 25, 2, sockets, timers, unblocker).measurements().size());
    }
}
