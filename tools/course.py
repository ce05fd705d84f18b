#!/usr/bin/env python3
"""Set-up, health check and launchers for the unpinned course.

Runs on the host's Python 3.10+ with the standard library only; everything else
(venv, JJava kernel, JBang, Maven artifacts) it installs itself from the package
registries into folders of this checkout (.venv and .course). Every step checks a
stamp first, so a second run is fast and a half-finished run simply resumes.

    python3 tools/course.py setup | doctor | lab | test [pytest args...] | nav [--check]
                            | book [--fresh] | slides [--fresh] | stop | structure

book and slides (tools/book.py) render the executed notebooks (build/executed/, from the test run; any missing,
or all with --fresh, are executed first) into a static HTML site in build/book/ or reveal.js slides in build/slides/.
stop ends this checkout's experiment JVMs (a server or load generator left over from a killed kernel), and no one
else's. structure prints the code's shape in the one line `make test` ends with (tools/structure.py).

This file holds the commands; the work is done by course_base (folders, pins, profile, messages), course_jdk
(finding the JDKs), course_install (venv, JBang, kernel, Spring Boot, reveal.js), course_nav (navigation and
the indexes) and course_health (doctor, stop), all in tools/.
"""
from __future__ import annotations

import sys

# Before anything that needs 3.10, in syntax Python 3.7+ still parses (3.6 and older stop at the
# __future__ line; the Makefile checks those), so an old Python ends with one line, not a traceback.
MIN_PYTHON = (3, 10)
if sys.version_info < MIN_PYTHON:
    sys.stderr.write("[unpinned] error: Python %d.%d or newer is needed; this is %d.%d (%s). Install a newer one"
                     " and run the command with it, e.g. `make setup PYTHON=python3.12`.\n"
                     % (MIN_PYTHON + tuple(sys.version_info[:2]) + (sys.executable,)))
    sys.exit(1)


import contextlib
import os
import subprocess
from pathlib import Path

import course_base
from course_base import SetupError, fresh, profile, say, venv_python
from course_health import doctor, stop
from course_install import (build_snippets, build_spring_snippets, configure_lab, ensure_async_profiler, ensure_fonts,
                            ensure_jbang, ensure_reveal, ensure_venv, helpers_classpath, install_kernel)
from course_jdk import find_jdk, java_version, jdk21_status
from course_nav import nav
from course_startup import start_up_caches

# --------------------------------------------------------------------------- commands

@contextlib.contextmanager
def setup_lock():
    """Only one set-up at a time per checkout: two would build into the same .venv and .course folders.

    flock, not a marker file: the kernel drops the lock when its holder dies, even by kill -9."""
    import fcntl  # POSIX only; Windows was refused before

    course_base.STATE.mkdir(exist_ok=True)
    with open(course_base.STATE / "setup.lock", "a+") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.seek(0)
            pid = lock.read().strip()
            raise SetupError(f"another set-up is running in {course_base.HOME}" + (f" (pid {pid})" if pid else "")
                             + "; wait for it to finish, then run the command again.") from None
        lock.seek(0)
        lock.truncate()
        lock.write(str(os.getpid()))
        lock.flush()
        try:
            yield
        finally:
            lock.truncate(0)  # still holding the lock: nobody reads a pid that is gone


def set_up() -> dict:
    """The set-up steps; callers hold setup_lock()."""
    java_home, java_text = find_jdk()
    java_feature = java_version(java_home)[0]
    (course_base.STATE / "java-home").write_text(str(java_home))
    ensure_venv()
    jbang = ensure_jbang()
    classpath = helpers_classpath()
    spring = build_spring_snippets()
    snippets = build_snippets()
    start_up = start_up_caches(java_home, java_feature)
    kernel = install_kernel(java_home, java_feature, classpath)
    configure_lab()
    reveal = ensure_reveal()
    profiler = ensure_async_profiler()
    fonts = ensure_fonts()
    return {"jdk": f"{java_home} (Java {java_text})", "jdk 21 runtime": jdk21_status(java_feature)[0], "jbang": jbang,
            "spring boot": spring, "snippets": snippets, "start-up": start_up, "kernel": str(kernel),
            "reveal.js": reveal, "async-profiler": profiler, "fonts": fonts}


def setup() -> dict:
    if os.name == "nt":
        raise SetupError("Windows: run the course inside WSL (Linux); the scripts use bash.")
    with setup_lock():
        return set_up()



def course_env() -> dict:
    env = dict(os.environ)
    if (course_base.STATE / "java-home").is_file():  # set-up's choice, which tools/jbang then takes without a word
        env["JAVA_HOME"] = (course_base.STATE / "java-home").read_text().strip()
    env["UNPINNED_PROFILE"] = profile()
    env["UNPINNED_HOME"] = str(course_base.HOME)
    return env


def setup_and_report() -> None:
    for k, v in setup().items():
        say(f"{k}: {v}")
    say(f"profile: {profile()}")


def lab(args: list[str]) -> int:
    setup_and_report()
    # configure_lab() (in set-up) makes it open notebooks/00-setup-check.ipynb and offer only the course kernel
    cmd = [str(course_base.VENV / "bin" / "jupyter"), "lab", f"--ServerApp.root_dir={course_base.HOME}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    os.chdir(course_base.HOME)
    os.execve(cmd[0], cmd + args, course_env())
    return 0


# How long a command interrupted by Ctrl-C gets to stop what it started (kernels and their JVMs) before it is killed.
STOP_GRACE_SECONDS = 30


class Stopped(KeyboardInterrupt):
    """SIGTERM or SIGHUP (a closed terminal, a CI timeout, `kill`), handled as Ctrl-C is."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _stopped(signum, frame) -> None:
    raise Stopped(signum)


def run_to_end(cmd: list[str], env: dict) -> int:
    """Runs `cmd` in this folder and returns its exit code. A Ctrl-C reaches it too (a terminal signals the whole
    foreground group), so it is given STOP_GRACE_SECONDS to stop its kernels and their JVMs, which lead sessions of
    their own, instead of being killed a quarter of a second in (subprocess.run), which left them running. SIGTERM and
    SIGHUP are passed on to it (it may not have had them: `kill` names one process) and given the same time. A second
    signal kills it at once."""
    import signal
    proc = subprocess.Popen(cmd, cwd=course_base.HOME, env=env)
    previous = {s: signal.signal(s, _stopped) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        try:
            return proc.wait()
        except KeyboardInterrupt as e:
            if isinstance(e, Stopped):
                with contextlib.suppress(ProcessLookupError):
                    proc.send_signal(e.signum)
            try:
                return proc.wait(timeout=STOP_GRACE_SECONDS)
            except (KeyboardInterrupt, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()
                raise e from None
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def test(args: list[str]) -> int:
    setup_and_report()
    # the whole suite lists its 25 slowest tests: where the 40-minute budget goes
    return run_to_end([str(venv_python()), "-m", "pytest", *(args or ["--durations=25", "tests"])], course_env())


def book(command: str, args: list[str]) -> int:
    """`book` or `slides`: set up (the venv's nbconvert and nbclient, the kernel, reveal.js), then tools/book.py."""
    setup_and_report()
    return run_to_end([str(venv_python()), str(course_base.HOME / "tools" / "book.py"), command, *args], course_env())


def structure() -> int:
    """`structure`: the code's shape in one line, as `make test` ends with (tools/structure.py computes it)."""
    import structure as shape
    print(shape.line())
    return 0


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("setup", "doctor", "lab", "test", "nav", "book", "slides", "stop", "structure"):
        print(__doc__)
        return 2
    try:
        command, rest = argv[0], argv[1:]
        if command not in ("nav", "structure"):
            profile()  # a typo in the profile fails in a second, not after the whole set-up
        if command in ("book", "slides") and fresh() and "--fresh" not in rest:
            rest = [*rest, "--fresh"]
        if command == "setup":
            setup_and_report()
            return 0
        if command == "doctor":
            return doctor()
        if command == "nav":
            return nav(check="--check" in rest)
        if command == "structure":
            return structure()
        if command == "stop":
            return stop()
        if command in ("book", "slides"):
            return book(command, rest)
        return lab(rest) if command == "lab" else test(rest)
    except SetupError as e:
        print(f"[unpinned] error: {e}", file=sys.stderr)
        return 1
    except subprocess.CalledProcessError as e:
        print(f"[unpinned] error: `{' '.join(map(str, e.cmd))[:300]}` failed with exit code {e.returncode}."
              " Fix what it printed above, then run the command again: set-up resumes where it stopped.",
              file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        # Every step checks its stamp first, so running again resumes; a traceback would only hide that.
        # On a terminal the line starts after the echoed ^C.
        print(("\n" if sys.stderr.isatty() else "") + "[unpinned] interrupted; run the command again to resume",
              file=sys.stderr)
        return 130


if __name__ == "__main__":
    course_base.tolerate_gone_readers()  # `course.py setup | head`: the set-up goes on quietly
    sys.exit(main(sys.argv[1:]))
