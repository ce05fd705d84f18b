"""Judged once: every expectation about a figure is declared once, beside its experiment's result type
(helpers/unpinned/core/Expectations.java), and everything else reads that declaration. Checks that no declared line
is stated a second time (in a test's comparison or a notebook's Meaning call), and that every declared expectation was
shown both ways with possible inputs (helpers/tests/DeclarationsTest.java). With the page test's count of judged
figures these make the summary's `judged:` line (conftest)."""
from __future__ import annotations

import ast
import json
import re

from conftest import HOME, JUDGED, jbang

NOTEBOOKS = sorted((HOME / "notebooks").glob("[0-9][0-9]-*.ipynb"))
# A notebook that still states a threshold for an outcome: a chapter not yet judged by its declarations.
MEANING_CALL = re.compile(r"\bMeaning\.(share|times|compare)\(")


def declarations() -> list[dict]:
    from test_claims import declarations_cli
    return json.loads(declarations_cli())


def _lines_by_experiment(decls: list[dict]) -> dict[str, set[float]]:
    lines: dict[str, set[float]] = {}
    for d in decls:
        for key in ("confirmFrom", "confirmTo", "refuteBelow", "refuteAbove"):
            v = d.get(key)
            if isinstance(v, (int, float)) and v not in (0, 1):
                lines.setdefault(d["experiment"], set()).update({float(v), 1 / float(v)})
    return lines


def _numbers_in_comparisons(node: ast.AST) -> list[float]:
    found = []
    for cmp in (n for n in ast.walk(node) if isinstance(n, ast.Compare)):
        for n in ast.walk(cmp):
            if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)) and not isinstance(n.value, bool):
                found.append(float(n.value))
    return found


def thresholds_stated_twice(decls: list[dict]) -> list[str]:
    """Each place outside a declaration that states a declared line again: a test function about a declared
    experiment comparing against one of its lines' numbers, or a notebook cell stating an outcome's threshold."""
    lines = _lines_by_experiment(decls)
    declared = {d["experiment"] for d in decls}
    found = []
    for test in sorted((HOME / "tests").glob("test_*.py")):
        tree = ast.parse(test.read_text())
        for fn in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
            about = {n.value for n in ast.walk(fn) if isinstance(n, ast.Constant) and n.value in declared}
            for number in _numbers_in_comparisons(fn):
                for e in about:
                    if any(abs(number - v) < 1e-9 for v in lines.get(e, ())):
                        found.append(f"{test.name}::{fn.name} states {number} again, a line of {e}'s declaration")
    for nb in NOTEBOOKS:
        cells = json.loads(nb.read_text())["cells"]
        for i, cell in enumerate(cells):
            text = "".join(cell["source"])
            if cell["cell_type"] == "code" and MEANING_CALL.search(text):
                found.append(f"{nb.name} cell {i} states an outcome's threshold (Meaning); declare it beside its"
                             " result type and show the judgement instead")
    return found


def test_no_threshold_is_stated_twice():
    found = thresholds_stated_twice(declarations())
    JUDGED["thresholds twice"] = len(found)
    assert not found, "\n".join(found)


def test_every_declared_expectation_is_shown_both_ways_with_possible_inputs():
    run = jbang("helpers/tests/RunTests.java", "Declarations.*", timeout=900)
    out = run.stdout + run.stderr
    m = re.search(r"^declarations: (\d+) expectations, each shown both ways", out, re.M)
    assert run.returncode == 0 and m, out[-4000:]
    JUDGED["shown both ways"] = int(m.group(1))
    total = sum(1 for d in declarations() if d["kind"] != "LIMIT")
    assert int(m.group(1)) == total, f"{total} declared expectations, {m.group(1)} shown both ways"
