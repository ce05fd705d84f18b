///usr/bin/env jbang "$0" "$@" ; exit $?
//JAVA 21+
//JAVAC_OPTIONS --release 21
//RUNTIME_OPTIONS --add-opens java.base/java.lang=ALL-UNNAMED
//SOURCES ../helpers/unpinned/workloads/Carriers.java
//SOURCES ../helpers/unpinned/core/Experiment.java
//SOURCES ../helpers/unpinned/experiments/IoPath.java
//SOURCES ../helpers/unpinned/running/Jdks.java
package unpinned.snippets;

/*
 * S29: who wakes a virtual thread that waits for a socket, a timer or a monitor?
 * The question: a virtual thread blocked in a socket read holds no carrier. Who notices the data and wakes it?
 * The same for a sleep and, since JDK 24, for a monitor. Three waits (see client, sleeper, contender), each seen
 * in a thread dump this JVM takes of itself while they wait (Thread.print; HotSpotDiagnosticMXBean.dumpThreads).
 * The bound: with N > carriers, more readers parked in a read than carriers means they unmounted: the carriers
 * are free while the reads wait. Where the sources and the dumps disagree, the dumps win.
 * The pitfall: a dump is a snapshot, so every thread is first waited into its state; JDK 21's JSON dump has no
 * "state", so a parked read is read from the stack (Poller.poll under a read).
 */

import unpinned.workloads.Carriers;
import unpinned.experiments.IoPath;
import unpinned.running.ThreadDump;
import unpinned.core.Experiment;
import unpinned.core.Protocol;
import unpinned.running.Jdks;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.atomic.AtomicInteger;

public class S29_IoPath {

    // ---- the code under study ---------------------------------------------------------------------------------

    /** A client: sends its request, then blocks reading the reply (parks: the poller wakes it). */
    static void client(InetSocketAddress server, AtomicInteger replies) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(server);
            s.getOutputStream().write('?');
            if (s.getInputStream().read() == '!') replies.incrementAndGet();
        }
    }

    /** The server's handler: reads the request, holds the reply back until {@code go}, then replies. */
    static void handler(Socket s, AtomicInteger requests, CountDownLatch go) throws Exception {
        try (s) {
            if (s.getInputStream().read() == '?') requests.incrementAndGet();
            go.await();
            s.getOutputStream().write('!');
        }
    }

    /**
     * A sleeper: the timer wakes it at {@code dueNanos} (System.nanoTime), unless interrupted first. JDK 21
     * (javap): sleepNanos -> parkNanos -> scheduleUnpark hands the unpark to VirtualThread-unparker, a one-thread
     * ScheduledThreadPoolExecutor. JDK 25 (src.zip): afterYield calls ForkJoinPool.schedule, whose DelayScheduler
     * thread (<pool>-delayScheduler) holds the wake-ups in a heap and submits each when due (DelayScheduler.loop).
     */
    static void sleeper(long dueNanos) {
        try {
            Thread.sleep(Duration.ofNanos(dueNanos - System.nanoTime()));
        } catch (InterruptedException e) {
            // released
        }
    }

    /**
     * A contender for the monitor. JDK 25 (src.zip, JEP 491): VirtualThread's static initializer starts
     * VirtualThread-unblocker, which takes the threads the VM hands it (takeVirtualThreadListToUnblock) and
     * unblocks each once the holder leaves. JDK 21 has no such thread: a contender pins its carrier (chapter 05).
     */
    static void contender(Object monitor, AtomicInteger entered) {
        synchronized (monitor) {
            entered.incrementAndGet();
        }
    }

    // ---- the measurement --------------------------------------------------------------------------------------

    public static void main(String[] args) {
        args = Jdks.honourJdkOption("S29", "S29_IoPath.java", args);
        Experiment.named("S29", "who wakes a virtual thread: poller, timer, unblocker", "s29-io-path")
                .count("--clients", 200, 1_000, 1, 10_000, "virtual threads reading a socket at once")
                .count("--sleepers", 200, 1_000, 1, 100_000, "virtual threads sleeping at once")
                .count("--contenders", 50, 200, 1, 10_000, "virtual threads contending for one monitor")
                .count("--carriers", 2, 2, 1, 64, "the scheduler's parallelism")
                .count("--hold-ms", 100, 100, 0, 10_000, "how long the server holds its replies after the"
                        + " dump, ms")
                .check(a -> ThreadDump.requireOpenFiles(a.intCount("--clients")))
                .notes("--jdk 21|course: run on the JDK 21 runtime set-up installs, or the course JDK (default:"
                        + " this JVM).")
                .budget(Duration.ofSeconds(5), Duration.ofSeconds(15))
                .run(args, S29_IoPath::measure);
    }

    static IoPath.Result measure(Experiment.Args a) throws Exception {
        int carriers = a.intCount("--carriers");
        System.setProperty("jdk.virtualThreadScheduler.parallelism", Integer.toString(carriers));
        ForkJoinPool pool = Carriers.pool(carriers); // the first virtual thread: the scheduler is created now
        var sockets = sockets(a.intCount("--clients"), a.intCount("--hold-ms"));
        var timers = timers(a.intCount("--sleepers"), pool);
        var unblocker = unblocker(a.intCount("--contenders"));
        var r = new IoPath.Result(Runtime.version().toString(), Runtime.version().feature(), carriers, sockets,
                timers, unblocker);
        System.out.println(r.summary());
        return r;
    }

    /**
     * (a) N clients and their handlers; the dumps once every client waits for its reply. NioSocketImpl.park calls
     * sun.nio.ch.Poller.poll, which registers the fd and parks; the poller's loop (pollerLoop or subPollerLoop)
     * finds it ready and unparks it (Poller.wakeup). JDK 21 (javap): platform Read-Poller, Write-Poller,
     * Read-/Write-Updater, no jdk.pollerMode. JDK 25 (src.zip, Linux's DefaultPollerProvider): VTHREAD_POLLERS by
     * default, a platform MasterPoller and virtual SubPoller-N (read: min(highestOneBit(cores), 32); write: 1);
     * jcmd Thread.vthread_pollers exists on 25 only.
     */
    static IoPath.Sockets sockets(int n, int holdMs) throws Exception {
        Protocol.progress("sockets: " + n + " clients");
        AtomicInteger requests = new AtomicInteger(), replies = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> clients = new ArrayList<>(), handlers = new ArrayList<>();
        try (ServerSocket server = new ServerSocket(0, n, InetAddress.getLoopbackAddress())) {
            var address = (InetSocketAddress) server.getLocalSocketAddress();
            try {
                for (int i = 0; i < n; i++) {
                    clients.add(IoPath.start("io-client-" + i, () -> client(address, replies)));
                    Socket accepted = server.accept();
                    handlers.add(IoPath.start("io-handler-" + i, () -> handler(accepted, requests, go)));
                }
                IoPath.await("every request read, every client waiting", () -> requests.get() == n
                        && IoPath.inState(clients, Thread.State.WAITING) == n);
                var seen = IoPath.sockets(n, "io-client-");
                Thread.sleep(holdMs);
                long t0 = System.nanoTime();
                go.countDown();
                for (Thread t : clients) IoPath.join(t);
                if (replies.get() != n) throw new Experiment.RunFailed(replies.get() + " of " + n + " replies");
                return IoPath.withReplyMs(seen, (System.nanoTime() - t0) / 1e6);
            } finally {
                go.countDown();
                IoPath.interrupt(clients, handlers);
            }
        }
    }

    /**
     * (b) N sleepers for a minute: the timer threads and their queue while all of them sleep (then interrupted).
     * Then N more, due one per ms from 100 ms on: the timer threads' CPU time and the stacks of the timer
     * threads and carriers sampled as they wake.
     */
    static IoPath.Timers timers(int n, ForkJoinPool pool) throws Exception {
        Protocol.progress("timers: " + n + " sleepers");
        List<Thread> sleepers = new ArrayList<>(), wakers = new ArrayList<>();
        try {
            long minute = System.nanoTime() + Duration.ofMinutes(1).toNanos();
            for (int i = 0; i < n; i++) sleepers.add(IoPath.start("io-sleeper-" + i, () -> sleeper(minute)));
            IoPath.await("every sleeper asleep", () -> IoPath.inState(sleepers, Thread.State.TIMED_WAITING) == n);
            var seen = IoPath.timers(n, IoPath.inState(sleepers, Thread.State.TIMED_WAITING), pool);
            IoPath.interrupt(sleepers, List.of());
            for (Thread t : sleepers) IoPath.join(t);
            long due = System.nanoTime() + Duration.ofMillis(100).toNanos(), step = 1_000_000; // 1 per ms
            for (int i = 0; i < n; i++) {
                long at = due + i * step;
                wakers.add(IoPath.start("io-waker-" + i, () -> sleeper(at)));
            }
            var wakeUp = IoPath.sampleWakeUps(n, due, n * step / 1e6, () -> wakers.stream().noneMatch(Thread::isAlive));
            for (Thread t : wakers) IoPath.join(t);
            return IoPath.withWakeUp(seen, wakeUp);
        } finally {
            IoPath.interrupt(sleepers, wakers);
        }
    }

    /** (c) N contenders for a monitor main holds: blocked at once, the unblocker, then released. */
    static IoPath.Unblocker unblocker(int n) throws Exception {
        Protocol.progress("monitor: " + n + " contenders");
        Object monitor = new Object();
        AtomicInteger entered = new AtomicInteger();
        List<Thread> contenders = new ArrayList<>();
        int blocked;
        IoPath.Seen seen;
        Long cpuBefore;
        long t0;
        try {
            synchronized (monitor) {
                for (int i = 0; i < n; i++) {
                    contenders.add(IoPath.start("io-contender-" + i, () -> contender(monitor, entered)));
                }
                // all BLOCKED (JDK 24+), or one per carrier, pinned, the rest waiting for a carrier (21)
                blocked = IoPath.settled(contenders, Thread.State.BLOCKED, Math.min(n, Carriers.parallelism()));
                seen = IoPath.unblocker();
                cpuBefore = IoPath.cpuNanos("VirtualThread-unblocker");
                t0 = System.nanoTime();
            }
            for (Thread t : contenders) IoPath.join(t);
        } finally {
            IoPath.interrupt(contenders, List.of());
        }
        double ms = (System.nanoTime() - t0) / 1e6;
        Long cpuAfter = IoPath.cpuNanos("VirtualThread-unblocker");
        if (entered.get() != n) throw new Experiment.RunFailed(entered.get() + " of " + n + " entered the monitor");
        return new IoPath.Unblocker(n, blocked, seen != null, seen == null ? null : seen.top(),
                cpuBefore == null || cpuAfter == null ? null : cpuAfter - cpuBefore, Math.round(ms * 10) / 10.0);
    }
}

/*
 * How to run:
 *   tools/jbang io-path                 (200 clients, 200 sleepers, 50 contenders on 2 carriers)
 *   tools/jbang io-path --jdk 21        (the same classes on the JDK 21 runtime)
 *
 * What you should see: every reader parked with no carrier busy, the poller, timer and unblocker threads of each
 * JDK, and JDK 21's contenders pinned where JDK 25's all block. Reference runs:
 * data/reference-runs/snippets/S29-io-path.md.
 */
