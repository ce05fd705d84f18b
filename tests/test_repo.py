"""Static checks: what a fresh clone must look like before anything runs."""
import csv
from pathlib import Path
import json
import re

import nbformat
import pytest

from conftest import HOME, KERNEL_NAME, catalog, java_code, missing_sources

NOTEBOOKS = sorted((HOME / "notebooks").glob("[0-9][0-9]-*.ipynb"))  # index.ipynb: generated, checked by nav
SNIPPETS = sorted((HOME / "snippets").glob("*.java"))


def test_there_is_a_course():
    assert NOTEBOOKS and SNIPPETS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_is_committed_clean_and_names_the_course_kernel(path):
    nb = nbformat.read(path, as_version=4)
    assert re.fullmatch(r"\d\d-[a-z0-9-]+\.ipynb", path.name), "notebooks are named NN-title.ipynb"
    assert nb.metadata.get("kernelspec", {}).get("name") == KERNEL_NAME
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.get("outputs"), f"{path.name}: commit notebooks without outputs"
            assert cell.get("execution_count") is None, f"{path.name}: clear execution counts"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_ends_with_summary_and_exercises(path):
    nb = nbformat.read(path, as_version=4)
    headings = [line for c in nb.cells if c.cell_type == "markdown" for line in c.source.splitlines()
                if line.startswith("#")]
    assert any("Summary" in h for h in headings), f"{path.name} has no Summary section"
    if not path.name.startswith(("00-", "09-")):  # 00 checks the set-up; 09 is a talk (its take-home: the chapters')
        assert any("Exercises" in h for h in headings), f"{path.name} has no Exercises section"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_cells_stay_short(path):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert len(cell.source.splitlines()) <= 15, f"{path.name}: a cell does one thing:\n{cell.source}"


MARKDOWN_WORDS = 150  # a slide's worth: what a presenter shows; the rest goes to a speaker-notes cell


def test_markdown_cells_are_slide_sized():
    """Every markdown cell (speaker notes too) holds at most MARKDOWN_WORDS words (whitespace-separated tokens),
    one idea per cell, so each fits a slide of the seminar: a longer one is split at its seams, or what a presenter
    says rather than shows goes to a cell of its own with slide type "notes". (index.ipynb: generated, not checked.)"""
    long = []
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            words = len(re.findall(r"\S+", cell.source))
            if cell.cell_type == "markdown" and words > MARKDOWN_WORDS:
                long.append(f"{path.name[:2]} {cell.get('id')}: {words} words")
    assert not long, f"markdown cells over {MARKDOWN_WORDS} words (split them, or move detail to notes):\n" + \
        "\n".join(long)


def test_every_snippet_has_an_alias_and_every_alias_a_file():
    aliases = catalog()
    refs = {(HOME / a["script-ref"]).resolve() for a in aliases.values()}
    for s in SNIPPETS:
        assert s.resolve() in refs, f"{s.name} has no alias in jbang-catalog.json"
    for name, a in aliases.items():
        assert (HOME / a["script-ref"]).is_file(), f"alias {name} points at a missing file {a['script-ref']}"
        assert len(a.get("description", "")) > 20, f"alias {name} needs a description"


def test_snippets_follow_the_house_style():
    for s in SNIPPETS:
        text = s.read_text()
        assert re.fullmatch(r"S\d\d_[A-Za-z0-9]+\.java", s.name), s.name
        assert "package unpinned.snippets;" in text, f"{s.name}: JMH needs a package"
        assert "How to run" in text and "What you should see" in text, f"{s.name}: closing block missing"
        # Experiment.named and SpringArgs.parseOrExit announce the profile first thing; a JMH snippet names it
        announces = re.search(r"\bProfile\.|\bExperiment\.named\(|\bSpringArgs\.parseOrExit\(|\bS\d\d_\w+\.main\(", text)
        assert announces, f"{s.name} must print the profile it uses"


def _course_nav():
    import sys
    sys.path.insert(0, str(HOME / "tools"))
    import course_nav
    return course_nav


def test_the_readme_links_every_chapter_and_the_snippets_page_every_alias():
    snippets = (HOME / _course_nav().SNIPPETS_FILE).read_text()
    for name in catalog():
        assert f"`{name}`" in snippets or f"jbang {name}" in snippets, f"docs/snippets.md does not mention alias {name}"
    readme = (HOME / "README.md").read_text()
    for nb in NOTEBOOKS:
        assert f"(notebooks/{nb.name})" in readme, f"README does not link {nb.name}"


README_MAX_LINES = 160  # the front door: what the course is, how to start, the chapters, the layout; the rest in docs/


def test_the_readme_is_a_front_door():
    lines = (HOME / "README.md").read_text().count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines (at most {README_MAX_LINES}): move detail to docs/"


def github_anchors(markdown: str) -> set[str]:
    """The anchors a Markdown page offers on GitHub and in JupyterLab: each heading's slug (lower case, punctuation
    dropped, spaces to hyphens; a repeated one numbered) and every explicit `<a id="...">`."""
    text = re.sub(r"^```.*?^```", "", markdown, flags=re.S | re.M)
    found, seen = set(re.findall(r'<a id="([^"]+)"', text)), {}
    for heading in re.findall(r"^#{1,6} (.+?)\s*$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", re.sub(r"`|\[|\]\([^)]*\)", "", heading).lower()).replace(" ", "-")
        found.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
        seen[slug] = seen.get(slug, 0) + 1
    return found


def broken_links(page: Path) -> list[str]:
    """The relative links of a Markdown page whose file is missing, or whose anchor a Markdown target lacks."""
    text = re.sub(r"`[^`\n]*`", "", re.sub(r"^```.*?^```", "", page.read_text(), flags=re.S | re.M))
    broken = []
    for target in re.findall(r"\]\(<?([^)\s>]+)>?\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        path = (page.parent / file).resolve() if file else page
        if not path.exists():
            broken.append(f"{target}: no such file")
        elif anchor and path.suffix == ".md" and anchor not in github_anchors(path.read_text()):
            broken.append(f"{target}: {path.name} has no such heading")
    return broken


MARKDOWN_PAGES = [HOME / "README.md", HOME / "CONTRIBUTING.md", *sorted((HOME / "docs").glob("*.md"))]


@pytest.mark.parametrize("page", MARKDOWN_PAGES, ids=lambda p: str(p.relative_to(HOME)))
def test_every_relative_link_resolves(page):
    assert not broken_links(page), f"{page.relative_to(HOME)}: " + "; ".join(broken_links(page))


def test_a_broken_link_or_anchor_is_caught(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text('<a id="chapters"></a>\n\n## The `nav` tool, in short\n')
    page = tmp_path / "docs" / "x.md"
    page.write_text("[a](../README.md#chapters) [b](../README.md#the-nav-tool-in-short) [c](#here)\n\n## Here\n"
                    "```\n[not a link](nowhere.md)\n```\n`![nor this](x.svg)`\n")
    assert broken_links(page) == []
    page.write_text("[a](../README.md#routes) [b](missing.md) [c](https://example.org/x)\n")
    assert broken_links(page) == ["../README.md#routes: README.md has no such heading", "missing.md: no such file"]


def test_published_figures_parse_and_name_their_source():
    sources = {r["id"] for r in csv.DictReader((HOME / "data" / "sources.csv").open())}
    files = sorted((HOME / "data" / "published").glob("*.csv"))
    assert files
    for f in files:
        rows = list(csv.DictReader(f.open()))
        assert rows and all(r["source"] in sources and float(r["value"]) >= 0 for r in rows), f.name
        assert f.stem in sources, f"{f.name}: a published-figures file is named after its source's id"
        assert f.name in (HOME / "data" / "README.md").read_text(), f"{f.name} is not described in data/README.md"


def test_catalog_parses():
    json.loads((HOME / "jbang-catalog.json").read_text())


def test_navigation_cells_are_current():
    import subprocess, sys
    run = subprocess.run([sys.executable, str(HOME / "tools" / "course.py"), "nav", "--check"], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_snippets_table_is_the_catalog_and_a_hand_edit_is_stale(tmp_path, monkeypatch, capsys):
    """The Snippets table (docs/snippets.md) is generated from jbang-catalog.json by `nav`: every alias, its script,
    its description; a row edited by hand (or an alias added to the catalog only) makes `nav --check` fail."""
    course_nav = _course_nav()
    import course_base
    aliases = catalog()
    page = course_nav.SNIPPETS_FILE
    text = (HOME / page).read_text()
    table = text.split(course_nav.SNIPPETS_BEGIN, 1)[1].split(course_nav.SNIPPETS_END, 1)[0]
    rows = [r for r in table.splitlines() if r.startswith("| `")]
    assert [re.match(r"\| `([^`]+)`", r)[1] for r in rows] == \
        [n for n, _ in sorted(aliases.items(), key=lambda kv: (kv[1]["script-ref"], kv[0]))]
    for row in rows:
        name = re.match(r"\| `([^`]+)`", row)[1]
        ref = aliases[name]["script-ref"]
        assert f"[{Path(ref).name}](../{ref})" in row and aliases[name]["description"].replace("|", "/") in row, row
    # a copy of the course whose snippets table has one description edited by hand
    (tmp_path / "docs").mkdir()
    for name in ("README.md", "jbang-catalog.json", course_nav.INDEX_FILE, page):
        (tmp_path / name).write_text((HOME / name).read_text())
    (tmp_path / "notebooks").mkdir()
    for nb in [*NOTEBOOKS, HOME / "notebooks" / course_nav.INDEX_NOTEBOOK]:
        (tmp_path / "notebooks" / nb.name).write_text(nb.read_text())
    monkeypatch.setattr(course_base, "HOME", tmp_path)
    assert course_nav.nav(check=True) == 0, capsys.readouterr().out
    edited = rows[0].replace(" |", " (edited by hand) |", 3)
    (tmp_path / page).write_text(text.replace(rows[0], edited, 1))
    assert course_nav.nav(check=True) == 1
    assert f"{page} (snippets)" in capsys.readouterr().out
    assert course_nav.nav(check=False) == 0 and (tmp_path / page).read_text() == text


def test_reference_runs_carry_their_machine_and_command():
    runs = sorted(p for p in (HOME / "data" / "reference-runs").iterdir() if p.is_dir())
    assert runs
    for run in runs:
        assert "command" in (run / "README.md").read_text().lower(), f"{run.name}: say how it was produced"
        for f in run.glob("*.json"):
            record = json.loads(f.read_text())
            for key in ("jdk", "cores", "os", "profile", "time"):
                assert record["machine"].get(key), f"{f}: machine record lacks {key}"
            assert record["data"], f"{f}: no measurements"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_cells_print_whole_lines(path):
    """JJava sends each fragment of a printf as its own stream message, which some front ends show line by line."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert "System.out.printf" not in cell.source, f"{path.name}: use println(String.format(...)):\n{cell.source}"


def test_sources_are_cited_by_name_not_by_workspace_ids():
    """Learners don't have the course authors' workspace: no 'seed NNN' wording and no ../shared paths anywhere
    they read (notebooks, snippets, helpers, README, catalog, data), and every source has a citation."""
    words = re.compile(r"\bseeds?\b|seed[ -]?\d{3}|\.\./shared", re.I)
    readable = [*NOTEBOOKS, *SNIPPETS, HOME / "README.md", HOME / "jbang-catalog.json",
                *(HOME / "helpers").rglob("*.java"), *(HOME / "helpers").rglob("*.md"),
                *(p for p in (HOME / "data").rglob("*") if p.is_file() and p.suffix in (".md", ".csv", ".json"))]
    for path in readable:
        found = words.findall(path.read_text(errors="replace"))
        assert not found, f"{path.relative_to(HOME)} says {found[:3]}: cite the source by name (data/sources.md)"
        assert not words.search(path.name), f"{path.relative_to(HOME)}: name files after the source's id"
    rows = list(csv.DictReader((HOME / "data" / "sources.csv").open()))
    assert len(rows) == 5 and all(r["id"] and r["title_en"] and r["kind"] and r["date"] for r in rows), rows
    for r in rows:
        assert f"`{r['id']}`" in (HOME / "data" / "sources.md").read_text(), f"sources.md has no section for {r['id']}"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_code_fits_the_editor(path):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            for line in cell.source.splitlines():
                assert len(line) <= 100, f"{path.name}: a code line of {len(line)} columns (at most 100):\n{line}"


def _code_without_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def test_every_helper_sources_the_helpers_it_uses_and_a_snippet_only_its_own():
    """A helper names the helpers it uses in its own //SOURCES (JBang follows them), so a snippet lists only the
    helpers it calls itself: everything they bring in is closed under use (a JBang cache can hide a missing file on
    one machine; a fresh CI then fails to compile)."""
    for helper in sorted((HOME / "helpers" / "unpinned").rglob("*.java")):
        assert not missing_sources(helper), f"{helper.name}: {missing_sources(helper)}: add them to its //SOURCES"
    for snippet in SNIPPETS:
        assert not missing_sources(snippet), f"{snippet.name}: {missing_sources(snippet)}: add them to //SOURCES"
        helpers = {p.stem for p in (HOME / "helpers" / "unpinned").rglob("*.java")}
        code = java_code(snippet.read_text())
        listed = re.findall(r"^//SOURCES \.\./helpers/unpinned/\w+/(\w+)\.java$", snippet.read_text(), re.M)
        unused = [name for name in listed if not re.search(rf"\b{name}\b", code)]
        assert not unused, f"{snippet.name} lists {unused}, which it does not use: their users bring them in"
        assert set(listed) <= helpers, snippet.name


def test_the_load_test_snippet_quotes_the_published_figures_exactly():
    """S03 keeps the pull request's figures as constants (a snippet runs without the data folder): they must be
    the numbers in data/published/vt-http-pr.csv."""
    rows = {(r["executor"], r["metric"]): float(r["value"])
            for r in csv.DictReader((HOME / "data" / "published" / "vt-http-pr.csv").open())}
    text = (SNIPPETS[0].parent / "S03_SleepEndpointLoad.java").read_text()
    for constant, executor in (("PUBLISHED_POOL", "platform-pool-50"), ("PUBLISHED_VIRTUAL", "virtual")):
        args = re.search(constant + r' = new Published\("[^"]*", ([^)]*)\);', text).group(1)
        numbers = [float(n.replace("_", "")) for n in args.split(",")]
        expected = [rows[(executor, m)] for m in ("throughput", "mean", "min", "max", "std_dev")]
        assert numbers == expected, f"S03's {constant} {numbers} differs from vt-http-pr.csv {expected}"


# Helper packages by job, each importing only those before it: core (profile, options, JSON, results, bounds, the
# page bridge), workloads (what runs inside the measured JVM), running (child JVMs, JMH, servers, load, JDKs, JFR,
# database, thread dumps), showing (charts, tables, code, comparison), experiments (one experiment's result type, run
# and declared expectations), course (the claims ledger, exercises, seminar). A class in one package may use the
# packages before it, never one after it: no loops between packages.
HELPER_LAYERS = ["core", "workloads", "running", "showing", "experiments", "course"]


def test_helper_packages_import_only_the_packages_before_them():
    root = HOME / "helpers" / "unpinned"
    found = sorted(p.name for p in root.iterdir() if p.is_dir() and any(p.glob("*.java")))
    assert found == sorted(HELPER_LAYERS), f"helper packages {found}; expected {HELPER_LAYERS}"
    assert not list(root.glob("*.java")), "every helper lives in a package by job, none directly in unpinned/"
    for rank, layer in enumerate(HELPER_LAYERS):
        for java in sorted((root / layer).glob("*.java")):
            text = java.read_text()
            assert re.search(rf"^package unpinned\.{layer};$", text, re.M), f"{java.name}: package unpinned.{layer}"
            for used in re.findall(r"^import (?:static )?unpinned\.(\w+)\.", text, re.M):
                assert used in HELPER_LAYERS[:rank + 1], (
                    f"{layer}/{java.name} imports unpinned.{used}: {layer} may use only {HELPER_LAYERS[:rank + 1]}"
                    " (no import going up)")


def test_every_figure_a_notebook_shows_is_drawn_and_inlined_in_the_book():
    """Each `figures/x.svg` a notebook's Markdown shows is one of tools/diagrams.py's (so `nav` redraws it), and the
    book and the slides carry it as a data URI (they must work offline); a figure that is missing fails the page."""
    import sys
    sys.path.insert(0, str(HOME / "tools"))
    import book_text
    import diagrams
    drawn = {f"{d.name}.svg" for d in diagrams.DIAGRAMS}
    shown = set()
    for path in sorted((HOME / "notebooks").glob("*.ipynb")):
        for cell in json.loads(path.read_text())["cells"]:
            if cell["cell_type"] == "markdown":
                shown |= set(re.findall(r"\]\(figures/([\w.-]+)\)", "".join(cell["source"])))
    assert shown and shown <= drawn, f"figures shown but not drawn by tools/diagrams.py: {sorted(shown - drawn)}"
    page = book_text.inline_figures("![the queues](figures/submission-paths.svg)")
    assert page.startswith("![the queues](data:image/svg+xml;base64,") and "figures/" not in page
    with pytest.raises(book_text.BookError, match="not in notebooks/figures"):
        book_text.inline_figures("![gone](figures/no-such-figure.svg)")


def test_the_structure_line_s_figures_are_computed_from_the_tree(tmp_path):
    """A tiny tree whose every figure is known: two packages, a 7-line largest helper, snippets of 9, 15 and 20 lines
    whose public classes' first members sit at lines 5, 11 and 7, //SOURCES 2 at most, two ProcessBuilder sites in
    helpers (the snippet's own is code under study, not counted),
    a 4-line README."""
    import sys
    sys.path.insert(0, str(HOME / "tools"))
    import structure
    unpinned = tmp_path / "helpers" / "unpinned"
    (unpinned / "core").mkdir(parents=True)
    (unpinned / "running").mkdir()
    (unpinned / "core" / "Small.java").write_text("package unpinned.core;\nclass Small {}\n")
    (unpinned / "running" / "Big.java").write_text(
        "package unpinned.running;\nclass Big {\n    Process a = new ProcessBuilder().start();\n"
        "    Process b = new ProcessBuilder().start();\n\n\n}\n")
    snippets = tmp_path / "snippets"
    snippets.mkdir()
    (snippets / "S01_A.java").write_text(  # first member at line 5, 9 lines
        "//SOURCES ../helpers/unpinned/core/Small.java\npackage unpinned.snippets;\n\npublic class S01_A {\n"
        "    static int x;\n\n    public static void main(String[] a) {\n    }\n}\n")
    (snippets / "S02_B.java").write_text(  # brace on the header's second line, a javadoc skipped: line 11, 15 lines
        "//SOURCES ../helpers/unpinned/core/Small.java\n//SOURCES ../helpers/unpinned/running/Big.java\n"
        "package unpinned.snippets;\n\npublic final class S02_B\n        implements Runnable {\n"
        "    /**\n     * Why.\n     */\n\n    @Override\n    public void run() {\n        new ProcessBuilder();\n"
        "    }\n}\n")
    (snippets / "S03_C.java").write_text(  # a record, a line comment skipped: line 7, 20 lines
        "package unpinned.snippets;\n\nimport java.util.List;\n\npublic record S03_C(int n) {\n    // why\n"
        "    static List<Integer> xs = List.of();\n" + "\n" * 12 + "}\n")
    (tmp_path / "README.md").write_text("# T\n\na\nb\n")
    texts = {p.name: p.read_text() for p in snippets.glob("*.java")}
    assert {n: len(t.splitlines()) for n, t in texts.items()} == {"S01_A.java": 9, "S02_B.java": 15, "S03_C.java": 20}
    assert {n: structure.first_member_line(t) for n, t in texts.items()} == {
        "S01_A.java": 5, "S02_B.java": 11, "S03_C.java": 7}
    assert structure.line(tmp_path).startswith(
        "structure: 2 packages, largest helper file Big.java 7 lines, snippet median 15 lines, code under study at"
        " line 7 (median), //SOURCES per snippet 2 (max), ProcessBuilder sites 2, README 4 lines; ")
