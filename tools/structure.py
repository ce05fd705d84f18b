"""How the course's code is shaped, in one line (`structure: ...`): the snippets' median and largest sizes, the
largest declaration a notebook renders (tools/code_refs.py), the JSON unpacking left in notebook code cells, and
the helper packages, and the README's length (the front door: detail goes to docs/). Printed at the end of `make test` (tests/conftest.py) and by `python3 tools/course.py
structure`; computed here only."""
from __future__ import annotations

import json
import re
import statistics
from pathlib import Path

import code_refs

HOME = Path(__file__).resolve().parent.parent

# JSON read by hand in a learner's cell, each occurrence counted once under the first pattern it matches
# (getAsJsonObject before the getAs* family it belongs to).
JSON_PATTERNS = {
    "getAsJsonObject": re.compile(r"\bgetAsJsonObject\b"),
    "getAs*": re.compile(r"\bgetAs(?!JsonObject\b)\w*"),
    "JsonObject": re.compile(r"\bJsonObject\b"),
    "JsonArray": re.compile(r"\bJsonArray\b"),
    '.get("': re.compile(r'\.get\("'),
}


def snippet_sizes(home: Path = HOME) -> dict[str, int]:
    return {p.name: len(p.read_text().splitlines()) for p in sorted((home / "snippets").glob("*.java"))}


def json_unpacking(home: Path = HOME) -> dict[str, int]:
    """Occurrences of each JSON_PATTERNS pattern in the chapters' code cells."""
    counts = dict.fromkeys(JSON_PATTERNS, 0)
    for notebook in sorted((home / "notebooks").glob("[0-9][0-9]-*.ipynb")):
        for cell in json.loads(notebook.read_text())["cells"]:
            if cell["cell_type"] == "code":
                source = "".join(cell["source"])
                for name, pattern in JSON_PATTERNS.items():
                    counts[name] += len(pattern.findall(source))
    return counts


def helper_packages(home: Path = HOME) -> list[str]:
    """Folders under helpers/unpinned that hold .java files, as package names."""
    root = home / "helpers" / "unpinned"
    folders = sorted({p.parent for p in root.rglob("*.java")})
    return [".".join(("unpinned", *f.relative_to(root).parts)) for f in folders]


def largest_rendered(home: Path = HOME) -> tuple[str, int] | None:
    """The largest declaration a notebook shows (Code.show, Code.showSideBySide...; not linesOfCode, which counts)."""
    found, _ = code_refs.rendered(home)
    shown = [(lines, f"{Path(ref.file).name} `{ref.signature.strip('( ')}`") for ref, lines in found
             if ref.call != "linesOfCode"]
    if not shown:
        return None
    lines, name = max(shown)
    return name, lines


def readme_lines(home: Path = HOME) -> int | None:
    readme = home / "README.md"
    return len(readme.read_text().splitlines()) if readme.is_file() else None


def line(home: Path = HOME) -> str:
    sizes = snippet_sizes(home)
    largest = max(sizes, key=sizes.get) if sizes else None
    snippets = (f"snippets median {statistics.median(sizes.values()):.0f} lines, largest {largest} {sizes[largest]}"
                if sizes else "no snippets")
    rendered = largest_rendered(home)
    method = f"largest rendered method {rendered[0]} {rendered[1]} lines" if rendered else "no rendered method"
    counts = json_unpacking(home)
    detail = ", ".join(f"{name} {n}" for name, n in counts.items() if n)
    unpacking = (f"JSON unpacking in notebook code cells {sum(counts.values())}"
                 + (f" ({detail})" if detail else "") + f" [counted: {', '.join(JSON_PATTERNS)}]")
    packages = helper_packages(home)
    helpers = ("helper packages: unpinned (flat)" if packages == ["unpinned"]
               else f"helper packages: {', '.join(packages) or 'none'}")
    readme = readme_lines(home)
    return f"structure: {snippets}; {method}; {unpacking}; {helpers}" + (f"; README {readme} lines" if readme else "")


if __name__ == "__main__":
    print(line())
