"""Ink and colour: darkness relative to the paper on unsaturated pixels (walls), and the coloured
pixels (markers, paths, icons) that are not walls."""

from __future__ import annotations

import cv2
import numpy as np

from ...vision.arrays import as_rgb

PAPER_PERCENTILE = 95  #: the paper's brightness: this percentile of the pixels' value
INK_MIN = 0.25         #: darkness (share of the paper's brightness) that counts as ink when locating
FAINT_INK_MIN = 0.12   #: ... tried when nothing is found at INK_MIN (1-px grey lines blurred to ~0.2)
COLOUR_CHROMA = 45     #: max(RGB) - min(RGB) at or above this is colour, not ink
COLOUR_VALUE = 70      #: ... for pixels at least this bright



BAND_PIXELS = 1 << 16  #: channels are split a band of rows of at most this many pixels at a time: temporaries
                       #: that small are recycled, larger ones come as fresh memory pages (~3x slower at 480p)


def _bands(rgb: np.ndarray) -> list[slice]:
    """Bands of rows of an image, of at most BAND_PIXELS pixels each (at least a row)."""
    step = max(1, BAND_PIXELS // max(1, rgb.shape[1]))
    return [slice(y, y + step) for y in range(0, rgb.shape[0], step)] or [slice(0, 0)]


def _value_chroma(rgb: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """max(R, G, B) and max - min per pixel, and a spare plane to write into (uint8; OpenCV's
    vector ops, far faster than numpy's, in place: fresh arrays cost more than the arithmetic)."""
    r, g, b = cv2.split(np.ascontiguousarray(rgb))  # (split is slow on a strided crop; a copy is not)
    vmax = cv2.max(r, g)
    cv2.max(vmax, b, dst=vmax)
    cv2.min(r, g, dst=r)
    cv2.min(r, b, dst=r)
    return vmax, cv2.subtract(vmax, r, dst=r), g


def colour_mask(rgb: np.ndarray) -> np.ndarray:
    """Saturated, bright-enough pixels (markers, paths, icons): uint8 0/255."""
    bands = _bands(rgb)
    if len(bands) == 1:
        return _colour(*_value_chroma(rgb))
    colour = np.empty(rgb.shape[:2], np.uint8)
    for rows in bands:
        colour[rows] = _colour(*_value_chroma(rgb[rows]))
    return colour


def _colour(value: np.ndarray, chroma: np.ndarray, spare: np.ndarray) -> np.ndarray:
    """0/255 where chroma >= COLOUR_CHROMA and value >= COLOUR_VALUE (uint8 thresholds), written
    over ``chroma`` (and ``spare``)."""
    cv2.threshold(chroma, COLOUR_CHROMA - 1, 255, cv2.THRESH_BINARY, dst=chroma)
    cv2.threshold(value, COLOUR_VALUE - 1, 255, cv2.THRESH_BINARY, dst=spare)
    return cv2.bitwise_and(chroma, spare, dst=chroma)


_SQUARE_3 = np.ones((3, 3), np.uint8)  #: the structuring element of closings and rims

RIM_DARK = 0.75  #: pixels touching a coloured marker lighter than this are its seam, not ink


def ink_map(image: np.ndarray) -> tuple[np.ndarray, float]:
    """Darkness of every pixel relative to the paper, 0 on coloured pixels; and the paper's value.

    Returns ``(darkness, paper)``: float32 (H, W) in [0, 1].
    """
    dark, paper, _ = _ink_and_colour(as_rgb(image))
    return dark, paper


def _ink_and_colour(rgb: np.ndarray) -> tuple[np.ndarray, float, np.ndarray]:
    """:func:`ink_map`'s ``(darkness, paper)`` and :func:`colour_mask`, from one pass over the channels."""
    value, colour = np.empty(rgb.shape[:2], np.uint8), np.empty(rgb.shape[:2], np.uint8)
    for rows in _bands(rgb):
        value[rows], chroma, spare = _value_chroma(rgb[rows])
        colour[rows] = _colour(value[rows], chroma, spare)
    hist = cv2.calcHist([np.ascontiguousarray(value[::2, ::2])], [0], None, [256], [0, 256]).ravel()
    paper = float(max(1, int(np.searchsorted(np.cumsum(hist), PAPER_PERCENTILE / 100 * hist.sum()))))
    # darkness depends on the value alone: one float32 table of the 256 values, looked up per pixel
    darkness = np.clip((paper - np.arange(256, dtype=np.float32)) * np.float32(1.0 / paper), 0.0, 1.0)
    # A grey seam that video chroma subsampling leaves along a marker's edge is no wall: only
    # mid-dark pixels touching colour are dropped (a wall the marker touches stays dark).
    x, y, w, h = cv2.boundingRect(colour)
    if w:  # (only near colour: the seam's pixels are set to white, whose darkness is 0)
        y0, y1, x0, x1 = max(0, y - 1), y + h + 1, max(0, x - 1), x + w + 1
        near = colour[y0:y1, x0:x1]
        rim = cv2.dilate(near, _SQUARE_3)
        light = cv2.LUT(value[y0:y1, x0:x1], (darkness < RIM_DARK).astype(np.uint8) * np.uint8(255))
        seam = cv2.bitwise_and(rim, cv2.bitwise_or(near, light))
        value[y0:y1, x0:x1] = cv2.max(value[y0:y1, x0:x1], seam)
    return cv2.LUT(value, darkness), paper, colour
