"""Corpus writing: one folder per case plus ``cases.jsonl``, generated in parallel processes.

Every case is a function of ``(seed, modality, index)`` only, so a corpus is the same whatever
the number of workers and whichever cases a run asks for.
"""

from __future__ import annotations

import json
import multiprocessing
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

import cv2
import numpy as np

from .effects import scale_of
from .encode import write_mp4
from .image import goal_cell, reference_image, render_answer_image, start_cell
from .labels import compute_labels
from .looks import LOOKS
from .plans import IMAGE_BEHAVIOURS, VIDEO_BEHAVIOURS
from .sampling import FRAME_SIZE_SETS, ImageDraw, VideoDraw, case_rng, sample_image, sample_video
from .video import Schedule, VideoComposer, puzzle_image

SCHEMA = "mazeworld.case/1"
ALIASES: dict[str, tuple[str, ...]] = {
    "maze_changed": ("walls_major", "walls_minor", "goal_moves", "walls_changed", "goal_moved"),
}
#: Keys of labels.json copied into each cases.jsonl line.
SUMMARY_KEYS = ("maze_changed", "cross_wall", "target_achievement", "reflection", "overall",
                "teleports", "wall_passes", "arrival_frame")


@dataclass(frozen=True)
class CaseSpec:
    """Which case to build: everything else is drawn from :func:`sampling.case_rng`."""

    seed: int
    modality: str  # video | image
    index: int
    look: str
    behaviour: str
    frame_sizes: str = "standard"  #: videos: the set their frame size is drawn from (sampling.FRAME_SIZE_SETS)

    @property
    def case_id(self) -> str:
        return f"{self.modality[0]}{self.index:05d}-{self.look}-{self.behaviour}"


def plan_cases(*, videos: int, images: int, seed: int, looks: Sequence[str] = LOOKS,
               behaviours: Sequence[str] | None = None, frame_sizes: str = "standard") -> list[CaseSpec]:
    """Balanced assignment: behaviours cycle fastest, then looks."""
    bad = [lk for lk in looks if lk not in LOOKS]
    if bad or not looks:
        raise ValueError(f"unknown looks {bad}; expected some of {LOOKS}")
    if frame_sizes not in FRAME_SIZE_SETS:
        raise ValueError(f"unknown frame-size set {frame_sizes!r}; expected one of {sorted(FRAME_SIZE_SETS)}")
    wanted = None
    if behaviours is not None:
        wanted = {b for name in behaviours for b in ALIASES.get(name, (name,))}
        unknown = wanted - set(VIDEO_BEHAVIOURS) - set(IMAGE_BEHAVIOURS)
        if unknown:
            raise ValueError(f"unknown behaviours {sorted(unknown)}; expected some of "
                             f"{sorted(set(VIDEO_BEHAVIOURS) | set(IMAGE_BEHAVIOURS) | set(ALIASES))}")
    specs: list[CaseSpec] = []
    for modality, count, names in (("video", videos, VIDEO_BEHAVIOURS), ("image", images, IMAGE_BEHAVIOURS)):
        chosen = [b for b in names if wanted is None or b in wanted]
        if count and not chosen:
            raise ValueError(f"none of {sorted(wanted or ())} is a {modality} behaviour")
        for i in range(count):
            b = chosen[i % len(chosen)]
            look = looks[(i // len(chosen)) % len(looks)]
            specs.append(CaseSpec(seed, modality, i, look, b, frame_sizes))
    return specs


def _write_png(path: Path, image: np.ndarray) -> None:
    if not cv2.imwrite(str(path), np.ascontiguousarray(image[:, :, ::-1])):
        raise OSError(f"could not write {path}")


def _write_common(folder: Path, draw: VideoDraw | ImageDraw) -> None:
    maze = draw.maze
    (folder / "maze.json").write_text(json.dumps(maze.to_json()) + "\n")
    (folder / "maze.txt").write_text(maze.ascii() + "\n")
    _write_png(folder / "reference.png", reference_image(maze))
    _write_png(folder / "puzzle.png", puzzle_image(maze, draw.style.board, draw.style.markers))


def _rc(values: Iterable[float]) -> list[float | None]:
    return [None if np.isnan(v) else round(float(v), 4) for v in values]


def video_labels(draw: VideoDraw) -> dict:
    """Labels of a video case, from the maze, the plan, the timeline and the schedule only."""
    maze, plan, tl = draw.maze, draw.plan, draw.timeline
    schedule = Schedule(maze, plan, draw.style, tl.n_frames)
    n = tl.n_frames
    frames_changed = [f for f in range(n) if schedule.walls_changed_at(f)]
    goals = sorted(g for g in {schedule.goal_cell_at(f) for f in range(n)} if g is not None)
    vis = tl.visible_frames()
    final_cell = tl.cell(vis[-1])
    assert final_cell is not None  # a visible frame
    # walls change only where the plan draws other walls (Schedule.walls_changed_at)
    drawn_walls = [plan.drawn_walls] if frames_changed and plan.drawn_walls is not None else []
    labels = compute_labels(
        maze, plan.path, plan.moves, first_position=tuple(tl.positions[vis[0]]), final_cell=final_cell,
        drawn_walls=drawn_walls, goal_marker_cells=goals,
    ).to_json()
    labels.update({
        "arrival_frame": tl.arrival_frame(maze.goal),
        "final_entry_frame": tl.final_entry_frame(maze.goal),
        "n_frames": n,
        "fps": draw.style.fps,
        "mode": tl.mode,
        "speed_cells_per_frame": round(tl.speed, 4),
        "agent_visible": [bool(v) for v in tl.visible],
        "agent_rc": [_rc(p) for p in tl.positions],
        "wall_change_frames": [frames_changed[0], frames_changed[-1] + 1] if frames_changed else None,
        "goal_change_frame": draw.style.goal_change if plan.goal_after is not None else None,
        "goal_marker_cells": [list(g) for g in goals],
    })
    return labels


def image_labels(draw: ImageDraw) -> dict:
    """Labels of an image case: the drawn path is the agent's path, its last cell the resting cell."""
    maze, plan = draw.maze, draw.plan
    labels = compute_labels(
        maze, plan.path, plan.moves, first_position=start_cell(maze, plan), final_cell=plan.path[-1],
        drawn_walls=[plan.drawn_walls] if plan.drawn_walls is not None else [],
        goal_marker_cells=[goal_cell(maze, plan)],
    ).to_json()
    labels.update({"arrival_frame": None, "start_marker_cell": list(start_cell(maze, plan)),
                   "goal_marker_cells": [list(goal_cell(maze, plan))]})
    return labels


def build_video(spec: CaseSpec, folder: Path) -> tuple[dict, dict, tuple[str, ...]]:
    draw = sample_video(case_rng(spec.seed, "video", spec.index), spec.look, spec.behaviour, spec.index,
                        frame_sizes=spec.frame_sizes)
    st, n = draw.style, draw.timeline.n_frames
    comp = VideoComposer(draw.maze, draw.plan, draw.timeline, st)
    written = write_mp4(folder / "answer.mp4", comp.frames(), fps=st.fps, crf=st.crf)
    if written != n:
        raise RuntimeError(f"wrote {written} frames, planned {n}")
    _write_common(folder, draw)
    labels = video_labels(draw)
    labels["cell_to_px"] = comp.geometry()
    pitch = scale_of(comp.cell_affine(0))
    board = comp.boards[False]
    wall = board.wall_px / board.pitch * pitch
    params: dict[str, Any] = {
        "frame_size": list(st.frame_size), "fps": st.fps, "n_frames": n, "crf": st.crf, "mode": draw.timeline.mode,
        "speed": round(draw.timeline.speed, 4), "cell_px": round(pitch, 3), "wall_px": round(wall, 3),
        "agent_half_px": round(st.markers.agent_half(pitch, wall), 3), "board": board_params(st.board),
        "blur_sigma": round(st.blur_sigma, 3), "icon_frames": st.icon_frames, "generator": draw.maze.generator,
    }
    effects = draw.effects
    if params["agent_half_px"] <= 5.0:
        effects = tuple(sorted({*effects, "small_markers"}))
    return labels, params, effects


def build_image(spec: CaseSpec, folder: Path) -> tuple[dict, dict, tuple[str, ...]]:
    draw = sample_image(case_rng(spec.seed, "image", spec.index), spec.look, spec.behaviour, spec.index)
    image, affine = render_answer_image(draw.maze, draw.plan, draw.style)
    _write_png(folder / "answer.png", image)
    _write_common(folder, draw)
    labels = image_labels(draw)
    labels["cell_to_px"] = np.round(affine, 4).tolist()
    st = draw.style
    params = {"out_size": list(st.out_size), "cell_px": round(scale_of(affine), 3), "board": board_params(st.board),
              "blur_sigma": round(st.blur_sigma, 3), "jpeg_quality": st.jpeg_quality, "generator": draw.maze.generator}
    return labels, params, draw.effects


def board_params(board) -> dict:
    if board.look == "mmgr":
        return {"lattice_px": board.lattice_px}
    if board.look == "mazeplot":
        return {"size_px": list(board.size_px), "unit_length": board.unit_length, "title": board.title}
    return {"maze_px": board.maze_px, "unit_length": board.unit_length}


def build_case(spec: CaseSpec, out: Path) -> dict:
    """Write one case folder under ``out``; return its ``cases.jsonl`` record."""
    folder = out / spec.case_id
    folder.mkdir(parents=True, exist_ok=True)
    build = build_video if spec.modality == "video" else build_image
    labels, params, effects = build(spec, folder)
    (folder / "labels.json").write_text(json.dumps(labels) + "\n")
    rel = spec.case_id
    answer = "answer.mp4" if spec.modality == "video" else "answer.png"
    maze = json.loads((folder / "maze.json").read_text())
    return {
        "schema": SCHEMA, "id": spec.case_id, "modality": spec.modality, "look": spec.look,
        "behaviour": spec.behaviour, "effects": list(effects), "grid": maze["grid"],
        "generator": params.pop("generator"), "answer": f"{rel}/{answer}", "puzzle": f"{rel}/puzzle.png",
        "maze": f"{rel}/maze.json", "maze_ascii": f"{rel}/maze.txt", "reference": f"{rel}/reference.png",
        "labels_file": f"{rel}/labels.json", "labels": {k: labels[k] for k in SUMMARY_KEYS}, "params": params,
    }


def _build_timed(job: tuple[CaseSpec, Path]) -> tuple[dict, float]:
    t0 = time.perf_counter()
    record = build_case(*job)
    return record, time.perf_counter() - t0


def write_corpus(out: str | Path, *, videos: int, images: int, seed: int, looks: Sequence[str] = LOOKS,
                 behaviours: Sequence[str] | None = None, workers: int = 2, progress: bool = True,
                 frame_sizes: str = "standard") -> Path:
    """Generate the corpus into ``out`` and return the path of its ``cases.jsonl``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    specs = plan_cases(videos=videos, images=images, seed=seed, looks=looks, behaviours=behaviours,
                       frame_sizes=frame_sizes)
    jobs = [(s, out) for s in specs]
    records: list[dict] = []
    seconds: dict[str, list[float]] = {"video": [], "image": []}
    if workers <= 1:
        results: Iterable[tuple[dict, float]] = map(_build_timed, jobs)
        pool = None
    else:
        # (spawned, not forked: a child forked while OpenCV's thread pool in this process is busy
        # can inherit its lock held, and hangs in its first OpenCV call - seen once, a benchmark
        # worker stuck in cv2.getNumThreads after this process had drawn a corpus itself)
        pool = multiprocessing.get_context("spawn").Pool(workers)
        results = pool.imap(_build_timed, jobs)
    try:
        for i, (record, sec) in enumerate(results, 1):
            records.append(record)
            seconds[record["modality"]].append(sec)
            if progress and (i % 25 == 0 or i == len(jobs)):
                print(f"{i}/{len(jobs)} cases", file=sys.stderr)
    finally:
        if pool is not None:
            pool.close()
            pool.join()
    path = out / "cases.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    if progress:
        for modality, secs in seconds.items():
            if secs:
                print(f"{modality}: {len(secs)} cases, median {np.median(secs):.3f} s per case per worker",
                      file=sys.stderr)
    return path
