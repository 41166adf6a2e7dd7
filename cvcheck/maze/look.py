"""Learn how a maze video draws its agent, from its first frames (pure array code).

The maze itself (box, grid, walls, start and goal markers) is read by
:func:`cvcheck.maze.read.read_maze`. The agent is what appears on the start or moves
away from it: per hue class, the coloured blob nearest the start is followed over the
first frames, and the agent's class is

1. the one that moves away from the start (if several, the one that appeared latest:
   an icon drawn over a start marker that stays);
2. else the one that appeared on the start after the first frame, seen in two frames or
   more (maze-dataset ``MazePlot`` videos: the star appears on the start circle in frame 1;
   a compression speck seen once at a wall's edge is no agent, nor one under a tenth of the
   start marker's size at its edge);
3. else, with two classes on the start (each seen in two frames or more), the one that
   is not the start marker's, if at least a tenth of its size (an icon drawn over it; an
   H.264 fringe along a green square's edge is magenta);
4. else one absent from the first frame that appeared near the start and went on, not
   followed from it (a MazePlot star in a strip of a few frames of a video, one frame in two
   kept: first seen a cell or two off the start, or seen once and then only as one blob with
   the trail it draws, too large for a marker); where it was first seen off the start, the
   verifier places it on the start the frame before, so that step is checked as any other;
5. else the start marker's own class (MMGR: the green square is the agent), also when it
   is seen only once (a dot that leaves at once, paling inside the trail it draws).

Its hue window, saturation, value and size come from those observations, so a 3-px dot
and a large icon are both found without fixed minimum areas.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from .lattice import MazeSpec, lattice_to_cell
from .read import HUE_CLASSES, RED_HUES, Marker, MazeLook, find_markers, find_trails, in_window, on_post
from .style import StyleProfile

NEAR_START = 0.75      #: cells: a blob this close to the start cell's centre is on the start
MOVED = 0.4            #: cells: a followed blob this much farther than "on the start" has moved away
FOLLOW = 1.5           #: cells: a blob moves at most this far between two frames to be the same one
STAYED = 2             #: frames a candidate is seen in at least (a compression speck shows in one)
GREW = 3.0             #: a blob on the start growing this much is an agent drawing a trail (it moved)
TRAIL_PALER = 0.85     #: ... as is one growing STEADY x while its mean saturation falls under this share
PEAK_HELD = 0.9        #: ... and its peak saturation stays at least this share (of those sitting still)
STEADY = 1.5           #: sightings within this size ratio are one steady look of the agent
ON_MARKER = 0.1        #: an object on the start marker from the first frame is at least this share of the
                       #: marker's area to be the agent (less: a compression fringe of the marker's edge)
FRINGE_REACH = 0.25    #: cells beyond a larger object's edge a compression fringe of it stays within
UNCOVERED_AT = 0.25    #: cells: an uncovered start marker ends centred this near the start
WINDOW = 3             #: cells around the start the agent is looked for in (it leaves them later)
APPEARED_WITHIN = 2.5  #: cells from the start an agent absent from the first frame may first be seen at
MIN_AGENT = 0.0003     #: cells^2: smaller coloured specks are no agent (a 4-px dot in a 200-px cell is 0.0003)
LEARN_PX_PER_CELL = 160  #: the window around the start is searched this finely (a 3-px dot stays a few pixels)
LATTICE_THICKNESS = 0.3  #: walls this thick (cells) are analysed as a lattice, thinner ones as lines


@dataclass(frozen=True)
class AgentLook:
    """The agent as learned from the first frames."""

    hue_class: tuple[int, int]      #: OpenCV hue window of its class
    hue: int                        #: its typical hue
    area: float                     #: cells^2 (median over the frames it was seen on the start, or near it)
    saturation: int                 #: typical HSV saturation and value (0-255)
    value: int
    how: str                        #: moved | appeared | on_start_marker | appeared_near_start | start_marker | default
    core_area: float = 0.0          #: cells^2 at least half as vivid as its peak (its drawn size under blur)
    #: its first sighting on the start: (learning frame, row, col in cells), None by default
    seen_at: tuple[int, float, float] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"hue": self.hue, "hue_window": list(self.hue_class), "area_cells": round(self.area, 4),
                "core_area_cells": round(self.core_area, 4),
                "saturation": self.saturation, "value": self.value, "identified_by": self.how}


def _class_of(hue: int) -> tuple[int, int]:
    """The hue class (its window in HUE_CLASSES) an OpenCV hue falls in (red if none)."""
    if 0 <= hue < len(_CLASS_OF_HUE):  # (looked up: it is asked for every blob of every learning frame)
        return _CLASS_OF_HUE[hue]
    return _search_class(hue)


def _search_class(hue: int) -> tuple[int, int]:
    return next((cls for cls in HUE_CLASSES if in_window(hue, cls)), RED_HUES)


_CLASS_OF_HUE = tuple(_search_class(h) for h in range(180))  #: the class of each OpenCV hue 0-179


@dataclass(frozen=True)
class _Spread:
    """The blobs of one hue class followed from the start over the first frames."""

    followed: list[Marker]  #: every sighting
    first: int              #: the frame it was first seen on the start
    far: float              #: cells: farthest from the start (a growing trail counts as moved)
    frames_seen: int        #: frames it was seen in
    grew: bool = False      #: grew GREW x from its first sighting (counted as moved: a trail)
    reach: float = 0.0      #: cells: farthest its sightings' centres were from the start
    by_frame: dict[int, list[Marker]] = field(default_factory=dict)  #: the sightings of each frame

    @property
    def moved(self) -> bool:
        return self.far - NEAR_START > MOVED

    @property
    def stayed(self) -> bool:
        """Seen in ``STAYED`` frames or more: not a flicker (an agent may leave the window
        or enter the goal's cell soon after it appears, in a 2-fps strip, so no share of
        the frames is asked for)."""
        return self.frames_seen >= STAYED


def _spread(per_frame: list[list[Marker]], start: tuple[float, float]) -> _Spread | None:
    """Follow every blob that began on the start, frame to frame (within ``FOLLOW`` cells);
    None if none began there. A start marker that stays and an agent leaving it are both
    followed."""
    first: int | None = None
    followed: list[Marker] = []
    current: list[Marker] = []
    by_frame: dict[int, list[Marker]] = {}
    far, seen = 0.0, 0
    for f, blobs in enumerate(per_frame):
        if first is None:
            current = [b for b in blobs if np.hypot(b.row - start[0], b.col - start[1]) <= NEAR_START]
            if current:
                first, seen = f, 1
                followed += current
                by_frame[f] = current
            continue
        nxt = [b for b in blobs if any(np.hypot(b.row - c.row, b.col - c.col) <= FOLLOW for c in current)]
        if nxt:
            current = nxt
            followed += nxt
            by_frame[f] = nxt
            seen += 1
            # how far it went: a speck under ON_MARKER of the frame's largest sighting is none of
            # it (an H.264 fringe of a star's edge, of its class, trailing the star as it leaves
            # the start marker: mazeworld 81818 v00064 pillarboxed)
            big = max(b.area for b in nxt)
            far = max(far, max(float(np.hypot(b.row - start[0], b.col - start[1])) for b in nxt
                               if b.area >= ON_MARKER * big))
    if first is None:
        return None
    # an agent drawing a trail stays one growing blob whose centre lags behind it
    grew = max(b.area for b in followed) >= GREW * followed[0].area
    return _Spread(followed, first, far + (MOVED + NEAR_START if grew else 0.0), seen, grew=grew, reach=far,
                   by_frame=by_frame)


def learn_agent(frames: Sequence[np.ndarray], look: MazeLook, spec: MazeSpec) -> AgentLook:
    """The agent's look from the first frames of a video (see the module docstring)."""
    sr, sc = lattice_to_cell(spec.start)
    start = (sr + 0.5, sc + 0.5)
    seen: dict[tuple[int, int], list[list[Marker]]] = {cls: [] for cls in HUE_CLASSES if cls != RED_HUES}
    pale: dict[tuple[int, int], list[list[Marker]]] = {cls: [] for cls in seen}  # vivid only in part (+ trail)
    on_goal: dict[tuple[int, int], list[list[Marker]]] = {cls: [] for cls in seen}  # in the goal's cell
    goal_like: list[list[Marker]] = []  # red objects (the goal marker, wherever it is drawn)
    box, grid, origin = _window(look, (sr, sc), WINDOW)
    # whatever is drawn in the goal's cell belongs to the goal (a flag's pole is brown: orange)
    goal_cell = look.goal.cell if look.goal is not None else lattice_to_cell(spec.goal)
    for frame in frames:
        placed = (replace(b, row=b.row + origin[0], col=b.col + origin[1],
                          cell=(b.cell[0] + origin[0], b.cell[1] + origin[1]))
                  for b in find_markers(frame, box, grid, px_per_cell=LEARN_PX_PER_CELL, min_area=MIN_AGENT)
                  if b.area >= MIN_AGENT and max(_saturation(b), b.peak_saturation) >= 90)
        of_class: dict[tuple[int, int], list[Marker]] = {cls: [] for cls in seen}  # red is the goal's
        in_goal: dict[tuple[int, int], list[Marker]] = {cls: [] for cls in seen}
        red: list[Marker] = []
        for b in placed:
            if (cls := _class_of(b.hue)) in of_class:  # (in maze cells, not the window's)
                (in_goal if b.cell == goal_cell else of_class)[cls].append(b)
            elif _saturation(b) >= 90:
                red.append(b)
        goal_like.append(red)
        for cls, blobs in of_class.items():
            seen[cls].append([b for b in blobs if _saturation(b) >= 90])
            pale[cls].append(blobs)
            on_goal[cls].append([b for b in in_goal[cls] if _saturation(b) >= 90])
    options = {cls: spread for cls, per_frame in seen.items() if (spread := _spread(per_frame, start)) is not None}
    marker_cls = _class_of(look.start.hue) if look.start is not None else None
    # An agent moving away may be seen once (it leaves the window); any other candidate is
    # seen in two frames or more (a compression speck shows in one).
    moved = [cls for cls, o in options.items() if o.moved]
    # a speck moving with a far larger object seen in more frames is its fringe (a blurred blue
    # star's edge reads purple under H.264), not an icon that appeared over it later
    # - also of a larger one that has not (yet) moved far, when at its edge in every frame it is
    # seen (a washed-out, grainy star's rim: mazeworld tone 52424 v00218, v00286)
    # - and of one that appeared on the start after the first frame, seen in more frames
    # (flicker and H.264 grain around a MazePlot star: a purple speck "moving" near it,
    # mazeworld 81818 v00098 flickered again)
    moved = [c for c in moved if not any(_fringe_of(options[c], options[o]) if o in moved or options[o].first > 0
                                         else _rim_of(options[c], options[o]) for o in options if o != c)]
    # the start marker coming out from under an agent that leaves it slowly grows as a trail
    # does, but ends as the marker, where it was (mazeworld 42424 v00250: a large star gliding
    # off a MazePlot start circle at 0.12 cells a frame; the circle was taken for the agent)
    moved = [c for c in moved if not (c == marker_cls and _uncovered(options[c], look.start, start))]
    stayed = [cls for cls, o in options.items() if o.stayed]
    how, pick = "default", None
    if moved:  # the latest to appear; then one not of the start marker's colour
        how, pick = "moved", max(moved, key=lambda c: (options[c].first, c != marker_cls, options[c].far))
    elif appeared := [c for c in stayed if options[c].first > 0
                      and not (_vanished_in_place(options[c], len(frames))
                               and not _sized_on_marker(options[c], look.start))
                      # (nor a speck on the rim of a larger object: a magenta H.264 fringe along
                      # a small green square's edge once it moves, mazeworld 81818 v00129 shrunk)
                      and not any(_rim_of(options[c], options[o]) for o in options if o != c)
                      and not _fringe_of_marker(options[c], look.start)]:
        how, pick = "appeared", max(appeared, key=lambda c: (len(options[c].followed),  # the one seen most often
                                                             max(b.area for b in options[c].followed),
                                                             -options[c].first))
    elif len(stayed) > 1 and marker_cls is not None and (on := [c for c in stayed if c != marker_cls
                                                                and _sized_on_marker(options[c], look.start)]):
        how, pick = "on_start_marker", max(on, key=lambda c: len(options[c].followed))
    elif (near := _appeared_near_start(seen, on_goal, goal_like, start, look.start, exclude=marker_cls,
                                       trails=_trails_of(frames, box, grid, origin))) is not None:
        how, (pick, options[pick]) = "appeared_near_start", near
    elif options:  # (seen once: an agent that leaves at once, pales as it draws a trail)
        how, pick = "start_marker", max(options, key=lambda c: (c == marker_cls, len(options[c].followed)))
    if pick is None:
        ref = look.start
        if ref is None:
            return AgentLook(hue_class=HUE_CLASSES[3], hue=60, area=0.1, saturation=200, value=200, how="default",
                             core_area=0.1)
        # nothing followed from the start: the agent is taken for the start marker, as vivid as
        # it was read - never more vivid than the default (a small dot paled by blur and a
        # colour drift, read at saturation 87, was looked for at 140 and never found:
        # mazeworld 60606 v00031 made small, boiled and drifted)
        return AgentLook(hue_class=_class_of(ref.hue), hue=ref.hue, area=ref.area,
                         saturation=int(min(200, _saturation(ref))), value=int(min(200, max(ref.rgb))),
                         how=how, core_area=ref.core_area or ref.area)
    cls, followed = pick, options[pick].followed
    # per frame, its largest sighting on the start: specks of its colour beside it (grain, an
    # H.264 fringe: mazeworld 81818 v00096 at CRF 40) are followed with it, and a speck on a
    # wall junction beside the start is no sighting of the agent (a distractor, a fringe)
    def on_the_start(b: Marker) -> bool:
        return bool(np.hypot(b.row - start[0], b.col - start[1]) <= NEAR_START) and not on_post(b)

    on_start_by_frame = _largest_by_frame(options[pick], on_the_start)
    sightings = on_start_by_frame or _largest_by_frame(options[pick])
    on_start = _no_specks_left(sightings)
    seen_at = None
    if on_start_by_frame or how == "appeared_near_start":  # (its first sighting on the start, or near it)
        at, first_on = sightings[0]
        seen_at = (at, first_on.row, first_on.col)
    rgb = np.array([b.rgb for b in followed], np.float64)
    # size and vividness while it sits still on the start: neither half-faded in nor
    # grown by a trail it starts drawing, nor a speck it left there
    early = _steady([b for _, b in on_start])
    area = float(np.median([b.area for b in early]))
    core = float(np.median([b.core_area or b.area for b in early]))
    if how in ("start_marker", "moved") and look.start is not None and cls == marker_cls \
            and area > STEADY * look.start.area:
        # the agent is the start marker (or leaves a copy of it behind), seen larger than the
        # marker as read from the puzzle frame: merged with the trail it draws, and with the copy
        # it left (a 2-fps strip leaves it no steady sightings; mazeworld 21313 v00311)
        area, core = look.start.area, look.start.core_area or look.start.area
    # Behind an agent that draws a (paler) trail, the agent is told from it by its most vivid
    # part; otherwise by its mean colour (a small agent's rim pales on the analysis canvas).
    with_pale = _spread(pale[cls], start)
    grown = with_pale.followed if with_pale else followed
    trail = (max(b.area for b in grown) >= GREW * area or _paled_as_it_grew(grown, early, area)
             or how == "appeared_near_start" and options[pick].grew)  # (seen once, then one blob with its trail)
    return AgentLook(hue_class=cls, hue=int(np.median([b.hue for b in followed])), area=area,
                     saturation=int(np.median([max(_saturation(b), b.peak_saturation) if trail else _saturation(b)
                                               for b in early])),
                     value=int(np.median(rgb.max(axis=1))), how=how, core_area=core, seen_at=seen_at)


def _paled_as_it_grew(sightings: list[Marker], early: list[Marker], area: float) -> bool:
    """Whether the object grew at least STEADY x its size while its mean vividness fell under
    TRAIL_PALER of what it was sitting still (``early``) and its most vivid part stayed as vivid
    (PEAK_HELD): paler pixels joined it, the start of the trail a slow agent draws (mazeworld
    81818 v00155 shaken: 2.5 x its size by the last learning frame, under GREW)."""
    mean = float(np.median([_saturation(b) for b in early]))
    peak = float(np.median([b.peak_saturation for b in early]))
    return any(b.area >= STEADY * area and _saturation(b) <= TRAIL_PALER * mean
               and b.peak_saturation >= PEAK_HELD * peak for b in sightings)


def _largest_sightings(option: _Spread, keep: Callable[[Marker], bool] | None = None) -> list[Marker]:
    """Its largest sighting in each frame (of those ``keep`` accepts), in frame order: specks
    of its colour around it (grain, a broken-up fringe) are followed with it."""
    return [b for _, b in _largest_by_frame(option, keep)]


def _largest_by_frame(option: _Spread, keep: Callable[[Marker], bool] | None = None) -> list[tuple[int, Marker]]:
    """:func:`_largest_sightings`, each with its frame."""
    out = []
    for frame, blobs in sorted(option.by_frame.items()):
        if kept := [b for b in blobs if keep is None or keep(b)]:
            out.append((frame, max(kept, key=lambda b: b.area)))
    return out


def _typical_area(option: _Spread) -> float:
    """Its usual size: the median of its largest sighting in each frame."""
    return float(np.median([b.area for b in _largest_sightings(option)]))


def _fringe_of(small: _Spread, large: _Spread) -> bool:
    """Whether a moving candidate is a fringe or speck of a larger one: under ON_MARKER of its
    size, and seen in fewer frames or only ever at the larger one's edge (a blue star's purple
    H.264 rim, seen in every frame the star is: mazeworld 46868 v00214)."""
    return _typical_area(small) < ON_MARKER * _typical_area(large) and (
        small.frames_seen < large.frames_seen or _clings_to(small, large))


def _rim_of(small: _Spread, large: _Spread) -> bool:
    """Whether a candidate is a speck on the rim of a larger one: under ON_MARKER of its size
    and at its edge in every frame it is seen."""
    return _typical_area(small) < ON_MARKER * _typical_area(large) and _clings_to(small, large)


def _clings_to(small: _Spread, large: _Spread) -> bool:
    """Whether every sighting of ``small`` lies at most FRINGE_REACH cells beyond the edge of a
    sighting of ``large`` in the same frame."""
    for f, blobs in small.by_frame.items():
        others = large.by_frame.get(f)
        if not others:
            return False
        if not all(any(_at_edge_of(b, o) for o in others) for b in blobs):
            return False
    return bool(small.by_frame)


def _at_edge_of(b: Marker, large: Marker) -> bool:
    """Whether ``b`` lies at most FRINGE_REACH cells beyond the edge of ``large`` (taken as a
    disk of its area)."""
    return float(np.hypot(b.row - large.row, b.col - large.col)) <= float(np.sqrt(large.area / np.pi)) + FRINGE_REACH


def _fringe_of_marker(option: _Spread, marker: Marker | None) -> bool:
    """Whether an object that appeared is a compression fringe of the start marker as read from
    the puzzle frame: under ON_MARKER of its size and, in every frame it is seen, at most
    FRINGE_REACH cells beyond its edge. Once the agent leaves a marker that stays, H.264 rings
    at the marker's corners in the complementary hue (a 3-px magenta speck at a green square's
    corner, mazeworld 46046 v00129 drifting: learned as the agent, which was then never found).
    :func:`_rim_of` misses it, as the object of the marker's colour it follows is drawn away
    from the marker by the agent leaving it, the trail merged with both."""
    if marker is None or _typical_area(option) >= ON_MARKER * marker.area:
        return False
    return all(_at_edge_of(b, marker) for blobs in option.by_frame.values() for b in blobs)


def _appeared_near_start(seen: dict[tuple[int, int], list[list[Marker]]],
                         on_goal: dict[tuple[int, int], list[list[Marker]]], goal_like: list[list[Marker]],
                         start: tuple[float, float], marker: Marker | None, *, exclude: tuple[int, int] | None,
                         trails: Callable[[int, tuple[int, int]], list[np.ndarray]]
                         ) -> tuple[tuple[int, int], _Spread] | None:
    """The class of an agent that appeared near the start and went on, not followed from it,
    and its sightings: absent from the first frame, it appears after it within APPEARED_WITHIN
    cells of the start, at least ON_MARKER of the start marker's size, and is seen again (also
    in the goal's cell: ``on_goal``) at least MOVED cells from where it appeared, or, seen once,
    is one blob too large for a marker with a trail from where it appeared on in a later frame
    (``trails(frame, class)``: such blobs' pixels, in cells; :func:`_trail_from`). A MazePlot
    star appears only from frame 1: in a strip of a few frames of a video, one frame in two
    kept, it is first seen a cell or two on, or on the start once and next in the goal's cell,
    which the other rules do not follow it into, or on the start once and then as one blob
    with the trail it draws, two cells long. Not of the start marker's class (``exclude``), nor
    at the edge of a far larger object (a compression fringe), nor, where it appears, at the
    edge of a red one (``goal_like``: a flag's pole, the flag moved near the start); the largest
    such candidate; None without a start marker or a candidate."""
    if marker is None:
        return None
    least = ON_MARKER * marker.area
    found: list[tuple[float, tuple[int, int], _Spread]] = []
    for cls, per_frame in seen.items():
        if cls == exclude or not per_frame or any(b.area >= least for b in per_frame[0]):
            continue
        others = [[b for c, frames in seen.items() if c != cls for b in frames[f]] for f in range(len(per_frame))]
        by_frame: dict[int, list[Marker]] = {}
        for f, blobs in enumerate(per_frame):
            kept = [b for b in (blobs + on_goal[cls][f] if by_frame else blobs) if b.area >= least
                    and not any(o.area * ON_MARKER > b.area and _at_edge_of(b, o) for o in others[f])]
            if not by_frame:  # (a fringe of the start marker is under `least`)
                kept = [b for b in kept if _from(b, start) <= APPEARED_WITHIN
                        and not any(_at_edge_of(b, g) for g in goal_like[f])]
            if kept:
                by_frame[f] = [max(kept, key=lambda b: b.area)]
        followed = [bs[0] for _, bs in sorted(by_frame.items())]
        if len(by_frame) >= STAYED:
            first = (followed[0].row, followed[0].col)
            if max(_from(b, first) for b in followed[1:]) < MOVED:
                continue  # (an agent walks on from where it appears; one drawing a trail is one blob with it)
            far = max(_from(b, start) for b in followed)
        elif not followed or (reach := _trail_from(followed[0], min(by_frame), len(per_frame),
                                                   cls, trails, start)) is None:
            continue
        else:
            far = max(_from(followed[0], start), reach)
        found.append((followed[0].area, cls, _Spread(followed, min(by_frame), far, len(by_frame), reach=far,
                                                     by_frame=by_frame, grew=len(by_frame) < STAYED)))
    if not found:
        return None
    _, cls, spread = max(found, key=lambda x: x[0])
    return cls, spread


def _trail_from(b: Marker, at: int, frames: int, cls: tuple[int, int],
                trails: Callable[[int, tuple[int, int]], list[np.ndarray]], start: tuple[float, float]
                ) -> float | None:
    """How far from the start (cells) the farthest trail reaches that ``b``, seen in frame
    ``at`` only, drew on in a later frame: a blob of its class too large for a marker with a
    pixel within ``b``'s radius of where ``b`` was, reaching MOVED cells beyond that radius;
    None if none."""
    radius = float(np.sqrt(b.area / np.pi))
    for f in range(at + 1, frames):
        for pts in trails(f, cls):
            away = np.hypot(pts[:, 0] - b.row, pts[:, 1] - b.col)
            if away.min() <= radius and away.max() >= radius + MOVED:
                return float(np.hypot(pts[:, 0] - start[0], pts[:, 1] - start[1]).max())
    return None


def _trails_of(frames: Sequence[np.ndarray], box: tuple[float, float, float, float], grid: tuple[int, int],
               origin: tuple[int, int]) -> Callable[[int, tuple[int, int]], list[np.ndarray]]:
    """``trails(frame, class)``: the blobs of that class too large for markers in that learning
    frame (:func:`~.read.find_trails` in the window ``box`` of ``grid`` cells from cell
    ``origin``), in maze cells; found when first asked for."""
    found: dict[tuple[int, tuple[int, int]], list[np.ndarray]] = {}

    def trails(f: int, cls: tuple[int, int]) -> list[np.ndarray]:
        if (f, cls) not in found:
            found[f, cls] = [pts + origin for pts in find_trails(frames[f], box, grid, cls,
                                                                 px_per_cell=LEARN_PX_PER_CELL)]
        return found[f, cls]

    return trails


def _from(b: Marker, point: tuple[float, float]) -> float:
    """Cells from ``b``'s centre to ``point``."""
    return float(np.hypot(b.row - point[0], b.col - point[1]))


def _vanished_in_place(option: _Spread, frames: int) -> bool:
    """Whether an object that appeared was gone before the last learning frame without having
    moved (its last sighting under MOVED cells from its first). One that is also under
    ON_MARKER of the start marker is a compression speck that came and went (mazeworld 44646
    v00156: a blue speck on an MMGR start for three frames, learned as the agent while the
    green square was leaving); an agent leaves the window, stays, or enters the goal's cell.
    Specks it left on the start are no sightings of it (:func:`_no_specks_left`)."""
    seen = _own_sightings(option)
    if seen[-1][0] >= frames - 1:
        return False
    a, b = seen[0][1], seen[-1][1]
    return float(np.hypot(a.row - b.row, a.col - b.col)) < MOVED


def _uncovered(option: _Spread, marker: Marker | None, start: tuple[float, float]) -> bool:
    """Whether a start-marker-coloured object that "moved" only by growing is the marker itself,
    uncovered: it never left the start, and it ends at least about the marker's size as read
    (read from a frame the agent covered it in, it was smaller) centred on the start. A trail
    the agent draws grows along its way: its centre leaves the start as it grows."""
    if marker is None or not option.grew or option.reach - NEAR_START > MOVED:
        return False
    last = option.followed[-1]
    return last.area * STEADY >= marker.area and float(np.hypot(last.row - start[0],
                                                                last.col - start[1])) <= UNCOVERED_AT


def _sized_on_marker(option: _Spread, marker: Marker | None) -> bool:
    """Whether an object on the start marker is big enough to be an agent drawn over it (its
    usual size, specks it left on the start aside)."""
    if marker is None:
        return True
    return float(np.median([b.area for _, b in _own_sightings(option)])) >= ON_MARKER * marker.area


def _own_sightings(option: _Spread) -> list[tuple[int, Marker]]:
    """Its largest sighting in each frame, less the specks it left (:func:`_no_specks_left`)."""
    return _no_specks_left(_largest_by_frame(option))


def _no_specks_left(sightings: list[tuple[int, Marker]]) -> list[tuple[int, Marker]]:
    """The sightings ((frame, blob), in frame order) less those under ON_MARKER of an earlier
    one: specks left on the start after the agent went. An agent does not shrink tenfold in
    place; one drawing a trail only grows.

    Such specks sized the agent (a crushed fringe of a MazePlot start circle, of the star's
    class, seen in the three frames after the star was there once, in a 1-fps strip: mazeworld
    77077 v00254 shaken, flickered and crushed; the track then followed specks), and made an
    agent that left "vanish in place", too small to be one (78078 v00259 tilted, drifted and
    crushed: a MazePlot star drawing a trail in a 2-fps strip, seen on the start and a cell on,
    then one blob with its trail, too long for a marker; the start circle was learned instead)."""
    kept: list[tuple[int, Marker]] = []
    largest = 0.0
    for f, b in sightings:
        if b.area >= ON_MARKER * largest:
            kept.append((f, b))
        largest = max(largest, b.area)
    return kept


def _steady(sightings: list[Marker]) -> list[Marker]:
    """The first three consecutive sightings of about one size (within STEADY of each
    other), or the longest shorter run (the earliest of equally long ones). The first: a
    speck the agent leaves behind on the start is seen for longer than the agent was."""
    best: list[Marker] = []
    run: list[Marker] = []
    for b in sightings:
        sizes = [m.area for m in run] + [b.area]
        run = run + [b] if max(sizes) <= STEADY * min(sizes) else [b]
        if len(run) > len(best):
            best = list(run)
        if len(best) == 3:
            break
    return best


def _window(look: MazeLook, cell: tuple[int, int], half: int) -> tuple[tuple[float, float, float, float],
                                                                      tuple[int, int], tuple[int, int]]:
    """The part of the maze within ``half`` cells of ``cell``: (box, grid, first cell)."""
    t, l, b, r = look.box
    py, px = look.pitch
    r0, c0 = max(0, cell[0] - half), max(0, cell[1] - half)
    r1, c1 = min(look.grid[0], cell[0] + half + 1), min(look.grid[1], cell[1] + half + 1)
    return (t + r0 * py, l + c0 * px, t + r1 * py, l + c1 * px), (r1 - r0, c1 - c0), (r0, c0)


def _saturation(b: Marker) -> float:
    hi, lo = max(b.rgb), min(b.rgb)
    return 255.0 * (hi - lo) / hi if hi else 0.0


def detected_profile(look: MazeLook, agent: AgentLook) -> StyleProfile:
    """A :class:`StyleProfile` for what was read and learned ("detected")."""
    lo, hi = agent.hue_class
    goal_area = look.goal.area if look.goal is not None else 0.1
    goal_saturation = _saturation(look.goal) if look.goal is not None else 255.0
    # areas in lattice cells^2 (a maze cell is 2 x 2 lattice cells); a third of the learned size
    return StyleProfile(
        name="detected", walls="lattice" if look.wall_thickness >= LATTICE_THICKNESS else "lines",
        agent_hue=((lo - 5) % 180, (hi + 5) % 180), goal_hue=RED_HUES,
        # goal, icons, coloured slots: below the paler of the agent and the goal marker as read
        min_saturation=int(max(40, min(150, 0.65 * min(agent.saturation, goal_saturation)))),
        agent_min_saturation=int(max(40, min(160, 0.7 * agent.saturation))),  # a pale trail is not the agent
        min_value=int(max(60, min(90, 0.5 * agent.value))),
        # a third of the learned size, down to a third of the smallest agent learned (a 6-px dot in a
        # 300-px cell at 1080p is 0.0006 cells^2; the old floor, 0.002 lattice cells^2, hid it)
        agent_min_area=max(0.3 * 4 * MIN_AGENT, 0.3 * 4 * agent.area), agent_area=4 * agent.area,
        agent_vividness=agent.saturation,
        goal_min_area=max(0.002, 0.3 * 4 * goal_area),
        goal_changes_on_arrival=True, agent_is_start=True)
