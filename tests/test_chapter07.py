"""Chapter 07's database snippets on their own: S23 (db-pool-cap) keeps every level under its Little's-law ceiling
and no timeouts behind a guard, and leaves no PostgreSQL process or data folder behind, also after an interrupt;
S24's leaking pool (parallel-writes) is stopped by its thread guard. The chapter's physics
at its own sizes (the pool's cap, the semaphore, the bulkhead) is checked on the notebook's runs."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import psutil
import pytest

from conftest import HOME, checkout_processes, jbang, report

S23 = "snippets/S23_PoolCap.java"
POOL, QUERY_MS, USERS = 4, 20, [2, 40]
TEMP_PREFIX = "unpinned-pg-"  # helpers/unpinned/running/Database.java's temporary folders


def result_of(run) -> dict:
    lines = [l for l in run.stdout.splitlines() if l.startswith("@@result ")]
    assert lines, (run.stdout + run.stderr)[-4000:]
    return json.loads(lines[-1][len("@@result "):])


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False
    except PermissionError:
        return True


def owner_alive(folder: Path) -> bool:
    """Each temporary folder names the JVM that made it (owner.pid): other runs (other snippets) may be running."""
    try:
        return alive(int((folder / "owner.pid").read_text().strip()))
    except (OSError, ValueError):
        return False


def our_postgres() -> list[str]:
    """Command lines of this checkout's PostgreSQL servers in one of Database.java's temporary folders (another
    checkout's, running beside the suite, are not ours)."""
    found = []
    for p in checkout_processes("postgres -D"):
        try:
            found.append(" ".join(p.cmdline()))
        except psutil.Error:
            continue  # it ended while we looked
    return [line for line in found if re.search(r"postgres -D \S*/" + TEMP_PREFIX, line)]


def orphaned_postgres() -> list[str]:
    """This checkout's PostgreSQL servers whose JVM has ended (or whose folder is gone)."""
    return [line for line in our_postgres()
            if not owner_alive(Path(re.search(r"postgres -D (\S*/" + TEMP_PREFIX + r"[^/\s]+)/data", line)[1]))]


def our_postgres_running() -> bool:
    return bool(our_postgres())


def orphaned_folders(since: float) -> list[Path]:
    """Database.java's temporary folders made since then whose JVM has ended."""
    roots = {Path(tempfile.gettempdir()), Path("/tmp")}
    return [p for r in roots if r.is_dir() for p in r.glob(TEMP_PREFIX + "*")
            if p.stat().st_mtime >= since - 1 and not owner_alive(p)]


@pytest.fixture(scope="module")
def pool_cap():
    """One short run of every guard (about 20 s), and what it left behind. The physics at the chapter's sizes is
    checked on the notebook's own runs (tests/test_notebooks.py, chapter 07)."""
    start = time.time()
    run = jbang(S23, "--guard", "all", "--pool", str(POOL), "--query-ms", str(QUERY_MS), "--users",
                ",".join(map(str, USERS)), "--warmup-s", "0.5", "--duration-s", "1", timeout=600)
    assert run.returncode == 0, (run.stdout + run.stderr)[-6000:]
    assert "Profile: " in run.stdout
    return result_of(run), orphaned_postgres(), orphaned_folders(start)


def test_nothing_is_left_behind(pool_cap):
    data, processes, folders = pool_cap
    assert data["database"]["kind"] in ("postgresql-embedded", "postgresql-external", "h2-postgresql-mode")
    assert processes == [], "PostgreSQL still running after the snippet ended:\n" + "\n".join(processes)
    assert folders == [], f"temporary database folders left: {folders}"


def test_no_level_beats_its_ceiling(pool_cap):
    data, _, _ = pool_cap
    assert len(data["levels"]) == 4 * len(USERS)
    for l in data["levels"]:
        assert l["errors"] == 0, l
        assert l["bound"] == pytest.approx(min(l["fastUsers"], POOL) / (QUERY_MS / 1000)), l
        assert 0 < l["throughput"] <= l["ceiling"] * 1.001, l
        if "slowThroughput" in l:
            assert l["slowThroughput"] <= l["slowCeiling"] * 1.001, l
        if l["run"] in ("semaphore", "bulkhead"):
            assert l["timeouts"] == 0, l  # behind a guard, no fast query ever times out


def test_an_interrupted_run_stops_its_database():
    """SIGTERM in the middle of a level (what a notebook's stop does to a child): the shutdown hook stops the
    server and deletes its folder; nothing is saved."""
    start = time.time()
    proc = subprocess.Popen(["bash", str(HOME / "tools" / "jbang"), S23, "--guard", "none", "--users", "50",
                             "--duration-s", "60"], cwd=HOME, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    seen = []
    watchdog = threading.Timer(180, proc.kill)  # a hung run ends the loop below (its output ends)
    watchdog.start()
    try:
        for line in proc.stdout:
            seen.append(line)
            if line.startswith("@@progress "):
                break
        else:
            pytest.fail("S23 ended before its first level:\n" + "".join(seen))
        if not any(l.startswith("database: ") and "postgresql-embedded" in l for l in seen):
            pytest.skip("no embedded PostgreSQL in this run:\n" + "".join(seen))
        deadline = time.monotonic() + 10
        while not our_postgres_running() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert our_postgres_running(), "no embedded server was running mid-level:\n" + "".join(seen)
        time.sleep(1)
        proc.send_signal(signal.SIGTERM)
        rest, _ = proc.communicate(timeout=60)
        seen.append(rest)
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    deadline = time.monotonic() + 10
    while orphaned_postgres() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert orphaned_postgres() == [], "PostgreSQL survived the interrupted run"
    assert orphaned_folders(start) == []
    assert proc.returncode != 0 and "@@result " not in "".join(seen), "".join(seen)[-3000:]


def test_the_thread_guard_stops_a_leaking_run():
    """The leak must not take the machine with it: past --max-threads the window ends early, and says so."""
    run = jbang("parallel-writes", "--mode", "fixed-leak", "--users", "20", "--duration-s", "5", "--warmup-s", "0",
                "--max-threads", "600", timeout=600)
    assert run.returncode == 0, (run.stdout + run.stderr)[-4000:]
    r = result_of(run)
    assert r["stoppedByGuard"] and "--max-threads 600" in r["stoppedBy"], r
    assert r["measuredSeconds"] < 5, r
    assert r["liveThreads"] > 600, r
    report(f"07 thread guard: the leaking run stopped after {r['measuredSeconds']:.2f} s of 5 at"
           f" {r['liveThreads']:,} live threads (limit 600)")
    assert orphaned_postgres() == [], "PostgreSQL survived the stopped run"


def test_a_database_off_this_machine_is_refused(tmp_path):
    """UNPINNED_DB_URL may name the learner's own PostgreSQL, but only on this machine: traffic stays on loopback."""
    from test_snippets import one_line_error
    env = dict(os.environ, UNPINNED_DB_URL="jdbc:postgresql://db.example.com:5432/postgres",
               UNPINNED_RESULTS=str(tmp_path))
    run = subprocess.run(["bash", str(HOME / "tools" / "jbang"), "db-pool-cap", "--guard", "none", "--users", "2",
                          "--duration-s", "1"], cwd=HOME, capture_output=True, text=True, timeout=600, env=env,
                         stdin=subprocess.DEVNULL)
    one_line_error(run, "UNPINNED_DB_URL", "on this machine", "'db.example.com'")
    assert not list(tmp_path.rglob("*.json")), "a refused run saves nothing"


def test_no_driver_beats_the_pool_and_nothing_is_left_behind():
    """S33: a pool of P connections caps JDBC on virtual threads and R2DBC alike at min(U, P) / q (Little's law) on a
    query that waits: a driver can't hold more queries at once than the pool has connections. SELECT 1 has no bound
    but the cores; both drivers must have served it. The printed line is the chapter's figure for the claim."""
    start = time.time()
    users, pool, query_ms = 20, 4, 20
    run = jbang("snippets/S33_ReactiveDriver.java", "--users", str(users), "--pool", str(pool), "--query-ms",
                str(query_ms), "--warmup-s", "0.5", "--duration-s", "1", timeout=600)
    assert run.returncode == 0, (run.stdout + run.stderr)[-6000:]
    data = result_of(run)
    assert orphaned_postgres() == [] and orphaned_folders(start) == []
    if data.get("skipped"):  # H2 stood in: no R2DBC to compare, said in one line
        assert data["rows"] == [] and "PostgreSQL" in data["skipped"]
        report(f"07 reactive driver: not measured ({data['skipped']})")
        return
    rows = {(r["driver"], r["workload"]): r for r in data["rows"]}
    assert set(rows) == {(d, w) for d in ("jdbc", "r2dbc") for w in ("wait", "select1")}
    for d in ("jdbc", "r2dbc"):
        wait = rows[(d, "wait")]
        assert wait["bound"] == pytest.approx(min(users, pool) / (query_ms / 1000))
        assert 0 < wait["throughput"] <= wait["ceiling"] * 1.001, wait  # no driver past the pool's bound
        assert rows[(d, "select1")]["queries"] > 0 and rows[(d, "select1")]["clientCpuUsPerQuery"] > 0
    assert rows[("jdbc", "wait")]["virtualThreads"] == users and rows[("r2dbc", "wait")]["virtualThreads"] == 0
    ratio = {w: rows[("r2dbc", w)]["throughput"] / rows[("jdbc", w)]["throughput"] for w in ("wait", "select1")}
    report(f"07 reactive driver: R2DBC / JDBC on virtual threads {ratio['wait']:.2f} x the queries/s on pg_sleep"
           f" (each at {rows[('jdbc', 'wait')]['boundRatio']:.2f} / {rows[('r2dbc', 'wait')]['boundRatio']:.2f} of"
           f" the pool's bound), {ratio['select1']:.2f} x on SELECT 1")
