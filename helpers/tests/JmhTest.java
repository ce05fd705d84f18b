package unpinned;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static unpinned.SleepServerTest.assertMessage;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JmhTest {

    // The shape JMH 1.37 writes with -rf json (trimmed): one fork of 2 iterations, and one with a single
    // iteration, where JMH writes the error as the string "NaN".
    static final String REPORT = """
            [
                {
                    "jmhVersion" : "1.37",
                    "benchmark" : "unpinned.snippets.S01_IoBoundExecutors.sleepingTasksOnExecutor",
                    "mode" : "avgt",
                    "threads" : 1,
                    "forks" : 1,
                    "params" : { "executor" : "virtual", "sleepMs" : "50", "tasks" : "500" },
                    "primaryMetric" : {
                        "score" : 52.5,
                        "scoreError" : 3.25,
                        "scoreConfidence" : [ 49.25, 55.75 ],
                        "scorePercentiles" : { "0.0" : 52.0, "100.0" : 53.0 },
                        "scoreUnit" : "ms/op",
                        "rawData" : [ [ 52.0, 53.0 ] ]
                    },
                    "secondaryMetrics" : { }
                },
                {
                    "jmhVersion" : "1.37",
                    "benchmark" : "unpinned.snippets.S02_CpuBoundSha256.hashingTasksOnExecutor",
                    "mode" : "avgt",
                    "params" : { "executor" : "fixed-cores" },
                    "primaryMetric" : {
                        "score" : 210.0,
                        "scoreError" : "NaN",
                        "scoreUnit" : "ms/op",
                        "rawData" : [ [ 210.0 ] ]
                    },
                    "secondaryMetrics" : { }
                }
            ]
            """;

    @Test
    void parsesAJmhJsonReport() {
        List<Jmh.Result> rs = Jmh.parse(REPORT);
        assertEquals(2, rs.size());
        Jmh.Result vt = rs.get(0);
        assertEquals("unpinned.snippets.S01_IoBoundExecutors.sleepingTasksOnExecutor", vt.benchmark());
        assertEquals("sleepingTasksOnExecutor", vt.method());
        assertEquals(Map.of("executor", "virtual", "sleepMs", "50", "tasks", "500"), vt.params());
        assertEquals("avgt", vt.mode());
        assertEquals(52.5, vt.score());
        assertEquals(3.25, vt.error());
        assertEquals("ms/op", vt.unit());
        assertArrayEquals(new double[] {52.0, 53.0}, vt.samples());
        assertTrue(Double.isNaN(rs.get(1).error()), "one iteration: JMH's \"NaN\" error reads as NaN");
        assertEquals(Jmh.parse(REPORT), rs, "records with arrays compare by content");
        assertEquals(List.of(), Jmh.parse("[]"));
        assertThrows(IllegalArgumentException.class, () -> Jmh.parse("{\"not\": \"a report\"}"));
    }

    @Test
    void buildsTheCommandAndRefusesBadInput(@TempDir Path home) throws Exception {
        Files.createDirectories(home.resolve("snippets"));
        Files.writeString(home.resolve("snippets/S01_X.java"), "class S01_X {}");
        Map<String, String> params = new LinkedHashMap<>();
        params.put("tasks", "16");
        params.put("executor", "virtual,fixed-8");
        List<String> cmd = Jmh.command(home, "S01_X.java", params, "-i", "1");
        List<String> expected = new java.util.ArrayList<>(List.of(home.resolve("tools/jbang").toString()));
        JmhArgs.quietUnsafe(Runtime.version().feature()).forEach(f -> expected.add("--runtime-option=" + f));
        expected.addAll(List.of("snippets/S01_X.java", "-i", "1", "-p", "tasks=16", "-p", "executor=virtual,fixed-8"));
        assertEquals(expected, cmd);
        assertMessage("snippet must be a file name in snippets/", () -> Jmh.command(home, "../etc/passwd", Map.of()));
        assertMessage("no snippet S09_Missing.java in", () -> Jmh.command(home, "S09_Missing.java", Map.of()));
        assertMessage("jmhArgs must not contain -rff", () -> Jmh.command(home, "S01_X.java", Map.of(), "-rff", "x.json"));
        assertMessage("parameter names must be Java identifiers", () -> Jmh.command(home, "S01_X.java", Map.of("a b", "1")));
        assertMessage("parameter tasks needs a value", () -> Jmh.command(home, "S01_X.java", Map.of("tasks", "")));
    }

    @Test
    void killsTheWholeProcessTree() throws Exception {
        // A shell that starts a grandchild, like JBang starting JMH's forked JVM.
        Process p = new ProcessBuilder("bash", "-c", "sleep 30 & sleep 30; wait").start();
        try {
            Thread.sleep(200);
            List<ProcessHandle> tree = p.descendants().toList();
            assertTrue(!tree.isEmpty(), "the shell should have children");
            Jmh.destroyTree(p);
            assertTrue(!p.isAlive());
            for (ProcessHandle h : tree) assertTrue(!h.isAlive(), "descendant " + h.pid() + " survived");
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void jmhArgsUserFlagsWinFlagByFlag() {
        assertArrayEquals(new String[] {"-f", "1", "-wi", "1", "-w", "1s", "-i", "1", "-r", "1s"},
                JmhArgs.merge(JmhArgs.QUICK, "-i", "1"));
        assertArrayEquals(JmhArgs.QUICK.toArray(), JmhArgs.merge(JmhArgs.QUICK));
        assertArrayEquals(new String[] {"-f", "1", "-p", "updates=50000", "-p", "tasks=16"},
                JmhArgs.merge(List.of("-f", "1", "-p", "updates=50000"), "-p", "tasks=16"));
        assertArrayEquals(new String[] {"-f", "1", "-p", "updates=2000"},
                JmhArgs.merge(List.of("-f", "1", "-p", "updates=50000"), "-p", "updates=2000"));
        assertArrayEquals(new String[] {"-f", "2", "-prof", "gc", "-prof", "stack", "-rf", "json", "S01.*"},
                JmhArgs.merge(List.of("-f", "1", "-prof", "gc"), "S01.*", "-prof", "stack", "-f", "2", "-rf", "json"));
        assertArrayEquals(new String[] {"-f", "1", "-h"}, JmhArgs.merge(List.of("-f", "1"), "-h"));
        assertArrayEquals(new String[] {"-i", "3"}, JmhArgs.merge(List.of("-i", "1"), "-i", "2", "-i", "3"));
        assertEquals(JmhArgs.FULL, JmhArgs.defaults(Profile.FULL, 21));
        assertEquals(JmhArgs.QUICK, JmhArgs.defaults(Profile.QUICK, 21));
        assertEquals("--sun-misc-unsafe-memory-access=allow", JmhArgs.defaults(Profile.QUICK, 25).getLast());
        assertTrue(JmhArgs.setsParam("updates", "-i", "1", "-p", "updates=7"));
        assertTrue(!JmhArgs.setsParam("updates", "-p", "tasks=7"));
        assertMessage("JMH option -i needs a value", () -> JmhArgs.merge(JmhArgs.QUICK, "-i"));
        assertMessage("JMH option -p needs name=value", () -> JmhArgs.merge(JmhArgs.QUICK, "-p", "16"));
    }
}
