"""Rendering mazes like MMGR (upscaled lattice, walls as wide as cells) and like models do."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

import cv2
import numpy as np

from ..maze.lattice import Cell, MazeSpec

RGB = tuple[int, int, int]

#: maze-dataset ``as_pixels`` colours, used by MMGR.
MMGR_PALETTE: dict[str, RGB] = {
    "wall": (0, 0, 0), "floor": (255, 255, 255), "start": (0, 255, 0),
    "goal": (255, 0, 0), "path": (0, 0, 255),
}


def render_solution(spec: MazeSpec, *, cell_px: int = 16, palette: dict[str, RGB] | None = None,
                    with_path: bool = True) -> np.ndarray:
    """The reference image: the lattice upscaled by ``cell_px`` (nearest), path in blue.

    Returns
    -------
    ndarray of shape ((2n+1)*cell_px, (2m+1)*cell_px, 3), uint8
    """
    pal = palette or MMGR_PALETTE
    lat = np.empty(spec.walls.shape + (3,), np.uint8)
    lat[:] = pal["floor"]
    lat[spec.walls] = pal["wall"]
    if with_path:
        for p in spec.solution_body:
            lat[p] = pal["path"]
    lat[spec.start] = pal["start"]
    lat[spec.goal] = pal["goal"]
    return np.repeat(np.repeat(lat, cell_px, axis=0), cell_px, axis=1)


@dataclass(frozen=True)
class AnswerStyle:
    """How a model-like answer is drawn and degraded."""

    path_style: str = "cells"          # "cells" (filled lattice cells) or "polyline"
    cell_px: int = 24                  # drawing resolution before the final resize
    line_width: float = 0.45           # polyline thickness, in cells
    jitter: float = 0.0                # polyline vertex wobble, in cells
    marker_inset: float = 0.0          # start/goal squares shrunk by this fraction per side
    palette: dict[str, RGB] = field(default_factory=lambda: dict(MMGR_PALETTE))
    background: RGB = (255, 255, 255)  # padding colour
    padding: tuple[float, float, float, float] = (0, 0, 0, 0)  # top, bottom, left, right (fractions)
    out_size: tuple[int, int] | None = None  # final (height, width)
    interpolation: int = cv2.INTER_AREA
    blur_sigma: float = 0.0            # in final pixels
    jpeg_quality: int | None = None
    rotation_deg: float = 0.0          # small in-plane rotation, as generators drift
    noise_sigma: float = 0.0           # additive Gaussian noise, grey levels
    marker_shape: str = "square"       # "square" or "circle"

    def to_dict(self) -> dict:
        d = dict(self.__dict__)
        d["palette"] = {k: list(v) for k, v in self.palette.items()}
        return d


def render_answer(walls: np.ndarray, *, start: Cell, goal: Cell, path: Sequence[Cell],
                  style: AnswerStyle, rng: np.random.Generator,
                  loops_at: Iterable[tuple[Cell, bool]] = ()) -> np.ndarray:
    """Draw a model-like answer: walls, a path (cells or a hand-drawn line), markers.

    ``path`` is an ordered walk of lattice cells (it may revisit cells); ``loops_at``
    adds a closed loop of the path line beside the given lattice cell of a straight
    corridor (``vertical`` says the corridor's direction), inside the corridor.
    """
    s = style.cell_px
    pal = style.palette
    h, w = walls.shape[0] * s, walls.shape[1] * s
    img = np.empty((h, w, 3), np.uint8)
    img[:] = pal["floor"]
    big_walls = np.repeat(np.repeat(walls, s, axis=0), s, axis=1)
    img[big_walls] = pal["wall"]
    if style.path_style == "cells":
        for r, c in set(path):
            img[r * s:(r + 1) * s, c * s:(c + 1) * s] = pal["path"]
    else:
        _draw_polyline(img, path, style, rng)
    for (r, c), vertical in loops_at:
        _draw_curl(img, (r, c), vertical=vertical, style=style)
    inset = int(round(style.marker_inset * s))
    for (r, c), key in ((start, "start"), (goal, "goal")):
        if style.marker_shape == "circle":
            cv2.circle(img, (int((c + 0.5) * s), int((r + 0.5) * s)), int(s / 2 - inset), pal[key], -1, cv2.LINE_AA)
        else:
            img[r * s + inset:(r + 1) * s - inset, c * s + inset:(c + 1) * s - inset] = pal[key]
    return degrade(img, style, seed=int(rng.integers(2**31)))


def _draw_curl(img: np.ndarray, cell: Cell, *, vertical: bool, style: AnswerStyle) -> None:
    """An elongated loop along a straight corridor, offset to one side of the path line."""
    s = style.cell_px
    r, c = cell
    along, across = 0.9 * s, 0.3 * s
    offset = 0.17 * s
    cy, cx = (r + 0.5) * s, (c + 0.5) * s
    if vertical:
        centre, axes = (cx + offset, cy), (across, along)
    else:
        centre, axes = (cx, cy + offset), (along, across)
    shift = 4
    scale = 1 << shift
    cv2.ellipse(img, (int(centre[0] * scale), int(centre[1] * scale)),
                (int(axes[0] * scale), int(axes[1] * scale)), 0, 0, 360, style.palette["path"],
                thickness=max(1, int(round(0.18 * s))), lineType=cv2.LINE_AA, shift=shift)


def _draw_polyline(img: np.ndarray, path: Sequence[Cell], style: AnswerStyle,
                   rng: np.random.Generator) -> None:
    s = style.cell_px
    if not path:
        return
    pts = np.array([[(c + 0.5) * s, (r + 0.5) * s] for r, c in path], np.float64)
    if style.jitter > 0:
        pts += rng.uniform(-style.jitter, style.jitter, pts.shape) * s
    thick = max(1, int(round(style.line_width * s)))
    shift = 4  # sub-pixel precision for smooth anti-aliased strokes
    poly = np.round(pts * (1 << shift)).astype(np.int32).reshape(-1, 1, 2)
    cv2.polylines(img, [poly], False, style.palette["path"], thickness=thick, lineType=cv2.LINE_AA,
                  shift=shift)


def degrade(img: np.ndarray, style: AnswerStyle, *, seed: int = 0) -> np.ndarray:
    """Pad, rotate, resize, blur, add noise and JPEG-compress, as a model's output would be."""
    top, bottom, left, right = style.padding
    h, w = img.shape[:2]
    pads = [int(round(top * h)), int(round(bottom * h)), int(round(left * w)), int(round(right * w))]
    if any(pads):
        top_px, bottom_px, left_px, right_px = pads
        img = cv2.copyMakeBorder(img, top_px, bottom_px, left_px, right_px, cv2.BORDER_CONSTANT,
                                 value=[int(v) for v in style.background])
    if style.rotation_deg:
        h, w = img.shape[:2]
        rot = cv2.getRotationMatrix2D((w / 2, h / 2), style.rotation_deg, 1.0)
        img = cv2.warpAffine(img, rot, (w, h), flags=cv2.INTER_LINEAR,
                             borderValue=tuple(int(v) for v in style.background))
    if style.out_size is not None:
        oh, ow = style.out_size
        img = cv2.resize(img, (ow, oh), interpolation=style.interpolation)
    if style.blur_sigma > 0:
        img = cv2.GaussianBlur(img, (0, 0), style.blur_sigma)
    if style.noise_sigma > 0:
        noise = np.random.default_rng(seed).normal(0, style.noise_sigma, img.shape)
        img = np.clip(img + noise, 0, 255).astype(np.uint8)
    if style.jpeg_quality is not None:
        ok, buf = cv2.imencode(".jpg", img[:, :, ::-1], [cv2.IMWRITE_JPEG_QUALITY, int(style.jpeg_quality)])
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        assert ok and decoded is not None
        img = decoded[:, :, ::-1]
    return np.ascontiguousarray(img)
