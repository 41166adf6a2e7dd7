"""Agreement statistics and MMGR's metric vocabulary (pure functions, shared by reports and audits).

>>> c = Confusion(n11=40, n10=5, n01=3, n00=52)
>>> round(c.agreement, 2), round(c.kappa, 3)
(0.92, 0.838)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: MMGR failure-mode metrics (lower is better); everything else reads higher-is-better
LOWER_IS_BETTER = frozenset({
    "maze_changed", "cross_wall", "reflection", "clues_changed", "constraint_violation",
})
#: fractional MMGR metrics shown with the binary ones
FRACTIONS = frozenset({"constraint_violation", "completion_accuracy"})
#: MMGR's fine-grained metric names (snake_case); other 0/1 integers are diagnostics (counts)
MMGR_METRICS = frozenset({
    "maze_changed", "cross_wall", "target_achievement", "reflection", "action_reflection", "clues_changed",
    "constraint_violation", "completion_accuracy", "valid_solution", "pattern_recognition", "grid_integrity",
    "color_accuracy", "final_correctness", "intermediate_correctness", "success_score_2d", "success_score_3d",
    "oracle_success_score_2d", "oracle_success_score_3d", "trajectory_alignment", "object_semantic",
    "agent_consistency", "spatial_alignment", "destination_integrity", "scene_consistency", "physics_accuracy",
    "motion_quality", "visual_realism", "prompt_adherence", "physics_validness",
    "success_2d_original_destination", "success_3d_original_destination",
})


def phi_from_counts(n11: int, n10: int, n01: int, n00: int) -> float | None:
    """Phi coefficient of a 2x2 table; None when a row or a column is empty."""
    den = (n11 + n10) * (n01 + n00) * (n11 + n01) * (n10 + n00)
    return None if den == 0 else (n11 * n00 - n10 * n01) / math.sqrt(den)


@dataclass(frozen=True)
class Confusion:
    """2x2 counts: ``n10`` = A says 1 and B says 0."""

    n11: int = 0
    n10: int = 0
    n01: int = 0
    n00: int = 0

    @property
    def n(self) -> int:
        return self.n11 + self.n10 + self.n01 + self.n00

    @property
    def agreement(self) -> float | None:
        return (self.n11 + self.n00) / self.n if self.n else None

    @property
    def kappa(self) -> float | None:
        """Cohen's kappa; None when chance agreement is 1 (both sides constant and equal)."""
        n = self.n
        if not n:
            return None
        po = (self.n11 + self.n00) / n
        a1, b1 = (self.n11 + self.n10) / n, (self.n11 + self.n01) / n
        pe = a1 * b1 + (1 - a1) * (1 - b1)
        return None if math.isclose(pe, 1.0) else (po - pe) / (1 - pe)

    @property
    def phi(self) -> float | None:
        """Phi (Matthews) coefficient; None when a row or column of the table is empty."""
        return phi_from_counts(self.n11, self.n10, self.n01, self.n00)

    def add(self, a: int, b: int) -> "Confusion":
        key = f"n{a}{b}"
        return Confusion(**{**self.__dict__, key: getattr(self, key) + 1})

    def matrix(self) -> list[list[int]]:
        """``[[A0B0, A0B1], [A1B0, A1B1]]``."""
        return [[self.n00, self.n01], [self.n10, self.n11]]
