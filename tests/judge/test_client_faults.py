"""Hostile and broken judge servers: deadlines, body caps, redirects, echoed keys.

No wall-clock asserts: a deadline is proven by the error code and by how many bytes the
(real, 127.0.0.1) server managed to send before the client hung up; ``run_bounded`` only
turns a hang into a failure.
"""

from __future__ import annotations

import pytest

from cvcheck.judge.cache import JudgeCache
from cvcheck.judge.client import MAX_ERROR_BODY_BYTES, JudgeRequest
from cvcheck.judge.content import user_message

from .openai_server import OpenAIServer, run_bounded

KEY = "sk-test-SECRET"
DEADLINE_S = 4.0      # long enough for a loaded machine to get the headers of a prompt reply
TRICKLE_S = 0.5       # seconds per byte the server waits
TRICKLE_BYTES = 120   # 60 s of trickle: far beyond the deadline
LATE_BYTES = 40       # 20 s of trickle: what a client honouring a 4 s deadline never lets through


def _req(text: str = "Is it solved?") -> JudgeRequest:
    return JudgeRequest(messages=[user_message(text)], params={"temperature": 0.0})


@pytest.fixture()
def other_server():
    """A second origin (another port) that records whatever reaches it."""
    srv = OpenAIServer().start()
    yield srv
    srv.stop()


# -- one deadline per attempt ------------------------------------------------------------

@pytest.mark.parametrize("behaviour, code", [
    (("trickle_headers", TRICKLE_S, TRICKLE_BYTES), "timeout"),
    (("trickle", TRICKLE_S, "x" * TRICKLE_BYTES), "timeout"),
    (("trickle_error", 500, TRICKLE_S, TRICKLE_BYTES), "http_500"),
    (("trickle_error", 503, TRICKLE_S, TRICKLE_BYTES), "http_503"),
])
def test_trickled_reply_ends_at_the_deadline_of_each_attempt(server, make_client, behaviour, code):
    server.default = behaviour
    client = make_client(timeout_s=DEADLINE_S, max_retries=1, backoff_s=0.0)
    reply = run_bounded(client.complete, _req())
    assert not reply.ok and reply.error_code == code and reply.attempts == 2
    assert len(server.requests) == 2 and client.http_requests == 2
    assert server.wait_idle()
    assert all(r["bytes_sent"] < LATE_BYTES for r in server.requests), [r["bytes_sent"] for r in server.requests]
    if code.startswith("http_"):
        assert "deadline" in reply.error  # the status decides the retry; the note says why the body is short


def test_trickled_error_body_of_a_client_error_is_not_retried(server, make_client):
    server.default = ("trickle_error", 400, TRICKLE_S, TRICKLE_BYTES)
    reply = run_bounded(make_client(timeout_s=DEADLINE_S, max_retries=3).complete, _req())
    assert reply.error_code == "http_400" and len(server.requests) == 1


# -- bodies are capped; a body cut short is retried -----------------------------------------

@pytest.mark.parametrize("declared", [True, False])
def test_huge_error_body_is_read_only_up_to_the_cap(server, make_client, declared):
    server.default = ("huge", 500, 1536 * 1024 * 1024, declared)  # 1.5 GiB, sent as fast as read
    client = make_client(max_retries=1, backoff_s=0.0)
    reply = run_bounded(client.complete, _req())
    assert reply.error_code == "http_500" and len(server.requests) == 2
    assert f"cut at {MAX_ERROR_BODY_BYTES} bytes" in reply.error and len(reply.error) < 400
    assert server.wait_idle()
    # the client hung up after the cap: the server got rid of socket buffers' worth, not 1.5 GiB
    assert all(r["bytes_sent"] < 64 * 1024 * 1024 for r in server.requests)


@pytest.mark.parametrize("declared", [True, False])
def test_success_body_over_the_cap_is_refused_and_not_retried(server, make_client, declared):
    server.default = ("huge", 200, 1536 * 1024 * 1024, declared)
    client = make_client(max_retries=2)
    client.max_response_bytes = 1024 * 1024
    reply = run_bounded(client.complete, _req())
    assert reply.error_code == "response_too_large" and len(server.requests) == 1
    assert server.wait_idle()
    assert server.requests[0]["bytes_sent"] < 64 * 1024 * 1024


def test_body_cut_before_its_content_length_is_retried(server, make_client):
    server.script.append(("short", 500, b'{"choices": [{"message": {"content": "ye'))
    server.default = ("reply", "yes")
    reply = run_bounded(make_client(max_retries=2).complete, _req())
    assert reply.ok and reply.text == "yes" and reply.attempts == 2


def test_body_always_cut_gives_up(server, make_client):
    server.default = ("short", 500, b'{"choices": [')
    reply = run_bounded(make_client(max_retries=2).complete, _req())
    assert reply.error_code == "incomplete_response" and len(server.requests) == 3


@pytest.mark.parametrize("body", [b"[" * 200_000, b'{"choices": [{"message": {"content": ' + b"9" * 5000 + b"}}]}"])
def test_pathological_json_is_a_bad_response(server, make_client, body):
    server.default = ("raw", body)
    reply = run_bounded(make_client().complete, _req())
    assert reply.error_code == "bad_response"


@pytest.mark.parametrize("raw", [b"HTTP/1.1 abc sk-test-SECRET\r\n\r\n", b"garbage\r\n\r\n",
                                 b"HTTP/1.1 200 OK\r\n" + b"X: y\r\n" * 200 + b"\r\n"])
def test_broken_status_line_or_headers_are_connection_errors(server, make_client, raw):
    server.default = ("raw_response", raw)
    reply = run_bounded(make_client(max_retries=1).complete, _req())
    assert reply.error_code == "connection_error" and len(server.requests) == 2
    assert KEY not in reply.error


# -- the key goes to the configured origin only --------------------------------------------

@pytest.mark.parametrize("code", [301, 302, 303, 307, 308])
def test_redirects_are_not_followed(server, other_server, make_client, code):
    server.default = ("redirect", code, f"{other_server.base_url}/chat/completions?api_key={KEY}")
    client = make_client(max_retries=3)
    reply = run_bounded(client.complete, _req())
    assert not reply.ok and reply.error_code == "redirect" and len(server.requests) == 1  # not retried
    assert f"HTTP {code}" in reply.error and other_server.origin in reply.error
    assert other_server.requests == []  # nothing (let alone the key) reached the other origin
    assert KEY not in reply.error


def test_same_origin_redirect_is_not_followed_either(server, make_client):
    server.default = ("redirect", 307, "/v1/elsewhere")
    reply = run_bounded(make_client().complete, _req())
    assert reply.error_code == "redirect" and server.origin in reply.error
    assert [r["path"] for r in server.requests] == ["/v1/chat/completions"]


@pytest.mark.parametrize("code", [200, 400, 401, 429, 500])
def test_echoed_key_is_redacted_from_replies_and_cache(server, make_client, tmp_path, code):
    server.default = ("echo", code)
    cache = JudgeCache(tmp_path / "cache.sqlite")
    client = make_client(cache=cache, max_retries=1, backoff_s=0.0)
    reply = run_bounded(client.complete, _req())
    assert server.requests[0]["authorization"] == f"Bearer {KEY}"  # the server did get (and echo) it
    assert reply.ok == (code == 200)
    assert KEY not in repr(reply) and KEY not in repr(reply.record())
    rec = tmp_path / "rec.json"
    cache.export_json(rec)
    cache.close()
    for f in tmp_path.iterdir():  # the cache, its WAL files and the recorded judgements
        assert KEY.encode() not in f.read_bytes(), f
    if code == 200:
        assert "[REDACTED]" in reply.text and reply.text.startswith("0.5 ")


# -- the same over TLS ---------------------------------------------------------------------

@pytest.fixture()
def tls_server(tmp_path, monkeypatch):
    """The test server behind TLS, with a throw-away self-signed certificate the client trusts."""
    import shutil
    import ssl
    import subprocess

    from cvcheck.judge import transport

    if not shutil.which("openssl"):
        pytest.skip("needs the openssl command to make a certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
                    "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
                   check=True, capture_output=True, timeout=120)
    monkeypatch.setattr(transport, "_tls_context", lambda: ssl.create_default_context(cafile=str(cert)))
    srv = OpenAIServer()
    server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_ctx.load_cert_chain(str(cert), str(key))
    srv.socket = server_ctx.wrap_socket(srv.socket, server_side=True)
    srv.start()
    yield srv
    srv.stop()


def test_tls_reply_deadline_and_redirect(tls_server, other_server, make_client):
    url = tls_server.base_url.replace("http://", "https://")
    tls_server.script.extend([("reply", "over tls"), ("trickle_headers", TRICKLE_S, TRICKLE_BYTES),
                              ("redirect", 302, other_server.base_url)])
    client = make_client(base_url=url, timeout_s=DEADLINE_S, max_retries=0)
    assert run_bounded(client.complete, _req("a")).text == "over tls"
    assert run_bounded(client.complete, _req("b")).error_code == "timeout"
    assert run_bounded(client.complete, _req("c")).error_code == "redirect" and other_server.requests == []
    assert tls_server.wait_idle()
    assert tls_server.requests[1]["bytes_sent"] < LATE_BYTES
