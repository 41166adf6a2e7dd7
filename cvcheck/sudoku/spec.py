"""Sudoku digit grids: parsing, validation, box geometry.

A grid is an ``int8`` array of shape (N, N) with 0 for an empty cell and 1..N for a
digit, 3 <= N <= 9. Its constraint units are the rows, the columns and, unless the
puzzle is a plain Latin square, R x C boxes (R * C = N): 4 -> 2x2, 6 -> 2x3, 8 -> 2x4,
9 -> 3x3 by default, and no boxes for 3, 5 and 7 (VMEvalKit's 3x3 task). Grids come in
as nested lists, flat lists, strings like ``"1.3.4..."`` ('.' or '0' empty, whitespace,
'|' and '-' ignored), or JSON text of those.

>>> parse_grid("12..\\n..12\\n2.1.\\n.2..").tolist()[0]
[1, 2, 0, 0]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import InputError
from ..limits import JSONLimitError, loads_json, printable
from .boxes import MAX_N, MIN_N, boxes_label, default_boxes, resolve_boxes
from .solver import solve_unique

GridLike = Any


MAX_GRID_N = MAX_N          #: largest grid side accepted (N x N cells, 3 <= N <= 9: one ASCII digit per cell)
MAX_GRID_TEXT = 10_000      #: characters in a grid string (a 9x9 grid with separators has ~200)
_DIGITS = "0123456789"


def parse_grid(value: GridLike, *, name: str = "grid") -> np.ndarray:
    """Parse a digit grid into an ``int8`` array of shape (N, N).

    Parameters
    ----------
    value : str, list or ndarray
        ``"1.3.4..."`` strings (row-major; ASCII digits and '.', so N <= 9), JSON text of a
        nested or flat list (or of an object with a ``grid`` key), nested/flat lists of
        integers, or an integer array. Files are read by :func:`cvcheck.sudoku.task.load_grid`.
    name : str
        Used in error messages.

    Raises
    ------
    InputError
        Anything but N x N integers in 0..N (3 <= N <= 9): floats, booleans, huge
        numbers, non-ASCII digits such as '²', deep JSON.
    """
    return _parse(value, name, allow_json=True)


def _parse(value: GridLike, name: str, *, allow_json: bool) -> np.ndarray:
    if isinstance(value, Path) or (isinstance(value, str) and looks_like_path(value)):
        raise InputError(f"{name} {printable(str(value), 80)!r} looks like a file path: read the file first "
                         "(cvcheck.sudoku.task.load_grid reads JSON and digit-string files)")
    if isinstance(value, dict):
        if "grid" not in value and name not in value:
            raise InputError(f"{name} object has no 'grid' key")
        value = value.get("grid", value.get(name))
        if isinstance(value, dict):
            raise InputError(f"{name} 'grid' must be a list or a string, not an object")
    if isinstance(value, str):
        if len(value) > MAX_GRID_TEXT:
            raise InputError(f"{name} is {len(value):,} characters long: not a grid (at most {MAX_GRID_TEXT:,})")
        text = value.strip()
        if text[:1] in '[{"':
            if not allow_json:
                raise InputError(f"{name} must be a list or a digit string")
            try:
                parsed = loads_json(text, max_depth=3)
            except JSONLimitError as exc:
                raise InputError(f"{name} is not valid JSON: {exc}") from None
            return _parse(parsed, name, allow_json=False)
        cells = [c for c in text if not (c.isspace() or c in "|-+,")]
        bad = sorted({c for c in cells if not (c == "." or c in _DIGITS)})
        if bad:
            shown = ", ".join(ascii(c) for c in bad[:10]) + (" ..." if len(bad) > 10 else "")
            raise InputError(f"{name} string may hold only the digits 0-9 and '.', found {shown}")
        flat = np.array([0 if c == "." else ord(c) - 48 for c in cells], dtype=np.int64)
    elif isinstance(value, np.ndarray):
        if value.dtype.kind not in "iu":
            raise InputError(f"{name} array must hold integers, got dtype {value.dtype}")
        if value.ndim not in (1, 2) or value.size > MAX_GRID_N ** 2:
            raise InputError(f"{name} array of shape {value.shape} is not a grid")
        flat = value.astype(np.int64).ravel()
    elif isinstance(value, (list, tuple)):
        flat = np.array(_flatten(value, name), dtype=np.int64)
    else:
        raise InputError(f"{name} must be a grid of integers, got {type(value).__name__}")
    n = math.isqrt(flat.size)
    if flat.size == 0 or n * n != flat.size or not MIN_N <= n <= MAX_N:
        raise InputError(f"{name} has {flat.size} cells; expected N*N with {MIN_N} <= N <= {MAX_N} "
                         "(9, 16, 36 or 81...)")
    if flat.min() < 0 or flat.max() > n:
        raise InputError(f"{name} values must be 0 (empty) or 1..{n}")
    return flat.reshape(n, n).astype(np.int8)


def _flatten(rows: list | tuple, name: str) -> list[int]:
    """Cells of a flat list or a list of rows, each an integer (no bool, no float) of at most two digits."""
    if len(rows) > MAX_GRID_N ** 2:
        raise InputError(f"{name} has {len(rows):,} entries: not a grid")
    nested = any(isinstance(r, (list, tuple)) for r in rows)
    if nested and not all(isinstance(r, (list, tuple)) and len(r) <= MAX_GRID_N for r in rows):
        raise InputError(f"{name} must be a flat list of cells or a list of rows of at most {MAX_GRID_N} cells")
    cells = [c for r in rows for c in r] if nested else list(rows)
    for c in cells:
        if isinstance(c, bool) or not isinstance(c, (int, np.integer)):
            raise InputError(f"{name} cells must be integers, found {printable(repr(c), 40)}")
        if not 0 <= c <= 99:
            raise InputError(f"{name} values must be 0 (empty) or 1..N, found {printable(str(c), 40)}")
    return [int(c) for c in cells]


def looks_like_path(text: str) -> bool:
    """Whether a grid argument names a file rather than spelling a grid (``.json``/``.txt``, or a ``/``)."""
    t = text.strip()
    return bool(t) and t[:1] not in "[{" and (t.lower().endswith((".json", ".txt")) or "/" in t or "\\" in t)


def box_shape(n: int) -> tuple[int, int]:
    """Default box size (rows, cols) of an N x N Sudoku; (1, N) when it has no boxes."""
    return default_boxes(n) or (1, n)


def units(n: int, boxes: Any = "auto") -> list[tuple[str, np.ndarray]]:
    """The constraint units as ``(name, flat cell indices)``: N rows, N columns and N
    boxes (none for a Latin square), names 0-based (``"row 0"``, ``"box 3"``)."""
    idx = np.arange(n * n).reshape(n, n)
    shape = resolve_boxes(boxes, n)
    out = [(f"row {r}", idx[r]) for r in range(n)]
    out += [(f"col {c}", idx[:, c]) for c in range(n)]
    if shape is not None:
        br, bc = shape
        out += [(f"box {r // br * (n // bc) + c // bc}", idx[r:r + br, c:c + bc].ravel())
                for r in range(0, n, br) for c in range(0, n, bc)]
    return out


def is_valid_solution(grid: np.ndarray, boxes: Any = "auto") -> bool:
    """True when every row, column and box holds each digit 1..N exactly once."""
    n = grid.shape[0]
    flat = grid.ravel()
    want = set(range(1, n + 1))
    return all(set(flat[cells].tolist()) == want for _, cells in units(n, boxes))


@dataclass(frozen=True)
class SudokuSpec:
    """A puzzle, its solution and its box shape, validated against each other.

    ``solved`` is True when the solution was computed from the puzzle (no solution given).
    """

    puzzle: np.ndarray
    solution: np.ndarray
    boxes: tuple[int, int] | None = (0, 0)  #: (R, C), None = no boxes; (0, 0) = default for N
    solved: bool = False

    def __post_init__(self) -> None:
        if self.boxes == (0, 0):
            object.__setattr__(self, "boxes", default_boxes(self.n))

    @property
    def n(self) -> int:
        return int(self.puzzle.shape[0])

    @property
    def unit_count(self) -> int:
        """Rows, columns and boxes: 3N, or 2N without boxes."""
        return (2 if self.boxes is None else 3) * self.n

    @classmethod
    def from_values(cls, puzzle: GridLike, solution: GridLike = None, *, boxes: Any = "auto",
                    max_nodes: int = 200_000) -> SudokuSpec:
        """Parse and check: the solution is a valid Sudoku that keeps every clue.

        With no ``solution`` the puzzle is solved (:func:`~cvcheck.sudoku.solver.solve_unique`);
        a puzzle with no solution, several, or one the search could not settle within
        ``max_nodes`` raises :class:`~cvcheck.errors.InputError` saying which.
        """
        p = parse_grid(puzzle, name="puzzle")
        n = p.shape[0]
        shape = resolve_boxes(boxes, n)
        if solution is None or (isinstance(solution, str) and not solution.strip()):
            s = solve_unique(p, boxes=shape, max_nodes=max_nodes)
            solved = True
        else:
            s = parse_grid(solution, name="solution")
            solved = False
        if p.shape != s.shape:
            raise InputError(f"puzzle is {p.shape[0]}x{p.shape[0]} but solution is {s.shape[0]}x{s.shape[0]}")
        if (s == 0).any() or not is_valid_solution(s, shape):
            note = "" if shape == default_boxes(n) else f" with boxes {boxes_label(shape)}"
            raise InputError(f"solution is not a complete valid Sudoku{note}")
        clash = (p != 0) & (p != s)
        if clash.any():
            r, c = np.argwhere(clash)[0]
            raise InputError(f"puzzle clue at row {r}, col {c} (r{r + 1}c{c + 1}) disagrees with the solution")
        p.setflags(write=False)
        s.setflags(write=False)
        return cls(puzzle=p, solution=s, boxes=shape, solved=solved)
