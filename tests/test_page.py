"""The page test over every notebook the headless run executed (build/executed/): see page.py for what is checked.
The browser pass runs the same checks on what JupyterLab received (test_browser.py)."""
from __future__ import annotations

import nbformat
import pytest

import page
from conftest import HOME
from test_notebooks import BUILD, NOTEBOOKS, executed


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_the_executed_page_shows_what_the_run_measured(path):
    executed(path.name)
    nb = nbformat.read(BUILD / path.name, as_version=4)
    count = page.check_notebook(path.name, nb)
    page.TOTAL.add(count)
    assert not count.failures, f"{path.name}: {len(count.failures)} problems on the page:\n" + "\n".join(count.failures)


def _cell(outputs, tags=()):
    return {"cell_type": "code", "id": "x", "metadata": {"tags": list(tags)}, "outputs": outputs, "source": ""}


def test_the_page_check_finds_each_defect_it_is_for():
    """Each check fails on the defect it guards against (the chapter 02 defects among them), and passes clean pages."""
    blank = {"output_type": "execute_result", "data": {"image/png": "x", "text/plain": ""}, "metadata": {
        "unpinned/chart": {"title": "Orders/s vs users", "series": [{"name": "pool", "points": 0}], "clipped": []}}}
    clipped = {"output_type": "display_data", "data": {"image/png": "x"}, "metadata": {
        "unpinned/chart": {"title": "t", "series": [{"name": "a", "points": 3}], "clipped": ["legend"]}}}
    bare_image = {"output_type": "display_data", "data": {"image/png": "x"}, "metadata": {}}
    zeros = {"output_type": "display_data", "metadata": {}, "data": {"text/html": "<table><thead><tr><th>strategy</th>"
             "<th>produced</th><th>consumed</th><th>dropped</th></tr></thead><tbody><tr><td>drop</td><td>0</td><td>0</td>"
             "<td>0</td></tr></tbody></table>"}}
    wide = {"output_type": "display_data", "metadata": {}, "data": {"text/html": "<table><tr>" + "<th>c</th>" * 14
            + "</tr><tr>" + "<td>1</td>" * 14 + "</tr></table>"}}
    uuid = {"output_type": "execute_result", "metadata": {}, "data": {"text/plain": "1022ce5c-da7a-40f7-95ce-dbd94874f055"}}
    temp = {"output_type": "execute_result", "metadata": {}, "data": {"text/plain": "/tmp/dev-results/02-x/1.json"}}
    flood = {"output_type": "stream", "name": "stdout",
             "text": "".join(f"HttpLoad · measuring {i}/9 s · 800 req/s\n" for i in range(9))}
    trace = {"output_type": "error", "ename": "IllegalStateException", "evalue": "not showing a table",
             "traceback": ["x", "at a", "at b", "at c", "at d"]}
    wrong = {"output_type": "display_data", "data": {"text/markdown": "**This run:** virtual threads lose a little"},
             "metadata": {"unpinned/outcome": {"kind": "compare", "a": 1.04, "b": 1.0, "ratio": 1.04, "tie": 0.01,
                                               "relation": "LESS", "expected": "LESS", "met": True}}}
    silent = {"output_type": "display_data", "data": {"text/markdown": "**This run:** 0.44 of its bound"},
              "metadata": {"unpinned/outcome": {"kind": "share", "measured": 44, "bound": 100, "ratio": 0.44,
                                                "expectAtLeast": 0.9, "met": False}}}
    def judged(verdict, low, high, busy=False, text=None):
        j = {"experiment": "x", "id": "y", "kind": "CLAIM", "claims": ["pr-1"], "ratio": (low + high) / 2, "low": low,
             "high": high, "spread": "3 seconds", "confirmFrom": 1.0, "confirmTo": None, "refuteBelow": 1.0,
             "refuteAbove": None, "verdict": verdict, "busy": busy,
             "sentence": f"**{verdict}** · y: {(low + high) / 2:.2f} x z."}
        return {"output_type": "display_data", "data": {"text/markdown": text if text is not None else j["sentence"]},
                "metadata": {"unpinned/judged": {"kind": "judged", "experiment": "x", "busy": busy, "judgements": [j]}}}
    straddles_yet_confirmed = judged("confirmed", 0.9, 1.2)
    busy_unsaid = judged("inconclusive", 0.9, 1.2, busy=True)
    sentence_missing = judged("refuted", 0.5, 0.7, text="**What this run shows**")
    ledger_disagrees = {"output_type": "display_data", "data": {"text/html": "<table><tr><td>x</td></tr></table>"},
                        "metadata": {"unpinned/claims": {"kind": "claims", "verdicts": {"pr-1": "refuted"}}}}
    for bad in (blank, clipped, bare_image, zeros, wide, uuid, temp, flood, trace, wrong, silent,
                straddles_yet_confirmed, busy_unsaid, sentence_missing):
        count = page.check_notebook("t", {"cells": [_cell([bad])]})
        assert count.failures, f"the page check missed: {bad}"
    good_chart = {"output_type": "execute_result", "data": {"image/png": "x"}, "metadata": {
        "unpinned/chart": {"title": "t", "series": [{"name": "a", "points": 3}], "clipped": []}}}
    good_table = {"output_type": "display_data", "metadata": {}, "data": {"text/html": "<table><tr><th>strategy</th>"
                  "<th>produced</th><th>dropped</th></tr><tr><td>drop</td><td>300</td><td>0</td></tr></table>"}}
    good_outcome = {"output_type": "display_data", "data": {"text/markdown": "at 0.44 x ... " + page.NOT_EXPECTED},
                    "metadata": {"unpinned/outcome": {"kind": "share", "measured": 44, "bound": 100, "ratio": 0.44,
                                                      "expectAtLeast": 0.9, "met": False}}}
    disagreeing = page.check_notebook("t", {"cells": [_cell([judged("confirmed", 1.1, 1.3)]), _cell([ledger_disagrees])]})
    assert any("claims table refuted" in f for f in disagreeing.failures), disagreeing.failures
    count = page.check_notebook("t", {"cells": [_cell([good_chart, good_table, good_outcome]),
                                                _cell([judged("confirmed", 1.1, 1.3)])]})
    assert not count.failures, count.failures
    assert (count.charts, count.tables, count.outcomes) == (1, 1, 2)
