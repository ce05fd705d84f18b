#!/usr/bin/env python3
"""The executed notebooks as a static HTML book and as reveal.js slides, both readable without network.

    python tools/book.py book [--fresh]      # build/book/index.html and one NN-title.html per chapter
    python tools/book.py slides [--fresh]    # build/slides/index.html and one NN-title.slides.html per chapter

Runs on the course venv's Python (nbconvert, nbclient); `make book` / `make slides` (tools/course.py) set up first.
The notebooks come from build/executed/, where the test run (tests/chapter_runs.py) leaves them: nothing runs a
second time. A chapter missing there, or left failed or half-run by an earlier run, and every chapter with --fresh,
is executed here once, headless, on the course kernel in the current profile (UNPINNED_PROFILE); a cell that fails
ends the build with one line, and build/book (or build/slides) is left as it was.

Every page is self-contained but for the slides' local copy of reveal.js: the charts are inline PNGs, the styles
inline, math ($...$) is converted to MathML (rendered by the browser), and no page loads a script, style sheet or
font from the network (checked after every build).
"""
from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

import course_base
import course_health
import course_nav
from book_render import render_book, render_slides
from book_render import coalesce_streams, for_the_audience, strip_rules, with_speaker_notes  # noqa: F401 (tests/test_book.py reads the pure functions as book.<name>)
from book_text import (BOOK, CELL_TIMEOUT, EXECUTED, NOTEBOOKS, PROGRESS_EVERY, SLIDES, BookError, _stdout,
                       machine_line)
from book_text import (charts, duration, external_refs, math_to_mathml, rewrite_links, run_span,  # noqa: F401
                       split_at_headings)

# ----------------------------------------------------------------------------- the executed notebooks

def chapters() -> list[Path]:
    return sorted(NOTEBOOKS.glob("[0-9][0-9]-*.ipynb"))


def _error_text(ename: str, evalue: str, limit: int = 240) -> str:
    """An error on one line: its name and message with the whitespace collapsed (a compile error a snippet printed
    under "its last lines:" included), cut to `limit` characters."""
    text = " ".join(f"{ename}: {evalue or ''}".split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def unusable(nb) -> str | None:
    """Why an executed notebook cannot go into the book (an error output, a cell that never ran), or None."""
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for out in cell.outputs:
            if out.output_type == "error":
                return f"cell {i}: {_error_text(out.ename, out.evalue)}"
        if cell.source.strip() and cell.get("execution_count") is None:
            return f"cell {i} never ran"
    return None


def _comparable(nb) -> list[tuple[str, str]]:
    return [(c.cell_type, c.source) for c in nb.cells if c.get("id") not in (course_nav.NAV_TOP, course_nav.NAV_BOTTOM)]


def execute(source: Path):
    """Runs notebooks/<name> once, headless, top to bottom on the course kernel; returns it executed, or raises
    BookError naming the failing cell. Nothing is saved on failure."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(source, as_version=4)
    client = NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name=course_base.KERNEL_NAME, allow_errors=False,
                            interrupt_on_timeout=True, resources={"metadata": {"path": str(source.parent)}})
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    start = last = time.monotonic()
    course_base.say(f"executing {source.name} ({len(code)} code cells, profile {course_base.profile()})")
    index = -1
    try:
        with client.setup_kernel(env=kernel_env()):
            try:
                for done, index in enumerate(code, 1):
                    client.execute_cell(nb.cells[index], index)
                    if time.monotonic() - last >= PROGRESS_EVERY:
                        last = time.monotonic()
                        course_base.say(f"  ... {source.name}: {done}/{len(code)} cells, {last - start:.0f} s")
            except KeyboardInterrupt:
                end_kernel(client)  # before nbclient's polite shutdown, which waits on a kernel busy in a cell
                raise
    except KeyboardInterrupt:
        if client.km is not None:
            end_kernel(client)  # interrupted while the kernel was starting
        raise
    except CellExecutionError as e:
        raise BookError(f"{source.name}: cell {index} failed: {_error_text(e.ename, e.evalue)}; nothing was"
                        " built (run the chapter in JupyterLab, make lab, to see the whole error)") from None
    except Exception as e:
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        raise BookError(f"{source.name}: execution stopped at cell {index} ({type(e).__name__}: {first[:200]})") \
            from None
    missing = [i for i in code if "chart" in nb.cells[i].metadata.get("tags", [])
               and not any("image/png" in o.get("data", {}) for o in nb.cells[i].outputs)]
    if missing:
        raise BookError(f"{source.name}: cell {missing[0]} is tagged 'chart' but drew no image")
    course_base.say(f"  {source.name}: executed in {time.monotonic() - start:.0f} s")
    return nb


# The kernel's JVM runs this first: it ends itself within a second of this build's end, however that ended (SIGKILL
# too, where no handler here runs), and so do the JVMs it started, which watch it in turn.
WATCH_THIS_BUILD = 'unpinned.core.Profile.endWithParent("the course kernel of make book");'


def kernel_env() -> dict:
    """The environment of the kernel this build starts: this process named as its parent, and the watch above."""
    return {**os.environ, "UNPINNED_PARENT_PID": str(os.getpid()), "JJAVA_STARTUP_SCRIPT": WATCH_THIS_BUILD}


# A terminal that closes (SIGHUP), a CI timeout or `kill` (SIGTERM) end the build as Ctrl-C does: the kernel leads a
# session of its own, so no signal to this process group reaches it; this build must end it.
STOP_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")


class Stopped(KeyboardInterrupt):
    """The build was told to stop by `signum`; later stop signals are ignored while the kernel ends."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _stop(signum, frame) -> None:
    for name in STOP_SIGNALS:
        signal.signal(getattr(signal, name), signal.SIG_IGN)
    raise Stopped(signum)


def end_kernel(client) -> None:
    """Ends the kernel of `client` now, with every process it started (the JJava launcher, the kernel's JVM, a
    snippet's JVM it runs): SIGTERM (their shutdown hooks stop servers and databases), SIGKILL after 5 s. A Ctrl-C
    never reaches them: the kernel leads a session of its own. A second stop signal meanwhile is ignored."""
    import psutil
    pid = getattr(getattr(client.km, "provisioner", None), "pid", None)
    if pid is None:
        return
    previous = {name: signal.signal(getattr(signal, name), signal.SIG_IGN) for name in STOP_SIGNALS}
    try:
        try:
            kernel = psutil.Process(pid)
            tree = [kernel, *kernel.children(recursive=True)]
        except psutil.Error:
            return
        course_health.end_processes(tree)
    finally:
        for name, handler in previous.items():
            signal.signal(getattr(signal, name), handler)


def executed_notebooks(fresh: bool) -> tuple[list, list[str]]:
    """Every chapter, executed: (notebooks in chapter order, names of those executed now). Uses build/executed/
    (the test run's) where it can; executes the rest, saving each into build/executed/ only when it succeeded."""
    import nbformat

    sources = chapters()
    if not sources:
        raise BookError(f"no notebooks in {NOTEBOOKS}")
    books, ran, older, other_profile = [], [], [], []
    wanted = course_base.profile()
    for source in sources:
        kept = EXECUTED / source.name
        nb, why = None, "--fresh" if fresh else "not executed yet"
        if kept.is_file() and not fresh:
            try:
                nb = nbformat.read(kept, as_version=4)
                problem = unusable(nb)
            except Exception as e:
                problem = f"unreadable: {e}"
            if problem:
                why, nb = f"the copy in build/executed is from a failed run ({problem})", None
        if nb is None:
            course_base.say(f"{source.name}: {why}; executing it now")
            nb = execute(source)
            EXECUTED.mkdir(parents=True, exist_ok=True)
            nbformat.write(nb, kept)
            ran.append(source.name)
        else:
            if _comparable(nb) != _comparable(nbformat.read(source, as_version=4)):
                older.append(source.name[:2])
            _, profile = machine_line(_stdout(nb))
            if profile and profile != wanted:
                other_profile.append(f"{source.name[:2]} ({profile})")
        books.append((source, nb))
    if older:
        course_base.warn(f"build/executed holds runs of older versions of chapters {', '.join(older)}; the pages show"
                         " those runs (FRESH=1, e.g. make book FRESH=1, runs every chapter again)")
    if other_profile:
        course_base.warn(f"chapters {', '.join(other_profile)} ran in another profile than {wanted}; each page says"
                         f" which (FRESH=1 PROFILE={wanted}, e.g. make book FRESH=1 PROFILE={wanted}, runs every chapter in"
                         f" {wanted})")
    return books, ran


# ----------------------------------------------------------------------------- command line

def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("book", "slides") or set(argv[1:]) - {"--fresh"}:
        print(__doc__)
        return 2
    kind, fresh = argv[0], "--fresh" in argv[1:]
    start = time.monotonic()
    previous = {name: signal.signal(getattr(signal, name), _stop) for name in STOP_SIGNALS}
    try:
        return build(kind, fresh, start)
    except KeyboardInterrupt as e:
        signum = getattr(e, "signum", signal.SIGINT)
        said = "interrupted" if signum == signal.SIGINT else f"stopped by {signal.Signals(signum).name}"
        print(f"[unpinned] {said}; the kernel and the JVMs it started are stopped, build/book and build/slides"
              " are as they were", file=sys.stderr)
        return 128 + signum
    finally:
        for name, handler in previous.items():  # a caller in this process (a test) gets its own handlers back
            signal.signal(getattr(signal, name), handler)


def build(kind: str, fresh: bool, start: float) -> int:
    try:
        books, ran = executed_notebooks(fresh)
        built = time.monotonic()
        made = render_book(books, ran) if kind == "book" else render_slides(books, ran)
    except (BookError, course_base.SetupError) as e:
        print(f"[unpinned] error: {e}", file=sys.stderr)
        return 1
    where = BOOK if kind == "book" else SLIDES
    source = ("from the test run's notebooks" if not ran else
              f"after executing {len(ran)} of {len(books)} chapters in {built - start:.0f} s")
    extra = f", {made['slides']} slides" if kind == "slides" else ""
    course_base.say(f"{kind}: {made['chapters']} chapters, {made['charts']} charts{extra}, built in"
                    f" {time.monotonic() - built:.0f} s {source}; open build/{where.name}/index.html")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
