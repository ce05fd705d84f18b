package unpinned.running;

import unpinned.workloads.SleepServerTest;
import unpinned.core.Profile;
import unpinned.core.RunGuard;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static unpinned.workloads.SleepServerTest.assertMessage;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

public class JmhTest {

    // The shape JMH 1.37 writes with -rf json (trimmed): one fork of 2 iterations, and one with a single
    // iteration, where JMH writes the error as the string "NaN".
    public static final String REPORT = """
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
                    "secondaryMetrics" : {
                        "batches" : { "score" : 21.0, "scoreError" : "NaN", "scoreUnit" : "#", "rawData" : [ [ 10.0, 11.0 ] ] }
                    }
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
        assertArrayEquals(new double[] {10.0, 11.0}, vt.secondary("batches"));
        assertMessage("sleepingTasksOnExecutor has no secondary metric 'cpu'; it has [batches]", () -> vt.secondary("cpu"));
        assertTrue(rs.get(1).secondary().isEmpty());
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
        List<String> expected = List.of(home.resolve("tools/jbang").toString(),
                "snippets/S01_X.java", "-i", "1", "-p", "tasks=16", "-p", "executor=virtual,fixed-8");
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
            Processes.destroyTree(p);
            assertTrue(!p.isAlive());
            for (ProcessHandle h : tree) assertTrue(!h.isAlive(), "descendant " + h.pid() + " survived");
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void jmhArgsUserFlagsWinFlagByFlag() {
        assertArrayEquals(new String[] {"-f", "1", "-wi", "1", "-w", "1s", "-i", "1", "-r", "500ms", "-foe", "true"},
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

    @Test
    void snippetParametersAreValidatedWithWhatIsAllowed() {
        var params = JmhArgs.params("-f", "1", "-p", "tasks=16,abc", "-p", "executor=virtual");
        assertEquals(List.of("16", "abc"), params.get("tasks"));
        assertMessage("-p tasks must be a whole number from 1 to 1,000; got 'abc'",
                () -> JmhArgs.requireInts(params, "tasks", 1, 1_000));
        assertMessage("-p tasks must be a whole number from 1 to 1,000; got '-5'",
                () -> JmhArgs.requireInts(JmhArgs.params("-p", "tasks=-5"), "tasks", 1, 1_000));
        assertMessage("-p executor must be one of fixed-cores, virtual; got 'bogus'",
                () -> JmhArgs.requireOneOf(JmhArgs.params("-p", "executor=bogus"), "executor", List.of("fixed-cores", "virtual")));
        JmhArgs.requireOneOf(params, "executor", List.of("fixed-cores", "virtual"));
        JmhArgs.requireInts(params, "missing", 1, 2); // absent: the snippet's default applies
        assertTrue(JmhArgs.QUICK.containsAll(List.of("-foe", "true")) && JmhArgs.FULL.containsAll(List.of("-foe", "true")),
                "a benchmark that throws must fail the run");
    }

    /** A benchmark's shape: parameters on the class itself, in a state class, and inherited. */
    public static class Base {
        @org.openjdk.jmh.annotations.Param("1")
        public int inherited;
    }

    public static class Bench extends Base {
        @org.openjdk.jmh.annotations.Param({"a", "b"})
        public String executor;

        static class Batch {
            @org.openjdk.jmh.annotations.Param("500")
            public int tasks;
        }
    }

    @Test
    void onlyTheBenchmarksOwnParametersAreAcceptedAndTheUsageNamesThem() {
        List<String> defaults = List.of("-f", "1", "-p", "tasks=50", "-foe", "true");
        Map<String, List<String>> known = JmhArgs.parameters(Bench.class, defaults);
        assertEquals(Map.of("executor", List.of("a", "b"), "tasks", List.of("50"), "inherited", List.of("1")), known,
                "a -p in the snippet's defaults replaces the annotation's value");
        JmhArgs.requireKnown(JmhArgs.params("-p", "tasks=4", "-p", "executor=a"), known.keySet());
        assertMessage("-p task is not a parameter of this benchmark; its parameters: executor, inherited, tasks",
                () -> JmhArgs.requireKnown(JmhArgs.params("-p", "task=5"), known.keySet()));
        String usage = JmhArgs.usage("S99", Bench.class, defaults);
        assertTrue(usage.startsWith("usage: S99 [-p name=value[,value...]]...") && usage.contains("    executor = a,b\n")
                && usage.contains("    tasks = 50\n") && usage.contains("yours win, flag by flag): -f 1 -foe true\n"), usage);
        assertArrayEquals(new String[] {"-f", "1", "S01.*"},
                JmhArgs.withoutReport(new String[] {"-f", "1", "-rf", "json", "-rff", "x.json", "S01.*"}));
        assertTrue(JmhArgs.HELP.containsAll(List.of("-h", "--help")));
    }

    @Test
    void progressShowsOneLinePerBenchmarkAndCountsWhatStarted() {
        Jmh.Progress p = new Jmh.Progress();
        assertEquals(null, p.line("# Warmup: 1 iterations, 1 s each"));
        assertEquals(null, p.line("# Measurement: 2 iterations, 1 s each"));
        assertEquals(null, p.line("# Benchmark: unpinned.snippets.S01_IoBoundExecutors.sleepingTasksOnExecutor"));
        assertEquals("sleepingTasksOnExecutor (executor=fixed-8, tasks=500) · starting",
                p.line("# Parameters: (executor = fixed-8, tasks = 500)"));
        assertEquals("sleepingTasksOnExecutor (executor=fixed-8, tasks=500) · warm-up 1/1: 3,164 ms/op",
                p.line("# Warmup Iteration   1: 3164.123 ms/op"));
        assertEquals("sleepingTasksOnExecutor (executor=fixed-8, tasks=500) · iteration 2/2: 51.20 ms/op",
                p.line("Iteration   2: 51.2 ms/op"));
        assertEquals(null, p.line("Result \"unpinned.snippets.S01_IoBoundExecutors.sleepingTasksOnExecutor\":"));
        assertEquals("sleepingTasksOnExecutor (executor=fixed-8, tasks=500): 3,162 ± 12.35 ms/op\n",
                p.line("  3162.290 ±(99.9%) 12.345 ms/op [Average]"));
        assertEquals(null, p.line("# Benchmark: unpinned.snippets.S01_IoBoundExecutors.other"));
        p.line("Result \"unpinned.snippets.S01_IoBoundExecutors.other\":");
        assertEquals("other: 3,160 ms/op\n", p.line("  3160.317 ms/op"));
        assertEquals(2, p.started);
        assertEquals("Building jar for S01.java...", p.line("[jbang] Building jar for S01.java..."));
    }

    /** A stand-in for tools/jbang that prints JMH-like output, writes a report with one result, and exits with {@code exit}. */
    public static Path fakeCourse(Path home, int benchmarksStarted, int exit) throws Exception {
        Files.createDirectories(home.resolve("snippets"));
        Files.createDirectories(home.resolve("tools"));
        Files.writeString(home.resolve("snippets/S01_X.java"), "class S01_X {}");
        String first = REPORT.substring(REPORT.indexOf('{'), REPORT.indexOf("\"jmhVersion\"", REPORT.indexOf("\"jmhVersion\"") + 1));
        String report = "[" + first.substring(0, first.lastIndexOf(',')) + "]";
        StringBuilder script = new StringBuilder("#!/usr/bin/env bash\n");
        for (int i = 0; i < benchmarksStarted; i++) script.append("echo '# Benchmark: a.B.m").append(i).append("'\n");
        script.append("while [ $# -gt 0 ]; do [ \"$1\" = -rff ] && out=$2; shift; done\n");
        script.append("cat > \"$out\" <<'JSON'\n").append(report).append("\nJSON\n");
        script.append("exit ").append(exit).append("\n");
        Path jbang = home.resolve("tools/jbang");
        Files.writeString(jbang, script);
        jbang.toFile().setExecutable(true);
        return home;
    }

    @Test
    void aBenchmarkThatFindsJmhsLockTakenAsItStartsWaitsAndStartsAgain(@TempDir Path tmp) throws Exception {
        Path home = fakeCourse(tmp.resolve("raced"), 1, 0);
        Path jbang = home.resolve("tools/jbang");
        // the first start loses JMH's lock to a benchmark that took it a moment earlier
        Path tried = home.resolve("tried");
        Files.writeString(jbang, Files.readString(jbang).replaceFirst("\n", "\n[ -e '" + tried + "' ] || { touch '" + tried + "';"
                + " echo 'S01: the benchmark failed (ERROR: Another JMH instance might be running. Unable to acquire"
                + " the JMH lock (/tmp/jmh.lock), exiting.)'; exit 1; }\n"));
        RunGuard.reset();
        assertEquals(1, Jmh.run(home, "S01_X.java", Map.of()).size());
        assertTrue(Files.exists(tried), "the first start was refused");
        assertFalse(RunGuard.halted(), "the second start measured: nothing in the queue is refused");
        assertEquals("another benchmark holds JMH's lock", new Jmh.Progress().line("S01: the benchmark failed (ERROR:"
                + " Another JMH instance might be running. Unable to acquire the JMH lock (/tmp/jmh.lock), exiting.)"),
                "a passing line, not the refusal with its temporary path");
    }

    @Test
    void aRunThatFailsOrReportsFewerResultsThanItStartedRaises(@TempDir Path tmp) throws Exception {
        assertEquals(1, Jmh.run(fakeCourse(tmp.resolve("ok"), 1, 0), "S01_X.java", Map.of()).size());
        IllegalStateException failed = assertThrows(IllegalStateException.class,
                () -> Jmh.run(fakeCourse(tmp.resolve("failed"), 1, 1), "S01_X.java", Map.of()));
        assertTrue(failed.getMessage().contains("failed with exit code 1"), failed.getMessage());
        assertThrows(IllegalStateException.class, () -> Jmh.run(tmp.resolve("ok"), "S01_X.java", Map.of()),
                "right after a failed measurement, the next one in the queue is refused");
        RunGuard.reset();
        IllegalStateException partial = assertThrows(IllegalStateException.class,
                () -> Jmh.run(fakeCourse(tmp.resolve("partial"), 2, 0), "S01_X.java", Map.of()));
        assertTrue(partial.getMessage().contains("reported 1 results for the 2 benchmarks it started"), partial.getMessage());
        assertTrue(RunGuard.halted(), "a failed measurement stops what the queue would show next");
        RunGuard.reset();
    }

    @Test
    void onlyTroubleIsShownBesidesTheProgressLine() {
        for (String shown : List.of("java.lang.IllegalStateException: boom", "ERROR: benchmark failed",
                "S01: -p tasks must be a whole number", "WARNING: A terminally deprecated method", "Error: x",
                "Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space",
                "S13_X.java:12: error: cannot find symbol", "S03: the server failed to start",
                "[unpinned] cannot use the font x.otf: bad table")) {
            assertTrue(ChildRun.SHOWN.matcher(shown).matches(), shown);
        }
        for (String hidden : List.of("Benchmark    (executor)  Mode  Cnt  Score   Error  Units",
                "  2,500 requests in 5.0 s = 500.0 req/s, 0 errors", "# Warmup Iteration   1: 3164.123 ms/op",
                // a child's results that name a failure or a doubt (chapters 04 and 05 printed them as if trouble)
                "  jdk.VirtualThreadSubmitFailed          0",
                "contended-monitor    2 threads x 200 ms on 1 carrier: 406 ms = 2.03 x the sleep; the time can't tell",
                "forname-slow-loader  2 threads x 200 ms: 2 pinned events (reason: Freeze or preempt failed (2) x2)")) {
            assertFalse(ChildRun.SHOWN.matcher(hidden).matches(), hidden);
        }
    }
}
