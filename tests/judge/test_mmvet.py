"""MM-Vet: the official prompt, parse rule, retry ladder, and hand-checked aggregation."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cvcheck.errors import InputError
from cvcheck.judge.mmvet import PROMPT, build_prompt, grade_all, grade_run, parse_score
from cvcheck.judge.mmvet_report import aggregate, capability_set_name, read_csv_scores, write_csvs


def test_prompt_structure():
    rows = [ln for ln in PROMPT.splitlines() if ln.count(" | ") == 3 and not ln.startswith("---")]
    assert rows[0] == "Question | Ground truth | Prediction | Correctness" and len(rows) == 1 + 7
    assert [r.rsplit(" | ", 1)[1] for r in rows[1:]] == ["0.0", "0.5", "0.5", "0.5", "1.0", "0.4", "1.0"]
    text = build_prompt("What is x?", "-1<AND>-5", "x = -1")
    assert text == PROMPT + "\nWhat is x? | -1 <AND> -5 | x = -1 | "
    assert build_prompt("q", "a<OR>b", "p", retry=True).endswith(
        "q | a <OR> b | p | \nPredict the correctness of the answer (digit): ")


@pytest.mark.parametrize("reply,score", [
    ("0.5", 0.5), ("1.0\n", 1.0), ("0.3 because", 0.3), ("0", 0.0), ("1", 1.0),
    (" 0.5", None), ("1.5", None), ("-0.1", None), ("nan", None), ("Correctness: 0.4", None), ("", None),
])
def test_official_parse_rule(reply, score):
    assert parse_score(reply) == score


def test_retry_ladder_recovers(server, make_client):
    server.script.extend([("reply", "The answer"), ("reply", "Score:"), ("reply", "x"), ("reply", "0.7")])
    g = grade_run(make_client(), "q", "a", "p")
    assert g.score == 0.7 and g.content == "0.7" and not g.gave_up
    sent = [r["payload"] for r in server.requests]
    assert [p["temperature"] for p in sent] == [0.0, 0.0, 0.5, 1.0]
    assert all(p["max_tokens"] == 3 for p in sent)
    assert not sent[0]["messages"][0]["content"].endswith("(digit): ")
    assert all(p["messages"][0]["content"].endswith("(digit): ") for p in sent[1:])


def test_retry_ladder_gives_zero_after_five_failures(server, make_client):
    server.default = ("reply", "I think it is right")
    g = grade_run(make_client(), "q", "a", "p")
    assert g.score == 0.0 and g.gave_up and g.content == "I think it is right"
    assert [r["payload"]["temperature"] for r in server.requests] == [0.0, 0.0, 0.5, 1.0, 1.5, 2.0]


def test_grade_all_runs_resume_and_cache(server, make_client):
    data = {f"v1_{i}": {"question": f"q{i}", "answer": "a", "capability": ["rec"]} for i in range(3)}
    preds = {k: "p" for k in data}
    server.default = ("reply", "0.5")
    client = make_client()
    seen = []
    grades, problems = grade_all(client, data, preds, runs=2, progress=lambda d, t: seen.append((d, t)))
    assert not problems and len(server.requests) == 6  # each run is its own judgement
    assert sorted(seen) == [(i, 6) for i in range(1, 7)]
    assert grades["v1_0"] == {"model": ["judge-x"] * 2, "content": ["0.5"] * 2, "score": [0.5, 0.5]}
    again, _ = grade_all(make_client(cache=client.cache), data, preds, runs=2)
    assert again == grades and len(server.requests) == 6
    partial = {"v1_0": {"model": ["m"], "content": ["1.0"], "score": [1.0]}}
    resumed, _ = grade_all(client, data, preds, runs=1, grades=partial)
    assert resumed["v1_0"]["score"] == [1.0]  # already graded run kept, not re-asked
    with pytest.raises(InputError):
        grade_all(client, data, {"v1_0": "p"}, runs=1)


def test_judge_outage_leaves_runs_ungraded(server, make_client):
    data = {"v1_0": {"question": "q", "answer": "a", "capability": ["rec"]}}
    server.default = ("status", 500, None)
    grades, problems = grade_all(make_client(max_retries=0), data, {"v1_0": "p"}, runs=2)
    assert grades == {} and len(problems) == 1


# -- aggregation, hand-computed ----------------------------------------------------------

DATA = {
    "s1": {"question": "", "answer": "", "capability": ["rec"]},
    "s2": {"question": "", "answer": "", "capability": ["rec", "know", "gen"]},
    "s3": {"question": "", "answer": "", "capability": ["ocr", "math"]},
    "s4": {"question": "", "answer": "", "capability": ["math", "ocr"]},  # same set, other order
    "s5": {"question": "", "answer": "", "capability": ["rec"]},
    "s6": {"question": "", "answer": "", "capability": ["ocr", "spat"]},
}
SCORES = {"s1": [1] * 5, "s2": [0.5] * 5, "s3": [0, 0, 0, 0, 1], "s4": [1] * 5, "s5": [0] * 5, "s6": [0.4] * 5}
GRADES = {k: {"model": ["gpt-4-0613"] * 5, "content": [str(s) for s in v], "score": v} for k, v in SCORES.items()}


def test_aggregation_matches_hand_computation():
    s = aggregate(GRADES, DATA, runs=5)
    # per-run totals: (1+.5+0+1+0+.4)/6 = 48.33 (runs 1-4), (3.9)/6 = 65.0 (run 5)
    assert s.runs == (48.3, 48.3, 48.3, 48.3, 65.0)
    assert s.total == 51.7          # (4 * 48.333 + 65) / 5 = 51.667
    assert s.std == 6.7             # population std of (48.33 x4, 65) = 6.667
    assert s.capabilities == {"rec": 50.0, "ocr": 53.3, "math": 60.0, "know": 50.0, "gen": 50.0, "spat": 40.0}
    assert s.capability_sets == {frozenset({"rec"}): 50.0, frozenset({"ocr", "math"}): 60.0,
                                 frozenset({"rec", "know", "gen"}): 50.0, frozenset({"ocr", "spat"}): 40.0}
    assert s.counts == {"rec": 3, "ocr": 3, "math": 2, "know": 1, "gen": 1, "spat": 1}


def test_single_run_uses_first_run_and_zero_std():
    s = aggregate(GRADES, DATA, runs=1)
    assert s.total == 48.3 and s.std == 0.0 and s.capabilities["math"] == 50.0


def test_csvs_official_layout(tmp_path):
    s = aggregate(GRADES, DATA, runs=5)
    cap, integ = write_csvs(s, tmp_path, model="llava", judge_model="gpt-4-0613", runs=5)
    assert cap.name == "llava_gpt-4-0613-cap-score-5runs.csv"
    assert integ.name == "llava_gpt-4-0613-cap-int-score-5runs.csv"
    assert cap.read_text().splitlines() == [
        ",rec,ocr,math,know,gen,spat,total,std,runs",
        'llava,50.0,53.3,60.0,50.0,50.0,40.0,51.7,6.7,"[48.3, 48.3, 48.3, 48.3, 65.0]"']
    assert integ.read_text().splitlines()[0] == ",rec,ocr_math,rec_know_gen,ocr_spat,total,std,runs"
    # an official CSV whose set names came out in another set order compares equal as sets
    official = tmp_path / "official.csv"
    official.write_text(",rec,math_ocr,gen_rec_know,spat_ocr,total,std,runs\n"
                        'llava,50.0,60.0,50.0,40.0,51.7,6.7,"[48.3, 48.3, 48.3, 48.3, 65.0]"\n')
    assert read_csv_scores(official, sets=True) == read_csv_scores(integ, sets=True)


SIXTEEN = ["rec know gen", "rec", "ocr spat", "ocr spat math", "rec spat", "ocr", "ocr math", "rec know",
           "rec ocr know gen", "rec ocr gen spat", "rec ocr spat", "rec ocr", "ocr know spat", "rec know spat",
           "ocr gen spat", "rec ocr spat math"]


def test_sixteen_capability_sets_against_direct_formula():
    rng = np.random.default_rng(7)
    data, grades = {}, {}
    for j, caps in enumerate(SIXTEEN):
        for r in range(j % 3 + 1):  # 1-3 samples per set
            sid = f"v1_{j}_{r}"
            data[sid] = {"question": "", "answer": "", "capability": caps.split()[::-1]}
            grades[sid] = {"score": [round(float(x), 1) for x in rng.integers(0, 11, 5) / 10]}
    s = aggregate(grades, data, runs=5)
    assert len(s.capability_sets) == 16
    for caps in SIXTEEN:
        ids = [k for k in data if set(data[k]["capability"]) == set(caps.split())]
        per_run = [sum(grades[k]["score"][i] for k in ids) / len(ids) * 100 for i in range(5)]
        assert s.capability_sets[frozenset(caps.split())] == round(sum(per_run) / 5, 1)
    for cap in ("rec", "ocr", "know", "gen", "spat", "math"):
        ids = [k for k in data if cap in data[k]["capability"]]
        per_run = [sum(grades[k]["score"][i] for k in ids) / len(ids) * 100 for i in range(5)]
        assert s.capabilities[cap] == pytest.approx(round(float(np.mean(per_run)), 1))
    totals = [sum(g["score"][i] for g in grades.values()) / len(grades) * 100 for i in range(5)]
    assert s.total == round(float(np.mean(totals)), 1) and s.std == round(float(np.std(totals)), 1)
    assert capability_set_name(frozenset({"math", "ocr", "rec", "spat"})) == "rec_ocr_spat_math"


def test_incomplete_grades_refused():
    with pytest.raises(InputError):
        aggregate({k: v for k, v in GRADES.items() if k != "s3"}, DATA, runs=5)
    with pytest.raises(InputError):
        aggregate(GRADES, DATA, runs=6)
    json.dumps(aggregate(GRADES, DATA, runs=5).to_dict())


def test_registry_grader_recorded_and_live(server, make_client):
    from cvcheck.judge.mmvet import grade_sample
    from cvcheck.schema import Result, Status

    r = grade_sample({"id": "v1_0", "grades": {"score": [1.0, 0.5], "content": ["1.0", "0.5"]}})
    assert r.status is Status.OK and r.overall == 0.75 and Result.from_json(r.to_json()) == r
    assert grade_sample({"id": "v1_0", "grades": {"score": []}}).status is Status.ERROR
    server.default = ("reply", "garbage")
    live = grade_sample({"id": "x", "question": "q", "ground_truth": "a", "prediction": "p"}, client=make_client())
    assert live.status is Status.UNPARSEABLE and live.overall == 0.0 and len(server.requests) == 6
