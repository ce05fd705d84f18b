package unpinned.chapters;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

public class ClaimsTest {
    @Test
    void theLedgerReadsQuotedFieldsWithCommasQuotesAndKorean() {
        var rows = Claims.parseCsv("id,claim\nx-1,\"a, \"\"quoted\"\" 빠르다\"\r\nx-2,plain\n");
        assertEquals(List.of(List.of("id", "claim"), List.of("x-1", "a, \"quoted\" 빠르다"), List.of("x-2", "plain")), rows);
    }

    @Test
    void aBandConfirmsInsideRefutesOutsideAndDependsBetween() {
        var band = Claims.atLeast(6.56, 1.1, "on cores");
        assertEquals(Claims.Verdict.CONFIRMED, band.of(8.2));
        assertEquals(Claims.Verdict.DEPENDS, band.of(3));
        assertEquals(Claims.Verdict.REFUTED, band.of(1.0));
        assertEquals(Claims.Verdict.REFUTED, Claims.within(0.9, 1.03).of(1.2));
        assertEquals(Claims.Verdict.CONFIRMED, Claims.atMost(1.1).of(1.1));
    }

    @Test
    void aClaimWhoseExperimentDidNotRunHasNoVerdict(@TempDir Path empty) {
        var claim = new Claims.Claim("pr-15", "vt-http-pr", "04", "04-cpu-endpoint", "nothing for CPU work", "a rule", "");
        var d = Claims.decide(List.of(claim), empty).get(0);
        assertEquals(Claims.Verdict.NOT_RUN, d.verdict());
        assertTrue(d.numbers().isEmpty() && d.because().contains("04-cpu-endpoint"), d.toString());
        var declared = new Claims.Claim("pr-1", "vt-http-pr", "01", "01-sleep-endpoint", "8.2 x", "a rule", "");
        var n = Claims.decide(List.of(declared), empty).get(0);
        assertEquals(Claims.Verdict.NOT_RUN, n.verdict());
        assertTrue(n.because().contains("01-sleep-endpoint"), n.toString());
    }

    @Test
    void aVerdictNamesItselfAndKeepsItsNumbersAndBandForThePage() {
        var d = Claims.decide("sem-11", Map.of("JDK 25", 400.0, "sleepMs", 200.0));
        assertEquals(Claims.Verdict.CONFIRMED, d.verdict());
        assertTrue(d.sentence().startsWith("**sem-11: confirmed**") && d.sentence().contains("2.00 x"), d.sentence());
        assertEquals("sem-11", d.outcome().values().get("claim"));
        assertEquals(1.8, (double) d.outcome().values().get("confirmFrom"), 1e-9);
    }

    @Test
    void everyTestableRowOfTheLedgerIsDecidedOnceAndEveryDecisionHasARow() throws Exception {
        Path csv = Path.of(System.getProperty("user.dir")).resolve("data/claims.csv");
        if (!Files.isRegularFile(csv)) csv = unpinned.core.Course.home().resolve("data/claims.csv");
        var testable = Claims.ledger(csv).stream().filter(Claims.Claim::testable).map(Claims.Claim::id).toList();
        var declared = Declarations.records().stream().flatMap(r -> ((List<?>) r.get("claims")).stream())
                .map(Object::toString).toList();
        var decided = new java.util.ArrayList<>(Claims.ruleIds());
        decided.addAll(declared);
        assertEquals(testable.stream().sorted().toList(), decided.stream().sorted().toList(),
                "each testable claim has exactly one rule or one declared expectation");
    }
}
