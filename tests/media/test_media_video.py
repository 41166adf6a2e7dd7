"""Streaming video reader: probing, frames, stride, in-memory sources, bad files never hang."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np
import pytest
from video_helpers import write_video

from cvcheck.errors import MediaError
from cvcheck.media.video import iter_frames, prefetched, probe


def _write(path: Path, n: int = 24, *, faststart: bool = False) -> Path:
    return write_video(path, n, options={"movflags": "faststart"} if faststart else None)


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


def test_decoder_threads_give_the_same_frames(clip: Path) -> None:
    auto, one = list(iter_frames(clip)), list(iter_frames(clip, threads=1))
    assert len(auto) == len(one) == 24 and all(np.array_equal(a, b) for a, b in zip(auto, one))
    for bad in (-1, 1.5, True):
        with pytest.raises(MediaError, match="threads"):
            iter_frames(clip, threads=bad)  # type: ignore[arg-type]


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


def test_prefetched_reads_only_the_first_frames_ahead() -> None:
    """With ``count``, the first frames come from the background thread and the rest from the
    caller's, in order; an error after them is raised in the caller."""
    def frames(n: int, fail_at: int | None = None):
        for i in range(n):
            if i == fail_at:
                raise MediaError(f"bad frame {i}")
            yield i, threading.current_thread().name

    got = list(prefetched(frames(10), depth=2, count=4))
    assert [i for i, _ in got] == list(range(10))
    assert [name for _, name in got] == ["cvcheck-frames"] * 4 + [threading.current_thread().name] * 6
    assert [i for i, _ in prefetched(frames(3), count=4)] == [0, 1, 2]  # (fewer frames than count)
    with pytest.raises(MediaError, match="bad frame 6"):
        list(prefetched(frames(10, fail_at=6), count=4))
    with pytest.raises(MediaError, match="bad frame 2"):
        list(prefetched(frames(10, fail_at=2), count=4))
    gen = prefetched(frames(10), depth=1, count=4)
    next(gen)
    gen.close()  # must not block on the full queue


# -- truth about completeness: variable frame rates, cut tails, max_frames ----------------

def _write_timed(path: Path, n: int = 30, *, vfr: bool, codec: str = "libx264", options: dict | None = None) -> Path:
    """``vfr``: per-frame timestamps 40 ms / 200 ms apart (no constant rate)."""
    return write_video(path, n, codec=codec, options=options, vfr=vfr)


def _packet_offsets(path: Path) -> list[int]:
    import av

    with av.open(str(path)) as c:
        return [p.pos for p in c.demux(c.streams.video[0]) if p.size]


def _encoder(name: str) -> bool:
    import av

    try:
        av.codec.Codec(name, "w")
    except Exception:  # (a build of FFmpeg without it)
        return False
    return True


FORMATS = [("mp4", "libx264", {"movflags": "faststart"}), ("mkv", "libx264", {}), ("webm", "libvpx-vp9", {}),
           ("avi", "mpeg4", {}),
           # AV1 in MP4 (decoded by dav1d), as videos saved from the web may be
           pytest.param("mp4", "libsvtav1", {"movflags": "faststart"},
                        marks=pytest.mark.skipif(not _encoder("libsvtav1"), reason="no SVT-AV1 encoder in this PyAV"))]


@pytest.mark.parametrize("ext, codec, options", FORMATS)
@pytest.mark.parametrize("vfr", [False, True])
def test_complete_videos_are_never_called_truncated(tmp_path: Path, ext: str, codec: str, options: dict,
                                                    vfr: bool) -> None:
    path = _write_timed(tmp_path / f"v.{ext}", vfr=vfr, codec=codec, options=options)
    reader = iter_frames(path)
    n = sum(1 for _ in reader)
    assert reader.frames_decoded == 30  # the count comes from decoding
    # a frame shown 200 ms among 40-ms ones counts five frame periods (the last one: as its container times it)
    assert n == 30 + reader.frames_repeated and reader.frames_repeated in ((40, 41) if vfr else (0,))
    assert not reader.truncated and reader.error is None and not reader.max_frames_reached


@pytest.mark.parametrize("ext, codec, options", FORMATS)
@pytest.mark.parametrize("vfr", [False, True])
@pytest.mark.parametrize("k", [1, 2, 5])
def test_cutting_the_last_packets_is_noticed(tmp_path: Path, ext: str, codec: str, options: dict, vfr: bool,
                                             k: int) -> None:
    path = _write_timed(tmp_path / f"v.{ext}", vfr=vfr, codec=codec, options=options)
    data = path.read_bytes()
    start = _packet_offsets(path)[-k]
    for cut_at in (start, start + 5):  # at a packet's start, and inside it
        cut = tmp_path / f"cut.{ext}"
        cut.write_bytes(data[:cut_at])
        reader = iter_frames(cut)
        n = sum(1 for _ in reader)
        assert reader.truncated and reader.error, (cut_at, n)
        assert reader.frames_decoded <= 30 - k + 1


def test_max_frames_cut_is_reported_not_silent(tmp_path: Path) -> None:
    from cvcheck.config import MediaConfig

    path = _write_timed(tmp_path / "v.mp4", vfr=True, options={"movflags": "faststart"})
    exact = iter_frames(path, config=MediaConfig(max_frames=30, held_frames="once"))
    assert sum(1 for _ in exact) == 30 and not exact.max_frames_reached  # nothing was left
    # 70 frame periods: every third frame is shown for five (frame 27: periods 63-67); cut inside its hold
    held = iter_frames(path, config=MediaConfig(max_frames=65))
    assert sum(1 for _ in held) == 65 and held.max_frames_reached and held.frames_decoded == 28
    reader = iter_frames(path, config=MediaConfig(max_frames=10))
    assert sum(1 for _ in reader) == 10 and reader.max_frames_reached and not reader.truncated
    assert reader.report()["max_frames_reached"] and any("media.max_frames" in note for note in reader.notes())
    arrays = iter_frames([np.zeros((4, 4, 3), np.uint8)] * 5, max_frames=3)
    assert sum(1 for _ in arrays) == 3 and arrays.max_frames_reached


def test_sudoku_refuses_a_video_cut_by_max_frames_and_maze_notes_it(tmp_path: Path) -> None:
    import av
    import cv2

    from cvcheck.config import Config
    from cvcheck.maze.task import grade as grade_maze
    from cvcheck.sudoku.task import grade as grade_sudoku
    from cvcheck.synth.maze_cases import make_case

    case = make_case(3)
    ref = tmp_path / "ref.png"
    cv2.imwrite(str(ref), case.reference[:, :, ::-1])
    h, w = (s - s % 2 for s in case.reference.shape[:2])
    path = tmp_path / "v.mp4"  # 12 frames of the solution picture: a maze is found in every one
    with av.open(str(path), "w") as container:
        stream = container.add_stream("libx264", rate=12)
        stream.width, stream.height, stream.pix_fmt = w, h, "yuv420p"
        for _ in range(12):
            frame = av.VideoFrame.from_ndarray(np.ascontiguousarray(case.reference[:h, :w]), format="rgb24")
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    cfg = Config().with_overrides(["media.max_frames=5"])
    with pytest.raises(MediaError, match="media.max_frames"):
        grade_sudoku(path, puzzle="1.3..4.2.1.3...1", solution="1234341221434321", config=cfg)
    result = grade_maze(path, reference=ref, config=cfg)
    assert result.details["read"]["max_frames_reached"] and result.details["read"]["frames_read"] == 5
    assert any("media.max_frames" in n for n in result.details["notes"])
    full = grade_maze(path, reference=ref, config=Config())
    assert not full.details["read"]["max_frames_reached"] and full.details["read"]["frames_read"] == 12


def test_frames_over_the_aspect_limit_are_refused(tmp_path: Path) -> None:
    with pytest.raises(MediaError, match="max_aspect_ratio"):
        list(iter_frames([np.zeros((2, 400, 3), np.uint8)]))

