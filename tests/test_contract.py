"""One contract over every task in the registry, through ``Task.grade`` as batch runs see it.

For each task and each modality it grades (images and videos for the pixel/OCR tasks,
recorded judgements for the judged ones): a solved answer passes; a one-check defect
fails the gate; an unreadable answer is ``unparseable`` (overall 0); two calls agree
exactly; the sample is not modified; the JSON round-trips. Pixel/OCR tasks also turn
missing or damaged answer files into ``error`` results, never exceptions. A task
registered without cases here fails :func:`test_every_registered_task_has_cases`.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from functools import cache
from pathlib import Path

import cv2
import numpy as np
import pytest

from cvcheck.config import Config
from cvcheck.judge.mmgr_spec import SPECS
from cvcheck.registry import MMGR_JUDGED, TASKS
from cvcheck.schema import Result, Status

Kind = str  # "solved" | "defect" | "unreadable"
Case = Callable[[Path, Kind], dict]


def _save(path: Path, image: np.ndarray) -> str:
    cv2.imwrite(str(path), np.ascontiguousarray(image[:, :, ::-1]))
    return str(path)


def _grid(a: np.ndarray) -> str:
    return "".join(str(int(v)) if v else "." for v in np.asarray(a).ravel())


# -- pixel and OCR tasks: files -----------------------------------------------------------------

def maze_image(tmp: Path, kind: Kind) -> dict:
    from cvcheck.synth.maze_cases import make_case

    case = make_case(31, defect="shortcut" if kind == "defect" else "valid")
    answer = np.full_like(case.answer, 255) if kind == "unreadable" else case.answer
    return {"id": f"maze-image-{kind}", "task": "maze", "answer": _save(tmp / f"maze_{kind}.png", answer),
            "reference": _save(tmp / "maze_ref.png", case.reference)}


@cache
def _maze_video(kind: Kind):  # noqa: ANN202 - a synth case
    from cvcheck.synth.maze_video import make_video_case

    return make_video_case(5, behaviour="teleport" if kind == "defect" else "valid", size=4)


def maze_video(tmp: Path, kind: Kind) -> dict:
    case = _maze_video("defect" if kind == "defect" else "valid")
    path = tmp / f"maze_{kind}.mp4"
    if kind == "unreadable":
        from cvcheck.synth.maze_video_render import write_mp4

        write_mp4([np.full((240, 320, 3), 255, np.uint8)] * 8, path, fps=12)
    else:
        case.write(path)
    return {"id": f"maze-video-{kind}", "task": "maze", "answer": str(path), "style": case.look.style,
            "reference": _save(tmp / f"maze_video_ref_{kind}.png", case.reference)}


def sudoku_image(tmp: Path, kind: Kind) -> dict:
    from cvcheck.synth.sudoku import make_image_case

    case = make_image_case(5, n=4, defect="wrong_cell" if kind == "defect" else "solved")
    image = np.full_like(case.image, 255) if kind == "unreadable" else case.image
    return {"id": f"sudoku-image-{kind}", "task": "sudoku", "answer": _save(tmp / f"sudoku_{kind}.png", image),
            "puzzle": _grid(case.puzzle), "solution": _grid(case.solution)}


def sudoku_video(tmp: Path, kind: Kind) -> dict:
    from cvcheck.synth.sudoku import Style
    from cvcheck.synth.sudoku_video import make_video_case

    style = Style(size=256, pad=0.05, font="hershey-duplex", fill_color=(20, 40, 160))
    case = make_video_case(6, n=4, kind="wrong_final" if kind == "defect" else "gradual", frames=24, style=style)
    path = tmp / f"sudoku_{kind}.mp4"
    if kind == "unreadable":
        from cvcheck.synth.maze_video_render import write_mp4

        write_mp4([np.full((256, 256, 3), 255, np.uint8)] * 8, path, fps=12)
    else:
        case.write_mp4(path)
    return {"id": f"sudoku-video-{kind}", "task": "sudoku", "answer": str(path),
            "puzzle": _grid(case.puzzle), "solution": _grid(case.solution)}


FILE_CASES: dict[tuple[str, str], Case] = {
    ("maze", "image"): maze_image, ("maze", "video"): maze_video,
    ("sudoku", "image"): sudoku_image, ("sudoku", "video"): sudoku_video,
}

# -- judged tasks: recorded judgements ------------------------------------------------------------

MARVEL = {"pattern": "P", "task_configuration": "C", "answer": 2, "f_perception_answer": "upper",
          "f_perception_distractor": "lower", "c_perception_answer_tuple": [5, 4, 9]}


def _mmgr_answers(task: str) -> dict[str, str]:
    return {m.name: (("0" if m.required == 0 else "1") if m.kind == "fraction"
                     else ("no" if m.required == 0 else "yes")) for m in SPECS[task].metrics}


def mmgr(task: str) -> Case:
    def case(tmp: Path, kind: Kind) -> dict:
        answers: dict[str, str] | str = _mmgr_answers(task)
        if kind == "defect":
            first = SPECS[task].required[0]
            bad = ("0.5" if first.kind == "fraction" else "yes") if first.required == 0 else (
                "0.5" if first.kind == "fraction" else "no")
            answers = {**answers, first.name: bad}
        elif kind == "unreadable":
            answers = "no idea"
        return {"id": f"{task}-{kind}", "task": task, "modality": "video", "judge_answers": answers}
    return case


def mmvet(tmp: Path, kind: Kind) -> dict:
    score = {"solved": 1.0, "defect": 0.0}[kind]
    return {"id": f"mmvet-{kind}", "task": "mmvet", "grades": {"score": [score], "content": [str(score)],
                                                               "model": ["j"]}}


def marvel(tmp: Path, kind: Kind) -> dict:
    replies = {"solved": {"avr": "choice 2", "fine": "upper", "coarse": ["5", "4", "9"]},
               "defect": {"avr": "choice 3", "fine": "upper", "coarse": ["5", "4", "9"]},
               "unreadable": {"avr": "?", "fine": "?", "coarse": ["?", "?", "?"]}}[kind]
    return {"id": f"marvel-{kind}", "task": "marvel", **MARVEL, **replies}


def ggbench(tmp: Path, kind: Kind) -> dict:
    mid = "Step Accuracy: 5\nProcess Consistency: 5"
    replies = {"solved": ("5", "5", mid), "defect": ("2", "5", mid), "unreadable": ("?", "?", "?")}[kind]
    return {"id": f"ggbench-{kind}", "task": "ggbench", "judge_text": replies[0], "judge_image": replies[1],
            "judge_mid": replies[2]}


JUDGED_CASES: dict[tuple[str, str], Case] = {
    **{(t, "video"): mmgr(t) for t in MMGR_JUDGED}, ("mmvet", "text"): mmvet, ("marvel", "text"): marvel,
    ("ggbench", "image"): ggbench,
}
#: MM-Vet's recorded grade is always a verdict; its unparseable path (a live judge giving up) is in test_mmvet
NO_UNREADABLE = {("mmvet", "text")}
CASES = {**FILE_CASES, **JUDGED_CASES}


def _grade(sample: dict) -> Result:
    return TASKS[sample["task"]].grade(sample, config=Config())


def test_every_registered_task_has_cases() -> None:
    assert {task for task, _ in CASES} == set(TASKS)
    assert set(MMGR_JUDGED) == set(SPECS)


@pytest.mark.parametrize("key", sorted(CASES), ids=lambda k: f"{k[0]}-{k[1]}")
def test_solved_passes_defect_fails_unreadable_is_unparseable(key: tuple[str, str], tmp_path: Path) -> None:
    task, modality = key
    make = CASES[key]
    solved = make(tmp_path, "solved")
    frozen = copy.deepcopy(solved)
    a, b = _grade(solved), _grade(solved)
    assert solved == frozen, "the grader modified its sample"
    assert a.status is Status.OK and a.overall == 1.0, (a.details.get("notes"), a.error)
    assert a == b and Result.from_json(a.to_json()) == a
    assert a.id == solved["id"] and a.task == task and a.modality == modality
    defect = _grade(make(tmp_path, "defect"))
    assert defect.status is Status.OK and defect.overall < 1.0
    if key not in NO_UNREADABLE:
        unreadable = _grade(make(tmp_path, "unreadable"))
        assert unreadable.status is Status.UNPARSEABLE and unreadable.overall == 0.0
        assert unreadable.details["reason"]


@pytest.mark.parametrize("damage", ["missing", "truncated", "garbage", "empty"])
@pytest.mark.parametrize("key", sorted(FILE_CASES), ids=lambda k: f"{k[0]}-{k[1]}")
def test_bad_answer_files_become_error_results(key: tuple[str, str], damage: str, tmp_path: Path) -> None:
    sample = FILE_CASES[key](tmp_path, "solved")
    path = Path(sample["answer"])
    data = path.read_bytes()
    if damage == "missing":
        path.unlink()
    elif damage == "truncated":
        path.write_bytes(data[:200])
    elif damage == "garbage":
        path.write_bytes(data[:8] + bytes(range(256)) * 8)
    else:
        path.write_bytes(b"")
    r = _grade(sample)
    assert r.status is Status.ERROR and r.overall is None and r.error is not None and r.error.message
    assert Result.from_json(r.to_json()) == r
