"""Self-contained HTML: every dynamic string is escaped unless wrapped in :class:`Markup`.

Charts and gallery thumbnails are embedded as ``data:`` URIs; full-size overlays and
answer files are linked as relative paths. No scripts, no external resources, and no
link or image source taken from data: ``href``/``src`` take only a :class:`SafeURL`
(a ``./``-prefixed, percent-encoded relative path from :func:`rel_href`, or a base64
image made here by :func:`image_uri`).
"""

from __future__ import annotations

import base64
import html
import os
import re
from pathlib import Path
from typing import Any, Iterable, Sequence
from urllib.parse import quote

from .text import clean_text


class Markup(str):
    """A string already safe for HTML (built by this module)."""


class SafeURL(str):
    """A URL allowed in ``href``/``src``: a relative path or an embedded image made by this module."""


_IMAGE_URI = re.compile(r"data:image/(?:png|jpeg);base64,[A-Za-z0-9+/]*={0,2}")


def esc(value: Any) -> Markup:
    """Escape any value for HTML text or attributes (``Markup`` passes through); unencodable and control
    characters become U+FFFD (:func:`~cvcheck.report.text.clean_text`)."""
    if isinstance(value, Markup):
        return value
    return Markup(html.escape(clean_text(value), quote=True))


def rel_href(target: str | os.PathLike[str], base: str | os.PathLike[str] | None = None) -> SafeURL:
    """A link to the file ``target``: relative to the folder ``base`` (when given; else ``target`` is
    already relative), ``./``-prefixed (a first segment such as ``javascript:`` is a path, never a scheme)
    and percent-encoded from the file system's bytes."""
    rel = os.path.relpath(target, base) if base is not None else os.fspath(target)
    if os.path.isabs(rel):
        raise ValueError(f"not a relative path: {rel!r}")
    posix = Path(rel).as_posix()
    try:
        raw = posix.encode("utf-8", "surrogateescape")  # a name read from disk: its bytes
    except UnicodeEncodeError:  # a lone surrogate no file name can hold
        raw = posix.encode("utf-8", "replace")
    return SafeURL("./" + quote(raw, safe="/"))


def image_uri(data: bytes, mime: str = "image/png") -> SafeURL:
    """Embedded image bytes as a ``data:`` URI."""
    if mime not in ("image/png", "image/jpeg"):
        raise ValueError(f"not an embedded image type: {mime}")
    return SafeURL(f"data:{mime};base64," + base64.b64encode(data).decode("ascii"))


def _url(name: str, value: Any) -> str:
    if not isinstance(value, SafeURL):
        raise TypeError(f"{name}= takes a SafeURL (rel_href or image_uri), not {type(value).__name__}")
    if value.startswith("data:") and not _IMAGE_URI.fullmatch(value):
        raise ValueError(f"{name}= data URI is not a base64 PNG/JPEG")
    return value


def tag(name: str, body: Any = "", **attrs: Any) -> Markup:
    """``<name attrs>body</name>``, everything escaped; ``href`` and ``src`` must be :class:`SafeURL`."""
    return Markup(_open(name, attrs) + f"{esc(body)}</{name}>")


def void(name: str, **attrs: Any) -> Markup:
    """An element without content, e.g. ``void("img", src=image_uri(png), alt="...")``."""
    return Markup(_open(name, attrs))


def _open(name: str, attrs: dict[str, Any]) -> str:
    out = []
    for k, v in attrs.items():
        if v is None:
            continue
        key = k.rstrip("_").replace("_", "-")
        value = _url(key, v) if key in ("href", "src") else v
        out.append(f' {key}="{esc(value)}"')
    return f"<{name}{''.join(out)}>"


def join(parts: Iterable[Any], sep: str = "") -> Markup:
    return Markup(sep.join(esc(p) for p in parts))


def table(headers: Sequence[Any], rows: Iterable[Sequence[Any]], *, caption: str | None = None,
          classes: str = "t", numeric_from: int = 1) -> Markup:
    """A table; columns from ``numeric_from`` on are right-aligned."""
    head = join(tag("th", h, class_="num" if i >= numeric_from else None) for i, h in enumerate(headers))
    body = join(tag("tr", join(tag("td", c, class_="num" if i >= numeric_from else None)
                                for i, c in enumerate(row))) for row in rows)
    cap = tag("caption", caption) if caption else Markup("")
    return tag("table", Markup(cap + tag("thead", tag("tr", head)) + tag("tbody", body)), class_=classes)


def png_img(png: bytes, *, alt: str, width: int | None = None) -> Markup:
    return void("img", src=image_uri(png), alt=alt, width=int(width) if width else None)


CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:24px auto;max-width:1180px;
color:#222;padding:0 16px}
h1{font-size:22px;margin-bottom:4px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #ddd;
padding-bottom:4px}h3{font-size:15px;margin-top:22px}
.muted{color:#666;font-size:12px}
table.t{border-collapse:collapse;margin:10px 0;font-size:13px}
table.t caption{caption-side:top;text-align:left;font-weight:600;padding-bottom:4px}
table.t th,table.t td{padding:3px 10px;border-bottom:1px solid #e4e4e4;text-align:left}
table.t thead th{border-top:2px solid #222;border-bottom:1px solid #222}
table.t tbody tr:last-child td{border-bottom:2px solid #222}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
tr.avg td{font-weight:600;border-top:1px solid #222}
.best{font-weight:700}
.cards{display:flex;gap:12px;flex-wrap:wrap}
.card{border:1px solid #ddd;border-radius:6px;padding:8px 14px;min-width:110px}
.card b{display:block;font-size:20px}
.gallery{display:grid;grid-template-columns:repeat(auto-fill,minmax(250px,1fr));gap:14px}
figure{margin:0;border:1px solid #ddd;border-radius:6px;padding:8px;background:#fafafa}
figure img{max-width:100%;height:auto;display:block;margin-bottom:6px}
figcaption{font-size:12px;word-wrap:break-word}
.fail{color:#b02020}.pass{color:#207020}.err{color:#8a5a00}
.charts img{max-width:100%;margin:6px 12px 6px 0;vertical-align:top}
code{background:#f3f3f3;padding:0 3px;border-radius:3px}
"""


def page(title: str, body: Markup) -> str:
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
            f"<title>{esc(title)}</title><style>{CSS}</style></head><body>{body}</body></html>\n")
