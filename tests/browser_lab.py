"""What tests/test_browser.py needs to drive the course's notebooks through JupyterLab in a real browser:
Debian's Chromium and the pinned Python `playwright` (installed here where possible, else a one-line skip
reason), a JupyterLab server of the course's own on a free port, and a reader of the kernel messages the page
exchanges, so that "this cell failed" comes from the Jupyter protocol, not from guessing at rendered text.

Nothing here saves a notebook: the server runs on copies under build/browser/<run>/notebooks/, with autosave off
and its settings, workspaces and runtime files in a temporary folder (the learner's JupyterLab settings and
workspaces are untouched).
"""
from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import struct
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

HOME = Path(__file__).resolve().parent.parent
BUILD = HOME / "build" / "browser"
SCREENSHOTS = HOME / "build" / "screenshots"
CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run"]
# Set in the server's environment: its kernels and everything they start inherit it, so the test finds the
# processes of *its* run (a benchmark JVM orphaned by a kill included) and no one else's.
MARKER_ENV = "UNPINNED_BROWSER_RUN"

# JupyterLab settings for the test's server (user-settings level, in a temporary JUPYTERLAB_SETTINGS_DIR).
LAB_SETTINGS = {
    # no "Would you like to get notified about official Jupyter news?" toast, no update check
    "@jupyterlab/apputils-extension:notification": {"fetchNews": "false", "checkForUpdates": False},
    # the notebooks are committed without outputs: nothing may write them back
    "@jupyterlab/docmanager-extension:plugin": {"autosave": False},
    # every cell in the DOM, rendered, in order (cells are matched to the .ipynb by position)
    "@jupyterlab/notebook-extension:tracker": {"windowingMode": "none"},
}

# The server side of news and update checks: nothing fetched from the internet. (They don't stop the news
# question in the page; the fetchNews setting above does.)
QUIET_SERVER_ARGS = ["--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]


# ----------------------------------------------------------------------------- what the test needs

def pinned_playwright() -> str:
    """The `playwright==X` line of requirements.txt."""
    for line in (HOME / "requirements.txt").read_text().splitlines():
        spec = line.split("#")[0].strip()
        if re.match(r"playwright\s*==", spec):
            return spec.replace(" ", "")
    return "playwright"


def _last_line(text: str) -> str:
    lines = [x.strip() for x in (text or "").splitlines() if x.strip()]
    return lines[-1][:200] if lines else "no output"


def ensure_playwright() -> str | None:
    """Imports Playwright, installing the pinned version into this Python if set-up has not; None when it is
    usable, else why not (one line)."""
    try:
        import playwright.sync_api  # noqa: F401
        return None
    except ImportError:
        pass
    pin = pinned_playwright()
    run = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", pin], capture_output=True, text=True,
                         timeout=600)
    if run.returncode != 0:
        return f"Python package {pin} is missing and `pip install {pin}` failed: {_last_line(run.stderr)}"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError as e:
        return f"{pin} installed but does not import: {e}"
    return None


def find_chromium() -> str | None:
    candidates = [os.environ.get("UNPINNED_CHROMIUM"), "/usr/bin/chromium"]
    candidates += [shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")]
    return next((c for c in candidates if c and os.path.isfile(c) and os.access(c, os.X_OK)), None)


@contextlib.contextmanager
def launched_chromium(path: str):
    """Chromium at `path`, headless, driven by Playwright; closed, and Playwright stopped, on the way out. A browser
    that won't start fails the test with Playwright's first line."""
    import pytest
    from playwright.sync_api import sync_playwright
    pw = sync_playwright().start()
    try:
        browser = pw.chromium.launch(executable_path=path, headless=True, args=CHROMIUM_FLAGS)
    except Exception as e:
        pw.stop()
        pytest.fail(f"Playwright could not start {path}: {str(e).splitlines()[0]}")
    try:
        yield browser
    finally:
        browser.close()
        pw.stop()


def ensure_chromium() -> tuple[str | None, str]:
    """(path to a Chromium, "") or (None, why there is none). As root with apt-get it installs Debian's
    `chromium` (running `apt-get update` only if the first install fails)."""
    found = find_chromium()
    if found:
        return found, ""
    apt = shutil.which("apt-get")
    if not apt:
        return None, "no Chromium found and no apt-get to install it (set UNPINNED_CHROMIUM to a Chromium binary)"
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return None, "no Chromium found; install it as root (apt-get install chromium) or set UNPINNED_CHROMIUM"
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    install = [apt, "install", "-y", "-q", "-o", "DPkg::Lock::Timeout=300", "chromium"]
    run = subprocess.run(install, capture_output=True, text=True, env=env, timeout=1800, stdin=subprocess.DEVNULL)
    if run.returncode != 0:
        subprocess.run([apt, "update", "-q", "-o", "DPkg::Lock::Timeout=300"], capture_output=True, text=True,
                       env=env, timeout=900, stdin=subprocess.DEVNULL)
        run = subprocess.run(install, capture_output=True, text=True, env=env, timeout=1800, stdin=subprocess.DEVNULL)
    found = find_chromium()
    if found:
        return found, ""
    return None, f"`apt-get install chromium` failed (exit {run.returncode}): {_last_line(run.stderr or run.stdout)}"


# ----------------------------------------------------------------------------- the notebooks, copied

def copy_notebooks(run_id: str) -> Path:
    """build/browser/<run_id>/notebooks/ holds this run's copies (a folder per run: two test sessions at once
    don't share one); its parent links the repo's other top-level entries, so a notebook's relative links
    (../README.md) resolve as they do from notebooks/."""
    root = BUILD / run_id
    (root / "notebooks").mkdir(parents=True)
    for nb in sorted((HOME / "notebooks").glob("*.ipynb")):
        shutil.copy2(nb, root / "notebooks" / nb.name)
    for entry in HOME.iterdir():
        if entry.name.startswith(".") or entry.name in ("build", "notebooks"):
            continue
        (root / entry.name).symlink_to(Path("..", "..", "..", entry.name))
    return root / "notebooks"


# ----------------------------------------------------------------------------- the JupyterLab server

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def marked_processes(run_id: str, needle: str = "") -> list:
    """Live processes started under this test's server (they carry MARKER_ENV=run_id), optionally only those
    whose command line contains `needle`."""
    import psutil
    found = []
    for p in psutil.process_iter(["cmdline"]):
        try:
            if needle and needle not in " ".join(p.info["cmdline"] or []):
                continue
            if p.pid != os.getpid() and p.environ().get(MARKER_ENV) == run_id:
                found.append(p)
        except (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess):
            continue
    return found


@dataclass
class Lab:
    """JupyterLab from this Python's environment (the course venv) on 127.0.0.1, rooted at the repo."""
    workdir: Path
    port: int = 0
    token: str = field(default_factory=lambda: secrets.token_hex(24))
    run_id: str = field(default_factory=lambda: secrets.token_hex(8))
    proc: subprocess.Popen | None = None
    log: Path | None = None
    extra_args: list = field(default_factory=list)
    settings: dict = field(default_factory=lambda: dict(LAB_SETTINGS))

    @property
    def notebooks(self) -> Path:
        """This server's copies of the notebooks."""
        return BUILD / self.run_id / "notebooks"

    def rel(self, name: str) -> str:
        return self.notebooks.joinpath(name).relative_to(HOME).as_posix()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, rel: str) -> str:
        """Opens `rel` alone: `reset` drops whatever the workspace had open before."""
        return f"{self.base}/lab/tree/{rel}?reset&token={self.token}"

    def api(self, path: str, method: str = "GET", timeout: float = 10):
        req = urllib.request.Request(self.base + path, method=method,
                                     headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(req, timeout=timeout) as r:
            body = r.read()
        return json.loads(body) if body else None

    @property
    def runtime(self) -> Path:
        """Where the server keeps its kernels' connection files (kernel-<id>.json)."""
        return self.workdir / "runtime"

    def start(self) -> "Lab":
        copy_notebooks(self.run_id)
        settings = self.workdir / "user-settings"
        for plugin, values in self.settings.items():
            package, name = plugin.split(":")
            path = settings / package / f"{name}.jupyterlab-settings"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(values))
        env = dict(os.environ)
        env.update({"JUPYTERLAB_SETTINGS_DIR": str(settings),
                    "JUPYTERLAB_WORKSPACES_DIR": str(self.workdir / "workspaces"),
                    "JUPYTER_RUNTIME_DIR": str(self.runtime),
                    "UNPINNED_HOME": str(HOME), MARKER_ENV: self.run_id})
        env.setdefault("UNPINNED_PROFILE", "quick")
        self.log = self.workdir / "jupyterlab.log"
        for attempt in range(3):  # a free port can be taken between choosing it and binding it
            self.port = _free_port()
            cmd = [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ip=127.0.0.1", f"--port={self.port}",
                   "--port-retries=0", f"--IdentityProvider.token={self.token}", f"--ServerApp.root_dir={HOME}",
                   *QUIET_SERVER_ARGS]
            if hasattr(os, "geteuid") and os.geteuid() == 0:
                cmd.append("--allow-root")
            cmd += self.extra_args
            with open(self.log, "ab") as log:
                self.proc = subprocess.Popen(cmd, cwd=HOME, env=env, stdout=log, stderr=subprocess.STDOUT,
                                             stdin=subprocess.DEVNULL, start_new_session=True)
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline and self.proc.poll() is None:
                try:
                    self.api("/api/status", timeout=2)
                    return self
                except (urllib.error.URLError, OSError):
                    time.sleep(0.3)
            if self.proc.poll() is None:
                break
            if "already in use" not in self.log.read_text(errors="replace"):
                break
        tail = "\n".join(self.log.read_text(errors="replace").splitlines()[-15:])
        self.stop()
        raise RuntimeError(f"JupyterLab did not come up on port {self.port}:\n{tail}")

    def sessions(self) -> list[dict]:
        return self.api("/api/sessions")

    def session(self, rel: str) -> dict | None:
        return next((s for s in self.sessions() if s.get("path") == rel), None)

    def shut_down_session(self, rel: str) -> None:
        try:
            s = self.session(rel)
            if s:
                self.api(f"/api/sessions/{s['id']}", method="DELETE", timeout=30)
        except (urllib.error.URLError, OSError):
            pass

    def stop(self) -> None:
        """Shuts the server and its kernels down (politely, then by signal), and ends any process left over
        from this server's kernels (found by MARKER_ENV)."""
        proc = self.proc
        if proc is None:
            return
        if proc.poll() is None:
            try:
                self.api("/api/shutdown", method="POST", timeout=10)
            except (urllib.error.URLError, OSError):
                pass
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                for sig in (signal.SIGTERM, signal.SIGKILL):
                    try:
                        os.killpg(proc.pid, sig)  # the group the server leads (start_new_session)
                    except ProcessLookupError:
                        break
                    try:
                        proc.wait(timeout=10)
                        break
                    except subprocess.TimeoutExpired:
                        continue
        for p in marked_processes(self.run_id):
            try:
                p.kill()
            except Exception:
                pass
        self.proc = None
        shutil.rmtree(BUILD / self.run_id, ignore_errors=True)
        try:
            BUILD.rmdir()  # only when no other run is using it
        except OSError:
            pass


# ----------------------------------------------------------------------------- kernel messages seen by the page

@dataclass
class CellRun:
    started: bool = False
    done: bool = False
    status: str = ""
    count: int | None = None   # the kernel's execution count for this run
    input_at: str = ""         # when the page heard the kernel begin it and answer it, in nbclient's format (the
    reply_at: str = ""         # kernel's own message dates are to the minute only)
    errors: list = field(default_factory=list)
    stderr: str = ""
    mimes: set = field(default_factory=set)
    outputs: list = field(default_factory=list)  # as nbformat would save them, display updates applied

    def add(self, kind: str, content: dict) -> None:
        """Keeps what the page received as saved outputs: streams as streams, displays with their data and metadata,
        an update_display_data replacing the output of the same display id (as JupyterLab and nbclient do)."""
        if kind == "stream":
            self.outputs.append({"output_type": "stream", "name": content.get("name"), "text": content.get("text", "")})
        elif kind == "error":
            self.outputs.append({"output_type": "error", "ename": content.get("ename"),
                                 "evalue": content.get("evalue"), "traceback": content.get("traceback", [])})
        else:
            display_id = (content.get("transient") or {}).get("display_id")
            out = {"output_type": "execute_result" if kind == "execute_result" else "display_data",
                   "data": content.get("data") or {}, "metadata": content.get("metadata") or {}, "_id": display_id}
            if kind == "update_display_data":
                for i, old in enumerate(self.outputs):
                    if display_id and old.get("_id") == display_id:
                        self.outputs[i] = {**out, "output_type": old["output_type"]}
            else:
                self.outputs.append(out)


def _now() -> str:
    import datetime
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class KernelWire:
    """Reads the kernel websocket of a page (Jupyter's v1 binary framing, or the older JSON frames): which cell
    each execute_request was for (JupyterLab puts the cell id in its metadata) and what came back."""

    def __init__(self, cell_ids: list[str]):
        self.cell_ids = cell_ids
        self.requests: dict[str, str] = {}   # msg_id -> cell id
        self.cells: dict[str, CellRun] = {}  # cell id -> its latest run
        self.state = "unknown"               # last execution_state on iopub
        self.kernel_info = False
        self.sockets = 0

    def attach(self, page) -> None:
        page.on("websocket", self._on_ws)

    def _on_ws(self, ws) -> None:
        if "/api/kernels/" in ws.url and "/channels" in ws.url:
            self.sockets += 1
            ws.on("framesent", lambda payload: self._on(payload, sent=True))
            ws.on("framereceived", lambda payload: self._on(payload, sent=False))

    @staticmethod
    def _decode(payload) -> dict | None:
        try:
            if isinstance(payload, str):
                return json.loads(payload)
            data = bytes(payload)
            n = struct.unpack_from("<Q", data, 0)[0]
            offsets = list(struct.unpack_from(f"<{n}Q", data, 8)) + [len(data)]
            parts = [data[offsets[i]:offsets[i + 1]] for i in range(n)]
            keys = ("header", "parent_header", "metadata", "content")
            msg = {"channel": parts[0].decode()}
            for k, raw in zip(keys, parts[1:5]):
                msg[k] = json.loads(raw) if raw else {}
            return msg
        except Exception:
            return None

    def _on(self, payload, sent: bool) -> None:
        msg = self._decode(payload)
        if not msg:
            return
        kind = msg.get("header", {}).get("msg_type") or msg.get("msg_type")
        content = msg.get("content") or {}
        if sent:
            if kind == "execute_request":
                cell = (msg.get("metadata") or {}).get("cellId")
                if cell:
                    self.requests[msg["header"]["msg_id"]] = cell
                    self.cells[cell] = CellRun()
            return
        if kind == "status" and msg.get("channel") == "iopub":
            self.state = content.get("execution_state", self.state)
        if kind == "kernel_info_reply":
            self.kernel_info = True
        cell_id = self.requests.get((msg.get("parent_header") or {}).get("msg_id"))
        run = self.cells.get(cell_id) if cell_id else None
        if run is None:
            return
        if kind == "execute_input":
            run.started = True
            run.count = content.get("execution_count")
            run.input_at = _now()
        elif kind == "execute_reply":
            run.done, run.status = True, content.get("status", "")
            run.reply_at = _now()
        elif kind == "error":
            run.errors.append(f"{content.get('ename')}: {content.get('evalue')}")
            run.add(kind, content)
        elif kind == "stream":
            if content.get("name") == "stderr":
                run.stderr += content.get("text", "")
            run.add(kind, content)
        elif kind in ("display_data", "execute_result", "update_display_data"):
            run.mimes.update((content.get("data") or {}).keys())
            run.add(kind, content)

    def run_of(self, index: int) -> CellRun | None:
        return self.cells.get(self.cell_ids[index])


# ----------------------------------------------------------------------------- the page

# One entry per cell of the open notebook, in order: its prompt, and what its output area shows.
CELLS_JS = """() => {
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
  if (!panel) return [];
  return Array.from(panel.querySelectorAll('.jp-Notebook .jp-Cell')).map(c => {
    const outs = Array.from(c.querySelectorAll('.jp-OutputArea-output'));
    return {
      code: c.classList.contains('jp-CodeCell'),
      prompt: (c.querySelector('.jp-InputArea-prompt')?.textContent || '').trim(),
      outputs: outs.length,
      stderr: outs.filter(o => o.dataset.mimeType === 'application/vnd.jupyter.stderr').map(o => o.textContent),
      text: outs.map(o => o.textContent).join('\\n').slice(0, 2000),
      images: c.querySelectorAll('.jp-OutputArea-output img').length,
      tables: c.querySelectorAll('.jp-OutputArea-output table').length,
      // a table in view wider than the output area is cut off; code shown side by side must read as code
      wideTables: Array.from(c.querySelectorAll('.jp-OutputArea-output table')).filter(t => {
        if (t.closest('details')) return false;
        const area = t.closest('.jp-OutputArea-output');
        return t.getBoundingClientRect().right > area.getBoundingClientRect().right + 1;
      }).map(t => (t.querySelector('caption')?.textContent || 'a table') + ': ' + Math.round(t.getBoundingClientRect().width)
        + ' px in ' + Math.round(t.closest('.jp-OutputArea-output').getBoundingClientRect().width) + ' px'),
      raggedCode: Array.from(c.querySelectorAll('.jp-OutputArea-output pre')).filter(p => {
        const s = getComputedStyle(p);
        return p.closest('.unpinned-code') && (s.textAlign !== 'left' || !s.whiteSpace.startsWith('pre'));
      }).length,
    };
  });
}"""

KERNEL_NAME_SELECTOR = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-NotebookPanel-toolbar .jp-KernelName"
INTERRUPT_SELECTOR = ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-NotebookPanel-toolbar [data-jp-item-name=interrupt] jp-button"
RUN_MENU = ".lm-MenuBar-item:has(.lm-MenuBar-itemLabel:text-is('Run'))"
RUN_ALL_MENU_ITEM = ".lm-Menu-item:has(.lm-Menu-itemLabel:text-is('Run All Cells'))"  # command runmenu:run-all


def cells(page) -> list[dict]:
    return page.evaluate(CELLS_JS)


def run_all(page) -> None:
    """Run ▸ Run All Cells, through the menu bar."""
    page.locator(RUN_MENU).click()
    page.locator(RUN_ALL_MENU_ITEM).click()


def full_screenshot(page, path: Path, max_height: int = 16000) -> None:
    """The whole notebook in one picture: JupyterLab scrolls inside its panel, so the window is made as tall as
    the notebook for the shot (up to max_height px), then restored."""
    path.parent.mkdir(parents=True, exist_ok=True)
    size = page.viewport_size
    try:
        need = page.evaluate("""() => {
          const outer = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer');
          if (!outer) return 0;
          const r = outer.getBoundingClientRect();
          return Math.ceil(r.top + outer.scrollHeight + (window.innerHeight - r.bottom));
        }""")
        if size and need > size["height"]:
            page.set_viewport_size({"width": size["width"], "height": min(need, max_height)})
            page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
            page.evaluate("""() => { const o = document.querySelector(
                '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer'); if (o) o.scrollTop = 0; }""")
            page.wait_for_timeout(300)
        page.screenshot(path=str(path))
    finally:
        if size:
            page.set_viewport_size(size)


# ----------------------------------------------------------------------------- driving a notebook

KERNEL_DISPLAY_NAME = "Java (unpinned)"


def wait(page, what: str, done, timeout: float, poll_ms: int = 250):
    """Polls done() (which may return a value) while the page keeps handling events; fails naming `what`."""
    deadline = time.monotonic() + timeout
    while True:
        value = done()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        page.wait_for_timeout(poll_ms)


def open_notebook(page, lab: Lab, name: str, nb: dict) -> tuple[str, KernelWire]:
    """Opens the copy of notebooks/<name> alone in JupyterLab; returns once its kernel is ours and idle."""
    rel = lab.rel(name)
    wire = KernelWire([c.get("id") for c in nb["cells"]])
    wire.attach(page)
    page.goto(lab.url(rel))
    shown_cells = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell")
    wait(page, f"{name} to show its {len(nb['cells'])} cells", lambda: shown_cells.count() == len(nb["cells"]), 90)
    dialog = page.locator(".jp-Dialog")
    assert not dialog.count(), f"a dialog opened with the notebook: {dialog.first.inner_text()[:300]}"
    shown = page.locator(KERNEL_NAME_SELECTOR)

    def kernel_name() -> str:
        return shown.first.inner_text().strip() if shown.count() else "no kernel name"
    try:
        wait(page, "the kernel name", lambda: kernel_name() == KERNEL_DISPLAY_NAME, 30)
    except AssertionError:
        raise AssertionError(f"the notebook's toolbar shows kernel {kernel_name()!r}, not {KERNEL_DISPLAY_NAME!r}")

    def kernel_ready():
        session = lab.session(rel)
        kernel = (session or {}).get("kernel") or {}
        return kernel.get("execution_state") == "idle" and wire.kernel_info and kernel
    kernel = wait(page, "the kernel to start and the page to connect to it", kernel_ready, 120, 500)
    assert kernel["name"] == nb["metadata"]["kernelspec"]["name"] == "unpinned", kernel
    return rel, wire


def code_indices(nb: dict) -> list[int]:
    return [i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code"]


def source(nb: dict, i: int) -> str:
    src = nb["cells"][i]["source"]
    return "".join(src) if isinstance(src, list) else src


def finished(page, wire: KernelWire, code: list[int]):
    """Every code cell sent, answered and numbered, the kernel idle: the cells' DOM state, else None."""
    runs = [wire.run_of(i) for i in code]
    if wire.state != "idle" or not all(r and r.done for r in runs):
        return None
    now = cells(page)
    if any(now[i]["prompt"] == "[*]:" for i in code):
        return None
    return now


def shoot(page, name: str) -> Path:
    path = SCREENSHOTS / f"{name}.png"
    full_screenshot(page, path)
    return path


def shoot_failure(page, name: str) -> None:
    """The page as it was when the test failed; never hides the failure itself."""
    try:
        shoot(page, f"{name}-failure")
    except Exception as e:
        print(f"no failure screenshot for {name}: {e}")


def forget_shots(name: str) -> None:
    for suffix in ("", "-failure"):
        (SCREENSHOTS / f"{name}{suffix}.png").unlink(missing_ok=True)
    for old in SCREENSHOTS.glob(f"{name}-flame-graph-*.png"):
        old.unlink()


def kernel_threads(lab: Lab, rel: str, timeout: float = 60) -> int:
    """The live platform threads of the kernel JVM behind the open notebook `rel`, asked over a second connection to
    that kernel (as `jupyter console --existing` connects): nothing is added to the notebook or its page, which
    ignores answers to requests it did not send."""
    from jupyter_client import BlockingKernelClient
    import queue

    session = lab.session(rel) or {}
    kernel_id = (session.get("kernel") or {}).get("id")
    assert kernel_id, f"no kernel behind {rel}"
    client = BlockingKernelClient(connection_file=str(lab.runtime / f"kernel-{kernel_id}.json"))
    client.load_connection_file()
    client.start_channels()
    try:
        msg_id = client.execute("Thread.getAllStackTraces().size()", store_history=False)
        deadline = time.monotonic() + timeout
        value = None
        while time.monotonic() < deadline:
            try:
                msg = client.get_iopub_msg(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                break
            if (msg.get("parent_header") or {}).get("msg_id") != msg_id:
                continue
            kind, content = msg["msg_type"], msg["content"]
            if kind == "execute_result":
                value = int(content["data"]["text/plain"])
            elif kind == "error":
                raise AssertionError(f"the thread count probe failed: {content.get('ename')}: {content.get('evalue')}")
            elif kind == "status" and content.get("execution_state") == "idle" and value is not None:
                return value
        raise AssertionError(f"the kernel behind {rel} did not answer the thread count probe in {timeout:.0f} s")
    finally:
        client.stop_channels()
