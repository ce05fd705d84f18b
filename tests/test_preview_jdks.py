"""The course's preview code (S25: StructuredTaskScope as JDK 25 shapes it, JEP 505, compiled with --enable-preview)
on a course JDK other than 25: a learner may point the course at JDK 26 or 27. UNPINNED_PRETEND_FEATURE makes every
check (tools/jbang, `make doctor`, Jdks.courseFeature in Java) take the course JDK for that feature version, so these
run on the real JDK 25: the snippet refuses in one line, doctor names what is skipped, chapter 07's cells say so in
one line and the rest runs, and the tests of S25 skip with the reason."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from conftest import HOME, KERNEL_NAME, preview_skip

PRETEND = "UNPINNED_PRETEND_FEATURE"


def _jbang(*args: str, feature: int | None, cwd: Path = HOME) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop(PRETEND, None)
    if feature is not None:
        env[PRETEND] = str(feature)
    return subprocess.run(["bash", str(HOME / "tools" / "jbang"), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env=env, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("feature", [26, 27])
def test_the_preview_snippet_refuses_in_one_line_on_another_jdk(feature, tmp_path):
    """Before JBang compiles (javac 26 refuses --release 25 with --enable-preview) or downloads a JDK 25: one line,
    exit 2, nothing run; from the checkout (the catalog) and from another folder (the alias resolved by tools/jbang)."""
    for cwd in (HOME, tmp_path):
        run = _jbang("structured-fanout", "--slow-ms", "100", feature=feature, cwd=cwd)
        lines = [line for line in run.stderr.splitlines() if line.strip()]
        assert run.returncode == 2, run.stdout[-2000:] + run.stderr[-2000:]
        assert len(lines) == 1 and not run.stdout.strip(), run.stdout + run.stderr
        assert lines[0].startswith(f"S25: skipped on JDK {feature}:") and "--enable-preview for Java 25" in lines[0]


def test_the_harness_refuses_the_preview_snippet_too(tmp_path):
    """The snippet's own check (Backpressure.courseJdk25, through Jdks.courseFeature) refuses the same way when its
    classes are started directly on a JVM that is not the JDK they were compiled for (here: pretended)."""
    build = _jbang("build", "structured-fanout", feature=None)
    assert build.returncode == 0, build.stderr[-2000:]
    cp = _jbang("info", "classpath", "structured-fanout", feature=None)
    assert cp.returncode == 0, cp.stderr[-2000:]
    java = Path((HOME / ".course" / "java-home").read_text().strip()) / "bin" / "java"
    env = {**os.environ, PRETEND: "26", "UNPINNED_HOME": str(HOME)}
    run = subprocess.run([str(java), "--enable-preview", "-cp", cp.stdout.strip().splitlines()[-1],
                          "unpinned.snippets.S25_StructuredFanOut"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=120, env=env, stdin=subprocess.DEVNULL)
    errors = [line for line in run.stderr.splitlines() if line.strip() and not line.startswith("WARNING")]
    assert run.returncode == 2 and len(errors) == 1, run.stdout[-2000:] + run.stderr[-2000:]
    assert "needs JDK 25 exactly" in errors[0] and "Exception" not in run.stderr, errors


@pytest.mark.parametrize("feature, says", [(25, "runs on this JDK 25"), (26, "SKIPPED on this JDK 26")])
def test_doctor_says_which_experiments_this_jdk_skips(feature, says):
    env = {**os.environ, PRETEND: str(feature)}
    run = subprocess.run([str(HOME / ".venv" / "bin" / "python"), str(HOME / "tools" / "course.py"), "doctor"],
                         cwd=HOME, capture_output=True, text=True, timeout=300, env=env)
    preview = [line for line in run.stdout.splitlines() if line.startswith("preview")]
    assert len(preview) == 1, run.stdout
    assert "S25_StructuredFanOut.java" in preview[0] and "structured-fanout" in preview[0], preview
    assert "chapter 07" in preview[0] and says in preview[0], preview


def test_the_tests_of_the_preview_snippet_skip_with_the_reason(monkeypatch):
    assert preview_skip("structured-fanout") is None  # the course JDK here is 25
    monkeypatch.setenv(PRETEND, "27")
    assert preview_skip("structured-fanout") == ("S25_StructuredFanOut.java needs JDK 25 exactly (--enable-preview);"
                                                 " the course JDK is 27")
    assert preview_skip("pinning-cases") is None  # compiled for 21 without preview: runs everywhere


def test_chapter_07s_preview_cells_say_so_in_one_line_and_the_rest_runs(monkeypatch):
    """The kernel (started with the pretended JDK) runs chapter 07's set-up, section 5's cells, and the first cells
    of section 6 after them: one line instead of the fan-out, no error, no stack trace, and the next section runs."""
    monkeypatch.setenv(PRETEND, "26")
    path = HOME / "notebooks" / "07-a-real-database-and-backpressure.ipynb"
    nb = nbformat.read(path, as_version=4)
    ids = [c.get("id") for c in nb.cells]
    wanted = [c for c in nb.cells if c.cell_type == "code"
              and (c.get("id") == "c07-01" or c.get("id", "").startswith("c07-5"))]
    after = nb.cells[ids.index("c07-60") + 1]  # section 6's first code cell: plain code, it must run
    assert wanted[0].get("id") == "c07-01" and after.cell_type == "code"
    nb.cells = wanted + [after]
    client = NotebookClient(nb, timeout=300, kernel_name=KERNEL_NAME, allow_errors=True,
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    errors = [(c.get("id"), o.get("ename"), o.get("evalue")) for c in nb.cells for o in c.outputs
              if o.output_type == "error"]
    assert not errors, errors
    said = {c.get("id"): "".join(o.get("text", "") for o in c.outputs if o.output_type == "stream")
            for c in nb.cells}
    lines = [line for line in said["c07-53"].splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("Skipped on JDK 26: the structured fan-out (S25)"), said["c07-53"]
    assert all(not c.outputs for c in nb.cells if c.get("id") in ("c07-54", "c07-54b")), said
