"""H.264 (yuv420p) MP4 writing with PyAV, one encoder thread (workers run in parallel processes).

Deterministic by construction: frames are converted to yuv420p here (OpenCV, BT.601 limited range,
as swscale does) into planes whose row padding is zeroed (left uninitialised, those bytes changed
the encoded video from run to run), x264 runs on one plain thread, and MB-tree is off: its
lookahead analysis read memory whose contents depend on the process's history (a forked worker
encoded the same frames differently about one time in five; never with mbtree=0 in 40 tries).
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Callable, Iterable

import av
import cv2
import numpy as np


def yuv420p_frame(rgb: np.ndarray) -> av.VideoFrame:
    """An ``av.VideoFrame`` in yuv420p from an RGB ``uint8`` image, every byte of its planes set."""
    h, w = rgb.shape[:2]
    i420 = cv2.cvtColor(np.ascontiguousarray(rgb), cv2.COLOR_RGB2YUV_I420).reshape(-1)
    q = (h // 2) * (w // 2)
    planes = (i420[: h * w].reshape(h, w), i420[h * w: h * w + q].reshape(h // 2, w // 2),
              i420[h * w + q:].reshape(h // 2, w // 2))
    frame = av.VideoFrame(w, h, "yuv420p")
    for plane, data in zip(frame.planes, planes):
        # VideoPlane supports the buffer protocol, which PyAV's stubs do not declare
        buf = np.frombuffer(plane, dtype=np.uint8).reshape(-1, plane.line_size)  # type: ignore[call-overload]
        buf[:, : data.shape[1]] = data
        buf[:, data.shape[1]:] = 0
    return frame


def write_mp4(path: str | Path, frames: Iterable[np.ndarray], *, fps: float, crf: int,
              preset: str = "veryfast") -> int:
    """Encode RGB ``uint8`` frames (even width and height) to ``path``; return the frame count."""
    count = 0
    rate = Fraction(fps).limit_denominator(1001)
    with av.open(str(path), mode="w") as container:
        stream = container.add_stream(
            "libx264", rate=rate,
            options={"crf": str(int(crf)), "preset": preset, "threads": "1", "x264-params": "mbtree=0"},
        )
        stream.pix_fmt = "yuv420p"
        # PyAV's default (auto thread count, slice threads) overrides the "threads" option and made
        # x264's output vary between runs; one plain thread keeps a seed's videos identical.
        stream.codec_context.thread_count = 1
        stream.codec_context.thread_type = "NONE"
        for frame in frames:
            if count == 0:
                h, w = frame.shape[:2]
                if w % 2 or h % 2:
                    raise ValueError(f"yuv420p needs even frame sizes, got {w}x{h}")
                stream.width, stream.height = w, h
            picture = yuv420p_frame(frame)
            picture.pts = count  # explicit timestamps: x264's rate control reads frame durations
            picture.time_base = 1 / rate
            for packet in stream.encode(picture):
                container.mux(packet)
            count += 1
        for packet in stream.encode():
            container.mux(packet)
    return count


def read_rgb(src: str | Path) -> tuple[list[np.ndarray], Fraction]:
    """The video ``src``'s frames, decoded to RGB in order, and its frame rate (24 if unknown)."""
    with av.open(str(src)) as container:
        stream = container.streams.video[0]
        rate = Fraction(stream.average_rate or 24)
        return [f.to_ndarray(format="rgb24") for f in container.decode(stream)], rate


def redraw_mp4(src: str | Path, dst: str | Path,
               draw: Callable[[list[np.ndarray]], Iterable[np.ndarray]], *, crf: int) -> int:
    """Re-draw the video ``src`` into ``dst`` at its own frame rate: ``draw`` takes its decoded
    RGB frames, in order, and gives the frames to encode; returns their count."""
    frames, rate = read_rgb(src)
    return write_mp4(dst, draw(frames), fps=float(rate), crf=crf)
