"""Batch/registry entry point for the maze task (images and videos)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

from ..config import Config
from ..errors import InputError
from ..media.image import load_image
from ..media.video import is_video
from ..schema import Result, error_result
from .lattice import MazeSpec


def load_reference(path: str | Path, *, config: Config) -> MazeSpec:
    """Read a reference solution image into a spec (the expensive part done once)."""
    from .verify import as_spec

    return as_spec(load_image(path, config=config.media))


def grade_sample(sample: Mapping[str, Any], *, config: Config) -> Result:
    """Grade one manifest sample.

    Sample fields: ``id``, ``answer`` (image or video path), ``reference`` (the
    reference solution image path), optional ``style`` for videos (``mmgr`` or
    ``mazeplot``; default ``maze.video_style``). Bad input becomes an ``error`` result.
    """
    sid = str(sample.get("id", ""))
    answer = sample.get("answer")
    modality = "video" if answer and is_video(answer) else "image"
    try:
        if not answer:
            raise InputError("sample has no 'answer' path")
        reference = sample.get("reference")
        if not reference:
            raise InputError("maze sample needs a 'reference' solution image path")
        spec = load_reference(reference, config=config)
        if modality == "video":
            from .video import verify_maze_video  # noqa: PLC0415 (optional, heavier path)

            return verify_maze_video(answer, spec, config=config, id=sid, style=sample.get("style"))
        from .verify import verify_maze_image

        return verify_maze_image(load_image(answer, config=config.media), spec, config=config, id=sid)
    except InputError as exc:
        return error_result(id=sid, task="maze", pipeline="pixel", modality=modality, exc=exc,
                            config_hash=config.section_hash("maze"))
