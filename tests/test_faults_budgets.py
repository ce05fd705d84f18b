"""Run-time faults, injected as hostile probes did them: options each within range whose runs together take hours
(repeats x warm-ups x windows x modes x experiments) must be refused before anything runs, in one line with the sum;
and the "about N s" a run prints is the sum of its own options, not a profile's default."""
from __future__ import annotations

import os
import re
import subprocess
import time

import pytest

from conftest import HOME, report
from test_snippets import one_line_error

JBANG = ["bash", str(HOME / "tools" / "jbang")]

WHOLE_RUNS = {
    # 20 runs of each server, each up to 50 minutes: about 33 h, announced as "about 40 s"
    "cpu-endpoint repeats": (["cpu-endpoint", "--repeat", "20", "--warmup-s", "600", "--duration-s", "3000",
                              "--users", "2", "--n", "1000"], ["S16: 2 servers", "19 later runs", "1 h (3,600 s)"]),
    # two servers of an hour each: 2 h
    "sleep-endpoint both modes": (["sleep-endpoint", "--mode", "both", "--users", "2", "--warmup-s", "600",
                                   "--duration-s", "3000"], ["S03: 2 servers", "1 h (3,600 s)"]),
    # two experiments x two modes of an hour each: 4 h
    "spring-load experiments x modes": (["spring-load", "--experiment", "pr,jpa-blog", "--mode", "both",
                                         "--warmup-s", "0", "--duration-s", "3600"],
                                        ["S21: 2 modes", "2 Spring starts", "1 h (3,600 s)"]),
    # a warm-up and a window past an hour: refused by the load generator only after the first server started
    "order-sweep warm-up plus window": (["order-sweep", "--impl", "pool", "--users", "100", "--warmup-s", "600",
                                         "--duration-s", "3600"], ["S09: 1 implementation", "1 h (3,600 s)"]),
}


@pytest.mark.fault
@pytest.mark.parametrize("case", WHOLE_RUNS, ids=list(WHOLE_RUNS))
def test_a_run_whose_parts_add_up_past_its_limit_is_refused_before_anything_runs(case, tmp_path):
    args, words = WHOLE_RUNS[case]
    env = dict(os.environ, UNPINNED_RESULTS=str(tmp_path))
    try:
        run = subprocess.run([*JBANG, *args], cwd=HOME, env=env, capture_output=True, text=True, timeout=300,
                             stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"{case}: still running after {e.timeout:.0f} s: the run was accepted, not refused")
    line = one_line_error(run, *words, "= about")
    assert run.returncode == 2, line
    assert "@@progress" not in run.stdout and "==" not in run.stdout and "warm-up" not in run.stdout.lower(), (
        "refused before any server started: " + run.stdout[-2000:])
    assert not list(tmp_path.rglob("*.json")), "a refused run saves nothing"


def test_the_time_a_run_announces_is_the_sum_of_its_own_options(tmp_path):
    """sleep-endpoint on one server with a 1 s window: it announces the sum of its parts (2 JVM starts and the window),
    not the profile's "about 25 s"; the time it really took is reported beside it."""
    env = dict(os.environ, UNPINNED_RESULTS=str(tmp_path))
    start = time.monotonic()
    run = subprocess.run([*JBANG, "sleep-endpoint", "--mode", "virtual", "--users", "1", "--sleep-ms", "1",
                          "--warmup-s", "0", "--duration-s", "1"], cwd=HOME, env=env, capture_output=True, text=True,
                         timeout=600, stdin=subprocess.DEVNULL)
    took = time.monotonic() - start
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    said = re.search(r"^S03: .*; about (\d+) s: 1 server x \(2 JVM starts of 2 s \+ warm-up 0\.0 s \+ window 1\.0 s\)$",
                     run.stdout, re.M)
    assert said and said.group(1) == "5", run.stdout[:2000]
    report(f"03 sleep-endpoint, one server, 1 s window: announced about {said.group(1)} s, took {took:.1f} s"
           " (JBang's start included)")
