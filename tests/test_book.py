"""The book and the slides (tools/book.py; `make book`, `make slides`): built from the notebooks this test session
executed (tests/chapter_runs.py: each chapter's one Run All in JupyterLab, whoever asks first), never from stale
files; every chapter a page with all its charts, links that resolve, nothing loaded from the network; and the slides
shown in Chromium with the network cut off. Screenshots: build/screenshots/slides-NN.png and book-NN.png.

The first tests check the pure functions and need no notebook run."""
from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import tarfile
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat
import pytest

import browser_lab as bl
from conftest import HOME, report
from chapter_runs import NOTEBOOKS

sys.path.insert(0, str(HOME / "tools"))
import book  # noqa: E402
import course  # noqa: E402
import course_base  # noqa: E402
import course_install  # noqa: E402
import course_nav  # noqa: E402

BOOK, SLIDES, EXECUTED = HOME / "build" / "book", HOME / "build" / "slides", HOME / "build" / "executed"
CHAPTERS = [p for p in NOTEBOOKS if re.match(r"\d\d-", p.name)]  # what the book shows (not notebooks/index.ipynb)
PNG = re.compile(r"<img\b[^>]*\bsrc=\"data:image/png;base64,")


# ----------------------------------------------------------------------------- pure functions

def test_links_in_markdown_are_rewritten_for_the_book_and_the_slides():
    nav = ("[← 00 · Set-up](00-setup-check.ipynb) | [Contents](../README.md#chapters) | "
           "[02 · Reactive →](02-reactive-and-one-service-three-ways.ipynb)")
    assert book.rewrite_links(nav) == ("[← 00 · Set-up](00-setup-check.html) | [Contents](index.html#chapters) | "
                                       "[02 · Reactive →](02-reactive-and-one-service-three-ways.html)")
    assert book.rewrite_links("see [chapter 04](04-the-scheduler.ipynb#2-·-x)", ".slides.html") == \
        "see [chapter 04](04-the-scheduler.slides.html#2-·-x)"
    assert book.rewrite_links('<a href="01-thread-per-request-and-pools.ipynb">01</a>') == \
        '<a href="01-thread-per-request-and-pools.html">01</a>'
    assert book.rewrite_links("[routes](../README.md#routes)") == "[routes](index.html)"
    assert book.rewrite_links("[Index](index.ipynb)", ".slides.html") == "[Index](index.html)"
    assert book.rewrite_links("[S01](../snippets/S01_IoBoundExecutors.java)") == \
        "[S01](../../snippets/S01_IoBoundExecutors.java)"
    untouched = "a `notes.ipynb` in code, [JEP 491](https://openjdk.org/jeps/491), Notebook.ipynb, [x](#anchor)"
    assert book.rewrite_links(untouched) == untouched


def test_live_outputs_emptied_at_the_end_of_a_run_are_left_out_and_the_lines_around_them_joined():
    outputs = [{"output_type": "stream", "name": "stdout", "text": "before\n"},
               {"output_type": "display_data", "data": {"text/plain": ""}, "metadata": {}},  # a live chart, emptied
               {"output_type": "stream", "name": "stdout", "text": "after\n"},
               {"output_type": "display_data", "data": {"text/plain": ["kept"]}, "metadata": {}}]
    assert book.coalesce_streams(outputs) == [{"output_type": "stream", "name": "stdout", "text": "before\nafter\n"},
                                              outputs[3]]


def test_the_machine_and_profile_are_read_from_the_set_up_cell():
    printed = ("Profile: quick (reduced sizes; set UNPINNED_PROFILE=full for the sources' sizes)\n"
               "Machine: JDK 25.0.3+9-LTS, 2 cores (AMD EPYC), Linux 6.18.44-fc-v769 amd64, profile quick\n")
    assert book.machine_line(printed) == ("JDK 25.0.3+9-LTS, 2 cores (AMD EPYC), Linux 6.18.44-fc-v769 amd64", "quick")
    assert book.machine_line("Machine: JDK 21.0.8, 16 cores, Mac OS X 15.1 aarch64, profile full\n") == \
        ("JDK 21.0.8, 16 cores, Mac OS X 15.1 aarch64", "full")
    assert book.machine_line("Profile: full (the sources' sizes)\n") == (None, "full")
    assert book.machine_line("nothing printed\n") == (None, None)


def _nb(*cells):
    nb = nbformat.v4.new_notebook()
    nb.cells = list(cells)
    return nb


def test_when_and_how_long_come_from_nbclients_timestamps():
    def code(start, end, png=False):
        cell = nbformat.v4.new_code_cell("x")
        cell.metadata["execution"] = {"iopub.execute_input": start, "shell.execute_reply": end}
        if png:
            cell.outputs = [nbformat.v4.new_output("execute_result", {"image/png": "iVBOR", "text/plain": "chart"})]
        return cell
    nb = _nb(code("2026-11-22T11:09:15.580759Z", "2026-11-22T11:09:16.0Z"),
             nbformat.v4.new_markdown_cell("# t"), code("2026-11-22T11:09:20.0Z", "2026-11-22T11:10:07.580759Z", True))
    start, seconds = book.run_span(nb)
    assert start.isoformat() == "2026-11-22T11:09:15.580759+00:00" and seconds == pytest.approx(52.0)
    assert book.charts(nb) == 1 and book.duration(52.0) == "52 s" and book.duration(196.4) == "3 min 16 s"
    assert book.run_span(_nb(nbformat.v4.new_code_cell("x"))) == (None, None)


def test_math_becomes_mathml_outside_code_only():
    out = book.math_to_mathml("Little's law: $L = \\lambda R$, and\n\n$$T \\;\\ge\\; \\left\\lceil \\frac{N}{P}"
                              " \\right\\rceil \\times S .$$\n\nkeep `$JAVA_HOME` and ```\necho $HOME $x$\n```")
    assert '<math display="inline">' in out and '<math display="block">' in out and "<mfrac>" in out
    assert "$" not in out.replace("`$JAVA_HOME`", "").replace("echo $HOME $x$", "")
    assert "`$JAVA_HOME`" in out and "echo $HOME $x$" in out and "http" not in out


def test_pages_that_would_load_from_the_network_are_caught():
    bad = ['<script src="https://cdn.jsdelivr.net/npm/mathjax@2/MathJax.js"></script>',
           '<link rel="stylesheet" href="https://unpkg.com/reveal.js/dist/reveal.css">',
           "<style>@font-face { src: url('https://fonts.gstatic.com/x.woff2') }</style>",
           '<style>@import "//fonts.googleapis.com/css?family=Lato";</style>',
           "<script type=\"module\">import mermaid from 'https://cdn.jsdelivr.net/npm/mermaid@11/x.mjs';</script>"]
    for page in bad:
        assert book.external_refs(page), page
    fine = ('<a href="https://openjdk.org/jeps/491">JEP 491</a><script src="reveal.js/dist/reveal.js"></script>'
            '<math><mi>x</mi></math><img src="data:image/png;base64,iVBOR">')
    assert book.external_refs(fine) == []


def test_slide_types_follow_headings_charts_and_exercises():
    def md(text, cid):
        return {"cell_type": "markdown", "id": cid, "metadata": {}, "source": text}

    def code(text, cid, tags=(), slide_type=None):
        meta = {"tags": list(tags)} if tags else {}
        if slide_type:
            meta["slideshow"] = {"slide_type": slide_type}
        return {"cell_type": "code", "id": cid, "metadata": meta, "source": text, "outputs": []}
    cells = [md("<!-- generated -->\n[Contents](../README.md#chapters)", "nav-top"), md("# 01 · Title\n\ntext", "a"),
             code("var x = 1;", "b"), md("---\n## Experiment 1", "c"), md("### A detail", "d"),
             code("Charts.bars(...)", "e", tags=["chart"]), md("**What it means.** ...", "f"),
             code("note", "g", slide_type="notes"), code("stray", "h", slide_type="slide"),
             md("---\n## Summary\n\n- a\n\n## Exercises\n\n1. x", "i"), code("double answer1 = Double.NaN;", "j"),
             code('Exercises.check("01.1", answer1);', "k"), md("[Contents](../README.md#chapters)", "nav-bottom")]
    course_nav.slide_types(cells)
    got = [c["metadata"]["slideshow"]["slide_type"] for c in cells]
    assert got == ["skip", "slide", "-", "slide", "subslide", "subslide", "-", "notes", "-", "slide", "skip", "skip",
                   "skip"]
    again = json.loads(json.dumps(cells))
    course_nav.slide_types(again)
    assert again == cells, "slide_types is idempotent (nav --check stays quiet after nav)"


def test_nav_writes_slide_types_and_check_sees_them_stale(tmp_path, monkeypatch, capsys):
    """On copies of the notebooks: `nav --check` fails while a slide type is missing, `nav` writes them in the
    notebooks' own JSON format, and then `--check` passes."""
    (tmp_path / "notebooks").mkdir()
    for path in sorted((HOME / "notebooks").glob("[0-9][0-9]-*.ipynb")):
        nb = json.loads(path.read_text())
        for cell in nb["cells"]:
            cell.get("metadata", {}).pop("slideshow", None)
        (tmp_path / "notebooks" / path.name).write_text(json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False)
                                                        + "\n")
    monkeypatch.setattr(course_base, "HOME", tmp_path)
    # the README's and notebooks/index.ipynb's chapter index (also nav's) is not what this test is about
    monkeypatch.setattr(course_nav, "course_index", lambda *args, **kwargs: [], raising=False)
    assert course_nav.nav(check=True) == 1
    assert course_nav.nav(check=False) == 0 and course_nav.nav(check=True) == 0
    capsys.readouterr()
    for path in sorted((tmp_path / "notebooks").glob("[0-9][0-9]-*.ipynb")):
        text = path.read_text()
        nb = json.loads(text)
        assert text == json.dumps(nb, sort_keys=True, indent=1, ensure_ascii=False) + "\n"
        kinds = [c["metadata"]["slideshow"]["slide_type"] for c in nb["cells"]]
        assert kinds[0] == kinds[-1] == "skip" and kinds[1] == "slide", path.name


def test_sections_inside_a_markdown_cell_get_slides_of_their_own():
    cell = nbformat.v4.new_markdown_cell("---\n## Summary\n\n- a\n\n```\n## not a heading\n```\n## Exercises\n\n1. x")
    cell.id = "c07-42"
    parts = book.split_at_headings([cell, nbformat.v4.new_markdown_cell("plain")])
    assert [p.source for p in parts] == ["---\n## Summary\n\n- a\n\n```\n## not a heading\n```", "## Exercises\n\n1. x",
                                         "plain"]
    assert parts[1].id == "c07-42-1" and parts[0].id == "c07-42"
    assert book.strip_rules("---\n## Summary\n\n- a\n\n---\n") == "## Summary\n\n- a"
    assert book.strip_rules("A setext heading\n---") == "A setext heading\n---"


def test_a_cells_speaker_notes_become_a_notes_slide_after_it():
    said = nbformat.v4.new_markdown_cell("## A chart", metadata={"speaker_notes": "Point at the lone dot."})
    cells = book.with_speaker_notes([said, nbformat.v4.new_markdown_cell("plain")])
    assert [c.source for c in cells] == ["## A chart", "Point at the lone dot.", "plain"]
    assert cells[1].metadata["slideshow"]["slide_type"] == "notes"


def test_presenter_cells_are_notes_and_hidden_inputs_send_their_logs_to_the_speaker_view():
    """A cell tagged presenter (a heading too) is notes; a code cell tagged hide-input shows the audience only its
    outputs, and its printed lines go to a notes cell right after it (a presenter's cell keeps them)."""
    how = {"cell_type": "markdown", "id": "a", "metadata": {"tags": ["presenter"]}, "source": "## How to present"}
    course_nav.slide_types([how])
    assert how["metadata"]["slideshow"]["slide_type"] == "notes"
    chart = nbformat.v4.new_code_cell("var x = Seminar.live(...);", metadata={
        "tags": ["chart", "hide-input"], "slideshow": {"slide_type": "subslide"}})
    chart.outputs = [nbformat.v4.new_output("display_data", data={"text/plain": "S01 · fixed-8: 3,167 ± 38 ms/op"}),
                     nbformat.v4.new_output("display_data", data={"text/plain": ""}),
                     nbformat.v4.new_output("stream", name="stdout", text="Live: 31 s of its 90 s slot.\n"),
                     nbformat.v4.new_output("display_data", data={"image/png": "x"})]
    check = nbformat.v4.new_code_cell("Seminar.preflight();", metadata={
        "tags": ["presenter", "hide-input"], "slideshow": {"slide_type": "notes"}})
    check.outputs = [nbformat.v4.new_output("stream", name="stdout", text="To do: close the browser\n")]
    plain = nbformat.v4.new_code_cell("var y = 2;")
    cells = book.for_the_audience([chart, check, plain])
    assert [c.cell_type for c in cells] == ["code", "markdown", "code", "code"]
    assert cells[0].metadata["transient"]["remove_source"] and [o.output_type for o in cells[0].outputs] == \
        ["display_data"]
    assert cells[1].metadata["slideshow"]["slide_type"] == "notes" and "Live: 31 s" in cells[1].source
    assert "3,167 ± 38 ms/op\nLive" in cells[1].source, "a benchmark's kept result is a log line for the presenter"
    assert cells[2].metadata["transient"]["remove_source"] and cells[2].outputs == check.outputs
    assert "transient" not in cells[3].metadata and len(chart.outputs) == 4, "copies, not the cells"


BROKEN_NAME = re.compile(r"\b(?:\w+\.){2,}\s+\w")  # spring.threads.virtual. enabled: a dotted name cut at a dot


def test_the_seminars_speaker_notes_keep_dotted_names_whole():
    nb = nbformat.read(HOME / "notebooks" / "09-seminar-in-45-minutes.ipynb", as_version=4)
    notes = [c.metadata["speaker_notes"] for c in nb.cells if c.metadata.get("speaker_notes")]
    assert notes and not [m.group(0) for n in notes for m in BROKEN_NAME.finditer(n)]
    assert BROKEN_NAME.search("`spring.threads.virtual.\nenabled=true`") and \
        not BROKEN_NAME.search("spring.threads.virtual.enabled=true. Then")


def test_make_book_and_make_slides_set_up_then_run_tools_book_py(monkeypatch):
    calls = []
    monkeypatch.setattr(course, "setup_and_report", lambda: calls.append("set-up"))
    monkeypatch.setattr(course, "run_to_end", lambda cmd, env: calls.append(cmd) or 0)
    assert course.main(["book"]) == 0 and course.main(["slides", "--fresh"]) == 0
    assert calls[0] == calls[2] == "set-up"
    assert calls[1][1:] == [str(HOME / "tools" / "book.py"), "book"]
    assert calls[3][1:] == [str(HOME / "tools" / "book.py"), "slides", "--fresh"]
    make = (HOME / "Makefile").read_text()
    assert re.search(r"^book: +## ", make, re.M) and re.search(r"^slides: +## ", make, re.M)


def _tgz(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def test_korean_text_carries_its_font_and_the_check_sees_it_missing():
    """A page with a Korean title embeds the glyphs it uses (tools/book_fonts.py) and wraps them in the font's class;
    the page check (tests/page.py) fails the same page without them, as the Chromium here drew them: empty boxes."""
    import book_fonts
    import page as page_check
    raw = ("<html><head><title>x</title></head><body><h1>Sources</h1><p>Ray123's write-up "
           "\"JDK21부터 도입된 자바의 마법, Virtual Thread\" (Oct 2024)</p><pre>no Korean here</pre></body></html>")
    assert page_check.check_book_page("raw", raw), "a page with Korean and no font for it passed"
    done = book_fonts.with_hangul_font(raw)
    assert page_check.check_book_page("done", done) == []
    assert '<span class="course-hangul">부터</span>' in done and done.count("@font-face") == 1
    assert len(done) - len(raw) < 40_000, "the embedded font should be a subset of a few kB"
    plain = "<html><head></head><body><p>only Latin</p></body></html>"
    assert book_fonts.with_hangul_font(plain) == plain


def test_reveal_js_is_fetched_once_checked_and_unpacked(tmp_path, monkeypatch):
    import urllib.request

    payload = _tgz({"package/dist/reveal.js": b"/* reveal */", "package/../evil": b"x", "package/LICENSE": b"MIT"})
    fetched = []

    class Response(io.BytesIO):
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    def urlopen(url, timeout=None):
        fetched.append(url)
        return Response(payload)
    monkeypatch.setattr(course_base, "STATE", tmp_path)
    monkeypatch.setattr(urllib.request, "urlopen", urlopen)
    with pytest.raises(course_base.SetupError, match="has sha256 .* not the pinned"):
        course_install.ensure_reveal()
    assert not course_install.reveal_dir().exists(), "nothing is unpacked from a download that fails its check"
    monkeypatch.setattr(course_install, "REVEAL_SHA256", __import__("hashlib").sha256(payload).hexdigest())
    assert course_install.ensure_reveal().startswith(course_install.REVEAL_VERSION)
    assert (course_install.reveal_dir() / "dist" / "reveal.js").read_bytes() == b"/* reveal */"
    assert not (tmp_path / "evil").exists() and not (course_install.reveal_dir().parent / "evil").exists()
    course_install.ensure_reveal()
    assert len(fetched) == 2, "a complete copy is not fetched again"

    def offline(url, timeout=None):
        raise OSError("Network is unreachable")
    monkeypatch.setattr(urllib.request, "urlopen", offline)
    monkeypatch.setattr(course_base, "STATE", tmp_path / "fresh")
    with pytest.raises(course_base.SetupError) as err:
        course_install.ensure_reveal()
    assert "Network is unreachable" in str(err.value) and "\n" not in str(err.value)


# ----------------------------------------------------------------------------- the book and the slides, built

def _build(kind: str) -> tuple[float, str]:
    start = time.monotonic()
    run = subprocess.run([sys.executable, str(HOME / "tools" / "book.py"), kind], cwd=HOME, capture_output=True,
                         text=True, timeout=1800, stdin=subprocess.DEVNULL, env=dict(os.environ, UNPINNED_HOME=str(HOME)))
    seconds = time.monotonic() - start
    assert run.returncode == 0, f"tools/book.py {kind} failed:\n{run.stdout[-3000:]}\n{run.stderr[-3000:]}"
    said = [line for line in run.stdout.splitlines() if line.startswith(f"[unpinned] {kind}: ")]
    assert said, run.stdout
    return seconds, said[-1]


@pytest.fixture(scope="module")
def built(results_dir, chapters, request):
    """Every notebook executed in this session first (cached: no second run), then the book and the slides."""
    wanted = _chapters_shown(request)
    for path in wanted:
        chapters.executed(path.name)
    missing = [p.name[:2] for p in CHAPTERS if p not in wanted and _unusable(EXECUTED / p.name)]
    if missing:
        pytest.skip(f"the book shows every chapter, and chapters {', '.join(missing)} have no usable run in"
                    f" build/executed/: select their tests too (or the whole of test_book.py)")
    runs = {}
    for kind in ("book", "slides"):
        seconds, said = _build(kind)
        assert "from the test run's notebooks" in said, f"{kind} executed a notebook again: {said}"
        runs[kind] = (seconds, said)
    book_s, slides_s = runs["book"][0], runs["slides"][0]
    for kind, (seconds, said) in runs.items():
        counts = re.search(r": (.*?), built in", said).group(1)
        report(f"{kind}: {counts}, built in {seconds:.0f} s from this session's notebooks")
    report(f"book + slides: {book_s + slides_s:.0f} s (target: < 90 s on 2 cores)")
    return {p.name: nbformat.read(EXECUTED / p.name, as_version=4) for p in CHAPTERS}


def _chapters_shown(request) -> list[Path]:
    """The chapters this session's selected book tests look at: one chapter's, when each of them is parametrized by
    its chapter (`-k 05` runs chapter 05 alone, the others' pages coming from their last run in build/executed/);
    else every chapter."""
    selected = [item for item in request.session.items if item.path == request.path and "built" in item.fixturenames]
    names = {item.callspec.params["path"].name if hasattr(item, "callspec") and "path" in item.callspec.params
             else None for item in selected}
    if None in names:
        return CHAPTERS
    return [p for p in CHAPTERS if p.name in names]


def _unusable(path: Path) -> str | None:
    """Why tools/book.py would execute this chapter again (no copy, or one from a failed run), or None."""
    if not path.is_file():
        return "not executed"
    try:
        return book.unusable(nbformat.read(path, as_version=4))
    except Exception as e:
        return f"unreadable: {e}"


class _Refs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs: list[tuple[str, str, str]] = []  # (tag, attribute, value)

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.refs.append((tag, name, value))


def _refs(page: Path) -> list[tuple[str, str, str]]:
    parser = _Refs()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser.refs


def test_every_chapter_is_a_page_with_all_its_charts(built):
    for name, nb in built.items():
        ids = [c.get("id") for c in nb.cells]
        assert ids[0] == course_nav.NAV_TOP and ids[-1] == course_nav.NAV_BOTTOM, \
            f"build/executed/{name} lost a navigation cell (a probe cell stored over it?): {ids[:2]} ... {ids[-1:]}"
        page = BOOK / name.replace(".ipynb", ".html")
        assert page.is_file(), f"no page for {name}"
        text = page.read_text(encoding="utf-8")
        shown = len(PNG.findall(text))
        assert shown == book.charts(nb), f"{page.name}: {shown} inline PNGs, the executed notebook has {book.charts(nb)}"
        machine, profile = book.machine_line(book._stdout(nb))
        assert machine and f"Ran on {machine}" in text and f"profile {profile}" in text, page.name
        slides = SLIDES / name.replace(".ipynb", ".slides.html")
        assert slides.is_file() and len(PNG.findall(slides.read_text(encoding="utf-8"))) == book.charts(nb)


def test_navigation_and_every_local_link_resolve(built):
    names = [n.replace(".ipynb", "") for n in built]
    for folder in (BOOK, SLIDES):
        for page in sorted(folder.glob("*.html")):
            for tag, attr, value in _refs(page):
                url = urlsplit(value)
                if url.scheme in ("http", "https", "mailto", "data") or value.startswith("#"):
                    continue
                assert not url.scheme and not url.netloc, f"{page.name}: {tag} {attr}={value}"
                target = (page.parent / unquote(url.path)).resolve()
                assert target.exists(), f"{page.relative_to(HOME)}: {tag} {attr}={value} points at nothing"
    for i, name in enumerate(names):
        hrefs = [v for tag, _, v in _refs(BOOK / f"{name}.html") if tag == "a"]
        assert hrefs.count("index.html") >= 2, f"{name}.html: Contents at the top and the bottom"
        if i > 0:
            assert hrefs.count(f"{names[i - 1]}.html") >= 2, f"{name}.html: no link back to {names[i - 1]}"
        if i + 1 < len(names):
            assert hrefs.count(f"{names[i + 1]}.html") >= 2, f"{name}.html: no link on to {names[i + 1]}"
        assert not any(h.endswith(".ipynb") or "README.md" in h for h in hrefs), f"{name}.html links a notebook"


def test_korean_text_is_drawn_with_the_font_the_page_carries(built):
    """Every book and slides page with Korean text carries a font with a glyph for each of its characters."""
    import page as page_check
    checked, problems = 0, []
    for folder in (BOOK, SLIDES):
        for p in sorted(folder.glob("*.html")):
            found = page_check.check_book_page(p.name, p.read_text(encoding="utf-8"))
            checked += 1
            problems += found
    page_check.TOTAL.chart_checks += checked
    page_check.TOTAL.chart_failed += len(problems)
    assert not problems, "\n".join(problems)


def test_nothing_is_loaded_from_the_network(built):
    for folder in (BOOK, SLIDES):
        for page in sorted(folder.glob("*.html")):
            assert book.external_refs(page.read_text(encoding="utf-8")) == [], page.relative_to(HOME)
    for css in sorted((SLIDES / "reveal.js").rglob("*.css")):
        assert not re.search(r"(url\(|@import)\s*[\"']?\s*(https?:)?//", css.read_text()), css.relative_to(HOME)


def test_the_landing_page_names_each_run(built):
    index = (BOOK / "index.html").read_text(encoding="utf-8")
    for name, nb in built.items():
        machine, profile = book.machine_line(book._stdout(nb))
        assert machine in index and f"<td>{profile}</td>" in index, name
        assert f'href="{name.replace(".ipynb", ".html")}"' in index
        assert course_nav.notebook_title(nb) in index.replace("&#x27;", "'").replace("&amp;", "&")
        assert f'href="../slides/{name.replace(".ipynb", ".slides.html")}"' in index
    assert 'id="chapters"' in index
    slides_index = (SLIDES / "index.html").read_text(encoding="utf-8")
    assert all(f'href="{n.replace(".ipynb", ".slides.html")}"' in slides_index for n in built)


# ----------------------------------------------------------------------------- in Chromium, offline

@pytest.fixture(scope="module")
def offline_browser(built, chapters):
    browser = chapters.browser()  # the session's one Chromium: Playwright drives one per thread
    if browser is None:
        pytest.skip(chapters.why_no_browser)
    return browser


@pytest.fixture
def offline(offline_browser):
    """A page with no network: the context is offline, and any request that is not for a local file (or inline
    data) is aborted and counted."""
    context = offline_browser.new_context(viewport={"width": 1400, "height": 900}, offline=True)
    context.set_default_timeout(30_000)
    aborted, errors = [], []

    def route(r):
        if r.request.url.startswith(("file:", "data:", "about:", "blob:")):
            r.continue_()
        else:
            aborted.append(r.request.url)
            r.abort()
    context.route("**/*", route)
    page = context.new_page()
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        yield page, aborted, errors
    finally:
        context.close()


# The charts (PNG), apart from the diagrams (SVG data URIs from notebooks/figures), which are counted on their own
IMAGES_JS = ("() => Array.from(document.images).filter(i => !i.src.startsWith('data:image/svg+xml'))"
             ".map(i => [i.complete, i.naturalWidth])")
DIAGRAMS_JS = ("() => Array.from(document.images).filter(i => i.src.startsWith('data:image/svg+xml'))"
               ".map(i => [i.complete, i.naturalWidth])")
FIGURE = re.compile(r"\]\(figures/[\w.-]+\.svg\)")


def figures(nb) -> int:
    """The diagrams a notebook's Markdown shows."""
    return sum(len(FIGURE.findall(c.source)) for c in nb.cells if c.cell_type == "markdown")


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.name[:2])
def test_the_slides_show_offline_with_their_charts(path, built, offline):
    page, aborted, errors = offline
    nb = built[path.name]
    headings = sum(1 for c in nb.cells if c.cell_type == "markdown" for line in c.source.splitlines()
                   if line.startswith("## "))
    start = time.monotonic()
    page.goto((SLIDES / path.name.replace(".ipynb", ".slides.html")).as_uri())
    page.wait_for_function("() => window.Reveal && Reveal.isReady()", timeout=30_000)
    total = page.evaluate("() => Reveal.getTotalSlides()")
    assert total >= max(headings, 2), f"{total} slides for {headings} '## ' headings"
    images = page.evaluate(IMAGES_JS)
    assert len(images) == book.charts(nb), f"{len(images)} images on the slides, {book.charts(nb)} charts"
    assert all(done and width > 0 for done, width in images), f"a chart did not load: {images}"
    diagrams = page.evaluate(DIAGRAMS_JS)
    assert len(diagrams) == figures(nb) and all(done and width > 0 for done, width in diagrams), \
        f"{len(diagrams)} diagrams shown of {figures(nb)}: {diagrams}"
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => Reveal.getSlidePastCount() === 1", timeout=5_000)
    assert page.evaluate("() => Reveal.getProgress()") > 0
    # the first slide with a chart, as a presenter would show it
    chart = page.evaluate("""() => { const s = Reveal.getSlides().find(s => s.querySelector('img'));
        return s ? Reveal.getIndices(s) : null; }""")
    if chart:
        page.evaluate("([h, v]) => Reveal.slide(h, v)", [chart["h"], chart["v"] or 0])
        page.wait_for_timeout(300)
        assert page.locator(".reveal section.present img").first.is_visible(), "the chart on its slide is hidden"
    shot = bl.SCREENSHOTS / f"slides-{path.name[:2]}.png"
    shot.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(shot))
    assert aborted == [], f"the slides asked the network for {aborted}"
    assert errors == [], f"script errors: {errors}"
    report(f"slides {path.name[:2]}: {total} slides, {len(images)} charts, shown offline in"
           f" {time.monotonic() - start:.1f} s, 0 network requests ({shot.relative_to(HOME)})")


FLAME_GRAPH = "Flame graph"  # ProfilingRuns.FLAME_GRAPH: the title every flame graph starts with


def flame_graph_positions(nb) -> list[int]:
    """Where the flame graphs are among an executed notebook's PNG outputs (the book shows them in that order)."""
    positions, n = [], 0
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if "image/png" in out.get("data", {}):
                chart = (out.get("metadata") or {}).get("unpinned/chart") or {}
                if chart.get("title", "").startswith(FLAME_GRAPH):
                    positions.append(n)
                n += 1
    return positions


def test_the_book_reads_offline_with_every_chart(built, offline):
    page, aborted, errors = offline
    page.goto((BOOK / "index.html").as_uri())
    links = page.locator("table a[href$='.html']:not([href^='../'])")
    assert links.count() == len(built)
    seen, flames = 0, []
    for name, nb in built.items():
        page.goto((BOOK / name.replace(".ipynb", ".html")).as_uri())
        images = page.evaluate(IMAGES_JS)
        assert len(images) == book.charts(nb) and all(done and width > 0 for done, width in images), (name, images)
        seen += len(images)
        if name[:2] in ("01", "04"):
            page.screenshot(path=str(bl.SCREENSHOTS / f"book-{name[:2]}.png"))
        for old in bl.SCREENSHOTS.glob(f"book-{name[:2]}-flame-graph-*.png"):
            old.unlink()
        charts = page.locator("img[src^='data:image/png']")
        for k, position in enumerate(flame_graph_positions(nb), 1):  # each flame graph, as the book shows it
            image = charts.nth(position)
            image.scroll_into_view_if_needed()
            natural, shown = image.evaluate("i => [i.naturalWidth, i.getBoundingClientRect().width]")
            assert natural >= 800 and shown >= 400, f"{name}: flame graph {k} drawn {natural} px, shown {shown} px"
            shot = bl.SCREENSHOTS / f"book-{name[:2]}-flame-graph-{k}.png"
            image.screenshot(path=str(shot))
            flames.append(shot.relative_to(HOME))
    page.locator(".book-nav-top a[rel=contents]").click()
    page.wait_for_url("**/index.html")
    assert aborted == [] and errors == [], (aborted, errors)
    report(f"book in Chromium, offline: {len(built)} pages, {seen} charts loaded, 0 network requests; {len(flames)}"
           f" flame graphs shown ({', '.join(map(str, flames)) or 'none'})")


SEMINAR = "09-seminar-in-45-minutes.ipynb"
PRESENTER_TABLES = ("Pre-flight", "Running order")  # Seminar.PREFLIGHT_TITLE, Seminar.ORDER_TITLE
# Per slide of the built deck (reveal.js's slides, stacks left out), what the audience sees and the speaker view
# holds: notes' length, code inputs (helper calls), presenter tables, live parts (cells tagged live) and those
# among them that carry a reference run's chart.
AUDIT_JS = """(titles) => Reveal.getSlides().map(s => {
    const seen = el => !el.closest('aside.notes');
    const all = sel => Array.from(s.querySelectorAll(sel)).filter(seen);
    const live = all('.celltag_live');
    const i = Reveal.getIndices(s);
    return {h: i.h, v: i.v || 0, title: ((s.querySelector('h1, h2, h3') || {}).textContent || '').trim(),
        notes: Array.from(s.querySelectorAll('aside.notes')).map(a => a.textContent.trim()).join(' ').length,
        helpers: all('.jp-CodeCell .jp-InputArea').length,
        tables: all('table').filter(t => titles.some(x => (t.closest('.jp-OutputArea-output') || t).textContent
            .includes(x))).length,
        live: live.length, fallbacks: live.filter(c => c.querySelector('.seminar-reference img')).length};
})"""
SHOWN_JS = """(sel) => Array.from(document.querySelectorAll('.reveal section.present:not(.stack) ' + sel))
    .filter(e => e.getClientRects().length > 0 && getComputedStyle(e).display !== 'none').length"""
# each seminar chart shown: the width its picture is drawn at (object-fit keeps its proportions), and the slide's
WIDTH_JS = """() => Array.from(document.querySelectorAll('.reveal section.present:not(.stack) .seminar-figure img'))
    .filter(i => i.getClientRects().length > 0 && getComputedStyle(i.closest('figure')).display !== 'none')
    .map(i => { const r = i.getBoundingClientRect();
        return [Math.min(r.width, r.height * i.naturalWidth / i.naturalHeight),
                document.querySelector('.reveal .slides').getBoundingClientRect().width]; })"""


def test_the_seminar_deck_shows_the_subject_with_notes_and_a_fallback_per_live_part(built, offline, results_dir):
    """Chapter 09, the 45-minute talk, as its deck shows it offline: no helper call and no presenter table on an
    audience slide, speaker notes on every slide, every live part with the reference run's chart behind it (R swaps
    them), a screenshot of every slide; and its running order (planned talking plus the live runs measured in this
    session, and what that leaves for questions), printed on the `seminar:` line."""
    page, aborted, errors = offline
    nb = built[SEMINAR]
    deck = SLIDES / SEMINAR.replace(".ipynb", ".slides.html")
    page.goto(deck.as_uri())
    page.wait_for_function("() => window.Reveal && Reveal.isReady()", timeout=30_000)
    slides = page.evaluate(AUDIT_JS, list(PRESENTER_TABLES))
    for old in bl.SCREENSHOTS.glob("seminar-*.png"):
        old.unlink()
    shots, narrow, widths = [], [], []
    for k, s in enumerate(slides, 1):
        page.evaluate("([h, v]) => Reveal.slide(h, v)", [s["h"], s["v"]])
        page.wait_for_timeout(250)
        shown = page.evaluate(WIDTH_JS)
        widths += [w / full for w, full in shown]
        narrow += [f"slide {k}: {w:.0f} of {full:.0f} px" for w, full in shown if w < 0.75 * full]
        shot = bl.SCREENSHOTS / f"seminar-{k:02d}.png"
        page.screenshot(path=str(shot))
        shots.append(shot)
        if s["live"]:
            before = page.evaluate(SHOWN_JS, ".seminar-live img, .seminar-fallback img")
            page.keyboard.press("r")
            page.wait_for_timeout(250)
            assert page.evaluate(SHOWN_JS, ".seminar-reference img") >= 1, f"slide {k}: R shows no reference chart"
            page.screenshot(path=str(bl.SCREENSHOTS / f"seminar-{k:02d}-reference.png"))
            page.keyboard.press("r")
            page.wait_for_timeout(100)
            assert page.evaluate(SHOWN_JS, ".seminar-live img, .seminar-fallback img") == before == 1, \
                f"slide {k}: R did not swap back to the live chart (or the fallback)"
    helpers, tables = sum(s["helpers"] for s in slides), sum(s["tables"] for s in slides)
    noted = sum(1 for s in slides if s["notes"] > 0)
    live, fallbacks = sum(s["live"] for s in slides), sum(s["fallbacks"] for s in slides)
    assert helpers == 0 and tables == 0, [s for s in slides if s["helpers"] or s["tables"]]
    assert noted == len(slides), f"slides without notes: {[s['title'] or s for s in slides if not s['notes']]}"
    assert live >= 3 and fallbacks == live, [s for s in slides if s["live"]]
    assert not narrow, f"seminar charts under 3/4 of the slide's width: {narrow}"
    assert figures(nb) == 2 and aborted == [] and errors == [], (figures(nb), aborted, errors)
    order = json.loads(sorted((results_dir / "09-seminar").glob("*.json"))[-1].read_text())["data"]
    parts, runs = order["parts"], order["live"]
    assert abs(sum(p["talkMinutes"] + p["liveSeconds"] / 60 for p in parts) - order["totalMinutes"]) < 0.2, order
    assert order["questionsMinutes"] == pytest.approx(order["talkMinutes"] - order["totalMinutes"], abs=0.1)
    assert order["questionsMinutes"] >= 8 and len(runs) == live, order
    report("seminar: " + "; ".join(f"{p['name']} {p['talkMinutes']} min + {p['liveSeconds']:.0f} s live"
                                   for p in parts)
           + f" = {order['totalMinutes']:.1f} of {order['talkMinutes']} min ({order['profile']} profile, this"
           f" machine); {helpers} helper calls and {tables} presenter tables on audience slides; notes on {noted} of"
           f" {len(slides)} slides; Q&A {order['questionsMinutes']:.1f} min; fallbacks {fallbacks} of {live} live"
           f" parts; {len(widths)} charts drawn at {min(widths, default=0):.0%} to {max(widths, default=0):.0%} of the"
           f" slide's width (live parts: "
           + ", ".join(f"{r['experiment']} {r['shown']} {r['seconds']:.0f} of {r['budgetSeconds']} s"
                                   for r in runs)
           + f"); screenshots {shots[0].parent.relative_to(HOME)}/seminar-NN.png")
