"""Human-readable notes of a Sudoku verdict: every failing cell named.

Cells are written ``r3c7`` (1-based: ``r1c1`` is the top-left cell); ``details`` keeps
the 0-based ``row``/``col`` fields. Examples::

    r3c7: read 5, expected 2
    r1c1: clue 4 changed to 7 at frame 12
    row 3: 5 appears twice (r3c2, r3c8)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

#: at most this many cells are named per kind of problem (the rest are counted)
MAX_NAMED = 12


def cell(row: int, col: int) -> str:
    """``r3c7`` for the 0-based cell (2, 6)."""
    return f"r{row + 1}c{col + 1}"


def value_text(v: int) -> str:
    """How a read value is said: a digit, ``empty`` or ``an unreadable mark``."""
    return "empty" if v == 0 else "an unreadable mark" if v < 0 else str(v)


def _capped(lines: list[str], what: str) -> list[str]:
    if len(lines) <= MAX_NAMED:
        return lines
    return lines[:MAX_NAMED] + [f"... and {len(lines) - MAX_NAMED} more {what}"]


def wrong_cell_notes(wrong: Iterable[Mapping[str, int]]) -> list[str]:
    """``r3c7: read 5, expected 2`` per originally empty cell not holding the solution's digit."""
    return _capped([f"{cell(w['row'], w['col'])}: read {value_text(w['read'])}, expected {w['expected']}"
                    for w in wrong], "wrong cells")


def changed_clue_notes(changed: Iterable[Mapping[str, int]], *, final: bool = False) -> list[str]:
    """``r1c1: clue 4 changed to 7 [at frame 12]`` per clue not read back as itself."""
    out = []
    for c in changed:
        read = int(c["read"])
        what = "erased" if read == 0 else "covered or unreadable" if read < 0 else f"changed to {read}"
        when = f" at frame {c['frame']}" if "frame" in c else (" in the final frame" if final else "")
        out.append(f"{cell(c['row'], c['col'])}: clue {c['expected']} {what}{when}")
    return _capped(out, "clue changes")


_COUNT = {2: "twice", 3: "three times"}


def unit_label(unit: str, boxes: tuple[int, int] | None, n: int) -> str:
    """``row 2`` -> ``row 3``; ``box 1`` -> ``box 2 (rows 1-3, cols 4-6)`` (1-based)."""
    kind, _, index = unit.partition(" ")
    k = int(index)
    if kind == "box" and boxes is not None:
        br, bc = boxes
        r0, c0 = (k // (n // bc)) * br, (k % (n // bc)) * bc
        return f"box {k + 1} (rows {r0 + 1}-{r0 + br}, cols {c0 + 1}-{c0 + bc})"
    return f"{kind} {k + 1}"


def violation_notes(violations: Iterable[Mapping[str, Any]], grid: np.ndarray, *,
                    boxes: tuple[int, int] | None) -> list[str]:
    """``row 3: 5 appears twice (r3c2, r3c8)`` per repeated digit of each unit."""
    n = int(grid.shape[0])
    out = []
    for v in violations:
        label = unit_label(str(v["unit"]), boxes, n)
        for d in v["digits"]:
            cells = [(r, c) for r, c in v["cells"] if int(grid[r, c]) == int(d)]
            times = _COUNT.get(len(cells), f"{len(cells)} times")
            out.append(f"{label}: {d} appears {times} ({', '.join(cell(r, c) for r, c in cells)})")
    return _capped(out, "repeated digits")


def low_confidence_note(low: Sequence[Mapping[str, Any]], threshold: float, *, what: str = "cell") -> list[str]:
    """One note listing readings below the confidence threshold."""
    if not low:
        return []
    shown = ", ".join(f"{cell(c['row'], c['col'])}={value_text(int(c['read']))} ({c['confidence']:.2f})"
                      for c in low[:8])
    more = f" and {len(low) - 8} more" if len(low) > 8 else ""
    return [f"{len(low)} {what}(s) read below confidence {threshold}: {shown}{more}"]
