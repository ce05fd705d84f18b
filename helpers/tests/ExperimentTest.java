package unpinned.core;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

public class ExperimentTest {
    @Test
    void usageIsGeneratedFromTheDeclarationsWithBothProfilesDefaults() {
        String usage = Experiment.named("S99", "a test experiment", null)
                .count("--threads", 100, 10_000, 1, 1_000_000, "virtual threads started")
                .number("--duration-s", 2, 10, 1, 600, "seconds measured")
                .oneOf("--mode", "virtual", List.of("virtual", "platform"), "which threads")
                .flag("--deps", "real dependencies")
                .usage();
        assertTrue(usage.startsWith("usage: S99 (a test experiment)"), usage);
        assertTrue(usage.contains("--threads N") && usage.contains("(1..1000000; quick 100, full 10000)"), usage);
        assertTrue(usage.contains("--duration-s X") && usage.contains("quick 2, full 10"), usage);
        assertTrue(usage.contains("--mode virtual|platform") && usage.contains("(default virtual)"), usage);
        assertTrue(usage.contains("--deps") && usage.contains("real dependencies"), usage);
    }

    @Test
    void anOptionDeclaredTwiceOrWithoutDashesIsAMistakeOfTheSnippet() {
        BoundsTest.assertMessage("--n declared twice", () -> Experiment.named("S99", "t", null)
                .count("--n", 1, 1, 1, 2, "n").count("--n", 1, 1, 1, 2, "n"));
        BoundsTest.assertMessage("an option starts with --, got n", () -> Experiment.named("S99", "t", null)
                .count("n", 1, 1, 1, 2, "n"));
    }
}
