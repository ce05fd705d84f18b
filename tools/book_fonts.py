"""Korean text on the book's and slides' pages, drawn with the course's own font wherever they are read.

A reader's machine may have no Korean font (this one has none): the browser then draws the sources' titles as empty
boxes. So a page with Hangul in it carries the glyphs it uses: a subset of Noto Sans KR (the font `make setup`
installs, tools/course_install.py), embedded as a data: URL in one <style>, and every run of Hangul in the page's
text wrapped in <span class="course-hangul">, which asks for that font first. A page without Hangul is unchanged."""
from __future__ import annotations

import base64
import io
import re

import course_install

FAMILY = "Course Noto Sans KR"
CLASS = "course-hangul"
# Hangul syllables and jamo, and the CJK punctuation that goes with them.
HANGUL = re.compile(r"[\u1100-\u11ff\u3000-\u303f\u3130-\u318f\ua960-\ua97f\uac00-\ud7af\ud7b0-\ud7ff]+")
_TEXT = re.compile(r">([^<]+)<")
_SKIP = re.compile(r"<(script|style|title|textarea)\b.*?</\1>", re.S | re.I)


def hangul_in(page: str) -> str:
    """The distinct Hangul characters in a page's text (not in its scripts, styles or title)."""
    text = _SKIP.sub("", page)
    return "".join(sorted({ch for m in HANGUL.finditer(text) for ch in m.group(0)}))


def subset(chars: str) -> bytes:
    """Noto Sans KR cut down to `chars` (an OpenType font, a few kB)."""
    from fontTools import subset as ft_subset
    from fontTools.ttLib import TTFont

    font = TTFont(str(course_install.installed_font()))
    options = ft_subset.Options()
    options.name_IDs = ["*"]  # keeps the licence and copyright names (SIL OFL 1.1)
    sub = ft_subset.Subsetter(options)
    sub.populate(text=chars)
    sub.subset(font)
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()


def style(chars: str) -> str:
    data = base64.b64encode(subset(chars)).decode("ascii")
    return (f'<style>@font-face {{ font-family: "{FAMILY}"; src: url(data:font/otf;base64,{data}) format("opentype"); }}'
            f' .{CLASS} {{ font-family: "{FAMILY}", sans-serif; }}</style>')


def with_hangul_font(page: str) -> str:
    """The page with its Hangul wrapped and the font it needs embedded before </head>; unchanged without Hangul."""
    chars = hangul_in(page)
    if not chars:
        return page
    kept = {}

    def keep(m):
        kept[len(kept)] = m.group(0)
        return f"\0{len(kept) - 1}\0"

    body = _SKIP.sub(keep, page)
    body = _TEXT.sub(lambda m: ">" + HANGUL.sub(lambda h: f'<span class="{CLASS}">{h.group(0)}</span>', m.group(1))
                     + "<", body)
    body = re.sub(r"\0(\d+)\0", lambda m: kept[int(m.group(1))], body)
    head = body.lower().find("</head>")
    if head < 0:
        return style(chars) + body
    return body[:head] + style(chars) + "\n" + body[head:]
