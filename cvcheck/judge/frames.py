"""Media for a live judge: an image as is, or a video as evenly sampled JPEG frames."""

from __future__ import annotations

import io
import os

import numpy as np

from ..errors import MediaError


def sample_video_frames(path: str | os.PathLike, n: int, *, max_side: int = 768) -> list[bytes]:
    """``n`` frames evenly spaced over the whole video (first and last included), as JPEG.

    Two streaming passes (count, then pick), so memory stays at one frame.
    """
    import av

    if n < 1:
        raise MediaError(f"need at least one frame, got {n}")
    try:
        with av.open(str(path)) as box:
            total = sum(1 for _ in box.decode(video=0))
        if total == 0:
            raise MediaError(f"{path}: video has no frames")
        wanted = set(np.unique(np.linspace(0, total - 1, min(n, total)).round().astype(int)).tolist())
        out = []
        with av.open(str(path)) as box:
            for i, frame in enumerate(box.decode(video=0)):
                if i in wanted:
                    img = frame.to_image().convert("RGB")
                    img.thumbnail((max_side, max_side))
                    buf = io.BytesIO()
                    img.save(buf, format="JPEG", quality=90)
                    out.append(buf.getvalue())
    except (av.error.FFmpegError, OSError, ValueError) as exc:
        raise MediaError(f"cannot read video {path}: {exc}") from exc
    return out
