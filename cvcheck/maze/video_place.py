"""Where the maze lies in a video's frames, and each frame's canvas there.

:class:`MazePlacement` crops every frame to the maze - placed where the reader found it -
and resamples it onto the canvas (:class:`~cvcheck.vision.canvas.CanvasSampler`: again only
in the rows that changed), white-balanced to the paper's colour in the first frame read.
When the layout suddenly stops matching (a camera that drifted, zoomed, rolled or tilted)
it places the maze anew: found again in the frame and, for thin lines, lined up by an
affine warp (ECC on the canvas's ink against the reference's lines).
"""

from __future__ import annotations

from collections.abc import Iterator

import cv2
import numpy as np

from ..config import MazeConfig
from ..vision.canvas import CanvasSampler, Runs
from ..vision.geometry import Box
from ..vision.yuv import Frame, as_rgb_frame
from .extract import ecc_affine, refine_alignment
from .read import locate, locations
from .video_layout import WallLayout, neutral_dark

RELOCATE_EVERY = 6   #: frames between attempts to re-locate a maze that stopped matching well
RELOCATE_BELOW = 0.92  #: wall IoU under which the maze is re-located (camera drift, zoom)
RELOCATE_DROP = 0.03   #: ... and again before RELOCATE_EVERY frames when it fell this much more since
RELOCATE_GAIN = 0.1    #: a maze matching below the layout threshold is re-located where it matches this much better
RELOCATE_RESIZE = 0.2  #: ... and, found elsewhere than the likeliest place, only this near its size (a share)
RELOCATE_ASPECT = 0.1  #: ... and anywhere only this near its aspect (a share: a camera's moves keep a maze's shape)
MIN_TURN = 0.3       #: degrees: a thin-line maze turned this much is also looked for turned upright,
TURN_STEP = 0.3      #: ... by the turn its lines suggest and by this much more and less
ALIGN_CELL_PX = 8    #: thin lines are lined up on pictures of at most this many pixels a cell
BALANCE_SECONDS = 0.5  #: video time between readings of the paper's colour (a white balance drifts slowly)
BALANCE_FROM = 0.015  #: the canvas is white-balanced once a channel's gain would move this far from 1,
BALANCE_STEP = 0.01  #: ... its gains set anew when they would move this much more,
BALANCE_UNTIL = 0.0075  #: ... and left alone again when every gain would come back this close to 1
PAPER_MIN_VALUE = 120  #: paper samples: at least this bright (V) ...
PAPER_MAX_CHROMA = 0.3  #: ... and at most this share of V in chroma (a cast paper, not a coloured object)


class MazePlacement:
    """The maze's place in the frames of one video, and the frames' canvases there.

    Parameters
    ----------
    config : MazeConfig
        ``video_reuse_tolerance`` (see :class:`~cvcheck.vision.canvas.CanvasSampler`) and
        ``layout_iou_min``.
    layout : WallLayout
        The wall IoU a place is judged by; its maze, style and canvas geometry (``k``, ``pad``)
        are the placement's.
    fps : float
        The frames' rate (the paper's colour is read every BALANCE_SECONDS of video).
    wall_cells : float
        The drawn wall width, cells (thin lines are lined up against lines this thick).
    box : Box, optional
        Where the reader found the maze (centres of its border lines, frame pixels).
    """

    def __init__(self, config: MazeConfig, layout: WallLayout, *, fps: float, wall_cells: float,
                 box: tuple[float, float, float, float] | None = None) -> None:
        self.cfg, self.layout = config, layout
        self.spec, self.style, self.geometry = layout.spec, layout.style, layout.geometry
        self.k, self.pad, self.lines = layout.k, layout.pad, layout.lines
        self.box: Box | None = None
        self.warp: np.ndarray | None = None
        self._sampler: CanvasSampler | None = None
        self._stale = False                         # the canvas's rows all changed (a new place or sampler)
        self._raw: np.ndarray | None = None         # the canvas as sampled, before the white balance
        self._balanced: np.ndarray | None = None    # ... after it (while a balance is applied)
        self._balance_gains: np.ndarray | None = None  # (3,) the per-channel gains applied (None: none)
        self._balance_lut: np.ndarray | None = None    # ... as a (1, 256, 3) uint8 table
        self._paper_cast: np.ndarray | None = None  # the paper's colour over its mean in the first frame read
        self._paper_every = max(1, int(round(BALANCE_SECONDS * fps)))  # frames between readings ...
        self._paper_due = 0                         # ... and frames until the next (a changed frame's)
        self.relocations = 0
        self._last_relocate = -RELOCATE_EVERY
        self._relocate_iou = 1.0  # the wall IoU at the last attempt
        self._missed = 0  # attempts in a row that kept nothing
        self._wall_cells = wall_cells
        self._line_templates: dict[tuple[tuple[int, int], float], np.ndarray] = {}  # (lines) see _line_warp
        self._ecc_found: np.ndarray | None = None  # ... the warp its first seed converged to
        if box is not None:
            self._place(box)

    def next_canvas(self, frame: Frame) -> tuple[np.ndarray, Runs]:
        """``frame``'s canvas (owned by the placement until the next frame) and the runs of
        its rows that changed since the last frame's - all of them after the place or the
        white balance changed."""
        canvas, runs = self._sample(frame)
        self._paper_due -= 1
        if runs and self._paper_due <= 0:  # (an unchanged frame shows the same paper)
            self._paper_due = self._paper_every
            if self._read_paper():
                assert self._raw is not None
                canvas, runs = self._balance(self._raw, [(0, self._raw.shape[0])])
        if self._stale:
            runs, self._stale = [(0, canvas.shape[0])], False
        return canvas, runs

    def relocate_if_due(self, frame: Frame, index: int, iou: float) -> tuple[float, np.ndarray, np.ndarray] | None:
        """Place the maze anew where frame ``index`` matches the layout poorly (``iou`` under
        RELOCATE_BELOW or the layout threshold) and an attempt is due (RELOCATE_EVERY frames
        since the last, or sooner where the match fell RELOCATE_DROP further since); returns
        the wall IoU, canvas and HSV canvas at the new place (every row changed), or None where
        it stays put."""
        # a camera drifting slowly is re-located again as soon as the match keeps falling
        due = index - self._last_relocate >= RELOCATE_EVERY or iou < self._relocate_iou - RELOCATE_DROP
        if iou < max(RELOCATE_BELOW, self.cfg.layout_iou_min) and due:
            self._last_relocate, self._relocate_iou = index, iou
            if (moved := self._relocate(frame, iou)) is not None:
                self._stale = True  # what is kept followed the old place
                return moved
        return None

    def sampling(self, shape: tuple[int, ...]) -> tuple[tuple[int, int, int, int], tuple[int, int], bool]:
        """How a frame of ``shape`` is sampled onto the canvas: the window (top, left,
        bottom, right; frame pixels, may reach past the frame), the canvas size (width,
        height) and whether by point samples (else area, then linear)."""
        assert self.box is not None
        t, l, b, r = self.box
        h, w = self.geometry.size
        if self.lines:  # area resampling with a margin: thin border lines must survive
            hk, wk = self.geometry.inner
            mr = int(round(self.pad * (b - t) / hk))
            mc = int(round(self.pad * (r - l) / wk))
            return (t - mr, l - mc, b + mr, r + mc), (w, h), False
        size = (w, h)
        # Point sampling where the maze lies inside the frame at 2x the canvas or more: ~10x
        # cheaper than area-resampling the whole crop, and thick lattice walls and markers
        # (several canvas pixels wide) lose nothing.
        inside = t >= 0 and l >= 0 and b <= shape[0] and r <= shape[1]
        return (t, l, b, r), size, inside and b - t >= 2 * size[1] and r - l >= 2 * size[0]

    def canvas(self, frame: Frame) -> np.ndarray:
        """The maze region of ``frame`` at ``k`` pixels per lattice cell (RGB uint8, owned
        by the analyser until the next frame); a :class:`~cvcheck.vision.yuv.YuvFrame` is
        resampled in YUV and only the canvas converted."""
        return self._sample(frame)[0]

    def _sample(self, frame: Frame) -> tuple[np.ndarray, Runs]:
        """The canvas (white-balanced, see :meth:`_read_paper`) and the runs of its rows that
        were resampled anew (all, when warped)."""
        window, size, nearest = self.sampling(frame.shape)
        sampler = self._sampler
        if sampler is None or sampler.window != window or sampler.size != size or sampler.nearest != nearest:
            sampler = self._sampler = CanvasSampler(window, size, nearest=nearest,
                                                    tolerance=self.cfg.video_reuse_tolerance)
            self._stale = True
        canvas, runs = sampler.sample(frame)
        if self.warp is not None:
            h, w = canvas.shape[:2]
            canvas = cv2.warpAffine(canvas, self.warp, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                    borderMode=cv2.BORDER_REPLICATE)
            runs = [(0, h)]
        self._raw = canvas
        return self._balance(canvas, runs)

    def _balance(self, canvas: np.ndarray, runs: Runs) -> tuple[np.ndarray, Runs]:
        """``canvas`` through the white balance in force (none: as it is), brought up to date
        in ``runs`` (a buffer kept across frames)."""
        lut = self._balance_lut
        if lut is None:
            return canvas, runs
        out = self._balanced
        if out is None or out.shape != canvas.shape:
            out = self._balanced = np.empty_like(canvas)
            runs = [(0, canvas.shape[0])]
        for r0, r1 in runs:
            cv2.LUT(canvas[r0:r1], lut, dst=out[r0:r1])
        return out, runs

    def _read_paper(self) -> bool:
        """Read the paper's colour on the last canvas sampled and set the white balance that
        brings it back to the paper's colour in the first frame read (the same brightness:
        only the ratios between channels - a video's white balance drifts, warm or cool, and
        a faint line's ink, measured as darkness less chroma, would fade into a tinted paper);
        True when the balance in force changed (the canvas must be balanced anew)."""
        raw = self._raw
        if raw is None:
            return False
        px = raw[self.layout.paper_at]
        hsv = cv2.cvtColor(px[:, None], cv2.COLOR_RGB2HSV)[:, 0]  # (S: chroma over V, 0-255)
        paper = px[(hsv[:, 2] >= PAPER_MIN_VALUE) & (hsv[:, 1] <= int(PAPER_MAX_CHROMA * 255))]
        if len(paper) < max(4, len(px) // 4):  # mostly covered or dark: no paper to read
            return False
        colour = np.sort(paper, axis=0)[len(paper) // 2].astype(np.float32)  # (each channel's median)
        mean = max(1.0, float(colour.sum()) / 3)
        cast = colour / mean
        if self._paper_cast is None:
            self._paper_cast = cast
            return False
        gains = self._paper_cast / cast
        gains *= mean / max(1.0, float(colour @ gains) / 3)  # (the same brightness)
        off = float(np.abs(gains - 1.0).max())
        applied = self._balance_gains
        if applied is None:
            if off < BALANCE_FROM:
                return False
        elif off < BALANCE_UNTIL:
            self._balance_gains = self._balance_lut = None
            return True
        elif float(np.abs(gains - applied).max()) < BALANCE_STEP:
            return False
        levels = np.arange(256, dtype=np.float32)[:, None] * gains[None, :]
        self._balance_gains = gains
        self._balance_lut = np.clip(np.rint(levels), 0, 255).astype(np.uint8)[None]
        return True

    def _place(self, centre: tuple[float, float, float, float]) -> None:
        """Set the crop box from the border lines' centres (lines: those; lattice: the outer
        edges of walls half a cell pitch wide)."""
        t, l, b, r = centre
        if self.lines:
            self.box = (int(round(t)), int(round(l)), int(round(b)), int(round(r)))
        else:
            hy, hx = (b - t) / self.spec.shape[0] / 4, (r - l) / self.spec.shape[1] / 4
            self.box = (int(round(t - hy + 0.5)), int(round(l - hx + 0.5)), int(round(b + hy + 0.5)),
                        int(round(r + hx + 0.5)))
        self.warp = None

    def _located(self, frame: Frame, near: Box | None) -> Iterator[bool]:
        """Place the maze at each place :func:`~.read.locations` finds it in ``frame`` in turn
        (the alignment polished), the likeliest first, and the others only where they are
        about the size of ``near`` (where it was placed: RELOCATE_RESIZE) - a maze redrawn
        matches a part of itself, placed as the whole, better than as it is (mazeworld 84848
        v00074: walls redrawn, re-located onto its lower three quarters, crossings read
        against the wrong walls); any only at about its aspect (RELOCATE_ASPECT: a plot's
        frame a half column wider than a small maze matched it stretched, 27182 v00052)."""
        for i, box in enumerate(locations(as_rgb_frame(frame), self.spec.shape)):
            self._place(box)
            if near is not None and self.box is not None and \
                    (i and not _about_as_large(self.box, near) or not _shaped_alike(self.box, near)):
                continue
            if self.box is not None:
                canvas = self.canvas(frame)
                self.warp = self._line_warp(canvas) if self.lines else refine_alignment(canvas, self.layout.ref_px)[1]
            yield True

    def _relocate(self, frame: Frame, iou: float) -> tuple[float, np.ndarray, np.ndarray] | None:
        """Place the maze anew where it matches better (:meth:`_placings`, the best of them);
        returns the wall IoU, canvas and HSV canvas there, or None where it stays put."""
        old = (self.box, self.warp)
        good = max(RELOCATE_BELOW, self.cfg.layout_iou_min)
        # (the costlier ways of thin lines: on the 1st, 2nd, 4th, 8th ... attempt in a row that
        # kept nothing - a maze redrawn for good is tried again and again)
        thorough = (self._missed & (self._missed - 1)) == 0
        best: tuple[float, np.ndarray, np.ndarray, tuple[Box | None, np.ndarray | None]] | None = None
        last = None
        for placed in self._placings(frame, old[0], thorough=thorough):
            if placed:
                canvas = self.canvas(frame)
                hsv = cv2.cvtColor(canvas, cv2.COLOR_RGB2HSV)
                new_iou = self.layout.iou(canvas, hsv, None)
                last = (self.box, self.warp)
                if best is None or new_iou > best[0]:
                    best = (new_iou, canvas.copy(), hsv, last)
                if best[0] >= good:
                    break
        # the maze moved, not changed: it matches well where it was found again - or, when it
        # no longer matches well anywhere (walls redrawn), clearly better there
        if best is None or not (best[0] > iou + 0.02 and best[0] > self.cfg.layout_iou_min
                                or best[0] > iou + RELOCATE_GAIN):
            self.box, self.warp = old
            self._missed += 1
            return None
        self.box, self.warp = best[3]
        if best[3] is not last:
            self._sample(frame)  # (the sampler set up again for the place kept)
        self.relocations += 1
        self._relocate_iou = best[0]
        self._missed = 0
        return best[0], best[1], best[2]

    def _placings(self, frame: Frame, box: Box | None, *, thorough: bool = True) -> Iterator[bool]:
        """Place the maze anew in each way there is to try, saying whether it was placed: found again
        (:meth:`_located`: each place it may be) and, for thin lines, also where it was, turned,
        tilted or zoomed further from how it was lined up to line up again (a camera that rolled:
        the border found again is then no longer where the lines were, mazeworld 81818 v00099
        rolled), placed where that warp says its border now is (:meth:`_follow`: a camera that
        tilted or drifted, mazeworld 81818 v00101 tilted), and found again in the frame turned
        upright by as much as that warp turns (a camera that rolled and drifted: the maze partly out
        of where it was, 60606 v00021 rolled); the thin lines' ways only when ``thorough``."""
        warp = self.warp
        yield from self._located(frame, box)
        if self.lines and box is not None and thorough:
            self.box, self.warp = box, None
            self.warp = self._line_warp(self.canvas(frame), start=warp)
            yield self.warp is not None
            if (found := self._ecc_found) is not None:
                yield self._follow(frame, box, found)
                if abs(turn := _turn(found)) >= MIN_TURN:
                    for degrees in (turn, turn - TURN_STEP, turn + TURN_STEP):  # (upright to a few tenths)
                        yield self._locate_turned(frame, box, degrees)

    def _follow(self, frame: Frame, box: Box, warp: np.ndarray) -> bool:
        """Place the maze where ``warp`` (found on the canvas of ``box``) says its border lines
        are now - a camera that drifted, zoomed or tilted has carried it partly out of that
        canvas, which no warp of it brings back - and line it up there."""
        self.box, self.warp = box, None
        window, (cw, ch), _ = self.sampling(frame.shape)
        pad = self.pad
        hk, wk = self.geometry.inner
        corners = np.array([[pad, pad, 1.0], [pad + wk, pad, 1.0], [pad + wk, pad + hk, 1.0], [pad, pad + hk, 1.0]])
        xs, ys = (corners @ warp.astype(np.float64).T).T  # on the canvas
        wt, wl, wb, wr = window
        fx = wl + (xs + 0.5) * (wr - wl) / cw - 0.5  # in the frame
        fy = wt + (ys + 0.5) * (wb - wt) / ch - 0.5
        self._place((float(fy[:2].mean()), float(fx[[0, 3]].mean()), float(fy[2:].mean()), float(fx[1:3].mean())))
        self.warp = self._line_warp(self.canvas(frame))  # (None: it lines up as well as it is)
        return True

    def _locate_turned(self, frame: Frame, box: Box, degrees: float) -> bool:
        """Find the maze in ``frame`` turned upright (by ``degrees`` about the centre of
        ``box``, where it was), then place it there in the frame as it is, lined up by a warp
        from that turn where that lines it up better; False when it is not found."""
        rgb = as_rgb_frame(frame)
        h, w = rgb.shape[:2]
        cx, cy = (box[1] + box[3]) / 2, (box[0] + box[2]) / 2
        upright = cv2.warpAffine(rgb, cv2.getRotationMatrix2D((cx, cy), -degrees, 1.0), (w, h),
                                 flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        centre = locate(upright, self.spec.shape)
        if centre is None:
            return False
        t, l, b, r = centre
        # the found box's centre, back in the frame as it is (turned by ``degrees`` about (cx, cy))
        back = cv2.getRotationMatrix2D((cx, cy), degrees, 1.0) @ np.array([(l + r) / 2, (t + b) / 2, 1.0])
        dx, dy = float(back[0]) - (l + r) / 2, float(back[1]) - (t + b) / 2
        self._place((t + dy, l + dx, b + dy, r + dx))
        canvas = self.canvas(frame)
        ch, cw = canvas.shape[:2]
        start = cv2.getRotationMatrix2D((cw / 2, ch / 2), degrees, 1.0).astype(np.float32)
        self.warp = self._line_warp(canvas, start=start)  # (None: it lines up as well unturned)
        return True

    def _line_warp(self, canvas: np.ndarray, start: np.ndarray | None = None) -> np.ndarray | None:
        """The affine warp that lines a thin-line maze's canvas up with the reference's lines
        (a camera that turned, tilted or zoomed since the first frame), or None where it lines
        up no better: ECC between the canvas's neutral ink and the reference's lines drawn as
        thick as the maze's, both blurred - coarsely first (thin lines a few pixels off have
        no overlap to climb), then finely - from ``start`` (the identity by default). Both
        are compared at ALIGN_CELL_PX pixels a cell at most (a large canvas costs ECC dearly)."""
        hsv = cv2.cvtColor(canvas, cv2.COLOR_RGB2HSV)
        h, w = canvas.shape[:2]
        scale = min(1.0, ALIGN_CELL_PX / (2 * self.k))
        size = (max(8, int(round(w * scale))), max(8, int(round(h * scale))))
        to_small = np.array([[size[0] / w, 0, 0.5 * size[0] / w - 0.5], [0, size[1] / h, 0.5 * size[1] / h - 0.5],
                             [0, 0, 1]])  # canvas pixel centres -> the compared pictures'
        ink = neutral_dark(hsv, self.style)[0].astype(np.float32)
        pictures = [(self._lines_drawn(canvas.shape[:2], size, sigma), _shrunk(ink, size, sigma))
                    for sigma in (max(3.0, 0.5 * self.k) * scale, max(1.0, 0.15 * self.k * scale))]
        # seeds: how it was lined up, and the shift that best lines it up as it is (a camera that
        # drifted farther than the coarse blur reaches)
        (dx, dy), _ = cv2.phaseCorrelate(*pictures[0])
        seeds = [np.eye(2, 3, dtype=np.float32) if start is None else _conjugate(start, to_small),
                 np.array([[1, 0, dx], [0, 1, dy]], np.float32)]
        before = self.layout.iou(canvas, hsv, None)
        best, best_iou = None, before + 0.005
        self._ecc_found = None
        for seed in seeds:
            warp: np.ndarray | None = seed
            for template, picture in pictures:
                warp = None if warp is None else ecc_affine(template, picture, start=warp)
            if warp is None:
                continue
            warp = _conjugate(warp, np.linalg.inv(to_small))
            if self._ecc_found is None:  # (the turn it suggests: see _placings)
                self._ecc_found = warp
            warped = cv2.warpAffine(canvas, warp, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                    borderMode=cv2.BORDER_REPLICATE)
            after = self.layout.iou(warped, cv2.cvtColor(warped, cv2.COLOR_RGB2HSV), None)
            if after > best_iou:
                best, best_iou = warp, after
        return best

    def _lines_drawn(self, shape: tuple[int, ...], size: tuple[int, int], sigma: float) -> np.ndarray:
        """The reference's wall lines on a canvas of ``shape``, as thick as the maze draws its
        walls, shrunk to ``size`` (width, height) and blurred by ``sigma`` (float32; what
        the ink of a canvas in place looks like; kept)."""
        if (template := self._line_templates.get((size, sigma))) is not None:
            return template
        k, pad = self.k, self.pad
        out = np.zeros(shape[:2], np.float32)
        width = max(1, int(round(self._wall_cells * 2 * k)))
        for r, c in zip(*np.nonzero(self.layout.ref_v)):
            x = c * 2 * k + pad
            cv2.line(out, (int(x), int(r * 2 * k + pad)), (int(x), int((r + 1) * 2 * k + pad)), 255.0, width)
        for r, c in zip(*np.nonzero(self.layout.ref_h)):
            y = r * 2 * k + pad
            cv2.line(out, (int(c * 2 * k + pad), int(y)), (int((c + 1) * 2 * k + pad), int(y)), 255.0, width)
        template = self._line_templates[(size, sigma)] = _shrunk(out, size, sigma)
        return template


def _about_as_large(box: Box, other: Box) -> bool:
    """Whether ``box`` is as high and as wide as ``other`` within RELOCATE_RESIZE of it."""
    (t, l, b, r), (ot, ol, ob, orr) = box, other
    return abs((b - t) / max(1, ob - ot) - 1) <= RELOCATE_RESIZE and \
        abs((r - l) / max(1, orr - ol) - 1) <= RELOCATE_RESIZE


def _shaped_alike(box: Box, other: Box) -> bool:
    """Whether ``box``'s aspect (width over height) is within RELOCATE_ASPECT of ``other``'s."""
    (t, l, b, r), (ot, ol, ob, orr) = box, other
    return abs(((r - l) * max(1, ob - ot)) / max(1, (orr - ol) * (b - t)) - 1) <= RELOCATE_ASPECT


def _shrunk(picture: np.ndarray, size: tuple[int, int], sigma: float) -> np.ndarray:
    """``picture`` (float32) at ``size`` (width, height; area means), blurred by ``sigma``."""
    if picture.shape[1] != size[0] or picture.shape[0] != size[1]:
        picture = cv2.resize(picture, size, interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(picture, (0, 0), sigma)


def _conjugate(warp: np.ndarray, change: np.ndarray) -> np.ndarray:
    """A 2x3 affine ``warp`` in the coordinates that the 3x3 ``change`` maps its own to:
    ``change @ warp @ inverse(change)`` (float32)."""
    full = np.vstack([warp.astype(np.float64), [0.0, 0.0, 1.0]])
    return (change @ full @ np.linalg.inv(change))[:2].astype(np.float32)


def _turn(warp: np.ndarray) -> float:
    """The turn (degrees, counter-clockwise on the picture, as ``cv2.getRotationMatrix2D``'s)
    of a 2x3 affine warp: that of its rotation part, shear and scale aside."""
    return float(np.degrees(np.arctan2(warp[0, 1] - warp[1, 0], warp[0, 0] + warp[1, 1])))
