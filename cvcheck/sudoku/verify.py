"""Grade a Sudoku answer image or video (arrays in, Result out): MMGR T2's OCR pipeline.

The puzzle is a digit grid (strings, lists, arrays: see
:func:`~cvcheck.sudoku.spec.parse_grid`), a puzzle image read for its clues, or — for a
video — the clues of its first stable frames. The solution is optional: without it the
puzzle is solved (a puzzle with no or several solutions is refused, naming which).
:mod:`.task` reads grids and pictures from files.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ..config import Config
from ..errors import InputError
from ..schema import Result
from ..vision.arrays import as_rgb
from .boxes import parse_boxes
from .ocr import DigitEngine
from .puzzle import IMAGE, PuzzleOrigin, spec_from_read
from .read import read_grid
from .spec import GridLike, SudokuSpec
from .verdict import image_result, unparseable, video_result
from .video import read_timeline


def puzzle_from_image(image: np.ndarray, *, solution: GridLike = None, boxes: Any = "auto",
                      config: Config | None = None, engine: DigitEngine | None = None,
                      n: int | None = None) -> tuple[SudokuSpec, PuzzleOrigin]:
    """Read a puzzle's clues from its picture; the spec (solved when no solution) and its origin.

    The grid size is ``n``, else R*C of ``boxes``, else counted from the drawn lines.

    Raises
    ------
    InputError
        No grid in the picture, a clue that is not a digit, no clue, or clues with no or
        several solutions (named).
    """
    cfg = config or Config()
    shape = parse_boxes(boxes)
    if n is None and isinstance(shape, tuple):
        n = shape[0] * shape[1]
    reading = read_grid(as_rgb(image, name="puzzle image"), n, config=cfg.sudoku, engine=engine)
    if reading is None:
        raise InputError("no Sudoku grid found in the puzzle image" + (f" ({n}x{n})" if n else ""))
    spec = spec_from_read(reading.digits, solution=solution, boxes=boxes, config=cfg.sudoku, what="puzzle image")
    origin = PuzzleOrigin(source=IMAGE, read=reading.digits.copy(), confidence=reading.confidence.copy(),
                          min_confidence=cfg.sudoku.min_confidence)
    return spec, origin


def make_spec(puzzle: GridLike | SudokuSpec, solution: GridLike = None, *, boxes: Any = "auto",
              config: Config | None = None) -> SudokuSpec:
    """A spec from grids (solved when no solution is given), or the spec itself."""
    if isinstance(puzzle, SudokuSpec):
        return puzzle
    cfg = config or Config()
    return SudokuSpec.from_values(puzzle, solution, boxes=boxes, max_nodes=cfg.sudoku.solver_max_nodes)


def verify_image(image: np.ndarray, puzzle: GridLike | SudokuSpec = None, solution: GridLike = None, *,
                 boxes: Any = "auto", puzzle_image: np.ndarray | None = None, config: Config | None = None,
                 id: str = "", engine: DigitEngine | None = None) -> Result:
    """Grade one answer image.

    Parameters
    ----------
    image : ndarray of shape (H, W, 3) or (H, W)
        The generated answer (never modified).
    puzzle : grid-like or SudokuSpec, optional
        The clues (see :func:`cvcheck.sudoku.spec.parse_grid`); its size is the grid size
        looked for. Or give ``puzzle_image``.
    solution : grid-like, optional
        Computed from the puzzle when missing.
    boxes : str or tuple
        ``"RxC"``, ``"none"`` (rows and columns only) or ``"auto"`` (from N).
    puzzle_image : ndarray, optional
        A picture of the puzzle, read for its clues when ``puzzle`` is None.
    config : Config, optional
    engine : DigitEngine, optional
        Overrides ``config.sudoku.ocr_engine`` (tests, custom recognisers).

    Returns
    -------
    Result
        ``unparseable`` when no grid is found; otherwise metrics ``clues_changed``,
        ``constraint_violation``, ``completion_accuracy`` and the gated ``overall``;
        ``details`` names the offending and the low-confidence cells, and where the
        puzzle came from. Bad puzzles raise :class:`~cvcheck.errors.InputError`.
    """
    cfg = config or Config()
    origin = None
    if puzzle is None:
        if puzzle_image is None:
            raise InputError("a Sudoku answer image needs its puzzle: a grid or a puzzle image")
        spec, origin = puzzle_from_image(puzzle_image, solution=solution, boxes=boxes, config=cfg, engine=engine)
    else:
        spec = make_spec(puzzle, solution, boxes=boxes, config=cfg)
    reading = read_grid(as_rgb(image), spec.n, config=cfg.sudoku, engine=engine)
    if reading is None:
        return unparseable(f"no {spec.n}x{spec.n} grid found", id=id, modality="image", config=cfg)
    return image_result(reading, spec, id=id, config=cfg, origin=origin)


def verify_video(frames: Iterable[np.ndarray], puzzle: GridLike | SudokuSpec = None, solution: GridLike = None, *,
                 boxes: Any = "auto", puzzle_image: np.ndarray | None = None, config: Config | None = None,
                 id: str = "", engine: DigitEngine | None = None, fps: float | None = None,
                 total_frames: int | None = None) -> Result:
    """Grade an answer video given as RGB frames (consumed once, streamed).

    Without ``puzzle`` (or ``puzzle_image``) the clues are read from the first frames that
    agree (``sudoku.puzzle_frames``). Clue changes are checked in every frame (debounced),
    constraint violation and completion accuracy on the final frame;
    ``action_reflection`` reports gradual filling. ``fps`` shortens the debounce of
    low-fps videos; ``total_frames`` lets long videos be subsampled
    (``sudoku.video_max_frames``). Files: :func:`cvcheck.sudoku.task.verify_video_file`.
    """
    cfg = config or Config()
    spec, origin = None, None
    if puzzle is not None:
        spec = make_spec(puzzle, solution, boxes=boxes, config=cfg)
    elif puzzle_image is not None:
        spec, origin = puzzle_from_image(puzzle_image, solution=solution, boxes=boxes, config=cfg, engine=engine)
    timeline = read_timeline(frames, spec, config=cfg.sudoku, engine=engine, boxes=boxes, solution=solution,
                             fps=fps, total_frames=total_frames)
    if origin is not None:
        timeline.origin = origin
    return video_result(timeline, id=id, config=cfg)
