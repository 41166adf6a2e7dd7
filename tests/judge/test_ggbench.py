"""GGBench: robust parsing, the four scores (hand-computed) and the documented policies."""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

from cvcheck.errors import InputError
from cvcheck.judge.ggbench import (
    UPSTREAM,
    Part,
    aggregate,
    evaluate_item,
    grade_sample,
    load_items,
    parse_mid,
    parse_score,
)
from cvcheck.schema import Status


@pytest.mark.parametrize("reply,want", [
    ("4", 4.0), ("**4**", 4.0), ("4/5", 4.0), ("Score: 3", 3.0), ("**Score:** 5", 5.0), ("5.", 5.0),
    ("4\n\nThe construction misses the tangent.", 4.0), ("**Rating**: 2", 2.0),
    ("1. First bisect AB\n2. Then ...", None),
    ("7", None), ("0", None), ("I would say good", None), ("", None), (None, None),
])
def test_parse_score(reply, want):
    assert parse_score(reply) == want


def test_parse_mid_formats():
    got = parse_mid("**Step Accuracy:** 4\nProcess Consistency: 3/5\n- Problem-Solution Accuracy = 2\nRationale: ok")
    assert got == {"step_accuracy": 4.0, "process_consistency": 3.0, "problem_solution_accuracy": 2.0}
    assert parse_mid("Step Accuracy: 9") == {} and parse_mid(None) == {}


def _item(t=None, r=None, m=None):
    return {"vlm_t": t or Part("missing"), "vlm_i_res": r or Part("missing"), "vlm_i_mid": m or Part("missing")}


ITEMS = [
    _item(Part("ok", 5.0), Part("ok", 4.0), Part("ok", 3.5)),
    _item(Part("ok", 3.0), Part("ok", 2.0), Part("ok", 4.5)),
    _item(Part("unparseable"), Part("ok", 5.0), Part("unparseable")),
    _item(Part("missing"), Part("missing"), Part("ok", 1.0)),
]


def test_scores_hand_computed_default_policy():
    out = aggregate(ITEMS)
    # VLM-T: (5 + 3 + [missing -> 1]) / (3 * 5) x 100 = 60.0 (unparseable excluded)
    assert out["vlm_t"]["score"] == pytest.approx(60.0) and out["vlm_t"]["n"] == 3
    # VLM-I-Res: (4 + 2 + 5 + 1) / (4 * 5) x 100 = 60.0
    assert out["vlm_i_res"]["score"] == pytest.approx(60.0)
    # VLM-I-Mid: (3.5 + 4.5 + 1.0) / (3 * 5) x 100 = 60.0
    assert out["vlm_i_mid"]["score"] == pytest.approx(60.0) and out["vlm_i_mid"]["n_unparseable"] == 1
    assert out["vlm_i"]["score"] == pytest.approx(60.0)


def test_upstream_policy_and_fixed_denominator():
    out = aggregate(ITEMS, **UPSTREAM)
    assert out["vlm_t"]["score"] == pytest.approx((5 + 3 + 0 + 1) / (1411 * 5) * 100)
    assert out["vlm_i_mid"]["score"] == pytest.approx((3.5 + 4.5 + 1 + 1) / (1411 * 5) * 100)
    out = aggregate(ITEMS, missing="exclude", unparseable="zero")
    assert out["vlm_t"]["score"] == pytest.approx((5 + 3 + 0) / 15 * 100)
    with pytest.raises(InputError):
        aggregate(ITEMS, denominator=0)
    with pytest.raises(InputError):
        aggregate(ITEMS, missing="one")


def _png(path, value):
    Image.fromarray(np.full((12, 12, 3), value, np.uint8)).save(path)
    return str(path)


def test_live_judge_all_three_modules(server, make_client, tmp_path):
    def reply(payload):
        text = payload["messages"][0]["content"][0]["text"]
        if text.startswith("Problem Text"):
            return "**Step Accuracy:** 4\n**Process Consistency:** 2\nProblem-Solution Accuracy: 3"
        return "4/5" if "Model's steps" in text else "Score: 2"
    server.default = reply
    item = {"id": "g1", "question": "Construct the circumcentre", "text_answer": "1. bisect AB ...",
            "output": "1. draw ...", "res_image": _png(tmp_path / "ref.png", 0),
            "output_image": _png(tmp_path / "out.png", 9), "long_image_path": _png(tmp_path / "long.png", 5)}
    parts = evaluate_item(item, client=make_client())
    assert {m: p.value for m, p in parts.items()} == {"vlm_t": 4.0, "vlm_i_res": 2.0, "vlm_i_mid": 3.0}
    image_req = [r for r in server.requests if "Score" not in r["payload"]["messages"][0]["content"][0]["text"]]
    assert any(sum(p["type"] == "image_url" for p in r["payload"]["messages"][0]["content"]) == 2
               for r in image_req)
    r = grade_sample(item, client=make_client(cache=None))
    assert r.status is Status.OK and r.overall == pytest.approx(0.8) and r.metrics["step_accuracy"] == 4.0


def test_missing_inputs_and_recorded_replies(tmp_path):
    parts = evaluate_item({"id": "x", "question": "q", "text_answer": "a", "output_image": str(tmp_path / "nope.png"),
                           "judge_text": "5"})
    assert parts["vlm_t"].value == 5.0 and parts["vlm_i_res"].status == "missing"
    r = grade_sample({"id": "x", "judge_text": "bad", "judge_image": "worse", "judge_mid": "none"})
    assert r.status is Status.UNPARSEABLE and r.overall == 0.0


def test_load_items_merges_dataset(tmp_path):
    (tmp_path / "ds.json").write_text(json.dumps([{"id": 1, "question": "q1", "text_answer": "a1",
                                                   "res_image": "img/1.png"}]))
    (tmp_path / "out.json").write_text(json.dumps([{"id": 1, "output": "o"}, {"id": 99, "output": "x"}]))
    items, unknown = load_items(tmp_path / "ds.json", tmp_path / "out.json")
    assert unknown == ["99"] and items[0]["question"] == "q1"
    assert items[0]["res_image"] == str((tmp_path / "img/1.png").resolve())


def test_bad_template_is_clean_error():
    item = {"id": 1, "question": "q", "text_answer": "a", "output": "o"}
    with pytest.raises(InputError):
        evaluate_item(item, client=None, templates={"text": "{problem} {oops}"})
