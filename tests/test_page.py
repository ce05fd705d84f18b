"""The page test over every chapter this session executed (build/executed/: what JupyterLab received in the browser
pass, tests/chapter_runs.py): see page.py for what is checked. The browser pass itself checks what only the rendered
page shows (tables cut off, code out of line)."""
from __future__ import annotations

import nbformat
import pytest

import page
from chapter_runs import EXECUTED, NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_the_executed_page_shows_what_the_run_measured(path, chapters):
    chapters.executed(path.name)
    nb = nbformat.read(EXECUTED / path.name, as_version=4)
    count = page.check_notebook(path.name, nb)
    page.TOTAL.add_page(count)
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


def _chart(**record):
    """A chart output whose record (DrawnChart.record) is `record` over a clean default."""
    base = {"title": "Orders/s per version", "series": [{"name": "measured", "points": 3}], "clipped": [],
            "axes": [{"name": "x", "kind": "category", "log": False, "labels": ["a", "b", "c"],
                      "values": [None, None, None], "dataMin": None, "dataMax": None},
                     {"name": "y", "kind": "value", "log": False, "labels": ["0", "500", "1,000", "1,500"],
                      "values": [0, 500, 1000, 1500], "dataMin": 200, "dataMax": 1400}],
            "boxes": [], "undrawable": []}
    base.update(record)
    return {"output_type": "display_data", "data": {"image/png": "x"}, "metadata": {"unpinned/chart": base}}


def _axis(name="y", kind="value", log=False, labels=(), values=(), lo=None, hi=None):
    return {"name": name, "kind": kind, "log": log, "labels": list(labels), "values": list(values), "dataMin": lo,
            "dataMax": hi}


def _box(kind, text, x, y, w, h, owner=None):
    b = {"kind": kind, "text": text, "box": [x, y, w, h]}
    if owner:
        b["owner"] = owner
    return b


X = _axis("x", "category", labels=["a", "b"], values=[None, None])


def test_the_chart_check_finds_each_defect_it_is_for():
    """Each chart check fails on the defect it guards against, as the course's charts had them (issue 38), and
    passes the same chart drawn legibly."""
    defects = {
        # 03: bytes per stack chunk, one labelled tick over 700-7,000
        "ticks": _chart(axes=[X, _axis(log=True, labels=["1,000"], values=[1000], lo=700, hi=7000)]),
        # 02/03: a log axis whose data reach above its last label
        "log ends": _chart(axes=[X, _axis(log=True, labels=["1", "10", "100"], values=[1, 10, 100], lo=2, hi=800)]),
        # 03: carriers (categories) ticked 3.2, 3.4
        "categories": _chart(axes=[_axis("x", labels=["0", "20", "40"], values=[0, 20, 40], lo=0, hi=60),
                                   _axis("y", "category", labels=["3", "3.2", "3.4", "3.6"], values=[3, 3.2, 3.4, 3.6])]),
        # 05: two value labels run together ("2.012.04")
        "label over label": _chart(boxes=[_box("value label", "2.01", 100, 50, 25, 14, "JDK 21 #1"),
                                          _box("value label", "2.04", 120, 50, 25, 14, "JDK 25 #1")]),
        "labels touching": _chart(boxes=[_box("value label", "2.01", 100, 50, 25, 14, "JDK 21 #1"),
                                         _box("value label", "2.04", 125.5, 50, 25, 14, "JDK 25 #1")]),
        # 05: a value label on the 2 x line
        "label over line": _chart(boxes=[_box("line", "pins: 2 x", 50, 60, 600, 2),
                                         _box("value label", "2.01", 100, 52, 25, 14, "JDK 21 #1")]),
        # 07: a line's label drawn over a bar
        "label over bar": _chart(boxes=[_box("bar", "heap used", 500, 40, 60, 200, "heap used #2"),
                                        _box("line label", "control + a copy each", 450, 60, 140, 14)]),
        # 04: the virtual-thread pings under the platform ones
        "hidden series": _chart(series=[{"name": "virtual threads", "points": 40, "hidden": 39},
                                        {"name": "platform threads", "points": 40}]),
        # 05: bars too thin to see, with no value
        "slivers": _chart(series=[{"name": "threads", "points": 3}],
                          boxes=[_box("bar", "threads", 100, 300, 40, 0.6, "threads #1"),
                                 _box("bar", "threads", 200, 50, 40, 250, "threads #2"),
                                 _box("value label", "2,000", 200, 34, 30, 14, "threads #2")]),
        # 06: the title promises the article's figures, which are not drawn
        "title": _chart(title="Orders/s of each version, its Little's law bound and the article's figure",
                        series=[{"name": "measured", "points": 4}, {"name": "bound", "points": 4}]),
        # 03: the 1 MB a platform thread reserves, labelled published
        "published": _chart(series=[{"name": "measured", "points": 3},
                                    {"name": "published", "points": 3, "unsourced": ["1,048,576"]}]),
        "published line": _chart(unsourcedLines={"published (the JDK's default)": ["1,048,576"]}),
        # Korean titles as empty boxes
        "glyphs": _chart(title="JDK21부터 도입된 자바의 마법", undrawable=["JDK21부터 도입된 자바의 마법"]),
    }
    for defect, output in defects.items():
        count = page.check_notebook("t", {"cells": [_cell([output])]})
        assert count.failures and count.chart_failed, f"the chart check missed {defect}: {output}"
    legible = _chart(
        title="Orders/s of each version, its Little's law bound and the published figure",
        series=[{"name": "measured", "points": 2}, {"name": "bound", "points": 2}, {"name": "published", "points": 2,
                                                                                      "hidden": 0}],
        axes=[X, _axis(log=True, labels=["100", "1,000", "10,000"], values=[100, 1000, 10000], lo=700, hi=7000)],
        boxes=[_box("bar", "measured", 100, 100, 20, 200, "measured #0"),
               _box("value label", "2.01", 98, 84, 22, 14, "measured #0"),
               _box("bar", "bound", 120, 60, 20, 240, "bound #0"),
               _box("value label", "3.04", 125, 44, 25, 14, "bound #0"),
               _box("bar", "measured", 300, 299, 20, 0.5, "measured #1"),
               _box("value label", "0.01", 298, 283, 25, 14, "measured #1"),
               _box("line", "pins: 2 x", 50, 30, 600, 2),
               _box("line label", "pins: 2 x", 580, 14, 60, 14)])
    lanes = _chart(axes=[_axis("x", labels=["0", "20", "40"], values=[0, 20, 40], lo=0, hi=60),
                         _axis("y", "category", labels=["1", "2"], values=[1, 2])])
    count = page.check_notebook("t", {"cells": [_cell([legible]), _cell([lanes])]})
    assert not count.failures, count.failures
    assert count.chart_checks >= 12 and count.chart_failed == 0
