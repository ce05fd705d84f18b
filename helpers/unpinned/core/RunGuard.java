package unpinned.core;

import java.util.concurrent.TimeUnit;

/**
 * Stops a notebook from presenting the previous run's numbers as new. JJava runs every queued
 * cell after one is interrupted or fails (Stop during Run All interrupts one cell, then the rest
 * run), and a cell's variables still hold the last successful run's results. So when a
 * measurement is interrupted or fails, the helpers that measure, show, chart or save
 * ({@link ChildRun}, {@link Tables#html}, {@link Charts}, {@link Results#save}, {@link Demo}) refuse
 * for as long as the queue keeps running: each refusal is an error saying to re-run the
 * measurement. The guard lifts itself once the kernel has been quiet for {@link #QUIET_SECONDS}
 * (the queue is drained and a person runs a cell again), or at the next successful measurement
 * started after that.
 */
public final class RunGuard {
    private RunGuard() {}

    /** Cells queued by Run All follow each other within milliseconds; a person takes longer than this. */
    public static final long QUIET_SECONDS = 3;

    private static String stopped;
    private static long lastNanos;

    /** A measurement named {@code what} was interrupted or failed: refuse what follows in the queue. */
    public static synchronized void halt(String what) {
        stopped = what;
        lastNanos = System.nanoTime();
    }

    /** Throws if the queue is still running after a stopped measurement; {@code action} says what was refused. */
    public static void check(String action) {
        check(action, System.nanoTime());
    }

    static synchronized void check(String action, long now) {
        if (stopped == null) return;
        if (now - lastNanos >= TimeUnit.SECONDS.toNanos(QUIET_SECONDS)) {
            stopped = null; // quiet for a while: this is a new run, not the rest of the old queue
            return;
        }
        lastNanos = now;
        throw new Refused("not " + action + ": the measurement '" + stopped + "' was interrupted or failed,"
                + " so this cell would show the previous run's numbers as new; re-run the measurement above (or Run All)");
    }

    /**
     * The first statement of a notebook cell that shows measured values with plain Java (before it touches them):
     * refuses, like the helpers do, while the queue runs on after a stopped measurement.
     */
    public static void requireFresh() {
        check("showing results");
    }

    /** The measurement {@code what} that stopped the queue is being started again: its stop no longer holds. */
    public static synchronized void lift(String what) {
        if (what.equals(stopped)) stopped = null;
    }

    /** Whether a stop is in force. */
    public static synchronized boolean halted() {
        return stopped != null;
    }

    /**
     * Forgets any stop: what the stopped run would have shown was replaced by something labelled as not this run's
     * (the seminar's reference chart), so the next measurement in the queue may run.
     */
    public static synchronized void reset() {
        stopped = null;
    }

    /** A refusal is one line on the page: what was refused and what to do, no stack trace under it. */
    public static final class Refused extends IllegalStateException {
        Refused(String message) {
            super(message);
        }

        @Override
        public synchronized Throwable fillInStackTrace() {
            return this; // the refusal's place in the helpers says nothing to the learner
        }
    }
}
