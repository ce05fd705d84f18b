"""Code-exercise checks against hostile or broken answers (tests/exercise_faults/, and the wrong answers that hang):
every check ends with a verdict of its own within its exercise's limit, from a terminal and from a notebook, says
what was still running, stops what the answer started, ends with the notebook's kernel, and is not fooled by an
answer that ends its JVM or prints a verdict of its own."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import time

import psutil
import pytest

from conftest import HOME, jbang
from test_code_exercises import LIMITS

FAULTS = HOME / "tests" / "exercise_faults"
KERNEL = "tests/exercise_faults/NotebookCheck.java"   # a stand-in for a notebook's kernel


def _shown(result, seconds: float) -> str:
    return f"exit {result.returncode} after {seconds:.1f} s:\n{result.stdout[-4000:]}\n{result.stderr[-2000:]}"


def check(ref: str, id_: str, **env: str) -> tuple[subprocess.CompletedProcess, float]:
    """`tools/jbang <ref> --check`, built first so that its time is the check's own; a check that does not end
    within its limit and a minute is a failure of its own (TimeoutExpired)."""
    assert jbang("build", ref, timeout=900).returncode == 0, f"{ref} does not build"
    start = time.monotonic()
    result = subprocess.run(["bash", str(HOME / "tools" / "jbang"), ref, "--check"], cwd=HOME, capture_output=True,
                            text=True, timeout=LIMITS[id_] + 60, stdin=subprocess.DEVNULL, env={**os.environ, **env})
    return result, time.monotonic() - start


def in_a_notebook(ref: str, id_: str) -> tuple[subprocess.CompletedProcess, float]:
    """CodeExercises.passes(id_, ref), the notebook cell's path, from the stand-in kernel."""
    assert jbang("build", KERNEL, timeout=900).returncode == 0
    assert jbang("build", ref, timeout=900).returncode == 0
    start = time.monotonic()
    result = jbang(KERNEL, id_, ref, timeout=LIMITS[id_] + 90)
    return result, time.monotonic() - start


def assert_ended_with_a_verdict(result, seconds: float, id_: str, *said: str) -> None:
    shown = _shown(result, seconds)
    assert result.returncode == 1, shown
    assert re.search(rf"^{re.escape(id_)}: not yet \(\d+ of \d+ checks pass\)$", result.stdout, re.M), shown
    failed = [line for line in result.stdout.splitlines() if line.startswith("✘ ")]
    for words in said:
        assert any(words in line for line in failed), f"no ✘ line says '{words}': {shown}"
    assert "\tat " not in result.stdout + result.stderr, f"a stack trace instead of a verdict: {shown}"
    assert seconds <= LIMITS[id_], f"ran past its limit of {LIMITS[id_]} s: {shown}"


@pytest.mark.fault
def test_a_permit_released_outside_finally_ends_the_e07_check_with_its_hint():
    """issue 41 D-3: the check hung on the leak it exists to catch (its first phase had no deadline)."""
    result, seconds = check("tests/wrong_answers/E07_ReleaseOnlyOnSuccess.java", "07.guard-the-pool")
    assert_ended_with_a_verdict(result, seconds, "07.guard-the-pool",
                                "is something taken and never given back when a query fails?", "in Semaphore.acquire")


@pytest.mark.fault
def test_a_lock_never_unlocked_ends_the_e05_check_with_a_verdict_not_a_stack_trace():
    """issue 41 minor E6: the child JVM's timeout ended the check in an IllegalStateException's stack trace."""
    result, seconds = check("tests/wrong_answers/E05_NeverUnlocked.java", "05.fix-the-pin")
    assert_ended_with_a_verdict(result, seconds, "05.fix-the-pin", "in ReentrantLock.lock",
                                "is a lock taken and never given back?")


@pytest.mark.fault
def test_system_exit_0_in_the_answer_is_not_passed():
    """issue 41 minor E2: System.exit(0) in order() gave exit code 0, which means passed, and no verdict."""
    result, seconds = check("tests/exercise_faults/E07_ExitsEarly.java", "07.guard-the-pool")
    assert_ended_with_a_verdict(result, seconds, "07.guard-the-pool",
                                "System.exit, called from E07_ExitsEarly.Orders.order")


@pytest.mark.fault
def test_a_verdict_printed_by_the_answer_does_not_pass_in_the_notebook():
    """issue 41 minor E3: the answer printed '07.guard-the-pool: passed (...)' and exited 0, and the notebook's
    CodeExercises.passes returned true."""
    result, seconds = in_a_notebook("tests/exercise_faults/E07_FakesItsVerdict.java", "07.guard-the-pool")
    shown = _shown(result, seconds)
    assert result.returncode == 0, shown
    assert "passes=false" in result.stdout.splitlines(), shown
    assert result.stdout.splitlines()[-2] == "07.guard-the-pool: not yet (0 of 1 checks pass)", shown


@pytest.mark.fault
def test_a_process_the_answer_leaves_running_is_stopped_and_named():
    """issue 41 minor E7: E04's crunch started `sleep 417`, which outlived the check."""
    seconds_arg = f"417.{os.getpid()}"   # this test's own sleep, told apart from anyone else's
    try:
        result, seconds = check("tests/exercise_faults/E04_LeavesAProcess.java", "04.give-the-carrier-back",
                                UNPINNED_TEST_SLEEP=seconds_arg)
        left = _sleeps(seconds_arg)
        assert not left, f"still running after the check: {left}; {_shown(result, seconds)}"
        assert_ended_with_a_verdict(result, seconds, "04.give-the-carrier-back",
                                    f"the code left a process running when it was done: sleep {seconds_arg}")
    finally:
        for p in _sleeps(seconds_arg):   # only this test's own
            p.kill()


def _sleeps(arg: str) -> list:
    found = []
    for p in psutil.process_iter(["cmdline"]):
        if (p.info["cmdline"] or [])[-2:] == ["sleep", arg]:
            found.append(p)
    return found


@pytest.mark.fault
def test_a_runall_that_never_returns_is_stopped_at_the_limit_saying_where_it_was():
    """issue 35: a check that never ends, from a terminal: stopped at its limit, with where the code was."""
    result, seconds = check("tests/exercise_faults/E03_NeverReturns.java", "03.round-robin")
    assert_ended_with_a_verdict(result, seconds, "03.round-robin",
                                f"the check was stopped at its limit of {LIMITS['03.round-robin']} s, while runAll ran"
                                " the tasks", "running E03_NeverReturns.runAll")


@pytest.mark.fault
def test_a_runall_that_never_returns_is_stopped_at_the_limit_in_the_notebook_too():
    """issue 35: the same from a notebook's cell: its verdict and the line that says where the code was."""
    result, seconds = in_a_notebook("tests/exercise_faults/E03_NeverReturns.java", "03.round-robin")
    shown = _shown(result, seconds)
    assert "passes=false" in result.stdout.splitlines(), shown
    assert any(line.startswith("✘ the check was stopped at its limit") and "E03_NeverReturns.runAll" in line
               for line in result.stdout.splitlines()), shown
    assert "03.round-robin: not yet (0 of 1 checks pass)" in result.stdout.splitlines(), shown
    assert seconds <= LIMITS["03.round-robin"] + 10, shown   # the stand-in kernel's own JVM starts first


@pytest.mark.fault
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_a_check_ends_with_the_kernel_that_started_it(how):
    """issue 41 D-7: a notebook's check on a runAll that never returns outlived its kernel (SIGKILL, or SIGTERM: a
    JVM's exit runs no finally block), reparented to PID 1 at 84-95 % CPU."""
    ref = "tests/exercise_faults/E03_NeverReturns.java"
    assert jbang("build", KERNEL, timeout=900).returncode == 0
    assert jbang("build", ref, timeout=900).returncode == 0
    kernel = subprocess.Popen(["bash", str(HOME / "tools" / "jbang"), KERNEL, "03.round-robin", ref], cwd=HOME,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, stdin=subprocess.DEVNULL)
    checks = []
    try:
        for line in kernel.stdout:   # the check has begun once its title is shown
            if line.startswith("03.round-robin: "):
                break
        checks = psutil.Process(kernel.pid).children(recursive=True)
        assert checks, "the stand-in kernel started no check"
        kernel.send_signal(how)
        kernel.wait(30)   # reaped, as a notebook server reaps its kernel
        gone = time.monotonic()
        # the check's limit would end it some 10 s from now: it must end well before, with its parent
        _, alive = psutil.wait_procs(checks, timeout=6)
        assert not alive, (f"{len(alive)} check process(es) still running {time.monotonic() - gone:.0f} s after"
                           f" the kernel got {how.name}: {[p.pid for p in alive]}")
    finally:
        for p in checks:   # only the processes this test started
            if p.is_running():
                p.kill()
        if kernel.poll() is None:
            kernel.kill()
            kernel.wait(30)
