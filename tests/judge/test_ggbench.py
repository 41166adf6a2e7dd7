"""GGBench: robust parsing, the four scores (hand-computed) and the documented policies."""

from __future__ import annotations

import doctest
import json
import math

import numpy as np
import pytest
from PIL import Image

from cvcheck.errors import InputError
from cvcheck.judge.ggbench import (
    METRICS,
    UPSTREAM,
    Part,
    aggregate,
    evaluate_item,
    grade_sample,
    load_items,
    parse_mid,
    parse_score,
    upstream_score,
)
from cvcheck.judge.ggbench_parse import upstream_mid_value
from cvcheck.schema import Status

# Reply forms -> (cvcheck reading, upstream value), upstream worked out by hand from
# opendatalab-raiser/GGBench evaluate.py (commit f555ffd):
#   text / final image: `score = completion...content.strip()`; `item["eval_text_result"] = score.strip()`;
#     `_safe_to_numeric(value, default=0.0)`: `if value_lower in ("nan", "none", ""): return default`,
#     `result = float(value)` (`except (ValueError, TypeError): return default`), NaN -> default;
#     no range check, so 7 stays 7 and "inf" stays infinite.
#   long image, `parse_mid_process_result`: fields start at 1; `for line in text.splitlines()`:
#     `stripped = line.strip()`; `if stripped.lower().startswith("step accuracy")`:
#     `result["Step Accuracy"] = int(stripped.split(":", 1)[1])` (`except Exception: pass`); same for
#     "process consistency"; VLM-I-Mid item = `(step_acc + process_cons) / 2.0`.
# None in the cvcheck column = unparseable.
SCORE_REPLIES = [
    ("4", 4.0, 4.0),
    (" 4 \n", 4.0, 4.0),                     # stripped first
    ("4.", 4.0, 4.0),                         # float("4.") = 4.0
    ("4.0", 4.0, 4.0),
    ("3.5", 3.5, 3.5),                        # float("3.5"); cvcheck reads half points too
    ("+5", 5.0, 5.0),                         # float("+5") = 5.0
    ("5 ", 5.0, 5.0),
    ("\u0664", 4.0, 4.0),                     # Arabic-Indic four: float() and \d both read it
    ("**4**", 4.0, 0.0),                      # float("**4**") raises -> 0
    ("`4`", 4.0, 0.0),
    ("4/5", 4.0, 0.0),
    ("5/5", 5.0, 0.0),
    ("4 out of 5", 4.0, 0.0),
    ("Score: 4", 4.0, 0.0),
    ("Score: 4/5", 4.0, 0.0),
    ("Step 3/5 misses a point. Score: 2", 2.0, 0.0),          # the labelled score, not a step count
    ("**Score:** 5", 5.0, 0.0),
    ("Rating: 2", 2.0, 0.0),
    ("The score is 4.", 4.0, 0.0),
    ("Score (1-5): 2", 2.0, 0.0),             # the "1" of "(1-5)" is a scale, not the score
    ("Rating (1\u20135): 3", 3.0, 0.0),       # en dash
    ("Score [1 to 5]: 4", 4.0, 0.0),
    ("Score: <1-5>", None, 0.0),              # an echoed template holds no score
    ("5\n\nThe construction is complete.", 5.0, 0.0),
    ("4 (good)", None, 0.0),
    ("0", None, 0.0),                         # outside 1-5 for cvcheck; float("0") = 0 upstream
    ("7", None, 7.0),                         # upstream has no range check
    ("-1", None, -1.0),
    ("6/5", None, 0.0),
    ("", None, 0.0),                          # value_lower in (..., "") -> default
    ("nan", None, 0.0),
    ("NaN", None, 0.0),                       # lower() -> "nan"
    ("None", None, 0.0),
    ("inf", None, math.inf),                  # float("inf") is not NaN: kept
    ("1e0", None, 1.0),                       # float("1e0") = 1.0
    ("4_0", None, 40.0),                      # float("4_0") = 40.0 (digit separators)
    (".5", None, 0.5),
    ("I would say good", None, 0.0),
    ("1. First bisect AB\n2. Then ...", None, 0.0),
]
MID_REPLIES = [
    ("Step Accuracy: 4\nProcess Consistency: 3\nProblem-Solution Accuracy: 2\nRationale: ok", 3.5, 3.5),
    ("Step Accuracy (1-5): 2\nProcess Consistency (1-5): 4", 3.0, 3.0),  # split(":", 1) -> " 2"
    ("Step Accuracy: 0\nProcess Consistency: 5", None, 2.5),   # int(" 0") = 0
    ("Step Accuracy: 3.5\nProcess Consistency: 4", 3.75, 2.5),  # int(" 3.5") raises -> 1
    ("Step Accuracy: 4/5\nProcess Consistency: 3/5", 3.5, 1.0),
    ("Step Accuracy: 5/5\nProcess Consistency: 5/5", 5.0, 1.0),
    ("**Step Accuracy:** 4\n**Process Consistency:** 2", 3.0, 1.0),  # "**" fails startswith
    ("- Step Accuracy: 4\n- Process Consistency: 4", 4.0, 1.0),
    ("Step Accuracy = 5\nProcess Consistency = 5", 5.0, 1.0),   # no ":" -> IndexError -> 1
    ("Step Accuracy - 4\nProcess Consistency - 2", 3.0, 1.0),
    ("Step Accuracy\uff1a4\nProcess Consistency\uff1a4", 4.0, 1.0),  # full-width colon
    ("Step Accuracy: 4", None, 2.5),                            # Process Consistency stays 1
    ("Process Consistency: 5", None, 3.0),
    ("", None, 1.0),
    ("Step Accuracy: 9\nProcess Consistency: 9", None, 9.0),
    ("Step Accuracy: -1\nProcess Consistency: 5", None, 2.0),  # int(" -1") = -1
    ("step accuracy: 3\nprocess consistency: 5", 4.0, 4.0),     # lower() before startswith
    ("STEP ACCURACY: 2\nPROCESS CONSISTENCY: 2", 2.0, 2.0),
    ("  Step Accuracy: 5  \n  Process Consistency: 4", 4.5, 4.5),
    ("Step Accuracy:4\nProcess Consistency:2", 3.0, 3.0),
    ("Step Accuracy: +4\nProcess Consistency: 4", 4.0, 4.0),    # int(" +4") = 4
    ("Step Accuracy: 04\nProcess Consistency: 4", 4.0, 4.0),
    ("Step Accuracy: \u0663\nProcess Consistency: 3", 3.0, 3.0),  # int() reads Arabic-Indic digits
    ("Step Accuracy: 4 (minor slips)\nProcess Consistency: 3", 3.5, 2.0),
    ("Step Accuracy: 2.0\nProcess Consistency: 2.0", 2.0, 1.0),
    ("Step Accuracy: five\nProcess Consistency: 5", None, 3.0),
    ("Step Accuracy: 3\nStep Accuracy: 5\nProcess Consistency: 5", 4.0, 5.0),  # cvcheck: first; upstream: last
    ("Step Accuracy: 4, Process Consistency: 2", 3.0, 1.0),     # one line: int(" 4, Process ...") raises
    ("Process Consistency: 2\nStep Accuracy: 4", 3.0, 3.0),
    ("Step Accuracy: 4\n\nProcess Consistency: 3\n\nProblem-Solution Accuracy: 0", 3.5, 3.5),
    ("Step-Accuracy: 4\nProcess-Consistency: 4", 4.0, 1.0),
    ("Step Accuracy: <1-5>\nProcess Consistency: <1-5>", None, 1.0),  # echoed template
    ("Rationale: Step Accuracy: 5\nProcess Consistency: 5", 5.0, 3.0),  # upstream skips a rationale line
]


@pytest.mark.parametrize("reply,cv,up", SCORE_REPLIES)
def test_score_reply_table(reply, cv, up):
    assert parse_score(reply) == cv
    assert upstream_score(reply) == up


@pytest.mark.parametrize("reply,cv,up", MID_REPLIES)
def test_mid_reply_table(reply, cv, up):
    got = parse_mid(reply)
    mine = (got["step_accuracy"] + got["process_consistency"]) / 2 if len(
        {"step_accuracy", "process_consistency"} & set(got)) == 2 else None
    assert mine == cv
    assert upstream_mid_value(reply) == up


POLICIES = ("exclude", "zero", "min", "upstream")


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("metric,reply,cv,up", [("vlm_t", *r) for r in SCORE_REPLIES]
                         + [("vlm_i_mid", *r) for r in MID_REPLIES])
def test_one_reply_scored_under_each_policy(metric, reply, cv, up, policy):
    """A one-item benchmark per reply: the score is the table's value x 20 under each policy."""
    others = {m: "5" if m != "vlm_i_mid" else "Step Accuracy: 5\nProcess Consistency: 5" for m in METRICS}
    item = {"id": "r", "judge_text": others["vlm_t"], "judge_image": others["vlm_i_res"],
            "judge_mid": others["vlm_i_mid"], **{"judge_text" if metric == "vlm_t" else "judge_mid": reply}}
    parts = evaluate_item(item)
    if policy == "upstream":
        out, want = aggregate([parts], parser="upstream"), up * 20
    else:
        out = aggregate([parts], unparseable=policy)
        want = cv * 20 if cv is not None else {"exclude": None, "zero": 0.0, "min": 20.0}[policy]
    assert out[metric]["score"] == (pytest.approx(want) if want is not None and math.isfinite(want) else want)
    assert out[metric]["n_unparseable"] == (cv is None)


def test_reply_tables_are_large_enough():
    assert len(SCORE_REPLIES) + len(MID_REPLIES) >= 60


def test_parse_module_doctests():
    from cvcheck.judge import ggbench_parse
    assert doctest.testmod(ggbench_parse).failed == 0


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


def test_policies_and_fixed_denominator():
    out = aggregate(ITEMS, denominator=1411, missing="min", unparseable={"vlm_t": "zero", "vlm_i_mid": "min"})
    assert out["vlm_t"]["score"] == pytest.approx((5 + 3 + 0 + 1) / (1411 * 5) * 100)
    assert out["vlm_i_mid"]["score"] == pytest.approx((3.5 + 4.5 + 1 + 1) / (1411 * 5) * 100)
    out = aggregate(ITEMS, missing="exclude", unparseable="zero")
    assert out["vlm_t"]["score"] == pytest.approx((5 + 3 + 0) / 15 * 100)
    for bad in ({"denominator": 0}, {"denominator": True}, {"missing": "one"}, {"parser": "mine"},
                {"parser": "upstream", "missing": "min"}):
        with pytest.raises(InputError):
            aggregate(ITEMS, **bad)
    with pytest.raises(InputError):  # hand-made parts carry no upstream reading of a reply
        aggregate(ITEMS, parser="upstream")


def test_upstream_end_to_end_on_recorded_replies():
    """evaluate.py: every item counts; missing inputs and failed judge calls score 1; N = 1411."""
    recorded = [
        {"id": 1, "judge_text": "5", "judge_image": "**4**", "judge_mid": "Step Accuracy: 3\nProcess Consistency: 4"},
        {"id": 2, "judge_text": "Score: 4", "judge_image": "3",
         "judge_mid": "Step Accuracy: 0\nProcess Consistency: 5"},
        {"id": 3},  # no inputs at all: missing everywhere
    ]
    parts = [evaluate_item(r) for r in recorded] + [{m: Part("error") for m in METRICS}]
    out = aggregate(parts, **UPSTREAM)
    assert out["vlm_t"]["score"] == pytest.approx((5 + 0 + 1 + 1) / (1411 * 5) * 100)
    assert out["vlm_i_res"]["score"] == pytest.approx((0 + 3 + 1 + 1) / (1411 * 5) * 100)
    assert out["vlm_i_mid"]["score"] == pytest.approx((3.5 + 2.5 + 1 + 1) / (1411 * 5) * 100)
    assert out["vlm_i"]["score"] == pytest.approx(((5 + 8) / 2) / (1411 * 5) * 100)
    assert out["vlm_t"]["counted"] == 4 and out["parser"] == "upstream"
    mine = aggregate(parts)  # cvcheck: "Score: 4" reads 4, the error is left out, missing -> 1
    assert mine["vlm_t"]["score"] == pytest.approx((5 + 4 + 1) / 15 * 100)
    assert mine["vlm_i_mid"]["n_unparseable"] == 1 and mine["vlm_i_mid"]["counted"] == 2


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
