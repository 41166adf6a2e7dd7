"""The maze task's file side: read references and answers, stream videos, write overlays.

The only module of :mod:`cvcheck.maze` that touches files. Batch scoring, the CLI and
the report reach the task through :func:`grade_sample`, :func:`grade` and
:func:`render_overlay` (see :mod:`cvcheck.registry`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..config import Config
from ..errors import CvcheckError, InputError
from ..media.cache import cached_by_file
from ..media.image import load_image
from ..media.video import iter_frames, modality_of, prefetched
from ..media.write import save_image
from ..schema import Result, Unparseable, error_result
from ..vision.threads import opencv_threads
from .image import analyse_image
from .lattice import MazeSpec
from .render import render_overlay as render_image_overlay
from .style import StyleProfile
from .verdict import PIPELINE, TASK, image_result, unparseable, video_result
from .verify import as_spec, full_config
from .video import MazeVideoAnalysis, analyse_video
from .video_render import CanvasStore, contact_sheet, render_video_overlay


def _load_reference(path: str | os.PathLike, *, config: Config) -> MazeSpec:
    return as_spec(load_image(path, config=config.media))


#: Read a reference solution image into a spec, parsed once per file per process.
load_reference = cached_by_file(_load_reference)


def _video_analysis(path: str | os.PathLike, spec: MazeSpec, config: Config, style: str | StyleProfile | None,
                    canvases: CanvasStore | None) -> MazeVideoAnalysis | Unparseable:
    reader = iter_frames(path, stride=config.maze.video_stride, config=config.media)
    frames = prefetched(reader)  # decode the next frames on another core while this one is analysed
    try:
        with opencv_threads(1):
            analysis = analyse_video(frames, spec, config=config.maze, style=style,
                                     on_canvas=canvases.add if canvases is not None else None)
    finally:
        frames.close()
        reader.close()
    if not isinstance(analysis, Unparseable):
        analysis.read = reader.report()
    return analysis


def verify_video_file(path: str | os.PathLike, reference: np.ndarray | MazeSpec, *, config: Config | None = None,
                      id: str = "", style: str | StyleProfile | None = None,
                      overlay_path: str | os.PathLike | None = None) -> Result:
    """Grade an answer video file, streaming it (memory does not grow with its length).

    ``overlay_path``: also write the tracked trajectory over the maze there, and a
    contact sheet of key frames next to it (``<stem>_frames<suffix>``). Unreadable
    videos raise :class:`~cvcheck.errors.MediaError`; a video cut in the middle is
    graded on the frames that decode (``metrics.truncated = 1``).
    """
    full = full_config(config)
    chash = full.section_hash("maze")
    canvases = CanvasStore() if overlay_path is not None else None
    analysis = _video_analysis(path, as_spec(reference), full, style, canvases)
    if isinstance(analysis, Unparseable):
        return unparseable(analysis.reason, id=id, config_hash=chash, modality="video")
    result = video_result(analysis, id=id, config=full.maze, config_hash=chash)
    if overlay_path is not None:
        out = Path(overlay_path)
        save_image(out, render_video_overlay(analysis, result, canvases=canvases))
        save_image(out.with_name(f"{out.stem}_frames{out.suffix or '.png'}"),
                   contact_sheet(analysis, result, canvases=canvases))
    return result


def grade(answer: str | os.PathLike, *, reference: str | os.PathLike, config: Config, id: str = "",
          style: str | StyleProfile | None = None, modality: str | None = None,
          overlay_path: str | os.PathLike | None = None) -> Result:
    """Grade an answer file (image or video) against a reference solution image file.

    Raises :class:`~cvcheck.errors.InputError` on bad input (the CLI's exit 2).
    """
    spec = load_reference(reference, config=config)
    if (modality or modality_of({"answer": str(answer)})) == "video":
        return verify_video_file(answer, spec, config=config, id=id, style=style, overlay_path=overlay_path)
    chash = config.section_hash("maze")
    analysis = analyse_image(load_image(answer, config=config.media), spec, config=config.maze)
    if isinstance(analysis, Unparseable):
        return unparseable(analysis.reason, id=id, config_hash=chash)
    result = image_result(analysis, id=id, config=config.maze, config_hash=chash)
    if overlay_path is not None:
        save_image(overlay_path, render_image_overlay(analysis, result))
    return result


def grade_sample(sample: Mapping[str, Any], *, config: Config) -> Result:
    """Grade one manifest sample; bad input becomes an ``error`` result.

    Sample fields: ``id``, ``answer`` (image or video path), ``reference`` (the
    reference solution image path), optional ``modality`` and, for videos, ``style``
    (``mmgr`` or ``mazeplot``; default ``maze.video_style``).
    """
    sid = str(sample.get("id", ""))
    modality = modality_of(sample)
    try:
        answer, reference = sample.get("answer"), sample.get("reference")
        if not answer:
            raise InputError("sample has no 'answer' path")
        if not reference:
            raise InputError("maze sample needs a 'reference' solution image path")
        return grade(answer, reference=reference, config=config, id=sid, style=sample.get("style"),
                     modality=modality)
    except CvcheckError as exc:
        return error_result(id=sid, task=TASK, pipeline=PIPELINE, modality=modality, exc=exc,
                            config_hash=config.section_hash("maze"))


def check_references(sample: Mapping[str, Any], *, config: Config) -> None:
    """Parse the sample's reference (``cvcheck validate``); raises InputError when it is no maze.

    A missing file is left to the missing-files check.
    """
    if Path(sample["reference"]).is_file():
        load_reference(sample["reference"], config=config)


def render_overlay(record: Mapping[str, Any], *, config: Config) -> np.ndarray | None:
    """The overlay picture of a result record (RGB), analysing its answer again; None when it has none."""
    sample = record.get("sample") or {}
    spec = load_reference(sample["reference"], config=config)
    result = Result.from_dict(record)
    if modality_of(sample) == "video":
        canvases = CanvasStore()
        video = _video_analysis(sample["answer"], spec, config, sample.get("style"), canvases)
        return None if isinstance(video, Unparseable) else render_video_overlay(video, result, canvases=canvases)
    image = analyse_image(load_image(sample["answer"], config=config.media), spec, config=config.maze)
    return None if isinstance(image, Unparseable) else render_image_overlay(image, result)
