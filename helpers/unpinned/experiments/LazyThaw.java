//SOURCES ../core/Measurement.java
package unpinned.experiments;

import unpinned.core.Measurement;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Chapter 03's lazy thaw, as snippet S36 (alias lazy-thaw) saves it: a virtual thread parked deep returns frame by
 * frame, and after each return the words still frozen in its continuation's newest stack chunk are read. Also the
 * reading itself (jdk.internal.vm through --add-opens java.base/java.lang and java.base/jdk.internal.vm). Needs
 * Measurement.java alongside.
 */
public final class LazyThaw {
    private LazyThaw() {}

    /** What S36 saves: one deep park and one shallow one, on this JDK. */
    public record Run(String javaVersion, int feature, int thresholdWords, Park deep, Park shallow)
            implements Measurement.Measured {
        /** The frames thawed per thaw while under the threshold is not yet reached: an expectation of 1 (thaw_fast). */
        @Override
        public List<Measurement> measurements() {
            return List.of(Measurement.of("frames thawed per return-barrier thaw · JDK " + feature,
                    deep.framesPerThaw(), "frames").bound(1, Measurement.Bound.ESTIMATE));
        }
    }

    /**
     * One park {@code depth} frames deep: the words frozen once parked; the words still frozen after the resume
     * (before the first return) and after each return (index i: after i + 1 frames returned); the thaws seen (the
     * times the count went down); the median words one thaw took while the chunk held at least the threshold, and
     * in frames ({@code frameWords}: the words one frame of ours takes, from the park itself); the words the last
     * thaw took.
     */
    public record Park(int depth, int wordsParked, int wordsAfterResume, int[] wordsAfterReturn, int thaws,
                       double frameWords, double wordsPerThaw, double framesPerThaw, int lastThawWords,
                       int returnsBeforeEmpty) {
        public static Park of(int depth, int wordsParked, int wordsAfterResume, int[] after, double frameWords,
                              int threshold) {
            List<Integer> took = new ArrayList<>(), whileBig = new ArrayList<>();
            int last = wordsAfterResume, lastThaw = 0, emptyAt = -1;
            for (int i = 0; i < after.length; i++) {
                if (after[i] < last) {
                    took.add(last - after[i]);
                    if (last >= threshold) whileBig.add(last - after[i]);
                    lastThaw = last - after[i];
                }
                if (after[i] == 0 && emptyAt < 0) emptyAt = i + 1;
                last = after[i];
            }
            double median = median(whileBig);
            return new Park(depth, wordsParked, wordsAfterResume, after, took.size(), frameWords, median,
                    Double.isNaN(median) ? Double.NaN : Math.round(median / frameWords * 100) / 100.0, lastThaw,
                    emptyAt);
        }

        /** One line, as S36 prints it. */
        public String line() {
            return String.format(Locale.ROOT, "parked %,d frames deep: %,d words frozen; %,d left after the resume;"
                    + " %,d thaws on the way back (%.1f words, %.2f frames of ours, each while the chunk held 500"
                    + " words or more; the last one %,d words); empty after %,d returns", depth, wordsParked,
                    wordsAfterResume, thaws, wordsPerThaw, framesPerThaw, lastThawWords, returnsBeforeEmpty);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Park p && depth == p.depth && wordsParked == p.wordsParked
                    && Arrays.equals(wordsAfterReturn, p.wordsAfterReturn);
        }

        @Override
        public int hashCode() {
            return 31 * depth + Arrays.hashCode(wordsAfterReturn);
        }
    }

    static double median(List<Integer> v) {
        if (v.isEmpty()) return Double.NaN;
        List<Integer> s = new ArrayList<>(v);
        s.sort(null);
        int n = s.size();
        return n % 2 == 1 ? s.get(n / 2) : (s.get(n / 2 - 1) + s.get(n / 2)) / 2.0;
    }

    // ---- reading a virtual thread's frozen words --------------------------------------------------------------

    /**
     * The words still frozen in {@code virtualThread}'s newest stack chunk (StackChunk bottom - sp): all its frames
     * while it is parked, the ones not yet thawed while it runs; 0 when it has none. Allocates nothing.
     */
    public static int frozenWords(Thread virtualThread) {
        return Chunk.frozenWords(virtualThread);
    }

    /** The words frozen in a jdk.internal.vm.Continuation's newest stack chunk (bottom - sp); 0 when none. */
    public static int frozenWordsOf(Object continuation) {
        return Chunk.ofContinuation(continuation);
    }

    /** The reading, kept apart: its handles need --add-opens, which the records above must not. */
    private static final class Chunk {
        private static final VarHandle CONT, TAIL, SP, BOTTOM;

        static {
            try {
                MethodHandles.Lookup lookup = MethodHandles.lookup();
                Class<?> vthread = Class.forName("java.lang.VirtualThread");
                Class<?> cont = Class.forName("jdk.internal.vm.Continuation");
                Class<?> chunk = Class.forName("jdk.internal.vm.StackChunk");
                CONT = MethodHandles.privateLookupIn(vthread, lookup).findVarHandle(vthread, "cont", cont);
                TAIL = MethodHandles.privateLookupIn(cont, lookup).findVarHandle(cont, "tail", chunk);
                MethodHandles.Lookup inChunk = MethodHandles.privateLookupIn(chunk, lookup);
                SP = inChunk.findVarHandle(chunk, "sp", int.class);
                BOTTOM = inChunk.findVarHandle(chunk, "bottom", int.class);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("reading a stack chunk needs --add-opens java.base/java.lang=ALL-UNNAMED"
                        + " and --add-opens java.base/jdk.internal.vm=ALL-UNNAMED: " + e, e);
            }
        }

        static int frozenWords(Thread virtualThread) {
            return ofContinuation(CONT.get(virtualThread));
        }

        static int ofContinuation(Object continuation) {
            Object tail = TAIL.get(continuation);
            return tail == null ? 0 : (int) BOTTOM.get(tail) - (int) SP.get(tail);
        }
    }
}
