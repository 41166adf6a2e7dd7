"""Streaming video reading (PyAV; animated WebP through Pillow): one RGB frame at a time, constant memory.

>>> reader = iter_frames("answer.mp4", stride=2)        # doctest: +SKIP
>>> for frame in reader: ...                             # doctest: +SKIP
>>> reader.frames_read, reader.truncated, reader.error   # doctest: +SKIP

Guards: missing, empty, oversized, not-a-video and unopenable files raise
:class:`~cvcheck.errors.MediaError` before the first frame, as do frames over
``media.max_pixels``, ``media.max_aspect_ratio`` or ``media.max_decoded_bytes``. A file
that breaks *during* decoding (truncated, corrupt packets) yields what could be
decoded; the reader then reports ``truncated=True`` and the reason in ``error`` (and
raises MediaError only when not a single frame decoded). Decoding is bounded: at most
``media.max_frames`` frames (``max_frames_reached`` says when that cut the video) and a
fixed number of packets/consecutive errors, so a pathological file can never hang the
reader.

What "truncated" means: the frame count comes from decoding; the container's count is
an estimate (variable frame rate videos have no exact fps x duration), so a complete
video is never called truncated for decoding fewer frames than an estimate. A video is
truncated when decoding or demuxing failed, when a packet is flagged incomplete, when
the container's own index counts more packets than the file holds (MP4/MOV sample
tables), or when the file is shorter than its container structure declares (an MP4 box,
the Matroska/WebM segment or the AVI RIFF chunk running past the end of the file), which
catches a tail cut by even one byte.
"""

from __future__ import annotations

import functools
import math
import os
import queue
import struct
import threading
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import Any, Generic, Literal, TypeVar, cast, overload

import numpy as np

from ..config import MediaConfig
from ..errors import InputError, MediaError
from ..vision.arrays import as_rgb
from ..vision.dither import UNDITHERED_NOTE, is_posterized, smooth_dither
from ..vision.yuv import Frame, YuvFrame, YuvMatrix
from .animated import WebpAnimation, animation_format
from .image import check_size
from .timing import FramePeriods, frame_periods, stored_durations

VideoSource = str | os.PathLike | Iterable[np.ndarray]

VIDEO_SUFFIXES = frozenset({".mp4", ".m4v", ".mov", ".webm", ".mkv", ".avi", ".gif", ".apng"})  #: read as videos
ANIMATED_SUFFIXES = frozenset({".png", ".webp"})  #: videos when animated (by their headers), else images


def is_video(path: str | os.PathLike) -> bool:
    """Whether a path names a video: by its suffix, and a ``.png`` or ``.webp`` by its header
    (an animated one is a video: :func:`~cvcheck.media.animated.animation_format`)."""
    suffix = Path(path).suffix.lower()
    return suffix in VIDEO_SUFFIXES or (suffix in ANIMATED_SUFFIXES and animation_format(path) is not None)


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

    frames: int           #: frame count from the container (0 when unknown); exact only when ``frames_exact``
    fps: float            #: average frame rate (0.0 when unknown)
    width: int
    height: int
    duration: float       #: seconds (0.0 when unknown)
    codec: str = ""
    frames_exact: bool = False  #: ``frames`` is the container's sample count (MP4/MOV), not fps x duration


def _constant_rate(container) -> bool:  # container: av.container.InputContainer
    """Whether an MP4/MOV's frames are all shown for one frame period: its average rate (from
    its sample table: frames over duration) is exactly the rate its time stamps were made at
    (a video model's output). Other containers' averages are guesses: their packets are timed
    (:func:`~cvcheck.media.timing.stored_durations`)."""
    stream = container.streams.video[0]
    return ("mp4" in str(container.format.name or "") and stream.average_rate is not None
            and stream.average_rate == stream.guessed_rate)


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
    exact = frames > 0 and "mp4" in str(container.format.name or "")  # the mov/mp4 demuxer's sample table
    if frames == 0 and fps and duration and math.isfinite(fps * duration):
        frames = int(round(min(fps * duration, 1e12)))
    if not (ctx.width and ctx.height):
        raise MediaError(f"{p}: video stream has no frame size")
    return VideoInfo(frames=frames, fps=fps, width=int(ctx.width), height=int(ctx.height),
                     duration=duration, codec=str(ctx.name or ""), frames_exact=exact)


def _vint(data: bytes, pos: int) -> tuple[int, int, bool] | None:
    """An EBML variable-size integer at ``pos``: (value, length, all ones = unknown size)."""
    if pos >= len(data) or data[pos] == 0:
        return None
    length = 8 - data[pos].bit_length() + 1
    if pos + length > len(data):
        return None
    value = data[pos] & (0xFF >> length)
    for b in data[pos + 1:pos + length]:
        value = (value << 8) | b
    return value, length, value == (1 << (7 * length)) - 1


def tail_problem(path: str | os.PathLike) -> str | None:
    """Why the file is shorter than its container structure declares (None when it is not, or cannot tell).

    MP4/MOV: every top-level box must fit in the file; Matroska/WebM: the segment's
    declared size; AVI: the RIFF chunk's size. Reads only headers.
    """
    p = Path(path)
    size = p.stat().st_size
    with open(p, "rb") as fh:
        head = fh.read(64)
        if head[4:8] in _MP4_BOXES:
            pos = 0
            for _ in range(100_000):
                if pos >= size:
                    return None
                fh.seek(pos)
                hdr = fh.read(16)
                if len(hdr) < 8:
                    return f"the file ends inside a box header at byte {pos:,}"
                box, kind = struct.unpack(">I4s", hdr[:8])
                if not all(32 <= c < 127 for c in kind):
                    return None  # not a box: trailing bytes we do not judge
                if box == 0:  # runs to the end of the file
                    return None
                if box == 1:
                    if len(hdr) < 16:
                        return f"the file ends inside the header of box {kind.decode('latin-1')!r}"
                    box = struct.unpack(">Q", hdr[8:16])[0]
                if box < 8:
                    return None
                if pos + box > size:
                    return (f"the MP4 box {kind.decode('latin-1')!r} at byte {pos:,} declares {box:,} bytes; "
                            f"the file ends {pos + box - size:,} bytes short")
                pos += box
            return None
        if head[:4] == b"\x1a\x45\xdf\xa3":  # EBML: Matroska / WebM
            header = _vint(head, 4)
            if header is None:
                return None
            pos = 4 + header[1] + header[0]
            fh.seek(pos)
            seg = fh.read(12)
            if seg[:4] != b"\x18\x53\x80\x67":
                return None
            seg_size = _vint(seg, 4)
            if seg_size is None or seg_size[2]:
                return None  # unknown size (a live recording): cannot tell
            end = pos + 4 + seg_size[1] + seg_size[0]
            if end > size:
                return f"the Matroska segment declares {end:,} bytes; the file ends {end - size:,} bytes short"
            return None
        if head[:4] == b"RIFF" and head[8:12] == b"AVI ":
            end = 8 + struct.unpack("<I", head[4:8])[0]
            if end > size:
                return f"the AVI RIFF chunk declares {end:,} bytes; the file ends {end - size:,} bytes short"
    return None


_MP4_BOXES = frozenset({b"ftyp", b"moov", b"mdat", b"free", b"skip", b"wide", b"pnot", b"uuid", b"styp", b"sidx",
                        b"moof", b"meta"})


def _webp_info(anim: WebpAnimation) -> VideoInfo:
    return VideoInfo(frames=anim.frames, fps=anim.fps, width=anim.width, height=anim.height,
                     duration=anim.duration, codec="webp", frames_exact=True)


def probe(path: str | os.PathLike, *, config: MediaConfig | None = None) -> VideoInfo:
    """Frame count, fps, size and duration of a video file, without decoding it.

    Raises
    ------
    MediaError
        Missing, empty, oversized or unreadable files, files with no video stream.
    """
    p = _check_file(path, config or MediaConfig())
    if animation_format(p, min_frames=0) == "webp":
        return _webp_info(WebpAnimation.from_path(p))
    container = _open(p)
    try:
        return _info(container, p)
    finally:
        container.close()


FrameT = TypeVar("FrameT", bound=Frame)  #: what a reader yields: RGB arrays, or (``yuv``) any Frame


class FrameReader(Generic[FrameT]):
    """Iterate over a video's frames as ``uint8`` RGB arrays of shape (H, W, 3).

    Iterate once. After (or during) iteration: ``frames_read`` (frames yielded),
    ``frames_decoded`` (decoded from the file, those skipped by ``stride`` too),
    ``frames_repeated``, ``truncated`` and ``error`` (why decoding stopped early, or None),
    ``info`` (files only).

    A file's frame stored once but shown for several frame periods - a run of identical
    frames an encoder merged (GIF, WebP, APNG, variable-frame-rate WebM/MKV/MP4) - is
    yielded once a period (the same array each time; ``media.held_frames="once"``: as
    stored), so that counting frames counts time: :attr:`periods` says how, :attr:`fps`
    and :attr:`frames_expected` follow it, and ``stride`` and ``max_frames`` count periods.

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
    threads : int
        Decoder threads (files): 0, FFmpeg's choice (frame and slice threads on every core);
        the frames are the same for any count.
    yuv : bool
        Files: yield 4:2:0 frames (most video) as :class:`~cvcheck.vision.yuv.YuvFrame`
        (the decoded planes; whole-frame RGB, the same pixels as otherwise, on demand)
        instead of converting each to RGB - for callers that need RGB of a part of most
        frames. Frames in other pixel formats, and arrays, are RGB either way.
    """

    def __init__(self, source: VideoSource, *, stride: int = 1, max_frames: int | None = None,
                 config: MediaConfig | None = None, threads: int = 0, yuv: bool = False) -> None:
        if isinstance(stride, bool) or not isinstance(stride, int) or stride < 1:
            raise MediaError(f"stride must be a positive integer, got {stride!r}")
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 0:
            raise MediaError(f"threads must be a non-negative integer, got {threads!r}")
        self.threads = threads
        self.yuv = yuv
        if max_frames is not None and (isinstance(max_frames, bool) or not isinstance(max_frames, int)
                                       or max_frames < 1):
            raise MediaError(f"max_frames must be a positive integer or None, got {max_frames!r}")
        self._cfg = config or MediaConfig()
        self.stride = stride
        self.max_frames = min(max_frames or self._cfg.max_frames, self._cfg.max_frames)
        self.frames_read = 0
        self.frames_decoded = 0
        self.frames_repeated = 0      #: frames yielded again for the periods a held frame is shown
        self.periods: FramePeriods | None = None  #: the frame periods each stored frame is shown for (None: one each)
        self._counts: dict[int, int] = {}  # periods per stored frame, by time stamp (FFmpeg) or index (WebP)
        self._position = 0            # frame periods passed (what ``stride`` counts)
        self.packets = 0              #: non-empty packets demuxed (files)
        self.truncated = False
        self.error: str | None = None
        self.max_frames_reached = False  #: reading stopped at ``max_frames`` with frames left
        self.info: VideoInfo | None = None
        self.name = "<frames>"
        self._started = False
        self._container = None
        self._images: Generator[np.ndarray, None, None] | None = None  # an animated WebP's frames, being read
        # one colour converter for the whole stream: a frame's own (``to_ndarray(format=...)``)
        # sets up a new swscale context for every frame, which costs as much as decoding it
        self._to_rgb: Any = None
        #: whether the frames are dithered on a coarse palette and smoothed (decided on the first
        #: frame decoded to RGB that is not flat: :func:`~cvcheck.vision.dither.is_posterized`)
        self.undithered: bool | None = None if self._cfg.undither == "auto" else False
        self._frames: Iterator[Frame]
        if isinstance(source, (str, os.PathLike)):
            p = _check_file(source, self._cfg)
            self.name = str(p)
            if animation_format(p, min_frames=0) == "webp":  # FFmpeg does not decode animated WebP
                webp = WebpAnimation.from_path(p)
                self.info = _webp_info(webp)
                check_size(webp.width, webp.height, 3, self._cfg, f"video {p}: each frame")
                if self._cfg.held_frames == "repeat":
                    self.periods = frame_periods([ms / 1000 for ms in webp.durations_ms])
                    self._counts = dict(enumerate(self.periods.counts)) if self.periods else {}
                self._frames = self._decode_webp(webp)
                return
            self._container = _open(p)
            try:
                self.info = _info(self._container, p)
            except MediaError:
                self._container.close()
                raise
            try:
                check_size(self.info.width, self.info.height, 3, self._cfg, f"video {p}: each frame")
            except MediaError:
                self._container.close()
                raise
            if self._cfg.held_frames == "repeat" and not _constant_rate(self._container):
                self._time_stored_frames(p)
            self._frames = self._decode()
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

    @property
    def fps(self) -> float:
        """The frame rate of the frames yielded (before ``stride``): the rate the video was made
        at where held frames are repeated, else the container's average (0.0 when unknown)."""
        if self.periods is not None:
            return self.periods.fps
        return self.info.fps if self.info else 0.0

    @property
    def frames_expected(self) -> int | None:
        """Frames the video holds (before ``stride``), held ones counted once a period; None
        for frames in memory. Exact where ``info.frames_exact`` or frames are held."""
        if self.periods is not None:
            return self.periods.frames
        return self.info.frames if self.info else None

    def _time_stored_frames(self, path: Path) -> None:
        """Find the frames shown for more than one frame period (see :func:`frame_periods`)."""
        stored = stored_durations(path, max_packets=self.max_frames * self.stride + 1000)
        if stored is not None:
            pts, durations = stored
            self.periods = frame_periods(durations)
            if self.periods is not None:
                self._counts = {p: c for p, c in zip(pts, self.periods.counts) if c > 1}

    def __iter__(self) -> FrameReader[FrameT]:
        return self

    def __next__(self) -> FrameT:
        self._started = True
        return cast(FrameT, next(self._frames))

    def close(self) -> None:
        """Release the file (also done automatically at the end of iteration)."""
        if self._container is not None:
            self._container.close()
            self._container = None
        if self._images is not None:
            self._images.close()
            self._images = None

    def __enter__(self) -> FrameReader[FrameT]:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _arrays(self, it: Iterator[np.ndarray]) -> Iterator[np.ndarray]:
        for i, frame in enumerate(it):
            self.frames_decoded += 1
            if i % self.stride:
                continue
            if isinstance(frame, np.ndarray) and frame.ndim >= 2:
                check_size(int(frame.shape[1]), int(frame.shape[0]), 3, self._cfg, f"frame {i}")
            try:
                rgb = as_rgb(frame, name=f"frame {i}")
            except InputError as exc:  # a bad frame is a bad video
                raise MediaError(str(exc)) from exc
            self.frames_read += 1
            yield rgb
            if self.frames_read >= self.max_frames:
                self.max_frames_reached = next(it, None) is not None
                return
        if self.frames_read == 0:
            raise MediaError("the video has no frames")

    def _decode(self) -> Iterator[Frame]:
        import av

        container = self._container
        assert container is not None  # files only
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        if self.threads:
            stream.codec_context.thread_count = self.threads
        errors = 0
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
                if packet.size:
                    self.packets += 1
                    if packet.is_corrupt:
                        self.error = f"packet {self.packets} is incomplete (the file is cut or damaged there)"
                if self.packets > budget:
                    self._stop(f"gave up after {self.packets} packets for {self.frames_decoded} frame(s)")
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
                for k, frame in enumerate(decoded):
                    for left, shown in self._take(frame):
                        yield shown
                        if self.frames_read >= self.max_frames:
                            self.max_frames_reached = left > 0 or k + 1 < len(decoded) or _more_frames(demux)
                            return
            if self.truncated or self.error is not None:
                # Frames still inside the (threaded) decoder are intact: flush them out.
                try:
                    rest = stream.codec_context.decode(None)
                    for k, frame in enumerate(rest):
                        for left, shown in self._take(frame):
                            yield shown
                            if self.frames_read >= self.max_frames:
                                self.max_frames_reached = left > 0 or k + 1 < len(rest)
                                return
                except (av.error.FFmpegError, ValueError):
                    pass
        finally:
            self.close()
        self._check_complete()  # only when read to the end (not stopped early or at max_frames)
        self._require_frames()

    def _decode_webp(self, webp: WebpAnimation) -> Iterator[Frame]:
        self._images = images = webp.images()
        try:
            for index in range(webp.frames):
                try:
                    rgb = next(images)
                except StopIteration:
                    self._stop(f"the file is cut short: {webp.problem}" if webp.problem
                               else f"libwebp gave {index} of the {webp.frames} frames")
                    break
                except MediaError:  # libwebp refused the file (it checks every frame's chunk first)
                    raise
                except Exception as exc:  # noqa: BLE001 - libwebp (through Pillow) on untrusted bytes
                    self._stop(f"frame {index} could not be decoded: {exc or type(exc).__name__}")
                    break
                self.frames_decoded += 1
                for left, shown in self._shown(self._counts.get(index, 1), functools.partial(self._smoothed, rgb)):
                    yield shown
                    if self.frames_read >= self.max_frames:
                        self.max_frames_reached = left > 0 or index + 1 < webp.frames
                        return
        finally:
            self.close()
        if webp.problem is not None and not self.truncated:
            self._stop(f"the file is cut short: {webp.problem}")
        self._require_frames()

    def _require_frames(self) -> None:
        """After reading a file to its end: MediaError when not one frame decoded."""
        if self.frames_read == 0:
            raise MediaError(f"video {self.name} has no decodable frames"
                             + (f" ({self.error})" if self.error else ""))

    def _kept(self) -> bool:
        """Count a frame period; whether the stride keeps it (it then counts as read)."""
        index = self._position
        self._position += 1
        if index % self.stride:
            return False
        self.frames_read += 1
        return True

    def _shown(self, count: int, convert: Callable[[], Frame]) -> Iterator[tuple[int, Frame]]:
        """A stored frame shown for ``count`` frame periods: ``convert()`` (made once) for each
        period the stride keeps, with the periods left after it."""
        made: Frame | None = None
        for i in range(count):
            if self._kept():
                if made is None:
                    made = convert()
                else:
                    self.frames_repeated += 1
                yield count - 1 - i, made

    def _check_complete(self) -> None:
        """After reading to the end: is the file whole? (See the module docstring.)"""
        if self.error is not None and not self.truncated:
            self.truncated = True  # corrupt or incomplete packets: some frames are missing or damaged
        if self.truncated:
            return
        info = self.info
        if info is not None and info.frames_exact and self.packets < info.frames:
            self._stop(f"demuxed {self.packets} of the {info.frames} packets the container's index lists")
            return
        try:
            problem = tail_problem(self.name)
        except OSError:
            problem = None
        if problem is not None:
            self._stop(f"the file is cut short: {problem}")

    def _take(self, frame) -> Iterator[tuple[int, Frame]]:
        """A decoded frame (PyAV), once for each frame period it is shown that the stride keeps."""
        self.frames_decoded += 1
        count = self._counts.get(frame.pts, 1) if self._counts else 1
        return self._shown(count, lambda: self._converted(frame))

    def _converted(self, frame) -> Frame:
        if self.yuv and frame.format.name in _YUV420:
            return _yuv_frame(frame)
        if self._to_rgb is None:
            from av.video.reformatter import VideoReformatter

            self._to_rgb = VideoReformatter()
        rgb = self._to_rgb.reformat(frame, format="rgb24").to_ndarray()
        if self.undithered is None and frame.format.name in _YUV420:
            self.undithered = False  # 4:2:0 video is never posterized: decided on its first frame
        return self._smoothed(rgb)

    def _smoothed(self, rgb: np.ndarray) -> np.ndarray:
        """``rgb``, smoothed when the frames are dithered on a coarse palette (decided on the first not flat)."""
        if self.undithered is None:
            self.undithered = is_posterized(rgb)
        return smooth_dither(rgb) if self.undithered else rgb

    def _stop(self, reason: str) -> None:
        self.truncated = True
        self.error = reason

    def report(self) -> dict[str, Any]:
        """How the frames were read, for a result's ``details.read``."""
        return {"frames_read": self.frames_read, "frames_decoded": self.frames_decoded, "truncated": self.truncated,
                "error": self.error, "stride": self.stride, "fps": self.fps if self.info else None,
                "max_frames_reached": self.max_frames_reached, "max_frames": self.max_frames,
                "frames_expected": self.frames_expected,
                "frames_expected_exact": bool(self.info and (self.info.frames_exact or self.periods is not None)),
                "frames_repeated": self.frames_repeated, "undithered": bool(self.undithered)}

    def notes(self) -> list[str]:
        """Human-readable notes about the read (a truncation, a cut at ``max_frames``)."""
        out = []
        if self.truncated:
            out.append(f"video truncated/corrupt: read {self.frames_read} frame(s) ({self.error})")
        if self.undithered:
            out.append(UNDITHERED_NOTE)
        if self.frames_repeated:
            out.append(f"{self.frames_repeated} frame(s) repeated: frames shown for several frame periods count "
                       f"once a period, at the {self.fps:.4g} fps the video was made at (media.held_frames)")
        if self.max_frames_reached:
            out.append(f"only the first {self.max_frames} frames were read (media.max_frames); "
                       "the video goes on")
        return out


_YUV420 = frozenset({"yuv420p", "yuvj420p"})  #: pixel formats kept as YuvFrame (8-bit 4:2:0)
_local = threading.local()  # one RGB converter per thread (an swscale context is not shared between threads)


def _rgb_of(frame) -> np.ndarray:  # frame: av.VideoFrame
    """The decoder's RGB conversion of a frame, as :class:`FrameReader` gives it."""
    reformatter = getattr(_local, "reformatter", None)
    if reformatter is None:
        from av.video.reformatter import VideoReformatter

        reformatter = _local.reformatter = VideoReformatter()
    return reformatter.reformat(frame, format="rgb24").to_ndarray()


def _yuv_frame(frame) -> YuvFrame:  # frame: av.VideoFrame in a 4:2:0 format
    """The frame's planes (views on the decoder's buffers, kept alive by them)."""
    h, w = frame.height, frame.width
    planes = []
    for i, plane in enumerate(frame.planes[:3]):
        ph, pw = (h, w) if i == 0 else ((h + 1) // 2, (w + 1) // 2)
        planes.append(np.frombuffer(plane, np.uint8, count=plane.line_size * ph).reshape(ph, plane.line_size)[:, :pw])
    matrix = YuvMatrix.from_tags(int(frame.colorspace or 0), int(frame.color_range or 0),
                                 jpeg_format=frame.format.name == "yuvj420p")
    return YuvFrame(*planes, matrix=matrix, to_rgb=lambda: _rgb_of(frame))


def _more_frames(demux: Iterator[Any]) -> bool:
    """Whether the stream holds another non-empty packet (peeking at most a few)."""
    for _ in range(8):
        try:
            packet = next(demux)
            if packet.size:
                return True
            return bool(packet.decode())  # the final flush: frames still inside the decoder
        except Exception:  # noqa: BLE001 - end of stream or a broken tail: nothing more to read
            return False
    return True


@overload
def iter_frames(source: VideoSource, *, stride: int = 1, max_frames: int | None = None,
                config: MediaConfig | None = None, threads: int = 0,
                yuv: Literal[False] = False) -> FrameReader[np.ndarray]: ...


@overload
def iter_frames(source: VideoSource, *, stride: int = 1, max_frames: int | None = None,
                config: MediaConfig | None = None, threads: int = 0, yuv: bool) -> FrameReader[Frame]: ...


def iter_frames(source: VideoSource, *, stride: int = 1, max_frames: int | None = None,
                config: MediaConfig | None = None, threads: int = 0, yuv: bool = False) -> FrameReader[Any]:
    """Stream a video's frames (RGB uint8, (H, W, 3)) with constant memory.

    ``threads``: decoder threads (0: FFmpeg's choice, frame and slice threads on every core;
    1 leaves the other cores to a caller analysing frames as they come). ``yuv``: keep
    4:2:0 frames as :class:`~cvcheck.vision.yuv.YuvFrame` (see :class:`FrameReader`).

    Returns a :class:`FrameReader` (an iterator) that reports ``frames_read``,
    ``truncated`` and ``error`` once consumed. See the module docstring for the
    guarantees on bad files.
    """
    return FrameReader(source, stride=stride, max_frames=max_frames, config=config, threads=threads, yuv=yuv)


def prefetched(frames: Iterable[Frame], *, depth: int = 4, count: int | None = None
               ) -> Generator[Frame, None, None]:
    """Read ``frames`` in a background thread, ``depth`` frames ahead (bounded memory).

    Decoding (PyAV) and OpenCV release the GIL, so per-frame analysis in the caller
    overlaps with decoding of the next frames. Exceptions from the reader are re-raised
    in the caller; stopping early (closing this generator) stops the thread.

    ``count``: only the first ``count`` frames are read on the thread; the rest are read as
    the caller asks for them, on its thread (a reader whose decoder has threads of its own
    decodes ahead there without the GIL: no second Python thread taking it back several
    times a frame from the caller's analysis).
    """
    q: queue.Queue = queue.Queue(maxsize=max(1, depth))
    stop = threading.Event()
    end = object()
    it = iter(frames)

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
            for frame in it if count is None else islice(it, count):
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
                break
            if isinstance(item, BaseException):
                raise item
            yield item
        if count is not None:
            thread.join()  # (it has put its last item: the iterator is the caller's from here)
            yield from it
    finally:
        stop.set()
        thread.join(timeout=5)
        close = getattr(frames, "close", None)
        if close is not None and not thread.is_alive():
            close()
