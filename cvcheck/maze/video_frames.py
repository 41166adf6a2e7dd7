"""Per-frame analysis of a maze video on a small rectified canvas.

Every frame is cropped to the maze (located once, re-located only when the layout
suddenly stops matching: :mod:`.video_place`) and resampled to ``k`` pixels per lattice
cell; all work after that is on the canvas (a few hundred pixels a side), so the cost of
a frame does not grow with its size. :class:`FrameAnalyser` reads each canvas's wall
layout IoU (:mod:`.video_layout`), the agent's objects (:mod:`.video_agent`) and the
goal's, and hands them on as a :class:`~.video_obs.FrameObs`.

Positions are *lattice coordinates*: lattice cell ``(i, j)`` spans ``[i, i+1) x
[j, j+1)``, so maze cell ``(r, c)`` has its centre at ``(2r+1.5, 2c+1.5)``. For the
thin-line style the maze box spans ``rows x cols`` cells whose boundary lines sit
at the centres of the wall lattice cells (``L = 2u + 0.5`` with ``u`` in cells), so
both styles share the lattice geometry of :class:`~cvcheck.maze.lattice.MazeSpec`.
"""

from __future__ import annotations

import cv2
import numpy as np

from ..config import MazeConfig
from ..vision.canvas import Runs
from ..vision.masks import rect_within
from ..vision.runs import lines_set
from ..vision.yuv import Frame
from .lattice import MazeSpec
from .metrics import _disk
from .read import MazeLook
from .style import StyleProfile, hue_mask
from .video_agent import AgentReader
from .video_canvas import CanvasGeometry
from .video_layout import WallLayout
from .video_objects import hue_objects, objects_of
from .video_obs import Blob, FrameObs
from .video_place import MazePlacement

GOAL_FAINT = 0.6      #: a goal found nowhere is still in place where its cell holds an object of its hue
                      #: at this share of the colour floor (paled by compression or grain, not gone)


class FrameAnalyser:
    """Turns frames into :class:`FrameObs` for one reference maze and style: each frame's
    canvas, its wall layout IoU, the agent's blobs (:class:`~.video_agent.AgentReader`, as
    :attr:`agent`) and the goal's.

    Parameters
    ----------
    spec : MazeSpec
    style : StyleProfile
    config : MazeConfig
        ``video_canvas_cell_px`` (canvas pixels per lattice cell), ``video_wall_erosion``.
    fps : float
        The frames' rate (the paper's colour is read every ``video_place.BALANCE_SECONDS`` of video).
    agent_seen : (frame, row, col), optional
        Where the agent was seen when its look was learned (see :class:`~.video_agent.AgentReader`).
    """

    def __init__(self, spec: MazeSpec, style: StyleProfile, config: MazeConfig, *,
                 look: MazeLook | None = None, k: int | None = None, fps: float = 24.0,
                 agent_seen: tuple[int, float, float] | None = None) -> None:
        self.spec, self.style, self.cfg = spec, style, config
        #: how the maze lies on the canvas (``k`` pixels a lattice cell, its margin)
        self.geometry = CanvasGeometry.of(spec, style, int(k or config.video_canvas_cell_px))
        k = self.k
        #: the wall layout IoU of each frame, and where the maze lies in the frames (its canvas)
        self.layout = WallLayout(spec, style, self.geometry)
        self.place = MazePlacement(config, self.layout, fps=fps,
                                   wall_cells=look.wall_thickness if look is not None else 0.0,
                                   box=look.box if look is not None else None)
        # kept across frames, brought up to date in the canvas rows that changed
        self._hsv: np.ndarray | None = None
        self._goal_mask: np.ndarray | None = None
        self._goals: list[Blob] | None = None
        self._goal_rows = np.zeros(0, bool)         # which rows of the goal mask have any
        core = None  # lattice: the reference's eroded wall cores (0/255), for the agent's overlap
        if not self.lines:
            e = max(1, int(round(config.video_wall_erosion * k)))
            core = cv2.erode(self.layout.ref_px.astype(np.uint8), _disk(e)) * np.uint8(255)
        #: the agent's objects in each frame, and what is kept of them from frame to frame
        self.agent = AgentReader(spec, style, self.geometry, core=core, fps=fps, agent_seen=agent_seen)
        self.goal_min_px = max(2.0, style.goal_min_area * k * k)
        goal_px = self.geometry.to_canvas(np.array(spec.goal, float) + 0.5)  # goal cell centre, canvas px
        self._goal_window = tuple(slice(max(0, int(c - 0.6 * k)), int(c + 0.6 * k) + 1) for c in goal_px)
        half = k if self.lines else k // 2 + 1  # the goal's own cell (see _faint_goal)
        self._goal_cell_at = tuple(slice(max(0, int(c) - half), int(c) + half + 1) for c in goal_px)

    @property
    def k(self) -> int:
        """Canvas pixels per lattice cell."""
        return self.geometry.k

    @property
    def lines(self) -> bool:
        """Whether the walls are thin lines (else lattice walls)."""
        return self.geometry.lines

    # -- per frame ---------------------------------------------------------------------------
    def analyse(self, frame: Frame, index: int) -> tuple[FrameObs, np.ndarray]:
        """What ``frame`` shows, and its canvas (owned by the analyser until the next frame).

        Work on the canvas follows the rows the sampler resampled anew: the colours, the
        layout and the goal of the rows that did not change are kept from the last frame."""
        canvas, runs = self.place.next_canvas(frame)
        hsv = self._hsv_rows(canvas, runs)
        iou = self.layout.iou(canvas, hsv, runs)
        if (moved := self.place.relocate_if_due(frame, index, iou)) is not None:
            iou, canvas, hsv = moved
            runs = [(0, canvas.shape[0])]
        agent, agents = self.agent.read(index, hsv, runs)
        goals = self._goal_blobs(hsv, runs)
        best_goal = max(goals, key=lambda b: b.area) if goals else self._faint_goal(hsv)
        faint = best_goal is not None and not goals
        covered = float(np.count_nonzero(agent[self._goal_window])) / max(1, agent[self._goal_window].size)
        return FrameObs(index=index, iou=iou, agents=tuple(agents), goal=best_goal, goal_covered=covered,
                        goal_faint=faint), canvas

    def _hsv_rows(self, canvas: np.ndarray, runs: Runs) -> np.ndarray:
        """The canvas in HSV, converted again in ``runs`` only (a buffer kept across frames)."""
        if self._hsv is None or self._hsv.shape != canvas.shape:
            self._hsv = np.empty_like(canvas)
            runs = [(0, canvas.shape[0])]
        for r0, r1 in runs:
            self._hsv[r0:r1] = cv2.cvtColor(canvas[r0:r1], cv2.COLOR_RGB2HSV)
        return self._hsv

    def _goal_blobs(self, hsv: np.ndarray, runs: Runs) -> list[Blob]:
        """Goal-coloured objects; the last frame's when the goal-coloured pixels did not change
        (most frames: the agent moves elsewhere)."""
        st = self.style
        if self._goal_mask is None or self._goal_mask.shape != hsv.shape[:2]:
            self._goal_mask, self._goal_rows = np.zeros(hsv.shape[:2], np.uint8), np.zeros(hsv.shape[0], bool)
            runs, self._goals = [(0, hsv.shape[0])], None
        changed = self._goals is None
        for r0, r1 in runs:
            rows = hue_mask(hsv[r0:r1], st.goal_hue, min_saturation=st.min_saturation, min_value=st.min_value)
            if changed or not np.array_equal(rows, self._goal_mask[r0:r1]):
                changed = True
                self._goal_mask[r0:r1] = rows
                self._goal_rows[r0:r1] = lines_set(rows, 1)
        if changed:  # (the objects are those of the mask alone: an unchanged mask has the same)
            self._goals = objects_of(self._goal_mask, rect_within(self._goal_mask, self._goal_rows),
                                     self.goal_min_px, self.geometry)
        assert self._goals is not None
        return self._goals

    def _faint_goal(self, hsv: np.ndarray) -> Blob | None:
        """The goal paled in place, for a frame with no goal-coloured object: the largest object
        of the goal's hue in its cell at GOAL_FAINT of the colour floor, at least the goal's
        minimum area (a thin red flag resampled onto the canvas and re-encoded at a low bit rate,
        its colour flickering around the floor: mazeworld 73737 v00031 shaken, flickered and
        crushed read "goal missing" in 10 frames), or None."""
        st, (rows, cols) = self.style, self._goal_cell_at  # (its cell: 2k wide on a lines canvas, k on a lattice one)
        found, _ = hue_objects(hsv[rows, cols], (rows.start, cols.start), st.goal_hue,
                               int(GOAL_FAINT * st.min_saturation), min_value=st.min_value, geometry=self.geometry)
        if not found:
            return None
        px, largest = max(found, key=lambda f: f[0])
        return largest if px >= self.goal_min_px else None
