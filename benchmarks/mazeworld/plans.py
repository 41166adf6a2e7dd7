"""Cell-level plans for each behaviour: the path the agent takes and what else the answer changes.

A plan is a cell path with one move kind per step (``walk`` along an open corridor, ``wall``
walking through a wall, ``jump`` teleporting across a wall between two frames), pauses, and
optional drawn-layout changes (walls edited, goal marker moved).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .labels import is_ambiguous, lattice_wall_iou, reflection_parts, segment_iou
from .mazes import Cell, Maze, edge_index

VIDEO_BEHAVIOURS: tuple[str, ...] = (
    "valid", "stop_short", "reach_leave", "overshoot", "wander", "teleport", "wall_pass",
    "detour", "backtrack", "walls_major", "walls_minor", "goal_moves", "trail",
)
IMAGE_BEHAVIOURS: tuple[str, ...] = (
    "valid", "shortcut", "stop_short", "detour", "walls_changed", "walls_minor", "goal_moved", "wrong_start",
)
#: Behaviours whose goal must have two open neighbours.
NEEDS_OPEN_GOAL: frozenset[str] = frozenset({"overshoot", "wander"})


class PlanError(RuntimeError):
    """The maze cannot host this behaviour (the caller draws another maze)."""


@dataclass(frozen=True, eq=False)
class Plan:
    """What the answer shows.

    ``moves[i]`` takes the agent from ``path[i]`` to ``path[i+1]``; ``pauses[i]`` holds it that many
    frames (glide) on arriving at ``path[i]``; ``drawn_walls`` is the connection list drawn once the
    walls change, ``goal_after`` the cell the goal marker moves to, ``start_drawn`` where an image
    draws its start marker (when not the maze's start).
    """

    behaviour: str
    path: tuple[Cell, ...]
    moves: tuple[str, ...]
    pauses: dict[int, float] = field(default_factory=dict)
    drawn_walls: np.ndarray | None = None
    goal_after: Cell | None = None
    start_drawn: Cell | None = None


def _walk(path: list[Cell]) -> tuple[tuple[Cell, ...], tuple[str, ...]]:
    """A path walked along open corridors only."""
    return tuple(path), tuple("walk" for _ in path[1:])


def _excursion(maze: Maze, rng: np.random.Generator, at: Cell, avoid: set[Cell], max_len: int) -> list[Cell]:
    """A simple corridor path leaving ``at`` through cells outside ``avoid``, as deep as it goes."""
    out: list[Cell] = []
    cur = at
    seen = set(avoid)
    while len(out) < max_len:
        options = [nb for nb in maze.open_neighbours(cur) if nb not in seen]
        if not options:
            break
        cur = options[int(rng.integers(len(options)))]
        seen.add(cur)
        out.append(cur)
    return out


def _through_wall_candidates(maze: Maze, min_route: int, toward_goal: bool) -> list[tuple[int, Cell]]:
    """``(i, b)``: ``b`` is a grid neighbour of ``solution[i]`` behind a wall, ``min_route`` cells away."""
    to_goal = maze.distances(maze.goal)
    out = []
    for i, a in enumerate(maze.solution[:-1]):
        route = maze.distances(a)
        for b in maze.grid_neighbours(a):
            if maze.is_open(a, b) or route[b] < min_route or to_goal[b] < 0:
                continue
            if toward_goal and to_goal[b] >= to_goal[a]:
                continue
            out.append((i, b))
    return out


def _cross(maze: Maze, rng: np.random.Generator, kind: str, min_route: int, toward_goal: bool = False) -> Plan:
    """Walk the solution, cross one wall (preferably toward the goal), then take a shortest path."""
    cands = _through_wall_candidates(maze, min_route, True)
    if not cands and not toward_goal:
        cands = _through_wall_candidates(maze, min_route, False)
    if not cands:
        raise PlanError(f"no wall to {kind} through")
    i, b = cands[int(rng.integers(len(cands)))]
    tail = maze.shortest_path(b, maze.goal)
    path = list(maze.solution[: i + 1]) + tail
    moves = ["walk"] * i + [kind] + ["walk"] * (len(tail) - 1)
    return Plan("", tuple(path), tuple(moves))


def _detour(maze: Maze, rng: np.random.Generator, min_ratio: float, max_ratio: float,
            max_branch: int) -> tuple[list[Cell], dict[int, float]]:
    """Solution with dead-end excursions until the path ratio is in ``[min_ratio, max_ratio]``."""
    sol = list(maze.solution)
    spots = [i for i in range(len(sol) - 1) for nb in maze.open_neighbours(sol[i]) if nb not in sol]
    rng.shuffle(spots)
    used: set[Cell] = set(sol)
    branches: dict[int, list[Cell]] = {}
    for i in spots:
        if i in branches:
            continue
        branch = _excursion(maze, rng, sol[i], used, max_branch)
        if not branch:
            continue
        trial = dict(branches)
        trial[i] = branch
        path, _ = _assemble(sol, trial)
        ratio = reflection_parts(maze, path)[0]
        if ratio > max_ratio:
            continue
        branches = trial
        used.update(branch)
        if ratio >= min_ratio:
            return _assemble(sol, branches)
    raise PlanError(f"no dead ends giving a path ratio in [{min_ratio}, {max_ratio}]")


def _assemble(sol: list[Cell], branches: dict[int, list[Cell]]) -> tuple[list[Cell], dict[int, float]]:
    path: list[Cell] = []
    pauses: dict[int, float] = {}
    for i, cell in enumerate(sol):
        path.append(cell)
        if i in branches:
            branch = branches[i]
            path.extend(branch)
            pauses[len(path) - 1] = 2.0  # hesitate at the dead end
            path.extend(reversed(branch[:-1]))
            path.append(cell)
    return path, pauses


def _wall_edits(maze: Maze, rng: np.random.Generator, path: tuple[Cell, ...], major: bool) -> np.ndarray:
    """A drawn connection list: one segment flipped (minor) or a region redrawn (major).

    Walls are only added on corridors the agent never uses, so the motion never meets a drawn wall.
    """
    used = {edge_index(a, b) for a, b in zip(path, path[1:])}
    rows, cols = maze.grid
    edges = [(d, r, c) for d in (0, 1) for r in range(rows) for c in range(cols)
             if (d == 0 and r < rows - 1) or (d == 1 and c < cols - 1)]
    flippable = [e for e in edges if not maze.connection_list[e] or e not in used]
    if not flippable:
        raise PlanError("no wall segment can change")
    cl = maze.connection_list.copy()
    if not major:
        e = flippable[int(rng.integers(len(flippable)))]
        cl[e] = not cl[e]
        return cl
    centre = np.array([rng.uniform(0, rows - 1), rng.uniform(0, cols - 1)])
    order = sorted(flippable, key=lambda e: float(np.hypot(e[1] - centre[0], e[2] - centre[1])) + rng.uniform(0, 1.5))
    for e in order:
        if rng.uniform() < 0.25:
            continue
        cl[e] = not cl[e]
        if segment_iou(maze.connection_list, cl) <= 0.62 and lattice_wall_iou(maze.connection_list, cl) <= 0.74:
            return cl
    raise PlanError("maze too small for a major wall change")


def _far_cell(maze: Maze, rng: np.random.Generator, avoid: set[Cell], reachable_from: Cell) -> Cell:
    dist = maze.distances(reachable_from)
    cells = [tuple(int(v) for v in rc) for rc in np.argwhere(dist >= 0)]
    cells = [c for c in cells if c not in avoid and max(abs(c[0] - maze.goal[0]), abs(c[1] - maze.goal[1])) >= 2
             and max(abs(c[0] - maze.start[0]), abs(c[1] - maze.start[1])) >= 2]
    if not cells:
        raise PlanError("no cell far enough to move a marker to")
    return cells[int(rng.integers(len(cells)))]  # type: ignore[return-value]


def make_plan(behaviour: str, maze: Maze, rng: np.random.Generator) -> Plan:
    """Plan ``behaviour`` on ``maze``; raises :class:`PlanError` when the maze cannot host it
    or when a label would sit on a threshold (see :func:`labels.is_ambiguous`)."""
    plan = _make_plan(behaviour, maze, rng)
    walls = [plan.drawn_walls] if plan.drawn_walls is not None else []
    if is_ambiguous(maze, plan.path, plan.moves, walls):
        raise PlanError(f"{behaviour}: labels too close to a threshold")
    return plan


def _make_plan(behaviour: str, maze: Maze, rng: np.random.Generator) -> Plan:
    sol = list(maze.solution)
    n = len(sol)
    if behaviour in ("valid", "trail"):
        return Plan(behaviour, *_walk(sol))
    if behaviour == "stop_short":
        k = int(rng.integers(1, 3))
        if n < k + 2:
            raise PlanError("solution too short to stop short")
        return Plan(behaviour, *_walk(sol[: n - k]))
    if behaviour == "reach_leave":
        k = min(int(rng.integers(1, 3)), n - 1)
        path = sol + [sol[n - 1 - j] for j in range(1, k + 1)]
        return Plan(behaviour, *_walk(path), pauses={n - 1: float(rng.uniform(3, 8))})
    if behaviour == "overshoot":
        beyond = [nb for nb in maze.open_neighbours(maze.goal) if nb != sol[-2]]
        if not beyond:
            raise PlanError("goal is a dead end")
        return Plan(behaviour, *_walk(sol + [beyond[int(rng.integers(len(beyond)))]]))
    if behaviour == "wander":
        tail = _excursion(maze, rng, maze.goal, {maze.goal, sol[-2]}, int(rng.integers(2, 6)))
        if not tail:
            raise PlanError("nowhere to wander from the goal")
        return Plan(behaviour, *_walk(sol + tail), pauses={n - 1: float(rng.uniform(2, 6))})
    if behaviour == "teleport":
        plan = _cross(maze, rng, "jump", min_route=4)
        return Plan(behaviour, plan.path, plan.moves)
    if behaviour in ("wall_pass", "shortcut"):
        plan = _cross(maze, rng, "wall", min_route=3, toward_goal=behaviour == "shortcut")
        return Plan(behaviour, plan.path, plan.moves)
    if behaviour == "detour":
        path, pauses = _detour(maze, rng, 1.45, 3.0, max_branch=max(3, n))
        return Plan(behaviour, *_walk(path), pauses=pauses)
    if behaviour == "backtrack":
        if rng.uniform() < 0.5:
            try:
                path, pauses = _detour(maze, rng, 1.0, 1.2, max_branch=2)
                return Plan(behaviour, *_walk(path), pauses=pauses)
            except PlanError:
                pass
        if n < 4:
            raise PlanError("solution too short to back-track on")
        i = int(rng.integers(2, n - 1))
        k = min(int(rng.integers(1, 3)), i)
        back = [sol[i - j] for j in range(1, k + 1)]
        path = sol[: i + 1] + back + [sol[i - j] for j in range(k - 1, 0, -1)] + sol[i:]
        return Plan(behaviour, *_walk(path), pauses={i + k: 2.0})
    if behaviour in ("walls_major", "walls_changed", "walls_minor"):
        cl = _wall_edits(maze, rng, tuple(sol), major=behaviour != "walls_minor")
        return Plan(behaviour, *_walk(sol), drawn_walls=cl)
    if behaviour in ("goal_moves", "goal_moved"):
        new_goal = _far_cell(maze, rng, set(sol), maze.start)
        to_new = behaviour == "goal_moved" or rng.uniform() < 0.5
        path = maze.shortest_path(maze.start, new_goal) if to_new else sol
        return Plan(behaviour, *_walk(path), goal_after=new_goal)
    if behaviour == "wrong_start":
        s = _far_cell(maze, rng, {maze.goal}, maze.goal)
        return Plan(behaviour, *_walk(maze.shortest_path(s, maze.goal)), start_drawn=s)
    raise ValueError(f"unknown behaviour {behaviour!r}")
