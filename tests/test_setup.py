"""The set-up script's promises: a clear error for a wrong JDK or profile, and a kernel that carries the flags."""
import json
import os
import subprocess
import sys

import pytest

from conftest import HOME, KERNEL_NAME

sys.path.insert(0, str(HOME / "tools"))
import course  # noqa: E402


def fake_jdk(root, version: str, javac: bool = True):
    (root / "bin").mkdir(parents=True)
    (root / "bin" / "java").write_text("#!/bin/sh\n")
    if javac:
        (root / "bin" / "javac").write_text("#!/bin/sh\n")
    (root / "release").write_text(f'JAVA_VERSION="{version}"\n')
    return root


def test_a_jdk_older_than_21_is_refused_with_what_was_found(tmp_path, monkeypatch):
    old = fake_jdk(tmp_path / "jdk-17", "17.0.15")
    monkeypatch.setattr(course, "jdk_candidates", lambda: [old])
    with pytest.raises(course.SetupError) as err:
        course.find_jdk()
    assert "21 or newer" in str(err.value) and str(old) in str(err.value) and "JAVA_HOME" in str(err.value)


def test_a_runtime_without_javac_is_not_enough(tmp_path, monkeypatch):
    jre = fake_jdk(tmp_path / "jre-21", "21.0.8", javac=False)
    monkeypatch.setattr(course, "jdk_candidates", lambda: [jre])
    with pytest.raises(course.SetupError, match="no javac"):
        course.find_jdk()


def test_the_newest_jdk_wins(tmp_path, monkeypatch):
    homes = [fake_jdk(tmp_path / n, v) for n, v in (("a", "21.0.8"), ("b", "25.0.1"), ("c", "17.0.2"))]
    monkeypatch.setattr(course, "jdk_candidates", lambda: homes)
    monkeypatch.delenv("UNPINNED_JAVA_HOME", raising=False)
    assert course.find_jdk() == (homes[1], "25.0.1")


def test_an_unknown_profile_names_the_allowed_ones(monkeypatch):
    monkeypatch.setenv("UNPINNED_PROFILE", "fast")
    with pytest.raises(course.SetupError, match="quick, full"):
        course.profile()


def test_the_course_kernel_carries_the_flags_and_the_jdk():
    spec = json.loads((course.VENV / "share" / "jupyter" / "kernels" / KERNEL_NAME / "kernel.json").read_text())
    env = spec["env"]
    java_home = (HOME / ".course" / "java-home").read_text()
    assert spec["argv"][0] == os.path.join(java_home, "bin", "java")
    assert env["PATH"].split(os.pathsep)[0] == os.path.join(java_home, "bin")
    for key in ("JJAVA_JVM_OPTS", "JJAVA_COMPILER_OPTS"):
        assert "--add-exports java.base/jdk.internal.vm=ALL-UNNAMED" in env[key]
    assert "--enable-native-access=ALL-UNNAMED" in env["JJAVA_JVM_OPTS"]
    assert all(os.path.exists(p) for p in env["JJAVA_CLASSPATH"].split(os.pathsep))


def test_setup_again_is_idempotent_and_doctor_reports():
    run = subprocess.run([sys.executable, str(HOME / "tools" / "course.py"), "doctor"], capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    for word in ("jdk", "kernel", "jbang", "cores", "profile"):
        assert word in run.stdout


def test_a_half_finished_jbang_assembly_is_redone(tmp_path, monkeypatch):
    """A stamp without the jars (e.g. set-up killed while copying) must not count as installed."""
    monkeypatch.setattr(course, "STATE", tmp_path)
    monkeypatch.setenv("UNPINNED_OWN_JBANG", "1")
    (tmp_path / "jbang" / "lib").mkdir(parents=True)
    (tmp_path / "jbang" / ".version").write_text(course.JBANG_ENDPOINT)
    (tmp_path / "jbang" / "lib.partial").mkdir()  # debris of the interrupted run
    calls = []

    def fake_resolve(cmd, **kwargs):
        calls.append(cmd)
        staging = cmd[-1]
        os.makedirs(staging)
        open(os.path.join(staging, "jbang-cli-0.0.jar"), "w").close()
        return subprocess.CompletedProcess(cmd, 0)

    monkeypatch.setattr(course.subprocess, "run", fake_resolve)
    course.ensure_jbang()
    assert len(calls) == 1 and (tmp_path / "jbang" / "lib" / "jbang-cli-0.0.jar").is_file()
    course.ensure_jbang()
    assert len(calls) == 1, "a complete assembly is not repeated"


def test_jdk_21_kernels_get_no_flag_it_would_reject():
    assert "--sun-misc-unsafe-memory-access" not in course.jvm_opts(21)
    assert "--sun-misc-unsafe-memory-access=allow" in course.jvm_opts(25)
    for feature in (21, 25):
        assert "--add-exports java.base/jdk.internal.vm=ALL-UNNAMED" in course.jvm_opts(feature)


def test_the_jbang_wrapper_says_to_run_setup_first(tmp_path):
    import shutil
    (tmp_path / "tools").mkdir()
    shutil.copy2(HOME / "tools" / "jbang", tmp_path / "tools" / "jbang")
    run = subprocess.run(["bash", str(tmp_path / "tools" / "jbang"), "version"], capture_output=True, text=True)
    assert run.returncode == 2 and "make setup" in run.stderr
