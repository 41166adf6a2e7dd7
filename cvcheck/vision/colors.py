"""Colour classification robust to palette drift, anti-aliasing, blur and JPEG.

Classes are decided in HSV: *dark* pixels (low value) are walls/lines whatever
their hue; saturated pixels are split by hue into red, green and blue; everything
else (white, off-white, light grey, pale anti-aliased edges) is background.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

BACKGROUND, DARK, RED, GREEN, BLUE = 0, 1, 2, 3, 4
CLASS_NAMES = ("background", "dark", "red", "green", "blue")


@dataclass(frozen=True)
class ColorRules:
    """Thresholds in OpenCV HSV units (H in [0, 180), S and V in [0, 255])."""

    dark_max_value: int = 100       #: V below this is a wall / line
    min_saturation: int = 80        #: S at or above this is a marker colour
    min_value: int = 90             #: V at or above this for marker colours
    red_hue: tuple[int, int] = (12, 165)   #: red iff H < first or H > second
    green_hue: tuple[int, int] = (35, 90)
    blue_hue: tuple[int, int] = (95, 140)


DEFAULT_RULES = ColorRules()


def classify(image: np.ndarray, *, rules: ColorRules = DEFAULT_RULES) -> np.ndarray:
    """Label every pixel with a colour class.

    Parameters
    ----------
    image : ndarray of shape (H, W, 3), uint8 RGB

    Returns
    -------
    ndarray of shape (H, W), uint8 with values BACKGROUND, DARK, RED, GREEN, BLUE
    """
    hsv = cv2.cvtColor(image, cv2.COLOR_RGB2HSV)
    h, s, v = hsv[:, :, 0], hsv[:, :, 1], hsv[:, :, 2]
    out = np.zeros(image.shape[:2], np.uint8)
    chroma = (s >= rules.min_saturation) & (v >= rules.min_value)
    out[chroma & ((h < rules.red_hue[0]) | (h > rules.red_hue[1]))] = RED
    out[chroma & (h >= rules.green_hue[0]) & (h <= rules.green_hue[1])] = GREEN
    out[chroma & (h >= rules.blue_hue[0]) & (h <= rules.blue_hue[1])] = BLUE
    out[v < rules.dark_max_value] = DARK
    return out


def dark_mask(image: np.ndarray, *, rules: ColorRules = DEFAULT_RULES) -> np.ndarray:
    """Pixels dark enough to be walls: ``max(R, G, B) < dark_max_value`` (HSV value)."""
    return image.max(axis=2) < rules.dark_max_value


def strong(image: np.ndarray, mask: np.ndarray, *, share: float = 0.6) -> np.ndarray:
    """The part of a colour mask at least ``share`` as saturated as its median pixel.

    Blur and anti-aliasing leave pale fringes that :func:`classify` still assigns to
    the colour; topology (holes, loops) is read on the saturated core instead.
    """
    if not mask.any():
        return mask
    sat = cv2.cvtColor(image, cv2.COLOR_RGB2HSV)[:, :, 1]
    return mask & (sat >= share * float(np.median(sat[mask])))
