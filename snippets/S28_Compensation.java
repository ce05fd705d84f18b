///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/Carriers.java
//SOURCES ../helpers/unpinned/Profile.java
//SOURCES ../helpers/unpinned/Machine.java
//SOURCES ../helpers/unpinned/Course.java
//SOURCES ../helpers/unpinned/Json.java
//SOURCES ../helpers/unpinned/Results.java
//SOURCES ../helpers/unpinned/Measurement.java
//SOURCES ../helpers/unpinned/RunGuard.java
//SOURCES ../helpers/unpinned/Cli.java
//SOURCES ../helpers/unpinned/Protocol.java
//SOURCES ../helpers/unpinned/Jdks.java
//SOURCES ../helpers/unpinned/ChildRun.java
//SOURCES ../helpers/unpinned/Show.java
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
 * Checked in the JDK 21.0.8 runtime's bytecode (javap -c java.lang.Object, java.io.FileInputStream) and in
 * JDK 25.0.3's src.zip (java/lang/Object.java, java/io/FileInputStream.java, java/lang/Process.java).
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

import unpinned.Carriers;
import unpinned.Cli;
import unpinned.Jdks;
import unpinned.Profile;
import unpinned.Protocol;
import unpinned.Results;

import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;

public class S28_Compensation {
    static final String USAGE = """
            usage: S28_Compensation [--case NAME|all] [--threads N] [--sleep-ms S] [--carriers P] [--max-pool-size M]
                                    [--jdk 21|course]
              --case NAME        none, synchronized-sleep, object-wait, process-read, several comma-separated, or all
              --threads N        virtual threads per case, 1..100 (default 3)
              --sleep-ms S       how long each blocks, 20..10,000 ms (default 200)
              --carriers P       the scheduler's parallelism, 1..64 (default 1)
              --max-pool-size M  jdk.virtualThreadScheduler.maxPoolSize, P..256 (default: the JDK's, max(P, 256))
              --jdk 21|course    run on the JDK 21 runtime set-up installs, or the course JDK (default: this JVM)
            cases x threads x sleep-ms may be at most 10 minutes (if every case held its carrier).""";

    static final String ID = "s28-compensation";
    static final List<String> CASES = List.of("none", "synchronized-sleep", "object-wait", "process-read");
    static final String MXBEAN = "jdk.management.VirtualThreadSchedulerMXBean";

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

    // ---- the measurement --------------------------------------------------------------------------------------

    record Options(List<String> cases, int threads, int sleepMs, int carriers, Integer maxPoolSize) {}

    public static void main(String[] args) {
        args = Jdks.honourJdkOption("S28", "S28_Compensation.java", args);
        Profile.announceOrExit("S28");
        Options o = parse(args);
        System.setProperty("jdk.virtualThreadScheduler.parallelism", Integer.toString(o.carriers()));
        if (o.maxPoolSize() != null) {
            System.setProperty("jdk.virtualThreadScheduler.maxPoolSize", o.maxPoolSize().toString());
        }
        try {
            run(o);
        } catch (Exception | OutOfMemoryError e) {
            System.err.println("S28: " + (e.getMessage() != null ? e.getMessage() : e.toString()) + "; nothing saved");
            System.exit(1);
        }
    }

    static Options parse(String[] args) {
        Cli cli = Cli.orExit("S28", USAGE, args, Set.of("--case", "--threads", "--sleep-ms", "--carriers",
                "--max-pool-size"), Set.of());
        try {
            List<String> chosen = cli.someOf("--case", CASES);
            List<String> cases = CASES.stream().filter(chosen::contains).toList(); // always in this order (spares linger)
            int threads = cli.intValue("--threads", 3, 1, 100);
            int sleepMs = cli.intValue("--sleep-ms", 200, 20, 10_000);
            int carriers = cli.intValue("--carriers", 1, 1, 64);
            Integer max = cli.has("--max-pool-size") ? cli.intValue("--max-pool-size", carriers, carriers, 256) : null;
            if ((long) cases.size() * threads * sleepMs > TimeUnit.MINUTES.toMillis(10)) {
                throw new IllegalArgumentException("cases x --threads x --sleep-ms is over 10 minutes (600 s):"
                        + " use fewer --threads or a shorter --sleep-ms");
            }
            Results.checkDir();
            return new Options(cases, threads, sleepMs, carriers, max);
        } catch (IllegalArgumentException | IllegalStateException e) {
            return Cli.exit("S28", e.getMessage());
        }
    }

    static void run(Options o) throws Exception {
        ForkJoinPool pool = Carriers.pool(); // the first virtual thread: the scheduler is created now
        if (pool.getParallelism() != o.carriers()) {
            throw new IllegalStateException(String.format(Locale.ROOT, "the scheduler has %d carriers, not the %d"
                    + " asked for: a virtual thread was created before main set the properties",
                    pool.getParallelism(), o.carriers()));
        }
        int n = o.threads(), s = o.sleepMs();
        String max = o.maxPoolSize() == null ? "the JDK's default" : o.maxPoolSize().toString();
        System.out.printf(Locale.ROOT, "%d carrier%s (checked), maxPoolSize %s, Java %s; %d virtual threads block"
                        + " %,d ms per case: ~%,d ms if they overlap (unmounted or compensated), ~%,d ms if they"
                        + " take turns%n", o.carriers(), o.carriers() == 1 ? "" : "s", max, Runtime.version(), n, s,
                s, (long) s * (n + o.carriers() - 1) / o.carriers());
        List<Map<String, Object>> rows = new ArrayList<>();
        for (String name : o.cases()) {
            Protocol.progress("case " + name);
            List<Process> children = new ArrayList<>();
            try {
                if (name.equals("process-read")) {
                    for (int i = 0; i < n; i++) {
                        children.add(new ProcessBuilder("sleep", String.format(Locale.ROOT, "%.3f", s / 1e3))
                                .redirectErrorStream(true).start());
                    }
                }
                int before = pool.getPoolSize();
                Carriers.Batch b = Carriers.timeBatch("case " + name, "s28-" + name + "-", n,
                        Duration.ofMillis(2L * n * s).plusSeconds(60), pool, i -> {
                            switch (name) {
                                case "none" -> Thread.sleep(s);
                                case "synchronized-sleep" -> synchronizedSleep(s);
                                case "object-wait" -> objectWait(s);
                                case "process-read" -> processRead(children.get(i));
                                default -> throw new IllegalArgumentException("no case " + name);
                            }
                        });
                boolean grew = b.carriersMax() > o.carriers();
                Long mxPoolSize = mxBeanPoolSize();
                System.out.printf(Locale.ROOT, "%-18s %,6.0f ms = %.2f x S | pool size %d before, max %d during%s"
                                + " -> %s%n", name, b.elapsedMs(), b.elapsedMs() / s, before, b.carriersMax(),
                        mxPoolSize == null ? "" : " (MXBean after: " + mxPoolSize + ")",
                        grew ? "more carriers than parallelism (compensated)" : "no carrier added");
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("case", name);
                row.put("elapsedMs", Math.round(b.elapsedMs() * 10) / 10.0);
                row.put("ratioToSleep", Math.round(b.elapsedMs() / s * 1000) / 1000.0);
                row.put("poolSizeBefore", before);
                row.put("poolSizeMax", b.carriersMax());
                row.put("aboveParallelism", grew);
                row.put("mxBeanPoolSizeAfter", mxPoolSize);
                rows.add(row);
            } finally {
                for (Process p : children) p.destroyForcibly();
            }
        }
        Map<String, Object> data = new LinkedHashMap<>();
        data.put("javaVersion", Runtime.version().toString());
        data.put("feature", Runtime.version().feature());
        data.put("parallelism", pool.getParallelism());
        data.put("maxPoolSize", o.maxPoolSize());
        data.put("threads", n);
        data.put("sleepMs", s);
        data.put("cases", rows);
        Protocol.result(data);
        System.out.println("saved " + Results.save(ID, data));
    }

    /** VirtualThreadSchedulerMXBean.getPoolSize() on JDK 24+ (null before): reflection, so 21 runs these classes. */
    static Long mxBeanPoolSize() {
        try {
            Class<?> type = Class.forName(MXBEAN);
            @SuppressWarnings("unchecked")
            Object bean = ManagementFactory.getPlatformMXBean((Class) type);
            return ((Number) type.getMethod("getPoolSize").invoke(bean)).longValue();
        } catch (ReflectiveOperationException | IllegalArgumentException e) {
            return null;
        }
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
