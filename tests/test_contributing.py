"""CONTRIBUTING.md's "Adding an experiment" stays true: a toy experiment (tests/toy_experiment/) is added to a copy of
the checkout exactly as its steps say (the snippet, its alias, its tiny arguments, its helper with a declared
expectation, nav), then the copy's own static checks pass for it and its alias runs, prints its judgement and its
result. Nothing is written in the checkout."""
import json
import os
import re
import shutil
import subprocess
import sys

from conftest import HOME, report

TOY = HOME / "tests" / "toy_experiment"


def _copy_of_the_checkout(to):
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=HOME, capture_output=True, check=True).stdout
    for name in tracked.decode().split("\0"):
        if name and (HOME / name).is_file():
            (to / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(HOME / name, to / name)
    # `make setup`'s result, as a fresh clone would have it: the chosen JDK and JBang (copied, so JBang's cache of
    # the toy stays in the copy) and the Maven artifacts (shared read-only: the toy needs no new ones)
    state, home_state = to / ".course", HOME / ".course"
    state.mkdir()
    for name in ("java-home", "jbang-mode"):
        shutil.copy2(home_state / name, state / name)
    for name in ("jbang", "jbang-home"):
        shutil.copytree(home_state / name, state / name, symlinks=True)
    (state / "m2").symlink_to(home_state / "m2")
    return to


def _add_the_toy_as_contributing_says(course):
    contributing = (HOME / "CONTRIBUTING.md").read_text()
    for step in ('"script-ref"', "TINY_ARGS", "helpers/unpinned/experiments/", "Expectations",
                 "python3 tools/course.py nav"):
        assert step in contributing, f"CONTRIBUTING.md no longer says {step}: update the toy experiment with it"
    # 1. the snippet
    shutil.copy2(TOY / "S99_Toy.java", course / "snippets" / "S99_Toy.java")
    # 2. its alias
    catalog = json.loads((course / "jbang-catalog.json").read_text())
    catalog["aliases"]["toy"] = {"script-ref": "snippets/S99_Toy.java", "description":
                                 "Toy: 1,000 virtual threads started and joined; expect well under 1 ms per thread"}
    (course / "jbang-catalog.json").write_text(json.dumps(catalog, indent=2, ensure_ascii=False) + "\n")
    # 3. its tiny arguments
    snippets_test = course / "tests" / "test_snippets.py"
    text = snippets_test.read_text()
    assert "TINY_ARGS = {\n" in text
    snippets_test.write_text(text.replace("TINY_ARGS = {\n", 'TINY_ARGS = {\n    "toy": ["--rounds", "3"],\n', 1))
    # 5 and 7. its helper, with the result type and the declared expectation
    shutil.copy2(TOY / "Toy.java", course / "helpers" / "unpinned" / "experiments" / "Toy.java")
    # 4. nav
    nav = subprocess.run([sys.executable, "tools/course.py", "nav"], cwd=course, capture_output=True, text=True,
                         timeout=300)
    assert nav.returncode == 0, nav.stdout + nav.stderr


def test_a_toy_experiment_added_as_contributing_says_passes_the_checks_and_runs(tmp_path):
    course = _copy_of_the_checkout(tmp_path / "course")
    _add_the_toy_as_contributing_says(course)
    changed = subprocess.run(["git", "status", "--porcelain"], cwd=HOME, capture_output=True, text=True).stdout
    assert "toy" not in changed.lower().replace("tests/toy_experiment/", ""), changed

    static = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_repo.py", "-k",
         "house_style or alias or sources_the_helpers or catalog", "tests/test_snippets.py::"
         "test_every_alias_has_tiny_arguments"], cwd=course, capture_output=True, text=True, timeout=600)
    assert static.returncode == 0, static.stdout[-4000:] + static.stderr[-2000:]
    nav = subprocess.run([sys.executable, "tools/course.py", "nav", "--check"], cwd=course, capture_output=True,
                         text=True, timeout=300)
    assert nav.returncode == 0, nav.stdout + nav.stderr
    assert "toy" in (course / "docs" / "snippets.md").read_text()

    env = {**os.environ, "UNPINNED_RESULTS": str(course / "results")}  # the copy's, not the suite's folder
    run = subprocess.run(["bash", "tools/jbang", "toy", "--rounds", "3"], cwd=course, capture_output=True,
                         text=True, timeout=300, stdin=subprocess.DEVNULL, env=env)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    assert re.search(r"- \*\*confirmed\*\*.*starting and joining the virtual threads", run.stdout), run.stdout
    results = [json.loads(line.removeprefix("@@result ")) for line in run.stdout.splitlines()
               if line.startswith("@@result ")]
    assert len(results) == 1, run.stdout
    result = results[0]
    assert result["threads"] == 1_000 and len(result["roundMs"]) == 3, result
    assert all(0 < ms < 1_000 for ms in result["roundMs"]), result
    assert list((course / "results" / "s99-toy").glob("*.json")), "the run saved nothing"
    report(f"toy experiment added as CONTRIBUTING says: rounds of 1,000 virtual threads took {result['roundMs']} ms")
