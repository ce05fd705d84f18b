package unpinned.course;

import unpinned.core.Course;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

public class ClaimsTest {
    @Test
    void theLedgerReadsQuotedFieldsWithCommasQuotesAndKorean() {
        var rows = Claims.parseCsv("id,claim\nx-1,\"a, \"\"quoted\"\" 빠르다\"\r\nx-2,plain\n");
        assertEquals(List.of(List.of("id", "claim"), List.of("x-1", "a, \"quoted\" 빠르다"), List.of("x-2", "plain")), rows);
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
    void aTestableClaimNoDeclarationDecidesIsRefusedByName(@TempDir Path empty) {
        var orphan = new Claims.Claim("x-1", "vt-http-pr", "01", "01-sleep-endpoint", "a claim", "a rule", "");
        var e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                () -> Claims.decide(List.of(orphan), empty));
        assertTrue(e.getMessage().contains("x-1") && e.getMessage().contains(".claims("), e.getMessage());
    }

    @Test
    void everyTestableRowOfTheLedgerIsDecidedOnceAndEveryDecisionHasARow() throws Exception {
        Path csv = Path.of(System.getProperty("user.dir")).resolve("data/claims.csv");
        if (!Files.isRegularFile(csv)) csv = unpinned.core.Course.home().resolve("data/claims.csv");
        var testable = Claims.ledger(csv).stream().filter(Claims.Claim::testable).map(Claims.Claim::id).toList();
        var declared = Declarations.records().stream().flatMap(r -> ((List<?>) r.get("claims")).stream())
                .map(Object::toString).toList();
        assertEquals(testable.stream().sorted().toList(), declared.stream().sorted().toList(),
                "each testable claim is decided by exactly one declared expectation");
    }
}
