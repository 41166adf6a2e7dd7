"""Frames drawn on a coarse fixed palette, and their dither smoothed away.

A GIF written without a palette of its own (what a plain ``ffmpeg -i answer.mp4 answer.gif``
writes: ``bgr8``, 8 levels of red and green and 4 of blue) keeps only a few levels a channel
and stands for every other colour by an ordered dither: a 1-px grey wall line becomes a
pattern of bluish and yellowish pixels, a pale paper speckled, neither of them neutral any
more. Averaged over a few pixels the pattern gives back the colour it stands for, which
is what the eye does and what :func:`smooth_dither` does.

>>> import numpy as np
>>> pattern = (np.indices((9, 9)).sum(0) % 3 * 85).astype(np.uint8)  # three levels in turn
>>> frame = np.stack([pattern, pattern, pattern], axis=-1)
>>> is_posterized(frame)
True
>>> abs(int(smooth_dither(frame)[4, 4, 0]) - 85) < 10  # about the pattern's mean
True
"""

from __future__ import annotations

import cv2
import numpy as np

MAX_LEVELS = 8        #: a frame is posterized when each of its channels takes at most this many values
MIN_LEVELS = 2        #: ... and one of them more than this (a flat frame says nothing)
DITHER_SIGMA = 0.8    #: Gaussian smoothing (px) of a posterized frame: the dither's 2-4 px pattern, not a wall
SAMPLE_ROW_STEP = 3   #: rows looked at when counting a frame's levels


def channel_levels(rgb: np.ndarray) -> tuple[int, ...]:
    """How many distinct values each channel of an (H, W, C) uint8 frame takes (every
    ``SAMPLE_ROW_STEP``-th row counted)."""
    rows = rgb[::SAMPLE_ROW_STEP]
    return tuple(int(np.count_nonzero(np.bincount(rows[..., c].ravel(), minlength=256)))
                 for c in range(rgb.shape[-1]))


def is_posterized(rgb: np.ndarray) -> bool | None:
    """Whether a frame is drawn on a coarse palette (every channel at most ``MAX_LEVELS``
    values); None for a frame too flat to tell (no channel with more than ``MIN_LEVELS``)."""
    levels = channel_levels(rgb)
    if max(levels) <= MIN_LEVELS:
        return None
    return max(levels) <= MAX_LEVELS


def smooth_dither(rgb: np.ndarray, *, sigma: float = DITHER_SIGMA) -> np.ndarray:
    """The frame with its dither averaged away (a Gaussian of ``sigma`` px, a new array)."""
    if sigma <= 0:
        raise ValueError(f"sigma must be > 0, got {sigma}")
    return cv2.GaussianBlur(rgb, (0, 0), sigma)


__all__ = ["DITHER_SIGMA", "MAX_LEVELS", "channel_levels", "is_posterized", "smooth_dither"]
