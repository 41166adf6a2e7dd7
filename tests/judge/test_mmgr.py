"""MMGR judged tasks: every gate formula, one test per required check."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from cvcheck.config import Config
from cvcheck.judge.mmgr import grade, grade_sample
from cvcheck.judge.mmgr_spec import SPECS
from cvcheck.schema import Result, Status

#: the seed's summary table: task -> required checks (in order)
TABLE = {
    "maze-vlm": ["maze_changed=0", "cross_wall=0", "target_achievement=1"],
    "sudoku-vlm": ["clues_changed=0", "constraint_violation=0", "completion_accuracy=1"],
    "arc": ["valid_solution=1"],
    "math": ["final_correctness=1", "intermediate_correctness=1"],
    "nav-last-mile": ["success_score_3d=1", "oracle_success_score_3d=1", "object_semantic=1", "agent_consistency=1",
                      "spatial_alignment=1", "destination_integrity=1", "scene_consistency=1"],
    "nav-top-down": ["success_score_2d=1", "oracle_success_score_2d=1", "object_semantic=1", "agent_consistency=1",
                     "spatial_alignment=1", "destination_integrity=1", "scene_consistency=1"],
    "nav-3d": ["success_score_3d=1", "oracle_success_score_3d=1", "object_semantic=1", "agent_consistency=1",
               "spatial_alignment=1", "destination_integrity=1", "scene_consistency=1"],
    "nav-slag": ["success_score_2d=1", "oracle_success_score_2d=1", "success_score_3d=1", "oracle_success_score_3d=1",
                 "trajectory_alignment=1", "object_semantic=1", "agent_consistency=1", "spatial_alignment=1",
                 "destination_integrity=1", "scene_consistency=1"],
    "physics-concepts": ["physics_accuracy=1", "motion_quality=1", "visual_realism=1", "prompt_adherence=1"],
    "physics-sports": ["physics_accuracy=1", "motion_quality=1", "visual_realism=1", "prompt_adherence=1"],
}
CFG = Config()


def passing_answers(task: str) -> dict:
    """Every metric at its passing value (diagnostics 'yes')."""
    out = {}
    for m in SPECS[task].metrics:
        out[m.name] = "yes" if m.required is None else ("no" if m.required == 0 else "yes")
        if m.kind == "fraction":
            out[m.name] = str(m.required if m.required is not None else 1.0)
    return out


def _grade(task, answers, modality="video", **extra):
    return grade_sample({"id": "s", "task": task, "modality": modality, "judge_answers": answers, **extra},
                        config=CFG)


def test_table_matches_specs():
    assert set(TABLE) == set(SPECS)
    for task, checks in TABLE.items():
        assert [f"{m.name}={m.required:g}" for m in SPECS[task].required] == checks


@pytest.mark.parametrize("task", sorted(TABLE))
def test_all_checks_pass_gives_overall_1(task):
    r = _grade(task, passing_answers(task))
    assert r.status is Status.OK and r.overall == 1.0 and r.gate.required == tuple(TABLE[task])


@pytest.mark.parametrize("task,check", [(t, c) for t, cs in TABLE.items() for c in cs])
def test_one_failing_check_flips_overall(task, check):
    answers = passing_answers(task)
    name, req = check.split("=")
    spec = {m.name: m for m in SPECS[task].metrics}[name]
    if spec.kind == "fraction":
        answers[name] = "0.5"
    else:
        answers[name] = "yes" if req == "0" else "no"
    r = _grade(task, answers)
    assert r.status is Status.OK and r.overall == 0.0 and r.gate.failed == (check,)


def test_diagnostics_never_gate():
    ans = passing_answers("arc") | {"pattern_recognition": "no", "grid_integrity": "no", "color_accuracy": "no"}
    r = _grade("arc", ans, "image")
    assert r.overall == 1.0 and r.metrics["cascade_depth"] == 0
    ans = passing_answers("maze-vlm") | {"action_reflection": "no"}
    assert _grade("maze-vlm", ans).overall == 1.0
    ans = passing_answers("arc") | {"color_accuracy": "no"}
    assert _grade("arc", ans, "image").metrics["cascade_depth"] == 2  # grid -> pattern -> (color fails)


def test_gate_composites_as_diagnostics():
    ans = passing_answers("nav-last-mile") | {"scene_consistency": "no"}
    r = _grade("nav-last-mile", ans)
    assert r.metrics["success_3d_original_destination"] == 0 and r.metrics["physics_validness"] == 1
    ans = passing_answers("nav-top-down") | {"agent_consistency": "no"}
    r = _grade("nav-top-down", ans)
    assert r.metrics["success_2d_original_destination"] == 1 and r.metrics["physics_validness"] == 0


def test_fraction_endpoints_are_strict():
    ans = passing_answers("sudoku-vlm") | {"completion_accuracy": "17/18"}
    r = _grade("sudoku-vlm", ans, "image")
    assert r.overall == 0.0 and r.metrics["completion_accuracy"] == pytest.approx(17 / 18)
    assert _grade("sudoku-vlm", passing_answers("sudoku-vlm") | {"constraint_violation": "0%"}).overall == 1.0


def test_action_reflection_is_na_for_images():
    r = _grade("math", {"final_correctness": "yes", "intermediate_correctness": "yes", "action_reflection": "yes"},
               "image")
    assert "action_reflection" not in r.metrics and r.overall == 1.0


def test_recorded_reply_text_and_unparseable():
    reply = "**maze_changed**: No\n- cross_wall: no\nTarget achievement: Yes.\njustification: clean run"
    r = _grade("maze-vlm", reply, "image")
    assert r.status is Status.OK and r.overall == 1.0 and r.details["judge"]["raw_reply"] == reply
    r = _grade("maze-vlm", "The maze looks solved to me!", "image")
    assert r.status is Status.UNPARSEABLE and r.overall == 0.0 and "maze_changed" in r.details["reason"]
    r = _grade("maze-vlm", {"maze_changed": "no", "cross_wall": "perhaps", "target_achievement": "yes"}, "image")
    assert r.status is Status.UNPARSEABLE and "cross_wall" in r.details["reason"]
    assert Result.from_json(r.to_json()) == r


def test_physics_requires_video_and_bad_input_is_error():
    r = _grade("physics-sports", passing_answers("physics-sports"), "image")
    assert r.status is Status.ERROR and r.overall is None
    assert grade_sample({"id": "x", "task": "nope"}, config=CFG).status is Status.ERROR
    r = grade_sample({"id": "x", "task": "math", "modality": "image"}, config=CFG)  # no answers, no answer file
    assert r.status is Status.ERROR


def test_geometry_computes_success_scores():
    traj = [[0, 0, 0], [5, 0, 0], [10, 0, 0]]
    geo = {"trajectory_3d": traj, "goal_3d": {"center": [10, 0.5, 0], "radius": 1.0},
           "gt_trajectory_3d": [[0, 0, 0], [5, 0, 0], [10, 0.5, 0]]}
    judged = {k: v for k, v in passing_answers("nav-3d").items() if "success" not in k}
    r = _grade("nav-3d", judged, geometry=geo)
    assert r.overall == 1.0 and r.details["metric_sources"]["success_score_3d"] == "geometry"
    assert r.details["geo_align"]["sr"] == 1.0
    geo["goal_3d"] = {"center": [5, 0.5, 0], "radius": 1.0}  # passed through, did not stop
    r = _grade("nav-3d", judged, geometry=geo)
    assert r.metrics["success_score_3d"] == 0 and r.metrics["oracle_success_score_3d"] == 1
    assert r.gate.failed == ("success_score_3d=1",)


def test_live_judge_sees_images_and_replays_from_cache(server, make_client, tmp_path):
    img = np.full((20, 20, 3), 255, np.uint8)
    Image.fromarray(img).save(tmp_path / "gen.png")
    Image.fromarray(img[:, ::-1]).save(tmp_path / "ref.png")
    server.default = ("reply", "final_correctness: yes\nintermediate_correctness: no\njustification: step 2 wrong")
    client = make_client()
    sample = {"id": "m1", "task": "math", "answer": str(tmp_path / "gen.png"), "problem": "2+2?",
              "ground_truth": "4", "references": {"problem sheet": str(tmp_path / "ref.png")}}
    r = grade(SPECS["math"], sample, config=CFG, client=client)
    assert r.status is Status.OK and r.overall == 0.0 and r.gate.failed == ("intermediate_correctness=1",)
    assert r.details["judge"]["judge_model"] == "judge-x" and "step 2" in r.details["judge"]["raw_reply"]
    content = server.requests[0]["payload"]["messages"][0]["content"]
    assert sum(p["type"] == "image_url" for p in content) == 2 and "2+2?" in content[1]["text"]
    again = grade(SPECS["math"], sample, config=CFG, client=client)
    assert len(server.requests) == 1 and again.details["judge"]["source"] == "cache"
    assert again.to_dict()["metrics"] == r.to_dict()["metrics"]


def test_live_judge_failure_is_error_result(server, make_client, tmp_path):
    Image.fromarray(np.zeros((8, 8, 3), np.uint8)).save(tmp_path / "g.png")
    server.default = ("status", 503, None)
    r = grade(SPECS["arc"], {"id": "a", "task": "arc", "answer": str(tmp_path / "g.png")}, config=CFG,
              client=make_client(max_retries=1))
    assert r.status is Status.ERROR and "503" in r.error.message


def test_live_judge_on_video_sends_sampled_frames(server, make_client, tmp_path):
    import av

    path = tmp_path / "clip.mp4"
    with av.open(str(path), "w") as box:
        stream = box.add_stream("mpeg4", rate=8)
        stream.width, stream.height, stream.pix_fmt = 32, 32, "yuv420p"
        for i in range(12):
            frame = av.VideoFrame.from_ndarray(np.full((32, 32, 3), i * 20, np.uint8), format="rgb24")
            for pkt in stream.encode(frame):
                box.mux(pkt)
        for pkt in stream.encode():
            box.mux(pkt)
    server.default = ("reply", "physics_accuracy: yes\nmotion_quality: yes\nvisual_realism: no\nprompt_adherence: yes")
    cfg = CFG.with_overrides(["judge.video_frames=4"])
    r = grade(SPECS["physics-concepts"], {"id": "v", "task": "physics-concepts", "answer": str(path),
                                          "prompt": "a ball rolls"}, config=cfg, client=make_client())
    assert r.modality == "video" and r.gate.failed == ("visual_realism=1",)
    content = server.requests[0]["payload"]["messages"][0]["content"]
    assert sum(p["type"] == "image_url" for p in content) == 4


def test_malformed_geometry_is_error_not_traceback():
    r = _grade("nav-3d", passing_answers("nav-3d"), geometry={"trajectory_3d": 5, "goal_3d": {"center": [0, 0, 0],
                                                                                            "radius": 1}})
    assert r.status is Status.ERROR and r.error.code == "bad_input"
    r = _grade("nav-3d", passing_answers("nav-3d"), geometry={"trajectory_3d": [[0, 0, 0]], "goal_3d": {"x": 1}})
    assert r.status is Status.ERROR


def test_questions_follow_modality():
    from cvcheck.judge.mmgr_spec import MAZE

    ta = {m.name: m for m in MAZE.metrics}["target_achievement"]
    assert "blue path" in ta.ask("image") and "stay on it" in ta.ask("video")
    r = _grade("maze-vlm", passing_answers("maze-vlm"), "image")
    assert len(r.details["rubric"]) == 12
