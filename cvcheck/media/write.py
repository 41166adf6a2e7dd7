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
    out.parent.mkdir(parents=True, exist_ok=True)
    ok = cv2.imwrite(str(out), np.ascontiguousarray(image[:, :, ::-1]))
    if not ok:
        raise MediaError(f"cannot write image {out} (unsupported extension or unwritable folder)")
    return out
