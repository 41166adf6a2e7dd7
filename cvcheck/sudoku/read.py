"""Image -> digit grid: locate the grid, cut cells, skip blanks, recognise the rest."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..config import SudokuConfig
from .cells import extract_cells
from .grid import GridFit, find_grid
from .ocr import UNREADABLE, DigitEngine, get_engine, read_with_grouping


@dataclass(frozen=True)
class GridReading:
    """What was read from one image.

    Attributes
    ----------
    digits : ndarray (n, n) int8
        0 blank, 1..n digit, -1 a mark that is not a digit 1..n.
    confidence : ndarray (n, n) float32
        Recogniser confidence (1.0 for blank cells).
    fit : GridFit
    ocr_calls : int
        Crops sent to the recogniser.
    """

    digits: np.ndarray
    confidence: np.ndarray
    fit: GridFit
    ocr_calls: int


def read_grid(image: np.ndarray, n: int | None, *, config: SudokuConfig,
              engine: DigitEngine | None = None) -> GridReading | None:
    """Read an ``n`` x ``n`` Sudoku from an RGB image; None when no n x n grid is found.

    ``n`` None: the size is counted from the drawn lines (a puzzle image read for its clues).
    """
    fit = find_grid(image, n)
    if fit is None or fit.size_mismatch:
        return None
    return read_fit(fit, config=config, engine=engine)


def read_fit(fit: GridFit, *, config: SudokuConfig, engine: DigitEngine | None = None) -> GridReading:
    """Read the cells of an already located grid."""
    n = fit.n
    _, crops, occluded = extract_cells(fit, inset=config.cell_inset, entry_min_height=config.entry_min_height)
    digits = np.zeros((n, n), dtype=np.int8)
    conf = np.ones((n, n), dtype=np.float32)
    digits[occluded] = UNREADABLE  # covered (a hand, a block): nothing can be read there
    conf[occluded] = 0.0
    calls = 0
    if crops:
        eng = engine or get_engine(config)
        readings, calls = read_with_grouping(eng, [c.crop for c in crops], [c.glyph for c in crops],
                                             n=n, max_diff=config.ocr_glyph_share,
                                             recheck_below=config.min_confidence,
                                             second_look_below=config.ocr_second_look_below)
        for cell, reading in zip(crops, readings):
            digits[cell.row, cell.col] = reading.digit
            conf[cell.row, cell.col] = reading.confidence
    return GridReading(digits=digits, confidence=conf, fit=fit, ocr_calls=calls)
