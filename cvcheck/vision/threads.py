"""OpenCV's process-wide thread count, set for a block of work and restored after."""

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
