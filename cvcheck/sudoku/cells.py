"""Cut the rectified grid into cells, drop blank cells, normalise digit crops for OCR.

A cell is cut between its located lines with an inset on every side (so grid lines
stay out), then judged blank or not from its own contrast and ink; a non-blank cell
yields a normalised crop (dark digit on white, tight box, fixed aspect) for the
recogniser and its ink map (for grouping identical glyphs).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from .grid import GridFit

#: recogniser input height and width for one cell (narrow PP-OCR input)
CROP_H, CROP_W = 48, 32
_MIN_CONTRAST = 50        # grey levels between background and ink for a digit to exist
_MIN_INK_HEIGHT = 0.25    # tallest component, as a share of the inset cell height
_MIN_INK_RATIO = 0.01
#: crops are cut this share of the cell inside the located lines
OUTER_INSET = 0.1
#: recogniser crops are sharpened when source cells are smaller than this (pixels)
SHARPEN_BELOW_PX = 32.0


@dataclass(frozen=True)
class CellCrop:
    """One non-blank cell ready for recognition."""

    row: int
    col: int
    crop: np.ndarray       #: (CROP_H, CROP_W, 3) uint8, dark digit on white
    glyph: np.ndarray      #: (CROP_H, CROP_W) float32 ink map in [0, 1] (1 = ink)


def cell_boxes(fit: GridFit, *, inset: float) -> np.ndarray:
    """Integer boxes (n, n, 4) as (top, bottom, left, right) on the canvas, after the inset."""
    n = fit.n
    boxes = np.empty((n, n, 4), dtype=np.int64)
    for r in range(n):
        t, b = fit.rows[r], fit.rows[r + 1]
        dt = (b - t) * inset
        for c in range(n):
            left, right = fit.cols[c], fit.cols[c + 1]
            dl = (right - left) * inset
            boxes[r, c] = (round(t + dt), round(b - dt), round(left + dl), round(right - dl))
    return boxes


def cell_patches(fit: GridFit, *, inset: float) -> list[list[np.ndarray]]:
    """Darkness patches per cell (views into the canvas; do not modify)."""
    boxes = cell_boxes(fit, inset=inset)
    return [[fit.canvas[t:max(b, t + 1), lf:max(rt, lf + 1)] for t, b, lf, rt in row] for row in boxes]


def digit_mask(patch: np.ndarray, *, core: float) -> np.ndarray | None:
    """Ink mask of a cell's digit, or None when the cell is blank.

    ``patch`` is cut with a small inset (just inside the lines). Blank when the cell has
    too little contrast or ink, when what remains after dropping grid-line remnants along
    the border and specks is too small, or when no ink reaches the central region
    (the patch minus ``core`` of its side on every edge).
    """
    if patch.size == 0:
        return None
    bg, top = _levels(patch, 0.5, 0.995)
    if top - bg < _MIN_CONTRAST:
        return None
    mask = (patch > (bg + top) / 2).astype(np.uint8)
    mask = _drop_line_runs(mask)
    if mask.mean() < _MIN_INK_RATIO:
        return None
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    h, w = patch.shape
    x, y, bw, bh, area = (stats[:, k] for k in range(5))
    touch_lr = (x == 0) | (x + bw == w)
    touch_tb = (y == 0) | (y + bh == h)
    line_like = (touch_lr & (bh > 0.5 * h) & (bw < 0.2 * w)) | (touch_tb & (bw > 0.5 * w) & (bh < 0.2 * h))
    keep = ~line_like & (area >= 0.004 * h * w)
    keep[0] = False
    if not keep.any():
        return None
    out = keep[labels]
    if out.mean() < _MIN_INK_RATIO:
        return None
    mt, ml = int(core * h), int(core * w)
    if not out[mt:h - mt, ml:w - ml].any():
        return None
    # the mid-level mask decides *whether* there is ink; the digit's extent comes from a
    # lower level, so that the lighter strokes of a blurred or thin digit (chroma-subsampled
    # video) stay with it
    low = _drop_line_runs((patch > bg + 0.3 * (top - bg)).astype(np.uint8))
    count, labels = cv2.connectedComponents(low, connectivity=8)
    lut = np.zeros(count, dtype=bool)
    lut[labels[out & (low > 0)]] = True
    lut[0] = False
    grown = lut[labels] | out
    rows = np.flatnonzero(grown.any(axis=1))
    if rows[-1] - rows[0] + 1 < _MIN_INK_HEIGHT * h:
        return None
    return grown


def _levels(values: np.ndarray, *quantiles: float) -> list[float]:
    """Quantiles of uint8 values from one histogram (much cheaper than np.percentile)."""
    cum = np.cumsum(np.bincount(values.ravel(), minlength=256))
    return [float(np.searchsorted(cum, max(q * cum[-1], 1))) for q in quantiles]  # inverted-CDF quantiles


def _drop_line_runs(mask: np.ndarray) -> np.ndarray:
    """Remove remnants of grid lines that wander into the cell: horizontal runs longer
    than 75 % of the patch in its top/bottom 20 % and vertical runs likewise in its
    left/right 20 %. Digit strokes that long (a tall 4's stem) lie inside, not along a side."""
    h, w = mask.shape
    bh, bw = max(1, int(0.2 * h)), max(1, int(0.2 * w))
    long_h, long_v = 0.75 * w, 0.75 * h
    if (max(mask[:bh].sum(axis=1).max(), mask[h - bh:].sum(axis=1).max()) < long_h
            and max(mask[:, :bw].sum(axis=0).max(), mask[:, w - bw:].sum(axis=0).max()) < long_v):
        return mask  # no row/column along a side holds enough ink for a long run
    horiz = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((1, max(3, int(0.75 * w))), np.uint8))
    vert = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((max(3, int(0.75 * h)), 1), np.uint8))
    horiz[bh:h - bh] = 0
    vert[:, bw:w - bw] = 0
    runs = cv2.bitwise_or(horiz, vert)
    if not runs.any():
        return mask
    return mask & (1 - cv2.dilate(runs, np.ones((3, 3), np.uint8)))


def normalise_crop(patch: np.ndarray, mask: np.ndarray, *, sharpen: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Tight, padded, contrast-stretched crop (CROP_H, CROP_W, 3) uint8 and its ink map.

    ``sharpen`` applies an unsharp mask to the recogniser's crop (not to the ink map): for
    cells that were small in the source image and come out of the rectification blurred
    (on 256 px 9x9 grids with blur it removed about a third of the misreadings).
    """
    ys, xs = np.nonzero(mask)
    t, b, lf, rt = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    bg, = _levels(patch, 0.5)
    ink, = _levels(patch[mask], 0.9)
    span = max(ink - bg, 1.0)
    box_h, box_w = b - t, rt - lf
    pad = max(2, round(0.15 * box_h))
    height = box_h + 2 * pad
    width = max(box_w + 2 * pad, round(height * CROP_W / CROP_H))
    height = max(height, round(width * CROP_H / CROP_W))
    canvas = np.zeros((height, width), dtype=np.float32)
    oy, ox = (height - box_h) // 2, (width - box_w) // 2
    region = (patch[t:b, lf:rt].astype(np.float32) - bg) / span
    canvas[oy:oy + box_h, ox:ox + box_w] = np.clip(region, 0.0, 1.0)
    glyph = cv2.resize(canvas, (CROP_W, CROP_H), interpolation=cv2.INTER_AREA)
    shown = glyph
    if sharpen:
        shown = np.clip(glyph + 2.0 * (glyph - cv2.GaussianBlur(glyph, (0, 0), 2.0)), 0.0, 1.0)
    grey = np.clip(255.0 * (1.0 - shown), 0, 255).astype(np.uint8)
    return np.repeat(grey[:, :, None], 3, axis=2), glyph


def extract_cells(fit: GridFit, *, inset: float) -> tuple[np.ndarray, list[CellCrop]]:
    """Blank map (n, n) bool and the crops of every non-blank cell (row-major).

    ``inset`` (share of the cell per side) bounds the central region a digit must reach;
    the crop itself is cut just inside the lines so that large digits are not clipped.
    """
    n = fit.n
    blank = np.ones((n, n), dtype=bool)
    crops: list[CellCrop] = []
    core = max(0.0, inset - OUTER_INSET) / (1 - 2 * OUTER_INSET)
    sharpen = needs_sharpening(fit)
    for r, row in enumerate(cell_patches(fit, inset=OUTER_INSET)):
        for c, patch in enumerate(row):
            crop = read_cell(patch, r, c, core=core, sharpen=sharpen)
            if crop is not None:
                blank[r, c] = False
                crops.append(crop)
    return blank, crops


def needs_sharpening(fit: GridFit) -> bool:
    """True when the grid's cells were small in the source image (upscaled onto the canvas)."""
    return fit.source_cell_px < SHARPEN_BELOW_PX


def read_cell(patch: np.ndarray, row: int, col: int, *, core: float = 0.1,
              sharpen: bool = False) -> CellCrop | None:
    """The normalised crop of one cell patch, or None when blank."""
    mask = digit_mask(patch, core=core)
    if mask is None:
        return None
    crop, glyph = normalise_crop(patch, mask, sharpen=sharpen)
    return CellCrop(row=row, col=col, crop=crop, glyph=glyph)
