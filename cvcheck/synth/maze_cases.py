"""Labelled model-like maze answers: every MMGR defect family, every rendering family.

Labels are computed from the lattice the answer was drawn from (not from pixels),
with the same definitions the verifier uses, so a corpus measures how well the
pixel pipeline recovers the truth.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from ..config import MazeConfig
from ..maze.lattice import Cell, MazeSpec, cell_to_lattice, shortest_path
from .maze_gen import make_maze
from .maze_render import MMGR_PALETTE, AnswerStyle, render_answer, render_solution

DEFECTS = (
    "valid", "shortcut", "stop_short", "wrong_start", "detour", "branches", "loop",
    "walls_minor", "walls_major", "goal_moved",
)


@dataclass
class MazeCase:
    """One labelled answer with its reference."""

    id: str
    spec: MazeSpec
    reference: np.ndarray
    answer: np.ndarray
    defect: str
    labels: dict[str, Any]
    style: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Drawn:
    walls: np.ndarray
    start: Cell
    goal: Cell
    walk: list[Cell]
    loops_at: list[tuple[Cell, bool]] = field(default_factory=list)  # (cell, corridor is vertical)


def path_truth(spec: MazeSpec, walk: list[Cell], *, markers: tuple[Cell, ...] = ()
               ) -> tuple[list[Cell], float, bool, float]:
    """What a drawn walk does, in the verifier's terms.

    Returns the reference wall cells it passes through, the share of the solution's
    cells it covers, whether it links start and goal, and its length relative to the
    solution (marker cells, which are painted over, do not count as path).
    """
    path_all = set(walk)
    body = path_all - {spec.start, spec.goal, *markers}
    crossed = sorted(p for p in path_all if spec.walls[p])
    solution = spec.solution_body
    mask = np.zeros_like(spec.walls)
    for p in body | {spec.start, spec.goal}:
        mask[p] = True
    connected = bool(shortest_path(mask, spec.start, spec.goal, walls=False))
    return crossed, len(body & solution) / max(1, len(solution)), connected, len(body) / max(1, len(solution))


def label_answer(spec: MazeSpec, drawn: _Drawn, config: MazeConfig | None = None) -> dict[str, Any]:
    """Ground truth for every MMGR pixel metric, from the lattice the answer was drawn from."""
    cfg = config or MazeConfig()
    ref, ans = spec.walls, drawn.walls
    layout_iou = float((ref & ans).sum() / max(1, (ref | ans).sum()))
    markers_moved = drawn.start != spec.start or drawn.goal != spec.goal
    crossed, ta, connected, ratio = path_truth(spec, drawn.walk, markers=(drawn.start, drawn.goal))
    reflection = bool(drawn.loops_at) or ratio > cfg.reflection_length_ratio
    maze_changed = layout_iou <= cfg.layout_iou_min or markers_moved
    target = ta > cfg.target_achievement_min and connected
    return {
        "maze_changed": int(maze_changed), "cross_wall": int(bool(crossed)),
        "target_achievement": int(target), "reflection": int(reflection),
        "overall": int(not maze_changed and not crossed and target and not reflection),
        "layout_iou": layout_iou, "target_achievement_score": ta, "length_ratio": ratio,
        "crossed_walls": [list(p) for p in crossed], "has_loop": int(bool(drawn.loops_at)),
    }


# -- defects ------------------------------------------------------------------------------

def _corridor_neighbours(walls: np.ndarray, p: Cell) -> list[Cell]:
    out = []
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        q = (p[0] + dr, p[1] + dc)
        if 0 <= q[0] < walls.shape[0] and 0 <= q[1] < walls.shape[1] and not walls[q]:
            out.append(q)
    return out


def _branch_from(walls: np.ndarray, root: Cell, avoid: set[Cell], rng: np.random.Generator,
                 max_len: int) -> list[Cell]:
    """A dead-end excursion from ``root`` into corridors outside ``avoid`` (lattice cells)."""
    branch: list[Cell] = []
    cur, seen = root, set(avoid)
    while len(branch) < max_len:
        options = [q for q in _corridor_neighbours(walls, cur) if q not in seen]
        if not options:
            break
        cur = options[int(rng.integers(len(options)))]
        seen.add(cur)
        branch.append(cur)
    if branch and (branch[-1][0] % 2 == 0 or branch[-1][1] % 2 == 0):
        branch.pop()  # end excursions on a cell, not between two cells
    return branch


def _with_excursions(sol: list[Cell], walls: np.ndarray, rng: np.random.Generator, *,
                     count: int, max_len: int) -> list[Cell]:
    walk, used = list(sol), set(sol)
    roots = [i for i, p in enumerate(sol) if p[0] % 2 and p[1] % 2]
    for i in rng.permutation(roots):
        if count == 0:
            break
        branch = _branch_from(walls, sol[i], used, rng, max_len)
        if len(branch) < 2:
            continue
        used.update(branch)
        j = walk.index(sol[i])
        walk[j + 1:j + 1] = branch + branch[-2::-1] + [sol[i]]
        count -= 1
    return walk


def _shortcut(spec: MazeSpec, rng: np.random.Generator) -> list[Cell] | None:
    sol = list(spec.solution)
    index = {p: i for i, p in enumerate(sol)}
    options = []
    for i, p in enumerate(sol):
        for dr, dc in ((-2, 0), (2, 0), (0, -2), (0, 2)):
            q = (p[0] + dr, p[1] + dc)
            wall = (p[0] + dr // 2, p[1] + dc // 2)
            if q in index and index[q] - i >= 4 and spec.walls[wall]:
                options.append((i, index[q], wall))
    if not options:
        return None
    i, j, wall = options[int(rng.integers(len(options)))]
    return sol[:i + 1] + [wall] + sol[j:]


def _poke_through(spec: MazeSpec, rng: np.random.Generator) -> list[Cell] | None:
    """The solution plus an excursion through an interior wall into the next corridor."""
    sol = list(spec.solution)
    h, w = spec.walls.shape
    options = []
    for i, p in enumerate(sol):
        if not (p[0] % 2 and p[1] % 2):
            continue
        for dr, dc in ((-2, 0), (2, 0), (0, -2), (0, 2)):
            q, wall = (p[0] + dr, p[1] + dc), (p[0] + dr // 2, p[1] + dc // 2)
            if 0 < q[0] < h and 0 < q[1] < w and spec.walls[wall] and q not in sol:
                options.append((i, wall, q))
    if not options:
        return None
    i, wall, q = options[int(rng.integers(len(options)))]
    return sol[:i + 1] + [wall, q, wall] + sol[i:]


def _wrong_start(spec: MazeSpec, rng: np.random.Generator) -> list[Cell] | None:
    sol = spec.solution
    pos = {p: i for i, p in enumerate(sol)}
    rows, cols = spec.shape
    cells = [cell_to_lattice((r, c)) for r in range(rows) for c in range(cols)]
    for k in rng.permutation(len(cells)):
        x = cells[k]
        if x in pos:
            continue
        walk = list(shortest_path(spec.walls, x, spec.goal))
        joins = [pos[p] for p in walk if p in pos]
        if walk and joins and joins[0] >= 0.3 * len(sol) and len(walk) >= 3:
            return walk
    return None


def _edit_walls(spec: MazeSpec, rng: np.random.Generator, *, major: bool) -> np.ndarray | None:
    walls = spec.walls.copy()
    h, w = walls.shape
    keep = set(spec.solution)
    interior = [(r, c) for r in range(1, h - 1) for c in range(1, w - 1) if (r, c) not in keep]
    rng.shuffle(interior)
    ref = spec.walls

    def iou() -> float:
        return float((ref & walls).sum() / max(1, (ref | walls).sum()))

    if not major:
        for p in interior[: int(rng.integers(1, 4))]:
            walls[p] = not walls[p]
        return walls if iou() >= 0.88 else None
    # erase a block of walls (a faded region), then flip cells until clearly changed
    r0, c0 = int(rng.integers(1, h - 1)), int(rng.integers(1, w - 1))
    size = max(2, h // 3)
    block = walls[r0:r0 + size, c0:c0 + size]
    block[:] = False
    walls[0, :] = walls[-1, :] = walls[:, 0] = walls[:, -1] = True
    for p in keep:
        walls[p] = False
    for p in interior:
        if iou() <= 0.72:
            break
        walls[p] = not walls[p]
    return walls if iou() <= 0.72 else None


def _moved_goal(spec: MazeSpec, rng: np.random.Generator) -> Cell | None:
    rows, cols = spec.shape
    g = (spec.goal[0] // 2, spec.goal[1] // 2)
    far = [(r, c) for r in range(rows) for c in range(cols)
           if abs(r - g[0]) + abs(c - g[1]) >= 2 and cell_to_lattice((r, c)) != spec.start]
    if not far:
        return None
    return cell_to_lattice(far[int(rng.integers(len(far)))])


def build_defect(spec: MazeSpec, defect: str, rng: np.random.Generator) -> _Drawn | None:
    """The lattice-level answer for a defect family (None when the maze cannot host it)."""
    sol = list(spec.solution)
    base = _Drawn(walls=spec.walls.copy(), start=spec.start, goal=spec.goal, walk=sol)
    if defect == "valid":
        return base
    if defect == "shortcut":
        walk = _shortcut(spec, rng) or _poke_through(spec, rng)
        if walk is None:
            return None
        base.walk = walk
        if rng.random() < 0.4:  # the model also erased the wall it passed through
            for p in walk:
                if spec.walls[p]:
                    base.walls[p] = False
        return base
    if defect == "stop_short":
        k = int(len(sol) * rng.uniform(0.3, 0.8))
        if k < 2:
            return None
        base.walk = sol[:k]
        return base
    if defect == "wrong_start":
        walk = _wrong_start(spec, rng)
        if walk is None:
            return None
        base.walk = walk
        return base
    if defect in ("detour", "branches"):
        count = 2 if defect == "branches" else int(rng.integers(1, 4))
        base.walk = _with_excursions(sol, spec.walls, rng, count=count, max_len=max(4, len(sol)))
        return base
    if defect == "loop":
        straight = [(sol[i], sol[i - 1][1] == sol[i + 1][1]) for i in range(2, len(sol) - 2)
                    if sol[i][0] % 2 and sol[i][1] % 2
                    and (sol[i - 1][0] == sol[i + 1][0] or sol[i - 1][1] == sol[i + 1][1])]
        if not straight:
            return None
        base.loops_at = [straight[int(rng.integers(len(straight)))]]
        return base
    if defect in ("walls_minor", "walls_major"):
        walls = _edit_walls(spec, rng, major=defect == "walls_major")
        if walls is None:
            return None
        base.walls = walls
        return base
    if defect == "goal_moved":
        goal = _moved_goal(spec, rng)
        if goal is None:
            return None
        base.goal = goal
        base.walk = list(shortest_path(spec.walls, spec.start, goal))
        return base
    raise ValueError(f"unknown defect {defect!r}")


def _label_is_clear(labels: dict[str, Any], cfg: MazeConfig) -> bool:
    """Keep corpus labels away from thresholds, where a label itself is a coin toss."""
    ratio, ta, iou = labels["length_ratio"], labels["target_achievement_score"], labels["layout_iou"]
    far_ratio = not (cfg.reflection_length_ratio - 0.1 < ratio < cfg.reflection_length_ratio + 0.1)
    far_ta = not (0.9 < ta < 0.99)
    far_iou = not (0.74 < iou < 0.86)
    return far_ratio and far_ta and far_iou


# -- styles -------------------------------------------------------------------------------

def _rgb(values: np.ndarray) -> tuple[int, int, int]:
    return (int(values[0]), int(values[1]), int(values[2]))


def _shift(rgb: tuple[int, int, int], rng: np.random.Generator, amount: int) -> tuple[int, int, int]:
    return tuple(int(np.clip(v + rng.integers(-amount, amount + 1), 0, 255)) for v in rgb)  # type: ignore[return-value]


def random_style(spec: MazeSpec, rng: np.random.Generator, *, defect: str) -> AnswerStyle:
    """A random rendering family: size, padding, palette drift, line style, blur, JPEG."""
    lattice = max(spec.walls.shape)
    polyline = defect == "loop" or rng.random() < 0.5
    palette = dict(MMGR_PALETTE)
    if rng.random() < 0.6:
        palette = {
            "wall": _rgb(rng.integers(0, 50, 3)),
            "floor": _rgb(rng.integers(225, 256, 3)),
            "start": _shift((30, 200, 60), rng, 30),
            "goal": _shift((220, 30, 30), rng, 30),
            "path": _shift((20, 40, 230), rng, 25),
        }
    min_px = 14 if defect == "loop" else 6
    out_side = int(rng.integers(max(256, min_px * lattice), 1025))
    aspect = 1.0 + rng.uniform(-0.03, 0.03)
    pad = tuple(float(v) for v in (rng.uniform(0, 0.12, 4) if rng.random() < 0.6 else np.zeros(4)))
    roll = rng.random()
    if roll < 0.1:  # maze drawn on a dark canvas
        bg = tuple(int(v) for v in rng.integers(0, 40, 3))
        pad = tuple(float(v) for v in rng.uniform(0.03, 0.12, 4))
    else:
        bg = palette["floor"] if roll < 0.55 else tuple(int(v) for v in rng.integers(200, 256, 3))
    blur = float(rng.uniform(0.4, 1.3)) if rng.random() < 0.4 else 0.0
    jpeg = int(rng.integers(40, 91)) if rng.random() < 0.4 else None
    interp_flag = (cv2.INTER_AREA, cv2.INTER_LINEAR, cv2.INTER_CUBIC, cv2.INTER_NEAREST)[int(rng.integers(4))]
    return AnswerStyle(
        path_style="polyline" if polyline else "cells",
        cell_px=max(16, int(np.ceil(out_side / lattice)) + 4),
        line_width=float(rng.uniform(0.22, 0.3) if defect == "loop" else rng.uniform(0.25, 0.6)),
        jitter=float(rng.uniform(0, 0.1)) if polyline else 0.0,
        marker_inset=float(rng.choice([0.0, 0.0, 0.1])),
        palette=palette, background=bg, padding=pad,  # type: ignore[arg-type]
        out_size=(out_side, int(round(out_side * aspect))),
        interpolation=interp_flag, blur_sigma=blur, jpeg_quality=jpeg,
        rotation_deg=float(rng.uniform(-1.0, 1.0)) if rng.random() < 0.3 else 0.0,
        noise_sigma=float(rng.uniform(2, 8)) if rng.random() < 0.3 else 0.0,
        marker_shape="circle" if rng.random() < 0.25 else "square",
    )


def make_case(seed: int, *, defect: str | None = None, size: int | None = None,
              config: MazeConfig | None = None) -> MazeCase:
    """One labelled case, fully determined by ``seed`` (and the optional overrides)."""
    cfg = config or MazeConfig()
    rng = np.random.default_rng(seed)
    chosen = defect or DEFECTS[int(rng.integers(len(DEFECTS)))]
    for _ in range(50):
        n = size or int(rng.integers(3, 14))
        spec = make_maze(n, rng=rng, algorithm=str(rng.choice(["dfs", "wilson"])),
                         endpoints=str(rng.choice(["corner", "random"])))
        if len(spec.solution) < 5:
            continue
        drawn = build_defect(spec, chosen, rng)
        if drawn is None:
            continue
        labels = label_answer(spec, drawn, cfg)
        if not _label_is_clear(labels, cfg):
            continue
        style = random_style(spec, rng, defect=chosen)
        answer = render_answer(drawn.walls, start=drawn.start, goal=drawn.goal, path=drawn.walk,
                               style=style, rng=rng, loops_at=drawn.loops_at)
        ref_px = int(rng.integers(4, 25))
        reference = render_solution(spec, cell_px=ref_px)
        return MazeCase(id=f"maze-{seed}-{chosen}", spec=spec, reference=reference, answer=answer,
                        defect=chosen, labels=labels, style=style.to_dict() | {"size": spec.shape[0]})
    raise RuntimeError(f"could not build a {chosen!r} case from seed {seed}")


def make_corpus(seed: int, count: int) -> list[MazeCase]:
    """``count`` cases cycling through every defect family, seeds derived from ``seed``."""
    return [make_case(seed * 100_003 + i, defect=DEFECTS[i % len(DEFECTS)]) for i in range(count)]
