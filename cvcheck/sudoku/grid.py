"""Find the Sudoku grid in an image and rectify it onto a square analysis canvas.

Works on a *darkness* map (255 minus the smallest RGB channel, so coloured ink is dark
ink), which makes black, blue, red or green lines and digits look alike. The outer grid
is the largest roughly square closed contour of the ink mask; its four corners give a
homography (handles padding, scale, small rotations and mild perspective). Cell lines
are then located on the canvas by projection profiles near their expected positions,
so unevenly drawn lines are followed.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

#: analysis canvas pixels per cell
CELL_PX = 48
_DETECT_MAX_SIDE = 640


@dataclass(frozen=True)
class GridFit:
    """A located grid.

    Attributes
    ----------
    n : int
        Cells per side.
    corners : ndarray of shape (4, 2)
        Outer corners in image (row, col) order: top-left, top-right, bottom-right,
        bottom-left.
    canvas : ndarray of shape (S, S), uint8
        Rectified darkness map (0 = background, 255 = ink), S = n * CELL_PX.
    rows, cols : ndarray of shape (n + 1,)
        Line positions on the canvas (pixels).
    """

    n: int
    corners: np.ndarray
    canvas: np.ndarray
    rows: np.ndarray
    cols: np.ndarray
    size_mismatch: bool = False  #: the drawn lines say the grid is not n x n

    @property
    def source_cell_px(self) -> float:
        """Mean cell side in the original image (pixels)."""
        sides = np.linalg.norm(self.corners - np.roll(self.corners, -1, axis=0), axis=1)
        return float(sides.mean() / self.n)


def darkness(image: np.ndarray) -> np.ndarray:
    """Darkness map ``(H, W)`` uint8: 255 - min(R, G, B); inverted for light-on-dark images."""
    if image.ndim == 3:
        img = np.ascontiguousarray(image)
        chans = cv2.split(img)
        low = chans[0]
        for ch in chans[1:3]:
            low = cv2.min(low, ch)
        dark = cv2.bitwise_not(low)
    else:
        dark = cv2.bitwise_not(np.ascontiguousarray(image, dtype=np.uint8))
    hist = cv2.calcHist([dark], [0], None, [256], [0, 256]).ravel()
    median = int(np.searchsorted(np.cumsum(hist), 0.5 * hist.sum()))
    if median > 127:  # dark background: lines and digits are the light parts
        dark = cv2.bitwise_not(dark)
    return np.ascontiguousarray(dark, dtype=np.uint8)


def find_grid(image: np.ndarray, n: int | None, *, cell_px: int = CELL_PX) -> GridFit | None:
    """Locate and rectify an ``n`` x ``n`` grid; None when no grid is found.

    Parameters
    ----------
    image : ndarray of shape (H, W, 3), uint8
    n : int or None
        Expected cells per side (the puzzle's size); None: counted from the drawn lines
        (:func:`grid_size`).
    """
    dark = darkness(image)
    quad = find_outer_quad(dark)
    if quad is None:
        return None
    if n is None:
        n = grid_size(dark, quad)
        if n is None:
            return None
    return rectify(dark, quad, n, cell_px=cell_px)


#: grid sizes :func:`grid_size` chooses from
SIZES = tuple(range(3, 10))
_SIZE_CANVAS = 504  # divisible by every size in SIZES


def grid_size(dark: np.ndarray, quad: np.ndarray, sizes: tuple[int, ...] = SIZES) -> int | None:
    """Cells per side of the grid inside ``quad``, from where its lines are drawn.

    Long straight runs of locally dark pixels (an adaptive threshold, so faint thin
    lines count) are found on a rectified canvas; each candidate N is scored by the
    inner lines it expects but does not find plus the lines found where it expects
    none, on both axes. The lowest score wins (ties: the larger N). A 9x9 drawn with
    box lines only looks like a 3x3: give the puzzle or ``boxes`` to say otherwise.
    None when no line at all is found inside the border.
    """
    size = _SIZE_CANVAS
    dst = np.array([[0, 0], [size - 1, 0], [size - 1, size - 1], [0, size - 1]], np.float32)
    m = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    canvas = cv2.warpPerspective(dark, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    ink = cv2.adaptiveThreshold(canvas, 1, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY, 31, -12)
    long = size // 8  # straight runs at least this long are line pieces; a line covers half the grid
    lines = []
    for axis, kernel in ((1, np.ones((1, long), np.uint8)), (0, np.ones((long, 1), np.uint8))):
        opened = cv2.morphologyEx(ink, cv2.MORPH_OPEN, kernel)
        profile = opened.mean(axis=axis)
        on = np.flatnonzero(profile >= 0.5)
        runs = np.split(on, np.flatnonzero(np.diff(on) > 2) + 1) if on.size else []
        lines.append(np.array([r.mean() for r in runs if r.size]))
    best: tuple[int, int] | None = None
    for n in sorted(sizes, reverse=True):
        cell = size / n
        expected = np.arange(1, n) * cell
        cost = 0
        for found in lines:
            inner = found[(found > 0.5 * cell) & (found < size - 0.5 * cell)] if found.size else found
            tol = 0.15 * cell
            cost += int(sum(not (np.abs(inner - e) <= tol).any() for e in expected))
            cost += int(sum(not (np.abs(expected - f) <= tol).any() for f in inner))
        if best is None or cost < best[0]:
            best = (cost, n)
    if best is None or not any(f.size for f in lines):
        return None
    if best[1] == 3 and 9 in sizes and _small_glyphs(canvas, ink, size / 3):
        return 9  # a 9x9 drawn with box lines only: its digits are a third of a "cell" tall
    return best[1]


def _small_glyphs(canvas: np.ndarray, ink: np.ndarray, cell: float) -> bool:
    """Whether the glyphs between the lines are mostly under 0.3 cell tall (glyphs from a
    global threshold: an adaptive one splits bold strokes; lines: runs of half the grid)."""
    half = canvas.shape[0] // 2
    line_ink = cv2.bitwise_or(cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((1, half), np.uint8)),
                              cv2.morphologyEx(ink, cv2.MORPH_OPEN, np.ones((half, 1), np.uint8)))
    _, dark = cv2.threshold(canvas, 0, 1, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    near_lines = cv2.dilate(line_ink, np.ones((7, 7), np.uint8))
    glyphs = ((np.asarray(dark) > 0) & (np.asarray(near_lines) == 0)).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(glyphs, connectivity=8)
    heights = stats[1:, 3]
    heights = heights[(heights > 0.08 * cell) & (heights < 0.9 * cell)]
    return heights.size >= 3 and float(np.median(heights)) < 0.3 * cell


def find_outer_quad(dark: np.ndarray, *, lines_first: bool = False) -> np.ndarray | None:
    """Corners (4, 2) in (x, y) of the outer grid border, or None.

    The ink's outer contours are tried first, then those of its long straight runs only
    (robust to an arm crossing the border); ``lines_first`` swaps the order (videos, where
    something may lie over the grid).
    """
    h, w = dark.shape
    scale = min(1.0, _DETECT_MAX_SIDE / max(h, w))
    small = cv2.resize(dark, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA) if scale < 1 else dark
    pad = 8
    small = cv2.copyMakeBorder(small, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=int(np.median(small)))
    if int(small.max()) - int(np.percentile(small, 50)) < 40:
        return None  # nothing drawn
    side = max(small.shape)
    block = max(15, (side // 40) | 1)
    binary = cv2.adaptiveThreshold(255 - small, 255, cv2.ADAPTIVE_THRESH_MEAN_C, cv2.THRESH_BINARY_INV, block, 12)
    binary = cv2.morphologyEx(binary, cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    area_min = 0.04 * (small.shape[0] - 2 * pad) * (small.shape[1] - 2 * pad)
    # something may cross the border (a hand and its arm): long straight runs of ink (grid
    # lines) are what a thick diagonal blob has none of
    run = max(9, side // 14)
    for use_lines in ((True, False) if lines_first else (False, True)):
        if use_lines:
            lines = cv2.bitwise_or(cv2.morphologyEx(binary, cv2.MORPH_OPEN, np.ones((1, run), np.uint8)),
                                   cv2.morphologyEx(binary, cv2.MORPH_OPEN, np.ones((run, 1), np.uint8)))
            lines = cv2.morphologyEx(lines, cv2.MORPH_CLOSE, np.ones((5, 5), np.uint8))
            quad = _grid_contour(lines, lines, area_min)
        else:
            quad = _grid_contour(binary, binary, area_min)
        if quad is not None:
            return (quad - pad) / scale
    return None


def _grid_contour(mask: np.ndarray, binary: np.ndarray, area_min: float) -> np.ndarray | None:
    """The largest roughly square, grid-like quad among the outer contours of ``mask``."""
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    for cnt in sorted(contours, key=cv2.contourArea, reverse=True)[:5]:
        hull = cv2.convexHull(cnt)
        area = cv2.contourArea(hull)
        if area < area_min:
            break
        quad = _quad_from_hull(hull)
        if quad is None:
            continue
        sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
        if sides.min() < 0.6 * sides.max() or cv2.contourArea(quad.astype(np.float32)) < 0.8 * area:
            continue
        if not _looks_like_grid(binary, quad):
            continue
        return quad
    return None


def _quad_from_hull(hull: np.ndarray) -> np.ndarray | None:
    peri = cv2.arcLength(hull, True)
    for eps in (0.02, 0.04, 0.06):
        approx = cv2.approxPolyDP(hull, eps * peri, True)
        if len(approx) == 4:
            return _order(approx.reshape(4, 2).astype(np.float64))
    return None


def _order(pts: np.ndarray) -> np.ndarray:
    """Order 4 (x, y) points: top-left, top-right, bottom-right, bottom-left."""
    s = pts.sum(axis=1)
    d = pts[:, 0] - pts[:, 1]
    return np.array([pts[np.argmin(s)], pts[np.argmax(d)], pts[np.argmax(s)], pts[np.argmin(d)]])


def _looks_like_grid(binary: np.ndarray, quad: np.ndarray) -> bool:
    """A filled blob or a bare frame is not a grid: the border is drawn on every side,
    inner lines exist and ink does not fill the inside."""
    size, m = 120, 4
    dst = np.array([[m, m], [size - 1 - m, m], [size - 1 - m, size - 1 - m], [m, size - 1 - m]], np.float32)
    h = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    thick = cv2.dilate(binary, np.ones((3, 3), np.uint8))
    lines = cv2.warpPerspective(thick, h, (size, size), flags=cv2.INTER_LINEAR) > 60
    e = 2 * m + 2
    # share of the side's length with ink somewhere in the band along it (a wobbly,
    # model-drawn border is no single straight row)
    sides = (lines[:e].any(axis=0).mean(), lines[-e:].any(axis=0).mean(),
             lines[:, :e].any(axis=1).mean(), lines[:, -e:].any(axis=1).mean())
    if min(sides) < 0.6:
        return False
    inner_lines = lines[3 * m:-3 * m, 3 * m:-3 * m]
    rows = (inner_lines.mean(axis=1) > 0.5).sum()
    cols = (inner_lines.mean(axis=0) > 0.5).sum()
    plain = cv2.warpPerspective(binary, h, (size, size), flags=cv2.INTER_NEAREST) > 0
    fill = plain[3 * m:-3 * m, 3 * m:-3 * m].mean()
    return fill < 0.6 and rows >= 1 and cols >= 1


def rectify(dark: np.ndarray, quad: np.ndarray, n: int, *, cell_px: int = CELL_PX, refine: bool = True) -> GridFit:
    """Warp the quad (x, y corners) to an (n*cell_px)^2 canvas and locate the cell lines.

    With ``refine``, a quad whose outer lines land more than a tenth of a cell inside the
    canvas (a glow or shadow around the grid made it too large) is moved onto those lines
    and the grid warped once more.
    """
    fit, m = _rectify_once(dark, quad, n, cell_px)
    size = n * cell_px
    edge = max(fit.rows[0], fit.cols[0], size - 1 - fit.rows[-1], size - 1 - fit.cols[-1])
    if refine and edge > 0.1 * cell_px:
        pts = np.array([[fit.cols[0], fit.rows[0]], [fit.cols[-1], fit.rows[0]], [fit.cols[-1], fit.rows[-1]],
                        [fit.cols[0], fit.rows[-1]]], np.float32).reshape(-1, 1, 2)
        inner = cv2.perspectiveTransform(pts, np.linalg.inv(m)).reshape(4, 2).astype(np.float64)
        fit, _ = _rectify_once(dark, inner, n, cell_px)
    return fit


def _rectify_once(dark: np.ndarray, quad: np.ndarray, n: int, cell_px: int) -> tuple[GridFit, np.ndarray]:
    size = n * cell_px
    dst = np.array([[0, 0], [size - 1, 0], [size - 1, size - 1], [0, size - 1]], np.float32)
    m = cv2.getPerspectiveTransform(quad.astype(np.float32), dst)
    canvas = cv2.warpPerspective(dark, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    rows, found_r, extra_r = _line_positions(canvas, n, axis=1)
    cols, found_c, extra_c = _line_positions(canvas, n, axis=0)
    extra, found = extra_r + extra_c, found_r + found_c
    mismatch = extra >= 4 or (extra >= 2 and found < n - 1)
    corners = quad[:, ::-1].copy()  # (x, y) -> (row, col)
    canvas.setflags(write=False)
    return GridFit(n=n, corners=corners, canvas=canvas, rows=rows, cols=cols, size_mismatch=mismatch), m


def _line_positions(canvas: np.ndarray, n: int, *, axis: int) -> tuple[np.ndarray, int, int]:
    """Line centres along one axis (axis=1: horizontal lines, positions are rows), the
    number of inner lines found near their expected place, and the number of long lines
    found far from any expected place."""
    size = canvas.shape[0]
    cell = size / n
    level = max(60, int(np.percentile(canvas, 90)) // 2)
    ink = (canvas > level).astype(np.uint8)
    k = max(3, int(cell * 0.9))
    kernel = np.ones((1, k), np.uint8) if axis == 1 else np.ones((k, 1), np.uint8)
    lines = cv2.morphologyEx(ink, cv2.MORPH_OPEN, kernel)
    profile = lines.mean(axis=axis).astype(np.float64)
    raw = canvas.mean(axis=axis).astype(np.float64)
    out = np.empty(n + 1)
    win = max(2, int(cell * 0.3))
    found = 0
    for i in range(n + 1):
        e = i * (size - 1) / n
        lo, hi = max(0, int(e) - win), min(size, int(e) + win + 1)
        seg = profile[lo:hi]
        if seg.max() < 0.25:
            out[i] = e
            continue
        found += int(0 < i < n)
        strong = np.flatnonzero(seg >= 0.6 * seg.max())
        if i in (0, n) and strong.max() - strong.min() > 0.15 * cell:
            # a wide dark band at the border (a glow or shadow around the grid): the line is its darkest part
            band = raw[lo:hi]
            darkest = np.flatnonzero(band >= band.max() - 8)
            out[i] = lo + (darkest.min() + darkest.max()) / 2.0
        else:
            out[i] = lo + (strong.min() + strong.max()) / 2.0
    # long lines (> half the grid) where no line is expected
    on = np.flatnonzero(profile >= 0.5)
    extra = 0
    if on.size:
        runs = np.split(on, np.flatnonzero(np.diff(on) > 1) + 1)
        expected = np.arange(n + 1) * (size - 1) / n
        extra = sum(int(np.abs(expected - r.mean()).min() > 0.3 * cell) for r in runs)
    return out, found, extra
