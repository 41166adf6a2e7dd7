"""Markers drawn per frame with OpenCV (anti-aliased, sub-pixel): agents, flags, trophies, text.

Points are ``(x, y)`` in pixel-centre coordinates (pixel ``(i, j)`` has its centre at ``(j, i)``);
images are RGB ``uint8`` arrays modified in place.
"""

from __future__ import annotations

import math

import cv2
import numpy as np
import numpy.typing as npt

Colour = tuple[int, int, int]
_SHIFT = 4
_ONE = 1 << _SHIFT


def _fix(points: npt.ArrayLike) -> np.ndarray:
    return np.round(np.asarray(points, dtype=np.float64) * _ONE).astype(np.int32)


def fill_polygon(image: np.ndarray, points: np.ndarray, colour: Colour, *, aa: bool = True) -> None:
    cv2.fillPoly(image, [_fix(points).reshape(-1, 1, 2)], colour, cv2.LINE_AA if aa else cv2.LINE_8, _SHIFT)


def outline_polygon(image: np.ndarray, points: np.ndarray, colour: Colour, thickness: int = 1) -> None:
    cv2.polylines(image, [_fix(points).reshape(-1, 1, 2)], True, colour, thickness, cv2.LINE_AA, _SHIFT)


def square(image: np.ndarray, centre: tuple[float, float], half: float, colour: Colour, *, aa: bool = True) -> None:
    """Axis-aligned filled square (MMGR's agent / endpoint marker)."""
    x, y = centre
    pts = np.array([(x - half, y - half), (x + half, y - half), (x + half, y + half), (x - half, y + half)])
    fill_polygon(image, pts, colour, aa=aa)


def disc(image: np.ndarray, centre: tuple[float, float], radius: float, colour: Colour,
         *, edge: Colour | None = None, edge_px: float = 1.0) -> None:
    """Filled anti-aliased disc, optionally with a ring of ``edge`` colour outside it."""
    c = tuple(int(v) for v in _fix(centre))
    if edge is not None:
        cv2.circle(image, c, int(round((radius + edge_px) * _ONE)), edge, -1, cv2.LINE_AA, _SHIFT)
    cv2.circle(image, c, int(round(radius * _ONE)), colour, -1, cv2.LINE_AA, _SHIFT)


def star_points(centre: tuple[float, float], outer: float, inner_ratio: float = 0.42) -> np.ndarray:
    """Vertices of a five-pointed star, one point up."""
    x, y = centre
    angles = -math.pi / 2 + np.arange(10) * math.pi / 5
    radii = np.where(np.arange(10) % 2 == 0, outer, outer * inner_ratio)
    return np.stack([x + radii * np.cos(angles), y + radii * np.sin(angles)], axis=1)


def star(image: np.ndarray, centre: tuple[float, float], outer: float, colour: Colour,
         *, edge: Colour | None = None) -> None:
    pts = star_points(centre, outer)
    fill_polygon(image, pts, colour)
    if edge is not None:
        outline_polygon(image, pts, edge)


def flag(image: np.ndarray, centre: tuple[float, float], size: float, colour: Colour,
         *, pole: Colour = (70, 45, 25), edge: Colour | None = None) -> None:
    """A triangular flag on a pole, fitting in a ``size`` x ``size`` box centred on ``centre``."""
    x, y = centre
    h = size / 2
    pole_x = x - 0.3 * size
    pole_w = max(1.0, 0.08 * size)
    fill_polygon(image, np.array([(pole_x - pole_w / 2, y - h), (pole_x + pole_w / 2, y - h),
                                  (pole_x + pole_w / 2, y + h), (pole_x - pole_w / 2, y + h)]), pole)
    tri = np.array([(pole_x + pole_w / 2, y - h), (x + h, y - 0.55 * h), (pole_x + pole_w / 2, y - 0.1 * h)])
    fill_polygon(image, tri, colour)
    if edge is not None:
        outline_polygon(image, tri, edge)


def trophy(image: np.ndarray, centre: tuple[float, float], size: float,
           *, gold: Colour = (250, 200, 30), dark: Colour = (185, 125, 10)) -> None:
    """A gold cup: bowl, two handles, stem and base, fitting in a ``size`` box."""
    x, y = centre
    s = size / 2
    t = max(1, int(round(0.09 * size)))
    for side in (-1, 1):  # handles: rings beside the bowl
        c = tuple(int(v) for v in _fix((x + side * 0.55 * s, y - 0.45 * s)))
        axes = (int(round(0.28 * s * _ONE)), int(round(0.3 * s * _ONE)))
        cv2.ellipse(image, c, axes, 0, 0, 360, dark, t, cv2.LINE_AA, _SHIFT)
    arc = np.linspace(0, math.pi, 16)
    bowl = np.concatenate([
        np.array([(x - 0.62 * s, y - 0.85 * s), (x + 0.62 * s, y - 0.85 * s)]),
        np.stack([x + 0.62 * s * np.cos(arc), y - 0.25 * s + 0.45 * s * np.sin(arc)], axis=1),
    ])
    fill_polygon(image, bowl, gold)
    outline_polygon(image, bowl, dark)
    stem = np.array([(x - 0.1 * s, y + 0.15 * s), (x + 0.1 * s, y + 0.15 * s),
                     (x + 0.14 * s, y + 0.6 * s), (x - 0.14 * s, y + 0.6 * s)])
    fill_polygon(image, stem, dark)
    base = np.array([(x - 0.45 * s, y + 0.6 * s), (x + 0.45 * s, y + 0.6 * s),
                     (x + 0.45 * s, y + 0.85 * s), (x - 0.45 * s, y + 0.85 * s)])
    fill_polygon(image, base, gold)
    outline_polygon(image, base, dark)


def sparkle(image: np.ndarray, centre: tuple[float, float], size: float,
            *, colour: Colour = (255, 215, 40)) -> None:
    """A four-pointed sparkle with two small satellites (an arrival effect)."""
    x, y = centre
    s = size / 2
    angles = -math.pi / 2 + np.arange(8) * math.pi / 4
    radii = np.where(np.arange(8) % 2 == 0, s, 0.22 * s)
    fill_polygon(image, np.stack([x + radii * np.cos(angles), y + radii * np.sin(angles)], axis=1), colour)
    for dx, dy, r in ((0.6, -0.6, 0.12), (-0.55, 0.55, 0.09)):
        disc(image, (x + dx * s, y + dy * s), max(1.0, r * s), colour)


def polyline(image: np.ndarray, points: np.ndarray, colour: Colour, thickness: float) -> None:
    """An open anti-aliased polyline of the given thickness (round joints)."""
    pts = np.asarray(points, dtype=np.float64)
    if len(pts) == 0:
        return
    t = max(1, int(round(thickness)))
    cv2.polylines(image, [_fix(pts).reshape(-1, 1, 2)], False, colour, t, cv2.LINE_AA, _SHIFT)
    for p in pts[[0, -1]]:
        disc(image, (float(p[0]), float(p[1])), t / 2, colour)


def text_mask(text: str, height_px: float) -> np.ndarray:
    """Anti-aliased ink of ``text`` (float alpha in [0, 1]) cropped to its rows/columns of alpha >= 1/4."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    scale = height_px / 22.0
    thickness = max(1, int(round(scale * 1.6)))
    (w, h), base = cv2.getTextSize(text, font, scale, thickness)
    pad = 2 * thickness + 2
    canvas = np.zeros((h + base + 2 * pad, w + 2 * pad), dtype=np.uint8)
    cv2.putText(canvas, text, (pad, pad + h), font, scale, 255, thickness, cv2.LINE_AA)
    rows, cols = np.nonzero(canvas >= 64)  # crop off the faintest anti-aliasing so the box is the visible ink
    return canvas[rows.min(): rows.max() + 1, cols.min(): cols.max() + 1].astype(np.float32) / 255.0


def paste_ink(image: np.ndarray, mask: np.ndarray, top_left: tuple[int, int], colour: Colour) -> None:
    """Blend ``colour`` into ``image`` through ``mask`` placed at ``(x, y)``, clipped to the image."""
    x, y = top_left
    h, w = mask.shape
    y0, x0 = max(0, y), max(0, x)
    y1, x1 = min(image.shape[0], y + h), min(image.shape[1], x + w)
    if y1 <= y0 or x1 <= x0:
        return
    a = mask[y0 - y: y1 - y, x0 - x: x1 - x, None]
    region = image[y0:y1, x0:x1].astype(np.float32)
    image[y0:y1, x0:x1] = np.round(region * (1 - a) + np.asarray(colour, np.float32) * a).astype(np.uint8)
