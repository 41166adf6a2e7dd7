"""The wall layout of a maze video's canvas against the reference maze, per frame.

MMGR's "maze changed" rule compares the walls drawn in each frame with the reference's:
:class:`WallLayout` gives that IoU for a canvas (:mod:`.video_place` samples it), for
lattice walls by pixels (dark, or neutral and darker than halfway to the paper) and for
thin lines by segments (each cell side's ink along its central band, against a threshold
between the reference's walls and open boundaries as drawn in the video). What it reads
per canvas row or segment is kept, so that a frame whose canvas changed in a few rows
costs only those rows.
"""

from __future__ import annotations

import cv2
import numpy as np

from ..vision import colors
from ..vision.canvas import Runs
from ..vision.order_stats import median
from .lattice import MazeSpec
from .metrics import upscale_cells
from .style import StyleProfile
from .video_canvas import CanvasGeometry

FADE_SHARE = 0.75     #: line walls drawn this share as dark as they have been are read as drawn at that
                      #: darkness (a flickering frame); fainter, as faded out
WALL_SPLIT_MAX = 150  #: lattice walls: a neutral pixel under halfway from the walls' value to the paper's, and
                      #: under this V, is wall too (see _wall_split)


class WallLayout:
    """The wall layout IoU of canvases of one maze video against the reference ``spec``.

    Parameters
    ----------
    spec : MazeSpec
    style : StyleProfile
        Its colour floors (coloured pixels are no wall ink) and wall kind.
    geometry : CanvasGeometry
        How the maze lies on the canvas (``k`` pixels a lattice cell, the margin ``pad``).
    """

    def __init__(self, spec: MazeSpec, style: StyleProfile, geometry: CanvasGeometry) -> None:
        if geometry != CanvasGeometry.of(spec, style, geometry.k):
            raise ValueError(f"the canvas {geometry} is not one of this {spec.shape[0]}x{spec.shape[1]} "
                             f"maze with {style.walls} walls")
        self.spec, self.style, self.geometry = spec, style, geometry
        self.k, self.pad, self.lines = geometry.k, geometry.pad, geometry.lines
        self.paper_at = self._paper_points()  #: canvas pixels (rows, cols) where the paper shows
        self._iou: float | None = None
        self._row_counts: np.ndarray | None = None  # lattice: (intersection, union) per canvas row
        self._split: int | None = None              # lattice: the V a neutral wall pixel is under (_wall_split)
        self._slot_sums: dict[bool, tuple[np.ndarray, np.ndarray]] = {}  # lines: per segment, see _line_means
        if self.lines:
            self._init_slots()
        else:
            self.ref_px = upscale_cells(spec.walls, self.k)
            # Layout IoU ignores a 1-px band along the reference wall edges (1/k of a cell):
            # frame jitter, blur and resampling move edges, never whole walls.
            ring = cv2.dilate(self.ref_px.astype(np.uint8), np.ones((3, 3), np.uint8)) \
                - cv2.erode(self.ref_px.astype(np.uint8), np.ones((3, 3), np.uint8))
            self.iou_care = ring == 0
            self.ref_care = self.ref_px & self.iou_care

    def _paper_points(self) -> tuple[np.ndarray, np.ndarray]:
        """Canvas pixels (rows, columns) where the paper shows: each maze cell's centre and
        four points half a lattice cell from it (thin lines), or the centres of the
        reference's open lattice cells (lattice walls)."""
        k, pad = self.k, self.pad
        if self.lines:
            rows, cols = self.spec.shape
            cy, cx = np.meshgrid((2 * np.arange(rows) + 1) * k + pad, (2 * np.arange(cols) + 1) * k + pad,
                                 indexing="ij")
            d = k // 2
            offsets = [(0, 0), (-d, 0), (d, 0), (0, -d), (0, d)]
            ys = np.concatenate([(cy + dy).ravel() for dy, _ in offsets])
            xs = np.concatenate([(cx + dx).ravel() for _, dx in offsets])
        else:
            ys, xs = np.nonzero(~self.spec.walls)
            ys, xs = ys * k + k // 2, xs * k + k // 2
        return ys.astype(np.intp), xs.astype(np.intp)

    def iou(self, canvas: np.ndarray, hsv: np.ndarray, runs: Runs | None) -> float:
        """The wall layout IoU; ``runs``: the rows changed since the last frame, whose cached
        per-row (lattice) or per-segment (lines) sums are brought up to date (None: all, from
        scratch, leaving the caches alone)."""
        if runs == [] and self._iou is not None:  # nothing changed: nor did what was read from it
            return self._iou
        if not self.lines:
            inter, union = self._lattice_counts(canvas, hsv, runs)
        else:
            est_v, est_h, seen_v, seen_h = self.read_slots(hsv, runs)
            inter = np.count_nonzero(est_v & self.ref_v & seen_v) + np.count_nonzero(est_h & self.ref_h & seen_h)
            union = np.count_nonzero((est_v | self.ref_v) & seen_v) + np.count_nonzero((est_h | self.ref_h) & seen_h)
        iou = float(inter / union) if union else 0.0
        if runs is not None:
            self._iou = iou
        return iou

    def _lattice_counts(self, canvas: np.ndarray, hsv: np.ndarray, runs: Runs | None) -> tuple[int, int]:
        """Wall pixels drawn over the reference's (intersection) and either's (union), cared-for
        pixels only; per canvas row, kept across frames. A wall pixel is dark (the fixed rule,
        :func:`~cvcheck.vision.colors.dark_mask`) or neutral and under :meth:`_wall_split`."""
        split = self._wall_split(hsv)
        neutral = self.style.min_saturation - 1

        def count(r0: int, r1: int) -> tuple[np.ndarray, np.ndarray]:
            dark = colors.dark_mask(canvas[r0:r1])
            if split > colors.DEFAULT_RULES.dark_max_value:
                dark |= cv2.inRange(hsv[r0:r1], (0, 0, 0), (180, neutral, split - 1)) > 0
            dark &= self.iou_care[r0:r1]
            ref = self.ref_care[r0:r1]
            return np.count_nonzero(dark & ref, axis=1), np.count_nonzero(dark | ref, axis=1)

        h = canvas.shape[0]
        if runs is None:
            inter, union = count(0, h)
            return int(inter.sum()), int(union.sum())
        if self._row_counts is None:
            self._row_counts = np.zeros((2, h), np.int64)
            runs = [(0, h)]
        for r0, r1 in runs:
            self._row_counts[0, r0:r1], self._row_counts[1, r0:r1] = count(r0, r1)
        return int(self._row_counts[0].sum()), int(self._row_counts[1].sum())

    def _wall_split(self, hsv: np.ndarray) -> int:
        """The value (V) under which a neutral lattice canvas pixel is wall: halfway from the
        reference's walls to its open cells in the first canvas read (their medians; at most
        WALL_SPLIT_MAX), or the fixed rule's where that read no dark walls. Fixed for the
        video: a wall that fades in or out - drawn half-transparent, or blended with the frame
        before by a long shutter (a one-frame change at 60 %: V ~100 over white paper) -
        counts once it is nearer the walls' darkness than the paper's, as it does in either
        direction."""
        if self._split is None:
            floor = colors.DEFAULT_RULES.dark_max_value
            value = hsv[..., 2]
            walls, paper = value[self.ref_care], value[self.paper_at]
            split = floor
            if walls.size and paper.size:
                wall, open_ = float(np.median(walls)), float(np.median(paper))
                if wall < floor < open_:
                    split = int(np.clip((wall + open_) / 2, floor, WALL_SPLIT_MAX))
            self._split = split
        return self._split

    def _init_slots(self) -> None:
        rows, cols = self.spec.shape
        k = self.k
        walls = self.spec.walls
        self.level = 0.0          # darkest the reference's walls have been drawn so far
        self.open_level: float | None = None  # how dark its open boundaries are (a faint cell grid)
        self.ref_v = walls[1::2, 0::2].copy()   # (rows, cols+1): vertical line left of cell (r, c)
        self.ref_h = walls[0::2, 1::2].copy()   # (rows+1, cols): horizontal line above cell (r, c)
        d = max(1, k // 3)
        offs = np.arange(-d, d + 1)
        self._n_offs = offs.size
        band = np.arange(int(round(0.4 * k)), int(round(1.6 * k)))    # central 60 % of a 2k cell side
        lines_x = np.arange(cols + 1) * 2 * k + self.pad              # canvas columns of vertical lines
        lines_y = np.arange(rows + 1) * 2 * k + self.pad
        h, w = self.geometry.size
        # Gather indices, fixed for the video: across each line, its few candidate pixel rows
        # (or columns); along it, the central band of every cell side (clipped to the canvas).
        self._slot_index: dict[bool, tuple[np.ndarray, np.ndarray, int, int]] = {}
        for vertical, lines, along, size_across, size_along in ((True, lines_x, rows, w, h),
                                                                (False, lines_y, cols, h, w)):
            across = np.clip(lines[:, None] + offs, 0, size_across - 1).ravel()          # (lines * offsets)
            length = np.clip((self.pad + np.arange(along) * 2 * k)[:, None] + band, 0, size_along - 1).ravel()
            self._slot_index[vertical] = (across, length, along, band.size)

    def read_slots(self, hsv: np.ndarray, runs: Runs | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                               np.ndarray]:
        """Which wall lines are drawn, and which could be seen: boolean (rows, cols+1) vertical
        and (rows+1, cols) horizontal, then the same for "not hidden" (a line under the agent,
        an icon or a marker for more than a quarter of its length is neither drawn nor erased).
        ``runs``: see :meth:`iou`."""
        vs, seen_v = self._line_means(hsv, vertical=True, runs=runs)
        hs, seen_h = self._line_means(hsv, vertical=False, runs=runs)
        # The darkness of a drawn line depends on its width and the canvas scale (a heavy
        # border, faint 1-px walls), so the threshold is set between the reference's inner walls
        # as drawn in this frame - but never under FADE_SHARE of their darkest so far in this
        # video, so that lines fading out are read as gone, while a frame drawn a little lighter
        # all over (flicker) is not - and its open boundaries as first seen (white, or a faint
        # cell grid).
        opened = np.concatenate([vs[~self.ref_v & seen_v], hs[~self.ref_h & seen_h]])
        if self.open_level is None:
            self.open_level = median(opened) if opened.size else 0.0
        elif opened.size:
            # The paper as dark as it was first seen: a video's tone drifts (grey paper, lifted
            # blacks, a dimming frame) and every line darkens with its paper, the open ones too,
            # which the threshold set on the first frames would read as walls drawn.
            drift = np.float32(median(opened) - self.open_level)
            vs, hs = vs - drift, hs - drift
        walls = np.concatenate([vs[self.ref_v & seen_v], hs[self.ref_h & seen_h]])
        inner = np.concatenate([vs[:, 1:-1][(self.ref_v & seen_v)[:, 1:-1]], hs[1:-1][(self.ref_h & seen_h)[1:-1]]])
        if inner.size >= 3:  # a heavier border says nothing about how dark the inner walls are drawn
            walls = inner
        if not walls.size:
            return np.zeros_like(vs, bool), np.zeros_like(hs, bool), seen_v, seen_h
        now = median(walls)
        self.level = max(self.level, now)
        level = max(now, FADE_SHARE * self.level)
        base = min(self.open_level, 0.5 * level)
        if level - base < 0.03:
            return np.zeros_like(vs, bool), np.zeros_like(hs, bool), seen_v, seen_h
        thr = base + 0.45 * (level - base)
        return vs > thr, hs > thr, seen_v, seen_h

    def _line_means(self, hsv: np.ndarray, *, vertical: bool,
                    runs: Runs | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Per wall line: the darkness along the central band of its cell side, at the best of
        a few offsets across it (the line may sit a pixel off), and whether it is seen (at
        most a quarter of that band coloured: a coloured icon is no wall). The darkness is
        summed over two neighbouring canvas rows, so that a line thinner than a canvas pixel
        reads the same whether it falls on one row or straddles two (a camera shaking by a
        pixel or two). Only the pixels on the lines are read, and of those only the segments
        in the rows of ``runs`` (see :meth:`iou`). Shapes (rows, cols+1) for vertical
        lines, (rows+1, cols) for horizontal ones."""
        across, length, along, nb = self._slot_index[vertical]
        sums = self._slot_sums.get(vertical) if runs is not None else None
        if sums is None:
            sums = self._segment_sums(hsv, vertical, across, length)
            if runs is not None:
                self._slot_sums[vertical] = sums
        elif runs:
            changed = np.zeros(hsv.shape[0] + 1, bool)
            for r0, r1 in runs:
                changed[r0:r1] = True
            if vertical:  # a cell side's band of rows
                cells = np.flatnonzero(changed[length].reshape(along, nb).any(axis=1))
                if cells.size:
                    rows = length.reshape(along, nb)[cells].ravel()
                    dark, col = self._segment_sums(hsv, vertical, across, rows)
                    sums[0][:, cells], sums[1][:, cells] = dark, col
            else:  # a line's row at one offset
                lines = np.flatnonzero(changed[across])
                if lines.size:
                    dark, col = self._segment_sums(hsv, vertical, across[lines], length)
                    sums[0][lines], sums[1][lines] = dark, col
        dark_sums, coloured_counts = (a.reshape(-1, self._n_offs, along) for a in sums)
        pairs = (dark_sums[:, :-1] + dark_sums[:, 1:]).astype(np.float32) / np.float32(255 * nb)
        line, seen = pairs.max(axis=1), coloured_counts.max(axis=1) <= 0.25 * nb
        return (line.T, seen.T) if vertical else (line, seen)

    def _segment_sums(self, hsv: np.ndarray, vertical: bool, across: np.ndarray,
                      length: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Neutral darkness and coloured-pixel counts summed along each cell side's band:
        (len(across), len(length) // band) int32 each, for lines at canvas columns (vertical)
        or rows ``across`` and bands along ``length``."""
        nb = self._slot_index[vertical][3]
        if vertical:  # (lines * offsets, length, 3): the bands' rows first (fewer), then the columns
            px = np.take(np.take(hsv, length, axis=0), across, axis=1).transpose(1, 0, 2)
        else:
            px = np.take(np.take(hsv, across, axis=0), length, axis=1)
        dark, coloured = neutral_dark(px, self.style)
        cells = length.size // nb
        return (dark.reshape(across.size, cells, nb).sum(axis=2, dtype=np.int32),
                coloured.reshape(across.size, cells, nb).sum(axis=2, dtype=np.int32))


def neutral_dark(hsv: np.ndarray, style: StyleProfile) -> tuple[np.ndarray, np.ndarray]:
    """Ink as the line reader reads it, per pixel of an HSV array (..., 3): the neutral
    darkness (int32; none where coloured) and whether coloured (at the style's colour floor;
    a dark pixel is ink). Neutral darkness is how far below white, less the pixel's chroma
    (V - min(R, G, B)), so that a pale tint (a translucent trail, a glow) adds no ink however
    light it is."""
    sat, val = hsv[..., 1].astype(np.int32), hsv[..., 2].astype(np.int32)
    coloured = (sat >= style.min_saturation) & (val >= style.min_value)
    return np.where(coloured, 0, np.maximum(0, 255 - val - (sat * val) // 255)), coloured
