"""Grade a Sudoku answer image or video (arrays in, Result out): MMGR T2's OCR pipeline.

Puzzles and solutions are digit grids (strings, lists, arrays: see
:func:`~cvcheck.sudoku.spec.parse_grid`); :mod:`.task` reads them from files.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ..config import Config
from ..schema import Result
from ..vision.arrays import as_rgb
from .ocr import DigitEngine
from .read import read_grid
from .spec import GridLike, SudokuSpec
from .verdict import image_result, unparseable, video_result
from .video import read_timeline


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
    reading = read_grid(as_rgb(image), spec.n, config=cfg.sudoku, engine=engine)
    if reading is None:
        return unparseable(f"no {spec.n}x{spec.n} grid found", id=id, modality="image", config=cfg)
    return image_result(reading, spec, id=id, config=cfg)


def verify_video(frames: Iterable[np.ndarray], puzzle: GridLike, solution: GridLike, *,
                 config: Config | None = None, id: str = "", engine: DigitEngine | None = None) -> Result:
    """Grade an answer video given as RGB frames (consumed once, streamed).

    Clue changes are checked in every frame (debounced), constraint violation and
    completion accuracy on the final frame; ``action_reflection`` reports gradual filling.
    Files: :func:`cvcheck.sudoku.task.verify_video_file`.
    """
    cfg = config or Config()
    spec = SudokuSpec.from_values(puzzle, solution)
    timeline = read_timeline(frames, spec, config=cfg.sudoku, engine=engine)
    return video_result(timeline, spec, id=id, config=cfg)
