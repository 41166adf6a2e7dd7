"""One HTTP POST for the judge client: one deadline, capped bodies, no redirects.

* **One deadline per attempt.** Connecting, the TLS handshake, sending, and every
  read of the status line, headers and body (error bodies too) each get only the
  time left until the deadline, so a server trickling a byte at a time cannot
  stretch an attempt past it (:class:`socket.timeout` is raised).
* **No redirects.** A 3xx is returned like any other status: the ``Authorization``
  header never leaves for another address.
* **Capped bodies.** A success body over ``max_body`` bytes raises
  :class:`BodyTooLarge`; an error body is cut at ``max_error_body`` bytes (the rest is
  never read). A body that ends before its ``Content-Length`` raises
  :class:`http.client.IncompleteRead`.

Proxies from the environment (``https_proxy``, ``no_proxy``...) are honoured as by
:mod:`urllib.request`; only ``http`` and ``https`` URLs are opened.
"""

from __future__ import annotations

import functools
import http.client
import io
import socket
import ssl
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from email.message import Message
from typing import Any, Mapping

_MAX_SOCKET_TIMEOUT = 1e6  # socket.settimeout overflows on absurd values
_CHUNK = 65536


class BodyTooLarge(Exception):
    """A success body larger than the cap."""


@dataclass(frozen=True)
class Response:
    """Status, headers and (possibly cut) body; ``note`` says why an error body is partial."""

    status: int
    headers: Message
    body: bytes
    note: str = ""


class Deadline:
    """A point in time; :meth:`left` is what a socket operation may still take."""

    def __init__(self, seconds: float) -> None:
        self.at = time.monotonic() + seconds

    def left(self) -> float:
        """Seconds left (raises :class:`socket.timeout` when none are)."""
        left = self.at - time.monotonic()
        if left <= 0:
            raise socket.timeout("judge request deadline passed")
        return min(left, _MAX_SOCKET_TIMEOUT)


def post(url: str, body: bytes, headers: Mapping[str, str], *, timeout_s: float, max_body: int,
         max_error_body: int) -> Response:
    """POST ``body`` to ``url`` within ``timeout_s`` seconds in all; see the module docstring."""
    if not url.lower().startswith(("http://", "https://")):
        raise ValueError(f"not an http(s) URL: {url!r}")
    deadline = Deadline(timeout_s)
    opener = urllib.request.build_opener(_NoRedirects(), _HTTPHandler(deadline), _HTTPSHandler(deadline))
    req = urllib.request.Request(url, data=body, headers=dict(headers), method="POST")
    try:
        resp = opener.open(req, timeout=timeout_s)
    except urllib.error.HTTPError as exc:
        try:
            data, note = _read_error_body(exc.fp, max_error_body) if exc.fp is not None else (b"", "")
        finally:
            exc.close()
        return Response(exc.code, exc.headers, data, note)
    with resp:
        return Response(resp.status, resp.headers, _read_body(resp, max_body))


def _read_body(resp: Any, cap: int) -> bytes:
    declared = getattr(resp, "length", None)  # bytes still expected, None if unknown
    if declared is not None and declared > cap:
        raise BodyTooLarge(f"response of {declared} bytes is larger than the {cap}-byte limit")
    chunks, size = [], 0
    while True:
        chunk = resp.read1(_CHUNK)
        if not chunk:
            break
        size += len(chunk)
        if size > cap:
            raise BodyTooLarge(f"response is larger than the {cap}-byte limit")
        chunks.append(chunk)
    data = b"".join(chunks)
    missing = getattr(resp, "length", None)
    if missing:  # the server closed the connection before Content-Length bytes came
        raise http.client.IncompleteRead(data, missing)
    return data


def _read_error_body(fp: Any, cap: int) -> tuple[bytes, str]:
    """At most ``cap`` bytes of an error body; a timeout or broken body keeps what came."""
    chunks: list[bytes] = []
    size = 0
    try:
        while size < cap:
            chunk = fp.read1(min(_CHUNK, cap - size))
            if not chunk:
                return b"".join(chunks), ""
            chunks.append(chunk)
            size += len(chunk)
    except socket.timeout:
        return b"".join(chunks), "body not complete at the deadline"
    except (OSError, http.client.HTTPException) as exc:
        return b"".join(chunks), f"body broken off ({type(exc).__name__})"
    return b"".join(chunks), "" if getattr(fp, "length", None) == 0 else f"body cut at {cap} bytes"


# -- plumbing: urllib handlers whose connections obey the deadline ----------------------

class _DeadlineIO(io.RawIOBase):
    """A socket reader whose every read may take only the time left."""

    def __init__(self, sock: socket.socket, deadline: Deadline) -> None:
        super().__init__()
        self._sock, self._deadline = sock, deadline
        self._raw = sock.makefile("rb", buffering=0)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int | None:
        self._sock.settimeout(self._deadline.left())
        return self._raw.readinto(buffer)

    def close(self) -> None:
        if not self.closed:
            self._raw.close()
        super().close()


class _SocketView:
    """What :class:`http.client.HTTPResponse` needs of a socket: ``makefile``."""

    def __init__(self, sock: socket.socket, deadline: Deadline) -> None:
        self._sock, self._deadline = sock, deadline

    def makefile(self, mode: str, *args: Any, **kwargs: Any) -> io.BufferedReader:
        return io.BufferedReader(_DeadlineIO(self._sock, self._deadline))


class _DeadlineResponse(http.client.HTTPResponse):
    def __init__(self, sock: socket.socket, *args: Any, deadline: Deadline, **kwargs: Any) -> None:
        super().__init__(_SocketView(sock, deadline), *args, **kwargs)  # type: ignore[arg-type]


class _DeadlineConnection(http.client.HTTPConnection):
    """Connect, handshake and send within the time left; responses read the same way."""

    def __init__(self, host: str, *, deadline: Deadline, **kwargs: Any) -> None:
        super().__init__(host, **kwargs)
        self._deadline = deadline
        self.response_class = functools.partial(_DeadlineResponse, deadline=deadline)  # type: ignore[assignment]
        self._create_connection = self._open_socket

    def _open_socket(self, address: tuple[str, int], timeout: Any = None,
                     source_address: Any = None) -> socket.socket:
        sock = socket.create_connection(address, self._deadline.left(), source_address)
        sock.settimeout(self._deadline.left())  # what a TLS handshake may take
        return sock

    def send(self, data: Any) -> None:
        if self.sock is not None:
            self.sock.settimeout(self._deadline.left())
        super().send(data)


class _DeadlineHTTPSConnection(_DeadlineConnection, http.client.HTTPSConnection):
    pass


class _HTTPHandler(urllib.request.HTTPHandler):
    def __init__(self, deadline: Deadline) -> None:
        super().__init__()
        self._deadline = deadline

    def http_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(functools.partial(_DeadlineConnection, deadline=self._deadline), req)


@functools.lru_cache(maxsize=1)
def _tls_context() -> ssl.SSLContext:
    return ssl.create_default_context()


class _HTTPSHandler(urllib.request.HTTPSHandler):
    def __init__(self, deadline: Deadline) -> None:
        super().__init__()
        self._deadline = deadline

    def https_open(self, req: urllib.request.Request) -> http.client.HTTPResponse:
        return self.do_open(functools.partial(_DeadlineHTTPSConnection, deadline=self._deadline),
                            req, context=_tls_context())


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """Never follow a redirect: the 3xx reaches the caller as an HTTPError."""

    def _refuse(self, *args: Any) -> None:
        return None

    http_error_301 = http_error_302 = http_error_303 = http_error_307 = http_error_308 = _refuse  # type: ignore[assignment]
