"""Perfect-maze generation (DFS and Wilson) on the (2n+1) lattice, with endpoints."""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..maze.lattice import Cell, MazeSpec

ALGORITHMS = ("dfs", "wilson")
ENDPOINTS = ("corner", "random")


def generate_walls(rows: int, cols: int | None = None, *, rng: np.random.Generator,
                   algorithm: str = "dfs") -> np.ndarray:
    """A perfect maze (exactly one path between any two cells) as a wall lattice.

    Returns
    -------
    ndarray of shape (2*rows+1, 2*cols+1), bool (True = wall)
    """
    cols = rows if cols is None else cols
    if rows < 1 or cols < 1 or rows * cols > 10_000:
        raise InputError(f"maze size must be between 1x1 and 100x100 cells, got {rows}x{cols}")
    walls = np.ones((2 * rows + 1, 2 * cols + 1), dtype=bool)
    walls[1::2, 1::2] = False
    if algorithm == "dfs":
        edges = _dfs_edges(rows, cols, rng)
    elif algorithm == "wilson":
        edges = _wilson_edges(rows, cols, rng)
    else:
        raise InputError(f"unknown maze algorithm {algorithm!r}; choose from {ALGORITHMS}")
    for (r1, c1), (r2, c2) in edges:
        walls[r1 + r2 + 1, c1 + c2 + 1] = False
    return walls


def _neighbours(cell: Cell, rows: int, cols: int) -> list[Cell]:
    r, c = cell
    out = [(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)]
    return [(a, b) for a, b in out if 0 <= a < rows and 0 <= b < cols]


def _dfs_edges(rows: int, cols: int, rng: np.random.Generator) -> list[tuple[Cell, Cell]]:
    start = (int(rng.integers(rows)), int(rng.integers(cols)))
    seen, stack, edges = {start}, [start], []
    while stack:
        cur = stack[-1]
        options = [n for n in _neighbours(cur, rows, cols) if n not in seen]
        if not options:
            stack.pop()
            continue
        nxt = options[int(rng.integers(len(options)))]
        seen.add(nxt)
        edges.append((cur, nxt))
        stack.append(nxt)
    return edges


def _wilson_edges(rows: int, cols: int, rng: np.random.Generator) -> list[tuple[Cell, Cell]]:
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    in_tree = {cells[int(rng.integers(len(cells)))]}
    edges: list[tuple[Cell, Cell]] = []
    for origin in (cells[i] for i in rng.permutation(len(cells))):
        if origin in in_tree:
            continue
        walk_next: dict[Cell, Cell] = {}
        cur = origin
        while cur not in in_tree:  # loop-erased random walk: last exit from each cell wins
            options = _neighbours(cur, rows, cols)
            nxt = options[int(rng.integers(len(options)))]
            walk_next[cur] = nxt
            cur = nxt
        cur = origin
        while cur not in in_tree:
            in_tree.add(cur)
            edges.append((cur, walk_next[cur]))
            cur = walk_next[cur]
    return edges


def choose_endpoints(rows: int, cols: int, *, rng: np.random.Generator,
                     mode: str = "corner") -> tuple[Cell, Cell]:
    """Start and goal cells: opposite corners, or two random distinct cells."""
    if mode == "corner":
        corners = [(0, 0), (0, cols - 1), (rows - 1, 0), (rows - 1, cols - 1)]
        i = int(rng.integers(4))
        return corners[i], corners[3 - i]
    if mode == "random":
        total = rows * cols
        a, b = rng.choice(total, size=2, replace=False)
        return (int(a) // cols, int(a) % cols), (int(b) // cols, int(b) % cols)
    raise InputError(f"unknown endpoint mode {mode!r}; choose from {ENDPOINTS}")


def make_maze(size: int, *, rng: np.random.Generator, algorithm: str = "dfs",
              endpoints: str = "corner") -> MazeSpec:
    """A square perfect maze with its unique solution."""
    walls = generate_walls(size, size, rng=rng, algorithm=algorithm)
    start, goal = choose_endpoints(size, size, rng=rng, mode=endpoints)
    return MazeSpec.from_lattice(walls, start=start, goal=goal)
