"""Answer videos: a static board per wall state, markers composited per frame with OpenCV."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterator

import numpy as np

from . import sprites
from .effects import Camera, Letterbox, blend, blur, compose, letterbox, scale_of, warp
from .looks import Board, mazeplot_board, mmgr_board, upscale, vmeval_board
from .markers import PLOT_GREEN, MarkerStyle
from .mazes import Cell, Maze
from .motion import Timeline
from .plans import Plan
from .sprites import Colour


@dataclass(frozen=True)
class BoardSpec:
    """How to render a look's board: ``lattice_px`` (mmgr), ``size_px``/``unit_length``/``title``
    (mazeplot) or ``maze_px``/``unit_length`` (vmeval)."""

    look: str
    lattice_px: int = 16
    size_px: tuple[int, int] = (832, 480)
    maze_px: int = 480
    unit_length: int = 14
    title: str = ""

    def render(self, connection_list: np.ndarray) -> Board:
        if self.look == "mmgr":
            return mmgr_board(connection_list, lattice_px=self.lattice_px)
        if self.look == "mazeplot":
            return mazeplot_board(connection_list, size_px=self.size_px, unit_length=self.unit_length,
                                  title=self.title)
        if self.look == "vmeval":
            return vmeval_board(connection_list, maze_px=self.maze_px, unit_length=self.unit_length)
        raise ValueError(f"unknown look {self.look!r}")


@dataclass(frozen=True)
class VideoStyle:
    """Everything about how one answer video looks, beyond the maze and the motion."""

    board: BoardSpec
    markers: MarkerStyle
    frame_size: tuple[int, int] = (832, 480)
    fill: float = 0.95
    place: tuple[float, float] = (0.5, 0.5)
    bar: Colour = (255, 255, 255)
    camera: Camera = field(default_factory=Camera)
    blur_sigma: float = 0.0
    fps: float = 16.0
    crf: int = 28
    recolour: float = 0.0
    trail: bool = False
    start_left: bool = False
    distractor: tuple[float, float] | None = None  # a small green blob on this wall junction (cell coords)
    distractor_px: float = 2.5
    icon: str | None = None
    icon_frames: int = 0
    caption: str | None = None  # "top" | "bottom"
    caption_gap: int = 0
    caption_step: int = 1
    wall_change: tuple[int, int] | None = None  # frames [start, end) drawing plan.drawn_walls
    goal_change: int | None = None  # first frame drawing the goal marker on plan.goal_after


def puzzle_image(maze: Maze, board: BoardSpec, markers: MarkerStyle) -> np.ndarray:
    """The unsolved puzzle in the look, at its own size (what the model was given)."""
    if board.look == "mmgr":
        return upscale(np.asarray(maze.targeted_maze().as_pixels(), dtype=np.uint8), board.lattice_px)
    b = board.render(maze.connection_list)
    image = b.image.copy()
    markers.draw_goal(image, b.to_px(maze.goal), b.pitch)
    markers.draw_start(image, b.to_px(maze.start), b.pitch, b.wall_px)
    return image


@dataclass(frozen=True, eq=False)
class Schedule:
    """What each frame shows besides the agent: wall state, goal marker, arrival icon."""

    maze: Maze
    plan: Plan
    style: VideoStyle
    n_frames: int

    def walls_changed_at(self, frame: int) -> bool:
        wc = self.style.wall_change
        return self.plan.drawn_walls is not None and wc is not None and wc[0] <= frame < wc[1]

    def icon_at(self, frame: int) -> bool:
        return self.style.icon is not None and frame >= self.n_frames - self.style.icon_frames

    def goal_cell_at(self, frame: int) -> Cell | None:
        """Where the goal marker is drawn (None while the arrival icon replaces it)."""
        if self.icon_at(frame):
            return None
        gc = self.style.goal_change
        if gc is not None and self.plan.goal_after is not None and frame >= gc:
            return self.plan.goal_after
        return self.maze.goal


class VideoComposer:
    """Renders the frames of one answer video and the cell -> pixel geometry of each frame."""

    def __init__(self, maze: Maze, plan: Plan, timeline: Timeline, style: VideoStyle) -> None:
        self.maze, self.plan, self.timeline, self.style = maze, plan, timeline, style
        self.schedule = Schedule(maze, plan, style, timeline.n_frames)
        self.boards: dict[bool, Board] = {False: style.board.render(maze.connection_list)}
        if any(self.schedule.walls_changed_at(f) for f in range(timeline.n_frames)):
            assert plan.drawn_walls is not None  # walls change only where the plan draws other walls
            self.boards[True] = style.board.render(plan.drawn_walls)
        base = self.boards[False]
        caption_band = self._caption_band()
        self.layout: Letterbox = letterbox(
            base.image.shape, style.frame_size, fill=style.fill, place=style.place, bar=style.bar,
            reserve_top=caption_band if style.caption == "top" else 0,
            reserve_bottom=caption_band if style.caption == "bottom" else 0,
        )
        self.canvases = {k: self.layout.apply(b.image) for k, b in self.boards.items()}
        self._board_to_canvas = self.layout.affine(base.image.shape)
        self._caption_masks: dict[int, np.ndarray] = {}
        self._borders: tuple[int, int] | None = None

    # geometry ---------------------------------------------------------------------------------
    def _caption_band(self) -> int:
        return int(round(self._caption_height() + 10)) if self.style.caption else 0

    def _caption_height(self) -> float:
        return float(np.clip(0.045 * self.style.frame_size[1], 14, 30))

    def camera(self, frame: int) -> np.ndarray:
        return self.style.camera.affine(frame, self.timeline.n_frames, self.style.frame_size)

    def cell_affine(self, frame: int) -> np.ndarray:
        """Maze-cell ``[col, row, 1]`` -> frame pixel ``[x, y]`` at ``frame``."""
        to_canvas = compose(self._board_to_canvas, self.boards[False].cell_to_px)
        return compose(self.camera(frame), to_canvas)

    # drawing ----------------------------------------------------------------------------------
    def frame(self, f: int, *, agent: bool = True) -> np.ndarray:
        """Frame ``f`` (``agent=False`` leaves the agent out, for tests of its footprint)."""
        st, tl = self.style, self.timeline
        changed = self.schedule.walls_changed_at(f)
        canvas = self.canvases[changed]
        cam = self.camera(f)
        image = canvas.copy() if st.camera.still else warp(canvas, cam, st.frame_size, st.bar)
        aff = self.cell_affine(f)
        s = scale_of(aff)
        board = self.boards[changed]
        pitch = s  # the cell affine's scale is the pitch in frame pixels
        wall = board.wall_px / board.pitch * s
        mk = st.markers

        def px(rc: tuple[float, float]) -> tuple[float, float]:
            x, y = aff @ np.array([rc[1], rc[0], 1.0])
            return float(x), float(y)

        colour = mk.agent_colour(f, tl.n_frames, st.recolour)
        if st.trail:  # the agent's own track so far, lighter, inside the corridors
            rc = tl.positions[: f + 1][tl.visible[: f + 1]]
            if len(rc) >= 2:
                pts = np.c_[rc[:, 1], rc[:, 0], np.ones(len(rc))] @ aff.T
                sprites.polyline(image, pts, blend(colour, (255, 255, 255), 0.5), mk.trail_px(pitch, wall))
        if st.start_left or st.board.look == "mazeplot":
            mk.draw_start(image, px(self.maze.start), pitch, wall)
        goal = self.schedule.goal_cell_at(f)
        if goal is not None:
            mk.draw_goal(image, px(goal), pitch)
        if st.distractor is not None:
            sprites.disc(image, px(st.distractor), st.distractor_px, blend(PLOT_GREEN, colour, 0.6))
        if agent and tl.visible[f]:
            mk.draw_agent(image, px(tuple(tl.positions[f])), pitch, wall, colour)
        if self.schedule.icon_at(f):
            mk.draw_icon(image, px(self.maze.goal), pitch, st.icon or "")
        if st.caption:
            self._draw_caption(image, f, aff)
        return blur(image, st.blur_sigma)

    def _border_rows(self) -> tuple[int, int]:
        """First and last rows of the drawn outer border (pixels more than half dark) on the canvas."""
        rows, cols = self.maze.grid
        aff = compose(self._board_to_canvas, self.boards[False].cell_to_px)
        x0 = int((aff @ np.array([-0.5, -0.5, 1.0]))[0]) + 3
        x1 = int((aff @ np.array([cols - 0.5, rows - 0.5, 1.0]))[0]) - 3
        dark = np.flatnonzero((self.canvases[False][:, x0:x1].max(axis=2) < 128).any(axis=1))
        return int(dark.min()), int(dark.max())

    def _draw_caption(self, image: np.ndarray, f: int, aff: np.ndarray) -> None:
        """"Frame N" centred over (or under) the maze, its ink ``caption_gap`` px off the border."""
        st = self.style
        number = f * st.caption_step + (1 if st.caption_step == 1 else 0)
        mask = self._caption_masks.get(number)
        if mask is None:
            mask = self._caption_masks[number] = sprites.text_mask(f"Frame {number}", self._caption_height())
        if self._borders is None:
            self._borders = self._border_rows()
        rows, cols = self.maze.grid
        x_left = (aff @ np.array([-0.5, -0.5, 1.0]))[0]
        x_right = (aff @ np.array([cols - 0.5, rows - 0.5, 1.0]))[0]
        h, w = mask.shape
        x = int(round((x_left + x_right) / 2 - w / 2))
        first, last = self._borders
        y = first - st.caption_gap - h if st.caption == "top" else last + 1 + st.caption_gap
        sprites.paste_ink(image, mask, (x, y), (0, 0, 0))

    def frames(self) -> Iterator[np.ndarray]:
        for f in range(self.timeline.n_frames):
            yield self.frame(f)

    def geometry(self) -> list[list[list[float]]]:
        """Per-frame cell -> pixel affines (rounded), for the labels."""
        return [np.round(self.cell_affine(f), 4).tolist() for f in range(self.timeline.n_frames)]
