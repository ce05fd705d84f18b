"""What tools/book.py's book and slides share: their folders, and the pure functions on notebook text (links,
the machine line, run times, math, headings) that tests/test_book.py unit-tests without running a notebook."""
from __future__ import annotations

import base64
import copy
import datetime as dt
import re

import course_nav
from course_base import HOME

NOTEBOOKS = HOME / "notebooks"
EXECUTED = HOME / "build" / "executed"
BOOK = HOME / "build" / "book"
SLIDES = HOME / "build" / "slides"
TEMPLATES = HOME / "tools" / "nbtemplates"
CELL_TIMEOUT = 600   # s, as tests/chapter_runs.py
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


_FIGURE = re.compile(r"\]\(figures/(?P<name>[\w.-]+\.svg)\)")


def inline_figures(text: str) -> str:
    """The course's diagrams (notebooks/figures/*.svg, drawn by tools/diagrams.py) as data URIs, so that a page or a
    deck needs no file beside it: `](figures/x.svg)` -> `](data:image/svg+xml;base64,...)`. A missing figure fails."""
    def data(m: re.Match) -> str:
        path = NOTEBOOKS / "figures" / m["name"]
        if not path.is_file():
            raise BookError(f"the page shows figures/{m['name']}, which is not in notebooks/figures/: run"
                            f" python3 tools/course.py nav")
        return "](data:image/svg+xml;base64," + base64.b64encode(path.read_bytes()).decode("ascii") + ")"
    return _FIGURE.sub(data, text)


_MACHINE = re.compile(r"^Machine: (?P<machine>.+?)(?:, profile (?P<profile>\w+))?\s*$", re.M)
_PROFILE = re.compile(r"^Profile: (?P<profile>\w+)", re.M)


def _stdout(nb) -> str:
    return "".join(out.get("text", "") for cell in nb["cells"] if cell["cell_type"] == "code"
                   for out in cell.get("outputs", []) if out.get("output_type") == "stream"
                   and out.get("name") == "stdout")


def machine_line(text: str) -> tuple[str | None, str | None]:
    """(machine, profile) from what a notebook's set-up cell printed (Session.setup(): "Profile: quick (...)" and
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
            if not fence and re.match(r"#{1,3} ", line) and course_nav.first_heading("".join(current)):
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
