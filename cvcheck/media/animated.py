"""Animated pictures: APNG and animated WebP told from stills by their headers, WebP's frames read.

An animated PNG or WebP answer is a video, whatever its suffix. FFmpeg reads APNG (under any
name) but not animated WebP, whose frames are read here with Pillow (libwebp). Only chunk
headers are read to tell and to time them: nothing is decoded.
"""

from __future__ import annotations

import io
import os
import stat
import struct
import warnings
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image

from ..errors import MediaError
from .image import pil_to_rgb

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MAX_CHUNKS = 1_000_000  #: chunks walked at most (a WebP holds one per frame)


def animation_format(path: str | os.PathLike, *, min_frames: int = 2) -> str | None:
    """``"apng"`` or ``"webp"`` when ``path`` is an animated PNG or WebP of ``min_frames`` frames
    or more (0: one that declares an animation, however many frames it holds), else None.

    By the headers alone (an APNG's ``acTL`` chunk before its image data, a WebP's ``ANMF``
    chunk headers); None for a still, another format, or anything but a readable regular file
    (a named pipe is never waited on).
    """
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            return None
        with os.fdopen(fd, "rb") as fh:
            head = fh.read(21)
            if head[:8] == PNG_SIGNATURE:
                return "apng" if _apng_frames(fh) >= max(1, min_frames) else None
            if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
                if min_frames <= 0:
                    return "webp" if head[12:16] == b"VP8X" and len(head) > 20 and head[20] & 0x02 else None
                return "webp" if len(_webp_chunks(fh, stop_after=min_frames)[0]) >= min_frames else None
    except (OSError, ValueError):  # ValueError: a NUL in the path
        return None
    return None


def _apng_frames(fh: io.BufferedReader) -> int:
    """Frames an APNG's ``acTL`` declares (0 when there is none before the image data)."""
    fh.seek(8)
    for _ in range(MAX_CHUNKS):
        header = fh.read(8)
        if len(header) < 8:
            return 0
        length, kind = struct.unpack(">I4s", header)
        if kind == b"acTL":
            data = fh.read(8)
            return struct.unpack(">I", data[:4])[0] if len(data) == 8 else 0
        if kind in (b"IDAT", b"IEND"):
            return 0
        fh.seek(length + 4, os.SEEK_CUR)  # data and CRC
    return 0


def _webp_chunks(fh: io.BufferedReader, *, stop_after: int | None = None
                 ) -> tuple[list[int], int, str | None]:
    """Walk a WebP's chunks: (each ANMF's duration in ms, the last one's too where the file ends
    inside it; where the last whole chunk ends; why the walk stopped short, or None).
    ``stop_after``: stop after that many ANMF chunks."""
    fh.seek(0, os.SEEK_END)
    size = fh.tell()
    fh.seek(4)
    riff_end = 8 + struct.unpack("<I", fh.read(4))[0]
    end = min(size, riff_end)
    durations: list[int] = []
    pos = whole = 12
    problem = None
    for _ in range(MAX_CHUNKS):
        if pos >= end:
            break
        fh.seek(pos)
        header = fh.read(8)
        if len(header) < 8:
            problem = f"the file ends inside a chunk header at byte {pos:,}"
            break
        kind, length = struct.unpack("<4sI", header)
        chunk_end = pos + 8 + length + (length & 1)
        if kind == b"ANMF":
            payload = fh.read(16)
            durations.append(int.from_bytes(payload[12:15], "little") if len(payload) == 16 else 0)
        if pos + 8 + length > size:
            problem = (f"the WebP chunk {kind.decode('latin-1')!r} at byte {pos:,} declares {length:,} "
                       f"bytes; the file ends {pos + 8 + length - size:,} bytes short")
            break
        pos = chunk_end
        whole = min(chunk_end, size)
        if stop_after is not None and len(durations) >= stop_after:
            return durations, whole, None
    if problem is None and riff_end > size:
        problem = f"the WebP RIFF chunk declares {riff_end:,} bytes; the file ends {riff_end - size:,} bytes short"
    return durations, whole, problem


@dataclass(frozen=True)
class WebpAnimation:
    """An animated WebP's frame timing and size, from its chunk headers."""

    path: Path
    width: int
    height: int
    durations_ms: tuple[int, ...]   #: each frame's display time (a frame the file ends inside too)
    whole_bytes: int                #: where the last whole chunk ends
    problem: str | None             #: why the file is shorter than it declares (None when whole)

    @classmethod
    def from_path(cls, path: str | os.PathLike) -> WebpAnimation:
        """Read the headers; MediaError when the file is no animated WebP."""
        p = Path(path)
        try:
            with open(p, "rb") as fh:
                head = fh.read(30)
                if head[:4] != b"RIFF" or head[8:12] != b"WEBP" or head[12:16] != b"VP8X":
                    raise MediaError(f"{p} is not an animated WebP")
                width = 1 + int.from_bytes(head[24:27], "little")
                height = 1 + int.from_bytes(head[27:30], "little")
                durations, whole, problem = _webp_chunks(fh)
        except OSError as exc:
            raise MediaError(f"cannot read video {p}: {exc}") from exc
        if not durations:
            raise MediaError(f"{p} is not an animated WebP (no frames)" + (f": {problem}" if problem else ""))
        return cls(p, width, height, tuple(durations), whole, problem)

    @property
    def frames(self) -> int:
        return len(self.durations_ms)

    @property
    def duration(self) -> float:
        """Seconds."""
        return sum(self.durations_ms) / 1000

    @property
    def fps(self) -> float:
        """Average frame rate (0.0 when the frames carry no display time)."""
        return self.frames / self.duration if self.duration > 0 else 0.0

    def images(self) -> Generator[np.ndarray, None, None]:
        """Each whole frame as an RGB array (composed on the canvas; alpha over white), in order.

        A file cut short is read up to its last whole frame (fewer than ``frames``). Raises
        MediaError when libwebp cannot open the file, and Pillow's own error where a frame
        cannot be decoded.
        """
        with open(self.path, "rb") as fh:
            data = fh.read(self.whole_bytes)  # (libwebp decodes from memory: Pillow reads it all too)
        riff = struct.pack("<I", len(data) - 8)
        if data[4:8] != riff:  # cut short (or trailing bytes): the RIFF size of what is whole
            data = data[:4] + riff + data[8:]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # the caller checked the size
                img = Image.open(io.BytesIO(data), formats=["WEBP"])
        except Exception as exc:  # noqa: BLE001 - any failure of libwebp on untrusted bytes
            raise MediaError(f"cannot open video {self.path}: corrupt or not an animated WebP ({exc})") from exc
        with img:
            for index in range(getattr(img, "n_frames", 1)):
                img.seek(index)
                img.load()
                if img.mode == "RGBA" and img.getchannel("A").getextrema()[0] == 255:  # opaque (a video's)
                    yield np.asarray(img.convert("RGB"))
                else:
                    yield pil_to_rgb(img)
