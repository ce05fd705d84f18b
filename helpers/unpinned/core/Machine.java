//SOURCES Profile.java
package unpinned.core;

import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a result must carry to mean anything: the JDK, cores, CPU, cgroup CPU limit, OS, memory, JVM flags
 * and profile of the run. Nothing here throws: what cannot be read is reported as {@code "unknown"}
 * (or {@code "none"} for a cgroup limit that is not there).
 */
public final class Machine {
    private Machine() {}

    static final String UNKNOWN = "unknown";
    static final String NONE = "none";

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
        m.put("cpu_model", CpuModel.VALUE);
        m.put("cgroup_cpu_limit", cgroupCpuLimit());
        m.put("jvm_flags", jvmFlags());
        return m;
    }

    /** A one-line summary for printing under a chart or table. */
    public static String summary() {
        return summary(describe());
    }

    /**
     * The same line for a saved machine record ({@link #describe()}'s keys, as a result file keeps them): a chart
     * drawn now from another machine's run names that machine.
     */
    public static String summary(Map<String, String> m) {
        String cpu = shortCpuModel(m.get("cpu_model"));
        return "JDK " + m.get("jdk") + ", " + m.get("cores") + " cores" + (cpu.isEmpty() ? "" : " (" + cpu + ")")
                + ", " + m.get("os") + " " + m.get("arch") + ", profile " + m.get("profile");
    }

    /** Longest CPU model that goes into {@link #summary()}; a longer one is left out to keep it short. */
    static final int SUMMARY_CPU_MAX = 32;

    /**
     * The CPU model without trademarks, clock and core-count noise, e.g. "Intel(R) Core(TM) i7-9750H CPU @ 2.60GHz"
     * becomes "Intel Core i7-9750H"; empty when unknown, one line or longer than {@link #SUMMARY_CPU_MAX}.
     */
    static String shortCpuModel(String model) {
        if (model == null || model.isBlank() || model.equals(UNKNOWN)) return "";
        String s = model.replaceAll("\\((R|r|TM|tm)\\)", " ")
                .replaceAll("@\\s*[0-9.]+\\s*[GM]Hz", " ")
                .replaceAll("\\b\\d+-Core Processor\\b", " ")
                .replaceAll("\\b(CPU|Processor)\\b", " ")
                .replaceAll("\\s+", " ").strip();
        return s.length() <= SUMMARY_CPU_MAX ? s : "";
    }

    // ---- CPU model ----------------------------------------------------------------------------------------

    /** Read once: the CPU does not change during a run, and /proc/cpuinfo is not free. */
    private static final class CpuModel {
        static final String VALUE = cpuModel();
    }

    private static String cpuModel() {
        try {
            String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
            if (os.startsWith("linux")) {
                String text = readOrNull(Path.of("/proc/cpuinfo"));
                return text == null ? UNKNOWN : cpuModelFromCpuinfo(text);
            }
            // macOS keeps the model behind sysctl, a process; core starts none (Processes is in running, a layer up),
            // and a machine record is fine with "unknown" there.
        } catch (Exception | LinkageError e) {
            // fall through: a machine record must never fail
        }
        return UNKNOWN;
    }

    /**
     * The CPU model from the text of Linux's /proc/cpuinfo: the first "model name" (x86 and most others); on
     * systems without it (older ARM, MIPS) "Processor", "cpu model" or "Hardware"; "unknown" if none is there.
     */
    static String cpuModelFromCpuinfo(String cpuinfo) {
        if (cpuinfo == null) return UNKNOWN;
        for (String key : List.of("model name", "Processor", "cpu model", "Hardware")) {
            for (String line : cpuinfo.split("\\R")) {
                int colon = line.indexOf(':');
                if (colon < 0 || !line.substring(0, colon).strip().equals(key)) continue;
                String value = line.substring(colon + 1).replaceAll("\\s+", " ").strip();
                if (!value.isEmpty()) return value;
            }
        }
        return UNKNOWN;
    }

    // ---- cgroup CPU limit ---------------------------------------------------------------------------------

    private static final Path CGROUP_ROOT = Path.of("/sys/fs/cgroup");
    /** Where cgroup v1's cpu controller is usually mounted (often one is a link to another). */
    private static final List<String> V1_CPU_MOUNTS = List.of("cpu", "cpu,cpuacct", "cpuacct,cpu");

    /**
     * The CPU limit a cgroup puts on this process, e.g. "2.00 CPUs"; "none" if there is none (or no cgroups,
     * as on macOS and Windows); "unknown" if the files are there but cannot be understood. Looks at the
     * process's own cgroup and every one above it (each can limit), cgroup v2 and v1, and reports the tightest.
     */
    static String cgroupCpuLimit() {
        try {
            String self = readOrNull(Path.of("/proc/self/cgroup"));
            List<Double> limits = new ArrayList<>();
            for (Path dir : cgroupDirs(CGROUP_ROOT, cgroupPath(self, ""))) {
                String cpuMax = readOrNull(dir.resolve("cpu.max"));
                if (cpuMax != null) limits.add(cpusFromCpuMax(cpuMax));
            }
            String v1 = cgroupPath(self, "cpu");
            for (String mount : V1_CPU_MOUNTS) {
                for (Path dir : cgroupDirs(CGROUP_ROOT.resolve(mount), v1)) {
                    String quota = readOrNull(dir.resolve("cpu.cfs_quota_us"));
                    if (quota != null) limits.add(cpusFromCfs(quota, readOrNull(dir.resolve("cpu.cfs_period_us"))));
                }
            }
            return tightest(limits);
        } catch (Exception e) {
            return UNKNOWN;
        }
    }

    /**
     * CPUs allowed by the text of a cgroup v2 {@code cpu.max} ("$QUOTA $PERIOD" in microseconds):
     * "200000 100000" is 2.0, "max 100000" (or "max") is {@link Double#POSITIVE_INFINITY} (no limit);
     * anything else is NaN.
     */
    static double cpusFromCpuMax(String text) {
        if (text == null) return Double.NaN;
        String[] parts = text.strip().split("\\s+");
        if (parts.length == 0 || parts.length > 2) return Double.NaN;
        long period = 100_000; // the kernel's default, for a bare quota
        if (parts.length == 2) {
            period = positiveLong(parts[1]);
            if (period <= 0) return Double.NaN;
        }
        if (parts[0].equals("max")) return Double.POSITIVE_INFINITY;
        long quota = positiveLong(parts[0]);
        return quota <= 0 ? Double.NaN : (double) quota / period;
    }

    /**
     * CPUs allowed by cgroup v1's {@code cpu.cfs_quota_us} and {@code cpu.cfs_period_us} texts: a negative quota
     * (the kernel writes -1) is {@link Double#POSITIVE_INFINITY} (no limit); anything unreadable is NaN.
     */
    static double cpusFromCfs(String quotaText, String periodText) {
        if (quotaText == null) return Double.NaN;
        long quota;
        try {
            quota = Long.parseLong(quotaText.strip());
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
        if (quota < 0) return Double.POSITIVE_INFINITY;
        long period = periodText == null ? -1 : positiveLong(periodText.strip());
        return quota == 0 || period <= 0 ? Double.NaN : (double) quota / period;
    }

    /** How a CPU count is reported: "2.00 CPUs", "none" for no limit, "unknown" for NaN. */
    static String cpuLimitText(double cpus) {
        if (Double.isNaN(cpus) || cpus <= 0) return UNKNOWN;
        if (Double.isInfinite(cpus)) return NONE;
        return String.format(Locale.ROOT, "%.2f CPUs", cpus);
    }

    /** The tightest of several limits: any real limit wins; else "unknown" if one was unreadable; else "none". */
    static String tightest(List<Double> limits) {
        double min = Double.POSITIVE_INFINITY;
        boolean unreadable = false;
        for (double cpus : limits) {
            if (Double.isNaN(cpus) || cpus <= 0) unreadable = true;
            else min = Math.min(min, cpus);
        }
        if (Double.isFinite(min)) return cpuLimitText(min);
        return unreadable ? UNKNOWN : NONE;
    }

    /**
     * This process's cgroup path from the text of /proc/self/cgroup ("id:controllers:path" lines): for
     * controller "" the cgroup v2 line ("0::/path"), else the v1 line whose controllers include it; "/" if none.
     */
    static String cgroupPath(String procSelfCgroup, String controller) {
        if (procSelfCgroup == null) return "/";
        for (String line : procSelfCgroup.split("\\R")) {
            String[] f = line.split(":", 3);
            if (f.length != 3) continue;
            boolean match = controller.isEmpty()
                    ? f[0].strip().equals("0") && f[1].isEmpty()
                    : List.of(f[1].split(",")).contains(controller);
            if (match) return f[2].strip().isEmpty() ? "/" : f[2].strip();
        }
        return "/";
    }

    /**
     * The folders to look in for a cgroup path under a mount: the path's own and each one above it up to the
     * mount. A path that leaves the mount (as "/../.." does in some containers) gives just the mount.
     */
    static List<Path> cgroupDirs(Path mount, String cgroupPath) {
        Path root = mount.normalize();
        String relative = cgroupPath == null ? "" : cgroupPath.replaceFirst("^/+", "");
        Path dir = root.resolve(relative).normalize();
        List<Path> dirs = new ArrayList<>();
        if (!dir.startsWith(root)) return List.of(root);
        for (Path p = dir; p != null && p.startsWith(root); p = p.getParent()) dirs.add(p);
        return dirs;
    }

    private static long positiveLong(String s) {
        try {
            long v = Long.parseLong(s);
            return v > 0 ? v : -1;
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    // ---- the rest -----------------------------------------------------------------------------------------

    /**
     * This JVM's command-line flags (not the class path or main class), space-separated; "" if there are none.
     * They are the flags of the JVM that describes itself (the one saving a result), not of JVMs it starts,
     * such as JMH's forks or a load generator.
     */
    private static String jvmFlags() {
        try {
            return String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments());
        } catch (Exception | LinkageError e) {
            return UNKNOWN;
        }
    }

    /** A small text file's content, or null if it is missing or cannot be read. */
    private static String readOrNull(Path file) {
        try {
            if (!Files.isRegularFile(file)) return null;
            // Decoding with replacement: a stray byte must not turn into an exception.
            return new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
        } catch (Exception e) {
            return null;
        }
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
