"""Grade a Sudoku answer image against its puzzle and solution (MMGR T2, OCR pipeline)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..config import Config
from ..media.image import as_rgb
from ..schema import Gate, Result, Status
from .metrics import SudokuScore, score_grid
from .ocr import DigitEngine
from .read import GridReading, read_grid
from .spec import GridLike, SudokuSpec

TASK = "sudoku"
PIPELINE = "ocr"


def verify_image(image: np.ndarray, puzzle: GridLike, solution: GridLike, *, config: Config | None = None,
                 id: str = "", engine: DigitEngine | None = None) -> Result:
    """Grade one answer image.

    Parameters
    ----------
    image : ndarray of shape (H, W, 3) or (H, W)
        The generated answer (never modified).
    puzzle, solution : grid-like
        Digit grids (see :func:`cvcheck.sudoku.spec.parse_grid`); the puzzle's size
        (4x4 or 9x9) is the grid size looked for.
    config : Config, optional
    engine : DigitEngine, optional
        Overrides ``config.sudoku.ocr_engine`` (tests, custom recognisers).

    Returns
    -------
    Result
        ``unparseable`` when no grid is found; otherwise metrics ``clues_changed``,
        ``constraint_violation``, ``completion_accuracy`` and the gated ``overall``;
        ``details`` names the offending and the low-confidence cells.
    """
    cfg = config or Config()
    spec = SudokuSpec.from_values(puzzle, solution)
    rgb = as_rgb(image)
    reading = read_grid(rgb, spec.n, config=cfg.sudoku, engine=engine)
    if reading is None:
        return unparseable_result(id=id, modality="image", config=cfg, reason=f"no {spec.n}x{spec.n} grid found")
    score = score_grid(spec, reading.digits)
    metrics = score_metrics(score)
    metrics.update(reading_metrics(reading, cfg))
    details = score_details(score)
    details.update(reading_details(reading, cfg))
    return Result(id=id, task=TASK, pipeline=PIPELINE, modality="image", status=Status.OK,
                  overall=score.overall, metrics=metrics, gate=Gate.from_checks(score.checks),
                  details=details, config_hash=cfg.section_hash("sudoku"))


def unparseable_result(*, id: str, modality: str, config: Config, reason: str) -> Result:
    """The verdict for an output that could not be read (scored 0)."""
    return Result(id=id, task=TASK, pipeline=PIPELINE, modality=modality, status=Status.UNPARSEABLE,
                  overall=0.0, metrics={}, gate=None, details={"reason": reason},
                  config_hash=config.section_hash("sudoku"))


def score_metrics(score: SudokuScore) -> dict[str, Any]:
    return {"clues_changed": score.clues_changed,
            "constraint_violation": round(score.constraint_violation, 6),
            "completion_accuracy": round(score.completion_accuracy, 6)}


def score_details(score: SudokuScore) -> dict[str, Any]:
    return {"changed_clues": score.changed_clues, "violations": score.violations,
            "wrong_cells": score.wrong_cells}


def reading_metrics(reading: GridReading, config: Config) -> dict[str, Any]:
    low = reading.low_confidence(config.sudoku.min_confidence)
    filled = int((reading.digits != 0).sum())
    return {"cells_read": filled, "low_confidence_cells": len(low), "ocr_calls": reading.ocr_calls}


def reading_details(reading: GridReading, config: Config) -> dict[str, Any]:
    low = reading.low_confidence(config.sudoku.min_confidence)
    notes = []
    if low:
        notes.append(f"{len(low)} cell(s) read below confidence {config.sudoku.min_confidence}: "
                     + ", ".join(f"r{c['row']}c{c['col']}={c['read']} ({c['confidence']:.2f})" for c in low[:8]))
    return {"grid": reading.digits.tolist(),
            "confidence": np.round(reading.confidence.astype(np.float64), 4).tolist(),
            "low_confidence": low,
            "grid_corners": np.round(reading.fit.corners, 2).tolist(),
            "engine": config.sudoku.ocr_engine,
            "notes": notes}
