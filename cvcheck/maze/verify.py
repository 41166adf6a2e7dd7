"""Grade a maze answer image or video (arrays in, Result out): MMGR's deterministic pixel pipeline.

>>> from cvcheck.synth.maze_cases import make_case
>>> case = make_case(7, defect="valid")
>>> verify_image(case.answer, case.reference).overall
1.0
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import numpy as np

from ..config import Config, MazeConfig
from ..errors import InputError
from ..schema import Result, Unparseable
from ..vision.arrays import as_rgb
from .extract import parse_reference
from .image import analyse_image
from .lattice import MazeSpec
from .style import StyleProfile
from .verdict import image_result, unparseable, video_result
from .video import analyse_video

Reference = np.ndarray | MazeSpec


def full_config(config: Config | MazeConfig | None) -> Config:
    """Accept a full Config, its maze section alone, or None (the defaults)."""
    if isinstance(config, Config):
        return config
    return Config(maze=config or MazeConfig())


def as_spec(reference: Reference) -> MazeSpec:
    """Accept a parsed :class:`MazeSpec` or a reference solution image (MMGR palette)."""
    if isinstance(reference, MazeSpec):
        return reference
    if not isinstance(reference, np.ndarray):
        raise InputError(f"reference must be an image array or a MazeSpec, got {type(reference).__name__}")
    return parse_reference(as_rgb(reference, name="reference"))


def verify_image(answer: np.ndarray, reference: Reference, *, config: Config | MazeConfig | None = None,
                 id: str = "") -> Result:
    """Grade a generated maze solution image.

    Parameters
    ----------
    answer : ndarray of shape (H, W, 3) (or grey / RGBA)
        The model's output, any size, with or without margins.
    reference : ndarray or MazeSpec
        The reference solution image (MMGR palette: black walls, green start, red
        goal, blue path) or a parsed spec.
    config : Config or MazeConfig, optional
        Thresholds (MMGR defaults).

    Returns
    -------
    Result
        ``ok`` with the gated overall (layout IoU > 0.8 and markers in place, no wall
        crossing, target achievement > 0.95 with a connected path, no loops and
        length <= 1.3x), or ``unparseable`` (overall 0) when no maze can be read.
        Bad arguments raise :class:`~cvcheck.errors.InputError`.
    """
    full = full_config(config)
    chash = full.section_hash("maze")
    analysis = analyse_image(answer, as_spec(reference), config=full.maze)
    if isinstance(analysis, Unparseable):
        return unparseable(analysis.reason, id=id, config_hash=chash)
    return image_result(analysis, id=id, config=full.maze, config_hash=chash)


def verify_video(frames: Iterable[np.ndarray], reference: Reference | None = None, *,
                 config: Config | MazeConfig | None = None, id: str = "",
                 style: str | StyleProfile | None = None, fps: float | None = None) -> Result:
    """Grade a generated maze-solving video given as RGB frames (MMGR's video extension).

    Parameters
    ----------
    frames : iterable of ndarray (H, W, 3)
        The answer's frames, consumed once (memory does not grow with the length);
        every ``maze.video_stride``-th is analysed. Files:
        :func:`cvcheck.maze.task.verify_video_file` streams them.
    reference : ndarray or MazeSpec, optional
        The reference solution image or a parsed spec (from a puzzle image or a maze
        file: :mod:`cvcheck.maze.task`); None: the maze is read from the video's own
        first frames (the puzzle the model was given).
    config : Config or MazeConfig, optional
        Thresholds (MMGR defaults); ``maze.video_*`` for the video-specific ones.
    style : str or StyleProfile, optional
        ``auto`` (default, or ``maze.video_style``): the look is read from the video;
        ``mmgr`` or ``mazeplot`` fix the colours and wall kind.
    fps : float, optional
        The frame rate, for the settle window (``maze.video_settle_seconds``); 24 if None.

    Returns
    -------
    Result
        ``ok`` with the gated overall, or ``unparseable`` when no maze is found.
    """
    full = full_config(config)
    chash = full.section_hash("maze")
    stride = full.maze.video_stride
    seen = [0]

    def every_stride() -> Iterator[np.ndarray]:
        for i, frame in enumerate(frames):
            seen[0] = i + 1
            if i % stride == 0:
                yield as_rgb(frame, name=f"frame {i}")

    spec = as_spec(reference) if reference is not None else None
    analysis = analyse_video(every_stride(), spec, config=full.maze, style=style,
                             fps=fps / stride if fps else None)
    if isinstance(analysis, Unparseable):
        return unparseable(analysis.reason, id=id, config_hash=chash, modality="video")
    analysis.read = {"frames_read": analysis.frames, "frames_decoded": seen[0], "truncated": False, "error": None,
                     "stride": stride, "fps": None}
    return video_result(analysis, id=id, config=full.maze, config_hash=chash)
