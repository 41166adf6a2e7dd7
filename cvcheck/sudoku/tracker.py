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
border is still there, the old corners are kept. Frames without a grid are searched
again only after a scene change (the whole-frame thumbnail moved by more than
:data:`SCENE_DIFF`), so a long video without a grid costs one thumbnail per frame.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from .grid import CELL_PX, GridFit, darkness, find_outer_quad, grid_size, rectify

THUMB = 64
SCENE_DIFF = 12.0      #: mean abs grey change of the whole-frame thumbnail that forces a new grid search
_MIN_RESPONSE = 0.1    #: phase-correlation peak below which a shift estimate is not trusted
_BORDER_KEEP = 0.6     #: outer-border ink (share of its value at the fit) below which the grid is searched again
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


def _search(rgb: np.ndarray, n: int | None) -> tuple[GridFit | None, int | None]:
    """Locate the grid in a frame (searched on a downscaled copy, rectified from the full frame)."""
    h, w = rgb.shape[:2]
    scale = min(1.0, _SEARCH_SIDE / max(h, w))
    small = rgb if scale >= 1 else cv2.resize(rgb, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA)
    dark = darkness(small)
    quad = find_outer_quad(dark)
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
        self._fit_thumb: np.ndarray | None = None    # at the last grid search
        self._ref: np.ndarray | None = None
        self._window: np.ndarray | None = None
        self._border_ref = 0.0
        self._failed_thumb: np.ndarray | None = None  # at the last search that found no grid

    def fix_size(self, n: int) -> None:
        """The grid size is known from now on (the clues were read)."""
        self.n, self.fixed = n, True

    def locate(self, rgb: np.ndarray, *, force: bool = False) -> Located:
        """Where the grid is in ``rgb``; ``force`` analyses a frame even when it looks still."""
        thumb = thumbnail(rgb)
        if not force and self._last_thumb is not None \
                and float(np.abs(thumb - self._last_thumb).max()) <= self.still_threshold:
            return Located("still", self.fit)
        self._last_thumb = thumb
        if not self.fixed:  # still reading the clues: count the size again on every changed frame
            return self._relocate(rgb, thumb)
        if self.fit is not None:
            # the old corners first, whatever else changed: a hand or a glow over the grid is no move
            canvas = warp_canvas(rgb, self.fit.corners[:, ::-1], self.fit.canvas.shape[0])
            moved = replace(self.fit, canvas=canvas)
            aligned = self._register(moved)
            if aligned is not None and self._border(aligned.canvas) >= _BORDER_KEEP * self._border_ref:
                return Located("grid", aligned)
        elif self._failed_thumb is not None \
                and float(np.abs(thumb - self._failed_thumb).mean()) <= SCENE_DIFF:
            return Located("none")  # same scene as the last fruitless search: not searched again
        return self._relocate(rgb, thumb)

    def _relocate(self, rgb: np.ndarray, thumb: np.ndarray) -> Located:
        self.searches += 1
        fit, n = _search(rgb, self.n if self.fixed else None)
        if fit is None:
            if self.fit is not None:  # something crosses the border (a hand): is the grid still where it was?
                kept = replace(self.fit, canvas=warp_canvas(rgb, self.fit.corners[:, ::-1], self.fit.canvas.shape[0]))
                if self._border(kept.canvas) >= _BORDER_KEEP * self._border_ref:
                    return Located("grid", kept)
            self.fit = None
            self._failed_thumb = thumb
            return Located("none")
        self.n = n
        self.relocations += int(self.fit is not None)
        self.fit = fit
        self._fit_thumb = thumb
        # register on the grid lines only: digits appearing must not move the estimate
        self._window = cv2.createHanningWindow(fit.canvas.shape[::-1], cv2.CV_32F) * _line_band(fit)
        self._ref = fit.canvas.astype(np.float32)
        self._border_ref = max(self._border(fit.canvas), 1.0)
        return Located("grid", fit, relocated=True)

    def _border(self, canvas: np.ndarray) -> float:
        """Mean darkness along the located outer lines (+-2 px)."""
        assert self.fit is not None
        f = self.fit
        bands = []
        for pos in (f.rows[0], f.rows[-1]):
            p = int(round(pos))
            bands.append(canvas[max(0, p - 2):p + 3, :].mean())
        for pos in (f.cols[0], f.cols[-1]):
            p = int(round(pos))
            bands.append(canvas[:, max(0, p - 2):p + 3].mean())
        return float(min(bands))

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


def _line_band(fit: GridFit, *, half: int = 4) -> np.ndarray:
    """(S, S) float32 mask of the bands around the located grid lines."""
    size = fit.canvas.shape[0]
    band = np.zeros((size, size), np.float32)
    for pos in fit.rows:
        band[max(0, int(pos) - half):int(pos) + half + 1, :] = 1.0
    for pos in fit.cols:
        band[:, max(0, int(pos) - half):int(pos) + half + 1] = 1.0
    return band
