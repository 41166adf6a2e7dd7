"""How a synthetic maze video is drawn (:class:`VideoLook`) and what it shows frame by frame
(:class:`VideoPlan`): shared by the planner (:mod:`.maze_video`) and the renderer
(:mod:`.maze_video_render`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..maze.lattice import Cell

RGB = tuple[int, int, int]
SIZES = ((480, 640), (480, 854), (540, 960), (600, 800), (720, 1280))
MMGR_AGENTS: tuple[RGB, ...] = ((0, 255, 0), (40, 200, 60), (0, 190, 110), (120, 225, 30))
PLOT_AGENTS: tuple[RGB, ...] = ((30, 60, 230), (0, 110, 255), (70, 40, 220))


@dataclass(frozen=True)
class VideoLook:
    """How a video is drawn, encoded and degraded."""

    style: str = "mmgr"                 #: "mmgr" (lattice) or "mazeplot" (thin lines, icons)
    size: tuple[int, int] = (480, 640)  #: (height, width), even
    fps: int = 24
    crf: int = 23                       #: x264 quality (higher = more compressed)
    blur_sigma: float = 0.0             #: Gaussian blur, output pixels
    jitter_px: int = 0                  #: whole-frame random shift per frame
    agent_rgb: RGB = (0, 255, 0)
    agent_drift: float = 0.0            #: agent hue change over the video (OpenCV hue units)
    agent_scale: float = 0.9            #: agent size relative to a corridor
    goal_on_top: bool = False           #: the goal is drawn over the agent (occlusion)
    goal_scale: float = 1.0
    line_px: int = 1                    #: mazeplot wall thickness
    maze_fraction: float = 0.9          #: maze side / min(height, width)
    background: int = 255
    trail: float = 0.0                  #: the agent draws a trail this wide (fraction of its size; 0 = none)
    leave_start: bool = False           #: a copy of the agent stays on the start cell
    smooth: int = 0                     #: moving-average window (frames) rounding corners of the motion
    zoom: float = 0.0                   #: camera zoom drift over the video (0.04 = 4 % larger at the end)


@dataclass
class VideoPlan:
    """Per-frame ground truth of a synthetic video."""

    positions: np.ndarray               #: (T, 2) agent centre in lattice coordinates, NaN = hidden
    walk: list[Cell]                    #: lattice cells the agent passed (wall cells when crossing)
    walls: list[np.ndarray]             #: wall lattices used
    wall_state: np.ndarray              #: (T,) index into ``walls``
    fade: np.ndarray                    #: (T,) wall grey level (0 = black)
    goal: list[Cell]                    #: (T) goal lattice cell per frame
    distractor: list[Cell | None]       #: (T) distractor lattice cell or None
    teleports: int = 0
    stops_on_goal: bool = True
