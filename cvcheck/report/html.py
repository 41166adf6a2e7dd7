"""Self-contained HTML: every dynamic string is escaped unless wrapped in :class:`Markup`.

Charts and gallery thumbnails are embedded as ``data:`` URIs; full-size overlays are
linked as files next to the page. No scripts, no external resources.
"""

from __future__ import annotations

import base64
import html
from typing import Any, Iterable, Sequence


class Markup(str):
    """A string already safe for HTML (built by this module)."""


def esc(value: Any) -> Markup:
    """Escape any value for HTML text or attributes (``Markup`` passes through)."""
    if isinstance(value, Markup):
        return value
    return Markup(html.escape("" if value is None else str(value), quote=True))


def tag(name: str, body: Any = "", **attrs: Any) -> Markup:
    attr = "".join(f' {k.rstrip("_").replace("_", "-")}="{esc(v)}"' for k, v in attrs.items() if v is not None)
    return Markup(f"<{name}{attr}>{esc(body)}</{name}>")


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
    uri = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
    return Markup(f'<img src="{uri}" alt="{esc(alt)}"' + (f' width="{int(width)}"' if width else "") + ">")


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
