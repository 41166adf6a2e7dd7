"""Mazes as data: maze-dataset's ``connection_list`` JSON and its ASCII form <-> :class:`MazeSpec`.

JSON (``SPEC.json``)::

    {"grid": [rows, cols], "connection_list": [down, right], "start": [r, c], "goal": [r, c],
     "solution": [[r, c], ...]}          # solution optional

maze-dataset's convention: ``connection_list[0][r][c]`` is true when cell (r, c) is open
to (r+1, c) ("down"), ``connection_list[1][r][c]`` when it is open to (r, c+1)
("right"); cell (0, 0) is top-left. Without a ``solution`` the shortest path is used
(a perfect maze has exactly one; otherwise the answer is scored against the shortest
path it matches best, see :meth:`MazeSpec.solution_for`).

ASCII (maze-dataset ``as_ascii``): the (2n+1) x (2m+1) lattice, ``#`` = wall, space =
open, ``S`` start, ``E`` end, ``X`` solution path.

>>> spec = spec_from_ascii('''
... #######
... #S  # #
... ### # #
... #    E#
... #######''')
>>> spec.shape, [list(c) for c in spec_to_dict(spec)["connection_list"][1]]
((2, 3), [[True, False, False], [True, True, False]])
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..errors import InputError
from .lattice import Cell, MazeSpec, cell_to_lattice, lattice_to_cell, walk_order

MAX_SIDE = 200  #: cells per side; larger grids are refused (no drawn maze is that fine)


def _int(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or int(value) != value:
        raise InputError(f"maze {what} must be an integer, got {value!r}")
    return int(value)


def _cell(value: Any, what: str, shape: tuple[int, int]) -> Cell:
    if not isinstance(value, Sequence) or isinstance(value, (str, bytes)) or len(value) != 2:
        raise InputError(f"maze {what} must be [row, col], got {value!r}")
    r, c = _int(value[0], what), _int(value[1], what)
    if not (0 <= r < shape[0] and 0 <= c < shape[1]):
        raise InputError(f"maze {what} {[r, c]} is outside the {shape[0]}x{shape[1]} grid")
    return (r, c)


def spec_from_dict(data: Mapping[str, Any]) -> MazeSpec:
    """A :class:`MazeSpec` from maze-dataset's ``connection_list`` form (see the module docstring)."""
    if not isinstance(data, Mapping):
        raise InputError(f"a maze spec must be a JSON object, got {type(data).__name__}")
    missing = [k for k in ("connection_list", "start", "goal") if k not in data]
    if missing:
        raise InputError(f"maze spec lacks {', '.join(missing)} (needs grid, connection_list, start, goal)")
    try:
        conn = np.asarray(data["connection_list"], dtype=float)
    except (TypeError, ValueError) as exc:
        raise InputError(f"maze connection_list must be nested lists of booleans: {exc}") from None
    if conn.ndim != 3 or conn.shape[0] != 2 or not np.isin(conn, (0, 1)).all():
        raise InputError(f"maze connection_list must be [down, right], each rows x cols of booleans; "
                         f"got shape {conn.shape}")
    rows, cols = int(conn.shape[1]), int(conn.shape[2])
    grid = data.get("grid")
    if grid is not None:
        if not isinstance(grid, Sequence) or len(grid) != 2 or (_int(grid[0], "grid"), _int(grid[1], "grid")) \
                != (rows, cols):
            raise InputError(f"maze grid {grid!r} does not match the connection_list ({rows}x{cols})")
    if not (1 <= rows <= MAX_SIDE and 1 <= cols <= MAX_SIDE) or rows * cols < 2:
        raise InputError(f"maze grid must be between 1x2 and {MAX_SIDE}x{MAX_SIDE} cells, got {rows}x{cols}")
    down, right = conn[0].astype(bool), conn[1].astype(bool)
    walls = np.ones((2 * rows + 1, 2 * cols + 1), bool)
    walls[1::2, 1::2] = False
    walls[2:-1:2, 1::2] = ~down[:-1, :]      # connector between (r, c) and (r+1, c)
    walls[1::2, 2:-1:2] = ~right[:, :-1]     # connector between (r, c) and (r, c+1)
    start, goal = _cell(data["start"], "start", (rows, cols)), _cell(data["goal"], "goal", (rows, cols))
    solution = data.get("solution")
    return MazeSpec.from_lattice(walls, start=start, goal=goal,
                                 solution=None if solution is None else _solution(solution, walls, start, goal))


def _solution(cells: Any, walls: np.ndarray, start: Cell, goal: Cell) -> tuple[Cell, ...]:
    """A given cell path start -> goal as lattice cells (connectors included), checked against the walls."""
    if not isinstance(cells, Sequence) or isinstance(cells, (str, bytes)) or len(cells) < 1:
        raise InputError("maze solution must be a list of [row, col] cells")
    shape = (walls.shape[0] // 2, walls.shape[1] // 2)
    path = [_cell(c, "solution cell", shape) for c in cells]
    if path[0] != start or path[-1] != goal:
        raise InputError(f"maze solution must run from start {list(start)} to goal {list(goal)}")
    out = [cell_to_lattice(path[0])]
    for a, b in zip(path, path[1:]):
        if abs(a[0] - b[0]) + abs(a[1] - b[1]) != 1:
            raise InputError(f"maze solution steps from {list(a)} to {list(b)}: not neighbours")
        link = (a[0] + b[0] + 1, a[1] + b[1] + 1)
        if walls[link]:
            raise InputError(f"maze solution crosses the wall between {list(a)} and {list(b)}")
        out += [link, cell_to_lattice(b)]
    return tuple(out)


def spec_from_ascii(text: str) -> MazeSpec:
    """A :class:`MazeSpec` from maze-dataset's ASCII lattice (``#``, space, ``S``, ``E``, ``X``)."""
    lines = [line.rstrip("\r") for line in text.strip("\n").splitlines()]
    lines = [line.strip() for line in lines if line.strip()]
    if not lines:
        raise InputError("maze ASCII is empty")
    width = max(len(line) for line in lines)
    if len(lines) % 2 == 0 or width % 2 == 0 or len(lines) < 3 or width < 3:
        raise InputError(f"maze ASCII must be a (2n+1) x (2m+1) lattice, got {len(lines)} x {width} characters")
    if len(lines) > 2 * MAX_SIDE + 1 or width > 2 * MAX_SIDE + 1:
        raise InputError(f"maze ASCII is over {MAX_SIDE} cells per side")
    grid = np.array([list(line.ljust(width)) for line in lines])
    unknown = sorted(set(np.unique(grid)) - set("# SEX."))
    if unknown:
        raise InputError(f"maze ASCII may hold '#', ' ', 'S', 'E', 'X' only; found {unknown}")
    walls = grid == "#"
    marks: dict[str, list[Cell]] = {ch: [(int(p[0]), int(p[1])) for p in np.argwhere(grid == ch)] for ch in "SE"}
    if len(marks["S"]) != 1 or len(marks["E"]) != 1:
        raise InputError("maze ASCII needs exactly one 'S' (start) and one 'E' (end)")
    s, e = marks["S"][0], marks["E"][0]
    if not (s[0] % 2 and s[1] % 2 and e[0] % 2 and e[1] % 2):
        raise InputError("maze ASCII 'S' and 'E' must sit on cells (odd row and column)")
    path: set[Cell] = {(int(p[0]), int(p[1])) for p in np.argwhere(grid == "X")}
    solution = None
    if path:
        ordered = walk_order(path | {s, e}, s)
        if ordered[-1] != e or len(ordered) != len(path) + 2:
            raise InputError("maze ASCII path 'X' must be one line of cells from 'S' to 'E'")
        solution = tuple(ordered)
    return MazeSpec.from_lattice(walls, start=lattice_to_cell(s), goal=lattice_to_cell(e), solution=solution)


def spec_to_dict(spec: MazeSpec) -> dict[str, Any]:
    """The ``connection_list`` form of a spec (round-trips with :func:`spec_from_dict`)."""
    rows, cols = spec.shape
    w = spec.walls
    down = np.zeros((rows, cols), bool)
    right = np.zeros((rows, cols), bool)
    down[:-1, :] = ~w[2:-1:2, 1::2]
    right[:, :-1] = ~w[1::2, 2:-1:2]
    return {"grid": [rows, cols], "connection_list": [down.tolist(), right.tolist()],
            "start": list(lattice_to_cell(spec.start)), "goal": list(lattice_to_cell(spec.goal)),
            "solution": [list(lattice_to_cell(p)) for p in spec.solution if p[0] % 2 and p[1] % 2]}


def spec_from_text(text: str) -> MazeSpec:
    """JSON (an object with ``connection_list``) or maze-dataset ASCII, whichever ``text`` holds
    (JSON where it opens with a brace or a bracket: a list is read, and refused, as JSON)."""
    from ..limits import JSONLimitError, loads_json

    body = text.strip()
    if body.startswith(("{", "[")):
        try:  # strict JSON: finite numbers, bounded digits and depth (a 5000-digit number was exit 3)
            return spec_from_dict(loads_json(body))
        except JSONLimitError as exc:
            raise InputError(f"maze spec is not valid JSON: {exc}") from None
    return spec_from_ascii(text)
