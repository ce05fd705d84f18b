"""Hostile inputs and crossed runs, each injected once: a database URL that reaches past loopback, two runs
against one database, JMH's help, an unknown parameter and a fork that fails, a Spring property that turns the web
server off, and JDK choices (an explicit JAVA_HOME, a stale .course/java-home). Each must end with one clear line
(or the stated correct behaviour) and nothing lost or left running."""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

import pytest

from conftest import HOME, jbang, preview_skip
from test_chapter07 import orphaned_postgres, result_of
from test_snippets import one_line_error

sys.path.insert(0, str(HOME / "tools"))
import course  # noqa: E402
import course_base  # noqa: E402
import course_health  # noqa: E402
import course_install  # noqa: E402
import course_jdk  # noqa: E402

JBANG = ["bash", str(HOME / "tools" / "jbang")]


def run_snippet(*args: str, env: dict | None = None, cwd: Path = HOME, timeout: float = 600):
    return subprocess.run([*JBANG, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL)


def saved(results: Path) -> list[Path]:
    return list(results.rglob("*.json")) if results.exists() else []


# --------------------------------------------------------------------------- UNPINNED_DB_URL off loopback

@contextmanager
def counting_listener():
    """A TCP listener on 127.0.0.1 that counts the connections it gets (and hangs each up at once)."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    seen = []
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
        yield server.getsockname()[1], seen
    finally:
        stop.set()
        t.join(5)
        server.close()


@pytest.mark.fault
@pytest.mark.parametrize("tail", ["{port},otherhost:5432/postgres", "{port}/postgres?PGHOST=otherhost"],
                         ids=["second-host", "pghost-property"])
def test_a_database_url_that_reaches_off_loopback_is_refused_before_connecting(tmp_path, tail):
    """The first host is a listener on loopback; the driver would go on to (or instead reach) 'otherhost'."""
    with counting_listener() as (port, seen):
        url = "jdbc:postgresql://127.0.0.1:" + tail.format(port=port)
        run = run_snippet("db-pool-cap", "--guard", "none", "--users", "2", "--duration-s", "1",
                          env={"UNPINNED_DB_URL": url, "UNPINNED_RESULTS": str(tmp_path)}, timeout=300)
    one_line_error(run, "UNPINNED_DB_URL", "on this machine", "'otherhost'")
    assert run.returncode == 2, run.returncode
    assert not seen, f"the driver connected to 127.0.0.1:{port} before the refusal"
    assert "@@progress" not in run.stdout and "pool of" not in run.stdout, "refused only after starting: " + run.stdout
    assert saved(tmp_path) == [], "a refused run saves nothing"


# --------------------------------------------------------------------------- two runs against one database

SHARED_DATABASE = """\
//SOURCES {helpers}/running/Database.java
//SOURCES {helpers}/core/Cli.java
//SOURCES {helpers}/core/Course.java
//SOURCES {helpers}/core/Results.java
//SOURCES {helpers}/core/Busy.java
//SOURCES {helpers}/core/Measurement.java
//SOURCES {helpers}/core/Machine.java
//SOURCES {helpers}/core/Json.java
//SOURCES {helpers}/core/RunGuard.java
//SOURCES {helpers}/core/Profile.java
package unpinned.faults;

import unpinned.running.Database;

/** One embedded PostgreSQL (the course's own helper) for several runs: its URL, then open until stdin ends. */
public class SharedDatabase {{
    public static void main(String[] args) throws Exception {{
        try (Database db = Database.start(System.out)) {{
            System.out.println("@@url " + db.kind() + " " + db.jdbcUrl());
            System.out.flush();
            while (System.in.read() >= 0) {{ }}
        }}
    }}
}}
"""


@pytest.fixture(scope="module")
def shared_postgres(tmp_path_factory):
    """A real PostgreSQL that outlives the runs: started by Database.java in a JVM of its own, stopped by closing
    its stdin. Yields its JDBC URL."""
    folder = tmp_path_factory.mktemp("shared-db")
    script = folder / "SharedDatabase.java"
    script.write_text(SHARED_DATABASE.format(helpers=HOME / "helpers" / "unpinned"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("UNPINNED_DB_")}
    proc = subprocess.Popen([*JBANG, str(script)], cwd=folder, env=env, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = ""
        for line in proc.stdout:
            if line.startswith("@@url "):
                break
        _, kind, url = (line.split() + ["", "", ""])[:3]
        if kind != "postgresql-embedded":
            pytest.skip(f"no embedded PostgreSQL on this machine ({line.strip() or proc.stderr.read()[-500:]})")
        yield url
    finally:
        proc.stdin.close()
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)
    assert orphaned_postgres() == [], "the shared PostgreSQL outlived its JVM"


def rows_agree_with_errors(name: str, r: dict) -> None:
    if name == "parallel-writes":
        assert r["errors"] == 0, r
        assert r["rowsWritten"] == 3 * r["requestsStarted"], r
    else:
        for impl, m in r["impls"].items():
            written = m["siblingFates"].get("written", 0)
            assert "failed" not in m["siblingFates"], (impl, m)
            assert m["siblingRowsWritten"] >= written and m["siblingRowsWritten"] <= m["siblingRowsPossible"], (impl, m)


@pytest.mark.fault
@pytest.mark.parametrize("name, args", [
    ("parallel-writes", ["--mode", "virtual", "--users", "4", "--connections", "4", "--warmup-s", "0.5",
                         "--duration-s", "2"]),
    ("structured-fanout", ["--impl", "futures", "--slow-ms", "300", "--repeat", "2"]),
])
def test_two_runs_at_once_against_one_database_keep_to_their_own_rows(tmp_path, shared_postgres, name, args):
    """Two folders, two results folders, one PostgreSQL: each run must finish with its own consistent result."""
    if preview_skip(name):
        pytest.skip(preview_skip(name))
    # JBang builds one script once: two first runs at once race for its cache (one fails), so build it first
    build = run_snippet("build", name)
    assert build.returncode == 0, build.stderr[-3000:]
    runs = {}
    for who in ("a", "b"):
        (tmp_path / who).mkdir()
        env = {**os.environ, "UNPINNED_DB_URL": shared_postgres, "UNPINNED_DB_USER": "postgres",
               "UNPINNED_RESULTS": str(tmp_path / who / "results")}
        runs[who] = subprocess.Popen([*JBANG, name, *args], cwd=tmp_path / who, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL, env=env)
    outputs = {}
    try:
        for who, proc in runs.items():
            out, err = proc.communicate(timeout=300)
            outputs[who] = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    finally:
        for proc in runs.values():
            if proc.poll() is None:
                proc.kill()
    for who, run in outputs.items():
        assert run.returncode == 0, f"run {who}: " + (run.stdout + run.stderr)[-3000:]
        r = result_of(run)
        assert r["database"] == "postgresql-external", r
        rows_agree_with_errors(name, r)
        files = saved(tmp_path / who / "results")
        assert len(files) == 1, files
        assert json.loads(files[0].read_text())["data"] == r, "the saved result is not the run's own"


# --------------------------------------------------------------------------- JMH snippets

JMH_TINY = ["-f", "1", "-wi", "0", "-i", "1", "-r", "300ms", "-p", "tasks=4", "-p", "sleepMs=1",
            "-p", "executor=virtual"]


def own_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.strip() and not line.startswith("[jbang]")]


@pytest.mark.fault
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_jmh_snippet_help_prints_its_usage(flag):
    run = jbang("io-bound", flag, timeout=600)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert own_lines(run.stderr) == [], run.stderr
    usage = run.stdout[run.stdout.index("usage: S01"):]
    for word in ("executor = fixed-8,fixed-200,virtual", "tasks = 500", "sleepMs = 50", "-foe true", "-jvmArgsAppend"):
        assert word in usage, usage[:2000]
    assert "# Fork" not in run.stdout, "help ran a benchmark"


@pytest.mark.fault
def test_an_unknown_jmh_parameter_is_refused_naming_the_allowed_ones(tmp_path):
    run = jbang("io-bound", *JMH_TINY, "-p", "task=5", "-rf", "json", "-rff", str(tmp_path / "r.json"), timeout=600)
    one_line_error(run, "-p task", "executor, sleepMs, tasks")
    assert run.returncode == 2
    assert "# Fork" not in run.stdout, "a benchmark ran with the defaults"
    assert not (tmp_path / "r.json").exists()


@pytest.mark.fault
def test_a_jmh_run_whose_fork_fails_under_foe_false_exits_non_zero_and_saves_nothing(tmp_path):
    """-Xmx1k makes the forked JVM fail at start; -foe false lets JMH go on, with nothing measured."""
    report = tmp_path / "r.json"
    # (-Djmh.ignoreLock: another JMH run on this machine must not decide the outcome; this one measures nothing)
    run = jbang("-Djmh.ignoreLock=true", "io-bound", *JMH_TINY, "-foe", "false", "-jvmArgsAppend", "-Xmx1k",
                "-rf", "json", "-rff", str(report), timeout=600)
    assert "Too small maximum heap" in run.stdout + run.stderr, "the fork did not fail as injected"
    one_line_error(run, "S01: 1 of the 1 benchmarks started produced no result", "nothing saved")
    assert run.returncode == 1
    assert list(tmp_path.iterdir()) == [], "a run with no result saved a file"


# --------------------------------------------------------------------------- Spring Boot

@pytest.mark.fault
@pytest.mark.parametrize("kind", ["none", "reactive"])
def test_a_spring_property_that_turns_the_web_server_off_is_refused_up_front(kind):
    run = jbang("spring-app", "--port", "0", f"--spring.main.web-application-type={kind}", timeout=600)
    one_line_error(run, "--spring.main.web-application-type", "servlet", "leave it out")
    assert run.returncode == 2
    assert "Starting S20_SpringBootApp" not in run.stdout, "Spring started before the refusal"


# --------------------------------------------------------------------------- the JDK: JAVA_HOME, a stale choice


def fake_jdk(root: Path, version: str) -> Path:
    """A JDK folder as course.py probes it: bin/java answers -version like the real one (no release file, so the
    probe asks it); any other call prints which JDK ran and its arguments. javac and jshell are there."""
    (root / "bin").mkdir(parents=True)
    (root / "bin" / "java").write_text(
        "#!/bin/sh\n"
        f'if [ "$1" = -version ]; then echo \'openjdk version "{version}" 2025-01-01\' >&2; exit 0; fi\n'
        f'echo "ran on {root.name}"\necho "PATH=$PATH"\nfor a in "$@"; do echo "arg=$a"; done\n')
    for tool in ("java", "javac", "jshell"):
        (root / "bin" / tool).touch()
        (root / "bin" / tool).chmod(0o755)
    return root


def fake_checkout(root: Path, course_jdk: Path) -> Path:
    """tools/jbang and tools/course.py (with its modules) with a set-up state that names course_jdk."""
    (root / "tools").mkdir(parents=True)
    for f in ("tools/jbang", "jbang-catalog.json", *(p.relative_to(HOME) for p in HOME.glob("tools/course*.py"))):
        shutil.copy2(HOME / f, root / f)
    (root / ".course" / "jbang" / "lib").mkdir(parents=True)
    (root / ".course" / "java-home").write_text(str(course_jdk))
    (root / ".course" / "jbang-mode").write_text("course")
    return root


def wrapper(checkout: Path, tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if k not in ("JAVA_HOME", "UNPINNED_JAVA_HOME")}
    return subprocess.run(["bash", str(checkout / "tools" / "jbang"), "version"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=60, env={**clean, **env}, stdin=subprocess.DEVNULL)


@pytest.mark.fault
def test_set_up_honours_a_valid_java_home_and_names_the_newer_jdk_it_keeps_out(tmp_path, monkeypatch, capsys):
    jdk21, jdk25 = fake_jdk(tmp_path / "jdk-21", "21.0.8"), fake_jdk(tmp_path / "jdk-25", "25.0.1")
    monkeypatch.setattr(course_jdk, "jdk_candidates", lambda: [jdk21, jdk25])
    monkeypatch.delenv("UNPINNED_JAVA_HOME", raising=False)
    monkeypatch.setenv("JAVA_HOME", str(jdk21))
    assert course_jdk.find_jdk() == (jdk21, "21.0.8")
    said = capsys.readouterr().err.strip().splitlines()
    assert said == [f"[unpinned] warning: using JAVA_HOME={jdk21} (Java 21.0.8); a newer JDK is at {jdk25}"
                    f" (Java 25.0.1): set UNPINNED_JAVA_HOME={jdk25} to use that one"], said


@pytest.mark.fault
@pytest.mark.parametrize("given", ["valid", "too-old"])
def test_the_wrapper_honours_a_java_home_given_at_run_time_or_says_why_not(tmp_path, given):
    checkout = fake_checkout(tmp_path / "course", fake_jdk(tmp_path / "jdk-25", "25.0.1"))
    runtime = fake_jdk(tmp_path / "jdk-21" if given == "valid" else tmp_path / "jdk-17",
                       "21.0.8" if given == "valid" else "17.0.15")
    run = wrapper(checkout, tmp_path, JAVA_HOME=str(runtime))
    assert run.returncode == 0, run.stderr
    if given == "valid":
        assert "ran on jdk-21" in run.stdout.splitlines() and run.stderr == "", run.stdout + run.stderr
        path = next(line for line in run.stdout.splitlines() if line.startswith("PATH="))[5:].split(":")
        assert path[0] == str(tmp_path / "jdk-25" / "bin"), f"a //JAVA 25 script would not find set-up's JDK: {path}"
    else:
        assert "ran on jdk-25" in run.stdout.splitlines(), run.stdout
        assert run.stderr.strip().splitlines() == [f"unpinned: JAVA_HOME={runtime} is not used (Java 17.0.15: older"
                                                   f" than 21); using the course JDK {tmp_path / 'jdk-25'}"], run.stderr


@pytest.mark.fault
def test_a_stale_course_jdk_is_one_line_that_says_to_run_set_up(tmp_path):
    gone = tmp_path / "jdk-removed"
    checkout = fake_checkout(tmp_path / "course", gone)
    run = wrapper(checkout, tmp_path)
    assert run.returncode == 2 and run.stdout == "", run.stdout + run.stderr
    assert run.stderr.strip().splitlines() == [
        f"unpinned: the JDK set-up chose, {gone} (in .course/java-home), can't be used any more (no such folder);"
        f" run 'make setup' in {os.path.realpath(checkout)} to choose one again, or set JAVA_HOME to a full JDK 21"
        " or newer."], run.stderr


@pytest.mark.fault
def test_doctor_on_a_stale_course_jdk_advises_set_up_not_deleting_jbang(tmp_path, monkeypatch, capsys):
    checkout = fake_checkout(tmp_path / "course", tmp_path / "jdk-removed")
    jdk25 = fake_jdk(tmp_path / "jdk-25", "25.0.1")
    monkeypatch.setattr(course_jdk, "jdk_candidates", lambda: [jdk25])
    monkeypatch.delenv("UNPINNED_JAVA_HOME", raising=False)
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setattr(course_base, "HOME", checkout)
    monkeypatch.setattr(course_base, "STATE", checkout / ".course")
    monkeypatch.setattr(course_install, "system_jbang", lambda: None)
    assert course_health.doctor() == 1
    out = capsys.readouterr().out
    problems = [line for line in out.splitlines() if line.startswith("problem: ")]
    assert "delete .course/jbang" not in out, out
    assert any("jdk-removed" in p and "run make setup" in p for p in problems), out
    assert "FAILED" in out, "the wrapper did not fail on the stale JDK: " + out
