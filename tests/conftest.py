"""Shared fixtures for the course's test suite (run by `make test`)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

HOME = Path(__file__).resolve().parent.parent
KERNEL_NAME = "unpinned"
_MEASUREMENTS: list[str] = []


# What tests/test_judged.py found (thresholds stated twice, expectations shown both ways): the `judged:` line.
JUDGED: dict[str, int] = {}

# Each chapter's first run, in seconds, as tests/chapter_runs.py measured it: the summary's `chapters:` line.
CHAPTER_FIRST_RUN: dict[str, float] = {}
# Spring Boot's first answer with the start-up cache set-up chose and without any, as set-up measured it.
SPRING_MEASURED = HOME / ".course" / "start-up" / "measured.json"
_SESSION_START: list[float] = []
_CHAPTER_RUNS: list = []  # the session's chapter_runs.ChapterRuns, once a test asked for it


def report(line: str) -> None:
    """A measurement worth seeing in the test output (speed targets are shown, not asserted on timing)."""
    _MEASUREMENTS.append(line)
    print(line)


# Tests marked @pytest.mark.fault inject one fault each (a full disk, a killed parent, a hostile URL...) and pass
# only when it ended with a clear one-line error and nothing lost; the summary counts them on its `faults:` line.
_FAULTS: dict[str, bool] = {}


def pytest_configure(config):
    config.addinivalue_line("markers", "fault: injects one fault; passes only if it ends clearly with nothing lost")


def pytest_sessionstart(session):
    _SESSION_START.append(time.monotonic())


def pytest_collection_modifyitems(session, config, items):
    """The browser pass's chapters first, in chapter order: each chapter's one execution then shows as its own line
    among the slowest tests (the `chapters` fixture runs a chapter for whichever test asks first, so this order is
    only for reading the report)."""
    first = [i for i in items if i.path.name == "test_browser.py" and i.originalname == "test_run_all_in_jupyterlab"]
    if first:
        rest = [i for i in items if i not in first]
        items[:] = first + rest


def pytest_runtest_logreport(report):
    if "fault" in report.keywords and (report.when == "call" or report.outcome != "passed"):
        ok = report.outcome == "passed"
        _FAULTS[report.nodeid] = _FAULTS.get(report.nodeid, True) and ok


# After pytest's own listings (the slowest tests), so the summary ends with the suite: line.
@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter):
    lines = list(_MEASUREMENTS)
    import page
    if page.TOTAL.charts or page.TOTAL.tables or page.TOTAL.failures:
        t = page.TOTAL
        lines.append(f"page: {t.charts} charts, {t.tables} tables, {t.outcomes} outcome sentences checked across the "
                     f"executed notebooks (build/executed/), {len(t.failures)} failures; chart checks"
                     f" {t.chart_checks}, {t.chart_failed} failed")
    if page.TOTAL.judged or JUDGED:
        lines.append(judged_line(page.TOTAL))
    if CHAPTER_FIRST_RUN:
        over = [k for k, v in sorted(CHAPTER_FIRST_RUN.items()) if v > 120]
        lines.append("chapters: first run " + ", ".join(f"{k} {v:.0f} s" for k, v in sorted(CHAPTER_FIRST_RUN.items()))
                     + f" (promise: 2 minutes each in the quick profile on 2 cores; "
                     + (f"over it: {', '.join(over)})" if over else "all within it)"))
    if _FAULTS:
        clear = sum(_FAULTS.values())
        lines.append(f"faults: {len(_FAULTS)} injected faults tried, {clear} ended with a clear error and nothing lost"
                     + ("" if clear == len(_FAULTS) else
                        "; not: " + ", ".join(k.split("::")[-1] for k, v in _FAULTS.items() if not v)))
    lines.append(structure_line())
    lines.append(suite_line())
    if lines:
        terminalreporter.section("measurements (quick profile unless UNPINNED_PROFILE says otherwise)")
        for line in lines:
            terminalreporter.write_line(line)


def suite_line() -> str:
    """The whole suite in one line: its wall time (the tests, not set-up), the cores it had, how many times each
    chapter was executed, and Spring Boot's first answer with the start-up cache set-up chose and without."""
    minutes = (time.monotonic() - _SESSION_START[0]) / 60 if _SESSION_START else float("nan")
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count()
    return (f"suite: {minutes:.1f} min of tests on {cores} cores; {executions_said()}; {spring_said()}")


def executions_said() -> str:
    """"chapters executed 1 times each", with the exceptions named ("09 twice") and how they ran when not in the
    browser."""
    runs = _CHAPTER_RUNS[0] if _CHAPTER_RUNS else None
    counts = runs.counts() if runs else {}
    if not counts:
        return "chapters executed 0 times each (no chapter ran in this session)"
    from chapter_runs import SECOND_RUN
    # the usual count is the chapters' that run once by design; the seminar's second run is named, not the rule
    plain = [n for name, n in counts.items() if name not in SECOND_RUN]
    usual = max(set(plain), key=lambda k: (plain.count(k), k)) if plain else None
    named = {1: "once", 2: "twice"}
    other = ", ".join(f"{name[:2]} {named.get(n, f'{n} times')}" for name, n in sorted(counts.items()) if n != usual)
    said = (f"chapters executed {usual} times each" + (f", {other}" if other else "")) if plain else \
        f"chapters executed: {other}"
    if not runs.how.startswith("browser"):
        said += f" ({runs.how})"
    return said


def spring_said() -> str:
    """Spring Boot's first answer as set-up measured it (.course/start-up/measured.json), else that it was not."""
    try:
        measured = json.loads(SPRING_MEASURED.read_text())["spring_first_answer_s"]
        return (f"Spring first answer {float(measured['with']):.1f} s with the chosen cache vs"
                f" {float(measured['without']):.1f} s without")
    except FileNotFoundError:
        return "Spring first answer not measured"
    except (ValueError, KeyError, TypeError) as e:
        return f"Spring first answer not read ({SPRING_MEASURED}: {type(e).__name__}: {e})"


@pytest.fixture(scope="session")
def chapters(results_dir, tmp_path_factory):
    """Every chapter executed once in this session, by whichever test asks first (tests/chapter_runs.py)."""
    import chapter_runs
    runs = chapter_runs.ChapterRuns(tmp_path_factory)
    _CHAPTER_RUNS.append(runs)
    try:
        yield runs
    finally:
        runs.close()


def judged_line(total) -> str:
    """Every judged figure on the executed pages (each once, however many passes saw it), by verdict; the static
    checks of tests/test_judged.py; and whether each chapter's paragraphs and claims table agree."""
    import page
    latest = {(e, i): (v, spread) for e, i, v, spread, _ in total.judged}
    measured = {k: v for k, v in latest.items() if v[0] != "not run"}
    count = {w: sum(1 for v, _ in measured.values() if v == w) for w in ("confirmed", "refuted", "inconclusive")}
    agree, shared = page.agreement(total)
    twice = JUDGED.get("thresholds twice")
    both = JUDGED.get("shown both ways")
    return (f"judged: {sum(1 for _, s in measured.values() if s)} figures with spread, {count['confirmed']} confirmed,"
            f" {count['refuted']} refuted, {count['inconclusive']} inconclusive; "
            f"{'?' if twice is None else twice} thresholds stated twice; ledger and chapters agree on {agree} of"
            f" {shared} shared claims; {'?' if both is None else both} rules, each shown both ways with possible"
            " inputs")


def structure_line() -> str:
    """The code's shape (tools/structure.py, which tools/course.py structure prints too): helper packages and the
    largest helper, snippet sizes, where their code under study starts, //SOURCES, ProcessBuilder sites, README
    length. Read from the files, so always there."""
    if str(HOME / "tools") not in sys.path:
        sys.path.insert(0, str(HOME / "tools"))
    try:
        import structure
        return structure.line()
    except Exception as e:  # the summary must not hide the tests' own result
        return f"structure: not computed ({type(e).__name__}: {e})"


TEST_RESULTS = HOME / "build" / "test-results"
KEEP_TEST_RESULTS = 3


@pytest.fixture(scope="session", autouse=True)
def results_dir() -> Path:
    """Every run of the suite records into a fresh folder, never into results/ or data/: one under
    build/test-results/ in the checkout, so the pages it executes name files a reader of them can open (relative
    to the checkout, as the page test wants). The newest few runs' folders are kept, like pytest's own."""
    import shutil
    import tempfile
    TEST_RESULTS.mkdir(parents=True, exist_ok=True)
    for old in sorted(TEST_RESULTS.glob("run-*"), key=lambda p: p.stat().st_mtime)[:-KEEP_TEST_RESULTS + 1]:
        shutil.rmtree(old, ignore_errors=True)
    path = Path(tempfile.mkdtemp(prefix="run-", dir=TEST_RESULTS))
    os.environ["UNPINNED_RESULTS"] = str(path)
    os.environ.setdefault("UNPINNED_PROFILE", "quick")
    return path


def jbang(*args: str, timeout: float = 600, cwd: Path = HOME) -> subprocess.CompletedProcess:
    """Runs the course's JBang wrapper; output is kept for the assertion message."""
    return subprocess.run(["bash", str(HOME / "tools" / "jbang"), *args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, stdin=subprocess.DEVNULL)


def checkout_processes(*needles: str) -> list:
    """Running processes this checkout's tools/jbang started (psutil.Process), whose command lines contain one of
    `needles`: another checkout's experiment running beside the suite is not ours to count (tools/course.py)."""
    if str(HOME / "tools") not in sys.path:
        sys.path.insert(0, str(HOME / "tools"))
    import course_health
    return course_health.checkout_processes(*needles)


def catalog() -> dict:
    return json.loads((HOME / "jbang-catalog.json").read_text())["aliases"]


def latest_result(results: Path, experiment: str) -> dict:
    files = sorted((results / experiment).glob("*.json"))
    assert files, f"no result recorded for '{experiment}' in {results}"
    return json.loads(files[-1].read_text())


def judged(results: Path, experiment: str) -> dict[str, dict]:
    """The judgements the latest run of `experiment` saved (its declared expectations, judged from the run's
    intervals), by expectation id. The thresholds live in those declarations, never in a test."""
    doc = latest_result(results, experiment)
    assert "judged" in doc, f"{experiment} saved no judgements: is it kept through its declaration's keep()?"
    return {j["id"]: j for j in doc["judged"]}


def assert_judged(results: Path, experiment: str) -> dict[str, dict]:
    """No limit physics sets was broken (a broken one means a broken measurement), and on a machine that was not busy
    none of the chapter's own predictions was refuted; a source's claim may go either way. Returns the judgements."""
    doc = latest_result(results, experiment)
    busy = doc.get("busy") or {}
    cores = busy.get("cores") or os.cpu_count() or 1
    was_busy = isinstance(busy.get("otherCores"), (int, float)) and busy["otherCores"] / cores >= 0.10
    found = judged(results, experiment)
    for j in found.values():
        if j["kind"] == "LIMIT":
            assert j["verdict"] != "refuted", f"{experiment}: a physical limit was broken: {j['sentence']}"
        elif j["kind"] == "PREDICTION" and not was_busy:
            assert j["verdict"] != "refuted", f"{experiment}, an idle machine: {j['sentence']}"
    return found


def ratio(j: dict) -> str:
    """A judged ratio as a summary line prints it: "1.02 x [0.98, 1.06] confirmed"."""
    if j["verdict"] == "not run":
        return "not run"
    high = "unbounded" if j.get("high") is None else f"{j['high']:.2f}"
    return f"{j['ratio']:.2f} x [{j['low']:.2f}, {high}] {j['verdict']}"


def closed_loop_ceiling(bound: float, users: int, window_s: float, service_s: float | None) -> float:
    """The most a closed loop can complete per second in one measured window, against its steady-state bound.
    Waiting requests (service time S): each of the bound x S servers ends at most floor(W/S) + 1 requests in a
    window W, not W/S (Little's law with the window's edges). Computing requests (no S; the CPU bound): a request
    in flight when the window opens may have done its work before it, at most one per user: bound + users / W."""
    import math
    if service_s is None or service_s != service_s:
        return bound + users / window_s
    servers = bound * service_s
    return servers * (math.floor(window_s / service_s + 1e-9) + 1) / window_s


def preview_skip(alias_or_snippet: str) -> str | None:
    """Why a test of this alias (or snippets/ file name) can't run on the course JDK (UNPINNED_JAVA_HOME when set, as
    tools/jbang takes it, else set-up's): it is compiled with --enable-preview for another JDK (tools/course_jdk.py's
    preview_skips, as `make doctor` and tools/jbang decide); None when it runs here."""
    if str(HOME / "tools") not in sys.path:
        sys.path.insert(0, str(HOME / "tools"))
    import course_jdk
    home = Path(os.environ.get("UNPINNED_JAVA_HOME") or (HOME / ".course" / "java-home").read_text().strip())
    feature = (course_jdk.java_version(home) or (None,))[0]
    for name, aliases, need, _notebooks, skipped in course_jdk.preview_skips(feature):
        if skipped and (alias_or_snippet in aliases or alias_or_snippet == name):
            return f"{name} needs JDK {need} exactly (--enable-preview); the course JDK is {feature}"
    return None


def sourced(path: Path) -> set[Path]:
    """Every file `path`'s //SOURCES brings in, as JBang resolves them: each listed file's own //SOURCES too (a helper
    names what it uses, once), relative to the file that lists it."""
    seen: set[Path] = set()
    todo = [path.resolve()]
    while todo:
        current = todo.pop()
        for ref in re.findall(r"^//SOURCES (\S+)$", current.read_text(), re.M):
            for found in sorted(current.parent.glob(ref)) if "*" in ref else [(current.parent / ref).resolve()]:
                found = found.resolve()
                if found not in seen:
                    seen.add(found)
                    todo.append(found)
    return seen


JAVA_TOKENS = re.compile(r'//[^\n]*|/\*.*?\*/|"""[\s\S]*?"""|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)


def java_code(text: str) -> str:
    """Java without its comments and with empty literals, read left to right (a "//" inside a string is no comment):
    what a class name in it really refers to."""
    return JAVA_TOKENS.sub(lambda m: '""' if m.group(0)[0] in "\"'" else "", text)


def missing_sources(path: Path) -> list[str]:
    """Helpers that `path`, or a file it brings in, uses but nothing brings in: a JBang cache can hide one on one
    machine, and a fresh machine then fails to compile."""
    helpers = {p.stem: p.resolve() for p in (HOME / "helpers" / "unpinned").rglob("*.java")}
    have = {p.stem for p in sourced(path)} | {path.stem}
    missing = set()
    for file in [path.resolve(), *sourced(path)]:
        used = set(re.findall(r"\b([A-Z]\w+)\b", java_code(file.read_text()))) & helpers.keys()
        missing |= {f"{file.stem} uses {name}" for name in used - have}
    return sorted(missing)
