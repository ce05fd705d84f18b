///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/chapters/Carriers.java
//SOURCES ../helpers/unpinned/core/Profile.java
//SOURCES ../helpers/unpinned/core/Machine.java
//SOURCES ../helpers/unpinned/core/Course.java
//SOURCES ../helpers/unpinned/core/Json.java
//SOURCES ../helpers/unpinned/core/Results.java
//SOURCES ../helpers/unpinned/core/Measurement.java
//SOURCES ../helpers/unpinned/core/RunGuard.java
//SOURCES ../helpers/unpinned/core/Cli.java
//SOURCES ../helpers/unpinned/core/Protocol.java
//SOURCES ../helpers/unpinned/core/Experiment.java
//SOURCES ../helpers/unpinned/chapters/SchedulerInternals.java
//SOURCES ../helpers/unpinned/running/Jdks.java
//SOURCES ../helpers/unpinned/running/ChildRun.java
//SOURCES ../helpers/unpinned/core/Show.java
//SOURCES ../helpers/unpinned/core/Busy.java
package unpinned.snippets;

/*
 * S28: when does the virtual-thread scheduler add a carrier (compensate) for a blocked one?
 *
 * The question: JEP 444 says the scheduler does not compensate for pinning. What it does compensate for is
 * "managed blocking": a call wrapped in jdk.internal.misc.Blocker.begin()/end(), which asks the pool
 * (CarrierThread.beginBlocking -> ForkJoinPool's compensated block) for a spare carrier while this one is
 * blocked in the OS, up to jdk.virtualThreadScheduler.maxPoolSize (default max(parallelism, 256)). N virtual
 * threads block S ms on P carriers (default 1), one case at a time, the pool's size sampled every 5 ms:
 *   none                Thread.sleep (the control: unmounts, nothing to compensate)
 *   synchronized-sleep  Thread.sleep inside synchronized (JDK 21-23: pins; the carrier is held, no spare)
 *   object-wait         Object.wait(S) inside synchronized (JDK 21: Object.wait(long) calls Blocker.begin;
 *                       JDK 24+, JEP 491: it unmounts instead)
 *   process-read        read() on a child process's standard output, a pipe that stays silent until the child
 *                       (`sleep S`) ends. JDK 21: FileInputStream.read calls Blocker.begin. JDK 25:
 *                       FileInputStream.read calls read0 with no Blocker (a FIFO read through it would hold the
 *                       carrier uncompensated), but a child's output is a Process.PipeInputStream, whose read()
 *                       overrides it with Blocker.begin(): still compensated.
 * (Checked in JDK 21.0.8's bytecode, javap -c, and in JDK 25.0.3's src.zip.)
 *
 * The bounds: on P = 1 carrier, a case that unmounts or is compensated lets the N blocks overlap: ~1 x S; a
 * case that holds the carrier with no spare makes them take turns: ~N x S. A compensated case shows a pool
 * larger than P; --max-pool-size P forbids it (then the compensated case takes N x S too). process-read's time
 * tells nothing: the children sleep side by side from their start, so once the first read returns the others
 * find their child gone; only the pool's size tells there.
 *
 * The pitfalls: a spare carrier stays alive 30 s after its block ends (the pool's keep-alive), so a later case
 * may reuse it: the cases run in the order above, and each reports the pool's size before it and its maximum
 * during it. The properties are read at the first virtual thread: main sets them first and checks the pool.
 * JDK 24+ has jdk.management.VirtualThreadSchedulerMXBean (parallelism, pool size): read through reflection,
 * so the same classes run on 21. Results go to results/s28-compensation/.
 */

import unpinned.chapters.Carriers;
import unpinned.core.Experiment;
import unpinned.running.Jdks;
import unpinned.core.Protocol;
import unpinned.chapters.SchedulerInternals;
import unpinned.chapters.SchedulerInternals.CompensationCase;

import java.io.InputStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;

public class S28_Compensation {
    static final List<String> CASES = List.of("none", "synchronized-sleep", "object-wait", "process-read");

    // ---- the code under study ---------------------------------------------------------------------------------

    static void synchronizedSleep(long ms) throws InterruptedException {
        Object own = new Object();
        synchronized (own) {
            Thread.sleep(ms);
        }
    }

    /** Waits on a lock of its own that nobody notifies; a spurious wake-up waits again. */
    static void objectWait(long ms) throws InterruptedException {
        Object own = new Object();
        synchronized (own) {
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
            for (long left; (left = end - System.nanoTime()) > 0; ) own.wait(Math.max(1, (left + 999_999) / 1_000_000));
        }
    }

    /** Reads a child's standard output (a pipe): blocks in read() until the child ends (EOF). */
    static void processRead(Process child) throws Exception {
        try (InputStream in = child.getInputStream()) {
            while (in.read() != -1) { } // `sleep` prints nothing
        }
    }

    /** Case {@code name} for thread {@code i} ({@code child}: its process, for process-read). */
    static void block(String name, int sleepMs, List<Process> children, int i) throws Exception {
        switch (name) {
            case "none" -> Thread.sleep(sleepMs);
            case "synchronized-sleep" -> synchronizedSleep(sleepMs);
            case "object-wait" -> objectWait(sleepMs);
            case "process-read" -> processRead(children.get(i));
            default -> throw new IllegalArgumentException("no case " + name);
        }
    }

    // ---- the measurement --------------------------------------------------------------------------------------

    public static void main(String[] args) {
        args = Jdks.honourJdkOption("S28", "S28_Compensation.java", args);
        Experiment.named("S28", "when the scheduler adds a carrier", "s28-compensation")
                .someOf("--case", CASES, "the ways to block")
                .count("--threads", 3, 3, 1, 100, "virtual threads per case")
                .count("--sleep-ms", 200, 200, 20, 10_000, "how long each blocks, ms")
                .count("--carriers", 1, 1, 1, 64, "the scheduler's parallelism")
                .count("--max-pool-size", 256, 256, 1, 256, "jdk.virtualThreadScheduler.maxPoolSize, P..256"
                        + " (default: the JDK's, max(P, 256))")
                .check(SchedulerInternals::checkCompensation)
                .notes("--jdk 21|course: run on the JDK 21 runtime set-up installs, or the course JDK (default: this"
                        + " JVM).\ncases x threads x sleep-ms may be at most 10 minutes (if every case held its"
                        + " carrier).")
                .budget(Duration.ofSeconds(3), Duration.ofSeconds(3))
                .run(args, S28_Compensation::measure);
    }

    /** Each case in turn (in the order above: a spare carrier lingers), its threads blocking at once. */
    static SchedulerInternals.Compensation measure(Experiment.Args a) throws Exception {
        int n = a.intCount("--threads"), s = a.intCount("--sleep-ms"), carriers = a.intCount("--carriers");
        Integer maxPool = a.given("--max-pool-size") ? a.intCount("--max-pool-size") : null;
        System.setProperty("jdk.virtualThreadScheduler.parallelism", Integer.toString(carriers));
        if (maxPool != null) System.setProperty("jdk.virtualThreadScheduler.maxPoolSize", maxPool.toString());
        ForkJoinPool pool = Carriers.pool(carriers); // the first virtual thread: the scheduler is created now
        SchedulerInternals.announceCompensation(carriers, maxPool, n, s);
        List<CompensationCase> rows = new ArrayList<>();
        for (String name : CASES.stream().filter(a.someOf("--case")::contains).toList()) {
            Protocol.progress("case " + name);
            List<Process> children = new ArrayList<>();
            try {
                for (int i = 0; name.equals("process-read") && i < n; i++) {
                    children.add(new ProcessBuilder("sleep", String.format(Locale.ROOT, "%.3f", s / 1e3))
                            .redirectErrorStream(true).start());
                }
                int before = pool.getPoolSize();
                Carriers.Batch b = Carriers.timeBatch("case " + name, "s28-" + name + "-", n,
                        Duration.ofMillis(2L * n * s).plusSeconds(60), pool, i -> block(name, s, children, i));
                rows.add(CompensationCase.of(name, b.elapsedMs(), s, before, b.carriersMax(), carriers));
                System.out.println(rows.get(rows.size() - 1).line());
            } finally {
                for (Process p : children) p.destroyForcibly();
            }
        }
        return new SchedulerInternals.Compensation(Runtime.version().toString(), Runtime.version().feature(),
                pool.getParallelism(), maxPool, n, s, rows);
    }

}

/*
 * How to run:
 *   tools/jbang compensation                      (four cases, 3 threads x 200 ms, on 1 carrier)
 *   tools/jbang compensation --jdk 21             (the same classes on the JDK 21 runtime)
 *   tools/jbang compensation --jdk 21 --max-pool-size 1   (no spare allowed)
 *
 * What you should see (2 cores, 3 threads x 200 ms on 1 carrier; elapsed / S, pool size max during the case):
 *   case                JDK 25.0.3                  JDK 21.0.8                  JDK 21.0.8, --max-pool-size 1
 *   none                1.0-1.1, 1                  1.0, 1                      1.0-1.3, 1
 *   synchronized-sleep  1.0, 1 (unmounts: JEP 491)  3.1-3.3, 1 (pinned, no spare) 3.1, 1
 *   object-wait         1.0, 1 (unmounts)           1.2, 4 (compensated)        3.0, 1 (no spare allowed)
 *   process-read        1.0-1.5, 2-4 (compensated)  1.0, 4 (the spares again)   1.0, 1 (the time can't tell)
 *   So pinning is never compensated (synchronized + sleep on 21: one carrier, the threads take turns); the
 *   managed blocking of Object.wait (21 only) and of a process pipe read (both) is, up to maxPoolSize. On 25
 *   the MXBean's pool size after the process-read case says the same (2-4); the spares leave after 30 s idle.
 */
