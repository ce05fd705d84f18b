package unpinned.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

public class MachineTest {
    @Test
    void describesThisJvm() {
        Map<String, String> m = Machine.describe();
        for (String key : List.of("jdk", "jdk_vendor", "cores", "os", "arch", "max_heap_mb", "profile", "time")) {
            assertTrue(m.containsKey(key) && m.get(key) != null && !m.get(key).isBlank(), "missing " + key + " in " + m);
        }
        assertEquals(Runtime.version().toString(), m.get("jdk"));
        assertEquals(Runtime.getRuntime().availableProcessors(), Integer.parseInt(m.get("cores")));
        assertEquals(Profile.current().id(), m.get("profile"));
        Duration age = Duration.between(Instant.parse(m.get("time")), Instant.now());
        assertTrue(!age.isNegative() && age.toSeconds() < 60, m.get("time"));
    }

    @Test
    void describesCpuCgroupLimitAndJvmFlags() {
        Map<String, String> m = Machine.describe();
        assertTrue(!m.get("cpu_model").isBlank(), m.toString());
        assertTrue(m.get("cpu_model").lines().count() == 1, m.get("cpu_model"));
        assertTrue(m.get("cgroup_cpu_limit").matches("none|unknown|\\d+\\.\\d\\d CPUs"), m.get("cgroup_cpu_limit"));
        assertEquals(String.join(" ", ManagementFactory.getRuntimeMXBean().getInputArguments()), m.get("jvm_flags"));
        // The keys saved results and the data files already rely on come first, unchanged.
        assertEquals(List.of("jdk", "jdk_vendor", "java_home", "cores", "os", "arch", "max_heap_mb", "physical_memory_mb",
                "host", "profile", "time", "cpu_model", "cgroup_cpu_limit", "jvm_flags"), List.copyOf(m.keySet()));
    }

    @Test
    void cpuModelIsTheFirstModelNameInCpuinfo() {
        String cpuinfo = """
                processor\t: 0
                vendor_id\t: GenuineIntel
                model\t\t: 158
                model name\t: Intel(R) Core(TM) i7-9750H CPU   @ 2.60GHz
                flags\t\t: fpu vme

                processor\t: 1
                model name\t: Something Else
                """;
        assertEquals("Intel(R) Core(TM) i7-9750H CPU @ 2.60GHz", Machine.cpuModelFromCpuinfo(cpuinfo));
        assertEquals("AMD EPYC", Machine.cpuModelFromCpuinfo("processor\t: 0\r\nmodel name\t: AMD EPYC\r\n"));
        // Older ARM kernels have no "model name" but a "Processor" line; "processor" (the index) is not it.
        assertEquals("ARMv7 Processor rev 4 (v7l)",
                Machine.cpuModelFromCpuinfo("processor\t: 0\nProcessor\t: ARMv7 Processor rev 4 (v7l)\n"));
        assertEquals("unknown", Machine.cpuModelFromCpuinfo("processor\t: 0\nBogoMIPS\t: 50.00\nmodel name\t:\n"));
        assertEquals("unknown", Machine.cpuModelFromCpuinfo(""));
        assertEquals("unknown", Machine.cpuModelFromCpuinfo(null));
    }

    @Test
    void summaryShortensTheCpuModelOrLeavesItOut() {
        assertEquals("Intel Core i7-9750H", Machine.shortCpuModel("Intel(R) Core(TM) i7-9750H CPU @ 2.60GHz"));
        assertEquals("AMD Ryzen 7 5800X", Machine.shortCpuModel("AMD Ryzen 7 5800X 8-Core Processor"));
        assertEquals("Apple M2 Pro", Machine.shortCpuModel("Apple M2 Pro"));
        assertEquals("", Machine.shortCpuModel("unknown"));
        assertEquals("", Machine.shortCpuModel(null));
        assertEquals("", Machine.shortCpuModel("A Very Long Vendor Name Server Chip Family Model 1234567 Edition"));
    }

    @Test
    void cgroupV2CpuMax() {
        assertEquals(Double.POSITIVE_INFINITY, Machine.cpusFromCpuMax("max 100000\n"));
        assertEquals(Double.POSITIVE_INFINITY, Machine.cpusFromCpuMax("max"));
        assertEquals(2.0, Machine.cpusFromCpuMax("200000 100000\n"));
        assertEquals(1.5, Machine.cpusFromCpuMax("150000 100000"));
        assertEquals("none", Machine.cpuLimitText(Machine.cpusFromCpuMax("max 100000")));
        assertEquals("1.50 CPUs", Machine.cpuLimitText(Machine.cpusFromCpuMax("150000 100000")));
        assertEquals("2.00 CPUs", Machine.cpuLimitText(Machine.cpusFromCpuMax("200000 100000")));
        assertEquals("0.25 CPUs", Machine.cpuLimitText(Machine.cpusFromCpuMax("25000 100000")));
        for (String garbage : new String[] {"", "garbage", "abc 100000", "100000 0", "100000 -5", "-1 100000",
                "0 100000", "1 2 3", "max x"}) {
            assertTrue(Double.isNaN(Machine.cpusFromCpuMax(garbage)), garbage);
            assertEquals("unknown", Machine.cpuLimitText(Machine.cpusFromCpuMax(garbage)), garbage);
        }
        assertTrue(Double.isNaN(Machine.cpusFromCpuMax(null)));
    }

    @Test
    void cgroupV1Quota() {
        assertEquals(Double.POSITIVE_INFINITY, Machine.cpusFromCfs("-1\n", "100000\n"));
        assertEquals("none", Machine.cpuLimitText(Machine.cpusFromCfs("-1", null)));
        assertEquals("2.00 CPUs", Machine.cpuLimitText(Machine.cpusFromCfs("200000\n", "100000\n")));
        assertEquals("0.50 CPUs", Machine.cpuLimitText(Machine.cpusFromCfs("50000", "100000")));
        assertEquals("unknown", Machine.cpuLimitText(Machine.cpusFromCfs("x", "100000")));
        assertEquals("unknown", Machine.cpuLimitText(Machine.cpusFromCfs("200000", null)));
        assertEquals("unknown", Machine.cpuLimitText(Machine.cpusFromCfs("200000", "0")));
        assertEquals("unknown", Machine.cpuLimitText(Machine.cpusFromCfs(null, "100000")));
    }

    @Test
    void theTightestLimitOfTheCgroupAndItsParentsWins() {
        assertEquals("none", Machine.tightest(List.of()));
        assertEquals("none", Machine.tightest(List.of(Double.POSITIVE_INFINITY, Double.POSITIVE_INFINITY)));
        assertEquals("1.50 CPUs", Machine.tightest(List.of(Double.POSITIVE_INFINITY, 4.0, 1.5)));
        assertEquals("1.50 CPUs", Machine.tightest(List.of(Double.NaN, 1.5)));
        assertEquals("unknown", Machine.tightest(List.of(Double.POSITIVE_INFINITY, Double.NaN)));
    }

    @Test
    void cgroupPathsFromProcSelfCgroup() {
        String hybrid = "12:cpu,cpuacct:/docker/abc\n4:memory:/x\n1:name=systemd:/init.scope\n0::/user.slice/session-1.scope\n";
        assertEquals("/docker/abc", Machine.cgroupPath(hybrid, "cpu"));
        assertEquals("/user.slice/session-1.scope", Machine.cgroupPath(hybrid, ""));
        assertEquals("/", Machine.cgroupPath("0::/\n", "cpu"));
        assertEquals("/", Machine.cgroupPath(null, ""));
        assertEquals("/", Machine.cgroupPath("garbage", ""));

        Path mount = Path.of("/sys/fs/cgroup");
        assertEquals(List.of(mount.resolve("a/b"), mount.resolve("a"), mount), Machine.cgroupDirs(mount, "/a/b"));
        assertEquals(List.of(mount), Machine.cgroupDirs(mount, "/"));
        assertEquals(List.of(mount), Machine.cgroupDirs(mount, "/../../system.slice"));
    }

    @Test
    void readingTheCgroupLimitNeverThrows() {
        String limit = Machine.cgroupCpuLimit();
        assertTrue(limit.matches("none|unknown|\\d+\\.\\d\\d CPUs"), limit);
    }

    @Test
    void summaryIsOneLineWithJdkAndCores() {
        String s = Machine.summary();
        assertTrue(s.startsWith("JDK " + Runtime.version()), s);
        assertTrue(s.contains(Runtime.getRuntime().availableProcessors() + " cores"), s);
        assertTrue(s.contains("profile " + Profile.current().id()), s);
        assertEquals(1, s.lines().count());
    }
}
