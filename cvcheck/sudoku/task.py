"""The Sudoku task's file side: grids from files, answers from images and videos, overlays.

The only module of :mod:`cvcheck.sudoku` that touches files. Batch scoring, the CLI
and the report reach the task through :func:`grade_sample`, :func:`grade` and
:func:`render_overlay` (see :mod:`cvcheck.registry`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from ..config import Config
from ..errors import CvcheckError, InputError, MediaError
from ..limits import JSONLimitError, loads_json
from ..media.image import load_image
from ..media.picture import answer_picture
from ..media.video import FrameReader, iter_frames, modality_of
from ..media.write import save_image
from ..schema import Result, error_result
from .ocr import DigitEngine
from .render import render_overlay as draw_overlay
from .spec import GridLike, SudokuSpec, looks_like_path
from .verdict import PIPELINE, TASK, video_result
from .verify import verify_image
from .video import Timeline, read_timeline

MAX_GRID_FILE_BYTES = 1_000_000  #: a grid file is a few hundred bytes; refuse anything huge


def load_grid(value: GridLike, *, name: str = "grid") -> GridLike:
    """A grid argument with files read: a ``.json``/``.txt`` path (or any path with ``/``) becomes its content.

    JSON files hold a nested or flat list, or an object with a ``grid`` key; other text
    files a digit string. Anything else is returned unchanged for
    :func:`~cvcheck.sudoku.spec.parse_grid`. A path that does not exist is an error.
    """
    if not (isinstance(value, Path) or (isinstance(value, str) and looks_like_path(value))):
        return value
    path = Path(value)
    try:
        if path.exists() and not path.is_file():  # a folder, a pipe, a device: never opened
            raise InputError(f"{name} {path} is not a regular file")
        if path.stat().st_size > MAX_GRID_FILE_BYTES:
            raise InputError(f"{name} file {path} is over {MAX_GRID_FILE_BYTES:,} bytes: not a grid")
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"{name} file {path} does not exist") from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(f"cannot read {name} from {path}: {exc}") from exc
    if path.suffix.lower() == ".json" or text.lstrip()[:1] in "[{":
        try:
            return loads_json(text, max_depth=3)
        except JSONLimitError as exc:
            raise InputError(f"{name} file {path} is not valid JSON: {exc}") from None
    return text


def load_spec(puzzle: GridLike, solution: GridLike) -> SudokuSpec:
    """The puzzle and solution (grids or grid files), checked against each other."""
    return SudokuSpec.from_values(load_grid(puzzle, name="puzzle"), load_grid(solution, name="solution"))


def require_complete(reader: FrameReader) -> None:
    """A truncated or partly corrupt video has no trustworthy final frame: refuse it.

    CV and CA are read on the final frame, so a partial read cannot be graded.
    """
    if reader.truncated:
        raise MediaError(f"video {reader.name} is truncated or corrupt after {reader.frames_read} frame(s) "
                         f"({reader.error}); its final frame, which CV and CA are read from, is missing")
    if reader.max_frames_reached:
        raise MediaError(f"video {reader.name} has more than {reader.max_frames} frames (media.max_frames); "
                         "its final frame, which CV and CA are read from, was not reached")


def _timeline(path: str | os.PathLike[str], spec: SudokuSpec, config: Config, engine: DigitEngine | None,
              keep_final: bool) -> Timeline:
    reader = iter_frames(path, config=config.media)
    try:
        timeline = read_timeline(reader, spec, config=config.sudoku, engine=engine, keep_final=keep_final)
    finally:
        reader.close()
    require_complete(reader)
    return timeline


def verify_video_file(path: str | os.PathLike[str], puzzle: GridLike, solution: GridLike, *,
                      config: Config | None = None, id: str = "", engine: DigitEngine | None = None) -> Result:
    """Grade an answer video file, streaming its frames; a truncated video raises MediaError."""
    cfg = config or Config()
    spec = load_spec(puzzle, solution)  # fail fast on a bad reference before decoding
    return video_result(_timeline(path, spec, cfg, engine, False), spec, id=id, config=cfg)


def grade(answer: str | os.PathLike[str], *, puzzle: GridLike, solution: GridLike, config: Config, id: str = "",
          modality: str | None = None, overlay_path: str | os.PathLike[str] | None = None) -> Result:
    """Grade an answer file (image or video) against its puzzle and solution (grids or grid files).

    Raises :class:`~cvcheck.errors.InputError` on bad input (the CLI's exit 2).
    """
    spec = load_spec(puzzle, solution)
    if (modality or modality_of({"answer": str(answer)})) == "video":
        timeline = _timeline(answer, spec, config, None, overlay_path is not None)
        result = video_result(timeline, spec, id=id, config=config)
        shown = timeline.final_image
    else:
        shown = load_image(answer, config=config.media)
        result = verify_image(shown, spec.puzzle, spec.solution, config=config, id=id)
    if overlay_path is not None and shown is not None:
        save_image(overlay_path, draw_overlay(shown, result))
    return result


def grade_sample(sample: Mapping[str, Any], *, config: Config) -> Result:
    """Grade ``{id, answer, puzzle, solution[, modality]}``; bad input becomes an ``error`` result."""
    sid = str(sample.get("id", ""))
    modality = modality_of(sample)
    try:
        for key in ("answer", "puzzle", "solution"):
            if sample.get(key) in (None, ""):
                raise InputError(f"sudoku sample {sid!r} has no {key!r}")
        return grade(sample["answer"], puzzle=sample["puzzle"], solution=sample["solution"], config=config,
                     id=sid, modality=modality)
    except CvcheckError as exc:
        return error_result(id=sid, task=TASK, pipeline=PIPELINE, modality=modality, exc=exc,
                            config_hash=config.section_hash("sudoku"))


def check_references(sample: Mapping[str, Any], *, config: Config) -> None:
    """Parse the sample's puzzle and solution (``cvcheck validate``); raises InputError when invalid."""
    load_spec(sample["puzzle"], sample["solution"])


def render_overlay(record: Mapping[str, Any], *, config: Config) -> np.ndarray | None:
    """The overlay picture of a result record (RGB) drawn on its answer (a video's last frame)."""
    sample = record.get("sample") or {}
    answer = sample.get("answer")
    if not answer:
        return None
    picture = answer_picture(answer, video=modality_of(sample) == "video", config=config.media)
    return None if picture is None else draw_overlay(picture, Result.from_dict(record))
