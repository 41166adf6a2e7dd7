"""Overlay pictures for result records, through each task's own renderer where one exists.

A task's renderer (:attr:`cvcheck.registry.Task.renderer`) draws the overlay of a
record; tasks without one, and records a renderer cannot draw (a file gone, an odd
sample), fall back to the answer itself (an image, or a video's last frame) under a
verdict banner.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from ..config import Config
from ..media.picture import answer_picture
from ..media.video import modality_of
from ..registry import TASKS
from .html import SafeURL, image_uri
from .text import ascii_text


def _answer_picture(record: Mapping[str, Any], *, config: Config) -> np.ndarray | None:
    sample = record.get("sample") or {}
    answer = sample.get("answer")
    if not answer or not Path(answer).is_file():
        return None
    return answer_picture(answer, video=modality_of(sample) == "video", config=config.media)


def banner(image: np.ndarray, text: str, *, ok: bool) -> np.ndarray:
    """Prepend a dark bar with ``text`` (green for a pass, red otherwise)."""
    w = image.shape[1]
    h = max(24, w // 20)
    bar = np.full((h, w, 3), 32, np.uint8)
    scale = h / 40
    cv2.putText(bar, ascii_text(text)[:120], (6, int(h * 0.7)), cv2.FONT_HERSHEY_SIMPLEX, scale,
                (80, 220, 80) if ok else (255, 90, 90), max(1, int(scale * 2)), cv2.LINE_AA)
    return np.vstack([bar, image])


def render_record(record: Mapping[str, Any], *, config: Config | None = None) -> np.ndarray | None:
    """An overlay for ``record`` (RGB uint8), or None when nothing can be drawn."""
    cfg = config or Config()
    if record.get("status") == "error":
        return None
    task = TASKS.get(str(record.get("task")))
    if task is not None:
        try:
            picture = task.render_overlay(record, config=cfg)
            if picture is not None:
                return np.ascontiguousarray(picture[..., :3]).astype(np.uint8)
        except Exception:  # noqa: BLE001 - a file gone or an odd sample falls back below
            pass
    try:
        picture = _answer_picture(record, config=cfg)
    except Exception:  # noqa: BLE001
        return None
    if picture is None:
        return None
    failed = ((record.get("gate") or {}).get("failed")) or []
    text = f"{record.get('status')} overall={record.get('overall')}"
    if failed:
        text += f" failed: {', '.join(failed)}"
    return banner(picture, text, ok=record.get("overall") == 1.0)


def thumbnail_data_uri(image: np.ndarray, *, max_side: int = 320, quality: int = 80) -> SafeURL:
    """A small JPEG of ``image`` as a ``data:`` URI (for self-contained HTML)."""
    h, w = image.shape[:2]
    scale = min(1.0, max_side / max(h, w))
    small = cv2.resize(image, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", np.ascontiguousarray(small[:, :, ::-1]), [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:  # pragma: no cover
        raise ValueError("OpenCV could not encode a JPEG thumbnail")
    return image_uri(buf.tobytes(), "image/jpeg")


def safe_name(sid: str) -> str:
    """A file name for a sample id: letters, digits and ``-_.`` kept, anything else replaced, a stable
    hash of the whole id appended (distinct ids never share a file; lone surrogates are fine)."""
    sid = str(sid)
    keep = "".join(c if c.isalnum() or c in "-_." else "_" for c in sid)[:80].lstrip(".")
    digest = hashlib.sha1(sid.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{keep or 'sample'}-{digest}"
