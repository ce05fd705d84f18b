package unpinned.experiments;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

public class SpringLoadTest {
    @Test
    void theWarmUpBetweenLevelsIsTheLongestResponseTimeByLittlesLaw() {
        // full seminar /io: 2,000 users on 200 threads, 1 s each, wait 2,000 x 1 / 200 = 10 s for their queue
        assertEquals(10.0, SpringLoad.levelWarmUp(3, List.of(200, 1000, 2000), 200, 1.0), 1e-9);
        // quick: 1,000 users x 0.2 s / 200 threads = 1 s, under the JIT's 2 s
        assertEquals(2.0, SpringLoad.levelWarmUp(2, List.of(100, 1000), 200, 0.2), 1e-9);
        // fewer users than threads: each waits only its own service time
        assertEquals(5.0, SpringLoad.levelWarmUp(1, List.of(10, 50), 200, 5.0), 1e-9);
        // one level has no level after it to warm up
        assertEquals(3.0, SpringLoad.levelWarmUp(3, List.of(2000), 200, 1.0), 1e-9);
    }
}
