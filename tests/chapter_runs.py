"""Each chapter executed once per test session, as a learner runs it: Run ▸ Run All Cells in JupyterLab in a real
browser (browser_lab: Debian's Chromium driven by Playwright), the executed notebook saved to build/executed/<name>
with what the page received from the kernel. The book and the slides (test_book.py, tools/book.py), the page test
(test_page.py), the claims (test_claims.py), the pitfalls drawn (test_path.py) and the physics tests
(test_notebooks.py) read it there; test_browser.py reports each run.

Whoever asks for a chapter first runs it, through the session's `chapters` fixture (conftest.py), so no test depends
on the order of the files, and `-k 05` runs chapter 05 alone; a chapter that failed fails every later asker with the
same line naming the chapter and its cells. Without Chromium or Playwright (a machine where neither can be
installed), if the browser cannot start, or with UNPINNED_CHAPTERS_HEADLESS set, the chapters run headless on
nbclient instead, once each as well, and the summary says so.

One chapter runs twice in one kernel: SECOND_RUN, and ChapterRuns says why.
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import pytest

import browser_lab as bl
import page as page_check
from conftest import CHAPTER_FIRST_RUN, HOME, KERNEL_NAME, checkout_processes, report

NOTEBOOKS = sorted((HOME / "notebooks").glob("[0-9][0-9]-*.ipynb"))  # index.ipynb is text only
EXECUTED = HOME / "build" / "executed"
# A hang guard, not a speed target (the `chapters:` line shows the times): the quick profile promises 2 minutes on
# 2 cores, and a busy machine may take several times that without anything being wrong.
RUN_ALL_TIMEOUT = 900
CELL_TIMEOUT = 600  # headless: per cell
# Run twice in one kernel (ChapterRuns says why): a second run reuses what the first started, so more live threads
# after it than after the first were left behind.
SECOND_RUN = {"09-seminar-in-45-minutes.ipynb"}
THREAD_GROWTH_ALLOWED = 2
# Any of this checkout's course JVMs still alive after a chapter is a leak: servers, load generators, benchmarks. A
# snippet's JVM names its main class (unpinned.snippets.S04_SleepServer); JBang's launcher names the file.
SNIPPET_JVMS = ("unpinned.snippets.S", "snippets/S")
JVM_SETTLE_SECONDS = 10  # a server asked to stop in a cell's finally may take a moment to exit
# Set (to anything) to run the chapters on nbclient even where a browser could run them (Run All's test skips; the
# Stop test and the book's offline checks still use the browser).
HEADLESS_ENV = "UNPINNED_CHAPTERS_HEADLESS"
FLAME_GRAPH = "Flame graph"  # ProfilingRuns.FLAME_GRAPH: the title every flame graph starts with


@dataclass
class ChapterRun:
    """One chapter's execution: how, how long, what it showed, and what went wrong (empty when nothing did)."""
    name: str
    how: str                      # "browser" or "headless"
    seconds: float = float("nan")  # the first Run All, from the click to the last answer
    runs: int = 0                 # whole executions of the chapter in this session
    images: int = 0
    charts: int = 0
    problems: list = field(default_factory=list)
    threads: list = field(default_factory=list)  # the kernel's live threads after each run (SECOND_RUN only)
    screenshot: Path | None = None
    flame_graphs: list = field(default_factory=list)  # each flame graph as the page shows it (browser only)


class ChapterRuns:
    """The session's chapter executions (the `chapters` fixture), with the browser and JupyterLab they run in.

    Each chapter is executed once, except the seminar (SECOND_RUN: chapter 09), which Run All runs a second time in
    the same kernel: the check that its kernel's live threads do not grow needs two runs in one kernel, and no other
    test does. The seminar is the chapter a presenter re-runs in one kernel (a rehearsal, then the talk), and its
    cells go through every part of the helpers that starts threads in the kernel (child JVMs and their output pumps,
    JMH runs with live charts, the JDK 21 side-by-side runs, the scheduler runs); the other chapters' leftovers would
    be child JVMs, which are checked after every chapter. counts() says how many times each chapter ran.

    Not counted as executions: the Stop test (test_browser.py) interrupts chapter 01 in its first benchmark, and the
    interrupt and live-chart tests (test_notebooks.py, test_live.py) run a few cells of their own in fresh kernels."""

    def __init__(self, tmp_path_factory):
        self._tmp = tmp_path_factory
        self._runs: dict[str, ChapterRun] = {}
        self._failed: dict[str, str] = {}
        self._playwright_cm = None
        self._browser = None
        self._browser_reason: str | None = None
        self._lab: bl.Lab | None = None
        self._how: str | None = None

    # -------------------------------------------------------------------- the browser and the server, started once

    def browser(self):
        """The session's headless Chromium (one for every test that needs a browser), or None; see why_no_browser."""
        if self._browser is None and self._browser_reason is None:
            reason = bl.ensure_playwright()
            path = None
            if not reason:
                path, reason = bl.ensure_chromium()
            if reason:
                self._browser_reason = reason
                return None
            cm = bl.launched_chromium(path)
            try:
                self._browser = cm.__enter__()
            except (Exception, pytest.fail.Exception) as e:  # it would fail the asking test; the chapters still run, headless
                self._browser_reason = f"Chromium did not start: {str(e).splitlines()[0] if str(e) else type(e).__name__}"
                return None
            self._playwright_cm = cm
        return self._browser

    @property
    def why_no_browser(self) -> str | None:
        return self._browser_reason

    def lab(self) -> bl.Lab:
        if self._lab is None:
            lab = bl.Lab(self._tmp.mktemp("jupyterlab"))
            lab.start()
            self._lab = lab
        return self._lab

    def close(self) -> None:
        try:
            if self._lab is not None:
                self._lab.stop()
        finally:
            self._lab = None
            if self._playwright_cm is not None:
                cm, self._playwright_cm, self._browser = self._playwright_cm, None, None
                cm.__exit__(None, None, None)

    # -------------------------------------------------------------------- the chapters

    @property
    def how(self) -> str:
        """How the chapters ran: "browser", or "headless: why there was no browser"."""
        return self._how or "not yet"

    def counts(self) -> dict[str, int]:
        """Whole executions per chapter so far."""
        return {name: run.runs for name, run in self._runs.items()}

    def executed(self, name: str) -> ChapterRun:
        """notebooks/<name> executed in this session (now, if nobody asked before), saved in build/executed/; fails
        naming the chapter and its cells if that execution failed."""
        if name in self._failed:
            pytest.fail(f"{name} failed earlier in this session: {self._failed[name]}", pytrace=False)
        if name not in self._runs:
            run = self._execute(name)
            self._runs[name] = run
            CHAPTER_FIRST_RUN[name[:2]] = run.seconds
            if not run.problems:
                report(describe(run))
            if run.problems:
                self._failed[name] = "; ".join(run.problems)[:2000]
                pytest.fail(f"{name} ({run.how}" + (f", screenshot {run.screenshot}" if run.screenshot else "")
                            + "):\n" + "\n".join(run.problems), pytrace=False)
        return self._runs[name]

    def _execute(self, name: str) -> ChapterRun:
        if self._how is None:
            if os.environ.get(HEADLESS_ENV):
                self._how = f"headless: {HEADLESS_ENV} is set"
            else:
                self._how = "browser" if self.browser() is not None else f"headless: {self.why_no_browser}"
        in_browser = self._how == "browser"
        try:
            if in_browser:
                return self._in_browser(name)
            return self._headless(name)
        except Exception as e:  # the browser or the server broke, not the chapter: still one line naming it
            run = ChapterRun(name, "browser" if in_browser else "headless")
            run.problems.append(f"{type(e).__name__}: {str(e)[:1500]}")
            return run

    def _in_browser(self, name: str) -> ChapterRun:
        lab = self.lab()
        nb = json.loads((lab.notebooks / name).read_text())
        code = bl.code_indices(nb)
        chart_cells = [i for i in code if "chart" in nb["cells"][i].get("metadata", {}).get("tags", [])]
        run = ChapterRun(name, "browser", charts=len(chart_cells))
        shot = name.removesuffix(".ipynb")
        bl.forget_shots(shot)
        context = self._browser.new_context(viewport={"width": 1400, "height": 900})
        context.set_default_timeout(30_000)
        page = context.new_page()
        rel = None
        try:
            rel, wire = bl.open_notebook(page, lab, name, nb)
            start = time.monotonic()
            bl.run_all(page)
            dom = bl.wait(page, f"Run All of {name} to finish", lambda: bl.finished(page, wire, code), RUN_ALL_TIMEOUT)
            run.seconds = time.monotonic() - start
            run.runs = 1
            run.problems += _browser_problems(name, nb, code, chart_cells, wire, dom)
            run.images = sum(dom[i]["images"] for i in code)
            _save(name, {i: wire.run_of(i) for i in code})
            run.problems += _jvms_left(name, lambda: bl.marked_processes(lab.run_id))
            run.flame_graphs, flame_problems = _shoot_flame_graphs(page, name, _flame_graph_cells(wire, code))
            run.problems += flame_problems
            run.screenshot = bl.shoot(page, shot)
            if name in SECOND_RUN and not run.problems:
                run.threads.append(bl.kernel_threads(lab, rel))
                wire.cells.clear()  # the second Run All's answers only
                bl.run_all(page)
                bl.wait(page, f"the second Run All of {name} to finish", lambda: bl.finished(page, wire, code),
                        RUN_ALL_TIMEOUT)
                run.runs = 2
                again = [f"{name}, run 2 in the same kernel: cell {i}: {e[:300]}"
                         for i in code for e in wire.run_of(i).errors]
                run.problems += again
                run.threads.append(bl.kernel_threads(lab, rel))
                if run.threads[1] > run.threads[0] + THREAD_GROWTH_ALLOWED:
                    run.problems.append(f"{name}: the kernel's live threads grew from {run.threads[0]} to"
                                        f" {run.threads[1]} in a second run in the same kernel")
                run.problems += _jvms_left(f"{name}, run 2", lambda: bl.marked_processes(lab.run_id))
        except Exception as e:  # a timeout, or the page or the kernel gone: one line naming the chapter
            what = "" if isinstance(e, AssertionError) else f"{type(e).__name__}: "
            run.problems.append(f"{name}: {what}{str(e)[:1500]}")
        finally:
            if run.problems:
                bl.shoot_failure(page, shot)
            if rel:
                lab.shut_down_session(rel)
            context.close()
        return run

    def _headless(self, name: str) -> ChapterRun:
        from nbclient import NotebookClient

        path = HOME / "notebooks" / name
        nb = nbformat.read(path, as_version=4)
        assert nb.metadata["kernelspec"]["name"] == KERNEL_NAME
        run = ChapterRun(name, "headless")
        client = NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name=KERNEL_NAME, allow_errors=True,
                                interrupt_on_timeout=True, resources={"metadata": {"path": str(path.parent)}})
        with client.setup_kernel():
            start = time.monotonic()
            for index, cell in enumerate(nb.cells):
                client.execute_cell(cell, index)
            run.seconds = time.monotonic() - start
            run.runs = 1
            EXECUTED.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, EXECUTED / name)  # the first run's page, failed or not (kept for reviewers)
            run.problems += _headless_problems(name, nb, run)
            run.problems += _jvms_left(name, lambda: checkout_processes(*SNIPPET_JVMS))
            if name in SECOND_RUN and not run.problems:
                run.threads.append(_headless_threads(client))
                again = nbformat.read(path, as_version=4)
                client.nb = again
                for index, cell in enumerate(again.cells):
                    client.execute_cell(cell, index)
                run.runs = 2
                run.problems += [f"{name}, run 2 in the same kernel: {p}"
                                 for p in _headless_problems(name, again, ChapterRun(name, "headless"))]
                run.threads.append(_headless_threads(client))
                if run.threads[1] > run.threads[0] + THREAD_GROWTH_ALLOWED:
                    run.problems.append(f"{name}: the kernel's live threads grew from {run.threads[0]} to"
                                        f" {run.threads[1]} in a second run in the same kernel")
                run.problems += _jvms_left(f"{name}, run 2", lambda: checkout_processes(*SNIPPET_JVMS))
        return run


def describe(run: ChapterRun) -> str:
    """One chapter's execution in one line of the summary."""
    again = (f"; run 2 in the same kernel: live threads {run.threads[0]} -> {run.threads[1]}"
             if len(run.threads) == 2 else "")
    flames = (f", {len(run.flame_graphs)} flame graphs shown"
              f" ({', '.join(str(f.relative_to(HOME)) for f in run.flame_graphs)})" if run.flame_graphs else "")
    return (f"{run.name}: Run All in {run.seconds:.0f} s ({run.how}), {run.images} charts{flames}{again}"
            f" (target: < 120 s, chapter 00's promise)")


def _headless_problems(name: str, nb, run: ChapterRun) -> list[str]:
    """Error outputs, exceptions printed to stderr, and chart cells that drew nothing; counts the run's images."""
    problems = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        tags = cell.metadata.get("tags", [])
        for out in cell.outputs:
            if out.output_type == "error" and "raises" not in tags:
                problems.append(f"{name} cell {i}: error {out.ename}: {str(out.evalue)[:300]}")
            elif out.output_type == "stream" and out.name == "stderr" and "Exception" in out.text:
                problems.append(f"{name} cell {i}: stderr: {out.text[:300]}")
        images = sum("image/png" in o.get("data", {}) for o in cell.outputs)
        run.images += images
        if "chart" in tags:
            run.charts += 1
            if not images:
                problems.append(f"{name} cell {i}: tagged 'chart' but drew no image")
    return problems


def _headless_threads(client) -> int:
    """The kernel JVM's live threads, asked in a cell that is not part of the notebook (nbclient stores the cell it
    ran at the index it is given: the notebook's first cell is put back, or the executed copy, and the book made
    from it, would show the probe instead)."""
    probe = nbformat.v4.new_code_cell("Thread.getAllStackTraces().size()")
    first = client.nb.cells[0]
    try:
        client.execute_cell(probe, 0)
    finally:
        client.nb.cells[0] = first
    return int(next(o for o in probe.outputs if o.output_type == "execute_result")["data"]["text/plain"])


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
                problems.append(f"{name} cell {i}: the flame graph is not shown whole (loaded {loaded}, {natural} px"
                                f" drawn, {shown:.0f} px on the page)")
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


def _browser_problems(name: str, nb: dict, code: list[int], chart_cells: list[int], wire: bl.KernelWire,
                      dom: list[dict]) -> list[str]:
    """What the kernel said went wrong and what the page shows wrong, cell by cell. What the outputs show (charts,
    tables, outcome sentences) is the page test's, on the saved notebook (test_page.py)."""
    problems = []
    for i in code:
        run, cell = wire.run_of(i), dom[i]
        tags = nb["cells"][i].get("metadata", {}).get("tags", [])
        if not cell["prompt"].startswith("[") or not cell["prompt"][1:-2].isdigit():
            problems.append(f"{name} cell {i}: not executed (prompt {cell['prompt']!r})")
        if "raises" not in tags:
            for error in run.errors:
                problems.append(f"{name} cell {i}: error {error[:300]}")
            if run.status != "ok" and not run.errors:
                problems.append(f"{name} cell {i}: execute_reply status {run.status!r}")
            for text in cell["stderr"]:
                if "Exception" in text:
                    problems.append(f"{name} cell {i}: shows {text[:300]!r}")
        for wide in cell["wideTables"]:
            problems.append(f"{name} cell {i}: a table is cut off at the page's edge: {wide}")
        if cell["raggedCode"]:
            problems.append(f"{name} cell {i}: code side by side is not left-aligned and unwrapped")
    for i in chart_cells:
        if dom[i]["images"] < 1:
            problems.append(f"{name} cell {i}: tagged 'chart' but shows no image (kernel sent"
                            f" {sorted(wire.run_of(i).mimes)})")
    images = sum(dom[i]["images"] for i in code)
    if images < len(chart_cells):
        problems.append(f"{name}: {images} images for {len(chart_cells)} cells tagged 'chart'")
    return problems


def _jvms_left(what: str, processes) -> list[str]:
    deadline = time.monotonic() + JVM_SETTLE_SECONDS
    left = []
    while True:
        left = [p for p in processes() if _is_snippet_jvm(p)]
        if not left or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    return [f"{what} left course JVMs running: {[' '.join(p.cmdline())[-160:] for p in left]}"] if left else []


def _is_snippet_jvm(p) -> bool:
    try:
        line = " ".join(p.cmdline())
    except Exception:
        return False
    return any(n in line for n in SNIPPET_JVMS)


def _save(name: str, runs: dict) -> Path:
    """notebooks/<name> with what the page received for each code cell (its outputs, display updates applied, its
    execution count and times), written to build/executed/<name>, failed or not (kept for reviewers)."""
    nb = nbformat.read(HOME / "notebooks" / name, as_version=4)
    for i, cell in enumerate(nb.cells):
        run = runs.get(i)
        if cell.cell_type != "code" or run is None:
            continue
        cell.execution_count = run.count if run.started else None
        cell.outputs = [nbformat.from_dict(o) for o in saved_outputs(run.outputs, run.count)]
        if run.input_at and run.reply_at:
            cell.metadata["execution"] = {"iopub.execute_input": run.input_at, "shell.execute_reply": run.reply_at}
    nbformat.validate(nb)
    EXECUTED.mkdir(parents=True, exist_ok=True)
    target = EXECUTED / name
    partial = target.with_suffix(".ipynb.part")
    nbformat.write(nb, partial)
    partial.replace(target)
    return target


def saved_outputs(outputs: list[dict], count: int | None) -> list[dict]:
    """The outputs the page received, as nbformat saves them: consecutive text on one stream joined into one output
    (as nbclient and JupyterLab do), an execute_result numbered, no display ids."""
    saved: list[dict] = []
    for out in outputs:
        kind = out["output_type"]
        if kind == "stream":
            if saved and saved[-1]["output_type"] == "stream" and saved[-1]["name"] == out["name"]:
                saved[-1]["text"] += out.get("text") or ""
            else:
                saved.append({"output_type": "stream", "name": out["name"], "text": out.get("text") or ""})
        elif kind == "error":
            saved.append({"output_type": "error", "ename": out.get("ename") or "", "evalue": out.get("evalue") or "",
                          "traceback": list(out.get("traceback") or [])})
        else:
            o = {"output_type": kind, "data": dict(out.get("data") or {}), "metadata": dict(out.get("metadata") or {})}
            if kind == "execute_result":
                o["execution_count"] = count
            saved.append(o)
    return saved

