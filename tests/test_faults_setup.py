"""Faults in set-up, doctor and the JBang wrapper, each injected as a hostile probe did it: set-up's output piped into
`head`, a profile with an invisible character, a fake JDK folder, a JDK 21 runtime that cannot run, and arguments
JBang would rewrite (an empty one, an @file). Each passes only if it ended with one clear line (or the right
behaviour) and Python, bash and Java agreed."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import HOME
from test_faults_checkout import host_python

sys.path.insert(0, str(HOME / "tools"))


@pytest.mark.fault
def test_set_up_piped_into_head_goes_on_quietly(tmp_path):
    """`python3 tools/course.py setup | head -2`: the reader leaves after two lines; set-up must finish (exit 0)
    without a traceback, not stop half-way."""
    proc = subprocess.Popen([str(host_python(tmp_path)), str(HOME / "tools" / "course.py"), "setup"], cwd=HOME,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        head = [proc.stdout.readline() for _ in range(2)]
        proc.stdout.close()  # as head does after its lines
        err = proc.stderr.read()
        rc = proc.wait(timeout=900)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert all(line.startswith("[unpinned]") for line in head), head
    assert rc == 0, err[-3000:]
    assert "Traceback" not in err and "BrokenPipe" not in err, err[-3000:]
