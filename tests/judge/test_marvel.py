"""MARVEL: extraction, instance/group accuracy (hand-computed), refusal policy, judge fallback."""

from __future__ import annotations

import json

import pytest

from cvcheck.errors import InputError
from cvcheck.judge.marvel import (
    evaluate_all,
    evaluate_item,
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


#: hand-written reply styles (not real model outputs): question, reply, what is extracted, status.
#: None = no answer (left to the judge when one is given). Golds: avr 3, fine "upper" vs "lower", counts 3.
REPLIES = [
    # AVR: answer phrases, the last one wins
    ("avr", "The correct answer is choice 4", 4, "answered"),
    ("avr", "Answer: 1", 1, "answered"),
    ("avr", "**Answer: 3**", 3, "answered"),
    ("avr", "Answer: choice: 3", 3, "answered"),                 # colon after "choice"
    ("avr", "Final answer: 4", 4, "answered"),
    ("avr", "The answer is option 3.", 3, "answered"),
    ("avr", "The best option is 1.", 1, "answered"),
    ("avr", "Therefore, the most appropriate choice is 2.", 2, "answered"),
    ("avr", "I choose option 4.", 4, "answered"),
    ("avr", "The answer is choice 2. Wait, on reflection the answer is choice 3.", 3, "answered"),
    ("avr", "The answer is choice 3, not choice 2.", 3, "answered"),
    ("avr", "answer is 7", None, "unparsed"),
    # AVR: choice mentions, the last one that is not ruled out, a label or a hedge
    ("avr", "choice 2", 2, "answered"),
    ("avr", "choice:4", 4, "answered"),
    ("avr", "Option: 2", 2, "answered"),
    ("avr", "It's choice #1.", 1, "answered"),
    ("avr", "The missing panel is choice (2).", 2, "answered"),
    ("avr", "Choice 2 looks right, but choice 3 fits.", 3, "answered"),
    ("avr", "It is not choice 2; choice 3 fits.", 3, "answered"),
    ("avr", "Choice 3, and not choice 2.", 3, "answered"),
    ("avr", "Choice 3 fits; choice 1 is wrong.", 3, "answered"),
    ("avr", "choice 2 is wrong, so choice 4.", 4, "answered"),
    ("avr", "It is choice 1 or choice 2... after checking the rotation, choice 2.", 2, "answered"),
    ("avr", "choice 1 or choice 2", None, "unparsed"),
    ("avr", "either choice 1 or 3", None, "unparsed"),
    ("avr", "Choice 1: a triangle. Choice 2: a square. Choice 3: a circle.", None, "unparsed"),
    ("avr", "Choice 5", None, "unparsed"),
    # AVR: bare replies
    ("avr", "(3)", 3, "answered"),
    ("avr", "**3**", 3, "answered"),
    ("avr", "3.", 3, "answered"),
    # refusals (explicit, or no output) vs unanswered
    ("avr", "I'm sorry, but I can't help with that.", None, "refusal"),
    ("avr", "I must decline to answer this.", None, "refusal"),
    ("avr", None, None, "refusal"),                              # null: a safety-blocked output
    ("avr", "", None, "refusal"),
    ("avr", "   ", None, "refusal"),
    ("avr", "I cannot determine the answer", None, "unparsed"),  # unanswered, not a refusal
    ("avr", "I'm sorry, but I cannot determine which choice fits.", None, "unparsed"),
    ("avr", "I am unable to determine the pattern.", None, "unparsed"),
    # counts: the last stated answer wins
    ("coarse_0", "I count 6 at first, but on closer inspection there are 3.", 3, "answered"),
    ("coarse_0", "The answer is 6. Wait, no: the answer is 3.", 3, "answered"),
    ("coarse_0", "There are 3 rows; the answer is 9.", 9, "answered"),
    ("coarse_0", "The answer is 4. There are 2 shapes in each row.", 4, "answered"),  # answer beats a count
    ("coarse_0", "There are 5 grids", 5, "answered"),
    ("coarse_0", "There are twelve circles.", 12, "answered"),
    ("coarse_0", "There is one square.", 1, "answered"),
    ("coarse_0", "**Answer:** 7", 7, "answered"),
    ("coarse_0", "7 in total", 7, "answered"),
    ("coarse_0", "Count: 4", 4, "answered"),
    ("coarse_0", "nine", 9, "answered"),
    ("coarse_0", "4 on top and 5 below", None, "unparsed"),
    ("coarse_0", "I cannot determine how many there are.", None, "unparsed"),
    # fine-grained: the label's answer or distractor word
    ("fine", "It is in the upper part", "upper", "answered"),
    ("fine", "UPPER", "upper", "answered"),
    ("fine", "not lower; the answer is upper", "upper", "answered"),
    ("fine", "The answer is lower. Actually, the answer is upper.", "upper", "answered"),
    ("fine", "Answer: **lower**", "lower", "answered"),
    ("fine", "upper or lower", None, "unparsed"),
]
GOLD = {"avr": 3, "coarse_0": 3, "fine": "upper"}


@pytest.mark.parametrize("question,reply,want,status", REPLIES)
def test_reply_table(question, reply, want, status):
    item = evaluate_item(question, GOLD[question], reply, distractor="lower")
    assert (item.predicted, item.status) == (want, status)
    assert item.correct == (want is not None and str(want).lower() == str(GOLD[question]).lower())
    assert item.method == ("regex" if want is not None else "none")


def test_reply_table_is_large_enough():
    assert len(REPLIES) >= 40


def test_extract_helpers_and_doctests():
    import doctest

    from cvcheck.judge import marvel_extract
    assert doctest.testmod(marvel_extract).failed == 0
    assert extract_option("in the UPPER part", ["lower", "upper"]) == "upper"
    assert extract_count("There are 5 grids") == 5 and extract_count("The answer is 12.") == 12
    assert is_refusal("I'm sorry, but I cannot assist") and is_refusal("") and not is_refusal("choice 3")
    assert not is_refusal("I cannot determine the answer")


def test_accuracies_match_hand_computation():
    out = score(evaluate_all(LABELS, RESPONSES))
    o = out["overall"]
    assert o["avr_accuracy"] == 0.25 and o["fine_accuracy"] == 0.75 and o["coarse_accuracy"] == 11 / 12
    assert o["group_coarse_accuracy"] == 0.75 and o["group_perception_accuracy"] == 0.5
    assert o["group_all_accuracy"] == 0.25
    # puzzle 3's AVR is an explicit refusal, puzzle 4 has no fine answer in its row (a blocked output)
    assert (o["n_refusal"], o["n_missing"], o["n_unparsed"]) == (2, 0, 1)
    assert out["by_pattern"]["Temporal Movement"]["avr_accuracy"] == 0.5
    assert out["by_pattern"]["Quantity"]["group_all_accuracy"] == 0.0
    assert out["by_configuration"]["Sequence"]["avr_accuracy"] == 0.5
    assert out["by_configuration"]["Two-row"]["coarse_accuracy"] == 1.0


def test_refusal_policy_exclude():
    o = score(evaluate_all(LABELS, RESPONSES), refusals="exclude")["overall"]
    assert o["avr_accuracy"] == pytest.approx(1 / 3) and o["avr_n"] == 3
    # puzzles 3 (refused AVR) and 4 (no fine output) leave the full group: puzzle 1 right, 2 wrong
    assert o["group_all_accuracy"] == pytest.approx(1 / 2) and o["group_all_n"] == 2
    assert o["fine_accuracy"] == 1.0 and o["fine_n"] == 3
    assert o["group_coarse_n"] == 4  # no refusal there
    with pytest.raises(InputError):
        score([], refusals="maybe")


def test_null_output_is_refusal_but_absent_puzzle_is_missing():
    responses = {"1": {**RESPONSES["1"], "avr": None}}  # puzzles 2-4 have no response row
    ev = evaluate_all(LABELS, responses)
    assert ev[0].items["avr"].status == "refusal" and ev[1].items["avr"].status == "missing"
    o = score(ev, refusals="exclude")["overall"]
    assert o["avr_n"] == 3 and o["avr_accuracy"] == 0.0  # the null is excluded, missing rows are not
    assert o["group_perception_n"] == 4 and o["group_perception_accuracy"] == 0.25
    o = score(ev)["overall"]
    assert o["avr_n"] == 4 and (o["n_refusal"], o["n_missing"]) == (1, 15)


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
    for bad in ({"1": "choice 3"}, "choice 3"):
        (tmp_path / "bad_r.json").write_text(json.dumps(bad))
        with pytest.raises(InputError):
            load_responses(tmp_path / "bad_r.json")
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
