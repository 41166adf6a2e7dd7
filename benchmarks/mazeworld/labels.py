"""Ground-truth labels from the maze and the planned motion only (MMGR's pixel-pipeline rules).

Lattice: a ``rows x cols`` maze is a ``(2*rows+1) x (2*cols+1)`` lattice; cell ``(r, c)`` is lattice
``(2r+1, 2c+1)`` and the lattice cell between two adjacent cells is their connector.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Sequence

import numpy as np

from .mazes import Cell, Maze, is_adjacent

LatticeCell = tuple[int, int]

#: MMGR thresholds.
IOU_CHANGED = 0.8
START_TOLERANCE = 0.75
COVERAGE_MIN = 0.95
REFLECTION_RATIO = 1.3


def lattice_of(cell: Cell) -> LatticeCell:
    return 2 * cell[0] + 1, 2 * cell[1] + 1


def connector(a: Cell, b: Cell) -> LatticeCell:
    """Lattice cell between adjacent cells ``a`` and ``b``."""
    if not is_adjacent(a, b):
        raise ValueError(f"{a} and {b} are not adjacent")
    return a[0] + b[0] + 1, a[1] + b[1] + 1


def path_lattice_cells(path: Sequence[Cell]) -> set[LatticeCell]:
    """Lattice cells of a cell path: its cells plus the connectors between consecutive adjacent cells."""
    cells = {lattice_of(c) for c in path}
    cells.update(connector(a, b) for a, b in zip(path, path[1:]) if is_adjacent(a, b))
    return cells


def has_cycle(cells: set[LatticeCell]) -> bool:
    """True iff the 4-adjacency graph induced on ``cells`` contains a cycle (E - V + C > 0)."""
    if not cells:
        return False
    edges = sum((r + 1, c) in cells for r, c in cells) + sum((r, c + 1) in cells for r, c in cells)
    seen: set[LatticeCell] = set()
    components = 0
    for cell in cells:
        if cell in seen:
            continue
        components += 1
        stack = [cell]
        seen.add(cell)
        while stack:
            r, c = stack.pop()
            for nb in ((r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)):
                if nb in cells and nb not in seen:
                    seen.add(nb)
                    stack.append(nb)
    return edges - len(cells) + components > 0


def wall_segments(connection_list: np.ndarray) -> set[tuple[int, int, int]]:
    """Unit wall segments (interior and border) as ``(dim, r, c)`` edges.

    ``dim`` 0: the horizontal segment below cell ``(r, c)`` (``r = -1`` is the top border);
    ``dim`` 1: the vertical segment right of cell ``(r, c)`` (``c = -1`` is the left border).
    """
    _, rows, cols = connection_list.shape
    segs: set[tuple[int, int, int]] = set()
    for r in range(-1, rows):
        for c in range(cols):
            if r in (-1, rows - 1) or not connection_list[0, r, c]:
                segs.add((0, r, c))
    for r in range(rows):
        for c in range(-1, cols):
            if c in (-1, cols - 1) or not connection_list[1, r, c]:
                segs.add((1, r, c))
    return segs


def segment_iou(original: np.ndarray, drawn: np.ndarray) -> float:
    """IoU of the interior+border wall segments of two connection lists."""
    a, b = wall_segments(original), wall_segments(drawn)
    return len(a & b) / len(a | b)


def lattice_wall_iou(original: np.ndarray, drawn: np.ndarray) -> float:
    """IoU of the black lattice cells (segments and pillars) of two connection lists."""
    def walls(cl: np.ndarray) -> np.ndarray:
        _, rows, cols = cl.shape
        open_ = np.zeros((2 * rows + 1, 2 * cols + 1), dtype=bool)
        open_[1::2, 1::2] = True
        open_[2:-1:2, 1::2] = cl[0, :-1, :]
        open_[1::2, 2:-1:2] = cl[1, :, :-1]
        return ~open_
    wa, wb = walls(original), walls(drawn)
    return float((wa & wb).sum() / (wa | wb).sum())


@dataclass(frozen=True)
class Labels:
    """The gated MMGR maze labels and the quantities they come from."""

    maze_changed: int
    cross_wall: int
    target_achievement: int
    reflection: int
    overall: int
    teleports: int
    wall_passes: int
    coverage: float
    path_ratio: float
    has_cycle: bool
    wall_iou_min: float
    wall_iou_min_lattice: float
    goal_marker_moved: bool
    start_offset: float
    final_cell: Cell
    cell_path: tuple[Cell, ...]
    moves: tuple[str, ...]

    def to_json(self) -> dict:
        out = asdict(self)
        out["final_cell"] = list(self.final_cell)
        out["cell_path"] = [list(c) for c in self.cell_path]
        out["moves"] = list(self.moves)
        return out


def reflection_parts(maze: Maze, path: Sequence[Cell]) -> tuple[float, bool, bool]:
    """``(ratio, cycle, cycle_without_endpoints)`` of a cell path against the solution."""
    ends = {lattice_of(maze.start), lattice_of(maze.goal)}
    sol = path_lattice_cells(maze.solution) - ends
    visited = path_lattice_cells(path)
    ratio = len(visited - ends) / len(sol)
    return ratio, has_cycle(visited), has_cycle(visited - ends)


def compute_labels(
    maze: Maze,
    path: Sequence[Cell],
    moves: Sequence[str],
    *,
    first_position: tuple[float, float],
    final_cell: Cell,
    drawn_walls: Sequence[np.ndarray] = (),
    goal_marker_cells: Sequence[Cell] = (),
) -> Labels:
    """Labels of one answer.

    ``path`` is the planned cell path (start of motion first), ``moves[i]`` how the agent went from
    ``path[i]`` to ``path[i+1]`` (``walk``, ``wall`` or ``jump``); ``first_position`` the agent's first
    visible centre in cell coordinates; ``final_cell`` its resting cell in the last visible frames;
    ``drawn_walls`` every connection list drawn in some frame; ``goal_marker_cells`` every cell the
    goal marker is drawn on (frames where the arrival icon replaces it left out).
    """
    if len(moves) != len(path) - 1:
        raise ValueError(f"{len(path)} cells need {len(path) - 1} moves, got {len(moves)}")
    for (a, b), kind in zip(zip(path, path[1:]), moves):
        if kind == "walk" and not maze.is_open(a, b):
            raise ValueError(f"walk {a}->{b} goes through a wall")
        if kind in ("wall", "jump") and maze.is_open(a, b):
            raise ValueError(f"{kind} {a}->{b} crosses no wall")
    ious = [segment_iou(maze.connection_list, cl) for cl in drawn_walls] or [1.0]
    lattice_ious = [lattice_wall_iou(maze.connection_list, cl) for cl in drawn_walls] or [1.0]
    goal_moved = any(tuple(c) != maze.goal for c in goal_marker_cells)
    start_offset = math.hypot(first_position[0] - maze.start[0], first_position[1] - maze.start[1])
    changed = min(ious) <= IOU_CHANGED or goal_moved or start_offset > START_TOLERANCE

    teleports = sum(m == "jump" for m in moves)
    wall_passes = sum(m == "wall" for m in moves)
    crossed = any(not maze.is_open(a, b) for a, b in zip(path, path[1:]))

    ends = {lattice_of(maze.start), lattice_of(maze.goal)}
    sol = path_lattice_cells(maze.solution) - ends
    visited = path_lattice_cells(path)
    coverage = len(sol & visited) / len(sol)
    achieved = coverage > COVERAGE_MIN and tuple(final_cell) == maze.goal
    ratio, cycle, _ = reflection_parts(maze, path)
    reflection = ratio > REFLECTION_RATIO or cycle
    overall = not changed and not crossed and achieved and not reflection
    return Labels(
        maze_changed=int(changed),
        cross_wall=int(crossed),
        target_achievement=int(achieved),
        reflection=int(reflection),
        overall=int(overall),
        teleports=teleports,
        wall_passes=wall_passes,
        coverage=round(coverage, 6),
        path_ratio=round(ratio, 6),
        has_cycle=cycle,
        wall_iou_min=round(min(ious), 6),
        wall_iou_min_lattice=round(min(lattice_ious), 6),
        goal_marker_moved=goal_moved,
        start_offset=round(start_offset, 6),
        final_cell=(final_cell[0], final_cell[1]),
        cell_path=tuple((c[0], c[1]) for c in path),
        moves=tuple(moves),
    )


def is_ambiguous(maze: Maze, path: Sequence[Cell], moves: Sequence[str],
                 drawn_walls: Sequence[np.ndarray] = ()) -> bool:
    """True when a label would hinge on a reading of the rules rather than on the plan.

    Generators reject such plans so that every label holds however the rules are read:
    path ratios near 1.3, cycles that exist only through the start or goal, coverage near 0.95
    on paths ending at the goal, reflection or coverage that change when a teleport's skipped
    connector is left out, and wall IoUs near 0.8 (by segments or by lattice cells).
    """
    ratio, cycle, cycle_inner = reflection_parts(maze, path)
    if 1.25 <= ratio <= 1.35 or cycle != cycle_inner:
        return True
    ends = {lattice_of(maze.start), lattice_of(maze.goal)}
    sol = path_lattice_cells(maze.solution) - ends
    visited = path_lattice_cells(path)
    steps = list(zip(path, path[1:], moves))
    jumped = {connector(a, b) for a, b, m in steps if m == "jump"}
    stepped = {connector(a, b) for a, b, m in steps if m != "jump" and is_adjacent(a, b)}
    walked = visited - (jumped - stepped)  # the reading where a teleport skips its connector
    for cells in (visited, walked):
        coverage = len(sol & cells) / len(sol)
        if tuple(path[-1]) == maze.goal and 0.93 <= coverage <= 0.97:
            return True
    if jumped:
        loose = len(walked - ends) / len(sol)
        if (loose > REFLECTION_RATIO or has_cycle(walked)) != (ratio > REFLECTION_RATIO or cycle):
            return True
        if (len(sol & walked) / len(sol) > COVERAGE_MIN) != (len(sol & visited) / len(sol) > COVERAGE_MIN):
            return True
    for cl in drawn_walls:
        seg, lat = segment_iou(maze.connection_list, cl), lattice_wall_iou(maze.connection_list, cl)
        if (seg <= IOU_CHANGED) != (lat <= IOU_CHANGED) or 0.72 <= seg <= 0.86:
            return True
    return False
