"""From pixels to a maze: read a reference solution image, locate and rectify an answer.

Both work on any palette close to MMGR's (see :mod:`cvcheck.vision.colors`), any
resolution, with margins, anti-aliasing, blur and JPEG artefacts.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ..errors import InputError
from ..vision import colors
from ..vision.geometry import Box, cell_fractions, drawing_box
from .lattice import MazeSpec, lattice_to_cell, shortest_path

LOCATE_MAX_SIDE = 256  #: localisation runs on a copy at most this large
ECC_BELOW_IOU = 0.9    #: polish the alignment only when the wall IoU is below this


@dataclass(frozen=True)
class Located:
    """Where the maze is in an image, in full-resolution pixel coordinates."""

    box: Box
    dark_fraction: float  #: share of the box that is dark (walls)


def locate_maze(image: np.ndarray, *, min_side_px: int = 8) -> Located | None:
    """Find the maze's bounding box from its dark (wall) components.

    In a perfect maze the walls form one tree attached to the outer wall; when an
    answer breaks it (a path painted over a wall, an erased wall), the pieces that
    overlap the largest one's box are merged back (:func:`drawing_box`).
    Localisation runs on a strided copy (walls are thick); the box is then snapped
    to full resolution. Returns None when no plausible wall structure is present.
    """
    h, w = image.shape[:2]
    step = max(1, int(np.ceil(max(h, w) / LOCATE_MAX_SIDE)))
    # nearest-neighbour subsampling (contiguous, unlike a strided view: 3x faster to mask)
    small = image if step == 1 else cv2.resize(image, (-(-w // step), -(-h // step)),
                                               interpolation=cv2.INTER_NEAREST)
    dark = colors.dark_mask(small)
    dark = cv2.morphologyEx(dark.astype(np.uint8), cv2.MORPH_CLOSE, np.ones((3, 3), np.uint8))
    min_area = max(4, int(0.005 * dark.size))
    box = drawing_box(dark, min_area=min_area)
    if box is None:
        return None
    t, l, b, r = box
    if (b - t) * step < min_side_px or (r - l) * step < min_side_px:
        return None
    frac = np.count_nonzero(dark[t:b, l:r]) / float(max(1, (b - t) * (r - l)))
    full = (t * step, l * step, min(h, b * step), min(w, r * step))
    return Located(box=_refine_box(image, full, step), dark_fraction=frac)


def _refine_box(image: np.ndarray, box: Box, step: int) -> Box:
    """Snap each side of a coarse box to the outermost mostly-dark row/column nearby."""
    if step <= 1:
        return box
    t, l, b, r = box
    h, w = image.shape[:2]
    pad = step + 1
    rows = slice(max(0, t - pad), min(h, b + pad))
    cols = slice(max(0, l - pad), min(w, r + pad))

    def side(index_lo: int, index_hi: int, axis: int, first: bool) -> int:
        if axis == 0:
            band = colors.dark_mask(image[index_lo:index_hi, cols])
            prof = band.mean(axis=1)
        else:
            band = colors.dark_mask(image[rows, index_lo:index_hi])
            prof = band.mean(axis=0)
        hits = np.flatnonzero(prof > 0.3)
        if hits.size == 0:
            return -1
        return index_lo + int(hits[0] if first else hits[-1])

    nt = side(max(0, t - pad), min(h, t + pad), 0, True)
    nb = side(max(0, b - pad), min(h, b + pad), 0, False)
    nl = side(max(0, l - pad), min(w, l + pad), 1, True)
    nr = side(max(0, r - pad), min(w, r + pad), 1, False)
    return (nt if nt >= 0 else t, nl if nl >= 0 else l, nb + 1 if nb >= 0 else b, nr + 1 if nr >= 0 else r)


def fit_lattice_box(image: np.ndarray, box: Box, *, lattice_shape: tuple[int, int]) -> Box:
    """Trim a dark surround off a box (a maze drawn on a dark canvas).

    The first and last mostly-open rows/columns inside the box are the maze's first
    and last corridor rows; one lattice pitch outside them is the outer wall's edge.
    A side is moved in only when the band it trims is uniformly dark and wider than a
    tenth of a pitch, so a box that is already right (or an odd image) is left alone.
    """
    t, l, b, r = box
    step = max(1, int(np.ceil(max(b - t, r - l) / 512)))
    dark = colors.dark_mask(image[t:b:step, l:r:step])
    row_dark, col_dark = dark.mean(axis=1), dark.mean(axis=0)
    rows, cols = np.flatnonzero(row_dark < 0.9), np.flatnonzero(col_dark < 0.9)
    if rows.size < 2 or cols.size < 2:
        return box
    pitch_r = (rows[-1] + 1 - rows[0]) / max(1, lattice_shape[0] - 2)
    pitch_c = (cols[-1] + 1 - cols[0]) / max(1, lattice_shape[1] - 2)

    def trim(profile: np.ndarray, lo: float, hi: float, pitch: float) -> tuple[int, int]:
        lo_i, hi_i = int(round(lo)), int(round(hi))
        least = max(2.0, 0.1 * pitch)
        new_lo = lo_i if lo_i > least and profile[:max(1, lo_i)].min() > 0.95 else 0
        n = profile.size
        new_hi = hi_i if n - hi_i > least and profile[min(hi_i, n - 1):].min() > 0.95 else n
        return new_lo, new_hi

    top, bottom = trim(row_dark, rows[0] - pitch_r, rows[-1] + 1 + pitch_r, pitch_r)
    left, right = trim(col_dark, cols[0] - pitch_c, cols[-1] + 1 + pitch_c, pitch_c)
    return (t + top * step, l + left * step, min(b, t + bottom * step), min(r, l + right * step))


def rectify(image: np.ndarray, box: Box, *, lattice_shape: tuple[int, int], cell_px: int) -> np.ndarray:
    """Crop ``box`` and resample it onto a canvas of ``cell_px`` pixels per lattice cell."""
    t, l, b, r = box
    h, w = image.shape[:2]
    crop = image[max(0, t):min(h, b), max(0, l):min(w, r)]
    need = (max(0, -t), max(0, b - h), max(0, -l), max(0, r - w))
    if any(need):  # a box reaching past the picture's edge (a maze drawn to the edge, lines look)
        crop = cv2.copyMakeBorder(crop, *need, cv2.BORDER_REPLICATE)
    size = (lattice_shape[1] * cell_px, lattice_shape[0] * cell_px)
    fy, fx = crop.shape[0] // size[1], crop.shape[1] // size[0]
    if fy >= 2 and fx >= 2:
        # Integer-factor area averaging is OpenCV's fast path; finish with a small linear step.
        crop = crop[: crop.shape[0] - crop.shape[0] % fy, : crop.shape[1] - crop.shape[1] % fx]
        crop = cv2.resize(crop, (crop.shape[1] // fx, crop.shape[0] // fy), interpolation=cv2.INTER_AREA)
    return cv2.resize(crop, size, interpolation=cv2.INTER_LINEAR)


def refine_alignment(canvas: np.ndarray, ref_walls: np.ndarray, *,
                     dark: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None]:
    """Polish the alignment with ECC (affine) on the wall masks; keep it only if IoU improves.

    ``dark`` is the canvas's wall mask when the caller has it. Returns the (possibly
    warped) canvas and the 2x3 warp used, or None when unchanged.
    """
    if dark is None:
        dark = colors.dark_mask(canvas)
    before = _iou(dark, ref_walls)
    if before > ECC_BELOW_IOU:
        return canvas, None
    h, w = canvas.shape[:2]
    half = (w // 2, h // 2)
    small_ref = cv2.GaussianBlur(cv2.resize(ref_walls.astype(np.float32), half, interpolation=cv2.INTER_AREA),
                                 (0, 0), 1.0)
    small_ans = cv2.GaussianBlur(cv2.resize(dark.astype(np.float32), half, interpolation=cv2.INTER_AREA), (0, 0), 1.0)
    warp = ecc_affine(small_ref, small_ans)
    if warp is None:
        return canvas, None
    warp[:, 2] *= 2.0  # translation back to full canvas pixels
    warped = cv2.warpAffine(canvas, warp, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                            borderMode=cv2.BORDER_REPLICATE)
    if _iou(colors.dark_mask(warped), ref_walls) > before + 0.005:
        return warped, warp
    return canvas, None


def ecc_affine(template: np.ndarray, image: np.ndarray, *, start: np.ndarray | None = None, iterations: int = 30,
               max_change: float = 0.15) -> np.ndarray | None:
    """The affine warp (2x3 float32) that maps ``template``'s pixels onto ``image`` (float32
    pictures of one size: ``cv2.warpAffine(image, warp, ..., WARP_INVERSE_MAP)`` lines it up
    with the template), by ECC from ``start`` (the identity by default); None when it does not
    converge or turns or scales by more than ``max_change``."""
    warp = np.eye(2, 3, dtype=np.float32) if start is None else np.array(start, np.float32)
    try:
        _, warp = cv2.findTransformECC(template, image, warp, cv2.MOTION_AFFINE,  # type: ignore[call-overload]
                                       (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, iterations, 1e-4), None, 3)
    except cv2.error:
        return None
    if not np.isfinite(warp).all() or np.abs(warp[:, :2] - np.eye(2)).max() > max_change:
        return None
    return np.asarray(warp, np.float32)


def _iou(a: np.ndarray, b: np.ndarray) -> float:
    union = np.count_nonzero(a | b)
    return np.count_nonzero(a & b) / union if union else 0.0


# -- reference ----------------------------------------------------------------------------

def _lattice_length(dark: np.ndarray, axis: int, *, max_len: int = 201) -> int:
    """Estimate the odd lattice length along ``axis`` from where walls start and end."""
    n = dark.shape[1 - axis]
    flips = np.diff(dark.astype(np.int8), axis=1 - axis) != 0
    weight = flips.sum(axis=axis).astype(np.float64)  # weight[i]: edges between px i and i+1
    total = weight.sum()
    if total == 0:
        raise InputError("reference has no wall structure along one axis")
    pos = np.arange(1, n, dtype=np.float64)
    best_len, scores = 0, {}
    for length in range(3, min(max_len, n) + 1, 2):
        pitch = n / length
        off = np.abs(pos / pitch - np.round(pos / pitch)) * pitch
        scores[length] = weight[off <= max(0.5, 0.12 * pitch)].sum() / total
    top = max(scores.values())
    for length in sorted(scores):
        if scores[length] >= top - 0.03:
            best_len = length
            break
    return best_len


def parse_reference(image: np.ndarray, *, lattice_shape: tuple[int, int] | None = None) -> MazeSpec:
    """Read an MMGR solution (or puzzle) image into a :class:`MazeSpec`.

    The lattice size is detected from the wall edges unless ``lattice_shape`` (odd
    sides ``2n+1``) is given. The solution is the blue path from start to goal; a
    puzzle image without a path gets the maze's shortest path.
    """
    located = locate_maze(image)
    if located is None:
        raise InputError("reference: no maze walls found")
    t, l, b, r = located.box
    crop = image[t:b, l:r]
    cls = colors.classify(crop)
    dark = cls == colors.DARK
    if lattice_shape is None:
        lattice_shape = (_lattice_length(dark, 1), _lattice_length(dark, 0))
    lr, lc = lattice_shape
    if lr % 2 == 0 or lc % 2 == 0 or min(lr, lc) < 3:
        raise InputError(f"lattice sides must be odd and >= 3, got {lattice_shape}")
    walls = cell_fractions(dark, lattice_shape) > 0.5
    posts = walls[0::2, 0::2].mean()
    cells = (~walls[1::2, 1::2]).mean()
    if posts < 0.9 or cells < 0.9:
        raise InputError(
            f"reference does not look like an MMGR lattice maze of {lr}x{lc} "
            f"(wall posts {posts:.0%}, open cells {cells:.0%})")
    green = cell_fractions(cls == colors.GREEN, lattice_shape)
    red = cell_fractions(cls == colors.RED, lattice_shape)
    if green.max() < 0.2 or red.max() < 0.2:
        raise InputError("reference: start (green) or goal (red) marker not found")
    sr, sc = np.unravel_index(int(np.argmax(green)), green.shape)
    gr, gc = np.unravel_index(int(np.argmax(red)), red.shape)
    start, goal = (int(sr), int(sc)), (int(gr), int(gc))
    walls[start] = walls[goal] = False
    blue = cell_fractions(cls == colors.BLUE, lattice_shape) > 0.5
    on_path = blue & ~walls
    on_path[start] = on_path[goal] = True
    solution = shortest_path(on_path, start, goal, walls=False) if blue.any() else ()
    if not solution:
        solution = shortest_path(walls, start, goal)
    if not solution:
        raise InputError("reference: goal is not reachable from start")
    return MazeSpec.from_lattice(walls, start=lattice_to_cell(start), goal=lattice_to_cell(goal),
                                 solution=solution)
