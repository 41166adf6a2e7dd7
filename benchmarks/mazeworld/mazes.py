"""Mazes from maze-dataset's generators, with a start, a goal and a shortest solution.

Cells are ``(row, col)`` tuples, ``(0, 0)`` top-left; ``connection_list`` follows maze-dataset:
``connection_list[0][r][c]`` is true iff ``(r, c)-(r+1, c)`` is open and ``connection_list[1][r][c]``
iff ``(r, c)-(r, c+1)`` is open.
"""

from __future__ import annotations

import random
import warnings
from collections import deque
from dataclasses import dataclass
from typing import Iterator

import numpy as np
from maze_dataset import LatticeMaze, LatticeMazeGenerators, SolvedMaze, TargetedLatticeMaze

Cell = tuple[int, int]

GENERATORS: tuple[str, ...] = ("dfs", "wilson", "kruskal", "prim", "percolation", "dfs_percolation")
PERFECT_GENERATORS: frozenset[str] = frozenset({"dfs", "wilson", "kruskal", "prim"})
_STEPS: tuple[Cell, ...] = ((-1, 0), (1, 0), (0, -1), (0, 1))


class MazeConstraintError(RuntimeError):
    """No generated maze met the requested constraints (the caller may relax them or retry)."""


def is_adjacent(a: Cell, b: Cell) -> bool:
    """True iff ``a`` and ``b`` are 4-neighbours on the grid."""
    return abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1


def edge_index(a: Cell, b: Cell) -> tuple[int, int, int]:
    """Index ``(dim, r, c)`` of the connection between adjacent cells ``a`` and ``b``."""
    if not is_adjacent(a, b):
        raise ValueError(f"cells {a} and {b} are not adjacent")
    top_left = min(a, b)
    dim = 0 if a[1] == b[1] else 1
    return dim, top_left[0], top_left[1]


@dataclass(frozen=True, eq=False)
class Maze:
    """A maze with endpoints and one shortest solution (a list of cells, start to goal)."""

    connection_list: np.ndarray
    start: Cell
    goal: Cell
    solution: tuple[Cell, ...]
    generator: str

    @property
    def grid(self) -> tuple[int, int]:
        return int(self.connection_list.shape[1]), int(self.connection_list.shape[2])

    def in_grid(self, cell: Cell) -> bool:
        return 0 <= cell[0] < self.grid[0] and 0 <= cell[1] < self.grid[1]

    def is_open(self, a: Cell, b: Cell) -> bool:
        """True iff ``a`` and ``b`` are adjacent and the connection between them is open."""
        if not (is_adjacent(a, b) and self.in_grid(a) and self.in_grid(b)):
            return False
        return bool(self.connection_list[edge_index(a, b)])

    def grid_neighbours(self, cell: Cell) -> Iterator[Cell]:
        for dr, dc in _STEPS:
            nb = (cell[0] + dr, cell[1] + dc)
            if self.in_grid(nb):
                yield nb

    def open_neighbours(self, cell: Cell) -> list[Cell]:
        return [nb for nb in self.grid_neighbours(cell) if self.is_open(cell, nb)]

    def degree(self, cell: Cell) -> int:
        return len(self.open_neighbours(cell))

    def distances(self, source: Cell) -> np.ndarray:
        """Corridor distance (in cells) from ``source`` to every cell; -1 where unreachable."""
        dist = np.full(self.grid, -1, dtype=np.int32)
        dist[source] = 0
        queue = deque([source])
        while queue:
            cell = queue.popleft()
            for nb in self.open_neighbours(cell):
                if dist[nb] < 0:
                    dist[nb] = dist[cell] + 1
                    queue.append(nb)
        return dist

    def shortest_path(self, a: Cell, b: Cell) -> list[Cell]:
        """A shortest corridor path from ``a`` to ``b`` (maze-dataset's A*), checked by BFS."""
        path = [tuple(int(v) for v in c) for c in self.lattice_maze().find_shortest_path(a, b)]
        if len(path) - 1 != self.distances(a)[b]:
            raise RuntimeError(f"maze-dataset path {a}->{b} is not shortest")
        return path  # type: ignore[return-value]

    # the call-arg ignores below: maze-dataset's dataclass init (muutils, kw_only) is invisible to mypy
    def lattice_maze(self) -> LatticeMaze:
        return LatticeMaze(connection_list=self.connection_list.copy())  # type: ignore[call-arg]

    def solved_maze(self) -> SolvedMaze:
        return SolvedMaze(connection_list=self.connection_list.copy(), solution=np.array(self.solution))

    def targeted_maze(self) -> TargetedLatticeMaze:
        return TargetedLatticeMaze(  # type: ignore[call-arg]
            connection_list=self.connection_list.copy(), start_pos=self.start, end_pos=self.goal
        )

    def ascii(self) -> str:
        """maze-dataset's ``as_ascii()`` of the solved maze (``S`` start, ``E`` goal, ``X`` path)."""
        return self.solved_maze().as_ascii()

    def to_json(self) -> dict:
        """``maze.json``: grid, maze-dataset's connection_list, start, goal and solution."""
        return {
            "grid": list(self.grid),
            "connection_list": self.connection_list.astype(bool).tolist(),
            "start": list(self.start),
            "goal": list(self.goal),
            "solution": [list(c) for c in self.solution],
        }


def _components(connection_list: np.ndarray) -> list[list[Cell]]:
    probe = Maze(connection_list, (0, 0), (0, 0), ((0, 0),), "")
    seen = np.zeros(probe.grid, dtype=bool)
    out: list[list[Cell]] = []
    for r in range(probe.grid[0]):
        for c in range(probe.grid[1]):
            if seen[r, c]:
                continue
            dist = probe.distances((r, c))
            cells = [tuple(int(v) for v in rc) for rc in np.argwhere(dist >= 0)]
            seen[dist >= 0] = True
            out.append(cells)  # type: ignore[arg-type]
    return out


def _call_generator(name: str, grid: tuple[int, int], p: float) -> LatticeMaze:
    gens = LatticeMazeGenerators
    if name == "percolation":
        return gens.gen_percolation(grid, p=p)
    if name == "dfs_percolation":
        return gens.gen_dfs_percolation(grid, p=p)
    if name in PERFECT_GENERATORS:
        return getattr(gens, f"gen_{name}")(grid)
    raise ValueError(f"unknown generator {name!r}; expected one of {GENERATORS}")


def _run_generator(name: str, grid: tuple[int, int], seed: int, p: float) -> np.ndarray:
    """Call one maze-dataset generator under a fixed seed of the global RNGs it uses."""
    py_state, np_state = random.getstate(), np.random.get_state()
    random.seed(seed)
    np.random.seed(seed % (2**32))
    try:
        with warnings.catch_warnings():
            # gen_prim warns that it is not textbook Prim; it still yields a spanning tree (tested).
            warnings.filterwarnings("ignore", message="gen_prim does not correctly implement")
            lm = _call_generator(name, grid, p)
    finally:
        random.setstate(py_state)
        np.random.set_state(np_state)
    return np.asarray(lm.connection_list, dtype=bool)


def generate_maze(
    rng: np.random.Generator,
    *,
    grid: tuple[int, int],
    generator: str,
    endpoints: str = "corner",
    goal_min_degree: int = 1,
    min_solution: int = 3,
    max_solution: int | None = None,
    attempts: int = 40,
) -> Maze:
    """Generate a maze with maze-dataset, pick endpoints and solve it with maze-dataset.

    ``endpoints`` is ``"corner"`` (opposite corners) or ``"random"``; ``min_solution`` and
    ``max_solution`` bound the solution's number of cells. Raises :class:`MazeConstraintError` when
    no maze satisfying the constraints turned up in ``attempts`` tries.
    """
    if endpoints not in ("corner", "random"):
        raise ValueError(f"endpoints must be 'corner' or 'random', got {endpoints!r}")
    rows, cols = grid
    for _ in range(attempts):
        p = float(rng.uniform(0.5, 0.7) if generator == "percolation" else rng.uniform(0.04, 0.15))
        cl = _run_generator(generator, grid, int(rng.integers(2**31)), p)
        cells = max(_components(cl), key=len)
        if len(cells) < max(4, min_solution):
            continue
        probe = Maze(cl, cells[0], cells[0], (cells[0],), generator)
        pool = set(cells)
        if endpoints == "corner":
            corners = [(0, 0), (0, cols - 1), (rows - 1, 0), (rows - 1, cols - 1)]
            pairs = [(a, b) for a in corners for b in corners if a[0] != b[0] and a[1] != b[1]]
            a, b = pairs[int(rng.integers(len(pairs)))]
            if a not in pool or b not in pool:
                continue
        else:
            idx = rng.choice(len(cells), size=2, replace=False)
            a, b = cells[int(idx[0])], cells[int(idx[1])]
        if probe.degree(b) < goal_min_degree:
            continue
        maze = Maze(cl, a, b, (a,), generator)
        solution = tuple(maze.shortest_path(a, b))
        if len(solution) < min_solution or (max_solution is not None and len(solution) > max_solution):
            continue
        return Maze(cl, a, b, solution, generator)
    raise MazeConstraintError(f"no {generator} maze of grid {grid} met the constraints in {attempts} tries")
