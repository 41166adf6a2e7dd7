"""``cvcheck judge`` end to end against echoing, redirecting and broken judge servers.

Done when: the key appears in no file the run writes and in no request to another
origin, and every judge fault ends as a judged error (exit 0/1), never an internal
error (exit 3) or a hang (``run_bounded`` fails the test instead of waiting forever).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

from cvcheck.cli import main

from .openai_server import OpenAIServer, run_bounded

KEY = "sk-live-0123456789abcdefSECRET"


@pytest.fixture(autouse=True)
def judge_env(monkeypatch, tmp_path):
    for var in ("CVCHECK_JUDGE_BASE_URL", "CVCHECK_JUDGE_MODEL", "CVCHECK_JUDGE_API_KEY", "OPENAI_API_KEY",
                "CVCHECK_JUDGE_REPLAY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("CVCHECK_JUDGE_CACHE", str(tmp_path / "default-cache.sqlite"))
    monkeypatch.setenv("JUDGE_KEY_UNDER_TEST", KEY)


@pytest.fixture()
def other_server():
    srv = OpenAIServer().start()
    yield srv
    srv.stop()


def _arc_samples(tmp_path, n):
    Image.fromarray(np.full((8, 8, 3), 200, np.uint8)).save(tmp_path / "answer.png")
    path = tmp_path / "arc.jsonl"
    path.write_text("".join(json.dumps({"id": f"s{i}", "answer": "answer.png", "prompt": f"puzzle {i}"}) + "\n"
                            for i in range(n)))
    return path


def _mmvet_files(tmp_path, n):
    data = {f"v1_{i}": {"imagename": f"v1_{i}.png", "question": f"What is {i}?", "answer": str(i),
                        "capability": ["rec"]} for i in range(n)}
    (tmp_path / "mm-vet.json").write_text(json.dumps(data))
    (tmp_path / "preds.json").write_text(json.dumps({k: f"It is {k}" for k in data}))
    return tmp_path / "mm-vet.json", tmp_path / "preds.json"


def _judge(server, *args):
    return ["--base-url", server.base_url, "--model", "judge-x", "--api-key-env", "JUDGE_KEY_UNDER_TEST",
            "--retries", "1", *args]


def _assert_no_key_anywhere(tmp_path, *texts):
    files = [f for f in tmp_path.rglob("*") if f.is_file()]
    assert any(f.suffix == ".sqlite" for f in files) and any(f.name == "rec.json" for f in files)
    for f in files:
        assert KEY.encode() not in f.read_bytes(), f
    for text in texts:
        assert KEY not in text


def _echo_script(server, other_server):
    server.script.extend([("echo", 200), ("echo", 401), ("echo", 500), ("echo", 500),
                          ("redirect", 302, f"{other_server.base_url}/chat/completions?key={KEY}")])
    server.default = ("echo", 200)


def test_mmgr_run_with_echoing_and_redirecting_server_leaks_the_key_nowhere(server, other_server, tmp_path,
                                                                            capsys):
    _echo_script(server, other_server)
    args = ["judge", "arc", "--answers", str(_arc_samples(tmp_path, 5)), "--cache", str(tmp_path / "c.sqlite"),
            "--record", str(tmp_path / "rec.json"), "-o", str(tmp_path / "out"), "--concurrency", "1",
            *_judge(server)]  # one at a time: the script's order is the samples' order
    code = run_bounded(main, args)
    out, err = capsys.readouterr()
    assert code == 1, err  # some samples are errors (401, 500s, the redirect), none internal
    rows = [json.loads(x) for x in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    assert sorted(r["status"] for r in rows) == ["error", "error", "error", "unparseable", "unparseable"]
    assert {r["error"]["code"] for r in rows if r["status"] == "error"} == {"judge_error"}
    assert any("[REDACTED]" in (r["details"]["judge"]["raw_reply"] or "") for r in rows if r["status"] != "error")
    assert all(r["authorization"] == f"Bearer {KEY}" for r in server.requests)  # it was sent (and echoed)
    assert other_server.requests == []  # but never to another origin
    _assert_no_key_anywhere(tmp_path, out, err)


def test_mmvet_run_with_echoing_and_redirecting_server_leaks_the_key_nowhere(server, other_server, tmp_path,
                                                                             capsys):
    _echo_script(server, other_server)
    data, preds = _mmvet_files(tmp_path, 5)
    args = ["judge", "mmvet", "--data", str(data), "--predictions", str(preds), "--cache", str(tmp_path / "c.sqlite"),
            "--record", str(tmp_path / "rec.json"), "-o", str(tmp_path / "out"), *_judge(server)]
    code = run_bounded(main, args)
    out, err = capsys.readouterr()
    assert code == 1 and "judgement(s) failed" in err and "internal error" not in err
    assert other_server.requests == []
    _assert_no_key_anywhere(tmp_path, out, err)


GIB = 1024 ** 3
FAULTS = {
    "trickled_headers": ("trickle_headers", 0.5, 120),
    "trickled_body": ("trickle", 0.5, "x" * 120),
    "trickled_error_body": ("trickle_error", 500, 0.5, 120),
    "huge_error_body": ("huge", 500, 3 * GIB // 2, True),
    "huge_body_no_length": ("huge", 200, 3 * GIB // 2, False),
    "cut_off_body": ("short", 500, b'{"choices": ['),
    "deep_json": ("raw", b"[" * 200_000),
    "not_json": ("raw", b"<html>bad gateway</html>"),
    "garbled_status_line": ("raw_response", b"garbage\r\n\r\n"),
    "too_many_headers": ("raw_response", b"HTTP/1.1 200 OK\r\n" + b"X: y\r\n" * 200 + b"\r\n"),
    "redirect": ("redirect", 307, "http://127.0.0.1:9/v1/chat/completions"),
    "client_error": ("status", 400, None),
    "server_error": ("status", 503, "0"),
    "echo": ("echo", 500),
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_every_judge_fault_is_a_judged_error_not_an_internal_error(server, tmp_path, capsys, fault):
    server.default = FAULTS[fault]
    data, preds = _mmvet_files(tmp_path, 1)
    args = ["judge", "mmvet", "--data", str(data), "--predictions", str(preds), "--no-cache",
            "-o", str(tmp_path / "out"), "--timeout", "2", *_judge(server)]
    code = run_bounded(main, args, limit_s=300)
    err = capsys.readouterr().err
    assert code == 1 and "judgement(s) failed" in err, err
    assert "internal error" not in err and KEY not in err
    assert 1 <= len(server.requests) <= 2  # the retry budget, nothing more


def test_mmgr_live_run_goes_through_the_batch_runner_once_per_sample(server, tmp_path, capsys):
    server.default = ("reply", "grid_integrity: yes\npattern_recognition: yes\ncolor_accuracy: yes\n"
                               "valid_solution: no")
    args = ["judge", "arc", "--answers", str(_arc_samples(tmp_path, 12)), "--cache", str(tmp_path / "c.sqlite"),
            "-o", str(tmp_path / "out"), "--concurrency", "4", *_judge(server)]
    code = run_bounded(main, args)
    out, err = capsys.readouterr()
    assert code == 0, err
    rows = [json.loads(x) for x in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    assert sorted(r["id"] for r in rows) == sorted(f"s{i}" for i in range(12))  # each once, none lost
    assert all(r["status"] == "ok" and r["overall"] == 0.0 for r in rows) and len(server.requests) == 12
    assert "12 samples, overall 0.0%" in out
    assert run_bounded(main, args) == 0 and len(server.requests) == 12  # a rerun: all from the cache, file rewritten
    assert len((tmp_path / "out" / "results.jsonl").read_text().splitlines()) == 12


def test_mmgr_samples_with_duplicate_or_missing_ids_are_refused(tmp_path, capsys):
    path = tmp_path / "arc.jsonl"
    path.write_text('{"id": "a", "judge_reply": "x"}\n{"id": "a", "judge_reply": "y"}\n')
    assert main(["judge", "arc", "--answers", str(path)]) == 2
    assert "duplicate id 'a'" in capsys.readouterr().err
    path.write_text('{"judge_reply": "x"}\n')
    assert main(["judge", "arc", "--answers", str(path)]) == 2
    assert "line 1" in capsys.readouterr().err
