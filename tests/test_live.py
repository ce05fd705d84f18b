"""A run watched while it runs: a load test in the kernel updates one chart in place about once a second (requests per
second and p99 latency), and the saved notebook keeps only the cell's own final chart (the live one emptied, no
display ids). Runs chapter 01's load path (EndpointLoad.sleepEndpoint: S03 in its own JVM, which starts the server and
the load generator S05 in theirs, so the samples also cross a JVM in the middle) with a tiny load."""
from __future__ import annotations

import json
import time

import nbformat
from nbclient import NotebookClient

import page
from conftest import HOME, KERNEL_NAME, report

MEASURED_S = 5
LOAD_CELL = f"""var live = EndpointLoad.sleepEndpoint("--mode", "virtual", "--users", "20", "--sleep-ms", "20",
    "--warmup-s", "1", "--duration-s", "{MEASURED_S}");   // as chapter 01's load cell, tiny
var row = live.run("virtual");
Charts.bars("The sleep endpoint on virtual threads", "req/s", java.util.Map.of("virtual", row.throughput()))"""


class _Recording(NotebookClient):
    """Keeps every iopub message of the cells it runs, with when it arrived."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.seen: list[tuple[float, int, dict]] = []

    def process_message(self, msg, cell, cell_index):
        self.seen.append((time.monotonic(), cell_index, msg))
        return super().process_message(msg, cell, cell_index)


def _first_cell() -> str:
    """The first cell every chapter starts with (imports, Session.setup())."""
    nb = nbformat.read(HOME / "notebooks" / "01-thread-per-request-and-pools.ipynb", as_version=4)
    return next(c.source for c in nb.cells if c.cell_type == "code")


def test_a_load_test_updates_one_chart_while_it_runs_and_leaves_only_the_final_chart(tmp_path):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": KERNEL_NAME, "display_name": "Java (unpinned)", "language": "java"}
    nb.cells = [nbformat.v4.new_code_cell(_first_cell()), nbformat.v4.new_code_cell(LOAD_CELL)]
    client = _Recording(nb, timeout=300, kernel_name=KERNEL_NAME, allow_errors=False,
                        resources={"metadata": {"path": str(HOME / "notebooks")}})
    client.execute()
    saved = tmp_path / "live.ipynb"
    nbformat.write(nb, saved)

    # (a) while the load ran, the chart was replaced in place, as a PNG, several times
    load = [(t, m) for t, i, m in client.seen if i == 1]
    charts = [(t, m) for t, m in load if m["msg_type"] == "update_display_data"
              and "image/png" in m["content"].get("data", {})]
    ids = {(m["content"].get("transient") or {}).get("display_id") for _, m in charts}
    assert len(charts) >= 2, "no live chart: " + str(sorted({m["msg_type"] for _, m in load}))
    assert len(ids) == 1 and None not in ids, f"one output, updated in place; got display ids {ids}"
    span = charts[-1][0] - charts[0][0]
    assert span >= 1, f"the updates came at once ({span:.1f} s apart), not while the load ran"
    # at most about one drawing a second: no flood
    assert len(charts) <= span / 0.6 + 2, f"{len(charts)} drawings in {span:.1f} s"
    records = [m["content"].get("metadata", {}).get(page.CHART_KEY, {}) for _, m in charts]
    assert all([s["name"] for s in r.get("series", [])] == ["req/s", "p99 ms"] for r in records), records[-1]
    assert records[-1]["series"][0]["points"] >= 3, records[-1]

    # (b) the saved notebook keeps the cell's own chart only: the live output emptied, no display id anywhere
    text = saved.read_text()
    assert "display_id" not in text and "transient" not in text, "a display id was saved"
    outputs = json.loads(text)["cells"][1]["outputs"]
    images = [o for o in outputs if "image/png" in o.get("data", {})]
    assert [o["metadata"][page.CHART_KEY]["title"] for o in images] == ["The sleep endpoint on virtual threads"], \
        "besides the final chart: " + str([o.get("metadata") for o in images])
    left = [o for o in outputs if o.get("output_type") == "display_data" and "image/png" not in o.get("data", {})
            and any(("".join(v) if isinstance(v, list) else str(v)).strip() for v in o.get("data", {}).values())]
    assert not left, f"a live output kept its last text: {left}"
    count = page.check_outputs("live cell", outputs)
    assert not count.failures, count.failures
    report(f"26 live: {len(charts)} chart updates during a {span:.0f} s load ({MEASURED_S} s measured), "
           f"{len(images) - 1} left in the saved notebook")
