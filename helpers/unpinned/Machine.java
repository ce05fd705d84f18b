package unpinned;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/** What a result must carry to mean anything: the JDK, cores, OS, memory and profile of the run. */
public final class Machine {
    private Machine() {}

    public static Map<String, String> describe() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("jdk", Runtime.version().toString());
        m.put("jdk_vendor", System.getProperty("java.vendor"));
        m.put("java_home", System.getProperty("java.home"));
        m.put("cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
        m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        m.put("arch", System.getProperty("os.arch"));
        m.put("max_heap_mb", Long.toString(Runtime.getRuntime().maxMemory() >> 20));
        m.put("physical_memory_mb", physicalMemoryMb());
        m.put("host", hostName());
        m.put("profile", Profile.current().id());
        m.put("time", Instant.now().toString());
        return m;
    }

    /** A one-line summary for printing under a chart or table. */
    public static String summary() {
        Map<String, String> m = describe();
        return "JDK " + m.get("jdk") + ", " + m.get("cores") + " cores, " + m.get("os") + " " + m.get("arch")
                + ", profile " + m.get("profile");
    }

    private static String physicalMemoryMb() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return Long.toString(os.getTotalMemorySize() >> 20);
        }
        return "unknown";
    }

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "unknown";
        }
    }
}
