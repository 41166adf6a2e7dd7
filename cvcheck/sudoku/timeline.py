"""What happened in a Sudoku video, cell by cell: committed values, updates, clue changes.

A cell's raw reading becomes its committed value once it has been read the same in
``debounce`` frames in a row, nothing covering the cell, dated to the frame it first
appeared in: a one-frame flicker is no update, a digit fading in is committed once its
reading is stable, and a hand resting over a cell changes nothing. A clue cell is only
committed to a *sure* reading (blank, or a digit read with enough confidence): an
unreadable smudge over a clue is not a changed clue. The final frame is read afresh in
every cell (see :mod:`~cvcheck.sudoku.video`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ..config import SudokuConfig
from .puzzle import PuzzleOrigin
from .spec import SudokuSpec


@dataclass
class CellState:
    """One cell's reading and its debounce state."""

    committed: int = 0
    pending: int | None = None
    pending_since: int = 0
    pending_video_frame: int = 0
    pending_count: int = 0
    raw: int = 0
    confidence: float = 1.0
    glyph: np.ndarray | None = None  #: ink map of the crop behind ``raw`` (None when blank)


@dataclass(frozen=True)
class CellUpdate:
    """A committed change of one cell's value (``frame``: the timeline step where the new
    value first appeared; ``video_frame``: that frame's index in the video)."""

    frame: int
    row: int
    col: int
    before: int
    after: int
    video_frame: int = -1

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


@dataclass(frozen=True)
class ClueChange:
    """A clue cell committed to something other than its clue."""

    frame: int
    row: int
    col: int
    expected: int
    read: int
    video_frame: int = -1

    def to_dict(self) -> dict[str, int]:
        return asdict(self)


@dataclass(frozen=True)
class Reflection:
    """Update statistics and MMGR's action-reflection checks (gradual filling)."""

    per_frame: np.ndarray          #: committed updates per frame step (frames - 1 entries)
    avg_updates: float
    max_changed_fraction: float
    active_fraction: float
    total_updates: int
    checks: dict[str, bool]

    @property
    def action_reflection(self) -> int:
        return int(all(self.checks.values()))


@dataclass
class Timeline:
    """What happened in the video (``frames``: timeline steps, i.e. frames from the one the
    clues were fixed at, less those without a grid and those left out by the stride)."""

    n: int
    frames: int = 0
    updates: list[CellUpdate] = field(default_factory=list)
    ocr_calls: int = 0
    cell_reads: int = 0
    frames_without_grid: int = 0   #: frames in which no grid was found (searched, or unchanged since)
    refits: int = 0
    clue_changes: list[ClueChange] = field(default_factory=list)
    final_digits: np.ndarray | None = None
    final_confidence: np.ndarray | None = None
    final_frame: int = -1
    final_corners: np.ndarray | None = None
    final_image: np.ndarray | None = None  #: the last analysed frame (kept only when asked)
    # -- work done and skipped --
    frames_total: int = 0          #: frames received from the video
    frames_analysed: int = 0       #: frames rectified and compared cell by cell
    frames_still: int = 0          #: frames skipped as identical to the last analysed one (with or without grid)
    frames_strided: int = 0        #: frames left out by the stride (long videos)
    frames_before_puzzle: int = 0  #: frames before the one the clues were read from
    stride: int = 1
    debounce: int = 1
    grid_searches: int = 0
    occluded_reads: int = 0        #: cell reads skipped because something covered the cell
    budget_stopped: bool = False   #: ``video_max_seconds`` ran out before the last frame
    # -- the puzzle --
    spec: SudokuSpec | None = None
    origin: PuzzleOrigin = field(default_factory=PuzzleOrigin)
    unreadable: str | None = None  #: why no verdict can be given (no stable puzzle...)
    # -- the file --
    read: dict[str, Any] = field(default_factory=dict)  #: how its frames were read (a file reader's ``report()``)
    read_notes: list[str] = field(default_factory=list)  #: ... and its notes (frames repeated, cut short)

    def reflection(self, config: SudokuConfig) -> Reflection:
        """Update statistics and the action-reflection checks."""
        steps = max(1, self.frames - 1)
        per = np.zeros(steps, dtype=np.int64)
        for u in self.updates:
            if 1 <= u.frame <= steps:
                per[u.frame - 1] += 1
        limit = config.reflection_max_avg_updates_4 if self.n <= 4 else config.reflection_max_avg_updates_9
        avg = float(per.mean()) if per.size else 0.0
        max_frac = float(per.max() / (self.n * self.n)) if per.size else 0.0
        active = float((per > 0).mean()) if per.size else 0.0
        checks = {"avg_updates_ok": avg <= limit,
                  "max_changed_fraction_ok": max_frac <= config.reflection_max_changed_fraction,
                  "active_fraction_ok": active >= config.reflection_min_active_fraction}
        return Reflection(per_frame=per, avg_updates=avg, max_changed_fraction=max_frac, active_fraction=active,
                          total_updates=int(per.sum()), checks=checks)


def commit(cells: list[list[CellState]], t: int, video_frame: int, tl: Timeline, spec: SudokuSpec,
           moving: np.ndarray | None, *, sure: float = 0.0) -> None:
    """Debounce raw readings into committed values; record updates and clue changes.

    ``t`` 0 initialises the committed grid. ``moving`` (n, n) bool marks cells that are
    covered: their readings do not count towards the debounce. A clue cell is committed to another value only on a
    sure reading (a blank, or a digit read with confidence >= ``sure``): an unreadable
    smudge over a clue (a hand, a shadow) is not a changed clue until it is read as one.
    """
    for r, row in enumerate(cells):
        for c, cell in enumerate(row):
            clue = int(spec.puzzle[r, c])
            if t == 0:
                # clue cells start as their clues: a first frame that reads otherwise (blurry, half
                # drawn) changes them only if the reading holds, like any other change
                cell.committed = clue or cell.raw
                if cell.raw != cell.committed:
                    cell.pending, cell.pending_since, cell.pending_video_frame = cell.raw, 0, video_frame
                    cell.pending_count = 1 if cell.raw >= 0 and (cell.raw == 0 or cell.confidence >= sure) else 0
                continue
            if cell.raw == cell.committed:
                cell.pending, cell.pending_count = None, 0
                continue
            still = moving is None or not moving[r, c]
            if clue and cell.raw != 0 and (cell.raw < 0 or cell.confidence < sure):
                still = False  # an unsure reading over a clue never counts towards changing it
            if cell.pending != cell.raw:
                cell.pending, cell.pending_since, cell.pending_video_frame = cell.raw, t, video_frame
                cell.pending_count = 0
            if still:
                cell.pending_count += 1
            if cell.pending_count >= max(1, tl.debounce):
                tl.updates.append(CellUpdate(frame=cell.pending_since, row=r, col=c, before=cell.committed,
                                             after=cell.raw, video_frame=cell.pending_video_frame))
                cell.committed = cell.raw
                cell.pending, cell.pending_count = None, 0
                if clue and cell.committed != clue:
                    tl.clue_changes.append(ClueChange(frame=tl.updates[-1].frame,
                                                      row=r, col=c, expected=clue, read=cell.committed,
                                                      video_frame=tl.updates[-1].video_frame))
