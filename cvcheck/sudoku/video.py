"""Sudoku answer videos: a per-cell timeline read at the cost of the real changes.

Each frame is rectified with the last grid fit and registered to it by phase correlation
(sub-pixel camera shake is undone; the grid is located again only when it moved by more
than a quarter cell or the scene changed). Every cell keeps the coarse 16x16 thumbnail
(all cut from one resize of the rectified frame) it had when last read, and is re-read
only when some thumbnail pixel moved away from it by more than ``video_change_threshold``
grey levels (H.264 noise measured here stays under ~25; a digit appearing, vanishing or
changing moves some pixel by > 150). A blank cell costs no OCR call; a changed cell whose
normalised glyph still matches the one last recognised there (the test used to share
recognitions, see :func:`~cvcheck.sudoku.ocr.base.glyph_distance`) keeps its reading; the
other changed cells of a frame go to the recogniser as one batch. A new value is committed
(debounced) once it has held ``video_debounce_frames`` frames, and dated to the frame it
first appeared in, so one-frame flicker is no update and no clue change.

Metrics (D.4.2): ``clues_changed`` over every frame's committed grid; constraint
violation and completion accuracy on the final frame; ``action_reflection`` = gradual
filling: average updates per frame <= 3 (4x4) / 5 (9x9), at most 25 % of the cells
changing in any one frame, and updates in at least 20 % of the frames.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace

import cv2
import numpy as np

from ..config import SudokuConfig
from ..vision.arrays import as_rgb
from .cells import OUTER_INSET, cell_boxes, digit_mask, needs_sharpening, normalise_crop
from .grid import GridFit, darkness, find_outer_quad, rectify
from .ocr import DigitEngine, get_engine, glyph_distance, read_with_grouping
from .spec import SudokuSpec

_THUMB = 48
_SIG = 16  # per-cell thumbnail side used for change detection
_SCENE_DIFF = 12.0  # mean abs grey change of the whole-frame thumbnail that forces a new grid fit
_MIN_RESPONSE = 0.1  # phase-correlation peak below which a shift estimate is not trusted


@dataclass
class _Cell:
    committed: int = 0
    pending: int | None = None
    pending_since: int = 0
    pending_count: int = 0
    raw: int = 0
    confidence: float = 1.0
    glyph: np.ndarray | None = None  #: ink map of the crop behind ``raw`` (None when blank)


@dataclass(frozen=True)
class CellUpdate:
    """A committed change of one cell's value (``frame``: where the new value first appeared)."""

    frame: int
    row: int
    col: int
    before: int
    after: int

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


@dataclass(frozen=True)
class ClueChange:
    """A clue cell committed to something other than its clue."""

    frame: int
    row: int
    col: int
    expected: int
    read: int

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


@dataclass(frozen=True)
class Reflection:
    """Update statistics and MMGR's action-reflection checks (gradual filling)."""

    per_frame: np.ndarray          #: committed updates per frame step (frames - 1 entries)
    avg_updates: float
    max_changed_fraction: float
    active_fraction: float
    total_updates: int
    checks: dict[str, bool]

    @property
    def action_reflection(self) -> int:
        return int(all(self.checks.values()))


@dataclass
class Timeline:
    """What happened in the video, cell by cell (frames are analysed frames)."""

    n: int
    frames: int = 0
    updates: list[CellUpdate] = field(default_factory=list)
    ocr_calls: int = 0
    cell_reads: int = 0
    frames_without_grid: int = 0
    refits: int = 0
    clue_changes: list[ClueChange] = field(default_factory=list)
    final_digits: np.ndarray | None = None
    final_confidence: np.ndarray | None = None
    final_frame: int = -1
    final_corners: np.ndarray | None = None
    final_image: np.ndarray | None = None  #: the last analysed frame (kept only when asked)

    def reflection(self, config: SudokuConfig) -> Reflection:
        """Update statistics and the action-reflection checks."""
        steps = max(1, self.frames - 1)
        per = np.zeros(steps, dtype=np.int64)
        for u in self.updates:
            if 1 <= u.frame <= steps:
                per[u.frame - 1] += 1
        limit = config.reflection_max_avg_updates_4 if self.n <= 4 else config.reflection_max_avg_updates_9
        avg = float(per.mean()) if per.size else 0.0
        max_frac = float(per.max() / (self.n * self.n)) if per.size else 0.0
        active = float((per > 0).mean()) if per.size else 0.0
        checks = {"avg_updates_ok": avg <= limit,
                  "max_changed_fraction_ok": max_frac <= config.reflection_max_changed_fraction,
                  "active_fraction_ok": active >= config.reflection_min_active_fraction}
        return Reflection(per_frame=per, avg_updates=avg, max_changed_fraction=max_frac, active_fraction=active,
                          total_updates=int(per.sum()), checks=checks)


def read_timeline(frames: Iterable[np.ndarray], spec: SudokuSpec, *, config: SudokuConfig,
                  engine: DigitEngine | None = None, keep_final: bool = False) -> Timeline:
    """Follow every cell through ``frames`` (RGB arrays), reading only changed cells."""
    n = spec.n
    tl = Timeline(n=n)
    cells = [[_Cell() for _ in range(n)] for _ in range(n)]
    read_sig = np.zeros((n, _SIG, n, _SIG), np.float32)   # each cell's thumbnail when last read
    never_read = np.ones((n, n), dtype=bool)
    eng = engine
    fit: GridFit | None = None
    fit_thumb: np.ndarray | None = None
    ref_canvas: np.ndarray | None = None  # float canvas at the last grid fit, for registration
    window: np.ndarray | None = None
    boxes: np.ndarray | None = None
    sharpen = False
    stride = max(1, config.video_stride)
    core = max(0.0, config.cell_inset - OUTER_INSET) / (1 - 2 * OUTER_INSET)
    t = -1
    for index, frame in enumerate(frames):
        if index % stride:
            continue
        rgb = as_rgb(frame, name="video frame")
        dark = darkness(rgb)
        thumb = cv2.resize(dark, (_THUMB, _THUMB), interpolation=cv2.INTER_AREA).astype(np.float32)
        aligned = None
        if fit is not None and fit_thumb is not None and float(np.abs(thumb - fit_thumb).mean()) <= _SCENE_DIFF:
            aligned = _register(rectify_like(dark, fit), ref_canvas, window)
        if aligned is None:  # first frame, scene change, or the grid moved too far: locate it again
            quad = find_outer_quad(dark)
            fit = rectify(dark, quad, n) if quad is not None else None
            if fit is None or fit.size_mismatch:
                fit = None
                tl.frames_without_grid += 1
                continue
            fit_thumb = thumb
            # register on the grid lines only: digits appearing must not move the estimate
            window = cv2.createHanningWindow(fit.canvas.shape[::-1], cv2.CV_32F) * _line_band(fit)
            ref_canvas = fit.canvas.astype(np.float32)
            boxes = cell_boxes(fit, inset=OUTER_INSET)
            sharpen = needs_sharpening(fit)
            tl.refits += 1
        else:
            fit = aligned
        t += 1
        # one thumbnail per cell from a single resize: (n, _SIG, n, _SIG), the outer 2/20 of each cell left out
        small = cv2.resize(fit.canvas, (n * 20, n * 20), interpolation=cv2.INTER_AREA).astype(np.float32)
        sig = small.reshape(n, 20, n, 20)[:, 2:18, :, 2:18]
        changed = never_read | (np.abs(sig - read_sig).max(axis=(1, 3)) > config.video_change_threshold)
        pending_crops: list[tuple[int, int, np.ndarray, np.ndarray]] = []
        for r, c in np.argwhere(changed):
            r, c = int(r), int(c)
            cell = cells[r][c]
            read_sig[r, :, c, :] = sig[r, :, c, :]
            never_read[r, c] = False
            tl.cell_reads += 1
            assert boxes is not None  # set with the first grid fit
            top, bottom, left, right = boxes[r, c]
            patch = fit.canvas[top:max(bottom, top + 1), left:max(right, left + 1)]
            mask = digit_mask(patch, core=core)
            if mask is None:
                cell.raw, cell.confidence, cell.glyph = 0, 1.0, None
                continue
            crop, glyph = normalise_crop(patch, mask, sharpen=sharpen)
            # pixels moved (shake, grain) but the normalised glyph is the one already read: keep it
            if (cell.glyph is not None and cell.confidence >= config.min_confidence
                    and glyph_distance(glyph, cell.glyph) <= config.ocr_glyph_share):
                continue
            pending_crops.append((r, c, crop, glyph))
        if pending_crops:
            eng = eng or get_engine(config)
            readings, calls = read_with_grouping(eng, [p[2] for p in pending_crops], [p[3] for p in pending_crops],
                                                 n=n, max_diff=config.ocr_glyph_share,
                                                 recheck_below=config.min_confidence)
            tl.ocr_calls += calls
            for (r, c, _, glyph), reading in zip(pending_crops, readings):
                cell = cells[r][c]
                cell.raw, cell.confidence, cell.glyph = reading.digit, reading.confidence, glyph
        _commit(cells, t, tl, spec, config.video_debounce_frames)
        tl.final_digits = np.array([[cl.raw for cl in row] for row in cells], dtype=np.int8)
        tl.final_confidence = np.array([[cl.confidence for cl in row] for row in cells], dtype=np.float32)
        tl.final_frame = index
        tl.final_corners = fit.corners
        if keep_final:
            tl.final_image = rgb
    tl.frames = t + 1
    return tl


def _line_band(fit: GridFit, *, half: int = 4) -> np.ndarray:
    """(S, S) float32 mask of the bands around the located grid lines."""
    size = fit.canvas.shape[0]
    band = np.zeros((size, size), np.float32)
    for pos in fit.rows:
        band[max(0, int(pos) - half):int(pos) + half + 1, :] = 1.0
    for pos in fit.cols:
        band[:, max(0, int(pos) - half):int(pos) + half + 1] = 1.0
    return band


def _register(fit: GridFit, ref: np.ndarray | None, window: np.ndarray | None) -> GridFit | None:
    """Undo a small shift (camera shake) of a canvas against the reference canvas.

    Returns the fit with an aligned canvas; the fit unchanged when the shift is tiny or the
    match too weak to trust (codec drift lowers it in still videos); None when the grid
    moved by more than a quarter cell (the caller then locates the grid again).
    """
    if ref is None:
        return None
    (dx, dy), response = cv2.phaseCorrelate(ref, fit.canvas.astype(np.float32), window)
    if not (np.isfinite(dx) and np.isfinite(dy)) or response < _MIN_RESPONSE:
        return fit
    if np.hypot(dx, dy) > 0.25 * ref.shape[0] / fit.n:
        return None
    if np.hypot(dx, dy) < 0.35:  # below this, resampling would blur more than it aligns
        return fit
    m = np.array([[1, 0, -dx], [0, 1, -dy]], np.float32)
    canvas = cv2.warpAffine(fit.canvas, m, fit.canvas.shape[::-1], flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_REPLICATE)
    return replace(fit, canvas=canvas)


def rectify_like(dark: np.ndarray, fit: GridFit) -> GridFit:
    """Rectify a frame with an existing fit's corners and line positions (no search)."""
    size = fit.canvas.shape[0]
    quad = fit.corners[:, ::-1].astype(np.float32)
    dst = np.array([[0, 0], [size - 1, 0], [size - 1, size - 1], [0, size - 1]], np.float32)
    m = cv2.getPerspectiveTransform(quad, dst)
    canvas = cv2.warpPerspective(dark, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return GridFit(n=fit.n, corners=fit.corners, canvas=canvas, rows=fit.rows, cols=fit.cols)


def _commit(cells: list[list[_Cell]], t: int, tl: Timeline, spec: SudokuSpec, debounce: int) -> None:
    """Debounce raw readings into committed values; record updates and clue changes."""
    for r, row in enumerate(cells):
        for c, cell in enumerate(row):
            clue = int(spec.puzzle[r, c])
            if t == 0:
                cell.committed = cell.raw
                if clue and cell.raw != clue:
                    tl.clue_changes.append(ClueChange(frame=0, row=r, col=c, expected=clue, read=cell.raw))
                continue
            if cell.raw == cell.committed:
                cell.pending, cell.pending_count = None, 0
                continue
            if cell.pending == cell.raw:
                cell.pending_count += 1
            else:
                cell.pending, cell.pending_since, cell.pending_count = cell.raw, t, 1
            if cell.pending_count >= max(1, debounce):
                tl.updates.append(CellUpdate(frame=cell.pending_since, row=r, col=c,
                                             before=cell.committed, after=cell.raw))
                cell.committed = cell.raw
                cell.pending, cell.pending_count = None, 0
                if clue and cell.committed != clue:
                    tl.clue_changes.append(ClueChange(frame=cell.pending_since, row=r, col=c,
                                                      expected=clue, read=cell.committed))
