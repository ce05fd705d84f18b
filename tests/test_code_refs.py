"""Static: every declaration a notebook renders with Code.* (helpers/unpinned/showing/Code.java) exists, found as Code finds
it, without running the notebook (tools/code_refs.py); each one's line count is reported."""
import json
import re
import sys

import pytest

from conftest import HOME, report

sys.path.insert(0, str(HOME / "tools"))
import code_refs  # noqa: E402


def _notebook(path, *cells: str):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"cells": [{"cell_type": "code", "id": f"c{i}", "metadata": {}, "outputs": [],
                                           "execution_count": None, "source": [s]} for i, s in enumerate(cells)],
                                "metadata": {}, "nbformat": 4, "nbformat_minor": 5}))
    return path


def test_every_code_reference_in_the_notebooks_resolves_to_a_declaration():
    found, problems = code_refs.rendered()
    assert found, "the notebooks render code with Code.show / Code.showSideBySide"
    assert not problems, "\n".join(problems)
    for notebook in code_refs.notebooks():
        shown = [(ref, lines) for ref, lines in found if ref.notebook == notebook.name]
        if shown:
            report(f"code shown in {notebook.name[:2]}: " + ", ".join(
                f"{ref.signature.strip('( ')} {lines}" for ref, lines in dict((r.signature, (r, n)) for r, n in shown)
                .values()))


def test_references_resolve_literals_variables_loops_arrays_and_side_by_side_columns(tmp_path):
    java = tmp_path / "snippets" / "S99_Probe.java"
    java.parent.mkdir(parents=True)
    java.write_text("class S99 {\n    /** Doc. */\n    static void a() {\n        x();\n    }\n"
                    "    static int b(String s) { return s.length(); }\n    static void c() {\n    }\n}\n")
    nb = _notebook(tmp_path / "notebooks" / "01-probe.ipynb",
                   'var f = "snippets/S99_Probe.java";\nCode.show(f, "static void a(");',
                   'for (String m : List.of("static int b(", "static void c("))\n    Code.show(f, m);',
                   'String[] both = {"static void a(", "static void c("};\nCode.linesOfCode(f, both);',
                   'String pair = "static void a( | static void c(";\n'
                   'Code.showSideBySide(f, "A", pair, "B", "static int b(");\nCode.linesOfCode(f, pair.split(" [|] "));',
                   'String words(String... signatures) {\n'
                   '    return Arrays.stream(signatures).map(s -> Code.method(f, s)).toList().toString();\n}')
    refs, problems = code_refs.references(nb)
    assert problems == []
    assert [(r.cell, r.call, r.signature) for r in refs] == [
        (0, "show", "static void a("), (1, "show", "static int b("), (1, "show", "static void c("),
        (2, "linesOfCode", "static void a("), (2, "linesOfCode", "static void c("),
        (3, "showSideBySide", "static void a("), (3, "showSideBySide", "static void c("),
        (3, "showSideBySide", "static int b("), (3, "linesOfCode", "static void a("),
        (3, "linesOfCode", "static void c(")]
    assert [code_refs.resolve(r, tmp_path) for r in refs[:3]] == [4, 1, 2], "Javadoc included, up to the brace"


@pytest.mark.parametrize("cell, says", [
    ('Code.show("snippets/S99_Probe.java", "static void noSuchMethod(");',
     "no declaration containing 'static void noSuchMethod(' in snippets/S99_Probe.java"),
    ('Code.show("snippets/S98_Gone.java", "static void a(");', "snippets/S98_Gone.java, which does not exist"),
    ('Code.show(somewhere(), "static void a(");', "cannot resolve the argument"),
])
def test_a_reference_to_a_missing_method_or_file_fails(tmp_path, cell, says):
    java = tmp_path / "snippets" / "S99_Probe.java"
    java.parent.mkdir(parents=True)
    java.write_text("class S99 {\n    static void a() {\n    }\n    // static void noSuchMethod() in a comment\n}\n")
    _notebook(tmp_path / "notebooks" / "01-probe.ipynb", cell)
    found, problems = code_refs.rendered(tmp_path)
    assert found == [] and len(problems) == 1 and says in problems[0], problems


def test_the_structure_line_has_the_issue_s_shape_then_rendered_methods_and_json_unpacking(tmp_path):
    import subprocess
    import structure
    (tmp_path / "snippets").mkdir()
    for name, lines in (("S01_A.java", 10), ("S02_B.java", 30), ("S03_C.java", 20)):
        (tmp_path / "snippets" / name).write_text("class X {\n    static void a() {\n" + "\n" * (lines - 3) + "}\n")
    (tmp_path / "helpers" / "unpinned").mkdir(parents=True)
    (tmp_path / "helpers" / "unpinned" / "H.java").write_text("class H {}\n")
    _notebook(tmp_path / "notebooks" / "01-probe.ipynb",
              'Code.show("snippets/S02_B.java", "static void a(");',
              'var o = r.getAsJsonObject("x"); int n = o.get("n").getAsInt(); JsonArray a = o.getAsJsonArray("a");')
    assert structure.line(tmp_path) == (
        "structure: 1 packages, largest helper file H.java 1 lines, snippet median 20 lines, no code under study,"
        " //SOURCES per snippet 0 (max), ProcessBuilder sites 0, no README; largest rendered method S02_B.java"
        " `static void a` 29 lines; JSON unpacking in notebook code cells 5 (getAsJsonObject 1, getAs* 2, JsonArray 1,"
        ' .get(" 1) [counted: getAsJsonObject, getAs*, JsonObject, JsonArray, .get("]')
    shape = re.compile(r"structure: \d+ packages, largest helper file \S+\.java \d+ lines, snippet median \d+ lines,"
                       r" code under study at line \d+ \(median\), //SOURCES per snippet \d+ \(max\),"
                       r" ProcessBuilder sites \d+, README \d+ lines; ")
    assert shape.match(structure.line()), structure.line()
    run = subprocess.run([sys.executable, str(HOME / "tools" / "course.py"), "structure"], capture_output=True,
                         text=True, timeout=60)
    assert run.returncode == 0 and run.stdout == structure.line() + "\n", run.stdout + run.stderr
