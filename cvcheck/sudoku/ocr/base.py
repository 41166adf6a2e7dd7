"""The digit-recognition interface shared by every OCR engine, and same-glyph grouping."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol

import cv2
import numpy as np

#: reading of a mark that is not a digit 1..N
UNREADABLE = -1
#: share of a crop's side given to white margins on a second look (see :func:`second_look`)
MARGIN_SHARE = 0.25


@dataclass(frozen=True)
class Reading:
    """One cell's digit (1..N, or -1 when nothing in 1..N was recognised) and its confidence in [0, 1]."""

    digit: int
    confidence: float
    first_confidence: float | None = None  #: the first look's confidence, when a second look replaced it
    first_digit: int | None = None         #: the first look's digit, when a second look replaced it

    @property
    def first_look_confidence(self) -> float:
        """The tight crop's confidence in this reading's digit: 0 when the first look read another digit."""
        if self.first_confidence is None:
            return self.confidence
        return self.first_confidence if self.first_digit == self.digit else 0.0


class DigitEngine(Protocol):
    """A recogniser of single-digit cell crops.

    ``read_digits`` receives crops of shape (48, 32, 3) uint8 (dark digit on white)
    and must return one :class:`Reading` per crop, restricted to the digits 1..n,
    in one batched call. ``calls`` counts crops recognised so far.
    """

    name: str
    calls: int

    def read_digits(self, crops: Sequence[np.ndarray], *, n: int) -> list[Reading]: ...


def glyph_distance(a: np.ndarray, b: np.ndarray) -> float:
    """Largest 4x4-block mean absolute difference between two ink maps of equal shape."""
    h, w = a.shape
    diff = np.abs(a.astype(np.float32) - b.astype(np.float32))
    return float(cv2.resize(diff, (w // 4, h // 4), interpolation=cv2.INTER_AREA).max())


def group_glyphs(glyphs: Sequence[np.ndarray], *, max_diff: float) -> tuple[list[int], list[int]]:
    """Group crops that show the same glyph so that one recognition serves the group.

    Within one image the same digit in the same font is drawn alike in every cell. Two
    crops join when no 4x4 block of their ink maps differs by more than ``max_diff``
    mean ink: a local test, because different digits of one font can correlate highly
    overall (blurred bold 3/8/9) yet always differ strongly somewhere (on 4,900 crops
    of 100 synthetic grids the closest different-digit pair differed by 0.29).

    Parameters
    ----------
    glyphs : sequence of ndarray (H, W) float
        Ink maps in [0, 1] of equal shape, H and W multiples of 4.
    max_diff : float
        Join threshold; <= 0 disables grouping (every crop is its own group).

    Returns
    -------
    representatives : list of int
        Index of each group's representative crop.
    group_of : list of int
        For each crop, the position of its group in ``representatives``.
    """
    if not glyphs:
        return [], []
    if max_diff <= 0:
        idx = list(range(len(glyphs)))
        return idx, idx
    h, w = glyphs[0].shape
    stack = np.stack(glyphs).astype(np.float32)
    rep_strip = np.empty((h, 0), np.float32)   # representatives side by side, (h, w * R)
    reps: list[int] = []
    group_of: list[int] = []
    for i in range(len(stack)):
        if reps:
            diff = np.abs(rep_strip - np.tile(stack[i], (1, len(reps))))
            # exact 4x4 block means by area resampling (integer factor)
            blocks = cv2.resize(diff, (diff.shape[1] // 4, h // 4), interpolation=cv2.INTER_AREA)
            worst = blocks.reshape(h // 4, len(reps), w // 4).max(axis=(0, 2))
            best = int(np.argmin(worst))
            if worst[best] <= max_diff:
                group_of.append(best)
                continue
        reps.append(i)
        rep_strip = np.hstack([rep_strip, stack[i]])
        group_of.append(len(reps) - 1)
    return reps, group_of


def with_margin(crop: np.ndarray, *, share: float = MARGIN_SHARE) -> np.ndarray:
    """The crop's glyph shrunk by ``share`` on white, centred, same shape: the text-line
    recogniser sees it with the margins of a printed line."""
    h, w = crop.shape[:2]
    sh, sw = max(1, round(h * (1 - share))), max(1, round(w * (1 - share)))
    out = np.full_like(crop, 255)
    top, left = (h - sh) // 2, (w - sw) // 2
    out[top:top + sh, left:left + sw] = cv2.resize(crop, (sw, sh), interpolation=cv2.INTER_AREA).reshape(
        (sh, sw) + crop.shape[2:])
    return out


def second_look(engine: DigitEngine, crops: Sequence[np.ndarray], readings: Sequence[Reading], *, n: int,
                below: float) -> tuple[list[Reading], int]:
    """Readings, those below ``below`` confidence replaced by a more confident reading of
    the crop with wider margins (:func:`with_margin`), when there is one; and the number
    of crops read again.

    A tight crop of a narrow glyph sometimes reads unsurely as its look-alike (a
    handwritten "1" with a long flag as "7" at 0.6-0.8); with a printed line's margins
    it reads surely. A reading is never replaced by a less confident one; a replaced
    one keeps the first look's confidence (``first_confidence``).
    """
    out = list(readings)
    weak = [i for i, r in enumerate(readings) if r.confidence < below]
    if weak:
        for i, again in zip(weak, engine.read_digits([with_margin(crops[i]) for i in weak], n=n)):
            if again.confidence > out[i].confidence:
                out[i] = replace(again, first_confidence=out[i].confidence, first_digit=out[i].digit)
    return out, len(weak)


def read_with_grouping(engine: DigitEngine, crops: Sequence[np.ndarray], glyphs: Sequence[np.ndarray],
                       *, n: int, max_diff: float, recheck_below: float = 0.0,
                       second_look_below: float = 0.0) -> tuple[list[Reading], int]:
    """Read every crop, recognising one representative per glyph group.

    A group whose representative was read with a confidence below ``recheck_below`` has
    all its other members recognised individually (one more batch), so an unsure reading
    is never copied to other cells. Every crop recognised whose reading is below
    ``second_look_below`` gets a :func:`second_look` (one more batch).

    Returns the readings (one per crop) and the number of crops sent to the engine.
    """
    reps, group_of = group_glyphs(glyphs, max_diff=max_diff)
    if not reps:
        return [], 0
    rep_crops = [crops[i] for i in reps]
    rep_readings, looked = second_look(engine, rep_crops, engine.read_digits(rep_crops, n=n), n=n,
                                       below=second_look_below)
    readings = [rep_readings[g] for g in group_of]
    rep_set = set(reps)
    unsure = [i for i, g in enumerate(group_of) if i not in rep_set and rep_readings[g].confidence < recheck_below]
    if unsure:
        unsure_crops = [crops[i] for i in unsure]
        again, more = second_look(engine, unsure_crops, engine.read_digits(unsure_crops, n=n), n=n,
                                  below=second_look_below)
        looked += more
        for i, reading in zip(unsure, again):
            readings[i] = reading
    return readings, len(reps) + len(unsure) + looked


class GlyphBank:
    """Recognitions remembered across the frames of one video.

    A crop whose ink map matches a remembered one (no 4x4 block differs by more than
    ``max_diff`` mean ink, the test that shares recognitions within an image) reuses its
    reading: under grain and shake the same digits of the same font keep coming back.
    Only readings at or above ``min_confidence`` are remembered, the latest ``size`` of them.
    """

    def __init__(self, *, max_diff: float, min_confidence: float, size: int = 64) -> None:
        self.max_diff = max_diff
        self.min_confidence = min_confidence
        self.size = size
        self._glyphs: list[np.ndarray] = []
        self._readings: list[Reading] = []
        self._stack: np.ndarray | None = None

    def find(self, glyph: np.ndarray) -> Reading | None:
        """The remembered reading of a matching glyph, or None."""
        if self.max_diff <= 0 or not self._glyphs:
            return None
        if self._stack is None:
            self._stack = np.stack(self._glyphs).astype(np.float32)
        k, h, w = self._stack.shape
        diff = np.abs(self._stack - glyph.astype(np.float32)[None]).reshape(k * h, w)
        # exact 4x4 block means by area resampling (integer factor)
        blocks = cv2.resize(diff, (w // 4, k * h // 4), interpolation=cv2.INTER_AREA)
        worst = blocks.reshape(k, h // 4 * (w // 4)).max(axis=1)
        best = int(np.argmin(worst))
        return self._readings[best] if worst[best] <= self.max_diff else None

    def add(self, glyph: np.ndarray, reading: Reading) -> None:
        if reading.digit < 1 or reading.confidence < self.min_confidence:
            return
        self._glyphs.append(glyph)
        self._readings.append(reading)
        if len(self._glyphs) > self.size:
            del self._glyphs[0], self._readings[0]
        self._stack = None
