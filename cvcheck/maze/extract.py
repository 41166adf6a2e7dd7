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
from ..vision.geometry import Box, cell_fractions, downscale, largest_component_box
from .lattice import MazeSpec, lattice_to_cell, shortest_path

LOCATE_MAX_SIDE = 384  #: localisation runs on a copy at most this large


@dataclass(frozen=True)
class Located:
    """Where the maze is in an image, in full-resolution pixel coordinates."""

    box: Box
    dark_fraction: float  #: share of the box that is dark (walls)


def locate_maze(image: np.ndarray, *, min_side_px: int = 8) -> Located | None:
    """Find the maze's bounding box: the largest connected dark (wall) component.

    In a perfect maze every wall touches the outer wall, so the walls form one
    component whose box is the maze, whatever margin or background surrounds it.
    Returns None when no plausible wall structure is present.
    """
    small, factor = downscale(image, max_side=LOCATE_MAX_SIDE)
    dark = colors.dark_mask(small)
    min_area = max(4, int(0.005 * dark.size))
    box = largest_component_box(dark, min_area=min_area)
    if box is None:
        return None
    t, l, b, r = box
    if (b - t) * factor < min_side_px or (r - l) * factor < min_side_px:
        return None
    frac = float(dark[t:b, l:r].mean())
    h, w = image.shape[:2]
    full = (max(0, int(np.floor(t * factor))), max(0, int(np.floor(l * factor))),
            min(h, int(np.ceil(b * factor))), min(w, int(np.ceil(r * factor))))
    return Located(box=_refine_box(image, full, factor), dark_fraction=frac)


def _refine_box(image: np.ndarray, box: Box, factor: float) -> Box:
    """Snap each side of a coarse box to the outermost dark row/column at full resolution."""
    if factor <= 1:
        return box
    t, l, b, r = box
    pad = int(np.ceil(factor)) + 1
    h, w = image.shape[:2]
    t0, l0, b0, r0 = max(0, t - pad), max(0, l - pad), min(h, b + pad), min(w, r + pad)
    dark = colors.dark_mask(image[t0:b0, l0:r0])
    rows = np.flatnonzero(dark.mean(axis=1) > 0.3)
    cols = np.flatnonzero(dark.mean(axis=0) > 0.3)
    if rows.size == 0 or cols.size == 0:
        return box
    return (t0 + int(rows[0]), l0 + int(cols[0]), t0 + int(rows[-1]) + 1, l0 + int(cols[-1]) + 1)


def rectify(image: np.ndarray, box: Box, *, lattice_shape: tuple[int, int], cell_px: int) -> np.ndarray:
    """Crop ``box`` and resample it onto a canvas of ``cell_px`` pixels per lattice cell."""
    t, l, b, r = box
    crop = image[t:b, l:r]
    size = (lattice_shape[1] * cell_px, lattice_shape[0] * cell_px)
    interp = cv2.INTER_AREA if crop.shape[1] > size[0] else cv2.INTER_LINEAR
    return cv2.resize(crop, size, interpolation=interp)


def refine_alignment(canvas: np.ndarray, ref_walls: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """Polish the alignment with ECC (affine) on the wall masks; keep it only if IoU improves.

    Returns the (possibly warped) canvas and the 2x3 warp used, or None when unchanged.
    """
    dark = colors.dark_mask(canvas)
    before = _iou(dark, ref_walls)
    if before > 0.97:
        return canvas, None
    small_ref = cv2.GaussianBlur(ref_walls.astype(np.float32), (0, 0), 2.0)
    small_ans = cv2.GaussianBlur(dark.astype(np.float32), (0, 0), 2.0)
    warp = np.eye(2, 3, dtype=np.float32)
    try:
        _, warp = cv2.findTransformECC(small_ref, small_ans, warp, cv2.MOTION_AFFINE,
                                       (cv2.TERM_CRITERIA_COUNT | cv2.TERM_CRITERIA_EPS, 40, 1e-4), None, 5)
    except cv2.error:
        return canvas, None
    if not np.isfinite(warp).all() or np.abs(warp[:, :2] - np.eye(2)).max() > 0.15:
        return canvas, None
    h, w = canvas.shape[:2]
    warped = cv2.warpAffine(canvas, warp, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                            borderMode=cv2.BORDER_REPLICATE)
    if _iou(colors.dark_mask(warped), ref_walls) > before + 0.005:
        return warped, warp
    return canvas, None


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
        scores[length] = weight[off <= max(0.75, 0.12 * pitch)].sum() / total
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
            f"(wall posts {posts:.0%}, open cells {cells:.0%}); pass the grid size explicitly")
    green = cell_fractions(cls == colors.GREEN, lattice_shape)
    red = cell_fractions(cls == colors.RED, lattice_shape)
    if green.max() < 0.2 or red.max() < 0.2:
        raise InputError("reference: start (green) or goal (red) marker not found")
    start = np.unravel_index(int(np.argmax(green)), green.shape)
    goal = np.unravel_index(int(np.argmax(red)), red.shape)
    start, goal = (int(start[0]), int(start[1])), (int(goal[0]), int(goal[1]))
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
