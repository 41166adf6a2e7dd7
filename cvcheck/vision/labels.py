"""Connected components of sparse masks, labelled box by box.

An agent of a few pixels and a marker at the other end of the maze make a mask whose
bounding box is most of the canvas; labelling that box costs a pass over all of it for
two dozen pixels. :func:`components` labels only the boxes that hold set pixels (split
where whole rows or columns are empty: no component crosses such a gap) and returns
exactly what ``cv2.connectedComponentsWithStats(mask, connectivity=8)`` returns - the
same labels in the same order (OpenCV numbers components by the first 2 x 2 block of
pixels each reaches in raster order), areas and centroids (the same integer sums
divided by the same areas).
"""

from __future__ import annotations

import cv2
import numpy as np

from .runs import lines_set, true_runs

SPARSE = 0.5       #: label box by box when the boxes cover at most this share of the mask
SMALL = 64 * 64    #: ... and the mask is larger than this many pixels (smaller ones are labelled whole)


def components(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """``(count, labels, stats, centroids)`` of the 8-connected components of a uint8 mask,
    as ``cv2.connectedComponentsWithStats(mask, connectivity=8)`` gives them (the
    background's stats row holds its area and the mask's extent, its centroid zeros)."""
    h, w = mask.shape
    boxes = occupied_boxes(mask) if h * w > SMALL else []
    if len(boxes) <= 1 or sum(bw * bh for _, _, bw, bh in boxes) > SPARSE * h * w:
        return cv2.connectedComponentsWithStats(mask, connectivity=8)
    found = []
    for x, y, bw, bh in boxes:
        n, lab, st, ce = cv2.connectedComponentsWithStats(mask[y:y + bh, x:x + bw], connectivity=8)
        for i in range(1, n):
            area = int(st[i, cv2.CC_STAT_AREA])
            block_row = (y + int(st[i, cv2.CC_STAT_TOP])) // 2  # the first 2 x 2 block it reaches
            top = max(0, 2 * block_row - y)
            first_col = int(np.flatnonzero((lab[top:2 * block_row - y + 2] == i).any(axis=0))[0])
            # (the centroid's integer sums, back from OpenCV's quotient, then moved to the mask's frame)
            sum_x = round(float(ce[i, 0]) * area) + x * area
            sum_y = round(float(ce[i, 1]) * area) + y * area
            found.append(((block_row, (x + first_col) // 2), x, y, lab, i, st[i], area, sum_x, sum_y))
    found.sort(key=lambda c: c[0])
    count = len(found) + 1
    labels = np.zeros((h, w), np.int32)
    stats = np.zeros((count, 5), np.int32)
    centroids = np.zeros((count, 2), np.float64)
    for new, (_, x, y, lab, i, st, area, sum_x, sum_y) in enumerate(found, 1):
        labels[y:y + lab.shape[0], x:x + lab.shape[1]][lab == i] = new
        stats[new] = (x + st[0], y + st[1], st[2], st[3], area)
        centroids[new] = (sum_x / area, sum_y / area)
    stats[0] = (0, 0, w, h, h * w - int(stats[1:, cv2.CC_STAT_AREA].sum()))
    return count, labels, stats, centroids


def occupied_boxes(mask: np.ndarray) -> list[tuple[int, int, int, int]]:
    """``(x, y, width, height)`` boxes that hold every set pixel of ``mask``, split where whole
    rows, then (within those) whole columns, are empty."""
    boxes = []
    for y0, y1 in true_runs(lines_set(mask, 1)):
        for x0, x1 in true_runs(lines_set(mask[y0:y1], 0)):
            boxes.append((x0, y0, x1 - x0, y1 - y0))
    return boxes


__all__ = ["components", "occupied_boxes"]
