"""How the course's code is shaped, in one line, printed at the end of `make test` (tests/conftest.py) and by
`python3 tools/course.py structure`; computed here only:

    structure: <p> packages, largest helper file <n> lines, snippet median <m> lines, code under study at line <l>
    (median), //SOURCES per snippet <s> (max), ProcessBuilder sites <k>, README <r> lines; <extras>

p   the helper packages: folders under helpers/unpinned that hold .java files;
n   the largest .java under helpers/unpinned, named, in lines;
m   the median snippet (snippets/*.java) in lines;
l   where the code under study starts: for each snippet, the line (1-based) of the first member of its public
    top-level class, i.e. the first line inside the class body (after the line holding its opening brace) that is
    neither blank nor a comment (a field, method, nested type, or the annotation that starts one); the median over
    the snippets that have such a class. A long header of imports and prose before it is what this figure exposes;
s   the most //SOURCES lines one snippet declares;
k   occurrences of `new ProcessBuilder` in helpers/unpinned (one is the goal: a single place, running/Processes,
    starts and kills child processes); a snippet that studies a process itself (S28's pipe reads) is code under
    study, not a runner, and is not counted;
r   the README's length (the front door: detail goes to docs/).
extras: the largest declaration a notebook renders (tools/code_refs.py) and the JSON unpacking left in notebook
code cells, which a learner should not have to read."""
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


PUBLIC_TYPE = re.compile(r"^public\s+(?:(?:final|abstract|sealed|non-sealed|strictfp)\s+)*"
                         r"(?:class|record|interface|enum)\s+\w+")


def first_member_line(text: str) -> int | None:
    """The 1-based line of the first member of the public top-level class (see the module docstring), or None."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if PUBLIC_TYPE.match(line):
            break
    else:
        return None
    while i < len(lines) and "{" not in lines[i]:
        i += 1
    in_comment = False
    for j in range(i + 1, len(lines)):
        stripped = lines[j].strip()
        if in_comment:
            in_comment = "*/" not in stripped
            continue
        if not stripped or stripped.startswith("//"):
            continue
        if stripped.startswith("/*"):
            in_comment = "*/" not in stripped[2:]
            continue
        return j + 1
    return None


def largest_helper_file(home: Path = HOME) -> tuple[str, int] | None:
    files = [(len(p.read_text().splitlines()), p.name) for p in (home / "helpers" / "unpinned").rglob("*.java")]
    if not files:
        return None
    lines, name = max(files)
    return name, lines


def sources_per_snippet(home: Path = HOME) -> dict[str, int]:
    return {p.name: sum(1 for line in p.read_text().splitlines() if line.startswith("//SOURCES "))
            for p in sorted((home / "snippets").glob("*.java"))}


def process_builder_sites(home: Path = HOME) -> int:
    return sum(p.read_text().count("new ProcessBuilder") for p in (home / "helpers" / "unpinned").rglob("*.java"))


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
    packages = helper_packages(home)
    helper = largest_helper_file(home)
    sizes = snippet_sizes(home)
    starts = [n for p in sorted((home / "snippets").glob("*.java"))
              if (n := first_member_line(p.read_text())) is not None]
    sources = sources_per_snippet(home)
    readme = readme_lines(home)
    figures = [
        f"{len(packages)} packages",
        f"largest helper file {helper[0]} {helper[1]} lines" if helper else "no helper file",
        f"snippet median {statistics.median(sizes.values()):.0f} lines" if sizes else "no snippets",
        f"code under study at line {statistics.median(starts):.0f} (median)" if starts else "no code under study",
        f"//SOURCES per snippet {max(sources.values())} (max)" if sources else "//SOURCES per snippet 0 (max)",
        f"ProcessBuilder sites {process_builder_sites(home)}",
        f"README {readme} lines" if readme is not None else "no README",
    ]
    rendered = largest_rendered(home)
    method = f"largest rendered method {rendered[0]} {rendered[1]} lines" if rendered else "no rendered method"
    counts = json_unpacking(home)
    detail = ", ".join(f"{name} {n}" for name, n in counts.items() if n)
    unpacking = (f"JSON unpacking in notebook code cells {sum(counts.values())}"
                 + (f" ({detail})" if detail else "") + f" [counted: {', '.join(JSON_PATTERNS)}]")
    return f"structure: {', '.join(figures)}; {method}; {unpacking}"


if __name__ == "__main__":
    print(line())
