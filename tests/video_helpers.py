"""Shared test helper (no tests here): small real encoded videos, written with PyAV.

On ``sys.path`` like ``batch_helpers`` (pytest puts this folder there).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np


def write_video(path: Path, n: int, *, size: tuple[int, int] = (64, 48), codec: str = "libx264",
                options: dict[str, str] | None = None, vfr: bool = False, fps: int = 12) -> Path:
    """A real encoded video of ``n`` frames (``vfr``: irregular per-frame timestamps)."""
    import fractions

    import av

    w, h = size
    with av.open(str(path), "w", options=options or {}) as container:
        stream = container.add_stream(codec, rate=fps)
        stream.width, stream.height, stream.pix_fmt = w, h, "yuv420p"
        tb = fractions.Fraction(1, 1000)
        if vfr:
            stream.codec_context.time_base = tb
        t = 0
        for i in range(n):
            frame = np.full((h, w, 3), 255, np.uint8)
            frame[:, (2 * i) % max(1, w - 8):(2 * i) % max(1, w - 8) + 8] = (0, 200, 0)
            vf = av.VideoFrame.from_ndarray(frame, format="rgb24")
            if vfr:
                vf.pts, vf.time_base = t, tb
                t += 40 if i % 3 else 200
            for packet in stream.encode(vf):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    return path


def write_gif(path: Path, frames: list[np.ndarray], *, pix_fmt: str = "bgr8", fps: float = 12) -> Path:
    """``frames`` (RGB) as an animated GIF in ``pix_fmt``: ``bgr8``, the fixed 3-3-2 palette and
    ordered dither that a plain ``ffmpeg -i in.mp4 out.gif`` writes (``benchmarks/maze_formats.py``'s
    ``gif332``, whose encoder this is)."""
    from fractions import Fraction

    from benchmarks.maze_formats import FORMATS, write

    write(frames, Fraction(fps).limit_denominator(1001), path, replace(FORMATS["gif332"], pix_fmt=pix_fmt))
    return path
