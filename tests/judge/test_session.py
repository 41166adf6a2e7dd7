"""The environment-configured judge that registry graders use in batch mode."""

from __future__ import annotations

import json

from cvcheck.config import Config
from cvcheck.judge.cache import request_key
from cvcheck.registry import grade
from cvcheck.schema import Status


def test_grader_without_judge_config_is_error_and_creates_no_cache(monkeypatch, tmp_path):
    for v in ("CVCHECK_JUDGE_BASE_URL", "CVCHECK_JUDGE_MODEL", "CVCHECK_JUDGE_REPLAY"):
        monkeypatch.delenv(v, raising=False)
    monkeypatch.setenv("CVCHECK_JUDGE_CACHE", str(tmp_path / "c.sqlite"))
    r = grade({"id": "q", "task": "mmvet", "question": "q", "ground_truth": "a", "prediction": "p"})
    assert r.status is Status.ERROR and r.error.code == "bad_config"
    assert not (tmp_path / "c.sqlite").exists()


def test_grader_uses_env_server_and_cache(server, monkeypatch, tmp_path):
    monkeypatch.setenv("CVCHECK_JUDGE_BASE_URL", server.base_url)
    monkeypatch.setenv("CVCHECK_JUDGE_MODEL", "env-judge")
    monkeypatch.setenv("CVCHECK_JUDGE_CACHE", str(tmp_path / "c.sqlite"))
    monkeypatch.delenv("CVCHECK_JUDGE_REPLAY", raising=False)
    server.default = ("reply", "0.8")
    sample = {"id": "q", "task": "mmvet", "question": "q", "ground_truth": "a", "prediction": "p"}
    cfg = Config().with_overrides(["judge.timeout_s=60"])
    assert grade(sample, config=cfg).overall == 0.8 and len(server.requests) == 1
    assert grade(sample, config=cfg).overall == 0.8 and len(server.requests) == 1


def test_grader_replays_recorded_file_from_env(monkeypatch, tmp_path):
    from cvcheck.judge.mmvet import build_prompt

    msgs = [{"role": "user", "content": build_prompt("q", "a", "p")}]
    key, req = request_key("rec-judge", msgs, {"max_tokens": 3, "temperature": 0.0}, "mmvet:run=0")
    (tmp_path / "rec.json").write_text(json.dumps([{"key": key, "model": "rec-judge", "reply": "0.3"}]))
    monkeypatch.setenv("CVCHECK_JUDGE_REPLAY", str(tmp_path / "rec.json"))
    monkeypatch.delenv("CVCHECK_JUDGE_MODEL", raising=False)
    r = grade({"id": "q", "task": "mmvet", "question": "q", "ground_truth": "a", "prediction": "p"})
    assert r.status is Status.OK and r.overall == 0.3
