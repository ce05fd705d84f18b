"""The exercises where the learner writes the code (exercises/ENN_Name.java, checked by
helpers/unpinned/chapters/CodeExercises.java): each one's starting point compiles and fails its check, its worked
solution (solutions/ENN_Name.java) passes it, and its notebook runs the check in one cell."""
from __future__ import annotations

import json
import re
import time

import pytest

from conftest import HOME, jbang, report

CHECKER = HOME / "helpers" / "unpinned" / "chapters" / "CodeExercises.java"
ENTRY = re.compile(r'Map\.entry\("(\d\d\.[a-z0-9-]+)", new Exercise\("\1", "(E\d\d_\w+\.java)"')


def code_exercises() -> dict[str, str]:
    """id -> file, read from CodeExercises' map."""
    found = ENTRY.findall(CHECKER.read_text())
    assert found and len({i for i, _ in found}) == len(found), found
    return dict(found)


EXERCISES = code_exercises()


def test_every_code_exercise_has_its_start_its_solution_and_one_notebook_cell():
    for id_, file in EXERCISES.items():
        assert file[1:3] == id_[:2], f"{file} is not named after chapter {id_[:2]}"
        assert (HOME / "exercises" / file).is_file(), f"{id_}: exercises/{file} is missing"
        assert (HOME / "solutions" / file).is_file(), f"{id_}: solutions/{file} (the worked answer) is missing"
    calls = {}
    for path in sorted((HOME / "notebooks").glob("[0-9][0-9]-*.ipynb")):
        cells = json.loads(path.read_text())["cells"]
        code = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
        for i in re.findall(r'CodeExercises\.check\("([^"]+)"\)', code):
            assert i[:2] == path.name[:2], f"{path.name} checks another chapter's exercise {i}"
            calls.setdefault(i, []).append(path.name)
    assert set(calls) == set(EXERCISES), f"checked by a notebook: {sorted(calls)}; exercises: {sorted(EXERCISES)}"
    assert all(len(v) == 1 for v in calls.values()), calls
    listed = (HOME / "exercises" / "README.md").read_text()
    assert all(f in listed for f in EXERCISES.values()), "exercises/README.md lists every exercise"


def _code_without_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


@pytest.mark.parametrize("folder", ["exercises", "solutions"])
def test_every_exercise_file_sources_the_helpers_it_needs(folder):
    """As for the snippets: //SOURCES closed under the helpers' use of each other."""
    helpers = {p.stem: p for p in (HOME / "helpers" / "unpinned").rglob("*.java")}
    for file in EXERCISES.values():
        text = (HOME / folder / file).read_text()
        sourced = set(re.findall(r"^//SOURCES \.\./helpers/unpinned/\w+/(\w+)\.java$", text, re.M))
        used = set(re.findall(r"\b([A-Z]\w+)\b", _code_without_comments(text))) & helpers.keys()
        assert not used - sourced, f"{folder}/{file} uses {sorted(used - sourced)}: add to //SOURCES"
        for name in sorted(sourced):
            code = _code_without_comments(helpers[name].read_text())
            missing = sorted((set(re.findall(r"\b([A-Z]\w+)\b", code)) & helpers.keys()) - sourced - {name})
            assert not missing, f"{folder}/{file} sources {name}.java, which uses {missing}"


@pytest.fixture(scope="module")
def runs() -> dict:
    """Every start and every solution checked once, one after the other (some time things: never two at once)."""
    done = {}
    start = time.monotonic()
    for id_, file in EXERCISES.items():
        for folder in ("exercises", "solutions"):
            done[(id_, folder)] = jbang(f"{folder}/{file}", "--check", timeout=600)
    failing = sum(1 for i in EXERCISES if done[(i, "exercises")].returncode == 1
                  and re.search(rf"^{re.escape(i)}: not yet ", done[(i, "exercises")].stdout, re.M))
    passing = sum(1 for i in EXERCISES if done[(i, "solutions")].returncode == 0
                  and re.search(rf"^{re.escape(i)}: passed ", done[(i, "solutions")].stdout, re.M))
    chapters = sorted({i[:2] for i in EXERCISES})
    report(f"exercises: {len(EXERCISES)} code exercises ({chapters[0]}-{chapters[-1]}), {failing} fail from their"
           f" start, {passing} pass with their solution ({time.monotonic() - start:.0f} s)")
    return done


def _shown(result) -> str:
    return f"exit {result.returncode}:\n{result.stdout[-4000:]}\n{result.stderr[-2000:]}"


@pytest.mark.parametrize("id_", sorted(EXERCISES))
def test_the_start_fails_its_check_and_says_what_is_wrong(id_, runs):
    result = runs[(id_, "exercises")]
    assert result.returncode == 1, _shown(result)
    assert re.search(rf"^{re.escape(id_)}: not yet \(\d+ of \d+ checks pass\)$", result.stdout, re.M), _shown(result)
    assert re.search(r"^✘ \S", result.stdout, re.M), _shown(result)


@pytest.mark.parametrize("id_", sorted(EXERCISES))
def test_the_solution_passes_its_check(id_, runs):
    result = runs[(id_, "solutions")]
    assert result.returncode == 0, _shown(result)
    assert re.search(rf"^{re.escape(id_)}: passed \((\d+) of \1 checks\)$", result.stdout, re.M), _shown(result)
    assert "✘" not in result.stdout, _shown(result)


def test_a_bad_option_is_refused_in_one_line():
    result = jbang("exercises/E03_RoundRobin.java", "--fix-it-for-me", timeout=300)
    assert result.returncode == 2, _shown(result)
    assert "the only option is --check" in result.stderr, _shown(result)


def test_the_recorded_start_hashes_are_the_shipped_starting_files():
    """A notebook cell answers "not answered yet" without building when exercises/<file> is still as shipped, which
    it knows by the SHA-256 CodeExercises records: an edited starting file must update its hash here too."""
    import hashlib
    text = CHECKER.read_text()
    for id_, file in EXERCISES.items():
        m = re.search(r'new Exercise\("' + re.escape(id_) + r'", "' + re.escape(file) + r'",\s*"[^"]*",\s*"([0-9a-f]{64})"\)',
                      text)
        assert m, f"{id_}: no start hash recorded in CodeExercises"
        assert m.group(1) == hashlib.sha256((HOME / "exercises" / file).read_bytes()).hexdigest(), \
            f"{id_}: exercises/{file} changed; record its new SHA-256 in CodeExercises"
