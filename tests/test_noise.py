"""Verdicts that hold under noise: chapter 01's and 02's experiments judged three times, twice on an idle machine (the
suite's own run of the two chapters, and once more through tests/noise/NoiseRun.java) and once beside a bounded CPU
hog this test starts and stops. Between the idle runs no verdict may change unless it is inconclusive in one of them;
under the hog none may move between confirmed and refuted (moving to inconclusive is what a busy machine should do),
and the busy run's page must say the machine was busy."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from conftest import HOME, latest_result, report

EXPERIMENTS = ("01-io-bound", "01-cpu-bound", "01-sleep-endpoint", "02-order-sweep", "02-order-http-dependencies",
               "02-hidden-blocking")
DECIDED = ("confirmed", "refuted", "depends")
HOG_SECONDS = 600  # bounded: it ends by itself even if this test is killed


def _session_verdicts(results, chapters) -> dict[tuple[str, str], str]:
    chapters.executed("01-thread-per-request-and-pools.ipynb")
    chapters.executed("02-reactive-and-one-service-three-ways.ipynb")
    return {(e, j["id"]): j["verdict"] for e in EXPERIMENTS for j in latest_result(results, e)["judged"]}


def _noise_run(results) -> tuple[dict[tuple[str, str], str], list[dict]]:
    """One more run of the two chapters' experiments, saved in a folder of its own (the session's results stay the
    notebooks')."""
    results.mkdir(parents=True, exist_ok=True)
    run = subprocess.run(["bash", str(HOME / "tools" / "jbang"), "tests/noise/NoiseRun.java"], cwd=HOME,
                         capture_output=True, text=True, timeout=1200, stdin=subprocess.DEVNULL,
                         env=dict(os.environ, UNPINNED_RESULTS=str(results)))
    assert run.returncode == 0, (run.stdout + run.stderr)[-4000:]
    paragraphs = [json.loads(line[len("@@judged "):]) for line in run.stdout.splitlines() if line.startswith("@@judged ")]
    assert {p["experiment"] for p in paragraphs} == set(EXPERIMENTS), run.stdout[-3000:]
    return {(p["experiment"], j["id"]): j["verdict"] for p in paragraphs for j in p["judgements"]}, paragraphs


def _hog() -> subprocess.Popen:
    """One core kept busy, in a session of its own so it can be ended with everything it is."""
    return subprocess.Popen([sys.executable, "-c", f"import time\nend = time.time() + {HOG_SECONDS}\n"
                             "while time.time() < end:\n    pass\n"], start_new_session=True)


def test_verdicts_hold_on_an_idle_machine_and_beside_a_cpu_hog(results_dir, tmp_path, chapters):
    first = _session_verdicts(results_dir, chapters)
    second, _ = _noise_run(tmp_path / "idle")
    hog = _hog()
    try:
        time.sleep(1)
        hogged, paragraphs = _noise_run(tmp_path / "hog")
    finally:
        os.killpg(hog.pid, signal.SIGKILL)
        hog.wait(timeout=10)
    keys = sorted(set(first) & set(second) & set(hogged))
    measured = [k for k in keys if first[k] != "not run"]
    changed = [f"{k}: {first[k]} then {second[k]}" for k in measured
               if first[k] != second[k] and "inconclusive" not in (first[k], second[k])]
    flipped = [f"{k}: {v} idle, {hogged[k]} beside the hog" for k in measured for v in (first[k], second[k])
               if {v, hogged[k]} == {"confirmed", "refuted"}]
    to_inconclusive = [k for k in measured if second[k] in DECIDED and hogged[k] == "inconclusive"]
    unsaid = [p["experiment"] for p in paragraphs if p["busy"] and "The machine was busy" not in p["text"]]
    never_busy = [p["experiment"] for p in paragraphs if not p["busy"]]
    report(f"noise: {len(measured)} verdicts, {len(changed)} changed between idle runs, {len(set(flipped))} flipped"
           f" under the hog, {len(to_inconclusive)} moved to inconclusive"
           + (f"; runs the hog did not make busy: {', '.join(never_busy)}" if never_busy else ""))
    assert not changed, "verdicts changed between two idle runs:\n" + "\n".join(changed)
    assert not flipped, "verdicts flipped beside a CPU hog:\n" + "\n".join(sorted(set(flipped)))
    assert not unsaid, f"judged on a busy machine without saying so: {unsaid}"
    assert len(never_busy) < len(paragraphs), "the hog made no run busy: the machine state is not being measured"
