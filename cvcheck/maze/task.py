"""The maze task's file side: read mazes and answers, stream videos, write overlays.

The only module of :mod:`cvcheck.maze` that touches files. Batch scoring, the CLI and
the report reach the task through :func:`grade_sample`, :func:`grade` and
:func:`render_overlay` (see :mod:`cvcheck.registry`).

Ways in for the maze an answer is graded against (one at most):

``reference``
    an MMGR solution image (the lattice look with the blue solution path);
``puzzle``
    the unsolved puzzle as an image, in any look (read by :func:`cvcheck.maze.read.read_maze`);
``maze``
    a maze file: maze-dataset's ``connection_list`` JSON or its ASCII lattice
    (:mod:`cvcheck.maze.spec_io`);
none
    videos only: the maze is read from the video's own first frames (the puzzle the
    model was given).
"""

from __future__ import annotations

import os
from collections.abc import Generator, Iterable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from ..config import Config
from ..errors import CvcheckError, InputError
from ..media.cache import cached_by_file
from ..media.image import load_image
from ..media.video import iter_frames, modality_of, prefetched
from ..media.write import save_image
from ..schema import Result, Unparseable, error_result
from ..vision.threads import on_one_core, opencv_threads
from ..vision.yuv import Frame, YuvFrame
from .image import analyse_image
from .lattice import MazeSpec
from .read import read_maze
from .render import render_overlay as render_image_overlay
from .spec_io import spec_from_text
from .style import StyleProfile
from .verdict import PIPELINE, TASK, image_result, unparseable, unparseable_video, video_result
from .verify import as_spec, full_config
from .video import LEARN_FRAMES, MazeVideoAnalysis, analyse_video
from .video_render import CanvasStore, contact_sheet, render_video_overlay

HEAD_RGB_FRAMES = LEARN_FRAMES + 1  #: first frames decoded ahead, and whole in RGB, on a second thread (maze, agent)
MAZE_FIELDS = ("reference", "puzzle", "maze")  #: the ways to give the maze, in manifests and on the CLI
MAX_MAZE_FILE = 10_000_000                     #: bytes; a maze file is a few kilobytes


def _load_reference(path: str | os.PathLike[str], *, config: Config) -> MazeSpec:
    return as_spec(load_image(path, config=config.media))


def _load_puzzle(path: str | os.PathLike[str], *, config: Config) -> MazeSpec:
    reading = read_maze(load_image(path, config=config.media), grid=config.maze.grid_shape())
    if isinstance(reading, Unparseable):
        raise InputError(f"puzzle {path}: {reading.reason}")
    return reading.spec


def _load_maze_file(path: str | os.PathLike[str], *, config: Config) -> MazeSpec:
    p = Path(path)
    try:
        if p.stat().st_size > MAX_MAZE_FILE:
            raise InputError(f"maze file {p} is over {MAX_MAZE_FILE:,} bytes: not a maze spec")
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(f"maze file {p} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read maze file {p}: {exc}") from exc
    try:
        return spec_from_text(text)
    except InputError as exc:
        raise InputError(f"maze file {p}: {exc}") from None


#: Parsed once per file per process (batch workers grade many answers against few mazes).
load_reference = cached_by_file(_load_reference)
load_puzzle = cached_by_file(_load_puzzle)
load_maze_file = cached_by_file(_load_maze_file)
_LOADERS = {"reference": load_reference, "puzzle": load_puzzle, "maze": load_maze_file}


def maze_of(fields: Mapping[str, Any], *, config: Config) -> tuple[MazeSpec | None, str]:
    """The maze a sample names, and where it came from (``reference``, ``puzzle``,
    ``maze``, or ``video`` when none is given: then None, read from the video)."""
    given = [k for k in MAZE_FIELDS if fields.get(k)]
    if len(given) > 1:
        raise InputError(f"give the maze one way only, not {' and '.join(given)}")
    if not given:
        return None, "video"
    return _LOADERS[given[0]](fields[given[0]], config=config), given[0]


def _video_analysis(path: str | os.PathLike[str], spec: MazeSpec | None, config: Config,
                    style: str | StyleProfile | None, canvases: CanvasStore | None
                    ) -> tuple[MazeVideoAnalysis | Unparseable, dict[str, Any]]:
    """The video's analysis, and how its frames were read (the reader's ``report()``)."""
    # The first frames are decoded (and converted to RGB whole) ahead on a second thread while
    # the maze and the agent's look are read from them (tens of ms of fixed work that decoding
    # can fill); the rest on this thread as the analysis asks, FFmpeg's own threads decoding
    # ahead on the other cores without the GIL (a second Python thread feeding the analysis
    # took the GIL back several times a frame: about 20 % more analysis time at 720p). Frames
    # stay in YUV: converting every one to RGB cost about as much as decoding it, and the
    # analysis needs RGB only of the first frames and of the maze's region on its canvas.
    # A batch worker among as many as there are cores decodes on this thread, with one
    # decoder thread (see cvcheck.vision.threads.one_core_per_task).
    reader = iter_frames(path, stride=config.maze.video_stride, config=config.media, threads=_decode_threads(),
                         yuv=True)
    frames: Generator[Frame, None, None] = _rgb_ahead(reader, HEAD_RGB_FRAMES)
    if not on_one_core():
        frames = prefetched(frames, depth=HEAD_RGB_FRAMES, count=HEAD_RGB_FRAMES)
    fps = reader.fps / reader.stride if reader.fps else None  # (of the frames as shown: held ones repeated)
    try:
        with opencv_threads(1):
            analysis = analyse_video(frames, spec, config=config.maze, style=style, fps=fps,
                                     on_canvas=canvases.add if canvases is not None else None)
    finally:
        frames.close()
        reader.close()
    read = reader.report()
    if not isinstance(analysis, Unparseable):
        analysis.read = read
    return analysis, read


def _rgb_ahead(frames: Iterable[Frame], count: int) -> Generator[Frame, None, None]:
    """The frames, the first ``count`` converted to RGB whole as they pass (on the thread
    that iterates: the decoding one, where there is one), for the maze and the agent's look
    read from them."""
    for i, frame in enumerate(frames):
        if i < count and isinstance(frame, YuvFrame):
            frame.rgb()
        yield frame


def _decode_threads() -> int:
    """Decoder threads: FFmpeg's choice (0: every core; they decode ahead of the analysis
    without the GIL), one on a process with one core to itself."""
    return 1 if on_one_core() else 0


def verify_video_file(path: str | os.PathLike[str], reference: np.ndarray | MazeSpec | None = None, *,
                      config: Config | None = None, id: str = "", style: str | StyleProfile | None = None,
                      overlay_path: str | os.PathLike[str] | None = None) -> Result:
    """Grade an answer video file, streaming it (memory does not grow with its length).

    ``reference``: the maze (a solution image or a spec); None reads it from the video's
    first frames. ``overlay_path``: also write the tracked trajectory over the maze there,
    and a contact sheet of key frames next to it (``<stem>_frames<suffix>``). Unreadable
    videos raise :class:`~cvcheck.errors.MediaError`; a video cut in the middle is graded
    on the frames that decode (``metrics.truncated = 1``).
    """
    full = full_config(config)
    chash = full.section_hash("maze")
    canvases = CanvasStore() if overlay_path is not None else None
    spec = as_spec(reference) if reference is not None else None
    analysis, read = _video_analysis(path, spec, full, style, canvases)
    if isinstance(analysis, Unparseable):
        return unparseable_video(analysis.reason, read, id=id, config_hash=chash)
    result = video_result(analysis, id=id, config=full.maze, config_hash=chash)
    if overlay_path is not None:
        out = Path(overlay_path)
        save_image(out, render_video_overlay(analysis, result, canvases=canvases))
        save_image(out.with_name(f"{out.stem}_frames{out.suffix or '.png'}"),
                   contact_sheet(analysis, result, canvases=canvases))
    return result


def grade(answer: str | os.PathLike[str], *, config: Config, reference: str | os.PathLike[str] | None = None,
          puzzle: str | os.PathLike[str] | None = None, maze: str | os.PathLike[str] | None = None, id: str = "",
          style: str | StyleProfile | None = None, modality: str | None = None,
          overlay_path: str | os.PathLike[str] | None = None) -> Result:
    """Grade an answer file (image or video) against the maze given one way (see the module
    docstring), or, for a video, against the maze read from its first frames.

    Raises :class:`~cvcheck.errors.InputError` on bad input (the CLI's exit 2). The result's
    ``details.maze_source`` says where the maze came from.
    """
    spec, source = maze_of({"reference": reference, "puzzle": puzzle, "maze": maze}, config=config)
    if (modality or modality_of({"answer": str(answer)})) == "video":
        result = verify_video_file(answer, spec, config=config, id=id, style=style, overlay_path=overlay_path)
    elif spec is None:
        raise InputError("a maze answer image needs the maze: a reference solution image, a puzzle image or a "
                         "maze file (only a video can be graded without one: its first frame is the puzzle)")
    else:
        chash = config.section_hash("maze")
        analysis = analyse_image(load_image(answer, config=config.media), spec, config=config.maze)
        if isinstance(analysis, Unparseable):
            result = unparseable(analysis.reason, id=id, config_hash=chash)
        else:
            result = image_result(analysis, id=id, config=config.maze, config_hash=chash)
            if overlay_path is not None:
                save_image(overlay_path, render_image_overlay(analysis, result))
    return replace(result, details={**result.details, "maze_source": source})


def grade_sample(sample: Mapping[str, Any], *, config: Config) -> Result:
    """Grade one manifest sample; bad input becomes an ``error`` result.

    Sample fields: ``id``, ``answer`` (image or video path), at most one of ``reference``
    (MMGR solution image), ``puzzle`` (puzzle image, any look) or ``maze`` (maze file) —
    none for a video whose first frame shows the puzzle —, optional ``modality`` and, for
    videos, ``style`` (``auto``, ``mmgr`` or ``mazeplot``; default ``maze.video_style``).
    """
    sid = str(sample.get("id", ""))
    modality = modality_of(sample)
    try:
        answer = sample.get("answer")
        if not answer:
            raise InputError("sample has no 'answer' path")
        return grade(answer, config=config, reference=sample.get("reference"), puzzle=sample.get("puzzle"),
                     maze=sample.get("maze"), id=sid, style=sample.get("style"), modality=modality)
    except CvcheckError as exc:
        return error_result(id=sid, task=TASK, pipeline=PIPELINE, modality=modality, exc=exc,
                            config_hash=config.section_hash("maze"))


def check_sample(sample: Mapping[str, Any]) -> None:
    """A sample names its maze at most one way, and an image answer names it (no file is read)."""
    given = [k for k in MAZE_FIELDS if sample.get(k)]
    if len(given) > 1:
        raise InputError(f"give the maze one way only, not {' and '.join(given)}")
    if not given and modality_of(sample) != "video":
        raise InputError("a maze answer image needs one of 'reference' (solution image), 'puzzle' (puzzle image) "
                         "or 'maze' (maze file); only a video can be graded without one")


def check_references(sample: Mapping[str, Any], *, config: Config) -> None:
    """Read the sample's maze (``cvcheck validate``); raises InputError when it is no maze.
    Missing files are left to the missing-files check."""
    check_sample(sample)
    given = [k for k in MAZE_FIELDS if sample.get(k)]
    if given and Path(sample[given[0]]).is_file():
        maze_of(sample, config=config)


def render_overlay(record: Mapping[str, Any], *, config: Config) -> np.ndarray | None:
    """The overlay picture of a result record (RGB), analysing its answer again; None when it has none."""
    sample = record.get("sample") or {}
    spec, _ = maze_of(sample, config=config)
    result = Result.from_dict(record)
    if modality_of(sample) == "video":
        canvases = CanvasStore()
        video, _ = _video_analysis(sample["answer"], spec, config, sample.get("style"), canvases)
        return None if isinstance(video, Unparseable) else render_video_overlay(video, result, canvases=canvases)
    if spec is None:
        return None
    image = analyse_image(load_image(sample["answer"], config=config.media), spec, config=config.maze)
    return None if isinstance(image, Unparseable) else render_image_overlay(image, result)
