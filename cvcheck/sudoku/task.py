"""The Sudoku task's file side: grids and puzzle images from files, answers from images and videos, overlays.

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
from .boxes import parse_boxes
from .ocr import DigitEngine
from .puzzle import PuzzleOrigin
from .read import read_grid
from .render import render_overlay as draw_overlay
from .spec import GridLike, SudokuSpec, looks_like_path, parse_grid
from .timeline import Timeline
from .verdict import PIPELINE, TASK, image_result, unparseable, video_result
from .verify import make_spec, puzzle_from_image
from .video import read_timeline

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


def load_spec(puzzle: GridLike, solution: GridLike = None, *, boxes: Any = "auto",
              config: Config | None = None) -> SudokuSpec:
    """The puzzle and solution (grids or grid files), checked against each other; the
    puzzle is solved when ``solution`` is missing."""
    cfg = config or Config()
    return make_spec(load_grid(puzzle, name="puzzle"), _optional(load_grid(solution, name="solution")),
                     boxes=boxes, config=cfg)


def _optional(value: GridLike) -> GridLike:
    return None if value is None or (isinstance(value, str) and not value.strip()) else value


def require_complete(reader: FrameReader[Any]) -> None:
    """A truncated or partly corrupt video has no trustworthy final frame: refuse it.

    CV and CA are read on the final frame, so a partial read cannot be graded.
    """
    if reader.truncated:
        raise MediaError(f"video {reader.name} is truncated or corrupt after {reader.frames_read} frame(s) "
                         f"({reader.error}); its final frame, which CV and CA are read from, is missing")
    if reader.max_frames_reached:
        raise MediaError(f"video {reader.name} has more than {reader.max_frames} frames (media.max_frames); "
                         "its final frame, which CV and CA are read from, was not reached")


def puzzle_spec(*, puzzle: GridLike = None, puzzle_image: str | os.PathLike[str] | None = None,
                solution: GridLike = None, boxes: Any = "auto", config: Config,
                engine: DigitEngine | None = None) -> tuple[SudokuSpec | None, PuzzleOrigin | None]:
    """The spec from a puzzle grid (or grid file) or a puzzle image file; (None, None) when neither
    is given (a video's clues then come from its first frames)."""
    solution = _optional(load_grid(solution, name="solution"))
    if _optional(puzzle) is not None:
        return load_spec(puzzle, solution, boxes=boxes, config=config), None
    if puzzle_image:
        picture = load_image(_image_path(puzzle_image), config=config.media)
        return puzzle_from_image(picture, solution=solution, boxes=boxes, config=config, engine=engine)
    return None, None


def _image_path(value: Any, name: str = "puzzle_image") -> str | os.PathLike[str]:
    """A picture's path as given (a manifest's JSON may hold any value there): text or a path, else InputError."""
    if isinstance(value, (str, os.PathLike)):
        return value
    raise InputError(f"{name} must be the path of an image file, got {type(value).__name__}")


def _timeline(path: str | os.PathLike[str], spec: SudokuSpec | None, config: Config, engine: DigitEngine | None,
              keep_final: bool, *, boxes: Any = "auto", solution: GridLike = None) -> Timeline:
    reader = iter_frames(path, config=config.media)  # (frames shown for several periods repeated: see FrameReader)
    try:
        timeline = read_timeline(reader, spec, config=config.sudoku, engine=engine, keep_final=keep_final,
                                 boxes=boxes, solution=solution, fps=reader.fps or None,
                                 total_frames=reader.frames_expected)
    finally:
        reader.close()
    if not timeline.budget_stopped:
        require_complete(reader)
    timeline.read, timeline.read_notes = reader.report(), reader.notes()
    return timeline


def verify_video_file(path: str | os.PathLike[str], puzzle: GridLike = None, solution: GridLike = None, *,
                      puzzle_image: str | os.PathLike[str] | None = None, boxes: Any = "auto",
                      config: Config | None = None, id: str = "", engine: DigitEngine | None = None) -> Result:
    """Grade an answer video file, streaming its frames; a truncated video raises MediaError.

    With neither ``puzzle`` nor ``puzzle_image`` the clues come from the video's first frames.
    """
    cfg = config or Config()
    # fail fast on a bad reference before decoding
    spec, origin = puzzle_spec(puzzle=puzzle, puzzle_image=puzzle_image, solution=solution, boxes=boxes,
                               config=cfg, engine=engine)
    tl = _timeline(path, spec, cfg, engine, False, boxes=boxes, solution=_optional(load_grid(solution)))
    if origin is not None:
        tl.origin = origin
    return video_result(tl, id=id, config=cfg)


def grade(answer: str | os.PathLike[str], *, puzzle: GridLike = None, solution: GridLike = None,
          puzzle_image: str | os.PathLike[str] | None = None, boxes: Any = "auto", config: Config, id: str = "",
          modality: str | None = None, overlay_path: str | os.PathLike[str] | None = None) -> Result:
    """Grade an answer file (image or video) against its puzzle (a grid, a grid file or a
    puzzle image; videos: or their first frames) and optional solution.

    Raises :class:`~cvcheck.errors.InputError` on bad input (the CLI's exit 2).
    """
    boxes = parse_boxes(boxes)
    spec, origin = puzzle_spec(puzzle=puzzle, puzzle_image=puzzle_image, solution=solution, boxes=boxes,
                               config=config)
    if (modality or modality_of({"answer": str(answer)})) == "video":
        tl = _timeline(answer, spec, config, None, overlay_path is not None, boxes=boxes,
                       solution=_optional(load_grid(solution, name="solution")))
        if origin is not None:
            tl.origin = origin
        result = video_result(tl, id=id, config=config)
        shown = tl.final_image
    else:
        if spec is None:
            raise InputError("a Sudoku answer image needs its puzzle: --puzzle (grid or file) or --puzzle-image")
        shown = load_image(answer, config=config.media)
        reading = read_grid(shown, spec.n, config=config.sudoku)
        result = (image_result(reading, spec, id=id, config=config, origin=origin) if reading is not None
                  else unparseable(f"no {spec.n}x{spec.n} grid found", id=id, modality="image", config=config))
    if overlay_path is not None and shown is not None:
        save_image(overlay_path, draw_overlay(shown, result))
    return result


def grade_sample(sample: Mapping[str, Any], *, config: Config) -> Result:
    """Grade ``{id, answer[, puzzle | puzzle_image][, solution][, boxes][, modality]}``.

    Images need ``puzzle`` or ``puzzle_image``; videos without either read their clues from
    their first frames. Bad input becomes an ``error`` result.
    """
    sid = str(sample.get("id", ""))
    modality = modality_of(sample)
    try:
        if sample.get("answer") in (None, ""):
            raise InputError(f"sudoku sample {sid!r} has no 'answer'")
        if modality != "video" and sample.get("puzzle") in (None, "") and not sample.get("puzzle_image"):
            raise InputError(f"sudoku sample {sid!r} (an image) needs 'puzzle' or 'puzzle_image'")
        return grade(sample["answer"], puzzle=sample.get("puzzle"), solution=sample.get("solution"),
                     puzzle_image=sample.get("puzzle_image"), boxes=_boxes_field(sample), config=config,
                     id=sid, modality=modality)
    except CvcheckError as exc:
        return error_result(id=sid, task=TASK, pipeline=PIPELINE, modality=modality, exc=exc,
                            config_hash=config.section_hash("sudoku"))


def _boxes_field(sample: Mapping[str, Any]) -> Any:
    """A sample's ``boxes``: absent, null or "" is "auto"; anything else goes to parse_boxes (false, 0: refused)."""
    value = sample.get("boxes")
    return "auto" if value is None or value == "" else value


def check_references(sample: Mapping[str, Any], *, config: Config) -> None:
    """Check the sample's references (``cvcheck validate``): the puzzle and solution grids
    parse and agree (a puzzle without a solution must have exactly one), a puzzle image is
    a readable picture, and an image answer has one of them. Raises InputError when invalid."""
    boxes = parse_boxes(_boxes_field(sample))
    if sample.get("puzzle") not in (None, ""):
        load_spec(sample["puzzle"], sample.get("solution"), boxes=boxes, config=config)
    elif sample.get("puzzle_image"):
        load_image(_image_path(sample["puzzle_image"]), config=config.media)
        if sample.get("solution") not in (None, ""):
            parse_grid(load_grid(sample["solution"], name="solution"), name="solution")
    elif modality_of(sample) != "video":
        raise InputError("an image answer needs 'puzzle' or 'puzzle_image'")


def render_overlay(record: Mapping[str, Any], *, config: Config) -> np.ndarray | None:
    """The overlay picture of a result record (RGB) drawn on its answer (a video's last frame)."""
    sample = record.get("sample") or {}
    answer = sample.get("answer")
    if not answer:
        return None
    picture = answer_picture(answer, video=modality_of(sample) == "video", config=config.media)
    return None if picture is None else draw_overlay(picture, Result.from_dict(record))
