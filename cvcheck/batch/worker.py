"""Grade one manifest sample safely: the function every executor runs in its workers.

Never raises: any failure (a grader bug included) becomes an ``error`` result. Task
modules cache what they parse per process (e.g. maze references, keyed by file), so a
corpus where many answers share a reference parses it once per worker.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

from ..config import Config
from ..media.video import modality_of
from ..registry import TASKS, Task, get_task
from ..schema import ErrorInfo, Result, Status, error_result


def single_threaded_libraries() -> None:
    """One thread per worker inside OpenCV, and videos decoded on the grading thread:
    parallelism comes from the workers (no oversubscription)."""
    import cv2

    from ..vision.threads import one_core_per_task

    cv2.setNumThreads(1)
    one_core_per_task()


def register_tasks(tasks: Mapping[str, Task] | None) -> None:
    """Make tasks registered in the parent process known here (spawned workers)."""
    for name, task in (tasks or {}).items():
        if TASKS.get(name) != task:
            TASKS[name] = task


def failure(sample: Mapping[str, Any], code: str, message: str) -> dict[str, Any]:
    """An error result dict for a sample the executor itself could not finish (timeout, dead worker)."""
    return Result(id=str(sample.get("id", "")), task=str(sample.get("task", "?")), pipeline="?",
                  modality=modality_of(sample), status=Status.ERROR, overall=None,
                  error=ErrorInfo(code=code, message=message)).to_dict()


def grade_safely(sample: Mapping[str, Any], *, config: Config) -> Result:
    """Grade ``sample`` through the registry; every exception becomes an error result."""
    sid = str(sample.get("id", ""))
    name = str(sample.get("task", ""))
    try:
        result = get_task(name).grade(sample, config=config)
        if not isinstance(result, Result):
            raise TypeError(f"grader for {name!r} returned {type(result).__name__}, not a Result")
        if result.id != sid:
            result = result.with_id(sid)
        return result
    except Exception as exc:  # noqa: BLE001 - batch mode never loses a sample
        return error_result(id=sid, task=name or "?", pipeline="?", modality=modality_of(sample), exc=exc)


def timed_grade(sample: Mapping[str, Any], *, config: Config,
                tasks: Mapping[str, Task] | None = None) -> tuple[dict[str, Any], float]:
    """Worker entry: ``(result dict, seconds)``."""
    register_tasks(tasks)
    t0 = time.perf_counter()
    result = grade_safely(sample, config=config)
    return result.to_dict(), time.perf_counter() - t0
