"""From what was read (an image's grid, a video's timeline) to the MMGR T2 verdict.

Gate (D.4.2, both modalities): ``clues_unchanged`` (CC = 0; videos: in every frame) ∧
``no_constraint_violation`` (CV = 0) ∧ ``completion_perfect`` (CA = 1); videos read CV and
CA on the final frame and report the (non-gating) ``action_reflection``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..config import Config
from ..schema import Gate, Result, Status, unparseable_result
from .metrics import SudokuScore, score_grid
from .read import GridReading
from .spec import SudokuSpec
from .video import Timeline

TASK = "sudoku"
PIPELINE = "ocr"


def unparseable(reason: str, *, id: str, modality: str, config: Config) -> Result:
    """The verdict for an answer whose grid could not be found (scored 0)."""
    return unparseable_result(reason, id=id, task=TASK, pipeline=PIPELINE, modality=modality,
                              config_hash=config.section_hash("sudoku"))


def _score_metrics(score: SudokuScore) -> dict[str, Any]:
    return {"clues_changed": score.clues_changed,
            "constraint_violation": round(score.constraint_violation, 6),
            "completion_accuracy": round(score.completion_accuracy, 6)}


def _score_details(score: SudokuScore) -> dict[str, Any]:
    return {"changed_clues": score.changed_clues, "violations": score.violations,
            "wrong_cells": score.wrong_cells}


def _low_confidence(digits: np.ndarray, confidence: np.ndarray, threshold: float) -> list[dict[str, Any]]:
    """Non-blank cells read with a confidence below ``threshold``."""
    mask = (digits != 0) & (confidence < threshold)
    return [{"row": int(r), "col": int(c), "read": int(digits[r, c]),
             "confidence": round(float(confidence[r, c]), 4)} for r, c in np.argwhere(mask)]


def _result(checks: dict[str, bool], metrics: dict[str, Any], details: dict[str, Any], *, id: str,
            modality: str, config: Config) -> Result:
    gate = Gate.from_checks(checks)
    return Result(id=id, task=TASK, pipeline=PIPELINE, modality=modality, status=Status.OK,
                  overall=float(gate.passed), metrics=metrics, gate=gate, details=details,
                  config_hash=config.section_hash("sudoku"))


def image_result(reading: GridReading, spec: SudokuSpec, *, id: str, config: Config) -> Result:
    """The verdict of a grid read from an answer image."""
    score = score_grid(spec, reading.digits)
    low = _low_confidence(reading.digits, reading.confidence, config.sudoku.min_confidence)
    metrics = {**_score_metrics(score), "cells_read": int((reading.digits != 0).sum()),
               "low_confidence_cells": len(low), "ocr_calls": reading.ocr_calls}
    notes = []
    if low:
        notes.append(f"{len(low)} cell(s) read below confidence {config.sudoku.min_confidence}: "
                     + ", ".join(f"r{c['row']}c{c['col']}={c['read']} ({c['confidence']:.2f})" for c in low[:8]))
    details = {**_score_details(score), "grid": reading.digits.tolist(),
               "confidence": np.round(reading.confidence.astype(np.float64), 4).tolist(),
               "low_confidence": low, "grid_corners": np.round(reading.fit.corners, 2).tolist(),
               "engine": config.sudoku.ocr_engine, "notes": notes}
    return _result(score.checks, metrics, details, id=id, modality="image", config=config)


def video_result(tl: Timeline, spec: SudokuSpec, *, id: str, config: Config) -> Result:
    """The verdict of a video's timeline (clue changes over all frames, CV/CA on the final one)."""
    if tl.final_digits is None or tl.final_confidence is None:
        return unparseable(f"no {spec.n}x{spec.n} grid found in any frame", id=id, modality="video", config=config)
    final = score_grid(spec, tl.final_digits)
    refl = tl.reflection(config.sudoku)
    cc = int(bool(tl.clue_changes) or final.clues_changed)
    checks = {**final.checks, "clues_unchanged": cc == 0}
    low = _low_confidence(tl.final_digits, tl.final_confidence, config.sudoku.min_confidence)
    metrics = {**_score_metrics(final), "clues_changed": cc, "action_reflection": refl.action_reflection,
               "avg_updates_per_frame": round(refl.avg_updates, 6),
               "max_changed_fraction": round(refl.max_changed_fraction, 6),
               "active_frame_fraction": round(refl.active_fraction, 6), "total_updates": refl.total_updates,
               "frames": tl.frames, "ocr_calls": tl.ocr_calls, "cell_reads": tl.cell_reads,
               "naive_ocr_calls": tl.frames * spec.n * spec.n, "frames_without_grid": tl.frames_without_grid,
               "low_confidence_cells": len(low)}
    details = {
        **_score_details(final),
        "clue_changes_any_frame": [c.to_dict() for c in tl.clue_changes],
        "final_grid": tl.final_digits.tolist(), "final_frame": tl.final_frame,
        "final_confidence": np.round(tl.final_confidence.astype(np.float64), 4).tolist(),
        "updates": [u.to_dict() for u in tl.updates], "updates_per_frame": refl.per_frame.tolist(),
        "reflection_checks": refl.checks, "grid_refits": tl.refits, "engine": config.sudoku.ocr_engine,
        "grid_corners": np.round(tl.final_corners, 2).tolist() if tl.final_corners is not None else None,
        "low_confidence": low,
    }
    return _result(checks, metrics, details, id=id, modality="video", config=config)
