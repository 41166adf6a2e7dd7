"""MMGR T2 Sudoku metrics (D.4.2) on digit grids.

- ``clues_changed`` (CC, 0/1): any given clue is not read back as itself.
- ``constraint_violation`` (CV, [0, 1]): share of the row/column/box constraints (3N, or
  2N for a Latin square without boxes) that are violated, a constraint being violated
  when a digit occurs in its unit more than once.
  Empty cells do not violate a constraint (they are what completion accuracy measures).
- ``completion_accuracy`` (CA, [0, 1]): share of the originally empty cells that hold the
  solution's digit.
- gated overall: 1 iff CC = 0 and CV = 0 and CA = 1.

Read grids use 0 for a blank cell and -1 for a mark that is not a digit 1..N.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .spec import SudokuSpec, units


@dataclass(frozen=True)
class SudokuScore:
    """Metric values plus the cells behind each failure."""

    clues_changed: int
    constraint_violation: float
    completion_accuracy: float
    changed_clues: list[dict[str, int]] = field(default_factory=list)
    violations: list[dict[str, Any]] = field(default_factory=list)
    wrong_cells: list[dict[str, int]] = field(default_factory=list)

    @property
    def checks(self) -> dict[str, bool]:
        return {
            "clues_unchanged": self.clues_changed == 0,
            "no_constraint_violation": self.constraint_violation == 0.0,
            "completion_perfect": self.completion_accuracy == 1.0,
        }

    @property
    def overall(self) -> int:
        return int(all(self.checks.values()))


def changed_clue_cells(spec: SudokuSpec, read: np.ndarray) -> list[dict[str, int]]:
    """Clue cells whose reading differs from the clue."""
    mask = (spec.puzzle != 0) & (read != spec.puzzle)
    return [{"row": int(r), "col": int(c), "expected": int(spec.puzzle[r, c]), "read": int(read[r, c])}
            for r, c in np.argwhere(mask)]


def constraint_violations(read: np.ndarray, boxes: Any = "auto") -> list[dict[str, Any]]:
    """Units holding a digit more than once, with the clashing cells."""
    n = read.shape[0]
    flat = read.ravel()
    out = []
    for name, cells in units(n, boxes):
        values = flat[cells]
        digits, counts = np.unique(values[values > 0], return_counts=True)
        dup = digits[counts > 1]
        if dup.size:
            bad = cells[np.isin(values, dup)]
            out.append({"unit": name, "digits": dup.tolist(),
                        "cells": [[int(i) // n, int(i) % n] for i in bad]})
    return out


def score_grid(spec: SudokuSpec, read: np.ndarray) -> SudokuScore:
    """Score one read grid (0 blank, -1 unreadable, else the digit) against ``spec``.

    >>> from cvcheck.sudoku.spec import SudokuSpec
    >>> spec = SudokuSpec.from_values("12..34..........", "1243342121344312")
    >>> s = score_grid(spec, spec.solution.copy())
    >>> (s.clues_changed, s.constraint_violation, s.completion_accuracy, s.overall)
    (0, 0.0, 1.0, 1)
    """
    read = np.asarray(read)
    if read.shape != spec.puzzle.shape:
        raise ValueError(f"read grid has shape {read.shape}, expected {spec.puzzle.shape}")
    changed = changed_clue_cells(spec, read)
    violations = constraint_violations(read, spec.boxes)
    empty = spec.puzzle == 0
    correct = (read == spec.solution) & empty
    wrong = empty & ~correct
    wrong_cells = [{"row": int(r), "col": int(c), "expected": int(spec.solution[r, c]), "read": int(read[r, c])}
                   for r, c in np.argwhere(wrong)]
    n_empty = int(empty.sum())
    ca = float(correct.sum()) / n_empty if n_empty else 1.0
    return SudokuScore(
        clues_changed=int(bool(changed)),
        constraint_violation=len(violations) / float(spec.unit_count),
        completion_accuracy=ca,
        changed_clues=changed,
        violations=violations,
        wrong_cells=wrong_cells,
    )
