"""Overlay picture of a Sudoku verdict: what was read, and which cells failed why.

Cells are outlined on the answer image through the grid's homography: red = wrong
completion, magenta = changed clue, orange = constraint clash, yellow = low confidence;
the read digit is written in the cell's corner.
"""

from __future__ import annotations

import cv2
import numpy as np

from ..schema import Result
from ..vision.arrays import as_rgb

_COLORS = {"wrong": (220, 30, 30), "clue": (200, 0, 200), "clash": (255, 140, 0), "low": (230, 200, 0)}


def render_overlay(image: np.ndarray, result: Result) -> np.ndarray:
    """Draw ``result``'s evidence onto a copy of ``image`` (RGB); returns (H, W, 3) uint8."""
    out = as_rgb(image).copy()
    d = result.details
    corners = d.get("grid_corners")
    grid = d.get("grid") or d.get("final_grid")
    banner = f"{result.task} {result.status.value} overall={result.overall}"
    if not corners or not grid:
        _banner(out, banner + " (" + str(d.get("reason", "no grid")) + ")")
        return out
    n = len(grid)
    quad = np.asarray(corners, np.float32)[:, ::-1]  # (row, col) -> (x, y)
    unit = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
    h = cv2.getPerspectiveTransform(unit, quad)

    def to_img(pts: np.ndarray) -> np.ndarray:
        return cv2.perspectiveTransform(pts.reshape(-1, 1, 2).astype(np.float32), h).reshape(-1, 2)

    marks: dict[tuple[int, int], tuple[int, int, int]] = {}
    for cell in d.get("low_confidence", []):
        marks[(cell["row"], cell["col"])] = _COLORS["low"]
    for v in d.get("violations", []):
        for r, c in v["cells"]:
            marks[(r, c)] = _COLORS["clash"]
    for cell in d.get("wrong_cells", []):
        marks[(cell["row"], cell["col"])] = _COLORS["wrong"]
    for cell in d.get("changed_clues", []) + d.get("clue_changes_any_frame", []):
        marks[(cell["row"], cell["col"])] = _COLORS["clue"]
    thick = max(1, round(min(out.shape[:2]) / 300))
    cv2.polylines(out, [np.round(quad).astype(np.int32)], True, (0, 170, 0), thick)
    for (r, c), color in marks.items():
        box = to_img(np.array([[c + 0.06, r + 0.06], [c + 0.94, r + 0.06], [c + 0.94, r + 0.94], [c + 0.06, r + 0.94]], np.float32))
        cv2.polylines(out, [np.round(box).astype(np.int32)], True, color, thick + 1)
    scale = max(0.3, (np.linalg.norm(quad[1] - quad[0]) / n) / 70)
    for r in range(n):
        for c in range(n):
            v = grid[r][c]
            if v:
                x, y = to_img(np.array([[c + 0.08, r + 0.3]], np.float32))[0]
                cv2.putText(out, "?" if v < 0 else str(v), (int(x), int(y)), cv2.FONT_HERSHEY_SIMPLEX, float(scale),
                            marks.get((r, c), (0, 150, 0)), max(1, thick), cv2.LINE_AA)
    _banner(out, banner)
    return out


def _banner(out: np.ndarray, text: str) -> None:
    scale = max(0.4, out.shape[1] / 1200)
    cv2.putText(out, text, (5, int(22 * scale) + 4), cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(out, text, (5, int(22 * scale) + 4), cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255), 1, cv2.LINE_AA)
