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
from ..registry import TASKS, Task, suggest

PATH_FIELDS = frozenset({"answer", "reference", "references"})
PATH_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".bmp", ".tif", ".tiff", ".gif", ".mp4", ".mov",
                 ".webm", ".mkv", ".avi", ".m4v", ".json", ".txt", ".npy", ".npz")
#: sample fields the report groups by; carried into every result record
GROUP_FIELDS = ("model", "difficulty")
MAX_PROBLEMS = 200


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
    p = Path(os.path.expanduser(value))
    if p.is_absolute():
        return os.path.normpath(str(p))
    joined = os.path.normpath(os.path.join(str(base), str(p)))
    root = os.path.normpath(str(base))
    if os.path.commonpath([root, joined]) != root:
        raise InputError(f"path {value!r} escapes the manifest's folder {root}")
    return joined


def _parse_cell(key: str, text: str) -> Any:
    """CSV cells: ``metadata`` and JSON-looking cells are parsed; empty cells dropped."""
    t = text.strip()
    if key == "metadata" or (t[:1] in "[{" and t[-1:] in "]}"):
        try:
            return json.loads(t)
        except json.JSONDecodeError as exc:
            raise InputError(f"column {key!r} is not valid JSON: {exc.msg}") from exc
    return t


def _read_rows(path: Path) -> Iterable[tuple[int, Any]]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read manifest {path}: {exc}") from exc
    if path.suffix.lower() == ".csv":
        reader = csv.DictReader(io.StringIO(text, newline=""))
        if not reader.fieldnames:
            return
        for row in reader:
            if None in row:
                yield reader.line_num, InputError("row has more cells than the header")
                continue
            try:
                yield reader.line_num, {k.strip(): _parse_cell(k.strip(), v) for k, v in row.items()
                                        if k and v is not None and v.strip() != ""}
            except InputError as exc:
                yield reader.line_num, exc
        return
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError as exc:
            yield number, InputError(f"invalid JSON: {exc.msg} (column {exc.colno})")


def validate_sample(raw: Any, base: Path, *, known_tasks: Mapping[str, Task] | None = None) -> dict[str, Any]:
    """Check one raw entry and return it with ids as strings and paths resolved."""
    tasks = TASKS if known_tasks is None else known_tasks
    if not isinstance(raw, dict):
        raise InputError(f"a sample must be a JSON object, got {type(raw).__name__}")
    sample = dict(raw)
    sid = sample.get("id")
    if isinstance(sid, bool) or not isinstance(sid, (str, int)) or str(sid).strip() == "":
        raise InputError("missing or empty 'id' (a string or an integer)")
    sample["id"] = str(sid)
    task = sample.get("task")
    if not isinstance(task, str) or not task:
        raise InputError("missing 'task'")
    if task not in tasks:
        raise InputError(f"unknown task {task!r}{suggest(task, tasks)}")
    recorded = sample.get("judge_answers") is not None or sample.get("judge_reply") is not None
    if "answer" in sample or not recorded:  # a recorded judgement can stand without the answer file
        if not isinstance(sample.get("answer"), str) or not sample["answer"].strip():
            raise InputError("missing 'answer' path")
    missing = [k for k in tasks[task].required_fields if sample.get(k) in (None, "", [])]
    if missing:
        raise InputError(f"task {task!r} needs field(s) {', '.join(missing)}")
    for key in GROUP_FIELDS:
        if key in sample and sample[key] is not None:
            if not isinstance(sample[key], (str, int, float)) or isinstance(sample[key], bool):
                raise InputError(f"{key!r} must be a string or a number")
            sample[key] = str(sample[key])
    if "metadata" in sample and not isinstance(sample["metadata"], dict):
        raise InputError("'metadata' must be an object")
    for key, value in list(sample.items()):
        if key in ("id", "task", "model", "difficulty", "metadata", "modality"):
            continue
        if isinstance(value, list) and key in PATH_FIELDS:
            sample[key] = [resolve_path(v, base) for v in value]
        elif isinstance(value, str) and _is_path_field(key, value):
            sample[key] = resolve_path(value, base)
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
        if sample["id"] in seen:
            problems.append((number, f"duplicate id {sample['id']!r} (first on line {seen[sample['id']]})"))
            continue
        seen[sample["id"]] = number
        samples.append(sample)
        lines.append(number)
        if len(problems) >= MAX_PROBLEMS:
            break
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
