"""The code a notebook renders, found without running it: every `Code.*` call in the notebooks' code cells
(helpers/unpinned/showing/Code.java: method, show, sideBySide, showSideBySide, linesOfCode) with its file and signatures
resolved from the cells' string literals and variables, and each declaration looked up in its file the way
Code.extract finds it (the first line containing the signature that is not a comment, its Javadoc and
annotations above, up to the closing brace).

    python3 tools/code_refs.py      # every reference with its declaration's line count, or what is missing

tests/test_code_refs.py checks that every reference resolves; tools/structure.py names the largest one."""
from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

HOME = Path(__file__).resolve().parent.parent

# Code's methods and which of their arguments (after the file) are signatures: "all" (linesOfCode's varargs),
# "odd" (sideBySide's title/signature pairs), or the first only (method, show).
CODE_CALLS = {"method": "first", "show": "first", "sideBySide": "odd", "showSideBySide": "odd", "linesOfCode": "all"}

_TOKEN = re.compile(r'''"(?:[^"\\\n]|\\.)*"|//[^\n]*|/\*.*?\*/|[A-Za-z_][\w.]*|\S''', re.S)
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "'": "'", "\\": "\\"}


@dataclass(frozen=True)
class Ref:
    """One declaration a notebook renders: where the call is (notebook, cell index), the file and the signature."""
    notebook: str
    cell: int
    call: str
    file: str
    signature: str


class Unresolved(Exception):
    """A Code.* argument that is neither a literal nor a variable the cells give a value."""


def _tokens(code: str) -> list[str]:
    return [t for t in _TOKEN.findall(code) if not t.startswith(("//", "/*"))]


def _literal(token: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m[1], m[1]), token[1:-1])


def _split_top(tokens: list[str], sep: str = ",") -> list[list[str]]:
    """tokens split at `sep` outside brackets."""
    parts, depth, current = [], 0, []
    for t in tokens:
        if t in "([{":
            depth += 1
        elif t in ")]}":
            depth -= 1
        if t == sep and depth == 0:
            parts.append(current)
            current = []
        else:
            current.append(t)
    if current:
        parts.append(current)
    return parts


def _closing(tokens: list[str], start: int) -> int:
    """Index of the bracket closing tokens[start]."""
    depth = 0
    for i in range(start, len(tokens)):
        if tokens[i] in "([{":
            depth += 1
        elif tokens[i] in ")]}":
            depth -= 1
            if depth == 0:
                return i
    raise Unresolved("unbalanced brackets")


def _value(expr: list[str], env: dict) -> list[list[str]]:
    """The values an expression may have, each a list of strings: a string literal or a concatenation of them
    (one string), an array or List.of(...) of them, a variable (a loop variable has several values), or
    `x.split(" [|] ")` (the " | " separated signatures of a string)."""
    if not expr:
        raise Unresolved("empty argument")
    if expr[0] in ("{", "List.of", "Set.of", "new"):
        at = next((i for i, t in enumerate(expr) if t in ("(", "{")), None)
        if at is None:
            raise Unresolved(" ".join(expr))
        items = _split_top(expr[at + 1:_closing(expr, at)])
        return [[s for item in items for s in _single(item, env)]]
    if expr[0].endswith(".split") and expr[1:2] == ["("]:
        return [[s for v in env_values(expr[0][:-len(".split")], env) for item in v for s in item.split(" | ")]]
    if expr[0].startswith('"') and all(t == "+" or t.startswith('"') for t in expr):
        return [["".join(_literal(t) for t in expr if t != "+")]]
    if len(expr) == 1 and re.fullmatch(r"[A-Za-z_]\w*", expr[0]):
        return env_values(expr[0], env)
    raise Unresolved(" ".join(expr))


def _single(expr: list[str], env: dict) -> list[str]:
    values = _value(expr, env)
    if len(values) != 1:
        raise Unresolved(" ".join(expr))
    return values[0]


def env_values(name: str, env: dict) -> list[list[str]]:
    if name not in env:
        raise Unresolved(name)
    return env[name]


def _declarations(tokens: list[str], env: dict) -> None:
    """Records `var|String|String[] NAME = EXPR;` and `for (String NAME : List.of(...))` into env."""
    for i, t in enumerate(tokens):
        if t == "=" and i >= 2 and re.fullmatch(r"[A-Za-z_]\w*", tokens[i - 1]) and \
                (tokens[i - 2] in ("var", "String") or tokens[i - 3:i - 1] == ["String", "["] or tokens[i - 2] == "]"):
            end = i + 1
            depth = 0
            while end < len(tokens) and not (tokens[end] == ";" and depth == 0):
                depth += tokens[end] in "([{"
                depth -= tokens[end] in ")]}"
                end += 1
            try:
                env[tokens[i - 1]] = _value(tokens[i + 1:end], env)
            except (Unresolved, ValueError, IndexError):
                env.pop(tokens[i - 1], None)  # a value computed at run time: no code reference reads it
        if t == "for" and tokens[i + 1:i + 2] == ["("] and ":" in tokens[i:i + 6]:
            colon = tokens.index(":", i)
            name = tokens[colon - 1]
            try:
                env[name] = [[v] for v in _value(tokens[colon + 1:_closing(tokens, i + 1)], env)[0]]
            except (Unresolved, ValueError, IndexError):
                env.pop(name, None)


def _parameters(code: str) -> set[str]:
    """Names that are parameters in this cell (of a method or a lambda): their values come from the callers."""
    names = set(re.findall(r"\b([A-Za-z_]\w*)\s*->", code))
    for params in re.findall(r"\b\w+\s*\(([^()]*)\)\s*(?:throws [\w., ]+)?\{", code):
        names.update(re.findall(r"([A-Za-z_]\w*)\s*(?:,|$)", params.strip()))
    return names


def references(notebook: Path) -> tuple[list[Ref], list[str]]:
    """Every declaration the notebook's Code.* calls render, and the calls that could not be resolved (each a
    message); a call whose arguments are the parameters of a method defined in the cell is resolved where that
    method is called, so it is neither."""
    nb = json.loads(notebook.read_text())
    env: dict = {}
    refs, problems = [], []
    for index, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "code":
            continue
        code = "".join(cell["source"])
        tokens = _tokens(code)
        _declarations(tokens, env)
        params = _parameters(code)
        for i, t in enumerate(tokens):
            kind = t[len("Code."):] if t.startswith("Code.") else None
            if kind not in CODE_CALLS or tokens[i + 1:i + 2] != ["("]:
                continue
            args = _split_top(tokens[i + 2:_closing(tokens, i + 1)])
            if any(len(a) == 1 and a[0] in params and a[0] not in env for a in args):
                continue
            where = f"{notebook.name} cell {index}: Code.{kind}"
            try:
                files = [v[0] for v in _value(args[0], env)]
                picked = {"first": args[1:2], "odd": args[2::2], "all": args[1:]}[CODE_CALLS[kind]]
                signatures = [s for a in picked for v in _value(a, env) for item in v for s in item.split(" | ")]
            except (Unresolved, IndexError) as e:
                problems.append(f"{where}: cannot resolve the argument {e} without running the notebook")
                continue
            refs.extend(Ref(notebook.name, index, kind, f, s) for f in files for s in signatures)
    return refs, problems


def extract(lines: list[str], signature: str) -> list[str] | None:
    """Code.extract in Python: the declaration whose first line contains `signature`, or None."""
    at = next((i for i, line in enumerate(lines)
               if signature in line and not line.strip().startswith(("*", "//"))), None)
    if at is None:
        return None
    start = at
    while start > 0 and lines[start - 1].strip().startswith(("@", "*", "/**", "*/")):
        start -= 1
    depth, opened, end = 0, False, at
    for i in range(at, len(lines)):
        for c in re.sub(r'"([^"\\]|\\.)*"|\'([^\'\\]|\\.)*\'|//.*$', "", lines[i]):
            if c == "{":
                depth, opened = depth + 1, True
            elif c == "}":
                depth -= 1
        end = i
        if opened and depth == 0:
            break
        if not opened and lines[i].strip().endswith(";"):
            break
    return lines[start:end + 1]


def resolve(ref: Ref, home: Path = HOME) -> int:
    """The line count of the declaration `ref` renders; ValueError says what is missing."""
    path = home / ref.file
    if not path.is_file():
        raise ValueError(f"{ref.notebook} cell {ref.cell}: Code.{ref.call} names {ref.file}, which does not exist")
    found = extract(path.read_text().splitlines(), ref.signature)
    if found is None:
        raise ValueError(f"{ref.notebook} cell {ref.cell}: Code.{ref.call}: no declaration containing"
                         f" '{ref.signature}' in {ref.file}")
    return len(found)


def notebooks(home: Path = HOME) -> list[Path]:
    return sorted((home / "notebooks").glob("[0-9][0-9]-*.ipynb"))


def rendered(home: Path = HOME) -> tuple[list[tuple[Ref, int]], list[str]]:
    """Every reference of every chapter with its line count, and every problem (unresolved or missing)."""
    found, problems = [], []
    for notebook in notebooks(home):
        refs, unresolved = references(notebook)
        problems += unresolved
        for ref in dict.fromkeys(refs):
            try:
                found.append((ref, resolve(ref, home)))
            except ValueError as e:
                problems.append(str(e))
    return found, problems


def main() -> int:
    found, problems = rendered()
    for ref, lines in found:
        print(f"{lines:4d}  {ref.notebook[:2]}  {ref.file}  {ref.signature}")
    for problem in problems:
        print(f"problem: {problem}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
