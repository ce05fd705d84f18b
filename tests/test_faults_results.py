"""Faults in saving and reading results, and in the tooling around them, each injected for real: a disk that fills up
during a save, a results folder that cannot be written, a broken published CSV, a results file that is not one, a
set-up step that closes its output, and FRESH=0. Each test passes only if the run ended with one clear line (or the
right behaviour) and nothing was lost, left half-written or left running."""
from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import HOME
from test_snippets import one_line_error

sys.path.insert(0, str(HOME / "tools"))
import course  # noqa: E402
import course_base  # noqa: E402
import course_install  # noqa: E402

JBANG = ["bash", str(HOME / "tools" / "jbang")]
# carrier-scaling's smallest run: one sleeping task, no warm-up, one batch (well under a second of measuring).
TINY_S14 = ["carrier-scaling", "--kind", "io", "--tasks", "1", "--sleep-ms", "1", "--warmups", "0", "--reps", "1"]


def run_jbang(args: list[str], results: Path, home: Path | None = None) -> subprocess.CompletedProcess:
    """tools/jbang of this checkout, or of `home` (a course folder of its own, whose wrapper makes it the course)."""
    env = dict(os.environ, UNPINNED_RESULTS=str(results))
    wrapper = ["bash", str(home / "tools" / "jbang")] if home is not None else JBANG
    return subprocess.run(wrapper + args, cwd=HOME, capture_output=True, text=True, timeout=600, env=env,
                          stdin=subprocess.DEVNULL)


@contextlib.contextmanager
def tmpfs(mount_point: Path, *options: str):
    """A small tmpfs at mount_point (root only), unmounted on the way out whatever happened."""
    mount_point.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", ",".join(("size=16k",) + options), "tmpfs", str(mount_point)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        yield False
        return
    try:
        yield True
    finally:
        subprocess.run(["umount", "-l", str(mount_point)], capture_output=True)


def files_under(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


# ---- 1. a save on a full disk -------------------------------------------------------------------------------------

@pytest.mark.fault
def test_a_save_on_a_full_disk_leaves_no_file_and_ends_with_one_line(tmp_path):
    disk = tmp_path / "disk"
    with tmpfs(disk) as mounted:
        if mounted:  # a 16 KB tmpfs, filled to the last byte: the measurement runs, the save cannot be written
            with contextlib.suppress(OSError), open(disk / "fill", "wb") as f:
                while True:
                    f.write(b"\0" * 4096)
                    f.flush()
            before = files_under(disk)
            why = "No space left on device"
        else:  # not root: the experiment's folder exists but cannot be written (the save fails the same way)
            (disk / "s14-carrier-scaling").mkdir(parents=True)
            (disk / "s14-carrier-scaling").chmod(0o555)
            before = files_under(disk)
            why = "permission denied"
        run = run_jbang(TINY_S14, disk)
        line = one_line_error(run, "cannot save results of 's14-carrier-scaling'", why, "nothing saved")
        assert "@@progress" in run.stdout, "the fault must hit the save, after measuring: " + run.stdout[-2000:]
        assert files_under(disk) == before, f"a failed save leaves nothing (no empty .json, no part file): {line}"


# ---- 1 and 6. readers and a results file that is not one ----------------------------------------------------------

READER = """
import java.nio.file.Path;
import unpinned.core.Results;
import unpinned.showing.Runs;

public class ReadBack {
    public static void main(String[] args) {
        Path dir = Path.of(args[0]);
        // chapter 06's reuse of chapter 02's run
        var latest = Results.latest(dir, "s14-carrier-scaling").map(f -> f + " " + Results.read(f).get("data"));
        System.out.println("latest: " + latest.orElse("none"));
        // chapter 08: every run, as shares of their bounds
        var runs = Runs.results(dir);
        for (var r : runs) System.out.println("run: " + r.file().getFileName() + " " + r.experiment());
        for (var r : Runs.ratios(runs)) System.out.println("ratio: " + r.label() + " " + r.ofBound());
    }
}
"""

GOOD = {"experiment": "s14-carrier-scaling", "machine": {"host": "vm", "cores": 2, "jdk": "25", "profile": "quick"},
        "measurements": [{"what": "P=2 · io", "value": 2.0, "unit": "ms", "bound": 1.0, "boundKind": "LOWER_TIME"}],
        "data": [{"carriers": 2, "kind": "io", "measuredMs": 2.0, "boundMs": 1.0}]}
NOT_RESULTS = {
    "empty, as a save cut off by a full disk left it": "",
    "cut short": json.dumps(GOOD)[:40],
    "experiment null": json.dumps(dict(GOOD, experiment=None)),
    "experiment not a string": json.dumps(dict(GOOD, experiment={"name": "s14-carrier-scaling"})),
}


def course_java() -> str:
    return str(Path((HOME / ".course" / "java-home").read_text().strip()) / "bin" / "java")


def read_back(tmp_path: Path, helpers_classpath: str) -> subprocess.CompletedProcess:
    """READER run on the course JDK over tmp_path/results: what Results.latest and chapter 08's Runs make of it."""
    (tmp_path / "ReadBack.java").write_text(READER)
    return subprocess.run([course_java(), "-cp", helpers_classpath, str(tmp_path / "ReadBack.java"), str(tmp_path / "results")],
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)


@pytest.fixture(scope="module")
def helpers_classpath() -> str:
    kernel = str(HOME / "helpers" / "Kernel.java")
    built = subprocess.run(JBANG + ["build", kernel], capture_output=True, text=True, timeout=900)
    assert built.returncode == 0, built.stdout[-2000:] + built.stderr[-2000:]
    out = subprocess.run(JBANG + ["info", "classpath", kernel], capture_output=True, text=True, timeout=900)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout.strip().splitlines()[-1]


@pytest.mark.fault
@pytest.mark.parametrize("kind", sorted(NOT_RESULTS))
def test_readers_pass_over_a_results_file_that_is_not_one_and_name_it(kind, tmp_path, helpers_classpath):
    folder = tmp_path / "results" / "s14-carrier-scaling"
    folder.mkdir(parents=True)
    (folder / "20261122-100000-000-quick.json").write_text(json.dumps(GOOD))
    bad = folder / "20261122-110000-000-quick.json"  # newer than the good run
    bad.write_text(NOT_RESULTS[kind])
    # a snippet's side file beside its results (S19's thread dump): not a result, and not worth a line
    (folder / "20261122-110000-000-quick-threads.json").write_text('{"threadDump": {}}')
    run = read_back(tmp_path, helpers_classpath)
    out = run.stdout + run.stderr
    assert run.returncode == 0 and "Exception" not in out, out[-3000:]
    assert "latest: " + str(folder / "20261122-100000-000-quick.json") in run.stdout, out[-3000:]
    assert "run: 20261122-100000-000-quick.json s14-carrier-scaling" in run.stdout, out[-3000:]
    assert "ratio: " in run.stdout, "chapter 08 still charts the good run: " + out[-3000:]
    named = [line for line in run.stderr.splitlines() if line.strip() and not line.startswith("WARNING")]
    assert len(named) == 2 and all(str(bad) in line for line in named), (
        "each reader (Results.latest, Runs) names the file it passes over, in one line:\n" + run.stderr[-3000:])
    assert "threads.json" not in run.stderr, run.stderr[-3000:]
    assert bad.read_text() == NOT_RESULTS[kind], "a reader never changes what it reads"


REFERENCE_READER = """
import java.nio.file.Path;
import unpinned.showing.Runs;

public class ReadReferences {
    public static void main(String[] args) {
        try {
            System.out.println("references: " + Runs.references(Path.of(args[0])).size());
        } catch (IllegalArgumentException e) {
            System.out.println("refused: " + e.getMessage());
        }
    }
}
"""


@pytest.mark.fault
def test_chapter_08_refuses_a_result_saved_before_measurements_in_one_line_naming_it(tmp_path, helpers_classpath):
    """A results file from before results named their measurements (only "data", from which chapter 08 used to guess
    bounds by field names) is passed over by Runs.results with one line naming it, and the good run is still
    compared; in a reference-runs folder the same file is refused by name."""
    folder = tmp_path / "results" / "s14-carrier-scaling"
    folder.mkdir(parents=True)
    (folder / "20261122-100000-000-quick.json").write_text(json.dumps(GOOD))
    old = folder / "20261122-110000-000-quick.json"  # newer, saved the old way
    old.write_text(json.dumps({k: v for k, v in GOOD.items() if k != "measurements"}))
    run = read_back(tmp_path, helpers_classpath)
    out = run.stdout + run.stderr
    assert run.returncode == 0 and "Exception" not in out, out[-3000:]
    assert "run: 20261122-100000-000-quick.json s14-carrier-scaling" in run.stdout, out[-3000:]
    assert "ratio: P=2 · io 0.5" in run.stdout, "chapter 08 compares the run that names its measurements: " + out[-3000:]
    named = [line for line in run.stderr.splitlines() if line.strip() and not line.startswith("WARNING")]
    assert len(named) == 1 and str(old) in named[0] and '"measurements"' in named[0], (
        "Runs.results names the old file in one line:\n" + run.stderr[-3000:])
    refs = tmp_path / "refs" / "2026-11-22-2cores-jdk25-quick"
    refs.mkdir(parents=True)
    (refs / "s14-carrier-scaling.json").write_text(old.read_text())
    (tmp_path / "ReadReferences.java").write_text(REFERENCE_READER)
    run = subprocess.run([course_java(), "-cp", helpers_classpath, str(tmp_path / "ReadReferences.java"),
                          str(tmp_path / "refs")], capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)
    refused = [line for line in run.stdout.splitlines() if line.startswith("refused: ")]
    assert run.returncode == 0 and len(refused) == 1, run.stdout[-3000:] + run.stderr[-3000:]
    assert str(refs / "s14-carrier-scaling.json") in refused[0] and '"measurements"' in refused[0], refused[0]
    assert old.read_text() == json.dumps({k: v for k, v in GOOD.items() if k != "measurements"}), "never rewritten"


# ---- 4. a results folder that cannot be written, a broken published CSV: before measuring ------------------------

@pytest.mark.fault
@pytest.mark.parametrize("kind", ["a file", "read-only"])
def test_a_results_folder_that_cannot_be_written_is_refused_before_measuring(kind, tmp_path):
    if kind == "a file":
        target = tmp_path / "results"
        target.write_text("not a folder\n")
        context = contextlib.nullcontext(True)
        words = [str(target), "is a file, not a folder", "UNPINNED_RESULTS"]
    else:
        target = tmp_path / "ro" / "results"
        context = tmpfs(tmp_path / "ro", "ro")
        words = [str(target), "cannot be written", "Read-only file system", "UNPINNED_RESULTS"]
    with context as mounted:
        if not mounted:  # not root: a folder without write permission is read-only enough
            (tmp_path / "ro").chmod(0o555)
            words = [str(target), "cannot be written", "permission denied", "UNPINNED_RESULTS"]
        run = run_jbang(TINY_S14, target)
        one_line_error(run, *words)
        assert "@@progress" not in run.stdout and "@@result" not in run.stdout, "refused before measuring:\n" + run.stdout
    if kind == "a file":
        assert target.read_text() == "not a folder\n"


def course_home_with_published(tmp_path: Path, name: str, text: str | None) -> Path:
    """A course folder that is this checkout except for data/published/<name>.csv (broken, or absent when None)."""
    home = tmp_path / "course"
    home.mkdir()
    for entry in HOME.iterdir():
        if entry.name not in ("data", ".git"):
            (home / entry.name).symlink_to(entry)
    (home / "data").mkdir()
    for entry in (HOME / "data").iterdir():
        if entry.name != "published":
            (home / "data" / entry.name).symlink_to(entry)
    published = home / "data" / "published"
    published.mkdir()
    for csv in (HOME / "data" / "published").iterdir():
        if csv.name != name + ".csv":
            (published / csv.name).symlink_to(csv)
    if text is not None:
        (published / (name + ".csv")).write_text(text)
    return home


@pytest.mark.fault
@pytest.mark.parametrize("kind", ["missing", "corrupt"])
def test_a_broken_published_csv_stops_the_sweep_before_measuring(kind, tmp_path):
    real = (HOME / "data" / "published" / "vt-webflux-blog.csv").read_text().splitlines()
    corrupt = real[0] + "\n" + real[1] + ",an extra column\n"  # Tablesaw: "Row number 1 contains 8 columns..."
    home = course_home_with_published(tmp_path, "vt-webflux-blog", None if kind == "missing" else corrupt)
    results = tmp_path / "results"
    # 1,000 users: a level the article published a figure for, so the sweep needs the file for its row (before the
    # fix, found after the measurement, as a 16-line trace naming no file)
    run = run_jbang(["order-sweep", "--impl", "virtual", "--users", "1000", "--warmup-s", "1", "--duration-s", "1"],
                    results, home)
    one_line_error(run, str(home / "data" / "published" / "vt-webflux-blog.csv"))
    assert "@@progress" not in run.stdout and "ServerProcess" not in run.stdout and "== virtual" not in run.stdout, (
        "the file is checked before any server starts or anything is measured:\n" + run.stdout[-3000:])
    assert not results.exists() or not list(results.rglob("*.json")), "a refused run saves nothing"


# ---- 9. set-up's progress lines --------------------------------------------------------------------------------

QUIET_STEPS = {
    # says one thing, then closes its output and works on: the reader is done long before the step
    "closes its output": "import os, time\nprint('building the shared helpers', flush=True)\nos.close(1)\nos.close(2)\n"
                         "time.sleep(2.5)",
    # says the same thing over and over
    "repeats itself": "import time\nfor _ in range(50):\n    print('building the shared helpers', flush=True)\n"
                      "    time.sleep(0.05)",
}


@pytest.mark.fault
@pytest.mark.parametrize("kind", sorted(QUIET_STEPS))
def test_set_up_progress_prints_a_line_per_change_not_a_busy_loop(kind, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(course_base, "STATE", tmp_path)
    course_install.run_with_progress([sys.executable, "-c", QUIET_STEPS[kind]], "a quiet step", every=0.2)
    lines = capsys.readouterr().out.splitlines()
    progress = [line for line in lines if "... a quiet step" in line]
    # 2.5 s at one look every 0.2 s: at most 12 lines even if each look printed; the output changed once
    assert 1 <= len(progress) <= 2, f"{len(progress)} progress lines for one change:\n" + "\n".join(progress[:20])
    assert "a quiet step: done" in lines[-1]
    assert "building the shared helpers" in (tmp_path / "logs" / "a-quiet-step.log").read_text()


# ---- 12. make book FRESH=... ----------------------------------------------------------------------------------

# Stands in for the Python that `make` runs: the Makefile's version check passes, and course.py runs for real up to
# where it would set up and build the book, which it only reports (building the book takes minutes).
FAKE_PYTHON = """
import runpy, subprocess, sys
if sys.argv[1] == "-c":
    exec(sys.argv[2])
    sys.exit(0)
sys.path.insert(0, {tools!r})
import course
course.setup_and_report = lambda: print("SET-UP")
course.run_to_end = lambda cmd, env: print("BOOK.PY", *cmd[2:]) or 0
sys.exit(course.main(sys.argv[2:]))
"""


def make_book(target: str, fresh: str, tmp_path: Path) -> subprocess.CompletedProcess:
    """`make <target> FRESH=<fresh>` with FAKE_PYTHON standing in for the Python it runs."""
    fake = tmp_path / "python"
    (tmp_path / "fake_python.py").write_text(FAKE_PYTHON.format(tools=str(HOME / "tools")))
    fake.write_text(f"#!/bin/sh\nexec '{sys.executable}' '{tmp_path / 'fake_python.py'}' \"$@\"\n")
    fake.chmod(0o755)
    return subprocess.run(["make", "-s", target, f"FRESH={fresh}", f"PYTHON={fake}"], cwd=HOME, capture_output=True,
                          text=True, timeout=120, stdin=subprocess.DEVNULL)


@pytest.mark.fault
@pytest.mark.parametrize("value", ["0", "no", "FALSE", "maybe"])
def test_make_book_fresh_0_or_no_is_not_yes_and_a_typo_is_refused(value, tmp_path):
    for target in ("book", "slides"):
        run = make_book(target, value, tmp_path)
        if value == "maybe":
            err = [line for line in run.stderr.splitlines() if line.strip() and not line.startswith("make")]
            assert run.returncode != 0 and len(err) == 1, run.stdout + run.stderr
            assert "FRESH must be 1, yes or true" in err[0] and "0, no, false or empty" in err[0] and "'maybe'" in err[0]
            assert "SET-UP" not in run.stdout and "BOOK.PY" not in run.stdout, "refused before doing anything"
        else:
            assert run.returncode == 0, run.stdout + run.stderr
            assert run.stdout.splitlines() == ["SET-UP", f"BOOK.PY {target}"], "FRESH=%s is no: %s" % (value, run.stdout)


@pytest.mark.parametrize("value,fresh", [("", False), ("1", True), ("yes", True), ("True", True)])
def test_make_book_fresh_1_yes_or_true_executes_every_chapter_again(value, fresh, tmp_path):
    for target in ("book", "slides"):
        run = make_book(target, value, tmp_path)
        assert run.returncode == 0, run.stdout + run.stderr
        assert run.stdout.splitlines() == ["SET-UP", f"BOOK.PY {target}" + (" --fresh" if fresh else "")], run.stdout
