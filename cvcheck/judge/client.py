"""An OpenAI-compatible chat-completions judge client (standard library only).

* ``POST {base_url}/chat/completions`` with ``Authorization: Bearer <key>``; the key
  lives only in this object's memory (never in a repr, cache row, result or log) and
  goes only to the configured address: redirects are never followed (a 3xx is a
  ``redirect`` error naming the target), and every text the server sent (reply,
  reported model, error body, exception message) passes through
  :func:`~cvcheck.judge.redact.redact` before it reaches a reply.
* One deadline per attempt (``timeout_s``: connect, headers, body, error body);
  bodies are capped; retries with exponential backoff (honouring ``Retry-After``) on
  HTTP 408/409/425/429, 5xx, timeouts, connection errors and bodies cut short; any
  other failure is returned as an error reply, never raised and never hung on.
* A concurrency limit shared by every thread using the client.
* A content-addressed :class:`~cvcheck.judge.cache.JudgeCache`: a cached request is
  answered with no HTTP at all; ``offline=True`` answers only from the cache
  (replay of recorded judgements).
"""

from __future__ import annotations

import email.utils
import http.client
import json
import math
import os
import socket
import sqlite3
import threading
import time
import urllib.parse
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ..config import JudgeConfig
from ..errors import ConfigError
from . import transport
from .cache import JudgeCache, request_key
from .redact import redact

ENV_BASE_URL = "CVCHECK_JUDGE_BASE_URL"
ENV_MODEL = "CVCHECK_JUDGE_MODEL"
ENV_KEYS = ("CVCHECK_JUDGE_API_KEY", "OPENAI_API_KEY")
_RETRY_STATUS = {408, 409, 425, 429}
MAX_RESPONSE_BYTES = 32 * 1024 * 1024  #: a longer success body is a ``response_too_large`` error
MAX_ERROR_BODY_BYTES = 64 * 1024       #: an error body is read up to this, the rest never
_sleep = time.sleep  # one indirection, so that tests can see the backoff without waiting for it


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
            raise ConfigError(f"no judge base URL: set {ENV_BASE_URL} or pass --base-url "
                              "(or replay recorded judgements)")
        if not model:
            raise ConfigError(f"no judge model: set {ENV_MODEL} or pass --model")
        JudgeConfig(timeout_s=timeout_s, max_retries=max_retries, concurrency=concurrency,  # validates
                    backoff_s=backoff_s, max_backoff_s=max_backoff_s)
        if not offline:
            _check_url(base_url or "")
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
        self.max_response_bytes = MAX_RESPONSE_BYTES  #: success bodies longer than this are refused
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
        except (TypeError, ValueError, AttributeError, RecursionError) as exc:
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
    def _reply(self, text: str | None, model: str, key: str, attempts: int, error: str | None = None,
               code: str | None = None) -> JudgeReply:
        """A reply built from what the server sent: every text in it redacted."""
        secrets = (self.__api_key,)
        return JudgeReply(None if text is None else redact(text, secrets), redact(model, secrets), key, "http",
                          attempts, None if error is None else redact(error, secrets), code)

    def _post_with_retries(self, request: JudgeRequest, key: str) -> JudgeReply:
        payload = {"model": self.model, "messages": list(request.messages), **dict(request.params)}
        body = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        last_error, last_code = "no attempt made", "judge_error"
        for attempt in range(1, self.max_retries + 2):
            retry_after: float | None = None
            try:
                resp = self._post(body)
            except transport.BodyTooLarge as exc:
                return self._reply(None, self.model, key, attempt, str(exc), "response_too_large")
            except http.client.IncompleteRead as exc:
                last_error, last_code = f"response cut off by the server ({exc!r})", "incomplete_response"
            except (OSError, http.client.HTTPException) as exc:  # URLError, timeouts, resets...
                reason = getattr(exc, "reason", exc)
                if isinstance(reason, socket.timeout):
                    last_error, last_code = f"no complete reply within {self.timeout_s:g} s", "timeout"
                else:
                    last_error, last_code = f"connection failed: {reason}", "connection_error"
            except ValueError as exc:  # a URL or header the HTTP library refuses
                return self._reply(None, self.model, key, attempt, f"request failed: {exc}", "judge_error")
            else:
                if resp.status == 200:
                    return self._parse_body(resp.body, key, attempt)
                if 300 <= resp.status < 400:
                    return self._reply(None, self.model, key, attempt, _redirect_error(resp, self._url()),
                                       "redirect")
                # redact the whole (capped) body before cutting it, so no half key survives the cut
                snippet = redact(resp.body.decode("utf-8", "replace"), (self.__api_key,))[:200]
                last_error = f"HTTP {resp.status}: {snippet}" + (f" [{resp.note}]" if resp.note else "")
                last_code = f"http_{resp.status}"
                if not (resp.status in _RETRY_STATUS or 500 <= resp.status < 600):
                    return self._reply(None, self.model, key, attempt, last_error, last_code)
                retry_after = _retry_after(resp.headers.get("Retry-After"))
            if attempt <= self.max_retries:
                _sleep(_backoff(attempt, retry_after, self.backoff_s, self.max_backoff_s))
        return self._reply(None, self.model, key, self.max_retries + 1,
                           f"gave up after {self.max_retries + 1} attempts: {last_error}", last_code)

    def _url(self) -> str:
        return self.base_url if self.base_url.endswith("/chat/completions") else self.base_url + "/chat/completions"

    def _post(self, body: bytes) -> transport.Response:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.__api_key:
            headers["Authorization"] = "Bearer " + self.__api_key
        with self._count_lock:
            self.http_requests += 1
        return transport.post(self._url(), body, headers, timeout_s=self.timeout_s,
                              max_body=self.max_response_bytes, max_error_body=MAX_ERROR_BODY_BYTES)

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
        except (ValueError, KeyError, IndexError, TypeError, AttributeError, RecursionError) as exc:
            return self._reply(None, self.model, key, attempt,
                               f"malformed chat completion from the server ({type(exc).__name__}: {exc})",
                               "bad_response")
        return self._reply(content, str(model), key, attempt)


def _check_url(url: str) -> None:
    """Refuse a base URL that is not ``http(s)://host...`` (``file:`` and the like included)."""
    try:
        parts = urllib.parse.urlsplit(url)
        ok = parts.scheme in ("http", "https") and bool(parts.hostname) and parts.port != 0
    except ValueError:  # a bad port or IPv6 literal
        ok = False
    if not ok:
        raise ConfigError(f"judge base URL must be http(s)://host[:port]/path, got {url!r}")


def _origin(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme}://{parts.hostname}{port}" if parts.hostname else "(no host)"


def _redirect_error(resp: transport.Response, url: str) -> str:
    location = resp.headers.get("Location")
    try:
        where = _origin(urllib.parse.urljoin(url, location)) if location else "(no Location header)"
    except ValueError:
        where = "(an unreadable Location)"
    return (f"HTTP {resp.status}: the server redirects to {where}; redirects are not followed "
            f"(the API key goes only to {_origin(url)}): set the judge base URL to the final address")


def _backoff(attempt: int, retry_after: float | None, backoff_s: float, max_backoff_s: float) -> float:
    """Seconds to wait after failed attempt ``attempt``: ``Retry-After`` or doubling, capped."""
    delay = backoff_s * 2.0 ** min(attempt - 1, 60) if retry_after is None else retry_after
    return min(max(delay, 0.0), max_backoff_s)


def _retry_after(value: str | None) -> float | None:
    """Seconds from a ``Retry-After`` header (delta-seconds or HTTP date), or None."""
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = email.utils.parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
    return max(0.0, seconds) if math.isfinite(seconds) else None
