"""Synthetic Sudoku answer videos with ground-truth labels.

Kinds: ``gradual`` (a few cells per step), ``all_at_once``, ``self_correcting`` (wrong
digits later overwritten), ``late_clue_drift`` (a clue changes near the end),
``flicker`` (one-frame glitches on top of a gradual fill: not updates), ``wrong_final``
(a cell turns wrong in the last frames). Half of the videos carry per-frame grain and a
third a sub-pixel camera shake, as generated videos do. Every value a cell takes holds at least
``MIN_HOLD`` frames; flicker glitches last exactly one frame. Labels follow D.4.2 from
the true schedule: clue changed in any frame, CV/CA on the final frame, and action
reflection from the per-frame update counts.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .sudoku import (
    CLUE_BANDS,
    Style,
    labels_for,
    make_puzzle_pair,
    random_style,
    render,
)

VIDEO_KINDS = ("gradual", "all_at_once", "self_correcting", "late_clue_drift", "flicker", "wrong_final")
MIN_HOLD = 4
REFLECTION = {"avg_4": 3.0, "avg_9": 5.0, "max_frac": 0.25, "min_active": 0.20}


@dataclass(frozen=True)
class VideoCase:
    """A labelled answer video: frame ``t`` shows ``states[state_of[t]]``."""

    seed: int
    n: int
    kind: str
    puzzle: np.ndarray
    solution: np.ndarray
    states: list[np.ndarray]
    state_of: np.ndarray
    style: Style
    labels: dict[str, Any] = field(default_factory=dict)
    noise: float = 0.0   #: per-frame Gaussian pixel noise (grey levels), like generated video grain
    shake: float = 0.0   #: per-frame camera shake (pixels, sub-pixel shifts)

    @property
    def frames(self) -> int:
        return int(self.state_of.size)

    def iter_frames(self) -> Iterator[np.ndarray]:
        """Rendered RGB frames (each distinct state rendered once, then per-frame grain and shake)."""
        import cv2

        cache: dict[int, np.ndarray] = {}
        clues = self.puzzle != 0
        rng = np.random.default_rng(self.seed + 1)
        for s in self.state_of:
            if int(s) not in cache:
                cache[int(s)] = render(self.states[int(s)], clues, self.style)
            frame = cache[int(s)]
            if self.shake:
                dx, dy = rng.uniform(-self.shake, self.shake, 2)
                m = np.array([[1, 0, dx], [0, 1, dy]], np.float32)
                frame = cv2.warpAffine(frame, m, frame.shape[1::-1], flags=cv2.INTER_LINEAR,
                                       borderMode=cv2.BORDER_REPLICATE)
            if self.noise:
                grain = rng.normal(0.0, self.noise, frame.shape)
                frame = np.clip(frame + grain, 0, 255).astype(np.uint8)
            yield frame

    def write_mp4(self, path: str | os.PathLike, *, fps: int = 24, crf: int = 23) -> Path:
        """Encode as H.264 MP4 (yuv420p) with PyAV."""
        import av

        out = Path(path)
        with av.open(str(out), mode="w") as container:
            stream = container.add_stream("libx264", rate=fps)
            stream.width = stream.height = self.style.size
            stream.pix_fmt = "yuv420p"
            stream.options = {"crf": str(crf), "preset": "veryfast"}
            for rgb in self.iter_frames():
                for packet in stream.encode(av.VideoFrame.from_ndarray(rgb, format="rgb24")):
                    container.mux(packet)
            for packet in stream.encode():
                container.mux(packet)
        return out

    def manifest(self) -> dict[str, Any]:
        return {"seed": self.seed, "n": self.n, "kind": self.kind, "frames": self.frames,
                "puzzle": self.puzzle.tolist(), "solution": self.solution.tolist(), "labels": self.labels}


def _update_frames(rng: np.random.Generator, steps: int, start: int, end: int) -> list[int]:
    """``steps`` distinct frames in [start, end) (different cells may change on consecutive frames)."""
    slots = np.arange(start, end)
    steps = max(1, min(steps, slots.size))
    return sorted(int(x) for x in rng.choice(slots, size=steps, replace=False))


def make_video_case(seed: int, *, n: int | None = None, kind: str | None = None, frames: int | None = None,
                    style: Style | None = None, noise: float | None = None, shake: float | None = None) -> VideoCase:
    """A labelled answer video fully determined by ``seed`` and the overrides."""
    rng = np.random.default_rng(seed)
    n = n or int(rng.choice([4, 9]))
    kind = kind or str(rng.choice(VIDEO_KINDS))
    frames = frames or (40 if n == 4 else 64)
    if frames < 24:
        raise ValueError(f"a synthetic Sudoku video needs at least 24 frames, got {frames}")
    band = str(rng.choice(list(CLUE_BANDS[n])))
    puzzle, solution = make_puzzle_pair(rng, n=n, band=band)
    if style is None:
        base = random_style(rng)
        size = int(rng.choice([256, 320, 384, 448, 512]))
        style = Style(**{**base.__dict__, "size": size, "jpeg": 0, "blur": min(base.blur, 0.8)})
    empties = [tuple(int(v) for v in rc) for rc in rng.permutation(np.argwhere(puzzle == 0))]
    if kind != "all_at_once" and rng.random() < 0.5:
        empties.sort()  # models often fill row by row from the top-left
    hold0 = MIN_HOLD + int(rng.integers(0, 4))
    tail = MIN_HOLD + 2 if kind != "wrong_final" else 2 * MIN_HOLD + 2
    events: dict[int, list[tuple[int, int, int]]] = {}
    if kind == "all_at_once":
        events[hold0] = [(r, c, int(solution[r, c])) for r, c in empties]
    else:
        max_steps = min(len(empties), frames - hold0 - tail)
        steps = int(rng.integers(min(max_steps, max(2, max_steps // 8)), max_steps + 1))
        when = _update_frames(rng, steps, hold0, frames - tail)
        chunks = np.array_split(np.arange(len(empties)), len(when))
        for f, chunk in zip(when, chunks):
            events.setdefault(f, []).extend((empties[i][0], empties[i][1], int(solution[empties[i]])) for i in chunk)
        if kind == "self_correcting":
            filled = [(f, e) for f, evs in events.items() for e in evs]
            for _ in range(int(rng.integers(1, 4))):
                f, (r, c, d) = filled[int(rng.integers(len(filled)))]
                wrong = int(rng.choice([x for x in range(1, n + 1) if x != d]))
                later = list(range(f + MIN_HOLD, frames - tail))
                if not later:
                    continue
                events[f] = [e for e in events[f] if e[:2] != (r, c)] + [(r, c, wrong)]
                events.setdefault(int(rng.choice(later)), []).append((r, c, d))
    if kind == "late_clue_drift":
        r, c = (int(v) for v in np.argwhere(puzzle != 0)[int(rng.integers((puzzle != 0).sum()))])
        wrong = int(rng.choice([x for x in range(1, n + 1) if x != puzzle[r, c]]))
        f = frames - tail - MIN_HOLD * int(rng.integers(1, 3))
        events.setdefault(max(hold0 + 1, f), []).append((r, c, wrong))
        if rng.random() < 0.5:
            events.setdefault(frames - MIN_HOLD - 1, []).append((r, c, int(puzzle[r, c])))
    if kind == "wrong_final":
        r, c = empties[int(rng.integers(len(empties)))]
        wrong = int(rng.choice([x for x in range(1, n + 1) if x != solution[r, c]]))
        events.setdefault(frames - MIN_HOLD - 2, []).append((r, c, wrong))
    # build the per-frame true states
    states = [puzzle.copy()]
    state_of = np.zeros(frames, dtype=np.int64)
    current = puzzle.copy()
    per_frame = np.zeros(frames, dtype=np.int64)
    clue_changed = 0
    for t in range(frames):
        if t in events:
            nxt = current.copy()
            for r, c, d in events[t]:
                nxt[r, c] = d
            per_frame[t] = int((nxt != current).sum())
            clue_changed |= int(((puzzle != 0) & (nxt != puzzle)).any())
            current = nxt
            states.append(current.copy())
        state_of[t] = len(states) - 1
    final = states[int(state_of[-1])]
    if kind == "flicker":
        _add_flicker(rng, states, state_of, frames, n)
    labels = labels_for(puzzle, solution, final)
    labels["clues_changed"] = int(clue_changed or labels["clues_changed"])
    labels["overall"] = int(labels["clues_changed"] == 0 and labels["constraint_violation"] == 0
                            and labels["completion_accuracy"] == 1)
    active = per_frame[1:]
    avg = float(active.mean())
    limit = REFLECTION["avg_4"] if n <= 4 else REFLECTION["avg_9"]
    labels["action_reflection"] = int(avg <= limit and active.max() / (n * n) <= REFLECTION["max_frac"]
                                      and (active > 0).mean() >= REFLECTION["min_active"])
    labels["total_updates"] = int(active.sum())
    drawn_noise = float(rng.uniform(1.0, 5.0)) if rng.random() < 0.5 else 0.0
    drawn_shake = float(rng.uniform(0.2, 1.0)) if rng.random() < 0.3 else 0.0
    noise = drawn_noise if noise is None else noise
    shake = drawn_shake if shake is None else shake
    return VideoCase(seed=seed, n=n, kind=kind, puzzle=puzzle, solution=solution, states=states,
                     state_of=state_of, style=style, labels=labels, noise=noise, shake=shake)


def _add_flicker(rng: np.random.Generator, states: list[np.ndarray], state_of: np.ndarray, frames: int,
                 n: int) -> None:
    """One-frame glitches (a digit vanishes or appears), never in the last MIN_HOLD frames."""
    for _ in range(int(rng.integers(2, 6))):
        t = int(rng.integers(1, frames - MIN_HOLD - 1))
        glitch = states[int(state_of[t])].copy()
        r, c = int(rng.integers(n)), int(rng.integers(n))
        glitch[r, c] = 0 if glitch[r, c] else int(rng.integers(1, n + 1))
        states.append(glitch)
        state_of[t] = len(states) - 1
