"""The maze image verifier: answer image + reference -> MMGR pixel verdict.

>>> from cvcheck.synth.maze_cases import make_case
>>> case = make_case(7, defect="valid")
>>> verify_maze_image(case.answer, case.reference).overall
1.0
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np

from ..config import Config, MazeConfig
from ..media.image import as_rgb
from ..schema import Gate, Result, Status
from ..vision import colors
from .extract import fit_lattice_box, locate_maze, parse_reference, rectify, refine_alignment
from .lattice import MazeSpec, describe_lattice_cell, lattice_to_cell, walk_order
from .metrics import (Crossing, Layout, PathMatch, crossing_details, layout_match, path_loops,
                      path_match, upscale_cells, wall_crossing)

TASK, PIPELINE = "maze", "pixel"
GATE_CHECKS = ("layout_match", "no_cross_wall", "target_achievement", "no_excessive_reflection")


@dataclass(frozen=True)
class MazeImageAnalysis:
    """Everything the verdict was computed from (kept for overlays and debugging)."""

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


def _config(config: Config | MazeConfig | None) -> tuple[MazeConfig, str]:
    full = config if isinstance(config, Config) else Config(maze=config or MazeConfig())
    return full.maze, full.section_hash("maze")


def as_spec(reference: np.ndarray | MazeSpec) -> MazeSpec:
    """Accept a parsed :class:`MazeSpec` or a reference solution image."""
    if isinstance(reference, MazeSpec):
        return reference
    return parse_reference(as_rgb(reference, name="reference"))


def analyse_maze_image(answer: np.ndarray, spec: MazeSpec, *, config: MazeConfig) -> MazeImageAnalysis | str:
    """Run extraction and all four metric classes; a string explains an unreadable answer."""
    image = as_rgb(answer, name="answer")
    located = locate_maze(image)
    if located is None:
        return "no maze walls found in the answer"
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
        return f"no maze lattice in the answer (walls cover {fill:.0%} of the located region)"
    path_mask = cls == colors.BLUE
    green, red = cls == colors.GREEN, cls == colors.RED
    layout = layout_match(dark, green, red, spec, ref_walls, k, config)
    crossing = wall_crossing(path_mask, ref_walls, k, erosion=config.wall_erosion,
                             threshold=config.cross_wall_ratio)
    path, _ = path_match(path_mask, spec, k, config)
    loops = path_loops(colors.strong(hsv, path_mask), k, min_area=config.loop_min_area, markers=green | red)
    return MazeImageAnalysis(spec=spec, canvas=canvas, k=k, box=box, aligned=warp is not None,
                             path_mask=path_mask, layout=layout, crossing=crossing, path=path, loops=loops)


def gate_checks(a: MazeImageAnalysis, cfg: MazeConfig) -> dict[str, bool]:
    reflection = bool(a.loops) or a.path.length_ratio > cfg.reflection_length_ratio
    return {
        "layout_match": a.layout.matched,
        "no_cross_wall": not a.crossing.detected,
        "target_achievement": a.path.target_achievement > cfg.target_achievement_min and a.path.connected,
        "no_excessive_reflection": not reflection,
    }


def _notes(a: MazeImageAnalysis, checks: dict[str, bool], cfg: MazeConfig) -> list[str]:
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
    if not checks["target_achievement"]:
        notes.append(f"target achievement {a.path.target_achievement:.3f} (needs > {cfg.target_achievement_min})"
                     + ("" if a.path.connected else ", path does not connect start and goal"))
    if not checks["no_excessive_reflection"]:
        notes.append(f"reflection: {len(a.loops)} loop(s), length {a.path.length_ratio:.2f}x the solution "
                     f"(limit {cfg.reflection_length_ratio}x)")
    return notes


def result_from_analysis(a: MazeImageAnalysis, *, id: str, cfg: MazeConfig, config_hash: str,
                         modality: str = "image") -> Result:
    checks = gate_checks(a, cfg)
    gate = Gate.from_checks(checks)
    solution = a.spec.solution_body
    reflection = not checks["no_excessive_reflection"]
    metrics = {
        "maze_changed": int(not checks["layout_match"]),
        "cross_wall": int(not checks["no_cross_wall"]),
        "target_achievement": int(checks["target_achievement"]),
        "reflection": int(reflection),
        "layout_iou": round(a.layout.iou, 6),
        "start_offset": a.layout.start_offset,
        "goal_offset": a.layout.goal_offset,
        "cross_wall_ratio": round(a.crossing.ratio, 6),
        "crossed_walls": len(a.crossing.crossed),
        "target_achievement_score": round(a.path.target_achievement, 6),
        "path_connected": a.path.connected,
        "path_iou": round(a.path.iou, 6),
        "path_precision": round(a.path.precision, 6),
        "path_recall": round(a.path.recall, 6),
        "path_length_ratio": round(a.path.length_ratio, 6),
        "loops": len(a.loops),
        "path_cells": len(a.path.cells),
        "solution_cells": len(solution),
    }
    details = {
        "maze": a.spec.to_dict(),
        "path_cells": [list(p) for p in walk_order(a.path.cells | {a.spec.start}, a.spec.start)],
        "path_maze_cells": [list(lattice_to_cell(p)) for p in
                            walk_order(a.path.cells | {a.spec.start}, a.spec.start) if p[0] % 2 and p[1] % 2],
        "crossings": crossing_details(a.crossing, a.spec.walls.shape),
        "missed_cells": [list(p) for p in sorted(solution - a.path.cells)],
        "extra_cells": [list(p) for p in sorted(a.path.cells - solution)],
        "loops": [{"row": round(r, 2), "col": round(c, 2), "area": round(s, 3)} for r, c, s in a.loops],
        "alignment": {"box": list(a.box), "ecc_refined": a.aligned, "canvas_cell_px": a.k},
        "notes": _notes(a, checks, cfg),
    }
    return Result(id=id, task=TASK, pipeline=PIPELINE, modality=modality, status=Status.OK,
                  overall=float(gate.passed), metrics=metrics, gate=gate, details=details,
                  config_hash=config_hash)


def unparseable_result(reason: str, *, id: str, config_hash: str, modality: str = "image") -> Result:
    metrics = {"maze_changed": 1, "cross_wall": 0, "target_achievement": 0, "reflection": 0}
    gate = Gate(required=GATE_CHECKS, failed=("layout_match", "target_achievement"))
    return Result(id=id, task=TASK, pipeline=PIPELINE, modality=modality, status=Status.UNPARSEABLE,
                  overall=0.0, metrics=metrics, gate=gate, details={"reason": reason, "notes": [reason]},
                  config_hash=config_hash)


def verify_maze_image(answer: np.ndarray, reference: np.ndarray | MazeSpec, *,
                      config: Config | MazeConfig | None = None, id: str = "") -> Result:
    """Grade a generated maze solution image with MMGR's deterministic pixel pipeline.

    Parameters
    ----------
    answer : ndarray of shape (H, W, 3) (or grey / RGBA)
        The model's output, any size, with or without margins.
    reference : ndarray or MazeSpec
        The reference solution image (MMGR palette: black walls, green start, red
        goal, blue path) or an already parsed spec.
    config : Config or MazeConfig, optional
        Thresholds (MMGR defaults).

    Returns
    -------
    Result
        ``ok`` with the gated overall (layout IoU > 0.8 and markers in place, no wall
        crossing, target achievement > 0.95 with a connected path, no loops and
        length <= 1.3x), or ``unparseable`` (overall 0) when no maze can be read.
        Bad arguments raise :class:`~cvcheck.errors.InputError`.
    """
    cfg, chash = _config(config)
    spec = as_spec(reference)
    analysis = analyse_maze_image(answer, spec, config=cfg)
    if isinstance(analysis, str):
        return unparseable_result(analysis, id=id, config_hash=chash)
    return result_from_analysis(analysis, id=id, cfg=cfg, config_hash=chash)
