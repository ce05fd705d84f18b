///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 22+
//JAVAC_OPTIONS --release 22
//RUNTIME_OPTIONS --enable-native-access=ALL-UNNAMED
//SOURCES ../helpers/unpinned/experiments/Pinning.java
package unpinned.snippets;

/*
 * S18: does a native frame on the stack still pin a virtual thread, on this JDK?
 *
 * The question: since JDK 24 (JEP 491) a virtual thread that blocks while holding a monitor unmounts (S17).
 * What still pins is a frame the JVM cannot move off the carrier's stack: a class initializer (S17's
 * class-init) and a native frame. A native frame is there when Java calls C and C calls Java back: with the
 * FFM API, a downcall (Java -> native) whose native code calls an upcall stub (native -> Java). This snippet
 * blocks inside such an upcall, on ONE carrier (jdk.virtualThreadScheduler.parallelism = maxPoolSize =
 * minRunnable = 1, set in this JVM before its first virtual thread, then checked, as in S17): N virtual
 * threads each block S ms in
 *   none                 plain Thread.sleep (the control: never pins);
 *   native-upcall-sleep  the same Thread.sleep, inside an upcall: each thread sorts two ints with the C library's
 *                        qsort (a downcall, found by Linker.nativeLinker().defaultLookup()) and a Java comparator
 *                        (an upcall stub of its own) that sleeps S ms on its first call, then compares. Two ints
 *                        take one comparison; the comparator counts its calls and sleeps only once anyway.
 *
 * The bounds, as in S17: if the sleep unmounts, the N sleeps overlap on the one carrier (about 1 x S); if it
 * pins, they take turns (N x S). A case "pins" when its time is nearer N x S, or when JFR (threshold 0) records
 * jdk.VirtualThreadPinned events for its threads (with pinnedReason and blockingOperation on JDK 24+).
 *
 * The pitfalls: the FFM API (java.lang.foreign, JEP 454) is final since JDK 22 (a preview in 21), so this
 * snippet is compiled for Java 22 and refuses --jdk 21 (S17 runs on both). Calling native code is restricted:
 * without --enable-native-access=ALL-UNNAMED (JBang passes it, see //RUNTIME_OPTIONS) JDK 22+ warns. An
 * exception can't leave an upcall (it would end the JVM), so the comparator catches everything and hands it
 * back. What pins is not the native call (a thread running C is busy, not blocked) but blocking while its
 * frame is on the stack: any C library that calls back into Java (JNI callbacks, listeners, comparators).
 *
 * One JFR recording per run (threads named s18-<case>-<i>; a warm-up sort with a 1 ms sleep first, left out);
 * results in results/s18-native-frame-pinning/, a .json and the .jfr (try `jfr view pinned-threads FILE`).
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
    // ---- the two cases: what each virtual thread does -------------------------------------------------------------

    /** The control: Thread.sleep with only Java frames on the stack. Unmounts on every JDK. */
    static void plainSleep(long s) throws InterruptedException {
        Thread.sleep(s);
    }

    /** Thread.sleep inside qsort's comparator: Java -> qsort (C) -> the comparator (Java) -> sleep. */
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
 *   on any other JDK 22+: java --enable-native-access=ALL-UNNAMED \
 *       -cp "$(tools/jbang info classpath native-frame-pinning)" unpinned.snippets.S18_NativeFramePinning
 *   jfr view pinned-threads results/s18-native-frame-pinning/<newest>.jfr
 *
 * What you should see (2 cores, JDK 25.0.3; quick profile, 2 threads x 200 ms, ~1 s of cases; elapsed / sleep):
 *   none                 1.01-1.04, 0 pinned events; the threads waited 2-7 ms for the carrier (the JIT's first pass)
 *   native-upcall-sleep  2.01, 2 pinned events, pinnedReason "Native or VM frame on stack", blockingOperation
 *                        "LockSupport.park", carrier ForkJoinPool-1-worker-1; the second thread waited ~200 ms for
 *                        the carrier; 2 upcalls, 2 slept (glibc's qsort compares two ints once)
 *   The warm-up's pinned event (~1 ms) is left out. The same sleep pins in the upcall and unmounts outside it:
 *   JEP 491 freed monitors, not native frames. `jfr view pinned-threads` puts all of them under
 *   SleepyComparator.compare(...); `jfr print --events jdk.VirtualThreadPinned --stack-depth 20` shows the stack
 *   going from compare straight to Qsort.sortTwo: JFR lists Java frames only, so qsort's C frame (the one that
 *   pins) and the upcall stub are not on it. Full profile (2 x 2 s): 1.00 and 2.00 x, 2 pinned events.
 *   --threads 10 --sleep-ms 50: none 1.06 x, native-upcall-sleep 10.10 x with 10 pinned events.
 *   --threads 1000 --sleep-ms 10 --case native-upcall-sleep: 1,000 pinned events, 10.4 s (1,038 x), ~13 s in all.
 *   Started by plain java without --enable-native-access: four "WARNING: A restricted method ..." lines first,
 *   and the same results. --jdk 21: the one line "S18: the native-frame case needs JDK 22+: ...", exit code 2.
 *   (JDK 22-23 should pin the same way but record no pinnedReason; not measured here.)
 */
