"""Frames shown for several frame periods, counted once per period.

Encoders of animated pictures (GIF, WebP) and of variable-frame-rate containers (WebM, MKV)
store a run of identical frames once, shown for the whole run. A verifier that counts frames
(cells updated in a fifth of the frames, a change held for N frames, the agent in its goal in
the last frames) must count such a frame once for each frame period it is shown: 40 frames
at 24 fps saved as a WebP of 22 are still 40 frame times. :func:`frame_periods` finds the
period (the frame rate the video was made at) from the frames' display times, and how many
periods each frame is shown for; :func:`stored_durations` reads the display times of a file
FFmpeg demuxes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

SAME_TIME = 0.12     #: display times within this share of one another are one frame time
MIN_PERIOD = 1 / 240  #: seconds: a shorter frame period is a timestamp's jitter, not a frame rate
REFINE_STEPS = 2     #: times the period is re-estimated as the display time per period counted


@dataclass(frozen=True)
class FramePeriods:
    """How long each stored frame of a video is shown, in frame periods."""

    period: float              #: seconds
    counts: tuple[int, ...]    #: frame periods each stored frame is shown for (1 or more)

    @property
    def fps(self) -> float:
        """The frame rate the video was made at."""
        return 1.0 / self.period

    @property
    def frames(self) -> int:
        """Frame periods in all: the video's frames, each held frame counted once a period."""
        return int(sum(self.counts))

    @property
    def repeated(self) -> int:
        """Frame periods beyond the first of each stored frame."""
        return self.frames - len(self.counts)


def frame_periods(durations: Sequence[float]) -> FramePeriods | None:
    """The frame period of display times ``durations`` (seconds, one per stored frame) and
    how many periods each frame is shown for; None when every frame is shown for one (nothing
    is held) or the times say nothing (fewer than two frames share a positive time).

    The period is the shortest display time two frames or more share (within SAME_TIME: a
    single odd short frame is not the rate), then the time over the periods counted, frames
    shorter than half a period left out (times rounded to a container's ticks - 41 and 42 ms
    at 24 fps - average out). A frame with no positive time, or shorter, counts one period.
    """
    d = np.asarray(durations, dtype=float).ravel()
    ok = np.isfinite(d) & (d > 0)
    times = np.sort(d[ok])
    if times.size < 2:
        return None
    shared = np.flatnonzero(times[1:] <= times[:-1] * (1 + SAME_TIME))
    if shared.size == 0:
        return None
    period = max(float(times[shared[0]]), MIN_PERIOD)
    for _ in range(REFINE_STEPS):  # (frames under half a period - odd short ones - left out)
        units = np.rint(times / period)
        period = float(times[units >= 1].sum() / units[units >= 1].sum())
    counts = np.ones(d.size, dtype=np.int64)
    counts[ok] = np.maximum(1, np.rint(d[ok] / period)).astype(np.int64)
    if not (counts > 1).any():
        return None
    return FramePeriods(period=period, counts=tuple(int(c) for c in counts))


def stored_durations(path: str | Path, *, max_packets: int) -> tuple[list[int], list[float]] | None:
    """Each stored frame's presentation time stamp (the stream's ticks) and display time
    (seconds) in a file FFmpeg demuxes, in presentation order, from its packets alone (nothing
    is decoded; at most ``max_packets``); None when the stream has no time base or its packets
    no time stamps. A frame's display time runs to the next frame's stamp; the last one's is
    its packet's duration (0 when it has none)."""
    import av

    stamps: list[tuple[int, int]] = []
    try:
        with av.open(str(path), mode="r", timeout=10.0) as container:
            stream = container.streams.video[0]
            base = stream.time_base
            for seen, packet in enumerate(container.demux(stream), start=1):
                if packet.size:
                    if packet.pts is None:
                        return None
                    stamps.append((int(packet.pts), int(packet.duration or 0)))
                if seen >= max_packets:  # (empty packets counted too: no file keeps it here for ever)
                    break
    except (av.error.FFmpegError, OSError, ValueError, IndexError):
        return None  # (the reader reports what is wrong with the file)
    if base is None or not stamps:
        return None
    stamps.sort()
    pts = [p for p, _ in stamps]
    ticks = [b - a for a, b in zip(pts, pts[1:])] + [stamps[-1][1]]
    return pts, [float(t * base) for t in ticks]


__all__ = ["FramePeriods", "frame_periods", "stored_durations"]
