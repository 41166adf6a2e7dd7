"""Wall crossings, accumulated path and goal settling of a tracked agent (lattice geometry).

Wall crossing, precisely (``maze.video_wall_erosion`` = e, default 0.3 lattice cells):

* the *wall core* is the reference wall lattice eroded by e on every side that
  borders a corridor (the stronger erosion MMGR uses for videos);
* a frame is a **contact frame** when the agent's centre lies in a wall core or more
  than ``maze.video_contact_overlap`` of its pixels do (lattice style);
* a **traversal** is a move between two consecutive *free* positions (centre outside
  every core) whose straight segment - or whose in-between contact positions - runs
  through a wall core, when the two cells are not joined by a corridor route of
  at most ``max(manhattan distance, 1.5 x typical speed x frames elapsed + 1)`` lattice
  steps (so a fast but legal turn around a corner is no crossing, while a jump over
  a wall between two frames - a *teleport* - or a walk through it always is);
* ``cross_wall_ratio`` = contact frames / frames where the agent was tracked.

``cross_wall`` is 1 iff there is at least one traversal or the ratio exceeds
``maze.video_cross_wall_ratio`` (MMGR: 5 %). The ratio tolerates brief brushes with a
wall (anti-aliasing, blur, tracking noise); a traversal is never tolerated, since a
jump between frames shows in no frame at all.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import cv2
import numpy as np

from .lattice import Cell, MazeSpec
from .metrics import _disk, upscale_cells
from .track import Track

Q = 8                  #: core grid resolution (pixels per lattice cell)
SAMPLE_STEP = 0.05     #: lattice cells between samples along a segment
IN_GOAL = 1.0          #: Chebyshev distance (lattice cells) from the goal cell's centre to its walls: inside
LEFT_GOAL = 1.15       #: ... and beyond which the agent has clearly left it (position noise at the wall)
NEAR_GOAL = 1.25       #: ... and within which it is entering the goal (an agent vanishing there is hidden)
LEAVE_STEP = 2.5       #: lattice cells: the longest step out of the goal in one frame that is motion (a cell is 2)


@dataclass(frozen=True)
class Traversal:
    kind: str               #: "teleport" (between two frames) or "walk" (through the wall over frames)
    from_frame: int
    to_frame: int
    from_cell: Cell
    to_cell: Cell
    walls: tuple[Cell, ...]  #: wall lattice cells whose core the move passes
    route: int               #: corridor route length between the two cells (-1: none)
    allowed: float           #: longest route a legal move could have taken


@dataclass
class CrossingReport:
    contact: np.ndarray                     #: (T,) bool per analysed frame
    centre_in_core: np.ndarray              #: (T,) bool
    traversals: list[Traversal] = field(default_factory=list)
    speed: float = 0.0                      #: typical lattice cells per frame while moving
    tracked: int = 0

    @property
    def ratio(self) -> float:
        return float(self.contact.sum() / self.tracked) if self.tracked else 0.0

    def crossed(self, threshold: float) -> bool:
        return bool(self.traversals) or self.ratio > threshold

    @property
    def teleports(self) -> int:
        return sum(t.kind == "teleport" for t in self.traversals)


class WallGeometry:
    """The reference walls as a fine core grid plus corridor routing.

    Lattice walls (as wide as corridors) are eroded by ``erosion`` on every side. Line
    walls (``line_halfwidth`` given, lattice cells) are bands that wide on either side of
    each wall's line, from post to post: the drawn thickness plus a tolerance tied to the
    agent's size, so brushing a line with the agent's edge is no contact while crossing it
    always goes through the band.
    """

    def __init__(self, spec: MazeSpec, *, erosion: float, line_halfwidth: float | None = None) -> None:
        self.spec = spec
        self.walls = spec.walls
        if line_halfwidth is None:
            self.q = Q
            e = max(1, int(round(erosion * Q)))
            self.core = cv2.erode(upscale_cells(spec.walls, Q).astype(np.uint8), _disk(e)).astype(bool)
        else:
            self.q = int(min(48, max(Q, np.ceil(3.0 / line_halfwidth))))
            self.core = _line_bands(spec.walls, self.q, line_halfwidth)
        self._bfs: dict[Cell, np.ndarray] = {}

    def in_core(self, pts: np.ndarray) -> np.ndarray:
        pts = np.atleast_2d(pts)
        idx = np.floor(pts * self.q).astype(int)
        h, w = self.core.shape
        ok = (idx[:, 0] >= 0) & (idx[:, 0] < h) & (idx[:, 1] >= 0) & (idx[:, 1] < w)
        out = np.zeros(len(pts), bool)
        out[ok] = self.core[idx[ok, 0], idx[ok, 1]]
        return out

    def segment_walls(self, p0: np.ndarray, p1: np.ndarray) -> list[Cell]:
        """Wall lattice cells whose core the segment p0 -> p1 passes (in order)."""
        n = max(2, int(np.ceil(np.hypot(*(p1 - p0)) / SAMPLE_STEP)) + 1)
        pts = p0[None, :] + np.linspace(0, 1, n)[:, None] * (p1 - p0)[None, :]
        hit = self.in_core(pts)
        out: list[Cell] = []
        for r, c in np.floor(pts[hit]).astype(int):
            cell = (int(r), int(c))
            if not out or out[-1] != cell:
                out.append(cell)
        return out

    def cell_of(self, p: np.ndarray) -> Cell:
        """The lattice cell a position belongs to: its own cell when open or inside a
        wall core, else the nearest open neighbour (a wall's eroded fringe is corridor)."""
        h, w = self.walls.shape
        i, j = int(np.clip(np.floor(p[0]), 0, h - 1)), int(np.clip(np.floor(p[1]), 0, w - 1))
        if not self.walls[i, j] or self.in_core(p)[0]:
            return (i, j)
        best, best_d = (i, j), np.inf
        for di in (-1, 0, 1):
            for dj in (-1, 0, 1):
                a, b = i + di, j + dj
                if 0 <= a < h and 0 <= b < w and not self.walls[a, b]:
                    d = float(np.hypot(p[0] - (a + 0.5), p[1] - (b + 0.5)))
                    if d < best_d:
                        best, best_d = (a, b), d
        return best

    def distances(self, source: Cell) -> np.ndarray:
        """Corridor (4-connected, open lattice cells) distances from ``source``; -1 = unreachable."""
        if source not in self._bfs:
            h, w = self.walls.shape
            dist = np.full((h, w), -1, int)
            if not self.walls[source]:
                dist[source] = 0
                queue = deque([source])
                while queue:
                    r, c = queue.popleft()
                    for a, b in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
                        if 0 <= a < h and 0 <= b < w and not self.walls[a, b] and dist[a, b] < 0:
                            dist[a, b] = dist[r, c] + 1
                            queue.append((a, b))
            self._bfs[source] = dist
        return self._bfs[source]

    def route(self, a: Cell, b: Cell) -> list[Cell]:
        """A shortest corridor route a -> b (inclusive); [] when none."""
        dist = self.distances(b)
        if dist[a] < 0:
            return []
        path, cur = [a], a
        while cur != b:
            r, c = cur
            cur = min(((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)),
                      key=lambda q: dist[q] if 0 <= q[0] < dist.shape[0] and 0 <= q[1] < dist.shape[1]
                      and dist[q] >= 0 else 10 ** 9)
            path.append(cur)
        return path


def _line_bands(walls: np.ndarray, q: int, half: float) -> np.ndarray:
    """Raster (``q`` px per lattice cell) of bands ``half`` lattice cells either side of each
    wall line of a thin-line maze: boundary segment (2i, 2j+1) runs along lattice row
    2i + 0.5 from column 2j + 0.5 to 2j + 2.5 (vertical ones likewise)."""
    h, w = walls.shape
    core = np.zeros((h * q, w * q), np.uint8)
    hw = half * q
    for r, c in np.argwhere(walls):
        if r % 2 == 0 and c % 2 == 1:      # horizontal segment
            y, x0, x1 = (r + 0.5) * q, (c - 0.5) * q, (c + 1.5) * q
            cv2.rectangle(core, (int(round(x0)), int(round(y - hw))), (int(round(x1)), int(round(y + hw))), 1, -1)
        elif r % 2 == 1 and c % 2 == 0:    # vertical segment
            x, y0, y1 = (c + 0.5) * q, (r - 0.5) * q, (r + 1.5) * q
            cv2.rectangle(core, (int(round(x - hw)), int(round(y0))), (int(round(x + hw)), int(round(y1))), 1, -1)
    return core.astype(bool)


def typical_speed(track: Track) -> float:
    """Median per-frame displacement over consecutive tracked frames where the agent moved."""
    t = track.tracked
    if len(t) < 2:
        return 0.0
    consecutive = np.diff(t) == 1
    steps = np.hypot(*(track.pos[t[1:]] - track.pos[t[:-1]]).T)[consecutive]
    moving = steps[steps > 0.02]
    return float(np.median(moving)) if moving.size else 0.0


def analyse_crossings(track: Track, geo: WallGeometry, *, contact_overlap: float) -> CrossingReport:
    n = len(track.pos)
    tracked = track.tracked
    centre = np.zeros(n, bool)
    if len(tracked):
        centre[tracked] = geo.in_core(track.pos[tracked])
    over = np.nan_to_num(track.overlap, nan=0.0)
    contact = centre | (over > contact_overlap)
    contact[np.isnan(track.pos[:, 0])] = False
    rep = CrossingReport(contact=contact, centre_in_core=centre, speed=typical_speed(track), tracked=len(tracked))
    order = [int(t) for t in tracked]
    free = [i for i, t in enumerate(order) if not centre[t]]
    for ia, ib in zip(free, free[1:]):
        a, b = order[ia], order[ib]
        between = order[ia + 1:ib]
        p0, p1 = track.pos[a], track.pos[b]
        walls = geo.segment_walls(p0, p1)
        inner = bool(between)  # every in-between tracked position is inside a core
        if inner:
            pts = [p0] + [track.pos[t] for t in between] + [p1]
            walls = []
            for q0, q1 in zip(pts, pts[1:]):
                walls += [w for w in geo.segment_walls(q0, q1) if w not in walls]
        if not walls:
            continue
        ca, cb = geo.cell_of(p0), geo.cell_of(p1)
        if ca == cb:
            continue  # brushed a wall and came back: contact frames only
        manhattan = abs(ca[0] - cb[0]) + abs(ca[1] - cb[1])
        # +1: both ends are quantised to lattice cells
        allowed = float(manhattan) if inner else max(float(manhattan), 1.5 * rep.speed * (b - a) + 1)
        dist = geo.distances(cb)
        route = int(dist[ca]) if not geo.walls[ca] else -1
        if route < 0 or route > allowed:
            rep.traversals.append(Traversal(kind="walk" if inner else "teleport", from_frame=a, to_frame=b,
                                            from_cell=ca, to_cell=cb, walls=tuple(walls), route=route,
                                            allowed=round(allowed, 3)))
    return rep


def cell_path(track: Track, geo: WallGeometry, report: CrossingReport) -> list[Cell]:
    """The lattice cells the agent went through, in order (corridor routes fill the gaps
    of legal moves; a traversal contributes the cells on its straight line, walls included)."""
    crossing_steps = {(t.from_frame, t.to_frame) for t in report.traversals}
    seq: list[Cell] = []
    prev_t, prev_cell = None, None
    for t in track.tracked:
        t = int(t)
        cell = geo.cell_of(track.pos[t])
        if prev_cell is None:
            seq.append(cell)
        elif cell != prev_cell:
            adjacent = abs(cell[0] - prev_cell[0]) + abs(cell[1] - prev_cell[1]) == 1
            route = [] if adjacent or (prev_t, t) in crossing_steps else geo.route(prev_cell, cell)
            if adjacent:
                seq.append(cell)
            elif route:
                seq.extend(route[1:])
            else:
                seq.extend(_line_cells(track.pos[prev_t], track.pos[t], prev_cell)[1:] or [cell])
                if seq[-1] != cell:
                    seq.append(cell)
        prev_t, prev_cell = t, cell
    return seq


def _line_cells(p0: np.ndarray, p1: np.ndarray, first: Cell) -> list[Cell]:
    n = max(2, int(np.ceil(np.hypot(*(p1 - p0)) / SAMPLE_STEP)) + 1)
    out = [first]
    for s in np.linspace(0, 1, n):
        r, c = np.floor(p0 + s * (p1 - p0)).astype(int)
        cell = (int(r), int(c))
        if cell != out[-1]:
            out.append(cell)
    return out


def backtracks(cells: list[Cell]) -> int:
    """Re-entries of maze cells already left (exploration / backtracking)."""
    maze = [p for p in cells if p[0] % 2 and p[1] % 2]
    comp = [p for i, p in enumerate(maze) if i == 0 or p != maze[i - 1]]
    return len(comp) - len(set(comp))


@dataclass(frozen=True)
class Settling:
    reached: bool
    stopped: bool
    first_arrival: int | None
    final_occluded: bool


def goal_settling(track: Track, goal: Cell, *, settle_frames: int) -> Settling:
    """Reach and stop, at the cell level.

    *Reached*: the agent enters the goal cell (its centre within the cell, whose walls lie
    one lattice cell from its centre). *Stopped*: it ends there: every sighting in the last
    ``settle_frames`` analysed frames since it first arrived is in the goal cell (leaving
    takes clearly crossing into another cell), and so is the last sighting. Gliding to the cell's centre is
    fine. An agent last seen entering the goal and never again is stopped (the goal marker
    or an arrival icon drawn over it hides it).
    """
    n = len(track.pos)
    centre = np.array(goal, float) + 0.5
    tracked = track.tracked
    if not len(tracked):
        return Settling(False, False, None, False)
    dist = np.abs(track.pos[tracked] - centre).max(axis=1)
    inside = dist < IN_GOAL
    first = int(tracked[np.argmax(inside)]) if inside.any() else None
    if inside.any() and not inside[-1]:
        # Leaving takes moving out: sightings that begin with a jump from the goal no agent
        # makes (an icon or a trail left visible when the agent vanished) are not the agent.
        last_in = int(np.flatnonzero(inside)[-1])
        step = float(np.hypot(*(track.pos[tracked[last_in + 1]] - track.pos[tracked[last_in]])))
        frames = int(tracked[last_in + 1] - tracked[last_in])
        if step > LEAVE_STEP + 2.0 * (frames - 1):
            tracked, dist, inside = tracked[:last_in + 1], dist[:last_in + 1], inside[:last_in + 1]
    # the last settle frames, from the first arrival on (an agent arriving in them has not left)
    window = tracked >= max(n - max(1, settle_frames), first if first is not None else 0)
    stopped = bool(inside[-1]) and not bool((dist[window] > LEFT_GOAL).any())
    occluded = bool(inside[-1]) and int(tracked[-1]) < n - 1
    if not inside[-1] and int(tracked[-1]) < n - 1 and dist[-1] <= NEAR_GOAL:
        occluded = stopped = True
        first = int(tracked[-1]) + 1 if first is None else first
    return Settling(reached=first is not None, stopped=stopped, first_arrival=first, final_occluded=occluded)
