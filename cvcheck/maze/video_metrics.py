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

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from .lattice import Cell, MazeSpec, _flat, _flat_layers, _framed, _unframe
from .metrics import _disk, upscale_cells
from .track import TWIN_RADIUS, Track, gate_radius
from .video_obs import Blob

Q = 8                  #: core grid resolution (pixels per lattice cell)
SAMPLE_STEP = 0.05     #: lattice cells between samples along a segment
IN_GOAL = 1.0          #: Chebyshev distance (lattice cells) from the goal cell's centre to its walls: inside
LEFT_GOAL = 1.15       #: ... and beyond which the agent has clearly left it (position noise at the wall)
NEAR_GOAL = 1.25       #: ... and within which it is entering the goal (an agent vanishing there is hidden)
ON_GOAL = 0.5          #: ... and within which it is on the goal's own lattice cell
LEAVE_STEP = 2.5       #: lattice cells: the longest step out of the goal in one frame that is motion (a cell is 2) ...
LEAVE_STRIDE = 1.5     #: ... or this many of the agent's strides (:func:`_stride`; 1.41: one diagonal), if longer
STRIDE_MIN = 0.25      #: lattice cells: a step between consecutive sightings longer than this is a stride ...
STRIDE_SHARE = 0.25    #: ... and the agent walks in strides when at least this share of its steps (two or more) are
LEAVING_GAP = 3        #: frames between each two of an agent's last sightings that still tell which way it went
LEAVING_STRIDE = 0.5   #: ... the last of them a step of at least this share of the agent's stride, where it walks
STRIP_STRIDE = 1.5     #: ... in strides of at least this many lattice cells (3/4 of a cell: a 1-2 fps strip)
PALE_REACH = 4.0       #: lattice cells: a pale object this near the agent's last sighting may be the agent ...
PALE_STILL = 0.5       #: ... seen standing (this near where it was the frame before) ...
PALE_BEFORE = 2        #: ... and absent the frame the agent was last seen and this many before
LEAVE_MISSING = 2      #: frames missed that widen the gate between two sightings of an agent seen leaving, at most
LEAVE_SIGHTINGS = 2    #: ... sightings it needs, the last one out of the goal cell
LEAVE_BEFORE = 8       #: ... none where another object stood in the frame of the last sighting or this many before
UNSEEN_MISSING = 2     #: frames missing in a row over which the agent's way counts as unseen (unseen_route_share)


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
            walls = upscale_cells(spec.walls, Q)
            if walls.dtype == bool:  # 0/1 bytes, read as such (views, not copies)
                self.core = cv2.erode(walls.view(np.uint8), _disk(e)).view(bool)
            else:
                self.core = cv2.erode(walls.astype(np.uint8), _disk(e)).astype(bool)
        else:
            self.q = int(min(48, max(Q, np.ceil(3.0 / line_halfwidth))))
            self.core = _line_bands(spec.walls, self.q, line_halfwidth)
        self._bfs: dict[Cell, np.ndarray] = {}
        self._flat_bfs: dict[int, list[int]] = {}  # full searches, by flat source
        self._near_bfs: dict[tuple[int, int], list[int]] = {}  # searches stopped at a cell: (source, stop)
        self._open, self._w = _framed(np.logical_not(spec.walls))
        self._on_solution = frozenset(_flat(c, self._w) for c in spec.solution)  # (framed, flat)

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
        return self.segments_walls(np.asarray(p0)[None, :], np.asarray(p1)[None, :])[0]

    def segments_walls(self, p0: np.ndarray, p1: np.ndarray) -> list[list[Cell]]:
        """:meth:`segment_walls` of each segment ``p0[i] -> p1[i]`` ((m, 2) arrays), at once."""
        pts, seg = _sample_segments(p0, p1)
        return _walls_hit(pts, seg, self.in_core(pts), len(p0))

    def cell_of(self, p: np.ndarray) -> Cell:
        """The lattice cell a position belongs to: its own cell when open or inside a
        wall core, else the nearest open neighbour (a wall's eroded fringe is corridor)."""
        return self.cells_of(np.asarray(p)[None, :])[0]

    def cells_of(self, pts: np.ndarray, in_core: np.ndarray | None = None) -> list[Cell]:
        """:meth:`cell_of` of each position of ``pts`` ((n, 2)), at once (ties between
        neighbours: the first in row-major order, as :meth:`cell_of` scans them);
        ``in_core``: :meth:`in_core` of ``pts`` when known."""
        h, w = self.walls.shape
        if np.isnan(pts).any():  # as int() of a NaN coordinate
            raise ValueError("cannot convert float NaN to integer")
        i = np.clip(np.floor(pts[:, 0]), 0, h - 1).astype(int)
        j = np.clip(np.floor(pts[:, 1]), 0, w - 1).astype(int)
        out = list(zip(i.tolist(), j.tolist()))
        fringe = np.flatnonzero(self.walls[i, j] & ~(self.in_core(pts) if in_core is None else in_core))
        if fringe.size:
            a = i[fringe, None] + _NEIGHBOURS[None, :, 0]  # (k, 9): the 3 x 3 block, row-major
            b = j[fringe, None] + _NEIGHBOURS[None, :, 1]
            inside = (a >= 0) & (a < h) & (b >= 0) & (b < w)
            ok = inside.copy()
            ok[inside] = ~self.walls[a[inside], b[inside]]
            d = np.hypot(pts[fringe, 0, None] - (a + 0.5), pts[fringe, 1, None] - (b + 0.5))
            d[~ok] = np.inf
            best = np.argmin(d, axis=1)
            found = np.isfinite(d[np.arange(len(fringe)), best])
            for f, k, hit, r, c in zip(fringe.tolist(), best.tolist(), found.tolist(), a.tolist(), b.tolist()):
                if hit:
                    out[f] = (r[k], c[k])
        return out

    def distances(self, source: Cell) -> np.ndarray:
        """Corridor (4-connected, open lattice cells) distances from ``source``; -1 = unreachable."""
        if source not in self._bfs:
            self._bfs[source] = _unframe(self._flat_distances(source), self.walls.shape)
        return self._bfs[source]

    def _flat_distances(self, source: Cell) -> list[int]:
        """:meth:`distances` on the framed, flattened lattice (see :func:`.lattice._framed`)."""
        s = _flat(source, self._w)
        if s not in self._flat_bfs:
            self._flat_bfs[s] = _flat_layers(self._open, self._w, s)
        return self._flat_bfs[s]

    def _distances_to(self, a: Cell, source: Cell) -> list[int]:
        """Framed, flattened distances from ``source``, exact for ``a`` and every cell nearer
        ``source`` than ``a`` (all a shortest route a -> source needs): the search stops at ``a``."""
        w = self._w
        s = _flat(source, w)
        if s in self._flat_bfs:
            return self._flat_bfs[s]
        key = (s, _flat(a, w))
        if key not in self._near_bfs:
            self._near_bfs[key] = _flat_layers(self._open, w, s, stop=key[1])
        return self._near_bfs[key]

    def _route_length(self, a: Cell, b: Cell) -> int:
        """``distances(b)[a]``: corridor steps b -> a (-1: unreachable)."""
        return self._distances_to(a, b)[_flat(a, self._w)]

    def route(self, a: Cell, b: Cell) -> list[Cell]:
        """A shortest corridor route a -> b (inclusive); [] when none.

        Where a loop makes several as short, the route goes along the maze's solution where
        it can (else the first nearest step in ``_STEPS`` order): the frames between two
        sightings do not show which way round the agent went, and a way as short is no
        detour (mazeworld 78078 v00182 with one frame in two kept: a dot two cells a frame
        round a loop, read going the other way round from the solution the maze file gives,
        target achievement 0.8)."""
        dist, w, on_solution = self._distances_to(a, b), self._w, self._on_solution
        cur, end = _flat(a, w), _flat(b, w)
        if dist[cur] < 0:
            return []
        path = [a]
        while cur != end:
            best, nearest = -1, 10 ** 9
            for v in (cur - w, cur + w, cur - 1, cur + 1):  # (_STEPS order)
                d = dist[v]
                if 0 <= d and (d < nearest or d == nearest and v in on_solution and best not in on_solution):
                    best, nearest = v, d
            cur = best
            path.append((cur // w - 1, cur % w - 1))
        return path


_NEIGHBOURS = np.array([(di, dj) for di in (-1, 0, 1) for dj in (-1, 0, 1)])


def _sample_segments(p0: np.ndarray, p1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sample points of the segments ``p0[i] -> p1[i]`` ((m, 2) arrays) and the segment of each.

    Each segment gets ``n = max(2, ceil(length / SAMPLE_STEP) + 1)`` points at
    ``p0 + s * (p1 - p0)`` for ``s = np.linspace(0, 1, n)`` (``arange(n) * (1 / (n - 1))``, the
    last exactly 1), with the very float operations of sampling each segment on its own."""
    d = p1 - p0
    steps = np.ceil(np.hypot(d[:, 0], d[:, 1]) / SAMPLE_STEP)
    for bad in steps[~np.isfinite(steps)][:1]:
        int(bad)  # NaN or infinite: the ValueError or OverflowError of a scalar count
    n = np.maximum(2, steps.astype(int) + 1)
    seg = np.repeat(np.arange(len(n)), n)
    ends = np.cumsum(n)
    s = (np.arange(ends[-1]) - np.repeat(ends - n, n)) * (1.0 / (n - 1))[seg] if len(n) else np.zeros(0)
    s[ends - 1] = 1.0
    return p0[seg] + s[:, None] * d[seg], seg


def _walls_hit(pts: np.ndarray, seg: np.ndarray, hit: np.ndarray, m: int) -> list[list[Cell]]:
    """Per segment (``seg``: each sample's, of ``m``), the lattice cells of its samples inside a
    core (``hit``), in order, each cell once per run of samples in it."""
    out: list[list[Cell]] = [[] for _ in range(m)]
    at = np.flatnonzero(hit)
    if not at.size:
        return out
    cells = np.floor(pts[at]).astype(int)
    owner = seg[at]
    new = np.ones(len(at), bool)  # a segment's first hit, or a cell change along it
    new[1:] = (owner[1:] != owner[:-1]) | (cells[1:] != cells[:-1]).any(axis=1)
    for i, r, c in zip(owner[new].tolist(), cells[new, 0].tolist(), cells[new, 1].tolist()):
        out[i].append((r, c))
    return out


def _line_bands(walls: np.ndarray, q: int, half: float) -> np.ndarray:
    """Raster (``q`` px per lattice cell) of bands ``half`` lattice cells either side of each
    wall line of a thin-line maze: boundary segment (2i, 2j+1) runs along lattice row
    2i + 0.5 from column 2j + 0.5 to 2j + 2.5 (vertical ones likewise).

    Each run of segments in line (one ending at the column the next starts at) is drawn as
    one rectangle, from the first one's start to the last one's end: the union of theirs."""
    h, w = walls.shape
    core = np.zeros((h * q, w * q), np.uint8)
    hw = half * q
    for vertical in (False, True):
        # segments of a line along axis 1: horizontal ones at (2i, 2j+1), vertical ones (transposed)
        seg = (walls[1::2, 0::2].T if vertical else walls[0::2, 1::2]).astype(bool)
        padded = np.zeros((seg.shape[0], seg.shape[1] + 2), bool)
        padded[:, 1:-1] = seg
        first = np.argwhere(padded[:, 1:-1] & ~padded[:, :-2])  # (line, j) where runs start ...
        last = np.argwhere(padded[:, 1:-1] & ~padded[:, 2:])    # ... and end, paired in order
        line = 2 * first[:, 0]  # the line's lattice row (column when vertical) ...
        c0, c1 = 2 * first[:, 1] + 1, 2 * last[:, 1] + 1  # ... and its first and last segments' column (row)
        mid, lo, hi = (line + 0.5) * q, (c0 - 0.5) * q, (c1 + 1.5) * q
        box = np.rint(np.stack([lo, mid - hw, hi, mid + hw], axis=1)).astype(int).tolist()  # round(): half to even
        for a0, m0, a1, m1 in box:
            if vertical:
                cv2.rectangle(core, (m0, a0), (m1, a1), 1, -1)
            else:
                cv2.rectangle(core, (a0, m0), (a1, m1), 1, -1)
    return core.view(bool)  # 0/1 bytes


def typical_speed(track: Track) -> float:
    """Median per-frame displacement over consecutive tracked frames where the agent moved."""
    t = track.tracked
    return _typical_speed(t, track.pos[t])


def _typical_speed(t: np.ndarray, pos: np.ndarray) -> float:
    """:func:`typical_speed` of tracked frames ``t`` at ``pos``; the median as np.median takes it
    (the middle value, or the mean of the middle two: their sum halved)."""
    if len(t) < 2:
        return 0.0
    steps = _consecutive_steps(t, pos)
    moving = sorted(steps[steps > 0.02].tolist())
    if not moving:
        return 0.0
    mid = len(moving) // 2
    return moving[mid] if len(moving) % 2 else (moving[mid - 1] + moving[mid]) / 2.0


def _consecutive_steps(t: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """The lengths of the steps between sightings ``pos`` in consecutive tracked frames ``t``."""
    return np.hypot(*(pos[1:] - pos[:-1]).T)[np.diff(t) == 1]


def analyse_crossings(track: Track, geo: WallGeometry, *, contact_overlap: float) -> CrossingReport:
    n = len(track.pos)
    tracked = track.tracked
    pos = track.pos[tracked]
    m = len(tracked)
    # one core look-up for the tracked positions and the samples of every move between two of them
    # (move j: tracked[j] -> tracked[j + 1])
    pts, seg = _sample_segments(pos[:-1], pos[1:])
    hit = geo.in_core(np.concatenate([pos, pts]))
    inside = hit[:m]
    centre = np.zeros(n, bool)
    centre[tracked] = inside
    if 0.0 <= contact_overlap <= 1.0:  # NaN (unknown: 0) is not above it, nor is -inf; inf is
        contact = centre | (track.overlap > contact_overlap)
    else:
        contact = centre | (np.nan_to_num(track.overlap, nan=0.0) > contact_overlap)
    contact[np.isnan(track.pos[:, 0])] = False
    rep = CrossingReport(contact=contact, centre_in_core=centre, speed=_typical_speed(tracked, pos), tracked=m)
    order = tracked.tolist()
    free = np.flatnonzero(~inside).tolist()
    if len(free) < 2:
        return rep
    steps = _walls_hit(pts, seg, hit[m:], m - 1)
    cells: list[Cell] = []
    for ia, ib in zip(free, free[1:]):
        a, b = order[ia], order[ib]
        inner = ib - ia > 1  # every in-between tracked position is inside a core
        if inner:
            walls: list[Cell] = []
            for j in range(ia, ib):
                walls += [w for w in steps[j] if w not in walls]
        else:
            walls = steps[ia]
        if not walls:
            continue
        if not cells:
            cells = geo.cells_of(pos, inside)
        ca, cb = cells[ia], cells[ib]
        if ca == cb:
            continue  # brushed a wall and came back: contact frames only
        manhattan = abs(ca[0] - cb[0]) + abs(ca[1] - cb[1])
        # +1: both ends are quantised to lattice cells
        allowed = float(manhattan) if inner else max(float(manhattan), 1.5 * rep.speed * (b - a) + 1)
        route = geo._route_length(ca, cb) if not geo.walls[ca] else -1
        if route < 0 or route > allowed:
            rep.traversals.append(Traversal(kind="walk" if inner else "teleport", from_frame=a, to_frame=b,
                                            from_cell=ca, to_cell=cb, walls=tuple(walls), route=route,
                                            allowed=round(allowed, 3)))
    return rep


def cell_path(track: Track, geo: WallGeometry, report: CrossingReport, *, until: int | None = None) -> list[Cell]:
    """The lattice cells the agent went through, in order (corridor routes fill the gaps
    of legal moves; a traversal contributes the cells on its straight line, walls included),
    up to its sighting in frame ``until`` (None: all; an agent that stopped on the goal is
    followed to where it reached the goal for good, :attr:`Settling.final_entry`: how it
    glides or jitters inside the goal cell after that is no path, even where it crosses into
    the lattice cell of a doorway, half of which lies in the goal cell)."""
    crossing_steps = {(t.from_frame, t.to_frame) for t in report.traversals}
    tracked = track.tracked if until is None else track.tracked[track.tracked <= until]
    if not len(tracked):
        return []
    seq: list[Cell] = []
    prev_t, prev_cell = None, None
    for t, cell in zip(tracked.tolist(), geo.cells_of(track.pos[tracked])):
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


def unseen_route_share(track: Track, geo: WallGeometry, *, until: int | None = None,
                       missing: int = UNSEEN_MISSING) -> float:
    """The share of the agent's way (lattice steps between the cells of consecutive sightings,
    each by its shortest corridor route, else its Manhattan length) that it went while unseen for
    ``missing`` frames or more in a row, up to its sighting in frame ``until`` (None: all); 0
    when it never moved. Frames count for :func:`~.verdict.followed_share` whether the agent walks
    or stands, so an agent seen standing on the start and on the goal, and lost on most of the way
    between, passed that check: a teleport then hides in the gap, as a walk along corridors in
    as many frames (mazeworld 56056 v00213 ghosted then at 240p). Sightings are the agent's own
    (:attr:`~.track.Track.seen`: not a marker it was later seen to have left)."""
    seen = track.seen
    tracked = seen if until is None else seen[seen <= until]
    if len(tracked) < 2:
        return 0.0
    unseen = total = 0
    cells = geo.cells_of(track.pos[tracked])
    for t0, t1, a, b in zip(tracked.tolist(), tracked[1:].tolist(), cells, cells[1:]):
        if a == b:
            continue
        manhattan = abs(a[0] - b[0]) + abs(a[1] - b[1])
        route = geo._route_length(a, b) if manhattan > 1 else -1
        steps = route if route >= 0 else manhattan
        total += steps
        if t1 - t0 - 1 >= missing:
            unseen += steps
    return unseen / total if total else 0.0


def _line_cells(p0: np.ndarray, p1: np.ndarray, first: Cell) -> list[Cell]:
    pts, _ = _sample_segments(p0[None, :], p1[None, :])
    out = [first]
    for cell in map(tuple, np.floor(pts).astype(int).tolist()):
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
    final_entry: int | None = None  #: stopped: the frame it reached the goal for good (see goal_settling)


def _leaving(pos: np.ndarray, frames: np.ndarray, centre: np.ndarray, *, stride: float = 0.0) -> bool:
    """Whether an agent last seen at ``pos[-1]`` was on its way out of the goal cell: its last
    three sightings (each at most LEAVING_GAP frames after the one before) each farther from
    the centre than the one before, and, going on at their mean speed, clearly out of the cell
    (beyond LEFT_GOAL) by the next frame. (Three, not two: a piece of a trail seen as the agent
    vanishes is one step off where it sat.) An agent that walks in strides of about a cell
    (``stride``, see :func:`_stride`; at least STRIP_STRIDE) moves on by one: a last step under
    LEAVING_STRIDE of it is no way out but a piece of what replaced the agent (a 1-fps strip's
    arrival sparkle, blurred and rolled: its arm's tip took the agent's hue half a cell from
    where the agent had stopped, mazeworld 67067 v00190 rolled, blurred and watermarked)."""
    if len(pos) < 3 or not all(0 < gap <= LEAVING_GAP for gap in np.diff(frames).tolist()):
        return False
    if stride >= STRIP_STRIDE and float(np.hypot(*(pos[-1] - pos[-2]))) < LEAVING_STRIDE * stride:
        return False
    dist = np.abs(pos - centre).max(axis=1)
    step = (pos[-1] - pos[0]) / float(frames[-1] - frames[0])
    return bool((np.diff(dist) > 0).all() and np.abs(pos[-1] + step - centre).max() > LEFT_GOAL)


def _stride(t: np.ndarray, pos: np.ndarray) -> float:
    """The agent's stride over tracked frames ``t`` at ``pos``: the median of its steps between
    consecutive sightings longer than STRIDE_MIN, where they are at least STRIDE_SHARE of all
    those steps and two or more (a 1-2 fps strip moves a cell, 2 lattice cells, a frame, and
    holds between); else 0 (a glide, whose few long steps are the tracker's slips)."""
    if len(t) < 2:
        return 0.0
    steps = _consecutive_steps(t, pos)
    long = steps[steps > STRIDE_MIN]
    if len(long) < 2 or len(long) < STRIDE_SHARE * len(steps):
        return 0.0
    return float(np.median(long))


def goal_settling(track: Track, goal: Cell, *, settle_frames: int) -> Settling:
    """Reach and stop, at the cell level.

    *Reached*: the agent enters the goal cell (its centre within the cell, whose walls lie
    one lattice cell from its centre). *Stopped*: it ends there: every sighting in the last
    ``settle_frames`` analysed frames since it first arrived is in the goal cell (leaving
    takes clearly crossing into another cell), and so is the last sighting. Gliding to the
    cell's centre is fine. An agent last seen entering the goal and never again is stopped
    (the goal marker or an arrival icon drawn over it hides it) - unless it was last seen on
    its way out (:func:`_leaving`: lost, paled by a colour drift as it left, mazeworld 60606
    v00069 zoomed, drifted and crushed); whether it stands paled beside the goal instead is
    :func:`seen_pale_off_goal`'s call, on pixels this does not see. *Final entry*: of an
    agent that stopped and is seen inside last, the frame it was first seen on the goal's own
    lattice cell since it was last clearly out of the goal cell (else its last sighting): its
    path ends there (:func:`cell_path`).
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
        # makes (an icon or a trail left visible when the agent vanished) are not the agent. An
        # agent that walks in strides makes one of them out, diagonal where the tracker missed
        # the frame between (mazeworld 93939 v00004 and v00028 with a 55 % ghost: left, passed).
        last_in = int(np.flatnonzero(inside)[-1])
        step = float(np.hypot(*(track.pos[tracked[last_in + 1]] - track.pos[tracked[last_in]])))
        frames = int(tracked[last_in + 1] - tracked[last_in])
        reach = max(LEAVE_STEP, LEAVE_STRIDE * _stride(tracked[:last_in + 1], track.pos[tracked[:last_in + 1]]))
        if step > reach + 2.0 * (frames - 1):
            tracked, dist, inside = tracked[:last_in + 1], dist[:last_in + 1], inside[:last_in + 1]
    # the last settle frames, from the first arrival on (an agent arriving in them has not left)
    window = tracked >= max(n - max(1, settle_frames), first if first is not None else 0)
    stopped = bool(inside[-1]) and not bool((dist[window] > LEFT_GOAL).any())
    vanished = int(tracked[-1]) < n - 1
    if vanished and _leaving(track.pos[tracked[-3:]], tracked[-3:], centre,
                             stride=_stride(tracked, track.pos[tracked])):
        stopped = vanished = False  # last seen on its way out: lost, not hidden by the goal
    occluded = bool(inside[-1]) and vanished
    entry = None
    if stopped:  # its first sighting on the goal's own lattice cell since it was last clearly out
        out = np.flatnonzero(dist > LEFT_GOAL)
        back = int(out[-1]) + 1 if out.size else 0
        on_goal = np.flatnonzero(dist[back:] < ON_GOAL)
        entry = int(tracked[back + int(on_goal[0])]) if on_goal.size else int(tracked[-1])
    if not inside[-1] and vanished and dist[-1] <= NEAR_GOAL:
        occluded = stopped = True
        first = int(tracked[-1]) + 1 if first is None else first
    return Settling(reached=first is not None, stopped=stopped, first_arrival=first, final_occluded=occluded,
                    final_entry=entry)


def seen_pale_off_goal(track: Track, goal: Cell, pale: Sequence[tuple[int, Sequence[Blob]]], *,
                       settle_frames: int) -> bool:
    """Whether an agent lost after its last sighting in or entering the goal cell stands paled
    outside it: ``pale`` (per frame, objects of the agent's hue and size down to a low
    saturation floor, e.g. :meth:`~.video_agent.AgentReader.pale_near_goal`) shows, in
    every one of at least ``settle_frames`` frames up to the last, an object standing still
    outside the goal cell (beyond LEFT_GOAL), within PALE_REACH of the last sighting, that
    none showed there (within 2 x PALE_STILL) in the frame of the last sighting or the
    PALE_BEFORE frames before it - not a look-alike, a start marker or a trail that was
    already there. The frames after the last sighting must all be in ``pale``."""
    tracked = track.tracked
    n = len(track.pos)
    if not len(tracked):
        return False
    last = int(tracked[-1])
    seen = {int(i): blobs for i, blobs in pale}
    need = max(1, settle_frames)
    if n - 1 - last < need or any(i not in seen for i in range(last, n)):
        return False
    centre = np.array(goal, float) + 0.5
    where = track.pos[last]
    before = [b for i in range(last - PALE_BEFORE, last + 1) for b in seen.get(i, ())]
    for b in seen[n - 1]:
        at = np.array([b.row, b.col])
        if np.abs(at - centre).max() <= LEFT_GOAL or float(np.hypot(*(at - where))) > PALE_REACH:
            continue
        if any(float(np.hypot(o.row - at[0], o.col - at[1])) <= 2 * PALE_STILL for o in before):
            continue
        run, here = 1, at
        for i in range(n - 2, last, -1):  # back through the frames, the same object standing
            near = [np.array([o.row, o.col]) for o in seen[i]
                    if float(np.hypot(o.row - here[0], o.col - here[1])) <= PALE_STILL]
            if not near:
                break
            run, here = run + 1, min(near, key=lambda p: float(np.hypot(*(p - here))))
        if run >= need:
            return True
    return False


def seen_leaving_goal(track: Track, goal: Cell, detections: Sequence[Sequence[Blob]]) -> bool:
    """Whether an agent lost after its last sighting in the goal cell is seen leaving it in
    the agent blobs the track did not take: after the last tracked frame, a chain of at least
    LEAVE_SIGHTINGS fresh blobs, each within the tracker's near gate of the one before (the
    first of the last sighting; the gate widened for at most LEAVE_MISSING frames missed, however
    many were), the last beyond LEFT_GOAL of the goal cell's centre. Blobs where another object
    stood (within 2 x PALE_STILL) in the frame of the last sighting or the LEAVE_BEFORE frames
    before it - a look-alike, a marker left behind - are none of it.

    A 3-px dot at 240p under H.264 shows in every other frame only (its colour wiped in the
    B-frames), and single sightings make no tracklet: the dot that reached the goal and walked
    a cell on was last followed on the goal, "stopped" (mazeworld 60060 v00147 rolled, then
    at 240p). Cast magenta and crushed, another was seen once stepping out and once, 13 frames
    later, standing a cell off (60060 v00225 zoomed, cast and crushed)."""
    tracked = track.tracked
    n = len(track.pos)
    if not len(tracked) or int(tracked[-1]) >= n - 1:
        return False
    last = int(tracked[-1])
    others = [(b.row, b.col) for f in range(max(0, last - LEAVE_BEFORE), last + 1) for b in detections[f]
              if np.isnan(track.pos[f, 0])
              or float(np.hypot(b.row - track.pos[f, 0], b.col - track.pos[f, 1])) > TWIN_RADIUS]
    centre = np.array(goal, float) + 0.5
    here, then, seen = track.pos[last], last, 0  # (the chain's last blob, its frame, its length)
    for t in range(last + 1, n):
        missing = t - then - 1
        reach = gate_radius(min(missing, LEAVE_MISSING))
        near = [(float(np.hypot(b.row - here[0], b.col - here[1])), b) for b in detections[t] if b.fresh]
        near = [(d, b) for d, b in near if d <= reach and not any(
            float(np.hypot(b.row - r, b.col - c)) <= 2 * PALE_STILL for r, c in others)]
        if near:
            b = min(near, key=lambda db: db[0])[1]
            here, then, seen = np.array([b.row, b.col]), t, seen + 1
    return seen >= LEAVE_SIGHTINGS and float(np.abs(here - centre).max()) > LEFT_GOAL


def not_stopped(settling: Settling) -> Settling:
    """``settling`` of an agent found to have left the goal after all."""
    return replace(settling, stopped=False, final_occluded=False, final_entry=None)
