"""Text from results files made safe for each output: HTML (see :mod:`.html`), Markdown, CSV,
chart labels and overlay banners.

Everything a report shows from data (ids, models, task and metric names, messages) is
untrusted: it may carry markup, spreadsheet formulas or strings that cannot be encoded
(lone surrogates from ``"\\udcff"`` in JSON). :func:`clean_text` is the first step of every
escaper here: it makes any value a printable, UTF-8-encodable string.
"""

from __future__ import annotations

import re
from typing import Any

REPLACEMENT = "\ufffd"
#: lone surrogates (not encodable in UTF-8) and control characters other than tab and newlines
_UNPRINTABLE = re.compile("[\ud800-\udfff\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
#: characters with an inline meaning in Markdown, escaped wherever they occur (``[`` and ``]``: links and
#: images; ``<``, ``>``, ``&``: HTML; ``|``: table cells), and ``_`` where it is not inside a word
_MD_INLINE = {"\\": "\\\\", "`": "\\`", "*": "\\*", "_": "\\_", "[": "\\[", "]": "\\]", "|": "\\|", "~": "\\~",
              "&": "&amp;", "<": "&lt;", ">": "&gt;"}
_MD_INLINE_RE = re.compile(r"[\\`*\[\]|~&<>]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])")
#: a block marker at the start of a line or cell: heading, list item, setext underline; a numbered item
_MD_LEADING = re.compile(r"^[#+=-]")
_MD_NUMBERED = re.compile(r"^(\d{1,9})([.)])(?=\s|$)")
#: what starts a formula in a spreadsheet cell (OWASP's CSV injection list)
CSV_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def clean_text(value: Any) -> str:
    """``str(value)`` with lone surrogates and control characters (but tab, CR, LF) replaced by U+FFFD;
    None is the empty string."""
    s = "" if value is None else str(value)
    return _UNPRINTABLE.sub(REPLACEMENT, s)


def md_text(value: Any) -> str:
    """Text for a Markdown line or table cell: renders as the literal text, never as markup, HTML,
    a link, a heading or a list; newlines become spaces (a cell or line stays one)."""
    s = " ".join(clean_text(value).split("\n")).replace("\r", " ").strip()
    s = _MD_INLINE_RE.sub(lambda m: _MD_INLINE[m.group()], s)
    if _MD_LEADING.match(s):
        return "\\" + s
    return _MD_NUMBERED.sub(r"\1\\\2", s, count=1)


def csv_cell(value: Any) -> Any:
    """A CSV cell: numbers as they are; text cleaned, prefixed with ``'`` when a spreadsheet would read it
    as a formula (starting with ``= + - @``, tab or CR), and its line breaks made LF (which the CSV writer
    quotes; a bare CR would not be, and would split the row)."""
    if value is None or isinstance(value, (bool, int, float)):
        return value
    s = clean_text(value)
    if s.startswith(CSV_FORMULA_START):
        s = "'" + s
    return s.replace("\r\n", "\n").replace("\r", "\n")


def chart_text(value: Any, *, limit: int = 48) -> str:
    """A matplotlib label: no mathtext (``$`` escaped), no legend-hiding leading ``_``, bounded length."""
    s = " ".join(clean_text(value).splitlines())
    if len(s) > limit:
        s = s[: limit - 1] + "…"
    s = s.replace("$", r"\$")
    return " " + s if s.startswith("_") else s


def ascii_text(value: Any) -> str:
    """Text for OpenCV's Hershey fonts, which draw ASCII only."""
    return clean_text(value).encode("ascii", "replace").decode("ascii")
