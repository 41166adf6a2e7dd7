"""One picture of an answer file: the image itself, or a video's last frame."""

from __future__ import annotations

import os

import numpy as np

from ..config import MediaConfig
from .image import load_image
from .video import is_video, iter_frames


def last_frame(path: str | os.PathLike, *, config: MediaConfig | None = None) -> np.ndarray | None:
    """The last decodable frame of a video (streamed; constant memory); None when it has none."""
    last = None
    for frame in iter_frames(path, config=config):
        last = frame
    return last


def answer_picture(path: str | os.PathLike, *, video: bool | None = None,
                   config: MediaConfig | None = None) -> np.ndarray | None:
    """The answer as one RGB picture: an image, or a video's last frame (``video``: default by suffix)."""
    if video if video is not None else is_video(path):
        return last_frame(path, config=config)
    return load_image(path, config=config)
