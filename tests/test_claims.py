"""The claims ledger (data/claims.csv, helpers/unpinned/course/Claims.java): every claim of the five sources, with a
verdict computed from this session's run of the chapters. Checks that the ledger and the declared expectations agree
(each testable claim decided by exactly one; DeclarationsTest shows each both ways), and that every testable claim of a
chapter that ran has a verdict; prints one `claims:` line.

The chapters run once per session (the `chapters` fixture, shared with every test that reads them). To read results a run
left instead (e.g. `results/` or a reference run under data/reference-runs/), set UNPINNED_CLAIMS_FROM to that folder;
UNPINNED_CLAIMS_CHAPTERS=01,05 runs only those chapters."""
from __future__ import annotations

import csv
import json
import os
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from conftest import HOME, report

LEDGER = HOME / "data" / "claims.csv"
HEADER = ["id", "source", "chapter", "experiment", "claim", "rule", "untestable"]
CHAPTERS = ["01", "02", "03", "04", "05", "06", "07"]
VERDICTS = ("confirmed", "refuted", "inconclusive", "depends")

def ledger() -> list[dict]:
    with LEDGER.open(newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows and rows[0] == HEADER, f"{LEDGER} must start with the header {','.join(HEADER)}"
    return [dict(zip(HEADER, r)) for r in rows[1:]]


def claims_cli(*args: str) -> str:
    """Claims' command line on the course JDK, with the helpers' classpath (built by set-up)."""
    from test_faults_results import course_java
    from conftest import jbang
    cp = jbang("info", "classpath", "helpers/Kernel.java", timeout=900)
    assert cp.returncode == 0, cp.stderr[-2000:]
    run = subprocess.run([course_java(), "-cp", cp.stdout.strip().splitlines()[-1], "unpinned.course.Claims", *args],
                         capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL,
                         env=dict(os.environ, UNPINNED_HOME=str(HOME)))
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-3000:]
    return run.stdout


def test_the_ledger_and_the_declared_expectations_agree():
    rows = ledger()
    ids = [r["id"] for r in rows]
    assert len(ids) == len(set(ids)), [i for i, n in Counter(ids).items() if n > 1]
    sources = {r["id"] for r in csv.DictReader((HOME / "data" / "sources.csv").open(encoding="utf-8"))}
    rules = declared_claims()
    problems = []
    for r in rows:
        where = f"{r['id']} ({r['source']})"
        if not set(cited(r)) <= sources:
            problems.append(f"{where}: a source not in data/sources.csv")
        if r["chapter"] not in CHAPTERS:
            problems.append(f"{where}: chapter {r['chapter']!r} is not one of {CHAPTERS}")
        if not r["claim"].strip():
            problems.append(f"{where}: no claim")
        if r["untestable"].strip():
            if r["rule"].strip() or r["experiment"].strip() or r["id"] in rules:
                problems.append(f"{where}: untestable here, yet it names a rule, an experiment or a declaration decides it")
        else:
            if not (r["rule"].strip() and r["experiment"].strip()):
                problems.append(f"{where}: testable, but the rule in words or its experiment is missing")
            if r["id"] not in rules:
                problems.append(f"{where}: no declared expectation decides it, and no untestable reason")
    testable = {r["id"] for r in rows if not r["untestable"].strip()}
    problems += [f"{i}: a declaration decides it, but data/claims.csv has no testable row" for i in rules if i not in testable]
    for source in sources:
        if not any(source in cited(r) for r in rows):
            problems.append(f"{source}: no claim in the ledger")
    assert not problems, "\n".join(problems)


def cited(row: dict) -> list[str]:
    """The sources a row cites: one, or several separated by ";" when they make the same claim."""
    return [s.strip() for s in row["source"].split(";")]


def declared_claims() -> list[str]:
    """The claims decided by an experiment's declared expectations (judged when the run is saved, never here)."""
    return [c for d in json.loads(declarations_cli()) for c in d["claims"]]


def declarations_cli() -> str:
    return claims_cli("--declarations")


@pytest.fixture(scope="module")
def run_dir(results_dir, request) -> Path:
    """A folder of this session's results: the chapters run here (once per session), or UNPINNED_CLAIMS_FROM."""
    given = os.environ.get("UNPINNED_CLAIMS_FROM")
    if given:
        return Path(given).resolve()
    from chapter_runs import NOTEBOOKS
    chapters = request.getfixturevalue("chapters")  # only when the chapters run here
    wanted = [c.strip() for c in os.environ.get("UNPINNED_CLAIMS_CHAPTERS", ",".join(CHAPTERS)).split(",") if c.strip()]
    for nb in NOTEBOOKS:
        if nb.name[:2] in wanted:
            chapters.executed(nb.name)
    return results_dir


def _ran(folder: Path, experiment: str) -> bool:
    return any((folder / experiment).glob("*.json")) or (folder / f"{experiment}.json").is_file()


def test_every_claim_of_a_chapter_that_ran_has_a_verdict(run_dir):
    rows = ledger()
    decisions = {d["id"]: d for d in json.loads(claims_cli("--results", str(run_dir)))}
    assert set(decisions) == {r["id"] for r in rows}
    ran = sorted({r["chapter"] for r in rows if r["experiment"] and _ran(run_dir, r["experiment"])})
    session = not os.environ.get("UNPINNED_CLAIMS_FROM")
    declared = set(declared_claims())
    problems = []
    for r in rows:
        d = decisions[r["id"]]
        if r["untestable"].strip():
            if d["verdict"] != "untestable here":
                problems.append(f"{r['id']}: untestable, yet {d['verdict']}")
        elif d["verdict"] not in VERDICTS and d.get("sentence", "").startswith("**not run** · "):
            pass  # its experiment ran, and its declaration says what this run lacks to test it (a profile's users)
        elif d["verdict"] not in VERDICTS and (_ran(run_dir, r["experiment"]) or (session and r["chapter"] in ran)):
            # its experiment ran, or its chapter ran in this session (which runs every experiment of the chapter)
            problems.append(f"{r['id']} (chapter {r['chapter']} ran): {d['verdict']}: {d.get('because')}")
        elif d["verdict"] in VERDICTS and not d.get("numbers"):
            problems.append(f"{r['id']}: a verdict without measured values")
        if r["id"] in declared:
            if d["verdict"] in VERDICTS and not d.get("sentence", "").startswith(f"**{d['verdict']}** · "):
                problems.append(f"{r['id']}: its sentence does not state its verdict: {d.get('sentence', '')[:160]}")
        elif d["verdict"] in VERDICTS and not d.get("sentence", "").startswith(f"**{r['id']}: {d['verdict']}**"):
            problems.append(f"{r['id']}: its sentence does not open with its verdict: {d.get('sentence', '')[:120]}")
    assert not problems, "\n".join(problems)
    count = Counter(d["verdict"] for d in decisions.values())
    per_source = Counter(s for r in rows for s in cited(r))
    per_chapter = Counter(r["chapter"] for r in rows)
    where = os.environ.get("UNPINNED_CLAIMS_FROM") and Path(os.environ["UNPINNED_CLAIMS_FROM"]).name or "this session"
    report(f"claims: {len(rows)} in the ledger ({len(rows) - count['untestable here']} with a rule); from {where}"
           f" (chapters {', '.join(ran) or 'none'} ran): {count['confirmed']} confirmed, {count['refuted']} refuted,"
           f" {count['inconclusive']} inconclusive, {count['depends']} depends, {count['untestable here']} untestable here, {count['not run yet']} not run yet;"
           f" per source " + ", ".join(f"{s} {n}" for s, n in per_source.items())
           + "; per chapter " + ", ".join(f"{c} {per_chapter[c]}" for c in CHAPTERS))
    for verdict in ("refuted", "depends"):
        report(f"claims {verdict}: " + "; ".join(f"{i}" + (f" ({d['because']})" if d.get("because") else "")
                                                for i, d in decisions.items() if d["verdict"] == verdict))
