"""The digit-recognition interface shared by every OCR engine, and glyph deduplication."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, Sequence

import numpy as np

#: reading of a mark that is not a digit 1..N
UNREADABLE = -1


@dataclass(frozen=True)
class Reading:
    """One cell's digit (1..N, or -1 when nothing in 1..N was recognised) and its confidence in [0, 1]."""

    digit: int
    confidence: float


class DigitEngine(Protocol):
    """A recogniser of single-digit cell crops.

    ``read_digits`` receives crops of shape (48, 32, 3) uint8 (dark digit on white)
    and must return one :class:`Reading` per crop, restricted to the digits 1..n,
    in one batched call. ``calls`` counts crops recognised so far.
    """

    name: str
    calls: int

    def read_digits(self, crops: Sequence[np.ndarray], *, n: int) -> list[Reading]: ...


def group_glyphs(signatures: Sequence[np.ndarray], *, similarity: float) -> tuple[list[int], list[int]]:
    """Group near-identical glyph crops so that only one per group is recognised.

    Within one image the same digit drawn in the same font and colour is pixel-for-pixel
    nearly the same; normalised cross-correlation of the crop signatures finds them.

    Parameters
    ----------
    signatures : sequence of ndarray
        Zero-mean, unit-norm signatures of equal shape.
    similarity : float
        Minimum correlation to join a group; >= 1 disables grouping.

    Returns
    -------
    representatives : list of int
        Index of each group's representative crop.
    group_of : list of int
        For each crop, the position of its group in ``representatives``.
    """
    if not signatures:
        return [], []
    if similarity >= 1.0:
        idx = list(range(len(signatures)))
        return idx, idx
    flat = np.stack([s.ravel() for s in signatures])
    sims = flat @ flat.T
    reps: list[int] = []
    group_of: list[int] = []
    for i in range(len(signatures)):
        if reps:
            scores = sims[i, reps]
            best = int(np.argmax(scores))
            if scores[best] >= similarity:
                group_of.append(best)
                continue
        reps.append(i)
        group_of.append(len(reps) - 1)
    return reps, group_of


def read_with_grouping(engine: DigitEngine, crops: Sequence[np.ndarray], signatures: Sequence[np.ndarray],
                       *, n: int, similarity: float) -> tuple[list[Reading], int]:
    """Read every crop, recognising one representative per glyph group.

    Returns the readings (one per crop) and the number of crops sent to the engine.
    """
    reps, group_of = group_glyphs(signatures, similarity=similarity)
    if not reps:
        return [], 0
    rep_readings = engine.read_digits([crops[i] for i in reps], n=n)
    return [rep_readings[g] for g in group_of], len(reps)
