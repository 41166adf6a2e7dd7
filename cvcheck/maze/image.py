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
from .read import MazeReading, lattice_from_segments, read_maze

LATTICE_DARK = 0.25  #: MMGR's lattice walls darken half the maze; thin-line looks a few percent


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
    walls: str = "lattice"      #: how the answer draws walls: lattice (MMGR) or lines (read by segments)


def analyse_image(answer: np.ndarray, spec: MazeSpec, *, config: MazeConfig) -> MazeImageAnalysis | Unparseable:
    """Run extraction and all four metric classes on an answer image.

    Answers drawn with thin walls (maze-dataset ``MazePlot``, VMEvalKit...) are read by
    the general reader (:func:`~cvcheck.maze.read.read_maze`): layout by wall segments,
    the rest on the same lattice canvas; MMGR's lattice look by wall pixels.

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
    if located is None or located.dark_fraction < LATTICE_DARK:
        # thin walls (or none found by the lattice locator): the general reader
        reading = read_maze(image, known=spec)
        if not isinstance(reading, Unparseable) and reading.look.walls == "lines":
            return _analyse_lines(image, reading, spec, config)
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


def _analyse_lines(image: np.ndarray, reading: MazeReading, spec: MazeSpec,
                   config: MazeConfig) -> MazeImageAnalysis:
    """Thin-line looks: the canvas is the lattice laid over the read grid (a wall line runs
    through the middle of its wall lattice cell), the layout is compared by segments."""
    look = reading.look
    t, l, b, r = look.box
    hy, hx = (b - t) / look.grid[0] / 4, (r - l) / look.grid[1] / 4
    box = (int(round(t - hy + 0.5)), int(round(l - hx + 0.5)), int(round(b + hy + 0.5)), int(round(r + hx + 0.5)))
    k = config.canvas_cell_px
    canvas = rectify(image, box, lattice_shape=spec.walls.shape, cell_px=k)
    hsv = cv2.cvtColor(canvas, cv2.COLOR_RGB2HSV)
    cls = colors.classify(canvas, hsv=hsv)
    path_mask = cls == colors.BLUE
    drawn = lattice_from_segments(reading.vertical >= reading.threshold, reading.horizontal >= reading.threshold)
    segments = np.zeros(spec.walls.shape, bool)
    segments[1::2, 0::2] = segments[0::2, 1::2] = True   # boundary segments (posts and cells excluded)
    union = np.count_nonzero((drawn | spec.walls) & segments)
    iou = np.count_nonzero(drawn & spec.walls & segments) / union if union else 0.0
    offsets = [None if m is None else float(np.hypot(m.row - (c[0] // 2 + 0.5), m.col - (c[1] // 2 + 0.5)))
               for m, c in ((look.start, spec.start), (look.goal, spec.goal))]
    ok = (iou > config.layout_iou_min and None not in offsets
          and all(o is not None and o <= config.marker_tolerance for o in offsets))
    layout = Layout(iou=float(iou), start_offset=offsets[0], goal_offset=offsets[1], matched=bool(ok))
    ref_walls = upscale_cells(spec.walls, k)
    crossing = wall_crossing(path_mask, ref_walls, k, erosion=config.wall_erosion, threshold=config.cross_wall_ratio)
    path, _ = path_match(path_mask, spec, k, config)
    markers = (cls == colors.GREEN) | (cls == colors.RED)
    loops = path_loops(colors.strong(hsv, path_mask), k, min_area=config.loop_min_area, markers=markers)
    return MazeImageAnalysis(spec=spec, canvas=canvas, k=k, box=box, aligned=False, path_mask=path_mask,
                             layout=layout, crossing=crossing, path=path, loops=loops, walls="lines")
