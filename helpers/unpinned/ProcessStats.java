package unpinned;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** This JVM's own resource figures, as a server reports them about itself. */
public final class ProcessStats {
    private ProcessStats() {}

    /** CPU time of the whole process in nanoseconds (10 ms steps on Linux), or -1 where the JVM can't tell. */
    public static long cpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    /**
     * Process CPU time (ns), resident memory (bytes, -1 where unknown), heap used and committed (bytes),
     * live platform threads as the JVM counts them (virtual threads are not among them), and the
     * process's operating-system threads (-1 where unknown).
     */
    public static Map<String, Object> snapshot() {
        Map<String, Object> m = new LinkedHashMap<>();
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        long rssKb = procStatus("VmRSS:");
        m.put("cpuNanos", cpuNanos());
        m.put("rssBytes", rssKb < 0 ? -1 : rssKb * 1024);
        m.put("heapUsedBytes", heap.getUsed());
        m.put("heapCommittedBytes", heap.getCommitted());
        m.put("liveThreads", ManagementFactory.getThreadMXBean().getThreadCount());
        m.put("osThreads", procStatus("Threads:"));
        return m;
    }

    /** The first number of a line of /proc/self/status (Linux; VmRSS is in kB), or -1. */
    static long procStatus(String key) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith(key)) return Long.parseLong(line.substring(key.length()).trim().split("\\s+")[0]);
            }
        } catch (IOException | RuntimeException e) {
            // not Linux
        }
        return -1;
    }
}
