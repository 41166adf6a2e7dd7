"""Task registry: one :class:`Task` record per task, its code imported lazily.

Batch scoring, manifest validation, the report's overlays, the CLI and the contract
tests all read this table. A task's code is named as ``"module:function"`` strings so
that importing the registry stays cheap:

``grader``
    ``grade_sample(sample, *, config) -> Result``: one manifest entry (``id``, ``task``,
    ``answer`` and the task's reference fields, paths already absolute); bad input
    becomes an ``error`` result, never an exception.
``renderer`` (optional)
    ``render_overlay(record, *, config) -> ndarray | None``: the overlay picture of a
    result record (the record's ``sample`` envelope says where its files are).
``sample_check`` (optional)
    ``check_sample(sample) -> None``: cheap checks of a sample's fields beyond
    ``required_fields`` (no file is read), run on every manifest line.
``reference_check`` (optional)
    ``check_references(sample, *, config) -> None``: deep checks of the reference fields
    (``cvcheck validate``), raising :class:`~cvcheck.errors.InputError`.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .errors import InputError

if TYPE_CHECKING:
    import numpy as np

    from .config import Config
    from .schema import Result


def _resolve(target: str) -> Callable[..., Any]:
    module_name, _, attr = target.partition(":")
    fn: Callable[..., Any] = getattr(importlib.import_module(module_name), attr)
    return fn


@dataclass(frozen=True)
class Task:
    """What cvcheck knows about one task."""

    name: str
    grader: str                              #: "module:function" grading one manifest sample
    pipeline: str = "?"                      #: pixel | ocr | vlm | regex | ...
    required_fields: tuple[str, ...] = ()    #: manifest fields besides id/task/answer
    renderer: str | None = None              #: "module:function" drawing a record's overlay
    sample_check: str | None = None          #: "module:function" checking a sample's fields (no I/O)
    reference_check: str | None = None       #: "module:function" checking a sample's references
    family: str = ""                         #: e.g. "mmgr-vlm": the MMGR VLM-judged tasks (``cvcheck judge``)
    #: config sections its results' ``config_hash`` covers (``Config.section_hash(*these)``); None: not declared
    config_sections: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        for name in ("grader", "renderer", "sample_check", "reference_check"):
            target = getattr(self, name)
            if target is not None and ":" not in target:
                raise InputError(f"task {self.name!r}: {name} must be 'module:function', got {target!r}")

    def grade(self, sample: Mapping[str, Any], *, config: Config) -> Result:
        result: Result = _resolve(self.grader)(sample, config=config)
        return result

    def render_overlay(self, record: Mapping[str, Any], *, config: Config) -> np.ndarray | None:
        """The task's overlay of a result record, or None when the task draws none."""
        if self.renderer is None:
            return None
        picture: np.ndarray | None = _resolve(self.renderer)(record, config=config)
        return picture

    def check_sample(self, sample: Mapping[str, Any]) -> None:
        if self.sample_check is not None:
            _resolve(self.sample_check)(sample)

    def check_references(self, sample: Mapping[str, Any], *, config: Config) -> None:
        if self.reference_check is not None:
            _resolve(self.reference_check)(sample, config=config)


_MMGR = "cvcheck.judge.mmgr:grade_sample"
#: MMGR's VLM-judged tasks (their rubrics: :data:`cvcheck.judge.mmgr_spec.SPECS`)
MMGR_JUDGED = ("maze-vlm", "sudoku-vlm", "arc", "math", "nav-last-mile", "nav-top-down", "nav-3d", "nav-slag",
               "physics-concepts", "physics-sports")

#: task name -> Task
TASKS: dict[str, Task] = {t.name: t for t in (
    Task("maze", "cvcheck.maze.task:grade_sample", pipeline="pixel", renderer="cvcheck.maze.task:render_overlay",
         sample_check="cvcheck.maze.task:check_sample", reference_check="cvcheck.maze.task:check_references",
         config_sections=("maze",)),
    # images need puzzle or puzzle_image, videos nothing more (clues from their first frames): the grader says so
    Task("sudoku", "cvcheck.sudoku.task:grade_sample", pipeline="ocr", required_fields=(),
         renderer="cvcheck.sudoku.task:render_overlay", reference_check="cvcheck.sudoku.task:check_references",
         config_sections=("sudoku",)),
    *(Task(name, _MMGR, pipeline="vlm", family="mmgr-vlm", config_sections=("judge",)) for name in MMGR_JUDGED),
    Task("mmvet", "cvcheck.judge.mmvet:grade_sample", pipeline="vlm", config_sections=("judge",)),
    Task("marvel", "cvcheck.judge.marvel:grade_sample", pipeline="regex", config_sections=("judge",)),
    Task("ggbench", "cvcheck.judge.ggbench:grade_sample", pipeline="vlm", config_sections=("judge",)),
)}


def task_names() -> list[str]:
    return sorted(TASKS)


def suggest(name: str, known: Mapping[str, Any] | None = None) -> str:
    """A did-you-mean hint for an unknown task name (``"; did you mean 'maze'?"``)."""
    names = known if known is not None else TASKS
    close = difflib.get_close_matches(name, names, n=3)
    if close:
        return "; did you mean " + ", ".join(repr(c) for c in close) + "?"
    return f"; known tasks: {', '.join(sorted(names))}"


def get_task(name: str) -> Task:
    """The record of ``name``; unknown names get a did-you-mean error."""
    task = TASKS.get(name)
    if task is None:
        raise InputError(f"unknown task {name!r}{suggest(name)}")
    return task


def get_grader(name: str) -> Callable[..., Any]:
    """The sample grader of ``name`` (see :class:`Task`)."""
    return _resolve(get_task(name).grader)


def register(name: str, grader: str | Task) -> Task:
    """Register (or replace) a task: a full :class:`Task`, or just its grader as ``"module:function"``."""
    task = grader if isinstance(grader, Task) else Task(name, grader)
    if task.name != name:
        raise InputError(f"task record is named {task.name!r}, not {name!r}")
    TASKS[name] = task
    return task


def grade(sample: Mapping[str, Any], *, config: Config | None = None) -> Result:
    """Grade one manifest sample with its task's grader."""
    from .config import Config

    name = sample.get("task")
    if not isinstance(name, str):
        raise InputError("sample has no 'task' field")
    return get_task(name).grade(sample, config=config or Config())
