//SOURCES ../core/Expectations.java
//SOURCES ../core/Figure.java
//SOURCES ../core/Measurement.java
//SOURCES ../running/ThreadDump.java
package unpinned.experiments;

import unpinned.running.ThreadDump;

import unpinned.core.Expectations;
import unpinned.core.Expectations.Line;
import unpinned.core.Figure;
import unpinned.core.Measurement;

import com.sun.management.HotSpotDiagnosticMXBean;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.MBeanOperationInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Chapter 04's I/O path, timer path and unblocker, as snippet S29 (alias io-path) saves them, and the thread dumps it
 * takes of its own JVM: the DiagnosticCommand MBean's Thread.print (platform threads, text) and
 * HotSpotDiagnosticMXBean.dumpThreads (JSON: virtual threads too); what chapter 04 expects of them is
 * {@link #EXPECTED}. Needs ThreadDump.java (its JSON reader) and Measurement.java alongside.
 */
public final class IoPath {
    private IoPath() {}

    /**
     * What chapter 04 expects of the three waits, per JDK (each figure on the JDK furthest from its line): every
     * client parked in its socket read at once, holding no carrier; every sleeper's wake-up queued in a timer; the
     * monitor's contenders all BLOCKED at once on JDK 24+ (each unmounted, JEP 491), on JDK 21-23 at most one per
     * carrier (each pins its carrier; the others wait for one).
     */
    public static final Expectations<Map<String, Result>> EXPECTED = Expectations.<Map<String, Result>>of(
                    "04-io-path")
            .expect("socket-readers-park", "the clients parked in a socket read at once", "the clients",
                    runs -> Figure.lowest(runs.values(), r -> Figure.exact(r.sockets().readersParked())
                            .over(r.sockets().clients())), Line.atLeast(0.9))
            .expect("timers-hold-the-wake-ups", "the sleepers' wake-ups queued in the timer", "the sleepers",
                    runs -> Figure.lowest(timed(runs), r -> Figure.exact(r.timers().pending())
                            .over(r.timers().sleepers())), Line.atLeast(0.9))
            .untestableWhen(runs -> timed(runs).isEmpty() ? "no JDK let the timer's queue be read" : null)
            .expect("monitor-waiters-unmount-on-24", "the contenders BLOCKED at once on JDK 24+", "the contenders",
                    runs -> Figure.lowest(since24(runs, true), r -> Figure.exact(r.unblocker().blockedAtOnce())
                            .over(r.unblocker().contenders())), Line.atLeast(0.9))
            .untestableWhen(runs -> since24(runs, true).isEmpty() ? "no JDK 24 or later ran" : null)
            .expect("monitor-waiters-pin-before-24", "the contenders BLOCKED at once on JDK 21-23", "the carriers",
                    runs -> Figure.highest(since24(runs, false), r -> Figure.exact(r.unblocker().blockedAtOnce())
                            .over(r.carriers())), Line.atMost(1))
            .untestableWhen(runs -> since24(runs, false).isEmpty() ? "no JDK before 24 ran (set-up installs JDK 21)"
                    : null);

    static List<Result> timed(Map<String, Result> runs) {
        return runs.values().stream().filter(r -> r.timers().pending() != null).toList();
    }

    static List<Result> since24(Map<String, Result> runs, boolean since) {
        return runs.values().stream().filter(r -> (r.feature() >= 24) == since).toList();
    }

    /** Names of the JDK's poller threads: JDK 21 Read-/Write-Poller and -Updater; JDK 25 MasterPoller, SubPoller-N. */
    static final Pattern POLLER = Pattern.compile("Poller|-Updater");
    /** The timer threads: JDK 21's VirtualThread-unparker; JDK 25's ForkJoinPool-N-delayScheduler. */
    static final Pattern TIMER = Pattern.compile("VirtualThread-unparker|ForkJoinPool-\\d+-delayScheduler");
    static final String UNBLOCKER = "VirtualThread-unblocker";
    static final Pattern STANZA_HEAD = Pattern.compile("^\"(.+?)\" #(\\d+)");
    static final Pattern REGISTERED = Pattern.compile("registered = (\\d+)");

    /** What S29 saves: the three paths, each seen from a dump of the JVM while its threads wait. */
    public record Result(String javaVersion, int feature, int carriers, Sockets sockets, Timers timers,
                         Unblocker unblocker) implements Measurement.Measured {
        /** The readers parked at once (at most the clients started), and the contenders blocked at once. */
        @Override
        public List<Measurement> measurements() {
            return List.of(
                    Measurement.of("readers parked at once · JDK " + feature, sockets.readersParked(), "threads")
                            .bound(sockets.clients(), Measurement.Bound.UPPER),
                    Measurement.of("sleepers whose wake-up waits in a timer queue · JDK " + feature,
                            timers.pending() == null ? Double.NaN : timers.pending(), "tasks"),
                    Measurement.of("contenders blocked at once · JDK " + feature, unblocker.blockedAtOnce(),
                            "threads").bound(unblocker.contenders(), Measurement.Bound.UPPER));
        }

        /** One line per path, as S29 prints them. */
        public String summary() {
            return String.format(Locale.ROOT, "JDK %s, %d carriers%n  sockets: %s%n  timers:  %s%n  monitor: %s",
                    javaVersion, carriers, sockets.line(), timers.line(), unblocker.line());
        }
    }

    /** One JDK's figures, as chapter 04's table shows them. */
    public record Row(String jdk, String pollerThreads, String pollerMode, int readersParked, int carriers,
                      int carriersBusy, String timerThread, Long wakeUpsHeld, String unparkRanOn,
                      String unblocker, int contendersBlocked) {
        public static Row of(String jdk, Result r) {
            Timers t = r.timers();
            String ranOn = t.wakeUp() == null || t.wakeUp().caughtBy().isEmpty() ? "not caught"
                    : String.join(", ", t.wakeUp().caughtBy().keySet());
            return new Row(jdk, names(r.sockets().pollers()), r.sockets().pollerMode(), r.sockets().readersParked(),
                    r.carriers(), r.sockets().carriersBusy(), String.join(", ", t.timerThreads().stream()
                    .map(Seen::name).toList()), t.pending(), ranOn, r.unblocker().present() ? UNBLOCKER : "none",
                    r.unblocker().blockedAtOnce());
        }
    }

    /** A thread the dumps showed: its name, virtual or not (only in the JSON dump), its top frame. */
    public record Seen(String name, boolean virtual, String top) {}

    /** Section (a): N clients blocked reading a reply the server holds back. */
    public record Sockets(int clients, String pollerModeProperty, String pollerMode, List<Seen> pollers,
                          int platformPollers, int virtualPollers, int readersParked, int clientsDumped,
                          int carriersBusy, Integer pollerRegistered, String vthreadPollers, double replyMs) {
        public String line() {
            return String.format(Locale.ROOT, "%d of %d clients parked in a socket read at once, %d carrier(s)"
                    + " busy; pollers %s (mode %s, jdk.pollerMode %s)%s; all replies read %.0f ms after the"
                    + " server sent them", readersParked, clients, carriersBusy, names(pollers), pollerMode,
                    pollerModeProperty == null ? "unset" : pollerModeProperty, pollerRegistered == null ? ""
                            : "; Thread.vthread_pollers: " + pollerRegistered + " fds registered", replyMs);
        }
    }

    /** Section (b): N sleepers; the thread that holds their wake-ups and how many it holds; who ran the unparks. */
    public record Timers(int sleepers, int sleepersWaiting, List<Seen> timerThreads, Long pending,
                         String pendingFrom, boolean unparkerThread, boolean delaySchedulerThread, WakeUp wakeUp) {
        public String line() {
            return String.format(Locale.ROOT, "%d of %d sleepers TIMED_WAITING; timer thread(s) %s; %s pending"
                    + " wake-ups (%s); %s", sleepersWaiting, sleepers, names(timerThreads),
                    pending == null ? "?" : String.format(Locale.ROOT, "%,d", pending), pendingFrom,
                    wakeUp == null ? "wake-ups not sampled" : wakeUp.line());
        }
    }

    /**
     * Stacks sampled while sleepers due at one instant woke: the threads caught inside VirtualThread.unpark (or
     * parkTimeoutExpired), how often, and the first such stack from that frame down.
     */
    public record WakeUp(int wakeUps, double windowMs, Map<String, Long> timerCpuNanos, int samples,
                         Map<String, Integer> caughtBy, List<String> frames) {
        public String line() {
            return String.format(Locale.ROOT, "%d wake-ups over %.0f ms: timer threads' CPU meanwhile %s; %s",
                    wakeUps, windowMs, timerCpuNanos.entrySet().stream().map(e -> e.getKey() + " " + (e.getValue()
                            / 1_000) + " µs").toList(), caughtBy.isEmpty()
                            ? String.format(Locale.ROOT, "no unpark caught in %,d samples", samples)
                            : String.format(Locale.ROOT, "unpark caught on %s in %,d samples: %s", caughtBy,
                            samples, String.join(" <- ", frames)));
        }
    }

    /** Section (c): virtual threads contending on a monitor that main holds, then released. */
    public record Unblocker(int contenders, int blockedAtOnce, boolean present, String top, Long cpuNanosDuring,
                            double releaseMs) {
        public String line() {
            return String.format(Locale.ROOT, "%d of %d contenders BLOCKED at once; %s%s; all through the monitor"
                    + " %.0f ms after main let go", blockedAtOnce, contenders, present
                            ? UNBLOCKER + " present (" + top + ")" : "no " + UNBLOCKER + " thread",
                    cpuNanosDuring == null ? "" : String.format(Locale.ROOT, ", its CPU during the release %,d µs",
                            cpuNanosDuring / 1_000), releaseMs);
        }
    }

    /** Parking plumbing that tops most waiting stacks: passed over to show the code that waits. */
    static final Pattern PLUMBING = Pattern.compile("jdk\\.internal\\.misc\\.Unsafe\\.park|LockSupport\\.park"
            + "|VirtualThread\\.(park|yieldContinuation)|jdk\\.internal\\.vm\\.Continuation\\.|parkVirtualThread"
            + "|AbstractQueuedSynchronizer");

    /** The first frame of {@code frames} that is not parking plumbing (the top one if all are). */
    static String top(List<String> frames) {
        return frames.stream().filter(f -> !PLUMBING.matcher(f).find()).findFirst()
                .orElse(frames.isEmpty() ? "(no frames)" : frames.get(0));
    }

    static String names(List<Seen> seen) {
        if (seen.isEmpty()) return "none";
        return String.join(", ", seen.stream().map(s -> s.name() + (s.virtual() ? " (virtual)" : " (platform)"))
                .toList());
    }

    // ---- the dumps ------------------------------------------------------------------------------------------------

    /** One platform thread of Thread.print: its name and its lines (header, state, frames). */
    public record Stanza(String name, List<String> lines) {
        String top() {
            return IoPath.top(lines.stream().map(String::strip).filter(l -> l.startsWith("at "))
                    .map(l -> l.substring(3)).toList());
        }

        boolean carrying() {
            return lines.stream().anyMatch(l -> l.contains("Carrying virtual thread"));
        }
    }

    static final ObjectName DCMD;

    static {
        try {
            DCMD = new ObjectName("com.sun.management:type=DiagnosticCommand");
        } catch (Exception e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * A diagnostic command (as jcmd names it, e.g. "Thread.print") run in this JVM through the DiagnosticCommand
     * MBean; null when this JDK has no such command.
     */
    public static String dcmd(String command) throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        for (MBeanOperationInfo op : server.getMBeanInfo(DCMD).getOperations()) {
            if (!command.equals(op.getDescriptor().getFieldValue("dcmd.name"))) continue;
            boolean takesArgs = op.getSignature().length > 0;
            return (String) server.invoke(DCMD, op.getName(), takesArgs ? new Object[]{new String[0]}
                    : new Object[0], takesArgs ? new String[]{String[].class.getName()} : new String[0]);
        }
        return null;
    }

    /** Thread.print of this JVM, one stanza per platform thread. */
    public static List<Stanza> threadPrint() throws Exception {
        List<Stanza> out = new ArrayList<>();
        List<String> current = null;
        for (String line : dcmd("Thread.print").split("\\R")) {
            Matcher m = STANZA_HEAD.matcher(line);
            if (m.find()) {
                current = new ArrayList<>();
                out.add(new Stanza(m.group(1), current));
            }
            if (current != null) current.add(line);
        }
        return out;
    }

    /** The JSON dump of this JVM (virtual threads included), read and deleted. */
    static ThreadDump.Parsed jsonDump() throws IOException {
        Path dir = Files.createTempDirectory("s29-");
        Path file = dir.resolve("threads.json");
        try {
            ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class)
                    .dumpThreads(file.toString(), HotSpotDiagnosticMXBean.ThreadDumpFormat.JSON);
            return ThreadDump.parse(file);
        } finally {
            Files.deleteIfExists(file);
            Files.deleteIfExists(dir);
        }
    }

    /** The platform threads whose name matches, from Thread.print. */
    static List<Seen> platform(List<Stanza> print, Pattern names) {
        return print.stream().filter(s -> names.matcher(s.name()).find())
                .map(s -> new Seen(s.name(), false, s.top())).toList();
    }

    // ---- (a) sockets ----------------------------------------------------------------------------------------------

    /**
     * Both dumps while the clients (threads named {@code clientPrefix}N) wait for their replies: the poller threads
     * (platform ones from Thread.print, virtual ones only in the JSON dump), the clients parked in a socket read
     * (sun.nio.ch.Poller.poll under a read on their stack), the carriers carrying a virtual thread right then, and
     * Thread.vthread_pollers where this JDK has it.
     */
    public static Sockets sockets(int clients, String clientPrefix) throws Exception {
        List<Stanza> print = threadPrint();
        ThreadDump.Parsed json = jsonDump();
        List<Seen> pollers = new ArrayList<>(platform(print, POLLER));
        List<String> platformNames = print.stream().map(Stanza::name).toList();
        int parked = 0, dumped = 0;
        for (ThreadDump.Dumped t : json.threads()) {
            String name = t.name() == null ? "" : t.name();
            if (name.startsWith(clientPrefix)) {
                dumped++;
                boolean polling = t.stack().stream().anyMatch(f -> f.contains("sun.nio.ch.Poller.poll("));
                boolean reading = t.stack().stream().anyMatch(f -> f.contains(".read("));
                if (polling && reading) parked++;
            } else if (POLLER.matcher(name).find() && !platformNames.contains(name)) {
                pollers.add(new Seen(name, true, top(t.stack())));
            }
        }
        pollers.sort(java.util.Comparator.comparing(Seen::virtual).thenComparing(Seen::name)); // platform first
        int platformPollers = (int) pollers.stream().filter(p -> !p.virtual()).count();
        String mode = pollers.stream().anyMatch(p -> p.name().equals("MasterPoller")) ? "VTHREAD_POLLERS"
                : pollers.stream().anyMatch(p -> p.name().equals("Read-Poller")) ? "SYSTEM_THREADS" : "none seen";
        String vthreadPollers = dcmd("Thread.vthread_pollers");
        Integer registered = registered(vthreadPollers);
        int busy = (int) print.stream().filter(Stanza::carrying).count();
        return new Sockets(clients, System.getProperty("jdk.pollerMode"), mode, pollers, platformPollers,
                pollers.size() - platformPollers, parked, dumped, busy, registered,
                vthreadPollers == null ? null : vthreadPollers.strip(), Double.NaN);
    }

    /**
     * The file descriptors registered with the read pollers, summed from Thread.vthread_pollers' "Read I/O pollers:"
     * part ("[0] sun.nio.ch.EPollPoller@.. [registered = 80, owner = ..]"); null without that output.
     */
    static Integer registered(String vthreadPollers) {
        if (vthreadPollers == null) return null;
        int from = vthreadPollers.indexOf("Read I/O pollers:"), to = vthreadPollers.indexOf("Write I/O pollers:");
        String readPart = vthreadPollers.substring(Math.max(from, 0), to > from ? to : vthreadPollers.length());
        int sum = 0;
        Matcher m = REGISTERED.matcher(readPart);
        while (m.find()) sum += Integer.parseInt(m.group(1));
        return sum;
    }

    /** The same, with how long the replies took to reach every client once sent. */
    public static Sockets withReplyMs(Sockets s, double ms) {
        return new Sockets(s.clients(), s.pollerModeProperty(), s.pollerMode(), s.pollers(), s.platformPollers(),
                s.virtualPollers(), s.readersParked(), s.clientsDumped(), s.carriersBusy(), s.pollerRegistered(),
                s.vthreadPollers(), Math.round(ms * 10) / 10.0);
    }

    // ---- (b) timers -----------------------------------------------------------------------------------------------

    /** Thread.print while {@code waiting} of {@code sleepers} sleep: the timer threads, and the wake-ups they hold. */
    public static Timers timers(int sleepers, int waiting, ForkJoinPool pool) throws Exception {
        List<Seen> timerThreads = platform(threadPrint(), TIMER);
        Long pending = null;
        String from;
        try {
            // JDK 25: ForkJoinPool.getDelayedTaskCount() (public since 25; reflection: compiled for 21)
            pending = (Long) ForkJoinPool.class.getMethod("getDelayedTaskCount").invoke(pool);
            from = "the scheduler's ForkJoinPool.getDelayedTaskCount()";
        } catch (NoSuchMethodException e) {
            // JDK 21: the queue of VirtualThread.UNPARKER, a ScheduledThreadPoolExecutor (needs --add-opens)
            try {
                Field f = Class.forName("java.lang.VirtualThread").getDeclaredField("UNPARKER");
                f.setAccessible(true);
                pending = (long) ((ScheduledThreadPoolExecutor) f.get(null)).getQueue().size();
                from = "VirtualThread.UNPARKER's queue, a ScheduledThreadPoolExecutor";
            } catch (ReflectiveOperationException | RuntimeException denied) {
                from = "not readable here: " + denied;
            }
        }
        boolean unparker = timerThreads.stream().anyMatch(t -> t.name().equals("VirtualThread-unparker"));
        boolean delay = timerThreads.stream().anyMatch(t -> t.name().endsWith("-delayScheduler"));
        return new Timers(sleepers, waiting, timerThreads, pending, from, unparker, delay, null);
    }

    /** The same with the wake-ups sampled. */
    public static Timers withWakeUp(Timers t, WakeUp w) {
        return new Timers(t.sleepers(), t.sleepersWaiting(), t.timerThreads(), t.pending(), t.pendingFrom(),
                t.unparkerThread(), t.delaySchedulerThread(), w);
    }

    /**
     * Samples the stacks of the timer threads and the carriers (ThreadMXBean, 24 frames) from 1 ms before
     * {@code dueNanos} (System.nanoTime) until {@code done} (at most 10 s), counting per thread the samples that are
     * inside VirtualThread.unpark or VirtualThread.parkTimeoutExpired, and keeping the first such stack from that
     * frame down (6 frames).
     */
    public static WakeUp sampleWakeUps(int wakeUps, long dueNanos, double windowMs, BooleanSupplier done)
            throws InterruptedException {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        List<Thread> watched = Thread.getAllStackTraces().keySet().stream().filter(t -> TIMER.matcher(t.getName())
                .find() || t.getClass().getName().equals("jdk.internal.misc.CarrierThread")).toList();
        long[] ids = watched.stream().mapToLong(Thread::threadId).toArray();
        Map<String, Long> cpu = new java.util.TreeMap<>();
        for (Thread t : watched) if (TIMER.matcher(t.getName()).find()) cpu.put(t.getName(), -cpuNanos(t.getName()));
        while (System.nanoTime() < dueNanos - 5_000_000) Thread.sleep(1);
        while (System.nanoTime() < dueNanos - 1_000_000) Thread.onSpinWait();
        Map<String, Integer> caught = new java.util.TreeMap<>();
        List<String> first = List.of();
        int samples = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!done.getAsBoolean() && System.nanoTime() < deadline) {
            samples++;
            for (java.lang.management.ThreadInfo info : mx.getThreadInfo(ids, 24)) {
                if (info == null) continue;
                StackTraceElement[] st = info.getStackTrace();
                for (int i = 0; i < st.length; i++) {
                    if (!st[i].getClassName().equals("java.lang.VirtualThread")
                            || !(st[i].getMethodName().equals("unpark")
                            || st[i].getMethodName().equals("parkTimeoutExpired"))) continue;
                    caught.merge(info.getThreadName(), 1, Integer::sum);
                    if (first.isEmpty()) {
                        first = java.util.Arrays.stream(st, i, Math.min(st.length, i + 6))
                                .map(e -> e.getClassName().replaceAll(".*\\.", "")
                                        .replaceAll("\\$\\$Lambda.*", "\\$\\$Lambda") + "." + e.getMethodName())
                                .toList();
                    }
                    break;
                }
            }
        }
        cpu.replaceAll((name, minusBefore) -> cpuNanos(name) + minusBefore);
        return new WakeUp(wakeUps, windowMs, cpu, samples, caught, first);
    }

    // ---- (c) the unblocker ----------------------------------------------------------------------------------------

    /** The unblocker thread in Thread.print, if any. */
    public static Seen unblocker() throws Exception {
        return platform(threadPrint(), Pattern.compile(UNBLOCKER)).stream().findFirst().orElse(null);
    }

    /** CPU nanoseconds so far of the live platform thread named {@code name}; null if there is none. */
    public static Long cpuNanos(String name) {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        for (Map.Entry<Thread, StackTraceElement[]> e : Thread.getAllStackTraces().entrySet()) {
            if (e.getKey().getName().equals(name)) {
                long ns = mx.getThreadCpuTime(e.getKey().threadId());
                return ns < 0 ? null : ns;
            }
        }
        return null;
    }

    /** Waits (polling every 5 ms) until {@code done}; fails after 60 s naming {@code what}. */
    public static void await(String what, BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new IllegalStateException("not after 60 s: " + what);
            Thread.sleep(5);
        }
    }

    /** Joins {@code t}, or fails after 60 s. */
    public static void join(Thread t) throws InterruptedException {
        if (!t.join(Duration.ofSeconds(60))) throw new IllegalStateException(t + " had not ended after 60 s");
    }

    /** A task of S29's threads: may throw, which ends its thread with the exception printed. */
    @FunctionalInterface
    public interface Task {
        void run() throws Exception;
    }

    /** A virtual thread named {@code name} running {@code task}, started. */
    public static Thread start(String name, Task task) {
        return Thread.ofVirtual().name(name).start(() -> {
            try {
                task.run();
            } catch (Exception e) {
                throw new IllegalStateException(name + ": " + e, e);
            }
        });
    }

    /** Interrupts every thread of both lists (those ended already ignore it). */
    public static void interrupt(List<Thread> some, List<Thread> others) {
        some.forEach(Thread::interrupt);
        others.forEach(Thread::interrupt);
    }

    /**
     * How many of {@code threads} are in {@code state} once that count settles: all of them, or at least
     * {@code atLeast} and unchanged for 300 ms (some never get there: on JDK 21 a contender waits for a carrier
     * that a pinned one holds). Fails after 60 s.
     */
    public static int settled(List<Thread> threads, Thread.State state, int atLeast) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60), since = System.nanoTime();
        int last = -1;
        while (true) {
            int now = inState(threads, state);
            if (now != last) since = System.nanoTime();
            last = now;
            if (now == threads.size() || now >= atLeast && System.nanoTime() - since > 300_000_000L) return now;
            if (System.nanoTime() > deadline) throw new IllegalStateException(now + " " + state + " after 60 s");
            Thread.sleep(10);
        }
    }

    /** How many of {@code threads} are in {@code state} now. */
    public static int inState(List<Thread> threads, Thread.State state) {
        return (int) threads.stream().filter(t -> t.getState() == state).count();
    }
}
