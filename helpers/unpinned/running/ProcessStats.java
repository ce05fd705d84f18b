package unpinned.running;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
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
     * process's operating-system threads (-1 where unknown), and the virtual threads mounted (carriers busy; -1
     * before JDK 24).
     */
    public static Map<String, Object> snapshot() {
        Map<String, Object> m = new LinkedHashMap<>();
        MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        List<String> status = procStatus();
        long rssKb = field(status, "VmRSS:");
        m.put("cpuNanos", cpuNanos());
        m.put("rssBytes", rssKb < 0 ? -1 : rssKb * 1024);
        m.put("heapUsedBytes", heap.getUsed());
        m.put("heapCommittedBytes", heap.getCommitted());
        m.put("liveThreads", ManagementFactory.getThreadMXBean().getThreadCount());
        m.put("osThreads", field(status, "Threads:"));
        m.put("mountedVirtualThreads", mountedVirtualThreads());
        return m;
    }

    /**
     * Virtual threads mounted on a carrier right now, i.e. carriers busy: {@code
     * jdk.management.VirtualThreadSchedulerMXBean.getMountedVirtualThreadCount()} (JDK 24+, read by reflection: the
     * helpers compile for 21); -1 on JDK 21-23, where no public API tells.
     */
    public static int mountedVirtualThreads() {
        if (MOUNTED == null) return -1;
        try {
            return (Integer) MOUNTED.invoke(MOUNTED_BEAN);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return -1;
        }
    }

    // looked up once: a server answers a stats request every second while a live chart runs
    private static final Object MOUNTED_BEAN;
    private static final java.lang.reflect.Method MOUNTED;

    static {
        Object bean = null;
        java.lang.reflect.Method method = null;
        try {
            Class<?> type = Class.forName("jdk.management.VirtualThreadSchedulerMXBean");
            @SuppressWarnings({"unchecked", "rawtypes"})
            Object found = ManagementFactory.getPlatformMXBean((Class) type);
            if (found != null) {
                bean = found;
                method = type.getMethod("getMountedVirtualThreadCount");
            }
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            // JDK 21-23: no such bean
        }
        MOUNTED_BEAN = bean;
        MOUNTED = method;
    }

    /**
     * CPU seconds of process {@code pid} and its children (e.g. a database server and its backends): their user +
     * system time, plus what its ended children used (Linux /proc, 1/100 s ticks); -1 where that can't be read.
     */
    public static double treeCpuSeconds(long pid) {
        if (pid <= 0) return -1;
        long ticks = 0;
        boolean found = false;
        try (var dirs = Files.list(Path.of("/proc"))) {
            for (Path d : dirs.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                String[] f;
                try {
                    String stat = Files.readString(d.resolve("stat"));
                    f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                } catch (IOException | RuntimeException e) {
                    continue; // it ended meanwhile
                }
                long p = Long.parseLong(d.getFileName().toString());
                // f[0] is field 3 (state): ppid is f[1], utime f[11], stime f[12], cutime f[13], cstime f[14]
                if (p == pid) {
                    found = true;
                    ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13])
                            + Long.parseLong(f[14]);
                } else if (Long.parseLong(f[1]) == pid) {
                    ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1; // not Linux
        }
        return found ? ticks / 100.0 : -1; // USER_HZ: 100 on Linux
    }

    /**
     * CPU seconds the whole machine has been busy since boot, summed over its CPUs (Linux /proc/stat: user,
     * nice, system, irq, softirq and steal, in 1/100 s ticks), or NaN where that can't be read or doesn't
     * describe this JVM's CPUs (in a container with a CPU quota, /proc/stat shows the host's).
     */
    public static double machineBusySeconds() {
        try {
            return machineBusySeconds(Files.readAllLines(Path.of("/proc/stat")), Runtime.getRuntime().availableProcessors());
        } catch (IOException | RuntimeException e) {
            return Double.NaN; // not Linux
        }
    }

    static double machineBusySeconds(List<String> procStat, int cores) {
        long cpus = procStat.stream().filter(l -> l.matches("cpu\\d+ .*")).count();
        String total = procStat.stream().filter(l -> l.startsWith("cpu ")).findFirst().orElse(null);
        if (total == null || cpus != cores) return Double.NaN;
        String[] f = total.trim().split("\\s+");
        if (f.length < 9) return Double.NaN;
        long busy = 0;
        for (int i : new int[] {1, 2, 3, 6, 7, 8}) busy += Long.parseLong(f[i]); // user nice system irq softirq steal
        return busy / 100.0;
    }

    /** The lines of /proc/self/status (Linux), or none. */
    static List<String> procStatus() {
        try {
            return Files.readAllLines(Path.of("/proc/self/status"));
        } catch (IOException | RuntimeException e) {
            return List.of(); // not Linux
        }
    }

    /** The first number of the line starting with {@code key} (VmRSS is in kB), or -1. */
    static long field(List<String> status, String key) {
        for (String line : status) {
            if (!line.startsWith(key)) continue;
            try {
                return Long.parseLong(line.substring(key.length()).trim().split("\\s+")[0]);
            } catch (RuntimeException e) {
                return -1;
            }
        }
        return -1;
    }
}
