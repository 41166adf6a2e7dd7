"""A marker's rim is no wall: the sides of the start's and the goal's cells read again where the
dark rim around a marker's colour reaches into the window a side is read in."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from .reading import Box
from .walls import Thickness, _run, _segment_peaks, _trimmed_mean

MARKER_RIM = 0.12  #: a marker's rim (its edge line, antialiasing, blur) reaches this share of a cell beyond its colour
MIN_CLEAR = 0.25   #: a side is read again only where its line is clear of the rim at this share of its central half
RIM_SHARE = 0.8    #: a side of a marker's cell read this much fainter than the walls may be the marker's rim
OPEN_SHARE = 0.5   #: ... and it is open where, read again, it is under this share of the walls' threshold


def rim_free_sides(dark: np.ndarray, colour: np.ndarray, box: Box, shape: tuple[int, int], thickness: Thickness,
                   vert: np.ndarray, horiz: np.ndarray, cells: Sequence[tuple[int, int]], *,
                   threshold: float, level: float) -> tuple[np.ndarray, np.ndarray]:
    """``vert``, ``horiz`` (every side's darkness, :func:`~.walls.read_segments` trimmed, at
    ``box`` with ``shape``) with each inner side of ``cells`` read as a wall (at ``threshold``
    or above) but fainter than RIM_SHARE of a wall (``level``) read again without the pixels
    within MARKER_RIM of a cell of the colour in that cell (``colour``: 0/255): at each place
    along it, the darkest pixel across it of those left, where none of the line's own pixels
    (its thickness and a pixel each way) is left out; where the rim reaches into its window and
    at least MIN_CLEAR of the places are read. The side is taken as read again only where that
    is under OPEN_SHARE of ``threshold`` - paper, no line at all: a wall fainter than the others
    is read again as its own line, which may itself fall short of the threshold, and stays as it
    was read. For walls of lines only (a lattice's walls are read averaged across their
    thickness, beyond a rim).

    MazePlot draws its start circle with a dark edge, whose antialiased rim stands 3-5 px off
    the colour: 5 px from the open side beside it (cells of 33 px), within the window a side is
    read in, it read that side at 0.11 against walls at 0.18 (threshold 0.07) - a wall where
    there was none (mazeworld 87087 v00253; 81081 v00175 and v00251 blurred, the one's wander
    read crossing it). A valid way out of the start through it fails "across a wall". A wall's
    line is read where the rim leaves it whole; where the marker crowds it along the whole side,
    nothing is read and it stays. (Blurred further, a rim reaches the line itself and stays a
    wall: 78078 v00025 blurred, a false fail.)"""
    t, l, b, r = box
    rows, cols = shape
    py, px = (b - t) / rows, (r - l) / cols
    if _run(thickness.y, py) > 1 or _run(thickness.x, px) > 1:
        return vert, horiz
    reach = max(2, int(np.ceil(MARKER_RIM * (py + px) / 2)))
    disc = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach + 1, 2 * reach + 1))
    pad = int(np.ceil(max(thickness) / 2 + max(1.0, 0.1 * max(py, px)))) + reach + 2  # beyond a side's window
    h, w = colour.shape
    vert, horiz = vert.copy(), horiz.copy()
    for cr, cc in cells:
        sides = [(k, i, j) for k, i, j, inner in ((0, cr, cc, cc > 0), (0, cr, cc + 1, cc + 1 < cols),
                                                  (1, cr, cc, cr > 0), (1, cr + 1, cc, cr + 1 < rows))
                 if inner and threshold <= (vert, horiz)[k][i, j] < RIM_SHARE * level]
        if not sides:
            continue
        y0, y1 = max(0, int(t + cr * py)), min(h, int(np.ceil(t + (cr + 1) * py)))
        x0, x1 = max(0, int(l + cc * px)), min(w, int(np.ceil(l + (cc + 1) * px)))
        # the cell and its sides' windows, cropped at even offsets (the reader rounds half-pixel
        # positions to even: a crop moved by an even number of pixels reads the same pixels)
        oy, ox = max(0, y0 - pad) // 2 * 2, max(0, x0 - pad) // 2 * 2
        near = np.zeros((min(h, y1 + pad) - oy, min(w, x1 + pad) - ox), np.uint8)
        near[y0 - oy:y1 - oy, x0 - ox:x1 - ox] = colour[y0:y1, x0:x1]
        if not near.any():
            continue
        rim = cv2.dilate(near, disc)
        at_crop = (t - oy, l - ox, b - oy, r - ox)
        left_out = rim.astype(np.float32)
        window = _segment_peaks(left_out, at_crop, shape, thickness)           # the rim in a side's window
        line = _segment_peaks(left_out, at_crop, shape, thickness, slack=0.0)  # ... on its line
        crop = dark[oy:oy + rim.shape[0], ox:ox + rim.shape[1]]
        darkest = _segment_peaks(np.where(rim > 0, np.float32(-1.0), crop), at_crop, shape, thickness)  # of the rest
        for k, i, j in sides:
            read = (vert, horiz)[k]
            side = (i, slice(None), j) if k == 0 else (i, j, slice(None))
            clear = line[k][side] == 0
            if not window[k][side].any() or clear.sum() < max(2.0, MIN_CLEAR * clear.size):
                continue
            again = float(_trimmed_mean(darkest[k][side][clear], axis=0))
            if again < OPEN_SHARE * threshold:  # paper where the rim is not: no line at all
                read[i, j] = again
    return vert, horiz
