package unpinned.running;

import unpinned.experiments.OrderSweep;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

public class ProcessStatsTest {
    public static final List<String> PROC_STAT = List.of(
            "cpu  1000 50 300 9000 40 0 20 5 0 0",
            "cpu0 500 25 150 4500 20 0 10 2 0 0",
            "cpu1 500 25 150 4500 20 0 10 3 0 0",
            "intr 12345");

    @Test
    void theMachineIsBusyInEveryStateButIdleAndIoWait() {
        // user + nice + system + irq + softirq + steal, in 1/100 s ticks
        assertEquals((1000 + 50 + 300 + 0 + 20 + 5) / 100.0, ProcessStats.machineBusySeconds(PROC_STAT, 2), 1e-9);
        assertTrue(ProcessStats.machineBusySeconds(PROC_STAT, 2) > 0);
    }

    @Test
    void aProcStatForOtherCpusThanThisJvmsIsNotUsed() {
        // a container with a CPU quota sees the host's /proc/stat: its busy time isn't this machine's
        assertTrue(Double.isNaN(ProcessStats.machineBusySeconds(PROC_STAT, 4)));
        assertTrue(Double.isNaN(ProcessStats.machineBusySeconds(List.of("intr 1"), 2)));
    }

    @Test
    void whatTheMachineDidBesideTheMeasuredProcessesComesOffTheCpuBound() {
        // 10,000 requests in 2 s; server 60 µs + generator 20 µs each = 0.8 s of CPU = 0.4 cores of ours
        HttpLoad.Result load = new HttpLoad.Result("closed", 100, 2, 0, 10_000, 0, 2.0, 5_000, 110, 110, 120, 1,
                110, 111, 115, 119, 20, 0, Map.of(), new double[0], new double[0]);
        ServerProcess.Usage server = new ServerProcess.Usage(0.6, 60, 100, 50, 20, 30);
        var busy = new LoadRun.Measured(load, server, List.of(), 1.0);
        assertEquals(0.6, busy.otherCores(), 1e-9);
        assertEquals(0.0, new LoadRun.Measured(load, server, List.of(), 0.3).otherCores(), 1e-9, "never below 0");
        assertTrue(Double.isNaN(new LoadRun.Measured(load, server, List.of(), Double.NaN).otherCores()));
        var row = OrderSweep.row("virtual", 1_000, 200, 2, busy);
        assertEquals((2 - 0.6) / 80e-6, row.cpuBoundThroughput(), 1e-6);
        assertEquals(0.6, row.otherCpuCores(), 1e-9);
        assertTrue(row.toString().contains("(0.60 cores busy elsewhere)"), row.toString());
        // the CPU figure of the same window is utilisation: 0.4 cores of ours in the 1.4 left free
        assertEquals(0.4 / 1.4, row.cpuUtilisation(), 1e-9);
        assertTrue(row.likelyCause().contains("other processes kept 0.6 of the 2 cores busy"), row.likelyCause());
    }

    @Test
    void aProcessTreesCpuIsReadFromProcAndNoPidHasNone() {
        assertEquals(-1.0, ProcessStats.treeCpuSeconds(0), 0.0);
        if (java.nio.file.Files.exists(java.nio.file.Path.of("/proc/self/stat"))) {
            double self = ProcessStats.treeCpuSeconds(ProcessHandle.current().pid());
            assertTrue(self > 0, "this JVM has used CPU: " + self);
        }
    }
}
