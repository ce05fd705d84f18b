package unpinned.running;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

public class AsyncProfilerTest {
    @Test
    void theJarsFolderForEachPlatformAndNoneForTheOthers() {
        assertEquals(Optional.of("linux-x64"), AsyncProfiler.platform("Linux", "amd64"));
        assertEquals(Optional.of("linux-arm64"), AsyncProfiler.platform("Linux", "aarch64"));
        assertEquals(Optional.of("macos"), AsyncProfiler.platform("Mac OS X", "aarch64"));
        assertEquals(Optional.empty(), AsyncProfiler.platform("Windows 11", "amd64"));
        assertEquals(Optional.empty(), AsyncProfiler.platform("Linux", "riscv64"));
    }

    @Test
    void theLibraryIsFoundOnlyWhereSetUpPutIt(@TempDir Path home) throws Exception {
        assertEquals(Optional.empty(), AsyncProfiler.library(home, "Linux", "amd64"));
        Path lib = home.resolve(AsyncProfiler.FOLDER).resolve("linux-x64").resolve(AsyncProfiler.LIBRARY);
        Files.createDirectories(lib.getParent());
        Files.writeString(lib, "not a library");
        assertEquals(Optional.of(lib), AsyncProfiler.library(home, "Linux", "x86_64"));
        assertEquals(Optional.empty(), AsyncProfiler.library(home, "Linux", "aarch64"));
        assertEquals(Optional.empty(), AsyncProfiler.library(null, "Linux", "amd64"));
    }

    @Test
    void aCommandWithQuotesOrNothingInItIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> AsyncProfiler.execute(""));
        var e = assertThrows(IllegalArgumentException.class, () -> AsyncProfiler.execute("start,file=\"x\""));
        assertTrue(e.getMessage().contains("async-profiler options"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> AsyncProfiler.dump("svg", Path.of("x")));
    }
}
