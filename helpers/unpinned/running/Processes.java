//SOURCES ../core/Profile.java
package unpinned.running;

import unpinned.core.Profile;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The one place the helpers start a process: a command with its folder and environment, tied to this JVM when the
 * caller wants it ({@link Profile#tiedToThisJvm}: the child ends itself once this JVM is gone), its output read line
 * by line by a consumer or written to a file, a time limit, and the kill of the whole tree (descendants first) on
 * timeout or interrupt. One place, so that no caller forgets the grandchildren (JBang's JVM, JMH's forks).
 *
 * <pre>
 * Processes.Ended e = Processes.of("jcmd", pid, "Thread.print").mergeErrors().outputTo(file).run(Duration.ofSeconds(30));
 * </pre>
 *
 * A program that cannot be started raises {@link IOException} with one line ("Cannot run program ...").
 */
public final class Processes {

    /** How long a tree is given to end on SIGTERM before it is killed outright. */
    public static final Duration GRACE = Duration.ofSeconds(3);

    private Processes() {
    }

    public static Spec of(String... command) {
        return of(List.of(command));
    }

    public static Spec of(List<String> command) {
        if (command == null || command.isEmpty()) throw new IllegalArgumentException("command must not be empty");
        return new Spec(List.copyOf(command));
    }

    /** How a run ended: its exit code, or timed out (then it and what it started were killed; exit is -1). */
    public record Ended(int exit, boolean timedOut) {
    }

    /** What to start and how; {@link #start()} or {@link #run(Duration)} it. */
    public static final class Spec {
        private final List<String> command;
        private Path dir;
        private final Map<String, String> env = new LinkedHashMap<>();
        private final Set<String> unset = new LinkedHashSet<>();
        private boolean tied;
        private boolean mergeErrors;
        private boolean inheritIO;
        private boolean closeInput;
        private ProcessBuilder.Redirect output;
        private ProcessBuilder.Redirect errors;
        private Consumer<String> lines;

        private Spec(List<String> command) {
            this.command = command;
        }

        public List<String> command() {
            return command;
        }

        public Spec directory(Path dir) {
            this.dir = dir;
            return this;
        }

        public Spec env(String name, String value) {
            env.put(name, value);
            unset.remove(name);
            return this;
        }

        /** Leaves {@code name} out of the child's environment (e.g. JAVA_TOOL_OPTIONS meant for this JVM only). */
        public Spec unsetEnv(String name) {
            env.remove(name);
            unset.add(name);
            return this;
        }

        /** The child ends itself once this JVM is gone, even by SIGKILL ({@link Profile#tiedToThisJvm}). */
        public Spec tied() {
            tied = true;
            return this;
        }

        /** Standard error into the same stream (or file) as standard output. */
        public Spec mergeErrors() {
            mergeErrors = true;
            return this;
        }

        /** The child shares this JVM's standard input, output and error. */
        public Spec inheritIO() {
            inheritIO = true;
            return this;
        }

        /** The child's standard input is closed at once: it reads end of file. */
        public Spec noInput() {
            closeInput = true;
            return this;
        }

        public Spec outputTo(Path file) {
            output = ProcessBuilder.Redirect.to(file.toFile());
            return this;
        }

        public Spec errorsTo(Path file) {
            errors = ProcessBuilder.Redirect.to(file.toFile());
            return this;
        }

        public Spec discardOutput() {
            output = ProcessBuilder.Redirect.DISCARD;
            return this;
        }

        public Spec discardErrors() {
            errors = ProcessBuilder.Redirect.DISCARD;
            return this;
        }

        /** For {@link #run}: each line of the output goes to {@code consumer}, from a thread of its own. */
        public Spec lines(Consumer<String> consumer) {
            lines = consumer;
            return this;
        }

        /** Starts it; the caller owns the process (and kills it with {@link #destroyTree}). */
        public Process start() throws IOException {
            ProcessBuilder builder = new ProcessBuilder(command);
            if (dir != null) builder.directory(dir.toFile());
            builder.environment().keySet().removeAll(unset);
            builder.environment().putAll(env);
            if (tied) Profile.tiedToThisJvm(builder);
            if (inheritIO) builder.inheritIO();
            builder.redirectErrorStream(mergeErrors);
            if (output != null) builder.redirectOutput(output);
            if (errors != null) builder.redirectError(errors);
            Process p = builder.start();
            if (closeInput && !inheritIO) p.getOutputStream().close();
            return p;
        }

        /**
         * Starts it and waits up to {@code limit} for its end (its output read to the end first when {@link #lines}
         * takes it); on timeout or interrupt kills it and what it started.
         */
        public Ended run(Duration limit) throws IOException, InterruptedException {
            Process p = start();
            try {
                Thread pump = lines == null ? null : pump(p, "process-output", lines);
                if (!p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                    destroyTree(p);
                    if (pump != null) pump.join(TimeUnit.SECONDS.toMillis(2));
                    return new Ended(-1, true);
                }
                if (pump != null) pump.join(TimeUnit.SECONDS.toMillis(10));
                return new Ended(p.exitValue(), false);
            } finally {
                if (p.isAlive()) destroyTree(p);
            }
        }
    }

    /**
     * Reads {@code p}'s output line by line into {@code consumer} on a daemon thread (reading a pipe cannot be
     * interrupted, so the caller waits on the process, not on the pipe); the thread ends with the output.
     */
    public static Thread pump(Process p, String name, Consumer<String> consumer) {
        return Thread.ofPlatform().daemon(true).name(name).start(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = r.readLine()) != null; ) consumer.accept(line);
            } catch (IOException e) {
                // the process was killed: nothing more to read
            }
        });
    }

    /** Kills {@code process} and every descendant, asking politely first and giving them {@link #GRACE} to end. */
    public static void destroyTree(Process process) {
        destroyTree(process, GRACE);
    }

    /**
     * Kills the process and every descendant (listed before any dies, so none is orphaned and missed), the deepest
     * first: SIGTERM and up to {@code grace} to end, then SIGKILL (at once with a zero grace). Always safe to call.
     */
    public static void destroyTree(Process process, Duration grace) {
        if (process == null) return;
        List<ProcessHandle> tree = new ArrayList<>(process.descendants().toList());
        Collections.reverse(tree);
        tree.add(process.toHandle());
        boolean interrupted = Thread.interrupted();
        if (grace.isPositive()) {
            tree.forEach(ProcessHandle::destroy);
            long deadline = System.nanoTime() + grace.toNanos();
            for (ProcessHandle h : tree) {
                try {
                    long left = deadline - System.nanoTime();
                    if (left > 0) h.onExit().get(left, TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                } catch (Exception e) {
                    // timed out or failed: forced below
                }
            }
        }
        tree.stream().filter(ProcessHandle::isAlive).forEach(ProcessHandle::destroyForcibly);
        try {
            process.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            interrupted = true;
        }
        if (interrupted) Thread.currentThread().interrupt();
    }
}
