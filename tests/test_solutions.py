"""The worked solutions (solutions/ChapterNN.java): every exercise a notebook checks has exactly one,
and each shows that the notebook's self-check accepts its worked answer and rejects a plausible wrong
one. The "change the code, re-measure" exercises measure, in the run's profile (quick unless
UNPINNED_PROFILE says otherwise)."""
from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

import pytest

from conftest import HOME, jbang, missing_sources, report

SOLUTIONS = HOME / "solutions"
CHAPTER_FILES = sorted(SOLUTIONS.glob("Chapter[0-9][0-9].java"))
ID = r"(\d\d\.\d+)"


def exercise_ids() -> set[str]:
    """The ids of Exercises' answer map, read from its source (the values stay private to it)."""
    text = (HOME / "helpers" / "unpinned" / "course" / "Exercises.java").read_text()
    ids = re.findall(r'Map\.entry\("' + ID + '"', text)
    assert len(ids) == len(set(ids)), f"an id appears twice in Exercises' map: {sorted(ids)}"
    return set(ids)


def notebook_checks() -> dict[str, list[str]]:
    """Per notebook, the ids its code cells pass to Exercises.check."""
    checks = {}
    for path in sorted((HOME / "notebooks").glob("*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        checks[path.name] = re.findall(r'Exercises\.check\(\s*"' + ID + '"', code)
    return checks


def solution_checks() -> dict[str, list[str]]:
    """Per solution file, the ids it hands to the self-check: worked.check("NN.N", ...)."""
    return {p.name: re.findall(r'\bworked\.check\(\s*"' + ID + '"', p.read_text())
            for p in CHAPTER_FILES}


def test_every_exercise_has_a_notebook_cell_and_exactly_one_solution():
    ids = exercise_ids()
    in_notebooks = notebook_checks()
    checked = {i for found in in_notebooks.values() for i in found}
    assert checked == ids, (f"checked by a notebook, not in Exercises: {sorted(checked - ids)};"
                            f" in Exercises, checked by no notebook: {sorted(ids - checked)}")
    for name, found in in_notebooks.items():
        assert len(found) == len(set(found)), f"{name} checks an exercise twice: {found}"
        assert all(i[:2] == name[:2] for i in found), f"{name} checks another chapter's: {found}"
    in_solutions = solution_checks()
    for i in sorted(ids):
        worked_in = [name for name, found in in_solutions.items() for _ in range(found.count(i))]
        assert worked_in == [f"Chapter{i[:2]}.java"], f"{i} must be worked once, in its chapter's" \
                                                      f" file: {worked_in}"
    assert {i for found in in_solutions.values() for i in found} <= ids, in_solutions
    assert {p.name for p in CHAPTER_FILES} == {f"Chapter{i[:2]}.java" for i in ids}


def test_every_solution_sources_the_helpers_it_needs_and_the_readme_says_how_to_run_them():
    """As for the snippets: what //SOURCES brings in, recursively, is closed under use (a warm JBang cache can hide
    a missing one, and a fresh machine then fails to compile it)."""
    for path in CHAPTER_FILES:
        assert "//SOURCES Worked.java" in path.read_text().splitlines(), path.name
        assert not missing_sources(path), f"{path.name}: {missing_sources(path)}: add to //SOURCES"
    readme = (SOLUTIONS / "README.md").read_text()
    assert "tools/jbang solutions/Chapter01.java" in readme


@pytest.fixture(scope="module")
def runs() -> dict:
    """Every solution run once, one after the other (they measure: never two at once)."""
    done = {}
    for path in CHAPTER_FILES:
        start = time.monotonic()
        done[path.name] = (jbang(f"solutions/{path.name}", timeout=900), time.monotonic() - start)
    proven = sum(len(re.findall(r"^" + ID + r" accepted .*; rejected ", r.stdout, re.M))
                 for r, _ in done.values())
    report(f"solutions: {proven} self-checks accept the worked answer and reject a wrong one"
           f" ({len(done)} chapters, {sum(s for _, s in done.values()):.0f} s)")
    return done


@pytest.mark.parametrize("path", CHAPTER_FILES, ids=lambda p: p.name)
def test_solution_is_accepted_and_a_wrong_answer_rejected(path, runs):
    result, seconds = runs[path.name]
    shown = (f"{path.name} (exit {result.returncode}, {seconds:.0f} s):\n"
             f"{result.stdout[-6000:]}\n{result.stderr[-3000:]}")
    assert result.returncode == 0, shown
    assert "Profile: " in result.stdout, shown
    for i in solution_checks()[path.name]:
        line = rf"^{re.escape(i)} accepted .+; rejected .+ \(.+\)$"
        assert re.search(line, result.stdout, re.M), f"no 'accepted; rejected' line for {i}: {shown}"


def swapped_copy(chapter: str, exercise: str) -> Path:
    """A copy of solutions/ChapterNN.java and Worked.java in build/swapped-solution/, whose Worked hands
    `exercise`'s two answers over the other way round. The product keeps no switch for this."""
    where = HOME / "build" / "swapped-solution"
    shutil.rmtree(where, ignore_errors=True)
    where.mkdir(parents=True)
    text = (SOLUTIONS / f"Chapter{chapter}.java").read_text()
    assert "//SOURCES ../" in text
    (where / f"Chapter{chapter}.java").write_text(text.replace("//SOURCES ../", "//SOURCES ../../"))
    worked = (SOLUTIONS / "Worked.java").read_text()
    anchor = "void check(String id, double right, String unit, double wrong, String slip) {\n"
    assert anchor in worked, "Worked.check changed its signature: update this copy"
    swap = f'if (id.equals("{exercise}")) {{ double t = right; right = wrong; wrong = t; }}\n'
    # one folder deeper than solutions/: its //SOURCES ../helpers/... needs one more ../
    (where / "Worked.java").write_text(worked.replace(anchor, anchor + swap).replace("//SOURCES ../", "//SOURCES ../../"))
    return where / f"Chapter{chapter}.java"


def test_a_wrong_worked_answer_fails_the_solution():
    """The runs above can fail: with one exercise's answers swapped in a copy of the solution, the
    self-check says so and the run exits non-zero (chapter 03, the cheapest to run again)."""
    result = jbang(str(swapped_copy("03", "03.1")), timeout=600)
    shown = f"exit {result.returncode}:\n{result.stdout[-4000:]}\n{result.stderr[-2000:]}"
    assert result.returncode != 0, shown
    assert re.search(r"^03\.1 NOT ACCEPTED: .*; NOT REJECTED: ", result.stdout, re.M), shown
    assert "self-checks that misbehaved: [03.1]" in result.stdout, shown
    assert re.search(r"^03\.2 accepted ", result.stdout, re.M), shown
