"""What the course says about compensation matches the JDKs' sources: the scheduler never adds a carrier for a
pinned thread (JEP 444), and JDK 25 no longer wraps FileInputStream.read (or Object.wait) in a Blocker, so no
sentence may say that pinning is compensated, or that file I/O is compensated on JDK 25, or repeat the old
unversioned phrase. Reads the notebooks, snippets, helpers, exercises and solutions."""
from __future__ import annotations

import re

import nbformat
import pytest

from conftest import HOME

NEGATION = re.compile(r"\b(not|never|no|none|neither|nor|without|n't|cannot)\b|n't\b", re.I)
PINNED = re.compile(r"\bpinn(ed|ing)\b|\bwhile (one|it) is pinned\b", re.I)
COMPENSATED = re.compile(r"\bcompensat(es|ed|ing)\b|\bspares?\b|\badds? (a )?(spare )?carriers?\b", re.I)
FILE_IO = re.compile(r"\bfile (and (process|pipe) )?I/O\b|\bFileInputStream\b|\bfile reads?\b", re.I)
JDK_25 = re.compile(r"\b(JDK|Java) ?2[4-9]\b|\b2[4-9]\+?\b")
JDK_21 = re.compile(r"\bJDK ?21\b|\b21(-23)?\b")
# The phrases the audit found, presented as true on both JDKs: refused wherever they appear.
OLD_PHRASES = [re.compile(p, re.I) for p in (
    r"some file and (process|pipe) I/O",
    r"adds? carriers?,? up to 256,? while one is pinned",
)]


def sentences(text: str) -> list[str]:
    """Text split into sentences (a blank line, or a full stop, colon or semicolon and a space, ends one); code
    comments' line starts and Markdown list marks removed."""
    text = re.sub(r"(?m)^\s*(\*|//|#+|-)\s?", " ", text)
    parts = re.split(r"\n\s*\n|(?<=[.;:])\s+", text)
    return [" ".join(p.split()) for p in parts if p.strip()]


def wrong(sentence: str) -> str | None:
    """Why {sentence} says something false about compensation, or None."""
    for p in OLD_PHRASES:
        if p.search(sentence):
            return "the old unversioned phrase"
    if NEGATION.search(sentence):
        return None
    if PINNED.search(sentence) and COMPENSATED.search(sentence):
        return "pinning compensated"
    if FILE_IO.search(sentence) and COMPENSATED.search(sentence) and JDK_25.search(sentence) \
            and not JDK_21.search(sentence):
        return "file I/O compensated on JDK 25"
    return None


def texts() -> list[tuple[str, str]]:
    """(where, text) for every markdown and code cell and every Java source of the course."""
    out = []
    for path in sorted((HOME / "notebooks").glob("*.ipynb")):
        for cell in nbformat.read(path, as_version=4).cells:
            out.append((f"{path.name} {cell.get('id')}", cell.source))
    for folder in ("snippets", "helpers", "exercises", "solutions"):
        for path in sorted((HOME / folder).rglob("*.java")):
            out.append((str(path.relative_to(HOME)), path.read_text(encoding="utf-8")))
    return out


def test_no_sentence_says_pinning_or_jdk_25_file_io_is_compensated():
    found = [f"{where}: {why}: {s}" for where, text in texts() for s in sentences(text)
             if (why := wrong(s)) is not None]
    assert not found, "sentences that contradict the JDKs' sources on compensation:\n" + "\n".join(found)


@pytest.mark.parametrize("sentence", [
    "JDK 21 adds carriers, up to 256, while one is pinned.",
    "It adds carriers only while a virtual thread is blocked in a call the JDK manages (`Object.wait` on JDK "
    "21-23, some file and process I/O).",
    "The pool compensates for a pinned thread with a spare carrier.",
    "On JDK 25 a file read through FileInputStream gets a spare carrier.",
])
def test_the_old_wording_is_caught(sentence):
    assert wrong(sentence) is not None, sentence


@pytest.mark.parametrize("sentence", [
    "JEP 444: the scheduler does not compensate for pinning.",
    "On JDK 21 `Object.wait` and a FIFO read get spares.",
    "JDK 25 wraps neither FileInputStream.read nor Object.wait in a Blocker.",
    "A child process's pipe gets spares on both JDKs.",
])
def test_correct_wording_passes(sentence):
    assert wrong(sentence) is None, sentence
