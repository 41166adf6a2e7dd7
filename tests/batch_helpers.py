"""Shared helpers for the batch/report/audit tests (no tests here).

``grade_sample`` is a registrable test task whose behaviour a sample chooses:
``started`` (a file to create when grading starts), ``gate`` (a file to wait for before
going on: the test decides when), ``sleep`` seconds, ``boom`` (raise), ``crash`` (kill
the worker process), else a pass/fail verdict from ``value``. It is importable by spawned workers because pytest
puts this folder on ``sys.path`` and workers inherit it.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any, Mapping

from cvcheck.schema import Gate, Result, Status

TASK = "batch-test"
TARGET = "batch_helpers:grade_sample"


def grade_sample(sample: Mapping[str, Any], *, config: Any) -> Result:
    if sample.get("started"):
        Path(sample["started"]).touch()
    if sample.get("gate"):
        wait_for_file(Path(sample["gate"]))
    if sample.get("sleep"):
        time.sleep(float(sample["sleep"]))
    if sample.get("boom"):
        raise RuntimeError("boom: a grader bug")
    if sample.get("crash"):
        os._exit(3)
    ok = bool(sample.get("value", 1))
    return Result(id=str(sample["id"]), task=TASK, pipeline="test", modality="image", status=Status.OK,
                  overall=float(ok), metrics={"cross_wall": int(not ok)},
                  gate=Gate.from_checks({"no_cross_wall": ok}))


def wait_for_file(path: Path, *, limit_s: float = 600.0, alive: Any = None) -> None:
    """Wait until ``path`` exists (an event another process signals by creating it). ``alive``: a
    ``subprocess.Popen`` whose exit ends the wait with an error. ``limit_s`` only stops a broken test."""
    deadline = time.monotonic() + limit_s
    while not path.exists():
        if alive is not None and alive.poll() is not None:
            raise AssertionError(f"process {alive.pid} exited ({alive.returncode}) before {path} appeared")
        if time.monotonic() > deadline:
            raise AssertionError(f"{path} did not appear within {limit_s:g} s")
        time.sleep(0.01)


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def maze_corpus(folder: Path, count: int, *, seed: int = 7) -> Path:
    """A labelled corpus of ``count`` real maze images (manifest + labels)."""
    from cvcheck.demo import GENERATORS, make_corpus

    scale = count / GENERATORS["maze-image"][1]
    return make_corpus(folder, seed=seed, scale=scale, kinds=("maze-image",)).manifest
