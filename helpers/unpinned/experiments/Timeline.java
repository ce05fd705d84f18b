//SOURCES ../core/Json.java
//SOURCES ../workloads/MountRecorder.java
package unpinned.experiments;

import unpinned.core.Json;
import unpinned.workloads.MountRecorder.Segment;
import unpinned.workloads.MountRecorder.Spawn;

import static unpinned.workloads.MountRecorder.BY_START;
import static unpinned.workloads.MountRecorder.byCarrier;
import static unpinned.workloads.MountRecorder.carriers;
import static unpinned.workloads.MountRecorder.checkSegments;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import com.google.gson.JsonElement;

/**
 * What a recorded timeline ({@code workloads/MountRecorder}) says: segments and busy time per carrier, overlaps,
 * threads that ran on two or more carriers, carrier changes, tasks stolen from the carrier that started them; and
 * the segments and spawns read back from the JSON a recording child JVM prints. {@code showing/Gantt} draws them.
 */
public final class Timeline {
    private Timeline() {}

    // ---- analysis -----------------------------------------------------------------------------------------------


    /** Segments per carrier, in {@link unpinned.workloads.MountRecorder#CARRIER_ORDER}. */
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
        if (spawns == null) throw new IllegalArgumentException("spawns must be a list of MountRecorder.Spawn, got null");
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

    private static String shorten(JsonElement e) {
        String s = String.valueOf(e);
        return s.length() <= 80 ? s : s.substring(0, 77) + "...";
    }
}
