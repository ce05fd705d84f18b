"""The executed notebooks rendered: one self-contained HTML page per chapter and the landing page (the book), or
reveal.js decks with a local copy of reveal.js (the slides); each built in a staging folder, checked for network
references, then put in place."""
from __future__ import annotations

import copy
import datetime as dt
import html
import re
import shutil
from pathlib import Path

import course_install
import course_nav
from book_fonts import with_hangul_font
from book_text import (BOOK, COURSE_TITLE, NOTEBOOKS, REVEAL_FILES, SLIDES, TEMPLATES, BookError, _stdout, charts,
                       duration, external_refs, inline_figures, machine_line, math_to_mathml, rewrite_links, run_span, run_text,
                       split_at_headings)

# ----------------------------------------------------------------------------- rendering

def emptied(out) -> bool:
    """An output a running cell showed and emptied at its end (Show.Live: a progress line, a live chart): nothing to
    show, and in the way of joining the printed lines around it."""
    data = out.get("data") or {}
    return (out.get("output_type") == "display_data" and set(data) <= {"text/plain"}
            and not "".join(data.get("text/plain") or "").strip())


def coalesce_streams(outputs: list) -> list:
    """Consecutive stdout (or stderr) outputs as one: the kernel sends a printed line at a time, and a page would
    show each as a block of its own. Emptied outputs (live lines and charts) are left out."""
    merged = []
    for out in outputs:
        if emptied(out):
            continue
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
    nb.cells = [c for c in nb.cells if c.get("id") not in (course_nav.NAV_TOP, course_nav.NAV_BOTTOM)]
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = inline_figures(math_to_mathml(rewrite_links(cell.source, suffix)))
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
    return {"name": source.stem, "title": course_nav.notebook_title(nb), "machine": machine or "not recorded",
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
    titles = [(s.stem, course_nav.notebook_title(nb)) for s, nb in books]
    rows = []
    for i, (source, nb) in enumerate(books):
        prev = {"href": f"{titles[i - 1][0]}.html", "title": titles[i - 1][1]} if i > 0 else None
        nxt = {"href": f"{titles[i + 1][0]}.html", "title": titles[i + 1][1]} if i + 1 < len(books) else None
        resources = {"metadata": {"name": titles[i][1], "path": str(NOTEBOOKS)},
                     "book": {"prev": prev, "next": nxt, "run": run_text(nb),
                              "slides": f"../slides/{source.stem}.slides.html"}}
        body, _ = exporter.from_notebook_node(_prepare(nb, ".html"), resources=resources)
        (staging / f"{source.stem}.html").write_text(with_hangul_font(body), encoding="utf-8")
        rows.append(_row(source, nb))
    (staging / "index.html").write_text(_index(rows, _origin(books, ran), "book"), encoding="utf-8")
    _check_offline(staging)
    _replace(staging, BOOK)
    return {"chapters": len(rows), "charts": sum(r["charts"] for r in rows)}


def _copy_reveal(target: Path) -> None:
    source = course_install.reveal_dir()
    if not (source / "dist" / "reveal.js").is_file():
        raise BookError(f"reveal.js is not in .course/{source.name} yet: run `make setup` once (it downloads"
                        f" reveal.js {course_install.REVEAL_VERSION} from the npm registry)")
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


def with_speaker_notes(cells: list) -> list:
    """A presenter's notes are kept out of the learner's notebook, in a cell's metadata.speaker_notes (markdown); on
    the slides each becomes a notes cell after its cell, shown in reveal.js's speaker view (S)."""
    import nbformat

    out = []
    for cell in cells:
        out.append(cell)
        notes = cell.get("metadata", {}).get("speaker_notes")
        if notes:
            out.append(nbformat.v4.new_markdown_cell(notes, metadata={"slideshow": {"slide_type": "notes"}}))
    return out


HIDE_INPUT = "hide-input"  # a cell's tag: the slides show its outputs (a chart, the code under study), not its code


def _printed(out) -> str:
    """What an output printed as plain text (a run's log, a kept progress line such as JMH's result), or ""."""
    data = out.get("data") or {}
    if out.get("output_type") == "stream":
        return out.get("text", "")
    if out.get("output_type") == "display_data" and set(data) == {"text/plain"}:
        text = "".join(data["text/plain"])
        return text if text.endswith("\n") or not text else text + "\n"
    return ""


def for_the_audience(cells: list) -> list:
    """The slides' copy of the cells: a code cell tagged hide-input shows only its outputs, and what it printed (a
    run's log lines, the results a benchmark kept) goes to the speaker view, in a notes cell right after it. A cell that is notes already (a
    presenter's check or table) keeps its printed lines there."""
    import nbformat

    out = []
    for cell in cells:
        if cell.get("cell_type") != "code" or HIDE_INPUT not in cell.get("metadata", {}).get("tags", []):
            out.append(cell)
            continue
        cell = copy.deepcopy(cell)
        cell.metadata.setdefault("transient", {})["remove_source"] = True
        out.append(cell)
        if cell.metadata.get("slideshow", {}).get("slide_type") == "notes":
            continue
        logs = "".join(_printed(o) for o in cell.outputs).strip()
        cell.outputs = [o for o in cell.outputs if not _printed(o) and not emptied(o)]
        if logs:
            out.append(nbformat.v4.new_markdown_cell("~~~text\n" + logs + "\n~~~",
                                                     metadata={"slideshow": {"slide_type": "notes"}}))
    return out


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
        deck.cells = with_speaker_notes(for_the_audience(deck.cells))
        deck.cells = split_at_headings(deck.cells)
        for cell in deck.cells:
            if cell.cell_type == "markdown":
                cell.source = strip_rules(cell.source)
        course_nav.slide_types(deck.cells)
        resources = {"metadata": {"name": course_nav.notebook_title(nb), "path": str(NOTEBOOKS)},
                     "deck": {"run": run_text(nb), "book": f"../book/{source.stem}.html",
                              "talk": bool(nb.metadata.get("unpinned", {}).get("talk"))}}
        body, _ = exporter.from_notebook_node(deck, resources=resources)
        (staging / f"{source.stem}.slides.html").write_text(with_hangul_font(body), encoding="utf-8")
        rows.append(dict(_row(source, nb), slides=slide_count(deck)))
    (staging / "index.html").write_text(_index(rows, _origin(books, ran), "slides"), encoding="utf-8")
    _check_offline(staging)
    _replace(staging, SLIDES)
    return {"chapters": len(rows), "charts": sum(r["charts"] for r in rows), "slides": sum(r["slides"] for r in rows)}
