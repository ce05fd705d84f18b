"""A learner's path through each chapter: a main path of at most MAIN_PATH_CELLS cells, and deeper parts (cells
tagged "deeper") a learner may skip and still get every conclusion; speaker notes only in the seminar chapter; and
every pitfall the course shows drawn broken, then fixed, on one chart."""
from __future__ import annotations

import re

import nbformat
import pytest

from conftest import HOME, report
from chapter_runs import EXECUTED

NOTEBOOKS = sorted((HOME / "notebooks").glob("[0-9][0-9]-*.ipynb"))
NAV = ("nav-top", "nav-bottom")
MAIN_PATH_CELLS = 60
SEMINAR = "09-"
DEEPER = "deeper"
BANNER = re.compile(r"^> \*\*Deeper\b.*\bskip\b", re.M | re.I)
SPEAKER_NOTES = re.compile(r"\*\*Speaker notes\b", re.I)
# The pitfalls the course shows; each chart cell that draws one says so in its metadata:
# "pitfall": {"name": <one of these>, "broken": <a series or category drawn>, "fixed": <a series or category drawn>}.
PITFALLS = ("pinning", "blocking-the-event-loop", "the-pool-as-the-cap", "a-thread-leak", "threadlocal-copies",
            "the-cpu-trap")

_DECLARED = [
    re.compile(r"^(?:final\s+)?(?:var|[A-Za-z_][\w.]*(?:<[^=;()]*>)?(?:\[\])*)\s+([a-zA-Z_]\w*)\s*(?:=|;)", re.M),
    re.compile(r",\s*([a-zA-Z_]\w*)\s*=", re.M),
    re.compile(r"^(?:(?:public|private|static|final|sealed|abstract)\s+)*(?:record|class|interface|enum)\s+(\w+)", re.M),
    re.compile(r"^(?:(?:public|private|static|final)\s+)*(?:<[^>]+>\s+)?[\w.]+(?:<[^=;()]*>)?(?:\[\])*\s+(\w+)\s*\(",
               re.M),
]
_STRINGS_AND_COMMENTS = re.compile(r'"""[\s\S]*?"""|"(?:\\.|[^"\\])*"|//[^\n]*|/\*[\s\S]*?\*/')


def declared(source: str) -> set[str]:
    """The names a JShell cell declares at its top level (variables, methods, types): lines that start at column 0."""
    code = _STRINGS_AND_COMMENTS.sub('""', source)
    top = "\n".join(line for line in code.splitlines() if line[:1] not in (" ", "\t", "}", ")"))
    return {m for rx in _DECLARED for m in rx.findall(top)} - {"return", "new", "else", "throw"}


def used(source: str) -> set[str]:
    return set(re.findall(r"\b[A-Za-z_]\w*\b", _STRINGS_AND_COMMENTS.sub('""', source)))


def parts(nb) -> tuple[list, list[list]]:
    """The main path's cells and the deeper parts (runs of consecutive cells tagged deeper), generated navigation
    left out."""
    main, deeper, run = [], [], None
    for cell in nb.cells:
        if cell.get("id") in NAV:
            continue
        if DEEPER in cell.metadata.get("tags", []):
            if run is None:
                run = []
                deeper.append(run)
            run.append(cell)
        else:
            run = None
            main.append(cell)
    return main, deeper


def is_speaker_notes(cell) -> bool:
    return bool(SPEAKER_NOTES.search(cell.source)) or cell.metadata.get("slideshow", {}).get("slide_type") == "notes"


def path_problems(name: str, nb) -> list[str]:
    main, deeper = parts(nb)
    problems = []
    if len(main) > MAIN_PATH_CELLS:
        problems.append(f"{name}: a main path of {len(main)} cells; at most {MAIN_PATH_CELLS}, the rest in deeper parts")
    for run in deeper:
        first = run[0]
        if first.cell_type != "markdown" or not BANNER.search(first.source):
            problems.append(f"{name} {first.get('id')}: a deeper part opens with a '> **Deeper** ... skip ...' line"
                            " that says what is in it and where the main path goes on")
        if any(re.search(r"^#+\s*(Summary|Exercises)\b", c.source, re.M) for c in run if c.cell_type == "markdown"):
            problems.append(f"{name} {first.get('id')}: the Summary and the Exercises are on the main path")
    deeper_names = {n for run in deeper for c in run if c.cell_type == "code" for n in declared(c.source)}
    main_names = {n for c in main if c.cell_type == "code" for n in declared(c.source)}
    for cell in main:
        if cell.cell_type == "code":
            needs = (used(cell.source) & deeper_names) - main_names
            if needs:
                problems.append(f"{name} {cell.get('id')}: the main path uses {sorted(needs)}, declared only in a"
                                " deeper part; a learner who skips it could not run this cell")
    if not name.startswith(SEMINAR):
        for cell in nb.cells:
            if is_speaker_notes(cell):
                problems.append(f"{name} {cell.get('id')}: speaker notes live in chapter 09 and the slides' metadata")
    return problems


def test_each_chapter_has_a_short_main_path_and_deeper_parts_it_can_skip():
    problems = []
    for path in NOTEBOOKS:
        problems += path_problems(path.name, nbformat.read(path, as_version=4))
    assert not problems, "\n".join(problems)


def _labels(chart: dict) -> set[str]:
    """What a reader finds drawn on a chart by name: its series and its category labels."""
    names = {s.get("name", "") for s in chart.get("series", [])}
    return names | {label for axis in chart.get("axes", []) if axis.get("kind") == "category"
                    for label in axis.get("labels", [])}


def test_every_pitfall_is_drawn_broken_then_fixed_on_one_chart(chapters):
    """For each chart cell that declares a pitfall, the executed chart carries both the broken and the fixed label."""
    books = {path: nbformat.read(path, as_version=4) for path in NOTEBOOKS}
    declared_at = {}
    for path, nb in books.items():
        for cell in nb.cells:
            p = cell.metadata.get("pitfall")
            if p:
                assert p.get("name") in PITFALLS, f"{path.name} {cell.get('id')}: pitfall {p.get('name')!r}; known: {PITFALLS}"
                declared_at[p["name"]] = (path.name, cell.get("id"), p)
    shown, problems = [], []
    for name in PITFALLS:
        if name not in declared_at:
            problems.append(f"{name}: no chart cell declares it")
            continue
        notebook, cell_id, p = declared_at[name]
        chapters.executed(notebook)
        ran = nbformat.read(EXECUTED / notebook, as_version=4)
        cell = next(c for c in ran.cells if c.get("id") == cell_id)
        charts = [o.get("metadata", {}).get("unpinned/chart") for o in cell.get("outputs", [])]
        drawn = set().union(*(_labels(c) for c in charts if c))
        missing = [p[k] for k in ("broken", "fixed") if p[k] not in drawn]
        if not charts or missing:
            problems.append(f"{name} ({notebook} {cell_id}): the chart lacks {missing or 'a chart'}")
        else:
            shown.append(name)
    counts = [parts(nb) for nb in books.values()]
    per = ", ".join(f"{p.name[:2]} {len(m)}+{sum(len(r) for r in d)}" for p, (m, d) in zip(books, counts))
    notes = sum(is_speaker_notes(c) for p, nb in books.items() if not p.name.startswith(SEMINAR) for c in nb.cells)
    report(f"path: main path {sum(len(m) for m, _ in counts)} cells and {sum(len(r) for _, d in counts for r in d)}"
           f" deeper cells per chapter (max {max(len(m) for m, _ in counts)}): {per}; speaker notes outside 09:"
           f" {notes}; pitfalls broken-then-fixed {len(shown)} of {len(PITFALLS)}")
    assert not problems, "\n".join(problems)
