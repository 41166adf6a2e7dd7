"""A small progress bar on stderr (no dependency): redrawn in place on a terminal,
a line every 10 % otherwise (logs stay readable)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class ProgressBar:
    """Call with ``(done, total, errors)``; :meth:`close` ends the line."""

    def __init__(self, label: str = "grading", *, stream: TextIO | None = None, width: int = 28):
        self.stream = stream or sys.stderr
        self.label, self.width = label, width
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.t0 = time.monotonic()
        self.first: int | None = None
        self.last_decile = -1
        self.last_draw = 0.0

    def __call__(self, done: int, total: int, errors: int) -> None:
        now = time.monotonic()
        if self.first is None:
            self.first, self.t0 = done, now
        frac = done / total if total else 1.0
        rate = (done - self.first) / (now - self.t0) if now > self.t0 else 0.0
        eta = (total - done) / rate if rate > 0 else None
        text = (f"{self.label} {done}/{total} {100 * frac:5.1f}% {rate:5.1f}/s eta {_clock(eta)}"
                + (f" errors {errors}" if errors else ""))
        if self.tty:
            if done < total and now - self.last_draw < 0.1:
                return
            filled = int(self.width * frac)
            self.stream.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {text}\x1b[K")
            self.last_draw = now
        else:
            decile = int(10 * frac)
            if decile == self.last_decile:
                return
            self.last_decile = decile
            self.stream.write(text + "\n")
        self.stream.flush()

    def close(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def _clock(seconds: float | None) -> str:
    if seconds is None:
        return "--:--"
    s = int(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60:02d}:{s % 60:02d}"
