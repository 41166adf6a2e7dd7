"""A frame's window resampled onto a small canvas, again only where the frame changed.

In most answer videos little moves from one frame to the next: the maze stands still
and an agent of a few pixels walks through it. :class:`CanvasSampler` keeps the last
canvas and the source pixels each canvas row was resampled from; for a new frame it
resamples again only the rows whose source rows changed by more than ``tolerance``
levels since then (all of them for the first frame, a cut or a moving camera), and
says which rows those are, so that the work built on the canvas can follow the same
rows. Where point or linear samples make a canvas many times smaller than the window,
comparing the samples is cheaper than comparing the window: every sample is taken anew
and a row converted again when one of its samples moved by more than ``tolerance``.
While frames change nearly everywhere (flicker, grain, a moving camera), the next ones
are resampled whole without comparing, comparing again now and then (see ``_pace``).
With ``tolerance=0`` the canvas is exactly the one resampled from scratch.

Sampling: point samples; or, shrinking by 2x or more, means of whole blocks of pixels
(an integer factor, aligned to the window's first pixel, by halvings where it is even:
OpenCV's fast path, within a level of one step) then linear, so that thin lines keep
their ink; or, under 2x, linear, which still touches every source pixel. Every linear
step goes through fixed ``cv2.remap`` maps, so that a band of rows resampled alone is
bit-identical to the same rows of the whole canvas. A :class:`~cvcheck.vision.yuv.YuvFrame`
is resampled plane by plane (each chroma sample standing for its 2 x 2 pixels, as a
decoder's conversion has it) and only the canvas is converted to RGB.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .runs import Runs, true_runs
from .yuv import Frame, YuvFrame, yuv_to_rgb

MERGE_GAP = 8       #: changed rows this few apart are resampled as one run (each run costs a dozen OpenCV calls)
MERGE_SHARE = 0.05  #: ... or this share of the canvas height apart
ALL_CHANGED = 0.9   #: a frame changed in this share of the canvas rows counts as changed everywhere
MAX_SKIP = 8        #: ... and while frames keep doing so, at most this many go uncompared in a row
DIRECT_SHARE = 2.0  #: point or linear samples are compared, not the window, on canvases this many times smaller


@dataclass(frozen=True)
class _Axis:
    """How one axis of the canvas is sampled: for each canvas index, the source pixels it
    reads (``lo``, ``hi``: inclusive-exclusive, in the source's pixels) and the remap
    coordinate of the linear step (in the grid it reads: source or block means)."""

    lo: np.ndarray
    hi: np.ndarray
    pos: np.ndarray          #: linear step: positions on its grid; nearest: source indices
    chroma_pos: np.ndarray   #: linear step from a 4:2:0 chroma plane (luma positions mapped)


class CanvasSampler:
    """Resample ``window`` (top, left, bottom, right: whole frame pixels, may reach past the
    frame) of each frame onto a ``size`` (width, height) RGB canvas.

    Parameters
    ----------
    window, size :
        The frame's part and the canvas it becomes.
    nearest : bool
        Point samples (else block means for 2x or more, then linear).
    tolerance : int
        Levels a source pixel (or, where samples are compared, a sample) may change by
        before the canvas rows that read it are resampled again (0: any change; the canvas
        is always exact).
    """

    def __init__(self, window: tuple[int, int, int, int], size: tuple[int, int], *, nearest: bool = False,
                 tolerance: int = 0) -> None:
        self.window, self.size, self.nearest, self.tolerance = window, size, nearest, int(tolerance)
        t, l, b, r = window
        w_out, h_out = size
        self._area = None if nearest else _area_step(window, size)
        self.rows = self._axis(t, b, h_out, 0)
        self.cols = self._axis(l, r, w_out, 1)
        self._canvas = np.zeros((h_out, w_out, 3), np.uint8)
        self._gap = max(MERGE_GAP, int(MERGE_SHARE * h_out))  # changed rows this near are one run
        self._small: np.ndarray | None = None  # block means (area step), as last computed
        self._ref: list[np.ndarray] | None = None  # source pixels each row was last resampled from
        self._shape: tuple[int, ...] | None = None
        self._region: tuple[int, int, int, int] = (0, 0, 0, 0)
        self._reads: tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None] = \
            (np.zeros(0, np.intp), np.zeros(0, np.intp), None, None)
        self._maps: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        # Point or linear samples onto a canvas of far fewer pixels than the window: every sample
        # is taken anew and compared (cheaper than comparing the window's pixels)
        self._direct = self._area is None and DIRECT_SHARE * w_out * h_out <= (b - t) * (r - l)
        self._last: np.ndarray | None = None  # (direct) the samples the canvas was converted from
        self._kind: type | None = None
        self.compared = 0  #: frames compared with the last (the others were resampled whole)
        self._skip = 0     # frames still to resample whole without comparing (see _pace)
        self._backoff = 0  # ... how many were skipped last time

    # -- geometry ---------------------------------------------------------------------------
    def _axis(self, start: int, stop: int, n: int, axis: int) -> _Axis:
        if self.nearest:
            idx = int(start) + np.floor(np.arange(n) * (1.0 / (n / (stop - start)))).astype(np.intp)
            return _Axis(lo=idx, hi=idx + 1, pos=idx, chroma_pos=idx // 2)
        step = (stop - start) / n
        if self._area is not None:
            (y0, x0, fy, fx, ny, nx), small = self._area
            first, f, count = (y0, fy, ny) if axis == 0 else (x0, fx, nx)
            pos = _positions(small[axis], step / f, n, False)
            cell = np.clip(np.floor(pos), 0, count - 1).astype(np.intp)
            nxt = np.clip(cell + 1, 0, count - 1)
            # (chroma on its own grid when blocks do not hold whole chroma samples: the luma rows
            # of the two chroma samples it reads count as read too)
            chroma_pos = _positions(start, step, n, True)
            luma = 2 * np.floor(chroma_pos).astype(np.intp)
            return _Axis(lo=np.minimum(first + cell * f, luma), hi=np.maximum(first + (nxt + 1) * f, luma + 4),
                         pos=pos, chroma_pos=chroma_pos)
        pos = _positions(start, step, n, False)
        cell = np.floor(pos).astype(np.intp)
        return _Axis(lo=cell, hi=cell + 2, pos=pos, chroma_pos=_positions(start, step, n, True))

    def _region_of(self, shape: tuple[int, ...]) -> tuple[int, int, int, int]:
        """The frame pixels read (clipped to the frame), with a chroma-aligned margin."""
        h, w = shape[:2]
        y0 = min(max(0, int(self.rows.lo.min()) - 2), h - 1)
        x0 = min(max(0, int(self.cols.lo.min()) - 2), w - 1)
        y1 = max(min(h, int(self.rows.hi.max()) + 2), y0 + 1)
        x1 = max(min(w, int(self.cols.hi.max()) + 2), x0 + 1)
        return y0 - y0 % 2, x0 - x0 % 2, y1, x1

    def _reads_of(self, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]:
        """Each canvas row's source rows in the region (``n`` rows) as ``[lo, hi)``, and the
        rows reading above or below the frame (None when none do)."""
        y0 = self._region[0]
        lo, hi = self.rows.lo - y0, self.rows.hi - y0
        above, below = lo < 0, hi > n
        return (np.clip(lo, 0, n), np.clip(hi, 0, n), above if above.any() else None,
                below if below.any() else None)

    # -- per frame --------------------------------------------------------------------------
    def sample(self, frame: Frame) -> tuple[np.ndarray, Runs]:
        """The frame's canvas (RGB (height, width, 3) uint8, owned by the sampler: copy it
        to keep it past the next call) and the runs of canvas rows resampled anew."""
        h = self.size[1]
        fresh = frame.shape != self._shape or type(frame) is not self._kind  # (the first frame too)
        if fresh:
            self._shape, self._kind = frame.shape, type(frame)
            self._skip = self._backoff = 0
        if self._direct:
            return self._sample_direct(frame, compare=not fresh and not self._skip)
        if fresh:
            self._region = self._region_of(frame.shape)
        planes = self._planes(frame)
        if fresh:
            self._reads = self._reads_of(planes[0].shape[0])
        compare = not fresh and not self._skip
        runs = true_runs(self._changed_rows(planes), gap=self._gap) if compare else [(0, h)]
        for start, stop in runs:
            self._canvas[start:stop] = self._resample(frame, start, stop)
        if self._pace(runs, compared=compare):
            self._remember(planes, runs)
        return self._canvas, runs

    def _pace(self, runs: Runs, *, compared: bool) -> bool:
        """Count the frames to resample whole without comparing, after this one; returns
        whether the next frame is compared (and needs this one's pixels kept).

        While nearly every row changes in every frame (flicker, grain, a moving camera),
        comparing is wasted work: 1, 2, 4, then up to MAX_SKIP frames are resampled whole
        between comparisons, and comparing every frame starts again as soon as one finds
        less changed."""
        if compared:
            self.compared += 1
            if sum(stop - start for start, stop in runs) >= ALL_CHANGED * self.size[1]:
                self._backoff = min(MAX_SKIP, 2 * self._backoff or 1)
                self._skip = self._backoff
            else:
                self._backoff = 0
        elif self._skip:
            self._skip -= 1
        return not self._skip

    def _sample_direct(self, frame: Frame, *, compare: bool) -> tuple[np.ndarray, Runs]:
        """Point or linear samples: every canvas sample is taken anew (a few cheap remaps, far
        fewer pixels than the window) and compared with the samples the canvas holds; only
        the rows where one moved by more than the tolerance are converted again."""
        samples = self._direct_samples(frame)
        h = self.size[1]
        runs: Runs = [(0, h)]
        if compare:
            assert self._last is not None
            peak = cv2.reduce(cv2.absdiff(samples, self._last).reshape(h, -1), 1, cv2.REDUCE_MAX).ravel()
            runs = true_runs(peak > self.tolerance, gap=self._gap)
        if self._pace(runs, compared=compare):
            if self._last is None or runs == [(0, h)]:
                self._last = samples.copy()
            else:
                for start, stop in runs:
                    self._last[start:stop] = samples[start:stop]
        for start, stop in runs:
            block = samples[start:stop]
            self._canvas[start:stop] = yuv_to_rgb(block, frame.matrix) if isinstance(frame, YuvFrame) else block
        return self._canvas, runs

    def _direct_samples(self, frame: Frame) -> np.ndarray:
        """The canvas's samples of ``frame`` before any colour conversion: (h, w, 3) YUV
        (each chroma sample standing for its 2 x 2 pixels) or RGB."""
        rows, cols, h = self.rows, self.cols, self.size[1]
        if not isinstance(frame, YuvFrame):
            return self._remap(frame, "y", 0, h, rows.pos, cols.pos)
        return cv2.merge([self._remap(frame.y, "y", 0, h, rows.pos, cols.pos), *self._chroma(frame, 0, h)])

    def _planes(self, frame: Frame) -> list[np.ndarray]:
        """The source pixels read (the region), per plane: Y, U, V or RGB."""
        y0, x0, y1, x1 = self._region
        if isinstance(frame, YuvFrame):
            return [frame.y[y0:y1, x0:x1], frame.u[y0 // 2:(y1 + 1) // 2, x0 // 2:(x1 + 1) // 2],
                    frame.v[y0 // 2:(y1 + 1) // 2, x0 // 2:(x1 + 1) // 2]]
        return [frame[y0:y1, x0:x1]]

    def _changed_rows(self, planes: list[np.ndarray]) -> np.ndarray:
        """Canvas rows reading a source row that changed by more than the tolerance."""
        assert self._ref is not None
        n_src = planes[0].shape[0]
        moved = np.zeros(n_src + 1, bool)  # (+1: the row past the region, never moved)
        for i, (now, ref) in enumerate(zip(planes, self._ref)):
            peak = cv2.reduce(cv2.absdiff(now, ref).reshape(now.shape[0], -1), 1, cv2.REDUCE_MAX).ravel()
            over = peak > self.tolerance
            if i == 0:
                moved[:n_src] |= over
            else:  # a chroma row holds two luma rows
                moved[0:n_src:2] |= over[:(n_src + 1) // 2]
                moved[1:n_src:2] |= over[:n_src // 2]
        return self._rows_reading(moved)

    def _rows_reading(self, moved: np.ndarray) -> np.ndarray:
        """Canvas rows whose source rows (``lo``..``hi``, in the region) include a moved one."""
        lo, hi, above, below = self._reads
        count = np.empty(moved.size + 1, np.int32)
        count[0] = 0
        np.cumsum(moved, out=count[1:])
        hit = count[hi] > count[lo]
        # rows that read only beyond the frame repeat its edge row
        if moved[0] and above is not None:
            hit |= above
        if moved[moved.size - 2] and below is not None:
            hit |= below
        return hit

    def _remember(self, planes: list[np.ndarray], runs: Runs) -> None:
        """Keep the source pixels the resampled rows read, for the next comparison."""
        n = planes[0].shape[0]
        if self._ref is None or runs == [(0, self.size[1])]:
            self._ref = [p.copy() for p in planes]
            return
        y0 = self._region[0]
        for start, stop in runs:  # (source rows grow with canvas rows)
            lo = min(max(0, int(self.rows.lo[start]) - y0), n)
            hi = min(max(lo, int(self.rows.hi[stop - 1]) - y0), n)
            self._ref[0][lo:hi] = planes[0][lo:hi]
            if len(planes) == 3:
                self._ref[1][lo // 2:(hi + 1) // 2] = planes[1][lo // 2:(hi + 1) // 2]
                self._ref[2][lo // 2:(hi + 1) // 2] = planes[2][lo // 2:(hi + 1) // 2]

    # -- resampling -------------------------------------------------------------------------
    def _resample(self, frame: Frame, start: int, stop: int) -> np.ndarray:
        """Canvas rows ``[start, stop)`` of ``frame``, RGB."""
        if self._area is not None:
            return self._resample_area(frame, start, stop)
        if isinstance(frame, YuvFrame):
            y = self._remap(frame.y, "y", start, stop, self.rows.pos, self.cols.pos)
            return yuv_to_rgb(cv2.merge([y, *self._chroma(frame, start, stop)]), frame.matrix)
        return self._remap(frame, "y", start, stop, self.rows.pos, self.cols.pos)

    def _chroma(self, frame: YuvFrame, start: int, stop: int) -> list[np.ndarray]:
        """U and V of canvas rows ``[start, stop)``, each sample standing for its 2 x 2 pixels."""
        return [self._remap(c, "c", start, stop, self.rows.chroma_pos, self.cols.chroma_pos)
                for c in (frame.u, frame.v)]

    def _resample_area(self, frame: Frame, start: int, stop: int) -> np.ndarray:
        assert self._area is not None
        (y0, x0, fy, fx, ny, nx), _ = self._area
        rows = self.rows
        cells = np.floor(rows.pos[start:stop])
        s0 = int(np.clip(cells.min(), 0, ny - 1))
        s1 = int(np.clip(cells.max() + 1, 0, ny - 1)) + 1  # block rows [s0, s1) are read
        top, bottom = y0 + s0 * fy, y0 + s1 * fy
        yuv = isinstance(frame, YuvFrame)
        whole_chroma = yuv and fy % 2 == fx % 2 == y0 % 2 == x0 % 2 == 0
        channels = 3 if whole_chroma or not yuv else 1
        if self._small is None or self._small.shape[2] != channels:
            self._small = np.zeros((ny, nx, channels), np.uint8)
        if yuv:
            assert isinstance(frame, YuvFrame)
            means = [_area(_window(frame.y, top, x0, bottom, x0 + nx * fx), fy, fx)]
            if whole_chroma:  # blocks of whole chroma samples: their means are the blocks' chroma
                means += [_area(_window(c, top // 2, x0 // 2, bottom // 2, (x0 + nx * fx) // 2), fy // 2, fx // 2)
                          for c in (frame.u, frame.v)]
            self._small[s0:s1] = cv2.merge(means).reshape(s1 - s0, nx, channels)
        else:
            assert isinstance(frame, np.ndarray)
            self._small[s0:s1] = _area(_window(frame, top, x0, bottom, x0 + nx * fx), fy, fx)
        small = self._small if channels == 3 else self._small[:, :, 0]
        out = self._remap(small, "small", start, stop, rows.pos, self.cols.pos)
        if not yuv:
            return out
        assert isinstance(frame, YuvFrame)
        if whole_chroma:
            return yuv_to_rgb(out, frame.matrix)
        return yuv_to_rgb(cv2.merge([out, *self._chroma(frame, start, stop)]), frame.matrix)

    def _remap(self, plane: np.ndarray, key: str, start: int, stop: int, ys: np.ndarray,
               xs: np.ndarray) -> np.ndarray:
        """Rows ``[start, stop)`` of the samples of ``plane`` at ``ys`` x ``xs`` (pixel-centre
        coordinates in ``plane``; linear, or point samples when ``nearest``; ``key`` names
        the cached maps)."""
        if key not in self._maps:
            mx = np.ascontiguousarray(np.broadcast_to(xs[None, :], (ys.size, xs.size)), np.float32)
            my = np.ascontiguousarray(np.broadcast_to(ys[:, None], (ys.size, xs.size)), np.float32)
            m1, m2 = cv2.convertMaps(mx, my, cv2.CV_16SC2, nninterpolation=self.nearest)
            self._maps[key] = (m1, np.empty((0, 0), np.uint16) if m2 is None else m2)  # (None: point samples)
        m1, m2 = self._maps[key]
        # (remap reads only the pixels the maps point at, the plane's edge repeated beyond it)
        how = cv2.INTER_NEAREST if self.nearest else cv2.INTER_LINEAR
        return cv2.remap(plane, m1[start:stop], m2[start:stop], how, borderMode=cv2.BORDER_REPLICATE)


def _area_step(window: tuple[float, float, float, float], size: tuple[int, int]
               ) -> tuple[tuple[int, int, int, int, int, int], tuple[float, float, float, float]] | None:
    """The integer-factor area step for shrinking ``window`` onto ``size`` by 2x or more:
    ``((y0, x0, fy, fx, ny, nx), window on the reduced grid)`` - blocks of ``fy x fx``
    pixels from ``(y0, x0)``, ``ny x nx`` of them - or None under 2x."""
    t, l, b, r = window
    fy, fx = int((b - t) / size[1]), int((r - l) / size[0])
    if fy < 2 or fx < 2:
        return None
    y0, x0 = int(np.floor(t)), int(np.floor(l))
    ny, nx = int(np.ceil((b - y0) / fy)), int(np.ceil((r - x0) / fx))
    return (y0, x0, fy, fx, ny, nx), ((t - y0) / fy, (l - x0) / fx, (b - y0) / fy, (r - x0) / fx)


def _positions(start: float, step: float, n: int, chroma: bool) -> np.ndarray:
    """Sample positions (pixel-centre coordinates) of output pixels ``0..n-1`` over a
    window starting at edge ``start`` with ``step`` pixels per output pixel; for a
    chroma plane, where in it a linear sample at that luma position falls."""
    pos = start + (np.arange(n) + 0.5) * step - 0.5
    if not chroma:
        return pos
    # between luma pixels i and i + 1: the same chroma sample when i is even (one 2 x 2
    # block), else between samples (i - 1) / 2 and (i + 1) / 2
    i = np.floor(pos)
    return np.where(i % 2 == 0, i / 2, (i - 1) / 2 + (pos - i))


def _area(block: np.ndarray, fy: int, fx: int) -> np.ndarray:
    """Means of ``fy`` x ``fx`` blocks (the block's sides are multiples of them)."""
    while fy % 2 == 0 and fx % 2 == 0:
        block = cv2.resize(block, (block.shape[1] // 2, block.shape[0] // 2), interpolation=cv2.INTER_AREA)
        fy, fx = fy // 2, fx // 2
    if fy > 1 or fx > 1:
        block = cv2.resize(block, (block.shape[1] // fx, block.shape[0] // fy), interpolation=cv2.INTER_AREA)
    return block


def _window(plane: np.ndarray, y0: int, x0: int, y1: int, x1: int) -> np.ndarray:
    """``plane[y0:y1, x0:x1]``, edge pixels repeated where it reaches past the plane."""
    h, w = plane.shape[:2]
    crop = plane[max(0, y0):min(h, y1), max(0, x0):min(w, x1)]
    need = (max(0, -y0), max(0, y1 - h), max(0, -x0), max(0, x1 - w))
    if any(need):
        if crop.size == 0:  # wholly beyond the plane: the nearest edge pixel, repeated
            cy, cx = min(max(0, y0), h - 1), min(max(0, x0), w - 1)
            crop, need = plane[cy:cy + 1, cx:cx + 1], (0, y1 - y0 - 1, 0, x1 - x0 - 1)
        crop = cv2.copyMakeBorder(crop, *need, cv2.BORDER_REPLICATE)
    return crop


__all__ = ["CanvasSampler", "Runs"]
