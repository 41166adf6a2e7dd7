"""From what was read (an image's grid, a video's timeline) to the MMGR T2 verdict.

Gate (D.4.2, both modalities): ``clues_unchanged`` (CC = 0; videos: in every frame) ∧
``no_constraint_violation`` (CV = 0) ∧ ``completion_perfect`` (CA = 1); videos read CV and
CA on the final frame and report the (non-gating) ``action_reflection``. ``details.notes``
names every failing cell (see :mod:`~cvcheck.sudoku.notes`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from ..config import Config
from ..errors import CvcheckError
from ..schema import Gate, Result, Status, error_result, unparseable_result
from .metrics import SudokuScore, score_grid
from .notes import changed_clue_notes, low_confidence_note, violation_notes, wrong_cell_notes
from .puzzle import PuzzleOrigin
from .read import GridReading
from .spec import SudokuSpec
from .timeline import Timeline

TASK = "sudoku"
PIPELINE = "ocr"


class VideoBudgetError(CvcheckError):
    """``sudoku.video_max_seconds`` ran out before the video's last frame."""

    code = "video_budget"


def unparseable(reason: str, *, id: str, modality: str, config: Config,
                details: dict[str, Any] | None = None) -> Result:
    """The verdict for an answer whose grid could not be found (scored 0)."""
    result = unparseable_result(reason, id=id, task=TASK, pipeline=PIPELINE, modality=modality,
                                config_hash=config.section_hash("sudoku"))
    if details:
        result = replace(result, details={**result.details, **details})
    return result


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


def score_notes(score: SudokuScore, spec: SudokuSpec, grid: np.ndarray, *, final: bool = False) -> list[str]:
    """The readable evidence of a score: wrong cells, changed clues, repeated digits."""
    return (changed_clue_notes(score.changed_clues, final=final) + wrong_cell_notes(score.wrong_cells)
            + violation_notes(score.violations, grid, boxes=spec.boxes))


def _result(checks: dict[str, bool], metrics: dict[str, Any], details: dict[str, Any], *, id: str,
            modality: str, config: Config) -> Result:
    gate = Gate.from_checks(checks)
    return Result(id=id, task=TASK, pipeline=PIPELINE, modality=modality, status=Status.OK,
                  overall=float(gate.passed), metrics=metrics, gate=gate, details=details,
                  config_hash=config.section_hash("sudoku"))


def image_result(reading: GridReading, spec: SudokuSpec, *, id: str, config: Config,
                 origin: PuzzleOrigin | None = None) -> Result:
    """The verdict of a grid read from an answer image."""
    origin = origin or PuzzleOrigin(min_confidence=config.sudoku.min_confidence)
    score = score_grid(spec, reading.digits)
    low = _low_confidence(reading.digits, reading.confidence, config.sudoku.min_confidence)
    metrics = {**_score_metrics(score), "cells_read": int((reading.digits != 0).sum()),
               "low_confidence_cells": len(low), "ocr_calls": reading.ocr_calls}
    notes = (score_notes(score, spec, reading.digits) + low_confidence_note(low, config.sudoku.min_confidence)
             + origin.notes(spec))
    details = {**_score_details(score), "grid": reading.digits.tolist(),
               "confidence": np.round(reading.confidence.astype(np.float64), 4).tolist(),
               "low_confidence": low, "grid_corners": np.round(reading.fit.corners, 2).tolist(),
               "engine": config.sudoku.ocr_engine, **origin.details(spec), "notes": notes}
    return _result(score.checks, metrics, details, id=id, modality="image", config=config)


def _work(tl: Timeline) -> dict[str, Any]:
    """What the reading of a video did and skipped: ``work``, and ``read`` (a file's: how its frames were read)."""
    work = {"frames_total": tl.frames_total, "frames_analysed": tl.frames_analysed, "frames_still": tl.frames_still,
            "frames_strided": tl.frames_strided, "frames_without_grid": tl.frames_without_grid,
            "frames_before_puzzle": tl.frames_before_puzzle, "stride": tl.stride, "debounce_frames": tl.debounce,
            "grid_searches": tl.grid_searches, "occluded_reads": tl.occluded_reads}
    return {"work": work, "read": tl.read} if tl.read else {"work": work}


def video_result(tl: Timeline, *, id: str, config: Config) -> Result:
    """The verdict of a video's timeline (clue changes over all frames, CV/CA on the final one)."""
    if tl.budget_stopped:
        exc = VideoBudgetError(f"sudoku.video_max_seconds={config.sudoku.video_max_seconds:g} ran out after "
                               f"{tl.frames_total} frame(s) ({tl.frames_analysed} analysed, {tl.frames_still} still, "
                               f"{tl.frames_strided} strided): the final frame, which CV and CA are read from, was "
                               "not reached; raise the budget or lower sudoku.video_max_frames")
        return error_result(id=id, task=TASK, pipeline=PIPELINE, modality="video", exc=exc,
                            config_hash=config.section_hash("sudoku"))
    spec = tl.spec
    if tl.unreadable or spec is None:
        reason = tl.unreadable or "no Sudoku grid found in any frame"
        return unparseable(reason, id=id, modality="video", config=config, details=_work(tl))
    if tl.final_digits is None or tl.final_confidence is None:
        return unparseable(f"no {spec.n}x{spec.n} grid found in any frame", id=id, modality="video", config=config,
                           details=_work(tl))
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
               "frames_analysed": tl.frames_analysed, "frames_skipped": tl.frames_still + tl.frames_strided,
               "low_confidence_cells": len(low)}
    changes = [c.to_dict() for c in tl.clue_changes]
    notes = changed_clue_notes([{**c, "frame": c["video_frame"]} for c in changes])
    final_clue_notes = [n for n in changed_clue_notes(final.changed_clues, final=True)
                        if not any(n.startswith(m.split(":")[0] + ":") for m in notes)]
    notes += final_clue_notes + wrong_cell_notes(final.wrong_cells)
    notes += violation_notes(final.violations, tl.final_digits, boxes=spec.boxes)
    notes += low_confidence_note(low, config.sudoku.min_confidence)
    notes += tl.origin.notes(spec) + tl.read_notes
    if tl.frames_strided or tl.frames_still or tl.frames_without_grid:
        notes.append(f"{tl.frames_total} frames: {tl.frames_analysed} analysed, {tl.frames_still} unchanged "
                     f"(skipped), {tl.frames_strided} left out by the stride {tl.stride}, "
                     f"{tl.frames_without_grid} without a grid")
    details = {
        **_score_details(final),
        "clue_changes_any_frame": changes,
        "final_grid": tl.final_digits.tolist(), "final_frame": tl.final_frame,
        "final_confidence": np.round(tl.final_confidence.astype(np.float64), 4).tolist(),
        "updates": [u.to_dict() for u in tl.updates], "updates_per_frame": refl.per_frame.tolist(),
        "reflection_checks": refl.checks, "grid_refits": tl.refits, "engine": config.sudoku.ocr_engine,
        "grid_corners": np.round(tl.final_corners, 2).tolist() if tl.final_corners is not None else None,
        "low_confidence": low, **_work(tl), **tl.origin.details(spec), "notes": notes,
    }
    return _result(checks, metrics, details, id=id, modality="video", config=config)
