"""The exercises where the learner writes the code (exercises/ENN_Name.java, checked by
helpers/unpinned/course/CodeExercises.java): each one's starting point compiles and fails its check, its worked
solution (solutions/ENN_Name.java) passes it, every plausible wrong answer kept in tests/wrong_answers/ fails it with
the hint its file names, every check ends within its exercise's limit, and each notebook runs its check in one cell."""
from __future__ import annotations

import json
import re
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from conftest import HOME, jbang, missing_sources, report

CHECKER = HOME / "helpers" / "unpinned" / "course" / "CodeExercises.java"
ENTRY = re.compile(r'Map\.entry\("(\d\d\.[a-z0-9-]+)", new Exercise\("\1", "(E\d\d_\w+\.java)",\s*"[^"]*",\s*(\d+),')
WRONG_ANSWERS = HOME / "tests" / "wrong_answers"


def code_exercises() -> dict[str, tuple[str, int]]:
    """id -> (file, time limit in seconds), read from CodeExercises' map."""
    found = ENTRY.findall(CHECKER.read_text())
    assert found and len({i for i, _, _ in found}) == len(found), found
    return {i: (f, int(s)) for i, f, s in found}


EXERCISES = {i: f for i, (f, _) in code_exercises().items()}
LIMITS = {i: s for i, (_, s) in code_exercises().items()}


@dataclass(frozen=True)
class WrongAnswer:
    path: Path
    exercise: str
    hints: tuple[str, ...]

    @property
    def ref(self) -> str:
        return str(self.path.relative_to(HOME))


def answers_in(folder: Path) -> list[WrongAnswer]:
    """The answers kept in `folder`: each file names its exercise and the hints its check must print."""
    found = []
    for path in sorted(folder.glob("E[0-9][0-9]_*.java")):
        text = path.read_text()
        m = re.search(r"^ \* A (?:wrong|hostile) answer to exercise (\d\d\.[a-z0-9-]+),", text, re.M)
        assert m, f"{path.name} does not say which exercise it answers"
        found.append(WrongAnswer(path, m.group(1), tuple(re.findall(r"^ \* hint: (.+)$", text, re.M))))
    return found


WRONG = answers_in(WRONG_ANSWERS)


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
    for id_, file in EXERCISES.items():   # its table's last column: the limit CodeExercises declares
        row = next(line for line in listed.splitlines() if line.startswith("|") and f"`{file}`" in line)
        assert row.rstrip(" |").endswith(f"| {LIMITS[id_]} s"), f"exercises/README.md: {file}'s limit is" \
                                                                 f" {LIMITS[id_]} s: {row}"


def test_every_exercise_keeps_three_wrong_answers_each_with_its_hint():
    for w in WRONG:
        assert w.exercise in EXERCISES, f"{w.path.name} answers no exercise: {w.exercise}"
        assert w.path.name.startswith(EXERCISES[w.exercise][:4]), f"{w.path.name} is not named after {w.exercise}"
        assert w.hints, f"{w.path.name} names no hint its check must print (' * hint: ...')"
    per = {i: sum(1 for w in WRONG if w.exercise == i) for i in EXERCISES}
    assert all(n >= 3 for n in per.values()), f"wrong answers per exercise: {per}"


def _code_without_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


@pytest.mark.parametrize("folder", ["exercises", "solutions", "tests/wrong_answers", "tests/exercise_faults"])
def test_every_exercise_file_sources_the_helpers_it_needs(folder):
    """As for the snippets: what //SOURCES brings in, recursively, is closed under use."""
    pattern = "E[0-9][0-9]_*.java" if folder == "solutions" else "*.java"   # ChapterNN.java: tests/test_solutions.py
    files = sorted((HOME / folder).glob(pattern))
    assert files, f"no Java file in {folder}"
    for path in files:
        assert not missing_sources(path), f"{folder}/{path.name}: {missing_sources(path)}: add to //SOURCES"


@dataclass
class Checked:
    """One check run from the command line, built beforehand: what it printed and how long it took."""
    result: object
    seconds: float


def build_all(refs: list[str]) -> dict[str, object]:
    """JBang builds of `refs`, two at a time (compiling measures nothing): ref -> the build's result."""
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(refs, pool.map(lambda r: jbang("build", r, timeout=900), refs)))


def run_check(ref: str, id_: str) -> Checked:
    start = time.monotonic()
    result = jbang(ref, "--check", timeout=LIMITS[id_] + 60)
    return Checked(result, time.monotonic() - start)


@pytest.fixture(scope="module")
def runs() -> dict:
    """Every start, every solution and every wrong answer checked once, one after the other (checks time things:
    never two at once), each built first so that its time is the check's own."""
    started = time.monotonic()
    plan = [(f"{folder}/{file}", id_) for id_, file in EXERCISES.items() for folder in ("exercises", "solutions")]
    plan += [(w.ref, w.exercise) for w in WRONG]
    builds = build_all([ref for ref, _ in plan])
    done = {}
    for ref, id_ in plan:
        build = builds[ref]
        done[ref] = run_check(ref, id_) if build.returncode == 0 else Checked(build, 0.0)
    failing = sum(1 for i, f in EXERCISES.items() if _not_yet(done[f"exercises/{f}"], i))
    passing = sum(1 for i, f in EXERCISES.items() if _passed(done[f"solutions/{f}"], i))
    hinted = sum(1 for w in WRONG if not _missing_hints(done[w.ref], w))
    late = [f"{ref} ({c.seconds:.0f} s of {LIMITS[i]} s)" for ref, i in plan
            if (c := done[ref]).seconds > LIMITS[i]]
    longest = max(c.seconds for c in done.values())
    report(f"exercises: {len(EXERCISES)} code exercises, {failing} fail from their start, {passing} pass with their"
           f" solution, {hinted} of {len(WRONG)} wrong answers fail with a hint, "
           + (f"every check ended within its limit (longest {longest:.0f} s)" if not late else
              f"{len(late)} checks ran past their limit: {', '.join(late)}")
           # the workshop (chapter 09) plans each exercise's check with this time
           + "; each solution's check: " + ", ".join(f"{i} {done[f'solutions/{f}'].seconds:.0f} s"
                                                     for i, f in EXERCISES.items()))
    print(f"(the {len(plan)} checks took {time.monotonic() - started:.0f} s in all, builds included)")
    return done


def _shown(checked: Checked) -> str:
    r = checked.result
    return f"exit {r.returncode} after {checked.seconds:.1f} s:\n{r.stdout[-4000:]}\n{r.stderr[-2000:]}"


def _not_yet(checked: Checked, id_: str) -> bool:
    r = checked.result
    return (r.returncode == 1 and bool(re.search(rf"^{re.escape(id_)}: not yet \(\d+ of \d+ checks pass\)$", r.stdout, re.M))
            and bool(re.search(r"^✘ \S", r.stdout, re.M)))


def _passed(checked: Checked, id_: str) -> bool:
    r = checked.result
    return (r.returncode == 0 and bool(re.search(rf"^{re.escape(id_)}: passed \((\d+) of \1 checks\)$", r.stdout, re.M))
            and "✘" not in r.stdout)


def _missing_hints(checked: Checked, w: WrongAnswer) -> list[str]:
    """The hints of `w` that no ✘ line of its check printed (all of them when the check did not fail it)."""
    if not _not_yet(checked, w.exercise):
        return list(w.hints)
    failed = [line for line in checked.result.stdout.splitlines() if line.startswith("✘ ")]
    return [h for h in w.hints if not any(h in line for line in failed)]


@pytest.mark.parametrize("id_", sorted(EXERCISES))
def test_the_start_fails_its_check_and_says_what_is_wrong(id_, runs):
    checked = runs[f"exercises/{EXERCISES[id_]}"]
    assert _not_yet(checked, id_), _shown(checked)
    assert checked.seconds <= LIMITS[id_], _shown(checked)


@pytest.mark.parametrize("id_", sorted(EXERCISES))
def test_the_solution_passes_its_check(id_, runs):
    checked = runs[f"solutions/{EXERCISES[id_]}"]
    assert _passed(checked, id_), _shown(checked)
    assert checked.seconds <= LIMITS[id_], _shown(checked)


@pytest.mark.parametrize("wrong", WRONG, ids=lambda w: w.path.stem)
def test_a_wrong_answer_fails_its_check_with_a_hint(wrong, runs):
    checked = runs[wrong.ref]
    missing = _missing_hints(checked, wrong)
    assert not missing, f"{wrong.path.name}: no ✘ line says {missing}; {_shown(checked)}"
    assert checked.seconds <= LIMITS[wrong.exercise], _shown(checked)
    assert "\tat " not in checked.result.stdout + checked.result.stderr, f"a stack trace: {_shown(checked)}"


def test_a_bad_option_is_refused_in_one_line():
    result = jbang("exercises/E03_RoundRobin.java", "--fix-it-for-me", timeout=300)
    assert result.returncode == 2, f"exit {result.returncode}:\n{result.stdout}\n{result.stderr}"
    assert "the only option is --check" in result.stderr, result.stderr


def test_the_recorded_start_hashes_are_the_shipped_starting_files():
    """A notebook cell answers "not answered yet" without building when exercises/<file> is still as shipped, which
    it knows by the SHA-256 CodeExercises records: an edited starting file must update its hash here too."""
    import hashlib
    text = CHECKER.read_text()
    for id_, file in EXERCISES.items():
        m = re.search(r'new Exercise\("' + re.escape(id_) + r'", "' + re.escape(file)
                      + r'",\s*"[^"]*",\s*\d+,\s*"([0-9a-f]{64})"\)', text)
        assert m, f"{id_}: no start hash recorded in CodeExercises"
        assert m.group(1) == hashlib.sha256((HOME / "exercises" / file).read_bytes()).hexdigest(), \
            f"{id_}: exercises/{file} changed; record its new SHA-256 in CodeExercises"
