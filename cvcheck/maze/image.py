"""Analyse a generated maze solution image against its maze (pure array code).

:func:`analyse_image` locates and rectifies the answer, segments its colours and runs
MMGR's four pixel metric classes; :mod:`.verdict` turns the analysis into a Result.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ..config import MazeConfig
from ..schema import Unparseable
from ..vision import colors
from ..vision.arrays import as_rgb
from .extract import fit_lattice_box, locate_maze, rectify, refine_alignment
from .lattice import MazeSpec
from .metrics import Crossing, Layout, PathMatch, layout_match, path_loops, path_match, upscale_cells, wall_crossing


@dataclass(frozen=True)
class MazeImageAnalysis:
    """Everything an image verdict is computed from (kept for overlays and debugging)."""

    spec: MazeSpec
    canvas: np.ndarray          #: rectified answer, (Lr*k, Lc*k, 3) uint8
    k: int
    box: tuple[int, int, int, int]
    aligned: bool               #: ECC refinement was applied
    path_mask: np.ndarray
    layout: Layout
    crossing: Crossing
    path: PathMatch
    loops: list[tuple[float, float, float]]


def analyse_image(answer: np.ndarray, spec: MazeSpec, *, config: MazeConfig) -> MazeImageAnalysis | Unparseable:
    """Run extraction and all four metric classes on an answer image.

    Parameters
    ----------
    answer : ndarray of shape (H, W, 3) (or grey / RGBA)
        The model's output, any size, with or without margins (never modified).
    spec : MazeSpec
        The maze (walls, start, goal, solution).
    config : MazeConfig

    Returns
    -------
    MazeImageAnalysis, or Unparseable with the reason when no maze can be read.
    """
    image = as_rgb(answer, name="answer")
    located = locate_maze(image)
    if located is None:
        return Unparseable("no maze walls found in the answer")
    k = config.canvas_cell_px
    box = fit_lattice_box(image, located.box, lattice_shape=spec.walls.shape)
    canvas = rectify(image, box, lattice_shape=spec.walls.shape, cell_px=k)
    ref_walls = upscale_cells(spec.walls, k)
    hsv = cv2.cvtColor(canvas, cv2.COLOR_RGB2HSV)
    cls = colors.classify(canvas, hsv=hsv)
    canvas, warp = refine_alignment(canvas, ref_walls, dark=cls == colors.DARK)
    if warp is not None:
        hsv = cv2.cvtColor(canvas, cv2.COLOR_RGB2HSV)
        cls = colors.classify(canvas, hsv=hsv)
    dark = cls == colors.DARK
    fill = dark.mean()
    if fill > 0.95 or fill < 0.02:
        return Unparseable(f"no maze lattice in the answer (walls cover {fill:.0%} of the located region)")
    path_mask = cls == colors.BLUE
    green, red = cls == colors.GREEN, cls == colors.RED
    layout = layout_match(dark, green, red, spec, ref_walls, k, config)
    crossing = wall_crossing(path_mask, ref_walls, k, erosion=config.wall_erosion,
                             threshold=config.cross_wall_ratio)
    path, _ = path_match(path_mask, spec, k, config)
    loops = path_loops(colors.strong(hsv, path_mask), k, min_area=config.loop_min_area, markers=green | red)
    return MazeImageAnalysis(spec=spec, canvas=canvas, k=k, box=box, aligned=warp is not None,
                             path_mask=path_mask, layout=layout, crossing=crossing, path=path, loops=loops)
