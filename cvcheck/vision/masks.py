"""Boxes and shapes of mask pixels: the small geometry the per-frame analysis of a maze
video runs on every frame, kept apart from its rules."""

from __future__ import annotations

import cv2
import numpy as np

Rect = tuple[int, int, int, int]  #: (x, y, w, h) of a mask's set pixels; w = 0 when none


def bounding_rect(mask: np.ndarray) -> Rect:
    """``cv2.boundingRect`` of a mask's set pixels: (x, y, w, h), w = 0 when none."""
    x, y, w, h = cv2.boundingRect(mask)
    return int(x), int(y), int(w), int(h)


def rect_within(mask: np.ndarray, rows: np.ndarray) -> Rect:
    """``bounding_rect(mask)`` looking only at ``rows`` (bool per row: those that have set pixels)."""
    found = np.flatnonzero(rows)
    if not found.size:
        return 0, 0, 0, 0
    top = int(found[0])
    x, y, w, h = bounding_rect(mask[top:int(found[-1]) + 1])
    return x, y + top, w, h


def union_rect(a: Rect, b: Rect) -> Rect:
    """The box (x, y, w, h) around two boxes (an empty one, w = 0, adds nothing)."""
    if not a[2]:
        return b
    if not b[2]:
        return a
    x0, y0 = min(a[0], b[0]), min(a[1], b[1])
    return x0, y0, max(a[0] + a[2], b[0] + b[2]) - x0, max(a[1] + a[3], b[1] + b[3]) - y0


def elongation(ys: np.ndarray, xs: np.ndarray) -> float:
    """How many times longer than wide a set of pixels is (the ratio of the standard
    deviations along its principal axes; 1 for a disc, a pixel's spread added to each)."""
    dy, dx = ys - ys.mean(), xs - xs.mean()
    syy, sxx, sxy = float((dy * dy).mean()) + 1 / 12, float((dx * dx).mean()) + 1 / 12, float((dy * dx).mean())
    mid, half = (syy + sxx) / 2, float(np.hypot((syy - sxx) / 2, sxy))
    return float(np.sqrt((mid + half) / (mid - half)))
