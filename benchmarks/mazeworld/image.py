"""Answer images: solved mazes in each look (MMGR blue lattice path or a blue polyline)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import sprites
from .effects import Letterbox, blur, compose, jpeg, letterbox
from .labels import connector, lattice_of
from .looks import lattice_rgb, mmgr_affine, upscale
from .markers import MMGR_BLUE, MMGR_GREEN, MMGR_RED, PATH_BLUE, MarkerStyle
from .mazes import Cell, Maze, is_adjacent
from .plans import Plan
from .sprites import Colour
from .video import BoardSpec


@dataclass(frozen=True)
class ImageStyle:
    """How one answer image is drawn and re-rendered at the image model's resolution."""

    board: BoardSpec
    markers: MarkerStyle
    out_size: tuple[int, int] = (1024, 1024)
    fill: float = 1.0
    place: tuple[float, float] = (0.5, 0.5)
    bar: Colour = (255, 255, 255)
    path_width: float = 0.2  # polyline width as a fraction of a cell (line looks)
    blur_sigma: float = 0.0
    jpeg_quality: int | None = None


def start_cell(maze: Maze, plan: Plan) -> Cell:
    return plan.start_drawn if plan.start_drawn is not None else maze.start


def goal_cell(maze: Maze, plan: Plan) -> Cell:
    return plan.goal_after if plan.goal_after is not None else maze.goal


def _mmgr_solution(maze: Maze, plan: Plan, walls: np.ndarray, lattice_px: int) -> np.ndarray:
    """``as_pixels``-style solved lattice: blue path cells and connectors, green start, red goal."""
    lat = lattice_rgb(walls)
    for cell in plan.path:
        lat[lattice_of(cell)] = MMGR_BLUE
    for a, b in zip(plan.path, plan.path[1:]):
        if is_adjacent(a, b):
            lat[connector(a, b)] = MMGR_BLUE
    lat[lattice_of(start_cell(maze, plan))] = MMGR_GREEN
    lat[lattice_of(goal_cell(maze, plan))] = MMGR_RED
    return upscale(lat, lattice_px)


def render_answer_image(maze: Maze, plan: Plan, style: ImageStyle) -> tuple[np.ndarray, np.ndarray]:
    """The answer image and its cell ``[col, row, 1]`` -> pixel affine."""
    walls = plan.drawn_walls if plan.drawn_walls is not None else maze.connection_list
    mk = style.markers
    if style.board.look == "mmgr":
        image = _mmgr_solution(maze, plan, walls, style.board.lattice_px)
        cell_to_px = mmgr_affine(style.board.lattice_px)
    else:
        board = style.board.render(walls)
        image, cell_to_px = board.image.copy(), board.cell_to_px
        pts = np.array([board.to_px(c) for c in plan.path])
        width = min(style.path_width * board.pitch, 2 * mk.clearance(board.pitch, board.wall_px))
        sprites.polyline(image, pts, PATH_BLUE, max(2.0, width))
        mk.draw_goal(image, board.to_px(goal_cell(maze, plan)), board.pitch)
        mk.draw_start(image, board.to_px(start_cell(maze, plan)), board.pitch, board.wall_px)
    box: Letterbox = letterbox(image.shape, style.out_size, fill=style.fill, place=style.place, bar=style.bar)
    out = blur(box.apply(image), style.blur_sigma)
    if style.jpeg_quality is not None:
        out = jpeg(out, style.jpeg_quality)
    return out, compose(box.affine(image.shape), cell_to_px)


def reference_image(maze: Maze, target_px: int = 512) -> np.ndarray:
    """MMGR's solution image: ``as_pixels()`` of the SolvedMaze, upscaled (nearest)."""
    lat = np.asarray(maze.solved_maze().as_pixels(), dtype=np.uint8)
    return upscale(lat, max(1, target_px // max(lat.shape[:2])))
