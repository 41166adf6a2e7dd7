"""Batch manifests: one sample per line (JSONL) or per row (CSV), validated with line numbers.

A sample names its ``id``, ``task`` and ``answer`` (image or video path) plus the
task's reference fields (maze: ``reference`` image; sudoku: ``puzzle`` grid or JSON
file or ``puzzle_image``, optional ``solution`` and ``boxes``; a Sudoku video needs none
of them), and optionally ``model``, ``difficulty`` and free
``metadata`` (an object) that the report groups by.

Relative paths are resolved against the manifest's folder and refused when they
escape it (``../``); absolute paths are taken as given. Which fields are paths:
``answer``, ``reference``, ``references``, fields ending in ``_path`` and any
string value ending in a media/data suffix (``.png``, ``.mp4``, ``.json``...).

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> _ = (d / "m.jsonl").write_text('{"id": "a", "task": "maze", "answer": "a.png", "reference": "r.png"}\\n')
>>> m = load_manifest(d / "m.jsonl")
>>> m.samples[0]["answer"] == str(d / "a.png")
True
"""

from __future__ import annotations

import csv
import io
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping

from ..config import Config
from ..errors import InputError
from ..limits import (
    MAX_STRING_CHARS,
    JSONLimitError,
    check_path_text,
    check_text,
    check_value,
    csv_error_message,
    csv_field_limit,
    decode_utf8,
    loads_json,
    printable,
)
from ..registry import TASKS, Task, suggest

PATH_FIELDS = frozenset({"answer", "reference", "references", "puzzle_image"})
PATH_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".bmp", ".tif", ".tiff", ".gif", ".mp4", ".mov",
                 ".webm", ".mkv", ".avi", ".m4v", ".apng", ".json", ".txt", ".npy", ".npz")
#: sample fields the report groups by; carried into every result record
GROUP_FIELDS = ("model", "difficulty")
MAX_PROBLEMS = 200
MAX_MANIFEST_BYTES = 2**30   #: a manifest over 1 GiB is refused (split it)
MAX_ID_CHARS = 1024          #: characters in a sample id, model or difficulty


class ManifestError(InputError):
    """A manifest has invalid lines; ``problems`` lists ``(line, message)``."""

    code = "bad_manifest"

    def __init__(self, path: str | os.PathLike, problems: list[tuple[int, str]]):
        self.path = str(path)
        self.problems = problems
        shown = "\n".join(f"  {self.path}:{line}: {msg}" for line, msg in problems[:20])
        more = f"\n  ... and {len(problems) - 20} more" if len(problems) > 20 else ""
        super().__init__(f"{len(problems)} problem(s) in manifest {self.path}:\n{shown}{more}")


@dataclass
class Manifest:
    """Validated samples (paths absolute) with the line each came from."""

    path: Path
    samples: list[dict[str, Any]]
    lines: list[int] = field(default_factory=list)
    missing_files: list[tuple[int, str]] = field(default_factory=list)

    @property
    def ids(self) -> list[str]:
        return [s["id"] for s in self.samples]

    def __len__(self) -> int:
        return len(self.samples)


def _is_path_field(key: str, value: Any) -> bool:
    if key in PATH_FIELDS or key.endswith("_path"):
        return True
    return isinstance(value, str) and "\n" not in value and value.lower().endswith(PATH_SUFFIXES)


def resolve_path(value: str, base: Path) -> str:
    """Resolve ``value`` against ``base``; refuse relative paths that escape it."""
    if not isinstance(value, str) or not value.strip():
        raise InputError("path must be a non-empty string")
    check_path_text(value, "path")
    p = Path(os.path.expanduser(value))
    if p.is_absolute():
        return os.path.normpath(str(p))
    joined = os.path.normpath(os.path.join(str(base), str(p)))
    root = os.path.normpath(str(base))
    if os.path.commonpath([root, joined]) != root:
        raise InputError(f"path {printable(value)!r} escapes the manifest's folder {root}")
    return joined


def _parse_cell(key: str, text: str) -> Any:
    """CSV cells: ``metadata`` and JSON-looking cells are parsed; empty cells dropped."""
    t = text.strip()
    if key == "metadata" or (t[:1] in "[{" and t[-1:] in "]}"):
        try:
            return loads_json(t)
        except JSONLimitError as exc:
            raise InputError(f"column {printable(key)!r} is not valid JSON: {exc}") from None
    return t


def _read_rows(path: Path) -> Iterable[tuple[int, Any]]:
    """``(line number, raw entry or the InputError that line is)`` for every entry of the file."""
    try:
        size = path.stat().st_size
        if size > MAX_MANIFEST_BYTES:
            raise InputError(f"manifest {path} is {size:,} bytes, over {MAX_MANIFEST_BYTES:,}: split it")
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read manifest {path}: {exc.strerror or exc}") from exc
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if path.suffix.lower() == ".csv":
        yield from _read_csv(path, decode_utf8(data, f"manifest {path}"))
        return
    for number, raw in enumerate(data.split(b"\n"), start=1):
        try:
            line = decode_utf8(raw, "line")
        except InputError as exc:
            yield number, InputError(str(exc).replace(" at line 1,", ","))
            continue
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            yield number, loads_json(line)
        except JSONLimitError as exc:
            yield number, InputError(f"invalid JSON: {exc}")


def _read_csv(path: Path, text: str) -> Iterable[tuple[int, Any]]:
    with csv_field_limit(MAX_STRING_CHARS):
        reader = csv.DictReader(io.StringIO(text, newline=""))
        try:
            if not reader.fieldnames:
                return
            for key in reader.fieldnames:
                check_text(key or "", "a column name", max_chars=1000)
            while True:
                try:
                    row = next(reader)
                except StopIteration:
                    return
                if None in row:
                    yield reader.line_num, InputError("row has more cells than the header")
                    continue
                try:
                    yield reader.line_num, {k.strip(): _parse_cell(k.strip(), v) for k, v in row.items()
                                            if k and v is not None and v.strip() != ""}
                except InputError as exc:
                    yield reader.line_num, exc
        except csv.Error as exc:  # the reader cannot go on after this
            # the line that failed is not counted yet: it is the next one
            yield reader.line_num + 1, InputError(csv_error_message(exc, MAX_STRING_CHARS) + "; reading stopped here")


def validate_sample(raw: Any, base: Path, *, known_tasks: Mapping[str, Task] | None = None) -> dict[str, Any]:
    """Check one raw entry and return it with ids as strings and paths resolved."""
    tasks = TASKS if known_tasks is None else known_tasks
    if not isinstance(raw, dict):
        raise InputError(f"a sample must be a JSON object, got {type(raw).__name__}")
    check_value(raw)  # in-memory samples too: depth, finite numbers, valid Unicode
    sample = dict(raw)
    sid = sample.get("id")
    if isinstance(sid, bool) or not isinstance(sid, (str, int)) or str(sid).strip() == "":
        raise InputError("missing or empty 'id' (a string or an integer)")
    sample["id"] = check_text(str(sid), "'id'", max_chars=MAX_ID_CHARS)
    task = sample.get("task")
    if not isinstance(task, str) or not task:
        raise InputError("missing 'task'")
    if task not in tasks:
        raise InputError(f"unknown task {printable(task, 80)!r}{suggest(task[:100], tasks)}")
    recorded = sample.get("judge_answers") is not None or sample.get("judge_reply") is not None
    if "answer" in sample or not recorded:  # a recorded judgement can stand without the answer file
        if not isinstance(sample.get("answer"), str) or not sample["answer"].strip():
            raise InputError("missing 'answer' path")
    missing = [k for k in tasks[task].required_fields if sample.get(k) in (None, "", [])]
    if missing:
        raise InputError(f"task {task!r} needs field(s) {', '.join(missing)}")
    tasks[task].check_sample(sample)
    for key in GROUP_FIELDS:
        if key in sample and sample[key] is not None:
            if not isinstance(sample[key], (str, int, float)) or isinstance(sample[key], bool):
                raise InputError(f"{key!r} must be a string or a number")
            sample[key] = check_text(str(sample[key]), repr(key), max_chars=MAX_ID_CHARS)
    if "metadata" in sample and not isinstance(sample["metadata"], dict):
        raise InputError("'metadata' must be an object")
    for key, value in list(sample.items()):
        if key in ("id", "task", "model", "difficulty", "metadata", "modality"):
            continue
        try:
            if isinstance(value, list) and key in PATH_FIELDS:
                sample[key] = [resolve_path(v, base) for v in value]
            elif isinstance(value, str) and _is_path_field(key, value):
                sample[key] = resolve_path(value, base)
        except InputError as exc:
            raise InputError(f"{printable(key, 80)!r}: {exc}") from None
    return sample


def load_manifest(path: str | os.PathLike, *, check_files: bool = False,
                  check_references: bool = False, config: Config | None = None) -> Manifest:
    """Read and validate a JSONL or CSV manifest.

    Parameters
    ----------
    path : path to ``.jsonl`` / ``.json`` (one object per line) or ``.csv`` (header row)
    check_files : bool
        Also record answer/reference files that do not exist (``Manifest.missing_files``).
    check_references : bool
        Also parse each task's references (:meth:`~cvcheck.registry.Task.check_references`:
        a maze's reference must be a readable maze, a Sudoku's grids a valid puzzle and
        solution); a bad one is a problem of its line.
    config : Config, optional
        The configuration the references are read with (media limits).

    Raises
    ------
    ManifestError
        Listing every invalid line (bad JSON, missing fields, unknown task, duplicate
        id, escaping path) with its line number.
    """
    mpath = Path(path)
    if not mpath.is_file():
        raise InputError(f"manifest {mpath} " + ("is not a file" if mpath.exists() else "does not exist"))
    base = mpath.resolve().parent
    samples: list[dict[str, Any]] = []
    lines: list[int] = []
    problems: list[tuple[int, str]] = []
    seen: dict[str, int] = {}
    for number, raw in _read_rows(mpath):
        if len(problems) >= MAX_PROBLEMS:
            problems.append((number, f"stopped after {MAX_PROBLEMS} problems"))
            break
        if isinstance(raw, InputError):
            problems.append((number, str(raw)))
            continue
        try:
            sample = validate_sample(raw, base)
        except InputError as exc:
            problems.append((number, str(exc)))
            continue
        if check_references:
            try:
                TASKS[sample["task"]].check_references(sample, config=config or Config())
            except InputError as exc:
                problems.append((number, f"{sample['task']} reference: {exc}"))
                continue
            except Exception as exc:  # noqa: BLE001 - a reader bug must not hide the other lines
                problems.append((number, f"{sample['task']} reference could not be read (internal error, please "
                                         f"report it): {type(exc).__name__}: {printable(str(exc))}"))
                continue
        if sample["id"] in seen:
            first = seen[sample["id"]]
            problems.append((number, f"duplicate id {printable(sample['id'], 80)!r} (first on line {first})"))
            continue
        seen[sample["id"]] = number
        samples.append(sample)
        lines.append(number)
    if problems:
        raise ManifestError(mpath, problems)
    if not samples:
        raise ManifestError(mpath, [(0, "no samples")])
    manifest = Manifest(path=mpath, samples=samples, lines=lines)
    if check_files:
        manifest.missing_files = _missing_files(samples, lines)
    return manifest


def _missing_files(samples: list[dict[str, Any]], lines: list[int]) -> list[tuple[int, str]]:
    out = []
    for sample, number in zip(samples, lines, strict=True):
        for key, value in sample.items():
            values = value if isinstance(value, list) and key in PATH_FIELDS else [value]
            for v in values:
                if isinstance(v, str) and _is_path_field(key, v) and os.path.isabs(v) and not os.path.exists(v):
                    out.append((number, f"{key}: {v} does not exist"))
    return out


def write_manifest(path: str | os.PathLike, samples: Iterable[Mapping[str, Any]]) -> Path:
    """Write samples as JSONL (paths as given; make them relative to the file's folder)."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", encoding="utf-8") as fh:
        for s in samples:
            fh.write(json.dumps(dict(s), sort_keys=False) + "\n")
    return out
