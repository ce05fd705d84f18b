///usr/bin/env jbang "$0" "$@" ; exit $?
// Runs chapter 01's and 02's experiments once, through the same helpers their notebooks call, judges each against its
// declaration and prints every judgement as one "@@judged {...}" line (tests/test_noise.py runs it on an idle
// machine and beside a CPU hog, and compares the verdicts). Chapter 02's stack traces are left out: they are counted
// from deterministic code, not measured against time.
//JAVA 21+
//JAVAC_OPTIONS --release 21
//SOURCES ../../helpers/unpinned/core/*.java
//SOURCES ../../helpers/unpinned/running/*.java
//SOURCES ../../helpers/unpinned/showing/*.java
//SOURCES ../../helpers/unpinned/chapters/*.java

import unpinned.chapters.EndpointLoad;
import unpinned.chapters.ExecutorBatches;
import unpinned.chapters.OrderSweep;
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
        print(ExecutorBatches.IO_EXPECTED.judge(ExecutorBatches.io(Map.of())));
        print(ExecutorBatches.CPU_EXPECTED.judge(ExecutorBatches.cpu(Map.of())));
        print(EndpointLoad.SLEEP_EXPECTED.judge(EndpointLoad.rows(EndpointLoad.sleepEndpoint("--users", "500",
                "--pool", "50", "--sleep-ms", "100"))));
        OrderSweep.Plan plan = OrderSweep.Plan.of(profile);
        List<Integer> levels = OrderSweep.levelsThatFit(plan.users(), false, System.out);
        List<OrderSweep.Row> sweep = new ArrayList<>();
        for (String impl : OrderSweep.IMPLEMENTATIONS) sweep.addAll(OrderSweep.run(impl, plan.withUsers(levels), List.of()));
        print(OrderSweep.SWEEP_EXPECTED.judge(sweep));
        print(OrderSweep.DEPENDENCIES_EXPECTED.judge(OrderSweep.withDependencies(profile, plan)));
        print(OrderSweep.HIDDEN_BLOCKING_EXPECTED.judge(OrderSweep.hiddenBlocking(profile, sweep)));
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
