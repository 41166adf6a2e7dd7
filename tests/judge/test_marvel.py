"""MARVEL: extraction, instance/group accuracy (hand-computed), refusal policy, judge fallback."""

from __future__ import annotations

import json

import pytest

from cvcheck.errors import InputError
from cvcheck.judge.marvel import (
    evaluate_all,
    grade_sample,
    items_as_records,
    label_version,
    load_labels,
    load_responses,
    score,
)
from cvcheck.judge.marvel_extract import extract_avr, extract_count, extract_option, is_refusal
from cvcheck.schema import Result, Status


def _label(i, pattern, config, answer, fine, distractor, coarse):
    return {"id": i, "pattern": pattern, "task_configuration": config, "avr_question": "...", "answer": answer,
            "explanation": "", "f_perception_question": "...", "f_perception_answer": fine,
            "f_perception_distractor": distractor, "c_perception_question_tuple": ["a", "b", "c"],
            "c_perception_answer_tuple": coarse}


LABELS = [
    _label(1, "Temporal Movement", "Sequence", 3, "upper", "lower", [5, 4, 9]),
    _label(2, "Temporal Movement", "Two-row", 1, "left", "right", [6, 4, 10]),
    _label(3, "Quantity", "Sequence", 2, "circle", "square", [5, 4, 9]),
    _label(4, "Quantity", "Two-row", 4, "yes", "no", [8, 4, 12]),
]
RESPONSES = {
    "1": {"avr": "The correct answer is choice 3", "fine": "It is in the upper part",
          "coarse_0": "5", "coarse_1": "There are 4 grids", "coarse_2": "9"},
    "2": {"avr": "choice 2", "fine": "left", "coarse_0": "six", "coarse_1": "4", "coarse_2": "10"},
    "3": {"avr": "I'm sorry, I can't help with that.", "fine": "circle",
          "coarse_0": "5", "coarse_1": "4", "coarse_2": "8"},
    "4": {"avr": "Choice 1 or choice 4, hard to say", "coarse_0": "8", "coarse_1": "4", "coarse_2": "12"},
}


#: hand-written reply styles (not real model outputs): what must be extracted, None = leave to the judge
AVR_REPLIES = [
    ("The correct answer is choice 4", 4), ("choice 2", 2), ("Answer: 1", 1), ("(3)", 3),
    ("Choice 1 is odd; choice 3 fits. The answer is choice 3.", 3), ("choice 1 or choice 2", None),
    ("answer is 7", None), ("no idea", None), ("**Answer: 3**", 3), ("Answer: Choice 1", 1),
    ("The missing panel is choice (2).", 2), ("I choose option 4.", 4), ("Choice 3.", 3),
    ("I would select choice 3 because the shapes rotate clockwise.", 3), ("The correct answer is 2.", 2),
    ("Based on the pattern, the answer should be choice 4.", 4), ("The best option is 1.", 1),
    ("Final answer: 4", 4), ("The answer is option 3.", 3), ("Therefore, the most appropriate choice is 2.", 2),
    ("Option 2 fits the sequence.", 2), ("It's choice #1.", 1), ("Choice 5", None),
    ("Choice 1 has three triangles and choice 2 has four; following the progression the answer is choice 2.", 2),
    ("The pattern is rotation by 90 degrees in each of the 5 panels.", None),
    ("I'm sorry, I can't help with identifying this image.", None),
    ("Panels 1-4 show a rotation; none of the choices fit.", None),
]


@pytest.mark.parametrize("text,want", AVR_REPLIES)
def test_extract_avr(text, want):
    assert extract_avr(text) == want


def test_extract_option_count_refusal():
    assert extract_option("in the UPPER part", ["lower", "upper"]) == "upper"
    assert extract_option("not lower; the answer is upper", ["lower", "upper"]) == "upper"
    assert extract_option("upper or lower", ["lower", "upper"]) is None
    assert extract_count("There are 5 grids") == 5 and extract_count("nine") == 9
    assert extract_count("4 on top and 5 below") is None and extract_count("The answer is 12.") == 12
    assert is_refusal("I'm sorry, but I cannot assist") and is_refusal("") and not is_refusal("choice 3")


def test_accuracies_match_hand_computation():
    out = score(evaluate_all(LABELS, RESPONSES))
    o = out["overall"]
    assert o["avr_accuracy"] == 0.25 and o["fine_accuracy"] == 0.75 and o["coarse_accuracy"] == 11 / 12
    assert o["group_coarse_accuracy"] == 0.75 and o["group_perception_accuracy"] == 0.5
    assert o["group_all_accuracy"] == 0.25
    assert (o["n_refusal"], o["n_missing"], o["n_unparsed"]) == (1, 1, 1)
    assert out["by_pattern"]["Temporal Movement"]["avr_accuracy"] == 0.5
    assert out["by_pattern"]["Quantity"]["group_all_accuracy"] == 0.0
    assert out["by_configuration"]["Sequence"]["avr_accuracy"] == 0.5
    assert out["by_configuration"]["Two-row"]["coarse_accuracy"] == 1.0


def test_refusal_policy_exclude():
    o = score(evaluate_all(LABELS, RESPONSES), refusals="exclude")["overall"]
    assert o["avr_accuracy"] == pytest.approx(1 / 3) and o["avr_n"] == 3
    assert o["group_all_accuracy"] == pytest.approx(1 / 3) and o["group_all_n"] == 3
    assert o["group_coarse_n"] == 4 and o["fine_accuracy"] == 0.75  # no refusal there
    with pytest.raises(InputError):
        score([], refusals="maybe")


def test_judge_fallback_recorded_per_item(server, make_client):
    server.default = ("reply", "4")
    evals = evaluate_all(LABELS, RESPONSES, client=make_client())
    item = evals[3].items["avr"]
    assert item.correct and item.method == "judge" and item.judge["raw_reply"] == "4"
    assert item.judge["judge_model"] == "judge-x"
    assert evals[0].items["avr"].method == "regex"  # regex answers never reach the judge
    asked = [r["payload"]["messages"][0]["content"] for r in server.requests]
    assert all("Choice 1 or choice 4" in a or "sorry" in a for a in asked) and len(asked) == 2
    rows = items_as_records(evals)
    assert len(rows) == 20 and json.dumps(rows)


def test_judge_says_refusal(server, make_client):
    server.default = ("reply", "refusal")
    evals = evaluate_all(LABELS[2:3], RESPONSES, client=make_client())
    assert evals[0].items["avr"].status == "refusal" and evals[0].items["avr"].method == "judge"


def test_files_and_label_version(tmp_path):
    (tmp_path / "labels.json").write_text(json.dumps(LABELS))
    for lab in LABELS:
        d = tmp_path / "Json_data" / str(lab["id"])
        d.mkdir(parents=True)
        (d / f"{lab['id']}_label.json").write_text(json.dumps(lab))
    a, b = load_labels(tmp_path / "labels.json"), load_labels(tmp_path / "Json_data")
    assert label_version(a) == label_version(b)
    revised = [dict(x) for x in a]
    revised[0]["answer"] = 2
    assert label_version(revised) != label_version(a)
    (tmp_path / "r.jsonl").write_text("\n".join(json.dumps(r) for r in [
        {"id": 1, "avr": "choice 3", "fine": "upper", "coarse": ["5", "4", "9"]},
        {"id": 2, "question": "avr", "response": "choice 1"}]))
    resp = load_responses(tmp_path / "r.jsonl")
    assert resp["1"]["coarse_2"] == "9" and resp["2"] == {"avr": "choice 1"}
    (tmp_path / "bad.json").write_text(json.dumps([{"pattern": "x"}]))
    with pytest.raises(InputError):
        load_labels(tmp_path / "bad.json")


def test_registry_grader():
    s = {**LABELS[0], "avr": "choice 3", "fine": "upper", "coarse": ["5", "4", "9"]}
    r = grade_sample(s)
    assert r.status is Status.OK and r.overall == 1.0 and r.metrics["group_all"] == 1
    r2 = grade_sample({**s, "coarse": ["5", "4", "8"]})
    assert r2.overall == 0.0 and r2.gate.failed == ("coarse_2_correct",) and r2.metrics["group_coarse"] == 0
    assert Result.from_json(r2.to_json()) == r2
    assert grade_sample({**s, "avr": "??", "fine": "??", "coarse": ["?", "?", "?"]}).status is Status.UNPARSEABLE
    assert grade_sample({"id": 9}).status is Status.ERROR
