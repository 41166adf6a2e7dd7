"""Where the grid is in each video frame, at the cost of what moved.

Every frame first yields a 64x64 darkness thumbnail (a cheap strided downscale). A
frame whose thumbnail is within ``still_threshold`` grey levels of the last analysed
frame's is *still*: nothing is rectified or read. Otherwise the frame is rectified with
the current grid corners (the RGB frame is warped straight onto the small canvas, shrunk
first when the grid is much larger than the canvas) and registered to the reference
canvas by phase correlation on the grid-line bands (camera shake); the grid is located
again only when the shift exceeds a quarter cell or the outer border no longer lies
where it was (a zoom, a pan, a cut). Something crossing the grid (a hand) leaves the
border in place, so the grid is not searched for then; and when a search fails while the
border is still there, the old corners are kept; once a grid was seen, searches look at
long straight ink runs first (an arm crossing the border bends the ink's outline). While
no grid is found, it is searched for on changed frames with a growing gap (1, 1, 1, 2,
4... up to every 16th), so a long video without a grid costs little more than one
thumbnail per frame.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from .grid import CELL_PX, GridFit, darkness, find_outer_quad, grid_size, rectify

THUMB = 64
_MIN_RESPONSE = 0.1    #: phase-correlation peak below which a shift estimate is not trusted
_BORDER_KEEP = 0.6     #: share of the outer lines still in place (relative to the fit) below which the grid is searched
_STRONG = 0.5          #: share of its outer lines (+-3 px: wobbly lines) a re-found grid must show on every side
_BAND = 1              #: half-width (canvas px) of the band the outer lines are looked for in
_MAX_BACKOFF = 16      #: a lost grid is searched for at least on every 16th changed frame
_SEARCH_SIDE = 720     #: frames are searched for the grid at most this large


def thumbnail(rgb: np.ndarray) -> np.ndarray:
    """(THUMB, THUMB) float32 darkness thumbnail of a frame, from a strided subsample."""
    h, w = rgb.shape[:2]
    step = max(1, min(h, w) // (4 * THUMB))
    small = cv2.resize(np.ascontiguousarray(rgb[::step, ::step]), (THUMB, THUMB), interpolation=cv2.INTER_AREA)
    return (255.0 - small.min(axis=2)).astype(np.float32)


def warp_canvas(rgb: np.ndarray, quad: np.ndarray, size: int) -> np.ndarray:
    """Darkness canvas (size, size) of the quad (x, y corners) of an RGB frame.

    The frame is shrunk by an integer factor first when the quad is more than twice the
    canvas (bilinear warping would alias thin strokes), so the cost follows the canvas.
    """
    side = float(np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1).mean())
    factor = int(side // (2 * size))
    src, q = rgb, quad.astype(np.float32)
    if factor >= 2:
        x0, y0 = np.floor(q.min(axis=0)).astype(int)
        x1, y1 = np.ceil(q.max(axis=0)).astype(int) + 1
        x0, y0 = max(0, x0), max(0, y0)
        crop = rgb[y0:max(y1, y0 + 1), x0:max(x1, x0 + 1)]
        h, w = crop.shape[:2]
        src = cv2.resize(np.ascontiguousarray(crop), (max(1, w // factor), max(1, h // factor)),
                         interpolation=cv2.INTER_AREA)
        q = ((q - np.array([x0, y0], np.float32)) / factor).astype(np.float32)
    dst = np.array([[0, 0], [size - 1, 0], [size - 1, size - 1], [0, size - 1]], np.float32)
    m = cv2.getPerspectiveTransform(q, dst)
    warped = cv2.warpPerspective(np.ascontiguousarray(src), m, (size, size), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REPLICATE)
    return darkness(warped)


def _search(rgb: np.ndarray, n: int | None, *, lines_first: bool = False) -> tuple[GridFit | None, int | None]:
    """Locate the grid in a frame (searched on a downscaled copy, rectified from the full frame)."""
    h, w = rgb.shape[:2]
    scale = min(1.0, _SEARCH_SIDE / max(h, w))
    small = rgb if scale >= 1 else cv2.resize(rgb, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    dark = darkness(small)
    quad = find_outer_quad(dark, lines_first=lines_first)
    if quad is None:
        return None, n
    if n is None:
        n = grid_size(dark, quad)
        if n is None:
            return None, None
    coarse = rectify(dark, quad, n)  # refines the quad onto the outer lines (glow, shadow)
    if coarse.size_mismatch:
        return None, n
    quad = coarse.corners[:, ::-1] / scale
    canvas = warp_canvas(rgb, quad, n * CELL_PX)
    full = np.array([[0, 0], [canvas.shape[1] - 1, 0], [canvas.shape[1] - 1, canvas.shape[0] - 1],
                     [0, canvas.shape[0] - 1]], np.float64)
    fit = rectify(canvas, full, n, refine=False)  # the lines, on the full-resolution canvas
    fit = replace(fit, corners=quad[:, ::-1].copy())
    return (None if fit.size_mismatch else fit), n


@dataclass
class Located:
    """The outcome for one frame: ``kind`` is ``still``, ``grid`` (``fit`` set) or ``none``."""

    kind: str
    fit: GridFit | None = None
    relocated: bool = False


class GridTracker:
    """Follows one grid through a video (see the module docstring)."""

    def __init__(self, n: int | None, *, still_threshold: float) -> None:
        self.n = n
        self.fixed = n is not None  #: False: the size is counted afresh at every search (clues not read yet)
        self.still_threshold = still_threshold
        self.fit: GridFit | None = None
        self.searches = 0
        self.relocations = 0
        self._last_thumb: np.ndarray | None = None   # the last analysed frame's
        self._ref: np.ndarray | None = None
        self._window: np.ndarray | None = None
        self._lines_ref = 0.0
        self._failed_thumb: np.ndarray | None = None  # at the last search that found no grid
        self.seen = False       # a grid was found in an earlier frame
        self._misses = 0        # searches in a row that found nothing
        self._since_miss = 0    # changed frames since the last fruitless search

    def fix_size(self, n: int) -> None:
        """The grid size is known from now on (the clues were read)."""
        self.n, self.fixed = n, True

    def locate(self, rgb: np.ndarray, *, force: bool = False) -> Located:
        """Where the grid is in ``rgb``; ``force`` analyses a frame even when it looks still
        (and searches a lost grid at once)."""
        thumb = thumbnail(rgb)
        if not force and self._last_thumb is not None \
                and float(np.abs(thumb - self._last_thumb).max()) <= self.still_threshold:
            return Located("still", self.fit)
        if not self.fixed:  # still reading the clues: count the size again on every changed frame
            self._last_thumb = thumb
            return self._relocate(rgb, thumb)
        kept: GridFit | None = None
        if self.fit is not None or force or self._failed_thumb is None:
            self._last_thumb = thumb
        if self.fit is not None:
            # the old corners first, whatever else changed: a hand or a glow over the grid is no move
            canvas = warp_canvas(rgb, self.fit.corners[:, ::-1], self.fit.canvas.shape[0])
            moved = replace(self.fit, canvas=canvas)
            aligned = self._register(moved)
            if aligned is not None and self._holds(aligned.canvas):
                return Located("grid", aligned)
            if self._holds(canvas):  # the registration was confused (lines covered), the border is in place
                kept = moved
        elif self._failed_thumb is not None and not force:
            self._since_miss += 1
            if self._since_miss < min(_MAX_BACKOFF, 2 ** max(0, self._misses - 2)):
                # lost for a while: searched on ever fewer changed frames (compared with the
                # last searched one, so that a change is never taken for a still frame)
                return Located("none")
            self._last_thumb = thumb
        return self._relocate(rgb, thumb, kept)

    def _relocate(self, rgb: np.ndarray, thumb: np.ndarray, kept: GridFit | None = None) -> Located:
        self.searches += 1
        # once the grid was seen, anything new over it (a hand) is likelier than a new grid: lines first
        fit, n = _search(rgb, self.n if self.fixed else None, lines_first=self.seen)
        if fit is not None and self.seen and _border(fit.canvas, fit, band=3) < _STRONG:
            fit = None  # its outer lines are not all drawn: a quad bent by something over the grid
        if fit is None:
            if kept is not None:  # something crosses the grid, which is still where it was
                return Located("grid", kept)
            self.fit = None
            self._failed_thumb = thumb
            self._misses += 1
            self._since_miss = 0
            return Located("none")
        self.seen = True
        self._misses = 0
        self.n = n
        self.relocations += int(self.fit is not None)
        self.fit = fit
        # register on the grid lines only: digits appearing must not move the estimate
        self._window = cv2.createHanningWindow(fit.canvas.shape[::-1], cv2.CV_32F) * _line_band(fit)
        self._ref = fit.canvas.astype(np.float32)
        self._lines_ref = max(_lines(fit.canvas, fit), 0.05)
        return Located("grid", fit, relocated=True)

    def _holds(self, canvas: np.ndarray) -> bool:
        """Whether the grid lines are still where the current fit has them (all of them: a
        hand over a corner hides some of two sides, a pan moves every line of one direction)."""
        assert self.fit is not None
        return _lines(canvas, self.fit) >= _BORDER_KEEP * self._lines_ref

    def _register(self, fit: GridFit) -> GridFit | None:
        """Undo a small shift (camera shake) against the reference canvas; None when it moved too far."""
        if self._ref is None:
            return None
        (dx, dy), response = cv2.phaseCorrelate(self._ref, fit.canvas.astype(np.float32), self._window)
        if not (np.isfinite(dx) and np.isfinite(dy)) or response < _MIN_RESPONSE:
            return fit
        if np.hypot(dx, dy) > 0.25 * self._ref.shape[0] / fit.n:
            return None
        if np.hypot(dx, dy) < 0.35:  # below this, resampling would blur more than it aligns
            return fit
        m = np.array([[1, 0, -dx], [0, 1, -dy]], np.float32)
        canvas = cv2.warpAffine(fit.canvas, m, fit.canvas.shape[::-1], flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE)
        return replace(fit, canvas=canvas)


def _border(canvas: np.ndarray, fit: GridFit, band: int = 1) -> float:
    """Share of the outer lines located in ``fit`` that is drawn there, on the weakest side.

    Along each side, a position counts when the +-``band`` px band across the line holds ink
    (half-way from the paper to the ink): a hand over part of a side leaves the rest, a
    grid that moved by more than the band leaves (almost) nothing.
    """
    paper = float(np.percentile(canvas[::4, ::4], 25))
    level = paper + 0.5 * (_ink(canvas) - paper)
    shares = []
    for pos in (fit.rows[0], fit.rows[-1]):
        p = int(round(pos))
        shares.append(float((canvas[max(0, p - band):p + band + 1, :].max(axis=0) > level).mean()))
    for pos in (fit.cols[0], fit.cols[-1]):
        p = int(round(pos))
        shares.append(float((canvas[:, max(0, p - band):p + band + 1].max(axis=1) > level).mean()))
    return min(shares)


def _lines(canvas: np.ndarray, fit: GridFit) -> float:
    """Share of all the grid's line positions (inner and outer) drawn where ``fit`` has
    them, on the weaker of the two directions (+-1 px bands)."""
    paper = float(np.percentile(canvas[::4, ::4], 25))
    level = paper + 0.5 * (_ink(canvas) - paper)
    rows = [float((canvas[max(0, int(round(p)) - _BAND):int(round(p)) + _BAND + 1, :].max(axis=0) > level).mean())
            for p in fit.rows]
    cols = [float((canvas[:, max(0, int(round(p)) - _BAND):int(round(p)) + _BAND + 1].max(axis=1) > level).mean())
            for p in fit.cols]
    return min(float(np.mean(rows)), float(np.mean(cols)))


def _ink(canvas: np.ndarray) -> float:
    """The darkness of the grid's ink (99th percentile)."""
    return float(np.percentile(canvas[::2, ::2], 99))


def _line_band(fit: GridFit, *, half: int = 4) -> np.ndarray:
    """(S, S) float32 mask of the bands around the located grid lines."""
    size = fit.canvas.shape[0]
    band = np.zeros((size, size), np.float32)
    for pos in fit.rows:
        band[max(0, int(pos) - half):int(pos) + half + 1, :] = 1.0
    for pos in fit.cols:
        band[:, max(0, int(pos) - half):int(pos) + half + 1] = 1.0
    return band
