//SOURCES ../workloads/Carriers.java
//SOURCES ../showing/Charts.java
//SOURCES ../showing/DrawnChart.java
//SOURCES ../core/Json.java
//SOURCES ../core/Machine.java
package unpinned.experiments;

import unpinned.workloads.Carriers;

import unpinned.core.Json;
import unpinned.core.Machine;
import unpinned.showing.Charts;
import unpinned.showing.DrawnChart;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import com.google.gson.JsonElement;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.internal.chartpart.Annotation;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Which carrier ran which virtual thread, when: a timeline of <em>segments</em> (a virtual thread, the carrier
 * it ran on, a start and an end), recorded by the virtual threads themselves, then analysed and drawn as a Gantt
 * chart with one lane per carrier. Needs Charts.java (and what it needs: Comparison, Machine, Profile, RunGuard)
 * and Json.java alongside.
 *
 * <pre>{@code
 * var rec = new Timeline.Recorder(10_000);
 * Thread.ofVirtual().start(() -> {
 *     rec.begin("hopper");            // at each point where the thread (re)starts running
 *     work();
 *     rec.end();                      // before it blocks, and at its end
 *     LockSupport.parkNanos(1_000_000); // blocks 1 ms: unmounts, may come back on another carrier
 *     rec.begin("hopper"); work(); rec.end();
 * });
 * ... join ...
 * List<Timeline.Segment> segs = rec.segments();
 * Timeline.threadsOnTwoOrMoreCarriers(segs);
 * Timeline.gantt("Four sleepers on two carriers", segs, Timeline.Segment::thread);
 * }</pre>
 *
 * <p><b>What the recording can and can't see.</b> There is no public API for a virtual thread's carrier, nor for
 * the moments the JVM mounts and unmounts it. So a segment runs from a {@link Recorder#begin} to the next
 * {@link Recorder#end} <em>in the code</em>: it sees the code between the points where it records, not the JVM's
 * actual mount and unmount instants (the JDK's own code runs before the first and after the last). The carrier is read once,
 * at the segment's start, from {@code Thread.currentThread().toString()}, which for a mounted virtual thread ends
 * with {@code @ForkJoinPool-1-worker-N} (see {@link #carrierOf}). If the code blocks inside a segment where it
 * did not record (a lock, a socket, a {@code Future.get()}), the thread was unmounted in the middle, may have
 * finished the segment on another carrier, and the carrier's lane shows it busy while it was not: record around
 * every blocking call you care about. Time spent mounted but outside any segment (the JDK's start-up and
 * park/unpark code, between {@code end()} and the park) is not drawn at all.
 *
 * <p>Times are {@link System#nanoTime()} nanoseconds since the recorder was made; {@link #gantt} draws them as
 * milliseconds since the first segment. A begin/end pair costs about 0.2-0.4 µs once compiled (measured on JDK 25:
 * two clock reads, the toString, a thread-local and two atomic increments), so segments of a few microseconds
 * or less are mostly the recorder itself.
 */
public final class Timeline {
    /** The most segments (and spawns) one recorder keeps: a million take ~45 MB of arrays up front, plus the names. */
    public static final int MAX_CAPACITY = 1_000_000;
    /** The most colours a Gantt chart tells apart (Charts' palette); colour by kind when there are more threads. */
    public static final int MAX_COLOURS = 10;
    static final int MAX_LANES = 64;
    /** What the default scheduler's carriers are called: "ForkJoinPool-1-worker-3" is pool "ForkJoinPool-1", worker 3. */
    private static final Pattern WORKER = Pattern.compile("(.+)-worker-(\\d+)");

    static {
        // As in Charts, before any AWT class looks at it: no display needed, no window ever.
        if (System.getProperty("java.awt.headless") == null) System.setProperty("java.awt.headless", "true");
    }

    private Timeline() {}

    /**
     * One stretch of a virtual thread's code on one carrier: from {@link Recorder#begin} to {@link Recorder#end},
     * in nanoseconds since the recording began; {@code kind} is what the thread was doing ("spawner", "task",
     * "hopper"...), the default colour in {@link #gantt}.
     */
    public record Segment(String thread, String carrier, long startNanos, long endNanos, String kind) {
        public Segment {
            text("thread", thread);
            text("carrier", carrier);
            text("kind", kind);
            if (startNanos < 0) {
                throw new IllegalArgumentException("startNanos must be >= 0 (nanoseconds since the recording began), got "
                        + startNanos + " for thread '" + thread + "'");
            }
            if (endNanos < startNanos) {
                throw new IllegalArgumentException("endNanos must be >= startNanos, got " + startNanos + " .. " + endNanos
                        + " for thread '" + thread + "'");
            }
        }

        public long nanos() {
            return endNanos - startNanos;
        }
    }

    /** {@code thread} was started by a thread that was on {@code carrier} at that moment ({@code atNanos}). */
    public record Spawn(String thread, String carrier, long atNanos) {
        public Spawn {
            text("thread", thread);
            text("carrier", carrier);
            if (atNanos < 0) {
                throw new IllegalArgumentException("atNanos must be >= 0 (nanoseconds since the recording began), got "
                        + atNanos + " for thread '" + thread + "'");
            }
        }
    }

    // ---- recording ----------------------------------------------------------------------------------------------

    /**
     * Records segments into arrays allocated up front; safe to share among any number of virtual threads. The hot
     * path takes no lock: {@link #begin} reads the clock and the carrier into a thread-local, {@link #end} takes the
     * next slot with one atomic increment and fills it. Read {@link #segments()} after every recording thread has
     * called its last {@code end()} and been joined.
     */
    public static final class Recorder {
        private final long origin = System.nanoTime();
        private final int capacity;
        private final String[] threads;
        private final String[] carriers;
        private final String[] kinds;
        private final long[] starts;
        private final long[] ends;
        private final AtomicInteger claimed = new AtomicInteger();
        private final AtomicInteger written = new AtomicInteger();
        private final AtomicInteger refused = new AtomicInteger();
        private final AtomicInteger open = new AtomicInteger();
        private final String[] spawnThreads;
        private final String[] spawnCarriers;
        private final long[] spawnAts;
        private final AtomicInteger spawnClaimed = new AtomicInteger();
        private final AtomicInteger spawnWritten = new AtomicInteger();
        private final AtomicReference<String> firstProblem = new AtomicReference<>();
        private final ThreadLocal<Open> current = new ThreadLocal<>();

        private record Open(String kind, String carrier, long start) {}

        /** Room for {@code capacity} segments and as many spawns, 1 to {@link #MAX_CAPACITY}. */
        public Recorder(int capacity) {
            if (capacity < 1 || capacity > MAX_CAPACITY) {
                throw new IllegalArgumentException(String.format(Locale.ROOT, "capacity must be a whole number from 1 to"
                        + " %,d (segments kept in memory), got %,d", MAX_CAPACITY, capacity));
            }
            this.capacity = capacity;
            threads = new String[capacity];
            carriers = new String[capacity];
            kinds = new String[capacity];
            starts = new long[capacity];
            ends = new long[capacity];
            spawnThreads = new String[capacity];
            spawnCarriers = new String[capacity];
            spawnAts = new long[capacity];
        }

        /**
         * Opens a segment of {@code kind} for the current virtual thread: now, on the carrier it is mounted on.
         *
         * @throws IllegalStateException on a platform thread, or when this thread's last segment is still open
         */
        public void begin(String kind) {
            text("kind", kind);
            String carrier = currentCarrier();
            Open o = current.get();
            if (o != null) {
                throw problem("begin(\"" + kind + "\") in '" + name(Thread.currentThread()) + "' while its segment '"
                        + o.kind() + "' is still open: call end() first");
            }
            current.set(new Open(kind, carrier, System.nanoTime() - origin));
            open.incrementAndGet();
        }

        /**
         * Closes the current thread's open segment (now) and keeps it.
         *
         * @throws IllegalStateException when no segment is open in this thread, or the recorder is full
         */
        public void end() {
            long now = System.nanoTime() - origin;
            Open o = current.get();
            if (o == null) throw problem("end() in '" + name(Thread.currentThread()) + "' without a begin(kind) before it");
            current.remove();
            open.decrementAndGet();
            int i = claimed.getAndIncrement();
            if (i >= capacity) {
                refused.incrementAndGet();
                throw problem(full("segments"));
            }
            threads[i] = name(Thread.currentThread());
            carriers[i] = o.carrier();
            kinds[i] = o.kind();
            starts[i] = o.start();
            ends[i] = now;
            written.incrementAndGet(); // publishes the slot (a volatile write after the plain ones)
        }

        /**
         * Notes that the current virtual thread is about to start {@code child}, and which carrier it is on now:
         * a task that then runs on another carrier is counted by {@link #stolenThreads}.
         */
        public void spawned(Thread child) {
            if (child == null) throw new IllegalArgumentException("child must be a thread, got null");
            String carrier = currentCarrier();
            int i = spawnClaimed.getAndIncrement();
            if (i >= capacity) {
                refused.incrementAndGet();
                throw problem(full("spawns"));
            }
            spawnThreads[i] = name(child);
            spawnCarriers[i] = carrier;
            spawnAts[i] = System.nanoTime() - origin;
            spawnWritten.incrementAndGet();
        }

        /**
         * Every segment, by start time.
         *
         * @throws IllegalStateException while a segment is open or being written, or when the recorder refused
         *                               anything (a partial timeline must not pass for the whole one)
         */
        public List<Segment> segments() {
            check(claimed, written);
            int n = Math.min(claimed.get(), capacity);
            List<Segment> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) out.add(new Segment(threads[i], carriers[i], starts[i], ends[i], kinds[i]));
            out.sort(BY_START);
            return out;
        }

        /** Every {@link #spawned} note, by time; same conditions as {@link #segments()}. */
        public List<Spawn> spawns() {
            check(spawnClaimed, spawnWritten);
            int n = Math.min(spawnClaimed.get(), capacity);
            List<Spawn> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) out.add(new Spawn(spawnThreads[i], spawnCarriers[i], spawnAts[i]));
            out.sort(Comparator.comparingLong(Spawn::atNanos));
            return out;
        }

        /** The System.nanoTime() every segment's times count from: samples taken beside the recording share it. */
        public long originNanos() {
            return origin;
        }

        /** Segments kept so far. */
        public int size() {
            return Math.min(written.get(), capacity);
        }

        public int capacity() {
            return capacity;
        }

        /**
         * The first misuse seen by any thread (an exception in a virtual thread is easy to miss), or empty.
         * The snippet checks it after joining, before it trusts {@link #segments()}.
         */
        public Optional<String> problem() {
            return Optional.ofNullable(firstProblem.get());
        }

        private void check(AtomicInteger claimedCount, AtomicInteger writtenCount) {
            if (firstProblem.get() != null) throw new IllegalStateException("the recording is void: " + firstProblem.get());
            int o = open.get();
            if (o != 0) {
                throw new IllegalStateException(o + " segment(s) still open (begin without end): read the timeline after"
                        + " every recording thread has called end() and been joined");
            }
            int c = Math.min(claimedCount.get(), capacity);
            if (writtenCount.get() != c) {
                throw new IllegalStateException((c - writtenCount.get()) + " segment(s) still being written: read the"
                        + " timeline after every recording thread has been joined");
            }
        }

        private String full(String what) {
            return String.format(Locale.ROOT, "recorder full: it keeps %,d %s (its capacity); make one with a larger"
                    + " capacity, up to %,d", capacity, what, MAX_CAPACITY);
        }

        private IllegalStateException problem(String message) {
            firstProblem.compareAndSet(null, message);
            return new IllegalStateException(message);
        }
    }

    /**
     * The carrier {@code threadToString} names: {@code "VirtualThread[#22,task-1]/runnable@ForkJoinPool-1-worker-1"}
     * gives {@code "ForkJoinPool-1-worker-1"}. Empty for a virtual thread that is not mounted
     * ({@code "VirtualThread[#22]/waiting"}) and for a platform thread ({@code "Thread[#1,main,5,main]"}). The name
     * may contain anything: the state and carrier are read after the last {@code "]/"}.
     */
    public static Optional<String> carrierOf(String threadToString) {
        if (threadToString == null) throw new IllegalArgumentException("threadToString must be a Thread's toString(), got null");
        if (!threadToString.startsWith("VirtualThread[")) return Optional.empty();
        int close = threadToString.lastIndexOf("]/");
        if (close < 0) return Optional.empty();
        String rest = threadToString.substring(close + 2);
        int at = rest.indexOf('@');
        if (at < 0 || rest.substring(at + 1).isBlank()) return Optional.empty();
        return Optional.of(rest.substring(at + 1));
    }

    /**
     * The carrier of the current thread, which must be a virtual thread (it is mounted, since it runs).
     *
     * @throws IllegalStateException on a platform thread, or if its toString() no longer names the carrier
     */
    public static String currentCarrier() {
        Thread t = Thread.currentThread();
        if (!t.isVirtual()) {
            throw new IllegalStateException("the carrier is read in a virtual thread, but '" + name(t)
                    + "' is a platform thread: record from inside the virtual threads");
        }
        String s = t.toString();
        return carrierOf(s).orElseThrow(() -> new IllegalStateException("cannot read the carrier from '" + s
                + "': expected it to end with @<carrier thread name>, as on JDK 21 to 25"));
    }

    /** A thread's name, or {@code "#<id>"} for an unnamed one (virtual threads are unnamed by default). */
    public static String name(Thread t) {
        String n = t.getName();
        return n.isEmpty() ? "#" + t.threadId() : n;
    }

    /**
     * The default virtual-thread scheduler: the {@link ForkJoinPool} whose workers carry virtual threads. Found
     * from a virtual thread's carrier among the live platform threads ({@link Thread#getAllStackTraces()}), so
     * it works whichever number the pool got ("ForkJoinPool-1" unless another pool was made first). Starts one
     * short virtual thread, so the pool has a worker to be found by.
     *
     * @throws IllegalStateException when the carrier is not a ForkJoinWorkerThread (a JDK that changed how
     *                               virtual threads are scheduled)
     */
    public static ForkJoinPool virtualThreadScheduler() throws InterruptedException {
        return Carriers.pool();
    }

    // ---- analysis -----------------------------------------------------------------------------------------------

    private static final Comparator<Segment> BY_START = Comparator.comparingLong(Segment::startNanos)
            .thenComparingLong(Segment::endNanos);

    /** Carrier names in worker order ("worker-2" before "worker-10"); any names ending in a number likewise. */
    public static final Comparator<String> CARRIER_ORDER = Timeline::compareCarriers;

    /** The carriers that appear in {@code segments}, in {@link #CARRIER_ORDER}. */
    public static List<String> carriers(List<Segment> segments) {
        checkSegments(segments);
        TreeSet<String> all = new TreeSet<>(CARRIER_ORDER);
        for (Segment s : segments) all.add(s.carrier());
        return List.copyOf(all);
    }

    /** Segments per carrier, in {@link #CARRIER_ORDER}. */
    public static Map<String, Integer> segmentsPerCarrier(List<Segment> segments) {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (String c : carriers(segments)) out.put(c, 0);
        for (Segment s : segments) out.merge(s.carrier(), 1, Integer::sum);
        return out;
    }

    /**
     * Recorded busy time per carrier, in nanoseconds: the union of its segments, so segments that overlap on one
     * carrier (possible only when a thread was unmounted inside a segment, see the class comment) count once.
     */
    public static Map<String, Long> busyNanosPerCarrier(List<Segment> segments) {
        Map<String, List<Segment>> by = byCarrier(segments);
        Map<String, Long> out = new LinkedHashMap<>();
        by.forEach((carrier, list) -> {
            long busy = 0;
            long from = -1;
            long to = -1;
            for (Segment s : list) { // by start
                if (s.startNanos() > to) {
                    busy += to - from;
                    from = s.startNanos();
                    to = s.endNanos();
                } else {
                    to = Math.max(to, s.endNanos());
                }
            }
            out.put(carrier, busy + to - from);
        });
        return out;
    }

    /**
     * Overlapping segments on one carrier: pairs where a segment starts before the previous one on that carrier
     * ended. A carrier runs one virtual thread at a time, so each is a thread that blocked (and was unmounted)
     * inside a segment, where it did not record. 0 for a faithful recording.
     */
    public static int overlaps(List<Segment> segments) {
        int n = 0;
        for (List<Segment> list : byCarrier(segments).values()) {
            long to = -1;
            for (Segment s : list) {
                if (s.startNanos() < to) n++;
                to = Math.max(to, s.endNanos());
            }
        }
        return n;
    }

    /** From the first segment's start to the last one's end, in nanoseconds. */
    public static long spanNanos(List<Segment> segments) {
        checkSegments(segments);
        long from = Long.MAX_VALUE;
        long to = Long.MIN_VALUE;
        for (Segment s : segments) {
            from = Math.min(from, s.startNanos());
            to = Math.max(to, s.endNanos());
        }
        return to - from;
    }

    /**
     * The threads seen on two or more carriers, each with its carriers in the order it first ran on them; threads
     * in the order of their first segment.
     */
    public static Map<String, List<String>> threadsOnTwoOrMoreCarriers(List<Segment> segments) {
        checkSegments(segments);
        List<Segment> sorted = new ArrayList<>(segments);
        sorted.sort(BY_START);
        Map<String, Set<String>> seen = new LinkedHashMap<>();
        for (Segment s : sorted) seen.computeIfAbsent(s.thread(), k -> new LinkedHashSet<>()).add(s.carrier());
        Map<String, List<String>> out = new LinkedHashMap<>();
        seen.forEach((thread, carriers) -> {
            if (carriers.size() >= 2) out.put(thread, List.copyOf(carriers));
        });
        return out;
    }

    /**
     * Carrier changes: how often a thread's segment ran on another carrier than its previous segment (each thread's
     * segments by start). For threads that block between segments, about (P - 1) / P of the blocks on P equally
     * busy carriers.
     */
    public static int carrierChanges(List<Segment> segments) {
        checkSegments(segments);
        List<Segment> sorted = new ArrayList<>(segments);
        sorted.sort(BY_START);
        Map<String, String> last = new HashMap<>();
        int changes = 0;
        for (Segment s : sorted) {
            String before = last.put(s.thread(), s.carrier());
            if (before != null && !before.equals(s.carrier())) changes++;
        }
        return changes;
    }

    /**
     * The spawned threads whose first segment ran on another carrier than the one their spawner was on when it
     * started them. (Taken from a submission queue, not from the spawner's carrier's own queue: a start from a
     * virtual thread goes to a submission queue, which snippet S27 measures; the name is kept for the API.)
     *
     * @throws IllegalArgumentException when a spawned thread has no segment, or was spawned twice
     */
    public static Set<String> stolenThreads(List<Segment> segments, List<Spawn> spawns) {
        checkSegments(segments);
        if (spawns == null) throw new IllegalArgumentException("spawns must be a list of Timeline.Spawn, got null");
        Map<String, Segment> first = new HashMap<>();
        for (Segment s : segments) first.merge(s.thread(), s, (a, b) -> BY_START.compare(a, b) <= 0 ? a : b);
        Set<String> seen = new LinkedHashSet<>();
        Set<String> stolen = new LinkedHashSet<>();
        for (Spawn sp : spawns) {
            if (sp == null) throw new IllegalArgumentException("spawns must not contain null");
            if (!seen.add(sp.thread())) {
                throw new IllegalArgumentException("thread '" + sp.thread() + "' is spawned twice: thread names must be"
                        + " unique to match spawns to segments");
            }
            Segment s = first.get(sp.thread());
            if (s == null) {
                throw new IllegalArgumentException("spawned thread '" + sp.thread() + "' has no segment: it must call"
                        + " begin(kind) and end() (or its segments were left out of the list)");
            }
            if (!s.carrier().equals(sp.carrier())) stolen.add(sp.thread());
        }
        return stolen;
    }

    /** How many of {@code spawns} were {@link #stolenThreads stolen}. */
    public static int stolen(List<Segment> segments, List<Spawn> spawns) {
        return stolenThreads(segments, spawns).size();
    }

    // ---- JSON ---------------------------------------------------------------------------------------------------

    /** Segments from a JSON array of {thread, carrier, startNanos, endNanos, kind}, as the snippet prints them. */
    public static List<Segment> segments(JsonElement array) {
        if (array == null || !array.isJsonArray()) {
            throw new IllegalArgumentException("segments must be a JSON array of {thread, carrier, startNanos, endNanos,"
                    + " kind}, got " + shorten(array));
        }
        return readEach(array, Segment.class, "segment");
    }

    /** Spawns from a JSON array of {thread, carrier, atNanos}. */
    public static List<Spawn> spawns(JsonElement array) {
        if (array == null || !array.isJsonArray()) {
            throw new IllegalArgumentException("spawns must be a JSON array of {thread, carrier, atNanos}, got "
                    + shorten(array));
        }
        return readEach(array, Spawn.class, "spawn");
    }

    // One element at a time, so a bad one is named with the record's own message (Gson wraps it and drops the text).
    private static <T> List<T> readEach(JsonElement array, Class<T> type, String what) {
        List<T> out = new ArrayList<>();
        int i = 0;
        for (JsonElement e : array.getAsJsonArray()) {
            if (e.isJsonNull()) throw new IllegalArgumentException(what + " " + i + " of the JSON is null");
            try {
                out.add(Json.read(e.toString(), type));
            } catch (IllegalArgumentException x) {
                Throwable root = x;
                while (root.getCause() != null) root = root.getCause();
                String message = root instanceof IllegalArgumentException && root != x ? root.getMessage() : x.getMessage();
                throw new IllegalArgumentException(what + " " + i + " of the JSON: " + message, x);
            }
            i++;
        }
        return List.copyOf(out);
    }

    // ---- the chart ----------------------------------------------------------------------------------------------

    /** {@link #gantt(String, List, Function)} coloured by {@link Segment#kind()}. */
    public static DrawnChart gantt(String title, List<Segment> segments) {
        return gantt(title, segments, Segment::kind);
    }

    /**
     * A Gantt chart: one lane per carrier (in {@link #CARRIER_ORDER}, top to bottom), milliseconds since the first
     * segment on x (µs or ns for a span under a millisecond or microsecond), each segment a bar coloured by {@code colourBy} (e.g. {@code Segment::kind} or
     * {@code Segment::thread}), with a legend in order of first appearance (in number order when every value ends
     * in a number, as thread names do); at most {@link #MAX_COLOURS} colours. A segment shorter than a
     * pixel is drawn one pixel wide, so thousands of short ones stay visible (as a solid run when back to back).
     */
    public static DrawnChart gantt(String title, List<Segment> segments, Function<? super Segment, String> colourBy) {
        return Charts.render(ganttChart(title, segments, colourBy));
    }

    static XYChart ganttChart(String title, List<Segment> segments, Function<? super Segment, String> colourBy) {
        text("title", title);
        checkSegments(segments);
        if (segments.isEmpty()) throw new IllegalArgumentException("segments must hold at least one segment to draw, got none");
        if (colourBy == null) throw new IllegalArgumentException("colourBy must be a function such as Segment::kind, got null");
        List<String> lanes = carriers(segments);
        if (lanes.size() > MAX_LANES) {
            throw new IllegalArgumentException("at most " + MAX_LANES + " carriers fit as lanes, got " + lanes.size());
        }
        List<Segment> sorted = new ArrayList<>(segments);
        sorted.sort(BY_START);
        Map<String, List<Segment>> byKey = new LinkedHashMap<>(); // colours in order of first appearance, or by number
        for (Segment s : sorted) {
            String key = colourBy.apply(s);
            if (key == null || key.isBlank()) {
                throw new IllegalArgumentException("colourBy must give a non-blank legend text for every segment, got "
                        + (key == null ? "null" : "'" + key + "'") + " for " + s);
            }
            byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(s);
        }
        if (byKey.keySet().stream().allMatch(k -> TRAILING_NUMBER.matcher(k).matches())) { // e.g. threads: hopper-0, hopper-1...
            Map<String, List<Segment>> sortedKeys = new java.util.TreeMap<>(CARRIER_ORDER);
            sortedKeys.putAll(byKey);
            byKey = new LinkedHashMap<>(sortedKeys);
        }
        if (byKey.size() > MAX_COLOURS) {
            throw new IllegalArgumentException("colourBy gives " + byKey.size() + " different values, but a chart tells at"
                    + " most " + MAX_COLOURS + " colours apart: colour by kind, or by a coarser key; first values: "
                    + List.copyOf(byKey.keySet()).subList(0, MAX_COLOURS + 1));
        }
        long t0 = sorted.get(0).startNanos();
        long last = t0;
        for (Segment s : sorted) last = Math.max(last, s.endNanos());
        // The time unit that makes the span at least 1 (XChart 3.8.8 takes x values less than 1e-4 apart as equally
        // spaced, and then puts its ticks only on them): ms for any real run, µs or ns for tiny hand-made ones.
        long spanNanos = Math.max(1, last - t0);
        double perUnit = spanNanos >= 1_000_000 ? 1e6 : spanNanos >= 1_000 ? 1e3 : 1;
        String unit = perUnit == 1e6 ? "ms" : perUnit == 1e3 ? "µs" : "ns";
        double span = spanNanos / perUnit;
        Map<String, Integer> laneOf = new HashMap<>();
        for (int i = 0; i < lanes.size(); i++) laneOf.put(lanes.get(i), lanes.size() - 1 - i); // first carrier on top

        // XChart draws the axes, the legend and the lane labels: one invisible series spans the lanes (a tick per
        // lane; no NaN, which would upset the tick labels), and a one-point series per colour gives the legend its
        // entry. The bars themselves are drawn by Bars, pixel-exact.
        List<Charts.Series> series = new ArrayList<>();
        for (String key : byKey.keySet()) series.add(new Charts.Series(key, new double[] {0}, new double[] {0}));
        // XChart 3.8.8 places ticks at the data's y values when they, with the axis ends, are equally spaced: lanes at
        // 0..n-1 and ends at -1 and n give one tick per lane. Its x values must NOT be equally spaced (with 0 and the
        // axis end), or the time axis would get ticks only there: hence the odd 0.37.
        double[] laneX = new double[lanes.size()];
        double[] laneY = new double[lanes.size()];
        for (int i = 0; i < lanes.size(); i++) {
            laneX[i] = 0.37 * span;
            laneY[i] = i;
        }
        series.add(new Charts.Series(LANES_SERIES, laneX, laneY));

        Lanes names = laneNames(lanes);
        String xLabel = unit + " since the first segment";
        Font axisFont = new Font(Font.SANS_SERIF, Font.PLAIN, 12);
        for (String withMachine : List.of(xLabel + "  ·  " + Machine.summary(), unit + "  ·  " + Machine.summary())) {
            // centred under the plot, which starts right of the lane labels: keep it narrower than the plot
            if (Charts.textWidth(withMachine, axisFont) <= Charts.WIDTH - 150) {
                xLabel = withMachine;
                break;
            }
        }
        XYChart chart = Charts.xyChart(title, xLabel, names.axisTitle(), false, false, false,
                series.toArray(Charts.Series[]::new));
        var st = chart.getStyler();
        for (XYSeries s : chart.getSeriesMap().values()) {
            s.setMarker(SeriesMarkers.NONE);
            s.setLineStyle(new BasicStroke(LEGEND_BAR, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER));
        }
        XYSeries laneSeries = chart.getSeriesMap().get(LANES_SERIES);
        laneSeries.setLineColor(new Color(0, 0, 0, 0));
        laneSeries.setShowInLegend(false);
        st.setLegendVisible(true);
        st.setLegendPosition(Styler.LegendPosition.OutsideS);
        st.setLegendSeriesLineLength(18);
        st.setXAxisMin(0.0);
        st.setXAxisMax(span);
        st.setXAxisDecimalPattern(Charts.pattern(span / 10));
        st.setYAxisMin(-1.0);
        st.setYAxisMax((double) lanes.size());
        st.setPlotGridHorizontalLinesVisible(false);
        List<String> labels = names.labels();
        st.setyAxisTickLabelsFormattingFunction(v -> {
            long lane = Math.round(v);
            // Every label must differ, or XChart 3.8.8 draws no ticks (ends that look alike) or never stops looking for
            // a tick step (duplicates): the ends are blank, but apart.
            if (Math.abs(v - lane) > 1e-6 || lane < 0 || lane >= labels.size()) return v < 0 ? " " : "  ";
            return labels.get(labels.size() - 1 - (int) lane);
        });

        List<List<double[]>> bars = new ArrayList<>(); // per colour: {from ms, to ms, lane}
        byKey.forEach((key, list) -> {
            List<double[]> one = new ArrayList<>(list.size());
            for (Segment s : list) {
                one.add(new double[] {(s.startNanos() - t0) / perUnit, (s.endNanos() - t0) / perUnit, laneOf.get(s.carrier())});
            }
            bars.add(one);
        });
        chart.addAnnotation(new Bars(List.copyOf(byKey.keySet()), bars));
        Charts.markCategorical(chart, "y");
        return chart;
    }

    static final String LANES_SERIES = "carrier lanes (axis only)";
    /** The height of a legend entry's bar, px. */
    private static final float LEGEND_BAR = 10;

    /**
     * The segments as bars, one lane per carrier, drawn without anti-aliasing so each bar is exactly its series'
     * colour: at least one pixel wide (a run of back-to-back short segments is a solid band), and with a
     * one-pixel gap at its end when it is at least {@link #GAP_FROM_PX} wide, so neighbours stay apart.
     */
    static final class Bars extends Annotation {
        private final List<String> keys;
        private final List<List<double[]>> bars;

        Bars(List<String> keys, List<List<double[]>> bars) {
            super(false);
            this.keys = keys;
            this.bars = bars;
        }

        @Override
        public void paint(Graphics2D g) {
            double left = getXAxisScreenValueForMin();
            double right = getXAxisScreenValueForMax();
            double top = getYAxisScreenValueForMin();
            double bottom = getYAxisScreenValueForMax();
            double laneStep = Math.abs(getYAxisScreenValue(0) - getYAxisScreenValue(1));
            int height = (int) Math.max(2, Math.min(MAX_BAR_PX, Math.round(0.6 * laneStep)));
            RenderingHints saved = g.getRenderingHints();
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_OFF);
            for (int k = 0; k < keys.size(); k++) {
                g.setColor(((XYSeries) chart.getSeriesMap().get(keys.get(k))).getLineColor());
                for (double[] b : bars.get(k)) {
                    int x0 = (int) Math.floor(getXAxisScreenValue(b[0]));
                    int x1 = (int) Math.round(getXAxisScreenValue(b[1]));
                    int width = Math.max(1, x1 - x0);
                    if (width >= GAP_FROM_PX) width--;
                    int y = (int) Math.round(getYAxisScreenValue(b[2]) - height / 2.0);
                    g.fillRect(x0, y, width, height);
                }
            }
            g.setRenderingHints(saved);
            bounds = new Rectangle2D.Double(left, Math.min(top, bottom), right - left, Math.abs(bottom - top));
        }
    }

    static final int GAP_FROM_PX = 4;
    static final int MAX_BAR_PX = 36;

    /** Lane labels: "worker-3" when every carrier is a worker of one pool (named in the axis title), else full names. */
    record Lanes(List<String> labels, String axisTitle) {}

    static Lanes laneNames(List<String> carriers) {
        String pool = null;
        List<String> shortNames = new ArrayList<>();
        for (String c : carriers) {
            Matcher m = WORKER.matcher(c);
            if (!m.matches() || pool != null && !pool.equals(m.group(1))) return new Lanes(List.copyOf(carriers), "carrier");
            pool = m.group(1);
            shortNames.add("worker-" + m.group(2));
        }
        return new Lanes(shortNames, "carrier (" + pool + ")");
    }

    // ---- checks -------------------------------------------------------------------------------------------------

    private static Map<String, List<Segment>> byCarrier(List<Segment> segments) {
        Map<String, List<Segment>> by = new LinkedHashMap<>();
        for (String c : carriers(segments)) by.put(c, new ArrayList<>());
        for (Segment s : segments) by.get(s.carrier()).add(s);
        for (List<Segment> list : by.values()) list.sort(BY_START);
        return by;
    }

    private static void checkSegments(List<Segment> segments) {
        if (segments == null) throw new IllegalArgumentException("segments must be a list of Timeline.Segment, got null");
        for (Segment s : segments) {
            if (s == null) throw new IllegalArgumentException("segments must not contain null");
        }
    }

    /** Text with a number at its end in number order: "worker-2" before "worker-10", "task-9" before "task-10". */
    static int compareCarriers(String a, String b) {
        Matcher ma = TRAILING_NUMBER.matcher(a);
        Matcher mb = TRAILING_NUMBER.matcher(b);
        if (ma.matches() && mb.matches()) {
            int byPrefix = ma.group(1).compareTo(mb.group(1));
            if (byPrefix != 0) return byPrefix;
            int byNumber = new java.math.BigInteger(ma.group(2)).compareTo(new java.math.BigInteger(mb.group(2)));
            if (byNumber != 0) return byNumber;
        }
        return a.compareTo(b);
    }

    private static final Pattern TRAILING_NUMBER = Pattern.compile("(.*?)(\\d+)");

    private static String shorten(JsonElement e) {
        String s = String.valueOf(e);
        return s.length() <= 80 ? s : s.substring(0, 77) + "...";
    }

    private static void text(String what, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(what + " must be a non-blank string, got " + (value == null ? "null" : "'" + value + "'"));
        }
    }
}
