"""``cvcheck judge ...`` end to end (in-process), against the local OpenAI-compatible server."""

from __future__ import annotations

import json

import pytest

from cvcheck.cli import main


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    for var in ("CVCHECK_JUDGE_BASE_URL", "CVCHECK_JUDGE_MODEL", "CVCHECK_JUDGE_API_KEY", "OPENAI_API_KEY",
                "CVCHECK_JUDGE_REPLAY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("CVCHECK_JUDGE_CACHE", str(tmp_path / "default-cache.sqlite"))


def _mmvet_files(tmp_path):
    data = {f"v1_{i}": {"imagename": f"v1_{i}.png", "question": f"What is {i}?", "answer": f"{i}<OR>x",
                        "capability": ["rec", "ocr"] if i % 2 else ["math"]} for i in range(4)}
    preds = {k: f"It is {k}" for k in data}
    (tmp_path / "mm-vet.json").write_text(json.dumps(data))
    (tmp_path / "llava.json").write_text(json.dumps(preds))
    return tmp_path / "mm-vet.json", tmp_path / "llava.json"


def test_mmvet_cli_live_then_cached_then_replayed(server, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SECRET_JUDGE_KEY", "sk-cli-SECRET")
    server.default = lambda p: "1.0" if "v1_1" in p["messages"][0]["content"].rsplit("\n", 1)[-1] else "0.5"
    data, preds = _mmvet_files(tmp_path)
    args = ["judge", "mmvet", "--data", str(data), "--predictions", str(preds), "--runs", "2",
            "--base-url", server.base_url, "--model", "gpt-4-0613", "--api-key-env", "SECRET_JUDGE_KEY",
            "--cache", str(tmp_path / "c.sqlite"), "--timeout", "60"]
    assert main(args + ["-o", str(tmp_path / "out1"), "--record", str(tmp_path / "rec.json")]) == 0
    first = capsys.readouterr().out
    assert "total 62.5 ± 0.0" in first and len(server.requests) == 8
    assert server.requests[0]["authorization"] == "Bearer sk-cli-SECRET"
    cap = (tmp_path / "out1" / "llava_gpt-4-0613-cap-score-2runs.csv").read_text()
    assert main(args + ["-o", str(tmp_path / "out2")]) == 0 and len(server.requests) == 8  # all from cache
    assert (tmp_path / "out2" / "llava_gpt-4-0613-cap-score-2runs.csv").read_text() == cap
    replay = ["judge", "mmvet", "--data", str(data), "--predictions", str(preds), "--runs", "2",
              "--replay", str(tmp_path / "rec.json"), "-o", str(tmp_path / "out3")]
    assert main(replay) == 0 and len(server.requests) == 8
    assert (tmp_path / "out3" / "llava_gpt-4-0613-cap-score-2runs.csv").read_text() == cap
    for f in list((tmp_path).rglob("*.json")) + list(tmp_path.rglob("*.csv")) + list(tmp_path.rglob("*.sqlite")):
        assert b"sk-cli-SECRET" not in f.read_bytes(), f


def test_mmvet_cli_aggregates_existing_grade_file(tmp_path, capsys):
    data, _ = _mmvet_files(tmp_path)
    grades = {f"v1_{i}": {"model": ["g"], "content": ["1.0"], "score": [float(i % 2)]} for i in range(4)}
    (tmp_path / "g.json").write_text(json.dumps(grades))
    code = main(["judge", "mmvet", "--data", str(data), "--grades", str(tmp_path / "g.json"), "--json",
                 "-o", str(tmp_path / "o")])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["total"] == 50.0 and out["capabilities"]["math"] == 0.0


def test_no_judge_configured_is_a_clean_error(tmp_path, capsys):
    data, preds = _mmvet_files(tmp_path)
    assert main(["judge", "mmvet", "--data", str(data), "--predictions", str(preds)]) == 2
    assert "no judge base URL" in capsys.readouterr().err


def test_mmgr_cli_from_recorded_answers(tmp_path, capsys):
    rows = [{"id": "a1", "judge_answers": {"grid_integrity": "yes", "pattern_recognition": "yes",
                                           "color_accuracy": "no", "valid_solution": "no"}},
            {"id": "a2", "judge_reply": "grid_integrity: yes\npattern_recognition: yes\ncolor_accuracy: yes\n"
                                        "valid_solution: yes"},
            {"id": "a3", "judge_reply": "looks fine"}]
    (tmp_path / "arc.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    code = main(["judge", "mmgr-arc", "--answers", str(tmp_path / "arc.jsonl"), "-o", str(tmp_path / "o")])
    text = capsys.readouterr().out
    assert code == 0 and "3 samples, overall 33.3%" in text and "cascade" in text
    lines = (tmp_path / "o" / "results.jsonl").read_text().splitlines()
    assert [json.loads(x)["status"] for x in lines] == ["ok", "ok", "unparseable"]


def test_marvel_and_ggbench_cli_offline(tmp_path, capsys):
    label = {"id": 1, "pattern": "P", "task_configuration": "C", "answer": 2, "f_perception_answer": "upper",
             "f_perception_distractor": "lower", "c_perception_answer_tuple": [5, 4, 9]}
    (tmp_path / "labels.json").write_text(json.dumps([label]))
    (tmp_path / "resp.json").write_text(json.dumps({"1": {"avr": "choice 2", "fine": "upper",
                                                          "coarse": ["5", "4", "9"]}}))
    assert main(["judge", "marvel", "--labels", str(tmp_path / "labels.json"), "--responses",
                 str(tmp_path / "resp.json"), "--json", "-o", str(tmp_path / "m")]) == 0
    assert json.loads(capsys.readouterr().out)["overall"]["group_all_accuracy"] == 1.0
    (tmp_path / "ds.json").write_text(json.dumps([{"id": 1, "question": "q", "text_answer": "a"}]))
    (tmp_path / "outs.json").write_text(json.dumps([{"id": 1, "output": "o", "judge_text": "4",
                                                     "judge_image": "**5**", "judge_mid": "Step Accuracy: 3\n"
                                                     "Process Consistency: 5"}]))
    assert main(["judge", "ggbench", "--dataset", str(tmp_path / "ds.json"), "--outputs",
                 str(tmp_path / "outs.json"), "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["vlm_t"]["rounded"] == 80.0 and s["vlm_i"]["rounded"] == 90.0


def test_shipped_fixtures_grade_as_documented(capsys):
    from pathlib import Path

    root = Path(__file__).resolve().parents[2] / "fixtures" / "judge"
    assert main(["judge", "arc", "--answers", str(root / "arc_recorded.jsonl"), "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["overall"] == 0.25 and s["n_unparseable"] == 1 and s["cascade"]["grid_integrity"] == 1.0
    assert main(["judge", "nav-last-mile", "--answers", str(root / "nav_last_mile_recorded.jsonl"), "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["overall"] == 0.5 and s["metrics"]["success_score_3d"] == 0.5


def test_mmvet_cli_resumes_its_grade_file(server, tmp_path, capsys):
    data, preds = _mmvet_files(tmp_path)
    server.default = ("reply", "0.5")
    args = ["judge", "mmvet", "--data", str(data), "--predictions", str(preds), "--base-url", server.base_url,
            "--model", "gpt-4-0613", "--no-cache", "-o", str(tmp_path / "o")]
    assert main(args + ["--runs", "1"]) == 0 and len(server.requests) == 4
    grade = tmp_path / "o" / "llava_gpt-4-0613-grade-1runs.json"
    (tmp_path / "o" / "llava_gpt-4-0613-grade-2runs.json").write_text(grade.read_text())
    assert main(args + ["--runs", "2"]) == 0 and len(server.requests) == 8  # only run 2 was asked
    assert "resuming" in capsys.readouterr().err
