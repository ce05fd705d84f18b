"""The course's preview code (S25: StructuredTaskScope as JDK 25 shapes it, JEP 505, compiled with --enable-preview)
on a course JDK other than 25: a learner may point the course at JDK 26 or 27. Every check (tools/jbang, `make doctor`,
Jdks.courseFeature in Java) reads the feature version from the JDK's release file, so these run on a copy of the real
JDK 25 whose release file declares 26 or 27 (tests/jdk_fakes.py): the snippet refuses in one line, doctor names what
is skipped, chapter 07's cells say so in one line and the rest runs, and the tests of S25 skip with the reason."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

from conftest import HOME, KERNEL_NAME, preview_skip
from jdk_fakes import jdk_declaring


@pytest.fixture(scope="module")
def jdks(tmp_path_factory) -> dict:
    """The course JDK as a learner's JDK 26 and 27 (their release files say so)."""
    root = tmp_path_factory.mktemp("jdks")
    return {feature: jdk_declaring(feature, root / f"jdk-{feature}") for feature in (26, 27)}


def _jbang(*args: str, jdk: Path | None, cwd: Path = HOME) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop("UNPINNED_JAVA_HOME", None)
    if jdk is not None:
        env["UNPINNED_JAVA_HOME"] = str(jdk)
    return subprocess.run(["bash", str(HOME / "tools" / "jbang"), *args], cwd=cwd, capture_output=True, text=True,
                          timeout=600, env=env, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("feature", [26, 27])
def test_the_preview_snippet_refuses_in_one_line_on_another_jdk(feature, jdks, tmp_path):
    """Before JBang compiles (javac 26 refuses --release 25 with --enable-preview) or downloads a JDK 25: one line,
    exit 2, nothing run; from the checkout (the catalog) and from another folder (the alias resolved by tools/jbang)."""
    for cwd in (HOME, tmp_path):
        run = _jbang("structured-fanout", "--slow-ms", "100", jdk=jdks[feature], cwd=cwd)
        lines = [line for line in run.stderr.splitlines() if line.strip()]
        assert run.returncode == 2, run.stdout[-2000:] + run.stderr[-2000:]
        assert len(lines) == 1 and not run.stdout.strip(), run.stdout + run.stderr
        assert lines[0].startswith(f"S25: skipped on JDK {feature}:") and "--enable-preview for Java 25" in lines[0]


def test_the_harness_refuses_the_preview_snippet_too(jdks, tmp_path):
    """The snippet's own check (Backpressure.courseJdk25, through Jdks.courseFeature) refuses the same way when its
    classes are started directly on a JVM that is not the JDK they were compiled for (its release file says 26)."""
    build = _jbang("build", "structured-fanout", jdk=None)
    assert build.returncode == 0, build.stderr[-2000:]
    cp = _jbang("info", "classpath", "structured-fanout", jdk=None)
    assert cp.returncode == 0, cp.stderr[-2000:]
    java = jdks[26] / "bin" / "java"
    env = {**os.environ, "UNPINNED_HOME": str(HOME)}
    run = subprocess.run([str(java), "--enable-preview", "-cp", cp.stdout.strip().splitlines()[-1],
                          "unpinned.snippets.S25_StructuredFanOut"], cwd=tmp_path, capture_output=True, text=True,
                         timeout=120, env=env, stdin=subprocess.DEVNULL)
    errors = [line for line in run.stderr.splitlines() if line.strip() and not line.startswith("WARNING")]
    assert run.returncode == 2 and len(errors) == 1, run.stdout[-2000:] + run.stderr[-2000:]
    assert "needs JDK 25 exactly" in errors[0] and "Exception" not in run.stderr, errors


@pytest.mark.parametrize("feature, says", [(25, "runs on this JDK 25"), (26, "SKIPPED on this JDK 26")])
def test_doctor_says_which_experiments_this_jdk_skips(feature, says, jdks):
    env = {**os.environ, "UNPINNED_JAVA_HOME": str(jdks[feature]) if feature in jdks else
           (HOME / ".course" / "java-home").read_text().strip()}
    run = subprocess.run([str(HOME / ".venv" / "bin" / "python"), str(HOME / "tools" / "course.py"), "doctor"],
                         cwd=HOME, capture_output=True, text=True, timeout=300, env=env)
    preview = [line for line in run.stdout.splitlines() if line.startswith("preview")]
    assert len(preview) == 1, run.stdout
    assert "S25_StructuredFanOut.java" in preview[0] and "structured-fanout" in preview[0], preview
    assert "chapter 07" in preview[0] and says in preview[0], preview


def test_the_tests_of_the_preview_snippet_skip_with_the_reason(monkeypatch, jdks):
    monkeypatch.delenv("UNPINNED_JAVA_HOME", raising=False)
    assert preview_skip("structured-fanout") is None  # the course JDK here is 25
    monkeypatch.setenv("UNPINNED_JAVA_HOME", str(jdks[27]))
    assert preview_skip("structured-fanout") == ("S25_StructuredFanOut.java needs JDK 25 exactly (--enable-preview);"
                                                 " the course JDK is 27")
    assert preview_skip("pinning-cases") is None  # compiled for 21 without preview: runs everywhere


def kernel_on(jdk: Path, folder: Path) -> str:
    """The course kernel's spec, run by `jdk`'s java, as a kernel of its own under `folder` (add it to JUPYTER_PATH)."""
    spec = json.loads((HOME / ".venv" / "share" / "jupyter" / "kernels" / KERNEL_NAME / "kernel.json").read_text())
    spec["argv"][0] = str(jdk / "bin" / "java")
    spec["env"]["JAVA_HOME"] = str(jdk)
    spec["env"]["PATH"] = f"{jdk / 'bin'}:{spec['env']['PATH']}"
    name = f"{KERNEL_NAME}-{jdk.name}"
    (folder / "kernels" / name).mkdir(parents=True)
    (folder / "kernels" / name / "kernel.json").write_text(json.dumps(spec))
    return name


def test_chapter_07s_preview_cells_say_so_in_one_line_and_the_rest_runs(monkeypatch, jdks, tmp_path):
    """The kernel (on a JDK whose release file says 26) runs chapter 07's set-up, section 5's cells, and the first
    cells of section 6 after them: one line instead of the fan-out, no error, no stack trace, and the next section
    runs."""
    kernel = kernel_on(jdks[26], tmp_path / "jupyter")
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "jupyter"))
    path = HOME / "notebooks" / "07-a-real-database-and-backpressure.ipynb"
    nb = nbformat.read(path, as_version=4)
    ids = [c.get("id") for c in nb.cells]
    wanted = [c for c in nb.cells if c.cell_type == "code"
              and (c.get("id") == "c07-01" or c.get("id", "").startswith("c07-5"))]
    after = nb.cells[ids.index("c07-60") + 1]  # section 6's first code cell: plain code, it must run
    assert wanted[0].get("id") == "c07-01" and after.cell_type == "code"
    nb.cells = wanted + [after]
    client = NotebookClient(nb, timeout=300, kernel_name=kernel, allow_errors=True,
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
