"""Results a hostile probe put in the results folder, each read by the course's readers as chapters read them: a
colleague's newer run copied in (with and without its "machine"), a row whose "jdk" is an object, 3,000 empty files,
and a FIFO named like a result. Each reader must pass over what is not a regular, well-formed result of this machine,
say so once, and go on with the rest."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import HOME
from test_faults_results import GOOD, course_java, helpers_classpath, read_back  # noqa: F401 (a fixture)

SLEEP_ROW = {"executor": "x", "threads": 50, "users": 500, "sleepMs": 100.0, "throughput": 480.0,
             "boundThroughput": 500.0, "meanMs": 1000.0, "windowSeconds": 5.0}

REUSE = """
import java.nio.file.Path;
import java.util.List;
import unpinned.experiments.EndpointLoad;
import unpinned.core.Json;
import unpinned.core.Results;

public class Reuse {
    public static void main(String[] args) throws Exception {
        if (args[0].equals("save")) { // this machine's own run of chapter 01
            var rows = Json.read(args[2], EndpointLoad.SleepRun[].class);
            System.out.println("saved " + Results.save(Path.of(args[1]), "01-sleep-endpoint", List.of(rows)));
            return;
        }
        var reused = EndpointLoad.reuse(500, 50, 100);
        System.out.println("reused: " + reused.map(r -> r.rows().stream().map(x -> x.mode() + " "
                + x.throughput()).toList().toString()).orElse("none"));
    }
}
"""


def java(tmp_path: Path, classpath: str, source: str, name: str, *args: str, env: dict | None = None):
    (tmp_path / f"{name}.java").write_text(source)
    return subprocess.run([course_java(), "-cp", classpath, str(tmp_path / f"{name}.java"), *args],
                          capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
                          env={**os.environ, "UNPINNED_HOME": str(HOME), **(env or {})})


@pytest.mark.fault
@pytest.mark.parametrize("kind", ["other-host", "no-machine"])
def test_chapter_06_reuses_only_this_machines_run_of_chapter_01(kind, tmp_path, helpers_classpath):
    """This machine's run of chapter 01, then a colleague's newer one copied in (same JDK, cores and profile, another
    host; or the same file without "machine"): EndpointLoad.reuse must return this machine's run, never the
    colleague's as "your run", and must not throw."""
    results = tmp_path / "results"
    rows = [dict(SLEEP_ROW, mode="pool"), dict(SLEEP_ROW, mode="virtual", throughput=4000.0)]
    saved = java(tmp_path, helpers_classpath, REUSE, "Reuse", "save", str(results), json.dumps(rows))
    assert saved.returncode == 0, saved.stdout + saved.stderr
    own = Path(saved.stdout.split("saved ")[1].strip())
    theirs = json.loads(own.read_text())
    theirs["machine"]["host"] = "colleagues-laptop"
    theirs["machine"]["time"] = "2099-01-01T00:00:00Z"
    for row in theirs["data"]:
        row["throughput"] = 12345.0
    if kind == "no-machine":
        del theirs["machine"]
    (own.parent / "20990101-000000-000-quick.json").write_text(json.dumps(theirs))  # newer than ours
    run = java(tmp_path, helpers_classpath, REUSE, "Reuse", "reuse", env={"UNPINNED_RESULTS": str(results)})
    assert run.returncode == 0 and "Exception" not in run.stdout + run.stderr, run.stdout + run.stderr
    assert "reused: [pool 480.0, virtual 4000.0]" in run.stdout, run.stdout + run.stderr


@pytest.mark.fault
def test_a_saved_judgement_of_another_shape_costs_its_claim_not_the_ledger(tmp_path, helpers_classpath):
    """A 05-pinning result whose judgement has "verdict": {} (an object where its verdict's name belongs): Claims
    --results must not crash the whole ledger; that judgement's claim is "not run", and the rest are decided."""
    folder = tmp_path / "results" / "05-pinning"
    folder.mkdir(parents=True)
    judged = [{"experiment": "05-pinning", "id": "synchronized-pins-before-24", "kind": "CLAIM", "claims": ["sem-10"],
               "verdict": {}, "sentence": "x"}]
    (folder / "20261122-100000-000-quick.json").write_text(json.dumps(
        {"experiment": "05-pinning", "machine": GOOD["machine"], "measurements": [], "data": [], "judged": judged}))
    run = subprocess.run([course_java(), "-cp", helpers_classpath, "unpinned.course.Claims", "--results",
                          str(tmp_path / "results")], capture_output=True, text=True, timeout=300,
                         env={**os.environ, "UNPINNED_HOME": str(HOME)}, stdin=subprocess.DEVNULL)
    assert run.returncode == 0 and "Exception" not in run.stderr, run.stdout[-2000:] + run.stderr[-3000:]
    ledger = json.loads(run.stdout[run.stdout.index("["):])
    broken = [c for c in ledger if c["id"] == "sem-10"]
    assert broken and broken[0]["verdict"] == "not run yet", broken
    assert "verdict" in (broken[0]["because"] or ""), broken   # names the field that is not what it should be
    assert len(ledger) > 1, "the other claims are still listed"


@pytest.mark.fault
def test_thousands_of_empty_results_cost_one_line_per_reader(tmp_path, helpers_classpath):
    """3,000 empty .json files newer than a good run: Results.latest and chapter 08's Runs still find the good run,
    and each says so in one line (it was 3,000 lines each)."""
    folder = tmp_path / "results" / "s14-carrier-scaling"
    folder.mkdir(parents=True)
    (folder / "20261122-100000-000-quick.json").write_text(json.dumps(GOOD))
    for i in range(3000):
        (folder / f"20261123-{i:06d}-000-quick.json").write_text("")
    run = read_back(tmp_path, helpers_classpath)
    assert run.returncode == 0 and "Exception" not in run.stdout + run.stderr, run.stderr[-3000:]
    assert "latest: " + str(folder / "20261122-100000-000-quick.json") in run.stdout, run.stdout[-2000:]
    assert "run: 20261122-100000-000-quick.json s14-carrier-scaling" in run.stdout, run.stdout[-2000:]
    said = [line for line in run.stderr.splitlines() if line.strip() and not line.startswith("WARNING")]
    assert len(said) == 2 and all("2,999 more" in line and "it is empty" in line for line in said), said[:5]


@pytest.mark.fault
def test_a_fifo_named_like_a_result_is_passed_over_not_read(tmp_path, helpers_classpath):
    """A FIFO named 20260102-000000-000-quick.json in an experiment's folder: chapter 08's Runs.results blocked for
    good reading it (no writer ever comes). Every reader must pass it over, say so once, and go on."""
    folder = tmp_path / "results" / "s14-carrier-scaling"
    folder.mkdir(parents=True)
    (folder / "20261122-100000-000-quick.json").write_text(json.dumps(GOOD))
    fifo = folder / "20261123-000000-000-quick.json"  # newer than the good run
    os.mkfifo(fifo)
    try:
        run = read_back(tmp_path, helpers_classpath)
    except subprocess.TimeoutExpired:
        pytest.fail("a reader blocked on the FIFO")
    assert run.returncode == 0 and "Exception" not in run.stdout + run.stderr, run.stderr[-3000:]
    assert "run: 20261122-100000-000-quick.json s14-carrier-scaling" in run.stdout, run.stdout[-2000:]
    said = [line for line in run.stderr.splitlines() if line.strip() and not line.startswith("WARNING")]
    assert len(said) == 2 and all(str(fifo) in line and "not a regular file" in line for line in said), said
