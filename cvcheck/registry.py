"""Task registry: task name -> sample grader, imported lazily.

A *sample grader* has the signature::

    grade_sample(sample: Mapping[str, Any], *, config: Config) -> Result

where ``sample`` is one manifest entry (``id``, ``task``, ``answer`` path and the
task's reference fields, already resolved to absolute paths). Batch scoring, the
CLI and the contract tests reach every task through this table.
"""

from __future__ import annotations

import difflib
import importlib
from typing import Any, Callable, Mapping

from .errors import InputError

#: task name -> "module:function"
TASKS: dict[str, str] = {
    "maze": "cvcheck.maze.task:grade_sample",
    "sudoku": "cvcheck.sudoku.task:grade_sample",
    # judged tasks (cvcheck.judge): recorded judge answers or a live OpenAI-compatible judge
    "maze-vlm": "cvcheck.judge.mmgr:grade_sample",
    "sudoku-vlm": "cvcheck.judge.mmgr:grade_sample",
    "arc": "cvcheck.judge.mmgr:grade_sample",
    "math": "cvcheck.judge.mmgr:grade_sample",
    "nav-last-mile": "cvcheck.judge.mmgr:grade_sample",
    "nav-top-down": "cvcheck.judge.mmgr:grade_sample",
    "nav-3d": "cvcheck.judge.mmgr:grade_sample",
    "nav-slag": "cvcheck.judge.mmgr:grade_sample",
    "physics-concepts": "cvcheck.judge.mmgr:grade_sample",
    "physics-sports": "cvcheck.judge.mmgr:grade_sample",
    "mmvet": "cvcheck.judge.mmvet:grade_sample",
    "marvel": "cvcheck.judge.marvel:grade_sample",
    "ggbench": "cvcheck.judge.ggbench:grade_sample",
}

SampleGrader = Callable[..., Any]


def task_names() -> list[str]:
    return sorted(TASKS)


def get_grader(task: str) -> SampleGrader:
    """Return the grader for ``task``; unknown names get a did-you-mean error."""
    target = TASKS.get(task)
    if target is None:
        close = difflib.get_close_matches(task, TASKS, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else f"; known tasks: {', '.join(task_names())}"
        raise InputError(f"unknown task {task!r}{hint}")
    module_name, _, attr = target.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, attr)


def register(task: str, target: str) -> None:
    """Register (or replace) a task grader given as ``"module:function"``."""
    if ":" not in target:
        raise InputError(f"grader target must be 'module:function', got {target!r}")
    TASKS[task] = target


def grade(sample: Mapping[str, Any], *, config: Any = None) -> Any:
    """Grade one manifest sample with its task's grader."""
    from .config import Config

    task = sample.get("task")
    if not isinstance(task, str):
        raise InputError("sample has no 'task' field")
    return get_grader(task)(sample, config=config or Config())
