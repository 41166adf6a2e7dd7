"""Animated PNG and WebP answers: told from stills by their headers, read as videos, cut files read up to the cut."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from benchmarks.maze_formats import FORMATS, write
from cvcheck.errors import MediaError
from cvcheck.media.animated import WebpAnimation, animation_format
from cvcheck.media.image import load_image
from cvcheck.media.video import is_video, iter_frames, modality_of, probe


def _bars(n: int = 8) -> list[np.ndarray]:
    """White frames with a green bar moving 8 px a frame."""
    frames = []
    for i in range(n):
        frame = np.full((48, 96, 3), 255, np.uint8)
        frame[:, 8 * i:8 * i + 8] = (0, 200, 0)
        frames.append(frame)
    return frames


@pytest.fixture(scope="module")
def webp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("animated") / "answer.webp"
    write(_bars(), Fraction(12), path, FORMATS["webp"])  # as `ffmpeg -i answer.mp4 answer.webp` writes it
    return path


def _bar_at(frame: np.ndarray) -> int:
    """The column where the green bar starts."""
    green = (frame[:, :, 1].astype(int) - frame[:, :, 0]) > 100
    return int(np.flatnonzero(green.any(axis=0))[0])


def test_an_animated_webp_is_a_video_read_frame_by_frame(webp: Path) -> None:
    assert animation_format(webp) == "webp"
    assert is_video(webp) and modality_of({"answer": str(webp)}) == "video"
    info = probe(webp)
    assert (info.frames, info.width, info.height, info.frames_exact) == (8, 96, 48, True)
    assert info.fps == pytest.approx(12, rel=0.05)  # (display times are whole milliseconds: 83 ms)
    reader = iter_frames(webp)
    frames = list(reader)
    assert len(frames) == 8 and not reader.truncated and reader.error is None
    assert [abs(_bar_at(f) - 8 * i) <= 1 for i, f in enumerate(frames)] == [True] * 8
    assert frames[0].shape == (48, 96, 3) and frames[0].dtype == np.uint8


def test_an_animated_webp_honours_stride_and_max_frames(webp: Path) -> None:
    reader = iter_frames(webp, stride=3)
    assert [round(_bar_at(f) / 8) for f in reader] == [0, 3, 6]
    assert reader.frames_decoded == 8
    reader = iter_frames(webp, max_frames=2)
    assert len(list(reader)) == 2 and reader.max_frames_reached and not reader.truncated


def test_a_webp_cut_short_gives_its_whole_frames_and_says_where(webp: Path, tmp_path: Path) -> None:
    data = webp.read_bytes()
    cut = tmp_path / "cut.webp"
    cut.write_bytes(data[:int(len(data) * 0.7)])
    reader = iter_frames(cut)
    frames = list(reader)
    assert 1 <= len(frames) < 8 and reader.truncated
    assert reader.error is not None and "cut short" in reader.error and "ANMF" in reader.error
    assert [round(_bar_at(f) / 8) for f in frames] == list(range(len(frames)))
    second = tmp_path / "second.webp"  # the first frame whole, the file ends inside the second
    second.write_bytes(data[:data.index(b"ANMF", data.index(b"ANMF") + 4) + 60])
    assert is_video(second) and probe(second).frames == 2  # (frames declared, as a container's index)
    reader = iter_frames(second)
    assert len(list(reader)) == 1 and reader.truncated and "cut short" in str(reader.error)
    head = tmp_path / "head.webp"
    head.write_bytes(data[:40])  # inside the first frame: nothing to read
    with pytest.raises(MediaError, match="no decodable frames|not an animated WebP"):
        list(iter_frames(head))
    assert not is_video(head)


def test_a_webp_with_a_damaged_frame_is_a_clear_error(webp: Path, tmp_path: Path) -> None:
    data = bytearray(webp.read_bytes())
    second = data.index(b"ANMF", data.index(b"ANMF") + 4)
    data[second + 40:second + 60] = bytes(20)  # inside the second frame's bitstream
    bad = tmp_path / "bad.webp"
    bad.write_bytes(bytes(data))
    assert is_video(bad)  # (its headers are whole)
    with pytest.raises(MediaError, match="cannot open video .*corrupt"):
        list(iter_frames(bad))


def test_a_still_webp_or_png_stays_an_image(tmp_path: Path) -> None:
    rgb = _bars(1)[0]
    for name in ("still.webp", "still.png"):
        path = tmp_path / name
        Image.fromarray(rgb).save(path)
        assert animation_format(path) is None and not is_video(path)
        assert modality_of({"answer": str(path)}) == "image"
        assert load_image(path).shape == (48, 96, 3)
    one = tmp_path / "one.png"  # an APNG of a single frame is a still
    Image.fromarray(rgb).save(one, save_all=True, append_images=[], default_image=False)
    assert not is_video(one)


def test_an_animated_png_named_apng_is_read_as_a_video(tmp_path: Path) -> None:
    path = tmp_path / "answer.apng"
    write(_bars(6), Fraction(12), path, FORMATS["apng"])
    assert is_video(path) and modality_of({"answer": str(path)}) == "video"
    reader = iter_frames(path)
    frames = list(reader)
    assert len(frames) == 6 and not reader.truncated
    assert frames[5][:, 40:48, 1].min() == 200 and frames[0][:, 40:48].min() == 255  # the bar moved


def test_an_animated_png_named_png_is_a_video(tmp_path: Path) -> None:
    path = tmp_path / "answer.png"
    write(_bars(6), Fraction(12), path, FORMATS["apng-png"])
    assert animation_format(path) == "apng" and is_video(path)
    frames = list(iter_frames(path))
    assert [_bar_at(f) for f in frames] == [0, 8, 16, 24, 32, 40]


@pytest.mark.parametrize("data", [
    b"RIFF\xff\xff\xff\xffWEBPVP8X" + bytes(10),                    # a RIFF size far past the end
    b"RIFF\x20\x00\x00\x00WEBPVP8X\x0a\x00\x00\x00\x02" + bytes(9),  # animated, with no frame
    b"RIFF\x30\x00\x00\x00WEBPANMF\xff\xff\xff\x7f" + bytes(20),     # a frame chunk of 2 GB
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\x08acTL\x00\x00\x00\x05",       # an APNG cut in its acTL
    b"\x89PNG\r\n\x1a\n" + b"\xff" * 12,                               # a chunk longer than the file
])
def test_broken_headers_are_stills_or_clear_errors(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / ("bad.webp" if data.startswith(b"RIFF") else "bad.png")
    path.write_bytes(data)
    assert not is_video(path)
    with pytest.raises(MediaError):
        list(iter_frames(path))
    with pytest.raises(MediaError):
        load_image(path)
    if data.startswith(b"RIFF"):
        with pytest.raises(MediaError):
            WebpAnimation.from_path(path)


def test_closing_a_webp_reader_early_releases_it(webp: Path) -> None:
    reader = iter_frames(webp)
    next(reader)
    reader.close()
    assert reader._images is None and reader.frames_read == 1


def test_a_named_pipe_is_never_waited_on(tmp_path: Path) -> None:
    import os
    import threading

    answers = []
    for name in ("pipe.png", "pipe.webp"):
        os.mkfifo(tmp_path / name)  # opening one to read blocks until a writer comes: none will
        answers.append(tmp_path / name)
    told: list[bool] = []
    thread = threading.Thread(target=lambda: told.extend(is_video(p) for p in answers), daemon=True)
    thread.start()
    thread.join(timeout=120)  # (a wide margin: it takes microseconds)
    assert not thread.is_alive() and told == [False, False]
