"""Streaming video reader: probing, frames, stride, in-memory sources, bad files never hang."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest

from cvcheck.errors import MediaError
from cvcheck.media.video import iter_frames, prefetched, probe


def _write(path: Path, n: int = 24, *, faststart: bool = False, fps: int = 12) -> Path:
    import av

    container = av.open(str(path), "w", options={"movflags": "faststart"} if faststart else {})
    stream = container.add_stream("libx264", rate=fps)
    stream.width, stream.height, stream.pix_fmt = 64, 48, "yuv420p"
    for i in range(n):
        frame = np.full((48, 64, 3), 255, np.uint8)
        frame[:, (2 * i) % 56:(2 * i) % 56 + 8] = (0, 200, 0)
        for packet in stream.encode(av.VideoFrame.from_ndarray(frame, format="rgb24")):
            container.mux(packet)
    for packet in stream.encode():
        container.mux(packet)
    container.close()
    return path


@pytest.fixture(scope="module")
def clip(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write(tmp_path_factory.mktemp("video") / "clip.mp4", 24)


@pytest.fixture(scope="module")
def faststart(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write(tmp_path_factory.mktemp("video") / "fast.mp4", 48, faststart=True)


def test_probe_reports_count_rate_size(clip: Path) -> None:
    info = probe(clip)
    assert (info.frames, info.fps, info.width, info.height) == (24, 12.0, 64, 48)
    assert info.duration == pytest.approx(2.0, abs=0.1)


def test_frames_are_rgb_uint8_and_complete(clip: Path) -> None:
    reader = iter_frames(clip)
    frames = list(reader)
    assert len(frames) == 24 == reader.frames_read
    assert frames[0].shape == (48, 64, 3) and frames[0].dtype == np.uint8
    assert frames[0][24, 4, 1] > 150 and frames[0][24, 4, 0] < 80  # the green bar, in RGB order
    assert not reader.truncated and reader.error is None


def test_stride_and_max_frames(clip: Path) -> None:
    reader = iter_frames(clip, stride=5)
    assert sum(1 for _ in reader) == 5 and reader.frames_decoded == 24
    assert sum(1 for _ in iter_frames(clip, max_frames=3)) == 3
    with pytest.raises(MediaError):
        iter_frames(clip, stride=0)


def test_in_memory_frames_validated_and_unmodified() -> None:
    stack = np.zeros((3, 8, 8), np.uint8)  # three grey frames
    frames = [f for f in stack]
    out = list(iter_frames(frames))
    assert [f.shape for f in out] == [(8, 8, 3)] * 3
    assert stack.shape == (3, 8, 8) and not stack.any()
    assert len(list(iter_frames(np.zeros((2, 4, 4, 3), np.uint8)))) == 2
    with pytest.raises(MediaError):
        list(iter_frames([np.zeros((4, 4, 7))]))
    with pytest.raises(MediaError):
        list(iter_frames([]))


@pytest.mark.parametrize("make", ["missing", "empty", "directory", "text"])
def test_unreadable_files_raise_media_error(tmp_path: Path, make: str) -> None:
    path = tmp_path / "x.mp4"
    if make == "empty":
        path.write_bytes(b"")
    elif make == "directory":
        path.mkdir()
    elif make == "text":
        path.write_text("this is not a video\n" * 50)
    with pytest.raises(MediaError):
        iter_frames(path)
    with pytest.raises(MediaError):
        probe(path)


def test_truncated_file_yields_a_reported_partial_read(faststart: Path, tmp_path: Path) -> None:
    data = faststart.read_bytes()
    cut = tmp_path / "cut.mp4"
    cut.write_bytes(data[: int(len(data) * 0.85)])
    reader = iter_frames(cut)
    frames = list(reader)
    assert 0 < len(frames) < 48
    assert reader.truncated and reader.error


def test_truncated_without_index_is_a_clear_error(clip: Path, tmp_path: Path) -> None:
    cut = tmp_path / "cut.mp4"  # moov atom at the end: nothing is decodable
    cut.write_bytes(clip.read_bytes()[: clip.stat().st_size // 2])
    with pytest.raises(MediaError, match="corrupt, truncated or not a video"):
        iter_frames(cut)


def test_corrupt_packets_never_hang(faststart: Path, tmp_path: Path) -> None:
    data = bytearray(faststart.read_bytes())
    rng = np.random.default_rng(0)
    for i in rng.integers(len(data) // 3, len(data), 300):
        data[i] = int(rng.integers(256))
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(bytes(data))
    t = time.perf_counter()
    try:
        reader = iter_frames(bad)
        n = sum(1 for _ in reader)
        assert n <= 48 and (reader.truncated or n == 48)
    except MediaError:
        pass
    assert time.perf_counter() - t < 10


def test_prefetched_forwards_frames_errors_and_stops_early(clip: Path) -> None:
    assert sum(1 for _ in prefetched(iter_frames(clip), depth=2)) == 24

    def broken():
        yield np.zeros((2, 2, 3), np.uint8)
        raise MediaError("boom")

    with pytest.raises(MediaError, match="boom"):
        list(prefetched(broken()))
    gen = prefetched(iter_frames(clip), depth=1)
    next(gen)
    gen.close()  # must not block on the full queue
