"""The shared contract over every judged task in the registry: a recorded pass passes, a
one-check defect fails, garbage is unparseable, two calls agree, input unchanged, JSON round-trips."""

from __future__ import annotations

import copy

import pytest

from cvcheck.judge.mmgr_spec import SPECS
from cvcheck.registry import TASKS, grade
from cvcheck.schema import Result, Status

MARVEL = {"pattern": "P", "task_configuration": "C", "answer": 2, "f_perception_answer": "upper",
          "f_perception_distractor": "lower", "c_perception_answer_tuple": [5, 4, 9]}


def _mmgr_pass(task: str) -> dict:
    ans = {}
    for m in SPECS[task].metrics:
        ans[m.name] = ("0" if m.required == 0 else "1") if m.kind == "fraction" else (
            "no" if m.required == 0 else "yes")
    return ans


def cases(task: str) -> tuple[dict, dict, dict]:
    """(passing sample, one-defect sample, garbage sample)."""
    base = {"id": "c1", "task": task}
    if task in SPECS:
        good = {**base, "modality": "video", "judge_answers": _mmgr_pass(task)}
        first = SPECS[task].required[0]
        bad_val = ("0.5" if first.kind == "fraction" else "yes") if first.required == 0 else (
            "0.5" if first.kind == "fraction" else "no")
        bad = {**good, "judge_answers": {**good["judge_answers"], first.name: bad_val}}
        return good, bad, {**good, "judge_answers": "no idea"}
    if task == "mmvet":
        g = {**base, "grades": {"score": [1.0], "content": ["1.0"], "model": ["j"]}}
        return g, {**g, "grades": {"score": [0.0], "content": ["0.0"]}}, {}  # garbage: see test_mmvet
    if task == "marvel":
        g = {**base, **MARVEL, "avr": "choice 2", "fine": "upper", "coarse": ["5", "4", "9"]}
        return g, {**g, "avr": "choice 3"}, {**g, "avr": "?", "fine": "?", "coarse": ["?", "?", "?"]}
    if task == "ggbench":
        g = {**base, "judge_text": "5", "judge_image": "5", "judge_mid": "Step Accuracy: 5\nProcess Consistency: 5"}
        return g, {**g, "judge_text": "2"}, {**base, "judge_text": "?", "judge_image": "?", "judge_mid": "?"}
    raise AssertionError(task)


JUDGED = sorted(t for t, target in TASKS.items() if target.startswith("cvcheck.judge."))


def test_every_judged_module_task_is_covered():
    assert set(JUDGED) == set(SPECS) | {"mmvet", "marvel", "ggbench"}


@pytest.mark.parametrize("task", JUDGED)
def test_contract(task):
    good, bad, garbage = cases(task)
    frozen = copy.deepcopy(good)
    r1, r2 = grade(good), grade(good)
    assert good == frozen
    assert r1 == r2 and Result.from_json(r1.to_json()) == r1
    assert r1.status is Status.OK and r1.overall == 1.0 and r1.task == task
    rb = grade(bad)
    assert rb.status is Status.OK and rb.overall < 1.0
    if garbage:  # MM-Vet's live give-up path is covered in test_mmvet (a recorded 0.0 is a verdict)
        rg = grade(garbage)
        assert rg.status is Status.UNPARSEABLE and rg.overall == 0.0
