"""Where a verdict's puzzle comes from: given grids, a puzzle image, or a video's first frames.

A puzzle read from pixels becomes a :class:`~cvcheck.sudoku.spec.SudokuSpec` like a
given one: its clues are the digits read (a cell that holds a mark that is not a digit
is refused, naming the cell), its solution is the one given or the solver's (a puzzle
read with no solution or several is refused, naming which). :class:`PuzzleOrigin`
records the source, the clue grid read and its low-confidence cells for the result.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..config import SudokuConfig
from ..errors import InputError
from .boxes import boxes_label
from .notes import cell, low_confidence_note
from .spec import GridLike, SudokuSpec

GIVEN, IMAGE, FIRST_FRAMES = "given", "image", "first_frames"


@dataclass(frozen=True)
class PuzzleOrigin:
    """Where the puzzle came from (``source``: given | image | first_frames) and what was read."""

    source: str = GIVEN
    read: np.ndarray | None = None          #: clue grid read (0 = empty), None when given
    confidence: np.ndarray | None = None
    frame: int | None = None                #: video frame the clues were fixed at
    frames_agreeing: int = 0                #: analysed frames that agreed on them
    min_confidence: float = 0.6

    def low_confidence(self) -> list[dict[str, Any]]:
        """Clue cells read below ``min_confidence``."""
        if self.read is None or self.confidence is None:
            return []
        mask = (self.read != 0) & (self.confidence < self.min_confidence)
        return [{"row": int(r), "col": int(c), "read": int(self.read[r, c]),
                 "confidence": round(float(self.confidence[r, c]), 4)} for r, c in np.argwhere(mask)]

    def details(self, spec: SudokuSpec) -> dict[str, Any]:
        """The ``details`` fields of a result that say where its puzzle came from."""
        out: dict[str, Any] = {"puzzle_source": self.source, "solution_source": "solved" if spec.solved else "given",
                               "boxes": boxes_label(spec.boxes), "puzzle": spec.puzzle.tolist()}
        if self.read is not None:
            out["puzzle_read"] = self.read.tolist()
            out["puzzle_low_confidence"] = self.low_confidence()
        if self.frame is not None:
            out["puzzle_frame"] = self.frame
        return out

    def notes(self, spec: SudokuSpec) -> list[str]:
        """One line on the puzzle's source, plus its low-confidence clue readings."""
        where = {GIVEN: "puzzle given", IMAGE: "puzzle read from the puzzle image",
                 FIRST_FRAMES: f"puzzle read from the video's first frames (frame {self.frame}, "
                               f"{self.frames_agreeing} agreeing)"}[self.source]
        clues = int((spec.puzzle != 0).sum())
        solved = "solution computed" if spec.solved else "solution given"
        out = [f"{where}: {spec.n}x{spec.n}, boxes {boxes_label(spec.boxes)}, {clues} clues; {solved}"]
        return out + low_confidence_note(self.low_confidence(), self.min_confidence, what="clue")


def spec_from_read(digits: np.ndarray, *, solution: GridLike = None, boxes: Any = "auto",
                   config: SudokuConfig, what: str) -> SudokuSpec:
    """The spec of a clue grid read from pixels (``what`` names the source in errors).

    Raises
    ------
    InputError
        A clue cell holds a mark that is not a digit, no clue was read, or the clues
        have no solution / several / agree not with the given solution.
    """
    bad = np.argwhere(digits < 0)
    if bad.size:
        cells = ", ".join(cell(int(r), int(c)) for r, c in bad[:6])
        raise InputError(f"{what}: {len(bad)} cell(s) hold a mark that is not a digit 1..{digits.shape[0]} "
                         f"({cells}): the clues cannot be read")
    if not (digits > 0).any():
        raise InputError(f"{what}: no clue digit found in the grid")
    try:
        return SudokuSpec.from_values(digits, solution, boxes=boxes, max_nodes=config.solver_max_nodes)
    except InputError as exc:
        err = type(exc)(f"clues read from the {what}: {exc}")
        raise err from exc


class ClueWindow:
    """The first ``need`` consecutive analysed frames whose clue readings agree.

    Frames are offered in order with their reading (None: no grid); ``stable`` is set
    once ``need`` consecutive ones read the same grid, ``start`` being the first of them.
    """

    def __init__(self, need: int) -> None:
        self.need = max(1, need)
        self.run: list[tuple[int, np.ndarray, np.ndarray]] = []  # (frame, digits, confidence)
        self.offered = 0

    def offer(self, frame: int, digits: np.ndarray | None, confidence: np.ndarray | None) -> bool:
        """Add one frame's reading; True once the window is stable."""
        self.offered += 1
        if digits is None or confidence is None:
            self.run = []
            return False
        if self.run and not np.array_equal(self.run[-1][1], digits):
            self.run = []
        self.run.append((frame, digits, confidence))
        return len(self.run) >= self.need

    def repeat(self, frame: int) -> bool:
        """A frame identical to the last offered one (a still frame)."""
        if not self.run:
            return False
        _, digits, conf = self.run[-1]
        return self.offer(frame, digits, conf)

    @property
    def start(self) -> int:
        return self.run[0][0]

    @property
    def digits(self) -> np.ndarray:
        return self.run[-1][1]

    @property
    def confidence(self) -> np.ndarray:
        """Per cell, the lowest confidence over the agreeing frames."""
        return np.min(np.stack([c for _, _, c in self.run]), axis=0)
