"""The notebooks as a learner meets them: JupyterLab in a real browser (Debian's Chromium, driven by Playwright),
Run ▸ Run All Cells on each chapter, and Stop in the middle of a Run All.

Each chapter's Run All is the session's one execution of it (tests/chapter_runs.py): the executed notebook is saved
to build/executed/ for the book, the slides, the page test, the claims and the physics tests. It installs what it
needs where it can (Chromium through apt-get as root; the pinned `playwright` is in requirements.txt), and skips with
a one-line reason where it can't. The repo's notebooks are never saved: the server runs on copies under
build/browser/<run>/notebooks/ with autosave off. Screenshots go to build/screenshots/ (<notebook>.png,
<notebook>-flame-graph-N.png, and <notebook>-failure.png taken when a chapter fails)."""
from __future__ import annotations

import json
import time

import pytest

import browser_lab as bl
from chapter_runs import NOTEBOOKS
from conftest import report

STOP_NOTEBOOK = "01-thread-per-request-and-pools.ipynb"
LONG_CELL = 'ExecutorBatches.io('  # S01 under JMH, through its typed wrapper
SNIPPET = "S01_IoBoundExecutors"
PRESENTING = ("Tables.html", "Charts.", "Results.save")
REFUSAL = "re-run the measurement above"
STOP_DRAIN_TIMEOUT = 240     # s, the rest of chapter 01's queue after Stop


# ----------------------------------------------------------------------------- fixtures

@pytest.fixture(scope="module")
def browser(chapters):
    """The session's one Chromium (shared with the chapters' runs and the book's offline checks)."""
    b = chapters.browser()
    if b is None:
        pytest.skip(chapters.why_no_browser)
    return b


@pytest.fixture(scope="module")
def lab(browser, chapters):
    return chapters.lab()


@pytest.fixture
def page(browser):
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.set_default_timeout(30_000)
    try:
        yield context.new_page()
    finally:
        context.close()


def _read(lab, name: str) -> dict:
    return json.loads((lab.notebooks / name).read_text())


# ----------------------------------------------------------------------------- tests

@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_run_all_in_jupyterlab(path, browser, chapters):
    """Run All of the chapter, as a learner does it (tests/chapter_runs.py): no error, every cell numbered, every
    chart cell shows an image, each flame graph shown whole, no table cut off and no code side by side out of line,
    and no course JVM left running afterwards; the seminar (chapter_runs.SECOND_RUN) also runs a second time in the
    same kernel and keeps its live threads. What the outputs say is the page test's, on the saved notebook."""
    run = chapters.executed(path.name)
    if run.how != "browser":
        pytest.skip(f"the chapters ran {chapters.how}")


def test_stop_during_run_all_presents_no_stale_results(lab, page):
    """Stop (the toolbar's interrupt button) while Run All is in the first benchmark: the benchmark's JVMs end,
    and no later cell shows a table, chart or saved result from an earlier run."""
    if not (lab.notebooks / STOP_NOTEBOOK).exists():
        pytest.skip(f"no notebooks/{STOP_NOTEBOOK}")
    nb = _read(lab, STOP_NOTEBOOK)
    code = bl.code_indices(nb)
    long_cell = next((i for i in code if LONG_CELL in bl.source(nb, i)), None)
    assert long_cell is not None, f"no cell of {STOP_NOTEBOOK} contains {LONG_CELL}"
    later = [i for i in code if i > long_cell and any(k in bl.source(nb, i) for k in PRESENTING)]
    assert later, "no cell after the benchmark shows, charts or saves anything"
    shot_name = STOP_NOTEBOOK[:2] + "-stop-during-run-all"
    rel = None
    bl.forget_shots(shot_name)
    try:
        rel, wire = bl.open_notebook(page, lab, STOP_NOTEBOOK, nb)
        bl.run_all(page)

        def benchmark_running():
            run, cell = wire.run_of(long_cell), bl.cells(page)[long_cell]
            if not (run and run.started and not run.done and cell["prompt"] == "[*]:" and cell["outputs"] > 0):
                return None
            return bl.marked_processes(lab.run_id, SNIPPET)
        jvms = bl.wait(page, f"cell {long_cell} ({LONG_CELL}...) to run, print and start its JVM",
                     benchmark_running, 180, 500)
        jvm_pids = sorted(p.pid for p in jvms)
        page.locator(bl.INTERRUPT_SELECTOR).click()
        stopped = time.monotonic()
        dom = bl.wait(page, "the queue to drain after Stop", lambda: bl.finished(page, wire, code), STOP_DRAIN_TIMEOUT)
        drained = time.monotonic() - stopped

        def jvms_gone():
            return not bl.marked_processes(lab.run_id, SNIPPET)
        try:
            bl.wait(page, "the benchmark JVMs to end", jvms_gone, 15, 500)
        except AssertionError:
            pass
        left = [(p.pid, " ".join(p.cmdline())[-160:]) for p in bl.marked_processes(lab.run_id, SNIPPET)]
        bl.shoot(page, shot_name)

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
        bl.shoot_failure(page, shot_name)
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
    bl.wait(page, "README.md rendered at its chapter table", lambda: heading.is_visible() and heading.bounding_box()
          and 0 <= heading.bounding_box()["y"] <= page.viewport_size["height"] / 2, timeout=30)
    bl.shoot(page, "contents-link")
