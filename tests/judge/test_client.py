"""The judge client against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import socket
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from cvcheck.config import JudgeConfig
from cvcheck.errors import ConfigError
from cvcheck.judge import client as client_module
from cvcheck.judge.cache import JudgeCache, request_key
from cvcheck.judge.client import JudgeClient, JudgeRequest
from cvcheck.judge.content import image_hashes, image_part, user_message

from .openai_server import run_bounded


def _req(text="Is it solved?", **params):
    return JudgeRequest(messages=[user_message(text)], params={"temperature": 0.0, **params})


def test_success_returns_text_and_reported_model(server, make_client):
    server.default = ("reply", "yes, it is")
    server.reported_model = "judge-x-2026-01-01"
    client = make_client()
    reply = client.complete(_req())
    assert reply.ok and reply.text == "yes, it is" and reply.source == "http"
    assert reply.model == "judge-x-2026-01-01"
    sent = server.requests[0]
    assert sent["path"] == "/v1/chat/completions"
    assert sent["payload"]["model"] == "judge-x" and sent["payload"]["temperature"] == 0.0
    assert sent["authorization"] == "Bearer sk-test-SECRET"


def test_timeout_gives_error_reply(server, make_client):
    server.default = ("sleep", 600, "late")  # far beyond the client's deadline, whatever the load
    client = make_client(max_retries=1, timeout_s=0.5)
    reply = run_bounded(client.complete, _req())
    assert not reply.ok and reply.error_code == "timeout" and reply.attempts == 2
    assert client.http_requests == 2 and len(server.requests) == 2


def test_trickling_body_cannot_hang_the_client(server, make_client):
    server.default = ("trickle", 0.5, "x" * 100)  # ~60 s of body at a byte per 0.5 s
    reply = run_bounded(make_client(max_retries=0, timeout_s=2.0).complete, _req())
    assert not reply.ok and reply.error_code == "timeout" and len(server.requests) == 1
    assert server.wait_idle()
    assert server.requests[0]["bytes_sent"] < 40  # stopped long before the body's 120 bytes


def test_429_then_success_honours_retry_after(server, make_client, monkeypatch):
    waits: list[float] = []
    monkeypatch.setattr(client_module, "_sleep", waits.append)  # see the backoff without waiting it
    server.script.extend([("status", 429, "7"), ("status", 429, None)])
    server.default = ("reply", "no")
    client = make_client(max_retries=3, backoff_s=0.25, max_backoff_s=30.0)
    reply = client.complete(_req())
    assert reply.ok and reply.text == "no" and reply.attempts == 3
    assert waits == [7.0, 0.5]  # Retry-After, then backoff_s * 2 for the second retry
    assert len(server.requests) == 3


def test_backoff_is_capped_and_never_overflows():
    from cvcheck.judge.client import _backoff

    assert _backoff(1, None, 1.0, 30.0) == 1.0 and _backoff(3, None, 1.0, 30.0) == 4.0
    assert _backoff(5000, None, 1.0, 30.0) == 30.0 and _backoff(1, 99.0, 1.0, 30.0) == 30.0


def test_500s_until_give_up(server, make_client):
    server.default = ("status", 500, None)
    client = make_client(max_retries=2)
    reply = client.complete(_req())
    assert not reply.ok and reply.error_code == "http_500" and "gave up after 3" in reply.error
    assert len(server.requests) == 3


def test_400_is_not_retried(server, make_client):
    server.default = ("status", 400, None)
    reply = make_client(max_retries=3).complete(_req())
    assert reply.error_code == "http_400" and len(server.requests) == 1


@pytest.mark.parametrize("body", [b"<html>proxy error</html>", b'{"choices": []}', b'{"nope": 1}'])
def test_malformed_completion_is_an_error_reply(server, make_client, body):
    server.default = ("raw", body)
    reply = make_client().complete(_req())
    assert not reply.ok and reply.error_code == "bad_response"


def test_connection_refused_is_an_error_reply():
    with socket.socket() as taken:  # bound but not listening: connections to it are refused
        taken.bind(("127.0.0.1", 0))
        client = JudgeClient(model="m", base_url=f"http://127.0.0.1:{taken.getsockname()[1]}/v1",
                             timeout_s=30.0, max_retries=1, backoff_s=0.0)
        reply = run_bounded(client.complete, _req())
    assert not reply.ok and reply.error_code == "connection_error"
    assert client.http_requests == 2  # connection errors are retried


def test_images_are_sent_as_data_urls_and_keyed_by_hash(server, make_client):
    img = np.zeros((4, 5, 3), np.uint8)
    img[1, 2] = (255, 0, 0)
    msg = user_message("Compare", image_part(img))
    client = make_client()
    reply = client.complete(JudgeRequest(messages=[msg]))
    assert reply.ok
    part = server.requests[0]["payload"]["messages"][0]["content"][1]
    assert part["type"] == "image_url" and part["image_url"]["url"].startswith("data:image/png;base64,")
    key, fp = request_key("judge-x", [msg], {})
    assert key == reply.key and "base64" not in json.dumps(fp)
    assert image_hashes([msg])[0].startswith("sha256:")
    other = img.copy()
    other[0, 0] = 1
    assert request_key("judge-x", [user_message("Compare", image_part(other))], {})[0] != key


def test_second_run_hits_cache_with_zero_http_requests(server, make_client, tmp_path):
    server.default = lambda payload: "score " + str(len(payload["messages"][0]["content"][0]["text"]))
    path = tmp_path / "cache.sqlite"
    reqs = [_req(f"question {i}" * (i + 1)) for i in range(5)]
    first = make_client(cache=JudgeCache(path)).complete_many(reqs)
    assert len(server.requests) == 5 and all(r.source == "http" for r in first)
    client2 = make_client(cache=JudgeCache(path))  # a new process would reopen the file
    second = client2.complete_many(reqs)
    assert len(server.requests) == 5 and client2.http_requests == 0
    assert [r.text for r in second] == [r.text for r in first] and all(r.source == "cache" for r in second)
    assert "sk-test-SECRET" not in path.read_bytes().decode("latin-1")


def test_failures_are_not_cached(server, make_client):
    server.script.append(("status", 400, None))
    client = make_client()
    assert not client.complete(_req()).ok
    assert client.complete(_req()).ok and len(server.requests) == 2


def test_tag_and_params_change_the_key():
    base = request_key("m", [user_message("q")], {"temperature": 0})[0]
    assert request_key("m", [user_message("q")], {"temperature": 0}, tag="run=1")[0] != base
    assert request_key("m", [user_message("q")], {"temperature": 0.5})[0] != base
    assert request_key("m2", [user_message("q")], {"temperature": 0})[0] != base


@pytest.mark.parametrize("limit", [1, 2, 3])
def test_concurrency_limit_is_respected(server, make_client, limit):
    # Each request is held until `limit` were in flight at once (an event, not a sleep), and
    # more threads call than the limit allows: overlap can only come from the client's limit,
    # so the peak must be exactly the limit.
    server.default = ("gate", limit, "ok")
    client = make_client(concurrency=limit, timeout_s=120.0)  # longer than the server's 60 s gate
    with ThreadPoolExecutor(max_workers=limit + 3) as pool:
        futures = [pool.submit(client.complete, _req(f"q{i}")) for i in range(2 * limit + 3)]
        replies = [f.result(timeout=120) for f in futures]
    assert all(r.ok for r in replies) and len(server.requests) == 2 * limit + 3
    assert server.max_in_flight == limit


def test_complete_many_keeps_to_the_limit(server, make_client):
    server.default = ("gate", 2, "ok")
    replies = run_bounded(make_client(concurrency=2, timeout_s=120.0).complete_many, [_req(f"q{i}") for i in range(7)])
    assert [r.text for r in replies] == ["ok"] * 7 and server.max_in_flight == 2


def test_replay_from_recorded_file_without_server(server, make_client, tmp_path):
    server.default = ("reply", "recorded answer")
    cache = JudgeCache(":memory:")
    live = make_client(cache=cache)
    live.complete(_req())
    rec = tmp_path / "recorded.json"
    assert cache.export_json(rec) == 1
    assert "sk-test-SECRET" not in rec.read_text()
    replay_cache = JudgeCache(":memory:")
    replay_cache.import_json(rec)
    offline = JudgeClient(model="judge-x", cache=replay_cache, offline=True)
    assert offline.complete(_req()).text == "recorded answer"
    miss = offline.complete(_req("another question"))
    assert not miss.ok and miss.error_code == "replay_miss" and offline.http_requests == 0


def test_import_record_without_key_computes_it(tmp_path):
    rec = tmp_path / "r.json"
    rec.write_text(json.dumps([{"model": "m", "reply": "0.7",
                                "request": {"model": "m", "messages": [user_message("q")], "params": {}}}]))
    cache = JudgeCache(":memory:")
    cache.import_json(rec)
    assert JudgeClient(model="m", cache=cache, offline=True).complete(JudgeRequest([user_message("q")])).text == "0.7"


def test_key_never_in_repr_and_config_from_env():
    env = {"CVCHECK_JUDGE_BASE_URL": "http://h/v1", "CVCHECK_JUDGE_MODEL": "gm", "OPENAI_API_KEY": "sk-env"}
    client = JudgeClient.from_config(JudgeConfig(), env=env)
    assert client.model == "gm" and client.base_url == "http://h/v1"
    assert "sk-env" not in repr(client) and "sk-env" not in repr(vars(client).get("model"))
    with pytest.raises(ConfigError):
        JudgeClient.from_config(JudgeConfig(), env={})


def test_retry_after_header_forms():
    import email.utils

    from cvcheck.judge.client import _retry_after

    assert _retry_after("3") == 3.0 and _retry_after("-1") == 0.0 and _retry_after(None) is None
    assert _retry_after("soon") is None
    future = email.utils.formatdate(time.time() + 3600, usegmt=True)
    assert 3000 <= _retry_after(future) <= 3601  # minutes of slack: no timing assumption
    assert _retry_after("inf") is None and _retry_after("nan") is None


def test_unserialisable_request_is_error_reply(make_client):
    reply = make_client().complete(JudgeRequest(messages=[{"role": "user", "content": object()}]))
    assert not reply.ok and reply.error_code == "bad_request"


def _put_many(path: str, start: int) -> None:
    cache = JudgeCache(path)
    for i in range(start, start + 40):
        cache.put(f"k{i}", model="m", reply=str(i), request={})


def test_cache_shared_by_processes(tmp_path):
    import multiprocessing as mp

    path = str(tmp_path / "shared.sqlite")
    JudgeCache(path)
    ctx = mp.get_context("spawn")
    procs = [ctx.Process(target=_put_many, args=(path, s)) for s in (0, 20)]  # overlapping keys
    for p in procs:
        p.start()
    for p in procs:
        p.join(300)  # a guard against a hang, generous for a loaded machine
    assert [p.exitcode for p in procs] == [0, 0]
    cache = JudgeCache(path)
    assert len(cache) == 60 and cache.get("k25") == ("m", "25")


def test_broken_cache_costs_the_cache_not_the_judgement(server, make_client):
    cache = JudgeCache(":memory:")
    cache.close()  # every cache call now fails
    client = make_client(cache=cache)
    reply = client.complete(_req())
    assert reply.ok and client.cache_errors
