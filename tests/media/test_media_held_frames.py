"""Frames an encoder stored once but shows for several frame periods count once a period."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from benchmarks.maze_formats import FORMATS, write
from cvcheck.config import MediaConfig
from cvcheck.media.timing import frame_periods
from cvcheck.media.video import iter_frames

# -- the frame period from display times ------------------------------------------------------------


def test_frames_shown_one_period_each_need_nothing() -> None:
    assert frame_periods([1 / 24] * 10) is None
    assert frame_periods([0.041, 0.042, 0.041, 0.042]) is None  # (whole milliseconds of 24 fps)


def test_merged_runs_count_their_periods() -> None:
    got = frame_periods([0.041, 0.042, 0.083, 0.125, 0.041, 0.458])  # a WebP of a 24-fps video
    assert got is not None
    assert got.counts == (1, 1, 2, 3, 1, 11) and got.frames == 19 and got.repeated == 13
    assert got.fps == pytest.approx(24, rel=0.01)


def test_gif_centiseconds() -> None:
    got = frame_periods([0.04, 0.04, 0.05, 0.04, 0.08, 0.13, 0.04])  # 24 fps as GIF delays
    assert got is not None and got.counts == (1, 1, 1, 1, 2, 3, 1)


def test_one_odd_short_frame_is_not_the_rate() -> None:
    got = frame_periods([0.02, 1 / 12, 1 / 12, 1 / 6])
    assert got is not None and got.counts == (1, 1, 1, 2) and got.fps == pytest.approx(12, rel=0.02)
    assert frame_periods([0.02, 0.1, 0.3]) is None  # no two frames share a time: nothing to go by


def test_frames_without_a_time_count_one() -> None:
    got = frame_periods([0.0, float("nan"), -1.0, 0.05, 0.05, 0.1])
    assert got is not None and got.counts == (1, 1, 1, 1, 1, 2)
    assert frame_periods([0.0, 0.0, 0.05]) is None


def test_any_rate_and_holds_are_recovered_from_whole_milliseconds() -> None:
    rng = np.random.default_rng(20261207)
    for _ in range(300):
        fps = float(rng.uniform(8, 60))
        counts = rng.integers(1, 7, size=int(rng.integers(4, 60)))
        counts[rng.integers(0, counts.size, size=2)] = 1  # (at least one frame shown one period)
        counts[0] = counts[1] = 1
        ends = np.round(np.cumsum(counts) / fps * 1000)  # display ends in whole ms, as a WebP muxer rounds them
        durations = np.diff(np.concatenate([[0.0], ends])) / 1000
        got = frame_periods(durations)
        if (counts == 1).all():
            assert got is None
            continue
        assert got is not None and got.counts == tuple(int(c) for c in counts), fps
        assert got.fps == pytest.approx(fps, rel=0.01)


# -- files ------------------------------------------------------------------------------------------


def _held_bars() -> tuple[list[np.ndarray], list[int]]:
    """White frames with a green bar; the bar stands still for runs of frames (an encoder
    stores each run once): the bar's step in each frame."""
    steps = [0, 0, 0, 1, 2, 2, 3, 4, 4, 4, 4, 5]
    frames = []
    for s in steps:
        frame = np.full((48, 96, 3), 255, np.uint8)
        frame[:, 8 * s:8 * s + 8] = (0, 200, 0)
        frames.append(frame)
    return frames, steps


def _step(frame: np.ndarray) -> int:
    green = (frame[:, :, 1].astype(int) - frame[:, :, 0]) > 100
    return round(int(np.flatnonzero(green.any(axis=0))[0]) / 8)


@pytest.mark.parametrize("fmt", ["webp", "gif"])
def test_an_encoders_merged_frames_are_shown_for_their_time(tmp_path: Path, fmt: str) -> None:
    frames, steps = _held_bars()
    path = tmp_path / f"answer{FORMATS[fmt].suffix}"
    write(frames, Fraction(12), path, FORMATS[fmt])  # as `ffmpeg -i answer.mp4 answer.webp` (or .gif) writes it
    stored = iter_frames(path, config=MediaConfig(held_frames="once"))
    assert [_step(f) for f in stored] == [0, 1, 2, 3, 4, 5]  # each run stored once
    reader = iter_frames(path)
    assert [_step(f) for f in reader] == steps
    assert reader.frames_decoded == 6 and reader.frames_repeated == 6 and not reader.truncated
    assert reader.fps == pytest.approx(12, rel=0.05) and reader.frames_expected == 12
    assert reader.report()["frames_repeated"] == 6 and any("media.held_frames" in n for n in reader.notes())
    strided = iter_frames(path, stride=2)
    assert [_step(f) for f in strided] == steps[::2]
    cut = iter_frames(path, max_frames=9)  # inside the hold of step 4
    assert [_step(f) for f in cut] == steps[:9] and cut.max_frames_reached


def test_frames_shown_one_period_each_are_read_as_stored(tmp_path: Path) -> None:
    frames, _ = _held_bars()
    path = tmp_path / "answer.webm"  # (WebM's time stamps are read, as any container's but MP4's)
    write(frames, Fraction(12), path, FORMATS["webm"])
    reader = iter_frames(path)
    assert len(list(reader)) == 12 and reader.frames_repeated == 0 and reader.periods is None
    assert reader.fps == pytest.approx(12)
