"""Faults around chapter 07's database, each injected as a hostile probe did it: a URL whose second client would read
another host, a host that is no IP address, and a PostgreSQL killed in the middle of a run. Each passes only if the
traffic stayed on the address the guard judged, the refusal was one line before connecting, or the run failed with
one line and saved nothing."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import psutil
import pytest

from conftest import HOME, preview_skip
from test_faults_checkout import _database_of
from test_faults_inputs import shared_postgres  # noqa: F401 (a fixture: a real PostgreSQL for the module)
from test_snippets import one_line_error

JBANG = ["bash", str(HOME / "tools" / "jbang")]


def run_snippet(*args: str, env: dict, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([*JBANG, *args], cwd=HOME, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **env}, stdin=subprocess.DEVNULL)


@contextmanager
def listener(host: str, port: int):
    """A TCP listener on host:port that counts the connections it gets (and hangs each up at once)."""
    server = socket.create_server((host, port))
    server.settimeout(0.2)
    seen: list[int] = []
    stop = threading.Event()

    def accept():
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except (socket.timeout, OSError):
                continue
            seen.append(1)
            conn.close()

    t = threading.Thread(target=accept, daemon=True)
    t.start()
    try:
        yield seen
    finally:
        stop.set()
        t.join(5)
        server.close()


@pytest.mark.fault
def test_the_reactive_driver_connects_where_the_guard_and_jdbc_do(tmp_path, shared_postgres):
    """UNPINNED_DB_URL names host 127.0.0.2 and, through ?PGHOST=, 127.0.0.1 (where PostgreSQL listens): the guard
    and JDBC read 127.0.0.1, and R2DBC read the URL's own host with java.net.URI (off the machine in the probe; here a
    listener on 127.0.0.2 at the same port). Both drivers must go to the one address the guard judged."""
    if preview_skip("reactive-driver"):
        pytest.skip(preview_skip("reactive-driver"))
    port = int(shared_postgres.split("://127.0.0.1:")[1].split("/")[0])
    url = f"jdbc:postgresql://127.0.0.2:{port}/postgres?PGHOST=127.0.0.1"
    with listener("127.0.0.2", port) as seen:
        run = run_snippet("reactive-driver", "--workload", "select1", "--users", "2", "--pool", "2", "--warmup-s", "0",
                          "--duration-s", "0.5", env={"UNPINNED_DB_URL": url, "UNPINNED_DB_USER": "postgres",
                                                      "UNPINNED_RESULTS": str(tmp_path)})
    assert not seen, f"a driver connected to 127.0.0.2:{port}, which the guard never judged:\n{run.stdout[-2000:]}"
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert "postgresql-external" in run.stdout and len(list(tmp_path.rglob("*.json"))) == 1, run.stdout[-3000:]


@pytest.mark.fault
def test_a_database_host_that_is_no_ip_address_is_refused_before_any_lookup(tmp_path):
    """127.0.0.999 looks like loopback to a regular expression but is no IP address: the driver asked DNS for it.
    One line, exit 2, before anything connects or is measured."""
    run = run_snippet("db-pool-cap", "--guard", "none", "--users", "2", "--duration-s", "1",
                      env={"UNPINNED_DB_URL": "jdbc:postgresql://127.0.0.999:5432/postgres",
                           "UNPINNED_RESULTS": str(tmp_path)}, timeout=300)
    one_line_error(run, "UNPINNED_DB_URL", "on this machine", "'127.0.0.999'")
    assert run.returncode == 2, run.returncode
    assert "@@progress" not in run.stdout and not list(tmp_path.rglob("*.json")), run.stdout[-2000:]


@pytest.mark.fault
def test_a_database_killed_during_a_level_fails_the_run_and_saves_nothing(tmp_path):
    """db-pool-cap at 5, 10 and 20 users on its embedded PostgreSQL; the postmaster is killed (SIGKILL) during the
    second level. The run used to save "at 20 users the pool caps it: 0.0 q/s, 100 % timed out"; it must end with one
    line naming the database, exit 1, and save nothing."""
    log = tmp_path / "out.log"
    results = tmp_path / "results"
    env = dict(os.environ, UNPINNED_RESULTS=str(results))
    env.pop("UNPINNED_DB_URL", None)
    with log.open("w") as out, (tmp_path / "err.log").open("w") as err:
        proc = subprocess.Popen([*JBANG, "db-pool-cap", "--guard", "none", "--users", "5,10,20", "--warmup-s", "0",
                                 "--duration-s", "4"], cwd=HOME, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=err)
    try:
        found = _database_of(proc.pid)
        if found is None:
            pytest.skip("no embedded PostgreSQL on this machine:\n" + log.read_text()[-2000:])
        _, server = found
        deadline = time.monotonic() + 120
        while "10 users (2/3)" not in log.read_text():
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(0.1)
        time.sleep(1)  # into the level's window
        server.send_signal(signal.SIGKILL)
        rc = proc.wait(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    said = [line for line in (tmp_path / "err.log").read_text().splitlines()
            if line.strip() and not line.startswith("[jbang]")]
    assert rc == 1, log.read_text()[-3000:] + "\n".join(said)
    assert len(said) == 1 and said[0].startswith("S23: ") and "nothing saved" in said[0], said
    assert "PostgreSQL" in said[0] or "database" in said[0], said
    assert "saved " not in log.read_text() and not list(results.rglob("*.json")), "a run on a dead database saved"
