"""Start-up caches for the JVMs the course waits for most, built once in set-up and kept only where measured faster.

- JBang's own JVM (tools/jbang), which every child JVM of a notebook waits for: an ahead-of-time cache on JDK 25+
  (JEP 483/514/515: recorded on a training run, then created with -XX:AOTMode=create) and a CDS archive of the
  classes it loads (-XX:ArchiveClassesAtExit, any JDK).
- The Spring Boot snippet S20 (chapter 06 starts it about ten times): on JDK 25+ an AOT cache from a training run that
  starts the service and sends it each kind of request the chapter sends, in place of the CDS archive JBang keeps for
  its //CDS line (the AOT flags refuse to start beside a CDS flag, so tools/jbang drops those). JDK 21-24 have JBang's
  CDS archive only.

A cache is built when what it serves changed (the JDK, the jars on its class path by content, its java command: a
stamp in .course/start-up/), then timed against the alternatives, alternating starts after one unmeasured start of
each; the fastest median is kept (.course/start-up/<name>.choice, which tools/jbang reads), and
.course/start-up/measured.json says what was chosen, its median and the median with no cache, with their spread.
UNPINNED_START_CACHE / UNPINNED_LAUNCHER_CACHE (auto, aot, cds, off) run a command on another choice, to compare.
"""
from __future__ import annotations

import hashlib
import json
import os
import statistics
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import course_base
from course_base import SetupError, say

AOT_FEATURE = 25  # -XX:AOTMode=record/create and -XX:AOTCacheOutput (JEP 514), method profiles (JEP 515)
LAUNCHER = "launcher"
# What JBang's own JVM is trained on and timed by: deciding how to run a snippet it built, as before every child JVM
LAUNCHER_PROBE = "snippets/S04_SleepServer.java"
ROUNDS = 3  # timed starts of each choice, alternating, after one unmeasured start of each
MEASURED = "measured.json"


@dataclass(frozen=True)
class SpringSnippet:
    """A Spring Boot snippet: how chapter 06 starts it, what a training run asks it, and its first request timed."""
    script: str
    args: tuple
    training: tuple  # paths asked during training: each kind of request chapter 06 sends
    first: str       # the request whose answer ends a timed start-up

    @property
    def name(self) -> str:
        return Path(self.script).name.removesuffix(".java")


S20 = SpringSnippet("snippets/S20_SpringBootApp.java", ("--spring.threads.virtual.enabled=true",),
                    ("/sleep?ms=1",) * 20 + ("/io?ms=1", "/cpu?n=1000", "/actuator/metrics/jvm.threads.live",
                                             "/actuator/metrics/jvm.memory.used?tag=area:heap",
                                             "/actuator/metrics/process.cpu.time"), "/sleep?ms=1")


def folder() -> Path:
    return course_base.STATE / "start-up"


def jbang_env(snippet: str = "auto", launcher: str = "auto", **extra: str) -> dict:
    """tools/jbang's environment with the snippet's and JBang's own start-up cache forced (auto: set-up's choice)."""
    env = dict(os.environ, UNPINNED_START_CACHE=snippet, UNPINNED_LAUNCHER_CACHE=launcher,
               UNPINNED_HOME=str(course_base.HOME))
    env.pop("JAVA_TOOL_OPTIONS", None)
    env.update(extra)
    return env


def _jbang(*args: str) -> list[str]:
    return ["bash", str(course_base.HOME / "tools" / "jbang"), *args]


def printed_command(script: str, *args: str, what: str = "1", snippet: str = "off", launcher: str = "off") -> list[str]:
    """The java command tools/jbang runs for `script` (UNPINNED_JBANG_PRINT=1), or JBang's own (launcher); with no
    start-up cache by default."""
    run = subprocess.run(_jbang(script, *args), cwd=course_base.HOME, capture_output=True, text=True, timeout=300,
                         env=jbang_env(snippet, launcher, UNPINNED_JBANG_PRINT=what))
    if run.returncode != 0 or not run.stdout.strip():
        raise SetupError(f"tools/jbang could not say how it runs {script}:"
                         f" {course_base.last_line(run.stderr or run.stdout)}")
    return run.stdout.splitlines()


# --------------------------------------------------------------------------- timing

def launcher_seconds(launcher: str) -> float:
    """Wall time of tools/jbang deciding how to run a built snippet (bash and JBang's JVM), what every child JVM of
    the course waits for before its own start."""
    start = time.monotonic()
    run = subprocess.run(_jbang(LAUNCHER_PROBE), cwd=course_base.HOME, capture_output=True, text=True, timeout=120,
                         env=jbang_env("off", launcher, UNPINNED_JBANG_PRINT="1"))
    seconds = time.monotonic() - start
    if run.returncode != 0:
        raise SetupError(f"tools/jbang {LAUNCHER_PROBE} failed: {course_base.last_line(run.stderr or run.stdout)}")
    return seconds


def first_answer_seconds(snippet: SpringSnippet, cache: str, launcher: str = "auto", timeout: float = 180) -> float:
    """From starting the snippet through tools/jbang (as chapter 06's ServerProcess does) to its first HTTP answer, in
    seconds, on the start-up cache `cache` (auto, aot, cds or off); the server is stopped after."""
    start = time.monotonic()
    proc = subprocess.Popen(_jbang(snippet.script, *snippet.args, "--port", "0", "--control"), cwd=course_base.HOME,
                            env=jbang_env(cache, launcher), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    try:
        uri = _ready(proc, snippet.script, start + timeout)
        _get(uri + snippet.first.lstrip("/"))
        return time.monotonic() - start
    finally:
        _stop(proc)


def _ready(proc, script: str, deadline: float) -> str:
    seen = []
    for line in proc.stdout:
        if line.startswith("@@ready "):
            uri = json.loads(line[len("@@ready "):])["uri"]
            return uri if uri.endswith("/") else uri + "/"
        seen.append(line)
        if time.monotonic() > deadline:
            break
    raise SetupError(f"{script} did not say it was ready: {course_base.last_line(''.join(seen[-20:]))}")


def _get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=60) as answer:
            answer.read()
            return answer.status
    except urllib.error.HTTPError as e:  # a request meant to fail still ran its code
        return e.code


def _stop(proc) -> None:
    """Asks a --control server to stop (its JVM then ends normally: that is when a training run writes its cache, and
    JBang's //CDS its archive); kills it if it does not within a minute."""
    try:
        if proc.poll() is None:
            proc.stdin.write("stop\n")
            proc.stdin.close()
        proc.wait(timeout=60)
    except (OSError, ValueError, subprocess.TimeoutExpired):
        proc.kill()
        proc.wait()
    finally:
        if proc.stdout:
            proc.stdout.close()


@dataclass(frozen=True)
class Timing:
    """Starts of one choice, in seconds."""
    runs: tuple

    @property
    def median(self) -> float:
        return statistics.median(self.runs)

    def to_json(self) -> dict:
        return {"median": round(self.median, 3), "min": round(min(self.runs), 3), "max": round(max(self.runs), 3),
                "runs": [round(r, 3) for r in self.runs]}


def measure(timed, choices: list[str], rounds: int = ROUNDS) -> dict[str, Timing]:
    """`timed(choice)` for each choice, alternating, after one unmeasured run of each (the first start after a build
    fills the OS file cache, and JBang's //CDS archive)."""
    for c in choices:
        timed(c)
    runs = {c: [] for c in choices}
    for _ in range(rounds):
        for c in choices:
            runs[c].append(timed(c))
    return {c: Timing(tuple(r)) for c, r in runs.items()}


# --------------------------------------------------------------------------- training

def _train_launcher(kind: str, target: Path) -> None:
    """JBang's JVM on its probe command (it only prints how to run the snippet), started by tools/jbang with the
    training flags in JAVA_TOOL_OPTIONS (they reach that JVM and no other here), its log on stderr: stdout is the
    command line tools/jbang reads. aot records, then creates the cache with JBang's own command; cds archives the
    classes it loaded as it ends."""
    config = target.with_name(target.name + ".config")
    quiet = "-Xlog:disable -Xlog:all=warning:stderr"
    training = (f"-XX:AOTMode=record -XX:AOTConfiguration={config} {quiet}" if kind == "aot"
                else f"-XX:ArchiveClassesAtExit={target} {quiet}")
    run = subprocess.run(_jbang(LAUNCHER_PROBE), cwd=course_base.HOME, capture_output=True, text=True, timeout=300,
                         env=jbang_env("off", "off", UNPINNED_JBANG_PRINT="1", JAVA_TOOL_OPTIONS=training))
    try:
        if kind == "aot" and config.is_file():
            command = printed_command(LAUNCHER_PROBE, what="launcher")
            run = subprocess.run([command[0], "-XX:AOTMode=create", f"-XX:AOTConfiguration={config}",
                                  f"-XX:AOTCache={target}", "-Xlog:disable", "-Xlog:all=warning:stderr", *command[1:]],
                                 cwd=course_base.HOME, capture_output=True, text=True, timeout=300, env=jbang_env())
    finally:
        config.unlink(missing_ok=True)
    if not target.is_file():
        raise SetupError(f"training JBang's {kind} start-up cache failed:"
                         f" {course_base.last_line(run.stderr or run.stdout)}")


def _train_spring(snippet: SpringSnippet, target: Path) -> None:
    """The snippet's java command (JBang's CDS flags left out) with -XX:AOTCacheOutput: started, asked each kind of
    request chapter 06 sends, stopped; its JVM writes the cache as it ends."""
    command = printed_command(snippet.script, *snippet.args, "--port", "0", "--control")
    command = [command[0], f"-XX:AOTCacheOutput={target}", "-Xlog:disable", "-Xlog:all=warning:stderr", *command[1:]]
    proc = subprocess.Popen(command, cwd=course_base.HOME, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, env=jbang_env())
    try:
        uri = _ready(proc, snippet.script, time.monotonic() + 300)
        for path in snippet.training:
            _get(uri + path.lstrip("/"))
        proc.stdin.write("stats\n")
        proc.stdin.flush()
    except BaseException:
        proc.kill()
        proc.wait()
        raise
    _stop(proc)
    if proc.returncode != 0 or not target.is_file():
        raise SetupError(f"training {snippet.script}'s AOT cache failed (exit {proc.returncode})")


# --------------------------------------------------------------------------- stamps

def _file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _class_path_digests(command: list[str]) -> list[str]:
    """The content of every jar a java command's class path names (a wildcard included): what a cache describes."""
    digests = []
    for i, word in enumerate(command[:-1]):
        if word in ("-classpath", "-cp", "--class-path"):
            for entry in command[i + 1].split(os.pathsep):
                jars = sorted(Path(entry[:-1]).glob("*.jar")) if entry.endswith("*") else [Path(entry)]
                digests += [f"{j.name}:{_file_digest(j)}" for j in jars if j.is_file()]
    return digests


def jdk_identity(java_home: Path) -> str:
    release = java_home / "release"
    return f"{java_home.resolve()}\n" + (release.read_text(errors="replace") if release.is_file() else "")


def stamp_of(java_home: Path, command: list[str], *more: str) -> str:
    """What a cache is built from: the JDK, its java command without caches, and the jars it names, by content."""
    parts = [jdk_identity(java_home), *command, *_class_path_digests(command), *more]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()


def _saved(name: str, stamp: str) -> dict | None:
    """What the last build of `name` chose and measured, if it was built from the same things."""
    try:
        saved = json.loads((folder() / f"{name}.stamp").read_text())
    except (OSError, ValueError):
        return None
    if saved.get("stamp") != stamp or not (folder() / f"{name}.choice").is_file():
        return None
    return {k: v for k, v in saved.items() if k != "stamp"}


def _write_atomically(path: Path, text: str) -> None:
    part = path.with_name(path.name + ".part")
    part.write_text(text)
    part.replace(path)


def _forget(name: str) -> None:
    for suffix in (".choice", ".stamp", ".aot", ".jsa"):
        (folder() / f"{name}{suffix}").unlink(missing_ok=True)


def _keep(name: str, java_home: Path, stamp: str, timings: dict[str, Timing]) -> dict:
    """Keeps the fastest median (off: none), removes the caches not kept, writes the choice tools/jbang reads."""
    chosen = min(timings, key=lambda c: timings[c].median)
    kind = "none" if chosen == "off" else chosen
    for other, suffix in (("aot", ".aot"), ("cds", ".jsa")):
        if other != kind:
            (folder() / f"{name}{suffix}").unlink(missing_ok=True)
    figures = {"chosen": kind, "with": round(timings[chosen].median, 3), "without": round(timings["off"].median, 3),
               "timings": {c: t.to_json() for c, t in timings.items()}}
    _write_atomically(folder() / f"{name}.choice", f"{java_home}\n{kind}\n")
    _write_atomically(folder() / f"{name}.stamp", json.dumps({"stamp": stamp, **figures}))
    return figures


# --------------------------------------------------------------------------- set-up's step

def launcher_cache(java_home: Path, feature: int) -> dict:
    """JBang's own JVM: the caches its JDK can build, timed against none; the fastest kept."""
    command = printed_command(LAUNCHER_PROBE, what="launcher")
    stamp = stamp_of(java_home, command)
    saved = _saved(LAUNCHER, stamp)
    if saved:
        return saved
    _forget(LAUNCHER)
    kinds = (["aot"] if feature >= AOT_FEATURE else []) + ["cds"]
    say(f"building start-up caches for JBang's own JVM ({', '.join(kinds)}; once) and timing them")
    for kind in list(kinds):
        target = folder() / f"{LAUNCHER}.{'aot' if kind == 'aot' else 'jsa'}"
        part = target.with_name(f"{target.stem}.part{target.suffix}")
        part.unlink(missing_ok=True)
        try:
            _train_launcher(kind, part)
            part.replace(target)
        except SetupError as e:
            course_base.warn(f"{e}; JBang's JVM starts without it")
            kinds.remove(kind)
        finally:
            part.unlink(missing_ok=True)
    return _keep(LAUNCHER, java_home, stamp, measure(launcher_seconds, kinds + ["off"]))


def spring_cache(java_home: Path, feature: int, snippet: SpringSnippet = S20) -> dict:
    """The Spring Boot snippet: its AOT cache (JDK 25+), JBang's //CDS archive and nothing, timed to the first HTTP
    answer with JBang's JVM on the cache chosen for it; the fastest kept."""
    command = printed_command(snippet.script, *snippet.args, "--port", "0", "--control")
    stamp = stamp_of(java_home, command, repr(snippet))
    saved = _saved(snippet.name, stamp)
    if saved:
        return saved
    _forget(snippet.name)
    choices = ["cds", "off"]
    if feature >= AOT_FEATURE:
        say(f"building an AOT cache for {Path(snippet.script).name} (a training run, once) and timing Spring's first"
            " answer with it, with JBang's CDS archive and with neither")
        target = folder() / f"{snippet.name}.aot"
        part = target.with_name(f"{target.stem}.part.aot")
        part.unlink(missing_ok=True)
        try:
            _train_spring(snippet, part)
            part.replace(target)
            choices.insert(0, "aot")
        except SetupError as e:
            course_base.warn(f"{e}; Spring Boot starts on JBang's CDS archive")
        finally:
            part.unlink(missing_ok=True)
    else:
        say(f"timing Spring's first answer with JBang's CDS archive and without (JDK {feature}: no AOT cache before"
            f" JDK {AOT_FEATURE})")
    return _keep(snippet.name, java_home, stamp, measure(lambda c: first_answer_seconds(snippet, c), choices))


def write_measured(launcher: dict, spring: dict) -> Path:
    """.course/start-up/measured.json: for each, the choice kept, its median and the median with no cache (seconds),
    and every timing with its spread."""
    path = folder() / MEASURED
    _write_atomically(path, json.dumps({"spring_first_answer_s": spring, "launcher_s": launcher}, indent=1) + "\n")
    return path


def _describe(what: str, figures: dict) -> str:
    spread = figures["timings"].get(figures["chosen"] if figures["chosen"] != "none" else "off", {})
    return (f"{what} {figures['with']:.2f} s on {figures['chosen']}"
            + (f" ({spread['min']:.2f}-{spread['max']:.2f})" if spread else "")
            + f" vs {figures['without']:.2f} s without")


def start_up_caches(java_home: Path, feature: int) -> str:
    """Set-up's step, in one line. A cache that can't be built is left out with a warning: everything runs as JBang
    runs it, only slower."""
    mode = course_base.STATE / "jbang-mode"
    if not mode.is_file() or mode.read_text().strip() != "course":
        return "JBang's own (an installed jbang keeps its own caches)"
    try:
        folder().mkdir(parents=True, exist_ok=True)
        launcher = launcher_cache(java_home, feature)
        spring = spring_cache(java_home, feature)
        write_measured(launcher, spring)
    except (SetupError, OSError, subprocess.SubprocessError, ValueError) as e:
        course_base.warn(f"no start-up cache: {e}; everything starts as JBang starts it, only slower")
        return f"none ({str(e)[:160]})"
    return f"{_describe(S20.name + ' first answer', spring)}; {_describe('JBang launcher', launcher)}"
