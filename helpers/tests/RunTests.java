///usr/bin/env jbang "$0" "$@" ; exit $?
// Runs every *Test class in this folder (JUnit 5) against the helpers in ../unpinned,
// prints each failure and ends with "N passed, N failed"; exit code 1 on any failure.
// Usage: tools/jbang helpers/tests/RunTests.java [ClassNameRegex]   e.g. 'Bounds.*'
//JAVA 21+
//JAVAC_OPTIONS --release 21
//DEPS org.junit.jupiter:junit-jupiter-api:5.11.4
//DEPS org.junit.jupiter:junit-jupiter-engine:5.11.4
//DEPS org.junit.platform:junit-platform-launcher:1.11.4
//SOURCES *Test.java
//SOURCES ../unpinned/core/*.java
//SOURCES ../unpinned/running/*.java
//SOURCES ../unpinned/showing/*.java
//SOURCES ../unpinned/workloads/*.java
//SOURCES ../unpinned/experiments/*.java
//SOURCES ../unpinned/course/*.java

import static org.junit.platform.engine.discovery.ClassNameFilter.includeClassNamePatterns;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectPackage;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

public class RunTests {
    public static void main(String... args) {
        // Optional argument: a regex on the simple class name, e.g. 'Bounds.*|Demo.*'.
        String classes = args.length > 0 ? "unpinned\\.(\\w+\\.)?(" + args[0] + ")" : ".*";
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(selectPackage("unpinned"))
                .filters(includeClassNamePatterns(".*Test"), includeClassNamePatterns(classes))
                .build();
        Counter counter = new Counter();
        LauncherFactory.create().execute(request, counter);
        if (counter.skipped.get() > 0) System.out.println(counter.skipped.get() + " skipped");
        if (counter.passed.get() + counter.failed.get() == 0) {
            // An empty run must not look like success.
            System.out.println("no tests found matching " + classes);
            counter.failed.incrementAndGet();
        }
        System.out.println(counter.passed.get() + " passed, " + counter.failed.get() + " failed");
        System.exit(counter.failed.get() == 0 ? 0 : 1);
    }

    /** Counts tests, and prints each failed test or failed container (e.g. a class that can't start). */
    static final class Counter implements TestExecutionListener {
        final AtomicInteger passed = new AtomicInteger();
        final AtomicInteger failed = new AtomicInteger();
        final AtomicInteger skipped = new AtomicInteger();
        private TestPlan plan;

        @Override
        public void testPlanExecutionStarted(TestPlan plan) {
            this.plan = plan;
        }

        @Override
        public void executionSkipped(TestIdentifier id, String reason) {
            if (id.isTest()) skipped.incrementAndGet();
        }

        @Override
        public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            if (result.getStatus() == TestExecutionResult.Status.SUCCESSFUL) {
                if (id.isTest()) passed.incrementAndGet();
                return;
            }
            failed.incrementAndGet();
            System.out.println("FAILED " + name(id) + " (" + result.getStatus() + ")");
            result.getThrowable().ifPresent(t -> {
                System.out.println("    " + t);
                for (StackTraceElement e : t.getStackTrace()) {
                    if (e.getClassName().startsWith("unpinned.")) System.out.println("        at " + e);
                }
                Throwable c = t.getCause();
                for (int depth = 0; c != null && depth < 5; c = c.getCause(), depth++) {
                    System.out.println("    caused by " + c);
                }
            });
        }

        private String name(TestIdentifier id) {
            String parent = plan == null ? "" : plan.getParent(id).map(TestIdentifier::getDisplayName).orElse("");
            return parent.isEmpty() ? id.getDisplayName() : parent + " > " + id.getDisplayName();
        }
    }
}
