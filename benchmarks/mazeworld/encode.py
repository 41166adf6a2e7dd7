"""H.264 (yuv420p) MP4 writing with PyAV, one encoder thread (workers run in parallel processes)."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Iterable

import av
import numpy as np


def write_mp4(path: str | Path, frames: Iterable[np.ndarray], *, fps: float, crf: int,
              preset: str = "veryfast") -> int:
    """Encode RGB ``uint8`` frames (even width and height) to ``path``; return the frame count."""
    count = 0
    with av.open(str(path), mode="w") as container:
        stream = container.add_stream(
            "libx264", rate=Fraction(fps).limit_denominator(1001),
            options={"crf": str(int(crf)), "preset": preset, "threads": "1"},
        )
        stream.pix_fmt = "yuv420p"
        for frame in frames:
            if count == 0:
                h, w = frame.shape[:2]
                if w % 2 or h % 2:
                    raise ValueError(f"yuv420p needs even frame sizes, got {w}x{h}")
                stream.width, stream.height = w, h
            for packet in stream.encode(av.VideoFrame.from_ndarray(np.ascontiguousarray(frame), format="rgb24")):
                container.mux(packet)
            count += 1
        for packet in stream.encode():
            container.mux(packet)
    return count
