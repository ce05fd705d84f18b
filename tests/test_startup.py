"""Start-up caches (tools/course_startup.py, set-up's "start-up" line; tools/jbang applies them): which flags each JVM
starts with, that a cache that no longer fits is passed over, and what set-up measured (.course/start-up/measured.json)
next to Spring Boot's first answer measured here with the chosen cache and without (printed, never asserted on)."""
from __future__ import annotations

import contextlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import HOME, report

sys.path.insert(0, str(HOME / "tools"))
import course_jdk  # noqa: E402
import course_startup  # noqa: E402

S20 = course_startup.S20
FOLDER = HOME / ".course" / "start-up"
CDS_FLAGS = ("-XX:SharedArchiveFile=", "-XX:ArchiveClassesAtExit=", "-XX:+AutoCreateSharedArchive")
CACHE_FLAGS = CDS_FLAGS + ("-XX:AOTCache=",)


def _feature() -> int:
    return course_jdk.java_version(Path((HOME / ".course" / "java-home").read_text().strip()))[0]


def _choice(name: str) -> str:
    """What set-up chose for `name` on the course JDK: aot, cds or none (none also when it built nothing)."""
    path = FOLDER / f"{name}.choice"
    if not path.is_file():
        return "none"
    built, kind = (path.read_text().splitlines() + ["", ""])[:2]
    course = (HOME / ".course" / "java-home").read_text().strip()
    return kind if Path(built).resolve() == Path(course).resolve() else "none"


def _printed(script: str, snippet: str = "auto", launcher: str = "auto", what: str = "1") -> list[str]:
    return course_startup.printed_command(script, what=what, snippet=snippet, launcher=launcher)


def test_each_jvm_starts_with_the_cache_set_up_chose_and_off_means_none():
    spring = _choice(S20.name)
    auto, cds, off = (_printed(S20.script, c) for c in ("auto", "cds", "off"))
    if spring == "aot":
        assert auto[1] == f"-XX:AOTCache={FOLDER / (S20.name + '.aot')}", auto[:4]
        assert not any(a.startswith(CDS_FLAGS) for a in auto), "an AOT cache refuses to start beside a CDS flag"
    elif spring == "none":
        assert auto == off
    else:
        assert auto == cds
    assert any(a.startswith(CDS_FLAGS) for a in cds), "cds: the snippet keeps JBang's //CDS archive"
    assert not any(a.startswith(CACHE_FLAGS) for a in off), off
    expected = {"aot": "-XX:AOTCache=", "cds": "-XX:SharedArchiveFile="}.get(_choice(course_startup.LAUNCHER))
    launcher = _printed(course_startup.LAUNCHER_PROBE, what="launcher")
    if expected:
        assert any(f.startswith(expected) for f in launcher), launcher[:6]
    else:
        assert not any(f.startswith(CACHE_FLAGS) for f in launcher), launcher[:6]
    assert not any(f.startswith(CACHE_FLAGS) for f in
                   _printed(course_startup.LAUNCHER_PROBE, launcher="off", what="launcher")), "off: no cache"


@contextlib.contextmanager
def _damaged(path: Path):
    """`path` replaced by bytes no JVM can map, as a cache damaged on disk; the real one put back after."""
    saved = path.with_name(path.name + ".kept-aside")
    had = path.is_file()
    if had:
        path.replace(saved)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"not a cache " * 200)
        yield path
    finally:
        path.unlink(missing_ok=True)
        if had:
            saved.replace(path)


@pytest.mark.fault
def test_a_damaged_cache_is_passed_over_with_a_warning_on_stderr():
    """A cache that no longer fits (damaged, or from before a JDK update): JBang's JVM and Spring Boot's still start,
    the JVM's warning goes to stderr, and stdout stays what tools/jbang and ServerProcess read."""
    kind = "aot" if _feature() >= course_startup.AOT_FEATURE else "cds"
    with _damaged(FOLDER / f"{course_startup.LAUNCHER}.{'aot' if kind == 'aot' else 'jsa'}"):
        run = subprocess.run(["bash", str(HOME / "tools" / "jbang"), course_startup.LAUNCHER_PROBE], cwd=HOME,
                             capture_output=True, text=True, timeout=300,
                             env=course_startup.jbang_env("off", kind, UNPINNED_JBANG_PRINT="1"))
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.splitlines()[0].endswith("/bin/java") and "S04_SleepServer" in run.stdout, run.stdout[:300]
    assert run.stderr.strip(), "the JVM said nothing about the cache it passed over"
    if kind != "aot":
        return
    with _damaged(FOLDER / f"{S20.name}.aot"):
        proc = subprocess.Popen(["bash", str(HOME / "tools" / "jbang"), S20.script, *S20.args, "--port", "0",
                                 "--control"], cwd=HOME, env=course_startup.jbang_env("aot", "off"),
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            uri = course_startup._ready(proc, S20.script, course_startup.time.monotonic() + 180)
            assert course_startup._get(uri + S20.first.lstrip("/")) == 200
        finally:
            course_startup._stop(proc)
    warned = proc.stderr.read()
    proc.stderr.close()
    assert "AOT" in warned or "aot" in warned, warned[-2000:]


def test_spring_boots_first_answer_with_the_chosen_cache_and_without():
    """What set-up measured and kept, in the shape the suite's summary reads, next to S20 started here as chapter 06
    starts it (tools/jbang, --control) to its first HTTP answer: alternately on the caches set-up chose and on none
    (not even JBang's CDS archive), after one unmeasured start of each; medians of three."""
    measured = json.loads((FOLDER / course_startup.MEASURED).read_text())
    for key in ("spring_first_answer_s", "launcher_s"):
        figures = measured[key]
        assert figures["chosen"] in ("aot", "cds", "none"), figures
        assert figures["with"] > 0 and figures["without"] > 0, figures
        assert figures["chosen"] == _choice(S20.name if key.startswith("spring") else course_startup.LAUNCHER)
    timings = course_startup.measure(lambda c: course_startup.first_answer_seconds(S20, c, launcher=c),
                                     ["auto", "off"])
    chosen, without = timings["auto"], timings["off"]
    spring, launcher = measured["spring_first_answer_s"], measured["launcher_s"]
    report(f"06 Spring Boot's first answer (S20 through tools/jbang): {chosen.median:.2f} s"
           f" ({min(chosen.runs):.2f}-{max(chosen.runs):.2f}) with the chosen caches (Spring {spring['chosen']},"
           f" JBang's JVM {launcher['chosen']}) vs {without.median:.2f} s ({min(without.runs):.2f}-"
           f"{max(without.runs):.2f}) with none = {chosen.median / without.median:.2f} x (medians of 3, alternating);"
           f" set-up measured {spring['with']:.2f} vs {spring['without']:.2f} s, JBang's JVM {launcher['with']:.2f}"
           f" vs {launcher['without']:.2f} s")
