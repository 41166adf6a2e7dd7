"""Overlay pictures for result records, through each task's own renderer where one exists.

:data:`RENDERERS` maps a task to ``function(record, *, config) -> ndarray | None``;
tasks without one fall back to the answer itself (an image, or a video's last frame)
under a verdict banner. Renderers that need a module which has not landed yet, or
that fail on a given sample, return None: the gallery then shows the verdict only.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any, Callable, Mapping

import cv2
import numpy as np

from ..config import Config
from ..media.video import is_video
from ..schema import Result

Renderer = Callable[..., "np.ndarray | None"]


def _sample(record: Mapping[str, Any]) -> Mapping[str, Any]:
    return record.get("sample") or {}


def last_frame(path: str, *, config: Config) -> np.ndarray | None:
    """The last decodable frame of a video (streamed; constant memory)."""
    from ..media.video import iter_frames

    last = None
    for frame in iter_frames(path, config=config.media):
        last = frame
    return None if last is None else np.asarray(last)


def _answer_picture(record: Mapping[str, Any], *, config: Config) -> np.ndarray | None:
    from ..media.image import load_image

    answer = _sample(record).get("answer")
    if not answer or not Path(answer).is_file():
        return None
    return last_frame(answer, config=config) if is_video(answer) else load_image(answer, config=config.media)


def _maze(record: Mapping[str, Any], *, config: Config) -> np.ndarray | None:
    from ..maze.render import render_overlay
    from ..maze.task import load_reference
    from ..maze.verify import analyse_maze_image
    from ..media.image import load_image

    s = _sample(record)
    if is_video(s["answer"]):
        return _maze_video(record, config=config)
    spec = load_reference(s["reference"], config=config)
    analysis = analyse_maze_image(load_image(s["answer"], config=config.media), spec, config=config.maze)
    if isinstance(analysis, str):
        return None
    return render_overlay(analysis, Result.from_dict(record))


def _maze_video(record: Mapping[str, Any], *, config: Config) -> np.ndarray | None:
    import tempfile

    from ..maze.task import load_reference
    from ..maze.video import verify_maze_video  # lands with the maze video verifier
    from ..media.image import load_image

    s = _sample(record)
    spec = load_reference(s["reference"], config=config)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "overlay.png"
        verify_maze_video(s["answer"], spec, config=config, id=str(record.get("id", "")), overlay_path=str(out),
                          style=s.get("style"))
        return load_image(out) if out.is_file() else None


def _sudoku(record: Mapping[str, Any], *, config: Config) -> np.ndarray | None:
    from ..sudoku.render import render_overlay  # lands with the Sudoku overlay

    picture = _answer_picture(record, config=config)
    if picture is None:
        return None
    return render_overlay(picture, Result.from_dict(record))


#: task -> renderer(record, *, config)
RENDERERS: dict[str, Renderer] = {"maze": _maze, "sudoku": _sudoku}


def banner(image: np.ndarray, text: str, *, ok: bool) -> np.ndarray:
    """Prepend a dark bar with ``text`` (green for a pass, red otherwise)."""
    w = image.shape[1]
    h = max(24, w // 20)
    bar = np.full((h, w, 3), 32, np.uint8)
    scale = h / 40
    cv2.putText(bar, text[:120], (6, int(h * 0.7)), cv2.FONT_HERSHEY_SIMPLEX, scale,
                (80, 220, 80) if ok else (255, 90, 90), max(1, int(scale * 2)), cv2.LINE_AA)
    return np.vstack([bar, image])


def render_record(record: Mapping[str, Any], *, config: Config | None = None) -> np.ndarray | None:
    """An overlay for ``record`` (RGB uint8), or None when nothing can be drawn."""
    cfg = config or Config()
    if record.get("status") == "error":
        return None
    renderer = RENDERERS.get(str(record.get("task")))
    if renderer is not None:
        try:
            picture = renderer(record, config=cfg)
            if picture is not None:
                return np.ascontiguousarray(picture[..., :3]).astype(np.uint8)
        except Exception:  # noqa: BLE001 - a missing renderer or odd sample falls back below
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


def thumbnail_data_uri(image: np.ndarray, *, max_side: int = 320, quality: int = 80) -> str:
    """A small JPEG of ``image`` as a ``data:`` URI (for self-contained HTML)."""
    h, w = image.shape[:2]
    scale = min(1.0, max_side / max(h, w))
    small = cv2.resize(image, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_AREA)
    ok, buf = cv2.imencode(".jpg", np.ascontiguousarray(small[:, :, ::-1]), [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:  # pragma: no cover
        return ""
    return "data:image/jpeg;base64," + base64.b64encode(buf.tobytes()).decode("ascii")


def safe_name(sid: str) -> str:
    """A file name for a sample id (unsafe characters replaced, stable hash suffix)."""
    import hashlib

    keep = "".join(c if c.isalnum() or c in "-_." else "_" for c in sid)[:80].lstrip(".") or "sample"
    return f"{keep}-{hashlib.sha1(sid.encode('utf-8')).hexdigest()[:8]}"
