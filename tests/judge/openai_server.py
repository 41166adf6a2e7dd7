"""A small real OpenAI-compatible HTTP server for the judge tests (127.0.0.1, ephemeral port).

Each request (any method, any path) pops the next scripted behaviour; when the script is
empty the default behaviour answers. Behaviours:

* ``("reply", text)`` -> 200 with a chat completion whose content is ``text``
* ``("status", code, retry_after_or_None)`` -> that HTTP status
* ``("sleep", seconds, text)`` -> wait, then reply (to trigger client timeouts)
* ``("gate", n, text)`` -> hold the request until ``n`` requests have been in flight at
  once (or 60 s passed), then reply: overlap comes only from the client's limit
* ``("trickle", seconds_per_byte, text)`` -> 200, headers at once, body a byte at a time
* ``("trickle_headers", seconds_per_byte, n_bytes)`` -> status line, then header bytes
  one at a time (an endless ``X-Pad`` header)
* ``("trickle_error", code, seconds_per_byte, n_bytes)`` -> that status, body a byte at a time
* ``("huge", code, n_bytes, declared)`` -> that status and ``n_bytes`` of body sent as fast
  as the client reads (``Content-Length`` only when ``declared``)
* ``("short", declared, body)`` -> 200 with ``Content-Length: declared`` but only ``body``
* ``("redirect", code, location)`` -> that 3xx status with a ``Location``
* ``("echo", code)`` -> the request's ``Authorization`` value echoed in the reason phrase,
  a header, the body (error) or the content and model (200)
* ``("raw", bytes)`` -> 200 with a raw (e.g. non-JSON) body
* ``("raw_response", bytes)`` -> ``bytes`` written as the whole response (status line included)
* a callable ``f(payload) -> text`` -> reply with its result

Every request is kept in ``server.requests`` (path, method, payload, authorization and
``bytes_sent``: body bytes, or trickled header bytes, written so far). ``server.in_flight`` counts a request from
the moment its body has been read until just before the last byte of its response is written: the
client cannot have finished reading it, so the count never exceeds what the client has
open, and ``server.max_in_flight`` is its peak.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable

_GATE_TIMEOUT_S = 60.0


class _Handler(BaseHTTPRequestHandler):
    server: "OpenAIServer"

    def log_message(self, *args: Any) -> None:  # keep test output clean
        pass

    def do_POST(self) -> None:  # noqa: N802
        self._handle()

    do_GET = do_PUT = do_HEAD = do_DELETE = do_POST  # noqa: N815 (a redirect may turn POST into GET)

    def _handle(self) -> None:
        srv = self.server
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            payload = json.loads(raw or b"{}")
        except ValueError:
            payload = None
        self._record = {"path": self.path, "method": self.command, "payload": payload,
                        "authorization": self.headers.get("Authorization"), "bytes_sent": 0}
        self._counted = True
        with srv.cond:
            srv.requests.append(self._record)
            srv.in_flight += 1
            srv.active += 1
            srv.max_in_flight = max(srv.max_in_flight, srv.in_flight)
            srv.cond.notify_all()
            behaviour = srv.script.popleft() if srv.script else srv.default
        try:
            self._respond(behaviour, payload)
        except OSError:  # the client hung up (timeout/cap tests): broken pipe, reset, TLS EOF
            pass
        finally:
            self._leave()
            with srv.cond:
                srv.active -= 1
                srv.cond.notify_all()

    def _leave(self) -> None:
        """The request no longer counts as in flight (once)."""
        if self._counted:
            self._counted = False
            with self.server.cond:
                self.server.in_flight -= 1
                self.server.cond.notify_all()

    def _write(self, data: bytes) -> None:
        self.wfile.write(data)
        self._record["bytes_sent"] += len(data)

    def _trickle(self, data: bytes, seconds_per_byte: float) -> None:
        for i in range(len(data)):
            if self.server.stopping.wait(seconds_per_byte):
                return
            self._write(data[i:i + 1])

    def _respond(self, behaviour: Any, payload: Any) -> None:
        srv = self.server
        if callable(behaviour):
            behaviour = ("reply", behaviour(payload))
        kind = behaviour[0]
        if kind == "sleep":
            if srv.stopping.wait(behaviour[1]):
                return
            behaviour, kind = ("reply", behaviour[2]), "reply"
        if kind == "gate":
            with srv.cond:
                srv.cond.wait_for(lambda: srv.max_in_flight >= behaviour[1] or srv.stopping.is_set(),
                                  timeout=_GATE_TIMEOUT_S)
            behaviour, kind = ("reply", behaviour[2]), "reply"
        if kind == "reply":
            self._send(200, self._completion(behaviour[1], srv.reported_model or (payload or {}).get("model")))
        elif kind == "trickle":
            body = json.dumps({"choices": [{"message": {"content": behaviour[2]}}]}).encode()
            self._head(200, {"Content-Length": str(len(body))})
            self._trickle(body, behaviour[1])
        elif kind == "trickle_headers":
            self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Pad: ")  # not counted: only the trickle is
            self._trickle(b"a" * behaviour[2], behaviour[1])
        elif kind == "trickle_error":
            self._head(behaviour[1], {"Content-Length": str(behaviour[3])})
            self._trickle(b"e" * behaviour[3], behaviour[2])
        elif kind == "huge":
            code, n, declared = behaviour[1:]
            self._head(code, {"Content-Length": str(n)} if declared else {})
            chunk = b"0" * 65536
            while self._record["bytes_sent"] < n and not srv.stopping.is_set():
                self._write(chunk)
        elif kind == "short":
            self._head(200, {"Content-Length": str(behaviour[1])})
            self._write(behaviour[2])
        elif kind == "redirect":
            self._send(behaviour[1], b"moved", {"Location": behaviour[2]})
        elif kind == "echo":
            self._echo(behaviour[1], payload)
        elif kind == "raw":
            self._send(200, behaviour[1])
        elif kind == "raw_response":
            self._leave()
            self._write(behaviour[1])
        elif kind == "status":
            extra = {"Retry-After": str(behaviour[2])} if behaviour[2] is not None else {}
            self._send(behaviour[1], b'{"error": {"message": "scripted"}}', extra)
        else:  # pragma: no cover
            raise ValueError(kind)

    def _echo(self, code: int, payload: Any) -> None:
        auth = self._record["authorization"] or ""
        key = auth.split()[-1] if auth else ""
        if code == 200:
            text = f"0.5 I was sent {auth!r}; your key is {key}"
            self._send(200, self._completion(text, key), {"X-Echo": auth}, reason=f"OK {key}")
        else:
            body = json.dumps({"error": {"message": f"Incorrect API key provided: {key}",
                                         "request_headers": {"Authorization": auth}}}).encode()
            self._send(code, body, {"X-Echo": auth}, reason=f"Bad key {key}")

    @staticmethod
    def _completion(text: str, model: Any) -> bytes:
        return json.dumps({"id": "x", "object": "chat.completion", "model": model, "choices": [
            {"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}]}).encode()

    def _head(self, code: int, headers: dict[str, str], reason: str | None = None) -> None:
        self.send_response(code, reason)
        self.send_header("Content-Type", "application/json")
        for k, v in headers.items():
            self.send_header(k, v)
        self.end_headers()

    def _send(self, code: int, body: bytes, extra: dict | None = None, reason: str | None = None) -> None:
        """Headers and all but the last byte; leave the in-flight count; then the last byte."""
        self._head(code, {"Content-Length": str(len(body)), **(extra or {})}, reason)
        self._write(body[:-1])
        self._leave()
        self._write(body[-1:])


class OpenAIServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.cond = threading.Condition()
        self.stopping = threading.Event()
        self.script: deque = deque()
        self.default: Any = ("reply", "yes")
        self.requests: list[dict] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.active = 0  #: handlers still running (they may outlive the client's interest)
        self.reported_model: str | None = None
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def start(self) -> "OpenAIServer":
        self._thread.start()
        return self

    def wait_idle(self, timeout: float = 60.0) -> bool:
        """Wait until every handler has returned (e.g. noticed that the client hung up)."""
        with self.cond:
            return self.cond.wait_for(lambda: self.active == 0, timeout=timeout)

    def stop(self) -> None:
        self.stopping.set()
        with self.cond:
            self.cond.notify_all()
        self.shutdown()
        self.server_close()


def run_bounded(fn: Callable[..., Any], *args: Any, limit_s: float = 120.0, **kwargs: Any) -> Any:
    """``fn(*args, **kwargs)`` in a daemon thread: its result, or a test failure (not a hang)
    when it has not returned after ``limit_s`` seconds. Only a guard: never a timing assert."""
    box: dict[str, Any] = {}

    def target() -> None:
        try:
            box["value"] = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - re-raised in the test's thread
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(limit_s)
    if thread.is_alive():
        raise AssertionError(f"{getattr(fn, '__name__', fn)} still running after {limit_s:g} s (a hang)")
    if "error" in box:
        raise box["error"]
    return box["value"]
