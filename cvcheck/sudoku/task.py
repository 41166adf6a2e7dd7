"""Batch/CLI entry: grade one manifest sample (``task: sudoku``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..config import Config
from ..errors import CvcheckError, InputError
from ..media.image import load_image
from ..media.video import is_video
from ..schema import Result, error_result
from .verify import PIPELINE, TASK, verify_image


def modality_of(sample: Mapping[str, Any]) -> str:
    """``image`` or ``video``, from the sample's ``modality`` field or the file suffix."""
    mod = sample.get("modality")
    if mod in ("image", "video"):
        return str(mod)
    return "video" if is_video(str(sample.get("answer", ""))) else "image"


def grade_sample(sample: Mapping[str, Any], *, config: Config) -> Result:
    """Grade ``{id, answer, puzzle, solution[, modality]}``; never raises on bad input."""
    sid = str(sample.get("id", ""))
    modality = modality_of(sample)
    try:
        for key in ("answer", "puzzle", "solution"):
            if sample.get(key) in (None, ""):
                raise InputError(f"sudoku sample {sid!r} has no {key!r}")
        if modality == "video":
            from .video import verify_video_file

            return verify_video_file(sample["answer"], sample["puzzle"], sample["solution"], config=config, id=sid)
        image = load_image(sample["answer"], config=config.media)
        return verify_image(image, sample["puzzle"], sample["solution"], config=config, id=sid)
    except CvcheckError as exc:
        return error_result(id=sid, task=TASK, pipeline=PIPELINE, modality=modality, exc=exc,
                            config_hash=config.section_hash("sudoku"))
