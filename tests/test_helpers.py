"""The shared helpers' JUnit tests, run through JBang exactly as a learner would."""
import re

from conftest import jbang, report


def test_helper_unit_tests_pass():
    run = jbang("helpers/tests/RunTests.java", timeout=900)
    out = run.stdout + run.stderr
    summary = re.findall(r"^(\d+) passed, (\d+) failed", out, re.M)
    assert summary, f"no JUnit summary line:\n{out[-4000:]}"
    passed, failed = map(int, summary[-1])
    report(f"helpers: {passed} JUnit tests passed, {failed} failed")
    assert run.returncode == 0 and failed == 0 and passed > 0, out[-6000:]
