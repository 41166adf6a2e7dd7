"""Bad judge settings and bad recorded-judgement files: a clear error (exit 2), never exit 3."""

from __future__ import annotations

import json

import pytest

from cvcheck.cli import main
from cvcheck.config import Config
from cvcheck.errors import ConfigError, InputError
from cvcheck.judge.cache import JudgeCache
from cvcheck.judge.client import JudgeClient
from cvcheck.judge.session import replay_client


@pytest.mark.parametrize("override, setting", [
    ("judge.concurrency=0", "judge.concurrency"), ("judge.concurrency=-3", "judge.concurrency"),
    ("judge.timeout_s=0", "judge.timeout_s"), ("judge.timeout_s=-1", "judge.timeout_s"),
    ("judge.timeout_s=NaN", "judge.timeout_s"), ("judge.timeout_s=Infinity", "judge.timeout_s"),
    ("judge.max_retries=-1", "judge.max_retries"), ("judge.backoff_s=-0.5", "judge.backoff_s"),
    ("judge.max_backoff_s=Infinity", "judge.max_backoff_s"),
])
def test_out_of_range_judge_settings_name_the_setting(override, setting):
    with pytest.raises(ConfigError, match=setting.replace(".", r"\.")):
        Config().with_overrides([override])


def test_judge_settings_in_range_are_kept():
    cfg = Config().with_overrides(["judge.concurrency=1", "judge.timeout_s=0.5", "judge.max_retries=0",
                                   "judge.backoff_s=0"]).judge
    assert (cfg.concurrency, cfg.timeout_s, cfg.max_retries, cfg.backoff_s) == (1, 0.5, 0, 0.0)


@pytest.mark.parametrize("kwargs", [dict(concurrency=0), dict(timeout_s=float("nan")), dict(max_retries=-1),
                                    dict(base_url="file:///etc/passwd"), dict(base_url="ftp://h/v1"),
                                    dict(base_url="http:///v1"), dict(base_url="http://h:99999/v1")])
def test_client_refuses_bad_settings(kwargs):
    with pytest.raises(ConfigError):
        JudgeClient(**{"model": "m", "base_url": "http://127.0.0.1:8000/v1", **kwargs})


@pytest.mark.parametrize("option, named", [(["--concurrency", "0"], "--concurrency"), (["--timeout", "0"], "--timeout"),
                                           (["--timeout", "nan"], "--timeout"), (["--retries", "-1"], "--retries"),
                                           (["--set", "judge.concurrency=0"], "judge.concurrency")])
def test_cli_refuses_bad_judge_options_with_exit_2(tmp_path, capsys, option, named):
    rows = tmp_path / "arc.jsonl"  # recorded answers: no client is built, the option is still checked
    rows.write_text(json.dumps({"id": "a", "judge_reply": "grid_integrity: yes"}) + "\n")
    try:
        code = main(["judge", "arc", "--answers", str(rows), *option])
    except SystemExit as exc:  # argparse's usage error
        code = exc.code
    assert code == 2 and named in capsys.readouterr().err


# -- recorded-judgement files ----------------------------------------------------------------

def _deep(n: int) -> bytes:
    return b"[" * n + b"]" * n


BAD_REPLAYS = {
    "missing": None,
    "directory": "DIR",
    "not_json": b"this is not json",
    "not_utf8": b'[{"key": "k", "model": "m", "reply": "\xff\xfe"}]',
    "empty": b"",
    "object": b'{"key": "k", "reply": "r"}',
    "list_of_numbers": b"[1, 2, 3]",
    "no_reply": b'[{"key": "k", "model": "m"}]',
    "key_not_string": b'[{"key": 7, "model": "m", "reply": "r"}]',
    "model_not_string": b'[{"key": "k", "model": ["m"], "reply": "r"}]',
    "request_not_object": b'[{"model": "m", "reply": "r", "request": [1]}]',
    "messages_not_list": b'[{"model": "m", "reply": "r", "request": {"messages": 5}}]',
    "params_not_object": b'[{"model": "m", "reply": "r", "request": {"messages": [], "params": [1]}}]',
    "neither_key_nor_request": b'[{"model": "m", "reply": "r"}]',
    "deep_nesting": _deep(200_000),
    "deep_request": b'[{"model": "m", "reply": "r", "request": {"messages": [' + _deep(5000) + b"]}}]",
    "huge_integer": b"[" + b"9" * 10_000 + b"]",
    "lone_surrogate": b'[{"key": "k\\ud800", "model": "m", "reply": "r"}]',
}


def _write(tmp_path, name):
    content = BAD_REPLAYS[name]
    path = tmp_path / f"{name}.json"
    if content == "DIR":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    return path


@pytest.mark.parametrize("name", sorted(BAD_REPLAYS))
def test_bad_replay_file_is_an_input_error(tmp_path, name):
    with pytest.raises(InputError):
        JudgeCache(":memory:").import_json(_write(tmp_path, name))
    with pytest.raises(InputError):
        replay_client(tmp_path / f"{name}.json")


@pytest.mark.parametrize("name", sorted(BAD_REPLAYS))
def test_cli_bad_replay_file_exits_2_with_a_clear_message(tmp_path, capsys, monkeypatch, name):
    monkeypatch.delenv("CVCHECK_JUDGE_REPLAY", raising=False)
    data = {"v1_0": {"imagename": "v1_0.png", "question": "q", "answer": "a", "capability": ["rec"]}}
    (tmp_path / "mm-vet.json").write_text(json.dumps(data))
    (tmp_path / "preds.json").write_text(json.dumps({"v1_0": "p"}))
    code = main(["judge", "mmvet", "--data", str(tmp_path / "mm-vet.json"), "--predictions",
                 str(tmp_path / "preds.json"), "--replay", str(_write(tmp_path, name)), "-o", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("cvcheck: error: ") and "internal error" not in err and f"{name}.json" in err
    assert len(err) < 600  # one clear line, not a dump of the file
