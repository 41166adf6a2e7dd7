"""Each boundary segment's ink, read across the line along its central half, and the darkness
that splits walls from open segments."""

from __future__ import annotations

from typing import NamedTuple

import cv2
import numpy as np

from .reading import Box

FAINT_WALL_GAP = 0.06  #: darkness between tight groups of open boundaries and walls (less twice their spread)


class Thickness(NamedTuple):
    """Interior walls' thickness in pixels: across rows (``y``: horizontal walls) and across
    columns (``x``: vertical ones); equal unless the maze is stretched to another aspect."""

    y: float
    x: float

    @classmethod
    def square(cls, value: float) -> Thickness:
        return cls(value, value)



def read_segments(dark: np.ndarray, box: Box, grid: tuple[int, int], thickness: float | Thickness,
                  *, slack: float = 0.1, trim: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Darkness of every boundary segment: (rows, cols+1) vertical and (rows+1, cols) horizontal.

    Each is the mean, over the central half of the segment, of the darkest pixel across
    the line within ``thickness / 2 + slack x pitch`` of its expected position (for a
    lattice's walls, averaged over WALL_RUN of their thickness: see :func:`_thick_runs`); with ``trim``,
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
    along_y = _span(t + (np.arange(rows) + 0.25) * py, 0.5 * py, h)             # (rows, L)
    across_x = _span(l + np.arange(cols + 1) * px - half_x, 2 * half_x, w)      # (cols+1, W)
    flat, cw, (y0, x0) = _thick_runs(dark, along_y, across_x, run=_run(tx, px), across_rows=False)
    vert = flat.take((along_y - y0)[:, :, None, None] * cw + (across_x - x0)[None, None, :, :]).max(axis=3)
    across_y = _span(t + np.arange(rows + 1) * py - half_y, 2 * half_y, h)      # (rows+1, W)
    along_x = _span(l + (np.arange(cols) + 0.25) * px, 0.5 * px, w)             # (cols, L)
    flat, cw, (y0, x0) = _thick_runs(dark, across_y, along_x, run=_run(ty, py), across_rows=True)
    horiz = flat.take((across_y - y0)[:, :, None, None] * cw + (along_x - x0)[None, None, :, :]).max(axis=1)
    return vert, horiz


WALL_RUN = 0.5       #: a lattice wall is dark on the mean over this share of its thickness across it
LATTICE_WALLS = 0.3  #: walls at least this share of a cell thick are a lattice's (MMGR's: half a cell)


def _run(thickness: float, pitch: float) -> int:
    """Pixels across a wall that its darkness is averaged over: WALL_RUN of a lattice wall's
    thickness; 1 (each pixel as it is) for lines, however thick the reader took them."""
    return int(thickness * WALL_RUN) if thickness >= LATTICE_WALLS * pitch else 1


def _thick_runs(dark: np.ndarray, ys: np.ndarray, xs: np.ndarray, *, run: int,
                across_rows: bool) -> tuple[np.ndarray, int, tuple[int, int]]:
    """The part of ``dark`` that rows ``ys`` and columns ``xs`` reach, each pixel the mean darkness
    of the ``run`` pixels across the lines around it (down the rows for horizontal lines, along
    them for vertical ones), flattened: ``(flat, its width, its origin)``.

    Where walls are a lattice's, a band much thinner than ``run`` is no wall: the grey seam that video chroma
    subsampling leaves along a marker's edge, two pixels deep where the frame was shaken and
    crushed (mazeworld 63063 v00117: the seam along the goal, at darkness 0.57, read as a wall
    across the corridor), or a watermark's stroke; a wall a watermark pales in part stays dark
    on the mean (not so on the least: 63063 v00160 watermarked at 240p). Lines (a run of 1)
    are read as they are: a faint line read thicker than it is, beside black bars, fades on the
    mean (62062 v00031 made smaller, flickered and crushed)."""
    if run <= 1:
        return dark.ravel(), dark.shape[1], (0, 0)
    y0, y1, x0, x1 = int(ys.min()), int(ys.max()) + 1, int(xs.min()), int(xs.max()) + 1
    crop = cv2.blur(dark[y0:y1, x0:x1], (1, run) if across_rows else (run, 1))
    return crop.ravel(), crop.shape[1], (y0, x0)


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


def _fit(vert: np.ndarray, horiz: np.ndarray) -> float:
    """How cleanly the inner boundary segments split into walls and openings (1: every segment
    at one of two well separated levels; low when segments are cut across walls: a wrong grid).
    The border is left out: a wall on every grid, it is drawn heavier than the walls in some
    looks (MazePlot's axes frame), and its level, a third one, split the walls' from the
    openings' (a sparse blurred 4x3 MazePlot maze read 2x3: mazeworld 68068 v00102)."""
    inner = np.concatenate([vert[:, 1:-1].ravel(), horiz[1:-1].ravel()])
    if inner.size < 2:
        return 0.0
    _, low, high = _otsu(inner)
    return max(0.0, _separation(inner, low, high))


def _separation(values: np.ndarray, low: float, high: float) -> float:
    """How far apart two groups of values around ``low`` and ``high`` are, less twice their
    spread (the mean distance of each value to the nearer group)."""
    spread = float(np.minimum(np.abs(values - low), np.abs(values - high)).mean())
    return high - low - 2 * spread
