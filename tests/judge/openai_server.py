"""A small real OpenAI-compatible HTTP server for the judge tests (127.0.0.1, ephemeral port).

Each POST to ``/v1/chat/completions`` pops the next scripted behaviour; when the script
is empty the default behaviour answers. Behaviours:

* ``("reply", text)`` -> 200 with a chat completion whose content is ``text``
* ``("status", code, retry_after_or_None)`` -> that HTTP status
* ``("sleep", seconds, text)`` -> wait, then reply (to trigger client timeouts)
* ``("trickle", seconds_per_byte, text)`` -> 200, body sent a byte at a time
* ``("raw", bytes)`` -> 200 with a raw (e.g. non-JSON) body
* a callable ``f(payload) -> text`` -> reply with its result

Every request body is kept in ``server.requests``; ``server.max_in_flight`` records the
largest number of requests handled at once.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _Handler(BaseHTTPRequestHandler):
    server: "OpenAIServer"

    def log_message(self, *args: Any) -> None:  # keep test output clean
        pass

    def do_POST(self) -> None:  # noqa: N802
        srv = self.server
        length = int(self.headers.get("Content-Length", 0))
        payload = json.loads(self.rfile.read(length) or b"{}")
        with srv.lock:
            srv.requests.append({"path": self.path, "payload": payload,
                                 "authorization": self.headers.get("Authorization")})
            srv.in_flight += 1
            srv.max_in_flight = max(srv.max_in_flight, srv.in_flight)
            behaviour = srv.script.popleft() if srv.script else srv.default
        try:
            self._respond(behaviour, payload)
        finally:
            with srv.lock:
                srv.in_flight -= 1

    def _respond(self, behaviour: Any, payload: dict) -> None:
        if callable(behaviour):
            behaviour = ("reply", behaviour(payload))
        kind = behaviour[0]
        if kind == "sleep":
            time.sleep(behaviour[1])
            behaviour = ("reply", behaviour[2])
            kind = "reply"
        if kind == "reply":
            body = json.dumps({"id": "x", "object": "chat.completion", "model": self.server.reported_model
                               or payload.get("model"), "choices": [{"index": 0, "finish_reason": "stop",
                               "message": {"role": "assistant", "content": behaviour[1]}}]}).encode()
            self._send(200, body)
        elif kind == "trickle":  # headers at once, then the body a byte at a time
            body = json.dumps({"choices": [{"message": {"content": behaviour[2]}}]}).encode()
            try:
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                for b in body:
                    self.wfile.write(bytes([b]))
                    self.wfile.flush()
                    time.sleep(behaviour[1])
            except (BrokenPipeError, ConnectionResetError):
                pass
        elif kind == "raw":
            self._send(200, behaviour[1])
        elif kind == "status":
            extra = {"Retry-After": str(behaviour[2])} if behaviour[2] is not None else {}
            self._send(behaviour[1], b'{"error": {"message": "scripted"}}', extra)
        else:  # pragma: no cover
            raise ValueError(kind)

    def _send(self, code: int, body: bytes, extra: dict | None = None) -> None:
        try:
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for k, v in (extra or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (timeout test)
            pass


class OpenAIServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.lock = threading.Lock()
        self.script: deque = deque()
        self.default: Any = ("reply", "yes")
        self.requests: list[dict] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self.reported_model: str | None = None
        self._thread = threading.Thread(target=self.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"

    def start(self) -> "OpenAIServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
