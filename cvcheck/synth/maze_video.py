"""Labelled model-like maze *videos*: an agent moving through a maze, with every failure MMGR cares about.

Behaviours (labels are computed from the plan the video is drawn from, never from pixels):

``valid``        smooth solve, stops on the goal
``teleport``     jumps across a wall between two consecutive frames (then finishes)
``wall_pass``    walks through a wall over several frames (then finishes)
``stop_short``   stops one to three cells before the goal
``reach_leave``  reaches the goal, then leaves it and stops elsewhere
``walls_fade``   the walls fade to light grey for a while (maze changed)
``walls_morph``  the walls are rebuilt part-way (maze changed)
``walls_minor``  one to three wall cells flip (IoU stays > 0.8: maze *not* changed)
``goal_moves``   the goal marker jumps to another cell (maze changed)
``vanish``       the agent disappears for 3-8 frames, then reappears further on
``backtrack``    explores a dead end, comes back, finishes (action reflection)
``distractor``   a second agent-coloured square appears far away while the agent is hidden

Looks: the MMGR lattice style or a MazePlot-like thin-line style (blue star agent,
red flag goal replaced by a gold disc on arrival), 480p-720p, 12-30 fps, H.264 at
several qualities, blur, 1-2 px jitter, recoloured or drifting agent colours, the
goal drawn over the agent (occlusion).
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from ..errors import InputError
from ..maze.lattice import Cell, MazeSpec
from ..maze.video_metrics import WallGeometry
from .maze_cases import _edit_walls, _with_excursions, path_truth
from .maze_gen import make_maze
from .maze_render import render_solution
from .maze_video_look import MMGR_AGENTS, PLOT_AGENTS, SIZES, VideoLook, VideoPlan
from .maze_video_render import render_frames, write_mp4

BEHAVIOURS = ("valid", "teleport", "wall_pass", "stop_short", "reach_leave", "walls_fade", "walls_morph",
              "walls_minor", "goal_moves", "vanish", "backtrack", "distractor")
@dataclass
class MazeVideoCase:
    """A labelled synthetic answer video (frames rendered on demand, streamed)."""

    id: str
    spec: MazeSpec
    reference: np.ndarray
    behaviour: str
    look: VideoLook
    plan: VideoPlan
    labels: dict[str, Any] = field(default_factory=dict)

    @property
    def n_frames(self) -> int:
        return len(self.plan.positions)

    def frames(self) -> Iterator[np.ndarray]:
        """Render the frames one at a time (RGB uint8)."""
        return render_frames(self.spec, self.plan, self.look, seed=zlib.crc32(self.id.encode()))

    def write(self, path: str | os.PathLike) -> Path:
        """Encode the video as H.264 mp4."""
        return write_mp4(self.frames(), path, fps=self.look.fps, crf=self.look.crf)

    def describe(self) -> dict[str, Any]:
        look = asdict(self.look)
        return {"id": self.id, "behaviour": self.behaviour, "look": look, "labels": self.labels,
                "frames": self.n_frames, "maze": self.spec.shape}


# -- planning --------------------------------------------------------------------------------

class _Mover:
    """Accumulates per-frame positions (lattice coordinates) and the cell walk."""

    def __init__(self, start: Cell) -> None:
        self.pos: list[np.ndarray] = [np.array(start, float) + 0.5]
        self.walk: list[Cell] = [start]
        self.teleports = 0

    def hold(self, n: int) -> None:
        self.pos.extend([self.pos[-1].copy() for _ in range(max(0, n))])

    def go(self, cells: list[Cell], speed: float) -> None:
        """Move at ``speed`` lattice cells per frame through ``cells`` (from the current cell)."""
        pts = np.array([self.pos[-1]] + [np.array(c, float) + 0.5 for c in cells])
        seg = np.linalg.norm(np.diff(pts, axis=0), axis=1)
        cum = np.concatenate([[0.0], np.cumsum(seg)])
        if cum[-1] == 0:
            return
        n = max(1, int(np.ceil(cum[-1] / speed)))
        for s in np.linspace(0, cum[-1], n + 1)[1:]:
            i = min(int(np.searchsorted(cum, s, side="right")) - 1, len(seg) - 1)
            t = (s - cum[i]) / seg[i] if seg[i] else 0.0
            self.pos.append(pts[i] + t * (pts[i + 1] - pts[i]))
        self.walk.extend(cells)

    def jump(self, cell: Cell, via: list[Cell]) -> None:
        """Appear at ``cell`` in the next frame, having crossed ``via`` (wall cells)."""
        self.pos.append(np.array(cell, float) + 0.5)
        self.walk.extend(via + [cell])
        self.teleports += 1


def _across_wall(spec: MazeSpec, rng: np.random.Generator, *, forward: bool) -> tuple[int, Cell, Cell] | None:
    """(solution index i, wall cell, cell q) with q two lattice steps from sol[i] across a wall.

    ``forward``: q is on the solution further on (a shortcut); else q is off the solution.
    """
    sol = list(spec.solution)
    index = {p: i for i, p in enumerate(sol)}
    h, w = spec.walls.shape
    options = []
    for i, p in enumerate(sol[:-1]):
        if not (p[0] % 2 and p[1] % 2) or i == 0:
            continue
        for dr, dc in ((-2, 0), (2, 0), (0, -2), (0, 2)):
            q, wall = (p[0] + dr, p[1] + dc), (p[0] + dr // 2, p[1] + dc // 2)
            if not (0 < q[0] < h and 0 < q[1] < w) or not spec.walls[wall]:
                continue
            shortcut = forward and q in index and index[q] - i >= 4 and q != spec.goal
            if shortcut or (not forward and q not in index):
                options.append((i, wall, q))
    if not options:
        return None
    return options[int(rng.integers(len(options)))]


def _plan(spec: MazeSpec, behaviour: str, look: VideoLook, rng: np.random.Generator,
          walk_seconds: float | None = None) -> VideoPlan | None:
    sol = list(spec.solution)
    walk_seconds = walk_seconds or float(rng.uniform(1.6, 3.2))
    speed = float(np.clip(len(sol) / (look.fps * walk_seconds), 0.02, 1.2))
    settle = int(rng.integers(10, 18))
    m = _Mover(spec.start)
    m.hold(int(rng.integers(2, 7)))
    stops = True
    if behaviour == "teleport":
        opt = _across_wall(spec, rng, forward=True)
        if opt is not None:
            i, wall, q = opt
            m.go(sol[1:i + 1], speed)
            m.jump(q, [wall])
            m.go(sol[sol.index(q) + 1:], speed)
        else:
            opt = _across_wall(spec, rng, forward=False)
            if opt is None:
                return None
            i, wall, q = opt
            m.go(sol[1:i + 1], speed)
            m.jump(q, [wall])
            m.hold(3)
            m.jump(sol[i], [wall])
            m.go(sol[i + 1:], speed)
    elif behaviour == "wall_pass":
        opt = _across_wall(spec, rng, forward=True) or _across_wall(spec, rng, forward=False)
        if opt is None:
            return None
        i, wall, q = opt
        m.go(sol[1:i + 1], speed)
        slow = min(speed, float(rng.uniform(0.12, 0.25)))
        m.go([wall, q], slow)
        if q in sol:
            m.go(sol[sol.index(q) + 1:], speed)
        else:
            m.go([wall, sol[i]], slow)
            m.go(sol[i + 1:], speed)
    elif behaviour == "stop_short":
        cut = len(sol) - 1 - 2 * int(rng.integers(1, 4))
        if cut < 1:
            return None
        m.go(sol[1:cut + 1], speed)
        stops = False
    elif behaviour == "reach_leave":
        m.go(sol[1:], speed)
        m.hold(int(rng.integers(3, 8)))
        back = 2 * int(rng.integers(1, 3))
        if back >= len(sol):
            return None
        m.go(sol[-2:-2 - back:-1], speed)
        stops = False
    elif behaviour == "backtrack":
        walk = _with_excursions(sol, spec.walls, rng, count=1, max_len=6)
        if len(walk) == len(sol):
            return None
        m.go(walk[1:], speed)
    else:
        m.go(sol[1:], speed)
    m.hold(settle)
    positions = np.array(m.pos)
    if look.smooth > 1 and behaviour not in ("teleport", "wall_pass"):
        # Round the corners, but never so much that the agent's centre clips a wall core
        # (the labels say "no crossing"; the drawing must agree).
        # (lattice style: the agent square may not reach into a wall's eroded core either).
        core = WallGeometry(spec, erosion=0.3)
        px = 8
        free = cv2.distanceTransform((~np.repeat(np.repeat(spec.walls, px, 0), px, 1)).astype(np.uint8),
                                     cv2.DIST_L2, 3) / px
        margin = 0.0 if look.style == "mazeplot" else max(0.0, 0.5 * look.agent_scale - 0.3)
        for w in range(int(look.smooth), 1, -1):
            padded = np.pad(positions, ((w // 2, w - 1 - w // 2), (0, 0)), mode="edge")
            kernel = np.ones(w) / w
            smooth = np.stack([np.convolve(padded[:, i], kernel, mode="valid") for i in range(2)], axis=1)
            dense = np.concatenate([smooth[:-1] + f * np.diff(smooth, axis=0) for f in np.linspace(0, 1, 8)])
            idx = np.clip(np.floor(dense * px).astype(int), 0, np.array(free.shape) - 1)
            clear = free[idx[:, 0], idx[:, 1]] >= margin
            if not core.in_core(dense).any() and clear.all():
                positions = smooth
                break
    t_total = len(positions)
    walls = [spec.walls]
    wall_state = np.zeros(t_total, int)
    fade = np.zeros(t_total, float)
    goal = [spec.goal] * t_total
    distractor: list[Cell | None] = [None] * t_total
    a = int(rng.integers(t_total // 4, t_total // 2))
    if behaviour == "walls_fade":
        ramp = np.clip((np.arange(t_total) - a) / 6.0, 0, 1) * np.clip((a + 24 - np.arange(t_total)) / 6.0, 0, 1)
        fade = ramp * float(rng.uniform(170, 215))
    elif behaviour in ("walls_morph", "walls_minor"):
        edited = _edit_walls(spec, rng, major=behaviour == "walls_morph")
        if edited is None:
            return None
        walls.append(edited)
        wall_state[a:] = 1
    elif behaviour == "goal_moves":
        arrive = _first_arrival(positions, spec.goal)
        options = [(r, c) for r in range(1, spec.walls.shape[0], 2) for c in range(1, spec.walls.shape[1], 2)
                   if abs(r - spec.goal[0]) + abs(c - spec.goal[1]) >= 4 and (r, c) not in spec.solution]
        if not options or arrive < 12:
            return None
        new_goal = options[int(rng.integers(len(options)))]
        a = int(rng.integers(2, arrive - 8))
        goal = [spec.goal] * a + [new_goal] * (t_total - a)
    elif behaviour in ("vanish", "distractor"):
        moving = [t for t in range(1, t_total - settle) if np.linalg.norm(positions[t] - positions[t - 1]) > 0]
        if len(moving) < 12:
            return None
        gap = int(rng.integers(3, 9))
        t0 = moving[int(rng.integers(len(moving) // 4, len(moving) - gap - 2))]
        positions = positions.copy()
        positions[t0:t0 + gap] = np.nan
        if behaviour == "distractor":
            far = _far_cell(spec, positions, rng)
            if far is None:
                return None
            for t in range(max(0, t0 - 4), min(t_total, t0 + gap + 6)):
                distractor[t] = far
    return VideoPlan(positions=positions, walk=m.walk, walls=walls, wall_state=wall_state, fade=fade,
                     goal=goal, distractor=distractor, teleports=m.teleports, stops_on_goal=stops)


def _first_arrival(positions: np.ndarray, goal: Cell) -> int:
    d = np.abs(positions - (np.array(goal) + 0.5)).max(axis=1)
    hits = np.flatnonzero(d < 0.5)
    return int(hits[0]) if hits.size else len(positions)


def _far_cell(spec: MazeSpec, positions: np.ndarray, rng: np.random.Generator) -> Cell | None:
    seen = positions[~np.isnan(positions[:, 0])]
    cells = [(r, c) for r in range(1, spec.walls.shape[0], 2) for c in range(1, spec.walls.shape[1], 2)]
    far = [p for p in cells if np.abs(seen - (np.array(p) + 0.5)).sum(axis=1).min() >= 6]
    return far[int(rng.integers(len(far)))] if far else None


# -- labels ----------------------------------------------------------------------------------

def label_plan(spec: MazeSpec, plan: VideoPlan, behaviour: str, *, style: str,
               length_ratio_max: float = 1.3, ta_min: float = 0.95, iou_min: float = 0.8) -> dict[str, Any]:
    """Ground truth from the plan, with the verifier's metric definitions."""
    ref = spec.walls
    ious = []
    for w in plan.walls:
        if style == "mazeplot":  # IoU over wall slots (posts are not drawn features)
            slots = np.zeros_like(ref)
            slots[1::2, 0::2] = slots[0::2, 1::2] = True
            a, b = ref & slots, w & slots
        else:
            a, b = ref, w
        ious.append(float((a & b).sum() / max(1, (a | b).sum())))
    min_iou = min(ious[s] for s in set(plan.wall_state.tolist()))
    faded = bool((plan.fade > 100).any())
    goal_moved = any(g != spec.goal for g in plan.goal)
    maze_changed = min_iou <= iou_min or faded or goal_moved
    crossed, ta, connected, ratio = path_truth(spec, list(plan.walk))
    maze_cells = [p for p in plan.walk if p[0] % 2 and p[1] % 2]
    compressed = [p for i, p in enumerate(maze_cells) if i == 0 or p != maze_cells[i - 1]]
    backtracks = len(compressed) - len(set(compressed))
    target = ta > ta_min and connected and plan.stops_on_goal
    reflection = ratio > length_ratio_max
    return {
        "maze_changed": int(maze_changed), "cross_wall": int(bool(crossed)),
        "target_achievement": int(target), "reflection": int(reflection),
        "action_reflection": int(backtracks > 0),
        "overall": int(not maze_changed and not crossed and target and not reflection),
        "teleports": plan.teleports, "crossed_walls": [list(p) for p in crossed],
        "min_layout_iou": round(min_iou, 4), "target_achievement_score": round(ta, 4),
        "length_ratio": round(ratio, 4), "stops_on_goal": int(plan.stops_on_goal),
    }


# -- cases -----------------------------------------------------------------------------------

def random_look(rng: np.random.Generator, *, style: str | None = None, small: bool = True,
                trails: bool = False) -> VideoLook:
    """A random rendering/degradation: mostly 480p, sometimes up to 720p. ``trails`` adds
    agents that draw a trail behind them (an extra, harder family: see the README)."""
    style = style or ("mazeplot" if rng.random() < 0.3 else "mmgr")
    sizes = SIZES[:3] if small else SIZES
    size = sizes[int(rng.integers(len(sizes)))]
    look = VideoLook(style=style, size=size, fps=int(rng.choice([12, 15, 24, 24, 25, 30])),
                     maze_fraction=float(rng.uniform(0.78, 0.95)),
                     background=int(rng.choice([255, 255, 245, 230])))
    if style == "mazeplot":
        look = replace(look, agent_rgb=PLOT_AGENTS[int(rng.integers(len(PLOT_AGENTS)))],
                       line_px=int(rng.integers(1, 3)), agent_scale=float(rng.uniform(0.55, 0.75)))
    families = ["clean", "compressed", "blurred", "jitter", "recolour", "drift", "occlusion", "leave_start",
                "smooth", "combo", "zoom"] + (["trail", "trail"] if trails else [])
    degradation = str(rng.choice(families))
    if degradation == "compressed":
        look = replace(look, crf=int(rng.integers(32, 40)))
    elif degradation == "blurred":
        look = replace(look, blur_sigma=float(rng.uniform(0.8, 2.0)))
    elif degradation == "jitter":
        look = replace(look, jitter_px=int(rng.integers(1, 3)))
    elif degradation == "recolour" and style == "mmgr":
        look = replace(look, agent_rgb=MMGR_AGENTS[int(rng.integers(1, len(MMGR_AGENTS)))])
    elif degradation == "drift":
        look = replace(look, agent_drift=float(rng.uniform(-12, 12)))
    elif degradation == "occlusion" and style == "mmgr":
        look = replace(look, goal_on_top=True, goal_scale=float(rng.choice([0.6, 1.0])))
    elif degradation == "trail":
        look = replace(look, trail=float(rng.uniform(0.3, 0.6)))
    elif degradation == "leave_start":
        look = replace(look, leave_start=True)
    elif degradation == "smooth":
        look = replace(look, smooth=int(rng.integers(3, 8)))
    elif degradation == "zoom":
        look = replace(look, zoom=float(rng.uniform(0.02, 0.06)))
    elif degradation == "combo":
        look = replace(look, crf=int(rng.integers(30, 36)), blur_sigma=float(rng.uniform(0.6, 1.2)),
                       jitter_px=int(rng.integers(1, 3)), agent_drift=float(rng.uniform(-8, 8)))
    if style == "mmgr":
        look = replace(look, agent_scale=float(rng.uniform(0.75, 1.0)))
    return look


def make_video_case(seed: int, *, behaviour: str | None = None, look: VideoLook | None = None,
                    size: int | None = None, small: bool = True, trails: bool = False,
                    walk_seconds: float | None = None) -> MazeVideoCase:
    """One labelled video case, deterministic in ``seed`` (retries internally when a
    behaviour does not fit the drawn maze). ``walk_seconds`` sets how long the agent
    walks (default 1.6-3.2 s; its speed is capped at 1.2 lattice cells per frame)."""
    if behaviour is not None and behaviour not in BEHAVIOURS:
        raise InputError(f"unknown behaviour {behaviour!r}; choose from {BEHAVIOURS}")
    for attempt in range(50):
        rng = np.random.default_rng([seed, attempt])
        beh = behaviour or BEHAVIOURS[int(rng.integers(len(BEHAVIOURS)))]
        n = size or int(rng.integers(3, 10))
        spec = make_maze(n, rng=rng, algorithm=str(rng.choice(["dfs", "wilson"])),
                         endpoints=str(rng.choice(["corner", "random"])))
        if len(spec.solution) < 5:
            continue
        lk = look or random_look(rng, small=small, trails=trails)
        plan = _plan(spec, beh, lk, rng, walk_seconds)
        if plan is None:
            continue
        labels = label_plan(spec, plan, beh, style=lk.style)
        return MazeVideoCase(id=f"mv{seed}-{beh}", spec=spec, reference=render_solution(spec, cell_px=16),
                             behaviour=beh, look=lk, plan=plan, labels=labels)
    raise InputError(f"could not build a {behaviour or 'random'} case from seed {seed}")


def make_video_corpus(seed: int, count: int, *, small: bool = True) -> Iterator[MazeVideoCase]:
    """``count`` cases cycling through every behaviour, deterministic in ``seed``."""
    for i in range(count):
        yield make_video_case(seed * 100_003 + i, behaviour=BEHAVIOURS[i % len(BEHAVIOURS)], small=small)
