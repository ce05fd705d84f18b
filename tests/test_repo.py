"""Static checks: what a fresh clone must look like before anything runs."""
import csv
import json
import re

import nbformat
import pytest

from conftest import HOME, KERNEL_NAME, catalog

NOTEBOOKS = sorted((HOME / "notebooks").glob("*.ipynb"))
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
    if not path.name.startswith("00-"):
        assert any("Exercises" in h for h in headings), f"{path.name} has no Exercises section"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_cells_stay_short(path):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert len(cell.source.splitlines()) <= 15, f"{path.name}: a cell does one thing:\n{cell.source}"


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
        assert "Profile" in text, f"{s.name} must print the profile it uses"


def test_readme_lists_every_alias_and_notebook():
    readme = (HOME / "README.md").read_text()
    for name in catalog():
        assert f"`{name}`" in readme or f"jbang {name}" in readme, f"README does not mention alias {name}"
    for nb in NOTEBOOKS:
        assert nb.name in readme, f"README does not link {nb.name}"


def test_seed_figures_parse_and_name_their_source():
    files = sorted((HOME / "data" / "seed-figures").glob("*.csv"))
    assert files
    for f in files:
        rows = list(csv.DictReader(f.open()))
        assert rows and all(r["seed"] and float(r["value"]) >= 0 for r in rows), f.name
        assert f.name in (HOME / "data" / "README.md").read_text(), f"{f.name} is not described in data/README.md"


def test_catalog_parses():
    json.loads((HOME / "jbang-catalog.json").read_text())


def test_navigation_cells_are_current():
    import subprocess, sys
    run = subprocess.run([sys.executable, str(HOME / "tools" / "course.py"), "nav", "--check"], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_reference_runs_carry_their_machine_and_command():
    runs = sorted(p for p in (HOME / "data" / "reference-runs").iterdir() if p.is_dir())
    assert runs
    for run in runs:
        assert "Command" in (run / "README.md").read_text(), f"{run.name}: say how it was produced"
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
