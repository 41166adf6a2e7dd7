"""The maze as a (2n+1) x (2m+1) lattice and as a graph.

A maze of ``rows x cols`` cells is stored as a boolean wall lattice of shape
``(2*rows+1, 2*cols+1)`` (``True`` = wall), the layout of maze-dataset's ``as_pixels``:
cell ``(r, c)`` is lattice pixel ``(2r+1, 2c+1)``; the pixel between two adjacent
cells is open iff the wall between them is open; ``(even, even)`` pixels are
always wall posts.

Examples
--------
>>> spec = MazeSpec.from_lattice(np.array([[1,1,1,1,1],[1,0,0,0,1],[1,1,1,1,1]], bool),
...                              start=(0, 0), goal=(0, 1))
>>> spec.solution
((1, 1), (1, 2), (1, 3))
>>> spec.open_walls()
[((0, 0), (0, 1))]
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterable, Sequence

import numpy as np

from ..errors import InputError

Cell = tuple[int, int]


@dataclass(frozen=True, eq=False)
class MazeSpec:
    """A maze with its start, goal and solution, all in lattice coordinates.

    Attributes
    ----------
    walls : ndarray of shape (2*rows+1, 2*cols+1), bool
    start, goal : (row, col) lattice coordinates of the start and goal cells
    solution : lattice cells from start to goal inclusive (connectors included)
    """

    walls: np.ndarray
    start: Cell
    goal: Cell
    solution: tuple[Cell, ...] = field(default=())
    solution_given: bool = True  #: False when computed: then any shortest path is as good (see :meth:`solution_for`)

    @classmethod
    def from_lattice(cls, walls: np.ndarray, *, start: Cell, goal: Cell,
                     solution: Sequence[Cell] | None = None) -> "MazeSpec":
        """Build a spec from a wall lattice and *cell* (not lattice) start/goal coordinates."""
        walls = np.asarray(walls, dtype=bool)
        if walls.ndim != 2 or walls.shape[0] % 2 == 0 or walls.shape[1] % 2 == 0 or min(walls.shape) < 3:
            raise InputError(f"wall lattice must be 2D with odd sides >= 3, got shape {walls.shape}")
        s, g = cell_to_lattice(start), cell_to_lattice(goal)
        for name, p in (("start", s), ("goal", g)):
            if not (0 <= p[0] < walls.shape[0] and 0 <= p[1] < walls.shape[1]):
                raise InputError(f"{name} cell {lattice_to_cell(p)} is outside the maze")
        sol = tuple(solution) if solution is not None else shortest_path(walls, s, g)
        walls = walls.copy()
        walls.setflags(write=False)
        return cls(walls=walls, start=s, goal=g, solution=tuple((int(c[0]), int(c[1])) for c in sol),
                   solution_given=solution is not None)

    @property
    def shape(self) -> tuple[int, int]:
        """Maze size in cells ``(rows, cols)``."""
        return (self.walls.shape[0] // 2, self.walls.shape[1] // 2)

    @cached_property
    def solution_body(self) -> frozenset[Cell]:
        """Solution lattice cells without the start and goal cells (the blue pixels)."""
        return frozenset(self.solution) - {self.start, self.goal}

    def open_walls(self) -> list[tuple[Cell, Cell]]:
        """Graph edges: pairs of adjacent maze cells with no wall between them."""
        edges = []
        lr, lc = self.walls.shape
        for r in range(1, lr - 1):
            for c in range(1, lc - 1):
                if self.walls[r, c] or (r % 2) == (c % 2):
                    continue
                if r % 2 == 1:  # between horizontally adjacent cells
                    edges.append(((r // 2, c // 2 - 1), (r // 2, c // 2)))
                else:
                    edges.append(((r // 2 - 1, c // 2), (r // 2, c // 2)))
        return edges

    def solution_for(self, cells: frozenset[Cell] | set[Cell]) -> frozenset[Cell]:
        """The solution body an answer covering ``cells`` is scored against.

        A given solution is used as is. A computed one (no solution was given) is, when the
        maze has several shortest paths, the shortest path sharing the most cells with the
        answer: any shortest path solves the maze.
        """
        if self.solution_given or self.shortest_paths() < 2:
            return self.solution_body
        best = best_shortest_path(self.walls, self.start, self.goal, prefer=cells)
        return frozenset(best) - {self.start, self.goal}

    def shortest_paths(self, *, limit: int = 2) -> int:
        """How many shortest start-goal paths the maze has (counted up to ``limit``)."""
        return count_shortest_paths(self.walls, self.start, self.goal, limit=limit)

    @cached_property
    def _as_json(self) -> str:
        return json.dumps({
            "rows": self.shape[0], "cols": self.shape[1],
            "lattice": ["".join("#" if w else "." for w in row) for row in self.walls],
            "start": list(lattice_to_cell(self.start)), "goal": list(lattice_to_cell(self.goal)),
            "open_walls": [[list(a), list(b)] for a, b in self.open_walls()],
            "solution_cells": [list(lattice_to_cell(p)) for p in self.solution if p[0] % 2 and p[1] % 2],
        })

    def to_dict(self) -> dict:
        """The maze as a graph: lattice rows, start/goal cells, open walls, solution cells."""
        return json.loads(self._as_json)  # a fresh copy each call, built once per spec


def cell_to_lattice(cell: Cell) -> Cell:
    return (2 * int(cell[0]) + 1, 2 * int(cell[1]) + 1)


def lattice_to_cell(p: Cell) -> Cell:
    return (int(p[0]) // 2, int(p[1]) // 2)


def describe_lattice_cell(p: Cell, shape: tuple[int, int] | None = None) -> dict:
    """Name a lattice pixel: a cell, the wall between two cells, the outer wall, or a post.

    ``shape`` (the lattice shape) lets border pixels be named as the outer wall.
    """
    r, c = int(p[0]), int(p[1])
    if shape is not None and (r in (0, shape[0] - 1) or c in (0, shape[1] - 1)):
        return {"kind": "outer_wall", "next_to": [min(max(r, 1), shape[0] - 2) // 2,
                                                   min(max(c, 1), shape[1] - 2) // 2]}
    if r % 2 and c % 2:
        return {"kind": "cell", "cell": [r // 2, c // 2]}
    if r % 2:
        return {"kind": "wall", "between": [[r // 2, c // 2 - 1], [r // 2, c // 2]]}
    if c % 2:
        return {"kind": "wall", "between": [[r // 2 - 1, c // 2], [r // 2, c // 2]]}
    return {"kind": "post", "corner_of": [r // 2, c // 2]}


_STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))


def shortest_path(open_mask_or_walls: np.ndarray, start: Cell, goal: Cell, *,
                  walls: bool = True) -> tuple[Cell, ...]:
    """BFS shortest 4-connected path on a lattice; ``()`` when unreachable.

    ``open_mask_or_walls`` is a wall lattice (``walls=True``) or a mask of passable
    pixels (``walls=False``).
    """
    passable = ~open_mask_or_walls if walls else open_mask_or_walls
    h, w = passable.shape
    if not (passable[start] and passable[goal]):
        return ()
    prev = {start: start}
    queue = deque([start])
    while queue:
        cur = queue.popleft()
        if cur == goal:
            break
        for dr, dc in _STEPS:
            nxt = (cur[0] + dr, cur[1] + dc)
            if 0 <= nxt[0] < h and 0 <= nxt[1] < w and passable[nxt] and nxt not in prev:
                prev[nxt] = cur
                queue.append(nxt)
    if goal not in prev:
        return ()
    path = [goal]
    while path[-1] != start:
        path.append(prev[path[-1]])
    return tuple(reversed(path))


def _layers(walls: np.ndarray, start: Cell) -> np.ndarray:
    """BFS distance of every open lattice cell from ``start`` (-1: unreachable)."""
    h, w = walls.shape
    dist = np.full((h, w), -1, np.int64)
    if walls[start]:
        return dist
    dist[start] = 0
    queue = deque([start])
    while queue:
        r, c = queue.popleft()
        for dr, dc in _STEPS:
            a, b = r + dr, c + dc
            if 0 <= a < h and 0 <= b < w and not walls[a, b] and dist[a, b] < 0:
                dist[a, b] = dist[r, c] + 1
                queue.append((a, b))
    return dist


def _on_shortest(walls: np.ndarray, start: Cell, goal: Cell) -> tuple[np.ndarray, np.ndarray]:
    """Distances from start and from goal, and the mask of cells on some shortest path."""
    ds, dg = _layers(walls, start), _layers(walls, goal)
    total = ds[goal]
    return ds, (ds >= 0) & (dg >= 0) & (ds + dg == total) if total >= 0 else np.zeros_like(walls, bool)


def count_shortest_paths(walls: np.ndarray, start: Cell, goal: Cell, *, limit: int = 2) -> int:
    """Number of distinct shortest 4-connected paths start -> goal, capped at ``limit`` (0: none)."""
    ds, on = _on_shortest(walls, start, goal)
    if not on.any():
        return 0
    ways = np.zeros(walls.shape, np.int64)
    ways[start] = 1
    for r, c in sorted(zip(*np.nonzero(on)), key=lambda p: ds[p]):
        if (r, c) == start:
            continue
        ways[r, c] = min(limit, sum(int(ways[r + dr, c + dc]) for dr, dc in _STEPS
                                    if 0 <= r + dr < walls.shape[0] and 0 <= c + dc < walls.shape[1]
                                    and on[r + dr, c + dc] and ds[r + dr, c + dc] == ds[r, c] - 1))
    return int(ways[goal])


def best_shortest_path(walls: np.ndarray, start: Cell, goal: Cell, *,
                       prefer: frozenset[Cell] | set[Cell]) -> tuple[Cell, ...]:
    """The shortest start -> goal path through the most ``prefer`` cells (ties: row-major first)."""
    ds, on = _on_shortest(walls, start, goal)
    if not on.any():
        return ()
    score = np.full(walls.shape, -1, np.int64)
    prev: dict[Cell, Cell] = {}
    score[start] = int(start in prefer)
    for r, c in sorted(zip(*np.nonzero(on)), key=lambda p: (ds[p], p)):
        cell = (int(r), int(c))
        if cell == start:
            continue
        for dr, dc in _STEPS:
            p = (cell[0] + dr, cell[1] + dc)
            if 0 <= p[0] < walls.shape[0] and 0 <= p[1] < walls.shape[1] and on[p] and ds[p] == ds[cell] - 1 \
                    and score[p] > score[cell] - int(cell in prefer):
                score[cell] = score[p] + int(cell in prefer)
                prev[cell] = p
    path = [goal]
    while path[-1] != start:
        path.append(prev[path[-1]])
    return tuple(reversed(path))


def walk_order(cells: Iterable[Cell], start: Cell) -> list[Cell]:
    """Order a set of lattice cells as a depth-first walk from ``start`` (branches included)."""
    todo = set(cells)
    if start not in todo:
        return sorted(todo)
    order, stack, seen = [], [start], {start}
    while stack:
        cur = stack.pop()
        order.append(cur)
        for dr, dc in reversed(_STEPS):
            nxt = (cur[0] + dr, cur[1] + dc)
            if nxt in todo and nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return order + sorted(todo - seen)
