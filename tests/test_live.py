"""A run watched while it runs: a load test in the kernel updates one chart in place about once a second (requests per
second and p99 latency), and the saved notebook keeps only the cell's own final chart (the live one emptied, no
display ids). Runs chapter 01's load path (EndpointLoad.sleepEndpoint: S03 in its own JVM, which starts the server and
the load generator S05 in theirs, so the samples also cross a JVM in the middle) with a tiny load."""
from __future__ import annotations

import json
import time

import nbformat
import pytest
from nbclient import NotebookClient

import page
from conftest import HOME, KERNEL_NAME, checkout_processes, report

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


def _live_charts(client, cell_index: int) -> list[tuple[float, dict]]:
    """The updates of a live chart in one cell: (when, message)."""
    return [(t, m) for t, i, m in client.seen if i == cell_index and m["msg_type"] == "update_display_data"
            and "image/png" in m["content"].get("data", {})]


def _notebook(*cells: str):
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": KERNEL_NAME, "display_name": "Java (unpinned)", "language": "java"}
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    return nb


def _first_cell() -> str:
    """The first cell every chapter starts with (imports, Session.setup())."""
    nb = nbformat.read(HOME / "notebooks" / "01-thread-per-request-and-pools.ipynb", as_version=4)
    return next(c.source for c in nb.cells if c.cell_type == "code")


CARRIERS_CELL = """var cpu = EndpointLoad.cpuEndpoint("--mode", "virtual", "--users", "20", "--n", "2000000",
    "--warmup-s", "1", "--duration-s", "4", "--repeat", "1");   // chapter 04's CPU endpoint, tiny"""
JMH_CELL = """var jmh = ExecutorBatches.io(java.util.Map.of("executor", "fixed-200,virtual", "tasks", "100"));"""


@pytest.fixture(scope="module")
def live_runs():
    """One kernel runs them all: chapter 01's load path, chapter 04's CPU endpoint, a JMH run, then asks its JDK."""
    nb = _notebook(_first_cell(), LOAD_CELL, CARRIERS_CELL, JMH_CELL, "Runtime.version().feature()")
    client = _Recording(nb, timeout=300, kernel_name=KERNEL_NAME, allow_errors=False,
                        resources={"metadata": {"path": str(HOME / "notebooks")}})
    client.execute()
    return client, nb


def test_a_load_test_updates_one_chart_while_it_runs_and_leaves_only_the_final_chart(tmp_path, live_runs):
    client, nb = live_runs
    saved = tmp_path / "live.ipynb"
    nbformat.write(nb, saved)

    # (a) while the load ran, the chart was replaced in place, as a PNG, several times
    load = [(t, m) for t, i, m in client.seen if i == 1]
    charts = _live_charts(client, 1)
    ids = {(m["content"].get("transient") or {}).get("display_id") for _, m in charts}
    assert len(charts) >= 2, "no live chart: " + str(sorted({m["msg_type"] for _, m in load}))
    assert len(ids) == 1 and None not in ids, f"one output, updated in place; got display ids {ids}"
    span = charts[-1][0] - charts[0][0]
    assert span >= 1, f"the updates came at once ({span:.1f} s apart), not while the load ran"
    # at most about one drawing a second: no flood
    assert len(charts) <= span / 0.6 + 2, f"{len(charts)} drawings in {span:.1f} s"
    records = [m["content"].get("metadata", {}).get(page.CHART_KEY, {}) for _, m in charts]
    # the server's carriers busy join them once a virtual thread was seen mounted (sleepers rarely are)
    assert all([s["name"] for s in r.get("series", [])][:2] == ["req/s", "p99 ms"] for r in records), records[-1]
    assert all({s["name"] for s in r["series"][2:]} <= {"carriers busy"} for r in records), records[-1]
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
    live_id = next(iter(ids))
    shown = [t for t, m in load if (m["content"].get("transient") or {}).get("display_id") == live_id]
    report(f"26 live: {len(charts)} chart updates in the {shown[-1] - shown[0]:.0f} s a load (1 s warm-up +"
           f" {MEASURED_S} s measured) was shown live, {len(images) - 1} left in the saved notebook")


def test_a_stopped_load_test_leaves_no_live_chart_behind(tmp_path):
    """The Stop button in the middle of chapter 02's in-kernel load path (LoadRun, S04 and S05 started from the
    kernel): the chart was live, and the saved cell keeps none of it."""
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    code = ("try (var server = ServerProcess.start(\"S04_SleepServer.java\", \"--mode\", \"virtual\")) {\n"
            "    LoadRun.measure(server, HttpLoad.Options.closedLoop(server.uri(), 20,\n"
            "        java.time.Duration.ofSeconds(1), java.time.Duration.ofSeconds(60)));\n"
            "}")
    nb = _notebook(_first_cell(), code, "1 + 1")
    client = _Recording(nb, timeout=300, kernel_name=KERNEL_NAME, interrupt_on_timeout=True,
                        resources={"metadata": {"path": str(HOME / "notebooks")}})
    with client.setup_kernel():
        client.execute_cell(nb.cells[0], 0)
        client.timeout = 16  # nbclient interrupts the kernel at the timeout, as the Stop button does
        with pytest.raises((CellTimeoutError, CellExecutionError)):
            client.execute_cell(nb.cells[1], 1)
        deadline = time.monotonic() + 15
        while checkout_processes("S04_SleepServer", "S05_HttpLoad") and time.monotonic() < deadline:
            time.sleep(0.5)
        assert not checkout_processes("S04_SleepServer", "S05_HttpLoad"), "the stopped run left its JVMs"
        client.timeout = 60
        client.execute_cell(nb.cells[2], 2)
        assert nb.cells[2].outputs[0]["data"]["text/plain"] == "2", "the kernel must survive the stop"
    assert len(_live_charts(client, 1)) >= 2, "the chart was not live yet when the run was stopped"
    saved = tmp_path / "stopped.ipynb"
    nbformat.write(nb, saved)
    outputs = json.loads(saved.read_text())["cells"][1]["outputs"]
    assert not [o for o in outputs if "image/png" in o.get("data", {})], "the live chart stayed on the page"
    assert "display_id" not in saved.read_text()


def test_carriers_busy_and_each_jmh_iteration_are_drawn_while_they_run(live_runs):
    """Where the experiment is about carriers, the live chart shows them: the CPU endpoint on virtual threads draws the
    server's carriers busy (VirtualThreadSchedulerMXBean, JDK 24+) next to req/s and p99; a JMH run draws each
    iteration's score as it lands, one line per executor on one ms/op axis."""
    client, nb = live_runs

    def last_series(cell_index: int) -> list[dict]:
        charts = _live_charts(client, cell_index)
        assert len(charts) >= 2, f"cell {cell_index}: no live chart"
        return charts[-1][1]["content"].get("metadata", {}).get(page.CHART_KEY, {}).get("series", [])

    cpu = last_series(2)
    names = [s["name"] for s in cpu]
    client_jdk = int(nb.cells[4].outputs[0]["data"]["text/plain"])  # the kernel's JDK, asked, not assumed
    if client_jdk >= 24:
        assert names == ["req/s", "p99 ms", "carriers busy"], names
        assert cpu[2]["points"] >= 2, cpu
    else:
        assert names == ["req/s", "p99 ms"], names  # no public figure for carriers before JDK 24
    jmh = last_series(3)
    assert [s["name"] for s in jmh] == ["fixed-200 ms/op", "virtual ms/op"], jmh
    assert all(s["points"] >= 1 for s in jmh), jmh
    carriers = sum(s["points"] for s in cpu if s["name"] == "carriers busy")
    report(f"26 live: the CPU endpoint's chart drew {', '.join(names)} ({carriers} points of carriers busy on JDK"
           f" {client_jdk}); JMH drew {sum(s['points'] for s in jmh)} iteration scores of"
           f" {len(jmh)} executors as they landed")
