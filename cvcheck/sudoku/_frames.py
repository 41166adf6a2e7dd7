"""A small streaming video reader (PyAV): one RGB frame at a time, constant memory.

Kept private to the Sudoku verifier until a shared ``cvcheck.media`` video reader exists.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from ..config import MediaConfig
from ..errors import MediaError


def iter_frames(path: str | os.PathLike, *, config: MediaConfig | None = None) -> Iterator[np.ndarray]:
    """Yield the frames of a video file as ``uint8`` RGB arrays of shape (H, W, 3).

    Raises
    ------
    MediaError
        Missing, empty, oversized, corrupt or truncated files, files without a video
        stream, frames over ``max_pixels``, or no decodable frame at all.
    """
    import av

    cfg = config or MediaConfig()
    p = Path(path)
    if not p.is_file():
        raise MediaError(f"video {p} does not exist or is not a file")
    size = p.stat().st_size
    if size == 0:
        raise MediaError(f"video {p} is empty (0 bytes)")
    if size > cfg.max_file_bytes:
        raise MediaError(f"video {p} is {size:,} bytes, over media.max_file_bytes")
    try:
        container = av.open(str(p))
    except (av.error.FFmpegError, OSError, ValueError) as exc:
        raise MediaError(f"cannot open video {p}: {exc}") from exc
    count = 0
    try:
        if not container.streams.video:
            raise MediaError(f"{p} has no video stream")
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        try:
            for frame in container.decode(stream):
                if frame.width * frame.height > cfg.max_pixels:
                    raise MediaError(f"video frames are {frame.width}x{frame.height}, over media.max_pixels")
                count += 1
                if count > cfg.max_frames:
                    break
                yield frame.to_ndarray(format="rgb24")
        except (av.error.FFmpegError, OSError, ValueError) as exc:
            raise MediaError(f"video {p} is corrupt or truncated after {count} frame(s): {exc}") from exc
    finally:
        container.close()
    if count == 0:
        raise MediaError(f"video {p} has no decodable frames")
