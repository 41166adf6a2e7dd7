"""From a maze analysis (image or video) to the MMGR verdict: gate, metrics, evidence, notes.

One gate for both modalities (MMGR C.5.3): ``layout_match`` (wall IoU > 0.8, markers in
place; videos: the minimum over frames, the goal staying put, the agent starting on the
start cell) ∧ ``no_cross_wall`` ∧ ``target_achievement`` (> 0.95 of the solution covered,
connected; videos: also reach *and stop* on the goal) ∧ ``no_excessive_reflection`` (no
loop, path <= 1.3x the solution).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np

from ..config import MazeConfig
from ..schema import Gate, Result, Status, unparseable_result
from ..vision.dither import UNDITHERED_NOTE
from .image import MazeImageAnalysis
from .lattice import MazeSpec, describe_lattice_cell, lattice_to_cell, walk_order
from .metrics import PathMatch, crossing_details
from .track import Track
from .video import MazeVideoAnalysis
from .video_metrics import backtracks

TASK, PIPELINE = "maze", "pixel"
GATE_CHECKS = ("layout_match", "no_cross_wall", "target_achievement", "no_excessive_reflection")
MAX_LISTED = 60      #: per-frame evidence entries listed in video details


def unparseable(reason: str, *, id: str, config_hash: str, modality: str = "image") -> Result:
    """An answer in which no maze could be read: counts as changed and not achieved."""
    metrics = {"maze_changed": 1, "cross_wall": 0, "target_achievement": 0, "reflection": 0}
    gate = Gate(required=GATE_CHECKS, failed=("layout_match", "target_achievement"))
    return unparseable_result(reason, id=id, task=TASK, pipeline=PIPELINE, modality=modality,
                              config_hash=config_hash, metrics=metrics, gate=gate)


# -- shared by images and videos ----------------------------------------------------------------

def _reflection(loops: list[Any], path: PathMatch, cfg: MazeConfig) -> bool:
    return bool(loops) or path.length_ratio > cfg.reflection_length_ratio


def _achieved(path: PathMatch, cfg: MazeConfig) -> bool:
    return path.target_achievement > cfg.target_achievement_min and path.connected


def _gate_metrics(checks: dict[str, bool]) -> dict[str, int]:
    """MMGR's four binary metrics, read off the gate (1 = the failure happened, except TA)."""
    return {"maze_changed": int(not checks["layout_match"]), "cross_wall": int(not checks["no_cross_wall"]),
            "target_achievement": int(checks["target_achievement"]),
            "reflection": int(not checks["no_excessive_reflection"])}


def _path_metrics(path: PathMatch, loops: list[Any], spec: MazeSpec) -> dict[str, Any]:
    return {"target_achievement_score": round(path.target_achievement, 6), "path_connected": path.connected,
            "path_iou": round(path.iou, 6), "path_precision": round(path.precision, 6),
            "path_recall": round(path.recall, 6), "path_length_ratio": round(path.length_ratio, 6),
            "loops": len(loops), "path_cells": len(path.cells), "solution_cells": len(path.solution)}


def _path_details(path: PathMatch, spec: MazeSpec) -> dict[str, Any]:
    solution = path.solution
    return {"maze": spec.to_dict(),
            "missed_cells": [list(p) for p in sorted(solution - path.cells)],
            "extra_cells": [list(p) for p in sorted(path.cells - solution)]}


def _path_notes(path: PathMatch, loops: list[Any], checks: dict[str, bool], cfg: MazeConfig,
                agent: str = "") -> list[str]:
    notes = []
    if not checks["target_achievement"]:
        notes.append(f"target achievement {path.target_achievement:.3f} (needs > {cfg.target_achievement_min})"
                     + ("" if path.connected else ", path does not connect start and goal")
                     + (f", agent {agent}" if agent else ""))
    if not checks["no_excessive_reflection"]:
        notes.append(f"reflection: {len(loops)} loop(s), length {path.length_ratio:.2f}x the solution "
                     f"(limit {cfg.reflection_length_ratio}x)")
    return notes


def _result(checks: dict[str, bool], metrics: dict[str, Any], details: dict[str, Any], *, id: str,
            modality: str, config_hash: str) -> Result:
    gate = Gate.from_checks(checks)
    return Result(id=id, task=TASK, pipeline=PIPELINE, modality=modality, status=Status.OK,
                  overall=float(gate.passed), metrics=metrics, gate=gate, details=details,
                  config_hash=config_hash)


# -- images -----------------------------------------------------------------------------------

def image_checks(a: MazeImageAnalysis, cfg: MazeConfig) -> dict[str, bool]:
    return {"layout_match": a.layout.matched, "no_cross_wall": not a.crossing.detected,
            "target_achievement": _achieved(a.path, cfg),
            "no_excessive_reflection": not _reflection(a.loops, a.path, cfg)}


def _image_notes(a: MazeImageAnalysis, checks: dict[str, bool], cfg: MazeConfig) -> list[str]:
    notes = []
    if not checks["layout_match"]:
        lay = a.layout
        parts = [f"wall IoU {lay.iou:.3f} (needs > {cfg.layout_iou_min})"]
        for name, off in (("start", lay.start_offset), ("goal", lay.goal_offset)):
            parts.append(f"{name} marker missing" if off is None else f"{name} off by {off:.2f} cells")
        notes.append("layout: " + ", ".join(parts))
    for p, share in a.crossing.crossed[:5]:
        d = describe_lattice_cell(p, a.spec.walls.shape)
        where = d.get("between") or d.get("cell") or d.get("corner_of") or d.get("next_to")
        notes.append(f"path crosses {d['kind'].replace('_', ' ')} {where} ({share:.0%} of its core)")
    return notes + _path_notes(a.path, a.loops, checks, cfg)


def image_result(a: MazeImageAnalysis, *, id: str, config: MazeConfig, config_hash: str) -> Result:
    """The verdict of an analysed answer image."""
    checks = image_checks(a, config)
    metrics: dict[str, Any] = {
        **_gate_metrics(checks),
        "layout_iou": round(a.layout.iou, 6), "start_offset": a.layout.start_offset,
        "goal_offset": a.layout.goal_offset, "cross_wall_ratio": round(a.crossing.ratio, 6),
        "crossed_walls": len(a.crossing.crossed), **_path_metrics(a.path, a.loops, a.spec)}
    walk = walk_order(a.path.cells | {a.spec.start}, a.spec.start)
    details = {
        **_path_details(a.path, a.spec),
        "path_cells": [list(p) for p in walk],
        "path_maze_cells": [list(lattice_to_cell(p)) for p in walk if p[0] % 2 and p[1] % 2],
        "crossings": crossing_details(a.crossing, a.spec.walls.shape),
        "loops": [{"row": round(r, 2), "col": round(c, 2), "area": round(s, 3)} for r, c, s in a.loops],
        "alignment": {"box": list(a.box), "ecc_refined": a.aligned, "canvas_cell_px": a.k, "walls": a.walls},
        "notes": _image_notes(a, checks, config),
    }
    return _result(checks, metrics, details, id=id, modality="image", config_hash=config_hash)


# -- videos -----------------------------------------------------------------------------------

def video_checks(a: MazeVideoAnalysis, cfg: MazeConfig) -> dict[str, bool]:
    layout = bool(a.ious.min() > cfg.layout_iou_min) and len(a.goal_bad) < 2 and (
        not a.style.agent_is_start or (a.start_offset is not None and a.start_offset <= cfg.marker_tolerance))
    return {"layout_match": layout, "no_cross_wall": not a.crossing.crossed(cfg.video_cross_wall_ratio),
            "target_achievement": _achieved(a.path, cfg) and a.settling.stopped
            and followed_share(a.track) >= cfg.video_min_followed and a.unseen_route <= cfg.video_max_unseen_route,
            "no_excessive_reflection": not _reflection(a.loops, a.path, cfg)}


def followed_share(track: Track) -> float:
    """The share of the frames from the agent's first sighting to its last in which it was seen
    (0 when never; :attr:`~.track.Track.seen`): what its path was read from, the rest filled in
    along corridors."""
    seen = track.seen
    return float(len(seen) / (seen[-1] - seen[0] + 1)) if len(seen) else 0.0


def read_notes(read: Mapping[str, Any]) -> list[str]:
    """What a video's read (a reader's ``report()``) tells the user: a cut, a cap, a smoothing."""
    notes = []
    if read.get("truncated"):
        notes.append(f"video truncated/corrupt: read {read.get('frames_read')} frame(s) ({read.get('error')})")
    if read.get("max_frames_reached"):
        notes.append(f"only the first {read.get('max_frames')} frames were read (media.max_frames); it goes on")
    if read.get("undithered"):
        notes.append(UNDITHERED_NOTE)
    return notes


def unparseable_video(reason: str, read: Mapping[str, Any], *, id: str, config_hash: str) -> Result:
    """:func:`unparseable` for a video, with how its frames were read (``details.read``, notes)."""
    result = unparseable(reason, id=id, config_hash=config_hash, modality="video")
    return replace(result, details={**result.details, "read": dict(read),
                                    "notes": [*result.details["notes"], *read_notes(read)]})


def _video_notes(a: MazeVideoAnalysis, checks: dict[str, bool], cfg: MazeConfig) -> list[str]:
    notes = read_notes(a.read)
    if not checks["layout_match"]:
        worst = int(np.argmin(a.ious))
        notes.append(f"layout: min wall IoU {a.ious.min():.3f} at frame {worst} (needs > {cfg.layout_iou_min})")
        if len(a.goal_bad) >= 2:
            notes.append(f"goal missing, moved or changed in {len(a.goal_bad)} frame(s), "
                         f"first at frame {a.goal_bad[0]}")
        if a.style.agent_is_start and (a.start_offset is None or a.start_offset > cfg.marker_tolerance):
            notes.append("agent not found" if a.start_offset is None
                         else f"agent starts {a.start_offset:.2f} cells from the start cell")
    for t in a.crossing.traversals[:5]:
        walls = ", ".join(str(describe_lattice_cell(w).get("between") or list(w)) for w in t.walls[:3])
        notes.append(f"{t.kind} across wall {walls} between frames {t.from_frame} and {t.to_frame}")
    if a.crossing.ratio > cfg.video_cross_wall_ratio:
        notes.append(f"agent touches walls in {a.crossing.ratio:.1%} of tracked frames "
                     f"(limit {cfg.video_cross_wall_ratio:.0%})")
    s = a.settling
    agent = ("never reaches the goal" if not s.reached else
             "reaches the goal but does not stay on it" if not s.stopped else "")
    seen = a.track.seen
    if len(seen) and (share := followed_share(a.track)) < cfg.video_min_followed:
        agent = (f"{agent}; " if agent else "") + (
            f"seen in only {len(seen)} of the {seen[-1] - seen[0] + 1} frames from its first sighting to its "
            f"last ({share:.0%}, needs {cfg.video_min_followed:.0%}): its path is not verified")
    if a.unseen_route > cfg.video_max_unseen_route:
        agent = (f"{agent}; " if agent else "") + (
            f"unseen on {a.unseen_route:.0%} of its way (2 or more frames missing in a row; at most "
            f"{cfg.video_max_unseen_route:.0%}): its path is not verified")
    return notes + _path_notes(a.path, a.loops, checks, cfg, agent=agent)


def _traversal_details(a: MazeVideoAnalysis) -> list[dict[str, Any]]:
    return [{"kind": t.kind, "from_frame": t.from_frame, "to_frame": t.to_frame,
             "from_cell": list(lattice_to_cell(t.from_cell)), "to_cell": list(lattice_to_cell(t.to_cell)),
             "walls": [describe_lattice_cell(w) | {"lattice": list(w)} for w in t.walls],
             "corridor_route": t.route, "allowed_route": t.allowed} for t in a.crossing.traversals]


def _video_metrics(a: MazeVideoAnalysis, checks: dict[str, bool]) -> dict[str, Any]:
    tr, cr = a.track, a.crossing
    goal_off = np.hypot(*(a.goal_pos - (np.array(a.spec.goal) + 0.5)).T) / 2
    n_back = backtracks(a.cells)
    return {
        **_gate_metrics(checks), "action_reflection": int(n_back > 0),
        # layout
        "layout_iou": round(float(a.ious.min()), 6), "layout_iou_min_frame": int(np.argmin(a.ious)),
        "layout_iou_mean": round(float(a.ious.mean()), 6),
        "start_offset": None if a.start_offset is None else round(a.start_offset, 4),
        "goal_offset": None if np.isnan(goal_off).all() else round(float(np.nanmax(goal_off)), 4),
        "goal_bad_frames": len(a.goal_bad),
        # crossings
        "cross_wall_ratio": round(cr.ratio, 6), "contact_frames": int(cr.contact.sum()),
        "wall_traversals": len(cr.traversals), "teleports": cr.teleports,
        # path and goal
        **_path_metrics(a.path, a.loops, a.spec),
        "reached_goal": a.settling.reached, "stopped_on_goal": a.settling.stopped, "backtracks": n_back,
        # reading and tracking
        "frames": a.frames, "frames_tracked": len(tr.tracked), "followed_share": round(followed_share(tr), 4),
        "unseen_route_share": round(a.unseen_route, 4),
        "track_gaps": max(0, len(tr.pieces) - 1),
        "track_far_jumps": tr.far_jumps, "track_lost": tr.lost, "markers_left": tr.markers_left,
        "agent_speed": round(cr.speed, 4), "truncated": int(bool(a.read.get("truncated"))),
    }


def video_result(a: MazeVideoAnalysis, *, id: str, config: MazeConfig, config_hash: str) -> Result:
    """The verdict of an analysed answer video."""
    checks = video_checks(a, config)
    tr, cr = a.track, a.crossing
    tracked = tr.tracked
    # (plain Python numbers, converted once: these lists run over every frame)
    contact = np.flatnonzero(cr.contact)
    contact_list = [{"frame": t, "row": round(r, 2), "col": round(c, 2), "overlap": round(o, 3),
                     "centre_in_wall": inside}
                    for t, (r, c), o, inside in zip(contact.tolist(), tr.pos[contact].tolist(),
                                                    np.nan_to_num(tr.overlap[contact]).tolist(),
                                                    cr.centre_in_core[contact].tolist())]
    details = {
        **_path_details(a.path, a.spec),
        "style": a.style.name,
        "read": a.read,
        "trajectory": {"frames": tracked.tolist(),
                       "pos": [[round(r, 2), round(c, 2)] for r, c in tr.pos[tracked].tolist()]},
        "layout_iou_per_frame": [round(v, 3) for v in a.ious.tolist()],
        "crossings": _traversal_details(a),
        "contact_frames": contact_list[:MAX_LISTED],
        "goal_bad_frames": a.goal_bad[:MAX_LISTED],
        "path_cells": [list(p) for p in a.cells],
        "path_maze_cells": [list(lattice_to_cell(p)) for i, p in enumerate(a.cells)
                            if p[0] % 2 and p[1] % 2 and (i == 0 or a.cells[i - 1] != p)],
        "goal": {"first_arrival": a.settling.first_arrival, "final_occluded": a.settling.final_occluded},
        "detected": a.detected(),
        "alignment": {"box": list(a.box) if a.box else None, "relocations": a.relocations,
                      "canvas_cell_px": a.k, "track_pieces": [list(p) for p in tr.pieces],
                      "agent_saturation_floor": {"learned": a.style.agent_saturation,
                                                 "lowest": a.lowest_agent_floor}},
        "notes": _video_notes(a, checks, config),
    }
    return _result(checks, _video_metrics(a, checks), details, id=id, modality="video", config_hash=config_hash)


_SOURCES = {"video": "read from the video's first frames", "reference": "the MMGR solution image",
            "puzzle": "read from the puzzle image", "maze": "the maze file"}
_HOW = {"moved": "the blob that moved away from the start", "appeared": "the blob that appeared on the start",
        "appeared_near_start": "the blob that appeared near the start and went on (not followed from it)",
        "on_start_marker": "the blob on the start marker", "start_marker": "the start marker itself",
        "default": "not seen: the start marker's colour assumed"}


def describe_reading(details: Mapping[str, Any]) -> list[str]:
    """One line each on where the maze came from and what was detected in a video (for people)."""
    lines = []
    source = details.get("maze_source")
    found = details.get("detected")
    seen: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    maze: Mapping[str, Any] = seen["maze"] if isinstance(seen.get("maze"), Mapping) else {}
    if source in _SOURCES:
        graph: Mapping[str, Any] = details["maze"] if isinstance(details.get("maze"), Mapping) else {}
        grid = maze.get("grid") or [graph.get("rows"), graph.get("cols")]
        size = f" ({grid[0]}x{grid[1]} cells)" if isinstance(grid, list) and None not in grid else ""
        lines.append(f"maze: {_SOURCES[source]}{size}")
    if maze:
        walls = maze.get("walls")
        thick = maze.get("wall_thickness_cells")
        lines.append(f"looks: {walls} walls" + (f" {thick:.2f} cell thick" if isinstance(thick, float) else "")
                     + "".join(f", {name} marker at cell {tuple(m['cell'])} rgb {tuple(m['rgb'])}"
                               for name in ("start", "goal") if isinstance(m := maze.get(name), Mapping)))
    agent = seen.get("agent")
    if isinstance(agent, Mapping):
        lines.append(f"agent: hue {agent.get('hue')} (window {agent.get('hue_window')}), "
                     f"{agent.get('area_cells')} cells^2, "
                     f"found as {_HOW.get(str(agent.get('identified_by')), agent.get('identified_by'))}")
    return lines
