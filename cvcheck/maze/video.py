"""The maze video verifier: answer video + reference -> MMGR pixel verdict (C.5.3, video extension).

Pipeline: stream frames (:mod:`cvcheck.media.video`) -> per frame, a rectified
canvas with the wall IoU, agent and goal blobs (:mod:`.video_frames`) -> the agent's
track (:mod:`.track`) -> wall traversals/contacts, accumulated path, goal settling
(:mod:`.video_metrics`) -> the gated overall, exactly as MMGR specifies for video:

``overall = 1`` iff min-over-frames layout IoU > 0.8 (and the goal stays put, the
agent starts on the start cell) ∧ no wall crossing (no traversal, contact ratio
<= 5 %) ∧ target achievement (> 0.95 of the solution covered, connected, and the
agent ends *and stays* on the goal over the last ``video_settle_frames`` frames) ∧
no excessive reflection (no loop, path <= 1.3x the solution). ``action_reflection``
(backtracking in the cell sequence) is reported but does not gate.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from ..config import Config, MazeConfig
from ..errors import InputError
from ..media.image import as_rgb
from ..media.video import FrameReader, iter_frames, prefetched
from ..schema import Gate, Result, Status
from .lattice import MazeSpec, describe_lattice_cell, lattice_to_cell
from .metrics import PathMatch, path_loops, path_match, upscale_cells
from .style import StyleProfile, get_style
from .track import Track, build_track
from .verify import PIPELINE, TASK, as_spec, unparseable_result
from .video_frames import FrameAnalyser, FrameObs
from .video_metrics import (
    NEAR_GOAL,
    ON_GOAL,
    CrossingReport,
    Settling,
    WallGeometry,
    analyse_crossings,
    backtracks,
    cell_path,
    goal_settling,
)

LOCATE_WITHIN = 30   #: give up (unparseable) when no maze is found in this many first frames
MAX_LISTED = 60      #: per-frame evidence entries listed in details
GOAL_COVERED = 0.08  #: goal checks pause while agent-coloured pixels cover this much of the goal cell


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
    cells: list                      #: lattice cells visited, in order
    path: PathMatch
    loops: list
    settling: Settling
    goal_bad: list[int]              #: frames where the goal was missing, moved or changed
    start_offset: float | None       #: maze cells
    read: dict[str, Any]
    box: tuple[int, int, int, int] | None
    relocations: int
    canvases: list[bytes] = field(default_factory=list)  #: JPEG canvases (only when kept)

    @property
    def frames(self) -> int:
        return len(self.ious)


def _config(config: Config | MazeConfig | None) -> Config:
    if isinstance(config, Config):
        return config
    return Config(maze=config or MazeConfig())


def _reader(source: Any, cfg: Config) -> FrameReader:
    if isinstance(source, FrameReader):
        return source
    return iter_frames(source, stride=cfg.maze.video_stride, config=cfg.media)


def analyse_maze_video(source: Any, spec: MazeSpec, *, config: Config | MazeConfig | None = None,
                       style: str | StyleProfile | None = None,
                       keep_canvases: bool = False) -> MazeVideoAnalysis | str:
    """Stream a video and analyse it; a string explains why no maze could be read.

    Raises MediaError for unreadable sources (see :func:`cvcheck.media.video.iter_frames`).
    """
    full = _config(config)
    cfg = full.maze
    prof = get_style(style or cfg.video_style)
    reader = _reader(source, full)
    analyser = FrameAnalyser(spec, prof, cfg)
    obs: list[FrameObs] = []
    canvases: list[bytes] = []
    frames = prefetched(reader) if reader.info is not None else reader  # files: decode ahead
    # OpenCV's thread pool costs more than it saves on canvases this small (measured:
    # ~2x the CPU time); it is restored afterwards.
    cv_threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        for i, frame in enumerate(frames):
            if analyser.box is None:
                if i >= LOCATE_WITHIN:
                    break
                if not analyser.locate(frame):
                    obs.append(FrameObs(index=i, iou=0.0, agents=(), goal=None, located=False))
                    if keep_canvases:
                        canvases.append(b"")
                    continue
            ob, canvas = analyser.analyse(frame, i)
            obs.append(ob)
            if keep_canvases:
                canvases.append(cv2.imencode(".jpg", canvas[:, :, ::-1], [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes())
    finally:
        cv2.setNumThreads(cv_threads)
        if frames is not reader:
            frames.close()
        reader.close()
    if analyser.box is None:
        return (f"no {prof.walls} maze found in the first {min(len(obs), LOCATE_WITHIN)} frame(s)")
    read = {"frames_read": reader.frames_read, "frames_decoded": reader.frames_decoded,
            "truncated": reader.truncated, "error": reader.error,
            "stride": reader.stride, "fps": reader.info.fps if reader.info else None}
    return _analyse_observations(obs, spec, prof, cfg, analyser, read, canvases)


def _analyse_observations(obs: list[FrameObs], spec: MazeSpec, prof: StyleProfile, cfg: MazeConfig,
                          analyser: FrameAnalyser, read: dict, canvases: list[bytes]) -> MazeVideoAnalysis:
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
                             read=read, box=analyser.box, relocations=analyser.relocations, canvases=canvases)


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


# -- verdict ---------------------------------------------------------------------------------

def gate_checks(a: MazeVideoAnalysis, cfg: MazeConfig) -> dict[str, bool]:
    layout = bool(a.ious.min() > cfg.layout_iou_min) and len(a.goal_bad) < 2 and (
        not a.style.agent_is_start or (a.start_offset is not None and a.start_offset <= cfg.marker_tolerance))
    reflection = bool(a.loops) or a.path.length_ratio > cfg.reflection_length_ratio
    return {
        "layout_match": layout,
        "no_cross_wall": not a.crossing.crossed(cfg.video_cross_wall_ratio),
        "target_achievement": (a.path.target_achievement > cfg.target_achievement_min and a.path.connected
                               and a.settling.stopped),
        "no_excessive_reflection": not reflection,
    }


def _traversal_details(a: MazeVideoAnalysis) -> list[dict]:
    out = []
    for t in a.crossing.traversals:
        out.append({"kind": t.kind, "from_frame": t.from_frame, "to_frame": t.to_frame,
                    "from_cell": list(lattice_to_cell(t.from_cell)), "to_cell": list(lattice_to_cell(t.to_cell)),
                    "walls": [describe_lattice_cell(w) | {"lattice": list(w)} for w in t.walls],
                    "corridor_route": t.route, "allowed_route": t.allowed})
    return out


def _notes(a: MazeVideoAnalysis, checks: dict[str, bool], cfg: MazeConfig) -> list[str]:
    notes = []
    if a.read.get("truncated"):
        notes.append(f"video truncated/corrupt: analysed {a.frames} frame(s) ({a.read.get('error')})")
    if not checks["layout_match"]:
        worst = int(np.argmin(a.ious))
        notes.append(f"layout: min wall IoU {a.ious.min():.3f} at frame {worst} (needs > {cfg.layout_iou_min})")
        if len(a.goal_bad) >= 2:
            notes.append(f"goal missing, moved or changed in {len(a.goal_bad)} frame(s), first at frame {a.goal_bad[0]}")
        if a.style.agent_is_start and (a.start_offset is None or a.start_offset > cfg.marker_tolerance):
            notes.append("agent not found" if a.start_offset is None
                         else f"agent starts {a.start_offset:.2f} cells from the start cell")
    for t in a.crossing.traversals[:5]:
        walls = ", ".join(str(describe_lattice_cell(w).get("between") or list(w)) for w in t.walls[:3])
        notes.append(f"{t.kind} across wall {walls} between frames {t.from_frame} and {t.to_frame}")
    if a.crossing.ratio > cfg.video_cross_wall_ratio:
        notes.append(f"agent touches walls in {a.crossing.ratio:.1%} of tracked frames "
                     f"(limit {cfg.video_cross_wall_ratio:.0%})")
    if not checks["target_achievement"]:
        s = a.settling
        why = ("never reaches the goal" if not s.reached else
               "reaches the goal but does not stay on it" if not s.stopped else "")
        notes.append(f"target achievement {a.path.target_achievement:.3f} (needs > {cfg.target_achievement_min})"
                     + ("" if a.path.connected else ", path does not connect start and goal")
                     + (f", agent {why}" if why else ""))
    if not checks["no_excessive_reflection"]:
        notes.append(f"reflection: {len(a.loops)} loop(s), length {a.path.length_ratio:.2f}x the solution "
                     f"(limit {cfg.reflection_length_ratio}x)")
    return notes


def result_from_video(a: MazeVideoAnalysis, *, id: str, cfg: MazeConfig, config_hash: str) -> Result:
    checks = gate_checks(a, cfg)
    gate = Gate.from_checks(checks)
    tr, cr = a.track, a.crossing
    tracked = tr.tracked
    solution = a.spec.solution_body
    n_back = backtracks(a.cells)
    goal_off = np.hypot(*(a.goal_pos - (np.array(a.spec.goal) + 0.5)).T) / 2
    metrics = {
        "maze_changed": int(not checks["layout_match"]),
        "cross_wall": int(not checks["no_cross_wall"]),
        "target_achievement": int(checks["target_achievement"]),
        "reflection": int(not checks["no_excessive_reflection"]),
        "action_reflection": int(n_back > 0),
        "layout_iou": round(float(a.ious.min()), 6),
        "layout_iou_min_frame": int(np.argmin(a.ious)),
        "layout_iou_mean": round(float(a.ious.mean()), 6),
        "start_offset": None if a.start_offset is None else round(a.start_offset, 4),
        "goal_offset": None if np.isnan(goal_off).all() else round(float(np.nanmax(goal_off)), 4),
        "goal_bad_frames": len(a.goal_bad),
        "cross_wall_ratio": round(cr.ratio, 6),
        "contact_frames": int(cr.contact.sum()),
        "wall_traversals": len(cr.traversals),
        "teleports": cr.teleports,
        "target_achievement_score": round(a.path.target_achievement, 6),
        "path_connected": a.path.connected,
        "reached_goal": a.settling.reached,
        "stopped_on_goal": a.settling.stopped,
        "path_iou": round(a.path.iou, 6),
        "path_precision": round(a.path.precision, 6),
        "path_recall": round(a.path.recall, 6),
        "path_length_ratio": round(a.path.length_ratio, 6),
        "loops": len(a.loops),
        "backtracks": n_back,
        "path_cells": len(a.path.cells),
        "solution_cells": len(solution),
        "frames": a.frames,
        "frames_tracked": len(tracked),
        "track_gaps": max(0, len(tr.pieces) - 1),
        "track_far_jumps": tr.far_jumps,
        "track_lost": tr.lost,
        "markers_left": tr.markers_left,
        "agent_speed": round(cr.speed, 4),
        "truncated": int(bool(a.read.get("truncated"))),
    }
    contact_list = [{"frame": int(t), "row": round(float(tr.pos[t, 0]), 2), "col": round(float(tr.pos[t, 1]), 2),
                     "overlap": round(float(np.nan_to_num(tr.overlap[t])), 3),
                     "centre_in_wall": bool(cr.centre_in_core[t])} for t in np.flatnonzero(cr.contact)]
    details = {
        "maze": a.spec.to_dict(),
        "style": a.style.name,
        "read": a.read,
        "trajectory": {"frames": [int(t) for t in tracked],
                       "pos": [[round(float(r), 2), round(float(c), 2)] for r, c in tr.pos[tracked]]},
        "layout_iou_per_frame": [round(float(v), 3) for v in a.ious],
        "crossings": _traversal_details(a),
        "contact_frames": contact_list[:MAX_LISTED],
        "goal_bad_frames": a.goal_bad[:MAX_LISTED],
        "path_cells": [list(p) for p in a.cells],
        "path_maze_cells": [list(lattice_to_cell(p)) for i, p in enumerate(a.cells)
                            if p[0] % 2 and p[1] % 2 and (i == 0 or a.cells[i - 1] != p)],
        "missed_cells": [list(p) for p in sorted(solution - a.path.cells)],
        "extra_cells": [list(p) for p in sorted(a.path.cells - solution)],
        "goal": {"first_arrival": a.settling.first_arrival, "final_occluded": a.settling.final_occluded},
        "alignment": {"box": list(a.box) if a.box else None, "relocations": a.relocations,
                      "canvas_cell_px": a.k, "track_pieces": [list(p) for p in tr.pieces]},
        "notes": _notes(a, checks, cfg),
    }
    return Result(id=id, task=TASK, pipeline=PIPELINE, modality="video", status=Status.OK,
                  overall=float(gate.passed), metrics=metrics, gate=gate, details=details,
                  config_hash=config_hash)


def verify_maze_video(source: str | os.PathLike | Iterable[np.ndarray], reference: np.ndarray | MazeSpec, *,
                      config: Config | MazeConfig | None = None, id: str = "",
                      overlay_path: str | os.PathLike | None = None,
                      style: str | StyleProfile | None = None) -> Result:
    """Grade a generated maze video with MMGR's deterministic pixel pipeline (video extension).

    Parameters
    ----------
    source : path or iterable of ndarray (H, W, 3)
        The answer video (streamed; memory does not grow with its length) or frames.
    reference : ndarray or MazeSpec
        The reference solution image (MMGR palette) or a parsed spec; the grid size
        comes from it (detected from the image, or given through the spec).
    config : Config or MazeConfig, optional
        Thresholds (MMGR defaults); ``maze.video_*`` for the video-specific ones.
    overlay_path : path, optional
        Write the tracked trajectory over the maze (crossings marked) there, and a
        contact sheet of key frames next to it (``<stem>_frames<suffix>``).
    style : str or StyleProfile, optional
        ``mmgr`` (default, or ``maze.video_style``) or ``mazeplot``.

    Returns
    -------
    Result
        ``ok`` with the gated overall; ``unparseable`` when no maze is found.
        Unreadable videos raise :class:`~cvcheck.errors.MediaError`; bad arguments
        :class:`~cvcheck.errors.InputError`.
    """
    full = _config(config)
    chash = full.section_hash("maze")
    spec = reference if isinstance(reference, MazeSpec) else as_spec(as_rgb(reference, name="reference"))
    if not isinstance(spec, MazeSpec):
        raise InputError("reference must be an image or a MazeSpec")
    analysis = analyse_maze_video(source, spec, config=full, style=style, keep_canvases=overlay_path is not None)
    if isinstance(analysis, str):
        return unparseable_result(analysis, id=id, config_hash=chash, modality="video")
    result = result_from_video(analysis, id=id, cfg=full.maze, config_hash=chash)
    if overlay_path is not None:
        from ..media.write import save_image
        from .video_render import contact_sheet, render_video_overlay

        out = Path(overlay_path)
        save_image(out, render_video_overlay(analysis, result))
        save_image(out.with_name(f"{out.stem}_frames{out.suffix or '.png'}"), contact_sheet(analysis, result))
    return result


__all__ = ["ON_GOAL", "MazeVideoAnalysis", "analyse_maze_video", "result_from_video", "verify_maze_video"]
