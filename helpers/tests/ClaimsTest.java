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
    void theLedgerReadsQuotedFieldsWithCommasQuotesAndKoreanAsText(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("claims.csv");
        Files.writeString(csv, String.join(",", Claims.HEADER) + "\n"
                + "x-1,src,04,04-exp,\"a, \"\"quoted\"\" 빠르다\",a rule,\r\n"
                + "x-2,src,05,,plain,,not here\n");
        var claims = Claims.ledger(csv);
        assertEquals(List.of(
                new Claims.Claim("x-1", "src", "04", "04-exp", "a, \"quoted\" 빠르다", "a rule", ""),
                new Claims.Claim("x-2", "src", "05", "", "plain", "", "not here")), claims);
    }

    @Test
    void aLedgerWithAnotherHeaderIsRefusedInOneLine(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("claims.csv");
        Files.writeString(csv, "id,claim\nx-1,plain\n");
        var e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> Claims.ledger(csv));
        assertTrue(e.getMessage().contains("must start with the header") && !e.getMessage().contains("\n"), e.getMessage());
    }

    @Test
    void aRowWithTooFewFieldsIsRefusedInOneLine(@TempDir Path dir) throws Exception {
        Path csv = dir.resolve("claims.csv");
        Files.writeString(csv, String.join(",", Claims.HEADER) + "\nx-1,src,04\n");
        var e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> Claims.ledger(csv));
        assertTrue(e.getMessage().contains("claims ledger") && !e.getMessage().contains("\n"), e.getMessage());
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
