"""One contract for every pixel task, through the registry and files, as batch runs see them.

A solved case passes; a one-cell defect fails; a blank page is ``unparseable``; two
runs agree exactly; the JSON round-trips; missing or corrupt files are ``error``
results, never exceptions.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from cvcheck.config import Config
from cvcheck.registry import get_grader
from cvcheck.schema import Result, Status


def _save(path: Path, image: np.ndarray) -> str:
    cv2.imwrite(str(path), image[:, :, ::-1])
    return str(path)


def _grid(a: np.ndarray) -> str:
    return "".join(str(int(v)) if v else "." for v in np.asarray(a).ravel())


def _maze(tmp: Path, kind: str) -> dict:
    from cvcheck.synth.maze_cases import make_case

    case = make_case(31, defect="valid" if kind != "defect" else "shortcut")
    ref = _save(tmp / "maze_ref.png", case.reference)
    answer = case.answer if kind != "blank" else np.full_like(case.answer, 255)
    return {"id": f"maze-{kind}", "task": "maze", "answer": _save(tmp / f"maze_{kind}.png", answer),
            "reference": ref}


def _sudoku(tmp: Path, kind: str) -> dict:
    from cvcheck.synth.sudoku import make_image_case

    case = make_image_case(5, n=4, defect="solved" if kind != "defect" else "wrong_cell")
    image = case.image if kind != "blank" else np.full_like(case.image, 255)
    return {"id": f"sudoku-{kind}", "task": "sudoku", "answer": _save(tmp / f"sudoku_{kind}.png", image),
            "puzzle": _grid(case.puzzle), "solution": _grid(case.solution)}


TASKS = {"maze": _maze, "sudoku": _sudoku}


@pytest.fixture(params=sorted(TASKS))
def task(request):
    return request.param


def _grade(sample: dict) -> Result:
    return get_grader(sample["task"])(sample, config=Config())


def test_solved_passes_and_is_deterministic(task, tmp_path):
    sample = TASKS[task](tmp_path, "solved")
    a, b = _grade(sample), _grade(sample)
    assert a.status is Status.OK and a.overall == 1.0, a.details.get("notes")
    assert a == b and Result.from_json(a.to_json()) == a
    assert a.id == sample["id"] and a.task == task and a.config_hash


def test_one_defect_fails_the_gate(task, tmp_path):
    r = _grade(TASKS[task](tmp_path, "defect"))
    assert r.status is Status.OK and r.overall == 0.0 and r.gate.failed


def test_blank_page_is_unparseable(task, tmp_path):
    r = _grade(TASKS[task](tmp_path, "blank"))
    assert r.status is Status.UNPARSEABLE and r.overall == 0.0


@pytest.mark.parametrize("damage", ["missing", "truncated", "garbage", "empty"])
def test_bad_files_become_error_results(task, tmp_path, damage):
    sample = TASKS[task](tmp_path, "solved")
    path = Path(sample["answer"])
    if damage == "missing":
        path.unlink()
    elif damage == "truncated":
        path.write_bytes(path.read_bytes()[:200])
    elif damage == "garbage":
        path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8)
    else:
        path.write_bytes(b"")
    r = _grade(sample)
    assert r.status is Status.ERROR and r.overall is None and r.error.message
    assert Result.from_json(r.to_json()) == r
