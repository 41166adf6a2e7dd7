"""Videos dithered on a coarse fixed palette - what a plain ``ffmpeg -i answer.mp4 answer.gif``
writes (``bgr8``) - are told apart from others and read smoothed; nothing else is touched."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from video_helpers import write_gif, write_video

from cvcheck.config import MediaConfig
from cvcheck.media.video import iter_frames
from cvcheck.vision.dither import is_posterized, smooth_dither

LINE_ROW = slice(40, 42)  #: a 2-px grey wall line across the scene


def _scene(blank: bool = False) -> np.ndarray:
    """White paper, a grey wall line, a green dot and a soft shadow: colours a 3-3-2 palette has not."""
    frame = np.full((96, 128, 3), 250, np.uint8)
    if blank:
        return frame
    frame[LINE_ROW, 10:118] = 150
    yy, xx = np.mgrid[:96, :128]
    frame[(yy - 70) ** 2 + (xx - 40) ** 2 <= 36] = (40, 170, 60)
    frame[80:, :] = np.clip(250 - (xx[80:] // 4), 0, 255)[..., None].astype(np.uint8)
    return frame


def _spread(frame: np.ndarray) -> np.ndarray:
    """Max minus min channel of each pixel: 0 for a neutral grey."""
    return frame.max(-1).astype(int) - frame.min(-1)


def test_a_fixed_palette_gif_is_smoothed_back_to_neutral_lines_and_says_so(tmp_path: Path) -> None:
    path = write_gif(tmp_path / "a.gif", [_scene()] * 4)
    raw_reader = iter_frames(path, config=MediaConfig(undither="off"))
    raw = list(raw_reader)
    assert not raw_reader.undithered and not raw_reader.report()["undithered"]
    line = raw[0][LINE_ROW, 20:100]
    assert _spread(line).max() >= 40  # the grey line became a pattern of bluish and yellowish pixels
    reader = iter_frames(path)
    frames = list(reader)
    assert reader.undithered and reader.report()["undithered"]
    assert any("coarse palette" in note for note in reader.notes())
    line = frames[0][LINE_ROW, 20:100].astype(int)
    assert _spread(line).max() <= 30 and line.mean() < 200  # neutral again, and well darker than the paper (250)


def test_flat_first_frames_leave_the_decision_to_the_first_frame_with_something_drawn(tmp_path: Path) -> None:
    path = write_gif(tmp_path / "fade.gif", [_scene(blank=True)] * 3 + [_scene()] * 3)
    reader = iter_frames(path)
    frames = list(reader)
    assert reader.undithered
    assert _spread(frames[-1][LINE_ROW, 20:100]).max() <= 30


@pytest.mark.parametrize("pix_fmt", ["gray"])
def test_a_gif_with_enough_levels_is_read_as_it_is(tmp_path: Path, pix_fmt: str) -> None:
    path = write_gif(tmp_path / "g.gif", [_scene()] * 3, pix_fmt=pix_fmt)
    reader = iter_frames(path)
    frames = list(reader)
    assert reader.undithered is False
    assert all(np.array_equal(a, b) for a, b in zip(frames, iter_frames(path, config=MediaConfig(undither="off"))))


def test_h264_video_is_never_looked_at(tmp_path: Path) -> None:
    path = write_video(tmp_path / "v.mp4", 6)
    reader = iter_frames(path)
    frames = list(reader)
    assert not reader.report()["undithered"] and not any("palette" in n for n in reader.notes())
    assert all(np.array_equal(a, b) for a, b in zip(frames, iter_frames(path, config=MediaConfig(undither="off"))))


def test_posterized_means_few_levels_in_every_channel() -> None:
    scene = _scene()
    assert is_posterized(scene) is False  # (a soft shadow: 32 levels)
    assert is_posterized(_scene(blank=True)) is None  # nothing drawn: nothing to tell
    coarse = (scene // 32 * 32).astype(np.uint8)  # 3-4 levels a channel
    assert is_posterized(coarse) is True
    with pytest.raises(ValueError):
        smooth_dither(coarse, luma_sigma=0)
