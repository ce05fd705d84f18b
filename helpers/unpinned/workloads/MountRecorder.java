//SOURCES Carriers.java
package unpinned.workloads;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which carrier ran which virtual thread, when, recorded by the virtual threads themselves in the JVM under study:
 * <em>segments</em> (a virtual thread, the carrier it ran on, a start and an end) and <em>spawns</em> (which carrier
 * a thread was started from). {@code experiments/Timeline} analyses them, {@code showing/Gantt} draws them.
 *
 * <pre>{@code
 * var rec = new MountRecorder(10_000);
 * Thread.ofVirtual().start(() -> {
 *     rec.begin("hopper");            // at each point where the thread (re)starts running
 *     work();
 *     rec.end();                      // before it blocks, and at its end
 *     LockSupport.parkNanos(1_000_000); // blocks 1 ms: unmounts, may come back on another carrier
 *     rec.begin("hopper"); work(); rec.end();
 * });
 * ... join ...
 * List<MountRecorder.Segment> segs = rec.segments();
 * }</pre>
 *
 * <p><b>What the recording can and can't see.</b> There is no public API for a virtual thread's carrier, nor for
 * the moments the JVM mounts and unmounts it. So a segment runs from a {@link #begin} to the next
 * {@link #end} <em>in the code</em>: it sees the code between the points where it records, not the JVM's
 * actual mount and unmount instants (the JDK's own code runs before the first and after the last). The carrier is read once,
 * at the segment's start, from {@code Thread.currentThread().toString()}, which for a mounted virtual thread ends
 * with {@code @ForkJoinPool-1-worker-N} (see {@link #carrierOf}). If the code blocks inside a segment where it
 * did not record (a lock, a socket, a {@code Future.get()}), the thread was unmounted in the middle, may have
 * finished the segment on another carrier, and the carrier's lane shows it busy while it was not: record around
 * every blocking call you care about. Time spent mounted but outside any segment (the JDK's start-up and
 * park/unpark code, between {@code end()} and the park) is not drawn at all.
 *
 * <p>Times are {@link System#nanoTime()} nanoseconds since the recorder was made. A begin/end pair costs about
 * 0.2-0.4 µs once compiled (measured on JDK 25: two clock reads, the toString, a thread-local and two atomic
 * increments), so segments of a few microseconds or less are mostly the recorder itself.
 *
/**
 * Records segments into arrays allocated up front; safe to share among any number of virtual threads. The hot
 * path takes no lock: {@link #begin} reads the clock and the carrier into a thread-local, {@link #end} takes the
 * next slot with one atomic increment and fills it. Read {@link #segments()} after every recording thread has
 * called its last {@code end()} and been joined.
 */
public final class MountRecorder {
    /** The most segments (and spawns) one recorder keeps: a million take ~45 MB of arrays up front, plus the names. */
    public static final int MAX_CAPACITY = 1_000_000;

    /**
     * One stretch of a virtual thread's code on one carrier: from {@link Recorder#begin} to {@link Recorder#end},
     * in nanoseconds since the recording began; {@code kind} is what the thread was doing ("spawner", "task",
     * "hopper"...), the default colour of a Gantt chart.
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
    public MountRecorder(int capacity) {
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
     * a task that then runs on another carrier is counted by {@code Timeline.stolenThreads}.
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

    // ---- the segments' order ------------------------------------------------------------------------------------

    /** Segments by start, then end. */
    public static final Comparator<Segment> BY_START = Comparator.comparingLong(Segment::startNanos)
            .thenComparingLong(Segment::endNanos);

    /** Carrier names in worker order ("worker-2" before "worker-10"); any names ending in a number likewise. */
    public static final Comparator<String> CARRIER_ORDER = MountRecorder::compareCarriers;

    /** The carriers that appear in {@code segments}, in {@link #CARRIER_ORDER}. */
    public static List<String> carriers(List<Segment> segments) {
        checkSegments(segments);
        TreeSet<String> all = new TreeSet<>(CARRIER_ORDER);
        for (Segment s : segments) all.add(s.carrier());
        return List.copyOf(all);
    }

    /** The segments of each carrier, by start, carriers in {@link #CARRIER_ORDER}. */
    public static Map<String, List<Segment>> byCarrier(List<Segment> segments) {
        Map<String, List<Segment>> by = new LinkedHashMap<>();
        for (String c : carriers(segments)) by.put(c, new ArrayList<>());
        for (Segment s : segments) by.get(s.carrier()).add(s);
        for (List<Segment> list : by.values()) list.sort(BY_START);
        return by;
    }

    /** Refuses a null list or a null segment, by name. */
    public static void checkSegments(List<Segment> segments) {
        if (segments == null) throw new IllegalArgumentException("segments must be a list of MountRecorder.Segment, got null");
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


    /** Text that ends in a number ("worker-3", "hopper-10"): the ones {@link #CARRIER_ORDER} sorts by number. */
    public static final Pattern TRAILING_NUMBER = Pattern.compile("(.*?)(\\d+)");

    private static void text(String what, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(what + " must be a non-blank string, got " + (value == null ? "null" : "'" + value + "'"));
        }
    }
}
