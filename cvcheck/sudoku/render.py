"""Overlay picture of a Sudoku verdict: what was read, and which cells failed why.

The answer (a video's last analysed frame) gets a header band and a legend band. The
header says ``PASS``, ``FAIL  failed: <the failed checks>`` or ``UNPARSEABLE: <reason>``
(never "ok" on a failing verdict) and the metrics. On the picture, through the grid's
homography: the grid outline (green), every read digit in the cell's corner (green,
or the colour of its problem), and cells boxed red = wrong entry, magenta = changed
clue, orange = repeated digit in a row/column/box, yellow = low-confidence reading.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import cv2
import numpy as np

from ..schema import Result, Status
from ..vision.arrays import as_rgb

_COLORS = {"wrong": (220, 30, 30), "clue": (200, 0, 200), "clash": (255, 140, 0), "low": (230, 200, 0)}
_OK, _GRID = (0, 150, 0), (0, 170, 0)
#: legend entries: (colour, text, swatch kind)
LEGEND = ((_COLORS["wrong"], "wrong entry", "box"), (_COLORS["clue"], "changed clue", "box"),
          (_COLORS["clash"], "repeated digit", "box"), (_COLORS["low"], "low confidence", "box"),
          (_OK, "digit read", "text"), (_GRID, "grid found", "line"))
_FONT = cv2.FONT_HERSHEY_SIMPLEX


def header_text(result: Result) -> str:
    """``PASS``, ``FAIL  failed: a, b`` or ``UNPARSEABLE: reason`` / ``ERROR (code)``."""
    if result.status is Status.UNPARSEABLE:
        return f"UNPARSEABLE: {result.details.get('reason', 'answer could not be read')}"
    if result.status is Status.ERROR:
        return f"ERROR ({result.error.code if result.error else '?'})"
    if result.passed:
        return "PASS"
    failed = list(result.gate.failed) if result.gate is not None else []
    return "FAIL  failed: " + (", ".join(failed) if failed else "overall 0")


def _metrics_text(result: Result) -> str:
    m = result.metrics
    if "completion_accuracy" not in m:
        return f"sudoku {result.modality}"
    text = (f"CC={m.get('clues_changed')}  CV={float(m.get('constraint_violation', 0)):.3g}  "
            f"CA={float(m.get('completion_accuracy', 0)):.3g}")
    if result.modality == "video":
        text += f"  AR={m.get('action_reflection')}  final frame {result.details.get('final_frame')}"
    return text


def render_overlay(image: np.ndarray, result: Result) -> np.ndarray:
    """Draw ``result``'s evidence onto a copy of ``image`` (RGB) with a header and a legend.

    Returns (H + bands, W, 3) uint8.
    """
    out = as_rgb(image).copy()
    d = result.details
    corners = d.get("grid_corners")
    grid = d.get("grid") or d.get("final_grid")
    if corners and grid:
        _draw_cells(out, np.asarray(corners, np.float32)[:, ::-1], grid, d)
    scale = max(0.4, out.shape[1] / 900)
    header = _band([(header_text(result), _status_color(result)), (_metrics_text(result), (40, 40, 40))],
                   out.shape[1], scale)
    legend = _legend(out.shape[1], scale)
    return np.vstack([header, out, legend])


def _status_color(result: Result) -> tuple[int, int, int]:
    if result.status is Status.OK and result.passed:
        return (0, 120, 0)
    return (190, 0, 0) if result.status is Status.OK else (90, 90, 90)


def _draw_cells(out: np.ndarray, quad: np.ndarray, grid: list[list[int]], d: Mapping[str, Any]) -> None:
    n = len(grid)
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
    cv2.polylines(out, [np.round(quad).astype(np.int32)], True, _GRID, thick)
    for (r, c), color in marks.items():
        box = to_img(np.array([[c + 0.06, r + 0.06], [c + 0.94, r + 0.06], [c + 0.94, r + 0.94],
                               [c + 0.06, r + 0.94]], np.float32))
        cv2.polylines(out, [np.round(box).astype(np.int32)], True, color, thick + 1)
    scale = max(0.3, (np.linalg.norm(quad[1] - quad[0]) / n) / 70)
    for r in range(n):
        for c in range(n):
            v = grid[r][c]
            if v:
                x, y = to_img(np.array([[c + 0.08, r + 0.3]], np.float32))[0]
                cv2.putText(out, "?" if v < 0 else str(v), (int(x), int(y)), _FONT, float(scale),
                            marks.get((r, c), _OK), max(1, thick), cv2.LINE_AA)


def _band(lines: list[tuple[str, tuple[int, int, int]]], width: int, scale: float) -> np.ndarray:
    """White band with lines of text, wrapped at the band's width (long reasons)."""
    step = int(26 * scale) + 6
    wrapped: list[tuple[str, tuple[int, int, int]]] = []
    for text, color in lines:
        for part in _wrap(text, width - 10, scale):
            wrapped.append((part, color))
    band = np.full((step * len(wrapped) + 6, width, 3), 255, np.uint8)
    for i, (text, color) in enumerate(wrapped):
        cv2.putText(band, text, (5, step * (i + 1) - 2), _FONT, scale, color, max(1, round(1.6 * scale)), cv2.LINE_AA)
    return band


def _wrap(text: str, width: int, scale: float) -> list[str]:
    words, out, line = text.split(" "), [], ""
    for w in words:
        trial = (line + " " + w) if line else w
        if line and cv2.getTextSize(trial, _FONT, scale, 1)[0][0] > width:
            out.append(line)
            line = w
        else:
            line = trial
    return out + [line]


def _legend(width: int, scale: float) -> np.ndarray:
    """Band of colour swatches and their meaning, flowing onto as many rows as needed."""
    s = 0.8 * scale
    step = int(22 * s) + 10
    sw = int(16 * s) + 4
    items = []
    for color, text, kind in LEGEND:
        items.append((color, text, kind, sw + 6 + cv2.getTextSize(text, _FONT, s, 1)[0][0] + 14))
    rows: list[list[tuple[tuple[int, int, int], str, str, int]]] = [[]]
    used = 5
    for item in items:
        if rows[-1] and used + item[3] > width:
            rows.append([])
            used = 5
        rows[-1].append(item)
        used += item[3]
    band = np.full((step * len(rows) + 6, width, 3), 245, np.uint8)
    for i, row in enumerate(rows):
        x, y = 5, step * i + 6
        for color, text, kind, w in row:
            if kind == "box":
                cv2.rectangle(band, (x, y), (x + sw, y + sw), color, max(2, round(2 * s)))
            elif kind == "line":
                cv2.line(band, (x, y + sw // 2), (x + sw, y + sw // 2), color, max(2, round(2 * s)))
            else:
                cv2.putText(band, "7", (x + 2, y + sw), _FONT, s, color, max(1, round(1.6 * s)), cv2.LINE_AA)
            cv2.putText(band, text, (x + sw + 6, y + sw - 2), _FONT, s, (30, 30, 30), 1, cv2.LINE_AA)
            x += w
    return band
