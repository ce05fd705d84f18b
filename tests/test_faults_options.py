"""Bad input a hostile probe gave, each refused in one line (exit 2) before anything is measured: an option given
twice (the last one used to win silently), stack-chunks sized past the heap (an OutOfMemoryError 22 s in), a results
folder that can't hold the result (found only after measuring), and a results path the locale can't spell."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from conftest import HOME
from test_snippets import one_line_error

JBANG = ["bash", str(HOME / "tools" / "jbang")]
TINY_S14 = ["carrier-scaling", "--kind", "io", "--tasks", "1", "--sleep-ms", "1", "--warmups", "0", "--reps", "1"]


def run_jbang(args: list[str], results: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([*JBANG, *args], cwd=HOME, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "UNPINNED_RESULTS": str(results), **env}, stdin=subprocess.DEVNULL)


def refused_before_measuring(run: subprocess.CompletedProcess, results: Path, *words: str) -> str:
    line = one_line_error(run, *words)
    assert run.returncode == 2, line
    assert "@@progress" not in run.stdout and "@@result" not in run.stdout, "refused only after measuring:\n" + run.stdout
    assert not results.exists() or not list(results.rglob("*.json")), "a refused run saves nothing"
    return line


TWICE = {
    "carrier-scaling --reps": (TINY_S14 + ["--reps", "3"], ["--reps is given twice ('1', then '3')", "give it once"]),
    "stack-chunks --case": (["stack-chunks", "--threads", "10", "--depths", "1", "--case", "park", "--case",
                             "park-again-deeper"], ["--case is given twice ('park', then 'park-again-deeper')",
                                                    "comma-separated"]),
}


@pytest.mark.fault
@pytest.mark.parametrize("case", TWICE, ids=list(TWICE))
def test_an_option_given_twice_is_refused_not_silently_overridden(case, tmp_path):
    args, words = TWICE[case]
    refused_before_measuring(run_jbang(args, tmp_path / "results"), tmp_path / "results", *words)


@pytest.mark.fault
def test_stack_chunks_past_the_heap_is_refused_with_an_estimate_up_front(tmp_path):
    """100,000 threads at depth 2,000 in a 256 MB heap: refused with the heap estimate, as thread-cost refuses its
    own (S30 ran 22 s, then died of an OutOfMemoryError in its uncaught-exception handler)."""
    run = run_jbang(["stack-chunks", "--threads", "100000", "--depths", "2000", "--case", "park"], tmp_path / "results",
                    JAVA_TOOL_OPTIONS="-Xmx256m")
    run.stderr = "\n".join(line for line in run.stderr.splitlines() if not line.startswith("Picked up JAVA_TOOL"))
    refused_before_measuring(run, tmp_path / "results", "S30: 100,000 virtual threads parked 2,000 frames deep",
                             "MB of heap", "256 MB (-Xmx)", "--threads", "--depths")


@pytest.mark.fault
@pytest.mark.parametrize("kind", ["symlink-loop", "dangling-symlink", "file-for-experiment-folder"])
def test_a_results_folder_that_cannot_hold_the_result_is_refused_before_measuring(kind, tmp_path):
    """The check before measuring walked up to the first path that exists when followed: a symlink loop and a
    dangling symlink passed it, and so did a file where the experiment's folder belongs; each was found only when
    the measured run tried to save."""
    if kind == "symlink-loop":
        results = tmp_path / "loop"
        results.symlink_to(tmp_path / "loop2")
        (tmp_path / "loop2").symlink_to(results)
        words = [str(results), "symbolic link that leads nowhere", "UNPINNED_RESULTS"]
    elif kind == "dangling-symlink":
        results = tmp_path / "dangling"
        results.symlink_to(tmp_path / "gone" / "results")
        words = [str(results), "symbolic link that leads nowhere", "UNPINNED_RESULTS"]
    else:
        results = tmp_path / "results"
        results.mkdir()
        (results / "s14-carrier-scaling").write_text("not a folder\n")
        words = [str(results / "s14-carrier-scaling"), "is a file, not a folder"]
    refused_before_measuring(run_jbang(TINY_S14, results), results, *words)
    if kind == "file-for-experiment-folder":
        assert (results / "s14-carrier-scaling").read_text() == "not a folder\n"


@pytest.mark.fault
def test_a_results_path_the_locale_cannot_spell_names_the_variable_and_the_locale(tmp_path):
    """LANG=C and UNPINNED_RESULTS with 'ü' and CJK characters: refused before measuring with a line that names the
    variable and the locale (it was Java's 'Malformed input or input contains unmappable characters')."""
    results = tmp_path / "res ü 字"
    env = {k: v for k, v in os.environ.items() if not k.startswith("LC_")}
    env.update(LANG="C", UNPINNED_RESULTS=str(results))
    run = subprocess.run([*JBANG, *TINY_S14], cwd=HOME, capture_output=True, text=True, timeout=600, env=env,
                         stdin=subprocess.DEVNULL)
    refused_before_measuring(run, results, "UNPINNED_RESULTS", "LANG=C", "UTF-8")
    assert not results.exists()


JMH_TINY = ["io-bound", "-f", "1", "-wi", "0", "-i", "1", "-r", "200ms", "-p", "executor=virtual", "-p", "tasks=4",
            "-p", "sleepMs=1"]


@pytest.mark.fault
@pytest.mark.parametrize("option", ["-rff", "-o"])
def test_a_jmh_file_into_a_missing_folder_is_refused_before_the_fork(option, tmp_path):
    """-rff (with -rf json) or -o naming a file in a folder that does not exist: JMH ran the whole benchmark, then
    failed with a 14-line NoSuchFileException (FileNotFoundException for -o). One line, exit 2, no fork."""
    target = tmp_path / "nonexistent" / ("r.json" if option == "-rff" else "out.txt")
    extra = ["-rf", "json", "-rff", str(target)] if option == "-rff" else ["-o", str(target)]
    run = subprocess.run([*JBANG, *JMH_TINY, *extra], cwd=HOME, capture_output=True, text=True, timeout=600,
                         stdin=subprocess.DEVNULL)
    line = one_line_error(run, f"S01: {option} {target}", "does not exist")
    assert run.returncode == 2, line
    assert "# Fork" not in run.stdout and "Iteration" not in run.stdout, "refused only after a fork:\n" + run.stdout
    assert not (tmp_path / "nonexistent").exists()
