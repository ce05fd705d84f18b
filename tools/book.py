#!/usr/bin/env python3
"""The executed notebooks as a static HTML book and as reveal.js slides, both readable without network.

    python tools/book.py book [--fresh]      # build/book/index.html and one NN-title.html per chapter
    python tools/book.py slides [--fresh]    # build/slides/index.html and one NN-title.slides.html per chapter

Runs on the course venv's Python (nbconvert, nbclient); `make book` / `make slides` (tools/course.py) set up first.
The notebooks come from build/executed/, where the test run (tests/test_notebooks.py) leaves them: nothing runs a
second time. A chapter missing there, or left failed or half-run by an earlier run, and every chapter with --fresh,
is executed here once, headless, on the course kernel in the current profile (UNPINNED_PROFILE); a cell that fails
ends the build with one line, and build/book (or build/slides) is left as it was.

Every page is self-contained but for the slides' local copy of reveal.js: the charts are inline PNGs, the styles
inline, math ($...$) is converted to MathML (rendered by the browser), and no page loads a script, style sheet or
font from the network (checked after every build).
"""
from __future__ import annotations

import copy
import datetime as dt
import html
import re
import shutil
import sys
import time
from pathlib import Path

import course

HOME = course.HOME
NOTEBOOKS = HOME / "notebooks"
EXECUTED = HOME / "build" / "executed"
BOOK = HOME / "build" / "book"
SLIDES = HOME / "build" / "slides"
TEMPLATES = HOME / "tools" / "nbtemplates"
CELL_TIMEOUT = 600   # s, as tests/test_notebooks.py
PROGRESS_EVERY = 20  # s between progress lines while a chapter executes
REVEAL_FILES = ("LICENSE", "dist/reveal.css", "dist/reveal.js", "dist/theme/white.css",
                "dist/theme/fonts/source-sans-pro", "plugin/notes/notes.js")
COURSE_TITLE = "unpinned: Java virtual threads, measured"


class BookError(Exception):
    """Why the book or the slides could not be built; one line for the learner."""


# ----------------------------------------------------------------------------- pure functions (unit-tested)

_LINK_START = r"(?P<pre>\]\(\s*<?|href=[\"'])"
_ANCHOR = r"(?P<anchor>#[^)\s\"'>]*)?"
_CHAPTER_LINK = re.compile(_LINK_START + r"(?P<name>\d\d-[A-Za-z0-9_-]+|index)\.ipynb" + _ANCHOR)
_README_LINK = re.compile(_LINK_START + r"\.\./README\.md" + _ANCHOR)
_UP_LINK = re.compile(_LINK_START + r"\.\./(?!\.\./)")


def rewrite_links(text: str, suffix: str = ".html") -> str:
    """Links as the notebooks write them (relative to notebooks/), rewritten for a page in build/book/ (suffix
    .html) or build/slides/ (.slides.html): `NN-x.ipynb#a` -> `NN-x.html#a`; `index.ipynb` (the notebooks'
    index) and `../README.md` -> `index.html`, the landing page (`../README.md#chapters`, the generated "Contents"
    link, -> `index.html#chapters`, its table); any other
    `../path` -> `../../path`, the file in the checkout the book was built in."""
    text = _CHAPTER_LINK.sub(lambda m: m["pre"] + (f"{m['name']}{suffix}{m['anchor'] or ''}" if m["name"] != "index"
                                                  else "index.html"), text)
    text = _README_LINK.sub(lambda m: m["pre"] + ("index.html#chapters" if m["anchor"] == "#chapters"
                                                 else "index.html"), text)
    return _UP_LINK.sub(lambda m: m["pre"] + "../../", text)


_MACHINE = re.compile(r"^Machine: (?P<machine>.+?)(?:, profile (?P<profile>\w+))?\s*$", re.M)
_PROFILE = re.compile(r"^Profile: (?P<profile>\w+)", re.M)


def _stdout(nb) -> str:
    return "".join(out.get("text", "") for cell in nb["cells"] if cell["cell_type"] == "code"
                   for out in cell.get("outputs", []) if out.get("output_type") == "stream"
                   and out.get("name") == "stdout")


def machine_line(text: str) -> tuple[str | None, str | None]:
    """(machine, profile) from what a notebook's set-up cell printed (Course.setup(): "Profile: quick (...)" and
    "Machine: JDK 25.0.3+9-LTS, 2 cores (AMD EPYC), Linux 6.8 amd64, profile quick"); None where it is missing."""
    m = _MACHINE.search(text)
    p = _PROFILE.search(text)
    machine = m["machine"].strip() if m else None
    profile = p["profile"] if p else (m["profile"] if m and m["profile"] else None)
    return machine, profile


def _when(stamp: str | None) -> dt.datetime | None:
    if not stamp:
        return None
    try:
        return dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return None


def run_span(nb) -> tuple[dt.datetime | None, float | None]:
    """When the notebook's last run started and how many seconds it took, from the timestamps nbclient writes into
    each code cell's metadata.execution; (None, None) without them (e.g. a notebook run in JupyterLab)."""
    starts, ends = [], []
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        ex = cell.get("metadata", {}).get("execution", {})
        start = _when(ex.get("iopub.execute_input") or ex.get("iopub.status.busy"))
        end = _when(ex.get("shell.execute_reply") or ex.get("iopub.status.idle"))
        if start:
            starts.append(start)
        if end:
            ends.append(end)
    if not starts or not ends:
        return None, None
    return min(starts), max(0.0, (max(ends) - min(starts)).total_seconds())


def charts(nb) -> int:
    """The PNG images the notebook's outputs hold (every chart the course draws is one)."""
    return sum("image/png" in out.get("data", {}) for cell in nb["cells"] if cell["cell_type"] == "code"
               for out in cell.get("outputs", []))


def duration(seconds: float | None) -> str:
    if seconds is None:
        return "?"
    seconds = round(seconds)
    return f"{seconds // 60} min {seconds % 60:02d} s" if seconds >= 60 else f"{seconds} s"


def run_text(nb) -> str:
    """The line under a chapter's navigation: the machine and profile it ran on, when, and for how long."""
    machine, profile = machine_line(_stdout(nb))
    start, seconds = run_span(nb)
    parts = [f"Ran on {machine}" if machine else "Machine not recorded (no set-up cell output)",
             f"profile {profile or '?'}"]
    if start:
        parts.append(f"{start:%Y-%m-%d %H:%M} UTC, {duration(seconds)}")
    return " · ".join(parts)


_CODE = re.compile(r"(```.*?```|~~~.*?~~~|`[^`\n]*`)", re.S)
_DISPLAY_MATH = re.compile(r"\$\$(.+?)\$\$", re.S)
_INLINE_MATH = re.compile(r"(?<![\\$\w])\$(?=\S)([^$\n]+?)(?<=\S)\$(?![\w$])")


def math_to_mathml(text: str) -> str:
    """$$...$$ and $...$ outside code as MathML (latex2mathml), which browsers render without MathJax; text that
    does not convert, or no latex2mathml, leaves the TeX as it was."""
    try:
        from latex2mathml.converter import convert
    except ImportError:
        return text

    def mathml(m: re.Match, display: str) -> str:
        try:
            out = convert(m.group(1).strip(), display=display)
        except Exception:
            return m.group(0)
        return out.replace(' xmlns="http://www.w3.org/1998/Math/MathML"', "")

    parts = _CODE.split(text)
    for i in range(0, len(parts), 2):  # the odd ones are code
        parts[i] = _DISPLAY_MATH.sub(lambda m: mathml(m, "block"), parts[i])
        parts[i] = _INLINE_MATH.sub(lambda m: mathml(m, "inline"), parts[i])
    return "".join(parts)


_EXTERNAL = re.compile(r"""(<script\b[^>]*\bsrc\s*=\s*["']?\s*(?:https?:)?//|<link\b[^>]*\bhref\s*=\s*["']?\s*"""
                       r"""(?:https?:)?//|url\(\s*["']?\s*(?:https?:)?//|@import\s+["']\s*(?:https?:)?//"""
                       r"""|\bimport\s[^;]*?from\s*["'](?:https?:)?//)""", re.I)


def external_refs(page: str) -> list[str]:
    """Every script, style sheet, font or module a page would load from the network (links to read are fine)."""
    return [page[m.start():m.start() + 120] for m in _EXTERNAL.finditer(page)]


def split_at_headings(cells: list) -> list:
    """Markdown cells cut where a #, ## or ### heading starts inside them (outside code blocks), so that every
    section gets a slide of its own; the pieces keep the cell's metadata, their ids get -1, -2, ..."""
    out = []
    for cell in cells:
        if cell["cell_type"] != "markdown":
            out.append(cell)
            continue
        pieces, current, fence = [], [], False
        for line in cell["source"].splitlines(keepends=True):
            if line.lstrip().startswith(("```", "~~~")):
                fence = not fence
            if not fence and re.match(r"#{1,3} ", line) and course.first_heading("".join(current)):
                pieces.append(current)
                current = []
            current.append(line)
        pieces.append(current)
        for k, piece in enumerate(pieces):
            part = copy.deepcopy(cell)
            part["source"] = "".join(piece).rstrip("\n") if len(pieces) > 1 else cell["source"]
            if k:
                part["id"] = f"{cell.get('id', 'cell')}-{k}"
            out.append(part)
    return out


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
    return [(c.cell_type, c.source) for c in nb.cells if c.get("id") not in (course.NAV_TOP, course.NAV_BOTTOM)]


def execute(source: Path):
    """Runs notebooks/<name> once, headless, top to bottom on the course kernel; returns it executed, or raises
    BookError naming the failing cell. Nothing is saved on failure."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError

    nb = nbformat.read(source, as_version=4)
    client = NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name=course.KERNEL_NAME, allow_errors=False,
                            interrupt_on_timeout=True, resources={"metadata": {"path": str(source.parent)}})
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    start = last = time.monotonic()
    course.say(f"executing {source.name} ({len(code)} code cells, profile {course.profile()})")
    index = -1
    try:
        with client.setup_kernel():
            try:
                for done, index in enumerate(code, 1):
                    client.execute_cell(nb.cells[index], index)
                    if time.monotonic() - last >= PROGRESS_EVERY:
                        last = time.monotonic()
                        course.say(f"  ... {source.name}: {done}/{len(code)} cells, {last - start:.0f} s")
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
    course.say(f"  {source.name}: executed in {time.monotonic() - start:.0f} s")
    return nb


def end_kernel(client) -> None:
    """Ends the kernel of `client` now, with every process it started (the JJava launcher, the kernel's JVM, a
    snippet's JVM it runs): SIGTERM (their shutdown hooks stop servers and databases), SIGKILL after 5 s. A Ctrl-C
    never reaches them: the kernel leads a session of its own. A second Ctrl-C meanwhile is ignored."""
    import signal

    import psutil
    pid = getattr(getattr(client.km, "provisioner", None), "pid", None)
    if pid is None:
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        try:
            kernel = psutil.Process(pid)
            tree = [kernel, *kernel.children(recursive=True)]
        except psutil.Error:
            return
        course.end_processes(tree)
    finally:
        signal.signal(signal.SIGINT, previous)


def executed_notebooks(fresh: bool) -> tuple[list, list[str]]:
    """Every chapter, executed: (notebooks in chapter order, names of those executed now). Uses build/executed/
    (the test run's) where it can; executes the rest, saving each into build/executed/ only when it succeeded."""
    import nbformat

    sources = chapters()
    if not sources:
        raise BookError(f"no notebooks in {NOTEBOOKS}")
    books, ran, older, other_profile = [], [], [], []
    wanted = course.profile()
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
            course.say(f"{source.name}: {why}; executing it now")
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
        course.warn(f"build/executed holds runs of older versions of chapters {', '.join(older)}; the pages show"
                    " those runs (FRESH=1, e.g. make book FRESH=1, runs every chapter again)")
    if other_profile:
        course.warn(f"chapters {', '.join(other_profile)} ran in another profile than {wanted}; each page says which"
                    f" (FRESH=1 PROFILE={wanted}, e.g. make book FRESH=1 PROFILE={wanted}, runs every chapter in"
                    f" {wanted})")
    return books, ran


# ----------------------------------------------------------------------------- rendering

def coalesce_streams(outputs: list) -> list:
    """Consecutive stdout (or stderr) outputs as one: the kernel sends a printed line at a time, and a page would
    show each as a block of its own."""
    merged = []
    for out in outputs:
        last = merged[-1] if merged else None
        if (last is not None and out.get("output_type") == "stream" and last.get("output_type") == "stream"
                and out.get("name") == last.get("name")):
            last["text"] += out.get("text", "")
        else:
            merged.append(copy.deepcopy(out))
    return merged


def _prepare(nb, suffix: str):
    """A copy of the notebook for the page: links rewritten, math as MathML, printed lines as one block, generated
    navigation cells left out (the page has its own)."""
    nb = copy.deepcopy(nb)
    nb.cells = [c for c in nb.cells if c.get("id") not in (course.NAV_TOP, course.NAV_BOTTOM)]
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = math_to_mathml(rewrite_links(cell.source, suffix))
        if cell.cell_type == "code":
            cell.outputs = coalesce_streams(cell.outputs)
        for out in cell.get("outputs", []):
            for mime in ("text/markdown", "text/html"):
                if mime in out.get("data", {}):
                    out["data"][mime] = rewrite_links(out["data"][mime], suffix)
    return nb


def _replace(staging: Path, target: Path) -> None:
    shutil.rmtree(target, ignore_errors=True)
    staging.rename(target)


def _check_offline(folder: Path) -> None:
    for page in sorted(folder.glob("*.html")):
        found = external_refs(page.read_text(encoding="utf-8"))
        if found:
            raise BookError(f"{page.name} would load from the network: {found[0]!r}")


def _page(title: str, body: str) -> str:
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>{html.escape(title)}</title>
<style>
body {{ font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0; color: #222;
  line-height: 1.5; }}
main {{ max-width: 1180px; margin: 0 auto; padding: 16px 24px 48px; }}
h1 {{ font-size: 1.8em; margin-bottom: 0.2em; }}
table {{ border-collapse: collapse; margin: 1em 0; font-size: 14px; }}
th, td {{ border-bottom: 1px solid #ddd; padding: 6px 10px; text-align: left; vertical-align: top; }}
th {{ background: #f5f5f5; }}
td.num {{ text-align: right; white-space: nowrap; }}
a {{ color: #1a5fb4; text-decoration: none; }}
a:hover {{ text-decoration: underline; }}
code, kbd {{ font-family: ui-monospace, Menlo, Consolas, monospace; background: #f3f3f3; padding: 0 4px;
  border-radius: 3px; }}
kbd {{ border: 1px solid #ccc; }}
.note {{ color: #555; font-size: 14px; }}
</style>
</head>
<body>
<main>
{body}
</main>
</body>
</html>
"""


def _row(source: Path, nb) -> dict:
    machine, profile = machine_line(_stdout(nb))
    start, seconds = run_span(nb)
    return {"name": source.stem, "title": course.notebook_title(nb), "machine": machine or "not recorded",
            "profile": profile or "?", "start": f"{start:%Y-%m-%d %H:%M} UTC" if start else "?",
            "took": duration(seconds), "charts": charts(nb)}


_KEYS = ("<kbd>→</kbd> or <kbd>Space</kbd> the next slide (every chart has one of its own), <kbd>←</kbd> back,"
         " <kbd>S</kbd> speaker view (notes, the next slide, a timer), <kbd>F</kbd> full screen, <kbd>Esc</kbd>"
         " overview, <kbd>?</kbd> all keys; a slide taller than the screen scrolls with the mouse wheel")


def _index(rows: list[dict], origin: str, kind: str) -> str:
    e = html.escape
    machines = sorted({r["machine"] for r in rows})
    profiles = sorted({r["profile"] for r in rows})
    if kind == "book":
        lines = [f'<tr><td>{e(r["name"][:2])}</td><td><a href="{e(r["name"])}.html">{e(r["title"])}</a></td>'
                 f'<td>{e(r["profile"])}</td><td>{e(r["machine"])}</td><td>{e(r["start"])}</td>'
                 f'<td class="num">{e(r["took"])}</td><td class="num">{r["charts"]}</td>'
                 f'<td><a href="../slides/{e(r["name"])}.slides.html">slides</a></td></tr>' for r in rows]
        body = f"""<h1>{e(COURSE_TITLE)}</h1>
<p>The course's notebooks as they ran, top to bottom: the code, what it printed, the tables and the charts, each
next to its physical bound and the published figure it reproduces. Nothing needs installing to read them. To run
the experiments on your own machine, clone the course and run <code>make lab</code>.</p>
<p class="note">Ran on: {e("; ".join(machines))}. Profile: {e(", ".join(profiles))} (quick: reduced sizes, each
chapter within minutes on 2 cores; full: the published sources' sizes). {e(origin)}</p>
<h2 id="chapters">Chapters</h2>
<table>
<tr><th>#</th><th>chapter</th><th>profile</th><th>machine</th><th>ran</th><th>took</th><th>charts</th><th></th></tr>
{chr(10).join(lines)}
</table>
<h2>Slides</h2>
<p>Every chapter is also a slide deck for seminars: <a href="../slides/index.html">build/slides/index.html</a>
(built by <code>make slides</code>; it works without network). Keys: {_KEYS}.</p>"""
        return _page(COURSE_TITLE, body)
    lines = [f'<tr><td>{e(r["name"][:2])}</td><td><a href="{e(r["name"])}.slides.html">{e(r["title"])}</a></td>'
             f'<td>{e(r["profile"])}</td><td>{e(r["machine"])}</td><td class="num">{r["slides"]}</td>'
             f'<td class="num">{r["charts"]}</td><td><a href="../book/{e(r["name"])}.html">page</a></td></tr>'
             for r in rows]
    body = f"""<h1>Slides · {e(COURSE_TITLE)}</h1>
<p>One deck per chapter, from its executed notebook: each section a slide, with the code, the output and the
charts. They need no network: reveal.js is in <code>reveal.js/</code> beside them (hand out the whole folder).
{e(origin)}</p>
<p>Keys: {_KEYS}.</p>
<table>
<tr><th>#</th><th>deck</th><th>profile</th><th>machine</th><th>slides</th><th>charts</th><th>book</th></tr>
{chr(10).join(lines)}
</table>
<p class="note">The same chapters as pages: <a href="../book/index.html">the book</a> (<code>make book</code>).</p>"""
    return _page(f"Slides · {COURSE_TITLE}", body)


def _origin(books: list, ran: list[str]) -> str:
    reused = len(books) - len(ran)
    said = []
    if reused:
        said.append(f"{reused} chapter{'s' * (reused != 1)} from the test run's notebooks (build/executed)")
    if ran:
        said.append(f"{len(ran)} executed by this build ({', '.join(n[:2] for n in ran)})")
    return "Built " + dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC") + ": " + " and ".join(said) + "."


def render_book(books: list, ran: list[str]) -> dict:
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name="course-book", extra_template_basedirs=[str(TEMPLATES)],
                            exclude_input_prompt=True, exclude_output_prompt=True)
    staging = BOOK.with_name("book.partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    titles = [(s.stem, course.notebook_title(nb)) for s, nb in books]
    rows = []
    for i, (source, nb) in enumerate(books):
        prev = {"href": f"{titles[i - 1][0]}.html", "title": titles[i - 1][1]} if i > 0 else None
        nxt = {"href": f"{titles[i + 1][0]}.html", "title": titles[i + 1][1]} if i + 1 < len(books) else None
        resources = {"metadata": {"name": titles[i][1], "path": str(NOTEBOOKS)},
                     "book": {"prev": prev, "next": nxt, "run": run_text(nb),
                              "slides": f"../slides/{source.stem}.slides.html"}}
        body, _ = exporter.from_notebook_node(_prepare(nb, ".html"), resources=resources)
        (staging / f"{source.stem}.html").write_text(body, encoding="utf-8")
        rows.append(_row(source, nb))
    (staging / "index.html").write_text(_index(rows, _origin(books, ran), "book"), encoding="utf-8")
    _check_offline(staging)
    _replace(staging, BOOK)
    return {"chapters": len(rows), "charts": sum(r["charts"] for r in rows)}


def _copy_reveal(target: Path) -> None:
    source = course.reveal_dir()
    if not (source / "dist" / "reveal.js").is_file():
        raise BookError(f"reveal.js is not in .course/{source.name} yet: run `make setup` once (it downloads"
                        f" reveal.js {course.REVEAL_VERSION} from the npm registry)")
    for rel in REVEAL_FILES:
        src, dst = source / rel, target / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dst)
        else:
            shutil.copy2(src, dst)


def slide_count(nb) -> int:
    """The slides reveal.js shows for a prepared notebook: one per slide or sub-slide, and the first visible cell."""
    visible = [c for c in nb.cells if c.metadata.get("slideshow", {}).get("slide_type") not in ("skip", "notes")]
    starts = sum(c.metadata["slideshow"]["slide_type"] in ("slide", "subslide") for c in visible)
    return starts + (1 if visible and visible[0].metadata["slideshow"]["slide_type"] not in ("slide", "subslide")
                     else 0)


_RULE = re.compile(r"[ \t]*([-*_])(?:[ \t]*\1){2,}[ \t]*")


def strip_rules(source: str) -> str:
    """Markdown without the horizontal rules (---) that open or close it: between sections they only draw a line at
    the top or the end of a slide. A rule right under text is a heading's underline and stays."""
    lines = source.split("\n")
    while lines and (not lines[0].strip() or _RULE.fullmatch(lines[0])):
        lines.pop(0)
    while lines and (not lines[-1].strip() or (_RULE.fullmatch(lines[-1]) and len(lines) > 1
                                               and not lines[-2].strip())):
        lines.pop()
    return "\n".join(lines)


def render_slides(books: list, ran: list[str]) -> dict:
    from nbconvert import SlidesExporter

    exporter = SlidesExporter(template_name="course-slides", extra_template_basedirs=[str(TEMPLATES)],
                              reveal_url_prefix="reveal.js", reveal_theme="white", reveal_transition="none",
                              reveal_number="c/t", reveal_width="1280", reveal_height="800",
                              exclude_input_prompt=True, exclude_output_prompt=True)
    staging = SLIDES.with_name("slides.partial")
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    _copy_reveal(staging / "reveal.js")
    rows = []
    for source, nb in books:
        deck = _prepare(nb, ".slides.html")
        deck.cells = split_at_headings(deck.cells)
        for cell in deck.cells:
            if cell.cell_type == "markdown":
                cell.source = strip_rules(cell.source)
        course.slide_types(deck.cells)
        resources = {"metadata": {"name": course.notebook_title(nb), "path": str(NOTEBOOKS)},
                     "deck": {"run": run_text(nb), "book": f"../book/{source.stem}.html"}}
        body, _ = exporter.from_notebook_node(deck, resources=resources)
        (staging / f"{source.stem}.slides.html").write_text(body, encoding="utf-8")
        rows.append(dict(_row(source, nb), slides=slide_count(deck)))
    (staging / "index.html").write_text(_index(rows, _origin(books, ran), "slides"), encoding="utf-8")
    _check_offline(staging)
    _replace(staging, SLIDES)
    return {"chapters": len(rows), "charts": sum(r["charts"] for r in rows), "slides": sum(r["slides"] for r in rows)}


# ----------------------------------------------------------------------------- command line

def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("book", "slides") or set(argv[1:]) - {"--fresh"}:
        print(__doc__)
        return 2
    kind, fresh = argv[0], "--fresh" in argv[1:]
    start = time.monotonic()
    try:
        books, ran = executed_notebooks(fresh)
        built = time.monotonic()
        made = render_book(books, ran) if kind == "book" else render_slides(books, ran)
    except (BookError, course.SetupError) as e:
        print(f"[unpinned] error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("[unpinned] interrupted; the kernel and the JVMs it started are stopped, build/book and build/slides"
              " are as they were", file=sys.stderr)
        return 130
    where = BOOK if kind == "book" else SLIDES
    source = ("from the test run's notebooks" if not ran else
              f"after executing {len(ran)} of {len(books)} chapters in {built - start:.0f} s")
    extra = f", {made['slides']} slides" if kind == "slides" else ""
    course.say(f"{kind}: {made['chapters']} chapters, {made['charts']} charts{extra}, built in"
               f" {time.monotonic() - built:.0f} s {source}; open build/{where.name}/index.html")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
