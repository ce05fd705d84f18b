#!/usr/bin/env python3
"""Set-up, health check and launchers for the unpinned course.

Runs on the host's Python 3.10+ with the standard library only; everything else
(venv, JJava kernel, JBang, Maven artifacts) it installs itself from the package
registries into folders of this checkout (.venv and .course). Every step checks a
stamp first, so a second run is fast and a half-finished run simply resumes.

    python3 tools/course.py setup | doctor | lab | test [pytest args...] | nav [--check]
"""
from __future__ import annotations

import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
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
MIN_PYTHON = (3, 10)
PROFILES = ("quick", "full")
KERNEL_NAME = "unpinned"
VM_EXPORTS = "--add-exports java.base/jdk.internal.vm=ALL-UNNAMED"


class SetupError(Exception):
    """A problem the learner must fix; the message says how."""


def say(msg: str) -> None:
    print(f"[unpinned] {msg}", flush=True)


# --------------------------------------------------------------------------- profile

def profile() -> str:
    value = os.environ.get("UNPINNED_PROFILE", "quick").strip() or "quick"
    if value not in PROFILES:
        raise SetupError(f"UNPINNED_PROFILE must be one of {', '.join(PROFILES)}; got '{value}'.")
    return value


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
    feature = int(parts[1]) if parts[0] == "1" else int(re.match(r"\d+", parts[0]).group())
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
            found.extend(sorted(base.glob(pattern)))
    unique: list[Path] = []
    for p in found:
        p = Path(os.path.realpath(p))
        if p not in unique:
            unique.append(p)
    return unique


def find_jdk() -> tuple[Path, str]:
    """The newest full JDK >= 21 (UNPINNED_JAVA_HOME wins when set), or a SetupError naming what was found."""
    seen = []
    best = None
    for home in jdk_candidates():
        info = java_version(home)
        if info is None:
            continue
        feature, text = info
        has_javac = (home / "bin" / "javac").exists() or (home / "bin" / "javac.exe").exists()
        seen.append(f"{home} (Java {text}{'' if has_javac else ', runtime only: no javac'})")
        if feature < MIN_JAVA or not has_javac:
            continue
        if os.environ.get("UNPINNED_JAVA_HOME") and Path(os.path.realpath(os.environ["UNPINNED_JAVA_HOME"])) == home:
            return home, text
        if best is None or feature > best[2]:
            best = (home, text, feature)
    if best is None:
        found = "\n  ".join(seen) or "no JDK at all"
        raise SetupError(
            f"The course needs a full JDK {MIN_JAVA} or newer (25 recommended); found:\n  {found}\n"
            "Install one (e.g. Temurin 25 from your package manager or `sdk install java 25-tem`),"
            " then set JAVA_HOME (or UNPINNED_JAVA_HOME) to it and run the command again.")
    return best[0], best[1]


# --------------------------------------------------------------------------- venv

def venv_python() -> Path:
    if _use_current_env():
        return Path(sys.executable)
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def ensure_venv() -> None:
    wanted = hashlib.sha256((HOME / "requirements.txt").read_bytes()).hexdigest()
    stamp = VENV / ".unpinned-requirements"
    if stamp.is_file() and stamp.read_text() == wanted and venv_python().exists():
        return
    if not venv_python().exists() and not _use_current_env():
        say("creating the Python venv in .venv")
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    say(f"installing pinned Python packages into {VENV} (JupyterLab, JJava kernel, jgo, pytest)")
    subprocess.run([str(venv_python()), "-m", "pip", "install", "--quiet", "-r", str(HOME / "requirements.txt")],
                   check=True)
    stamp.write_text(wanted)


# --------------------------------------------------------------------------- JBang

def system_jbang() -> str | None:
    """An installed jbang, unless the learner asked for the course's own (UNPINNED_OWN_JBANG=1)."""
    if os.environ.get("UNPINNED_OWN_JBANG") == "1":
        return None
    return shutil.which("jbang")


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
        subprocess.run([str(venv_python()), "-c", code, JBANG_ENDPOINT, str(STATE / "jgo"), str(staging)],
                       check=True, stdout=subprocess.DEVNULL)
        if not list(staging.glob("jbang-cli-*.jar")):
            raise SetupError("jgo resolved JBang but no jbang-cli jar arrived; delete .course/jbang and retry.")
        shutil.rmtree(lib, ignore_errors=True)
        staging.rename(lib)
        stamp.write_text(JBANG_ENDPOINT)
    mode_file.write_text("course")
    return f"course copy {JBANG_VERSION} (.course/jbang)"


def jbang_cmd() -> list[str]:
    return ["bash", str(HOME / "tools" / "jbang")]


def jbang_version() -> str:
    out = subprocess.run(jbang_cmd() + ["version"], capture_output=True, text=True, timeout=120)
    return out.stdout.strip() or out.stderr.strip()


# --------------------------------------------------------------------------- kernel

def helpers_classpath() -> str:
    """Compiles the shared helpers with JBang and returns their classpath (jar + pinned dependencies)."""
    kernel = str(HOME / "helpers" / "Kernel.java")
    # `info classpath` names the jar without building it: build first (a no-op when nothing changed).
    for args in (["build", kernel], ["info", "classpath", kernel]):
        out = subprocess.run(jbang_cmd() + args, capture_output=True, text=True, timeout=900)
        if out.returncode != 0:
            raise SetupError("could not build the shared helpers (helpers/Kernel.java):\n"
                             + (out.stdout + out.stderr)[-4000:])
    jar = out.stdout.strip().splitlines()[-1].split(os.pathsep)[0] if out.stdout.strip() else ""
    if not os.path.isfile(jar):
        raise SetupError(f"JBang built the helpers but their jar is missing ({jar or 'no classpath printed'})")
    return out.stdout.strip().splitlines()[-1]


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


# --------------------------------------------------------------------------- navigation

NAV_TOP, NAV_BOTTOM = "nav-top", "nav-bottom"


def notebook_title(nb: dict) -> str:
    for cell in nb["cells"]:
        if cell["cell_type"] == "markdown" and cell["id"] not in (NAV_TOP, NAV_BOTTOM):
            for line in "".join(cell["source"]).splitlines():
                if line.startswith("# "):
                    return line[2:].strip()
    raise SetupError("every notebook starts with a '# NN · Title' heading")


def nav(check: bool) -> int:
    """Writes (or with check, verifies) the generated navigation cells at the top and bottom of every notebook."""
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
        cells = [c for c in nb["cells"] if c.get("id") not in (NAV_TOP, NAV_BOTTOM)]
        made = [{"cell_type": "markdown", "id": NAV_TOP, "metadata": {}, "source": [f"<!-- generated by `python3 tools/course.py nav` -->\n", line]}]
        made += cells
        made.append({"cell_type": "markdown", "id": NAV_BOTTOM, "metadata": {}, "source": [line]})
        if made != nb["cells"]:
            stale.append(path.name)
            if not check:
                nb["cells"] = made
                path.write_text(json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n")
    if check and stale:
        print("navigation is out of date in: " + ", ".join(stale) + "; run `python3 tools/course.py nav`")
        return 1
    print(("updated: " + ", ".join(stale)) if stale and not check else "navigation is up to date")
    return 0


# --------------------------------------------------------------------------- commands

def setup() -> dict:
    if sys.version_info < MIN_PYTHON:
        raise SetupError(f"Python {'.'.join(map(str, MIN_PYTHON))}+ is needed; this is {platform.python_version()}.")
    if os.name == "nt":
        raise SetupError("Windows: run the course inside WSL (Linux); the scripts use bash.")
    STATE.mkdir(exist_ok=True)
    java_home, java_text = find_jdk()
    java_feature = java_version(java_home)[0]
    (STATE / "java-home").write_text(str(java_home))
    ensure_venv()
    jbang = ensure_jbang()
    classpath = helpers_classpath()
    kernel = install_kernel(java_home, java_feature, classpath)
    return {"jdk": f"{java_home} (Java {java_text})", "jbang": jbang, "kernel": str(kernel)}


def doctor() -> int:
    """Prints what was found and what is missing; exit 1 if something is missing."""
    missing = []
    rows = [("python", f"{platform.python_version()} ({sys.executable})")]
    try:
        home, text = find_jdk()
        rows.append(("jdk", f"Java {text} at {home}"))
    except SetupError as e:
        rows.append(("jdk", "MISSING")); missing.append(str(e))
    for cand in jdk_candidates():
        info = java_version(cand)
        if info:
            rows.append(("  seen", f"Java {info[1]} at {cand}"))
    rows.append(("venv", str(VENV) if venv_python().exists() else "missing (run make setup)"))
    kernel = VENV / "share" / "jupyter" / "kernels" / KERNEL_NAME / "kernel.json"
    if kernel.is_file():
        env = json.loads(kernel.read_text())["env"]
        rows.append(("kernel", f"{KERNEL_NAME} (JJava) -> {json.loads(kernel.read_text())['argv'][0]}"))
        rows.append(("kernel flags", env["JJAVA_JVM_OPTS"]))
    else:
        rows.append(("kernel", "missing (run make setup)")); missing.append("kernel")
    if (STATE / "java-home").is_file() and (system_jbang() or (STATE / "jbang" / "lib").is_dir()):
        rows.append(("jbang", jbang_version() + (f" (installed: {system_jbang()})" if system_jbang() else
                                                 " (course copy in .course/jbang)")))
    else:
        rows.append(("jbang", "missing (run make setup)")); missing.append("jbang")
    rows.append(("cores", str(os.cpu_count())))
    rows.append(("os", f"{platform.system()} {platform.release()} {platform.machine()}"))
    try:
        rows.append(("profile", profile() + "  (UNPINNED_PROFILE=quick|full)"))
    except SetupError as e:
        rows.append(("profile", "INVALID")); missing.append(str(e))
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"{k:<{width}}  {v}")
    for m in missing:
        print(f"\nmissing: {m}")
    return 1 if missing else 0


def course_env() -> dict:
    env = dict(os.environ)
    env["UNPINNED_PROFILE"] = profile()
    env["UNPINNED_HOME"] = str(HOME)
    return env


def setup_and_report() -> None:
    for k, v in setup().items():
        say(f"{k}: {v}")
    say(f"profile: {profile()}")


def lab(args: list[str]) -> int:
    setup_and_report()
    cmd = [str(VENV / "bin" / "jupyter"), "lab", f"--notebook-dir={HOME}", "notebooks/00-setup-check.ipynb"]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    os.chdir(HOME)
    os.execve(cmd[0], cmd + args, course_env())
    return 0


def test(args: list[str]) -> int:
    setup_and_report()
    env = course_env()
    return subprocess.run([str(venv_python()), "-m", "pytest", *(args or ["tests"])], cwd=HOME, env=env).returncode


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("setup", "doctor", "lab", "test", "nav"):
        print(__doc__)
        return 2
    try:
        command, rest = argv[0], argv[1:]
        if command == "setup":
            setup_and_report()
            return 0
        if command == "doctor":
            return doctor()
        if command == "nav":
            return nav(check="--check" in rest)
        return lab(rest) if command == "lab" else test(rest)
    except SetupError as e:
        print(f"[unpinned] error: {e}", file=sys.stderr)
        return 1
    except subprocess.CalledProcessError as e:
        print(f"[unpinned] error: `{' '.join(map(str, e.cmd))[:300]}` failed with exit code {e.returncode}."
              " Fix what it printed above, then run the command again: set-up resumes where it stopped.",
              file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
