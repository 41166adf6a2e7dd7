"""Where the maze is: its outer border found in the ink - captions, ticks, labels, frames and bars
glued to it left out - as the centres of the border lines, and the other places it may be."""

from __future__ import annotations

import math
from collections.abc import Iterator

import cv2
import numpy as np

from .ink import _SQUARE_3, FAINT_INK_MIN, INK_MIN
from .reading import Box
from .regions import _areas, _box_of, _count_set, _index_runs, _labelled, _share
from .strokes import _faint_lines


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


def box_candidates(dark: np.ndarray, *, outer: bool = False) -> Iterator[tuple[Box, tuple[float, float, float, float]]]:
    """Where the maze may be, the likeliest first (found as they are asked for):
    :func:`find_box`'s border, then the extent of the enclosed paper (the corridors) when it
    differs. A lattice maze whose border merged with dark bars shows no border of its own: a
    ring of walls standing free inside it, or a wall running its full height between the
    bars, is then taken for the border. Last, the largest structure of faint ink, when
    :func:`find_box` took a darker one: a caption's black text beside a maze drawn in pale
    grey lines (mazeworld 73737 v00144 shaken, flickered and crushed: read as a 6x3 maze in
    the word "Frame"); then the first box cut back to the maze's side where it holds an empty
    strip (:func:`_within_frame`: a plot's frame drawn wider than the maze). With ``outer`` (a
    maze whose grid is known, which tells which place reads it), at the very last the
    structure's outermost border, not moved in to a line across it with no ink beyond: an
    empty edge column of cells whose faint grid a vignette and re-encoding wiped looks like
    a plot's frame drawn around more space (mazeworld 71071 v00062 vignetted, shaken and
    crushed: the maze file's 3x3 grid stretched over the 3x2 inside, wall IoU 0.75)."""
    given: list[Box] = []
    first: list[tuple[Box, tuple[float, float, float, float]]] = []
    for candidate in (lambda: find_box(dark), lambda: _box_from_inside((dark >= INK_MIN).astype(np.uint8)),
                      lambda: _find_box_at(dark, FAINT_INK_MIN),
                      lambda: _within_frame(dark, *first[0]) if first else None,
                      lambda: _find_box_at(dark, INK_MIN, inner=False) if outer else None):
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


def _find_box_at(dark: np.ndarray, ink_min: float, *, cut_bars: bool = True,
                 inner: bool = True) -> tuple[Box, tuple[float, float, float, float]] | None:
    """:func:`find_box` at one ink level: the outermost of the largest ink structures that hold
    ink inside their border, or None when there is none (a structure whose border merged
    with a frame or bars is read from the inside, unless paper parts it from them once they
    are cut away: ``cut_bars``, see :func:`_apart_from_bars`). ``inner``: its border moved in
    to a line across it with no ink beyond (:func:`_inner_lines`)."""
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
    found = _border_of(ink[y0:y1 + 1, x0:x1 + 1] > 0, inner=inner, faint=region >= FAINT_INK_MIN, darkness=region)
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
