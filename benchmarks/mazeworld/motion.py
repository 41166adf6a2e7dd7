"""Time-parameterised agent motion: per-frame planned centres in maze-cell coordinates.

``glide`` videos move along corridor centrelines at a per-case speed (cells per frame) with
sub-cell interpolation, pass walls slowly (visibly inside them), jump between two frames on a
teleport and may ease into their final cell; ``strip`` videos (1-2 fps) move one cell per frame.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from .mazes import Cell
from .plans import Plan, PlanError

FRAME_OPTIONS: tuple[int, ...] = (49, 65, 81, 97, 121, 145, 193)
#: How often each frame count is aimed at (Wan/MiniVeo3-like 81 most, Veo-3-like 193 least).
FRAME_WEIGHTS: tuple[float, ...] = (0.12, 0.2, 0.25, 0.15, 0.13, 0.08, 0.07)
STRIP_FRAMES: tuple[int, int] = (8, 20)


@dataclass(frozen=True, eq=False)
class Timeline:
    """Planned agent centre per frame (``(row, col)``, NaN where hidden) and visibility."""

    positions: np.ndarray
    visible: np.ndarray
    mode: str
    speed: float

    @property
    def n_frames(self) -> int:
        return int(len(self.positions))

    def cell(self, frame: int) -> Cell | None:
        if not self.visible[frame]:
            return None
        r, c = self.positions[frame]
        return int(math.floor(r + 0.5)), int(math.floor(c + 0.5))

    def visible_frames(self) -> list[int]:
        return [int(f) for f in np.flatnonzero(self.visible)]

    def arrival_frame(self, goal: Cell) -> int | None:
        """First frame showing the agent in the goal cell."""
        return next((f for f in self.visible_frames() if self.cell(f) == tuple(goal)), None)

    def final_entry_frame(self, goal: Cell) -> int | None:
        """First frame from which every visible frame shows the agent in the goal cell."""
        frames = self.visible_frames()
        entry = None
        for f in reversed(frames):
            if self.cell(f) != tuple(goal):
                break
            entry = f
        return entry


@dataclass(frozen=True)
class _Segment:
    t0: float
    t1: float
    p0: tuple[float, float]
    p1: tuple[float, float]
    kind: str  # lin | ease | step

    def at(self, t: float) -> tuple[float, float]:
        if self.kind == "step":
            return self.p0 if t < self.t1 else self.p1
        u = min(1.0, max(0.0, (t - self.t0) / (self.t1 - self.t0)))
        if self.kind == "ease":
            u = 1.0 - (1.0 - u) ** 2.5
        return (self.p0[0] + (self.p1[0] - self.p0[0]) * u, self.p0[1] + (self.p1[1] - self.p0[1]) * u)


def _segments(plan: Plan, speed: float, start_hold: float, glide_in: bool) -> tuple[list[_Segment], float]:
    segs: list[_Segment] = []
    t = start_hold
    last = len(plan.moves) - 1
    for i, (a, b, kind) in enumerate(zip(plan.path, plan.path[1:], plan.moves)):
        if kind == "jump":
            segs.append(_Segment(t, t + 1.0, a, b, "step"))
            t += 1.0
        else:
            if kind == "wall":
                dur = max(3.0 / speed, 8.0)
            elif i == last and glide_in:
                dur = 2.2 / speed
            else:
                dur = 1.0 / speed
            segs.append(_Segment(t, t + dur, a, b, "ease" if (i == last and glide_in and kind == "walk") else "lin"))
            t += dur
        t += plan.pauses.get(i + 1, 0.0)
    return segs, t


def _evaluate(segs: Sequence[_Segment], start: Cell, n_frames: int) -> np.ndarray:
    """Position at each integer frame: the latest segment begun by then (clamped at its end)."""
    starts = [s.t0 for s in segs]
    out = np.empty((n_frames, 2))
    for f in range(n_frames):
        k = bisect.bisect_right(starts, f) - 1
        out[f] = segs[k].at(f) if k >= 0 else (float(start[0]), float(start[1]))
    return out


def glide_timeline(plan: Plan, rng: np.random.Generator, *, hide_first: bool, icon_frames: int,
                   glide_in: bool, speed_range: tuple[float, float] = (0.08, 0.5),
                   frame_options: Sequence[int] = FRAME_OPTIONS,
                   frame_weights: Sequence[float] | None = FRAME_WEIGHTS) -> Timeline:
    """Glide motion: a frame count is drawn and the per-case speed (cells per frame, within
    ``speed_range``) fills 55-85 % of it with motion; the video then has the smallest of
    ``frame_options`` that holds the motion and the final hold."""
    lo, hi = speed_range
    start_hold = float(rng.integers(2, 9)) + float(rng.uniform(0.1, 0.4))  # off-integer: no frame on a cell edge
    end_hold = icon_frames + int(rng.integers(5, 12))
    p = None if frame_weights is None or len(frame_weights) != len(frame_options) else np.asarray(frame_weights)
    target = frame_options[int(rng.choice(len(frame_options), p=None if p is None else p / p.sum()))]
    units = sum(3.0 if m == "wall" else 1.0 for m in plan.moves if m != "jump")
    units += 1.2 if glide_in and plan.moves and plan.moves[-1] == "walk" else 0.0
    fixed = sum(m == "jump" for m in plan.moves) + sum(plan.pauses.values())
    room = float(rng.uniform(0.55, 0.85)) * target - start_hold - end_hold - fixed
    speed = float(np.clip(units / room, lo, hi)) if room > 0 else hi
    segs, t_end = _segments(plan, speed, start_hold, glide_in)
    need = math.ceil(t_end) + end_hold
    options = [n for n in frame_options if n >= need]
    if not options:
        raise PlanError(f"path too long for a glide video ({need} frames needed)")
    n_frames = options[0]
    positions = _evaluate(segs, plan.path[0], n_frames)
    visible = np.ones(n_frames, dtype=bool)
    if hide_first:
        visible[0] = False
    if icon_frames:
        visible[n_frames - icon_frames:] = False
    positions[~visible] = np.nan
    return Timeline(positions, visible, "glide", speed)


def strip_timeline(plan: Plan, rng: np.random.Generator, *, hide_first: bool, icon_frames: int) -> Timeline:
    """A 1-2 fps strip: one cell per frame, 8-20 frames."""
    cells: list[Cell] = [plan.path[0]] * (2 if hide_first else 1)
    for i, cell in enumerate(plan.path[1:], start=1):
        cells.append(cell)
        cells.extend([cell] * int(round(plan.pauses.get(i, 0.0) / 3)))
    cells.extend([plan.path[-1]] * (1 + icon_frames))
    lo, hi = STRIP_FRAMES
    while len(cells) < lo:
        cells.insert(0, plan.path[0]) if rng.uniform() < 0.4 else cells.append(plan.path[-1])
    if len(cells) > hi:
        raise PlanError(f"{len(cells)} frames is too long for a strip")
    positions = np.array(cells, dtype=float)
    visible = np.ones(len(cells), dtype=bool)
    if hide_first:
        visible[0] = False
    if icon_frames:
        visible[len(cells) - icon_frames:] = False
    positions[~visible] = np.nan
    return Timeline(positions, visible, "strip", 1.0)
