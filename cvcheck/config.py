"""Typed configuration: every MMGR threshold with its paper default and its valid range.

Configuration is data: frozen dataclasses, loadable from JSON, overridable with
``section.field=value`` strings (the CLI's ``--set``), and hashed into each result
so that a verdict can be reproduced. Each setting declares what it accepts next to its
default (:func:`ranged`, :func:`one_of`, :func:`path`, :func:`text`); every section
checks its values when built, so a bad value is a :class:`~cvcheck.errors.ConfigError`
naming the setting and its valid range, never a failure later on.
:func:`settings_table` writes the README's table of all settings from these declarations.

>>> cfg = Config().with_overrides(["maze.layout_iou_min=0.75"])
>>> cfg.maze.layout_iou_min
0.75
>>> cfg.section_hash("maze") != Config().section_hash("maze")
True
>>> Config().with_overrides(["maze.layout_iou_min=-5"])
Traceback (most recent call last):
...
cvcheck.errors.ConfigError: maze.layout_iou_min must be in [0, 1], got -5
"""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import json
import math
import re
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, ClassVar, Iterable, Mapping

from .errors import ConfigError
from .limits import MAX_PATH_CHARS, JSONLimitError, decode_utf8, loads_json

MAX_CONFIG_BYTES = 1_000_000  #: a config file is a few KB; refuse anything huge
MAX_TEXT_CHARS = MAX_PATH_CHARS  #: characters in one text setting
GRID_SIZE = r"\s*(\d{1,3}(\s*[xX]\s*\d{1,3})?)?\s*"  #: ``maze.grid``: "", "N" or "RxC"


# -- declarations ------------------------------------------------------------------------

@dataclass(frozen=True)
class Range:
    """A closed (or half-open) interval of valid numbers."""

    lo: float
    hi: float
    hi_open: bool = False
    lo_open: bool = False

    def __contains__(self, value: float) -> bool:
        above = self.lo < value if self.lo_open else self.lo <= value
        return above and (value < self.hi if self.hi_open else value <= self.hi)

    def __str__(self) -> str:
        return f"{'(' if self.lo_open else '['}{_num(self.lo)}, {_num(self.hi)}{')' if self.hi_open else ']'}"


def _num(x: float) -> str:
    return f"{x:,}" if isinstance(x, int) else f"{x:g}"


def ranged(default: float, lo: float, hi: float, *, hi_open: bool = False, lo_open: bool = False) -> Any:
    """A numeric setting valid in ``[lo, hi]`` (open ends with ``lo_open``/``hi_open``); its type is the default's."""
    return field(default=default, metadata={"range": Range(lo, hi, hi_open, lo_open)})


def one_of(default: str, *choices: str) -> Any:
    """A text setting that must be one of ``choices`` (the default among them)."""
    return field(default=default, metadata={"choices": (default, *[c for c in choices if c != default])})


def path(default: str = "") -> Any:
    """A file or folder path ("" = not set); checked when it is used."""
    return field(default=default, metadata={"path": True})


def text(default: str = "", *, pattern: str | None = None, what: str = "") -> Any:
    """Free text (at most :data:`MAX_TEXT_CHARS` characters, no NUL), optionally matching ``pattern``."""
    return field(default=default, metadata={"pattern": pattern, "what": what})


def name(default: str) -> Any:
    """A name (letters, digits, ``_``, ``.``, ``-``; at most 128 characters), checked again where it is used."""
    return text(default, pattern=r"[A-Za-z][\w.-]{0,127}", what="a name (letters, digits, _ . -)")


def check_section(section: Any) -> None:
    """Check every setting of a section instance against its declaration (type, range, choices).

    Called by each section's ``__post_init__``; integral numbers given for ``float``
    settings become floats, so equal configurations hash equally.
    """
    name = getattr(section, "SECTION", type(section).__name__)
    for f in fields(section):
        key = f"{name}.{f.name}"
        value = getattr(section, f.name)
        kind: type = type(f.default)
        if kind is float:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ConfigError(f"{key} must be a number, got {value!r}")
            if not math.isfinite(value):
                raise ConfigError(f"{key} must be a finite number, got {value!r}")
            if type(value) is not float:
                value = float(value)
                object.__setattr__(section, f.name, value)
        elif kind is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise ConfigError(f"{key} must be an integer, got {value!r}")
        elif kind is bool:
            if not isinstance(value, bool):
                raise ConfigError(f"{key} must be true or false, got {value!r}")
        elif kind is str:
            if not isinstance(value, str):
                raise ConfigError(f"{key} must be text, got {value!r}")
            _check_text(key, value, f.metadata)
        rng = f.metadata.get("range")
        if rng is not None and value not in rng:
            raise ConfigError(f"{key} must be in {rng}, got {_num(value)}")


def _check_text(key: str, value: str, meta: Mapping[str, Any]) -> None:
    if len(value) > MAX_TEXT_CHARS:
        raise ConfigError(f"{key} is {len(value):,} characters long (at most {MAX_TEXT_CHARS:,})")
    if "\x00" in value or re.search("[\ud800-\udfff]", value):
        raise ConfigError(f"{key} contains a NUL character or a lone surrogate: {ascii(value)[:80]}")
    choices = meta.get("choices")
    if choices is not None and value not in choices:
        raise ConfigError(f"{key} must be one of {', '.join(choices)}; got {value!r}")
    pattern = meta.get("pattern")
    if pattern is not None and not re.fullmatch(pattern, value):
        raise ConfigError(f"{key} must be {meta.get('what') or 'text matching ' + pattern}; got {value!r}")


# -- sections ------------------------------------------------------------------------------

@dataclass(frozen=True)
class MediaConfig:
    """Guards applied when reading images and videos."""

    SECTION: ClassVar[str] = "media"

    max_pixels: int = ranged(64_000_000, 1, 1_000_000_000)  #: refuse images (or frames) larger than this
    max_file_bytes: int = ranged(2_000_000_000, 1, 2**40)  #: refuse files larger than this
    max_frames: int = ranged(100_000, 1, 100_000_000)  #: stop reading a video after this many frames (reported)
    max_decoded_bytes: int = ranged(2**28, 1, 2**36)  #: refuse images decoding to more bytes (w x h x bands x bytes)
    max_aspect_ratio: float = ranged(50.0, 1.0, 1000.0)  #: refuse images/frames with long side > this x short side
    undither: str = one_of("auto", "off")  #: auto: smooth videos on a coarse palette (a GIF with none of its own) | off
    held_frames: str = one_of("repeat", "once")  #: repeat: a frame shown several frame periods counts once each | once

    def __post_init__(self) -> None:
        check_section(self)


@dataclass(frozen=True)
class MazeConfig:
    """MMGR T1 pixel pipeline thresholds (C.5.3) and rendering tolerances.

    Lengths are in units of the maze's cell pitch (one lattice cell), so they hold
    at any resolution.
    """

    SECTION: ClassVar[str] = "maze"

    layout_iou_min: float = ranged(0.8, 0, 1)  #: layout correct iff wall IoU > this
    target_achievement_min: float = ranged(0.95, 0, 1)  #: cell-level target achievement must exceed this
    reflection_length_ratio: float = ranged(1.3, 1, 100)  #: reflection iff path length > this x solution length
    marker_tolerance: float = ranged(0.75, 0, 100)  #: start/goal centroid distance tolerance (cells)
    wall_erosion: float = ranged(0.2, 0, 0.5, hi_open=True)  #: eroded from each wall side before crossing tests (cells)
    cross_wall_ratio: float = ranged(0.05, 0, 1)  #: a wall cell is crossed iff path covers > this of its eroded core
    path_cell_coverage: float = ranged(0.4, 0, 1)  #: a lattice cell is on the path iff dilated path covers > this
    loop_min_area: float = ranged(0.04, 0, 1000)  #: a hole in the path counts as a loop iff its area > this (cells^2)
    canvas_cell_px: int = ranged(16, 4, 128)  #: analysis canvas resolution (pixels per lattice cell)
    # video (C.5.3 "Video extension")
    video_wall_erosion: float = ranged(0.3, 0, 0.5, hi_open=True)  #: stronger erosion for videos (cells)
    video_cross_wall_ratio: float = ranged(0.05, 0, 1)  #: flagged only if the crossing ratio exceeds 5 %
    video_settle_seconds: float = ranged(0.25, 0, 60, lo_open=True)  #: the agent ends in the goal cell this long (s)
    video_stride: int = ranged(1, 1, 10_000)  #: analyse every Nth frame (1 = every frame)
    video_max_gap_frames: int = ranged(12, 0, 100_000)  #: frames the agent may vanish before the track is lost
    # -- added with the maze video verifier (issue 3) --
    video_style: str = one_of("auto", "mmgr", "mazeplot")  #: auto (the look read from the video) | mmgr | mazeplot
    video_canvas_cell_px: int = ranged(8, 4, 128)  #: video analysis canvas resolution (pixels per lattice cell)
    video_contact_overlap: float = ranged(0.2, 0, 1)  #: agent touches a wall iff this share of it is in eroded walls
    # -- added with the general maze reader (issue 9) --
    grid: str = text("", pattern=GRID_SIZE, what='"N" or "RxC" cells')  #: grid size if unreadable ("" = measured)
    # -- added for speed (issue 9) --
    video_reuse_tolerance: int = ranged(2, 0, 255)  #: levels of change a canvas row tolerates before it is resampled
    # -- added for agents lost in grain (issue 9) --
    video_min_followed: float = ranged(0.4, 0, 1)  #: a solve needs the agent seen in this share of its frames
    video_max_unseen_route: float = ranged(0.75, 0, 1)  #: ... and at most this share of its way gone unseen (2+ frames)

    def __post_init__(self) -> None:
        check_section(self)
        self.grid_shape()  # validates the grid override (1x2 .. 60x60)


    def grid_shape(self) -> tuple[int, int] | None:
        """The ``grid`` override as (rows, cols), or None when the grid is to be measured."""
        text = self.grid.strip().lower()
        if not text:
            return None
        rows, sep, cols = text.partition("x")
        try:
            shape = (int(rows), int(cols) if sep else int(rows))
        except ValueError:
            raise ConfigError(f"maze.grid must be N or RxC (cells), got {self.grid!r}") from None
        if not (1 <= shape[0] <= 60 and 1 <= shape[1] <= 60) or shape[0] * shape[1] < 2:
            raise ConfigError(f"maze.grid must be between 1x2 and 60x60 cells, got {self.grid!r}")
        return shape


@dataclass(frozen=True)
class SudokuConfig:
    """MMGR T2 OCR pipeline thresholds (D.4.2)."""

    SECTION: ClassVar[str] = "sudoku"

    reflection_max_avg_updates_4: float = ranged(3.0, 0, 16)  #: avg cell updates per frame, 4x4
    reflection_max_avg_updates_9: float = ranged(5.0, 0, 81)  #: avg cell updates per frame, 9x9
    reflection_max_changed_fraction: float = ranged(0.25, 0, 1)  #: max share of cells changing in one frame
    reflection_min_active_fraction: float = ranged(0.20, 0, 1)  #: min share of frames with updates
    min_confidence: float = ranged(0.6, 0, 1)  #: readings below this are reported as low confidence
    cell_inset: float = ranged(0.15, 0, 0.5, hi_open=True)  #: fraction of the cell cut from each side before reading
    ocr_engine: str = one_of("rapidocr", "paddleocr")  #: digit recogniser (both offline)
    video_stride: int = ranged(1, 1, 10_000)  #: read every Nth frame of a video (1 = every frame)
    # -- added with the Sudoku verifier (issue 4) --
    ocr_threads: int = ranged(1, 0, 1024)  #: onnxruntime intra-op threads (0 = library default)
    ocr_device: str = one_of("cpu", "cuda", "auto")  #: cpu | cuda | auto (CUDA via onnxruntime-gpu when present)
    ocr_model_path: str = path()  #: rapidocr engine: explicit .onnx rec model ("" = the one in the wheel)
    ocr_glyph_share: float = ranged(0.2, 0, 1)  #: crops share one reading when no 4x4 block differs by more (0 = off)
    paddle_rec_model_dir: str = path()  #: paddleocr engine: local PaddleOCR rec model directory
    paddle_rec_model_name: str = name("PP-OCRv4_mobile_rec")  #: paddleocr engine: the rec model's name
    video_change_threshold: float = ranged(40.0, 0, 255)  #: grey change of a 16x16 cell thumbnail that makes it re-read
    video_debounce_frames: int = ranged(3, 1, 10_000)  #: a new cell value counts once it holds this many frames
    # -- added for puzzles read from images / first frames and real video effects --
    entry_min_height: float = ranged(0.3, 0, 1)  #: glyphs shorter than this share of a cell are pencil marks
    solver_max_nodes: int = ranged(200_000, 1, 10_000_000)  #: search nodes to solve a puzzle given without its solution
    puzzle_frames: int = ranged(3, 1, 10_000)  #: a video's clues: the first reading this many analysed frames agree on
    puzzle_search_frames: int = ranged(48, 1, 100_000)  #: early frames searched for that agreement (then: unparseable)
    video_debounce_seconds: float = ranged(0.12, 0, 60)  #: debounce at most this long, >= 1 frame (1-2 fps strips)
    video_max_frames: int = ranged(3000, 0, 100_000_000)  #: longer videos: every k-th frame + the last (0 = all)
    video_max_seconds: float = ranged(300.0, 0, 86_400, lo_open=True)  #: hard stop per video (an error: video_budget)
    video_still_threshold: float = ranged(24.0, 0, 255)  #: grey change of a 64x64 frame thumbnail that counts as still
    # -- added for fonts the reader was not tuned on (issue 13) --
    ocr_second_look_below: float = ranged(0.9, 0, 1)  #: less sure readings are read again with wider margins (0 = off)

    def __post_init__(self) -> None:
        check_section(self)


@dataclass(frozen=True)
class JudgeConfig:
    """OpenAI-compatible judge client defaults (the key is never stored here)."""

    SECTION: ClassVar[str] = "judge"

    model: str = text()  #: judge model name ("" = given on the command line)
    base_url: str = text()  #: OpenAI-compatible endpoint ("" = given on the command line)
    timeout_s: float = ranged(60.0, 0, 86_400, lo_open=True)  #: deadline of one judge request (seconds)
    max_retries: int = ranged(4, 0, 100)  #: retries of a failed request
    concurrency: int = ranged(4, 1, 1024)  #: requests in flight at once
    temperature: float = ranged(0.0, 0, 2)  #: sampling temperature sent to the judge
    backoff_s: float = ranged(1.0, 0, 3600)  #: first retry delay; doubles per attempt (Retry-After wins)
    max_backoff_s: float = ranged(30.0, 0, 3600)  #: cap on any single retry delay
    video_frames: int = ranged(8, 1, 1000)  #: frames sampled evenly from a video for a live judge

    def __post_init__(self) -> None:
        def number(v: Any) -> bool:
            return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)

        def integer(v: Any) -> bool:
            return isinstance(v, int) and not isinstance(v, bool)

        if not number(self.timeout_s) or self.timeout_s <= 0:
            raise ConfigError(f"judge.timeout_s must be a finite number of seconds > 0, got {self.timeout_s!r}")
        for name in ("backoff_s", "max_backoff_s"):
            if not number(getattr(self, name)) or getattr(self, name) < 0:
                raise ConfigError(f"judge.{name} must be a finite number of seconds >= 0, "
                                  f"got {getattr(self, name)!r}")
        if not integer(self.concurrency) or self.concurrency < 1:
            raise ConfigError(f"judge.concurrency must be an integer >= 1, got {self.concurrency!r}")
        if not integer(self.max_retries) or self.max_retries < 0:
            raise ConfigError(f"judge.max_retries must be an integer >= 0, got {self.max_retries!r}")
        check_section(self)  # the declared ranges (upper bounds, temperature, video_frames, text)


@dataclass(frozen=True)
class Config:
    """All sections. Use :meth:`section_hash` to fingerprint what a task used."""

    media: MediaConfig = field(default_factory=MediaConfig)
    maze: MazeConfig = field(default_factory=MazeConfig)
    sudoku: SudokuConfig = field(default_factory=SudokuConfig)
    judge: JudgeConfig = field(default_factory=JudgeConfig)

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not dataclasses.is_dataclass(value) or getattr(value, "SECTION", None) != f.name:
                raise ConfigError(f"config section {f.name!r} must be a {f.name} section, got {type(value).__name__}")

    # -- (de)serialisation -------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Config":
        if not isinstance(data, Mapping):
            raise ConfigError(f"config must be a JSON object, got {type(data).__name__}")
        sections = {f.name: f for f in fields(cls)}
        unknown = set(data) - set(sections)
        if unknown:
            raise ConfigError(f"unknown config section(s) {sorted(map(str, unknown))}; known: {sorted(sections)}")
        cfg = cls()
        for name, values in data.items():
            if not isinstance(values, Mapping):
                raise ConfigError(f"config section {name!r} must be an object")
            cfg = cfg._with_section_values(name, values)
        return cfg

    @classmethod
    def load(cls, path: str | Path) -> "Config":
        """Read a JSON config file (strict JSON: no NaN/Infinity, bounded size and depth)."""
        p = Path(path)
        try:
            if not p.is_file():  # a folder, a pipe, a device: never opened
                why = "not a regular file" if p.exists() else "no such file"
                raise ConfigError(f"cannot read config {p}: {why}")
            with open(p, "rb") as fh:
                data = fh.read(MAX_CONFIG_BYTES + 1)
        except OSError as exc:
            raise ConfigError(f"cannot read config {p}: {exc.strerror or exc}") from exc
        if len(data) > MAX_CONFIG_BYTES:
            raise ConfigError(f"config {p} is over {MAX_CONFIG_BYTES:,} bytes: not a cvcheck config")
        try:
            parsed = loads_json(decode_utf8(data, f"config {p}"))
        except JSONLimitError as exc:
            raise ConfigError(f"cannot read config {p}: invalid JSON: {exc}") from None
        except ConfigError:
            raise
        except Exception as exc:  # decode_utf8's InputError
            raise ConfigError(str(exc)) from None
        return cls.from_dict(parsed)

    def with_overrides(self, overrides: Iterable[str]) -> "Config":
        """Apply ``section.field=value`` strings.

        Values are read as JSON when they parse (``0.75``, ``"text"``); text settings
        take the text as written (``--set judge.model=1.5`` is the model ``"1.5"``).
        """
        cfg = self
        for item in overrides:
            if not isinstance(item, str):
                raise ConfigError(f"override {item!r} is not of the form section.field=value")
            key, sep, raw = item.partition("=")
            section, dot, name = key.strip().partition(".")
            if not sep or not dot:
                raise ConfigError(f"override {item[:200]!r} is not of the form section.field=value")
            kind = cfg._kind(section, name)
            value: Any = raw
            try:
                parsed = loads_json(raw)
            except JSONLimitError:
                parsed = raw
            if kind is not str or isinstance(parsed, str):
                value = parsed
            cfg = cfg._with_section_values(section, {name: value})
        return cfg

    def _kind(self, section: str, name: str) -> type:
        if section not in {f.name for f in fields(self)}:
            raise ConfigError(f"unknown config section {section!r}; known: {sorted(f.name for f in fields(self))}")
        current = getattr(self, section)
        defaults = {f.name: f.default for f in fields(current)}
        if name not in defaults:
            raise ConfigError(f"unknown setting {section}.{name}; known: {sorted(defaults)}")
        return type(defaults[name])

    def _with_section_values(self, section: str, values: Mapping[str, Any]) -> "Config":
        coerced = {}
        for name, value in values.items():
            kind = self._kind(section, str(name))
            coerced[name] = _coerce(f"{section}.{name}", value, kind)
        current = getattr(self, section)
        return replace(self, **{section: replace(current, **coerced)})

    def section_hash(self, *sections: str) -> str:
        """A short SHA-256 of the named sections (all when none is named) plus media."""
        names = sections or tuple(f.name for f in fields(self))
        payload = {n: dataclasses.asdict(getattr(self, n)) for n in sorted(set(names) | {"media"})}
        blob = json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()
        return hashlib.sha256(blob).hexdigest()[:16]


def _coerce(key: str, value: Any, kind: type) -> Any:
    """Type-check one value (range checks happen when the section is built)."""
    if kind is bool:
        if isinstance(value, bool):
            return value
        raise ConfigError(f"{key} must be true or false, got {value!r}")
    if kind is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{key} must be an integer, got {_shown(value)}")
        return value
    if kind is float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{key} must be a number, got {_shown(value)}")
        return float(value)
    if kind is str:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return str(value)
        if not isinstance(value, str):
            raise ConfigError(f"{key} must be text, got {_shown(value)}")
        return value
    return value


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:80] + f"... ({len(text):,} characters)"


# -- the settings table --------------------------------------------------------------------

SECTIONS: tuple[type, ...] = (MediaConfig, MazeConfig, SudokuConfig, JudgeConfig)


def _descriptions(cls: type) -> dict[str, str]:
    """The ``#:`` comment after each field of ``cls`` (its description)."""
    out = {}
    for line in inspect.getsource(cls).splitlines():
        m = re.match(r"\s+(\w+)\s*:[^=#]*=.*#:\s*(.+?)\s*$", line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def valid_values(f: dataclasses.Field[Any]) -> str:
    """What a setting accepts, in words (the settings table's third column)."""
    meta = f.metadata
    if "range" in meta:
        kind = "integer" if type(f.default) is int else "number"
        return f"{kind} in {meta['range']}"
    if "choices" in meta:
        return " \\| ".join(f"`{c}`" for c in meta["choices"])
    if meta.get("path"):
        return "a path, or empty"
    if meta.get("what"):
        return str(meta["what"])
    return "text"


def settings_table() -> str:
    """Markdown table of every setting: name, default, valid values, description."""
    rows = ["| setting | default | valid values | description |", "|---|---|---|---|"]
    for cls in SECTIONS:
        docs = _descriptions(cls)
        for f in fields(cls):
            default = f.default
            shown = f"`{default:,}`" if type(default) is int else f"`{default!r}`"
            desc = docs.get(f.name, "").replace("|", "\\|")
            rows.append(f"| `{cls.SECTION}.{f.name}` | {shown} | {valid_values(f)} | {desc} |")  # type: ignore[attr-defined]
    return "\n".join(rows) + "\n"


DEFAULT_CONFIG = Config()
