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


@pytest.mark.fault
@pytest.mark.parametrize("raw", ["\u00a0", "\u2003quick"], ids=["no-break-space", "em-space-quick"])
def test_python_and_java_read_a_profile_with_an_invisible_character_alike(raw, tmp_path):
    """A pasted no-break space (or another Unicode space) in UNPINNED_PROFILE: `make doctor` (Python) said quick while
    every snippet (Java) refused it. Both must refuse it, with the same line naming the character."""
    env = dict(os.environ, UNPINNED_PROFILE=raw)
    doctor = subprocess.run([str(host_python(tmp_path)), str(HOME / "tools" / "course.py"), "doctor"], cwd=HOME,
                            capture_output=True, text=True, timeout=120, env=env, stdin=subprocess.DEVNULL)
    snippet = subprocess.run(["bash", str(HOME / "tools" / "jbang"), "carrier-scaling", "--help"], cwd=HOME,
                             capture_output=True, text=True, timeout=300, env=env, stdin=subprocess.DEVNULL)
    said = "UNPINNED_PROFILE must be 'quick' or 'full', got '" + "".join(
        c if " " <= c < "\x7f" else f"\\u{ord(c):04x}" for c in raw) + "'"
    assert doctor.returncode != 0 and doctor.stderr.strip() == f"[unpinned] error: {said}", doctor.stdout + doctor.stderr
    assert snippet.returncode == 2, snippet.stdout + snippet.stderr
    own = [line for line in snippet.stderr.splitlines() if line.strip() and not line.startswith("[jbang]")]
    assert own == [f"S14: {said}"], snippet.stderr
