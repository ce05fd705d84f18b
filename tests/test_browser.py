"""The notebooks as a learner meets them: JupyterLab in a real browser (Debian's Chromium, driven by Playwright),
Run ▸ Run All Cells on each chapter, and Stop in the middle of a Run All.

It installs what it needs where it can (Chromium through apt-get as root; the pinned `playwright` is in
requirements.txt), and skips with a one-line reason where it can't. Notebooks are never saved: the server runs
on copies under build/browser/<run>/notebooks/ with autosave off. Screenshots go to build/screenshots/
(<notebook>.png, and <notebook>-failure.png taken when a test fails)."""
from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

import browser_lab as bl
import page as page_check
from conftest import HOME, report

NOTEBOOKS = sorted((HOME / "notebooks").glob("[0-9][0-9]-*.ipynb"))
NOTEBOOK_TIMEOUT = 240       # s, Run All of one chapter
KERNEL_DISPLAY_NAME = "Java (unpinned)"
STOP_NOTEBOOK = "01-thread-per-request-and-pools.ipynb"
LONG_CELL = 'ExecutorBatches.io('  # S01 under JMH, through its typed wrapper
SNIPPET = "S01_IoBoundExecutors"
PRESENTING = ("Tables.html", "Charts.", "Results.save")
REFUSAL = "re-run the measurement above"
FLAME_GRAPH = "Flame graph"  # ProfilingRuns.FLAME_GRAPH: the title every flame graph starts with


# ----------------------------------------------------------------------------- fixtures

@pytest.fixture(scope="module")
def chromium() -> str:
    reason = bl.ensure_playwright()
    if reason:
        pytest.skip(reason)
    path, reason = bl.ensure_chromium()
    if not path:
        pytest.skip(reason)
    return path


@pytest.fixture(scope="module")
def browser(chromium):
    with bl.launched_chromium(chromium) as b:
        yield b


@pytest.fixture(scope="module")
def lab(browser, results_dir, tmp_path_factory):
    server = bl.Lab(tmp_path_factory.mktemp("jupyterlab"))
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.set_default_timeout(30_000)
    try:
        yield context.new_page()
    finally:
        context.close()


# ----------------------------------------------------------------------------- steps

def _read(lab, name: str) -> dict:
    return json.loads((lab.notebooks / name).read_text())


def _wait(page, what: str, done, timeout: float, poll_ms: int = 250):
    """Polls done() (which may return a value) while the page keeps handling events; fails naming `what`."""
    deadline = time.monotonic() + timeout
    while True:
        value = done()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")
        page.wait_for_timeout(poll_ms)


def _open(page, lab, name: str, nb: dict) -> tuple[str, bl.KernelWire]:
    """Opens the copy of notebooks/<name> alone in JupyterLab; returns once its kernel is ours and idle."""
    rel = lab.rel(name)
    wire = bl.KernelWire([c.get("id") for c in nb["cells"]])
    wire.attach(page)
    page.goto(lab.url(rel))
    cells = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell")
    _wait(page, f"{name} to show its {len(nb['cells'])} cells", lambda: cells.count() == len(nb["cells"]), 90)
    dialog = page.locator(".jp-Dialog")
    assert not dialog.count(), f"a dialog opened with the notebook: {dialog.first.inner_text()[:300]}"
    shown = page.locator(bl.KERNEL_NAME_SELECTOR)

    def kernel_name() -> str:
        return shown.first.inner_text().strip() if shown.count() else "no kernel name"
    try:
        _wait(page, "the kernel name", lambda: kernel_name() == KERNEL_DISPLAY_NAME, 30)
    except AssertionError:
        raise AssertionError(f"the notebook's toolbar shows kernel {kernel_name()!r}, not {KERNEL_DISPLAY_NAME!r}")

    def kernel_ready():
        session = lab.session(rel)
        kernel = (session or {}).get("kernel") or {}
        return kernel.get("execution_state") == "idle" and wire.kernel_info and kernel
    kernel = _wait(page, "the kernel to start and the page to connect to it", kernel_ready, 120, 500)
    assert kernel["name"] == nb["metadata"]["kernelspec"]["name"] == "unpinned", kernel
    return rel, wire


def _code_indices(nb: dict) -> list[int]:
    return [i for i, c in enumerate(nb["cells"]) if c["cell_type"] == "code"]


def _source(nb: dict, i: int) -> str:
    src = nb["cells"][i]["source"]
    return "".join(src) if isinstance(src, list) else src


def _finished(page, wire: bl.KernelWire, code: list[int]):
    """Every code cell sent, answered and numbered, the kernel idle: the cells' DOM state, else None."""
    runs = [wire.run_of(i) for i in code]
    if wire.state != "idle" or not all(r and r.done for r in runs):
        return None
    now = bl.cells(page)
    if any(now[i]["prompt"] == "[*]:" for i in code):
        return None
    return now


def _shoot(page, name: str) -> Path:
    path = bl.SCREENSHOTS / f"{name}.png"
    bl.full_screenshot(page, path)
    return path


def _shoot_failure(page, name: str) -> None:
    """The page as it was when the test failed; never hides the failure itself."""
    try:
        _shoot(page, f"{name}-failure")
    except Exception as e:
        print(f"no failure screenshot for {name}: {e}")


def _forget_shots(name: str) -> None:
    for suffix in ("", "-failure"):
        (bl.SCREENSHOTS / f"{name}{suffix}.png").unlink(missing_ok=True)
    for old in bl.SCREENSHOTS.glob(f"{name}-flame-graph-*.png"):
        old.unlink()


def _flame_graph_cells(wire: bl.KernelWire, code: list[int]) -> list[int]:
    """The cells whose output the kernel sent as a flame graph (a chart whose record's title says so)."""
    def is_flame_graph(out: dict) -> bool:
        chart = (out.get("metadata") or {}).get(page_check.CHART_KEY) or {}
        return "image/png" in (out.get("data") or {}) and chart.get("title", "").startswith(FLAME_GRAPH)
    return [i for i in code if any(is_flame_graph(o) for o in wire.run_of(i).outputs)]


def _shoot_flame_graphs(page, name: str, cells: list[int]) -> tuple[list[Path], list[str]]:
    """Each flame graph as JupyterLab shows it, scrolled into view: loaded, full-sized, one screenshot each."""
    shots, problems = [], []
    size = page.viewport_size
    try:
        for k, i in enumerate(cells, 1):
            image = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell").nth(i) \
                .locator(".jp-OutputArea-output img").first
            loaded, natural, shown, tall = image.evaluate(
                "i => [i.complete, i.naturalWidth, i.getBoundingClientRect().width, i.getBoundingClientRect().height]")
            if not (loaded and natural >= 800 and shown >= 400):
                problems.append(f"cell {i}: the flame graph is not shown whole (loaded {loaded}, {natural} px drawn,"
                                f" {shown:.0f} px on the page)")
                continue
            # a window taller than the picture, so JupyterLab's toolbar and status bar cover none of it
            page.set_viewport_size({"width": size["width"], "height": max(size["height"], int(tall) + 300)})
            image.evaluate("i => i.scrollIntoView({block: 'center'})")
            page.wait_for_timeout(300)
            path = bl.SCREENSHOTS / f"{name.removesuffix('.ipynb')}-flame-graph-{k}.png"
            image.screenshot(path=str(path))
            shots.append(path)
    finally:
        page.set_viewport_size(size)
    return shots, problems


# ----------------------------------------------------------------------------- tests

@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_run_all_in_jupyterlab(path, lab, page):
    name = path.name
    nb = _read(lab, name)
    code = _code_indices(nb)
    charts = [i for i in code if "chart" in nb["cells"][i].get("metadata", {}).get("tags", [])]
    rel = None
    _forget_shots(name.removesuffix(".ipynb"))
    try:
        rel, wire = _open(page, lab, name, nb)
        start = time.monotonic()
        bl.run_all(page)
        dom = _wait(page, f"Run All of {name} to finish", lambda: _finished(page, wire, code), NOTEBOOK_TIMEOUT)
        seconds = time.monotonic() - start

        problems = []
        for i in code:
            run, cell = wire.run_of(i), dom[i]
            if not cell["prompt"].startswith("[") or not cell["prompt"][1:-2].isdigit():
                problems.append(f"cell {i}: not executed (prompt {cell['prompt']!r})")
            for error in run.errors:
                problems.append(f"cell {i}: error {error[:300]}")
            if run.status != "ok" and not run.errors:
                problems.append(f"cell {i}: execute_reply status {run.status!r}")
            for text in cell["stderr"]:
                if "Exception" in text:
                    problems.append(f"cell {i}: shows {text[:300]!r}")
        for i in charts:
            if dom[i]["images"] < 1:
                problems.append(f"cell {i}: tagged 'chart' but shows no image (kernel sent {sorted(wire.run_of(i).mimes)})")
        images = sum(dom[i]["images"] for i in code)
        if images < len(charts):
            problems.append(f"{images} images for {len(charts)} cells tagged 'chart'")
        # The page test on what JupyterLab received and drew (page.py): the same checks as the headless run's saved
        # notebooks, plus what only a browser sees: tables cut off at the page's edge, code that lost its layout.
        checked = page_check.PageCount()
        for i in code:
            tags = nb["cells"][i].get("metadata", {}).get("tags", [])
            checked.add(page_check.check_outputs(f"{name} cell {i} (browser)", wire.run_of(i).outputs, "raises" in tags))
            for wide in dom[i]["wideTables"]:
                checked.failures.append(f"{name} cell {i} (browser): a table is cut off at the page's edge: {wide}")
            if dom[i]["raggedCode"]:
                checked.failures.append(f"{name} cell {i} (browser): code side by side is not left-aligned and unwrapped")
        checked.failures += [f"{name} (browser): {p}" for p in page_check.disagreements(checked)]
        page_check.TOTAL.add_page(checked)
        problems += checked.failures
        flames, flame_problems = _shoot_flame_graphs(page, name, _flame_graph_cells(wire, code))
        problems += flame_problems
        shot = _shoot(page, name.removesuffix(".ipynb"))
        assert not problems, f"{name} in JupyterLab (screenshot {shot}):\n" + "\n".join(problems)
        report(f"browser: {name} ran in {seconds:.0f} s, {images} charts"
               + (f", {len(flames)} flame graphs shown ({', '.join(str(f.relative_to(HOME)) for f in flames)})"
                  if flames else ""))
    except BaseException:
        _shoot_failure(page, name.removesuffix(".ipynb"))
        raise
    finally:
        if rel:
            lab.shut_down_session(rel)


def test_stop_during_run_all_presents_no_stale_results(lab, page):
    """Stop (the toolbar's interrupt button) while Run All is in the first benchmark: the benchmark's JVMs end,
    and no later cell shows a table, chart or saved result from an earlier run."""
    if not (lab.notebooks / STOP_NOTEBOOK).exists():
        pytest.skip(f"no notebooks/{STOP_NOTEBOOK}")
    nb = _read(lab, STOP_NOTEBOOK)
    code = _code_indices(nb)
    long_cell = next((i for i in code if LONG_CELL in _source(nb, i)), None)
    assert long_cell is not None, f"no cell of {STOP_NOTEBOOK} contains {LONG_CELL}"
    later = [i for i in code if i > long_cell and any(k in _source(nb, i) for k in PRESENTING)]
    assert later, "no cell after the benchmark shows, charts or saves anything"
    shot_name = STOP_NOTEBOOK[:2] + "-stop-during-run-all"
    rel = None
    _forget_shots(shot_name)
    try:
        rel, wire = _open(page, lab, STOP_NOTEBOOK, nb)
        bl.run_all(page)

        def benchmark_running():
            run, cell = wire.run_of(long_cell), bl.cells(page)[long_cell]
            if not (run and run.started and not run.done and cell["prompt"] == "[*]:" and cell["outputs"] > 0):
                return None
            return bl.marked_processes(lab.run_id, SNIPPET)
        jvms = _wait(page, f"cell {long_cell} ({LONG_CELL}...) to run, print and start its JVM",
                     benchmark_running, 180, 500)
        jvm_pids = sorted(p.pid for p in jvms)
        page.locator(bl.INTERRUPT_SELECTOR).click()
        stopped = time.monotonic()
        dom = _wait(page, "the queue to drain after Stop", lambda: _finished(page, wire, code), NOTEBOOK_TIMEOUT)
        drained = time.monotonic() - stopped

        def jvms_gone():
            return not bl.marked_processes(lab.run_id, SNIPPET)
        try:
            _wait(page, "the benchmark JVMs to end", jvms_gone, 15, 500)
        except AssertionError:
            pass
        left = [(p.pid, " ".join(p.cmdline())[-160:]) for p in bl.marked_processes(lab.run_id, SNIPPET)]
        _shoot(page, shot_name)

        interrupted = wire.run_of(long_cell)
        assert interrupted.status != "ok" and interrupted.errors, \
            f"cell {long_cell} should end with an error after Stop: {interrupted}"
        assert "interrupted" in (" ".join(interrupted.errors) + dom[long_cell]["text"]).lower(), interrupted.errors
        assert not left, f"benchmark JVMs outlived Stop (they were {jvm_pids}): {left}"
        report(f"browser: Stop during Run All of {STOP_NOTEBOOK}: cell {long_cell} interrupted, its JVMs "
               f"{jvm_pids} ended, the queue drained in {drained:.0f} s")
        problems = []
        for i in later:
            run, cell = wire.run_of(i), dom[i]
            shown = " ".join(cell["stderr"])
            if REFUSAL not in shown:
                problems.append(f"cell {i}: no '{REFUSAL}' error; it shows {(shown or cell['text'])[:240]!r}"
                                f" (kernel errors {[e[:160] for e in run.errors]})")
            if cell["images"] or cell["tables"]:
                problems.append(f"cell {i}: shows {cell['images']} image(s), {cell['tables']} table(s) after Stop")
        refused = [i for i in code if i > long_cell and any(REFUSAL in e for e in wire.run_of(i).errors)]
        if problems:
            problems.append(f"(cells that did refuse: {refused or 'none'})")
        if any("NullPointerException" in p or "cannot find symbol" in p for p in problems):
            problems.append("(a NullPointerException or 'cannot find symbol' means the cell failed before it reached a"
                            " guarded helper: JShell re-declares a `var` whose initializer threw as null, and the"
                            " rest of a cell after a failing statement is never declared)")
        assert not problems, (f"after Stop in cell {long_cell}, later cells ({STOP_NOTEBOOK}, screenshot "
                              f"build/screenshots/{shot_name}.png):\n" + "\n".join(problems))
        report(f"browser: after Stop, all {len(later)} later cells that show, chart or save refused with"
               f" '{REFUSAL}'")
    except BaseException:
        _shoot_failure(page, shot_name)
        raise
    finally:
        if rel:
            lab.shut_down_session(rel)


def test_the_contents_link_lands_on_the_chapter_table(lab, page):
    """Every notebook's generated "Contents" link opens README.md rendered, scrolled to the chapter table."""
    page.goto(lab.url(lab.rel(NOTEBOOKS[-1].name)))
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=60_000)
    page.locator(".jp-RenderedMarkdown a", has_text="Contents").first.click()
    heading = page.locator(".jp-RenderedMarkdown h2", has_text="Chapters").first
    _wait(page, "README.md rendered at its chapter table", lambda: heading.is_visible() and heading.bounding_box()
          and 0 <= heading.bounding_box()["y"] <= page.viewport_size["height"] / 2, timeout=30)
    _shoot(page, "contents-link")
