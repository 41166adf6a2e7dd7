"""Localisation helpers: the bounding box of a drawing, cell-fraction maps, distances."""

from __future__ import annotations

import cv2
import numpy as np

Box = tuple[int, int, int, int]  # top, left, bottom (exclusive), right (exclusive)


def largest_component_box(mask: np.ndarray, *, min_area: int = 1) -> Box | None:
    """Bounding box ``(top, left, bottom, right)`` of the largest 8-connected component."""
    count, _, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    if count <= 1:
        return None
    areas = stats[1:, cv2.CC_STAT_AREA]
    best = int(np.argmax(areas)) + 1
    if stats[best, cv2.CC_STAT_AREA] < min_area:
        return None
    x, y, w, h = (int(stats[best, k]) for k in (cv2.CC_STAT_LEFT, cv2.CC_STAT_TOP,
                                                 cv2.CC_STAT_WIDTH, cv2.CC_STAT_HEIGHT))
    return (y, x, y + h, x + w)


def drawing_box(mask: np.ndarray, *, min_area: int = 1, min_share: float = 0.05) -> Box | None:
    """Bounding box of the largest component plus every sizeable component touching its box.

    A drawing (maze walls, grid lines) can fall apart into several components when a
    model erases or overdraws a piece of it; components with at least ``min_share``
    of the largest one's area whose boxes overlap the growing box are merged in.
    Small specks and far-away clutter are ignored.
    """
    count, _, stats, _ = cv2.connectedComponentsWithStats(mask.astype(np.uint8), connectivity=8)
    if count <= 1:
        return None
    areas = stats[1:, cv2.CC_STAT_AREA]
    order = np.argsort(areas)[::-1] + 1
    if stats[order[0], cv2.CC_STAT_AREA] < min_area:
        return None

    def box_of(i: int) -> Box:
        x, y, w, h = (int(stats[i, k]) for k in (cv2.CC_STAT_LEFT, cv2.CC_STAT_TOP,
                                                  cv2.CC_STAT_WIDTH, cv2.CC_STAT_HEIGHT))
        return (y, x, y + h, x + w)

    box = box_of(order[0])
    floor = max(min_area, min_share * stats[order[0], cv2.CC_STAT_AREA])
    candidates = [box_of(i) for i in order[1:] if stats[i, cv2.CC_STAT_AREA] >= floor]
    grown = True
    while grown and candidates:
        grown = False
        for other in list(candidates):
            if other[0] < box[2] and box[0] < other[2] and other[1] < box[3] and box[1] < other[3]:
                box = (min(box[0], other[0]), min(box[1], other[1]), max(box[2], other[2]), max(box[3], other[3]))
                candidates.remove(other)
                grown = True
    return box


def downscale(image: np.ndarray, *, max_side: int) -> tuple[np.ndarray, float]:
    """Shrink so the longer side is at most ``max_side`` (area averaging); return the factor."""
    h, w = image.shape[:2]
    factor = max(h, w) / max_side
    if factor <= 1:
        return image, 1.0
    size = (max(1, int(round(w / factor))), max(1, int(round(h / factor))))
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA), factor


def cell_fractions(mask: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """Fraction of each cell of a ``shape`` grid laid over ``mask`` that is set."""
    return cv2.resize(mask.astype(np.float32), (shape[1], shape[0]), interpolation=cv2.INTER_AREA)


def block_sum(mask: np.ndarray, k: int) -> np.ndarray:
    """Sum a (R*k, C*k) mask over k x k blocks -> (R, C)."""
    r, c = mask.shape[0] // k, mask.shape[1] // k
    # integer-factor area resize is OpenCV's fast path; exact for these small sums
    means = cv2.resize(mask[: r * k, : c * k].astype(np.float32), (c, r), interpolation=cv2.INTER_AREA)
    return np.rint(means * (k * k))


def shrink(image: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """Resize to ``size`` (width, height), averaging when shrinking: an integer-factor area
    step (OpenCV's fast path, on an edge-padded copy) then a linear resample that keeps the
    exact geometry of a plain resize; thin lines keep their ink, at a third to a half of the
    cost of a fractional area resize."""
    h, w = image.shape[:2]
    fy, fx = h // size[1], w // size[0]
    if fy < 2 or fx < 2:  # under 2x a linear resample still touches every source pixel (and is ~5x cheaper)
        return cv2.resize(image, size, interpolation=cv2.INTER_LINEAR)
    padded = cv2.copyMakeBorder(image, 0, -h % fy, 0, -w % fx, cv2.BORDER_REPLICATE)
    small = cv2.resize(padded, (padded.shape[1] // fx, padded.shape[0] // fy), interpolation=cv2.INTER_AREA)
    sx, sy = w / (size[0] * fx), h / (size[1] * fy)  # output pixel -> small-image pixel, centres aligned
    warp = np.array([[sx, 0.0, 0.5 * sx - 0.5], [0.0, sy, 0.5 * sy - 0.5]])
    return cv2.warpAffine(small, warp, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)


def distance_to_polyline(polyline: np.ndarray, point: np.ndarray) -> float:
    """The least Euclidean distance from ``point`` (2,) to the polyline through the (N, 2)
    ``polyline`` points in order (N >= 1; to the point itself when N is 1)."""
    if len(polyline) == 1:
        return float(np.linalg.norm(polyline[0] - point))
    a, b = polyline[:-1], polyline[1:]
    ab = b - a
    denom = np.einsum("ij,ij->i", ab, ab)
    t = np.where(denom > 0, np.einsum("ij,ij->i", point - a, ab) / np.where(denom > 0, denom, 1.0), 0.0)
    closest = a + np.clip(t, 0.0, 1.0)[:, None] * ab
    return float(np.linalg.norm(closest - point, axis=1).min())
