"""Overlay pictures for maze verdicts: what was read, what was wrong, and the gate."""

from __future__ import annotations

from collections.abc import Iterable

import cv2
import numpy as np

from ..schema import Result
from .image import MazeImageAnalysis
from .lattice import Cell

MISSED = (255, 200, 0)     # solution cells the answer did not cover
EXTRA = (200, 0, 200)      # answer cells off the solution
CROSSED = (255, 0, 0)      # crossed wall cells
OUTLINE = (0, 170, 255)    # reference walls


def _tint(img: np.ndarray, cells: Iterable[Cell], k: int, colour: tuple[int, int, int], alpha: float) -> None:
    for r, c in cells:
        patch = img[r * k:(r + 1) * k, c * k:(c + 1) * k]
        patch[:] = (patch * (1 - alpha) + np.array(colour) * alpha).astype(np.uint8)


def header(img: np.ndarray, result: Result) -> np.ndarray:
    """Prepend a bar with the verdict and the failed gate checks."""
    w = img.shape[1]
    bar_h = max(28, w // 18)
    bar = np.full((bar_h, w, 3), 32, np.uint8)
    passed = result.passed
    text = ("PASS" if passed else "FAIL") + f"  overall={result.overall:g}"
    if result.gate and result.gate.failed:
        text += "  failed: " + ", ".join(result.gate.failed)
    scale = bar_h / 40
    cv2.putText(bar, text, (8, int(bar_h * 0.7)), cv2.FONT_HERSHEY_SIMPLEX, scale,
                (80, 220, 80) if passed else (255, 90, 90), max(1, int(scale * 2)), cv2.LINE_AA)
    return np.vstack([bar, img])


def render_overlay(analysis: MazeImageAnalysis, result: Result, *, min_side: int = 512) -> np.ndarray:
    """The rectified answer annotated with the verdict.

    Reference walls are outlined in orange-blue, missed solution cells tinted yellow,
    off-solution path cells magenta, crossed walls boxed red, loops circled red.

    Returns
    -------
    ndarray of shape (H, W, 3), uint8 RGB
    """
    k0 = analysis.k
    scale = max(1, int(np.ceil(min_side / max(analysis.canvas.shape[:2]))))
    k = k0 * scale
    img = cv2.resize(analysis.canvas, None, fx=scale, fy=scale, interpolation=cv2.INTER_NEAREST)
    spec = analysis.spec
    solution = analysis.path.solution
    _tint(img, solution - analysis.path.cells, k, MISSED, 0.55)
    _tint(img, analysis.path.cells - solution - {p for p, _ in analysis.crossing.crossed}, k, EXTRA, 0.45)
    walls = np.repeat(np.repeat(spec.walls.astype(np.uint8), k, 0), k, 1)
    contours, _ = cv2.findContours(walls, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(img, contours, -1, OUTLINE, max(1, k // 12))
    for (r, c), _share in analysis.crossing.crossed:
        cv2.rectangle(img, (c * k, r * k), ((c + 1) * k - 1, (r + 1) * k - 1), CROSSED, max(2, k // 6))
    for row, col, _area in analysis.loops:
        cv2.circle(img, (int(col * k), int(row * k)), int(0.8 * k), CROSSED, max(2, k // 8))
    return header(img, result)
