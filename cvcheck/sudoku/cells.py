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


_JOIN = np.ones((3, 3), np.uint8)
#: what a cell holds (see :func:`cell_ink`)
BLANK, DIGIT, OCCLUDED = "blank", "digit", "occluded"
#: grey levels above the paper at which an empty-looking cell counts as covered (videos)
COVER_LEVEL = 60
#: a glyph shorter than this share of the cell is a pencil mark, not an entry (default)
ENTRY_MIN_HEIGHT = 0.3


def digit_mask(patch: np.ndarray, *, core: float, entry_min_height: float = ENTRY_MIN_HEIGHT) -> np.ndarray | None:
    """Ink mask of a cell's digit, or None when the cell is blank or occluded (see :func:`cell_ink`)."""
    kind, mask = cell_ink(patch, core=core, entry_min_height=entry_min_height)
    return mask if kind == DIGIT else None


def cell_ink(patch: np.ndarray, *, core: float, entry_min_height: float = ENTRY_MIN_HEIGHT,
             paper: float | None = None) -> tuple[str, np.ndarray | None]:
    """What a cell patch holds: ``(DIGIT, mask)``, ``(BLANK, None)`` or ``(OCCLUDED, None)``.

    ``patch`` is cut with :data:`OUTER_INSET` (just inside the lines). Blank when the
    cell has too little contrast or ink, when what remains after dropping grid-line
    remnants along the border and specks is too small, when no ink reaches the central
    region (the patch minus ``core`` of its side on every edge), or when no glyph is at
    least ``entry_min_height`` of the cell tall: small pencil marks (candidates in the
    cell's corners, even the centre one) are not entries, and are dropped next to an
    entry. Occluded when a large solid blob (a hand, a cursor block) covers the cell, or,
    given the ``paper`` level of the grid's background, when a cell that holds no digit
    is mostly far darker than the paper: covered by something (a hand or an arm with part
    of a digit still showing past its edge), not erased.
    """
    kind, mask = _cell_ink(patch, core=core, entry_min_height=entry_min_height)
    if kind == BLANK and paper is not None and patch.size and _levels(patch, 0.5)[0] > paper + COVER_LEVEL:
        return OCCLUDED, None
    return kind, mask


def _cell_ink(patch: np.ndarray, *, core: float, entry_min_height: float) -> tuple[str, np.ndarray | None]:
    """:func:`cell_ink` without the paper test."""
    if patch.size == 0:
        return BLANK, None
    bg, top = _levels(patch, 0.5, 0.995)
    if top - bg < _MIN_CONTRAST:
        return BLANK, None
    mask = (patch > (bg + top) / 2).astype(np.uint8)
    mask = _drop_line_runs(mask)
    h, w = patch.shape
    if _solid_blob(mask, h, w):
        return OCCLUDED, None
    if mask.mean() < _MIN_INK_RATIO:
        return BLANK, None
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    x, y, bw, bh, area = (stats[:, k] for k in range(5))
    touch_lr = (x == 0) | (x + bw == w)
    touch_tb = (y == 0) | (y + bh == h)
    line_like = (touch_lr & (bh > 0.5 * h) & (bw < 0.2 * w)) | (touch_tb & (bw > 0.5 * w) & (bh < 0.2 * h))
    keep = ~line_like & (area >= 0.004 * h * w)
    keep[0] = False
    if not keep.any():
        return BLANK, None
    out = keep[labels]
    if out.mean() < _MIN_INK_RATIO:
        return BLANK, None
    mt, ml = int(core * h), int(core * w)
    if not out[mt:h - mt, ml:w - ml].any():
        return BLANK, None
    # the mid-level mask decides *whether* there is ink; the digit's extent comes from a
    # lower level, so that the lighter strokes of a blurred or thin digit (chroma-subsampled
    # video) stay with it
    low = _drop_line_runs((patch > bg + 0.3 * (top - bg)).astype(np.uint8))
    # pieces of one blurred glyph (a thin diagonal lost) are joined across gaps of ~1 px;
    # pencil marks stand several pixels apart and stay separate
    joined = cv2.dilate(low, _JOIN)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(joined, connectivity=8)
    stats = stats.copy()
    stats[1:, :2] += 1
    stats[1:, 2:4] -= 2  # undo the dilation's growth
    lut = np.zeros(count, dtype=bool)
    lut[labels[out & (low > 0)]] = True
    lut[0] = False
    glyph = _entry_glyph(lut, stats, h / (1 - 2 * OUTER_INSET), entry_min_height)
    if glyph is None:
        return BLANK, None
    inside = glyph[labels]
    grown = (inside & (low > 0)) | (out & inside.any())
    grown &= _box_of(glyph, stats, h, w)
    rows = np.flatnonzero(grown.any(axis=1))
    if rows.size == 0 or rows[-1] - rows[0] + 1 < _MIN_INK_HEIGHT * h:
        return BLANK, None
    return DIGIT, grown


def covered_cells(fit: GridFit, paper: float, *, level: float = 45.0) -> np.ndarray:
    """(n, n) bool: cells that something opaque lies over (a hand and its arm).

    Opaque = mid-tone: darker than the ``paper`` by ``level`` but lighter than 3/4 of the
    way to the darkest ink (an arm over thin, blurred digits and grey lines is 0.65-0.7
    of the way). Only the thick parts of that mid-tone count: what a disk 0.4 cell wide
    fits in (the mid-tone edges of thin lines and digits do not). A highlight fill is
    thick too, but its cell's lines cut it off at the cell; a hand hides the lines it
    lies on. So a thick region spanning more than 1.1 cells is foreign, and a cell is
    covered when a sixth of it is foreign.
    """
    n = fit.n
    canvas = fit.canvas
    cell = canvas.shape[0] / n
    ink = float(np.percentile(canvas[::2, ::2], 99))
    out = np.zeros((n, n), dtype=bool)
    if ink - paper < 2 * level:
        return out
    upper = paper + 0.75 * (ink - paper)
    mask = ((canvas > paper + level) & (canvas < upper)).astype(np.uint8)
    if mask.mean() < 0.02:
        return out
    radius = 0.2 * cell
    dist = cv2.distanceTransform(mask, cv2.DIST_L2, 3)
    if float(dist.max()) <= radius:
        return out
    side = 2 * int(radius) + 1
    disk = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side))
    thick = cv2.bitwise_and(cv2.dilate((dist > radius).astype(np.uint8), disk), mask)
    count, labels, stats, _ = cv2.connectedComponentsWithStats(thick, connectivity=8)
    foreign = (stats[:, 2] > 1.1 * cell) | (stats[:, 3] > 1.1 * cell)
    foreign[0] = False
    if not foreign.any():
        return out
    share = cv2.resize(foreign[labels].astype(np.float32), (n, n), interpolation=cv2.INTER_AREA)
    return share > 1 / 6


def _solid_blob(mask: np.ndarray, h: int, w: int) -> bool:
    """A component over half the cell wide and tall that fills its convex hull (no holes,
    no strokes): a hand or a block, not a glyph."""
    if mask.mean() < 0.25:
        return False
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    for k in range(1, count):
        bw, bh, area = stats[k, 2], stats[k, 3], stats[k, 4]
        if bw > 0.5 * w and bh > 0.5 * h and area > 0.5 * bw * bh:
            contours, _ = cv2.findContours((labels == k).astype(np.uint8), cv2.RETR_EXTERNAL,
                                           cv2.CHAIN_APPROX_SIMPLE)
            hull = cv2.contourArea(cv2.convexHull(max(contours, key=cv2.contourArea)))
            if hull > 0 and area >= 0.9 * hull:
                return True
    return False


def _entry_glyph(candidates: np.ndarray, stats: np.ndarray, cell_h: float, min_height: float) -> np.ndarray | None:
    """The components (bool per label) forming the entry: those at least ``min_height``
    of the cell tall, plus the pieces inside their box; None when there is no such glyph."""
    heights = stats[:, 3]
    seeds = candidates & (heights >= min_height * cell_h)
    if not seeds.any():
        return None
    x, y, bw, bh = (stats[:, k] for k in range(4))
    pad = 0.05 * cell_h
    x0, y0 = x[seeds].min() - pad, y[seeds].min() - pad
    x1, y1 = (x + bw)[seeds].max() + pad, (y + bh)[seeds].max() + pad
    inside = candidates & (x >= x0) & (y >= y0) & (x + bw <= x1) & (y + bh <= y1)
    return seeds | inside


def _box_of(glyph: np.ndarray, stats: np.ndarray, h: int, w: int) -> np.ndarray:
    """(h, w) bool: the bounding box of the chosen components."""
    x, y, bw, bh = (stats[:, k] for k in range(4))
    box = np.zeros((h, w), dtype=bool)
    box[int(y[glyph].min()):int((y + bh)[glyph].max()), int(x[glyph].min()):int((x + bw)[glyph].max())] = True
    return box


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


def extract_cells(fit: GridFit, *, inset: float,
                  entry_min_height: float = ENTRY_MIN_HEIGHT) -> tuple[np.ndarray, list[CellCrop], np.ndarray]:
    """Blank map (n, n) bool, the crops of every digit cell (row-major) and the occluded map (n, n) bool.

    ``inset`` (share of the cell per side) bounds the central region a digit must reach;
    the crop itself is cut just inside the lines so that large digits are not clipped.
    """
    n = fit.n
    blank = np.ones((n, n), dtype=bool)
    occluded = np.zeros((n, n), dtype=bool)
    crops: list[CellCrop] = []
    core = core_share(inset)
    sharpen = needs_sharpening(fit)
    for r, row in enumerate(cell_patches(fit, inset=OUTER_INSET)):
        for c, patch in enumerate(row):
            kind, mask = cell_ink(patch, core=core, entry_min_height=entry_min_height)
            if kind == OCCLUDED:
                blank[r, c] = False
                occluded[r, c] = True
            elif mask is not None:
                blank[r, c] = False
                crop, glyph = normalise_crop(patch, mask, sharpen=sharpen)
                crops.append(CellCrop(row=r, col=c, crop=crop, glyph=glyph))
    return blank, crops, occluded


def core_share(inset: float) -> float:
    """The central-region margin of a patch cut with :data:`OUTER_INSET`, for a cell inset."""
    return max(0.0, inset - OUTER_INSET) / (1 - 2 * OUTER_INSET)


def needs_sharpening(fit: GridFit) -> bool:
    """True when the grid's cells were small in the source image (upscaled onto the canvas)."""
    return fit.source_cell_px < SHARPEN_BELOW_PX


def read_cell(patch: np.ndarray, row: int, col: int, *, core: float = 0.1, sharpen: bool = False,
              entry_min_height: float = ENTRY_MIN_HEIGHT) -> CellCrop | None:
    """The normalised crop of one cell patch, or None when blank or occluded."""
    mask = digit_mask(patch, core=core, entry_min_height=entry_min_height)
    if mask is None:
        return None
    crop, glyph = normalise_crop(patch, mask, sharpen=sharpen)
    return CellCrop(row=row, col=col, crop=crop, glyph=glyph)
