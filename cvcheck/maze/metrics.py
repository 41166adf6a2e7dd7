"""MMGR's four pixel metric classes on a rectified canvas (C.5.3).

All functions take canvas masks of shape ``(Lr*k, Lc*k)`` (``k`` pixels per lattice
cell) and return plain values; the verifier assembles them into a Result.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ..config import MazeConfig
from ..vision.geometry import block_sum
from .lattice import Cell, MazeSpec, _joined, describe_lattice_cell

#: lattice cells: a hole between the path and a marker must be at least this far from the path
#: somewhere to be a loop (a flag's pole or a seam across the path leaves a sliver there)
LOOP_MIN_HALFWIDTH = 0.15


def upscale_cells(lattice: np.ndarray, k: int) -> np.ndarray:
    """Nearest-neighbour upscale of a lattice mask to the canvas."""
    return np.repeat(np.repeat(lattice, k, axis=0), k, axis=1)


def _disk(radius: int) -> np.ndarray:
    return cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * radius + 1, 2 * radius + 1))


# -- layout -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Layout:
    iou: float
    start_offset: float | None  #: centroid distance to the reference start, in cells
    goal_offset: float | None
    matched: bool


def marker_offset(mask: np.ndarray, target: Cell, k: int, *, min_area: float) -> float | None:
    """Distance (lattice cells) from the marker's centroid to the target cell's centre.

    Specks are opened away first; a duplicated marker pulls the centroid off the
    target, which is what a layout check should report. None when no marker is seen.
    """
    solid = cv2.morphologyEx(mask.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    m = cv2.moments(solid, binaryImage=True)
    if m["m00"] < min_area:
        return None
    cy, cx = m["m01"] / m["m00"], m["m10"] / m["m00"]
    return float(np.hypot(cy / k - (target[0] + 0.5), cx / k - (target[1] + 0.5)))


def layout_match(dark: np.ndarray, green: np.ndarray, red: np.ndarray, spec: MazeSpec, ref_walls: np.ndarray,
                 k: int, cfg: MazeConfig) -> Layout:
    union = np.count_nonzero(dark | ref_walls)
    iou = np.count_nonzero(dark & ref_walls) / union if union else 0.0
    min_area = 0.15 * k * k
    s_off = marker_offset(green, spec.start, k, min_area=min_area)
    g_off = marker_offset(red, spec.goal, k, min_area=min_area)
    ok = (iou > cfg.layout_iou_min and s_off is not None and g_off is not None
          and s_off <= cfg.marker_tolerance and g_off <= cfg.marker_tolerance)
    return Layout(iou=float(iou), start_offset=s_off, goal_offset=g_off, matched=bool(ok))


# -- wall crossing ------------------------------------------------------------------------

@dataclass(frozen=True)
class Crossing:
    crossed: tuple[tuple[Cell, float], ...]  #: (lattice cell, share of its eroded core covered)
    ratio: float                             #: path pixels inside eroded walls / path pixels

    @property
    def detected(self) -> bool:
        return bool(self.crossed)


def wall_crossing(path: np.ndarray, ref_walls: np.ndarray, k: int, *, erosion: float,
                  threshold: float) -> Crossing:
    """Path pixels inside walls eroded by ``erosion`` cells, per wall cell.

    A wall cell is crossed when path pixels cover more than ``threshold`` of its
    eroded core: anti-aliased or wobbly edges that only touch a wall never reach
    the core; a path through the wall covers it across its whole thickness.
    Specks smaller than 3x3 canvas pixels are opened away first.
    """
    e = max(1, int(round(erosion * k)))
    core = cv2.erode(ref_walls.astype(np.uint8), _disk(e)).astype(bool)
    # drop isolated specks (noise, JPEG) so they cannot add up to a crossing
    path = cv2.morphologyEx(path.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)).astype(bool)
    inside = path & core
    core_area = block_sum(core, k)
    hits = block_sum(inside, k)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(core_area > 0, hits / np.maximum(core_area, 1), 0.0)
    cells = np.argwhere(share > threshold)
    crossed = tuple(((int(r), int(c)), float(share[r, c])) for r, c in cells)
    n_path = np.count_nonzero(path)
    return Crossing(crossed=crossed, ratio=float(np.count_nonzero(inside) / n_path) if n_path else 0.0)


# -- path matching ------------------------------------------------------------------------

@dataclass(frozen=True)
class PathMatch:
    cells: frozenset[Cell]        #: lattice cells on the answer's path (markers excluded)
    iou: float
    precision: float
    recall: float
    target_achievement: float     #: share of the solution's cells covered
    connected: bool               #: a continuous path links start and goal
    length_ratio: float           #: path cells / solution cells
    solution: frozenset[Cell] = frozenset()  #: the solution body scored against (see MazeSpec.solution_for)


def path_to_cells(path: np.ndarray, k: int, *, coverage: float) -> tuple[np.ndarray, np.ndarray]:
    """Dilate a (possibly thin) path to cell width; return (dilated mask, per-cell coverage)."""
    if not path.any():
        return path, np.zeros((path.shape[0] // k, path.shape[1] // k))
    dist = cv2.distanceTransform(path.astype(np.uint8), cv2.DIST_L2, 3)
    if _no_growth(dist, path, k):
        return path, block_sum(path, k) / float(k * k)
    half = float(np.percentile(dist[path], 95))
    grow = int(round(k / 2 - half))
    dilated = cv2.dilate(path.astype(np.uint8), _disk(grow)).astype(bool) if grow > 0 else path
    return dilated, block_sum(dilated, k) / float(k * k)


def _no_growth(dist: np.ndarray, path: np.ndarray, k: int) -> bool:
    """Whether :func:`path_to_cells` surely grows a boolean path by nothing, without the 95th
    percentile: ``round(k / 2 - half) <= 0`` whenever ``half`` >= (k - 1) / 2, and the
    percentile (linear between two order statistics) is at least its lower one; that one
    is surely past (k - 1) / 2 (by far more than any rounding) when few enough path pixels
    lie below. False: undecided (then the percentile decides)."""
    if path.dtype != bool:
        return False
    n = int(np.count_nonzero(path))
    lower = int(np.floor((n - 1) * 0.95)) - 1  # (0-based) rank of the lower order statistic, less one for safety
    # non-path pixels are at distance 0: below the threshold too
    below = int(np.count_nonzero(dist < (k - 1) / 2 + 0.01)) - (path.size - n)
    return below <= lower


def path_match(path: np.ndarray, spec: MazeSpec, k: int, cfg: MazeConfig) -> tuple[PathMatch, np.ndarray]:
    dilated, cover = path_to_cells(path, k, coverage=cfg.path_cell_coverage)
    on = cover > cfg.path_cell_coverage
    on[spec.start] = on[spec.goal] = False
    rows, cols = np.nonzero(on)
    cells = frozenset(zip(rows.tolist(), cols.tolist()))
    solution = spec.solution_for(cells)
    ref_mask = np.zeros(spec.walls.shape, bool)
    for p in solution:
        ref_mask[p] = True
    lr, lc = spec.walls.shape[0], spec.walls.shape[1]
    n_ans = np.count_nonzero(dilated)
    if dilated.dtype == bool and dilated.shape == (lr * k, lc * k):
        # the reference is whole k x k blocks: count the answer's pixels in those blocks only
        rs, cs = np.nonzero(ref_mask)
        inter = np.count_nonzero(dilated.reshape(lr, k, lc, k)[rs, :, cs, :])
        n_ref = np.count_nonzero(ref_mask) * (k * k)
        union = n_ans + n_ref - inter
    else:
        ref_px = upscale_cells(ref_mask, k)
        inter = np.count_nonzero(dilated & ref_px)
        union = np.count_nonzero(dilated | ref_px)
        n_ref = np.count_nonzero(ref_px)
    reach = on.copy()
    reach[spec.start] = reach[spec.goal] = True
    connected = _joined(reach, spec.start, spec.goal)
    return PathMatch(
        cells=cells,
        iou=inter / union if union else 0.0,
        precision=inter / n_ans if n_ans else 0.0,
        recall=inter / n_ref if n_ref else 0.0,
        target_achievement=len(cells & solution) / len(solution) if solution else 0.0,
        connected=connected,
        length_ratio=len(cells) / len(solution) if solution else 0.0,
        solution=solution,
    ), dilated


# -- reflection ---------------------------------------------------------------------------

def path_loops(path: np.ndarray, k: int, *, min_area: float,
               markers: np.ndarray | None = None) -> list[tuple[float, float, float]]:
    """Closed loops of the path: holes of the path mask larger than ``min_area`` cells^2.

    Skeletonisation preserves topology, so these are exactly the independent cycles
    of the path's skeleton, without its sensitivity to pinholes. Start/goal marker
    pixels (``markers``) count as filled: a path ending around a marker is no loop, nor
    is a sliver between the path and a marker (narrower than ``2 x LOOP_MIN_HALFWIDTH``
    lattice cells: a flag's pole cutting across the path's end). Returns ``(row, col,
    area)`` in lattice-cell units per loop.
    """
    if not path.any():
        return []
    filled = None
    if markers is not None and markers.any():
        grow = max(1, int(round(0.1 * k)))  # close the anti-aliased seam around a marker
        filled = cv2.dilate(markers.astype(np.uint8), _disk(grow)).astype(bool)
        path = path | filled
    # Holes are the inner contours of the (8-connected) path mask.
    contours, hierarchy = cv2.findContours(path.astype(np.uint8), cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    loops = []
    if hierarchy is None:
        return loops
    for contour, (_, _, _, parent) in zip(contours, hierarchy[0]):
        if parent < 0:
            continue
        m = cv2.moments(contour)
        area = abs(m["m00"]) / float(k * k)
        if area <= min_area or filled is not None and _marker_sliver(contour, path, filled, LOOP_MIN_HALFWIDTH * k):
            continue
        loops.append((m["m01"] / m["m00"] / k, m["m10"] / m["m00"] / k, area))
    return loops


def _marker_sliver(contour: np.ndarray, path: np.ndarray, markers: np.ndarray, halfwidth: float) -> bool:
    """Whether a hole of ``path`` (its inner contour) borders ``markers`` and is nowhere
    farther than ``halfwidth`` pixels from the path around it."""
    x, y, w, h = cv2.boundingRect(contour)
    y0, x0 = max(0, y - 1), max(0, x - 1)
    y1, x1 = min(path.shape[0], y + h + 1), min(path.shape[1], x + w + 1)
    filled = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.drawContours(filled, [contour], -1, 1, thickness=cv2.FILLED, offset=(-x0, -y0))
    hole = (filled > 0) & ~path[y0:y1, x0:x1]
    if not hole.any():
        return False
    near = cv2.dilate(hole.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
    if not (near & markers[y0:y1, x0:x1]).any():
        return False
    return float(cv2.distanceTransform(hole.astype(np.uint8), cv2.DIST_L2, 3).max()) < halfwidth


def crossing_details(crossing: Crossing, shape: tuple[int, int]) -> list[dict]:
    return [describe_lattice_cell(p, shape) | {"lattice": list(p), "core_covered": round(share, 4)}
            for p, share in crossing.crossed]
