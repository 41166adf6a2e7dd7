"""An OpenAI-compatible chat-completions judge client (standard library only).

* ``POST {base_url}/chat/completions`` with ``Authorization: Bearer <key>``; the key
  lives only in this object's memory (never in a repr, cache row, result or log).
* Timeouts on every request; retries with exponential backoff (honouring
  ``Retry-After``) on HTTP 429, 5xx, timeouts and connection errors; any other
  failure is returned as an error reply, never raised and never hung on.
* A concurrency limit shared by every thread using the client.
* A content-addressed :class:`~cvcheck.judge.cache.JudgeCache`: a cached request is
  answered with no HTTP at all; ``offline=True`` answers only from the cache
  (replay of recorded judgements).
"""

from __future__ import annotations

import email.utils
import http.client
import json
import os
import socket
import sqlite3
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ..config import JudgeConfig
from ..errors import ConfigError
from .cache import JudgeCache, request_key

ENV_BASE_URL = "CVCHECK_JUDGE_BASE_URL"
ENV_MODEL = "CVCHECK_JUDGE_MODEL"
ENV_KEYS = ("CVCHECK_JUDGE_API_KEY", "OPENAI_API_KEY")
_RETRY_STATUS = {408, 409, 425, 429}


@dataclass(frozen=True)
class JudgeRequest:
    """One chat request.

    ``params`` (``temperature``, ``max_tokens``, ...) are sent and keyed; ``tag`` is
    keyed but never sent (e.g. ``"run=3"`` so that five MM-Vet runs get five replies).
    """

    messages: Sequence[Mapping[str, Any]]
    params: Mapping[str, Any] = field(default_factory=dict)
    tag: str = ""


@dataclass(frozen=True)
class JudgeReply:
    """What the judge said (``text``), or why there is no answer (``error``).

    ``source`` is ``http``, ``cache`` or ``none``; ``model`` is the model the server
    reported (the requested one when it reported none).
    """

    text: str | None
    model: str
    key: str
    source: str
    attempts: int = 0
    error: str | None = None
    error_code: str | None = None

    @property
    def ok(self) -> bool:
        return self.text is not None

    def record(self) -> dict[str, Any]:
        """The per-result record: raw reply, judge model, cache key, provenance."""
        out = {"judge_model": self.model, "raw_reply": self.text, "key": self.key, "source": self.source}
        if self.error:
            out["error"] = self.error
        return out


class JudgeClient:
    """Send chat requests to an OpenAI-compatible server, with cache, retries and a limit.

    Parameters
    ----------
    model : str
        Model name sent to the server and part of every cache key.
    base_url : str, optional
        E.g. ``http://127.0.0.1:8000/v1`` (``/chat/completions`` is appended).
    api_key : str, optional
        Sent as a bearer token; kept in memory only.
    cache : JudgeCache, optional
        Replies are looked up here first and stored here after success.
    offline : bool
        Never touch the network: a cache miss is an error reply (``replay_miss``).
    """

    def __init__(self, *, model: str, base_url: str | None = None, api_key: str | None = None,
                 timeout_s: float = 60.0, max_retries: int = 4, concurrency: int = 4,
                 backoff_s: float = 1.0, max_backoff_s: float = 30.0,
                 cache: JudgeCache | None = None, offline: bool = False) -> None:
        if not offline and not base_url:
            raise ConfigError(f"no judge base URL: set {ENV_BASE_URL} or pass --base-url (or replay recorded judgements)")
        if not model:
            raise ConfigError(f"no judge model: set {ENV_MODEL} or pass --model")
        if timeout_s <= 0 or max_retries < 0 or concurrency < 1 or backoff_s < 0:
            raise ConfigError("judge timeout must be > 0, retries >= 0, concurrency >= 1, backoff >= 0")
        self.model = model
        self.base_url = (base_url or "").rstrip("/")
        self.timeout_s = float(timeout_s)
        self.max_retries = int(max_retries)
        self.concurrency = int(concurrency)
        self.backoff_s = float(backoff_s)
        self.max_backoff_s = float(max_backoff_s)
        self.cache = cache
        self.offline = offline
        self.__api_key = api_key or ""
        self._slots = threading.BoundedSemaphore(self.concurrency)
        self._count_lock = threading.Lock()
        self.http_requests = 0  #: HTTP requests actually sent (retries included)
        self.used_keys: set[str] = set()  #: keys of every judgement answered (for --record)
        self.cache_errors: list[str] = []  #: cache failures (the judgements still came back)

    def __repr__(self) -> str:  # the key is deliberately absent
        return f"JudgeClient(model={self.model!r}, base_url={self.base_url!r}, offline={self.offline})"

    @classmethod
    def from_config(cls, config: JudgeConfig, *, model: str | None = None, base_url: str | None = None,
                    api_key: str | None = None, cache: JudgeCache | None = None,
                    offline: bool = False, env: Mapping[str, str] | None = None) -> "JudgeClient":
        """Build a client from explicit values, then the environment, then ``config``."""
        env = os.environ if env is None else env
        key = api_key or next((env[k] for k in ENV_KEYS if env.get(k)), None)
        return cls(model=model or env.get(ENV_MODEL) or config.model,
                   base_url=base_url or env.get(ENV_BASE_URL) or config.base_url or None,
                   api_key=key, timeout_s=config.timeout_s, max_retries=config.max_retries,
                   concurrency=config.concurrency, backoff_s=config.backoff_s,
                   max_backoff_s=config.max_backoff_s, cache=cache, offline=offline)

    # -- public API -------------------------------------------------------------------
    def key(self, request: JudgeRequest) -> str:
        return request_key(self.model, request.messages, request.params, request.tag)[0]

    def complete(self, request: JudgeRequest) -> JudgeReply:
        """Answer one request: cache first, then HTTP (unless offline). Never raises on I/O."""
        try:
            key, fingerprint = request_key(self.model, request.messages, request.params, request.tag)
        except (TypeError, ValueError, AttributeError) as exc:
            return JudgeReply(None, self.model, "", "none", error=f"request is not JSON-serialisable: {exc}",
                              error_code="bad_request")
        if self.cache is not None:
            hit = self._cache_call(self.cache.get, key)
            if hit is not None:
                with self._count_lock:
                    self.used_keys.add(key)
                return JudgeReply(text=hit[1], model=hit[0], key=key, source="cache")
        if self.offline:
            return JudgeReply(text=None, model=self.model, key=key, source="none", error_code="replay_miss",
                              error="judgement not in the recorded judgements / cache (offline replay)")
        with self._slots:
            reply = self._post_with_retries(request, key)
        if reply.ok and self.cache is not None:
            self._cache_call(self.cache.put, key, model=reply.model, reply=reply.text or "", request=fingerprint)
            stored = self._cache_call(self.cache.get, key)  # a concurrent twin may have stored first: agree
            if stored is not None and (stored[0], stored[1]) != (reply.model, reply.text):
                reply = JudgeReply(stored[1], stored[0], key, "cache", reply.attempts)
            with self._count_lock:
                self.used_keys.add(key)
        return reply

    def complete_many(self, requests: Sequence[JudgeRequest]) -> list[JudgeReply]:
        """Answer many requests concurrently (at most ``concurrency`` in flight), in order."""
        if len(requests) <= 1:
            return [self.complete(r) for r in requests]
        with ThreadPoolExecutor(max_workers=self.concurrency) as pool:
            return list(pool.map(self.complete, requests))

    def _cache_call(self, fn: Any, *args: Any, **kwargs: Any) -> Any:
        """A cache failure (disk full, file locked too long) costs the cache, not the judgement."""
        try:
            return fn(*args, **kwargs)
        except sqlite3.Error as exc:
            with self._count_lock:
                self.cache_errors.append(f"{type(exc).__name__}: {exc}")
            return None

    # -- HTTP -------------------------------------------------------------------------
    def _post_with_retries(self, request: JudgeRequest, key: str) -> JudgeReply:
        payload = {"model": self.model, "messages": list(request.messages), **dict(request.params)}
        body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        last_error, last_code = "no attempt made", "judge_error"
        for attempt in range(1, self.max_retries + 2):
            retry_after: float | None = None
            try:
                status, headers, data = self._post(body)
            except (TimeoutError, socket.timeout) as exc:
                last_error, last_code = f"timed out after {self.timeout_s:g} s ({exc})", "timeout"
            except (urllib.error.URLError, ConnectionError, http.client.HTTPException, OSError) as exc:
                reason = getattr(exc, "reason", exc)
                if isinstance(reason, (TimeoutError, socket.timeout)):
                    last_error, last_code = f"timed out after {self.timeout_s:g} s", "timeout"
                else:
                    last_error, last_code = f"connection failed: {reason}", "connection_error"
            else:
                if status == 200:
                    return self._parse_body(data, key, attempt)
                snippet = data[:200].decode("utf-8", "replace")
                last_error, last_code = f"HTTP {status}: {snippet}", f"http_{status}"
                if not (status in _RETRY_STATUS or 500 <= status < 600):
                    return JudgeReply(None, self.model, key, "http", attempt, last_error, last_code)
                retry_after = _retry_after(headers.get("Retry-After"))
            if attempt <= self.max_retries:
                delay = self.backoff_s * (2 ** (attempt - 1)) if retry_after is None else retry_after
                time.sleep(min(max(delay, 0.0), self.max_backoff_s))
        return JudgeReply(None, self.model, key, "http", self.max_retries + 1,
                          f"gave up after {self.max_retries + 1} attempts: {last_error}", last_code)

    def _post(self, body: bytes) -> tuple[int, Mapping[str, str], bytes]:
        url = self.base_url if self.base_url.endswith("/chat/completions") else self.base_url + "/chat/completions"
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.__api_key:
            headers["Authorization"] = "Bearer " + self.__api_key
        req = urllib.request.Request(url, data=body, headers=headers, method="POST")
        with self._count_lock:
            self.http_requests += 1
        deadline = time.monotonic() + self.timeout_s
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
                return resp.status, resp.headers, _read_until(resp, deadline)
        except urllib.error.HTTPError as exc:
            try:
                data = exc.read()
            except (OSError, http.client.HTTPException):
                data = b""
            return exc.code, exc.headers or {}, data

    def _parse_body(self, data: bytes, key: str, attempt: int) -> JudgeReply:
        try:
            doc = json.loads(data)
            message = doc["choices"][0]["message"]
            content = message.get("content")
            if isinstance(content, list):  # some servers return content parts
                content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
            if content is None:
                content = ""
            if not isinstance(content, str):
                raise TypeError(f"content is {type(content).__name__}")
            model = doc.get("model") or self.model
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
            return JudgeReply(None, self.model, key, "http", attempt,
                              f"malformed chat completion from the server ({type(exc).__name__}: {exc})",
                              "bad_response")
        return JudgeReply(content, str(model), key, "http", attempt)


MAX_RESPONSE_BYTES = 32 * 1024 * 1024


def _read_until(resp: Any, deadline: float) -> bytes:
    """Read a body in chunks, giving up at ``deadline`` (a trickling server cannot hang us)."""
    chunks, size = [], 0
    while True:
        if time.monotonic() > deadline:
            raise TimeoutError("response body not complete before the deadline")
        chunk = resp.read1(65536) if hasattr(resp, "read1") else resp.read(65536)
        if not chunk:
            return b"".join(chunks)
        size += len(chunk)
        if size > MAX_RESPONSE_BYTES:
            raise http.client.HTTPException(f"response larger than {MAX_RESPONSE_BYTES} bytes")
        chunks.append(chunk)


def _retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or HTTP date), or None."""
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())
