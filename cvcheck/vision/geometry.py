"""Localisation helpers: the bounding box of a drawing, cell-fraction maps."""

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
    return mask[: r * k, : c * k].reshape(r, k, c, k).sum(axis=(1, 3))
