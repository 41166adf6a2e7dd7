"""Read a drawn maze of any look: where it is, its grid, each wall segment, its markers.

One reader for every look met in practice (MMGR's lattice walls as wide as corridors,
maze-dataset ``MazePlot`` thin lines with axis ticks and labels, VMEvalKit's medium
lines with a faint cell grid and a caption touching the border...):

1. **Ink**: darkness relative to the paper (the bright end of the image), on unsaturated
   pixels only (coloured markers, paths and icons are not walls).
2. **Where**: the largest ink structure (a perfect maze's walls are one piece with its
   border); its outer border is the outermost rows/columns that are mostly ink, so text,
   ticks or captions glued to the border do not move it. The box is reported as the
   *centres* of the border lines.
3. **Grid**: ink starts and stops within half a wall of a cell boundary (the edges of
   thin lines, the unit boundaries of lattice walls; a light cell grid's lines count too);
   along each axis, the count is the smallest number of cells whose boundaries carry
   (almost) all those edges (``grid=`` overrides). An axis may also take the count the
   other's pitch implies for square cells - stretched as lattice walls are measured
   thicker one way (a square puzzle stretched to another aspect) - as far as its own edges
   lie on those lines (a comb of open boundaries leaves few); reading the walls decides
   between candidates.
4. **Walls**: each boundary segment is read by the darkest ink across the line (any
   thickness, from 1-px lines to lattice-wide walls) along its central half; a segment is
   a wall when that ink is closer to the border's than to the open segments'.
5. **Markers**: coloured blobs; the goal is the largest red one, the start the largest
   blob of another hue (a solution path spanning several cells is ignored).

All lengths are in image pixels unless named in cells; positions are ``(row, col)``.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import cv2
import numpy as np

from ..errors import InputError
from ..schema import Unparseable
from ..vision.arrays import as_rgb
from .lattice import Cell, MazeSpec, lattice_to_cell

PAPER_PERCENTILE = 95  #: the paper's brightness: this percentile of the pixels' value
FAINT_WALL_GAP = 0.06  #: darkness between tight groups of open boundaries and walls (less twice their spread)
INK_MIN = 0.25         #: darkness (share of the paper's brightness) that counts as ink when locating
FAINT_INK_MIN = 0.12   #: ... tried when nothing is found at INK_MIN (1-px grey lines blurred to ~0.2)
GRID_LINE_MIN = 0.015  #: median darkness along a row or column of the maze that makes it a faint grid line
GRID_LINE_BONUS = 0.2  #: ... grid candidates gain this x the share of such lines on their boundaries
FAINT_GRID_EDGES = 0.1  #: ... and such a line counts as this share of a full-length wall's ink edges
COLOUR_CHROMA = 45     #: max(RGB) - min(RGB) at or above this is colour, not ink
COLOUR_VALUE = 70      #: ... for pixels at least this bright
LATTICE_THICKNESS = 0.3  #: walls at least this thick (cells) are read as a lattice (MMGR), thinner ones as lines
MAX_GRID = 60          #: cells per side at most

Box = tuple[float, float, float, float]  # top, left, bottom, right (floats: line centres)


@dataclass(frozen=True)
class Marker:
    """A coloured blob in the maze: its cell, where in it, how big, what colour."""

    cell: Cell                   #: maze cell (row, col)
    row: float                   #: centroid in cell units (cell (r, c) spans [r, r+1) x [c, c+1))
    col: float
    area: float                  #: in cells^2
    hue: int                     #: OpenCV hue (0-179) of the blob's median colour
    rgb: tuple[int, int, int]    #: median colour
    peak_saturation: int = 0     #: its most vivid part (3x3 mean; a small dot's rim is paler)
    core_area: float = 0.0       #: cells^2 at least half as vivid as its peak (its drawn size under blur)

    def to_dict(self) -> dict[str, Any]:
        return {"cell": list(self.cell), "row": round(self.row, 3), "col": round(self.col, 3),
                "area_cells": round(self.area, 4), "hue": self.hue, "rgb": list(self.rgb)}


@dataclass(frozen=True)
class MazeLook:
    """How a maze is drawn in one picture (what the reader measured)."""

    box: Box                          #: centres of the outer border lines, image pixels
    grid: tuple[int, int]             #: (rows, cols)
    wall_thickness: float             #: interior walls, in cells (MMGR lattice: 0.5)
    border_thickness: float           #: outer border, in cells
    wall_level: float                 #: darkness of the drawn walls (0-1)
    open_level: float                 #: darkness of open boundaries (0 on white; a faint cell grid shows here)
    start: Marker | None = None
    goal: Marker | None = None

    @property
    def walls(self) -> str:
        """``lattice`` (walls as wide as corridors) or ``lines`` (thin walls on cell boundaries)."""
        return "lattice" if self.wall_thickness >= LATTICE_THICKNESS else "lines"

    @property
    def pitch(self) -> tuple[float, float]:
        """Cell size in pixels (rows, cols)."""
        t, l, b, r = self.box
        return ((b - t) / self.grid[0], (r - l) / self.grid[1])

    def to_dict(self) -> dict[str, Any]:
        return {"walls": self.walls, "grid": list(self.grid), "box": [round(v, 1) for v in self.box],
                "pitch_px": [round(v, 2) for v in self.pitch], "wall_thickness_cells": round(self.wall_thickness, 4),
                "border_thickness_cells": round(self.border_thickness, 4), "wall_level": round(self.wall_level, 3),
                "open_level": round(self.open_level, 3),
                "start": self.start.to_dict() if self.start else None,
                "goal": self.goal.to_dict() if self.goal else None}


@dataclass(frozen=True)
class MazeReading:
    """A maze read from a picture: the maze itself and how it is drawn."""

    spec: MazeSpec
    look: MazeLook
    vertical: np.ndarray = field(repr=False)    #: (rows, cols+1) darkness of each vertical boundary segment
    horizontal: np.ndarray = field(repr=False)  #: (rows+1, cols) darkness of each horizontal boundary segment
    threshold: float = 0.0                      #: darkness at or above which a segment is a wall
    ambiguous: int = 0                          #: segments close to the threshold


@dataclass(frozen=True)
class Blocked(Unparseable):
    """A maze read whole - its border, grid, walls and both markers - with no way from the
    start to the goal: the walls as read (``reading``, its spec without a solution) and the
    place it was read at (a :func:`box_candidates` box and its border bands). In a video, an
    occluder drawn over the puzzle (a watermark's shadow, a caption) can add walls that the
    next frames no longer show (see :func:`read_walls_again`)."""

    reading: MazeReading = field(repr=False, compare=False)
    place: Box


# -- ink and colour ----------------------------------------------------------------------------

BAND_PIXELS = 1 << 16  #: channels are split a band of rows of at most this many pixels at a time: temporaries
                       #: that small are recycled, larger ones come as fresh memory pages (~3x slower at 480p)


def _bands(rgb: np.ndarray) -> list[slice]:
    """Bands of rows of an image, of at most BAND_PIXELS pixels each (at least a row)."""
    step = max(1, BAND_PIXELS // max(1, rgb.shape[1]))
    return [slice(y, y + step) for y in range(0, rgb.shape[0], step)] or [slice(0, 0)]


def _value_chroma(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """max(R, G, B) and max - min per pixel, and a spare plane to write into (uint8; OpenCV's
    vector ops, far faster than numpy's, in place: fresh arrays cost more than the arithmetic)."""
    r, g, b = cv2.split(np.ascontiguousarray(rgb))  # (split is slow on a strided crop; a copy is not)
    vmax = cv2.max(r, g)
    cv2.max(vmax, b, dst=vmax)
    cv2.min(r, g, dst=r)
    cv2.min(r, b, dst=r)
    return vmax, cv2.subtract(vmax, r, dst=r), g


def colour_mask(rgb: np.ndarray) -> np.ndarray:
    """Saturated, bright-enough pixels (markers, paths, icons): uint8 0/255."""
    bands = _bands(rgb)
    if len(bands) == 1:
        return _colour(*_value_chroma(rgb))
    colour = np.empty(rgb.shape[:2], np.uint8)
    for rows in bands:
        colour[rows] = _colour(*_value_chroma(rgb[rows]))
    return colour


def _colour(value: np.ndarray, chroma: np.ndarray, spare: np.ndarray) -> np.ndarray:
    """0/255 where chroma >= COLOUR_CHROMA and value >= COLOUR_VALUE (uint8 thresholds), written
    over ``chroma`` (and ``spare``)."""
    cv2.threshold(chroma, COLOUR_CHROMA - 1, 255, cv2.THRESH_BINARY, dst=chroma)
    cv2.threshold(value, COLOUR_VALUE - 1, 255, cv2.THRESH_BINARY, dst=spare)
    return cv2.bitwise_and(chroma, spare, dst=chroma)


_SQUARE_3 = np.ones((3, 3), np.uint8)  #: the structuring element of closings and rims

RIM_DARK = 0.75  #: pixels touching a coloured marker lighter than this are its seam, not ink


def ink_map(image: np.ndarray) -> tuple[np.ndarray, float]:
    """Darkness of every pixel relative to the paper, 0 on coloured pixels; and the paper's value.

    Returns ``(darkness, paper)``: float32 (H, W) in [0, 1].
    """
    dark, paper, _ = _ink_and_colour(as_rgb(image))
    return dark, paper


def _ink_and_colour(rgb: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
    """:func:`ink_map`'s ``(darkness, paper)`` and :func:`colour_mask`, from one pass over the channels."""
    value, colour = np.empty(rgb.shape[:2], np.uint8), np.empty(rgb.shape[:2], np.uint8)
    for rows in _bands(rgb):
        value[rows], chroma, spare = _value_chroma(rgb[rows])
        colour[rows] = _colour(value[rows], chroma, spare)
    hist = cv2.calcHist([np.ascontiguousarray(value[::2, ::2])], [0], None, [256], [0, 256]).ravel()
    paper = float(max(1, int(np.searchsorted(np.cumsum(hist), PAPER_PERCENTILE / 100 * hist.sum()))))
    # darkness depends on the value alone: one float32 table of the 256 values, looked up per pixel
    darkness = np.clip((paper - np.arange(256, dtype=np.float32)) * np.float32(1.0 / paper), 0.0, 1.0)
    # A grey seam that video chroma subsampling leaves along a marker's edge is no wall: only
    # mid-dark pixels touching colour are dropped (a wall the marker touches stays dark).
    x, y, w, h = cv2.boundingRect(colour)
    if w:  # (only near colour: the seam's pixels are set to white, whose darkness is 0)
        y0, y1, x0, x1 = max(0, y - 1), y + h + 1, max(0, x - 1), x + w + 1
        near = colour[y0:y1, x0:x1]
        rim = cv2.dilate(near, _SQUARE_3)
        light = cv2.LUT(value[y0:y1, x0:x1], (darkness < RIM_DARK).astype(np.uint8) * np.uint8(255))
        seam = cv2.bitwise_and(rim, cv2.bitwise_or(near, light))
        value[y0:y1, x0:x1] = cv2.max(value[y0:y1, x0:x1], seam)
    return cv2.LUT(value, darkness), paper, colour


# -- where ------------------------------------------------------------------------------------

def _edges(counts: np.ndarray, floor: float) -> tuple[int, int, int, int] | None:
    """First and last index with ``counts >= floor``, and the widths of the bands starting/ending there."""
    hits = np.flatnonzero(counts >= floor)
    if hits.size < 2:
        return None
    lo, hi = int(hits[0]), int(hits[-1])
    lo_end = lo
    while lo_end + 1 < counts.size and counts[lo_end + 1] >= floor:
        lo_end += 1
    hi_start = hi
    while hi_start - 1 >= 0 and counts[hi_start - 1] >= floor:
        hi_start -= 1
    return lo, lo_end - lo + 1, hi, hi - hi_start + 1


def find_box(dark: np.ndarray) -> tuple[Box, tuple[float, float, float, float]] | None:
    """The maze's border: ``(centre box, border thicknesses top/left/bottom/right)``, or None.

    The box runs through the centres of the outer border lines. The maze is the largest
    ink structure that holds ink inside its own border; a border that blur or compression
    parted from the walls is a hollow ring around them, taken with what it encloses; a
    hollow ring at the picture's edge is a frame or letterbox bars, passed over. Ink is
    darkness from ``INK_MIN``, or from ``FAINT_INK_MIN`` when nothing is found that way
    (thin grey lines, blurred). Where no structure is found either way, the border is read
    from the inside (:func:`_box_from_inside`) - only then: a maze whose border blurred paler
    than ink, on a white card amid black bars, is found at the faint level, not taken for
    the card (mazeworld 81818 v00030 blurred).
    """
    for ink_min in (INK_MIN, FAINT_INK_MIN):
        found = _find_box_at(dark, ink_min)
        if found is not None:
            return found
    for ink_min in (INK_MIN, FAINT_INK_MIN):
        found = _box_from_inside((dark >= ink_min).astype(np.uint8))
        if found is not None:
            return found
    return None


def _box_shift(box: Box, other: Box) -> float:
    """How far the farthest-moved side of ``box`` is from the same side of ``other`` (px)."""
    return max(abs(a - b) for a, b in zip(box, other))


def _new_box(box: Box, given: list[Box]) -> bool:
    """Whether ``box`` is more than 2 px from each of ``given`` on some side (a place not yet given)."""
    return all(_box_shift(box, other) > 2 for other in given)


def box_candidates(dark: np.ndarray) -> Iterator[tuple[Box, tuple[float, float, float, float]]]:
    """Where the maze may be, the likeliest first (found as they are asked for):
    :func:`find_box`'s border, then the extent of the enclosed paper (the corridors) when it
    differs. A lattice maze whose border merged with dark bars shows no border of its own: a
    ring of walls standing free inside it, or a wall running its full height between the
    bars, is then taken for the border. Last, the largest structure of faint ink, when
    :func:`find_box` took a darker one: a caption's black text beside a maze drawn in pale
    grey lines (mazeworld 73737 v00144 shaken, flickered and crushed: read as a 6x3 maze in
    the word "Frame"); then the first box cut back to the maze's side where it holds an empty
    strip (:func:`_within_frame`: a plot's frame drawn wider than the maze)."""
    given: list[Box] = []
    first: list[tuple[Box, tuple[float, float, float, float]]] = []
    for candidate in (lambda: find_box(dark), lambda: _box_from_inside((dark >= INK_MIN).astype(np.uint8)),
                      lambda: _find_box_at(dark, FAINT_INK_MIN),
                      lambda: _within_frame(dark, *first[0]) if first else None):
        found = candidate()
        if found is not None and _new_box(found[0], given):
            given.append(found[0])
            if not first:
                first.append(found)
            yield found


FRAME_INK = 0.06   #: darkness that counts as ink in a frame's strip (a blurred 1-px line keeps about twice this)
FRAME_LINE = 0.95  #: a line across this share of a box's inside ...
FRAME_EMPTY = 0.05  #: ... with beyond it, up to the box's side, no column (row) inked on more than this share
FRAME_STRIP = 0.04  #: ... over at least this share of the box's width (height) is the maze's side


def _within_frame(dark: np.ndarray, box: Box, bands: tuple[float, float, float, float]
                  ) -> tuple[Box, tuple[float, float, float, float]] | None:
    """``box`` cut back, on each side where it holds an empty strip, to the line across it
    before the strip: a plot's frame drawn wider than the maze inside it (maze-dataset's
    MazePlot of a 9x7 maze in a square plot: a column of empty plot beside it). Blurred, the
    maze's own 1-px side is paler than the frame and the frame was taken for its border, the
    maze file's 7 columns stretched over 8 (mazeworld 84848 v00021 boiled, drifted and
    crushed). None where no side has such a strip."""
    t, l, b, r = box
    bt, bl, bb, br = bands
    y0, y1 = int(math.ceil(t + bt)) + 1, int(b - bb)
    x0, x1 = int(math.ceil(l + bl)) + 1, int(r - br)
    if y1 - y0 < 8 or x1 - x0 < 8:
        return None
    inked = (dark[y0:y1, x0:x1] >= FRAME_INK).astype(np.uint8)
    # (a line a pixel off between rows still covers them: its neighbours' ink counts)
    cols = cv2.dilate(inked, np.ones((1, 3), np.uint8))
    rows = cv2.dilate(inked, np.ones((3, 1), np.uint8))
    sides, widths = list(box), list(bands)
    for axis, profile, lo, size in ((1, cols.mean(axis=0), x0, x1 - x0), (0, rows.mean(axis=1), y0, y1 - y0)):
        for end in (0, 1):  # the near side (left, top), then the far one (right, bottom)
            order = np.arange(size) if end == 0 else np.arange(size)[::-1]
            full = profile[order] >= FRAME_LINE
            order = order[int(np.argmin(full)):] if not full.all() else order[:0]  # (past the border's own blur)
            lines = order[profile[order] >= FRAME_LINE]
            if not lines.size:
                continue
            edge = int(lines[0])
            strip = profile[order[:int(np.flatnonzero(order == edge)[0])]]
            strip = strip[3:-3] if strip.size > 6 else strip[:0]  # (the blurred sides of both lines left out)
            if strip.size < max(8, FRAME_STRIP * size) or strip.max() > FRAME_EMPTY:
                continue
            # the line's centre: its columns (rows) over FRAME_LINE next to the edge, inwards
            inwards, run = (1 if end == 0 else -1), [edge]
            while 0 <= run[-1] + inwards < size and profile[run[-1] + inwards] >= FRAME_LINE:
                run.append(run[-1] + inwards)
            side = (0 if axis == 0 else 1) + 2 * end
            sides[side] = lo + float(np.mean(run))
            widths[side] = max(1.0, float(round(len(run) / 2)))  # (a blurred line's core, about its width)
    if sides == list(box):
        return None
    return (sides[0], sides[1], sides[2], sides[3]), (widths[0], widths[1], widths[2], widths[3])


EDGE_LINE_MAX = 2  #: px: a border band this thin on the picture's edge may be a scaler's dark row (see _find_box_at)
CHAIN_MIN_AREA = 0.02  #: enclosed paper this share of the largest region's area may be more of the maze's corridors
CHAIN_GAP = (1 / 3, 1.5)  #: ... when a wall this many times its narrowest side away from them


def _even_box(binary: np.ndarray) -> tuple[int, int, int, int] | None:
    """The box around a map's non-zero pixels grown to start and end on even rows and columns
    (clipped to the map): ``(x0, y0, x1, y1)``, or None when there are none.

    OpenCV labels 8-connected components in 2x2 blocks, in scan order: on such a box it meets
    them in the same order as on the whole map, so their labels and stats are the whole map's
    (an odd offset regroups the blocks and may number them otherwise).
    """
    x, y, w, h = cv2.boundingRect(binary)
    if not w:
        return None
    x0, y0 = x - x % 2, y - y % 2
    return x0, y0, min(binary.shape[1], x + w + (x + w - x0) % 2), min(binary.shape[0], y + h + (y + h - y0) % 2)


def _labelled(binary: np.ndarray) -> tuple[np.ndarray, np.ndarray, tuple[int, int]]:
    """The 8-connected components of a binary map (``cv2.connectedComponents``), labelled on
    its :func:`_even_box` only: ``(labels of the box, each label's area, the box's (x, y))``.
    The components' labels are the whole map's; label 0's area is the box's paper. (OpenCV's
    stats cost a pass over every pixel, paper included: counting the labels is cheaper.)"""
    box = _even_box(binary)
    x0, y0, x1, y1 = box if box is not None else (0, 0, binary.shape[1], binary.shape[0])
    count, labels = cv2.connectedComponents(binary[y0:y1, x0:x1], connectivity=8)
    return labels, _areas(labels, count), (x0, y0)


def _where(labels: np.ndarray, label: int) -> np.ndarray:
    """0/255 where ``labels == label`` (uint8; OpenCV's compare, faster than numpy's). The label
    goes as a 1x1 array of the labels' type: a number becomes a 4x1 array, which OpenCV takes
    for the operand to compare with when ``labels`` is 1x1 itself."""
    return cv2.compare(labels, np.full((1, 1), label, labels.dtype), cv2.CMP_EQ)


def _box_of(labels: np.ndarray, label: int) -> tuple[int, int, int, int]:
    """``(x, y, width, height)`` of one label's pixels (as OpenCV's stats give it)."""
    x, y, w, h = cv2.boundingRect(_where(labels, label))
    return x, y, w, h


def _areas(labels: np.ndarray, count: int) -> np.ndarray:
    """Pixels of each label 0 .. count-1: ``np.bincount``'s counts, by OpenCV (bincount copies
    the labels to int64 first): a few labels one by one, more in a histogram of one bin per label."""
    if count <= 8:  # (one label: every labelled pixel is its)
        ink = [cv2.countNonZero(labels if count == 2 else _where(labels, k)) for k in range(1, count)]
        return np.array([labels.size - sum(ink), *ink], np.int64)
    if count <= 1 << 16:
        return cv2.calcHist([labels.astype(np.uint16)], [0], None, [count], [0, count]).ravel().astype(np.int64)
    return np.bincount(labels.ravel(), minlength=count)


def _find_box_at(dark: np.ndarray, ink_min: float, *,
                 cut_bars: bool = True) -> tuple[Box, tuple[float, float, float, float]] | None:
    """:func:`find_box` at one ink level: the outermost of the largest ink structures that hold
    ink inside their border, or None when there is none (a structure whose border merged
    with a frame or bars is read from the inside, unless paper parts it from them once they
    are cut away: ``cut_bars``, see :func:`_apart_from_bars`)."""
    ink = (dark >= ink_min).astype(np.uint8)
    closed = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, _SQUARE_3)
    labels, area, (lx, ly) = _labelled(closed)
    h_img, w_img = ink.shape
    candidates: list[tuple[tuple[int, int, int, int], tuple[int, int, int, int]]] = []  # (x0, y0, x1, y1), bands
    bars = False  # a hollow structure at the picture's edge was passed over
    # (the areas sorted as int32, as OpenCV's stats hold them: equal areas keep their order)
    for best in (1 + np.argsort(area[1:].astype(np.int32))[::-1])[:6]:
        if area[best] < 40:
            break
        x, y, w, h = _box_of(labels, int(best))
        x, y = x + lx, y + ly
        if w < 12 or h < 12:
            break
        comp = (labels[y - ly:y - ly + h, x - lx:x - lx + w] == best) & (ink[y:y + h, x:x + w] > 0)
        found = _border_of(comp, inner=False)  # inner lines once all the ink inside is known (below)
        if found is None:
            continue
        (top, left, bottom, right), (t_top, t_left, t_bottom, t_right) = found
        interior = comp[top + t_top:bottom - t_bottom + 1, left + t_left:right - t_right + 1]
        at_edge = x == 0 or y == 0 or x + w == w_img or y + h == h_img
        if at_edge and interior.sum() < 0.02 * comp.sum():
            bars = True  # (the maze may hang on them by a thin bridge: see below)
            continue  # hollow, at the picture's edge: a frame or letterbox bars
        candidates.append(((x + left, y + top, x + right, y + bottom), (t_top, t_left, t_bottom, t_right)))
    if not candidates:
        return _apart_from_bars(dark, ink, ink_min) if cut_bars and bars else None
    # The outermost structure is the border (blur may have parted it from the walls it
    # holds): read the border again from all the ink inside it.
    (x0, y0, x1, y1), bands = max(candidates, key=lambda c: (c[0][2] - c[0][0]) * (c[0][3] - c[0][1]))
    t_top, t_left, t_bottom, t_right = bands
    # A line of a pixel or two along the picture's very edge, opposite a band several times
    # thicker, is no border of the maze's but a dark row a scaler left there, joining black
    # bars on both sides into one structure around the maze (mazeworld 73737 v00135
    # pillarboxed: read 7x7 in the bars' box), and closing off a caption below it (v00033):
    # the box is read from the inside, without it.
    sides = ((y0 == 0, t_top, t_bottom, (slice(0, t_top), slice(None))),
             (y1 >= h_img - 1, t_bottom, t_top, (slice(h_img - t_bottom, h_img), slice(None))),
             (x0 == 0, t_left, t_right, (slice(None), slice(0, t_left))),
             (x1 >= w_img - 1, t_right, t_left, (slice(None), slice(w_img - t_right, w_img))))
    edge_lines = [where for on_edge, band, opposite, where in sides
                  if on_edge and band <= EDGE_LINE_MAX and opposite >= 3 * band + 3]
    if edge_lines:
        cleared = ink.copy()
        for where in edge_lines:
            cleared[where] = 0
        return _box_from_inside(cleared)
    if max(t_top + t_bottom, t_left + t_right) > 0.5 * min(y1 - y0, x1 - x0):
        if cut_bars and (apart := _apart_from_bars(dark, ink, ink_min)) is not None:
            return apart
        return _box_from_inside(ink)  # the walls merged with a frame or bars: read the box from the inside
    region = dark[y0:y1 + 1, x0:x1 + 1]
    found = _border_of(ink[y0:y1 + 1, x0:x1 + 1] > 0, faint=region >= FAINT_INK_MIN, darkness=region)
    if found is None:
        return _box_from_inside(ink)
    return _centre_box(found, x0, y0)


BAR_MIN = 15  #: px: ink this thick throughout, touching the picture's edge, is bars or a frame (see _apart_from_bars)
BAR_GAP = 2   #: px of paper a maze found apart from the bars keeps from them on every side


def _apart_from_bars(dark: np.ndarray, ink: np.ndarray,
                     ink_min: float) -> tuple[Box, tuple[float, float, float, float]] | None:
    """The maze inside dark bars or a frame that a thin bridge of ink joined it to, found with
    the bars taken away (ink at least BAR_MIN px thick throughout that touches the picture's
    edge), when paper parts it from them on every side (at least BAR_GAP px); None otherwise
    (a maze whose own walls merged with the bars touches them, or is thick enough to be
    taken away with them).

    A watermark's drop shadow across the paper margin between a maze and the black bars
    around it joined the two into one structure, whose "border" was the bars (or which was
    passed over as hollow bars, its thin lines under 2 % of the bars' ink), and the maze was
    read in the paper's box (mazeworld 81818 v00030 under a watermark: wall IoU 0.75, "maze
    changed")."""
    thick = cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((BAR_MIN, BAR_MIN), np.uint8))
    _, labels = cv2.connectedComponents(thick, connectivity=8)
    edge = np.unique(np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]]))
    edge = edge[edge > 0]
    if not edge.size:
        return None
    bars = np.isin(labels, edge).astype(np.uint8)
    cut = dark.copy()
    cut[cv2.dilate(bars, _SQUARE_3) > 0] = 0
    found = _find_box_at(cut, ink_min, cut_bars=False)
    if found is None:
        return None
    (top, left, bottom, right), (h_top, h_left, h_bottom, h_right) = found
    h, w = ink.shape
    y0 = max(0, int(np.floor(top - (h_top - 1) / 2)) - BAR_GAP)
    x0 = max(0, int(np.floor(left - (h_left - 1) / 2)) - BAR_GAP)
    y1 = min(h, int(np.ceil(bottom + (h_bottom - 1) / 2)) + BAR_GAP + 1)
    x1 = min(w, int(np.ceil(right + (h_right - 1) / 2)) + BAR_GAP + 1)
    return None if bars[y0:y1, x0:x1].any() else found


def _centre_box(found: tuple[tuple[int, int, int, int], tuple[int, int, int, int]], x: int,
                y: int) -> tuple[Box, tuple[float, float, float, float]]:
    (top, left, bottom, right), (t_top, t_left, t_bottom, t_right) = found
    box = (y + top + (t_top - 1) / 2, x + left + (t_left - 1) / 2,
           y + bottom - (t_bottom - 1) / 2, x + right - (t_right - 1) / 2)
    return box, (float(t_top), float(t_left), float(t_bottom), float(t_right))


def _enclosed_paper(ink: np.ndarray, *, chained: bool = False) -> tuple[int, int, int, int, int] | None:
    """The largest region of paper enclosed by ink (not touching the picture's edges):
    ``(x, y, width, height, area)``, or None when there is none of 64 pixels.

    ``chained``: the extent (the area stays the largest region's) also of the regions a
    thick wall away from it (a lattice maze whose corridors are cut apart: cells walled in
    on every side, a dead part of a percolation maze), one after the other. A region is
    taken in when the gap to the extent so far is at least a third and at most 1.5 times
    its own narrowest side (a lattice wall is as wide as a corridor); paper a thin line
    away (a frame's margin) is not, nor specks.
    """
    count, labels = cv2.connectedComponents((ink == 0).astype(np.uint8), connectivity=4)
    area = _areas(labels, count)
    # the regions of paper touching none of the picture's edges (label 0 is the ink)
    inside = np.ones(count, bool)
    inside[np.concatenate([labels[0], labels[-1], labels[:, 0], labels[:, -1]])] = False
    enclosed = np.flatnonzero(inside[1:]) + 1
    if not enclosed.size:
        return None
    best = int(enclosed[np.argmax(area[enclosed])])
    if area[best] < 64:
        return None
    (bx, by, bw0, bh0), total = _box_of(labels, best), int(area[best])
    if not chained:
        return bx, by, bw0, bh0, total
    x0, y0, x1, y1 = bx, by, bx + bw0, by + bh0
    rest = [int(i) for i in enclosed if i != best and area[i] >= max(64, CHAIN_MIN_AREA * total)]
    boxes = {i: _box_of(labels, i) for i in rest}
    grew = True
    while grew and rest:
        grew = False
        for i in list(rest):
            rx, ry, rw, rh = boxes[i]
            gap = max(x0 - (rx + rw), rx - x1, y0 - (ry + rh), ry - y1, 0)
            if gap == 0 or CHAIN_GAP[0] * min(rw, rh) <= gap <= CHAIN_GAP[1] * min(rw, rh):
                x0, y0, x1, y1 = min(x0, rx), min(y0, ry), max(x1, rx + rw), max(y1, ry + rh)
                rest.remove(i)
                grew = True
    return x0, y0, x1 - x0, y1 - y0, total


def _box_from_inside(ink: np.ndarray) -> tuple[Box, tuple[float, float, float, float]] | None:
    """The border from the inside: the largest region of paper enclosed by ink is the maze's
    corridors; its extent reaches the border's inner edges, and the border runs on outwards
    from there (merged with whatever dark frame surrounds it)."""
    paper = _enclosed_paper(ink, chained=True)
    if paper is None:
        return None
    x, y, bw, bh, _ = paper
    top, left, bottom, right = y - 1, x - 1, y + bh, x + bw      # first ink row/column on each side
    mid_r, mid_c = slice(y + bh // 4, y + 3 * bh // 4), slice(x + bw // 4, x + 3 * bw // 4)

    def run(lines: np.ndarray) -> float:  # the median, over the columns, of the rows of ink before paper
        paper = lines == 0
        return float(np.median(np.where(paper.any(axis=0), np.argmax(paper, axis=0), lines.shape[0])))

    bands = (run(ink[top::-1, mid_c]), run(ink[mid_r, left::-1].T), run(ink[bottom:, mid_c]), run(ink[mid_r, right:].T))
    box = (top - (bands[0] - 1) / 2, left - (bands[1] - 1) / 2, bottom + (bands[2] - 1) / 2,
           right + (bands[3] - 1) / 2)
    return box, bands


def _border_of(comp: np.ndarray, *, inner: bool = True, faint: np.ndarray | None = None,
               darkness: np.ndarray | None = None) -> tuple[tuple[int, int, int, int],
                                                          tuple[int, int, int, int]] | None:
    """Outer border of one ink structure: the outermost rows/columns that are mostly ink
    (text or ticks glued to it are not), moved in to any full-span interior line
    (``inner``: when ``comp`` holds all the ink inside it, not one connected piece; lines
    and the ink beside them are then also read from ``faint`` ink, where given: a blurred
    1-px line is paler than ink; ``darkness``, where given, shows a faint cell grid)."""
    per_row, per_col = _count_set(comp, axis=1).astype(float), _count_set(comp, axis=0).astype(float)
    rows = _edges(per_row, 0.6 * float(per_row.max()))
    cols = _edges(per_col, 0.6 * float(per_col.max()))
    if rows is None or cols is None:
        return None
    top, t_top, bottom, t_bottom = rows
    left, t_left, right, t_right = cols
    if inner:  # rows first, then columns (the same step on the transposed structure)
        lines = comp if faint is None else comp | faint
        top, t_top, bottom, t_bottom = _inner_lines(comp, lines, (top, t_top, bottom, t_bottom),
                                                    (left, t_left, right, t_right), darkness)
        left, t_left, right, t_right = _inner_lines(comp.T, lines.T, (left, t_left, right, t_right),
                                                    (top, t_top, bottom, t_bottom),
                                                    None if darkness is None else darkness.T)
    return (top, left, bottom, right), (t_top, t_left, t_bottom, t_right)


def _count_set(mask: np.ndarray, axis: int) -> np.ndarray:
    """Set pixels of a boolean map per row (``axis=1``) or column (``axis=0``): ``np.count_nonzero``'s
    counts, summed by OpenCV (many times faster) where the map's rows or columns are contiguous."""
    if mask.size and mask.strides[1] == 1:
        return cv2.reduce(mask.view(np.uint8), axis, cv2.REDUCE_SUM, dtype=cv2.CV_32S).ravel()
    if mask.size and mask.strides[0] == 1:  # a transposed map: its columns are contiguous
        return _count_set(mask.T, 1 - axis)
    return np.count_nonzero(mask, axis=axis)


def _share(mask: np.ndarray) -> np.ndarray:
    """Share of each row of a boolean map that is set (its mean along the row, counted)."""
    with np.errstate(invalid="ignore", divide="ignore"):  # (no columns: NaN, as the mean)
        return _count_set(mask, axis=1) / mask.shape[1]


def _index_runs(indices: np.ndarray) -> list[np.ndarray]:
    """Sorted indices split into runs of consecutive ones."""
    return np.split(indices, np.flatnonzero(np.diff(indices) > 1) + 1)


EMPTY_SIDE = 0.02  #: beyond a frame's inner border line, at most this share of the maze's ink
WAVER = 1  #: px a drawn line may waver to either side along its length (redrawn by a video model: "boiling")


def _inner_lines(comp: np.ndarray, lines: np.ndarray, along: tuple[int, int, int, int],
                 across: tuple[int, int, int, int], darkness: np.ndarray | None = None) -> tuple[int, int, int, int]:
    """Move the first and last border rows of ``comp`` inwards to interior rows of ``lines``
    (``comp`` and fainter ink: a blurred 1-px line) that span the whole maze (columns: pass
    the transposed maps). ``along``: (first row, its band, last row, its band);
    ``across``: the same for the columns. A line touching a border band is its blurred edge.

    A line across the whole frame with (almost) no ink beyond it is the real border, the
    rest a frame drawn around more space (maze-dataset's plots of non-square mazes); the
    side holding more ink is kept. With walls on both sides it is a wall (a percolation
    maze may be cut in two), and so it is when the maze's faint cell grid (in ``darkness``)
    runs on beyond it (a row of cells cut off with no wall inside it). The ink beside a line
    is counted clear of its blurred flanks and of the ``WAVER`` px it may waver into (a line
    redrawn from frame to frame strays a pixel off its row: 81818 v00130 under ``boil``).
    """
    lo, t_lo, hi, t_hi = along
    c0, t_c0, c1, t_c1 = across
    inside = slice(c0 + t_c0 + WAVER, c1 - t_c1 + 1 - WAVER)  # between the other two borders
    first, last = lo + t_lo, hi - t_hi  # the rows between the two bands
    cover = _share(lines[first:last + 1, c0:c1 + 1])
    for g, inked in _full_lines(comp[first:last + 1, c0:c1 + 1], lines[first:last + 1, c0:c1 + 1], cover):
        g, inked = g + first, inked + first
        if g[0] == first or g[-1] == last:
            continue  # along a border band: its blurred edge (only faint ink can be)
        if g[0] < lo + t_lo or g[-1] > hi - t_hi:
            continue  # beyond a border already moved in
        # beside the line, its blurred flanks (rows it half covers) and the rows it may waver into
        a, b = int(g[0]), int(g[-1])
        while a > first and cover[a - 1 - first] >= 0.5:
            a -= 1
        while b < last and cover[b + 1 - first] >= 0.5:
            b += 1
        a, b = max(first, a - WAVER), min(last, b + WAVER)
        if inked.size:
            lo_g, hi_g = int(inked[0]), int(inked[-1])
            before = np.count_nonzero(comp[lo + t_lo + WAVER:a, inside])
            after = np.count_nonzero(comp[b + 1:hi - t_hi + 1 - WAVER, inside])
        else:  # a faint line: the ink beside it is faint too (but for the bands' blurred edges)
            lo_g, hi_g = int(g[0]), int(g[-1])
            m_lo, m_hi, m_c0, m_c1 = (max(2, t) for t in (t_lo, t_hi, t_c0, t_c1))
            away = slice(c0 + t_c0 + m_c0, c1 - t_c1 + 1 - m_c1)
            before = np.count_nonzero(lines[lo + t_lo + m_lo:a, away])
            after = np.count_nonzero(lines[b + 1:hi - t_hi + 1 - m_hi, away])
        if min(before, after) > EMPTY_SIDE * max(before, after):
            continue
        if darkness is not None:
            m = 2 + max(t_c0, t_c1)  # clear of the line's and the bands' blurred flanks
            empty = slice(b + 1 + m, hi - t_hi + 1 - m) if before >= after else slice(lo + t_lo + m, a - m)
            beyond = darkness[empty, c0 + t_c0 + m:c1 - t_c1 + 1 - m]
            # (a faint grid upscaled with the picture is wider than the 4 px the grid bonus looks for)
            wide = max(4, int(0.05 * beyond.shape[1]))
            # (a run at the region's top or bottom is the blurred flank of a border band: 47979 v00251)
            if min(beyond.shape) >= 3 and _faint_lines(beyond, axis=0, max_width=wide, at_ends=False).size:
                continue  # the maze's faint cell grid runs on beyond it: a wall cutting the maze off
        if before >= after:
            hi, t_hi = hi_g, hi_g - lo_g + 1
        else:
            lo, t_lo = lo_g, hi_g - lo_g + 1
    return lo, t_lo, hi, t_hi


def _full_lines(comp: np.ndarray, lines: np.ndarray, cover: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """The lines of ``lines`` (ink and fainter ink) across the full width of the region, top
    first: ``(its rows, those where it is ink (of comp))``; ``cover``: each row's share of
    ``lines``. A straight line is a run of rows it covers (97 % or more). One that wavers
    up and down by ``WAVER`` px (redrawn by a video model, boiling: 81818 v00099 under
    ``boil``) covers no row so, but rows within ``WAVER`` of one another do: its rows are
    those it covers at least half as much as its best, and it is ink where ``comp`` also
    covers the width that way."""
    straight = np.flatnonzero(cover >= 0.97)
    found = [(g, g[_share(comp[g]) >= 0.97]) for g in _index_runs(straight)] if straight.size else []
    wavering = np.flatnonzero(_share(_wavered(lines)) >= 0.97)
    for g in _index_runs(wavering) if wavering.size else []:
        if np.isin(g, straight).any():
            continue  # (a straight line with its flanks, found above)
        spread = np.arange(max(0, g[0] - WAVER), min(cover.size, g[-1] + WAVER + 1))  # the rows its pixels lie in
        rows = spread[cover[spread] >= 0.5 * float(cover[spread].max())]
        inked = float(_share(_wavered(comp[spread[0]:spread[-1] + 1])).max()) >= 0.97
        found.append((rows, rows if inked else rows[:0]))
    return sorted(found, key=lambda line: int(line[0][0]))


def _wavered(mask: np.ndarray) -> np.ndarray:
    """A boolean map with each row also set where the rows up to ``WAVER`` above or below it are."""
    out = mask.copy()
    for d in range(1, WAVER + 1):
        out[d:] |= mask[:-d]
        out[:-d] |= mask[d:]
    return out


# -- grid -------------------------------------------------------------------------------------

NARROWEST_CELL = 1.75  #: walls: a cell is at least this wide (a lattice cell is 2: corridor and wall alike)
STRETCHED_WALLS = 1.25  #: walls this much thicker one way than the other: the maze is stretched (cells not square)
STRETCHED_MIN_PX = 3.0  #: ... and by at least this many pixels (1- and 2-px lines are no stretch)
LATTICE_CORRIDORS = 2.5  #: ... in a lattice, whose corridors are about as wide as its walls each way (within
                         #: this ratio: blur widens one as it narrows the other); thin lines tell no aspect


def _row_runs(ink: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The runs of ink along each row of a binary map: their starts, as flat indices into the
    map widened by one column (``row * (width + 1) + column``), and their lengths."""
    padded = np.zeros((ink.shape[0], ink.shape[1] + 2), bool)
    padded[:, 1:-1] = ink != 0
    change = np.flatnonzero(padded[:, 1:] != padded[:, :-1])
    # every row opens and closes its runs (starts and ends alternate): each end less its start
    return change[0::2], change[1::2] - change[0::2]


def _run_lengths(ink: np.ndarray) -> np.ndarray:
    """Lengths of the runs of ink along each row of a binary map."""
    return _row_runs(ink)[1]


def _stroke_thickness(ink: np.ndarray) -> float:
    """Typical stroke width of a binary ink map: the most common run length across strokes.

    Across a wall, runs are as long as the wall is thick, and there is one per pixel of
    wall length; along a wall there are few, of many lengths; specks are short. Runs are
    counted with weight sqrt(length), so that specks do not outvote thick walls. (A
    skeleton's distance to the paper is thrown by the spurs noise grows on thick walls.)
    """
    return _typical_run(np.concatenate([_run_lengths(ink), _run_lengths(cv2.transpose(ink))]))


def _typical_run(runs: np.ndarray) -> float:
    """The most common of ``runs`` (lengths), each counted with weight sqrt(length); 1 if none."""
    if runs.size == 0:
        return 1.0
    score = np.bincount(runs) * np.sqrt(np.arange(runs.max() + 1))
    return float(max(1, int(np.argmax(score))))


def _wall_widths(ink: np.ndarray, stroke: float, corridor: float) -> tuple[float, float]:
    """The walls' thickness across rows (horizontal walls, pixels) and across columns (vertical
    ones): ``stroke`` both ways (cells are square), unless the walls running each way, with
    enough ink each, are more than STRETCHED_WALLS x and STRETCHED_MIN_PX pixels apart in
    median thickness, and the corridors are too, each way about as wide as the walls (a square
    lattice maze stretched to another aspect: its walls and corridors are as much wider one way
    as its cells are; line walls keep their width however the maze is stretched). ``corridor``:
    the typical corridor width both ways; far wider than ``stroke``, the walls are lines, and
    nothing more is measured."""
    if corridor > 2 * LATTICE_CORRIDORS * stroke:  # (even stretched 2x one way)
        return stroke, stroke
    walls = _widths_by_direction(ink)
    if walls is None:
        return stroke, stroke
    ty, tx = walls
    if max(ty, tx) < STRETCHED_WALLS * min(ty, tx) or abs(ty - tx) < STRETCHED_MIN_PX:
        return stroke, stroke
    corridors = _widths_by_direction(1 - ink)
    if corridors is None or (corridors[0] > corridors[1]) != (ty > tx) \
            or max(corridors) < STRETCHED_WALLS * min(corridors) \
            or not all(max(c, t) <= LATTICE_CORRIDORS * min(c, t) for c, t in zip(corridors, (ty, tx))):
        return stroke, stroke
    return _unblurred(ty, corridors[0]), _unblurred(tx, corridors[1])


def _unblurred(wall: float, corridor: float) -> float:
    """A wall's width from the measured widths of ink and corridors: where the ink measured
    wider, their mean - blur widens the one as it narrows the other, and a lattice's are
    alike - or the corridor's own where the ink measured over 1.5x it. Thin lines, far
    narrower than their corridors, keep their width."""
    if corridor >= wall:
        return wall
    return (wall + corridor) / 2 if wall <= 1.5 * corridor else corridor


def _widths_by_direction(ink: np.ndarray) -> tuple[float, float] | None:
    """Median thickness of the strokes of a binary map running along rows (their runs down the
    columns) and of those running down columns (their runs along the rows): a pixel belongs to
    the stroke its longer run follows. None when either has under 50 pixels."""
    along = _run_length_map(ink)
    down = _run_length_map(cv2.transpose(ink)).T
    horizontal = down[along > down]   # in strokes running along the rows: how thick they are
    vertical = along[down > along]
    if min(horizontal.size, vertical.size) < 50:
        return None
    return float(np.median(horizontal)), float(np.median(vertical))


def _run_length_map(ink: np.ndarray) -> np.ndarray:
    """For every set pixel of a binary map, the length of its run along its row (0 elsewhere)."""
    starts, lengths = _row_runs(ink)
    height, width = ink.shape
    out = np.zeros(height * (width + 1), np.int32)
    out[np.repeat(starts, lengths) + _ramp(lengths)] = np.repeat(lengths, lengths)
    return out.reshape(height, width + 1)[:, :width]


def _ramp(lengths: np.ndarray) -> np.ndarray:
    """0, 1, ..., n-1 for each n of ``lengths``, concatenated."""
    total = int(lengths.sum())
    if not total:
        return np.zeros(0, np.int64)
    return np.arange(total) - np.repeat(np.cumsum(lengths) - lengths, lengths)


def _faint_lines(region: np.ndarray, *, axis: int, max_width: int = 4, at_ends: bool = True) -> np.ndarray:
    """Rows (``axis=1``) or columns (``axis=0``) of a darkness map on which a faint line runs
    across it: a run of at most ``max_width`` whose median darkness is at least GRID_LINE_MIN,
    well above the typical row or column (paper noise) and below ink, with paper on both sides
    (not the blurred shoulder of a wall band). The region's ends count as paper; with
    ``at_ends=False`` a run touching them is left out (there it is the blurred flank of a
    band just beyond the region)."""
    med = np.median(region[::2] if axis == 0 else region[:, ::2], axis=axis)
    faint = (med >= GRID_LINE_MIN) & (med >= 3 * float(np.median(med)) + 0.005) & (med < INK_MIN)
    paper = np.concatenate([[True], med < GRID_LINE_MIN, [True]])  # padded: the region's ends count as paper
    keep = []
    for run in _index_runs(np.flatnonzero(faint)):
        if not at_ends and run.size and (run[0] == 0 or run[-1] == med.size - 1):
            continue
        if run.size and run.size <= max_width and paper[run[0]] and paper[run[-1] + 2]:
            keep.append(run)
    return np.concatenate(keep) if keep else np.zeros(0, np.int64)


def _line_centres(indices: np.ndarray) -> np.ndarray:
    """Centres of the runs of consecutive indices (one per line)."""
    if not indices.size:
        return np.zeros(0)
    return np.array([run.mean() for run in _index_runs(indices)])


def _near_lines(lines: np.ndarray, origin: float, pitch: float, thickness: float) -> np.ndarray:
    """Whether each line lies on a boundary of cells ``pitch`` apart from ``origin``."""
    off = (lines - origin) / pitch
    return np.abs(off - np.round(off)) * pitch <= thickness / 2 + max(1.0, 0.06 * pitch)


def _count_fits(profile: np.ndarray, length: float, thickness: float) -> dict[int, tuple[float, float]]:
    """How well each plausible cell count along one axis fits its ink edges:
    ``{cells: (share of the edges on its boundary lines, share of its interior lines that
    carry edges)}``; a count's score is their product (a multiple of the right count leaves
    half its lines empty).

    ``profile[i]``: ink edges at offset ``i`` from the first border's centre; ``length``:
    the distance between the two border centres.
    """
    total = float(profile.sum())
    if total <= 0:
        return {}
    pos = np.arange(profile.size, dtype=np.float64)
    top = min(MAX_GRID, int(length / max(3.0, 1.5 * thickness)))  # lattice walls: pitch = 2 x thickness
    counts = np.arange(2, max(2, top) + 1)
    # every count at once: one row per count (edge counts are whole numbers: their sums are exact)
    pitch = (length / counts)[:, None]
    tol = thickness / 2 + np.maximum(1.0, 0.06 * pitch)
    nearest = np.round(pos / pitch)
    near = np.abs(pos / pitch - nearest) * pitch <= tol
    share = np.where(near, profile, 0.0).sum(axis=1) / total
    # ... and the share of its interior lines that carry edges: a finer grid whose lines
    # happen to catch both edges of the real lines leaves most of its own lines empty
    lines = max(int(nearest.max()), int(counts[-1])) + 1  # row k of per_line: count k's lines 0, 1, ...
    per_line = np.bincount((nearest + lines * np.arange(counts.size)[:, None])[near].astype(int),
                           weights=np.broadcast_to(profile, near.shape)[near],
                           minlength=lines * counts.size).reshape(counts.size, lines)
    interior = (np.arange(lines) >= 1) & (np.arange(lines) < counts[:, None])  # its lines 1 .. n-1
    per_line = np.where(interior, per_line, 0.0)
    most = per_line.max(axis=1, keepdims=True)
    used = np.count_nonzero(interior & (per_line > 0.02 * most), axis=1) / (counts - 1)
    used = np.where(most[:, 0] > 0, used, 1.0)  # (no edges on its lines: 1)
    return {int(n): (float(s), float(u)) for n, s, u in zip(counts, share, used)}


def _ranked_counts(fits: dict[int, tuple[float, float]]) -> list[tuple[int, float]]:
    """The plausible cell counts of :func:`_count_fits`, fewest cells first: ``[(cells,
    score)]``, the best four within 0.6 of the best score (the caller tells them apart by
    reading the walls)."""
    scores = {n: share * used for n, (share, used) in fits.items()}
    if not scores:
        return []
    best = max(scores.values())
    ranked = sorted((n for n in scores if scores[n] >= 0.6 * best), key=lambda n: -scores[n])
    return [(n, scores[n]) for n in sorted(ranked[:4])]


def _without_marker_ink(ink: np.ndarray, colour: np.ndarray) -> np.ndarray:
    """Drop ink glued to a coloured blob but not to the walls: a flag's pole, an icon's outline.

    The walls are the largest piece of (slightly closed) ink: the border holds them
    together. Other pieces touching a blob are dropped when smaller than half of it (a
    lattice post beside a marker square is as big as the square: it stays).
    """
    blobs_at = _even_box(colour)  # (blobs are labelled there only: see _even_box)
    if blobs_at is None:
        return ink
    closed = cv2.morphologyEx(ink, cv2.MORPH_CLOSE, _SQUARE_3)
    count, labels = cv2.connectedComponents(closed, connectivity=8)
    if count <= 2:
        return ink
    area = _areas(labels, count)
    bx0, by0, bx1, by1 = blobs_at
    ncol, blob_ids = cv2.connectedComponents(colour[by0:by1, bx0:bx1], connectivity=8)
    blob_area = np.bincount(blob_ids.ravel(), minlength=ncol)
    # the nearest-ish blob's id (the largest within 2 px), on the zone 2 px around the blobs
    # only: it is 0 beyond, and every pixel's 5x5 neighbourhood there is in the zone or paper
    zy0, zx0 = max(0, by0 - 2), max(0, bx0 - 2)
    zone = (slice(zy0, by1 + 2), slice(zx0, bx1 + 2))
    blobs = np.zeros(colour[zone].shape, np.float32)
    blobs[by0 - zy0:by1 - zy0, bx0 - zx0:bx1 - zx0] = blob_ids
    near = cv2.dilate(blobs, np.ones((5, 5), np.uint8)).astype(np.int32)
    walls = 1 + int(np.argmax(area[1:]))
    drop: list[int] = []
    labels_near = labels[zone]
    for i in np.unique(labels_near[(near > 0) & (closed[zone] > 0)]):
        if i in (0, walls):
            continue
        touched = np.unique(near[(labels_near == i) & (near > 0)])
        if area[i] < 0.5 * float(blob_area[touched].max()):
            drop.append(int(i))
    if not drop:
        return ink
    gone = _where(labels, drop[0])
    for i in drop[1:]:
        cv2.bitwise_or(gone, _where(labels, i), dst=gone)
    return cv2.bitwise_and(ink, cv2.bitwise_not(gone))


class Thickness(NamedTuple):
    """Interior walls' thickness in pixels: across rows (``y``: horizontal walls) and across
    columns (``x``: vertical ones); equal unless the maze is stretched to another aspect."""

    y: float
    x: float

    @classmethod
    def square(cls, value: float) -> Thickness:
        return cls(value, value)


class GridEstimate(NamedTuple):
    """What :func:`estimate_grid` measured."""

    grids: list[tuple[tuple[int, int], float]]  #: candidate (rows, cols) with their edge scores
    thickness: Thickness                        #: interior walls, pixels
    box: Box                                    #: the border lines' centres (corrected where merged with a frame)
    faint_lines: tuple[np.ndarray, np.ndarray]  #: centres of faint full-span lines inside (rows, columns),
                                                #: looked for only where there are several candidates


def estimate_grid(dark: np.ndarray, box: Box, borders: tuple[float, ...],
                  colour: np.ndarray | None = None, *,
                  grid: tuple[int, int] | None = None) -> GridEstimate:
    """The candidate grids with their edge scores, the interior walls' thickness in pixels, the
    box (corrected where a border merged with a frame) and the faint lines inside it, from the
    ink inside the box.

    ``colour``: the image's colour mask (:func:`colour_mask`), so that ink glued to markers
    (a flag's pole, an icon's outline) is not taken for walls.
    """
    t, l, b, r = box
    bt, bl, bb, br = borders
    y0, y1 = int(np.ceil(t + bt / 2)), int(np.floor(b - bb / 2)) + 1
    x0, x1 = int(np.ceil(l + bl / 2)), int(np.floor(r - br / 2)) + 1
    if y1 - y0 < 4 or x1 - x0 < 4:
        raise InputError("the maze is too small to read")
    # marker ink is told from walls on the whole box, border included (it holds the walls together)
    oy0, oy1 = max(0, int(np.floor(t - bt / 2)) - 1), min(dark.shape[0], int(np.ceil(b + bb / 2)) + 2)
    ox0, ox1 = max(0, int(np.floor(l - bl / 2)) - 1), min(dark.shape[1], int(np.ceil(r + br / 2)) + 2)
    whole = (dark[oy0:oy1, ox0:ox1] >= INK_MIN).astype(np.uint8)
    inside = (slice(y0 - oy0 + 2, y1 - oy0 - 2), slice(x0 - ox0 + 2, x1 - ox0 - 2))  # clear of the border
    faint = (dark[oy0:oy1, ox0:ox1] >= FAINT_INK_MIN).astype(np.uint8)
    if colour is not None:
        whole = _without_marker_ink(whole, colour[oy0:oy1, ox0:ox1])
    # walls blurred paler than ink, border still ink (told apart once the markers' own ink is
    # gone: a flag's black pole outweighed a 3x3 maze's few grey 1-px walls, mazeworld 42424
    # v00250); dropping marker ink only removes pixels, so the faint map is cleaned only when
    # it could still pass
    if np.count_nonzero(faint[inside]) > 3 * np.count_nonzero(whole[inside]):
        if colour is not None:
            faint = _without_marker_ink(faint, colour[oy0:oy1, ox0:ox1])
        if np.count_nonzero(faint[inside]) > 3 * np.count_nonzero(whole[inside]):
            whole = faint
    ink = whole[y0 - oy0:y1 - oy0, x0 - ox0:x1 - ox0]
    # Interior walls are never thicker than the border (as thick in lattice looks, thinner
    # in MazePlot); the border's own bands are the steadier measure in tiny mazes.
    # ... and never much thicker than the corridors: a lattice's are as wide as its walls
    # (blur widens one as it narrows the other: their mean is the unit), and in a small
    # lattice maze most dark runs span two or three units.
    corridor = _stroke_thickness(1 - ink)
    stroke = _unblurred(_stroke_thickness(ink), corridor)
    wy, wx = _wall_widths(ink, stroke, corridor)
    if wy == wx:
        thickness = Thickness.square(min(stroke, float(np.median(borders))))
    else:  # stretched: each way against its own borders (one pair may have merged with a frame)
        thickness = Thickness(min(wy, max(bt, bb)), min(wx, max(bl, br)))
    # A border band far thicker than the walls, or running into the picture's edge, is a
    # wall merged with a dark frame or letterbox bar: its line centre is half a wall out
    # from its inner edge.
    cap_y, cap_x = 2.5 * thickness.y + 2, 2.5 * thickness.x + 2
    h, w = dark.shape
    half_y, half_x = (thickness.y + 1) / 2, (thickness.x + 1) / 2  # first interior pixel to a band's centre
    t = y0 - half_y if bt > cap_y or t - bt / 2 <= 1 else t
    b = y1 - 1 + half_y if bb > cap_y or b + bb / 2 >= h - 2 else b
    l = x0 - half_x if bl > cap_x or l - bl / 2 <= 1 else l
    r = x1 - 1 + half_x if br > cap_x or r + br / 2 >= w - 2 else r
    if grid is not None:
        return GridEstimate([(grid, 1.0)], thickness, (t, l, b, r), (np.zeros(0), np.zeros(0)))
    # Where ink starts and stops: on the lines' edges (thin walls) or the lattice's unit
    # boundaries (thick walls), both within half a wall of a cell boundary.
    edges_y = (np.diff(ink.astype(np.int8), axis=0) != 0).sum(axis=1)   # between rows i and i+1
    edges_x = (np.diff(ink.astype(np.int8), axis=1) != 0).sum(axis=0)
    prof_y = np.zeros(int(np.ceil(b - t)) + 2)
    prof_x = np.zeros(int(np.ceil(r - l)) + 2)
    ys = np.arange(y0, y1 - 1) + 0.5 - t
    xs = np.arange(x0, x1 - 1) + 0.5 - l
    np.add.at(prof_y, np.clip(np.round(ys).astype(int), 0, prof_y.size - 1), edges_y)
    np.add.at(prof_x, np.clip(np.round(xs).astype(int), 0, prof_x.size - 1), edges_x)
    box = (t, l, b, r)
    grids = _grid_candidates(_count_fits(prof_y, b - t, thickness.y), _count_fits(prof_x, r - l, thickness.x),
                             box, thickness)
    # A light cell grid runs on every boundary, walls or none: its lines count as edges too (a
    # share of a full-length wall's), so that a count whose lines the walls leave mostly
    # empty but the grid marks is not passed over for a coarser one (a squeezed 4x4 MazePlot
    # maze whose walls end on its middle row boundary only read as 2 rows: mazeworld 60606
    # v00055). Looked for only where the walls leave a choice.
    centres = (np.zeros(0), np.zeros(0))
    if len(grids) > 1:
        centres = _faint_line_centres(dark, box, thickness)
        on_y, on_x = _grid_lines_of(centres, box, (max(s[0] for s, _ in grids), max(s[1] for s, _ in grids)))
        if on_y.size + on_x.size >= 2:
            for lines, prof, origin, span in ((on_y, prof_y, t, r - l), (on_x, prof_x, l, b - t)):
                np.add.at(prof, np.clip(np.round(lines - origin).astype(int), 0, prof.size - 1),
                          FAINT_GRID_EDGES * 2 * span)
            grids = _grid_candidates(_count_fits(prof_y, b - t, thickness.y),
                                     _count_fits(prof_x, r - l, thickness.x), box, thickness)
    if not grids:
        raise InputError("no grid of walls found inside the maze's border")
    return GridEstimate(grids, thickness, box, centres)


def _grid_candidates(fits_y: dict[int, tuple[float, float]], fits_x: dict[int, tuple[float, float]], box: Box,
                     thickness: Thickness) -> list[tuple[tuple[int, int], float]]:
    """Candidate grids ``[((rows, cols), edge score)]`` from each axis's count fits
    (:func:`_count_fits`): the best counts of one axis paired with the other's.

    Cells are square in every look met so far, save a maze stretched to another aspect,
    whose walls are stretched alike: each axis also tries the count the other axis's pitch
    implies (an axis with few interior edges, e.g. a comb of open boundaries, gets its
    count that way); reading the walls decides. Such a pair scores as its source squared,
    times the share of its own axis's edges on its lines: a comb's few edges lie on them,
    while the lines of thin walls squeezed one way (a square puzzle stretched: they keep
    their width, so nothing else tells) mostly miss the lines of square cells. Either way a
    cell is at least NARROWEST_CELL walls wide (a lattice's corridor is as wide as its walls).
    """
    t, l, b, r = box
    rows, cols = _ranked_counts(fits_y), _ranked_counts(fits_x)
    tall, wide = NARROWEST_CELL * thickness.y, NARROWEST_CELL * thickness.x
    aspect = thickness.y / thickness.x  # a cell's height over its width (1: square)
    grids = [((n, m), sn * sm) for n, sn in rows for m, sm in cols
             if n * m >= 2 and (b - t) / n >= tall and (r - l) / m >= wide]
    fits = {(n, m) for (n, m), _ in grids}
    for m, sm in cols:
        n = max(1, int(round((b - t) / ((r - l) / m * aspect))))
        if (n, m) not in fits and n * m >= 2 and (b - t) / n >= tall:
            grids.append(((n, m), sm * sm * fits_y.get(n, (1.0, 1.0))[0]))
    for n, sn in rows:
        m = max(1, int(round((r - l) / ((b - t) / n / aspect))))
        if (n, m) not in fits and n * m >= 2 and (r - l) / m >= wide:
            grids.append(((n, m), sn * sn * fits_x.get(m, (1.0, 1.0))[0]))
    return grids


# -- walls ------------------------------------------------------------------------------------

def read_segments(dark: np.ndarray, box: Box, grid: tuple[int, int], thickness: float | Thickness,
                  *, slack: float = 0.1, trim: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Darkness of every boundary segment: (rows, cols+1) vertical and (rows+1, cols) horizontal.

    Each is the mean, over the central half of the segment, of the darkest pixel across
    the line within ``thickness / 2 + slack x pitch`` of its expected position; with ``trim``,
    leaving out the darkest quarter of those (a dark object's end across an opening, a
    flag's black pole, is no wall: a wall runs the whole segment). Grids are compared
    untrimmed: a wrong grid's segments, cut across walls, would read cleaner trimmed.
    """
    return _segment_darkness(_segment_peaks(dark, box, grid, thickness, slack=slack), trim=trim)


def _segment_peaks(dark: np.ndarray, box: Box, grid: tuple[int, int], thickness: float | Thickness,
                   *, slack: float = 0.1) -> tuple[np.ndarray, np.ndarray]:
    """The darkest pixel across each boundary line (see :func:`read_segments`), at each pixel
    along the central half of its segment: (rows, L, cols+1) vertical, (rows+1, cols, L) horizontal."""
    t, l, b, r = box
    rows, cols = grid
    py, px = (b - t) / rows, (r - l) / cols
    h, w = dark.shape
    ty, tx = thickness if isinstance(thickness, Thickness) else (thickness, thickness)
    half_x = tx / 2 + max(1.0, slack * px)
    half_y = ty / 2 + max(1.0, slack * py)
    # one gather per direction (by flat index): along = the central half of each segment, across = the window
    flat = dark.ravel()
    along_y = _span(t + (np.arange(rows) + 0.25) * py, 0.5 * py, h)             # (rows, L)
    across_x = _span(l + np.arange(cols + 1) * px - half_x, 2 * half_x, w)      # (cols+1, W)
    vert = flat.take(along_y[:, :, None, None] * w + across_x[None, None, :, :]).max(axis=3)
    across_y = _span(t + np.arange(rows + 1) * py - half_y, 2 * half_y, h)      # (rows+1, W)
    along_x = _span(l + (np.arange(cols) + 0.25) * px, 0.5 * px, w)             # (cols, L)
    horiz = flat.take(across_y[:, :, None, None] * w + along_x[None, None, :, :]).max(axis=1)
    return vert, horiz


def _segment_darkness(peaks: tuple[np.ndarray, np.ndarray], *, trim: bool) -> tuple[np.ndarray, np.ndarray]:
    """Each segment's darkness from :func:`_segment_peaks` (the mean along it; see :func:`read_segments`)."""
    mean = _trimmed_mean if trim else np.mean
    return mean(peaks[0], axis=1).astype(np.float32), mean(peaks[1], axis=2).astype(np.float32)


SEGMENT_TRIM = 0.25  #: the darkest share of a segment's length left out of its darkness


def _trimmed_mean(values: np.ndarray, axis: int) -> np.ndarray:
    """The mean along ``axis`` of all but the darkest SEGMENT_TRIM of the values."""
    n = values.shape[axis]
    keep = max(1, n - int(SEGMENT_TRIM * n))
    return np.sort(values, axis=axis).take(np.arange(keep), axis=axis).mean(axis=axis)


def _span(starts: np.ndarray, length: float, limit: int) -> np.ndarray:
    """Integer pixel indices ``[start, start + length]`` for each start (clipped to the picture)."""
    n = max(1, int(round(length)) + 1)
    return np.clip(np.round(starts)[:, None].astype(np.int64) + np.arange(n)[None, :], 0, limit - 1)


def _otsu(values: np.ndarray) -> tuple[float, float, float]:
    """Otsu's split of 1-D values: ``(threshold, mean below, mean above)``.

    The split maximises ``n_below * n_above * (mean below - mean above)^2`` over the
    sorted values (the first of equal maxima), from running sums in one pass.
    """
    v = np.sort(values.astype(np.float64).ravel())
    n = v.size
    if n < 2:
        return (float(v[0]), float(v[0]), float(v[0])) if n else (0.0, 0.0, 0.0)
    i = np.arange(1, n)
    below = np.cumsum(v)[:-1]
    mean_a = below / i
    mean_b = (v.sum() - below) / (n - i)
    split = int(np.argmax(i * (n - i) * (mean_a - mean_b) ** 2)) + 1
    return float((v[split - 1] + v[split]) / 2), float(v[:split].mean()), float(v[split:].mean())


def wall_threshold(vert: np.ndarray, horiz: np.ndarray) -> tuple[float, float, float]:
    """``(threshold, wall level, open level)`` of the boundary segments.

    The interior segments fall in two groups, open boundaries (paper, or a faint cell
    grid) and walls, split where they are best separated (Otsu); the border's darkness
    is the walls' when the interior holds no clear second group. Interior walls may be
    fainter than a heavier border (MazePlot), so the split is not tied to the border.
    """
    border = np.concatenate([vert[:, 0], vert[:, -1], horiz[0, :], horiz[-1, :]])
    inner = np.concatenate([vert[:, 1:-1].ravel(), horiz[1:-1, :].ravel()])
    level = float(np.median(border))
    if inner.size >= 2:
        thr, low, high = _otsu(inner)
        # two groups 0.15 apart, or closer but each tight (blurred 1-px walls at 0.14 over paper
        # at 0.01: mazeworld 44646 v00021 was read with no inner wall); noise alone is neither
        if thr < level and (high - low >= 0.15 or _separation(inner, low, high) >= FAINT_WALL_GAP):
            return thr, high, low
    open_level = min(float(np.percentile(inner, 20)) if inner.size else 0.0, 0.5 * level)
    return (level + open_level) / 2, level, open_level


def lattice_from_segments(vert_walls: np.ndarray, horiz_walls: np.ndarray) -> np.ndarray:
    """The (2 rows + 1) x (2 cols + 1) wall lattice of boolean boundary segments (posts are walls)."""
    rows, cols = vert_walls.shape[0], horiz_walls.shape[1]
    walls = np.ones((2 * rows + 1, 2 * cols + 1), bool)
    walls[1::2, 1::2] = False
    walls[1::2, 0::2] = vert_walls
    walls[0::2, 1::2] = horiz_walls
    return walls


# -- markers ----------------------------------------------------------------------------------

def in_window(hue: int, window: tuple[int, int]) -> bool:
    """Whether an OpenCV hue lies in a window (``lo > hi`` wraps through 0)."""
    lo, hi = window
    return lo <= hue <= hi if lo <= hi else (hue >= lo or hue <= hi)


#: OpenCV hue windows of the colour classes: red (wraps through 0), orange, yellow, green, blue, purple
HUE_CLASSES = ((165, 10), (11, 17), (18, 34), (35, 85), (86, 130), (131, 164))
RED_HUES, GREEN, BLUE = HUE_CLASSES[0], HUE_CLASSES[3], HUE_CLASSES[4]
#: OpenCV hue (0-255) -> 1 + the index of its class in HUE_CLASSES
_HUE_CLASS_LUT = np.array([1 + next((n for n, w in enumerate(HUE_CLASSES) if in_window(h, w)), 0) if h < 180 else 0
                           for h in range(256)], np.uint8)


def crop_hue_angle(hue: np.ndarray) -> np.ndarray:
    """OpenCV hues (0-179) as angles in radians (float32), for circular means."""
    return hue.astype(np.float32) * np.float32(2 * np.pi / 180)


#: cos and sin (float32) of each OpenCV hue's angle (:func:`crop_hue_angle`), looked up per pixel
_HUE_COS_SIN = np.stack([np.cos(crop_hue_angle(np.arange(256))), np.sin(crop_hue_angle(np.arange(256)))], axis=1)


MARKER_PX_PER_CELL = 64  #: markers are found on the maze resampled to at most this many pixels per cell
MARKER_MIN_AREA = 0.001  #: cells^2: smaller coloured blobs are no markers ...
SMALL_MARKER_PX_PER_CELL = 160  #: ... unless none is found: then a finer look (a 4-px dot in a 200-px cell)
SMALL_MARKER_MIN_AREA = 0.0003


def find_markers(rgb: np.ndarray, box: Box, grid: tuple[int, int], *, px_per_cell: int = MARKER_PX_PER_CELL,
                 min_area: float = MARKER_MIN_AREA) -> list[Marker]:
    """Coloured blobs inside the maze (largest first), each placed in its cell.

    Blobs are found per hue class (red, orange, yellow, green, blue, purple), so a
    solution path does not swallow the markers at its ends; a blob spanning more than 1.6
    cells (a path, a line) is no marker. The maze is first resampled to at most
    ``MARKER_PX_PER_CELL`` pixels per cell (a 3-px dot at 8 px per lattice cell survives).
    """
    t, l, b, r = box
    rows, cols = grid
    y0, y1 = max(0, int(t)), min(rgb.shape[0], int(np.ceil(b)) + 1)
    x0, x1 = max(0, int(l)), min(rgb.shape[1], int(np.ceil(r)) + 1)
    crop = rgb[y0:y1, x0:x1]
    scale = min(1.0, px_per_cell / max(1.0, (b - t) / rows, (r - l) / cols))
    if scale < 1.0:
        crop = cv2.resize(crop, (max(1, int(round(crop.shape[1] * scale))), max(1, int(round(crop.shape[0] * scale)))),
                          interpolation=cv2.INTER_AREA)
    py, px = (b - t) / rows * scale, (r - l) / cols * scale  # cell size on the crop
    out: list[Marker] = []
    # Hue and vividness are needed only around the coloured pixels: within 1 px of them (the
    # closing below fills no further), whose 3x3 blur reads 1 px further; the part read lies
    # 3 px around them, its edges clear of both (or the crop's own, where the blur reads alike).
    colour = colour_mask(crop)
    cx0, cy0, cw, ch = cv2.boundingRect(colour)
    if not cw:
        return out
    py0, px0 = max(0, cy0 - 3), max(0, cx0 - 3)
    around = (slice(py0, cy0 + ch + 3), slice(px0, cx0 + cw + 3))
    part = np.ascontiguousarray(crop[around])
    hsv = cv2.cvtColor(part, cv2.COLOR_RGB2HSV)
    vivid = cv2.blur(hsv[:, :, 1], (3, 3))
    # each coloured pixel's hue class (1..6; 0: not coloured), found once for all classes
    classes = cv2.bitwise_and(cv2.LUT(hsv[:, :, 0], _HUE_CLASS_LUT), colour[around])
    present = cv2.calcHist([classes], [0], None, [len(HUE_CLASSES) + 1], [0, len(HUE_CLASSES) + 1]).ravel()
    # Blobs of each class: their pixels (flat indices on the part) and labels (numbered on from
    # the classes before), to be measured all at once below.
    blobs: list[tuple[np.ndarray, np.ndarray, int]] = []  # (stats, centroids on the crop, first label) per class
    pixels: list[np.ndarray] = []
    labelled: list[np.ndarray] = []
    first = 0
    for cls_id in np.flatnonzero(present[1:]) + 1:
        of_class = _where(classes, int(cls_id))
        bx0, by0, bw, bh = cv2.boundingRect(of_class)
        bx0, by0, bx1, by1 = max(0, bx0 - 2), max(0, by0 - 2), bx0 + bw + 2, by0 + bh + 2  # label only there
        sub = cv2.morphologyEx(of_class[by0:by1, bx0:bx1], cv2.MORPH_CLOSE, _SQUARE_3)
        count, labels, stats, cents = cv2.connectedComponentsWithStats(sub, connectivity=8)
        # (a blob too wide to be a marker, below, is not measured: a path's pixels are many)
        small = (stats[:, cv2.CC_STAT_WIDTH] <= 1.6 * px) & (stats[:, cv2.CC_STAT_HEIGHT] <= 1.6 * py)
        small[0] = False
        if not small.any():
            continue
        # (gathers by np.take on flat indices: several times faster than fancy indexing)
        flat = np.flatnonzero(labels)  # row-major, as np.nonzero
        ids: np.ndarray = labels.ravel().take(flat)
        if not small[1:].all():
            kept = small.take(ids)
            flat, ids = flat[kept], ids[kept]
        ys, xs = np.divmod(flat, labels.shape[1])
        pixels.append((ys + by0) * part.shape[1] + xs + bx0)
        labelled.append(ids + (first - 1))
        blobs.append((stats, cents + (px0 + bx0, py0 + by0), first))
        first += count - 1
    if not blobs:
        return out
    at = pixels[0] if len(blobs) == 1 else np.concatenate(pixels)
    lab: np.ndarray = labelled[0] if len(blobs) == 1 else np.concatenate(labelled)
    # per label, the sums of its pixels' cos and sin of hue, R, G, B (each label's pixels in the
    # same order as when labelled one class at a time: the same sums)
    hue: np.ndarray = hsv.reshape(-1, 3).take(at, axis=0)[:, 0]
    cos_sin = _HUE_COS_SIN.take(hue, axis=0)
    colours = part.reshape(-1, 3).take(at, axis=0)
    sums = [np.bincount(lab, weights=w, minlength=first).tolist()  # (Python floats: the same arithmetic, faster)
            for w in (cos_sin[:, 0], cos_sin[:, 1], colours[:, 0], colours[:, 1], colours[:, 2])]
    pixel_vivid = vivid.ravel().take(at)
    peaks = np.zeros(first, np.uint8)
    np.maximum.at(peaks, lab, pixel_vivid)
    cores = np.bincount(lab, weights=2 * pixel_vivid.astype(np.int32) >= peaks.take(lab), minlength=first).tolist()
    for stats, cents, first in blobs:
        for i, (_, _, bw, bh, area) in enumerate(stats.tolist()[1:], start=1):
            if bw > 1.6 * px or bh > 1.6 * py:
                continue
            k = first + i - 1
            mean_hue = np.arctan2(sums[1][k], sums[0][k]) % (2 * np.pi) * 180 / (2 * np.pi)
            # back to picture pixels (area resampling keeps pixel centres), then to cells
            fy, fx = y0 + (cents[i, 1] + 0.5) / scale - 0.5, x0 + (cents[i, 0] + 0.5) / scale - 0.5
            cy, cx = (fy - t) * scale / py, (fx - l) * scale / px
            cell = (min(max(math.floor(cy), 0), rows - 1), min(max(math.floor(cx), 0), cols - 1))
            out.append(Marker(cell=cell, row=float(cy), col=float(cx), area=area / (py * px),
                              hue=int(round(mean_hue)) % 180,
                              rgb=tuple(int(round(sums[c][k] / area)) for c in (2, 3, 4)),  # type: ignore[arg-type]
                              peak_saturation=int(peaks[k]), core_area=float(cores[k]) / (py * px)))
    smallest = max(3.0, min_area * py * px) / (py * px)  # and at least 3 pixels
    return sorted((m for m in out if m.area >= smallest), key=lambda m: -m.area)


def on_post(m: Marker, *, within: float = 0.15) -> bool:
    """Whether a blob sits on a wall junction (a coloured speck or fringe there is no marker)."""
    return at_junction(m.row, m.col, within=within)


def at_junction(row: float, col: float, *, within: float = 0.15) -> bool:
    """Whether a position (maze cells, cell (0, 0) spanning [0, 1)) is within ``within``
    cells of a wall junction (a corner shared by cells) on both axes."""
    return abs(row - round(row)) < within and abs(col - round(col)) < within


FRINGE_AREA = 0.25        #: a blob under this share of a nearby marker's area ...
FRINGE_SATURATION = 0.6   #: ... and under this share of its peak saturation ...
FRINGE_REACH = 1.0        #: ... centred within this many marker widths (sqrt(area)), plus its own, of it: a fringe


def is_fringe(m: Marker, markers: list[Marker]) -> bool:
    """Whether ``m`` is a colour fringe of a larger, more vivid marker beside it: a saturated blue
    star re-encoded at a low bit rate rings yellow-green at its edge (the chroma of a 2 x 2 block
    overshooting), a pale speck that the green window takes in (VMEvalKit's KnowWhat look, crushed:
    the start read on the fringe, the star lost)."""
    return any(o.area * FRINGE_AREA > m.area and m.peak_saturation < FRINGE_SATURATION * o.peak_saturation
               and math.hypot(o.row - m.row, o.col - m.col) <= FRINGE_REACH * math.sqrt(o.area) + math.sqrt(m.area)
               for o in markers if o is not m)


def start_and_goal(markers: list[Marker]) -> tuple[Marker | None, Marker | None]:
    """The goal is the largest red marker; the start the largest green one, else the largest
    blue one (a star), else the largest of another colour, outside the goal's cell. Blobs
    on wall junctions are passed over (a coloured speck or an anti-aliased fringe there is
    no marker), and so are a marker's colour fringes (:func:`is_fringe`)."""
    placed = [m for m in markers if not on_post(m) and not is_fringe(m, markers)]
    goal = next((m for m in placed if in_window(m.hue, RED_HUES)), None)
    others = [m for m in placed if goal is None or m.cell != goal.cell]  # a flag's pole is part of the goal
    start = (next((m for m in others if in_window(m.hue, GREEN)), None)
             or next((m for m in others if in_window(m.hue, BLUE)), None)
             or next((m for m in others if not in_window(m.hue, RED_HUES)), None))
    return start, goal


# -- the reader -------------------------------------------------------------------------------

def locate(image: np.ndarray, grid: tuple[int, int]) -> Box | None:
    """The centres of the border lines of a maze with a known grid (re-locating it in a frame):
    the likeliest of :func:`locations`, or None."""
    return next(locations(image, grid), None)


def locations(image: np.ndarray, grid: tuple[int, int]) -> Iterator[Box]:
    """Where a maze with a known grid may be in a frame (the centres of its border lines), the
    likeliest first: each of :func:`box_candidates` read with that grid, found as asked for. A
    lattice maze on black whose camera pulls back shows no border of its own; the first
    candidate is then a ring of walls inside it, and the extent of its corridors, next, is the
    maze (mazeworld 15151 v00000 zoomed)."""
    rgb = as_rgb(image, name="frame")
    dark, _, colour = _ink_and_colour(rgb)
    given: list[Box] = []
    for found in box_candidates(dark):
        try:
            box = estimate_grid(dark, found[0], found[1], colour, grid=grid).box
        except InputError:
            continue
        if _new_box(box, given):
            given.append(box)
            yield box


def _faint_line_centres(dark: np.ndarray, box: Box, thickness: Thickness) -> tuple[np.ndarray, np.ndarray]:
    """Centres (image rows, image columns) of the faint full-span lines inside the box, clear
    of the border: a light cell grid, or walls too pale to count as ink."""
    t, l, b, r = box
    inset = int(np.ceil(max(thickness))) + 2
    y0, y1, x0, x1 = int(t) + inset, int(np.ceil(b)) - inset + 1, int(l) + inset, int(np.ceil(r)) - inset + 1
    if y1 - y0 <= 8 or x1 - x0 <= 8:
        return np.zeros(0), np.zeros(0)
    region = dark[max(0, y0):y1, max(0, x0):x1]
    return (_line_centres(_faint_lines(region, axis=1)) + max(0, y0),
            _line_centres(_faint_lines(region, axis=0)) + max(0, x0))


def _grid_lines_of(centres: tuple[np.ndarray, np.ndarray], box: Box,
                   finest: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The faint lines (:func:`_faint_line_centres`) taken for a cell grid's: those a quarter of
    the finest candidate cell (``finest``: the most rows and columns any candidate has) or
    more from the border - a blurred border's flank beside it is no grid line (such lines
    favoured coarse grids, whose tolerance is wider)."""
    (ys, xs), (t, l, b, r) = centres, box
    near_y, near_x = 0.25 * (b - t) / finest[0], 0.25 * (r - l) / finest[1]
    return ys[(ys - t > near_y) & (b - ys > near_y)], xs[(xs - l > near_x) & (r - xs > near_x)]


def _fit(vert: np.ndarray, horiz: np.ndarray) -> float:
    """How cleanly boundary segments split into walls and openings (1: every segment at one
    of two well separated levels; low when segments are cut across walls: a wrong grid)."""
    inner = np.concatenate([vert.ravel(), horiz.ravel()])
    if inner.size < 2:
        return 0.0
    _, low, high = _otsu(inner)
    return max(0.0, _separation(inner, low, high))


def _separation(values: np.ndarray, low: float, high: float) -> float:
    """How far apart two groups of values around ``low`` and ``high`` are, less twice their
    spread (the mean distance of each value to the nearer group)."""
    spread = float(np.minimum(np.abs(values - low), np.abs(values - high)).mean())
    return high - low - 2 * spread


def _best_grid(dark: np.ndarray, estimate: GridEstimate) -> tuple[tuple[int, int], np.ndarray, np.ndarray]:
    """The candidate grid whose walls read most cleanly (edges on its lines x segment fit;
    cells closer to square - stretched as the walls are, for lattice walls - break
    near-ties), with its segment darkness (trimmed: see :func:`read_segments`)."""
    grids, thickness, box, faint_lines = estimate
    if len(grids) == 1:  # nothing to choose from
        return grids[0][0], *_segment_darkness(_segment_peaks(dark, box, grids[0][0], thickness), trim=True)
    best: tuple[float, tuple[int, int], tuple[np.ndarray, np.ndarray]] | None = None
    t, l, b, r = box
    # Faint full-span lines (a light cell grid; walls too pale to count as ink) all lie on the
    # right grid's boundaries, also where a maze with few walls leaves most boundaries open.
    faint_y, faint_x = _grid_lines_of(faint_lines, box, (max(s[0] for s, _ in grids),
                                                         max(s[1] for s, _ in grids)))
    for shape, edge_score in grids[:12]:
        peaks = _segment_peaks(dark, box, shape, thickness)
        vert, horiz = _segment_darkness(peaks, trim=False)
        py, px = (b - t) / shape[0], (r - l) / shape[1]
        lattice = thickness.y / py + thickness.x / px >= 2 * LATTICE_THICKNESS
        aspect = abs(np.log(py / px / (thickness.y / thickness.x if lattice else 1.0)))
        quality = edge_score * _fit(vert, horiz) - 0.1 * aspect
        if faint_y.size + faint_x.size >= 2:
            on = [_near_lines(faint_y, t, py, thickness.y), _near_lines(faint_x, l, px, thickness.x)]
            quality += GRID_LINE_BONUS * float(np.concatenate(on).mean())
        if best is None or quality > best[0] + 1e-9:
            best = (quality, shape, peaks)
    assert best is not None
    vert, horiz = _segment_darkness(best[2], trim=True)  # the walls of the grid chosen
    return best[1], vert, horiz


def read_maze(image: np.ndarray, *, grid: tuple[int, int] | None = None,
              known: MazeSpec | None = None, blocked_first: bool = False) -> MazeReading | Unparseable:
    """Read a maze puzzle (or a video frame) of any look into a :class:`MazeReading`.

    The maze is read at the likeliest place that reads (:func:`box_candidates`). Where its
    maze cuts cells off from the start, a place inside it is taken instead when it reads with
    fewer cut off, the cells beyond it hold no maze (:func:`_no_maze_beyond`), and either the
    first place is bounded by a dark bar or its cells are of another size: black bars' edge or
    a plot's frame read as the border, the margin as cells - not a row walled off inside a
    drawn border, which stays a row.

    Parameters
    ----------
    image : ndarray of shape (H, W, 3) (or grey / RGBA)
    grid : (rows, cols), optional
        The grid size when known (``maze.grid``); otherwise measured.
    known : MazeSpec, optional
        The maze when it is known (a spec file, a reference): its grid is used, and its
        start and goal stand in for markers that cannot be seen; the reading then tells
        how the picture draws the maze.
    blocked_first : bool
        Return :class:`Blocked` as soon as the likeliest place reads whole but with no way
        from the start to the goal, before trying the other places (a video reads its walls
        again from the next frames there: :func:`read_walls_again`).

    Returns
    -------
    MazeReading, or Unparseable with the reason (no maze, no grid, no start or goal,
    goal not reachable from the start: :class:`Blocked`).
    """
    rgb = as_rgb(image, name="maze image")
    grid = known.shape if known is not None else grid
    dark, _, colour = _ink_and_colour(rgb)
    if grid is not None and (min(grid) < 1 or max(grid) > MAX_GRID or grid[0] * grid[1] < 2):
        return Unparseable(f"grid {grid[0]}x{grid[1]} is out of range (1..{MAX_GRID} cells per side)")
    # the likeliest place first; another only when the maze cannot be read there (or, for a
    # known maze, reads unlike it, or, for an unknown one, cuts cells off and a place inside it
    # reads better, as above: a row walled off inside a drawn border, mazeworld 33535 i00040,
    # stays a row)
    readings: list[MazeReading | Unparseable] = []
    cut_off: MazeReading | None = None
    reached, barred = 1.0, False  # (the share of cells cut_off reaches, and whether a bar bounds it)
    for box, borders in box_candidates(dark):
        reading = _read_at(rgb, dark, colour, box, borders, grid=grid, known=known)
        if isinstance(reading, MazeReading) and known is None:
            if cut_off is None:
                reached = _reached_share(reading.spec)
                if reached == 1.0:
                    return reading
                cut_off, barred = reading, _beside_a_bar(reading, borders)
            elif _inside(reading.look.box, cut_off.look.box) and _no_maze_beyond(cut_off, reading.look.box) and \
                    (barred or not _same_pitch(reading.look, cut_off.look)) and \
                    _reached_share(reading.spec) > reached:
                return reading
            continue
        if isinstance(reading, MazeReading) and known is not None and _agreement(reading, known) >= KNOWN_AGREEMENT:
            return reading
        if blocked_first and not readings and cut_off is None and isinstance(reading, Blocked):
            return reading
        readings.append(reading)
    if cut_off is not None:
        return cut_off
    if not readings:
        return Unparseable("no maze found (no bordered structure of dark lines)")

    def rank(r: MazeReading | Unparseable) -> float:  # a reading before a failure; the likeliest on ties
        return -1.0 if isinstance(r, Unparseable) else _agreement(r, known) if known is not None else 0.0

    return max(readings, key=rank)


KNOWN_AGREEMENT = 0.9  #: share of a known maze's inner boundary segments a reading in the right place gets right


def _agreement(reading: MazeReading, known: MazeSpec) -> float:
    """Share of the known maze's inner boundary segments (walls and openings) read alike."""
    if reading.spec.walls.shape != known.walls.shape:
        return 0.0
    inner = np.zeros(known.walls.shape, bool)
    inner[1:-1:2, 2:-1:2] = inner[2:-1:2, 1:-1:2] = True  # segments between two cells
    return float(np.mean(reading.spec.walls[inner] == known.walls[inner])) if inner.any() else 1.0


def _read_at(rgb: np.ndarray, dark: np.ndarray, colour: np.ndarray, box: Box, borders: tuple[float, ...], *,
             grid: tuple[int, int] | None, known: MazeSpec | None) -> MazeReading | Unparseable:
    """Read the maze whose border runs through ``box`` (see :func:`read_maze`; ``colour``: its
    :func:`colour_mask`)."""
    place = box
    try:
        estimate = estimate_grid(dark, box, borders, colour, grid=grid)
    except InputError as exc:
        return Unparseable(str(exc))
    thickness, box = estimate.thickness, estimate.box
    shape, vert, horiz = _best_grid(dark, estimate)
    thr, level, open_level = wall_threshold(vert, horiz)
    if level < 0.1:
        return Unparseable("the maze's border is too faint to tell walls from corridors")
    vw, hw = vert >= thr, horiz >= thr
    margin = 0.15 * (level - open_level)
    ambiguous = int((np.abs(vert[:, 1:-1] - thr) < margin).sum() + (np.abs(horiz[1:-1, :] - thr) < margin).sum())
    start, goal = start_and_goal(find_markers(rgb, box, shape))
    if start is None or goal is None:  # markers of a few pixels (a 4-px dot in a large cell): a finer look
        small = start_and_goal(find_markers(rgb, box, shape, px_per_cell=SMALL_MARKER_PX_PER_CELL,
                                            min_area=SMALL_MARKER_MIN_AREA))
        start, goal = start or small[0], goal or small[1]
    pitch = ((box[2] - box[0]) / shape[0] + (box[3] - box[1]) / shape[1]) / 2
    if thickness.y == thickness.x:
        walls_cells = thickness.y / pitch
    else:  # each way in its own cells
        walls_cells = (thickness.y * shape[0] / (box[2] - box[0]) + thickness.x * shape[1] / (box[3] - box[1])) / 2
    look = MazeLook(box=box, grid=shape, wall_thickness=walls_cells,
                    border_thickness=float(np.median(borders)) / pitch, wall_level=level, open_level=open_level,
                    start=start, goal=goal)
    walls = lattice_from_segments(vw, hw)
    if known is not None:
        spec = MazeSpec.from_lattice(walls, start=lattice_to_cell(known.start), goal=lattice_to_cell(known.goal))
        return MazeReading(spec=spec, look=look, vertical=vert, horizontal=horiz, threshold=thr, ambiguous=ambiguous)
    if start is None or goal is None:
        return Unparseable("maze read, but its " + ("start and goal markers were" if start is goal is None else
                                                    "start marker was" if start is None else "goal marker was")
                           + " not found (coloured blobs: the goal red, the start another colour)")
    if start.cell == goal.cell:
        return Unparseable(f"start and goal markers are in the same cell {list(start.cell)}")
    spec = MazeSpec.from_lattice(walls, start=start.cell, goal=goal.cell)
    reading = MazeReading(spec=spec, look=look, vertical=vert, horizontal=horiz, threshold=thr, ambiguous=ambiguous)
    if not spec.solution:
        return Blocked(f"the maze as read ({shape[0]}x{shape[1]}) has no way from the start "
                       f"{list(start.cell)} to the goal {list(goal.cell)}", reading=reading, place=place)
    return reading


def _reached_share(spec: MazeSpec) -> float:
    """The share of the maze's cells a way from the start reaches."""
    _, labels = cv2.connectedComponents((~spec.walls).astype(np.uint8), connectivity=4)
    cells = labels[1::2, 1::2]
    return float(np.count_nonzero(cells == labels[spec.start])) / cells.size


def _inside(box: Box, other: Box) -> bool:
    """Whether ``box`` lies within ``other`` (2 px to spare), smaller on some side."""
    (t, l, b, r), (ot, ol, ob, orr) = box, other
    return t >= ot - 2 and l >= ol - 2 and b <= ob + 2 and r <= orr + 2 and \
        max(t - ot, l - ol, ob - b, orr - r) > 2


BAR_BAND = 2.5  #: a border band this many times as thick as the walls (and 2 px) is a dark bar, not a line


def _beside_a_bar(reading: MazeReading, borders: tuple[float, ...]) -> bool:
    """Whether the place ``reading`` was read at is bounded on some side by a band BAR_BAND
    times as thick as its walls: a dark bar (a letterbox, a pillarbox), not a drawn border."""
    (t, l, b, r), (rows, cols) = reading.look.box, reading.look.grid
    walls = reading.look.wall_thickness * min((b - t) / rows, (r - l) / cols)
    return max(borders) > BAR_BAND * walls + 2


SAME_PITCH = 0.25  #: cells within this share of each other's size each way are the same cells


def _same_pitch(look: MazeLook, other: MazeLook) -> bool:
    """Whether two readings' cells are about the same size each way (SAME_PITCH): the one
    inside the other is then the other less whole rows or columns."""
    (t, l, b, r), (rows, cols) = look.box, look.grid
    (ot, ol, ob, orr), (orows, ocols) = other.box, other.grid
    return abs((b - t) * orows / max(1e-9, (ob - ot) * rows) - 1) <= SAME_PITCH and \
        abs((r - l) * ocols / max(1e-9, (orr - ol) * cols) - 1) <= SAME_PITCH


MARGIN_MIXED = 0.1  #: cells with more than this share of their sides walls, and of openings, hold a maze


def _no_maze_beyond(reading: MazeReading, box: Box) -> bool:
    """Whether ``reading``'s cells whose centres lie outside ``box`` hold no maze: the sides
    between two of them nearly all open (empty paper, a plot's labels) or nearly all walls
    (dark bars), not a mix of walls and openings (MARGIN_MIXED). A plot's frame read as the
    maze's border reads its margin as cells cut off from the start; a maze whose wall cuts
    some of its cells off reads a maze there (mazeworld 84848 v00112 squeezed, ghosted and
    shaken: a 3x3 maze that leaves 3 cells unreached, not the 3x2 inside it)."""
    t, l, b, r = reading.look.box
    (rows, cols), (it, il, ib, ir) = reading.spec.shape, box
    ys = t + (np.arange(rows) + 0.5) * (b - t) / rows
    xs = l + (np.arange(cols) + 0.5) * (r - l) / cols
    out = ~((ys[:, None] >= it) & (ys[:, None] <= ib) & (xs[None, :] >= il) & (xs[None, :] <= ir))
    w = reading.spec.walls
    across = w[1::2, 2:-1:2][out[:, :-1] & out[:, 1:]]  # sides between two cells beyond the box, left-right
    down = w[2:-1:2, 1::2][out[:-1, :] & out[1:, :]]    # ... and top-bottom
    sides = np.concatenate([across, down])
    return not sides.size or not MARGIN_MIXED < float(sides.mean()) < 1 - MARGIN_MIXED


SAME_PLACE = 0.25  #: a box within this share of a cell of another's every side is the same place


def read_walls_again(image: np.ndarray, blocked: Blocked) -> MazeReading | None:
    """The maze of ``blocked`` with its walls read again from ``image`` (another frame of the
    video) at the same place (within SAME_PLACE of a cell): where they leave a way from the
    start to the goal and agree with the blocked ones (KNOWN_AGREEMENT: the same maze), the
    reading with those walls - its look, start and goal those of ``blocked`` (the frame its
    markers were read from) - else None.

    A watermark over the puzzle in the first frames (Sora's jumps about) draws its dark
    shadow across corridors, read as walls that block every way; the frames after it has
    moved show the maze as it is (mazeworld 15151 v00025 tilted, flickered and
    watermarked: the enclosing paper was read as a 10x9 maze instead)."""
    rgb = as_rgb(image, name="frame")
    dark, _, colour = _ink_and_colour(rgb)
    maze = blocked.reading.spec
    t, l, b, r = blocked.place
    pitch = max((b - t) / maze.shape[0], (r - l) / maze.shape[1])
    for box, borders in box_candidates(dark):
        if _box_shift(box, blocked.place) > SAME_PLACE * pitch:
            continue
        reading = _read_at(rgb, dark, colour, box, borders, grid=maze.shape, known=maze)
        if isinstance(reading, Unparseable) or not reading.spec.solution or _agreement(reading, maze) < KNOWN_AGREEMENT:
            return None
        return MazeReading(spec=reading.spec, look=blocked.reading.look, vertical=reading.vertical,
                           horizontal=reading.horizontal, threshold=reading.threshold, ambiguous=reading.ambiguous)
    return None
