"""Analyse a generated maze-solving video against its maze (pure array code).

Pipeline: frames (any iterable of RGB arrays; :mod:`.task` streams files) -> per frame,
a rectified canvas with the wall IoU, agent and goal blobs (:mod:`.video_frames`) -> the
agent's track (:mod:`.track`) -> wall traversals/contacts, accumulated path, goal
settling (:mod:`.video_metrics`). :mod:`.verdict` turns the analysis into MMGR's gated
verdict for videos.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..config import MazeConfig
from ..schema import Unparseable
from .lattice import Cell, MazeSpec
from .metrics import PathMatch, path_loops, path_match, upscale_cells
from .style import StyleProfile, get_style
from .track import Track, build_track
from .video_frames import FrameAnalyser, FrameObs
from .video_metrics import (
    NEAR_GOAL,
    CrossingReport,
    Settling,
    WallGeometry,
    analyse_crossings,
    cell_path,
    goal_settling,
)

LOCATE_WITHIN = 30   #: give up (unparseable) when no maze is found in this many first frames
GOAL_COVERED = 0.08  #: goal checks pause while agent-coloured pixels cover this much of the goal cell

#: ``on_canvas(frame_index, canvas)``: called with each analysed frame's canvas (overlays keep some)
CanvasSink = Callable[[int, np.ndarray], None]


@dataclass
class MazeVideoAnalysis:
    """Everything a video verdict is computed from (kept for overlays and debugging)."""

    spec: MazeSpec
    style: StyleProfile
    k: int
    offset: float
    ious: np.ndarray                 #: (T,) wall IoU per analysed frame (0 where no maze was found)
    goal_pos: np.ndarray             #: (T, 2) goal blob centre, NaN when absent
    goal_area: np.ndarray            #: (T,)
    track: Track
    crossing: CrossingReport
    cells: list[Cell]                #: lattice cells visited, in order
    path: PathMatch
    loops: list[tuple[float, float, float]]
    settling: Settling
    goal_bad: list[int]              #: frames where the goal was missing, moved or changed
    start_offset: float | None       #: maze cells
    box: tuple[int, int, int, int] | None
    relocations: int
    read: dict[str, Any] = field(default_factory=dict)  #: how the frames were read (set by the file reader)

    @property
    def frames(self) -> int:
        return len(self.ious)


def analyse_video(frames: Iterable[np.ndarray], spec: MazeSpec, *, config: MazeConfig,
                  style: str | StyleProfile | None = None,
                  on_canvas: CanvasSink | None = None) -> MazeVideoAnalysis | Unparseable:
    """Analyse an answer video given as RGB frames (consumed once, in order).

    Parameters
    ----------
    frames : iterable of ndarray (H, W, 3) uint8
        The answer's frames (e.g. a :class:`~cvcheck.media.video.FrameReader`).
    spec : MazeSpec
    config : MazeConfig
    style : str or StyleProfile, optional
        ``mmgr`` (default: ``config.video_style``) or ``mazeplot``.
    on_canvas : callable, optional
        Receives ``(frame index, canvas)`` for every analysed frame (for overlays).

    Returns
    -------
    MazeVideoAnalysis, or Unparseable when no maze is found in the first frames.
    """
    prof = get_style(style or config.video_style)
    analyser = FrameAnalyser(spec, prof, config)
    obs: list[FrameObs] = []
    for i, frame in enumerate(frames):
        if analyser.box is None:
            if i >= LOCATE_WITHIN:
                break
            if not analyser.locate(frame):
                obs.append(FrameObs(index=i, iou=0.0, agents=(), goal=None, located=False))
                continue
        ob, canvas = analyser.analyse(frame, i)
        obs.append(ob)
        if on_canvas is not None:
            on_canvas(i, canvas)
    if analyser.box is None:
        return Unparseable(f"no {prof.walls} maze found in the first {min(len(obs), LOCATE_WITHIN)} frame(s)")
    return _analyse_observations(obs, spec, prof, config, analyser)


def _analyse_observations(obs: list[FrameObs], spec: MazeSpec, prof: StyleProfile, cfg: MazeConfig,
                          analyser: FrameAnalyser) -> MazeVideoAnalysis:
    n = len(obs)
    ious = np.array([o.iou for o in obs])
    goal_pos = np.full((n, 2), np.nan)
    goal_area = np.zeros(n)
    covered = np.array([o.goal_covered for o in obs])
    for t, o in enumerate(obs):
        if o.goal is not None:
            goal_pos[t] = (o.goal.row, o.goal.col)
            goal_area[t] = o.goal.area
    start = (spec.start[0] + 0.5, spec.start[1] + 0.5) if prof.agent_is_start else None
    track = build_track([o.agents for o in obs], start=start, max_gap=cfg.video_max_gap_frames)
    geo = WallGeometry(spec, erosion=cfg.video_wall_erosion)
    crossing = analyse_crossings(track, geo, contact_overlap=cfg.video_contact_overlap)
    cells = cell_path(track, geo, crossing)
    k = analyser.k
    mask = np.zeros(spec.walls.shape, bool)
    for p in cells:
        mask[p] = True
    path_px = upscale_cells(mask, k)
    path, _ = path_match(path_px, spec, k, cfg)
    loops = path_loops(path_px, k, min_area=cfg.loop_min_area)
    settling = goal_settling(track, spec.goal, settle_frames=cfg.video_settle_frames)
    goal_bad = _goal_bad_frames(goal_pos, goal_area, covered, track, spec, prof, settling, cfg)
    tracked = track.tracked
    start_offset = None
    if len(tracked):
        first = track.pos[tracked[0]]
        start_offset = float(np.hypot(*(first - (np.array(spec.start) + 0.5)))) / 2
    return MazeVideoAnalysis(spec=spec, style=prof, k=k, offset=analyser.offset, ious=ious, goal_pos=goal_pos,
                             goal_area=goal_area, track=track, crossing=crossing, cells=cells, path=path,
                             loops=loops, settling=settling, goal_bad=goal_bad, start_offset=start_offset,
                             box=analyser.box, relocations=analyser.relocations)


def _goal_bad_frames(goal_pos: np.ndarray, goal_area: np.ndarray, covered: np.ndarray, track: Track,
                     spec: MazeSpec, prof: StyleProfile, settling: Settling, cfg: MazeConfig) -> list[int]:
    """Frames where the goal is missing, displaced (> marker_tolerance cells) or resized
    (< 1/2 or > 2x its usual area) while neither the agent nor anything of its colour (a
    trail, a left-behind marker) is on or next to it."""
    centre = np.array(spec.goal, float) + 0.5
    n = len(goal_pos)
    visible = goal_area > 0
    offset = np.hypot(*(goal_pos - centre).T) / 2
    # The goal's own size: as first seen (in place, uncovered), before anything could change it.
    normal = goal_area[visible & (offset <= cfg.marker_tolerance) & (covered <= GOAL_COVERED)][:10]
    usual = float(np.median(normal)) if normal.size else 0.0
    last = np.full(2, np.nan)
    bad = []
    for t in range(n):
        if not np.isnan(track.pos[t, 0]):
            last = track.pos[t]
        near = not np.isnan(last[0]) and np.abs(last - centre).max() <= NEAR_GOAL
        arrived = settling.first_arrival is not None and t >= settling.first_arrival
        if near or covered[t] > GOAL_COVERED or (prof.goal_changes_on_arrival and arrived):
            continue
        missing = not visible[t] or offset[t] > cfg.marker_tolerance
        resized = bool(usual) and not (0.5 * usual <= goal_area[t] <= 2.0 * usual)
        if missing or resized:
            bad.append(t)
    return bad


__all__ = ["LOCATE_WITHIN", "MazeVideoAnalysis", "analyse_video"]
