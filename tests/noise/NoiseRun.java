///usr/bin/env jbang "$0" "$@" ; exit $?
// Runs chapter 01's and 02's experiments once, through the same helpers and declarations their notebooks use (into
// the results folder it is given), and prints each experiment's judgements as one "@@judged {...}" line (tests/test_noise.py runs it on an idle
// machine and beside a CPU hog, and compares the verdicts). Chapter 02's stack traces are left out: they are counted
// from deterministic code, not measured against time.
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../../helpers/unpinned/core/*.java
//SOURCES ../../helpers/unpinned/running/*.java
//SOURCES ../../helpers/unpinned/showing/*.java
//SOURCES ../../helpers/unpinned/workloads/*.java
//SOURCES ../../helpers/unpinned/experiments/*.java
//SOURCES ../../helpers/unpinned/course/*.java
//SOURCES ../../helpers/unpinned/experiments/EndpointLoad.java
//SOURCES ../../helpers/unpinned/experiments/ExecutorBatches.java
//SOURCES ../../helpers/unpinned/experiments/OrderSweep.java

import unpinned.experiments.EndpointLoad;
import unpinned.experiments.ExecutorBatches;
import unpinned.experiments.OrderSweep;
import unpinned.core.Expectations;
import unpinned.core.Json;
import unpinned.core.Profile;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public class NoiseRun {
    public static void main(String[] args) {
        Profile profile = Profile.announceOrExit("NoiseRun");
        print(ExecutorBatches.IO_EXPECTED.keep(ExecutorBatches.io(Map.of())));
        print(ExecutorBatches.CPU_EXPECTED.keepSettled(() -> ExecutorBatches.cpu(Map.of()), ExecutorBatches::pooled,
                profile.pick(2, 3)).judged());
        List<EndpointLoad.SleepRun> waits = new ArrayList<>();
        for (String sleepMs : List.of("100", "10")) {
            waits.addAll(EndpointLoad.rows(EndpointLoad.sleepEndpoint("--users", "500", "--pool", "50", "--sleep-ms",
                    sleepMs)));
        }
        print(EndpointLoad.SLEEP_EXPECTED.keep(waits));
        OrderSweep.Plan plan = OrderSweep.Plan.of(profile);
        List<Integer> levels = OrderSweep.levelsThatFit(plan.users(), false, System.out);
        List<OrderSweep.Row> sweep = new ArrayList<>();
        for (String impl : OrderSweep.IMPLEMENTATIONS) sweep.addAll(OrderSweep.run(impl, plan.withUsers(levels), List.of()));
        print(OrderSweep.SWEEP_EXPECTED.keep(sweep));
        print(OrderSweep.DEPENDENCIES_EXPECTED.keep(OrderSweep.withDependencies(profile, plan)));
        print(OrderSweep.HIDDEN_BLOCKING_EXPECTED.keep(OrderSweep.hiddenBlocking(profile, sweep)));
        System.exit(0);
    }

    static void print(Expectations.Judged j) {
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("experiment", j.experiment());
        line.put("busy", j.machine().busy());
        line.put("text", j.text());
        line.put("judgements", j.records());
        System.out.println("@@judged " + Json.compact(line));
    }
}
