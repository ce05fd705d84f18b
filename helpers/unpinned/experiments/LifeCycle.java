package unpinned.experiments;

import com.google.gson.annotations.SerializedName;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Chapter 03's life cycle of a virtual thread, as snippet S32 (alias life-cycle) saves it, and the reflection it
 * needs: {@code java.lang.VirtualThread}'s private {@code state} field and state constants, read through
 * {@code --add-opens java.base/java.lang=ALL-UNNAMED} (S32's //RUNTIME_OPTIONS). Needs no other helper.
 */
public final class LifeCycle {
    private LifeCycle() {}

    /**
     * What S32 saves: this JDK's state constants (name to value, in value order), the states sampled in each
     * phase, three stack traces, and what a yield of a Continuation of our own did in each case.
     */
    public record Cycle(String javaVersion, int feature, Map<String, Integer> constants, List<String> pinnedReasons,
                        List<Phase> phases, List<Trace> traces, List<PinCase> pins) {
        /** Every state name sampled, in the order first seen. */
        public List<String> statesSeen() {
            return phases.stream().flatMap(p -> p.states().stream()).distinct().toList();
        }

        public Phase phase(String name) {
            return phases.stream().filter(p -> p.phase().equals(name)).findFirst().orElseThrow(
                    () -> new IllegalArgumentException("no phase '" + name + "'; phases: " + phases));
        }

        public PinCase pin(String name) {
            return pins.stream().filter(p -> p.kase().equals(name)).findFirst().orElseThrow(
                    () -> new IllegalArgumentException("no case '" + name + "'; cases: " + pins));
        }
    }

    /** One phase of the thread's script: the internal states sampled while it ran, in order, repeats dropped. */
    public record Phase(String phase, String action, List<String> states, String threadState) {
        public String line() {
            return String.format(Locale.ROOT, "%-18s %-40s %s  (Thread.getState: %s)", phase, action,
                    String.join(" -> ", states), threadState);
        }
    }

    /** A stack trace: when it was taken, its frames (class.method) top first, those the JDK hides by default. */
    public record Trace(String when, List<String> frames, List<String> hidden) {}

    /** A yield inside a Continuation of our own: "yielded", or the reason onPinned received. */
    public record PinCase(@SerializedName("case") String kase, String outcome) {}

    // ---- VirtualThread's state, through reflection --------------------------------------------------------------

    private static final Class<?> VIRTUAL_THREAD;
    private static final VarHandle STATE;

    static {
        try {
            VIRTUAL_THREAD = Class.forName("java.lang.VirtualThread");
            STATE = MethodHandles.privateLookupIn(VIRTUAL_THREAD, MethodHandles.lookup())
                    .findVarHandle(VIRTUAL_THREAD, "state", int.class);
        } catch (ReflectiveOperationException | IllegalAccessError e) {
            throw new IllegalStateException("java.lang.VirtualThread's state needs --add-opens"
                    + " java.base/java.lang=ALL-UNNAMED: " + e, e);
        }
    }

    /** The state constants VirtualThread declares (private static final int), in value order; SUSPENDED left out. */
    public static Map<String, Integer> constants() throws IllegalAccessException {
        List<Map.Entry<String, Integer>> found = new ArrayList<>();
        for (Field f : VIRTUAL_THREAD.getDeclaredFields()) {
            int m = f.getModifiers();
            if (!Modifier.isStatic(m) || !Modifier.isFinal(m) || f.getType() != int.class) continue;
            if (!f.getName().matches("[A-Z_]+") || f.getName().equals("SUSPENDED") || f.getName().contains("MODE")) {
                continue;
            }
            f.setAccessible(true);
            found.add(Map.entry(f.getName(), f.getInt(null)));
        }
        found.sort(Map.Entry.comparingByValue());
        Map<String, Integer> byName = new LinkedHashMap<>();
        found.forEach(e -> byName.put(e.getKey(), e.getValue()));
        return byName;
    }

    /** The thread's internal state, without the SUSPENDED bit (a debugger's). */
    public static int state(Thread virtual) {
        return (int) STATE.getVolatile(virtual) & 0xff;
    }

    /** The carrier a virtual thread is mounted on (null when unmounted): its private carrierThread field. */
    public static Thread carrier(Thread virtual) throws ReflectiveOperationException {
        Field f = VIRTUAL_THREAD.getDeclaredField("carrierThread");
        f.setAccessible(true);
        return (Thread) f.get(virtual);
    }

    /**
     * A platform thread that reads one virtual thread's state as fast as it can and keeps every change, tagged
     * with the phase set at that moment. States held for a few milliseconds are always seen; passing ones (PARKING,
     * YIELDING...) only when a read happens to fall inside them.
     */
    public static final class Sampler implements AutoCloseable {
        private final Thread subject;
        private final Map<Integer, String> names = new LinkedHashMap<>();
        private final List<String[]> changes = Collections.synchronizedList(new ArrayList<>());
        private final Thread reader;
        private volatile String phase = "new";
        private volatile int last = -1;

        public Sampler(Thread subject, Map<String, Integer> constants) {
            this.subject = subject;
            constants.forEach((n, v) -> names.put(v, n));
            reader = Thread.ofPlatform().daemon().name("s32-sampler").start(() -> {
                while (!Thread.currentThread().isInterrupted()) {
                    int s = state(subject);
                    if (s != last) {
                        changes.add(new String[] {phase, names.getOrDefault(s, "#" + s)});
                        last = s;
                    }
                    Thread.onSpinWait();
                }
            });
        }

        /** From now on, changes belong to {@code name}; its first entry is the state the thread is in now. */
        public void phase(String name) {
            phase = name;
            int now = state(subject);
            changes.add(new String[] {name, names.getOrDefault(now, "#" + now)}); // the state it starts in
        }

        /** The states seen in phase {@code name}, in order. */
        public List<String> statesIn(String name) {
            synchronized (changes) {
                List<String> states = new ArrayList<>();
                for (String[] c : changes) {
                    if (c[0].equals(name) && (states.isEmpty() || !states.get(states.size() - 1).equals(c[1]))) {
                        states.add(c[1]);
                    }
                }
                return states;
            }
        }

        @Override
        public void close() throws InterruptedException {
            reader.interrupt();
            reader.join();
        }
    }

    /** A trace as class.method lines (file and line left out), and the frames among them the JDK hides by default. */
    public static Trace trace(String when, StackTraceElement[] frames) {
        List<String> lines = new ArrayList<>();
        for (StackTraceElement f : frames) lines.add(f.getClassName() + "." + f.getMethodName());
        List<String> hidden = lines.stream().filter(LifeCycle::hiddenByDefault).distinct().toList();
        return new Trace(when, lines, hidden);
    }

    /**
     * Frames the JDK hides by default: methods annotated {@code @Hidden} in its sources (21.0.8 and 25, the same:
     * Continuation.enter, enter0, yield, yield0; VirtualThread.yieldContinuation; the Runnable that
     * VirtualThread.VThreadContinuation.wrap makes), and hidden classes (lambda forms, lambdas' classes).
     * Shown only with -XX:+ShowHiddenFrames.
     */
    static boolean hiddenByDefault(String frame) {
        return frame.matches("jdk\\.internal\\.vm\\.Continuation\\.(enter|enter0|yield|yield0)")
                || frame.equals("java.lang.VirtualThread.yieldContinuation")
                || frame.equals("java.lang.VirtualThread$VThreadContinuation$1.run")
                || frame.contains("LambdaForm$") || frame.contains("$$Lambda");
    }

    /** A virtual thread that spins {@code ms}; returns once its internal state is {@code state} (10 s at most). */
    public static Thread hog(long ms, int state) {
        Thread hog = Thread.ofVirtual().name("s32-hog").start(() -> spin(ms));
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (state(hog) != state) {
            if (System.nanoTime() > end) throw new IllegalStateException("the hog never reached state " + state);
            Thread.onSpinWait();
        }
        return hog;
    }

    /** Waits (10 s at most) until {@code virtual}'s internal state is {@code state}. */
    public static void awaitState(Thread virtual, int state) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (state(virtual) != state) {
            if (System.nanoTime() > end) throw new IllegalStateException(virtual + " never reached state " + state);
            Thread.sleep(0, 200_000);
        }
    }

    /** Waits until {@code t} is in {@code state}, holds it {@code holdMs} (a sampler reads it); returns its name. */
    public static String awaitThreadState(Thread t, Thread.State state, long holdMs) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (t.getState() != state) {
            if (System.nanoTime() > end) throw new IllegalStateException(t + " never reached " + state);
            Thread.sleep(1);
        }
        Thread.sleep(holdMs);
        return state.toString();
    }

    // ---- a Continuation of our own, through reflection (--add-exports java.base/jdk.internal.vm=ALL-UNNAMED) ----

    private static final Class<?> SCOPE, CONTINUATION;
    private static final Object OURS;

    static {
        try {
            SCOPE = Class.forName("jdk.internal.vm.ContinuationScope");
            CONTINUATION = Class.forName("jdk.internal.vm.Continuation");
            OURS = SCOPE.getConstructor(String.class).newInstance("s32");
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("jdk.internal.vm needs --add-exports java.base/jdk.internal.vm=ALL-UNNAMED: "
                    + e, e);
        }
    }

    /** Continuation.yield(our scope): returns if it yielded; throws what onPinned threw if pinned. */
    public static void yieldOurs() {
        invoke("yield", new Class<?>[] {SCOPE}, OURS);
    }

    /** Continuation.pin(): a critical section in which no yield succeeds. */
    public static void pin() {
        invoke("pin", new Class<?>[0]);
    }

    public static void unpin() {
        invoke("unpin", new Class<?>[0]);
    }

    /** Runs {@code body} as a new Continuation of our scope on this thread, resumed after each yield until done. */
    public static void runToEnd(Runnable body) {
        try {
            Object c = CONTINUATION.getConstructor(SCOPE, Runnable.class).newInstance(OURS, body);
            for (int i = 0; i < 10 && !(boolean) CONTINUATION.getMethod("isDone").invoke(c); i++) {
                CONTINUATION.getMethod("run").invoke(c);
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The constants of this JDK's Continuation.Pinned. */
    public static List<String> pinnedReasons() throws ClassNotFoundException {
        return java.util.Arrays.stream(Class.forName("jdk.internal.vm.Continuation$Pinned").getEnumConstants())
                .map(Object::toString).toList();
    }

    private static void invoke(String method, Class<?>[] types, Object... args) {
        try {
            CONTINUATION.getMethod(method, types).invoke(null, args);
        } catch (java.lang.reflect.InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            throw new IllegalStateException(e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Busy for {@code ms} milliseconds without blocking: holds its carrier (no time slicing). */
    public static void spin(long ms) {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
        while (System.nanoTime() < end) Thread.onSpinWait();
    }
}
