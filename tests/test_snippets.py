"""Runs every catalog alias the way a learner would (`jbang <alias>`), with tiny parameters."""
import json

import pytest

from conftest import HOME, catalog, jbang, report

JMH_TINY = ["-f", "1", "-wi", "0", "-i", "1", "-r", "300ms"]
# Every alias needs an entry here: a new snippet cannot slip past the suite.
TINY_ARGS = {
    "io-bound": JMH_TINY + ["-p", "tasks=40", "-p", "sleepMs=20"],
    "cpu-bound": JMH_TINY + ["-p", "tasks=8", "-p", "updates=2000"],
    "sleep-endpoint": ["--users", "20", "--requests", "3", "--sleep-ms", "20", "--pool", "4"],
}


def test_every_alias_has_tiny_arguments():
    assert set(catalog()) == set(TINY_ARGS)


@pytest.mark.parametrize("alias", sorted(TINY_ARGS))
def test_alias_runs_with_tiny_parameters(alias, tmp_path):
    args = list(TINY_ARGS[alias])
    is_jmh = args[:1] == ["-f"]
    if is_jmh:
        args += ["-rf", "json", "-rff", str(tmp_path / "jmh.json")]
    run = jbang(alias, *args, timeout=900)
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-6000:]
    assert "Profile: " in out, "every snippet prints the profile it uses"
    if is_jmh:
        results = json.loads((tmp_path / "jmh.json").read_text())
        assert results and all(r["primaryMetric"]["score"] > 0 for r in results)
        report(f"alias {alias}: " + ", ".join(
            f"{r['params'].get('executor', r['benchmark'].rsplit('.', 1)[-1])} {r['primaryMetric']['score']:.1f}"
            f" {r['primaryMetric']['scoreUnit']}" for r in results))


def test_io_bound_tiny_run_respects_the_sleep(tmp_path):
    run = jbang("io-bound", *JMH_TINY, "-p", "tasks=40", "-p", "sleepMs=20", "-p", "executor=virtual",
                "-rf", "json", "-rff", str(tmp_path / "vt.json"), timeout=900)
    assert run.returncode == 0, (run.stdout + run.stderr)[-4000:]
    score = json.loads((tmp_path / "vt.json").read_text())[0]["primaryMetric"]["score"]
    assert 20 <= score <= 40, f"40 virtual threads sleeping 20 ms took {score} ms"


def test_bad_input_is_a_clear_error():
    run = jbang("sleep-endpoint", "--users", "-5", timeout=600)
    assert run.returncode != 0
    assert "users" in (run.stdout + run.stderr), "the message must name the bad setting"
