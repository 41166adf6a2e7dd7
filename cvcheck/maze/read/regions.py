"""Helpers on binary masks and label images: connected regions, their boxes and areas, how many
pixels each row or column has set, runs of indices."""

from __future__ import annotations

import cv2
import numpy as np


def _even_box(binary: np.ndarray) -> tuple[int, int, int, int] | None:
    """The box around a map's non-zero pixels grown to start and end on even rows and columns
    (clipped to the map): ``(x0, y0, x1, y1)``, or None when there are none.

    OpenCV labels 8-connected components in 2x2 blocks, in scan order: on such a box it meets
    them in the same order as on the whole map, so their labels and stats are the whole map's
    (an odd offset regroups the blocks and may number them otherwise).
    """
    x, y, w, h = cv2.boundingRect(binary)
    if not w:
        return None
    x0, y0 = x - x % 2, y - y % 2
    return x0, y0, min(binary.shape[1], x + w + (x + w - x0) % 2), min(binary.shape[0], y + h + (y + h - y0) % 2)


def _labelled(binary: np.ndarray) -> tuple[np.ndarray, np.ndarray, tuple[int, int]]:
    """The 8-connected components of a binary map (``cv2.connectedComponents``), labelled on
    its :func:`_even_box` only: ``(labels of the box, each label's area, the box's (x, y))``.
    The components' labels are the whole map's; label 0's area is the box's paper. (OpenCV's
    stats cost a pass over every pixel, paper included: counting the labels is cheaper.)"""
    box = _even_box(binary)
    x0, y0, x1, y1 = box if box is not None else (0, 0, binary.shape[1], binary.shape[0])
    count, labels = cv2.connectedComponents(binary[y0:y1, x0:x1], connectivity=8)
    return labels, _areas(labels, count), (x0, y0)


def _where(labels: np.ndarray, label: int) -> np.ndarray:
    """0/255 where ``labels == label`` (uint8; OpenCV's compare, faster than numpy's). The label
    goes as a 1x1 array of the labels' type: a number becomes a 4x1 array, which OpenCV takes
    for the operand to compare with when ``labels`` is 1x1 itself."""
    return cv2.compare(labels, np.full((1, 1), label, labels.dtype), cv2.CMP_EQ)


def _box_of(labels: np.ndarray, label: int) -> tuple[int, int, int, int]:
    """``(x, y, width, height)`` of one label's pixels (as OpenCV's stats give it)."""
    x, y, w, h = cv2.boundingRect(_where(labels, label))
    return x, y, w, h


def _areas(labels: np.ndarray, count: int) -> np.ndarray:
    """Pixels of each label 0 .. count-1: ``np.bincount``'s counts, by OpenCV (bincount copies
    the labels to int64 first): a few labels one by one, more in a histogram of one bin per label."""
    if count <= 8:  # (one label: every labelled pixel is its)
        ink = [cv2.countNonZero(labels if count == 2 else _where(labels, k)) for k in range(1, count)]
        return np.array([labels.size - sum(ink), *ink], np.int64)
    if count <= 1 << 16:
        return cv2.calcHist([labels.astype(np.uint16)], [0], None, [count], [0, count]).ravel().astype(np.int64)
    return np.bincount(labels.ravel(), minlength=count)


def _count_set(mask: np.ndarray, axis: int) -> np.ndarray:
    """Set pixels of a boolean map per row (``axis=1``) or column (``axis=0``): ``np.count_nonzero``'s
    counts, summed by OpenCV (many times faster) where the map's rows or columns are contiguous."""
    if mask.size and mask.strides[1] == 1:
        return cv2.reduce(mask.view(np.uint8), axis, cv2.REDUCE_SUM, dtype=cv2.CV_32S).ravel()
    if mask.size and mask.strides[0] == 1:  # a transposed map: its columns are contiguous
        return _count_set(mask.T, 1 - axis)
    return np.count_nonzero(mask, axis=axis)


def _share(mask: np.ndarray) -> np.ndarray:
    """Share of each row of a boolean map that is set (its mean along the row, counted)."""
    with np.errstate(invalid="ignore", divide="ignore"):  # (no columns: NaN, as the mean)
        return _count_set(mask, axis=1) / mask.shape[1]


def _index_runs(indices: np.ndarray) -> list[np.ndarray]:
    """Sorted indices split into runs of consecutive ones."""
    return np.split(indices, np.flatnonzero(np.diff(indices) > 1) + 1)
