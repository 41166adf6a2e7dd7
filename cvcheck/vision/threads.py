"""Process-wide thread policy: OpenCV's thread count for a block of work, and whether this
process has one core to itself (a batch worker among others, one a core)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import cv2


@contextmanager
def opencv_threads(count: int) -> Iterator[None]:
    """Run a block with OpenCV using ``count`` threads (its pool costs more than it saves on
    small canvases: measured ~2x the CPU time per maze video frame)."""
    before = cv2.getNumThreads()
    cv2.setNumThreads(count)
    try:
        yield
    finally:
        cv2.setNumThreads(before)


_one_core = False


def one_core_per_task(enabled: bool = True) -> None:
    """Say that this process grades on one core (a batch worker beside as many others as there
    are cores): graders then keep every stage on the thread that grades - a video is decoded
    there, by one decoder thread, instead of ahead on a second thread. With every core busy a
    second thread adds no throughput, only contention for the GIL (which PyAV takes back
    several times a frame)."""
    global _one_core
    _one_core = bool(enabled)


def on_one_core() -> bool:
    """Whether :func:`one_core_per_task` was set for this process."""
    return _one_core
