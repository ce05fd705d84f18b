"""Set-up's installing steps, each checking its stamp first: the venv and its pinned packages, JBang, the shared
helpers and the JJava kernel on them, Spring Boot for chapter 06, async-profiler for chapter 10, reveal.js for the
slides."""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import course_base
from course_base import JBANG_ENDPOINT, JBANG_VERSION, KERNEL_NAME, VM_EXPORTS, SetupError, last_line, say, venv_python

def has_pip(python: Path) -> bool:
    return subprocess.run([str(python), "-m", "pip", "--version"], capture_output=True).returncode == 0


def ensure_pip() -> None:
    """Repairs a venv without pip: made with --without-pip, pip deleted, or left behind by a `python -m venv`
    that failed at its ensurepip step (Debian/Ubuntu without python3-venv)."""
    venv = course_base.VENV
    python = venv_python()
    if has_pip(python):
        return
    say(f"{venv} has no pip; installing it with ensurepip (offline, from Python's own copy)")
    run = subprocess.run([str(python), "-m", "ensurepip", "--upgrade"], capture_output=True, text=True)
    if run.returncode == 0 and has_pip(python):
        return
    why = last_line(run.stderr or run.stdout)
    if course_base._use_current_env():
        raise SetupError(f"the Python environment {venv} has no pip and ensurepip cannot install it ({why});"
                         " install pip into it (e.g. `conda install pip`) and run the command again.")
    raise SetupError(f"{venv} has no pip and ensurepip cannot install it ({why}). Delete the venv (rm -rf {venv})"
                     " and run the command again; if it fails the same way, install your Python's venv module"
                     " (Debian/Ubuntu: apt install python3-venv) first.")


def create_venv() -> None:
    venv = course_base.VENV
    say("creating the Python venv in .venv")
    run = subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True, text=True)
    # A venv whose python exists is repaired by ensure_pip, which then says what exactly is wrong.
    if run.returncode != 0 and not venv_python().exists():
        raise SetupError(f"`{sys.executable} -m venv {venv}` failed ({last_line(run.stderr or run.stdout)});"
                         " install your Python's venv module (Debian/Ubuntu: apt install python3-venv)"
                         " and run the command again.")


def run_with_progress(cmd: list[str], what: str, env: dict | None = None, every: float = 10) -> None:
    """Runs a long step with its full output in .course/logs/, printing a short line (the last thing it said) when
    that changed, at most one every `every` seconds, and one a minute while it did not, so set-up is never silent for
    long nor floods the terminal; on failure, the end of the log."""
    import threading
    import time

    logs = course_base.STATE / "logs"
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
    venv = course_base.VENV
    say(f"installing pinned Python packages into {venv} (JupyterLab, JJava kernel, jgo, pytest, a JDK 21 runtime;"
        " about a minute)")
    run_with_progress([str(venv_python()), "-m", "pip", "install", "--progress-bar", "off", "-r", str(requirements)],
                      "pip install")


def ensure_venv() -> None:
    requirements = course_base.HOME / "requirements.txt"
    wanted = hashlib.sha256(requirements.read_bytes()).hexdigest()
    stamp = course_base.VENV / ".unpinned-requirements"
    if stamp.is_file() and stamp.read_text() == wanted and venv_python().exists():
        return
    if not venv_python().exists() and not course_base._use_current_env():
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
    return course_base.STATE / "m2"


def jgo_env() -> dict:
    """jgo 3.2 takes its local Maven repository from M2_REPO (default ~/.m2/repository) and reads the learner's
    ~/.config/jgo.conf; M2_REPO and JGO_CACHE_DIR beat that file, which JGO_CONFIG_FILE (absent on purpose) skips."""
    env = dict(os.environ)
    env["M2_REPO"] = str(maven_repo())
    env["JGO_CACHE_DIR"] = str(course_base.STATE / "jgo")
    env["JGO_CONFIG_FILE"] = str(course_base.STATE / "jgo.conf")
    return env


def ensure_jbang() -> str:
    """Where JBang comes from: 'system' or the course's copy assembled from Maven Central."""
    mode_file = course_base.STATE / "jbang-mode"
    found = system_jbang()
    if found:
        mode_file.write_text(found)
        return f"installed ({found})"
    lib = course_base.STATE / "jbang" / "lib"
    stamp = course_base.STATE / "jbang" / ".version"
    complete = stamp.is_file() and stamp.read_text() == JBANG_ENDPOINT and any(lib.glob("jbang-cli-*.jar"))
    if not complete:
        say(f"assembling JBang {JBANG_VERSION} from Maven Central into .course/jbang (once)")
        code = (
            "import jgo, shutil, sys, pathlib\n"
            "env = jgo.build(sys.argv[1], cache_dir=sys.argv[2])\n"
            "out = pathlib.Path(sys.argv[3]); out.mkdir(parents=True)\n"
            "[shutil.copy2(j, out) for j in env.all_jars]\n"
            "print(len(env.all_jars))\n")
        staging = course_base.STATE / "jbang" / "lib.partial"
        shutil.rmtree(staging, ignore_errors=True)
        run_with_progress([str(venv_python()), "-c", code, JBANG_ENDPOINT, str(course_base.STATE / "jgo"),
                           str(staging)], "resolving JBang", env=jgo_env())
        if not list(staging.glob("jbang-cli-*.jar")):
            raise SetupError("jgo resolved JBang but no jbang-cli jar arrived; delete .course/jbang and retry.")
        shutil.rmtree(lib, ignore_errors=True)
        staging.rename(lib)
        stamp.write_text(JBANG_ENDPOINT)
    mode_file.write_text("course")
    return f"course copy {JBANG_VERSION} (.course/jbang)"


def jbang_cmd() -> list[str]:
    return ["bash", str(course_base.HOME / "tools" / "jbang")]


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
    server = course_base.VENV / "etc" / "jupyter" / "jupyter_server_config.json"
    server.parent.mkdir(parents=True, exist_ok=True)
    server.write_text(json.dumps({
        # JupyterLab's own default_url ("/lab") wins over the server's: set both
        "ServerApp": {"default_url": "/lab/tree/notebooks/00-setup-check.ipynb"},
        "LabApp": {"default_url": "/lab/tree/notebooks/00-setup-check.ipynb"},
        "KernelSpecManager": {"allowed_kernelspecs": [KERNEL_NAME]},
        "MappingKernelManager": {"default_kernel_name": KERNEL_NAME},
    }, indent=1) + "\n")
    overrides = course_base.VENV / "share" / "jupyter" / "lab" / "settings" / "overrides.json"
    overrides.parent.mkdir(parents=True, exist_ok=True)
    overrides.write_text(json.dumps({
        "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
        # the notebooks' "Contents" link opens README.md: rendered, as a learner expects, not as source text
        "@jupyterlab/docmanager-extension:plugin": {"defaultViewers": {"markdown": "Markdown Preview"}},
    }, indent=1) + "\n")


def helpers_classpath() -> str:
    """Compiles the shared helpers with JBang and returns their classpath (jar + pinned dependencies)."""
    kernel = str(course_base.HOME / "helpers" / "Kernel.java")
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
    for path in sorted((course_base.HOME / "snippets").glob("S*.java")):
        m = SPRING_DEPS.search(path.read_text(errors="replace"))
        if m:
            found.append((path, m.group(1)))
    return found


def spring_jar(version: str) -> Path:
    """Where JBang puts Spring Boot's own jar: in the course's Maven repository (tools/jbang sets JBANG_REPO)."""
    return maven_repo() / "org" / "springframework" / "boot" / "spring-boot" / version / f"spring-boot-{version}.jar"


def build_snippets() -> str:
    """Compiles every snippet once, so no chapter's first run waits for a compiler (tools/jbang starts JBang with C1
    only, except for `build`: a compile there would take ~1.6 x as long). Skipped while no snippet, helper or JDK
    changed since the last time (a stamp in .course); a preview snippet the JDK can't compile is skipped, as its
    runs are."""
    home = course_base.HOME
    snippets = sorted((home / "snippets").glob("S[0-9][0-9]_*.java"))
    digest = hashlib.sha256()
    for path in snippets + sorted((home / "helpers" / "unpinned").rglob("*.java")):
        digest.update(path.relative_to(home).as_posix().encode() + b"\0" + path.read_bytes())
    java_home = course_base.STATE / "java-home"
    digest.update(java_home.read_bytes() if java_home.is_file() else b"")
    stamp = course_base.STATE / "snippets-built"
    if stamp.is_file() and stamp.read_text() == digest.hexdigest():
        return f"{len(snippets)} built (none changed)"
    skipped = []
    for path in snippets:
        try:
            run_with_progress(jbang_cmd() + ["build", str(path)], f"building {path.name}")
        except SetupError:
            if "--enable-preview" not in path.read_text():
                raise
            skipped.append(path.name.split("_")[0])  # compiled for another JDK's preview API
    stamp.write_text(digest.hexdigest())
    return f"{len(snippets) - len(skipped)} built" + (f", {', '.join(skipped)} not on this JDK" if skipped else "")


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
    jjava = course_base.VENV / "share" / "jupyter" / "kernels" / "java"
    if not (jjava / "jjava.jar").is_file():
        raise SetupError(f"the jjava package did not install its kernel at {jjava}; delete .venv and retry.")
    target = course_base.VENV / "share" / "jupyter" / "kernels" / KERNEL_NAME
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
            "PATH": os.pathsep.join([str(java_home / "bin"), str(course_base.HOME / "tools"),
                                     os.environ.get("PATH", "")]),
            "JAVA_HOME": str(java_home),
            "JJAVA_JVM_OPTS": jvm_opts(java_feature),
            "JJAVA_COMPILER_OPTS": VM_EXPORTS,
            "JJAVA_CLASSPATH": classpath,
            "UNPINNED_HOME": str(course_base.HOME),
        },
        "metadata": {},
    }
    for logo in jjava.glob("logo-*.png"):
        shutil.copy2(logo, target / logo.name)
    (target / "kernel.json").write_text(json.dumps(spec, indent=1))
    return target


# --------------------------------------------------------------------------- fonts (charts, book, slides)

# Noto Sans KR (SIL OFL 1.1) from the pinned PyPI package pylopdf-fonts-ko (requirements.txt): a machine without a
# Korean font draws the sources' titles as empty boxes. The charts (Java2D, helpers/.../ChartFonts.java) load it from
# .course/fonts/; the book and slides embed a subset of it (tools/book_render.py).
FONT_FILE = "NotoSansKR-Regular.otf"
FONT_SHA256 = "69975a0ac8472717870aefeab0a4d52739308d90856b9955313b2ad5e0148d68"


def fonts_dir() -> Path:
    return course_base.STATE / "fonts"


def installed_font() -> Path:
    """The font file in the course's Python environment, checked against its pinned sha256."""
    out = subprocess.run([str(venv_python()), "-c", "import pylopdf_fonts_ko; print(pylopdf_fonts_ko.sans_path())"],
                         capture_output=True, text=True, timeout=120)
    source = Path(out.stdout.strip()) if out.returncode == 0 else None
    if source is None or not source.is_file():
        raise SetupError("the pinned font package pylopdf-fonts-ko is not installed in the course's Python"
                         f" ({(out.stderr.strip().splitlines() or ['no path'])[-1]}); run `make setup` again")
    got = hashlib.sha256(source.read_bytes()).hexdigest()
    if got != FONT_SHA256:
        raise SetupError(f"{source} has sha256 {got}, not the pinned {FONT_SHA256}: not the font the course expects")
    return source


def ensure_fonts() -> str:
    target = fonts_dir() / FONT_FILE
    shown = f"Noto Sans KR (.course/fonts/{FONT_FILE})"
    if target.is_file() and hashlib.sha256(target.read_bytes()).hexdigest() == FONT_SHA256:
        return shown
    source = installed_font()
    fonts_dir().mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".partial")
    shutil.copyfile(source, partial)
    partial.replace(target)
    return shown


# --------------------------------------------------------------------------- reveal.js (make slides)

REVEAL_VERSION = "5.2.1"
REVEAL_URL = f"https://registry.npmjs.org/reveal.js/-/reveal.js-{REVEAL_VERSION}.tgz"
REVEAL_SHA256 = "359b575dd51bbda32f89b2fd4c7dc46ad7389a805572158916c29252f7a27333"


def reveal_dir() -> Path:
    return course_base.STATE / f"reveal.js-{REVEAL_VERSION}"


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
    staging = course_base.STATE / f"{target.name}.partial"
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


# --------------------------------------------------------------------------- async-profiler (chapter 10)

ASYNC_PROFILER_VERSION = "4.1"
ASYNC_PROFILER = f"tools.profiler:async-profiler:{ASYNC_PROFILER_VERSION}"
ASYNC_PROFILER_SHA256 = "5535baa56133628cfffe2f05ca9bfef1fae3d5abe49835447262b1c6da4a9582"
LIBRARY = "libasyncProfiler.so"


def async_profiler_dir() -> Path:
    """Where the library goes: .course/async-profiler/<platform>/libasyncProfiler.so, with a VERSION stamp
    (helpers/unpinned/running/AsyncProfiler.java reads both)."""
    return course_base.STATE / "async-profiler"


def async_profiler_platform(system: str | None = None, machine: str | None = None) -> str | None:
    """The jar's folder for this machine (linux-x64, linux-arm64 or macos), or None: the jar has no library for it."""
    system = platform.system() if system is None else system
    machine = (platform.machine() if machine is None else machine).lower()
    if system == "Linux" and machine in ("x86_64", "amd64"):
        return "linux-x64"
    if system == "Linux" and machine in ("aarch64", "arm64"):
        return "linux-arm64"
    if system == "Darwin":
        return "macos"  # one universal library for x86_64 and arm64
    return None


def ensure_async_profiler() -> str:
    """async-profiler for chapter 10, from Maven Central only: jgo resolves the pinned jar into .course/m2 (as it
    does JBang), its sha256 is checked, and the native library for this machine is extracted from it into
    .course/async-profiler/<platform>/. On a machine the jar has no library for, nothing is extracted and the
    chapter says so in one line; the rest of the course does not need it."""
    import zipfile

    target = async_profiler_dir()
    tag = async_profiler_platform()
    stamp = target / "VERSION"
    wanted = f"{ASYNC_PROFILER_VERSION} {ASYNC_PROFILER_SHA256} {tag}"
    if tag is None:
        return (f"{ASYNC_PROFILER_VERSION}: no library for {platform.system()} {platform.machine()} in the jar"
                " (linux-x64, linux-arm64, macos); chapter 10 runs without it")
    shown = f"{ASYNC_PROFILER_VERSION} (.course/async-profiler/{tag})"
    if stamp.is_file() and stamp.read_text().strip() == wanted and (target / tag / LIBRARY).is_file():
        return shown
    say(f"fetching async-profiler {ASYNC_PROFILER_VERSION} from Maven Central into {maven_repo()} (once, for"
        " chapter 10)")
    code = ("import jgo, sys\n"
            "env = jgo.build(sys.argv[1], cache_dir=sys.argv[2])\n"
            "print([str(j) for j in env.all_jars if 'async-profiler' in str(j)][0])\n")
    out = subprocess.run([str(venv_python()), "-c", code, ASYNC_PROFILER, str(course_base.STATE / "jgo")],
                         capture_output=True, text=True, timeout=900, env=jgo_env(), stdin=subprocess.DEVNULL)
    jar = Path(out.stdout.strip().splitlines()[-1]) if out.returncode == 0 and out.stdout.strip() else None
    if jar is None or not jar.is_file():
        raise SetupError(f"could not fetch {ASYNC_PROFILER} from Maven Central (jgo said: "
                         f"{last_line(out.stderr or out.stdout)}); check the network (or a proxy), then run the"
                         " command again.")
    got = hashlib.sha256(jar.read_bytes()).hexdigest()
    if got != ASYNC_PROFILER_SHA256:
        raise SetupError(f"{jar.name} has sha256 {got}, not the pinned {ASYNC_PROFILER_SHA256}; nothing was"
                         f" extracted. Delete {jar.parent} and retry; if it persists, a proxy is changing it.")
    staging = course_base.STATE / "async-profiler.partial"
    shutil.rmtree(staging, ignore_errors=True)
    with zipfile.ZipFile(jar) as z:
        (staging / tag).mkdir(parents=True)
        (staging / tag / LIBRARY).write_bytes(z.read(f"{tag}/{LIBRARY}"))
    (staging / "VERSION").write_text(wanted + "\n")
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)
    return shown
