"""`doctor` (what was found, what is wrong) and `stop` (this checkout's experiment JVMs, and no one else's)."""
from __future__ import annotations

import contextlib
import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path

import course_base
import course_install
from course_base import KERNEL_NAME, SetupError, profile, say, venv_python
from course_install import jbang_version, maven_repo, spring_jar, spring_snippets
import course_jdk
from course_jdk import choose_jdk, jdk21_status, java_version, recorded_jdk_problem, survey_jdks

def doctor() -> int:
    """Prints what was found and what is wrong; exit 1 if something is missing or broken."""
    problems = []
    rows = [("python", f"{platform.python_version()} ({sys.executable})")]
    course_feature = None
    try:
        home, text, warnings = choose_jdk()
        rows.append(("jdk", f"Java {text} at {home}"))
        rows.extend(("  warning", w) for w in warnings)
        course_feature = (java_version(home) or (None,))[0]
    except SetupError as e:
        rows.append(("jdk", "MISSING")); problems.append(str(e))
    recorded = recorded_jdk_problem()
    if recorded:
        gone = (course_base.STATE / "java-home").read_text().strip()
        rows.append(("set-up's jdk", f"GONE: {gone}")); problems.append(recorded)
    usable, refused = survey_jdks()
    rows.extend(("  seen", f"Java {text} at {home}") for home, _, text in usable)
    rows.extend(("  refused", f"{home} ({why})") for home, why in refused)
    for name, aliases, need, notebooks, skipped in course_jdk.preview_skips(course_feature):
        where = ", ".join(aliases + [f"chapter {n}" for n in notebooks])
        rows.append(("preview", f"{name} ({where}): needs JDK {need} exactly (compiled with --enable-preview); "
                     + (f"SKIPPED on this JDK {course_feature}: its cells and runs say so in one line"
                        if skipped else f"runs on this JDK {course_feature}")))
    runtime, problem = jdk21_status(course_feature)
    rows.append(("jdk 21 runtime", runtime))
    if problem:
        problems.append(problem)
    rows.append(("venv", str(course_base.VENV) if venv_python().exists() else "missing (run make setup)"))
    kernel = course_base.VENV / "share" / "jupyter" / "kernels" / KERNEL_NAME / "kernel.json"
    if kernel.is_file():
        spec = json.loads(kernel.read_text())
        rows.append(("kernel", f"{KERNEL_NAME} (JJava) -> {spec['argv'][0]}"))
        rows.append(("kernel flags", spec["env"]["JJAVA_JVM_OPTS"]))
    else:
        rows.append(("kernel", "missing (run make setup)")); problems.append("kernel: run make setup")
    state, installed = course_base.STATE, course_install.system_jbang()
    if (state / "java-home").is_file() and (installed or (state / "jbang" / "lib").is_dir()):
        works, said = jbang_version()
        where = f"installed: {installed}" if installed else "course copy in .course/jbang"
        rows.append(("jbang", f"{said} ({where})" if works else f"FAILED ({where})"))
        # with set-up's JDK gone, or the JDK asked for unusable, that problem above is the cause, not JBang
        if not works and not recorded and course_feature is not None:
            fix = ("check the installed jbang, or use the course's own: UNPINNED_OWN_JBANG=1 make setup"
                   if installed else "delete .course/jbang, then run make setup again")
            problems.append(f"jbang: {said}; {fix}")
    else:
        rows.append(("jbang", "missing (run make setup)")); problems.append("jbang: run make setup")
    for path, version in spring_snippets():
        if spring_jar(version).is_file():
            rows.append(("spring boot", f"{version} (for {path.name})"))
        else:
            rows.append(("spring boot", f"{version} missing (run make setup: {path.name} needs it)"))
            problems.append(f"spring boot {version}: not fetched yet; run make setup (chapter 06 needs it)")
    tag = course_install.async_profiler_platform()
    library = course_install.async_profiler_dir() / str(tag) / course_install.LIBRARY
    rows.append(("async-profiler", f"{course_install.ASYNC_PROFILER_VERSION} ({library})" if library.is_file()
                 else f"{course_install.ASYNC_PROFILER_VERSION} missing (run make setup; chapter 10 runs without it)"
                 if tag else f"no library for this OS and architecture (chapter 10 runs without it)"))
    rows.append(("maven repo", f"{maven_repo()} (JBang and jgo; `make clean` removes it)"))
    rows.append(("cores", str(os.cpu_count())))
    rows.append(("os", f"{platform.system()} {platform.release()} {platform.machine()}"))
    rows.append(("profile", profile() + "  (UNPINNED_PROFILE=quick|full)"))
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    for m in problems:
        print(f"\nproblem: {m}")
    return 1 if problems else 0


# tools/jbang exports it (this checkout's folder) to everything it starts: JBang, the snippets' JVMs, their children.
CHECKOUT_ENV = "UNPINNED_CHECKOUT"


def checkout_processes(*needles: str) -> list:
    """This checkout's experiment processes (psutil.Process): those that carry CHECKOUT_ENV naming this folder, so
    another checkout's, or anyone else's, never; with `needles`, only those whose command line contains one of them.
    Never this process or its ancestors."""
    import psutil
    mine = str(course_base.HOME)
    me = psutil.Process()
    skip = {me.pid, *(p.pid for p in me.parents())}
    found = []
    for p in psutil.process_iter(["cmdline", "environ"]):
        environ, cmdline = p.info["environ"] or {}, " ".join(p.info["cmdline"] or [])
        if p.pid in skip or environ.get(CHECKOUT_ENV) != mine:
            continue  # another user's (unreadable: None), another checkout's, or no course process at all
        if not needles or any(n in cmdline for n in needles):
            found.append(p)
    return found


def end_processes(procs: list, grace: float = 5) -> list:
    """SIGTERM to each of `procs` (psutil.Process; a JVM's shutdown hooks stop its servers and databases), SIGKILL
    to those still running after `grace` seconds; returns those still running after as long again. An ended process
    its parent has not reaped yet (a zombie) counts as ended."""
    import time

    import psutil

    def running(ps: list) -> list:
        out = []
        for p in ps:
            with contextlib.suppress(psutil.Error):
                if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                    out.append(p)
        return out

    def wait(ps: list) -> list:
        deadline = time.monotonic() + grace
        ps = running(ps)
        while ps and time.monotonic() < deadline:
            time.sleep(0.1)
            ps = running(ps)
        return ps

    for p in procs:
        with contextlib.suppress(psutil.Error):
            p.terminate()
    left = wait(procs)
    for p in left:
        with contextlib.suppress(psutil.Error):
            p.kill()
    return wait(left)


def running_in_venv() -> bool:
    """Whether this Python is the course venv's: its prefix is the venv folder. (Not the interpreter's real path: a
    venv's bin/python is a symlink to the very interpreter the host's python3 runs.)"""
    return Path(sys.prefix).resolve() == course_base.VENV.resolve()


# Where an embedded PostgreSQL keeps its folder: Java's java.io.tmpdir, /tmp on Linux and macOS whatever TMPDIR says.
DATABASE_FOLDERS = Path("/tmp")
DATABASE_PREFIX = "unpinned-pg-"  # helpers/unpinned/running/Database.java's TEMP_PREFIX


def leftover_databases() -> list:
    """Folders of embedded PostgreSQL servers this checkout started whose JVM has ended (killed, so no hook ran):
    (folder, postmaster psutil.Process or None). Another checkout's, or a run still going, are not listed."""
    import psutil
    found = []
    for folder in sorted(DATABASE_FOLDERS.glob(DATABASE_PREFIX + "*")):
        try:
            if (folder / "owner.home").read_text() != str(course_base.HOME):
                continue
            owner = int((folder / "owner.pid").read_text().strip())
        except (OSError, ValueError):
            continue  # not ours to judge: being made, or another version's
        if psutil.pid_exists(owner):
            continue
        server = None
        with contextlib.suppress(OSError, ValueError, IndexError, psutil.Error):
            pid = int((folder / "data" / "postmaster.pid").read_text().splitlines()[0])
            candidate = psutil.Process(pid)
            if str(folder / "data") in " ".join(candidate.cmdline()):  # a pid alone may be anyone's by now
                server = candidate
        found.append((folder, server))
    return found


def stop() -> int:
    """`make stop`: ends this checkout's experiment JVMs and what they started (SIGTERM, then SIGKILL after 5 s), and
    an embedded PostgreSQL a killed JVM of this checkout left behind, with its folder."""
    try:
        import psutil
    except ImportError:  # the host's Python: the venv's has psutil (requirements.txt)
        python = venv_python()
        if python.is_file() and not running_in_venv():
            course_py = Path(__file__).resolve().with_name("course.py")
            return subprocess.run([str(python), str(course_py), "stop"]).returncode
        raise SetupError("stopping needs the course's venv (psutil); run `make setup` first") from None
    found = checkout_processes()
    databases = leftover_databases()
    servers = [s for _, s in databases if s is not None and s not in found]
    if not found and not databases:
        say(f"no experiment JVM of this checkout ({course_base.HOME}) is running")
        return 0
    for p in found + servers:
        with contextlib.suppress(psutil.Error):
            say(f"stopping pid {p.pid}: {' '.join(p.cmdline())[-120:]}")
    left = end_processes(found + servers)
    if left:
        raise SetupError(f"could not stop pids {', '.join(str(p.pid) for p in left)}")
    for folder, _ in databases:
        shutil.rmtree(folder, ignore_errors=True)
        say(f"removed {folder}, left by a PostgreSQL whose JVM was killed")
    ended = len(found) + len(servers)
    say(f"stopped {ended} process{'' if ended == 1 else 'es'} of this checkout; other checkouts' are left alone")
    return 0
