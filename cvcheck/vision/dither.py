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
LUMA_SIGMA = 0.8      #: Gaussian smoothing (px) of a posterized frame's brightness: the dither's finest
                      #: pattern, not a 1-px wall line
CHROMA_SIGMA = 1.6    #: ... and of its colour, where the dither's largest steps (blue's 85 levels apart,
                      #: red's and green's 36) put its tint
SAMPLE_ROW_STEP = 3   #: rows looked at when counting a frame's levels

#: what a result says of frames read smoothed
UNDITHERED_NOTE = ("the frames are dithered on a coarse palette (a GIF written without a palette of its own): "
                   "each was smoothed before grading (media.undither=off reads them as they are)")


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


def smooth_dither(rgb: np.ndarray, *, luma_sigma: float = LUMA_SIGMA,
                  chroma_sigma: float = CHROMA_SIGMA) -> np.ndarray:
    """The frame with its dither averaged away (a new array): its brightness (Y of YCrCb)
    smoothed by a Gaussian of ``luma_sigma`` px, its colour (Cr, Cb) by one of ``chroma_sigma``.

    The dither's tint - what makes a grey line no longer grey - is smoothed more than the
    brightness that draws thin lines (one Gaussian of 1 px for both misread 240p mazes of thin
    lines; one of 0.8 px left enough of the pattern in a 720p frame for it to read as a 28x28
    lattice: mazeworld 74074 v00026 as a 3-3-2 GIF)."""
    if luma_sigma <= 0 or chroma_sigma <= 0:
        raise ValueError(f"sigmas must be > 0, got {luma_sigma}, {chroma_sigma}")
    y, cr, cb = cv2.split(cv2.cvtColor(rgb, cv2.COLOR_RGB2YCrCb))  # (planes: OpenCV filters strided views slowly)
    planes = [cv2.GaussianBlur(y, (0, 0), luma_sigma)] + [cv2.GaussianBlur(c, (0, 0), chroma_sigma) for c in (cr, cb)]
    return cv2.cvtColor(cv2.merge(planes), cv2.COLOR_YCrCb2RGB)


__all__ = ["CHROMA_SIGMA", "LUMA_SIGMA", "MAX_LEVELS", "UNDITHERED_NOTE", "channel_levels", "is_posterized",
           "smooth_dither"]
