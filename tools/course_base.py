"""What every part of tools/course.py shares: the checkout's folders, the pinned versions, the learner's profile and
how set-up speaks (say, warn, SetupError).

The folders (HOME, STATE, VENV) are read as course_base.HOME etc. by the other modules, so a test that points one
somewhere else (monkeypatch.setattr(course_base, "STATE", ...)) moves it for all of them."""
from __future__ import annotations

import os
import sys
from pathlib import Path

HOME = Path(__file__).resolve().parent.parent


def _use_current_env() -> bool:
    """Inside an activated conda env (the environment.yml / Binder path) the course uses that env, not .venv."""
    conda = os.environ.get("CONDA_PREFIX")
    return os.environ.get("UNPINNED_USE_CURRENT_ENV") == "1" or (
        bool(conda) and Path(conda).resolve() == Path(sys.prefix).resolve())


VENV = Path(sys.prefix) if _use_current_env() else HOME / ".venv"
STATE = HOME / ".course"
JBANG_VERSION = "0.132.1"
# JBang 0.132.1 declares gson 2.10.1, with which every catalog reads as empty.
JBANG_ENDPOINT = f"dev.jbang:jbang-cli:{JBANG_VERSION}+com.google.code.gson:gson:2.11.0"
MIN_JAVA = 21
PROFILES = ("quick", "full")
KERNEL_NAME = "unpinned"
VM_EXPORTS = "--add-exports java.base/jdk.internal.vm=ALL-UNNAMED"


class SetupError(Exception):
    """A problem the learner must fix; the message says how."""


class _GoneReaderTolerant:
    """A stream whose reader may leave (`course.py setup | head -2`): from then on what is written goes nowhere and
    the work goes on, without a traceback; a set-up stopped half-way because nobody read its progress would be worse."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except BrokenPipeError:
            self._reader_gone()
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._reader_gone()

    def _reader_gone(self) -> None:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, self._stream.fileno())  # the children started from here on inherit it too
        os.close(devnull)

    def __getattr__(self, name):
        return getattr(self._stream, name)


def tolerate_gone_readers() -> None:
    """Called once by tools/course.py before it prints anything."""
    if not isinstance(sys.stdout, _GoneReaderTolerant):
        sys.stdout = _GoneReaderTolerant(sys.stdout)
    if not isinstance(sys.stderr, _GoneReaderTolerant):
        sys.stderr = _GoneReaderTolerant(sys.stderr)


def say(msg: str) -> None:
    print(f"[unpinned] {msg}", flush=True)


def warn(msg: str) -> None:
    print(f"[unpinned] warning: {msg}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- profile

def profile() -> str:
    """UNPINNED_PROFILE by the rule helpers/unpinned/core/Profile.java follows, character for character: characters up
    to U+0020 around it are dropped (Java's trim), nothing left means quick, and only ASCII letters are compared without
    case. Anything else (a pasted no-break space) is refused, showing invisible and non-ASCII characters as \\uXXXX."""
    raw = os.environ.get("UNPINNED_PROFILE") or ""
    value = raw.strip("".join(map(chr, range(0x21))))
    if not value:
        return "quick"
    if value.isascii():
        value = value.lower()
    if value not in PROFILES:
        raise SetupError(f"UNPINNED_PROFILE must be 'quick' or 'full', got '{shown(raw)}'")
    return value


def shown(raw: str) -> str:
    """`raw` with each character outside printable ASCII as \\uXXXX (a UTF-16 unit, as Profile.java shows it)."""
    units = raw.encode("utf-16-be", "surrogatepass")
    out = []
    for i in range(0, len(units), 2):
        unit = int.from_bytes(units[i:i + 2], "big")
        out.append(chr(unit) if 0x20 <= unit < 0x7f else f"\\u{unit:04x}")
    return "".join(out)


def fresh() -> bool:
    """`make book FRESH=...` (and slides), handed over as UNPINNED_FRESH: 1, yes or true (any case) run every chapter
    again; 0, no, false or empty do not; anything else is refused, so FRESH=0 never means yes."""
    raw = os.environ.get("UNPINNED_FRESH", "")
    value = raw.strip().lower()
    if value in ("1", "yes", "true"):
        return True
    if value in ("", "0", "no", "false"):
        return False
    raise SetupError(f"FRESH must be 1, yes or true (execute every chapter again) or 0, no, false or empty (reuse"
                     f" the executed chapters), got '{raw}'")



# --------------------------------------------------------------------------- venv

def venv_python() -> Path:
    if _use_current_env():
        return Path(sys.executable)
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else "no message"
