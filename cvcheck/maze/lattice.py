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
from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterable, Sequence

import cv2
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


def _framed(passable: np.ndarray) -> tuple[list[bool], int]:
    """``passable`` framed by one impassable pixel on every side, flattened row-major to a
    list, and the framed row length ``w``: pixel (r, c) is flat index ``(r + 1) * w + c + 1``,
    and its neighbours in :data:`_STEPS` order are ``i - w, i + w, i - 1, i + 1`` (the frame
    stands for the lattice's bounds, so no bounds checks are needed)."""
    h, w = passable.shape
    framed = np.zeros((h + 2, w + 2), bool)
    framed[1:-1, 1:-1] = passable
    return framed.ravel().tolist(), w + 2


def _flat_layers(passable: list[bool], w: int, source: int, stop: int = -1) -> list[int]:
    """BFS distances from flat index ``source`` over a framed, flattened mask (-1: unreachable).

    With ``stop``, the search ends as soon as that index is reached: every pixel nearer the
    source than ``stop`` has its distance then, farther ones may still read -1."""
    dist = [-1] * len(passable)
    if not passable[source]:
        return dist
    dist[source] = 0
    queue = [source]
    for u in queue:  # a list grown while iterated is a FIFO queue
        d = dist[u] + 1
        for v in (u - w, u + w, u - 1, u + 1):
            if passable[v] and dist[v] < 0:
                dist[v] = d
                if v == stop:
                    return dist
                queue.append(v)
    return dist


def _flat(cell: Cell, w: int) -> int:
    """The flat index of lattice pixel ``cell`` in a framed lattice of row length ``w``."""
    return (int(cell[0]) + 1) * w + int(cell[1]) + 1


def _unframe(flat: Sequence[int], shape: tuple[int, int]) -> np.ndarray:
    """The (h, w) int64 array of a framed, flattened per-pixel list."""
    h, w = shape
    return np.array(flat, np.int64).reshape(h + 2, w + 2)[1:-1, 1:-1].copy()


def shortest_path(open_mask_or_walls: np.ndarray, start: Cell, goal: Cell, *,
                  walls: bool = True) -> tuple[Cell, ...]:
    """BFS shortest 4-connected path on a lattice; ``()`` when unreachable.

    ``open_mask_or_walls`` is a wall lattice (``walls=True``) or a mask of passable
    pixels (``walls=False``). Neighbours are explored in :data:`_STEPS` order, first
    found first: of several shortest paths, always the same one.
    """
    passable = ~open_mask_or_walls if walls else open_mask_or_walls
    if not (passable[start] and passable[goal]):
        return ()
    flat, w = _framed(passable)
    s, g = _flat(start, w), _flat(goal, w)
    prev = [-1] * len(flat)
    prev[s] = s
    queue = [s]
    for u in queue:  # a list grown while iterated is a FIFO queue
        if u == g:
            break
        for v in (u - w, u + w, u - 1, u + 1):
            if flat[v] and prev[v] < 0:
                prev[v] = u
                queue.append(v)
    if prev[g] < 0:
        return ()
    chain = [g]
    while chain[-1] != s:
        chain.append(prev[chain[-1]])
    if len(chain) == 1:
        return (goal,)
    # cells as the step-by-step walk from ``start`` builds them (same values, same int type)
    r0, c0 = int(start[0]), int(start[1])
    inner = [(start[0] + (i // w - 1 - r0), start[1] + (i % w - 1 - c0)) for i in reversed(chain[1:-1])]
    return (start, *inner, goal)


def _layers(walls: np.ndarray, start: Cell) -> np.ndarray:
    """BFS distance of every open lattice cell from ``start`` (-1: unreachable)."""
    passable, w = _framed(np.logical_not(walls))
    return _unframe(_flat_layers(passable, w, _flat(start, w)), walls.shape)


def _flat_shortest(walls: np.ndarray, start: Cell, goal: Cell) -> tuple[list[int], list[int], int]:
    """Framed, flattened distances from the start (exact up to the goal's), the flat indices of
    the cells on some shortest start-goal path in (distance, row-major) order (none when
    there is no path), and the framed row length (see :func:`_framed`).

    A cell is on a shortest path iff the goal is reached from it by steps that each take one
    farther from the start (in a 4-connected grid every step changes that distance by exactly
    one), so those cells are the goal's backward closure under such steps."""
    passable, w = _framed(np.logical_not(walls))
    s, g = _flat(start, w), _flat(goal, w)
    ds = _flat_layers(passable, w, s, stop=g)
    if ds[g] < 0:
        return ds, [], w
    on, stack = {g}, [g]
    while stack:
        u = stack.pop()
        d = ds[u] - 1
        if d < 0:
            continue
        for v in (u - w, u + w, u - 1, u + 1):
            if ds[v] == d and v not in on:
                on.add(v)
                stack.append(v)
    return ds, sorted(on, key=lambda i: (ds[i], i)), w


def _forest_labels(passable: np.ndarray) -> np.ndarray | None:
    """4-connected component labels of the passable pixels (0: not passable) when they form a
    forest - no cycles: edges - pixels + components = 0, as in a perfect maze - else None."""
    n, labels = cv2.connectedComponents(passable.astype(np.uint8), connectivity=4)
    edges = np.count_nonzero(passable[1:] & passable[:-1]) + np.count_nonzero(passable[:, 1:] & passable[:, :-1])
    return labels if int(edges) - int(np.count_nonzero(passable)) + (n - 1) == 0 else None


def _joined(passable: np.ndarray, a: Cell, b: Cell) -> bool:
    """Whether a 4-connected path of passable pixels joins ``a`` and ``b`` (``bool(shortest_path(
    passable, a, b, walls=False))``, for a boolean mask)."""
    if not (passable[a] and passable[b]):
        return False
    _, labels = cv2.connectedComponents(passable.astype(np.uint8), connectivity=4)
    return bool(labels[a] == labels[b])


def count_shortest_paths(walls: np.ndarray, start: Cell, goal: Cell, *, limit: int = 2) -> int:
    """Number of distinct shortest 4-connected paths start -> goal, capped at ``limit`` (0: none)."""
    if limit >= 1:
        passable = np.logical_not(walls)
        labels = _forest_labels(passable)
        if labels is not None:  # one path at most between two cells of a forest
            return int(bool(passable[start] and passable[goal]) and bool(labels[start] == labels[goal]))
    ds, cells, w = _flat_shortest(walls, start, goal)
    if not cells:
        return 0
    s, g = _flat(start, w), _flat(goal, w)
    on = set(cells)
    ways = dict.fromkeys(cells, 0)
    ways[s] = 1
    for i in cells:
        if i == s:
            continue
        d = ds[i] - 1
        ways[i] = min(limit, sum(ways[v] for v in (i - w, i + w, i - 1, i + 1) if v in on and ds[v] == d))
    return ways[g]


def best_shortest_path(walls: np.ndarray, start: Cell, goal: Cell, *,
                       prefer: frozenset[Cell] | set[Cell]) -> tuple[Cell, ...]:
    """The shortest start -> goal path through the most ``prefer`` cells (ties: row-major first)."""
    ds, cells, w = _flat_shortest(walls, start, goal)
    if not cells:
        return ()
    s, g = _flat(start, w), _flat(goal, w)
    on = set(cells)
    score = dict.fromkeys(cells, -1)
    prev: dict[int, int] = {}
    score[s] = int(start in prefer)
    for i in cells:  # by distance, then row-major (the flat order)
        if i == s:
            continue
        bonus = int((i // w - 1, i % w - 1) in prefer)
        d = ds[i] - 1
        for v in (i - w, i + w, i - 1, i + 1):
            if v in on and ds[v] == d and score[v] > score[i] - bonus:
                score[i] = score[v] + bonus
                prev[i] = v
    path: list[Cell] = [goal]
    cur = g
    while cur != s:
        cur = prev[cur]
        path.append((cur // w - 1, cur % w - 1))
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
