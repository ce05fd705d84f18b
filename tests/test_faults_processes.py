"""Faults around the course's processes: a parent JVM that dies (SIGKILL, SIGTERM) must take its child JVMs with
it; arguments whose honest run time exceeds a snippet's budget are refused before anything runs; Ctrl-C on
`make book` stops the kernel and every JVM it started; and the stop command and the suite's leak checks see only
this checkout's JVMs, never another checkout's running beside it."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from conftest import HOME

JBANG = str(HOME / "tools" / "jbang")
SETTLE_S = 15  # "within seconds": what a dead parent's children, or an interrupted book's kernel, get to go


def _cmdline(p: psutil.Process) -> str:
    try:
        return " ".join(p.cmdline())
    except psutil.Error:
        return ""


def _descendants(pid: int) -> list[psutil.Process]:
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


def _wait_for_descendant(proc: subprocess.Popen, needle: str, log: Path, within_s: float = 240) -> psutil.Process:
    """The first descendant of `proc` whose command line contains `needle`; fails if `proc` ends or none comes."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        found = [p for p in _descendants(proc.pid) if needle in _cmdline(p)]
        if found:
            return found[0]
        if proc.poll() is not None:
            pytest.fail(f"ended (exit {proc.returncode}) before {needle} started:\n{log.read_text()[-3000:]}")
        time.sleep(0.2)
    pytest.fail(f"no {needle} within {within_s:.0f} s:\n{log.read_text()[-3000:]}")


def _kill_all(procs) -> None:
    for p in procs:
        try:
            p.kill()
        except psutil.Error:
            pass


def _left(procs: list[psutil.Process]) -> list[str]:
    _, alive = psutil.wait_procs(procs, timeout=SETTLE_S)
    return [f"{p.pid}: {_cmdline(p)[-160:]}" for p in alive]


# ----------------------------------------------------------------------------- 3: a child outlives its parent

@pytest.mark.fault
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["sigkill", "sigterm"])
def test_a_dead_parent_takes_its_server_and_load_generator_with_it(sig, tmp_path):
    """sleep-endpoint (S03) starts a sleep server and an http-load generator, each in a JVM of its own. Killed in the
    middle of a 10-minute window, by SIGKILL (no finally, no shutdown hook) or SIGTERM, its children must end within
    seconds, not when their window ends; and nothing is saved."""
    log = tmp_path / "out.log"
    results = tmp_path / "results"
    env = dict(os.environ, UNPINNED_RESULTS=str(results))
    with log.open("w") as out:
        proc = subprocess.Popen(["bash", JBANG, "sleep-endpoint", "--mode", "virtual", "--users", "1", "--sleep-ms",
                                 "1", "--warmup-s", "0", "--duration-s", "600"], cwd=HOME, env=env,
                                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
    children: list[psutil.Process] = []
    try:
        _wait_for_descendant(proc, "unpinned.snippets.S05_HttpLoad", log)
        assert "unpinned.snippets.S03_SleepEndpointLoad" in _cmdline(psutil.Process(proc.pid)), \
            "tools/jbang should have become the snippet's JVM (exec)"
        children = _descendants(proc.pid)
        assert any("unpinned.snippets.S04_SleepServer" in _cmdline(p) for p in children), children
        os.kill(proc.pid, sig)
        proc.wait(timeout=30)
        left = _left(children)
        assert not left, f"children outlived their parent ({sig.name}) by {SETTLE_S} s: {left}"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        _kill_all(children)
    assert not list(results.rglob("*.json")), "a killed run saves nothing"


# ----------------------------------------------------------------------------- 7: run-time budgets

BUDGETS = {
    # 256 hogs of 60 s on the cores: 256 / cores rounds of 60 s (two hours on 2 cores), not 60 s
    "no-time-slicing queued hogs": (["no-time-slicing", "--hogs", "256", "--hog-ms", "60000"],
                                    ["--hogs", "cores", "10 minutes"]),
    # 2 x cores hoppers of 100 ms bursts share the cores: 5,000 hops take 1,000 s, not 505 s
    "carrier-timeline hoppers share the cores": (["carrier-timeline", "--tasks", "1", "--work-us", "100000",
                                                  "--hops", "5000"], ["--hops 5,000", "10 minutes"]),
    # 12 levels where users outnumber a pool of 2: each level ends with a user waiting out the 60 s timeout
    "db-pool-cap connection timeouts": (["db-pool-cap", "--guard", "all", "--pool", "2", "--query-ms", "1",
                                         "--connection-timeout-ms", "60000", "--warmup-s", "0", "--duration-s", "10",
                                         "--users", "3,4,5,6,7,8,9,10,11,12,13,14"],
                                        ["connection timeout", "30 minutes"]),
    # two levels of 50 minutes in one generator run: each under the hour, together 100 minutes
    "http-load levels together": (["http-load", "--url", "http://127.0.0.1:9/sleep", "--connections", "1,2",
                                   "--warmup-s", "0", "--duration-s", "3000"], ["2 levels", "at most 1 h"]),
}


@pytest.mark.fault
@pytest.mark.parametrize("case", BUDGETS, ids=list(BUDGETS))
def test_arguments_past_the_time_budget_are_refused_before_measuring(case, tmp_path):
    from test_snippets import one_line_error
    args, words = BUDGETS[case]
    env = dict(os.environ, UNPINNED_RESULTS=str(tmp_path))
    try:
        run = subprocess.run(["bash", JBANG, *args], cwd=HOME, env=env, capture_output=True, text=True, timeout=180,
                             stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"{case}: still running after {e.timeout:.0f} s: the run was accepted, not refused")
    one_line_error(run, *words)
    assert "@@result" not in run.stdout and not list(tmp_path.rglob("*.json")), "a refused run saves nothing"


# ----------------------------------------------------------------------------- 8: Ctrl-C on make book

TINY_NOTEBOOK_CELLS = [
    "import unpinned.core.*; import unpinned.running.*; import unpinned.showing.*; import unpinned.workloads.*; import unpinned.experiments.*; import unpinned.course.*;",
    'var server = ServerProcess.start("S04_SleepServer.java", "--mode", "virtual", "--sleep-ms", "20");\n'
    "Thread.sleep(600_000);",
]


def start_tiny_book(tmp_path: Path, **popen) -> tuple[subprocess.Popen, Path]:
    """`make book`'s path (course.py runs book.py, --fresh: execute) on a one-chapter course of TINY_NOTEBOOK_CELLS,
    in a session of its own; returns the process and its log."""
    import nbformat
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in TINY_NOTEBOOK_CELLS])
    nb.metadata["kernelspec"] = {"name": "unpinned", "display_name": "Java (unpinned)", "language": "java"}
    chapters = tmp_path / "notebooks"
    chapters.mkdir()
    nbformat.write(nb, chapters / "00-tiny.ipynb")
    build = (f"import sys; sys.path.insert(0, {str(HOME / 'tools')!r}); import book; from pathlib import Path; "
             f"book.NOTEBOOKS = Path({str(chapters)!r}); book.EXECUTED = Path({str(tmp_path / 'executed')!r}); "
             "sys.exit(book.main(['book', '--fresh']))")
    make_book = (f"import sys; sys.path.insert(0, {str(HOME / 'tools')!r}); import course; "
                 f"sys.exit(course.run_to_end([sys.executable, '-c', {build!r}], course.course_env()))")
    log = tmp_path / "out.log"
    env = dict(os.environ, UNPINNED_RESULTS=str(tmp_path / "results"))
    with log.open("w") as out:
        proc = subprocess.Popen([sys.executable, "-c", make_book], cwd=HOME, env=env, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True, **popen)
    return proc, log


@pytest.mark.fault
def test_ctrl_c_on_make_book_stops_the_kernel_and_its_jvms(tmp_path):
    """`make book`'s path (tools/course.py runs tools/book.py, which executes a chapter on the course kernel) on a
    one-chapter course whose cell starts a sleep server and sleeps; Ctrl-C (SIGINT to the process group, as a
    terminal sends it) must end the build with one line, and the kernel and the server's JVM within seconds."""
    # a terminal's Ctrl-C reaches a SIGINT at its default, even from a background suite
    proc, log = start_tiny_book(tmp_path, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    tree: list[psutil.Process] = []
    try:
        server = _wait_for_descendant(proc, "unpinned.snippets.S04_SleepServer", log)
        time.sleep(1)  # the cell is in its sleep now
        tree = _descendants(proc.pid)  # the book build, the kernel's launcher and JVM, the server's JVM
        assert server in tree and len(tree) >= 4, [_cmdline(p)[-100:] for p in tree]
        os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail("make book's path was still running 60 s after Ctrl-C:\n" + log.read_text()[-3000:])
        left = _left(tree)
        assert not left, f"still running {SETTLE_S} s after Ctrl-C on the book: {left}"
        said = [l for l in log.read_text().splitlines() if "interrupted" in l]
        assert proc.returncode == 130 and len(said) == 1, log.read_text()[-3000:]
        assert "Traceback" not in log.read_text(), log.read_text()[-3000:]
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        _kill_all(tree)


# ----------------------------------------------------------------------------- 13: this checkout's JVMs only

FAKE_SERVER = """package unpinned.snippets;
public class S04_SleepServer {
    public static void main(String[] args) throws Exception {
        System.out.println("ready");
        Thread.sleep(600_000);
    }
}
"""


@pytest.mark.fault
def test_stop_and_the_leak_checks_leave_another_checkouts_jvms_alone(tmp_path):
    """Another checkout's experiment runs beside this one: a JVM whose command line names unpinned.snippets.S04_...,
    started from another folder (with that folder as its checkout). The suite's leak checks must not count it, and
    `python3 tools/course.py stop` (make stop) must leave it running while it stops this checkout's sleep server."""
    from chapter_runs import SNIPPET_JVMS
    from test_notebooks import _course_jvms
    from test_snippets import java_processes

    other = tmp_path / "other-checkout"
    source = other / "src" / "unpinned" / "snippets" / "S04_SleepServer.java"  # where its package says
    source.parent.mkdir(parents=True)
    source.write_text(FAKE_SERVER)
    java = Path((HOME / ".course" / "java-home").read_text().strip()) / "bin" / "java"
    env = {k: v for k, v in os.environ.items() if not k.startswith("UNPINNED_")}
    env.update(UNPINNED_HOME=str(other), UNPINNED_CHECKOUT=str(other))
    theirs = subprocess.Popen([str(java), str(source), "unpinned.snippets.S04_SleepServer"], cwd=other, env=env,
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              start_new_session=True)
    ours = subprocess.Popen(["bash", JBANG, "sleep-server", "--port", "0", "--mode", "virtual"], cwd=HOME,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        assert theirs.stdout.readline().strip() == "ready", "the other checkout's JVM did not start"
        for line in ours.stdout:
            if line.startswith("@@ready "):
                server = json.loads(line[len("@@ready "):])["pid"]
                break
        else:
            pytest.fail("this checkout's sleep server ended without a ready line")

        counted = {p.pid for p in _course_jvms(*SNIPPET_JVMS)}
        assert server in counted, "the leak check must see this checkout's sleep server"
        assert theirs.pid not in counted, "the leak check counted another checkout's JVM"
        assert not [c for c in java_processes("S04_SleepServer") if str(other) in c], \
            "test_snippets' leak check counted another checkout's JVM"

        stop = subprocess.run([sys.executable, str(HOME / "tools" / "course.py"), "stop"], cwd=HOME,
                              capture_output=True, text=True, timeout=60)
        assert stop.returncode == 0, stop.stdout + stop.stderr
        ours.wait(timeout=SETTLE_S)
        assert theirs.poll() is None, "make stop ended another checkout's JVM"
        assert f"pid {server}" in stop.stdout and f"pid {theirs.pid}" not in stop.stdout, stop.stdout
    finally:
        for proc in (theirs, ours):
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()
