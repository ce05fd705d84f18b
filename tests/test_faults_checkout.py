"""Faults around what belongs to this checkout, each injected as a hostile probe did it: `make stop` run by the host's
Python (which has no psutil), an embedded PostgreSQL left behind by a JVM killed outright, a run started from a
terminal that inherited another checkout's UNPINNED_HOME, and `make book` ended by SIGHUP, SIGTERM or SIGKILL instead
of Ctrl-C. Each passes only if it ended with a clear line (or the right behaviour) and nothing left running."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from conftest import HOME

JBANG = str(HOME / "tools" / "jbang")
SETTLE_S = 15


def host_python(tmp_path: Path) -> Path:
    """The host's python3 as `make` runs it after set-up: the interpreter the venv's bin/python links to, without
    the venv and without any site-packages (so no psutil, as on a machine whose python3 never had it)."""
    base = Path(os.path.realpath(sys.executable))
    wrapper = tmp_path / "python3"
    wrapper.write_text(f"#!/bin/sh\nexec '{base}' -S \"$@\"\n")
    wrapper.chmod(0o755)
    probe = subprocess.run([str(wrapper), "-c", "import psutil"], capture_output=True, text=True)
    assert probe.returncode != 0, "the stand-in for the host's python3 must lack psutil"
    return wrapper


def make_stop(tmp_path: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    return subprocess.run(["make", "-s", "stop", f"PYTHON={host_python(tmp_path)}"], cwd=HOME, capture_output=True,
                          text=True, timeout=120, env=env, stdin=subprocess.DEVNULL)


@pytest.mark.fault
def test_make_stop_after_set_up_works_with_the_hosts_python(tmp_path):
    """The host's python3 has no psutil, and the venv's bin/python is a symlink to that same interpreter: `make stop`
    must still hand over to the venv's Python, not end with 'stopping needs the course's venv'."""
    run = make_stop(tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "needs the course's venv" not in run.stderr, run.stderr
    assert "of this checkout" in run.stdout, run.stdout


def _database_of(pid: int, within_s: float = 240) -> tuple[Path, psutil.Process] | None:
    """The folder and the running postmaster of the embedded PostgreSQL the JVM `pid` started (initdb's standalone
    backend, a negative pid in postmaster.pid, does not count)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        for folder in Path("/tmp").glob("unpinned-pg-*"):
            try:
                if int((folder / "owner.pid").read_text().strip()) != pid:
                    continue
                server = int((folder / "data" / "postmaster.pid").read_text().splitlines()[0])
                if server > 0 and "postgres -D" in " ".join(psutil.Process(server).cmdline()):
                    return folder, psutil.Process(server)
            except (OSError, ValueError, IndexError, psutil.Error):
                continue
        time.sleep(0.2)
    return None


@pytest.mark.fault
def test_make_stop_ends_the_postgresql_a_killed_jvm_left_and_its_folder(tmp_path):
    """db-pool-cap (S23) killed outright (SIGKILL: no finally, no shutdown hook) while its embedded PostgreSQL runs;
    `make stop`, by the host's python3, must end that server and remove its folder."""
    log = tmp_path / "out.log"
    env = dict(os.environ, UNPINNED_RESULTS=str(tmp_path / "results"))
    env.pop("UNPINNED_DB_URL", None)
    with log.open("w") as out:
        proc = subprocess.Popen(["bash", JBANG, "db-pool-cap", "--guard", "none", "--users", "2", "--warmup-s", "0",
                                 "--duration-s", "300"], cwd=HOME, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT)
    server = None
    try:
        found = _database_of(proc.pid)
        if found is None:
            if "h2-postgresql-mode" in log.read_text() or "could not start" in log.read_text():
                pytest.skip("no embedded PostgreSQL on this machine")
            pytest.fail("no PostgreSQL of the run:\n" + log.read_text()[-3000:])
        folder, server = found
        proc.kill()
        proc.wait(30)
        time.sleep(1)
        assert server.is_running(), "the server must outlive a JVM killed outright (that is the fault)"
        run = make_stop(tmp_path)
        assert run.returncode == 0, run.stdout + run.stderr
        gone, alive = psutil.wait_procs([server], timeout=SETTLE_S)
        assert not alive, f"PostgreSQL {server.pid} still runs after make stop:\n{run.stdout}"
        assert not folder.exists(), f"{folder} is left after make stop:\n{run.stdout}"
        assert str(folder) in run.stdout, run.stdout
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if server is not None and server.is_running():
            server.kill()


def other_checkout(root: Path) -> Path:
    """Another set-up checkout of the course: its own tools/jbang (and course*.py), catalog, snippets and helpers,
    sharing this one's set-up state (.course) so that its wrapper works."""
    (root / "tools").mkdir(parents=True)
    for f in ("tools/jbang", "jbang-catalog.json", *(p.relative_to(HOME) for p in HOME.glob("tools/course*.py"))):
        shutil.copy2(HOME / f, root / f)
    for name in (".course", ".venv", "snippets", "helpers", "data"):
        (root / name).symlink_to(HOME / name)
    return root


def _wait_for(proc: subprocess.Popen, needle: str, log: Path, within_s: float = 300) -> psutil.Process:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            found = [p for p in psutil.Process(proc.pid).children(recursive=True) if needle in " ".join(p.cmdline())]
        except psutil.Error:
            found = []
        if found:
            return found[0]
        if proc.poll() is not None:
            pytest.fail(f"ended (exit {proc.returncode}) before {needle} started:\n{log.read_text()[-3000:]}")
        time.sleep(0.2)
    pytest.fail(f"no {needle} within {within_s:.0f} s:\n{log.read_text()[-3000:]}")


@pytest.mark.fault
def test_a_run_from_a_terminal_of_another_checkout_stays_this_checkouts(tmp_path):
    """A terminal of checkout A's JupyterLab carries UNPINNED_HOME=A; from there this checkout's sleep-endpoint runs.
    Its server and load generator must be this checkout's (started by this wrapper, carrying this folder), so that
    A's `make stop` leaves them alone and the run's results and logs stay here."""
    a = other_checkout(tmp_path / "checkout-a")
    log = tmp_path / "out.log"
    env = dict(os.environ, UNPINNED_HOME=str(a), UNPINNED_RESULTS=str(tmp_path / "results"))
    with log.open("w") as out:
        proc = subprocess.Popen(["bash", JBANG, "sleep-endpoint", "--mode", "virtual", "--users", "1", "--sleep-ms",
                                 "1", "--warmup-s", "0", "--duration-s", "30"], cwd=HOME, env=env,
                                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
    try:
        generator = _wait_for(proc, "unpinned.snippets.S05_HttpLoad", log)
        tree = [psutil.Process(proc.pid), *psutil.Process(proc.pid).children(recursive=True)]
        server = next(p for p in tree if "unpinned.snippets.S04_SleepServer" in " ".join(p.cmdline()))
        for p in (psutil.Process(proc.pid), server, generator):
            environ = p.environ()
            assert environ.get("UNPINNED_CHECKOUT") == str(HOME), (p.cmdline()[-3:], environ.get("UNPINNED_CHECKOUT"))
            assert environ.get("UNPINNED_HOME") == str(HOME), (p.cmdline()[-3:], environ.get("UNPINNED_HOME"))
        assert not [p for p in tree if str(a) in " ".join(p.cmdline())], "A's wrapper started part of the run"
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.mark.fault
@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGTERM, signal.SIGKILL], ids=["sighup", "sigterm", "sigkill"])
def test_make_book_ended_by_any_signal_takes_the_kernel_and_its_jvms_with_it(sig, tmp_path):
    """`make book`'s path (course.py runs book.py, which executes a chapter on the course kernel) on a one-chapter
    course whose cell starts a sleep server and sleeps, ended by SIGHUP (the terminal closed), SIGTERM (a CI timeout)
    or SIGKILL to its process group: the kernel's launcher, the kernel's JVM and the server's JVM must end within
    seconds (they lead a session of their own, so the signal never reaches them)."""
    from test_faults_processes import _descendants, _wait_for_descendant, start_tiny_book
    proc, log = start_tiny_book(tmp_path)
    tree: list[psutil.Process] = []
    try:
        server = _wait_for_descendant(proc, "unpinned.snippets.S04_SleepServer", log)
        time.sleep(1)  # the cell is in its sleep now
        tree = _descendants(proc.pid)  # the book build, the kernel's launcher and JVM, the server's JVM
        assert server in tree and len(tree) >= 4, [" ".join(p.cmdline())[-100:] for p in tree]
        os.killpg(proc.pid, sig)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            pytest.fail(f"make book's path was still running 60 s after {sig.name}:\n" + log.read_text()[-3000:])
        _, alive = psutil.wait_procs(tree, timeout=SETTLE_S)
        left = [f"{p.pid}: {' '.join(p.cmdline())[-160:]}" for p in alive if p.is_running()]
        assert not left, f"still running {SETTLE_S} s after {sig.name} on the book: {left}"
        if sig != signal.SIGKILL:
            said = [line for line in log.read_text().splitlines() if f"stopped by {sig.name}" in line]
            assert proc.returncode == 128 + sig and len(said) == 1, log.read_text()[-3000:]
            assert "Traceback" not in log.read_text(), log.read_text()[-3000:]
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        for p in tree:
            try:
                p.kill()
            except psutil.Error:
                pass
