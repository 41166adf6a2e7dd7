"""Writing pictures (overlays, contact sheets): the I/O side of rendering."""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np

from ..errors import MediaError


def save_image(path: str | os.PathLike, image: np.ndarray) -> Path:
    """Write an RGB uint8 image (PNG or JPEG by extension), creating parent folders."""
    out = Path(path)
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        ok = cv2.imwrite(str(out), np.ascontiguousarray(image[:, :, ::-1]))
    except (cv2.error, OSError, UnicodeError) as exc:  # OpenCV raises for an extension it has no writer for
        raise MediaError(f"cannot write image {out}: {_first_line(exc)} (use .png or .jpg)") from None
    if not ok:
        raise MediaError(f"cannot write image {out} (unsupported extension or unwritable folder)")
    return out


def _first_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[-1] if lines else type(exc).__name__
