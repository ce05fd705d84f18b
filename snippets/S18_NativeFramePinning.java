///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 22+
//JAVAC_OPTIONS --release 22
//RUNTIME_OPTIONS --enable-native-access=ALL-UNNAMED
//SOURCES ../helpers/unpinned/experiments/Pinning.java
package unpinned.snippets;

/*
 * S18: does a native frame on the stack still pin a virtual thread, on this JDK?
 *
 * The question: since JDK 24 (JEP 491) blocking while holding a monitor unmounts (S17). Does blocking
 * inside an upcall (Java -> qsort in C -> a Java comparator that sleeps) still pin, on ONE carrier?
 * The bounds, as in S17: N sleeps that unmount overlap (about 1 x S); N that pin take turns (N x S).
 * The pitfall: not the native call pins (a thread running C is busy, not blocked) but blocking while its
 * frame is on the stack: any C library that calls back into Java (JNI callbacks, listeners, comparators).
 */

import unpinned.core.Experiment;
import unpinned.running.Jdks;
import unpinned.experiments.Pinning;
import java.lang.foreign.*;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;
import java.util.concurrent.ForkJoinPool;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

public class S18_NativeFramePinning {

    /** The control: Thread.sleep with only Java frames on the stack. Unmounts on every JDK. */
    static void plainSleep(long s) throws InterruptedException {
        Thread.sleep(s);
    }

    /**
     * Thread.sleep inside qsort's comparator: Java -> qsort (C, a downcall found by
     * Linker.nativeLinker().defaultLookup()) -> the comparator (Java, an upcall stub of its own) -> sleep.
     * Two ints take one comparison; the comparator counts its calls and sleeps only once anyway.
     */
    static void nativeUpcallSleep(Qsort qsort, MemorySegment stub, SleepyComparator comparator)
            throws InterruptedException {
        qsort.sortTwo(stub);
        comparator.rethrow();
    }

    // ---- the native part: qsort and a comparator that sleeps -------------------------------------------------------

    /** {@code void qsort(void *base, size_t nmemb, size_t size, int (*compar)(const void *, const void *))} */
    static final FunctionDescriptor QSORT = FunctionDescriptor.ofVoid(ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS);
    /** The comparator qsort calls: two pointers to the elements (here ints), and an int back. */
    static final AddressLayout INT_POINTER = ADDRESS.withTargetLayout(JAVA_INT);
    static final FunctionDescriptor COMPARATOR = FunctionDescriptor.of(JAVA_INT, INT_POINTER, INT_POINTER);

    /** The C library's qsort as a method handle (a downcall), and SleepyComparator.compare to make upcall stubs of. */
    record Qsort(Linker linker, MethodHandle qsort, MethodHandle compare) {
        static Qsort link() {
            Linker linker = Linker.nativeLinker();
            MemoryLayout sizeT = linker.canonicalLayouts().get("size_t");
            if (sizeT == null || sizeT.byteSize() != JAVA_LONG.byteSize()) {
                throw new IllegalStateException("this snippet passes size_t as a 64-bit long; this platform's size_t"
                        + " is " + (sizeT == null ? "unknown" : sizeT.byteSize() * 8 + "-bit"));
            }
            MemorySegment address = linker.defaultLookup().find("qsort").orElseThrow(() -> new IllegalStateException(
                    "the C library has no qsort here (Linker.nativeLinker().defaultLookup() does not find it)"));
            try {
                MethodHandle compare = MethodHandles.lookup().findVirtual(SleepyComparator.class, "compare",
                        MethodType.methodType(int.class, MemorySegment.class, MemorySegment.class));
                return new Qsort(linker, linker.downcallHandle(address, QSORT), compare);
            } catch (NoSuchMethodException | IllegalAccessException e) {
                throw new IllegalStateException("cannot find SleepyComparator.compare: " + e);
            }
        }

        /** An upcall stub: a C function pointer that calls {@code c.compare}; valid until {@code arena} closes. */
        MemorySegment stub(SleepyComparator c, Arena arena) {
            return linker.upcallStub(compare.bindTo(c), COMPARATOR, arena);
        }

        /** Sorts {2, 1} with qsort and {@code comparator}: Java -> qsort (native) -> comparator (Java) -> back. */
        void sortTwo(MemorySegment comparator) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment ints = arena.allocateFrom(JAVA_INT, 2, 1); // out of order, so qsort must compare them
                qsort.invokeExact(ints, 2L, JAVA_INT.byteSize(), comparator);
                if (ints.getAtIndex(JAVA_INT, 0) != 1) throw new IllegalStateException("qsort did not sort {2, 1}");
            } catch (RuntimeException | Error e) {
                throw e;
            } catch (Throwable e) { // invokeExact declares Throwable; qsort throws nothing checked
                throw new IllegalStateException("qsort failed: " + e, e);
            }
        }
    }

    /**
     * qsort's comparator, one per thread: on its first call it sleeps S ms, in the upcall, with qsort's native frame
     * below it on the stack. Nothing may leave an upcall (an exception there ends the JVM): a failure is kept for
     * the thread to rethrow once qsort has returned.
     */
    static final class SleepyComparator {
        private final long sleepMs;
        private int calls, sleeps;
        private Throwable failure;

        SleepyComparator(long sleepMs) {
            this.sleepMs = sleepMs;
        }

        int compare(MemorySegment a, MemorySegment b) {
            try {
                if (calls++ == 0) {
                    Thread.sleep(sleepMs);
                    sleeps++;
                }
                return Integer.compare(a.get(JAVA_INT, 0), b.get(JAVA_INT, 0));
            } catch (Throwable e) {
                if (failure == null) failure = e;
                return 0;
            }
        }

        /** Throws what went wrong in the upcall, if anything (an interrupt as InterruptedException again). */
        void rethrow() throws InterruptedException {
            if (failure instanceof InterruptedException e) throw e;
            if (failure != null) throw new IllegalStateException("the comparator failed in the upcall: " + failure);
        }
    }

    /** Starts {@code n} virtual threads doing case {@code name} for {@code s} ms each; times them to the last end. */
    static Pinning.Timed runCase(String name, Pinning.Plan p, ForkJoinPool pool, Qsort qsort)
            throws InterruptedException {
        boolean upcall = name.equals("native-upcall-sleep");
        SleepyComparator[] comparators = new SleepyComparator[p.n()];
        MemorySegment[] stubs = new MemorySegment[p.n()];
        Pinning.Timed t;
        // Shared: a stub is made here and passed to qsort in another thread. Closed when every sort has returned.
        try (Arena arena = Arena.ofShared()) {
            for (int i = 0; upcall && i < p.n(); i++) { // made before the clock starts: the case times only the sorts
                comparators[i] = new SleepyComparator(p.s());
                stubs[i] = qsort.stub(comparators[i], arena);
            }
            t = Pinning.timeCase(name, p, pool, false, i -> { // a method each: a stack trace names the case
                if (upcall) nativeUpcallSleep(qsort, stubs[i], comparators[i]);
                else plainSleep(p.s());
            });
        }
        int upcalls = 0, sleeps = 0;
        for (SleepyComparator c : comparators) {
            if (c == null) continue;
            upcalls += c.calls;
            sleeps += c.sleeps;
        }
        return t.with(0, upcalls, sleeps);
    }

    // ---- running them: one carrier, one JFR recording, through the harness ----------------------------------------

    static final List<String> CASES = List.of("none", "native-upcall-sleep");
    static final String NEEDS_22 = "the native-frame case needs JDK 22+: the FFM API (java.lang.foreign) is final"
            + " since JDK 22 and only a preview in JDK 21, so JDK 21 cannot run it; run it on the course JDK (S17"
            + " compares JDK 21 and the course JDK for the other cases)";

    public static void main(String[] args) {
        Pinning.refuseJdk21("S18", args, NEEDS_22); // before Jdks: it would build this and find JDK 21 can't load it
        args = Jdks.honourJdkOption("S18", "S18_NativeFramePinning.java", args); // --jdk course: the course JDK
        Pinning.oneCarrier(); // before the first virtual thread: the JDK reads the properties once, then
        Experiment.named("S18", "does a native frame on the stack still pin, on one carrier", "s18-native-frame-pinning")
                .oneOf("--case", "all", List.of("none", "native-upcall-sleep", "all"), "the case to run, or both")
                .count("--threads", 2, 2, 1, 1_000, "virtual threads per case, each blocking --sleep-ms")
                .count("--sleep-ms", 200, 2_000, 10, 10_000, "how long each blocks, ms")
                .check(a -> Pinning.checkWorstCase(a.oneOf("--case").equals("all") ? 2 : 1, a.count("--threads"),
                        a.count("--sleep-ms")))
                .notes("--jdk course  run on the course JDK; --jdk 21 is refused: the FFM API is final since JDK 22"
                        + "\nAlways on one carrier; at most 10 minutes if every case pinned.")
                .run(args, S18_NativeFramePinning::measure);
    }

    /**
     * Both cases on one carrier (parallelism = maxPoolSize = minRunnable = 1, set before the first virtual thread,
     * then checked, as in S17), one JFR recording (threshold 0). A case "pins" when its time is nearer N x S, or
     * when its threads have jdk.VirtualThreadPinned events. The FFM API (JEP 454) is final since JDK 22, so this is
     * compiled for 22 and refuses --jdk 21; without --enable-native-access=ALL-UNNAMED (//RUNTIME_OPTIONS) JDK 22+
     * warns.
     */
    static Pinning.Run measure(Experiment.Args a) throws Exception {
        String only = a.oneOf("--case");
        Pinning.Plan p = new Pinning.Plan("s18-native-frame-pinning", "s18-", CASES,
                only.equals("all") ? CASES : List.of(only), a.intCount("--threads"), a.count("--sleep-ms"));
        ForkJoinPool pool = Pinning.checkedPool(); // the first virtual thread: the scheduler is created now
        Qsort qsort = Qsort.link(); // looked up and linked once, before the recording
        Pinning.announce(pool, p, "sleep", "");
        boolean nativeAccess = Pinning.nativeAccessGiven(); // JDK 22+ warn without it; was it given to this JVM?
        Pinning.Recorded rec = Pinning.record(p, false, () -> warmUp(p, pool, qsort),
                name -> runCase(name, p, pool, qsort));
        a.kept(rec.jfr()); // beside the result; deleted again if the save fails
        return Pinning.result(p, pool, rec, false, null, nativeAccess, "");
    }

    /**
     * A plain sleep of 1 ms and one sort whose comparator sleeps 1 ms, in one virtual thread, so the timed sleep of a
     * virtual thread, the FFM call paths and JFR's event writer are all set up before the cases.
     */
    static void warmUp(Pinning.Plan p, ForkJoinPool pool, Qsort qsort) throws InterruptedException {
        SleepyComparator comparator = new SleepyComparator(1);
        try (Arena arena = Arena.ofShared()) {
            MemorySegment stub = qsort.stub(comparator, arena);
            Pinning.warmUp(p, pool, false, () -> {
                plainSleep(1);
                nativeUpcallSleep(qsort, stub, comparator);
            });
        }
    }
}

/*
 * How to run:
 *   tools/jbang native-frame-pinning                             (both cases, 2 threads x 200 ms each)
 *   tools/jbang native-frame-pinning --case native-upcall-sleep --threads 10 --sleep-ms 50
 *   tools/jbang native-frame-pinning --jdk 21                    (refused: FFM is final since JDK 22)
 *   jfr view pinned-threads results/s18-native-frame-pinning/<newest>.jfr
 *
 * What you should see: none at ~1 x the sleep, native-upcall-sleep at ~N x with N pinned events on JDK 24+.
 * Reference runs: data/reference-runs/snippets/S18-native-frame-pinning.md
 */
