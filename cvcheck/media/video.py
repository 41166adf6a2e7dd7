"""Streaming video reading (PyAV): one RGB frame at a time, constant memory.

>>> reader = iter_frames("answer.mp4", stride=2)        # doctest: +SKIP
>>> for frame in reader: ...                             # doctest: +SKIP
>>> reader.frames_read, reader.truncated, reader.error   # doctest: +SKIP

Guards: missing, empty, oversized, not-a-video and unopenable files raise
:class:`~cvcheck.errors.MediaError` before the first frame. A file that breaks
*during* decoding (truncated, corrupt packets) yields what could be decoded; the
reader then reports ``truncated=True`` and the reason in ``error`` (and raises
MediaError only when not a single frame decoded). Decoding is bounded: at most
``media.max_frames`` frames and a fixed number of packets/consecutive errors, so a
pathological file can never hang the reader.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Generator, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..config import MediaConfig
from ..errors import InputError, MediaError
from ..vision.arrays import as_rgb

VideoSource = str | os.PathLike | Iterable[np.ndarray]

VIDEO_SUFFIXES = frozenset({".mp4", ".m4v", ".mov", ".webm", ".mkv", ".avi", ".gif"})  #: read as videos


def is_video(path: str | os.PathLike) -> bool:
    """Whether a path names a video (by its suffix; nothing is opened)."""
    return Path(path).suffix.lower() in VIDEO_SUFFIXES


def modality_of(sample: Mapping[str, Any]) -> str:
    """A manifest sample's modality: its ``modality`` field, else ``video`` or ``image`` by the answer's suffix."""
    mod = sample.get("modality")
    if mod in ("image", "video", "text"):
        return str(mod)
    return "video" if is_video(str(sample.get("answer") or "")) else "image"


MAX_CONSECUTIVE_ERRORS = 16    #: corrupt packets in a row before the rest of the file is given up
PACKETS_PER_FRAME_LIMIT = 8    #: demuxed packets allowed per decoded frame (plus a fixed allowance)


@dataclass(frozen=True)
class VideoInfo:
    """What the container says about a video (``frames``/``duration`` may be estimates)."""

    frames: int           #: frame count from the container (0 when unknown)
    fps: float            #: average frame rate (0.0 when unknown)
    width: int
    height: int
    duration: float       #: seconds (0.0 when unknown)
    codec: str = ""


def _check_file(path: str | os.PathLike, cfg: MediaConfig) -> Path:
    p = Path(path)
    if not p.exists():
        raise MediaError(f"video {p} does not exist")
    if not p.is_file():
        raise MediaError(f"video {p} is not a file")
    size = p.stat().st_size
    if size == 0:
        raise MediaError(f"video {p} is empty (0 bytes)")
    if size > cfg.max_file_bytes:
        raise MediaError(f"video {p} is {size:,} bytes, over media.max_file_bytes")
    return p


def _open(p: Path):  # -> av.container.InputContainer
    import av

    try:
        container = av.open(str(p), mode="r", timeout=10.0)
    except (av.error.FFmpegError, OSError, ValueError, UnicodeDecodeError) as exc:
        raise MediaError(f"cannot open video {p}: corrupt, truncated or not a video ({exc})") from exc
    if not container.streams.video:
        container.close()
        raise MediaError(f"{p} has no video stream")
    return container


def _info(container, p: Path) -> VideoInfo:
    stream = container.streams.video[0]
    ctx = stream.codec_context
    rate = stream.average_rate or stream.guessed_rate or stream.base_rate
    fps = float(rate) if rate else 0.0
    duration = 0.0
    if stream.duration is not None and stream.time_base is not None:
        duration = float(stream.duration * stream.time_base)
    elif container.duration is not None:
        duration = container.duration / 1_000_000
    frames = int(stream.frames or 0)
    if frames == 0 and fps and duration:
        frames = int(round(fps * duration))
    if not (ctx.width and ctx.height):
        raise MediaError(f"{p}: video stream has no frame size")
    return VideoInfo(frames=frames, fps=fps, width=int(ctx.width), height=int(ctx.height),
                     duration=duration, codec=str(ctx.name or ""))


def probe(path: str | os.PathLike, *, config: MediaConfig | None = None) -> VideoInfo:
    """Frame count, fps, size and duration of a video file, without decoding it.

    Raises
    ------
    MediaError
        Missing, empty, oversized or unreadable files, files with no video stream.
    """
    p = _check_file(path, config or MediaConfig())
    container = _open(p)
    try:
        return _info(container, p)
    finally:
        container.close()


class FrameReader:
    """Iterate over a video's frames as ``uint8`` RGB arrays of shape (H, W, 3).

    Iterate once. After (or during) iteration: ``frames_read`` (frames yielded),
    ``frames_decoded`` (including those skipped by ``stride``), ``truncated`` and
    ``error`` (why decoding stopped early, or None), ``info`` (files only).

    Parameters
    ----------
    source : path or iterable of arrays
        A video file, or frames already in memory (any layout accepted by
        :func:`~cvcheck.vision.arrays.as_rgb`; each is validated, none is modified).
    stride : int
        Yield every ``stride``-th frame (all frames are still decoded; skipped ones
        are never converted to RGB).
    max_frames : int, optional
        Stop after yielding this many frames (``media.max_frames`` caps it anyway).
    """

    def __init__(self, source: VideoSource, *, stride: int = 1, max_frames: int | None = None,
                 config: MediaConfig | None = None) -> None:
        if isinstance(stride, bool) or not isinstance(stride, int) or stride < 1:
            raise MediaError(f"stride must be a positive integer, got {stride!r}")
        if max_frames is not None and (isinstance(max_frames, bool) or not isinstance(max_frames, int)
                                       or max_frames < 1):
            raise MediaError(f"max_frames must be a positive integer or None, got {max_frames!r}")
        self._cfg = config or MediaConfig()
        self.stride = stride
        self.max_frames = min(max_frames or self._cfg.max_frames, self._cfg.max_frames)
        self.frames_read = 0
        self.frames_decoded = 0
        self.truncated = False
        self.error: str | None = None
        self.info: VideoInfo | None = None
        self.name = "<frames>"
        self._started = False
        self._container = None
        if isinstance(source, (str, os.PathLike)):
            p = _check_file(source, self._cfg)
            self.name = str(p)
            self._container = _open(p)
            try:
                self.info = _info(self._container, p)
            except MediaError:
                self._container.close()
                raise
            if self.info.width * self.info.height > self._cfg.max_pixels:
                self._container.close()
                raise MediaError(f"video frames are {self.info.width}x{self.info.height}, over media.max_pixels")
            self._frames: Iterator[np.ndarray] = self._decode()
        elif isinstance(source, np.ndarray) and source.ndim == 4:
            self._frames = self._arrays(iter(source))
        elif isinstance(source, np.ndarray) or isinstance(source, (bytes, bytearray)):
            raise MediaError("a video must be a file path, an iterable of frames or a (T, H, W, C) array")
        else:
            try:
                it = iter(source)
            except TypeError as exc:
                raise MediaError(f"not a video source: {type(source).__name__}") from exc
            self._frames = self._arrays(it)

    def __iter__(self) -> FrameReader:
        return self

    def __next__(self) -> np.ndarray:
        self._started = True
        return next(self._frames)

    def close(self) -> None:
        """Release the file (also done automatically at the end of iteration)."""
        if self._container is not None:
            self._container.close()
            self._container = None

    def __enter__(self) -> FrameReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _arrays(self, it: Iterator[np.ndarray]) -> Iterator[np.ndarray]:
        for i, frame in enumerate(it):
            self.frames_decoded += 1
            if i % self.stride:
                continue
            try:
                rgb = as_rgb(frame, name=f"frame {i}")
            except InputError as exc:  # a bad frame is a bad video
                raise MediaError(str(exc)) from exc
            if rgb.shape[0] * rgb.shape[1] > self._cfg.max_pixels:
                raise MediaError(f"frame {i} is {rgb.shape[1]}x{rgb.shape[0]}, over media.max_pixels")
            self.frames_read += 1
            yield rgb
            if self.frames_read >= self.max_frames:
                return
        if self.frames_read == 0:
            raise MediaError("the video has no frames")

    def _decode(self) -> Iterator[np.ndarray]:
        import av

        container = self._container
        assert container is not None  # files only
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        packets = errors = 0
        budget = PACKETS_PER_FRAME_LIMIT * self.max_frames * self.stride + 1000
        try:
            demux = container.demux(stream)
            while True:
                try:
                    packet = next(demux)
                except StopIteration:
                    break
                except (av.error.FFmpegError, OSError, ValueError) as exc:
                    self._stop(f"demuxing failed after {self.frames_decoded} frame(s): {exc}")
                    break
                packets += 1
                if packets > budget:
                    self._stop(f"gave up after {packets} packets for {self.frames_decoded} frame(s)")
                    break
                try:
                    decoded = packet.decode()  # a None packet (end) flushes the decoder
                    errors = 0
                except (av.error.FFmpegError, ValueError) as exc:
                    errors += 1
                    self.error = f"corrupt packet after {self.frames_decoded} frame(s): {exc}"
                    if errors >= MAX_CONSECUTIVE_ERRORS:
                        self._stop(f"{errors} corrupt packets in a row after {self.frames_decoded} frame(s)")
                        break
                    continue
                for frame in decoded:
                    if (rgb := self._take(frame)) is not None:
                        yield rgb
                        if self.frames_read >= self.max_frames:
                            return
            if self.truncated or self.error is not None:
                # Frames still inside the (threaded) decoder are intact: flush them out.
                try:
                    for frame in stream.codec_context.decode(None):
                        if (rgb := self._take(frame)) is not None:
                            yield rgb
                            if self.frames_read >= self.max_frames:
                                return
                except (av.error.FFmpegError, ValueError):
                    pass
        finally:
            self.close()
        if self.error is not None and not self.truncated:
            self.truncated = True  # corrupt packets were skipped: some frames are missing
        expected = self.info.frames if self.info else 0
        if not self.truncated and expected and self.frames_decoded < 0.9 * expected - 1:
            self._stop(f"decoded {self.frames_decoded} of the {expected} frames the container announces")
        if self.frames_read == 0:
            raise MediaError(f"video {self.name} has no decodable frames"
                             + (f" ({self.error})" if self.error else ""))

    def _take(self, frame) -> np.ndarray | None:
        index = self.frames_decoded
        self.frames_decoded += 1
        if index % self.stride:
            return None
        self.frames_read += 1
        return frame.to_ndarray(format="rgb24")

    def _stop(self, reason: str) -> None:
        self.truncated = True
        self.error = reason


def iter_frames(source: VideoSource, *, stride: int = 1, max_frames: int | None = None,
                config: MediaConfig | None = None) -> FrameReader:
    """Stream a video's frames (RGB uint8, (H, W, 3)) with constant memory.

    Returns a :class:`FrameReader` (an iterator) that reports ``frames_read``,
    ``truncated`` and ``error`` once consumed. See the module docstring for the
    guarantees on bad files.
    """
    return FrameReader(source, stride=stride, max_frames=max_frames, config=config)


def prefetched(frames: Iterable[np.ndarray], *, depth: int = 4) -> Generator[np.ndarray, None, None]:
    """Read ``frames`` in a background thread, ``depth`` frames ahead (bounded memory).

    Decoding (PyAV) and OpenCV release the GIL, so per-frame analysis in the caller
    overlaps with decoding of the next frames. Exceptions from the reader are re-raised
    in the caller; stopping early (closing this generator) stops the thread.
    """
    q: queue.Queue = queue.Queue(maxsize=max(1, depth))
    stop = threading.Event()
    end = object()

    def put(item: object) -> bool:
        while not stop.is_set():
            try:
                q.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def run() -> None:
        try:
            for frame in frames:
                if not put(frame):
                    return
            put(end)
        except BaseException as exc:  # noqa: BLE001 - handed to the consumer
            put(exc)

    thread = threading.Thread(target=run, name="cvcheck-frames", daemon=True)
    thread.start()
    try:
        while True:
            item = q.get()
            if item is end:
                return
            if isinstance(item, BaseException):
                raise item
            yield item
    finally:
        stop.set()
        thread.join(timeout=5)
        close = getattr(frames, "close", None)
        if close is not None and not thread.is_alive():
            close()
