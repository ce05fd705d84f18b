//SOURCES ../experiments/Backpressure.java
//SOURCES ../experiments/CarrierScaling.java
//SOURCES ../experiments/CarrierTimeline.java
//SOURCES ../experiments/EndpointLoad.java
//SOURCES ../experiments/ExecutorBatches.java
//SOURCES ../core/Expectations.java
//SOURCES ../experiments/IoPath.java
//SOURCES ../experiments/JfrRuns.java
//SOURCES ../core/Json.java
//SOURCES ../experiments/Mounting.java
//SOURCES ../experiments/NoTimeSlicing.java
//SOURCES ../experiments/OrderSweep.java
//SOURCES ../experiments/Pinning.java
//SOURCES ../experiments/Profiling.java
//SOURCES ../experiments/ReactiveDriver.java
//SOURCES ../experiments/SchedulerRuns.java
//SOURCES ../experiments/SpringLoad.java
//SOURCES ../experiments/StackChunks.java
//SOURCES ../experiments/SwitchCosts.java
//SOURCES ../experiments/Switches.java
//SOURCES ../experiments/ThreadCost.java
//SOURCES ../experiments/UnparkStealing.java
//SOURCES ../experiments/WakeUps.java
package unpinned.course;

import unpinned.experiments.Backpressure;
import unpinned.experiments.CarrierScaling;
import unpinned.experiments.CarrierTimeline;
import unpinned.experiments.EndpointLoad;
import unpinned.experiments.ExecutorBatches;
import unpinned.experiments.IoPath;
import unpinned.experiments.JfrRuns;
import unpinned.experiments.Mounting;
import unpinned.experiments.NoTimeSlicing;
import unpinned.experiments.OrderSweep;
import unpinned.experiments.Pinning;
import unpinned.experiments.Profiling;
import unpinned.experiments.ReactiveDriver;
import unpinned.experiments.SchedulerRuns;
import unpinned.experiments.SpringLoad;
import unpinned.experiments.StackChunks;
import unpinned.experiments.SwitchCosts;
import unpinned.experiments.Switches;
import unpinned.experiments.ThreadCost;
import unpinned.experiments.UnparkStealing;
import unpinned.experiments.WakeUps;

import unpinned.core.Expectations;
import unpinned.core.Json;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The index of every experiment's declared expectations (each declared once, beside its result type): the ledger
 * asks it which claims a declaration decides, and every line of a declaration is the one place its threshold is
 * stated.
 */
public final class Declarations {
    private Declarations() {}

    /** Every declaration, in chapter order. */
    public static List<Expectations<?>> all() {
        return List.of(ExecutorBatches.IO_EXPECTED, ExecutorBatches.CPU_EXPECTED, EndpointLoad.SLEEP_EXPECTED,
                Mounting.SLEEPERS_EXPECTED, Mounting.BLOCKING_EXPECTED, Mounting.HOPS_EXPECTED,
                ThreadCost.COST_EXPECTED, ThreadCost.DEPTH_EXPECTED, StackChunks.EXPECTED, Switches.EXPECTED,
                SwitchCosts.EXPECTED, SwitchCosts.LAZY_THAW_EXPECTED,
                Pinning.PINNING_EXPECTED, Pinning.CLASS_LOADING_EXPECTED, Pinning.TRACE_EXPECTED,
                OrderSweep.SWEEP_EXPECTED, OrderSweep.DEPENDENCIES_EXPECTED, OrderSweep.HIDDEN_BLOCKING_EXPECTED,
                OrderSweep.TRACES_EXPECTED, SpringLoad.PR_EXPECTED, SpringLoad.FRAMEWORK_EXPECTED,
                SpringLoad.POST_EXPECTED, SpringLoad.SEMINAR_EXPECTED, OrderSweep.SPRING_EXPECTED,
                Backpressure.POOL_EXPECTED, Backpressure.WRITES_EXPECTED, ReactiveDriver.EXPECTED,
                Backpressure.FAN_OUT_EXPECTED, Backpressure.SCOPED_EXPECTED, UnparkStealing.STEAL_COUNTER_EXPECTED,
                CarrierTimeline.EXPECTED, UnparkStealing.EXPECTED, CarrierScaling.EXPECTED, NoTimeSlicing.EXPECTED,
                EndpointLoad.CPU_EXPECTED, IoPath.EXPECTED, SchedulerRuns.WHICH_QUEUE_EXPECTED, JfrRuns.EXPECTED,
                SchedulerRuns.COMPENSATION_EXPECTED, SchedulerRuns.SWEEP_EXPECTED, WakeUps.EXPECTED,
                Profiling.ENDPOINT_EXPECTED, Profiling.STACKS_EXPECTED, Profiling.SWITCHES_EXPECTED);
    }

    /** True when some declared expectation decides claim {@code id}. */
    public static boolean decides(String id) {
        return all().stream().flatMap(d -> d.expectations().stream()).anyMatch(e -> e.claims().contains(id));
    }

    /**
     * Every declared expectation as a record: experiment, id, kind, claims and its line's numbers. {@code java -cp
     * <helpers> unpinned.course.Declarations} prints them as JSON.
     */
    public static List<Map<String, Object>> records() {
        return all().stream().flatMap(d -> d.expectations().stream().map(e -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("experiment", d.experiment());
            m.put("id", e.id());
            m.put("kind", e.kind().name());
            m.put("claims", e.claims());
            m.put("subject", e.subject());
            m.put("reference", e.reference());
            m.put("line", e.line().words());
            m.put("confirmFrom", e.line().confirmFrom());
            m.put("confirmTo", Double.isFinite(e.line().confirmTo()) ? e.line().confirmTo() : null);
            m.put("refuteBelow", e.line().refuteBelow());
            m.put("refuteAbove", Double.isFinite(e.line().refuteAbove()) ? e.line().refuteAbove() : null);
            return m;
        })).toList();
    }

    public static void main(String[] args) {
        System.out.println(Json.write(records()));
    }
}
