"""Box shapes of N x N grids: R x C boxes (R * C = N), or none for a Latin square."""

from __future__ import annotations

import math
import numbers
import re
from typing import Any

from ..errors import InputError
from ..limits import printable

MIN_N, MAX_N = 3, 9  #: grid sizes read (one digit per cell)
_SIDE = re.compile(r"[0-9]{1,3}")  #: one box side: ASCII digits only (no '²', no '٣')
_RXC = re.compile(r"([0-9]{1,3})\s*[x*]\s*([0-9]{1,3})")


def default_boxes(n: int) -> tuple[int, int] | None:
    """The usual box shape of an N x N puzzle: square boxes for square N, 2 x N/2 for
    6 and 8, none (a Latin square) for 3, 5 and 7.

    >>> default_boxes(6), default_boxes(9), default_boxes(3)
    ((2, 3), (3, 3), None)
    """
    b = math.isqrt(n)
    if b * b == n and b > 1 and n > 3:
        return b, b
    if n % 2 == 0 and n > 4:
        return 2, n // 2
    return None


def parse_boxes(value: Any, n: int | None = None) -> tuple[int, int] | None | str:
    """A box-shape argument: ``"RxC"`` / ``(R, C)``, ``"none"`` or None (a Latin square: rows
    and columns only), or ``"auto"`` / ``""`` (from N).

    Returns ``(R, C)``, None for no boxes, or ``"auto"`` (inferred from N later). With
    ``n`` given, R * C must equal it.
    """
    if value is None:
        return None
    if isinstance(value, str) and value.strip().lower() in ("", "auto"):
        return "auto"
    shape: tuple[int, ...] = ()
    if isinstance(value, str):
        text = value.strip().lower()
        if text in ("none", "0", "latin"):
            return None
        m = _RXC.fullmatch(text)
        if m:
            shape = (int(m.group(1)), int(m.group(2)))
    elif isinstance(value, (list, tuple)) and len(value) == 2:
        if all(isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in value):
            shape = tuple(int(v) for v in value)
        elif all(isinstance(v, str) and _SIDE.fullmatch(v.strip()) for v in value):
            shape = tuple(int(v) for v in value)
    if len(shape) != 2 or min(shape) < 1 or not MIN_N <= shape[0] * shape[1] <= MAX_N:
        raise InputError(f"boxes must be 'RxC' (R*C = N, {MIN_N} <= N <= {MAX_N}) or 'none', "
                         f"got {printable(repr(value), 60)}")
    if n is not None and shape[0] * shape[1] != n:
        raise InputError(f"boxes {shape[0]}x{shape[1]} do not tile a {n}x{n} grid")
    return shape[0], shape[1]


def resolve_boxes(value: Any, n: int) -> tuple[int, int] | None:
    """:func:`parse_boxes` for a known N, ``"auto"`` replaced by :func:`default_boxes`."""
    boxes = parse_boxes(value, n)
    return default_boxes(n) if boxes == "auto" else boxes  # type: ignore[return-value]


def boxes_label(boxes: tuple[int, int] | None) -> str:
    """``"3x3"`` or ``"none"``."""
    return "none" if boxes is None else f"{boxes[0]}x{boxes[1]}"
