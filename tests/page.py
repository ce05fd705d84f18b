"""The page a learner reads, checked: what every executed notebook shows (saved by the headless run, or seen on the
kernel's wire by the browser run). Charts have data in every series they declare and nothing clipped, and are
legible (check_chart: ticks, log ends, whole-number categories, no label over another or over a bar or line, no series
hidden, titles that promise only what is drawn, "published" only for published figures, a font for every text); tables count
what happened (no column of work done that is all zeros) and fit the page; no error outputs, bare display ids,
temporary paths or progress floods; every generated outcome sentence agrees with the numbers it was written from.

Totals go to one `page:` line in the test summary (conftest), failures too, so a run shows how much was checked."""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

CHART_KEY = "unpinned/chart"        # DrawnChart.METADATA_KEY
REFERENCE_KEY = "unpinned/reference"  # Seminar.REFERENCE_KEY: a reference run's saved chart (chapter 09)
OUTCOME_KEY = "unpinned/outcome"    # Meaning.METADATA_KEY
JUDGED_KEY = "unpinned/judged"      # Expectations.METADATA_KEY
CLAIMS_KEY = "unpinned/claims"      # Claims.TABLE_KEY
NOT_EXPECTED = "Not what the chapter expects"  # Meaning.NOT_EXPECTED
MAX_VISIBLE_COLUMNS = 8             # Tables.MAX_VISIBLE_COLUMNS
# Columns that count work an experiment did: all zeros there means the table was filled before the work ran.
WORK_COLUMNS = re.compile(r"^(produced|consumed|completed|requests|orders|tasks|ended|started|served|rows)\b", re.I)
UUID = re.compile(r"^\s*[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\s*$")
TEMP_PATH = re.compile(r"(/tmp/|/var/folders/|pytest-of-|/private/var/)\S*")
PROGRESS = re.compile(r"(warm-up|measuring|running|starting)\s+\d+(\.\d+)?/\d+(\.\d+)? ?s\b")
STDERR_NOISE = re.compile(r"Exception|Error|deprecated|WARNING")
MAX_PROGRESS_LINES = 3
# The checkout itself may sit under /tmp (a fresh clone): a path inside it is the course's, not a temporary one.
CHECKOUT = str(Path(__file__).resolve().parent.parent)              # per cell: a few finished steps may stay, a flood may not


MIN_TICKS = 3                       # labelled ticks on a value axis
LABEL_GAP = 2                       # px between two labels, less reads as one ("2.012.04")
# A title word that promises a series or a line: the names, one of which a drawn series or line must contain.
PROMISES = {"published": ("published",), "article": ("published", "article"), "write-up": ("published", "write-up"),
            "source's": ("published", "source"), "bound": ("bound", "little", "limit", "floor", "ceiling")}


@dataclass
class PageCount:
    charts: int = 0
    tables: int = 0
    outcomes: int = 0
    chart_checks: int = 0
    chart_failed: int = 0
    failures: list = field(default_factory=list)
    # every judged figure on the page: (experiment, id, verdict, has a spread, claims)
    judged: list = field(default_factory=list)
    # each claims table's verdicts: {claim: verdict}
    ledger: dict = field(default_factory=dict)
    # per page added with add_page: {claim: (paragraph's verdict, table's)}, each page judged on its own run
    pages: list = field(default_factory=list)

    def add(self, other: "PageCount") -> None:
        self.charts += other.charts
        self.tables += other.tables
        self.outcomes += other.outcomes
        self.chart_checks += other.chart_checks
        self.chart_failed += other.chart_failed
        self.failures += other.failures
        self.judged += other.judged
        self.ledger.update(other.ledger)
        self.pages += other.pages

    def add_page(self, page: "PageCount") -> None:
        """Adds a whole page's count, keeping which of its claims its paragraphs and its table agree on: two runs
        of a chapter (headless and in the browser) may judge a near-line claim differently, each page in itself."""
        self.add(page)
        self.pages.append(shared_claims(page))


TOTAL = PageCount()


def _text(value) -> str:
    return "".join(value) if isinstance(value, list) else (value or "")


class _Tables(HTMLParser):
    """Each <table> in an HTML output: its header cells, rows of cell texts, and whether it sits in a <details>."""

    def __init__(self):
        super().__init__()
        self.tables, self._stack, self._details, self._cell = [], [], 0, None

    def handle_starttag(self, tag, attrs):
        if tag == "details":
            self._details += 1
        elif tag == "table":
            self._stack.append({"headers": [], "rows": [], "in_details": self._details > 0})
        elif tag == "tr" and self._stack:
            self._stack[-1]["rows"].append([])
        elif tag in ("td", "th") and self._stack:
            self._cell = (tag, [])

    def handle_endtag(self, tag):
        if tag == "details":
            self._details -= 1
        elif tag == "table" and self._stack:
            t = self._stack.pop()
            t["rows"] = [r for r in t["rows"] if r]
            self.tables.append(t)
        elif tag in ("td", "th") and self._cell and self._stack:
            kind, parts = self._cell
            text = "".join(parts).strip()
            if kind == "th":
                self._stack[-1]["headers"].append(text)
            else:
                self._stack[-1]["rows"][-1].append(text)
            self._cell = None

    def handle_data(self, data):
        if self._cell:
            self._cell[1].append(data)


def _number(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def _overlap(a: list, b: list, slack: float = 0.5, slack_y: float | None = None) -> bool:
    """Two boxes [x, y, w, h] share more than a sliver (a negative slack: come closer than -slack px)."""
    sy = slack if slack_y is None else slack_y
    return (a[0] + slack < b[0] + b[2] and b[0] + slack < a[0] + a[2]
            and a[1] + sy < b[1] + b[3] and b[1] + sy < a[1] + a[3])


def check_chart(where: str, chart: dict) -> tuple[int, list[str]]:
    """A chart as its record (Charts/ChartReading in the helpers) says it was drawn: how many checks were made, and
    what failed. Each value axis has at least MIN_TICKS labelled ticks; a log axis is labelled at or beyond both ends
    of its data; a category axis that numbers its categories (carriers) has whole numbers only; no text in the plot
    covers another, a bar not its own, or a line; no series is mostly under a later one, no bar too thin to see and
    unlabelled; the title promises only series or lines that are drawn; what says "published" is a published figure;
    and the chart's font has a glyph for every character it draws."""
    name = f"{where}: chart '{str(chart.get('title'))[:70]}'"
    problems, checks = [], 0
    for axis in chart.get("axes", []):
        labels, values = axis.get("labels", []), axis.get("values", [])
        what = f"its {axis.get('name')} axis"
        if axis.get("kind") == "value":
            checks += 1
            if len(labels) < MIN_TICKS:
                problems.append(f"{name}: {what} has {len(labels)} labelled tick{'s' * (len(labels) != 1)} "
                                f"({', '.join(labels) or 'none'}); a reader needs at least {MIN_TICKS} to read a value")
            lo, hi = axis.get("dataMin"), axis.get("dataMax")
            if axis.get("log") and lo is not None and hi is not None:
                checks += 1
                nums = [v for v in values if v is not None]
                if not nums or min(nums) > lo * (1 + 1e-9) or max(nums) < hi * (1 - 1e-9):
                    problems.append(f"{name}: {what} is logarithmic but not labelled at both ends: data from {lo:g} to"
                                    f" {hi:g}, labels {', '.join(labels) or 'none'}")
        elif axis.get("kind") == "category":
            numbered = [(l, v) for l, v in zip(labels, values) if v is not None]
            if numbered:
                checks += 1
                fractional = [l for l, v in numbered if abs(v - round(v)) > 1e-9]
                if fractional:
                    problems.append(f"{name}: {what} counts categories but has ticks between them: "
                                    f"{', '.join(fractional[:6])}")
    boxes = chart.get("boxes", [])
    texts = [b for b in boxes if b.get("kind") in ("value label", "line label")]
    shapes = [b for b in boxes if b.get("kind") in ("bar", "line")]
    if texts:
        checks += 1
        covered = []
        for i, a in enumerate(texts):
            for b in texts[i + 1:]:
                if _overlap(a["box"], b["box"], -LABEL_GAP, 0.5):  # side by side they need a gap; stacked, not
                    covered.append(f"'{a['text']}' over '{b['text']}'")
            for m in shapes:
                own = m["kind"] == "bar" and m.get("owner") and m.get("owner") == a.get("owner")
                if not own and m["box"][3] > 0 and _overlap(a["box"], m["box"], 0.0 if m["kind"] == "line" else 0.5):
                    covered.append(f"'{a['text']}' over the {m['kind']} '{m['text']}'")
        if covered:
            problems.append(f"{name}: a label is drawn over what it must not cover: {'; '.join(covered[:4])}")
    labelled = {b.get("owner") for b in texts if b.get("kind") == "value label"}
    for s in chart.get("series", []):
        if not s.get("points"):
            continue
        checks += 1
        hidden = s.get("hidden", 0)
        if hidden * 4 > s["points"]:
            problems.append(f"{name}: {hidden} of the {s['points']} points of '{s['name']}' lie under a series drawn"
                            " after it (draw it on top, or as rings)")
        slivers = [b for b in shapes if b["kind"] == "bar" and b.get("text") == s["name"] and b["box"][3] < 2
                   and b.get("owner") not in labelled]
        if slivers:
            problems.append(f"{name}: {len(slivers)} bar(s) of '{s['name']}' too thin to see and unlabelled")
    checks += 1
    drawn = [str(s.get("name", "")).lower() for s in chart.get("series", []) if s.get("points")]
    drawn += [str(b.get("text", "")).lower() for b in boxes if b.get("kind") in ("line", "line label")]
    title = str(chart.get("title") or "").lower()
    for word, names in PROMISES.items():
        if re.search(rf"(?<![\w-]){re.escape(word)}", title) and not any(n in d for d in drawn for n in names):
            problems.append(f"{name}: the title promises {word!r}, but no series or line of it is drawn")
    checks += 1
    unsourced = {s["name"]: s["unsourced"] for s in chart.get("series", []) if s.get("unsourced")}
    unsourced.update(chart.get("unsourcedLines") or {})
    for label, values in unsourced.items():
        problems.append(f"{name}: '{label}' is labelled published, but {', '.join(values[:4])} is no figure a source"
                        " published (data/published)")
    checks += 1
    if chart.get("undrawable"):
        problems.append(f"{name}: drawn as empty boxes (no font has its characters): "
                        f"{'; '.join(chart['undrawable'][:3])}")
    return checks, problems


def check_table(where: str, table: dict) -> list[str]:
    problems = []
    headers, rows = table["headers"], table["rows"]
    if not table["in_details"] and len(headers) > MAX_VISIBLE_COLUMNS:
        problems.append(f"{where}: a table shows {len(headers)} columns at once (at most {MAX_VISIBLE_COLUMNS} fit; "
                        "show the rest in a details view: Tables.show)")
    if not rows:
        return problems
    numeric = {}
    for c, h in enumerate(headers):
        values = [_number(r[c]) for r in rows if c < len(r)]
        if values and all(v is not None for v in values):
            numeric[h] = values
    zero = [h for h, v in numeric.items() if all(x == 0 for x in v)]
    if numeric and len(zero) == len(numeric) and len(numeric) > 1:
        problems.append(f"{where}: every number in the table is 0 ({', '.join(zero)}): it counted nothing")
    for h in zero:
        if WORK_COLUMNS.match(h):
            problems.append(f"{where}: column '{h}' counts work done but is 0 in every row")
    return problems


def check_outcome(where: str, record: dict, text: str) -> list[str]:
    """Recomputes an outcome sentence's verdict from its numbers (as Meaning wrote them) and reads the sentence."""
    problems = []
    ratio = record.get("ratio")
    kind = record.get("kind")
    if kind == "compare":
        a, b, tie = record["a"], record["b"], record["tie"]
        if not (isinstance(a, (int, float)) and isinstance(b, (int, float)) and b):
            return [f"{where}: outcome without numbers: {record}"]
        ratio_now = a / b
        relation = "MORE" if ratio_now > 1 + tie else "LESS" if ratio_now < 1 / (1 + tie) else "SAME"
        if relation != record.get("relation"):
            problems.append(f"{where}: the sentence says {record.get('relation')} but its numbers say {relation}")
        met = record.get("expected") in (None, relation)
    elif kind == "share":
        measured, bound = record["measured"], record["bound"]
        ratio_now = measured / bound
        floor, ceiling = record.get("expectAtLeast"), record.get("expectAtMost")
        met = (floor is None or ratio_now >= floor) and (ceiling is None or ratio_now <= ceiling)
    else:
        return [f"{where}: an outcome of unknown kind {kind!r}"]
    if not math.isclose(ratio_now, ratio, rel_tol=1e-9):
        problems.append(f"{where}: ratio {ratio} is not {ratio_now} from its own numbers")
    # Java rounds the shortest decimal form half up (0.975 -> 0.98), Python the exact binary value (-> 0.97)
    stated = [float(x) for x in re.findall(r"(?<![\d.])\d+\.\d\d(?!\d)", text)]
    if not any(abs(x - ratio_now) <= 0.00501 for x in stated):
        problems.append(f"{where}: the sentence does not state its ratio {ratio_now:.2f}: {text[:200]}")
    if "claim" in record:  # a claim's verdict (Claims): named in its sentence, and recomputed from its ratio's band
        problems += check_claim(where, record, ratio_now, text)
    if met != record.get("met"):
        problems.append(f"{where}: the sentence says met={record.get('met')} but its numbers say {met}")
    if not met and NOT_EXPECTED not in text:
        problems.append(f"{where}: the run disagrees with the chapter but the sentence does not say so: {text[:200]}")
    return problems


def check_claim(where: str, record: dict, ratio: float, text: str) -> list[str]:
    """A claim's verdict as Claims wrote it: its sentence starts with "id: verdict", and where the rule is one band on
    the ratio (confirmed inside [confirmFrom, confirmTo], refuted outside [refuteBelow, refuteAbove]) the verdict is
    the band's."""
    claim, verdict = record["claim"], record.get("verdict")
    problems = []
    if f"{claim}: {verdict}" not in text:
        problems.append(f"{where}: claim {claim}'s sentence does not state its verdict {verdict!r}: {text[:160]}")
    bounds = [record.get(k) for k in ("confirmFrom", "confirmTo", "refuteBelow", "refuteAbove")]
    if any(b is not None for b in bounds):
        lo, hi, rlo, rhi = bounds
        if (lo is None or ratio >= lo) and (hi is None or ratio <= hi):
            now = "confirmed"
        elif (rlo is not None and ratio < rlo) or (rhi is not None and ratio > rhi):
            now = "refuted"
        else:
            now = "depends"
        if now != verdict:
            problems.append(f"{where}: claim {claim} says {verdict} but its ratio {ratio:.3f} says {now}")
    return problems


def verdict_of(j: dict) -> set[str]:
    """The verdicts a judgement's interval allows against its line (Expectations.Line.of): one, or for an interval
    between a refuting line and its confirming one, "depends" or "refuted" (whether a dependency was measured)."""
    lo, hi = j["low"], math.inf if j.get("high") is None else j["high"]
    cf, ct = j.get("confirmFrom"), j.get("confirmTo")
    rb, ra = j.get("refuteBelow"), j.get("refuteAbove")
    ct = math.inf if ct is None else ct
    ra = math.inf if ra is None else ra
    cf = -math.inf if cf is None else cf
    rb = -math.inf if rb is None else rb
    if lo >= cf and hi <= ct:
        return {"confirmed"}
    if hi < rb or lo > ra:
        return {"refuted"}
    if (lo >= rb and hi < cf) or (hi <= ra and lo > ct):
        return {"depends", "refuted"}
    return {"confirmed"} if j.get("kind") == "LIMIT" else {"inconclusive"}


def check_judged(where: str, record: dict, text: str, count: PageCount) -> list[str]:
    """A "what this run shows" paragraph (Expectations.Judged): each judgement's verdict recomputed from its interval
    and line, its sentence on the page with its ratio, and a busy machine said so."""
    problems = []
    for j in record.get("judgements", []):
        name = f"{j.get('experiment')} {j.get('id')}"
        spread = j.get("spread")
        count.judged.append((j.get("experiment"), j.get("id"), j["verdict"], bool(spread) and spread != NO_SPREAD,
                             tuple(j.get("claims") or ())))
        if j["verdict"] == "not run":
            continue
        allowed = verdict_of(j)
        if j["verdict"] not in allowed:
            problems.append(f"{where}: {name} says {j['verdict']} but its interval [{j['low']}, {j['high']}]"
                            f" says {sorted(allowed)}")
        if not (j["low"] <= j["ratio"] <= (math.inf if j.get("high") is None else j["high"])):
            problems.append(f"{where}: {name}: its ratio {j['ratio']} lies outside its interval")
        stated = [float(x) for x in re.findall(r"(?<![\d.])\d+\.\d\d(?!\d)", j.get("sentence", ""))]
        if not any(abs(x - j["ratio"]) <= 0.00501 for x in stated):
            problems.append(f"{where}: {name}'s sentence does not state its ratio {j['ratio']:.2f}")
        if j.get("kind") != "LIMIT" and j.get("sentence", "") not in text:
            problems.append(f"{where}: {name}'s sentence is not on the page")
    if record.get("busy") and "The machine was busy" not in text:
        problems.append(f"{where}: judged on a busy machine, but the page does not say so")
    return problems


NO_SPREAD = "one measurement, no spread"  # Figure.NONE


def check_outputs(where: str, outputs: list[dict], demonstrates_error: bool = False) -> PageCount:
    """One cell's outputs, as nbformat stores them."""
    count = PageCount()
    fail = count.failures.append
    progress = 0
    carriage_return = False
    for out in outputs:
        kind = out.get("output_type")
        if kind == "error":
            if not demonstrates_error:
                fail(f"{where}: error output {out.get('ename')}: {str(out.get('evalue'))[:200]}")
            if len(out.get("traceback") or []) > 3:
                fail(f"{where}: an error shown as a {len(out['traceback'])}-line trace, not one line")
            continue
        if kind == "stream":
            text = _text(out.get("text"))
            if "\r" in text and not carriage_return:
                carriage_return = True
                fail(f"{where}: a progress line saved with carriage returns: {text[:120]!r}")
            progress += sum(1 for line in text.splitlines() if PROGRESS.search(line))
            if out.get("name") == "stderr" and STDERR_NOISE.search(text) and not demonstrates_error:
                fail(f"{where}: on stderr: {text.strip()[:160]!r}")
            texts = [text]
        else:
            data, meta = out.get("data") or {}, out.get("metadata") or {}
            texts = [_text(data.get(m)) for m in ("text/plain", "text/html", "text/markdown")]
            if kind == "execute_result" and UUID.match(_text(data.get("text/plain"))) and len(data) == 1:
                fail(f"{where}: a bare display id is the cell's result: {_text(data['text/plain']).strip()}")
            if "image/png" in data:
                count.charts += 1
                chart = meta.get(CHART_KEY)
                if not chart and meta.get(REFERENCE_KEY, {}).get("machine"):
                    pass  # a reference run's saved chart, with its machine: checked when that run drew it
                elif not chart:
                    fail(f"{where}: an image drawn outside the chart helpers (no record of what it shows)")
                else:
                    empty = [s["name"] for s in chart.get("series", []) if s.get("points", 0) == 0]
                    if not chart.get("series"):
                        fail(f"{where}: chart '{chart.get('title')}' declares no series")
                    if empty:
                        fail(f"{where}: chart '{chart.get('title')}' draws nothing for {empty}")
                    if chart.get("clipped"):
                        fail(f"{where}: chart '{chart.get('title')}' cuts off {chart['clipped']}")
                    checks, problems = check_chart(where, chart)
                    count.chart_checks += checks
                    count.chart_failed += len(problems)
                    for p in problems:
                        fail(p)
            html = _text(data.get("text/html"))
            if "<table" in html:
                parser = _Tables()
                parser.feed(html)
                for t in parser.tables:
                    if not t["in_details"]:
                        count.tables += 1
                    for p in check_table(where, t):
                        fail(p)
            if OUTCOME_KEY in meta:
                count.outcomes += 1
                for p in check_outcome(where, meta[OUTCOME_KEY], _text(data.get("text/markdown"))):
                    fail(p)
            if JUDGED_KEY in meta:
                count.outcomes += 1
                for p in check_judged(where, meta[JUDGED_KEY], _text(data.get("text/markdown")), count):
                    fail(p)
            if CLAIMS_KEY in meta:
                count.ledger.update(meta[CLAIMS_KEY].get("verdicts") or {})
        for text in texts:
            m = TEMP_PATH.search(text.replace(CHECKOUT, "<course>"))
            if m:
                fail(f"{where}: a temporary path on the page: {m.group(0)[:120]}")
    if progress > MAX_PROGRESS_LINES:
        fail(f"{where}: {progress} progress lines kept on the page (a live line should replace itself)")
    return count


def check_notebook(name: str, nb: dict) -> PageCount:
    count = PageCount()
    for i, cell in enumerate(nb["cells"]):
        if cell.get("cell_type") != "code":
            continue
        tags = (cell.get("metadata") or {}).get("tags", [])
        count.add(check_outputs(f"{name} cell {i} ({cell.get('id')})", cell.get("outputs", []), "raises" in tags))
    for p in disagreements(count):
        count.failures.append(f"{name}: {p}")
    return count


def shared_claims(count: PageCount) -> dict[str, tuple[str, str]]:
    """Each claim that both a judged paragraph and the chapter's claims table decide: (paragraph's, table's) verdict.
    A table says "not run yet" where a paragraph says "not run"."""
    shared = {}
    for _, _, verdict, _, claims in count.judged:
        for c in claims:
            if c in count.ledger:
                table = count.ledger[c]
                shared[c] = (verdict, "not run" if table == "not run yet" else table)
    return shared


def agreement(count: PageCount) -> tuple[int, int]:
    """(claims whose paragraph and table agree on every page that decides them, claims some page decides both)."""
    agrees: dict[str, bool] = {}
    for shared in count.pages:
        for c, (a, b) in shared.items():
            agrees[c] = agrees.get(c, True) and a == b
    return sum(agrees.values()), len(agrees)


def disagreements(count: PageCount) -> list[str]:
    return [f"claim {c}: the chapter's paragraph says {a}, its claims table {b}"
            for c, (a, b) in shared_claims(count).items() if a != b]


HANGUL_FONT_CLASS = "course-hangul"     # tools/book_fonts.py CLASS
_HANGUL = re.compile(r"[\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7af\ud7b0-\ud7ff]")
_EMBEDDED_FONT = re.compile(r"@font-face\s*\{[^}]*src:\s*url\(data:font/[a-z]+;base64,([A-Za-z0-9+/=]+)\)")


def check_book_page(name: str, page: str) -> list[str]:
    """A book or slides page (HTML) draws its Korean with a font it carries: each Hangul character of its text sits
    in a span of the course's font class, and the font embedded in the page has a glyph for it. A reader's machine
    without a Korean font would otherwise show empty boxes (as this machine's Chromium did)."""
    from fontTools.ttLib import TTFont
    import base64
    import io
    text = re.sub(r"<(script|style|title)\b.*?</\1>", "", page, flags=re.S | re.I)
    chars = set(_HANGUL.findall(text))
    if not chars:
        return []
    problems = []
    bare = re.sub(rf'<span class="{HANGUL_FONT_CLASS}">[^<]*</span>', "", text)
    outside = sorted(set(_HANGUL.findall(re.sub(r"<[^>]+>", "", bare))))
    if outside:
        problems.append(f"{name}: Korean text outside the course font's spans: {''.join(outside[:20])}")
    fonts = _EMBEDDED_FONT.findall(page)
    if not fonts:
        return problems + [f"{name}: Korean text ({len(chars)} characters) but no font embedded for it"]
    cmap = set()
    for data in fonts:
        cmap |= set(TTFont(io.BytesIO(base64.b64decode(data))).getBestCmap())
    missing = sorted(ch for ch in chars if ord(ch) not in cmap)
    if missing:
        problems.append(f"{name}: the embedded font has no glyph for {''.join(missing[:20])}")
    return problems
