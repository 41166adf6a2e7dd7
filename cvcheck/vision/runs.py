"""Runs of set flags along one axis: the row ranges a canvas is updated in, and the rows
or columns of a mask that hold pixels."""

from __future__ import annotations

import cv2
import numpy as np

Runs = list[tuple[int, int]]  #: ``[start, stop)`` ranges, in order


def true_runs(flags: np.ndarray, *, gap: int = 0) -> Runs:
    """``[start, stop)`` of each run of True in a 1-D bool array, runs at most ``gap`` apart
    joined (for a canvas, a few rows more to resample cost less than a call more)."""
    if not flags.any():
        return []
    edges = np.flatnonzero(np.diff(np.concatenate([[0], flags.view(np.int8), [0]])))
    runs = [[int(a), int(b)] for a, b in zip(edges[::2], edges[1::2])]
    joined = [runs[0]]
    for a, b in runs[1:]:
        if a - joined[-1][1] <= gap:
            joined[-1][1] = b
        else:
            joined.append([a, b])
    return [(a, b) for a, b in joined]


def lines_set(mask: np.ndarray, axis: int) -> np.ndarray:
    """Which rows (``axis=1``) or columns (``axis=0``) of a uint8 mask hold a set pixel."""
    return cv2.reduce(mask, axis, cv2.REDUCE_MAX).ravel() > 0


__all__ = ["Runs", "lines_set", "true_runs"]
