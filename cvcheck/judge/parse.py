"""Parsing judge replies into metric values.

>>> parse_binary("**Yes**."), parse_binary("no"), parse_binary("maybe")
(1, 0, None)
>>> parse_fraction("6/8"), parse_fraction("75%"), parse_fraction("1.0")
(0.75, 0.75, 1.0)
>>> parse_labelled("maze_changed: no\\ncross_wall: **yes**", ["maze_changed", "cross_wall"])
{'maze_changed': 'no', 'cross_wall': '**yes**'}
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Iterable, Mapping

_YES = {"yes", "y", "true", "1", "1.0"}
_NO = {"no", "n", "false", "0", "0.0"}
_STRIP = " \t*_`'\".,;:!()[]"


def parse_binary(value: Any) -> int | None:
    """1 / 0 from yes/no/true/false/1/0 (bools and numbers too); None otherwise."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(value) if value in (0, 1) else None
    if not isinstance(value, str):
        return None
    words = value.strip().split()
    if not words:
        return None
    head = words[0].strip(_STRIP).lower()
    return 1 if head in _YES else 0 if head in _NO else None


_FRAC = re.compile(r"^\s*[*_`]*\s*(\d+(?:\.\d+)?)\s*(?:(/)\s*(\d+(?:\.\d+)?)|(%))?")


def parse_fraction(value: Any) -> float | None:
    """A number in [0, 1] from ``0.75``, ``6/8`` or ``75%``; None when absent or out of range."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        f = float(value)
    elif isinstance(value, str):
        m = _FRAC.match(value)
        if not m:
            return None
        f = float(m.group(1))
        if m.group(2):
            den = float(m.group(3))
            if den == 0:
                return None
            f /= den
        elif m.group(4):
            f /= 100.0
    else:
        return None
    return f if math.isfinite(f) and 0.0 <= f <= 1.0 else None


def parse_labelled(text: str, names: Iterable[str]) -> dict[str, Any]:
    """Values per name from a JSON object (fenced or not) or ``name: value`` lines.

    A name given twice with different values is dropped (ambiguous).
    """
    names = list(names)
    obj = _json_object(text)
    if obj is not None:
        lowered = {str(k).strip().lower(): v for k, v in obj.items()}
        return {n: lowered[n] for n in names if n in lowered}
    found: dict[str, Any] = {}
    ambiguous: set[str] = set()
    for line in text.splitlines():
        clean = line.strip().lstrip("-*•# \t")
        m = re.match(r"^[*_`]*([A-Za-z][A-Za-z0-9_ .()-]*?)[*_`]*\s*[:=]\s*(.+)$", clean)
        if not m:
            continue
        key = re.sub(r"[^a-z0-9]+", "_", m.group(1).lower()).strip("_")
        if key in names:
            value = m.group(2).strip()
            if key in found and found[key] != value:
                ambiguous.add(key)
            found.setdefault(key, value)
    return {k: v for k, v in found.items() if k not in ambiguous}


def _json_object(text: str) -> Mapping[str, Any] | None:
    s = text.strip()
    fence = re.search(r"```(?:json)?\s*(\{.*?\})\s*```", s, re.S)
    if fence:
        s = fence.group(1)
    if not (s.startswith("{") and s.endswith("}")):
        return None
    try:
        obj = json.loads(s)
    except ValueError:
        return None
    return obj if isinstance(obj, dict) else None
