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


def classify(image: np.ndarray, *, rules: ColorRules = DEFAULT_RULES,
             hsv: np.ndarray | None = None) -> np.ndarray:
    """Label every pixel with a colour class.

    Parameters
    ----------
    image : ndarray of shape (H, W, 3), uint8 RGB
    hsv : ndarray, optional
        ``cv2.cvtColor(image, cv2.COLOR_RGB2HSV)`` when the caller already has it.

    Returns
    -------
    ndarray of shape (H, W), uint8 with values BACKGROUND, DARK, RED, GREEN, BLUE
    """
    if hsv is None:
        hsv = cv2.cvtColor(image, cv2.COLOR_RGB2HSV)
    out = np.zeros(image.shape[:2], np.uint8)
    lo_s, lo_v = rules.min_saturation, max(rules.min_value, rules.dark_max_value)
    # inRange is inclusive and far faster than numpy boolean algebra on 3 planes.
    red = cv2.inRange(hsv, (0, lo_s, lo_v), (rules.red_hue[0] - 1, 255, 255))
    red = cv2.bitwise_or(red, cv2.inRange(hsv, (rules.red_hue[1] + 1, lo_s, lo_v), (180, 255, 255)))
    out[red > 0] = RED
    out[cv2.inRange(hsv, (rules.green_hue[0], lo_s, lo_v), (rules.green_hue[1], 255, 255)) > 0] = GREEN
    out[cv2.inRange(hsv, (rules.blue_hue[0], lo_s, lo_v), (rules.blue_hue[1], 255, 255)) > 0] = BLUE
    out[cv2.inRange(hsv, (0, 0, 0), (180, 255, rules.dark_max_value - 1)) > 0] = DARK
    return out


def dark_mask(image: np.ndarray, *, rules: ColorRules = DEFAULT_RULES) -> np.ndarray:
    """Pixels dark enough to be walls: ``max(R, G, B) < dark_max_value`` (HSV value)."""
    t = rules.dark_max_value - 1
    return cv2.inRange(image, (0, 0, 0), (t, t, t)) > 0


def strong(hsv: np.ndarray, mask: np.ndarray, *, share: float = 0.6) -> np.ndarray:
    """The part of a colour mask at least ``share`` as saturated as its median pixel.

    Blur and anti-aliasing leave pale fringes that :func:`classify` still assigns to
    the colour; topology (holes, loops) is read on the saturated core instead.
    """
    if not mask.any():
        return mask
    sat = hsv[:, :, 1]
    return mask & (sat >= share * float(np.median(sat[mask])))
