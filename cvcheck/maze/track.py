"""Following the agent through a video: tracklets of nearby detections, then one track.

Detections (agent-coloured blobs per frame) are linked frame to frame into
*tracklets* (nearest first, at most ``LINK_RADIUS`` lattice cells per frame, more in a
video of few frames for its maze's solution (:func:`link_reach`); an object at
rest - ``REST_SIGHTINGS`` sightings in one place - only ``STATIC_SPAN``; a mover's step back
onto the way it just walked only after a blob ahead of it: a trail piece left behind; a still
object's jump beyond ``STATIC_SPAN`` only onto a blob no mover reaches). A still object that
flickers (a look-alike on a wall junction, seen in some frames only) keeps its tracklet:
seen again where it stood within ``REVIVE_FRAMES`` frames, it continues it, so that the
agent passing by is not linked onto it. A blob that is a still object and a moving one as
one (the agent back over the start marker it left) continues the mover, and when the two
come apart the still one takes the blob where it stood first. The
agent's track is then chained from tracklets that never coexist:

1. it starts with the tracklet nearest the start cell (of those beginning within
   ``max_gap`` frames of the first), or an earlier one within STATIC_SPAN as near;
2. when it ends, the next piece is the earliest tracklet starting *after* it that
   begins near the last position (within a gate growing with the gap); only when no
   such tracklet appears within ``max_gap`` frames may a far one continue the track
   (the agent jumped: a teleport, judged later against the walls);
3. a tracklet that begins on the frame it ends, where it ends, is the same object seen
   twice in that frame: it continues the track;
4. a tracklet that coexisted with the chosen agent (a second green square, a
   same-coloured decoration) is never picked, so the track cannot lock onto a wrong
   blob far from the last position - save a moving one that came apart from the
   followed object where it was, in the last few frames before it ended, and outlives it
   (the followed object was a piece of the trail the agent drew; the agent walks on), or a
   still one that did so off the way followed and stays to the end (the followed object was
   the agent's ghost; the agent stands a cell on).

Gaps (the agent hidden, blurred away, fully occluded) are left as missing frames;
the wall and path analysis decides what the agent did in between. Where the track stood on
a marker the agent was later seen leaving (the start marker it stays on), those sightings
show the marker: they place the agent there, but say nothing of where it was while it went
unseen, and do not count as the agent seen (:attr:`Track.seen`) - save the first sighting
(the agent starts there) and the one just before it was seen apart from the marker.
"""

from __future__ import annotations

import math
import statistics
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..vision.geometry import distance_to_polyline
from .video_obs import Blob

LINK_RADIUS = 3.0     #: lattice cells an object may move between two consecutive frames
FAST_MARGIN = 2.0     #: a frame's step is at most this many times the average one (the solution over the frames)
MAX_REACH = 8.0       #: lattice cells: the farthest a link reaches, however fast the video (see link_reach)
GATE_BASE = 3.0       #: lattice cells: a continuation this close to the last position is "near"
GATE_PER_FRAME = 1.0  #: ... plus this per missing frame
MIN_TRACKLET = 2      #: shorter tracklets are noise (unless nothing else exists)
STATIC_SPAN = 0.6     #: a tracklet moving less than this (lattice cells) is a static marker
SPLIT_RADIUS = 3.0    #: a mover appearing this close to a static marker split off from it (or within
                      #: the link reach, where that is farther: a fast strip's agent is a reach on)
SPLIT_MIN = 0.5       #: ... and at least this far from it (two blobs, not one flickering)
SPLIT_WATCH = 8       #: frames the followed object must stay still after a mover appears
REVIVE_FRAMES = 8     #: frames a still object may go unseen and still continue its tracklet where it stood
SPLIT_TAIL = 3        #: a mover that came apart from the followed object at most this many frames before
                      #: the followed one ended, and outlives it, continues the track (see _split_successor)
MERGED_AREA = 1.5     #: a blob this many times a still object's usual area, within reach of a moving object
                      #: too, is the two as one: it continues the mover (see _merged_to_mover)
USUAL_OF = 8          #: a still object's usual area: the median of its last this many sightings
REVIVE_AT = 0.3       #: lattice cells: a still object seen again this near where it stood takes that blob first
TWIN_RADIUS = 0.25    #: lattice cells: two blobs this near in one frame are one object seen twice
REST_SIGHTINGS = 8    #: an object seen this many times in a row within STATIC_SPAN of one place is at rest
TRAIL_REACH = 1.5     #: lattice cells: an object this near the way followed so far may be a piece of its trail
BRIDGE_GAP = 2        #: frames missed at most between a mover's first sighting and its tracklet (see _bridged)
BEHIND_STEP = 0.5     #: lattice cells: a mover's step back at least this long onto ...
BEHIND_REACH = 0.35   #: ... a place this near the way of its last WAY_BACK sightings is behind it (see _ahead_first)
WAY_BACK = 6          #: sightings before a mover's last one whose way it walked (see BEHIND_REACH)
BEHIND_LEAD = 2       #: sightings behind the agent a tracklet going on with the track may begin with (_past_trail)


@dataclass(eq=False)  # an object followed through the video: compared by identity
class Tracklet:
    frames: list[int] = field(default_factory=list)
    blobs: list[Blob] = field(default_factory=list)  #: (only ever appended to: see span)
    # (sightings folded in, least and greatest row and column, whether all were finite)
    _extent: tuple[int, float, float, float, float, bool] = field(
        init=False, repr=False, default=(0, math.inf, -math.inf, math.inf, -math.inf, True))

    def span(self) -> float:
        """The larger of its sightings' row and column ranges (lattice cells; NaN where one is
        not finite), kept up to date as sightings are appended: a tracklet is asked whether it is
        still in every frame, so its whole length is not gone over each time."""
        n, r0, r1, c0, c1, finite = self._extent
        if n > len(self.blobs):  # (not appended to: read again)
            n, r0, r1, c0, c1, finite = 0, math.inf, -math.inf, math.inf, -math.inf, True
        if n < len(self.blobs):
            b0, b1, d0, d1, new_finite = _bounds(self.blobs[n:])
            r0, r1, c0, c1, finite = min(r0, b0), max(r1, b1), min(c0, d0), max(c1, d1), finite and new_finite
            self._extent = (len(self.blobs), r0, r1, c0, c1, finite)
        return max(r1 - r0, c1 - c0) if finite else math.nan

    @property
    def start(self) -> int:
        return self.frames[0]

    @property
    def end(self) -> int:
        return self.frames[-1]

    def first(self) -> np.ndarray:
        return np.array([self.blobs[0].row, self.blobs[0].col])

    def last(self) -> np.ndarray:
        return np.array([self.blobs[-1].row, self.blobs[-1].col])


def _bounds(blobs: Sequence[Blob]) -> tuple[float, float, float, float, bool]:
    """The least and greatest row and column of ``blobs`` (one at least), and whether every
    one of them is finite (else the bounds mean nothing)."""
    rows, cols = [b.row for b in blobs], [b.col for b in blobs]
    return min(rows), max(rows), min(cols), max(cols), all(map(math.isfinite, rows + cols))


@dataclass
class Track:
    """The agent per analysed frame: ``pos[t]`` is NaN where it was not seen."""

    pos: np.ndarray               #: (T, 2) lattice coordinates
    overlap: np.ndarray           #: (T,) share of the agent inside eroded walls
    pieces: list[tuple[int, int]] = field(default_factory=list)  #: (first, last) frame of each tracklet used
    far_jumps: int = 0            #: continuations accepted beyond the near gate
    markers_left: int = 0         #: static copies the agent left behind (e.g. the start marker)
    lost: int = 0                 #: continuations after more than max_gap missing frames
    ignored: int = 0              #: tracklets rejected (coexisting or unreachable objects)
    #: frames in which the track stood on a marker the agent was later seen leaving (see _leave_markers)
    marker_frames: list[int] = field(default_factory=list)

    @property
    def tracked(self) -> np.ndarray:
        return np.flatnonzero(~np.isnan(self.pos[:, 0]))

    @property
    def seen(self) -> np.ndarray:
        """The frames the agent itself was seen in: :attr:`tracked` less those where only a
        marker it left behind was (the first sighting kept: the agent starts there)."""
        tracked = self.tracked
        if not self.marker_frames or not len(tracked):
            return tracked
        standin = np.zeros(len(self.pos), bool)
        standin[self.marker_frames] = True
        standin[tracked[0]] = False
        return tracked[~standin[tracked]]


def link_tracklets(detections: Sequence[Sequence[Blob]], *, reach: float = LINK_RADIUS) -> list[Tracklet]:
    """Greedy nearest-neighbour linking of detections in consecutive frames; a still object
    unseen for at most REVIVE_FRAMES frames is continued by a detection where it stood.

    Without that, a look-alike on a wall junction that shows in some frames only starts a
    new tracklet each time it reappears, and when it reappears nearer the agent's last
    position than the agent itself (a 2-fps strip: the agent moves a whole cell a frame),
    the agent's tracklet is linked onto it (mazeworld 52424 v00221)."""
    done: list[Tracklet] = []
    active: list[Tracklet] = []
    resting: list[Tracklet] = []  # still objects unseen lately (also in done until seen again)
    for t, blobs in enumerate(detections):
        if resting:
            resting = [tr for tr in resting if t - tr.end - 1 <= REVIVE_FRAMES]
        if not resting and len(active) == 1 and len(blobs) == 1:  # the usual frame: one object, seen again
            tr, blob = active[0], blobs[0]
            p = tr.blobs[-1]
            if _within(blob.row - p.row, blob.col - p.col, _reach(tr, reach)) and not _left_behind(tr, blob):
                tr.frames.append(t)
                tr.blobs.append(blob)
                continue
            done.append(tr)
            if _still(tr):
                resting.append(tr)
            active = [Tracklet(frames=[t], blobs=[blob])]
            continue
        candidates = active + resting
        n_active = len(active)
        # (squared distance, a, b, row step, col step) of every candidate-detection pair within reach
        pairs: list[tuple[float, int, int, float, float]] = []
        if blobs:
            for a, tr in enumerate(candidates):
                p = tr.blobs[-1]
                within = _reach(tr, reach) if a < n_active else STATIC_SPAN  # a still object stays where it stood
                for b, blob in enumerate(blobs):
                    dr, dc = blob.row - p.row, blob.col - p.col
                    if _within(dr, dc, within) and not (a < n_active and _left_behind(tr, blob)):
                        pairs.append((dr * dr + dc * dc, a, b, dr, dc))
        if len(pairs) > 1:
            pairs = _merged_to_mover(pairs, candidates, blobs)
            _nearest_first(pairs)
            pairs = _ahead_first(pairs, candidates, n_active, blobs)
            pairs = _still_ones_last(pairs, candidates, n_active)
            if resting:
                pairs = _revived_first(pairs, n_active)
            if t + 1 < len(detections):
                pairs = _returning_last(pairs, candidates, blobs, detections[t + 1])
        used_a, used_b = set(), set()
        for _, a, b, _, _ in pairs:
            if a in used_a or b in used_b:
                continue
            used_a.add(a)
            used_b.add(b)
            candidates[a].frames.append(t)
            candidates[a].blobs.append(blobs[b])
        still: list[Tracklet] = []
        for a, tr in enumerate(candidates):
            if a in used_a:
                if a >= n_active:  # seen again where it stood
                    done.remove(tr)
                    resting.remove(tr)
                still.append(tr)
            elif a < n_active:
                done.append(tr)
                if _still(tr):
                    resting.append(tr)
        for b, blob in enumerate(blobs):
            if b not in used_b:
                still.append(Tracklet(frames=[t], blobs=[blob]))
        active = still
    return sorted(done + active, key=lambda tr: (tr.start, tr.end))


def _merged_to_mover(pairs: list[tuple[float, int, int, float, float]], candidates: list[Tracklet],
                     blobs: Sequence[Blob]) -> list[tuple[float, int, int, float, float]]:
    """``pairs`` less those linking a still object (a marker) to a blob that is it and a moving
    object merged into one: within reach of both, at least MERGED_AREA times the still one's
    usual area. The mover takes the blob, and the still object rests where it stood, seen
    again there when the two come apart. Else the nearer still object took the merged blob,
    then the agent as it left, and the agent's tracklet ended on the marker (a watermark
    paling a small dot that walked back over the start marker it left: mazeworld 81818
    v00111)."""
    reached: dict[int, list[int]] = {}
    for _, a, b, _, _ in pairs:
        reached.setdefault(b, []).append(a)
    drop: set[tuple[int, int]] = set()
    for b, near in reached.items():
        if len(near) < 2 or not any(not _still(candidates[a]) for a in near):
            continue
        for a in near:
            tr = candidates[a]
            if _static(tr) and blobs[b].area >= MERGED_AREA * _usual_area(tr):
                drop.add((a, b))
    return [p for p in pairs if (p[1], p[2]) not in drop] if drop else pairs


def _ahead_first(pairs: list[tuple[float, int, int, float, float]], candidates: list[Tracklet], n_active: int,
                 blobs: Sequence[Blob]) -> list[tuple[float, int, int, float, float]]:
    """``pairs`` (nearest first) with those that take a moving object back onto the way it
    just walked (:func:`_behind`) put last, where it reaches another blob too that is not
    behind it: a piece of the trail the agent draws, left where it passed and nearer than the
    agent a step on (mazeworld 70070 v00090 sharpened, vignetted and flickering: a trail corner
    took the track, "never reaches the goal")."""
    by_mover: dict[int, list[tuple[float, int, int, float, float]]] = {}
    for q in pairs:
        if q[1] < n_active:
            by_mover.setdefault(q[1], []).append(q)
    behind: set[tuple[int, int]] = set()
    for a, qs in by_mover.items():
        tr = candidates[a]
        if len(qs) < 2 or (heading := _heading(tr)) is None:
            continue
        back = [q for q in qs if _behind(tr, heading, blobs[q[2]])]
        if back and len(back) < len(qs):
            behind.update((q[1], q[2]) for q in back)
    return sorted(pairs, key=lambda q: (q[1], q[2]) in behind) if behind else pairs  # (stable)


def _left_behind(tr: Tracklet, blob: Blob) -> bool:
    """Whether ``blob`` is a held trail (not fresh: a trail with nothing moving at its end) that
    lies behind the moving ``tr`` (:func:`_behind`): the trail the agent left, never the agent,
    which is at its head (mazeworld 83083 v00311: a blurred dot paling as it turned a corner,
    unseen for two frames; its tracklet went back onto its trail, then on to the dot through a
    wall: "teleport")."""
    return not blob.fresh and (heading := _heading(tr)) is not None and _behind(tr, heading, blob, last_step=True)


def _past_trail(followed: Tracklet, nxt: Tracklet, reach: float) -> Tracklet:
    """``nxt``, which goes on with the track after ``followed``, less its first sightings (at
    most BEHIND_LEAD) where they lie behind ``followed`` (:func:`_behind`, its last step
    included) and the next one does not, and begins near where ``followed`` ended
    (:func:`_in_gate`): pieces of the trail the agent left, seen while the agent was not, and
    the agent walking on after them (mazeworld 83083 v00311: a blurred dot paling as it
    turned a corner; the track went back onto its trail, then to the dot through a wall:
    "teleport"). An agent that turns back walks on along its way: none is dropped."""
    heading = _heading(followed)
    if heading is None:
        return nxt
    n = 0
    while n < min(BEHIND_LEAD, len(nxt.blobs) - 1) and _behind(followed, heading, nxt.blobs[n], last_step=True):
        n += 1
    if not n or _behind(followed, heading, nxt.blobs[n], last_step=True):
        return nxt
    rest = Tracklet(frames=nxt.frames[n:], blobs=nxt.blobs[n:])
    return rest if _in_gate(followed, rest, reach) else nxt


def _heading(tr: Tracklet) -> tuple[float, float] | None:
    """Where a moving object heads: its last sighting less its third last; None where it has
    fewer than three sightings or moved less than BEHIND_STEP over them."""
    if len(tr.blobs) < 3:
        return None
    last, prior = tr.blobs[-1], tr.blobs[-3]
    hr, hc = last.row - prior.row, last.col - prior.col
    return None if _within(hr, hc, BEHIND_STEP) else (hr, hc)


def _behind(tr: Tracklet, heading: tuple[float, float], blob: Blob, *, last_step: bool = False) -> bool:
    """Whether ``blob`` lies behind ``tr``, heading ``heading`` (:func:`_heading`): a step of
    BEHIND_STEP or more against it from its last sighting, onto a place within BEHIND_REACH of
    the way of its WAY_BACK sightings before the last (``last_step``: and on to the last)."""
    last = tr.blobs[-1]
    dr, dc = blob.row - last.row, blob.col - last.col
    if _within(dr, dc, BEHIND_STEP) or dr * heading[0] + dc * heading[1] >= 0:
        return False
    way = np.array([[b.row, b.col] for b in tr.blobs[-WAY_BACK - 1:None if last_step else -1]])
    return distance_to_polyline(way, np.array([blob.row, blob.col])) <= BEHIND_REACH


def _still_ones_last(pairs: list[tuple[float, int, int, float, float]], candidates: list[Tracklet],
                     n_active: int) -> list[tuple[float, int, int, float, float]]:
    """``pairs`` with those that move a still object (a marker or a look-alike: ``_static``)
    further than STATIC_SPAN put last, where the blob is within reach of a moving object too:
    the mover walked there. Else a look-alike on a wall junction beside the goal of a 1-fps
    strip, missing in the frame the agent arrived, nearer the agent's new place than the
    agent's last one, took the agent's blob, and the track ended a cell short (mazeworld
    72072 v00104 drifted, zoomed and watermarked: "never reaches the goal"). An object at rest
    long enough (REST_SIGHTINGS) reaches only STATIC_SPAN anyway."""
    span2 = STATIC_SPAN * STATIC_SPAN
    leaving = {(a, b) for s, a, b, _, _ in pairs if a < n_active and s > span2 and _static(candidates[a])}
    if leaving:
        movers = {b for _, a, b, _, _ in pairs if a < n_active and not _still(candidates[a])}
        leaving = {(a, b) for a, b in leaving if b in movers}
    return sorted(pairs, key=lambda q: (q[1], q[2]) in leaving) if leaving else pairs  # (stable)


def _revived_first(pairs: list[tuple[float, int, int, float, float]],
                   n_active: int) -> list[tuple[float, int, int, float, float]]:
    """``pairs`` (nearest first) with those of resting still objects (candidates from
    ``n_active`` on) seen again within REVIVE_AT of where they stood put first: the marker
    takes its own blob when the agent that was one blob with it comes apart from it, before
    the agent's tracklet - nearer where the two were as one - takes it and leaves the marker
    the agent (mazeworld 81818 v00111 zoomed out: the detour was lost)."""
    return sorted(pairs, key=lambda p: not (p[1] >= n_active and p[0] <= REVIVE_AT * REVIVE_AT))  # (stable)


def _returning_last(pairs: list[tuple[float, int, int, float, float]], candidates: list[Tracklet],
                    blobs: Sequence[Blob], after: Sequence[Blob]) -> list[tuple[float, int, int, float, float]]:
    """``pairs`` (nearest first) with those that move a candidate onto a blob another one
    reaches too put last, where the candidate is unseen in this frame where it stood and seen
    there again in the next (within REVIVE_AT): a still object missing for a frame, not the
    mover. Else a look-alike on a wall junction, seen in frame 0, missing in frame 1 and
    nearer the agent's frame-1 place than the agent's frame-0 place, took the agent's
    tracklet, and the track began on the look-alike (mazeworld 15151 v00143 tilted)."""
    reached: dict[int, int] = {}
    for _, _, b, _, _ in pairs:
        reached[b] = reached.get(b, 0) + 1
    reach2 = REVIVE_AT * REVIVE_AT

    def near(p: Blob, others: Sequence[Blob]) -> bool:
        return any((o.row - p.row) ** 2 + (o.col - p.col) ** 2 <= reach2 for o in others)

    def returning(q: tuple[float, int, int, float, float]) -> bool:
        s, a, b, _, _ = q
        if reached[b] < 2 or s <= reach2:
            return False
        p = candidates[a].blobs[-1]
        return not near(p, blobs) and near(p, after)

    if not any(reached[b] >= 2 for b in reached):
        return pairs
    return sorted(pairs, key=returning)  # (stable)


def _usual_area(tr: Tracklet) -> float:
    """The median area of a tracklet's last USUAL_OF sightings."""
    return statistics.median(b.area for b in tr.blobs[-USUAL_OF:])


def _within(dr: float, dc: float, reach: float) -> bool:
    """``np.hypot(dr, dc) <= reach``, decided from the sum of squares unless it is within a
    relative 1e-9 of ``reach ** 2`` (far beyond any rounding of either), where np.hypot decides."""
    s, r2 = dr * dr + dc * dc, reach * reach
    if s < r2 * (1.0 - 1e-9):
        return True
    if s > r2 * (1.0 + 1e-9):
        return False
    return bool(np.hypot(dr, dc) <= reach)


def _nearest_first(pairs: list[tuple[float, int, int, float, float]]) -> None:
    """Sort pairs ``(squared distance, a, b, row step, col step)`` in place by (``np.hypot`` of the
    steps, a, b): by the squares when no two differ by a relative 1e-9 or less (far beyond any
    rounding) - save exact zeros (no step at all, a distance of exactly 0) - else by np.hypot."""
    pairs.sort()
    for (s0, _, _, r0, c0), (s1, _, _, r1, c1) in zip(pairs, pairs[1:]):
        if r0 == 0.0 and c0 == 0.0:  # exactly 0; a next one is farther, or as near when also no step
            if s1 or (r1 == 0.0 and c1 == 0.0):
                continue
        elif s0 > 1e-200 and s1 - s0 > 1e-9 * s1:
            continue
        dist = np.hypot([q[3] for q in pairs], [q[4] for q in pairs]).tolist()
        pairs[:] = [q for _, q in sorted(zip(dist, pairs), key=lambda x: (x[0], x[1][1], x[1][2]))]
        return


def build_track(detections: Sequence[Sequence[Blob]], *, start: tuple[float, float] | None,
                max_gap: int, reach: float = LINK_RADIUS) -> Track:
    """Chain tracklets into the agent's track (see the module docstring). ``reach``: lattice
    cells the agent may move between two frames (:func:`link_reach`)."""
    n = len(detections)
    pos = np.full((n, 2), np.nan)
    overlap = np.full(n, np.nan)
    tracklets = link_tracklets(detections, reach=reach)
    long = [tr for tr in tracklets if len(tr.frames) >= MIN_TRACKLET] or tracklets
    long = [tr for tr in long if any(b.fresh for b in tr.blobs)] or long  # never-moving trails are not agents
    short = [tr for tr in tracklets if len(tr.frames) < MIN_TRACKLET]  # (a mover's first sighting, maybe)
    track = Track(pos=pos, overlap=overlap)
    if not long:
        return track
    first_start = min(tr.start for tr in long)
    opening = [tr for tr in long if tr.start <= first_start + max_gap]
    if start is not None:
        # the nearest the start, or an earlier one about as near (the agent, seen from frame 0,
        # beside the start marker uncovered as it leaves: mazeworld 81818 v00071 under `boil`)
        s = np.asarray(start)
        away = [(tr, float(np.hypot(*(tr.first() - s)))) for tr in opening]
        within = min(d for _, d in away) + STATIC_SPAN
        current = min(((tr, d) for tr, d in away if d <= within), key=lambda p: (p[0].start, p[1]))[0]
    else:
        current = max(opening, key=lambda tr: (len(tr.frames), -tr.start))
    while True:
        current = _leave_markers(track, current, long, short, max_gap, reach=reach)
        current = _drop_stale_tail(current, long)
        if (twin := _twin_successor(current, long)) is not None:
            _place(track, current)
            current = twin
            continue
        later = [tr for tr in long if tr.start > current.end]
        last = current.last()
        soon = [tr for tr in later if tr.start - current.end <= max_gap + 1]

        def dist(tr: Tracklet, last: np.ndarray = last) -> float:  # this iteration's `last`, bound explicitly (B023)
            return float(np.hypot(*(tr.first() - last)))

        near = [tr for tr in soon if _in_gate(current, tr, reach)]
        # a mover that came apart from the followed object as it ended goes on with the track
        # where what comes after is still, or moves on from where the mover ended (_bridges)
        still = all(_still(tr) for tr in near)
        moving = bool(near) and not any(_still(tr) for tr in near)
        if (still or moving) and \
                (split := _split_successor(current, long, _way(track, current))) is not None and \
                (_bridges(split, near, reach) if moving else not near or _moves_on_through(split, near)):
            _place(track, _prefix(current, bisect_left(current.frames, split.start)))
            current = split
            continue
        _place(track, current)
        if not later:
            break
        if near:
            current = _past_trail(current, min(near, key=lambda tr: (tr.start, dist(tr))), reach)
        elif soon:
            current = min(soon, key=lambda tr: (tr.start, dist(tr)))
            track.far_jumps += 1
        else:
            current = min(later, key=lambda tr: (tr.start, dist(tr)))
            track.lost += 1
    track.ignored = max(0, len(tracklets) - len(track.pieces))
    return track


def _first_off_start(track: Track, start: tuple[float, float], tolerance: float) -> int | None:
    """The frame of the track's first sighting where that is after the first frame and farther
    than ``tolerance`` lattice cells from the start's centre; else None."""
    tracked = track.tracked
    if not len(tracked) or tracked[0] == 0:
        return None
    t0 = int(tracked[0])
    return t0 if float(np.hypot(*(track.pos[t0] - start))) > tolerance else None


def stand_in_on_start(track: Track, start: tuple[float, float], *, tolerance: float) -> None:
    """Place an agent first seen off the start, after the first frame, on the start in the frame
    before (as the start marker, which stands for it there: :attr:`Track.marker_frames`), so
    the way from the start to where it was first seen is checked as any other step of it (a
    wall it went through, a teleport), and the path begins on the start. ``tolerance``:
    lattice cells from the start's centre a first sighting is on the start within. (As
    :func:`_leave_markers` places an agent first seen apart from the copy it left on the copy.)"""
    if (t0 := _first_off_start(track, start, tolerance)) is None:
        return
    track.pos[t0 - 1] = start
    track.overlap[t0 - 1] = 0.0
    track.marker_frames = sorted({t0 - 1, *track.marker_frames})


def seen_on_start_before(track: Track, detections: Sequence[Sequence[Blob]], start: tuple[float, float], *,
                         tolerance: float) -> None:
    """Place an agent first followed off the start on the object it was seen as on the start
    in the frame before, where there is one (the nearest the start within ``tolerance``
    lattice cells): the agent, which stands on the start marker, left it farther than a link
    reaches, so that sighting stayed a tracklet of its own, too short to follow. The step from
    the start is then checked as any other (mazeworld 78078 v00151 and 80080 v00008 with one
    frame in two kept: a backtracking walk, longer than the solution the link reach is sized
    by, two cells in the first step; "agent starts 2 cells from the start cell")."""
    if (t0 := _first_off_start(track, start, tolerance)) is None:
        return
    away = [(float(np.hypot(b.row - start[0], b.col - start[1])), b) for b in detections[t0 - 1]]
    d, blob = min(away, key=lambda p: p[0], default=(np.inf, None))
    if blob is not None and d <= tolerance:
        track.pos[t0 - 1] = (blob.row, blob.col)
        track.overlap[t0 - 1] = blob.overlap
        track.pieces.insert(0, (t0 - 1, t0 - 1))  # (a tracklet of its own, no longer ignored)
        track.ignored = max(0, track.ignored - 1)


def _twin_successor(current: Tracklet, pool: list[Tracklet]) -> Tracklet | None:
    """The tracklet that begins on the followed one's last frame within TWIN_RADIUS of its
    last blob and outlives it: the same object seen twice in that frame (a blob and a mover
    kept beside it), the copy linked on. Without it the track skipped the agent's own
    tracklet, which begins before the followed one ends, for a later one (mazeworld 84848
    v00155 boiled, drifted and crushed: a trail piece two cells back, "did not stay"). The
    longest such; None when there is none."""
    last = current.last()
    # (beginning after the followed one began: a tracklet cut back to its first sightings is
    # never continued by itself whole, which is cut back again, for ever)
    twins = [tr for tr in pool if tr is not current and current.start < tr.start == current.end < tr.end
             and float(np.hypot(*(tr.first() - last))) <= TWIN_RADIUS]
    return max(twins, key=lambda tr: tr.end, default=None)


def _way(track: Track, current: Tracklet) -> np.ndarray:
    """The positions followed so far, in frame order (the pieces placed, then ``current``)."""
    placed = np.flatnonzero(~np.isnan(track.pos[:, 0]))
    placed = placed[placed < current.start]
    return np.concatenate([track.pos[placed], [[b.row, b.col] for b in current.blobs]]).reshape(-1, 2)


def _split_successor(current: Tracklet, pool: list[Tracklet], way: np.ndarray) -> Tracklet | None:
    """A moving object that came apart from the followed one at most SPLIT_TAIL frames before
    the followed one ended, within SPLIT_RADIUS of where it was, and that outlives it: the
    agent, where the track went on with a piece of the trail it was one blob with - and
    ended with the piece (a blurred dot drawing a trail: mazeworld 81818 v00155 blurred
    again). A still one only where it stands apart from the followed one and that was at
    rest, or it stands off the ``way`` followed so far and lasts as long as any object is
    seen (see below). The earliest such object; None when there is none."""
    best: Tracklet | None = None
    end = max(tr.end for tr in pool)
    for tr in pool:
        if tr is current or not current.start < tr.start <= current.end < tr.end \
                or current.end - tr.start >= SPLIT_TAIL:
            continue
        # where the followed object was when the mover appeared, and the frame before
        around = [b for f, b in zip(current.frames, current.blobs) if f <= tr.start][-2:]
        apart = [float(np.hypot(*(tr.first() - (b.row, b.col)))) for b in around]
        # a still one only where it came apart from a followed object at rest (its last
        # REST_SIGHTINGS sightings still): an agent resting on the goal that steps to the next cell
        # and rests there, seen there first on the last frame the goal still showed it
        # (mazeworld 93939 v00119 ghosted at 55 %: "stopped on the goal"); one where the
        # followed object was is what stays behind there (a marker), and one beside a followed
        # object on the move is a piece of its trail - also a 2-fps strip's agent seen twice in
        # one place, once as itself and once as its ghost (93939 v00142 ghosted) - unless it
        # stands off the way followed, where no trail lies, to the end: a strip's agent a cell
        # on, where the followed object was its ghost, as vivid at a 50 % ghost, that faded a
        # frame later (93939 v00042 ghosted at 50 %: the overshoot "stopped on the goal"). Not
        # mid-video: there the track may then pass over the mover it should go on with for a
        # later object near enough, skipping the frames between (93939 v00142: a false teleport)
        if _still(tr) and (min(apart) < SPLIT_MIN or not (
                _rested(current, tr.start)
                or tr.end == end and distance_to_polyline(way, tr.first()) > TRAIL_REACH)):
            continue
        if min(apart) <= SPLIT_RADIUS and (best is None or tr.start < best.start):
            best = tr
    return best


def _moves_on_through(split: Tracklet, near: list[Tracklet]) -> bool:
    """Whether ``split`` (see :func:`_split_successor`) - moving, and seen until after each of
    the still ``near`` ones appeared - goes on with the track rather than them: the
    followed object was a piece of the trail the agent drew, and the piece flickers back
    where it was while the agent walks on (mazeworld 47047 v00233 drifted and rolled: a
    piece held two cells behind the agent from frame 24, the agent's own tracklet to the
    goal passed over as coexisting, "never reaches the goal")."""
    return not _still(split) and all(split.end >= tr.start for tr in near)


def _bridges(split: Tracklet, near: list[Tracklet], reach: float) -> bool:
    """Whether ``split`` (see :func:`_split_successor`), moving, leads on to each of the
    ``near`` ones: each begins after it ends, near where it ended. The track goes on through it
    rather than over the frames it covers (mazeworld 77077 v00019 ghosted and sharpened: a star
    seen as itself and its ghost, the track on the ghost, which stopped; the star's own
    tracklet passed over, a wall it crossed went unseen and the wall pass passed)."""
    return not _still(split) and all(split.end < tr.start and _in_gate(split, tr, reach) for tr in near)


def _drop_stale_tail(current: Tracklet, pool: list[Tracklet]) -> Tracklet:
    """Cut a tracklet where its detections turn stale (a held position, not fresh) while
    another object appears: a trail left behind by an agent that vanished, not the agent."""
    frames, blobs = current.frames, current.blobs
    i = 0
    while i < len(blobs):
        if blobs[i].fresh:
            i += 1
            continue
        j = i
        while j < len(blobs) and not blobs[j].fresh:
            j += 1
        if j - i >= 2 and any(frames[i] <= tr.start <= frames[j - 1] for tr in pool if tr is not current):
            return _prefix(current, i) if i else current
        i = j
    return current


def _still(tr: Tracklet) -> bool:
    """Seen in two frames or more, always within STATIC_SPAN of one place (never where a
    sighting is not finite)."""
    return len(tr.blobs) >= 2 and tr.span() < STATIC_SPAN


def _flicker(tr: Tracklet, followed: Tracklet, pool: list[Tracklet], max_gap: int, reach: float) -> bool:
    """Whether ``tr`` never moved, or stayed on the way ``followed`` walked before it appeared
    (each sighting within TRAIL_REACH of it), was gone before ``followed`` - which moved, so
    drew any trail there is - was last seen, and nothing goes on from it (no tracklet of
    ``pool`` begins near where it ended within ``max_gap`` frames, as the track's next piece
    would): a piece of the trail flickering into the agent's colour for a frame or two beside
    the agent at rest, not the agent leaving a copy of itself behind. Else the track went on
    with the piece and ended with it, 36 frames before the video did, the dot gliding to rest
    on the goal (mazeworld 65065 v00038: "does not stay"); pieces of a trail seen in turn at
    places along it make a tracklet that seems to move (mazeworld 82082-wide v00155: a 6-px dot
    at 1080p gliding to rest, read "teleported across a wall post"). What comes apart from a
    marker that never moved is the agent leaving it: one seen twice about one place, then
    further on (71071 v00153 vignetted, shaken and crushed), or one that steps out through the
    border and is not seen for most of the video (tests/maze/test_maze_unplanned.py: the
    crossing was lost)."""
    if tr.end >= followed.end or _still(followed) or not (_still(tr) or _on_way_before(tr, followed)):
        return False
    return not any(tr.end < o.start <= tr.end + max_gap + 1 and _in_gate(tr, o, reach)
                   for o in pool if o is not followed)


def _on_way_before(tr: Tracklet, followed: Tracklet) -> bool:
    """Whether each sighting of ``tr`` lies within TRAIL_REACH of the way ``followed`` walked
    before ``tr`` was first seen (where a trail it drew lies)."""
    way = np.array([[b.row, b.col] for f, b in zip(followed.frames, followed.blobs) if f < tr.start])
    return len(way) >= 2 and all(distance_to_polyline(way, np.array([b.row, b.col])) <= TRAIL_REACH
                                 for b in tr.blobs)


def gate_radius(missed: int, reach: float = GATE_BASE) -> float:
    """Lattice cells from where an object was last seen within which one seen ``missed``
    frames later continues it: GATE_BASE, or the video's link ``reach`` where larger (see
    :func:`link_reach`), plus GATE_PER_FRAME for each frame missed."""
    return max(GATE_BASE, reach) + GATE_PER_FRAME * missed


def _in_gate(prev: Tracklet, nxt: Tracklet, reach: float) -> bool:
    """Whether ``nxt`` (beginning after ``prev`` ends) begins near where ``prev`` ended, within
    :func:`gate_radius` of it."""
    return float(np.hypot(*(nxt.first() - prev.last()))) <= gate_radius(nxt.start - prev.end - 1, reach)


def _static(tr: Tracklet) -> bool:
    """Still, and seen in three frames or more (a marker)."""
    return len(tr.frames) >= 3 and _still(tr)


def _leave_markers(track: Track, current: Tracklet, pool: list[Tracklet],
                   short: Sequence[Tracklet], max_gap: int, *, reach: float) -> Tracklet:
    """When the followed object stops for good and a moving object splits off from it (the
    agent leaving a copy of itself - the start marker - behind), follow the mover. One first
    seen in the same frame as the followed object counts when it moves on: an agent that
    left the start marker before it was first seen (absent or too pale in frame 0, a cell
    away in frame 1 of a 2-fps strip: mazeworld 81818 v00038 shaken); it was on the marker
    the frame before, where the track then begins. A mover is also taken from a sighting too
    short for a tracklet of its own (``short``) that it continues after a frame or two missed
    (:func:`_bridged`). Split off: first seen within SPLIT_RADIUS of the followed object, or
    within ``reach`` where that is farther (a VMEvalKit dot that leaves a copy of itself on the
    start, in a strip with one frame in two kept, is first seen two cells from it: the track
    stayed on the copy, "never reaches the goal")."""
    while True:
        movers = []
        for tr in [*pool, *_bridged(pool, short, current, reach)]:
            if tr is current or not (current.start <= tr.start <= current.end) \
                    or tr.start == current.start and _still(tr) or _flicker(tr, current, pool, max_gap, reach):
                continue
            # the followed object while the mover exists (the agent may come back over it later),
            # over at least SPLIT_WATCH frames (a slow agent looks still over a few)
            rest = [b for f, b in zip(current.frames, current.blobs)
                    if tr.start <= f <= max(tr.end, tr.start + SPLIT_WATCH)]
            pts = np.array([[b.row, b.col] for b in rest])
            apart = float(np.hypot(*(tr.first() - pts[-1]))) if len(rest) else 0.0
            moves = not _static(tr) or apart >= SPLIT_MIN
            # split off from where the followed object is, or from where it was the frame before
            # (the two were one blob until they came apart: an agent and its trail)
            before = [b for f, b in zip(current.frames, current.blobs) if f < tr.start][-1:]
            origins = [pts[0]] if len(rest) else []
            origins += [np.array([b.row, b.col]) for b in before]
            if len(rest) >= 3 and float(np.ptp(pts, axis=0).max()) < STATIC_SPAN and moves \
                    and min(float(np.hypot(*(tr.first() - o))) for o in origins) <= max(SPLIT_RADIUS, reach):
                movers.append(tr)
        if not movers:
            return current
        mover = min(movers, key=lambda tr: tr.start)
        n = bisect_left(current.frames, mover.start)
        while n and not current.blobs[n - 1].fresh:  # held positions say nothing about when it left
            n -= 1
        if n:
            _place(track, _prefix(current, n))
            # (the frame before the mover's first sighting is the agent's, on the marker it leaves:
            # an agent is seen apart from it once it has moved off; after a frame missed, unknown)
            track.marker_frames += [f for f in _still_before(current, n) if f != mover.start - 1]
        elif not track.pieces and mover.start > 0:
            # first seen apart from the copy it left: it was on it the frame before
            _place(track, Tracklet(frames=[mover.start - 1], blobs=[current.blobs[0]]))
        track.markers_left += 1
        current = mover


def _still_before(tr: Tracklet, n: int) -> list[int]:
    """The frames of ``tr``'s sightings before its ``n``-th in which it stood where it was then
    (within STATIC_SPAN): the marker an agent was later seen leaving, which may have stood
    there alone."""
    place = tr.blobs[n - 1]
    i = n
    while i and math.hypot(tr.blobs[i - 1].row - place.row, tr.blobs[i - 1].col - place.col) < STATIC_SPAN:
        i -= 1
    return tr.frames[i:n]


def _bridged(pool: list[Tracklet], short: Sequence[Tracklet], current: Tracklet,
             reach: float) -> list[Tracklet]:
    """Tracklets of ``pool`` that begin while ``current`` is followed, each with the short
    tracklet (``short``: a sighting or so) it continues prefixed: one that ended at most
    BRIDGE_GAP frames before it began, within :func:`gate_radius` of its first blob. A pale
    agent leaving the start marker it sat on is seen in some frames only (frame blending halves
    its colour: an MMGR square a lattice cell a frame, mazeworld 58058 v00203 ghosted: seen at
    2.75 cells from the marker, missed, then seen on from 4.1), and its own tracklet begins too
    far from the marker to have split off from it."""
    ending: dict[int, list[Tracklet]] = {}  # the short tracklets by their last frame
    for b in short:
        if b.start >= current.start:
            ending.setdefault(b.end, []).append(b)
    out = []
    for tr in pool if ending else ():
        if tr is current or not current.start < tr.start <= current.end:
            continue
        first = tr.blobs[0]
        for gap in range(1, BRIDGE_GAP + 1):
            for b in ending.get(tr.start - gap - 1, ()):
                last = b.blobs[-1]
                if _within(first.row - last.row, first.col - last.col, gate_radius(gap, reach)):
                    out.append(Tracklet(frames=b.frames + tr.frames, blobs=b.blobs + tr.blobs))
    return out


def _rested(tr: Tracklet, frame: int) -> bool:
    """Whether ``tr`` was at rest by ``frame``: its last REST_SIGHTINGS sightings up to then
    (as many at least) within STATIC_SPAN of one place."""
    n = bisect_left(tr.frames, frame + 1)
    if n < REST_SIGHTINGS:
        return False
    r0, r1, c0, c1, finite = _bounds(tr.blobs[n - REST_SIGHTINGS:n])
    return finite and max(r1 - r0, c1 - c0) < STATIC_SPAN


def link_reach(solution_length: int, frames: int) -> float:
    """Lattice cells the agent may move between two consecutive frames of a video of
    ``frames`` frames whose maze's solution is ``solution_length`` lattice cells long:
    LINK_RADIUS, or FAST_MARGIN x the solution over the frames where that is more (at most
    MAX_REACH). An agent solving the maze in a few frames moves farther each frame than
    LINK_RADIUS allows: a strip of a few frames of a longer video, one frame in two kept, is
    two cells a frame (``benchmarks/maze_frame_rates.py --strip-step 2``), and its agent was
    seen as a dozen objects of one sighting each."""
    if frames < 2:
        return LINK_RADIUS
    return max(LINK_RADIUS, min(MAX_REACH, FAST_MARGIN * solution_length / (frames - 1)))


def _reach(tr: Tracklet, reach: float) -> float:
    """How far an object followed may be linked on in the next frame: ``reach``, STATIC_SPAN
    once at rest - a blob further off is another object, or the same one setting off, whose
    tracklet the track then continues. Else a look-alike at rest took an agent walking over it
    as one blob with it, then the agent as the two came apart, and went on with it, while the
    agent's own tracklet took the look-alike as it showed again, where the track then ended
    (mazeworld 81818 v00077 ghosted: "never reaches the goal")."""
    return STATIC_SPAN if _rested(tr, tr.end) else reach


def _prefix(tr: Tracklet, n: int) -> Tracklet:
    """The first ``n`` sightings of ``tr`` (its frames rise: those before ``tr.frames[n]``)."""
    return Tracklet(frames=tr.frames[:n], blobs=tr.blobs[:n])


def _place(track: Track, tr: Tracklet) -> None:
    track.pos[tr.frames] = [(blob.row, blob.col) for blob in tr.blobs]
    track.overlap[tr.frames] = [blob.overlap for blob in tr.blobs]
    track.pieces.append((tr.start, tr.end))
