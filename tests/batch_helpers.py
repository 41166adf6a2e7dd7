"""Shared helpers for the batch/report/audit tests (no tests here).

``grade_sample`` is a registrable test task whose behaviour a sample chooses:
``sleep`` seconds, ``boom`` (raise), ``crash`` (kill the worker process), else a
pass/fail verdict from ``value``. It is importable by spawned workers because pytest
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


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def maze_corpus(folder: Path, count: int, *, seed: int = 7) -> Path:
    """A labelled corpus of ``count`` real maze images (manifest + labels)."""
    from cvcheck.demo import GENERATORS, make_corpus

    scale = count / GENERATORS["maze-image"][1]
    return make_corpus(folder, seed=seed, scale=scale, kinds=("maze-image",)).manifest
